/*
 * sysfs_sources.h - the sources that read /sys (source.h is their
 * contract): CPU frequency, temperatures, RAPL energy, NUMA nodes, network
 * link state and InfiniBand port counters. Each keeps its attribute files
 * open (sysval.h) and scans directories only when it opens.
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

#endif
