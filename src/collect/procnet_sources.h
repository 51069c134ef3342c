/*
 * procnet_sources.h - the network and block-device sources of /proc:
 * proc.net_dev (proc_net_dev.c), proc.net_snmp (proc_net_snmp.c),
 * proc.netstat (proc_netstat.c) and proc.diskstats (proc_diskstats.c);
 * and net.qdisc (net_qdisc.c), the interfaces' root qdiscs, read over
 * rtnetlink rather than /proc. Listed in registry.c; tests call their
 * open/sample/close directly.
 */
#ifndef RV_COLLECT_PROCNET_SOURCES_H
#define RV_COLLECT_PROCNET_SOURCES_H

#include "collect/source.h"

extern const struct rv_source rv_src_proc_net_dev;
extern const struct rv_source rv_src_proc_net_snmp;
extern const struct rv_source rv_src_proc_netstat;
extern const struct rv_source rv_src_net_qdisc;
extern const struct rv_source rv_src_proc_diskstats;

#endif
