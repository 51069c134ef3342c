/*
 * chansel.c - see chansel.h.
 */
#include "pipeline/chansel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t rv_chansel_table(struct rv_table *t, int (*keep)(void *ctx, const char *name), void *ctx)
{
	size_t kept = 0, n = t->ncols;

	for (size_t c = 0; c < n; c++) {
		if (!keep(ctx, t->names[c])) {
			free(t->names[c]);
			continue;
		}
		if (kept != c) {
			memmove(t->values + kept * t->nrows, t->values + c * t->nrows,
				t->nrows * sizeof(*t->values));
			t->names[kept] = t->names[c];
		}
		kept++;
	}
	for (size_t c = kept; c < n; c++)
		t->names[c] = NULL;
	t->ncols = kept;
	return n - kept;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends name to text as the k-th missing one (k from 0). */
static void show(char *text, size_t cap, size_t *len, size_t k, const char *name)
{
	int w;

	if (k >= RV_CHANSEL_SHOWN || *len + 1 >= cap)
		return;
	w = snprintf(text + *len, cap - *len, "%s%s", k ? ", " : "", name);
	*len += w < 0 ? 0 : (size_t)w < cap - *len ? (size_t)w : cap - *len - 1;
}

int rv_chansel_missing(const char *const *want, size_t nwant, const char *const *have,
		       size_t nhave, char *text, size_t cap, size_t *nmissing)
{
	const char **sorted = malloc((nhave ? nhave : 1) * sizeof(*sorted));
	size_t len = 0, miss = 0;

	text[0] = '\0';
	*nmissing = 0;
	if (!sorted)
		return -ENOMEM;
	if (nhave)
		memcpy(sorted, have, nhave * sizeof(*sorted));
	qsort(sorted, nhave, sizeof(*sorted), cmp_names);
	for (size_t i = 0; i < nwant; i++) {
		if (bsearch(&want[i], sorted, nhave, sizeof(*sorted), cmp_names))
			continue;
		show(text, cap, &len, miss, want[i]);
		miss++;
	}
	free(sorted);
	if (miss > RV_CHANSEL_SHOWN && len + 1 < cap)
		snprintf(text + len, cap - len, " and %zu more", miss - RV_CHANSEL_SHOWN);
	*nmissing = miss;
	return 0;
}
