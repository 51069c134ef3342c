/*
 * csvwrite.h - writing a channel table as CSV (the format csv.h reads).
 */
#ifndef RV_RECORD_CSVWRITE_H
#define RV_RECORD_CSVWRITE_H

#include "base/err.h"
#include "record/table.h"

/* Writes t to path: header "timestamp,<names>" (no timestamp column when
 * t->ts is NULL), then one line per row; NAN is written as an empty cell.
 * Values use %.9g (float32 round-trips). Returns 0 or -errno with err. */
int rv_csv_write(const struct rv_table *t, const char *path, struct rv_err *err);

#endif
