/*
 * sys_cgroup.h - the tuning knobs of the source sys.cgroup (sys_cgroup.c):
 * CPU throttling of the cgroups with a quota, the cgroup tree walked from
 * sample() at most once a second and without allocating.
 */
#ifndef RV_COLLECT_SYS_CGROUP_H
#define RV_COLLECT_SYS_CGROUP_H

#include <stddef.h>
#include <stdint.h>

/* sys.cgroup's bounds (sys_cgroup.c): quota'd cgroups whose cpu.stat it
 * keeps open and sums, directories one refresh walks, levels below a
 * hierarchy's top that are visited; a walk waits WALK_PACE times what it
 * took before the next (at least the refresh, a second), at most
 * WALK_GAP_MAX_S seconds. */
enum {
	RV_CGROUP_WATCH_MAX = 256, RV_CGROUP_WALK_DIRS = 4096, RV_CGROUP_DEPTH_MAX = 8,
	RV_CGROUP_WALK_PACE = 2000, RV_CGROUP_WALK_GAP_MAX_S = 60,
};

/*
 * For tests and benchmarks: how often sys.cgroup's sample() walks the tree
 * for quotas (refresh_ns, exactly: the gap no longer grows with a walk's
 * cost; 0: at every sample) and how many directories a walk visits at
 * most (walk_dirs; 0: RV_CGROUP_WALK_DIRS). The next sample walks.
 * `state` is what the source's open() set.
 */
void rv_cgroup_tune(void *state, uint64_t refresh_ns, size_t walk_dirs);

/* The time from a walk that took walk_ns to the next: walk_ns *
 * RV_CGROUP_WALK_PACE, at least refresh_ns, at most RV_CGROUP_WALK_GAP_MAX_S
 * (unless refresh_ns is longer). */
uint64_t rv_cgroup_walk_gap_ns(uint64_t refresh_ns, uint64_t walk_ns);

#endif
