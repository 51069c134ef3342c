/*
 * sysfs_sources.h - the sources that read /sys (source.h is their
 * contract): CPU frequency, temperatures, RAPL energy, NUMA nodes, network
 * link state and InfiniBand port counters. Each keeps its attribute files
 * open (sysval.h) and scans directories only when it opens; sys.cgroup
 * (CPU throttling of the cgroups with a quota) also walks the cgroup tree
 * from sample(), at most once a second and without allocating.
 */
#ifndef RV_COLLECT_SYSFS_SOURCES_H
#define RV_COLLECT_SYSFS_SOURCES_H

#include "collect/source.h"

extern const struct rv_source rv_src_sys_cpufreq;
extern const struct rv_source rv_src_sys_thermal;
extern const struct rv_source rv_src_sys_rapl;
extern const struct rv_source rv_src_sys_numa;
extern const struct rv_source rv_src_sys_netclass;
extern const struct rv_source rv_src_sys_infiniband;
extern const struct rv_source rv_src_sys_cgroup;

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
