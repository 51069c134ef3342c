/*
 * table.c - struct rv_table life cycle and the two whole-table helpers the
 * offline pipeline needs before windowing: gap filling (a detector cannot
 * take NAN, and 0 would be a fake value) and the median sampling step (the
 * nominal interval of a recording whose rows may jitter or have holes).
 * See table.h.
 */
#include "record/table.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/stats.h"

int rv_table_new(size_t nrows, size_t ncols, int with_ts, const char *path,
		 struct rv_table **out)
{
	struct rv_table *t = calloc(1, sizeof(*t));
	size_t cells;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->nrows = nrows;
	t->ncols = ncols;
	t->ts_field = with_ts ? 0 : SIZE_MAX;
	if (ncols && nrows > SIZE_MAX / sizeof(float) / ncols)
		goto fail;
	cells = nrows * ncols;
	t->names = calloc(ncols ? ncols : 1, sizeof(*t->names));
	t->values = rv_big_array(cells, sizeof(*t->values));
	if (!t->names || !t->values)
		goto fail;
	for (size_t i = 0; i < cells; i++)
		t->values[i] = NAN;
	if (with_ts) {
		t->ts = calloc(nrows ? nrows : 1, sizeof(*t->ts));
		if (!t->ts)
			goto fail;
	}
	if (path) {
		t->path = strdup(path);
		if (!t->path)
			goto fail;
	}
	*out = t;
	return 0;
fail:
	rv_table_free(t);
	return -ENOMEM;
}

void rv_table_free(struct rv_table *t)
{
	if (!t)
		return;
	if (t->names) {
		for (size_t c = 0; c < t->ncols; c++)
			free(t->names[c]);
		free(t->names);
	}
	free(t->ts);
	rv_big_free(t->values);
	free(t->path);
	free(t);
}

/* Index of the first non-NAN value of col[0..n), or n. */
static size_t first_valid(const float *col, size_t n)
{
	size_t r = 0;

	while (r < n && isnan(col[r]))
		r++;
	return r;
}

static size_t fill_channel(float *col, size_t n)
{
	size_t first = first_valid(col, n), filled = first;
	float last;

	for (size_t r = 0; r < first; r++)
		col[r] = col[first];
	last = col[first];
	for (size_t r = first + 1; r < n; r++) {
		if (isnan(col[r])) {
			col[r] = last;
			filled++;
		} else {
			last = col[r];
		}
	}
	return filled;
}

int rv_table_fill_gaps(struct rv_table *t, size_t *filled, struct rv_err *err)
{
	size_t total = 0;

	if (filled)
		*filled = 0;
	if (t->nrows == 0)
		return 0;
	/* Check first so that a failure leaves the table as it was. */
	for (size_t c = 0; c < t->ncols; c++) {
		if (first_valid(t->values + c * t->nrows, t->nrows) == t->nrows)
			return rv_err_set(err, -EINVAL,
					  "%s: channel '%s' has no numeric value",
					  t->path ? t->path : "table",
					  t->names[c] ? t->names[c] : "?");
	}
	for (size_t c = 0; c < t->ncols; c++)
		total += fill_channel(t->values + c * t->nrows, t->nrows);
	if (filled)
		*filled = total;
	return 0;
}

double rv_table_median_step(const struct rv_table *t)
{
	return t->ts ? rv_median_step(t->ts, t->nrows) : 0;
}
