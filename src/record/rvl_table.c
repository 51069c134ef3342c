/*
 * rvl_table.c - see rvl_table.h. Samples are derived as they are read and
 * kept row-major in a growing buffer, then transposed into the table's
 * columns of the channels that are kept.
 */
#include "record/rvl_table.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "record/rvl.h"
#include "record/rvl_values.h"

enum { ROWS_START = 1024 };

struct reading {
	struct rv_rvl_values v;         /* m = recorded channels + ratios */
	size_t rows, cap;
	float *vals;                    /* rows x m derived values, NAN for gaps */
	double *ts;                     /* rows unix seconds */
	uint8_t *seen;                  /* m: the channel had a value */
};

static int grow(struct reading *rd, struct rv_err *err, const char *path)
{
	size_t cap = rd->cap ? 2 * rd->cap : ROWS_START;
	float *v = rv_big_realloc(rd->vals, cap * rd->v.m * sizeof(*v));
	double *ts;

	if (!v)
		return rv_err_set(err, -ENOMEM, "%s: out of memory for %zu samples", path, cap);
	rd->vals = v;
	ts = rv_big_realloc(rd->ts, cap * sizeof(*ts));
	if (!ts)
		return rv_err_set(err, -ENOMEM, "%s: out of memory for %zu samples", path, cap);
	rd->ts = ts;
	rd->cap = cap;
	return 0;
}

static void store_row(struct reading *rd)
{
	const struct rv_rvl_values *v = &rd->v;
	float *row = rd->vals + rd->rows * v->m;

	for (size_t i = 0; i < v->m; i++) {
		int ok = v->out_ok[i] && isfinite(v->out[i]);

		row[i] = ok ? (float)v->out[i] : NAN;
		rd->seen[i] |= (uint8_t)ok;
	}
	rd->ts[rd->rows++] = (double)v->t * 1e-9;
}

static int read_all(struct reading *rd, const char *path, struct rv_err *err)
{
	int rc;

	while ((rc = rv_rvl_values_next(&rd->v, err)) == 1) {
		if (rd->rows && rd->v.t <= rd->v.last_t)
			return rv_err_set(err, -EINVAL, "%s: sample %zu: timestamp does not advance",
					  path, rd->rows + 1);
		if (rd->rows == rd->cap && (rc = grow(rd, err, path)) != 0)
			return rc;
		store_row(rd);
	}
	if (rc < 0)
		return rc;
	uint64_t off = 0;
	const char *stop = rv_rvl_reader_stopped(rd->v.r, &off);

	if (stop)
		rv_warn("%s: %s; reading the %zu samples before it", path, stop, rd->rows);
	if (rd->rows == 0)
		return rv_err_set(err, -EINVAL, "%s: the recording holds no sample", path);
	return 0;
}

/* The kept channels' columns into a new table. */
static int to_table(const struct reading *rd, const char *path, struct rv_table **out,
		    size_t *dropped, struct rv_err *err)
{
	size_t keep = 0, c = 0;
	struct rv_table *t;
	int rc;

	size_t m = rd->v.m;

	for (size_t i = 0; i < m; i++)
		keep += rd->seen[i] && rv_rvl_values_kind(&rd->v, i) != RV_KIND_STATIC;
	if (dropped)
		*dropped = m - keep;
	if (keep == 0)
		return rv_err_set(err, -EINVAL, "%s: no channel has a value", path);
	rc = rv_table_new(rd->rows, keep, 1, path, &t);
	if (rc)
		return rv_err_set(err, rc, "%s: out of memory for %zu x %zu", path, rd->rows, keep);
	memcpy(t->ts, rd->ts, rd->rows * sizeof(*t->ts));
	for (size_t i = 0; i < m; i++) {
		if (!rd->seen[i] || rv_rvl_values_kind(&rd->v, i) == RV_KIND_STATIC)
			continue;
		t->names[c] = strdup(rv_rvl_values_name(&rd->v, i));
		if (!t->names[c]) {
			rv_table_free(t);
			return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
		}
		for (size_t k = 0; k < rd->rows; k++) {
			float v = rd->vals[k * m + i];

			t->values[c * rd->rows + k] = v;
			t->stats.empty_cells += isnan(v);
		}
		c++;
	}
	*out = t;
	return 0;
}

int rv_rvl_read_table(const char *path, struct rv_table **out, size_t *dropped,
		      struct rv_err *err)
{
	struct reading rd = { 0 };
	struct rv_rvl_reader *r = NULL;
	int rc;

	*out = NULL;
	rc = rv_rvl_reader_open(path, &r, err);
	if (rc)
		return rc;
	rc = rv_rvl_values_init(&rd.v, r);
	if (!rc && !(rd.seen = calloc(rd.v.m + 1, 1)))
		rc = -ENOMEM;
	if (rc)
		rc = rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	if (!rc)
		rc = read_all(&rd, path, err);
	if (!rc)
		rc = to_table(&rd, path, out, dropped, err);
	rv_rvl_values_fini(&rd.v);
	rv_rvl_reader_close(r);
	rv_big_free(rd.vals);
	rv_big_free(rd.ts);
	free(rd.seen);
	return rc;
}
