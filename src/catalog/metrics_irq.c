/*
 * metrics_irq.c - metric types of the per-CPU interrupt files: /proc/
 * interrupts (proc_interrupts.c), /proc/softirqs (proc_softirqs.c) and
 * /proc/net/softnet_stat (proc_softnet.c); see metrics.h. One table across
 * the cpu, net and storage subsystems because the three sources share it;
 * grouped by subsystem within. Instances are CPUs ("cpu3") or, for the
 * device rows of /proc/interrupts, the IRQ's name ("eth0-TxRx-0", with
 * "/cpu3" appended for the per-CPU split).
 */
#include "catalog/metrics_irq.h"

#include <stddef.h>

const struct rv_metric rv_metrics_irq[] = {
	/* /proc/interrupts, per CPU */
	{ "cpu.irqs", "1/s", RV_KIND_COUNTER, 3, "hardware interrupts served, all rows of /proc/interrupts" },
	{ "cpu.irq_nmi", "1/s", RV_KIND_COUNTER, 3, "non-maskable interrupts (NMI row)" },
	{ "cpu.irq_loc", "1/s", RV_KIND_COUNTER, 3, "local timer interrupts (LOC row)" },
	{ "cpu.irq_res", "1/s", RV_KIND_COUNTER, 3, "rescheduling interrupts (RES row)" },
	{ "cpu.irq_cal", "1/s", RV_KIND_COUNTER, 3, "function call interrupts (CAL row)" },
	{ "cpu.irq_tlb", "1/s", RV_KIND_COUNTER, 3, "TLB shootdowns (TLB row)" },
	/* /proc/softirqs, per CPU */
	{ "cpu.softirq_hi", "1/s", RV_KIND_COUNTER, 3, "high-priority tasklet softirqs (HI)" },
	{ "cpu.softirq_timer", "1/s", RV_KIND_COUNTER, 3, "timer softirqs (TIMER)" },
	{ "cpu.softirq_irq_poll", "1/s", RV_KIND_COUNTER, 3, "block IRQ polling softirqs (IRQ_POLL)" },
	{ "cpu.softirq_tasklet", "1/s", RV_KIND_COUNTER, 3, "tasklet softirqs (TASKLET)" },
	{ "cpu.softirq_sched", "1/s", RV_KIND_COUNTER, 3, "scheduler load-balancing softirqs (SCHED)" },
	{ "cpu.softirq_hrtimer", "1/s", RV_KIND_COUNTER, 3, "high-resolution timer softirqs (HRTIMER)" },
	{ "cpu.softirq_rcu", "1/s", RV_KIND_COUNTER, 3, "RCU callback softirqs (RCU)" },
	/* /proc/interrupts, network device rows */
	{ "net.irqs", "1/s", RV_KIND_COUNTER, 3, "interrupts of one network IRQ, all CPUs" },
	{ "net.irqs_cpu", "1/s", RV_KIND_COUNTER, 3, "interrupts of one network IRQ on one CPU (hosts of <= 16 CPUs)" },
	/* /proc/softirqs, per CPU */
	{ "net.softirq_net_tx", "1/s", RV_KIND_COUNTER, 3, "network transmit softirqs (NET_TX)" },
	{ "net.softirq_net_rx", "1/s", RV_KIND_COUNTER, 3, "network receive softirqs (NET_RX)" },
	/* /proc/net/softnet_stat, per CPU */
	{ "net.softnet_processed", "1/s", RV_KIND_COUNTER, 3, "packets taken from the backlog and device queues" },
	{ "net.softnet_dropped", "1/s", RV_KIND_EVENT, 3, "packets dropped: backlog full (netdev_max_backlog)" },
	{ "net.softnet_time_squeeze", "1/s", RV_KIND_EVENT, 3, "receive runs that ended with work left (budget or time used up)" },
	{ "net.softnet_flow_limit", "1/s", RV_KIND_EVENT, 3, "packets dropped by the per-flow backlog limit" },
	{ "net.softnet_backlog_len", "packets", RV_KIND_GAUGE, 3, "packets waiting in the CPU's backlog queues" },
	/* /proc/interrupts, storage device rows */
	{ "storage.irqs", "1/s", RV_KIND_COUNTER, 3, "interrupts of one storage IRQ, all CPUs" },
	{ "storage.irqs_cpu", "1/s", RV_KIND_COUNTER, 3, "interrupts of one storage IRQ on one CPU (hosts of <= 16 CPUs)" },
	/* /proc/softirqs, per CPU */
	{ "storage.softirq_block", "1/s", RV_KIND_COUNTER, 3, "block I/O completion softirqs (BLOCK)" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
