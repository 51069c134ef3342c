/*
 * kb_testdata.h - test support of kb_test.c (not part of the library): the
 * synthetic host and the crafted incidents of the confusion matrix.
 *
 * A host of ~300 channels with realistic names: the signals the rules
 * read, ~45 background channels that no case moves, eleven per-CPU
 * families (cpu0..cpu7), and the GPM, NVLink and health channels of two
 * Hopper GPUs (a case removes them with GONE for an older GPU). Each case
 * names the one rule that must fire and
 * the channels that move in its incident; host_fill() writes 60 baseline
 * and 30 incident samples 0.5 s apart with 0.5 % seeded noise (base/rng.h),
 * host_evidence() builds their evidence as the agent would.
 *
 * Header-only on purpose: the build compiles every .c file of src/explain
 * that is not a *_test.c into the library. Everything here is static.
 */
#ifndef RV_EXPLAIN_KB_TESTDATA_H
#define RV_EXPLAIN_KB_TESTDATA_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/rng.h"
#include "explain/evidence.h"

#ifndef NELEM
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#endif

enum {
	BASE_ROWS = 60,
	INC_ROWS = 30,
	NROWS = BASE_ROWS + INC_ROWS,
	NCPU = 8,
	PULSE_ROW = BASE_ROWS + 5,   /* the one incident sample of an event */
	MOVES_MAX = 16,
	NAME_MAX_LEN = 64,
	CHAN_MAX = 320,
};
#define STEP_S 0.5   /* an incident of 14.5 s: long enough for `grows` */
#define T0 1.7e9
#define NOISE_REL 0.005

struct chan_def {
	const char *name;
	double base;
};

/* Signals the rules read (host-wide or one instance). */
static const struct chan_def signals[] = {
	{ "cpu.busy_pct", 30 }, { "cpu.user_pct", 25 }, { "cpu.system_pct", 4 },
	{ "cpu.softirq_pct", 1 }, { "cpu.irq_pct", 0.3 }, { "cpu.steal_pct", 0.1 },
	{ "cpu.idle_pct", 70 },
	{ "cpu.iowait_pct", 0.5 }, { "cpu.procs_running", 6 }, { "cpu.procs_blocked", 0 },
	{ "cpu.load1", 6 }, { "cpu.context_switches", 20000 }, { "cpu.psi_some_avg10_pct", 0 },
	{ "cpu.psi_full_avg10_pct", 0 }, { "cpu.psi_some_stall_pct", 0.5 },
	{ "cpu.cgroup_throttled_periods", 0 }, { "cpu.cgroup_throttled_time_ms", 0 },
	{ "cpu.ipc", 1.8 }, { "cpu.cache_miss_pct", 20 },
	{ "cpu.llc_load_misses", 2e6 }, { "cpu.stalled_cycles_backend", 1e9 },
	{ "cpu.busy_mhz", 3400 }, { "cpu.temp_c:x86_pkg_temp0", 62 },
	{ "cpu.power_w:package-0", 210 },
	{ "mem.mem_available_bytes", 1e11 }, { "mem.mem_free_bytes", 6e10 },
	{ "mem.cached_bytes", 3e10 }, { "mem.anon_pages_bytes", 2e10 },
	{ "mem.active_anon_bytes", 1.8e10 }, { "mem.committed_as_bytes", 4e10 },
	{ "mem.dirty_bytes", 5e7 }, { "mem.writeback_bytes", 0 }, { "mem.nr_dirty_bytes", 5e7 },
	{ "mem.nr_writeback_bytes", 0 }, { "mem.swap_free_bytes", 8e9 }, { "mem.pswpin", 0 },
	{ "mem.pswpout", 0 }, { "mem.pgmajfault", 10 }, { "mem.psi_some_avg10_pct", 0 },
	{ "mem.pgscan_direct", 0 }, { "mem.oom_kill", 0 }, { "mem.hugepages_total", 0 },
	{ "mem.hugepages_free", 0 }, { "mem.hugetlb_bytes", 0 }, { "mem.numa_miss", 0 },
	{ "mem.numa_foreign", 0 }, { "mem.numa_other", 100 }, { "mem.numa_hit", 5e5 },
	{ "mem.numa_hint_faults", 0 }, { "mem.pgmigrate_success", 0 },
	{ "mem.node_numa_miss:node0", 0 }, { "mem.node_numa_miss:node1", 0 },
	{ "mem.node_mem_used_bytes:node0", 4e10 }, { "mem.node_hugepages_total:node0", 0 },
	{ "net.tcp_retrans_segs", 2 }, { "net.tcpext_tcp_timeouts", 0 },
	{ "net.tcp_retrans_pct", 0.01 }, { "net.tcp_out_segs", 20000 },
	{ "net.tcpext_tcp_retrans_fail", 0 }, { "net.tcpext_tcp_slow_start_retrans", 0 },
	{ "net.tcpext_tcp_ofo_queue", 5 },
	{ "net.qdisc_drops:eth0", 0 }, { "net.qdisc_overlimits:eth0", 0 },
	{ "net.qdisc_backlog_bytes:eth0", 0 }, { "net.qdisc_qlen:eth0", 0 },
	{ "net.rx_bytes:eth0", 1.2e8 }, { "net.tx_bytes:eth0", 9e7 }, { "net.rx_drop:eth0", 0 },
	{ "net.tx_drop:eth0", 0 }, { "net.rx_errs:eth0", 0 },
	{ "net.ib_port_xmit_data:mlx5_0_1", 5e9 }, { "net.ib_port_rcv_data:mlx5_0_1", 5e9 },
	{ "net.ib_port_xmit_wait:mlx5_0_1", 1000 }, { "net.ib_port_xmit_data:mlx5_1_1", 5e9 },
	{ "net.ib_port_rcv_data:mlx5_1_1", 5e9 },
	{ "storage.busy_pct:nvme0n1", 5 }, { "storage.weighted_time_ms:nvme0n1", 20 },
	{ "storage.write_bytes:nvme0n1", 5e7 }, { "storage.read_bytes:nvme0n1", 2e8 },
	{ "storage.psi_some_avg10_pct", 0 }, { "storage.psi_full_avg10_pct", 0 },
	{ "storage.flushes:nvme0n1", 2 }, { "storage.writes_merged:nvme0n1", 40 },
	{ "storage.dentries", 2.2e5 }, { "storage.dentries_negative", 1.4e5 },
	{ "storage.inodes", 7.5e4 }, { "mem.sreclaimable_bytes", 1.6e9 },
	{ "mem.buffers_bytes", 5e8 },
	{ "gpu.util_pct:gpu0", 97 }, { "gpu.util_pct:gpu1", 97 },
	{ "gpu.sm_clock_mhz:gpu0", 1980 }, { "gpu.sm_clock_mhz:gpu1", 1980 },
	{ "gpu.temp_c:gpu0", 68 }, { "gpu.temp_c:gpu1", 66 },
	{ "gpu.power_w:gpu0", 640 }, { "gpu.power_w:gpu1", 630 },
	{ "gpu.mem_util_pct:gpu0", 60 }, { "gpu.mem_util_pct:gpu1", 60 },
	{ "gpu.throttle_thermal:gpu0", 0 }, { "gpu.throttle_thermal:gpu1", 0 },
	{ "gpu.throttle_power:gpu0", 0 }, { "gpu.throttle_power:gpu1", 0 },
	{ "gpu.throttle_hw_slowdown:gpu0", 0 }, { "gpu.throttle_hw_slowdown:gpu1", 0 },
	{ "gpu.throttle_reasons:gpu0", 0 }, { "gpu.throttle_reasons:gpu1", 0 },
	{ "gpu.xid_errors:gpu0", 0 }, { "gpu.xid_errors:gpu1", 0 },
	{ "gpu.ecc_corrected:gpu0", 0 }, { "gpu.ecc_uncorrected:gpu0", 0 },
	{ "gpu.ecc_uncorrected:gpu1", 0 }, { "gpu.pcie_replays:gpu0", 0 },
	{ "gpu.retired_pages:gpu0", 0 }, { "gpu.pcie_rx_bytes:gpu0", 3e9 },
};

/* Channels the cases of the first rules do not move. */
static const struct chan_def background[] = {
	{ "cpu.nice_pct", 0.2 }, { "cpu.forks", 15 }, { "cpu.interrupts", 30000 },
	{ "cpu.load5", 6 }, { "cpu.load15", 6 }, { "cpu.tasks_total", 900 },
	{ "cpu.branch_miss_pct", 1.5 }, { "mem.slab_bytes", 2e9 }, { "mem.page_tables_bytes", 2e8 },
	{ "mem.kernel_stack_bytes", 3e7 }, { "mem.shmem_bytes", 1e9 }, { "mem.mapped_bytes", 2e9 },
	{ "mem.inactive_file_bytes", 1.5e10 },
	{ "mem.active_file_bytes", 1.2e10 }, { "mem.pgfault", 30000 },
	{ "mem.pgpgin_bytes", 1e6 }, { "mem.pgpgout_bytes", 4e6 }, { "mem.thp_fault_alloc", 20 },
	{ "mem.workingset_refault", 5 }, { "net.rx_packets:eth0", 90000 },
	{ "net.tx_packets:eth0", 80000 }, { "net.tcp_in_segs", 20000 },
	{ "net.tcp_curr_estab", 120 }, { "net.tcp_active_opens", 3 },
	{ "net.udp_in_datagrams", 50 }, { "net.udp_out_datagrams", 50 },
	{ "net.ip_in_receives", 21000 }, { "net.ipext_in_octets", 1.2e8 },
	{ "net.ipext_out_octets", 9e7 }, { "net.ib_port_rcv_packets:mlx5_0_1", 1.2e6 },
	{ "net.ib_port_xmit_packets:mlx5_0_1", 1.2e6 }, { "net.link_up:eth0", 1 },
	{ "net.carrier_changes:eth0", 0 }, { "storage.reads:nvme0n1", 800 },
	{ "storage.writes:nvme0n1", 300 }, { "storage.in_flight:nvme0n1", 1 },
	{ "storage.reads:sda", 2 }, { "storage.writes:sda", 5 }, { "storage.busy_pct:sda", 0.5 },
	{ "gpu.mem_used_bytes:gpu0", 6e10 }, { "gpu.mem_used_bytes:gpu1", 6e10 },
	{ "gpu.pstate:gpu0", 0 }, { "gpu.mem_clock_mhz:gpu0", 2619 },
	{ "gpu.pcie_tx_bytes:gpu0", 2e9 },
};

/* Families with one member per CPU, "<name>:cpu<N>". */
static const struct chan_def per_cpu[] = {
	{ "cpu.busy_pct", 30 }, { "cpu.user_pct", 25 }, { "cpu.system_pct", 4 },
	{ "cpu.softirq_pct", 1 }, { "cpu.irq_pct", 0.3 }, { "cpu.steal_pct", 0.1 },
	{ "cpu.iowait_pct", 0.5 }, { "net.softirq_net_rx", 2000 }, { "cpu.freq_mhz", 3400 },
	{ "net.softnet_dropped", 0 }, { "net.softirq_net_tx", 50 },
};

/* GPM (per GPU), NVLink (per link "gpu<N>-link<L>"), health and process
 * channels of a Hopper GPU, and the RDMA transport errors of the IB port.
 * Added after the families above, so that the noise drawn for the older
 * channels stays what it was. */
static const struct chan_def gpu_depth[] = {
	{ "gpu.gr_active_pct:gpu0", 95 }, { "gpu.gr_active_pct:gpu1", 95 },
	{ "gpu.sm_active_pct:gpu0", 80 }, { "gpu.sm_active_pct:gpu1", 80 },
	{ "gpu.sm_occupancy_pct:gpu0", 40 }, { "gpu.sm_occupancy_pct:gpu1", 40 },
	{ "gpu.tensor_active_pct:gpu0", 55 }, { "gpu.tensor_active_pct:gpu1", 55 },
	{ "gpu.fp32_active_pct:gpu0", 6 }, { "gpu.fp16_active_pct:gpu0", 3 },
	{ "gpu.dram_active_pct:gpu0", 45 }, { "gpu.dram_active_pct:gpu1", 45 },
	{ "gpu.gpm_pcie_tx_bytes:gpu0", 2e9 }, { "gpu.gpm_pcie_rx_bytes:gpu0", 3e9 },
	{ "gpu.gpm_pcie_tx_bytes:gpu1", 2e9 }, { "gpu.gpm_pcie_rx_bytes:gpu1", 3e9 },
	{ "gpu.nvlink_tx_bytes:gpu0", 6e10 }, { "gpu.nvlink_rx_bytes:gpu0", 6e10 },
	{ "gpu.nvlink_tx_bytes:gpu1", 6e10 }, { "gpu.nvlink_rx_bytes:gpu1", 6e10 },
	{ "gpu.nvlink_up:gpu0-link0", 1 }, { "gpu.nvlink_up:gpu0-link1", 1 },
	{ "gpu.nvlink_up:gpu1-link0", 1 }, { "gpu.nvlink_up:gpu1-link1", 1 },
	{ "gpu.nvlink_data_tx_bytes:gpu0-link0", 3e10 },
	{ "gpu.nvlink_data_rx_bytes:gpu0-link0", 3e10 },
	{ "gpu.nvlink_data_tx_bytes:gpu0-link1", 3e10 },
	{ "gpu.nvlink_data_rx_bytes:gpu0-link1", 3e10 },
	{ "gpu.nvlink_data_tx_bytes:gpu1-link0", 3e10 },
	{ "gpu.nvlink_data_rx_bytes:gpu1-link0", 3e10 },
	{ "gpu.nvlink_crc_flit_errors:gpu0-link0", 0 },
	{ "gpu.nvlink_crc_flit_errors:gpu0-link1", 0 },
	{ "gpu.nvlink_crc_data_errors:gpu0-link1", 0 },
	{ "gpu.nvlink_replay_errors:gpu0-link0", 0 },
	{ "gpu.nvlink_replay_errors:gpu0-link1", 0 },
	{ "gpu.nvlink_recovery_errors:gpu0-link1", 0 },
	{ "gpu.nvlink_replay_errors:gpu1-link0", 0 },
	{ "gpu.mem_temp_c:gpu0", 72 }, { "gpu.mem_temp_c:gpu1", 70 },
	{ "gpu.remapped_rows_corr:gpu0", 0 }, { "gpu.remapped_rows_uncorr:gpu0", 0 },
	{ "gpu.remap_pending:gpu0", 0 }, { "gpu.remap_failed:gpu0", 0 },
	{ "gpu.processes:gpu0", 1 }, { "gpu.processes:gpu1", 1 },
	{ "net.ib_out_of_sequence:mlx5_0_1", 0 }, { "net.ib_local_ack_timeout_err:mlx5_0_1", 0 },
	{ "net.ib_packet_seq_err:mlx5_0_1", 0 },
};

/* The signals of the rules of process and page churn, swap, direct I/O,
 * local floods and segment sizes; after the families above as well. */
static const struct chan_def churn[] = {
	{ "mem.swap_total_bytes", 8e9 }, { "mem.commit_limit_bytes", 6e10 },
	{ "net.tcp_data_segment_bytes", 1460 }, { "net.tcpext_tcp_orig_data_sent", 1.8e4 },
	{ "net.rx_packets:lo", 200 }, { "net.rx_bytes:lo", 2e6 },
	{ "mem.psi_some_stall_pct", 0.1 }, { "storage.psi_some_stall_pct", 0.1 },
	{ "mem.pgfree", 3e4 },
};

enum mv_kind { LEVEL, BURST, PULSE, RAMP, GONE };

/* In the incident, every channel matching pat (fnmatch) goes to `to`
 * (LEVEL), swings +-amp around it (BURST), is `to` in one sample and 0
 * in the others (PULSE: an event counter), climbs in a straight line from
 * its baseline to `to` at the last sample (RAMP: a leak). GONE: the
 * channel has no value anywhere (a host without it: no PMU counters).
 * Later moves override. */
struct move {
	const char *pat;
	double to;
	enum mv_kind kind;
	double amp;
};

struct scenario {
	const char *rule;   /* the one rule that must fire; NULL: none */
	struct move mv[MOVES_MAX];
};

static const struct scenario cases[] = {
	{ "numa-remote-memory", {
		{ "cpu.ipc", 0.9, LEVEL, 0 }, { "cpu.llc_load_misses", 9e6, LEVEL, 0 },
		{ "cpu.stalled_cycles_backend", 2.2e9, LEVEL, 0 },
		{ "mem.numa_miss", 4e4, LEVEL, 0 }, { "mem.numa_foreign", 4e4, LEVEL, 0 },
		{ "mem.numa_other", 3.5e4, LEVEL, 0 }, { "mem.node_numa_miss:node1", 4e4, LEVEL, 0 },
		{ "mem.numa_hint_faults", 1500, LEVEL, 0 } } },
	{ "memory-bandwidth-saturation", {
		{ "cpu.ipc", 1.0, LEVEL, 0 }, { "cpu.stalled_cycles_backend", 3e9, LEVEL, 0 },
		{ "cpu.cache_miss_pct", 55, LEVEL, 0 }, { "cpu.llc_load_misses", 8e6, LEVEL, 0 } } },
	/* misses served by the LLC: the miss ratio rises, LLC misses do not */
	{ "cache-thrash", {
		{ "cpu.ipc", 1.1, LEVEL, 0 }, { "cpu.cache_miss_pct", 45, LEVEL, 0 },
		{ "cpu.stalled_cycles_backend", 1.6e9, LEVEL, 0 },
		{ "cpu.context_switches", 30000, LEVEL, 0 } } },
	{ "cpu-compute-bound", {
		{ "cpu.user_pct", 70, LEVEL, 0 }, { "cpu.busy_pct", 75, LEVEL, 0 },
		{ "cpu.idle_pct", 25, LEVEL, 0 }, { "cpu.user_pct:cpu*", 70, LEVEL, 0 },
		{ "cpu.busy_pct:cpu*", 75, LEVEL, 0 } } },
	/* the same on a host without hardware counters */
	{ "cpu-bound-undecided", {
		{ "cpu.user_pct", 70, LEVEL, 0 }, { "cpu.busy_pct", 75, LEVEL, 0 },
		{ "cpu.idle_pct", 25, LEVEL, 0 }, { "cpu.user_pct:cpu*", 70, LEVEL, 0 },
		{ "cpu.busy_pct:cpu*", 75, LEVEL, 0 }, { "cpu.context_switches", 30000, LEVEL, 0 },
		{ "cpu.ipc", 0, GONE, 0 }, { "cpu.cache_miss_pct", 0, GONE, 0 },
		{ "cpu.llc_load_misses", 0, GONE, 0 },
		{ "cpu.stalled_cycles_backend", 0, GONE, 0 } } },
	{ "nccl-single-qp-bottleneck", {
		{ "cpu.busy_pct:cpu3", 100, LEVEL, 0 }, { "cpu.user_pct:cpu3", 92, LEVEL, 0 },
		{ "cpu.busy_pct", 38.75, LEVEL, 0 }, { "cpu.user_pct", 33.4, LEVEL, 0 },
		{ "net.ib_port_xmit_data:mlx5_0_1", 5e9, BURST, 0.6 },
		{ "net.ib_port_rcv_data:mlx5_0_1", 5e9, BURST, 0.6 },
		{ "net.ib_port_xmit_wait:mlx5_0_1", 4e4, LEVEL, 0 },
		{ "gpu.util_pct:gpu*", 55, LEVEL, 0 }, { "gpu.power_w:gpu*", 420, LEVEL, 0 } } },
	{ "irq-imbalance", {
		{ "cpu.softirq_pct:cpu0", 30, LEVEL, 0 }, { "cpu.softirq_pct", 4.6, LEVEL, 0 },
		{ "net.softirq_net_rx:cpu0", 40000, LEVEL, 0 }, { "cpu.busy_pct:cpu0", 60, LEVEL, 0 },
		{ "cpu.busy_pct", 33.75, LEVEL, 0 }, { "net.tcp_retrans_segs", 40, LEVEL, 0 },
		{ "net.softnet_dropped:cpu0", 50, LEVEL, 0 } } },
	{ "packet-loss", {
		{ "net.tcp_retrans_segs", 150, LEVEL, 0 }, { "net.tcpext_tcp_timeouts", 8, LEVEL, 0 },
		{ "net.tcp_retrans_pct", 0.75, LEVEL, 0 }, { "cpu.softirq_pct*", 3, LEVEL, 0 },
		{ "net.softirq_net_rx*", 5000, LEVEL, 0 }, { "net.rx_drop:eth0", 20, LEVEL, 0 },
		{ "net.tcpext_tcp_slow_start_retrans", 30, LEVEL, 0 },
		{ "net.tcpext_tcp_ofo_queue", 60, LEVEL, 0 } } },
	{ "bandwidth-throttle", {
		{ "net.qdisc_drops:eth0", 40, LEVEL, 0 }, { "net.qdisc_overlimits:eth0", 900, LEVEL, 0 },
		{ "net.qdisc_backlog_bytes:eth0", 6e5, LEVEL, 0 }, { "net.qdisc_qlen:eth0", 400, LEVEL, 0 },
		{ "net.softirq_net_tx*", 800, LEVEL, 0 }, { "net.tcpext_tcp_retrans_fail", 30, LEVEL, 0 },
		{ "net.tcp_retrans_segs", 60, LEVEL, 0 }, { "net.tcp_retrans_pct", 0.6, LEVEL, 0 },
		{ "net.tx_bytes:eth0", 2e6, LEVEL, 0 } } },
	{ "cpu-contention", {
		{ "cpu.steal_pct*", 15, LEVEL, 0 }, { "cpu.psi_some_avg10_pct", 25, LEVEL, 0 },
		{ "cpu.idle_pct", 2, LEVEL, 0 },
		{ "cpu.procs_running", 20, LEVEL, 0 }, { "cpu.load1", 14, LEVEL, 0 },
		{ "cpu.context_switches", 45000, LEVEL, 0 } } },
	{ "memory-leak-swapping", {
		{ "mem.anon_pages_bytes", 9e10, RAMP, 0 },
		{ "mem.active_anon_bytes", 8e10, RAMP, 0 },
		{ "mem.committed_as_bytes", 1.2e11, RAMP, 0 },
		{ "mem.mem_available_bytes", 8e9, LEVEL, 0 }, { "mem.mem_free_bytes", 2e9, LEVEL, 0 },
		{ "mem.cached_bytes", 8e9, LEVEL, 0 }, { "mem.swap_free_bytes", 2e9, LEVEL, 0 },
		{ "mem.pswpin", 3000, LEVEL, 0 }, { "mem.pswpout", 9000, LEVEL, 0 },
		{ "mem.pgmajfault", 800, LEVEL, 0 }, { "mem.psi_some_avg10_pct", 30, LEVEL, 0 },
		{ "mem.pgscan_direct", 2e4, LEVEL, 0 }, { "storage.busy_pct:nvme0n1", 85, LEVEL, 0 },
		{ "storage.weighted_time_ms:nvme0n1", 900, LEVEL, 0 },
		{ "cpu.iowait_pct*", 6, LEVEL, 0 } } },
	{ "hugepage-misconfiguration", {
		{ "mem.hugepages_total", 40000, LEVEL, 0 }, { "mem.hugepages_free", 40000, LEVEL, 0 },
		{ "mem.hugetlb_bytes", 8.4e10, LEVEL, 0 },
		{ "mem.node_hugepages_total:node0", 40000, LEVEL, 0 },
		{ "mem.mem_available_bytes", 1.8e10, LEVEL, 0 },
		{ "mem.mem_free_bytes", 1e9, LEVEL, 0 }, { "mem.cached_bytes", 2.4e10, LEVEL, 0 },
		{ "mem.node_mem_used_bytes:node0", 1.2e11, LEVEL, 0 } } },
	{ "disk-saturation-writeback", {
		{ "mem.dirty_bytes", 4e9, LEVEL, 0 }, { "mem.nr_dirty_bytes", 4e9, LEVEL, 0 },
		{ "mem.writeback_bytes", 6e8, LEVEL, 0 }, { "mem.nr_writeback_bytes", 6e8, LEVEL, 0 },
		{ "storage.busy_pct:nvme0n1", 99, LEVEL, 0 },
		{ "storage.weighted_time_ms:nvme0n1", 4000, LEVEL, 0 },
		{ "storage.write_bytes:nvme0n1", 1.5e9, LEVEL, 0 }, { "cpu.iowait_pct*", 25, LEVEL, 0 },
		{ "storage.psi_some_avg10_pct", 40, LEVEL, 0 }, { "cpu.procs_blocked", 12, LEVEL, 0 } } },
	/* many small file operations: dentries pile up, system time, little data */
	{ "metadata-storm", {
		{ "storage.dentries", 8e5, RAMP, 0 }, { "storage.dentries_negative", 7e5, RAMP, 0 },
		{ "storage.inodes", 9e4, LEVEL, 0 }, { "mem.sreclaimable_bytes", 1.9e9, RAMP, 0 },
		{ "mem.buffers_bytes", 9e8, LEVEL, 0 }, { "cpu.system_pct", 45, LEVEL, 0 },
		{ "cpu.busy_pct", 70, LEVEL, 0 }, { "cpu.idle_pct", 30, LEVEL, 0 },
		{ "storage.flushes:nvme0n1", 60, LEVEL, 0 },
		{ "storage.writes_merged:nvme0n1", 900, LEVEL, 0 },
		{ "storage.write_bytes:nvme0n1", 7e7, LEVEL, 0 },
		{ "storage.busy_pct:nvme0n1", 40, LEVEL, 0 } } },
	{ "gpu-throttling", {
		{ "gpu.sm_clock_mhz:gpu0", 1200, LEVEL, 0 }, { "gpu.temp_c:gpu0", 89, LEVEL, 0 },
		{ "gpu.throttle_thermal:gpu0", 1, LEVEL, 0 },
		{ "gpu.throttle_reasons:gpu0", 96, LEVEL, 0 }, { "gpu.power_w:gpu0", 520, LEVEL, 0 } } },
	{ "cpu-throttling", {
		{ "cpu.busy_mhz", 2100, LEVEL, 0 }, { "cpu.freq_mhz:cpu*", 2100, LEVEL, 0 },
		{ "cpu.temp_c:x86_pkg_temp0", 98, LEVEL, 0 },
		{ "cpu.power_w:package-0", 160, LEVEL, 0 } } },
	{ "cgroup-cpu-throttling", {
		{ "cpu.cgroup_throttled_periods", 9, LEVEL, 0 },
		{ "cpu.cgroup_throttled_time_ms", 900, LEVEL, 0 },
		{ "cpu.psi_some_avg10_pct", 40, LEVEL, 0 }, { "cpu.psi_some_stall_pct", 60, LEVEL, 0 },
		{ "cpu.busy_pct", 22, LEVEL, 0 }, { "cpu.user_pct", 18, LEVEL, 0 } } },
	{ "gpu-hardware-errors", {
		{ "gpu.xid_errors:gpu1", 5, PULSE, 0 }, { "gpu.ecc_uncorrected:gpu1", 5, PULSE, 0 },
		{ "gpu.util_pct:gpu1", 0, LEVEL, 0 }, { "gpu.power_w:gpu1", 90, LEVEL, 0 } } },
	{ "gpu-input-starvation", {
		{ "gpu.util_pct:gpu*", 45, LEVEL, 0 }, { "gpu.power_w:gpu*", 350, LEVEL, 0 },
		{ "gpu.mem_util_pct:gpu*", 25, LEVEL, 0 }, { "cpu.busy_pct*", 92, LEVEL, 0 },
		{ "cpu.user_pct*", 85, LEVEL, 0 } } },
	/* Hopper, CPU-bound loader: GPU-side decoding keeps a kernel running
	 * (utilisation flat) while SMs, tensor cores and DRAM idle (GPM); less
	 * input over PCIe, fewer steps so less NVLink traffic, but steady */
	{ "gpu-input-starvation", {
		{ "gpu.sm_active_pct:gpu*", 35, LEVEL, 0 },
		{ "gpu.tensor_active_pct:gpu*", 15, LEVEL, 0 },
		{ "gpu.dram_active_pct:gpu*", 18, LEVEL, 0 },
		{ "gpu.gpm_pcie_rx_bytes:gpu*", 1.1e9, LEVEL, 0 },
		{ "gpu.nvlink_[rt]x_bytes:gpu*", 2.6e10, LEVEL, 0 },
		{ "gpu.nvlink_data_*:gpu*", 1.3e10, LEVEL, 0 }, { "gpu.power_w:gpu*", 400, LEVEL, 0 },
		{ "cpu.busy_pct*", 92, LEVEL, 0 }, { "cpu.user_pct*", 85, LEVEL, 0 },
		{ "cpu.idle_pct", 8, LEVEL, 0 } } },
	/* Hopper, NVLink: the kernels spin in the all-reduce (utilisation flat)
	 * while SM, tensor and DRAM activity come and go with the link traffic */
	{ "gpu-communication-stall", {
		{ "gpu.sm_active_pct:gpu*", 30, BURST, 0.8 },
		{ "gpu.tensor_active_pct:gpu*", 12, BURST, 0.9 },
		{ "gpu.dram_active_pct:gpu*", 10, BURST, 0.9 },
		{ "gpu.nvlink_[rt]x_bytes:gpu*", 2e10, BURST, 0.9 },
		{ "gpu.nvlink_data_*:gpu*", 1e10, BURST, 0.9 },
		{ "gpu.power_w:gpu*", 380, LEVEL, 0 } } },
	/* PCIe GPUs (no GPM, no NVLink) over InfiniBand: stop-and-go traffic,
	 * credit waits and RDMA retransmits; utilisation down. No busy core:
	 * not nccl-single-qp-bottleneck */
	{ "gpu-communication-stall", {
		{ "gpu.*_active_pct:*", 0, GONE, 0 }, { "gpu.sm_occupancy_pct:*", 0, GONE, 0 },
		{ "gpu.gpm_pcie_*", 0, GONE, 0 }, { "gpu.nvlink_*", 0, GONE, 0 },
		{ "gpu.util_pct:gpu*", 70, BURST, 0.3 }, { "gpu.power_w:gpu*", 470, LEVEL, 0 },
		{ "net.ib_port_*_data:mlx5_0_1", 2.5e9, BURST, 0.9 },
		{ "net.ib_port_xmit_wait:mlx5_0_1", 3e4, LEVEL, 0 },
		{ "net.ib_out_of_sequence:mlx5_0_1", 40, LEVEL, 0 },
		{ "net.ib_local_ack_timeout_err:mlx5_0_1", 3, LEVEL, 0 } } },
	/* a shell loop forking commands: forks, their page faults, system time */
	{ "process-churn", {
		{ "cpu.forks", 800, LEVEL, 0 }, { "mem.pgfault", 2.5e5, LEVEL, 0 },
		{ "cpu.system_pct", 30, LEVEL, 0 }, { "cpu.busy_pct", 60, LEVEL, 0 },
		{ "cpu.idle_pct", 40, LEVEL, 0 }, { "cpu.context_switches", 4e4, LEVEL, 0 },
		{ "cpu.tasks_total", 900, BURST, 0.05 }, { "cpu.procs_running", 9, LEVEL, 0 } } },
	/* two tasks ping-ponging: switches sevenfold, system time, no forks */
	{ "context-switch-storm", {
		{ "cpu.context_switches", 1.5e5, LEVEL, 0 }, { "cpu.system_pct", 25, LEVEL, 0 },
		{ "cpu.busy_pct", 55, LEVEL, 0 }, { "cpu.idle_pct", 45, LEVEL, 0 },
		{ "cpu.procs_running", 9, LEVEL, 0 }, { "cpu.psi_some_stall_pct", 3, LEVEL, 0 } } },
	/* memory mapped and unmapped in a loop: faults thirteenfold, no growth */
	{ "page-fault-storm", {
		{ "mem.pgfault", 4e5, LEVEL, 0 }, { "mem.pgfree", 3.9e5, LEVEL, 0 },
		{ "cpu.system_pct", 20, LEVEL, 0 },
		{ "cpu.busy_pct", 50, LEVEL, 0 }, { "cpu.idle_pct", 50, LEVEL, 0 },
		{ "mem.mem_free_bytes", 6e10, BURST, 0.01 },
		{ "mem.anon_pages_bytes", 2e10, BURST, 0.02 } } },
	/* a process over its cgroup's limit, killed and restarted */
	{ "memory-cgroup-oom", {
		{ "mem.oom_kill", 2, LEVEL, 0 }, { "mem.pgfault", 9e4, LEVEL, 0 },
		{ "mem.pgmajfault", 400, LEVEL, 0 }, { "mem.psi_some_stall_pct", 2, LEVEL, 0 },
		{ "mem.anon_pages_bytes", 2e10, BURST, 0.01 } } },
	/* swap turned off */
	{ "swap-config-change", {
		{ "mem.swap_total_bytes", 0, LEVEL, 0 }, { "mem.swap_free_bytes", 0, LEVEL, 0 },
		{ "mem.commit_limit_bytes", 5.2e10, LEVEL, 0 } } },
	/* direct reads at the device's limit: busy, queued, no dirty data */
	{ "disk-saturation-io", {
		{ "storage.busy_pct:nvme0n1", 98, LEVEL, 0 },
		{ "storage.weighted_time_ms:nvme0n1", 3000, LEVEL, 0 },
		{ "storage.in_flight:nvme0n1", 32, LEVEL, 0 },
		{ "storage.read_bytes:nvme0n1", 2.5e9, LEVEL, 0 },
		{ "storage.reads:nvme0n1", 2e4, LEVEL, 0 }, { "cpu.iowait_pct*", 15, LEVEL, 0 },
		{ "storage.psi_some_avg10_pct", 30, LEVEL, 0 },
		{ "storage.psi_some_stall_pct", 25, LEVEL, 0 } } },
	/* a TCP stream on the loopback: segments twentyfold, softirqs on every
	 * CPU, eth0 untouched */
	{ "local-traffic-flood", {
		{ "net.tcp_in_segs", 4e5, LEVEL, 0 }, { "net.tcp_out_segs", 4e5, LEVEL, 0 },
		{ "net.rx_packets:lo", 3e5, LEVEL, 0 }, { "net.rx_bytes:lo", 6e9, LEVEL, 0 },
		{ "net.ipext_in_octets", 6.1e9, LEVEL, 0 }, { "net.ipext_out_octets", 6e9, LEVEL, 0 },
		{ "net.tcpext_tcp_orig_data_sent", 3.8e5, LEVEL, 0 },
		{ "cpu.softirq_pct", 25, LEVEL, 0 }, { "cpu.softirq_pct:cpu*", 25, LEVEL, 0 },
		{ "net.softirq_net_rx:cpu*", 6e4, LEVEL, 0 },
		{ "cpu.context_switches", 5e4, LEVEL, 0 } } },
	/* lo's MTU lowered: 560 bytes a data segment, 2.6 times the segments */
	{ "mtu-change", {
		{ "net.tcp_data_segment_bytes", 560, LEVEL, 0 }, { "net.tcp_out_segs", 5.2e4, LEVEL, 0 },
		{ "net.tcpext_tcp_orig_data_sent", 4.7e4, LEVEL, 0 },
		{ "cpu.softirq_pct", 1.6, LEVEL, 0 } } },
};

/* A case in which a second rule fires too and must rank just below the
 * case's rule, because it yields_to it: the consequence below its cause. */
struct ranked_scenario {
	struct scenario sc;
	const char *below;
};

static const struct ranked_scenario ranked_cases[] = {
	/* A100 (NVLink, no GPM), disk-bound loader: the dataset device at its
	 * limit, iowait; utilisation and NVLink traffic down, steadily. The
	 * device saturated by reads (no dirty data) is the starvation's
	 * mechanism: it ranks second */
	{ { "gpu-input-starvation", {
		{ "gpu.*_active_pct:*", 0, GONE, 0 }, { "gpu.sm_occupancy_pct:*", 0, GONE, 0 },
		{ "gpu.gpm_pcie_*", 0, GONE, 0 }, { "gpu.nvlink_[rt]x_bytes:*", 0, GONE, 0 },
		{ "gpu.util_pct:gpu*", 50, LEVEL, 0 }, { "gpu.power_w:gpu*", 380, LEVEL, 0 },
		{ "gpu.mem_util_pct:gpu*", 28, LEVEL, 0 }, { "gpu.pcie_rx_bytes:gpu0", 1e9, LEVEL, 0 },
		{ "gpu.nvlink_data_*:gpu*", 1.4e10, LEVEL, 0 },
		{ "storage.busy_pct:nvme0n1", 96, LEVEL, 0 },
		{ "storage.read_bytes:nvme0n1", 1.6e9, LEVEL, 0 },
		{ "storage.weighted_time_ms:nvme0n1", 600, LEVEL, 0 },
		{ "cpu.iowait_pct*", 14, LEVEL, 0 } } },
	  "disk-saturation-io" },
	/* a marginal NVLink link: CRC errors, replays, a recovery, the link
	 * flapping as it retrains; its traffic and the GPUs' activity fall: the
	 * stall follows from the link. The stall's evidence is the stronger,
	 * so only its yields_to puts it second */
	{ { "gpu-hardware-errors", {
		{ "gpu.nvlink_crc_flit_errors:gpu0-link1", 30, LEVEL, 0 },
		{ "gpu.nvlink_crc_data_errors:gpu0-link1", 4, LEVEL, 0 },
		{ "gpu.nvlink_replay_errors:gpu0-link1", 30, LEVEL, 0 },
		{ "gpu.nvlink_recovery_errors:gpu0-link1", 1, PULSE, 0 },
		{ "gpu.nvlink_up:gpu0-link1", 0.5, BURST, 1 },
		{ "gpu.nvlink_data_*:gpu0-link1", 8e9, LEVEL, 0 },
		{ "gpu.nvlink_[rt]x_bytes:gpu*", 4.5e10, LEVEL, 0 },
		{ "gpu.sm_active_pct:gpu*", 62, LEVEL, 0 },
		{ "gpu.tensor_active_pct:gpu*", 38, LEVEL, 0 },
		{ "gpu.power_w:gpu*", 560, LEVEL, 0 } } },
	  "gpu-communication-stall" },
};

struct host {
	size_t nchan;
	char names_buf[CHAN_MAX][NAME_MAX_LEN];
	const char *names[CHAN_MAX];
	double base[CHAN_MAX];
	double ts[NROWS];
	float v[CHAN_MAX][NROWS];
};

static void add_chan(struct host *h, const char *name, double base)
{
	assert_true(h->nchan < CHAN_MAX);
	snprintf(h->names_buf[h->nchan], NAME_MAX_LEN, "%s", name);
	h->names[h->nchan] = h->names_buf[h->nchan];
	h->base[h->nchan] = base;
	h->nchan++;
}

static struct host *host_new(void)
{
	struct host *h = calloc(1, sizeof(*h));
	char name[NAME_MAX_LEN];

	assert_non_null(h);
	for (size_t i = 0; i < NELEM(signals); i++)
		add_chan(h, signals[i].name, signals[i].base);
	for (size_t i = 0; i < NELEM(background); i++)
		add_chan(h, background[i].name, background[i].base);
	for (size_t i = 0; i < NELEM(per_cpu); i++)
		for (int c = 0; c < NCPU; c++) {
			snprintf(name, sizeof(name), "%s:cpu%d", per_cpu[i].name, c);
			add_chan(h, name, per_cpu[i].base);
		}
	for (size_t i = 0; i < NELEM(gpu_depth); i++)
		add_chan(h, gpu_depth[i].name, gpu_depth[i].base);
	for (size_t i = 0; i < NELEM(churn); i++)
		add_chan(h, churn[i].name, churn[i].base);
	for (size_t r = 0; r < NROWS; r++)
		h->ts[r] = T0 + STEP_S * (double)r;
	return h;
}

/* A standard-normal-ish draw: the sum of four uniforms, centred and scaled. */
static double noise(struct rv_rng *rng)
{
	double s = 0;

	for (int i = 0; i < 4; i++)
		s += rv_rng_uniform(rng);
	return (s - 2.0) * sqrt(3.0);
}

static double incident_value(const struct move *m, double base, size_t row)
{
	if (!m)
		return base;
	if (m->kind == RAMP)
		return base + (m->to - base) * (double)(row - BASE_ROWS + 1) / INC_ROWS;
	if (m->kind == PULSE)
		return row == PULSE_ROW ? m->to : 0;
	if (m->kind == BURST)
		return m->to * (1 + (row % 2 ? m->amp : -m->amp));
	return m->to;
}

/* Fills the series of scenario sc (NULL: nothing moves). */
static void host_fill(struct host *h, const struct scenario *sc, uint64_t seed)
{
	struct rv_rng rng;

	rv_rng_seed(&rng, seed);
	for (size_t c = 0; c < h->nchan; c++) {
		const struct move *m = NULL;

		for (size_t k = 0; sc && k < MOVES_MAX && sc->mv[k].pat; k++)
			if (fnmatch(sc->mv[k].pat, h->names[c], 0) == 0)
				m = &sc->mv[k];
		for (size_t r = 0; r < NROWS; r++) {
			double x = r < BASE_ROWS ? h->base[c] : incident_value(m, h->base[c], r);

			h->v[c][r] = (float)(x * (1 + NOISE_REL * noise(&rng)));
			if (m && m->kind == GONE)
				h->v[c][r] = NAN;
		}
	}
}

static float host_get(const void *ctx, size_t row, size_t chan)
{
	const struct host *h = ctx;

	return h->v[chan][row];
}

static void host_evidence(const struct host *h, struct rv_evidence *ev)
{
	struct rv_ev_source src = { .nrows = NROWS, .nchan = h->nchan, .ts = h->ts,
				    .names = h->names, .get = host_get, .ctx = h };
	struct rv_err err = { 0 };
	int rc = rv_evidence_build(&src, h->ts[0], h->ts[BASE_ROWS], h->ts[BASE_ROWS],
				   h->ts[NROWS - 1], ev, &err);

	if (rc)
		fail_msg("rv_evidence_build: %s", err.msg);
}

#endif
