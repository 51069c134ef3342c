/*
 * sysfs_test.c - the /sys sources (sources.h) on the fixture tree
 * tests/fixtures/collect/syshost: channel names and order, scales, exact
 * raw values; then on small trees written to a temp dir: missing
 * directories and files (open fails naming the path), attributes that
 * empty or turn to garbage between samples (only their channels become
 * invalid), huge numbers, and the sysval parser on its own. Last, each
 * source is opened on this host's /sys: it must open or say why.
 *
 * The metric types live in catalog/metrics_sys.c; until the catalog lists
 * that table every channel test is skipped (the parser tests still run).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "collect/sources.h"
#include "collect/sysval.h"

enum { MAX_CH = 256, PATH_LEN = 512 };

/* An opened source and one sample of it. */
struct run {
	struct rv_chanlist chans;
	void *state;
	const struct rv_source *src;
	double raw[MAX_CH];
	uint8_t valid[MAX_CH];
	struct rv_err err;
};

static void need_catalog(void)
{
	if (!rv_catalog_metric("cpu.freq_mhz")) {
		print_message("metrics_sys is not in the catalog yet: skipped\n");
		skip();
	}
}

static const char *syshost(void)
{
	static char root[PATH_LEN];
	const char *d = getenv("RV_FIXTURES");

	assert_non_null(d);
	snprintf(root, sizeof(root), "%s/collect/syshost", d);
	return root;
}

/* Opens src on root: its return code; r->err holds the reason. A failed
 * open may have added channels: the collector drops them, so do we. */
static int run_open(struct run *r, const struct rv_source *src, const char *root)
{
	struct rv_collect_cfg cfg = { .root = root };
	int rc;

	memset(r, 0, sizeof(*r));
	r->src = src;
	rc = src->open(&cfg, &r->state, &r->chans, &r->err);
	if (rc)
		rv_chanlist_fini(&r->chans);
	return rc;
}

static void run_sample(struct run *r)
{
	assert_true(r->chans.n <= MAX_CH);
	for (size_t i = 0; i < MAX_CH; i++) {
		r->raw[i] = -12345.0;
		r->valid[i] = 0;
	}
	r->src->sample(r->state, r->raw, r->valid);
}

static void run_close(struct run *r)
{
	if (r->state)
		r->src->close(r->state);
	rv_chanlist_fini(&r->chans);
	r->state = NULL;
}

static size_t chan(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->chans.n; i++)
		if (strcmp(r->chans.v[i].name, name) == 0)
			return i;
	fail_msg("no channel %s", name);
	return 0;
}

/* Asserts channel `name` read exactly `v` this sample. */
static void expect(const struct run *r, const char *name, double v)
{
	size_t i = chan(r, name);

	if (!r->valid[i] || r->raw[i] != v)
		fail_msg("%s: valid %d raw %.17g, want %.17g", name, r->valid[i], r->raw[i], v);
}

static void expect_invalid(const struct run *r, const char *name)
{
	size_t i = chan(r, name);

	if (r->valid[i])
		fail_msg("%s: valid with raw %.17g", name, r->raw[i]);
}

static void expect_names(const struct run *r, const char *const *names, size_t n)
{
	assert_int_equal(r->chans.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r->chans.v[i].name, names[i]);
}

/* ------------------------------------------------------- temp trees */

struct tmp {
	char root[64];
};

static void tmp_make(struct tmp *t)
{
	snprintf(t->root, sizeof(t->root), "/tmp/rv_sysfs_XXXXXX");
	assert_non_null(mkdtemp(t->root));
}

/* Writes root/rel (creating its directories) with text. */
static void put(const struct tmp *t, const char *rel, const char *text)
{
	char path[PATH_LEN];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	for (char *p = path + strlen(t->root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");      /* same inode: an open fd sees the new text */
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void tmp_drop(struct tmp *t)
{
	assert_int_equal(nftw(t->root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* ----------------------------------------------------------- parser */

static void test_parse(void **state)
{
	static const struct {
		const char *text;
		enum rv_sysval_fmt fmt;
		int rc;
		double v;
	} cases[] = {
		{ "2100000\n", RV_SYSVAL_U64, 0, 2100000 },
		{ "  42", RV_SYSVAL_U64, 0, 42 },
		{ "18446744073709551615\n", RV_SYSVAL_U64, 0, 18446744073709551615.0 },
		{ "99999999999999999999999\n", RV_SYSVAL_U64, -ERANGE, 0 },
		{ "", RV_SYSVAL_U64, -EINVAL, 0 },
		{ "\n", RV_SYSVAL_U64, -EINVAL, 0 },
		{ "abc\n", RV_SYSVAL_U64, -EINVAL, 0 },
		{ "12abc\n", RV_SYSVAL_U64, -EINVAL, 0 },
		{ "12 13\n", RV_SYSVAL_U64, -EINVAL, 0 },
		{ "-5\n", RV_SYSVAL_U64, -EINVAL, 0 },
		{ "-5150\n", RV_SYSVAL_I64, 0, -5150 },
		{ "18446744073709551615\n", RV_SYSVAL_I64, -ERANGE, 0 },
		{ "-1\n", RV_SYSVAL_NONNEG, -EINVAL, 0 },
		{ "25000\n", RV_SYSVAL_NONNEG, 0, 25000 },
		{ "200 Gb/sec (4X HDR)\n", RV_SYSVAL_LEAD, 0, 200 },
		{ "2.5 Gb/sec (1X SDR)\n", RV_SYSVAL_LEAD, 0, 2.5 },
		{ "Gb/sec\n", RV_SYSVAL_LEAD, -EINVAL, 0 },
		{ "4: ACTIVE\n", RV_SYSVAL_IBSTATE, 0, 1 },
		{ "1: DOWN\n", RV_SYSVAL_IBSTATE, 0, 0 },
		{ "ACTIVE\n", RV_SYSVAL_IBSTATE, -EINVAL, 0 },
		{ "4\n", RV_SYSVAL_IBSTATE, -EINVAL, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v = -1;
		int rc = rv_sysval_parse(cases[i].text, strlen(cases[i].text), cases[i].fmt, &v);

		if (rc != cases[i].rc || (rc == 0 && v != cases[i].v))
			fail_msg("case %zu \"%s\": rc %d v %g", i, cases[i].text, rc, v);
	}
}

static void test_sanitize(void **state)
{
	char s[] = "Package id 0/X-y.Z";

	(void)state;
	rv_sysval_sanitize(s);
	assert_string_equal(s, "package_id_0_x_y_z");
}

/* ---------------------------------------------------------- cpufreq */

static void test_cpufreq(void **state)
{
	static const char *const names[] = {
		"cpu.freq_mhz:cpu0", "cpu.freq_mhz:cpu1", "cpu.freq_mhz:cpu2", "cpu.freq_mhz:cpu3",
	};
	struct run r;

	(void)state;
	need_catalog();
	assert_int_equal(run_open(&r, &rv_src_sys_cpufreq, syshost()), 0);
	expect_names(&r, names, 4);
	assert_true(r.chans.v[0].scale == 1e-3);
	assert_int_equal(r.chans.v[0].metric->kind, RV_KIND_GAUGE);
	run_sample(&r);
	expect(&r, "cpu.freq_mhz:cpu0", 2100000);
	expect(&r, "cpu.freq_mhz:cpu1", 3400123);
	expect(&r, "cpu.freq_mhz:cpu2", 800000);
	expect(&r, "cpu.freq_mhz:cpu3", 2999999);
	run_close(&r);
}

static void test_cpufreq_absent(void **state)
{
	struct tmp t;
	struct run r;

	(void)state;
	need_catalog();
	tmp_make(&t);
	put(&t, "sys/devices/system/cpu/cpu0/online", "1\n");
	assert_int_equal(run_open(&r, &rv_src_sys_cpufreq, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "cpufreq/scaling_cur_freq"));
	assert_non_null(strstr(r.err.msg, t.root));
	tmp_drop(&t);
	tmp_make(&t);
	assert_int_equal(run_open(&r, &rv_src_sys_cpufreq, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/sys/devices/system/cpu"));
	tmp_drop(&t);
}

/* A CPU whose file empties, turns to garbage or overflows: its gap only. */
static void test_cpufreq_malformed(void **state)
{
	static const char *const bad[] = { "", "abc\n", "99999999999999999999999\n", "-3\n" };
	struct tmp t;
	struct run r;

	(void)state;
	need_catalog();
	tmp_make(&t);
	put(&t, "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "1000000\n");
	put(&t, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "1200000\n");
	assert_int_equal(run_open(&r, &rv_src_sys_cpufreq, t.root), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put(&t, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", bad[i]);
		run_sample(&r);
		expect(&r, "cpu.freq_mhz:cpu0", 1000000);
		expect_invalid(&r, "cpu.freq_mhz:cpu1");
	}
	put(&t, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "1300000\n");
	run_sample(&r);
	expect(&r, "cpu.freq_mhz:cpu1", 1300000);
	run_close(&r);
	tmp_drop(&t);
}

/* ---------------------------------------------------------- thermal */

static void test_thermal(void **state)
{
	static const char *const names[] = {
		"cpu.temp_c:coretemp_package_id_0", "cpu.temp_c:coretemp_core_0",
		"cpu.temp_c:coretemp_core_1", "cpu.temp_c:nvme_composite",
		"cpu.temp_c:nvme_sensor_1", "cpu.temp_c:nvme_temp3",
		"cpu.temp_c:acpitz0", "cpu.temp_c:x86_pkg_temp1",
	};
	static const double want[] = { 45000, 43000, 44000, 38850, 41850, -5150, 27800, 46000 };
	struct run r;

	(void)state;
	need_catalog();
	assert_int_equal(run_open(&r, &rv_src_sys_thermal, syshost()), 0);
	expect_names(&r, names, 8);
	run_sample(&r);
	for (size_t i = 0; i < 8; i++) {
		expect(&r, names[i], want[i]);
		assert_true(r.chans.v[i].scale == 1e-3);
	}
	run_close(&r);
}

/* Two sockets' coretemp with the same labels; zones only; none at all. */
static void test_thermal_trees(void **state)
{
	static const char *const names[] = {
		"cpu.temp_c:coretemp_core_0", "cpu.temp_c:coretemp_core_0_hwmon3",
	};
	struct tmp t;
	struct run r;

	(void)state;
	need_catalog();
	tmp_make(&t);
	put(&t, "sys/class/hwmon/hwmon2/name", "coretemp\n");
	put(&t, "sys/class/hwmon/hwmon2/temp2_input", "40000\n");
	put(&t, "sys/class/hwmon/hwmon2/temp2_label", "Core 0\n");
	put(&t, "sys/class/hwmon/hwmon3/name", "coretemp\n");
	put(&t, "sys/class/hwmon/hwmon3/temp2_input", "41000\n");
	put(&t, "sys/class/hwmon/hwmon3/temp2_label", "Core 0\n");
	assert_int_equal(run_open(&r, &rv_src_sys_thermal, t.root), 0);
	expect_names(&r, names, 2);
	put(&t, "sys/class/hwmon/hwmon2/temp2_input", "");
	run_sample(&r);
	expect_invalid(&r, names[0]);
	expect(&r, names[1], 41000);
	run_close(&r);
	tmp_drop(&t);

	tmp_make(&t);
	put(&t, "sys/class/thermal/thermal_zone4/temp", "30000\n");
	assert_int_equal(run_open(&r, &rv_src_sys_thermal, t.root), 0);
	assert_int_equal(r.chans.n, 1);
	assert_string_equal(r.chans.v[0].name, "cpu.temp_c:zone4");     /* no type file */
	run_close(&r);
	tmp_drop(&t);

	tmp_make(&t);
	assert_int_equal(run_open(&r, &rv_src_sys_thermal, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/sys/class/hwmon"));
	assert_non_null(strstr(r.err.msg, "/sys/class/thermal"));
	tmp_drop(&t);
}

/* ------------------------------------------------------------- rapl */

static void test_rapl(void **state)
{
	static const char *const names[] = { "cpu.power_w:package-0", "cpu.power_w:dram-0" };
	struct run r;

	(void)state;
	need_catalog();
	assert_int_equal(run_open(&r, &rv_src_sys_rapl, syshost()), 0);
	expect_names(&r, names, 2);
	assert_true(r.chans.v[0].scale == 1e-6);
	assert_int_equal(r.chans.v[0].metric->kind, RV_KIND_COUNTER);
	run_sample(&r);
	expect(&r, names[0], 123456789012.0);
	expect(&r, names[1], 9876543210.0);
	run_close(&r);
}

static void test_rapl_trees(void **state)
{
	struct tmp t;
	struct run r;

	(void)state;
	need_catalog();
	tmp_make(&t);
	assert_int_equal(run_open(&r, &rv_src_sys_rapl, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/sys/class/powercap"));
	put(&t, "sys/class/powercap/intel-rapl:0/name", "package-0\n");
	assert_int_equal(run_open(&r, &rv_src_sys_rapl, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "energy_uj"));
	put(&t, "sys/class/powercap/intel-rapl:0/energy_uj", "1000\n");
	put(&t, "sys/class/powercap/intel-rapl:1/name", "package-1\n");
	put(&t, "sys/class/powercap/intel-rapl:1/energy_uj", "2000\n");
	assert_int_equal(run_open(&r, &rv_src_sys_rapl, t.root), 0);
	assert_int_equal(r.chans.n, 2);
	put(&t, "sys/class/powercap/intel-rapl:1/energy_uj", "12x\n");
	run_sample(&r);
	expect(&r, "cpu.power_w:package-0", 1000);
	expect_invalid(&r, "cpu.power_w:package-1");
	run_close(&r);
	if (geteuid() != 0) {           /* root reads a mode-0 file anyway */
		char path[PATH_LEN];

		snprintf(path, sizeof(path), "%s/sys/class/powercap/intel-rapl:0/energy_uj", t.root);
		assert_int_equal(chmod(path, 0), 0);
		snprintf(path, sizeof(path), "%s/sys/class/powercap/intel-rapl:1/energy_uj", t.root);
		assert_int_equal(chmod(path, 0), 0);
		assert_int_equal(run_open(&r, &rv_src_sys_rapl, t.root), -EACCES);
		assert_non_null(strstr(r.err.msg, "not permitted"));
	}
	tmp_drop(&t);
}

/* ------------------------------------------------------------- numa */

static void test_numa(void **state)
{
	static const char *const node0[] = {
		"mem.node_mem_total_bytes:node0", "mem.node_mem_free_bytes:node0",
		"mem.node_mem_used_bytes:node0", "mem.node_file_pages_bytes:node0",
		"mem.node_anon_pages_bytes:node0", "mem.node_dirty_bytes:node0",
		"mem.node_hugepages_total:node0", "mem.node_hugepages_free:node0",
		"mem.node_numa_hit:node0", "mem.node_numa_miss:node0",
		"mem.node_numa_foreign:node0", "mem.node_interleave_hit:node0",
		"mem.node_local_node:node0", "mem.node_other_node:node0",
		"mem.node_hugepages_size_nr:node0_2048kB",
		"mem.node_hugepages_size_free:node0_2048kB",
		"mem.node_hugepages_size_surplus:node0_2048kB",
		"mem.node_hugepages_size_nr:node0_1048576kB",
		"mem.node_hugepages_size_free:node0_1048576kB",
		"mem.node_hugepages_size_surplus:node0_1048576kB",
	};
	struct run r;

	(void)state;
	need_catalog();
	assert_int_equal(run_open(&r, &rv_src_sys_numa, syshost()), 0);
	assert_int_equal(r.chans.n, 40);
	for (size_t i = 0; i < 20; i++)
		assert_string_equal(r.chans.v[i].name, node0[i]);
	assert_string_equal(r.chans.v[20].name, "mem.node_mem_total_bytes:node1");
	assert_true(r.chans.v[0].scale == 1024);
	assert_true(r.chans.v[6].scale == 1);
	assert_int_equal(r.chans.v[8].metric->kind, RV_KIND_COUNTER);
	run_sample(&r);
	expect(&r, "mem.node_mem_total_bytes:node0", 65843212);
	expect(&r, "mem.node_mem_free_bytes:node0", 41234568);
	expect(&r, "mem.node_mem_used_bytes:node0", 24608644);
	expect(&r, "mem.node_file_pages_bytes:node0", 12336472);
	expect(&r, "mem.node_anon_pages_bytes:node0", 9021588);
	expect(&r, "mem.node_dirty_bytes:node0", 1260);
	expect(&r, "mem.node_hugepages_total:node0", 512);
	expect(&r, "mem.node_hugepages_free:node1", 512);
	expect(&r, "mem.node_numa_hit:node0", 161036565);
	expect(&r, "mem.node_numa_miss:node1", 34);
	expect(&r, "mem.node_numa_foreign:node1", 12);
	expect(&r, "mem.node_interleave_hit:node1", 1127);
	expect(&r, "mem.node_local_node:node1", 98765400);
	expect(&r, "mem.node_other_node:node0", 65);
	expect(&r, "mem.node_hugepages_size_nr:node0_2048kB", 512);
	expect(&r, "mem.node_hugepages_size_free:node0_2048kB", 500);
	expect(&r, "mem.node_hugepages_size_nr:node1_1048576kB", 2);
	expect(&r, "mem.node_hugepages_size_surplus:node1_1048576kB", 0);
	for (size_t i = 0; i < r.chans.n; i++)
		assert_int_equal(r.valid[i], 1);
	run_close(&r);
}

static const char NODE0_MEMINFO[] =
	"Node 0 MemTotal:        1000 kB\n"
	"Node 0 MemFree:          400 kB\n"
	"Node 0 Dirty:             12 kB\n"
	"Node 0 HugePages_Total:     4\n";

static void test_numa_malformed(void **state)
{
	static const char *const names[] = {
		"mem.node_mem_total_bytes:node0", "mem.node_mem_free_bytes:node0",
		"mem.node_dirty_bytes:node0", "mem.node_hugepages_total:node0",
		"mem.node_numa_hit:node0", "mem.node_numa_miss:node0",
		"mem.node_hugepages_size_nr:node0_2048kB",
	};
	struct tmp t;
	struct run r;

	(void)state;
	need_catalog();
	tmp_make(&t);
	put(&t, "sys/devices/system/node/node0/meminfo", NODE0_MEMINFO);
	put(&t, "sys/devices/system/node/node0/numastat", "numa_hit 10\nnuma_miss 2\n");
	put(&t, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "4\n");
	assert_int_equal(run_open(&r, &rv_src_sys_numa, t.root), 0);
	expect_names(&r, names, 7);
	run_sample(&r);
	expect(&r, names[1], 400);
	expect(&r, names[6], 4);

	/* lines reordered, one garbled, one with an extra column, one cut */
	put(&t, "sys/devices/system/node/node0/meminfo",
	    "Node 0 Dirty:             13 kB\n"
	    "Node 0 MemFree:          abc kB\n"
	    "Node 0 MemTotal:        1000 kB 7\n"
	    "Node 0 HugePages_Total:");
	put(&t, "sys/devices/system/node/node0/numastat",
	    "numa_hit 18446744073709551615\nnuma_miss 99999999999999999999999\n");
	run_sample(&r);
	expect(&r, names[2], 13);
	expect_invalid(&r, names[0]);
	expect_invalid(&r, names[1]);
	expect_invalid(&r, names[3]);
	expect(&r, names[4], 18446744073709551615.0);
	expect_invalid(&r, names[5]);
	expect(&r, names[6], 4);

	/* meminfo empties (node offlined): its channels only */
	put(&t, "sys/devices/system/node/node0/meminfo", "");
	put(&t, "sys/devices/system/node/node0/numastat", "numa_hit 11\nnuma_miss 2\n");
	run_sample(&r);
	for (size_t i = 0; i < 4; i++)
		expect_invalid(&r, names[i]);
	expect(&r, names[4], 11);
	run_close(&r);
	tmp_drop(&t);
}

/* No node directory; a node without numastat (open says which file). */
static void test_numa_absent(void **state)
{
	struct tmp t;
	struct run r;

	(void)state;
	need_catalog();
	tmp_make(&t);
	assert_int_equal(run_open(&r, &rv_src_sys_numa, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/sys/devices/system/node"));
	put(&t, "sys/devices/system/node/node0/meminfo", NODE0_MEMINFO);
	assert_int_equal(run_open(&r, &rv_src_sys_numa, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "node0/numastat"));
	tmp_drop(&t);
}

/* --------------------------------------------------------- netclass */

static void test_netclass(void **state)
{
	static const char *const names[] = {
		"net.carrier_changes:eth0", "net.link_up:eth0",
		"net.carrier_changes:ib0", "net.link_up:ib0",
	};
	static const double want[] = { 2, 1, 4, 1 };
	struct run r;

	(void)state;
	need_catalog();
	assert_int_equal(run_open(&r, &rv_src_sys_netclass, syshost()), 0);
	expect_names(&r, names, 4);
	assert_int_equal(r.chans.v[0].metric->kind, RV_KIND_EVENT);
	run_sample(&r);
	for (size_t i = 0; i < 4; i++)
		expect(&r, names[i], want[i]);
	run_close(&r);
}

static void test_netclass_malformed(void **state)
{
	struct tmp t;
	struct run r;

	(void)state;
	need_catalog();
	tmp_make(&t);
	put(&t, "sys/class/net/eth1/carrier_changes", "3\n");
	put(&t, "sys/class/net/eth1/carrier", "1\n");
	put(&t, "sys/class/net/eth1/speed", "-1\n");
	put(&t, "sys/class/net/eth1/mtu", "9000\n");
	put(&t, "sys/class/net/lo0x/type", "772\n");        /* loopback by type */
	put(&t, "sys/class/net/lo0x/mtu", "65536\n");
	assert_int_equal(run_open(&r, &rv_src_sys_netclass, t.root), 0);
	assert_int_equal(r.chans.n, 2);                 /* speed, mtu: facts */
	run_sample(&r);
	expect(&r, "net.link_up:eth1", 1);
	expect(&r, "net.carrier_changes:eth1", 3);
	put(&t, "sys/class/net/eth1/carrier", "");
	put(&t, "sys/class/net/eth1/carrier_changes", "99999999999999999999999\n");
	run_sample(&r);
	expect_invalid(&r, "net.link_up:eth1");
	expect_invalid(&r, "net.carrier_changes:eth1");
	put(&t, "sys/class/net/eth1/carrier", "abc\n");
	put(&t, "sys/class/net/eth1/carrier_changes", "4\n");
	run_sample(&r);
	expect_invalid(&r, "net.link_up:eth1");
	expect(&r, "net.carrier_changes:eth1", 4);
	run_close(&r);
	tmp_drop(&t);

	tmp_make(&t);
	put(&t, "sys/class/net/lo/mtu", "65536\n");
	assert_int_equal(run_open(&r, &rv_src_sys_netclass, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/sys/class/net"));
	tmp_drop(&t);
}

/* ------------------------------------------------------- infiniband */

static const char *const ib_counters[] = {
	"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
	"port_xmit_wait", "symbol_error", "link_downed", "link_error_recovery",
	"port_rcv_errors", "port_xmit_discards", "port_rcv_remote_physical_errors",
	"local_link_integrity_errors", "excessive_buffer_overrun_errors", "vl15_dropped",
	"out_of_sequence", "local_ack_timeout_err", "packet_seq_err", "rnr_nak_retry_err",
	"implied_nak_seq_err", "duplicate_request", "req_cqe_error", "resp_cqe_error",
	"np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets",
};

static void test_infiniband(void **state)
{
	char name[RV_CHAN_NAME_MAX];
	struct run r;
	size_t i;

	(void)state;
	need_catalog();
	assert_int_equal(run_open(&r, &rv_src_sys_infiniband, syshost()), 0);
	assert_int_equal(r.chans.n, 27 + 24);   /* mlx5_1 lacks the 3 CNP counters */
	for (i = 0; i < 25; i++) {
		snprintf(name, sizeof(name), "net.ib_%s:mlx5_0_1", ib_counters[i]);
		assert_string_equal(r.chans.v[i].name, name);
	}
	assert_string_equal(r.chans.v[25].name, "net.ib_port_active:mlx5_0_1");
	assert_string_equal(r.chans.v[26].name, "net.ib_rate_gbps:mlx5_0_1");
	assert_string_equal(r.chans.v[27].name, "net.ib_port_xmit_data:mlx5_1_1");
	assert_string_equal(r.chans.v[27 + 21].name, "net.ib_resp_cqe_error:mlx5_1_1");
	assert_true(r.chans.v[0].scale == 4);
	assert_true(r.chans.v[2].scale == 1);
	assert_int_equal(r.chans.v[0].metric->kind, RV_KIND_COUNTER);
	assert_int_equal(r.chans.v[4].metric->kind, RV_KIND_COUNTER);
	for (i = 5; i < 25; i++)
		assert_int_equal(r.chans.v[i].metric->kind, RV_KIND_EVENT);
	run_sample(&r);
	expect(&r, "net.ib_port_xmit_data:mlx5_0_1", 123456789012.0);
	expect(&r, "net.ib_port_rcv_data:mlx5_1_1", 2 * 98765432109.0);
	expect(&r, "net.ib_port_xmit_wait:mlx5_0_1", 1234567);
	expect(&r, "net.ib_symbol_error:mlx5_0_1", 3);
	expect(&r, "net.ib_vl15_dropped:mlx5_1_1", 18);
	expect(&r, "net.ib_np_ecn_marked_roce_packets:mlx5_0_1", 21);
	expect(&r, "net.ib_rnr_nak_retry_err:mlx5_1_1", 28);
	expect(&r, "net.ib_port_active:mlx5_0_1", 1);
	expect(&r, "net.ib_port_active:mlx5_1_1", 0);
	expect(&r, "net.ib_rate_gbps:mlx5_0_1", 200);
	expect(&r, "net.ib_rate_gbps:mlx5_1_1", 10);
	run_close(&r);
}

/* A port's counter files empty out (device removed) or turn to garbage:
 * those channels are gaps, the other port goes on. */
static void test_infiniband_removed(void **state)
{
	static const char *const files[] = {
		"counters/port_xmit_data", "counters/symbol_error", "hw_counters/out_of_sequence",
		"state", "rate",
	};
	char rel[PATH_LEN];
	struct tmp t;
	struct run r;

	(void)state;
	need_catalog();
	tmp_make(&t);
	for (int d = 0; d < 2; d++)
		for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
			snprintf(rel, sizeof(rel), "sys/class/infiniband/mlx5_%d/ports/1/%s", d, files[f]);
			put(&t, rel, f == 3 ? "4: ACTIVE\n" : f == 4 ? "100 Gb/sec (4X EDR)\n" : "7\n");
		}
	assert_int_equal(run_open(&r, &rv_src_sys_infiniband, t.root), 0);
	assert_int_equal(r.chans.n, 10);
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		snprintf(rel, sizeof(rel), "sys/class/infiniband/mlx5_1/ports/1/%s", files[f]);
		put(&t, rel, f == 0 ? "abc\n" : f == 1 ? "18446744073709551616\n" : "");
	}
	run_sample(&r);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(r.valid[i], 1);
		assert_int_equal(r.valid[5 + i], 0);
	}
	expect(&r, "net.ib_rate_gbps:mlx5_0_1", 100);
	run_close(&r);
	tmp_drop(&t);

	tmp_make(&t);
	assert_int_equal(run_open(&r, &rv_src_sys_infiniband, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/sys/class/infiniband"));
	put(&t, "sys/class/infiniband/mlx5_0/node_type", "1: CA\n");
	assert_int_equal(run_open(&r, &rv_src_sys_infiniband, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "port counters"));
	tmp_drop(&t);
}

/* ------------------------------------------------------------- host */

/* This host's /sys: each source opens and samples, or says why not. */
static void test_live_host(void **state)
{
	static const struct rv_source *const srcs[] = {
		&rv_src_sys_cpufreq, &rv_src_sys_thermal, &rv_src_sys_rapl,
		&rv_src_sys_numa, &rv_src_sys_netclass, &rv_src_sys_infiniband,
	};
	struct run r;

	(void)state;
	need_catalog();
	for (size_t s = 0; s < sizeof(srcs) / sizeof(srcs[0]); s++) {
		int rc = run_open(&r, srcs[s], "");

		if (rc) {
			assert_true(rc < 0);
			assert_true(r.err.msg[0] != '\0');
			print_message("%s: %s\n", srcs[s]->name, r.err.msg);
			continue;
		}
		if (r.chans.n > MAX_CH) {       /* a big host: sample into the heap */
			run_close(&r);
			continue;
		}
		run_sample(&r);
		print_message("%s: %zu channels\n", srcs[s]->name, r.chans.n);
		run_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_cpufreq),
		cmocka_unit_test(test_cpufreq_absent),
		cmocka_unit_test(test_cpufreq_malformed),
		cmocka_unit_test(test_thermal),
		cmocka_unit_test(test_thermal_trees),
		cmocka_unit_test(test_rapl),
		cmocka_unit_test(test_rapl_trees),
		cmocka_unit_test(test_numa),
		cmocka_unit_test(test_numa_malformed),
		cmocka_unit_test(test_numa_absent),
		cmocka_unit_test(test_netclass),
		cmocka_unit_test(test_netclass_malformed),
		cmocka_unit_test(test_infiniband),
		cmocka_unit_test(test_infiniband_removed),
		cmocka_unit_test(test_live_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
