/*
 * registry.c - the one list of sources, in sampling order.
 */
#include "collect/registry.h"

const struct rv_source *const rv_sources[] = {
	&rv_src_proc_stat,
	&rv_src_proc_loadavg,
	&rv_src_proc_pressure,
	&rv_src_proc_meminfo,
	&rv_src_proc_vmstat,
	&rv_src_proc_net_dev,
	&rv_src_proc_net_snmp,
	&rv_src_proc_netstat,
	&rv_src_proc_diskstats,
	NULL,
};
