/*
 * rvl_values.c - see rvl_values.h.
 */
#include "record/rvl_values.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "derive/derive.h"

int rv_rvl_values_init(struct rv_rvl_values *v, struct rv_rvl_reader *r)
{
	const char **names;
	int rc;

	memset(v, 0, sizeof(*v));
	v->r = r;
	v->n = rv_rvl_reader_nchan(r);
	names = malloc((v->n ? v->n : 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < v->n; i++)
		names[i] = rv_rvl_reader_chan(r, i)->name;
	rc = rv_ratio_plan_new(names, v->n, &v->ratios);
	free(names);
	v->m = v->n + rv_ratio_count(v->ratios);
	v->out = calloc(v->m + 1, sizeof(*v->out));
	v->out_ok = calloc(v->m + 1, 1);
	v->raw = calloc(v->n + 1, sizeof(*v->raw));
	v->prev = calloc(v->n + 1, sizeof(*v->prev));
	v->ok = calloc(v->n + 1, 1);
	if (rc || !v->out || !v->out_ok || !v->raw || !v->prev || !v->ok) {
		rv_rvl_values_fini(v);
		return -ENOMEM;
	}
	return 0;
}

void rv_rvl_values_fini(struct rv_rvl_values *v)
{
	rv_ratio_plan_free(v->ratios);
	free(v->out);
	free(v->out_ok);
	free(v->raw);
	free(v->prev);
	free(v->ok);
	memset(v, 0, sizeof(*v));
}

const char *rv_rvl_values_name(const struct rv_rvl_values *v, size_t i)
{
	return i < v->n ? rv_rvl_reader_chan(v->r, i)->name : rv_ratio_name(v->ratios, i - v->n);
}

unsigned rv_rvl_values_kind(const struct rv_rvl_values *v, size_t i)
{
	return i < v->n ? rv_rvl_reader_chan(v->r, i)->kind
			: (unsigned)rv_ratio_metric(v->ratios, i - v->n)->kind;
}

int rv_rvl_values_next(struct rv_rvl_values *v, struct rv_err *err)
{
	int64_t t;
	int rc = rv_rvl_reader_next(v->r, &t, v->raw, v->ok, err);

	if (rc != 1)
		return rc;
	for (size_t i = 0; i < v->n; i++) {
		const struct rv_rvl_chan *ch = rv_rvl_reader_chan(v->r, i);

		v->out_ok[i] = (uint8_t)rv_derive_step((enum rv_kind)ch->kind, ch->scale, v->raw[i],
						       v->ok[i], t, &v->prev[i], &v->out[i]);
	}
	rv_ratio_apply(v->ratios, v->out, v->out_ok, v->out + v->n, v->out_ok + v->n);
	v->last_t = v->t;
	v->t = t;
	v->count++;
	return 1;
}
