/*
 * table_read.h - a channel table from a file, its format told by its name:
 * FILE.rvl is a recording of `reveal record` (record/rvl_table.h: counters
 * as rates, channels without any value left out); any other name is CSV,
 * plain or gzip-compressed (record/csv.h: gzip is told by its magic bytes,
 * so a CSV.gz, a file without an extension and a pipe all read). The one
 * reader of `reveal detect --train/--test` and `reveal report --data`.
 */
#ifndef RV_RECORD_TABLE_READ_H
#define RV_RECORD_TABLE_READ_H

#include <stddef.h>

#include "base/err.h"
#include "record/table.h"

/* 1 when path names a recording (ends in ".rvl"), else 0. */
int rv_table_path_is_rvl(const char *path);

/*
 * Reads path into a new table (*out, the caller frees it with
 * rv_table_free). 0, or a negative errno with the reader's message in err
 * (it names the file: "PATH:LINE:COLUMN: reason", "PATH: reason"); *out
 * is NULL then. Gaps are left as NAN (see rv_table_fill_gaps).
 */
int rv_table_read_path(const char *path, struct rv_table **out, struct rv_err *err);

/* One file of rv_table_read_many: path and fill_gaps in, the rest out. */
struct rv_table_job {
	const char *path;
	int fill_gaps;           /* rv_table_fill_gaps after reading */
	struct rv_table *t;      /* the table, or NULL when rc != 0 */
	size_t filled;           /* cells filled (fill_gaps) */
	int rc;                  /* 0 or a negative errno, detail in err */
	struct rv_err err;
};

/*
 * Reads the n files of jobs side by side on up to threads threads (they
 * are independent, and reading is a good share of a short run); each job
 * gets its own result, in order. Returns 0 when every file was read, else
 * the first job's failure code.
 */
int rv_table_read_many(struct rv_table_job *jobs, size_t n, unsigned threads);

#endif
