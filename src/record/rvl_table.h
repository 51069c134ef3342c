/*
 * rvl_table.h - a .rvl recording as a channel table for the offline
 * pipeline (`reveal detect --train x.rvl`): the values the live collector
 * would have reported (derive/), so a recording replays what it saw.
 */
#ifndef RV_RECORD_RVL_TABLE_H
#define RV_RECORD_RVL_TABLE_H

#include <stddef.h>

#include "base/err.h"
#include "record/table.h"

/*
 * Reads every sample of path into a new table: timestamps in unix
 * seconds, counters as rates, gaps (the first sample of a counter, a
 * reset, a value the source could not read) as NAN and counted in
 * stats.empty_cells, to be filled like empty CSV cells. Static channels,
 * and channels with no value in the whole recording (a link that was
 * down throughout), are left out; *dropped (may be NULL) counts them. A
 * recording cut short (a crash) is read up to its last complete block,
 * with a warning through rv_log. -EINVAL with the reason for a bad file or
 * one without samples.
 */
int rv_rvl_read_table(const char *path, struct rv_table **out, size_t *dropped,
		      struct rv_err *err);

#endif
