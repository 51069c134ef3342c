/*
 * sources.h - every source's descriptor, one `const struct rv_source` per
 * source file (defined at the end of that file; source.h is the contract).
 *
 * registry.c lists them in rv_sources[] in this order (the sampling order);
 * the tests and fuzz targets call one source's open/sample/close directly.
 * A new source adds its line here and its entry there.
 */
#ifndef RV_COLLECT_SOURCES_H
#define RV_COLLECT_SOURCES_H

#include "collect/source.h"

/* CPU, load and memory (/proc) */
extern const struct rv_source rv_src_proc_stat;        /* proc_stat.c */
extern const struct rv_source rv_src_proc_loadavg;     /* proc_loadavg.c */
extern const struct rv_source rv_src_proc_pressure;    /* proc_pressure.c */
extern const struct rv_source rv_src_proc_meminfo;     /* proc_meminfo.c */
extern const struct rv_source rv_src_proc_vmstat;      /* proc_vmstat.c */
extern const struct rv_source rv_src_proc_fs;          /* proc_fs.c: /proc/sys/fs */

/* network and block devices (/proc; net.qdisc over rtnetlink) */
extern const struct rv_source rv_src_proc_net_dev;     /* proc_net_dev.c */
extern const struct rv_source rv_src_proc_net_snmp;    /* proc_net_snmp.c */
extern const struct rv_source rv_src_proc_netstat;     /* proc_netstat.c */
extern const struct rv_source rv_src_net_qdisc;        /* net_qdisc.c */
extern const struct rv_source rv_src_proc_diskstats;   /* proc_diskstats.c */

/* per-CPU interrupts (/proc; metric types in catalog/metrics_irq.c) */
extern const struct rv_source rv_src_proc_interrupts;  /* proc_interrupts.c */
extern const struct rv_source rv_src_proc_softirqs;    /* proc_softirqs.c */
extern const struct rv_source rv_src_proc_softnet;     /* proc_softnet.c */

/* /sys: attribute files kept open (sysval.h), directories scanned at open */
extern const struct rv_source rv_src_sys_cpufreq;      /* sys_cpufreq.c */
extern const struct rv_source rv_src_sys_thermal;      /* sys_thermal.c */
extern const struct rv_source rv_src_sys_rapl;         /* sys_rapl.c */
extern const struct rv_source rv_src_sys_numa;         /* sys_numa.c */
extern const struct rv_source rv_src_sys_netclass;     /* sys_netclass.c */
extern const struct rv_source rv_src_sys_infiniband;   /* sys_infiniband.c */
extern const struct rv_source rv_src_sys_cgroup;       /* sys_cgroup.c (sys_cgroup.h) */

/* counters and devices */
extern const struct rv_source rv_src_perf;   /* perf.c: perf_event_open, per CPU */
extern const struct rv_source rv_src_nvml;   /* nvml.c: NVIDIA GPUs, libnvidia-ml by dlopen */

#endif
