/*
 * perf_int.h - the seam between collect/perf.c and the kernel, for
 * perf.c and its test only (not API).
 *
 * perf_event_open cannot be faked with a root prefix, so perf.c makes its
 * three system calls through a struct rv_perf_ops. rv_src_perf uses the
 * real ones; perf_test.c passes a fake that refuses, accepts or scales
 * events as a host without a PMU, a full host or a locked-down host would.
 */
#ifndef RV_COLLECT_PERF_INT_H
#define RV_COLLECT_PERF_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/source.h"

struct perf_event_attr;

struct rv_perf_ops {
	/* perf_event_open(2): a new descriptor, or a negative errno. */
	int (*open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags);
	/* read(2) of a group leader: bytes read, or a negative errno. */
	long (*read)(void *ctx, int fd, void *buf, size_t len);
	void (*close)(void *ctx, int fd);
	void *ctx;                        /* passed to each; borrowed */
	/* Software-event groups are read at most once per sw_period_ns (0:
	 * every sample), by the clock now() (NULL: CLOCK_MONOTONIC), until
	 * rv_src_perf.pace is called: from then on at the sweeps it says. */
	int64_t sw_period_ns;
	int64_t (*now)(void *ctx);
};

/*
 * The open() of rv_src_perf with the system calls of `ops` (copied; ctx
 * must outlive the state). Same contract as rv_src_perf.open; the state is
 * sampled and closed with rv_src_perf.sample and rv_src_perf.close.
 */
int rv_perf_open_ops(const struct rv_collect_cfg *cfg, const struct rv_perf_ops *ops,
		     void **state, struct rv_chanlist *chans, struct rv_err *err);

#endif
