/*
 * clock.c - CLOCK_MONOTONIC wrappers. See clock.h.
 */
#include "base/clock.h"

#include <time.h>

enum { NS_PER_S = 1000000000 };

rv_ns rv_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (rv_ns)ts.tv_sec * NS_PER_S + (rv_ns)ts.tv_nsec;
}

double rv_clock_since_s(rv_ns start)
{
	return (double)(rv_clock_ns() - start) / NS_PER_S;
}
