/*
 * readcost.h - how much of a sweep is the kernel answering reads: every
 * pread of a source's file goes through rv_pread, which, while
 * rv_read_cost.on is set (`reveal record --profile`), adds the call's
 * wall time and count. Off, it is one predictable branch more than pread.
 * The counters are plain globals: profile one collector in one thread.
 */
#ifndef RV_COLLECT_READCOST_H
#define RV_COLLECT_READCOST_H

#include <errno.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

struct rv_read_cost {
	int on;
	uint64_t ns, calls;
};

extern struct rv_read_cost rv_read_cost;

/* pread(fd, buf, n, off), again on EINTR; timed while profiling. */
static inline ssize_t rv_pread(int fd, void *buf, size_t n, off_t off)
{
	struct timespec a, b;
	ssize_t got;

	if (rv_read_cost.on)
		clock_gettime(CLOCK_MONOTONIC, &a);
	do
		got = pread(fd, buf, n, off);
	while (got < 0 && errno == EINTR);
	if (rv_read_cost.on) {
		clock_gettime(CLOCK_MONOTONIC, &b);
		rv_read_cost.ns += (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000LL +
					      (b.tv_nsec - a.tv_nsec));
		rv_read_cost.calls++;
	}
	return got;
}

#endif
