/*
 * derive.h - raw samples to values, the one place that knows how: gauges
 * are taken as read (times the channel's scale); counters and events are
 * cumulative and become rates per second over the interval since the
 * channel's last valid sample. A counter that went backwards was reset or
 * wrapped: no value for that interval, never a negative rate; a sample
 * missing now is a gap, and the next one that is there gets the rate over
 * the whole interval since the last valid one (when that is at most
 * RV_DERIVE_MAX_GAP_S old: a source read less often than the sweep, a
 * device back after a short absence). Used by the live collector, by
 * `reveal export` and by
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

#include <stdint.h>

/* Rates are not taken across a longer absence of a channel. */
#define RV_DERIVE_MAX_GAP_S 30.0

/* A channel's last valid raw sample and its time. Zeroed: none yet. */
struct rv_derive_prev {
	double raw;
	int64_t t_ns;
	int ok;
};

/*
 * rv_derive_value for the sample (raw, raw_ok) at t_ns against p, the
 * channel's last valid sample, which it then updates when raw_ok. Returns
 * 1 and *out, or 0 (a gap; *out = 0).
 */
int rv_derive_step(enum rv_kind kind, double scale, double raw, int raw_ok, int64_t t_ns,
		   struct rv_derive_prev *p, double *out);

#endif
