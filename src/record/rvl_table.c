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
#include "derive/derive.h"
#include "derive/ratio.h"
#include "record/rvl.h"

enum { ROWS_START = 1024 };

struct reading {
	struct rv_rvl_reader *r;
	struct rv_ratio_plan *ratios;   /* computed channels, after the n recorded */
	size_t n, m, rows, cap;         /* m = n + ratios: the row width */
	float *vals;                    /* rows x m derived values, NAN for gaps */
	double *ts;                     /* rows unix seconds */
	double *raw, *prev, *cur;       /* cur: m values of this row */
	uint8_t *ok, *prev_ok, *cur_ok, *seen;  /* seen: the channel had a value */
	int64_t prev_t;
};

/* Name, kind of column i < m: a recorded channel or a ratio. */
static const char *col_name(const struct reading *rd, size_t i)
{
	return i < rd->n ? rv_rvl_reader_chan(rd->r, i)->name : rv_ratio_name(rd->ratios, i - rd->n);
}

static unsigned col_kind(const struct reading *rd, size_t i)
{
	return i < rd->n ? rv_rvl_reader_chan(rd->r, i)->kind
			 : (unsigned)rv_ratio_metric(rd->ratios, i - rd->n)->kind;
}

static int grow(struct reading *rd, struct rv_err *err, const char *path)
{
	size_t cap = rd->cap ? 2 * rd->cap : ROWS_START;
	float *v = rv_big_realloc(rd->vals, cap * rd->m * sizeof(*v));
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

static void derive_row(struct reading *rd, int64_t t)
{
	double dt = rd->rows ? (double)(t - rd->prev_t) * 1e-9 : 0.0;
	float *row = rd->vals + rd->rows * rd->m;

	for (size_t i = 0; i < rd->n; i++) {
		const struct rv_rvl_chan *ch = rv_rvl_reader_chan(rd->r, i);

		rd->cur_ok[i] = (uint8_t)rv_derive_value((enum rv_kind)ch->kind, ch->scale,
							 rd->raw[i], rd->ok[i], rd->prev[i],
							 rd->prev_ok[i], dt, &rd->cur[i]);
	}
	rv_ratio_apply(rd->ratios, rd->cur, rd->cur_ok, rd->cur + rd->n, rd->cur_ok + rd->n);
	for (size_t i = 0; i < rd->m; i++) {
		int ok = rd->cur_ok[i] && isfinite(rd->cur[i]);

		row[i] = ok ? (float)rd->cur[i] : NAN;
		rd->seen[i] |= (uint8_t)ok;
	}
	rd->ts[rd->rows++] = (double)t * 1e-9;
	memcpy(rd->prev, rd->raw, rd->n * sizeof(*rd->raw));
	memcpy(rd->prev_ok, rd->ok, rd->n);
	rd->prev_t = t;
}

/* The ratio channels the recorded ones allow (as the collector computes). */
static int plan_ratios(struct reading *rd)
{
	const char **names = malloc((rd->n ? rd->n : 1) * sizeof(*names));
	int rc;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < rd->n; i++)
		names[i] = rv_rvl_reader_chan(rd->r, i)->name;
	rc = rv_ratio_plan_new(names, rd->n, &rd->ratios);
	free(names);
	rd->m = rd->n + rv_ratio_count(rd->ratios);
	return rc;
}

static int read_all(struct reading *rd, const char *path, struct rv_err *err)
{
	int64_t t;
	int rc;

	while ((rc = rv_rvl_reader_next(rd->r, &t, rd->raw, rd->ok, err)) == 1) {
		if (rd->rows && t <= rd->prev_t)
			return rv_err_set(err, -EINVAL, "%s: sample %zu: timestamp does not advance",
					  path, rd->rows + 1);
		if (rd->rows == rd->cap && (rc = grow(rd, err, path)) != 0)
			return rc;
		derive_row(rd, t);
	}
	if (rc < 0)
		return rc;
	uint64_t off = 0;
	const char *stop = rv_rvl_reader_stopped(rd->r, &off);

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

	for (size_t i = 0; i < rd->m; i++)
		keep += rd->seen[i] && col_kind(rd, i) != RV_KIND_STATIC;
	if (dropped)
		*dropped = rd->m - keep;
	if (keep == 0)
		return rv_err_set(err, -EINVAL, "%s: no channel has a value", path);
	rc = rv_table_new(rd->rows, keep, 1, path, &t);
	if (rc)
		return rv_err_set(err, rc, "%s: out of memory for %zu x %zu", path, rd->rows, keep);
	memcpy(t->ts, rd->ts, rd->rows * sizeof(*t->ts));
	for (size_t i = 0; i < rd->m; i++) {
		if (!rd->seen[i] || col_kind(rd, i) == RV_KIND_STATIC)
			continue;
		t->names[c] = strdup(col_name(rd, i));
		if (!t->names[c]) {
			rv_table_free(t);
			return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
		}
		for (size_t k = 0; k < rd->rows; k++) {
			float v = rd->vals[k * rd->m + i];

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
	int rc;

	*out = NULL;
	rc = rv_rvl_reader_open(path, &rd.r, err);
	if (rc)
		return rc;
	rd.n = rv_rvl_reader_nchan(rd.r);
	rc = plan_ratios(&rd);
	rd.raw = calloc(rd.n, sizeof(*rd.raw));
	rd.prev = calloc(rd.n, sizeof(*rd.prev));
	rd.ok = calloc(rd.n, 1);
	rd.prev_ok = calloc(rd.n, 1);
	rd.cur = calloc(rd.m + 1, sizeof(*rd.cur));
	rd.cur_ok = calloc(rd.m + 1, 1);
	rd.seen = calloc(rd.m + 1, 1);
	if (rc || !rd.raw || !rd.prev || !rd.ok || !rd.prev_ok || !rd.cur || !rd.cur_ok || !rd.seen)
		rc = rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	if (!rc)
		rc = read_all(&rd, path, err);
	if (!rc)
		rc = to_table(&rd, path, out, dropped, err);
	rv_rvl_reader_close(rd.r);
	rv_ratio_plan_free(rd.ratios);
	free(rd.cur);
	free(rd.cur_ok);
	rv_big_free(rd.vals);
	rv_big_free(rd.ts);
	free(rd.raw);
	free(rd.prev);
	free(rd.ok);
	free(rd.prev_ok);
	free(rd.seen);
	return rc;
}
