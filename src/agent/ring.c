/*
 * ring.c - see ring.h.
 */
#include "agent/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rv_ring_init(struct rv_ring *r, size_t cap, size_t nchan)
{
	memset(r, 0, sizeof(*r));
	if (cap == 0 || nchan == 0 || cap > SIZE_MAX / nchan / sizeof(float))
		return -EINVAL;
	r->cap = cap;
	r->nchan = nchan;
	r->rows = malloc(cap * nchan * sizeof(*r->rows));
	r->ts = calloc(cap, sizeof(*r->ts));
	r->flagged = calloc(cap, 1);
	if (!r->rows || !r->ts || !r->flagged) {
		rv_ring_fini(r);
		return -ENOMEM;
	}
	return 0;
}

void rv_ring_fini(struct rv_ring *r)
{
	free(r->rows);
	free(r->ts);
	free(r->flagged);
	memset(r, 0, sizeof(*r));
}

void rv_ring_reset(struct rv_ring *r)
{
	r->head = 0;
	r->len = 0;
	r->pushed = 0;
}

float *rv_ring_push(struct rv_ring *r, double ts)
{
	float *row = r->rows + r->head * r->nchan;

	r->ts[r->head] = ts;
	r->flagged[r->head] = 0;
	r->head = (r->head + 1) % r->cap;
	if (r->len < r->cap)
		r->len++;
	r->pushed++;
	return row;
}

static size_t slot(const struct rv_ring *r, size_t back)
{
	return (r->head + r->cap - 1 - back) % r->cap;
}

const float *rv_ring_row(const struct rv_ring *r, size_t back)
{
	return r->rows + slot(r, back) * r->nchan;
}

double rv_ring_ts(const struct rv_ring *r, size_t back)
{
	return r->ts[slot(r, back)];
}

void rv_ring_mark_flagged(struct rv_ring *r, size_t n)
{
	for (size_t b = 0; b < n && b < r->len; b++)
		r->flagged[slot(r, b)] = 1;
}

/* Whether the row in slot s goes into a table: normal, or flagged at or
 * after flagged_since. */
static int take_row(const struct rv_ring *r, size_t s, double flagged_since)
{
	return !r->flagged[s] || r->ts[s] >= flagged_since;
}

int rv_ring_table(const struct rv_ring *r, const char *const *names, size_t max_rows,
		  double flagged_since, struct rv_table **out)
{
	size_t n = 0, span = r->len, k = 0;
	struct rv_table *t;

	*out = NULL;
	/* the newest max_rows qualifying rows: find how far back they reach */
	for (size_t b = 0; b < r->len; b++) {
		if (!take_row(r, slot(r, b), flagged_since))
			continue;
		if (max_rows && n == max_rows) {
			span = b;
			break;
		}
		n++;
	}
	if (n == 0)
		return -ENODATA;
	if (rv_table_new(n, r->nchan, 1, "agent history", &t) != 0)
		return -ENOMEM;
	for (size_t c = 0; c < r->nchan; c++)
		if (!(t->names[c] = strdup(names[c]))) {
			rv_table_free(t);
			return -ENOMEM;
		}
	for (size_t b = span; b-- > 0;) {
		size_t s = slot(r, b);
		const float *row = r->rows + s * r->nchan;

		if (!take_row(r, s, flagged_since))
			continue;
		t->ts[k] = r->ts[s];
		for (size_t c = 0; c < r->nchan; c++)
			t->values[c * n + k] = row[c];
		k++;
	}
	*out = t;
	return 0;
}
