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

int64_t rv_clock_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + (int64_t)ts.tv_nsec;
}

int64_t rv_sample_clock_ns(struct rv_sample_clock *c, rv_ns mono, int64_t wall)
{
	int64_t t = c->wall0 + (int64_t)(mono - c->mono0);

	if (!c->based || mono < c->mono0 || t - wall > RV_SAMPLE_CLOCK_SLACK_NS ||
	    wall - t > RV_SAMPLE_CLOCK_SLACK_NS) {
		c->based = 1;
		c->wall0 = wall;
		c->mono0 = mono;
		t = wall;
	}
	return t;
}
