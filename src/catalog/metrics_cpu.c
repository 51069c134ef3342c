/*
 * metrics_cpu.c - metric types of the cpu subsystem (see metrics.h).
 */
#include "catalog/metrics.h"

#include <stddef.h>

const struct rv_metric rv_metrics_cpu[] = {
	/* /proc/stat: time shares (ticks, so counters; the rate is a % of one CPU) */
	{ "cpu.user_pct", "%", RV_KIND_COUNTER, 2, "time in user mode (incl. guest)" },
	{ "cpu.nice_pct", "%", RV_KIND_COUNTER, 2, "time in user mode at low priority" },
	{ "cpu.system_pct", "%", RV_KIND_COUNTER, 2, "time in the kernel" },
	{ "cpu.idle_pct", "%", RV_KIND_COUNTER, 2, "idle time" },
	{ "cpu.iowait_pct", "%", RV_KIND_COUNTER, 2, "idle while I/O was outstanding" },
	{ "cpu.irq_pct", "%", RV_KIND_COUNTER, 2, "time serving hardware interrupts" },
	{ "cpu.softirq_pct", "%", RV_KIND_COUNTER, 2, "time serving softirqs" },
	{ "cpu.steal_pct", "%", RV_KIND_COUNTER, 2, "time a hypervisor ran someone else" },
	{ "cpu.busy_pct", "%", RV_KIND_COUNTER, 1, "all but idle and iowait" },
	{ "cpu.context_switches", "1/s", RV_KIND_COUNTER, 2, "context switches" },
	{ "cpu.interrupts", "1/s", RV_KIND_COUNTER, 2, "interrupts, all sources" },
	{ "cpu.forks", "1/s", RV_KIND_COUNTER, 2, "processes and threads created" },
	{ "cpu.procs_running", "tasks", RV_KIND_GAUGE, 2, "runnable tasks" },
	{ "cpu.procs_blocked", "tasks", RV_KIND_GAUGE, 2, "tasks blocked on I/O" },
	/* /proc/loadavg (proc_loadavg.c) */
	{ "cpu.load1", "tasks", RV_KIND_GAUGE, 1, "load average over 1 minute" },
	{ "cpu.load5", "tasks", RV_KIND_GAUGE, 1, "load average over 5 minutes" },
	{ "cpu.load15", "tasks", RV_KIND_GAUGE, 1, "load average over 15 minutes" },
	{ "cpu.tasks_runnable", "tasks", RV_KIND_GAUGE, 2, "runnable tasks (loadavg field 4, before /)" },
	{ "cpu.tasks_total", "tasks", RV_KIND_GAUGE, 2, "tasks on the host (loadavg field 4, after /)" },
	/* /proc/pressure/cpu (proc_pressure.c) */
	{ "cpu.psi_some_avg10_pct", "%", RV_KIND_GAUGE, 2, "time some tasks waited for a CPU, 10 s average" },
	{ "cpu.psi_some_avg60_pct", "%", RV_KIND_GAUGE, 2, "time some tasks waited for a CPU, 60 s average" },
	{ "cpu.psi_some_stall_pct", "%", RV_KIND_COUNTER, 1, "time some tasks waited for a CPU (total= us)" },
	{ "cpu.psi_full_avg10_pct", "%", RV_KIND_GAUGE, 2, "time all non-idle tasks waited for a CPU, 10 s average" },
	{ "cpu.psi_full_avg60_pct", "%", RV_KIND_GAUGE, 2, "time all non-idle tasks waited for a CPU, 60 s average" },
	{ "cpu.psi_full_stall_pct", "%", RV_KIND_COUNTER, 1, "time all non-idle tasks waited for a CPU (total= us)" },
	/* cgroups with a CPU quota, summed over them (sys_cgroup.c) */
	{ "cpu.cgroup_throttled_periods", "1/s", RV_KIND_EVENT, 3, "periods in which a cgroup used up its CPU quota and was throttled (nr_throttled)" },
	{ "cpu.cgroup_throttled_time_ms", "ms/s", RV_KIND_COUNTER, 2, "time cgroups were held back by their CPU quota; 1000 ms/s is one CPU's worth" },
	{ "cpu.cgroups_with_quota", "cgroups", RV_KIND_GAUGE, 3, "cgroups with a CPU quota (cpu.max, cpu.cfs_quota_us)" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
