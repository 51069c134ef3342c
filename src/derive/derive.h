/*
 * derive.h - raw samples to values, the one place that knows how: gauges
 * are taken as read (times the channel's scale); counters and events are
 * cumulative and become rates per second over the interval between two
 * samples. A counter that went backwards was reset or wrapped: no value
 * for that interval, never a negative rate; a sample missing now or
 * before is a gap. Used by the live collector, by `reveal export` and by
 * the .rvl table reader, so that a recording replays exactly what the
 * collector saw.
 */
#ifndef RV_DERIVE_DERIVE_H
#define RV_DERIVE_DERIVE_H

#include "catalog/catalog.h"

/*
 * The value of one channel of kind `kind` and scale `scale` from its raw
 * sample (raw, raw_ok) and the previous one (prev, prev_ok) dt_s seconds
 * earlier. Returns 1 and *out, or 0 (a gap; *out = 0).
 */
int rv_derive_value(enum rv_kind kind, double scale, double raw, int raw_ok, double prev,
		    int prev_ok, double dt_s, double *out);

#endif
