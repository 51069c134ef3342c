/*
 * registry.c - the one list of sources, in sampling order.
 */
#include "collect/sources.h"

const struct rv_source *const rv_sources[] = {
	&rv_src_proc_stat,
	&rv_src_proc_loadavg,
	&rv_src_proc_pressure,
	&rv_src_proc_meminfo,
	&rv_src_proc_vmstat,
	&rv_src_proc_fs,
	&rv_src_proc_net_dev,
	&rv_src_proc_net_snmp,
	&rv_src_proc_netstat,
	&rv_src_net_qdisc,
	&rv_src_proc_diskstats,
	&rv_src_proc_interrupts,
	&rv_src_proc_softirqs,
	&rv_src_proc_softnet,
	&rv_src_sys_cpufreq,
	&rv_src_sys_thermal,
	&rv_src_sys_rapl,
	&rv_src_sys_numa,
	&rv_src_sys_netclass,
	&rv_src_sys_infiniband,
	&rv_src_sys_cgroup,
	&rv_src_perf,
	&rv_src_nvml,
	NULL,
};
