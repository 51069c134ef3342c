/*
 * table.h - an in-memory multichannel time series: what the offline readers
 * (CSV, CSV.gz, later .rvl) produce and what the offline pipeline consumes.
 *
 * Values are stored column-major as float32 (one contiguous array per
 * channel), because windows and features walk one channel at a time.
 * A missing value (empty cell, NaN, +-Inf in the input) is stored as NAN and
 * counted in `stats`; the pipeline decides how to fill it (never as 0).
 */
#ifndef RV_RECORD_TABLE_H
#define RV_RECORD_TABLE_H

#include <stddef.h>

#include "base/err.h"

struct rv_table_stats {
	size_t empty_cells;     /* cells with no text */
	size_t nan_cells;       /* cells spelled nan */
	size_t inf_cells;       /* cells spelled inf / infinity (either sign) */
};

struct rv_table {
	size_t nrows;
	size_t ncols;           /* channels; the timestamp column is not one */
	char **names;           /* ncols owned NUL-terminated channel names */
	double *ts;             /* nrows unix seconds, or NULL: no timestamp column */
	float *values;          /* ncols * nrows, value of channel c at row r is values[c * nrows + r] */
	struct rv_table_stats stats;
	char *path;             /* owned copy of the source path, for messages */
	size_t ts_field;        /* 0-based field of the timestamp column, SIZE_MAX if none */
};

/* 1-based field (column) number of channel c in the source file. */
static inline size_t rv_table_field(const struct rv_table *t, size_t c)
{
	return c + 1 + (t->ts_field <= c ? 1 : 0);
}

/* Value of channel c at row r. */
static inline float rv_table_at(const struct rv_table *t, size_t c, size_t r)
{
	return t->values[c * t->nrows + r];
}

/*
 * Allocates a table of nrows x ncols with values set to NAN, ts allocated
 * (zeroed) when with_ts is nonzero else NULL, names an array of ncols NULL
 * pointers for the caller to fill with malloc'd strings (rv_table_free frees
 * them), and path copied (NULL is allowed). Returns 0 or -ENOMEM; *out is
 * the caller's to free with rv_table_free.
 */
int rv_table_new(size_t nrows, size_t ncols, int with_ts, const char *path,
		 struct rv_table **out);

/* Frees t and everything it owns; NULL is a no-op. */
void rv_table_free(struct rv_table *t);

/*
 * Replaces each NAN of every channel by the last valid value before it (last
 * observation carried forward); NANs before the first valid value take that
 * first value. Stores the number of replaced cells in *filled (may be NULL).
 * A channel without any valid value fails with -EINVAL and
 * "PATH: channel 'NAME' has no numeric value" before anything is changed.
 * t->stats is left alone: it describes the input, not the filled table.
 */
int rv_table_fill_gaps(struct rv_table *t, size_t *filled, struct rv_err *err);

/*
 * Median of the nrows - 1 differences between consecutive timestamps (the
 * mean of the two middle ones for an even count); 0 when t->ts is NULL or
 * nrows < 2, NAN when out of memory. Does not modify t.
 */
double rv_table_median_step(const struct rv_table *t);

#endif
