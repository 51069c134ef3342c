/*
 * pool.c - allocations freed together; see pool.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"

enum { POOL_FIRST_CAP = 256 };

void *rv_pool_keep(struct rv_pool *pl, void *p)
{
	if (!p) {
		pl->oom = 1;
		return NULL;
	}
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : POOL_FIRST_CAP;
		void **np = realloc(pl->p, cap * sizeof(*np));
		if (!np) {
			free(p);
			pl->oom = 1;
			return NULL;
		}
		pl->p = np;
		pl->cap = cap;
	}
	pl->p[pl->n++] = p;
	return p;
}

void *rv_pool_zalloc(struct rv_pool *pl, size_t n, size_t size)
{
	return rv_pool_keep(pl, calloc(n ? n : 1, size));
}

const char *rv_pool_str(struct rv_pool *pl, const char *s)
{
	const char *c = rv_pool_keep(pl, strdup(s ? s : ""));
	return c ? c : "";
}

const char *rv_pool_printf(struct rv_pool *pl, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	s = rv_pool_keep(pl, s);
	return s ? s : "";
}

void rv_pool_free(struct rv_pool *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->p[i]);
	free(pl->p);
	memset(pl, 0, sizeof(*pl));
}
