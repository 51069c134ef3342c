/*
 * clock.h - monotonic time for measuring intervals and stage durations.
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

#endif
