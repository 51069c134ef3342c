/*
 * fmtnum.h - fast number formatting for large text outputs (per-window CSV
 * of tens of thousands of rows), where printf's floating-point path is a
 * measurable share of a run.
 */
#ifndef RV_BASE_FMTNUM_H
#define RV_BASE_FMTNUM_H

#include <stddef.h>

enum { RV_FMT_MAX = 32 };   /* buffer size that fits every output */

/* As printf("%.6g", v) (rounding may differ in the last digit for values
 * that are not exactly representable); returns the length. */
size_t rv_fmt_g6(double v, char *buf);

/* As printf("%.15g", v); integral values are formatted without printf. */
size_t rv_fmt_g15(double v, char *buf);

#endif
