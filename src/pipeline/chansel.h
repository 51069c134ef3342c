/*
 * chansel.h - choosing channels by name, for a metric set (`reveal prune`,
 * select/metricset.h, which this module does not include: the choice is a
 * callback): the columns of a table a filter keeps, and the names of one
 * list that another lacks, for the one message that names them.
 *
 * Callers: `reveal detect --metric-set` (the TRAIN and TEST tables) and the
 * agent (the channels of its set this host or recording lacks).
 */
#ifndef RV_PIPELINE_CHANSEL_H
#define RV_PIPELINE_CHANSEL_H

#include <stddef.h>

#include "record/table.h"

enum { RV_CHANSEL_SHOWN = 5 };   /* names a message shows; the rest are counted */

/*
 * Keeps the channels (columns) of t for which keep(ctx, name) is nonzero,
 * in their order, and frees the others' names; values move within t's
 * array (no allocation; the array keeps its size). t->stats still
 * describe the file. Returns the number of channels dropped.
 */
size_t rv_chansel_table(struct rv_table *t, int (*keep)(void *ctx, const char *name), void *ctx);

/*
 * The names of want[0, nwant) that are not in have[0, nhave): their count
 * in *nmissing, and the first RV_CHANSEL_SHOWN in file order in text
 * ("a, b, c" or "a, b, c, d, e and 4 more"; "" for none), cut to fit cap
 * (cap >= 1). Takes O((nwant + nhave) log nhave). 0, or -ENOMEM (then
 * *nmissing is 0 and text "").
 */
int rv_chansel_missing(const char *const *want, size_t nwant, const char *const *have,
		       size_t nhave, char *text, size_t cap, size_t *nmissing);

#endif
