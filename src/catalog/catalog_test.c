/*
 * catalog_test.c - subsystem and kind from channel names; the
 * interpretability rank and generality of `reveal prune`'s priority.
 *
 * The main table is the 38 column names of the Server Machine Dataset (SMD)
 * as reveal names them; the expected kinds were decided by hand from what
 * each counter measures (only the error/overflow/reset/retransmit/timeout
 * counts are sparse events).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "catalog/catalog.h"

struct name_case {
	const char *name;
	enum rv_subsystem sub;
	enum rv_kind kind;
};

#define G RV_KIND_GAUGE
#define E RV_KIND_EVENT

static const struct name_case smd_cases[] = {
	{ "cpu.cpu_r", RV_SUB_CPU, G },
	{ "cpu.load_1", RV_SUB_CPU, G },
	{ "cpu.load_5", RV_SUB_CPU, G },
	{ "cpu.load_15", RV_SUB_CPU, G },
	{ "mem.mem_shmem", RV_SUB_MEM, G },
	{ "mem.mem_u", RV_SUB_MEM, G },
	{ "mem.mem_u_e", RV_SUB_MEM, G },
	{ "mem.total_mem", RV_SUB_MEM, G },
	{ "storage.disk_q", RV_SUB_STORAGE, G },
	{ "storage.disk_r", RV_SUB_STORAGE, G },
	{ "storage.disk_rb", RV_SUB_STORAGE, G },
	{ "storage.disk_svc", RV_SUB_STORAGE, G },
	{ "storage.disk_u", RV_SUB_STORAGE, G },
	{ "storage.disk_w", RV_SUB_STORAGE, G },
	{ "storage.disk_wa", RV_SUB_STORAGE, G },
	{ "storage.disk_wb", RV_SUB_STORAGE, G },
	{ "mem.si", RV_SUB_MEM, G },
	{ "mem.so", RV_SUB_MEM, G },
	{ "net.eth1_fi", RV_SUB_NET, G },
	{ "net.eth1_fo", RV_SUB_NET, G },
	{ "net.eth1_pi", RV_SUB_NET, G },
	{ "net.eth1_po", RV_SUB_NET, G },
	{ "net.tcp_tw", RV_SUB_NET, G },
	{ "net.tcp_use", RV_SUB_NET, G },
	{ "net.active_opens", RV_SUB_NET, G },
	{ "net.curr_estab", RV_SUB_NET, G },
	{ "net.in_errs", RV_SUB_NET, E },
	{ "net.in_segs", RV_SUB_NET, G },
	{ "net.listen_overflows", RV_SUB_NET, E },
	{ "net.out_rsts", RV_SUB_NET, E },
	{ "net.out_segs", RV_SUB_NET, G },
	{ "net.passive_opens", RV_SUB_NET, G },
	{ "net.retransegs", RV_SUB_NET, E },
	{ "net.tcp_timeouts", RV_SUB_NET, E },
	{ "net.udp_in_dg", RV_SUB_NET, G },
	{ "net.udp_out_dg", RV_SUB_NET, G },
	{ "net.udp_rcv_buf_errs", RV_SUB_NET, E },
	{ "net.udp_snd_buf_errs", RV_SUB_NET, E },
};

static const struct name_case other_cases[] = {
	{ "unknown.metric_01", RV_SUB_OTHER, G },
	{ "gpu.xid_errors:gpu0", RV_SUB_GPU, E },
	{ "gpu.ecc_dbe:gpu1", RV_SUB_GPU, E },
	{ "gpu.pcie_replay:gpu0", RV_SUB_GPU, E },
	{ "gpu.util:gpu0", RV_SUB_GPU, G },
	/* instance text after ':' is not the metric */
	{ "gpu.util:errs", RV_SUB_GPU, G },
	{ "net.rx_dropped:eth0", RV_SUB_NET, E },
	{ "net.InErrs", RV_SUB_NET, G },       /* one token "inerrs" */
	{ "net.in-errs", RV_SUB_NET, E },
	{ "net.IN_ERRS", RV_SUB_NET, E },      /* tokens compare ignoring case */
	{ "cpu.interrupts", RV_SUB_CPU, G },   /* contains "err", is no event */
	{ "net.first_burst", RV_SUB_NET, G },  /* contains "rst" */
	{ "mem.pgfault", RV_SUB_MEM, G },
	{ "mem.page_fault", RV_SUB_MEM, G },
	/* block I/O counted in /proc/vmstat: storage, by whole name */
	{ "mem.pgpgin_bytes", RV_SUB_STORAGE, G },
	{ "mem.pgpgout_bytes", RV_SUB_STORAGE, G },
	{ "mem.pgpgout_bytes:x", RV_SUB_MEM, G },
	{ "mem.pgpgout", RV_SUB_MEM, G },
	/* the file-system caches (proc.fs) are storage counts, not events */
	{ "storage.dentries_negative", RV_SUB_STORAGE, G },
	{ "storage.inodes_unused", RV_SUB_STORAGE, G },
	{ "storage.files_open", RV_SUB_STORAGE, G },
	{ "cpux.load_1", RV_SUB_OTHER, G },    /* prefix must match exactly */
	{ "cp.load_1", RV_SUB_OTHER, G },
	{ "CPU.load_1", RV_SUB_OTHER, G },
	{ "cpu", RV_SUB_OTHER, G },            /* no dot */
	{ "errors", RV_SUB_OTHER, E },         /* no dot: the whole name is the metric */
	{ ".in_errs", RV_SUB_OTHER, E },
	{ "storage.", RV_SUB_STORAGE, G },
	{ "", RV_SUB_OTHER, G },
	{ "net.a.b_drops", RV_SUB_NET, E },
};

static void check_cases(const struct name_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (rv_catalog_subsystem(c[i].name) != c[i].sub ||
		    rv_catalog_kind_by_name(c[i].name) != c[i].kind)
			fail_msg("%s: got %s/%s, want %s/%s", c[i].name,
				 rv_subsystem_name(rv_catalog_subsystem(c[i].name)),
				 rv_kind_name(rv_catalog_kind_by_name(c[i].name)),
				 rv_subsystem_name(c[i].sub), rv_kind_name(c[i].kind));
	}
}

static void test_smd_names(void **state)
{
	(void)state;
	enum { SMD_COLUMNS = 38, SMD_EVENTS = 7 };
	size_t n = sizeof(smd_cases) / sizeof(smd_cases[0]);
	assert_int_equal(n, SMD_COLUMNS);
	check_cases(smd_cases, n);
	size_t events = 0;
	for (size_t i = 0; i < n; i++)
		events += rv_catalog_kind_by_name(smd_cases[i].name) == RV_KIND_EVENT;
	assert_int_equal(events, SMD_EVENTS);
}

static void test_other_names(void **state)
{
	(void)state;
	check_cases(other_cases, sizeof(other_cases) / sizeof(other_cases[0]));
	assert_int_equal(rv_catalog_subsystem(NULL), RV_SUB_OTHER);
	assert_int_equal(rv_catalog_kind_by_name(NULL), RV_KIND_GAUGE);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(rv_subsystem_name(RV_SUB_CPU), "cpu");
	assert_string_equal(rv_subsystem_name(RV_SUB_GPU), "gpu");
	assert_string_equal(rv_subsystem_name(RV_SUB_MEM), "mem");
	assert_string_equal(rv_subsystem_name(RV_SUB_NET), "net");
	assert_string_equal(rv_subsystem_name(RV_SUB_STORAGE), "storage");
	assert_string_equal(rv_subsystem_name(RV_SUB_OTHER), "other");
	assert_string_equal(rv_subsystem_name(RV_SUB_COUNT), "unknown");
	assert_string_equal(rv_kind_name(RV_KIND_GAUGE), "gauge");
	assert_string_equal(rv_kind_name(RV_KIND_COUNTER), "counter");
	assert_string_equal(rv_kind_name(RV_KIND_EVENT), "event");
	assert_string_equal(rv_kind_name(RV_KIND_STATIC), "static");
	assert_string_equal(rv_kind_name(RV_KIND_COUNT), "unknown");
}

/* Stocks: amounts of memory that stay where an event left them; not the
 * memory in flight to the disk, rates, other units or unknown names. */
static void test_stocks(void **state)
{
	(void)state;
	assert_true(rv_catalog_stock("mem.cached_bytes"));
	assert_true(rv_catalog_stock("mem.buffers_bytes"));
	assert_true(rv_catalog_stock("mem.sreclaimable_bytes"));
	assert_true(rv_catalog_stock("mem.anon_pages_bytes"));
	assert_true(rv_catalog_stock("mem.node_file_pages_bytes:node0"));
	assert_false(rv_catalog_stock("mem.dirty_bytes"));
	assert_false(rv_catalog_stock("mem.writeback_bytes"));
	assert_false(rv_catalog_stock("mem.node_dirty_bytes:node1"));
	assert_false(rv_catalog_stock("mem.nfs_unstable_bytes"));
	assert_true(rv_catalog_stock("storage.dentries"));
	assert_true(rv_catalog_stock("storage.dentries_negative"));
	assert_true(rv_catalog_stock("storage.inodes_unused"));
	assert_false(rv_catalog_stock("storage.files_open"));
	assert_false(rv_catalog_stock("storage.dentriesx"));
	assert_false(rv_catalog_stock("mem.cached_bytesx"));
	assert_false(rv_catalog_stock("cpu.busy_pct"));
	assert_false(rv_catalog_stock("machine-1-1.mem_cached"));
	assert_false(rv_catalog_stock(NULL));
}

/* Held memory: the anonymous pages of the host and of each node, no other
 * memory (page cache, huge pages counted apart, unknown names). */
static void test_kept(void **state)
{
	(void)state;
	assert_true(rv_catalog_kept("mem.anon_pages_bytes"));
	assert_true(rv_catalog_kept("mem.node_anon_pages_bytes:node1"));
	assert_false(rv_catalog_kept("mem.cached_bytes"));
	assert_false(rv_catalog_kept("mem.node_file_pages_bytes:node0"));
	assert_false(rv_catalog_kept("mem.anon_huge_pages_bytes"));
	assert_false(rv_catalog_kept("mem.anon_pages_bytesx"));
	assert_false(rv_catalog_kept("machine-1-1.mem_anon"));
	assert_false(rv_catalog_kept(NULL));
}

/* Resolutions come from the unit of the metric type, one a second for
 * counts and events; none for unknown names or units without an entry. */
static void test_resolution(void **state)
{
	(void)state;
	assert_true(rv_catalog_resolution("mem.cached_bytes") == 1048576.0);
	assert_true(rv_catalog_resolution("mem.node_anon_pages_bytes:node0") == 1048576.0);
	assert_true(rv_catalog_resolution("cpu.busy_pct") == 0.5);
	assert_true(rv_catalog_resolution("cpu.busy_pct:cpu3") == 0.5);
	assert_true(rv_catalog_resolution("storage.write_bytes:vda") == 262144.0);
	assert_true(rv_catalog_resolution("net.tcp_retrans_segs") == 1.0);
	assert_true(rv_catalog_resolution("storage.reads_merged:vda") == 1.0);
	assert_true(rv_catalog_resolution("storage.dentries") == 100.0);
	assert_true(rv_catalog_resolution("storage.files_open") == 10.0);
	assert_true(rv_catalog_material("storage.inodes") == 10000.0);
	assert_true(rv_catalog_material("storage.files_open") == 1000.0);
	assert_true(rv_catalog_resolution("mem.pgmajfault") == 1.0);
	assert_true(rv_catalog_resolution("net.qdisc_backlog_bytes:eth0") == 1514.0);
	assert_true(rv_catalog_resolution("net.qdisc_qlen:eth0") == 0.0);
	assert_true(rv_catalog_resolution("net.qdisc_drops:eth0") == 1.0);
	assert_true(rv_catalog_resolution("nosuch.metric") == 0.0);
	assert_true(rv_catalog_resolution(NULL) == 0.0);
}

/* Materiality comes from the unit too, a thousand a second for counts;
 * events and the stalls of reclaim and compaction matter at one, the tasks
 * that exist at a hundred; none for unknown names. Never below the
 * resolution. */
static void test_material(void **state)
{
	(void)state;
	assert_true(rv_catalog_material("mem.cached_bytes") == 64.0 * 1048576.0);
	assert_true(rv_catalog_material("cpu.busy_pct:cpu3") == 5.0);
	assert_true(rv_catalog_material("storage.write_bytes:vda") == 4194304.0);
	assert_true(rv_catalog_material("storage.reads:vda") == 1000.0);
	assert_true(rv_catalog_material("cpu.context_switches") == 1000.0);
	assert_true(rv_catalog_material("mem.numa_hit") == 1024.0);
	assert_true(rv_catalog_material("storage.weighted_time_ms:vda") == 50.0);
	assert_true(rv_catalog_material("net.tcp_retrans_segs") == 1.0);
	assert_true(rv_catalog_material("net.tcpext_tcp_timeouts") == 1.0);
	assert_true(rv_catalog_material("mem.allocstall") == 1.0);
	assert_true(rv_catalog_material("mem.compact_stall") == 1.0);
	assert_true(rv_catalog_material("cpu.tasks_total") == 100.0);
	assert_true(rv_catalog_material("cpu.procs_running") == 2.0);
	assert_true(rv_catalog_material("net.qdisc_backlog_bytes:lo") == 131072.0);
	assert_true(rv_catalog_material("net.qdisc_qlen:lo") == 100.0);
	assert_true(rv_catalog_material("nosuch.metric") == 0.0);
	assert_true(rv_catalog_material(NULL) == 0.0);
	for (size_t i = 0; i < rv_catalog_metric_count(); i++) {
		const char *name = rv_catalog_metric_at(i)->name;

		assert_true(rv_catalog_material(name) >= rv_catalog_resolution(name));
	}
}

/* Kernel moving averages with long memories; not the 10 s pressure
 * average, the run queue or names outside the catalog. */
static void test_smoothed(void **state)
{
	(void)state;
	assert_true(rv_catalog_smoothed("cpu.load1"));
	assert_true(rv_catalog_smoothed("cpu.load15"));
	assert_true(rv_catalog_smoothed("cpu.psi_some_avg60_pct"));
	assert_true(rv_catalog_smoothed("storage.psi_full_avg60_pct"));
	assert_true(rv_catalog_smoothed("cpu.psi_some_avg10_pct"));
	assert_true(rv_catalog_smoothed("mem.psi_full_avg10_pct"));
	assert_false(rv_catalog_smoothed("cpu.psi_some_stall_pct"));
	assert_false(rv_catalog_smoothed("cpu.procs_running"));
	assert_false(rv_catalog_smoothed("cpu.load_15"));
	assert_false(rv_catalog_smoothed(NULL));
}

/* Interpretability: every metric type ranked 1 to 3, each known subsystem
 * with a quantity read directly; instances ignored; other names last. */
static void test_interpretability(void **state)
{
	int direct[RV_SUB_COUNT] = { 0 };

	(void)state;
	for (size_t i = 0; i < rv_catalog_metric_count(); i++) {
		const struct rv_metric *m = rv_catalog_metric_at(i);

		if (m->interp < 1 || m->interp > 3)
			fail_msg("%s: interpretability %d", m->name, m->interp);
		assert_int_equal(rv_catalog_interpretability(m->name), m->interp);
		direct[rv_catalog_subsystem(m->name)] += m->interp == 1;
	}
	for (int s = 0; s < RV_SUB_OTHER; s++)
		if (!direct[s])
			fail_msg("no rank-1 metric in %s", rv_subsystem_name((enum rv_subsystem)s));
	assert_int_equal(rv_catalog_interpretability("cpu.busy_pct"), 1);
	assert_int_equal(rv_catalog_interpretability("cpu.busy_pct:cpu3"), 1);
	assert_int_equal(rv_catalog_interpretability("cpu.user_pct"), 2);
	assert_int_equal(rv_catalog_interpretability("net.rx_bytes:eth0"), 1);
	assert_int_equal(rv_catalog_interpretability("net.rx_packets:eth0"), 2);
	assert_int_equal(rv_catalog_interpretability("mem.numa_hit"), 3);
	assert_int_equal(rv_catalog_interpretability("cpu.softirq_rcu"), 3);
	assert_int_equal(rv_catalog_interpretability("cpu.cpu_r"), RV_INTERP_UNKNOWN);
	assert_int_equal(rv_catalog_interpretability(""), RV_INTERP_UNKNOWN);
	assert_int_equal(rv_catalog_interpretability(NULL), RV_INTERP_UNKNOWN);
	assert_string_equal(rv_catalog_metric_of("gpu.util_pct:0000:3b:00.0")->name, "gpu.util_pct");
}

static void test_generality(void **state)
{
	(void)state;
	assert_int_equal(rv_catalog_generality("cpu.busy_pct"), 0);
	assert_int_equal(rv_catalog_generality("cpu.cpu_r"), 0);
	assert_int_equal(rv_catalog_generality("cpu.busy_pct:cpu0"), 1);
	assert_int_equal(rv_catalog_generality("net.rx_bytes:eth0"), 1);
	assert_int_equal(rv_catalog_generality(NULL), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stocks),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_resolution),
		cmocka_unit_test(test_material),
		cmocka_unit_test(test_smoothed),
		cmocka_unit_test(test_smd_names),
		cmocka_unit_test(test_other_names),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_interpretability),
		cmocka_unit_test(test_generality),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
