/*
 * delay.c - the delay line between scoring and the sinks. See delay.h.
 */
#include "pipeline/delay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rv_delay_init(struct rv_delay *d, const struct rv_model *m, size_t gap, size_t min)
{
	d->cap = (min + 2) * (gap + 1) + 1;
	d->head = d->len = 0;
	d->q = calloc(d->cap, sizeof(*d->q));
	if (!d->q)
		return -ENOMEM;
	for (size_t i = 0; i < d->cap; i++)
		if (!(d->q[i].rank = malloc(m->nchan * sizeof(uint32_t))))
			return -ENOMEM;
	return 0;
}

void rv_delay_fini(struct rv_delay *d)
{
	for (size_t i = 0; d->q && i < d->cap; i++)
		free(d->q[i].rank);
	free(d->q);
	d->q = NULL;
}

void rv_delay_push(struct rv_delay *d, const struct rv_window_out *o, size_t nchan)
{
	struct rv_pending *p = &d->q[(d->head + d->len) % d->cap];

	p->out = *o;
	p->res = *o->res;
	p->out.res = &p->res;
	if (o->nrank)
		memcpy(p->rank, o->rank, nchan * sizeof(uint32_t));
	p->out.rank = p->rank;
	d->len++;
}

/* Emits every window the merger has decided; all of them when final. */
int rv_delay_flush(struct rv_delay *d, const struct rv_incmerge *mg, size_t min,
		       const struct rv_sink *sink, int final)
{
	while (d->len) {
		struct rv_pending *p = &d->q[d->head];
		size_t w = p->out.index;
		int anomaly = 0, rc;

		if (final)
			anomaly = rv_incmerge_covers(mg, w);
		else if (!rv_incmerge_decided(mg, w, min, &anomaly))
			break;
		p->res.anomaly = anomaly;
		if (sink && (rc = sink->window(sink->ctx, &p->out)) != 0)
			return rc;
		d->head = (d->head + 1) % d->cap;
		d->len--;
	}
	return 0;
}
