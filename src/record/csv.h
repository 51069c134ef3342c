/*
 * csv.h - reading channel tables from CSV and gzip-compressed CSV.
 *
 * Format: a header line of comma-separated column names, then one line per
 * sample. A column named `timestamp` (any position, at most one) holds unix
 * seconds (integer or fractional) or ISO-8601 UTC times
 * (2024-01-31T12:00:00Z, with optional fraction, 'T' or ' ' separator, and
 * an optional Z or +hh:mm offset). Every other column is a channel.
 * Lines end in \n or \r\n; a final line without newline is accepted; blank
 * lines at the end are ignored. A gzip file is recognised by its magic
 * bytes, not by its name.
 *
 * Details: names and cells are trimmed of spaces and tabs; there is no CSV
 * quoting, and a column name holding '"' is refused. A time without a zone
 * is UTC; seconds are required; the offset may also be written +hhmm. A
 * blank line followed by more lines is an error; a leading UTF-8 BOM is
 * skipped. A row with the wrong field count is reported without a column,
 * "PATH:LINE: row has N fields, header has M", also when one of its cells
 * is bad too. A gzip stream error (e.g. a truncated .gz) returns -EIO with
 * "PATH: gzip read error: ..."; an open failure returns the OS errno with
 * "PATH: <strerror>".
 */
#ifndef RV_RECORD_CSV_H
#define RV_RECORD_CSV_H

#include "base/err.h"
#include "record/table.h"

/*
 * Reads path into a new table (*out, caller frees with rv_table_free).
 * Returns 0, or a negative errno with err->msg of the form
 * "PATH:LINE:COLUMN: what is wrong" (COLUMN is 1-based, counted in fields)
 * for: an empty file or no header, an empty or duplicate column name,
 * a row with too few or too many fields, a non-numeric cell, an unparsable
 * timestamp, timestamps going backwards (equal timestamps are allowed),
 * a header with no channel column, a file with no data rows.
 * Empty cells, "nan" and "inf"/"-inf" become NAN and are counted in
 * (*out)->stats.
 */
int rv_csv_read(const char *path, struct rv_table **out, struct rv_err *err);

/* Parses one ISO-8601 time (see above) in [s, end) into unix seconds. */
int rv_csv_parse_time(const char *s, const char *end, double *out);

#endif
