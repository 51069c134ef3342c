/*
 * facts_test.c - host facts (facts.h): the full list of the factshost
 * fixture (2 sockets, 2 NUMA nodes, two hugepage sizes, links, IB ports,
 * disks and their partitions), trees with files missing, malformed files
 * (no model name, words and huge numbers where numbers belong, a cpulist
 * that is not one, THP without a choice) that only lose their fact, the
 * list itself (key rules, value cleaning, replacing), and the live host.
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

#include "collect/facts.h"

enum { PATH_LEN = 512 };

/* ------------------------------------------------------------ helpers */

/* Every fact: a key of [a-z0-9_.], a printable value without outer blanks. */
static void check_shape(const struct rv_facts *f)
{
	for (size_t i = 0; i < f->n; i++) {
		const char *k = f->v[i].key, *v = f->v[i].value;
		size_t vl = strlen(v);

		assert_true(strlen(k) > 0);
		assert_int_equal(strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_."), strlen(k));
		assert_true(vl > 0 && v[0] != ' ' && v[vl - 1] != ' ');
		for (size_t j = 0; j < vl; j++)
			assert_true(v[j] >= 0x20 && v[j] < 0x7f);
	}
}

/* Collects the facts under root into *f (to be finished by the caller). */
static void collect(const char *root, struct rv_facts *f)
{
	struct rv_collect_cfg cfg = { .root = root };
	struct rv_err err = { 0 };

	memset(f, 0, sizeof(*f));
	assert_int_equal(rv_facts_collect(&cfg, f, &err), 0);
	assert_int_equal(err.code, 0);
	check_shape(f);
}

static void expect(const struct rv_facts *f, const char *key, const char *value)
{
	const char *got = rv_facts_get(f, key);

	if (!got)
		fail_msg("fact %s missing", key);
	assert_string_equal(got, value);
}

static void expect_absent(const struct rv_facts *f, const char *key)
{
	const char *got = rv_facts_get(f, key);

	if (got)
		fail_msg("fact %s = \"%s\", expected none", key, got);
}

struct kv {
	const char *key, *value;
};

/* The facts are exactly these, in this order. */
static void expect_all(const struct rv_facts *f, const struct kv *want, size_t n)
{
	for (size_t i = 0; i < n && i < f->n; i++) {
		assert_string_equal(f->v[i].key, want[i].key);
		assert_string_equal(f->v[i].value, want[i].value);
	}
	assert_int_equal(f->n, n);
}

/* A temporary tree of files given as { path under the root, text }. */
struct tree {
	char root[64];
};

static void tree_write(const struct tree *t, const struct kv *file)
{
	char path[PATH_LEN];
	FILE *out;

	assert_true(snprintf(path, sizeof(path), "%s/%s", t->root, file->key) < PATH_LEN);
	for (char *slash = strchr(path + strlen(t->root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
		*slash = '/';
	}
	out = fopen(path, "w");
	assert_non_null(out);
	fputs(file->value, out);
	assert_int_equal(fclose(out), 0);
}

static void tree_make(struct tree *t, const struct kv *files, size_t n)
{
	snprintf(t->root, sizeof(t->root), "/tmp/rv_facts_XXXXXX");
	assert_non_null(mkdtemp(t->root));
	for (size_t i = 0; i < n; i++)
		tree_write(t, &files[i]);
}

static int unlink_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb, (void)type, (void)ftw;
	return remove(path);
}

static void tree_drop(const struct tree *t)
{
	assert_int_equal(nftw(t->root, unlink_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The facts of a tree of these files are exactly want. */
static void expect_tree(const struct kv *files, size_t nfiles, const struct kv *want,
			size_t nwant)
{
	struct rv_facts f;
	struct tree t;

	tree_make(&t, files, nfiles);
	collect(t.root, &f);
	expect_all(&f, want, nwant);
	rv_facts_fini(&f);
	tree_drop(&t);
}

/* ------------------------------------------------------------ fixture */

static const struct kv factshost[] = {
	{ "cpu.model", "AMD EPYC 7252 8-Core Processor" },
	{ "cpu.vendor", "AuthenticAMD" },
	{ "cpu.logical", "32" },
	{ "cpu.sockets", "2" },
	{ "cpu.cores_per_socket", "8" },
	{ "cpu.threads_per_core", "2" },
	{ "cpu.flags_avx512", "no" },
	{ "kernel.release", "5.15.0-119-generic" },
	{ "numa.nodes", "2" },
	{ "numa.node0.cpus", "0-7,16-23" },
	{ "numa.node1.cpus", "8-15,24-31" },
	{ "mem.total_bytes", "540616822784" },          /* 527946116 kB */
	{ "mem.hugepage_size_bytes", "2097152" },
	{ "mem.hugepages_2048kb", "1024" },
	{ "mem.hugepages_1048576kb", "4" },
	{ "mem.thp", "madvise" },
	{ "net.eno1.speed_mbps", "25000" },
	{ "net.eno1.mtu", "9000" },
	{ "net.eno1.operstate", "up" },
	{ "net.eno2.mtu", "1500" },                     /* speed -1: unknown */
	{ "net.eno2.operstate", "down" },
	{ "net.ib0.speed_mbps", "100000" },
	{ "net.ib0.mtu", "2044" },
	{ "net.ib0.operstate", "up" },
	{ "ib.mlx5_0_1.rate", "100 Gb/sec (4X EDR)" },
	{ "ib.mlx5_0_1.link_layer", "InfiniBand" },
	{ "ib.mlx5_1_1.rate", "25 Gb/sec (1X EDR)" },
	{ "ib.mlx5_1_1.link_layer", "Ethernet" },
	{ "disk.nvme0n1.size_bytes", "3840755982336" },  /* 7501476528 sectors */
	{ "disk.nvme0n1.rotational", "0" },
	{ "disk.sda.size_bytes", "2000398934016" },      /* 3907029168 sectors */
	{ "disk.sda.rotational", "1" },
};

static void test_fixture(void **state)
{
	const char *dir = getenv("RV_FIXTURES");
	char root[PATH_LEN];
	struct rv_facts f;

	(void)state;
	assert_non_null(dir);
	snprintf(root, sizeof(root), "%s/collect/factshost", dir);
	collect(root, &f);
	expect_all(&f, factshost, COUNT(factshost));
	expect_absent(&f, "net.lo.mtu");
	expect_absent(&f, "disk.sda1.size_bytes");
	expect_absent(&f, "disk.loop0.size_bytes");
	rv_facts_fini(&f);
	assert_null(f.v);
	assert_int_equal(f.n, 0);
}

/* A second collect appends nothing new: every key is replaced in place. */
static void test_fixture_twice(void **state)
{
	const char *dir = getenv("RV_FIXTURES");
	char root[PATH_LEN];
	struct rv_collect_cfg cfg = { .root = root };
	struct rv_facts f;

	(void)state;
	assert_non_null(dir);
	snprintf(root, sizeof(root), "%s/collect/factshost", dir);
	collect(root, &f);
	assert_int_equal(rv_facts_collect(&cfg, &f, NULL), 0);
	expect_all(&f, factshost, COUNT(factshost));
	rv_facts_fini(&f);
}

/* ------------------------------------------------------------ missing */

static void test_missing(void **state)
{
	static const struct kv files[] = {
		{ "proc/sys/kernel/osrelease", "6.8.0-45-generic\n" },
		{ "proc/meminfo", "MemTotal:       16314436 kB\nMemFree:         9815120 kB\n" },
		{ "sys/class/net/lo/mtu", "65536\n" },
		{ "sys/class/net/lo/type", "772\n" },
		{ "sys/class/block/sda1/partition", "1\n" },
		{ "sys/class/block/sda1/size", "2048\n" },
		{ "sys/class/infiniband/mlx5_0/node_type", "1: CA\n" },
		{ "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "0\n" },
		{ "sys/devices/system/node/online", "0\n" },
	};
	static const struct kv want[] = {
		{ "kernel.release", "6.8.0-45-generic" },
		{ "mem.total_bytes", "16705982464" },
	};
	struct rv_facts f;

	(void)state;
	expect_tree(files, COUNT(files), want, COUNT(want));
	collect("/nonexistent/rv_facts", &f);
	assert_int_equal(f.n, 0);
	rv_facts_fini(&f);
}

/* ------------------------------------------------------------ malformed */

static const char bad_cpuinfo[] =
	"processor\t: 0\n"
	"vendor_id\t: Genuine\001Intel\t \n"
	"model\t\t: 143\n"
	"physical id\t: 0\n"
	"siblings\t: 16\n"
	"cpu cores\t: eight\n"
	"flags\t\t: fpu avx512fx avx512_bf16 avx2\n"
	"\n"
	"processor\t: 1\n"
	"model name\t:   \n"
	"physical id\t: x\n"
	"cpu cores\t: 8\n"
	"truncated line without colon\n"
	"siblings";

static void test_malformed(void **state)
{
	static const struct kv files[] = {
		{ "proc/cpuinfo", bad_cpuinfo },
		{ "proc/meminfo", "MemTotal:       99999999999999999999 kB\n"
				  "Hugepagesize:       2048 MB\n" },
		{ "proc/sys/kernel/osrelease", "\n" },
		{ "sys/devices/system/cpu/online", "0-abc\n" },
		{ "sys/devices/system/node/node0/cpulist", "\n" },
		{ "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "many\n" },
		{ "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "-1\n" },
		{ "sys/kernel/mm/transparent_hugepage/enabled", "always madvise never\n" },
		{ "sys/class/net/eth0/speed", "fast\n" },
		{ "sys/class/net/eth0/mtu", "18446744073709551615\n" },
		{ "sys/class/net/eth0/operstate", "" },
		{ "sys/class/net/eth0/type", "1\n" },
		{ "sys/class/net/lo0/mtu", "65536\n" },     /* loopback by type */
		{ "sys/class/net/lo0/type", "772\n" },
		{ "sys/class/infiniband/mlx5_0/ports/1/rate", "" },
		{ "sys/class/infiniband/mlx5_0/ports/x/rate", "100 Gb/sec (4X EDR)\n" },
		{ "sys/class/block/vdb/size", "18446744073709551615\n" },
		{ "sys/class/block/vdb/queue/rotational", "2 3\n" },
		{ "sys/class/block/vdc/size", "-8\n" },
		{ "sys/class/block/vdc/queue/rotational", "0\n" },
	};
	static const struct kv want[] = {
		{ "cpu.vendor", "Genuine?Intel" },
		{ "cpu.flags_avx512", "no" },
		{ "numa.nodes", "1" },
		{ "net.eth0.mtu", "18446744073709551615" },
		{ "disk.vdc.rotational", "0" },
	};
	(void)state;
	expect_tree(files, COUNT(files), want, COUNT(want));
}

/* cpu.logical from cpulists good and bad; cores and siblings that do not
 * divide. */
static void test_cpulists(void **state)
{
	static const struct kv cases[] = {
		{ "0\n", "1" },
		{ "0-1\n", "2" },
		{ "0,2-3,8\n", "4" },
		{ "0-8191\n", "8192" },
		{ "0-3,\n", NULL },
		{ "3-1\n", NULL },
		{ ",0\n", NULL },
		{ "0--1\n", NULL },
		{ "0-18446744073709551615\n", NULL },
		{ "0-99999999999999999999\n", NULL },
		{ "0 1\n", NULL },
	};
	static const struct kv cpuinfo = { "proc/cpuinfo",
		"processor\t: 0\nphysical id\t: 0\nsiblings\t: 3\ncpu cores\t: 2\n"
		"flags\t\t: fpu avx512f\n\nprocessor\t: 1\nphysical id\t: 3\n" };
	struct rv_facts f;
	struct tree t;

	(void)state;
	tree_make(&t, &cpuinfo, 1);
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct kv online = { "sys/devices/system/cpu/online", cases[i].key };

		tree_write(&t, &online);
		collect(t.root, &f);
		if (cases[i].value)
			expect(&f, "cpu.logical", cases[i].value);
		else
			expect_absent(&f, "cpu.logical");
		expect(&f, "cpu.sockets", "2");
		expect(&f, "cpu.cores_per_socket", "2");
		expect_absent(&f, "cpu.threads_per_core");      /* 3 / 2 */
		expect(&f, "cpu.flags_avx512", "yes");
		rv_facts_fini(&f);
	}
	tree_drop(&t);
}

/* ------------------------------------------------------------ the list */

static void test_add(void **state)
{
	struct rv_facts f = { 0 };
	char long_value[400];

	(void)state;
	assert_int_equal(rv_facts_add(&f, "", "x"), -EINVAL);
	assert_int_equal(rv_facts_add(&f, "Cpu.model", "x"), -EINVAL);
	assert_int_equal(rv_facts_add(&f, "net.eth-0.mtu", "x"), -EINVAL);
	assert_int_equal(rv_facts_add(&f, "a.b", " \t\n"), -EINVAL);
	memset(long_value, 'k', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = '\0';
	assert_int_equal(rv_facts_add(&f, long_value, "x"), -EINVAL);
	long_value[RV_FACT_KEY_MAX - 1] = '\0';
	assert_int_equal(rv_facts_add(&f, long_value, "x"), 0);
	assert_int_equal(f.n, 1);

	memset(long_value, 'v', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = '\0';
	assert_int_equal(rv_facts_add(&f, "gpu.0.name", long_value), 0);
	assert_int_equal(strlen(rv_facts_get(&f, "gpu.0.name")), RV_FACT_VALUE_MAX - 1);
	assert_int_equal(rv_facts_add(&f, "gpu.0.name", "  NVIDIA\tH200\r\x7f\xc3\xa9  \n"), 0);
	expect(&f, "gpu.0.name", "NVIDIA H200 ???");
	assert_int_equal(f.n, 2);
	assert_null(rv_facts_get(&f, "gpu.1.name"));

	for (int i = 0; i < 200; i++) {     /* grows past the first allocation */
		char key[32];

		snprintf(key, sizeof(key), "test.k%d", i);
		assert_int_equal(rv_facts_add(&f, key, "1"), 0);
	}
	assert_int_equal(f.n, 202);
	expect(&f, "test.k199", "1");
	rv_facts_fini(&f);
	rv_facts_fini(&f);
}

/* ------------------------------------------------------------ live */

static void test_live(void **state)
{
	struct rv_facts f;

	(void)state;
	collect("", &f);
	assert_non_null(rv_facts_get(&f, "cpu.model"));
	assert_non_null(rv_facts_get(&f, "cpu.logical"));
	assert_non_null(rv_facts_get(&f, "kernel.release"));
	assert_non_null(rv_facts_get(&f, "mem.total_bytes"));
	expect_absent(&f, "net.lo.mtu");
	rv_facts_fini(&f);
}

/* GPU facts from the fake NVIDIA library; none from a library that is
 * missing or lacks the calls (no error either way). */
static void test_gpu_facts(void **state)
{
	const char *dir = getenv("RV_FAKE_LIBDIR");
	char lib[512];
	struct rv_collect_cfg cfg = { .root = "/nonexistent-root" };
	struct rv_facts f;
	struct rv_err err = { 0 };

	(void)state;
	assert_non_null(dir);
	snprintf(lib, sizeof(lib), "%s/libnvidia_ml_fake.so", dir);
	setenv("FAKE_NVML_GPUS", "2", 1);
	cfg.nvml_lib = lib;
	memset(&f, 0, sizeof(f));
	assert_int_equal(rv_facts_collect(&cfg, &f, &err), 0);
	expect(&f, "gpu.driver", "999.99-fake");
	expect(&f, "gpu.0.name", "NVIDIA T4 (fake 0)");
	expect(&f, "gpu.1.name", "NVIDIA T4 (fake 1)");
	expect_absent(&f, "gpu.2.name");
	rv_facts_fini(&f);

	snprintf(lib, sizeof(lib), "%s/libnvidia_ml_nosym.so", dir);    /* no name calls */
	memset(&f, 0, sizeof(f));
	assert_int_equal(rv_facts_collect(&cfg, &f, &err), 0);
	expect_absent(&f, "gpu.driver");
	expect_absent(&f, "gpu.0.name");
	rv_facts_fini(&f);

	cfg.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
	memset(&f, 0, sizeof(f));
	assert_int_equal(rv_facts_collect(&cfg, &f, &err), 0);
	expect_absent(&f, "gpu.driver");
	rv_facts_fini(&f);
	unsetenv("FAKE_NVML_GPUS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_fixture_twice),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_cpulists),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_gpu_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
