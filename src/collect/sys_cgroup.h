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
 * hierarchy's top that are visited. */
enum { RV_CGROUP_WATCH_MAX = 256, RV_CGROUP_WALK_DIRS = 4096, RV_CGROUP_DEPTH_MAX = 8 };

/*
 * For tests and benchmarks: how often sys.cgroup's sample() walks the tree
 * for quotas (refresh_ns; 0: at every sample) and how many directories a
 * walk visits at most (walk_dirs; 0: RV_CGROUP_WALK_DIRS). The next
 * sample walks. `state` is what the source's open() set.
 */
void rv_cgroup_tune(void *state, uint64_t refresh_ns, size_t walk_dirs);

#endif
