/*
 * chanlist.c - struct rv_chanlist (source.h).
 */
#include "collect/source.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rv_chanlist_add(struct rv_chanlist *l, const char *type, const char *instance,
		    double scale, struct rv_err *err)
{
	const struct rv_metric *m = rv_catalog_metric(type);
	struct rv_chan *c;
	int len;

	if (!m)
		return rv_err_set(err, -EINVAL, "metric type %s is not in the catalog", type);
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct rv_chan *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return rv_err_set(err, -ENOMEM, "out of memory for %zu channels", cap);
		l->v = v;
		l->cap = cap;
	}
	c = &l->v[l->n];
	if (instance && instance[0])
		len = snprintf(c->name, sizeof(c->name), "%s:%s", type, instance);
	else
		len = snprintf(c->name, sizeof(c->name), "%s", type);
	if (len < 0 || (size_t)len >= sizeof(c->name))
		return rv_err_set(err, -EINVAL, "channel name %s:%s is too long", type,
				  instance ? instance : "");
	c->metric = m;
	c->scale = scale != 0.0 ? scale : 1.0;
	c->source = l->source;
	l->n++;
	return 0;
}

int rv_chanlist_note(struct rv_chanlist *l, const char *part, const char *fmt, ...)
{
	va_list ap;

	if (l->nnotes == l->notecap) {
		size_t cap = l->notecap ? 2 * l->notecap : 8;
		struct rv_chan_note *v = realloc(l->notes, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->notes = v;
		l->notecap = cap;
	}
	l->notes[l->nnotes].part = part;
	va_start(ap, fmt);
	vsnprintf(l->notes[l->nnotes].reason, RV_CHAN_NOTE_MAX, fmt, ap);
	va_end(ap);
	l->nnotes++;
	return 0;
}

void rv_chanlist_fini(struct rv_chanlist *l)
{
	free(l->v);
	free(l->notes);
	memset(l, 0, sizeof(*l));
}
