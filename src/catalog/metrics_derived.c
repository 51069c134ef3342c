/*
 * metrics_derived.c - metric types computed from other channels by
 * derive/ratio.c (see metrics.h). Gauges: they are values, not totals.
 */
#include "catalog/metrics.h"

#include <stddef.h>

const struct rv_metric rv_metrics_derived[] = {
	{ "cpu.ipc", "instr/cycle", RV_KIND_GAUGE, 2, "instructions per cycle (instructions / cycles)" },
	{ "cpu.cache_miss_pct", "%", RV_KIND_GAUGE, 2, "cache misses per cache reference" },
	{ "cpu.branch_miss_pct", "%", RV_KIND_GAUGE, 3, "mispredicted branches per branch" },
	{ "cpu.busy_mhz", "MHz", RV_KIND_GAUGE, 2,
	  "average clock while not halted: TSC rate x APERF / MPERF (turbostat's Bzy_MHz)" },
	{ "net.tcp_retrans_pct", "%", RV_KIND_GAUGE, 2, "TCP segments retransmitted per segment sent" },
	{ "net.tcp_data_segment_bytes", "bytes/segment", RV_KIND_GAUGE, 2,
	  "IP bytes sent per TCP data segment (IPExt OutOctets / TcpExt TCPOrigDataSent): about "
	  "the segment size (MSS) of bulk traffic; it falls when the MTU or MSS of the path does" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
