/*
 * compare_int.h - what the files of `reveal compare`'s library share
 * (internal to pipeline/): compare.c writes times into its messages with
 * the formatter of compare_write.c.
 */
#ifndef RV_PIPELINE_COMPARE_INT_H
#define RV_PIPELINE_COMPARE_INT_H

#include <stddef.h>

enum { RV_COMPARE_ISO_MAX = 32 };   /* "2026-12-02T10:00:00Z", or a number, with NUL */

/* ts (unix seconds) as ISO-8601 UTC to the second into buf; "?" for NaN,
 * "-inf"/"inf" for no bound, the number itself out of the calendar's
 * range. */
void rv_compare_iso(double ts, char *buf, size_t n);

#endif
