/*
 * metrics_perf.c - metric types of the cpu subsystem counted per CPU with
 * perf events by collect/perf.c (see metrics.h). All are cumulative
 * counts; the collector turns them into rates. Ratios (instructions per
 * cycle, miss rates, busy MHz from aperf/mperf/tsc) are derived later from
 * these rates, never here. Kept apart from metrics_cpu.c so that the two
 * tables can grow independently; the catalog lists this table with the
 * others.
 */
#include "catalog/metrics_perf.h"

#include <stddef.h>

const struct rv_metric rv_metrics_perf[] = {
	/* hardware PMU (absent in most VMs) */
	{ "cpu.cycles", "1/s", RV_KIND_COUNTER, 3, "core cycles (perf cycles)" },
	{ "cpu.instructions", "1/s", RV_KIND_COUNTER, 3, "instructions retired" },
	{ "cpu.cache_references", "1/s", RV_KIND_COUNTER, 3, "cache references (perf cache-references, usually LLC)" },
	{ "cpu.cache_misses", "1/s", RV_KIND_COUNTER, 3, "cache misses (perf cache-misses, usually LLC)" },
	{ "cpu.branches", "1/s", RV_KIND_COUNTER, 3, "branch instructions retired" },
	{ "cpu.branch_misses", "1/s", RV_KIND_COUNTER, 3, "mispredicted branches" },
	{ "cpu.stalled_cycles_frontend", "1/s", RV_KIND_COUNTER, 3, "cycles the front end issued nothing" },
	{ "cpu.stalled_cycles_backend", "1/s", RV_KIND_COUNTER, 3, "cycles the back end retired nothing" },
	{ "cpu.llc_load_misses", "1/s", RV_KIND_COUNTER, 3, "loads that missed the last-level cache" },
	/* software events of the kernel: work everywhere perf is allowed */
	{ "cpu.perf_context_switches", "1/s", RV_KIND_COUNTER, 3, "context switches on this CPU (perf)" },
	{ "cpu.perf_cpu_migrations", "1/s", RV_KIND_COUNTER, 3, "tasks migrated to this CPU (perf)" },
	{ "cpu.perf_page_faults", "1/s", RV_KIND_COUNTER, 3, "page faults taken on this CPU (perf)" },
	{ "cpu.perf_minor_faults", "1/s", RV_KIND_COUNTER, 3, "page faults served without I/O (perf)" },
	{ "cpu.perf_major_faults", "1/s", RV_KIND_COUNTER, 3, "page faults that needed I/O (perf)" },
	/* msr PMU: busy MHz = tsc rate / 1e6 * aperf rate / mperf rate */
	{ "cpu.aperf", "1/s", RV_KIND_COUNTER, 3, "APERF: cycles at the actual clock while not halted" },
	{ "cpu.mperf", "1/s", RV_KIND_COUNTER, 3, "MPERF: cycles at the base clock while not halted" },
	{ "cpu.tsc", "1/s", RV_KIND_COUNTER, 3, "time stamp counter (base clock, always running)" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
