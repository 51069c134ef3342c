/*
 * clock.h - monotonic time for measuring intervals and stage durations, and
 * the wall-clock timestamps of samples whose rates the monotonic clock times.
 */
#ifndef RV_BASE_CLOCK_H
#define RV_BASE_CLOCK_H

#include <stdint.h>

/* Nanoseconds; the unit is in the name (STYLE.md). */
typedef uint64_t rv_ns;

/* CLOCK_MONOTONIC now. */
rv_ns rv_clock_ns(void);

/* Seconds elapsed since start. */
double rv_clock_since_s(rv_ns start);

/* CLOCK_REALTIME now, in unix nanoseconds. */
int64_t rv_clock_wall_ns(void);

/*
 * Wall-clock timestamps for samples whose rates are taken on the monotonic
 * clock: the wall time of the first sample plus the monotonic time since,
 * so that the differences of two timestamps are the monotonic ones (a
 * recording's rates, derived from its timestamps, are then the rates the
 * live collector computed, to the bit). The wall clock is followed again
 * when it is more than RV_SAMPLE_CLOCK_SLACK_NS away (a step of the clock;
 * NTP's slewing moves both clocks alike). Zero-initialise.
 */
#define RV_SAMPLE_CLOCK_SLACK_NS 20000000LL
struct rv_sample_clock {
	int based;
	int64_t wall0;
	rv_ns mono0;
};
/* The timestamp of a sample taken at monotonic time mono, wall clock wall. */
int64_t rv_sample_clock_ns(struct rv_sample_clock *c, rv_ns mono, int64_t wall);

#endif
