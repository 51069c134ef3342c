/*
 * metrics_cpu.c - metric types of the cpu subsystem (see metrics.h).
 */
#include "catalog/metrics.h"

#include <stddef.h>

const struct rv_metric rv_metrics_cpu[] = {
	/* /proc/stat: time shares (ticks, so counters; the rate is a % of one CPU) */
	{ "cpu.user_pct", "%", RV_KIND_COUNTER, "time in user mode (incl. guest)" },
	{ "cpu.nice_pct", "%", RV_KIND_COUNTER, "time in user mode at low priority" },
	{ "cpu.system_pct", "%", RV_KIND_COUNTER, "time in the kernel" },
	{ "cpu.idle_pct", "%", RV_KIND_COUNTER, "idle time" },
	{ "cpu.iowait_pct", "%", RV_KIND_COUNTER, "idle while I/O was outstanding" },
	{ "cpu.irq_pct", "%", RV_KIND_COUNTER, "time serving hardware interrupts" },
	{ "cpu.softirq_pct", "%", RV_KIND_COUNTER, "time serving softirqs" },
	{ "cpu.steal_pct", "%", RV_KIND_COUNTER, "time a hypervisor ran someone else" },
	{ "cpu.busy_pct", "%", RV_KIND_COUNTER, "all but idle and iowait" },
	{ "cpu.context_switches", "1/s", RV_KIND_COUNTER, "context switches" },
	{ "cpu.interrupts", "1/s", RV_KIND_COUNTER, "interrupts, all sources" },
	{ "cpu.forks", "1/s", RV_KIND_COUNTER, "processes and threads created" },
	{ "cpu.procs_running", "tasks", RV_KIND_GAUGE, "runnable tasks" },
	{ "cpu.procs_blocked", "tasks", RV_KIND_GAUGE, "tasks blocked on I/O" },
	{ NULL, NULL, RV_KIND_GAUGE, NULL },
};
