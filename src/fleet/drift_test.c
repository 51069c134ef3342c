/*
 * drift_test.c - configuration drift on crafted facts. Each finding is
 * written as one line ("key: majority (n/N) odd: node=value ..." or "key:
 * split a[n1,n2] b[...]") and compared whole: odd values and missing keys,
 * splits 2-2 and 1-1-1, a key most nodes lack, numbers within the
 * tolerance (and MTUs, which have none), the default excludes and own
 * globs, GPU identity against GPU settings, input order, nodes that
 * report only excluded keys, the limits and the errors, a second run, and
 * a group of 3000 nodes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fleet/drift.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct fact3 {
	const char *node, *key, *value;
};

static struct rv_drift *new_drift(const struct rv_drift_opts *o)
{
	struct rv_drift *d = NULL;
	struct rv_err err = { 0 };

	assert_int_equal(rv_drift_new(o, &d, &err), 0);
	assert_non_null(d);
	return d;
}

static void add_all(struct rv_drift *d, const struct fact3 *f, size_t n)
{
	struct rv_err err = { 0 };

	for (size_t i = 0; i < n; i++)
		assert_int_equal(rv_drift_add(d, f[i].node, f[i].key, f[i].value, &err), 0);
}

static void catf(char *out, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out + len, cap - len, fmt, ap);
	va_end(ap);
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

/* One finding as a line (see the top of the file). */
static void line_of(const struct rv_drift_finding *f, char *out, size_t cap)
{
	snprintf(out, cap, "%s:", f->key);
	if (f->split) {
		for (size_t v = 0; v < f->nvalues; v++) {
			catf(out, cap, " %s[", or_dash(f->values[v].value));
			for (size_t k = 0; k < f->values[v].count; k++)
				catf(out, cap, "%s%s", k ? "," : "", f->values[v].nodes[k]);
			catf(out, cap, "]");
		}
		return;
	}
	catf(out, cap, " %s (%zu/%zu) odd:", f->majority_lacks ? "-" : f->majority,
	     f->nmajority, f->nnodes);
	for (size_t k = 0; k < f->nodd; k++)
		catf(out, cap, " %s=%s", f->odd[k].node, or_dash(f->odd[k].value));
}

/* Runs d and checks its findings against want[0..n). */
static void expect(struct rv_drift *d, const char *const *want, size_t n)
{
	struct rv_err err = { 0 };
	char line[1024];

	assert_int_equal(rv_drift_run(d, &err), 0);
	assert_int_equal(rv_drift_count(d), n);
	for (size_t i = 0; i < n; i++) {
		line_of(rv_drift_get(d, i), line, sizeof(line));
		assert_string_equal(line, want[i]);
	}
	assert_null(rv_drift_get(d, n));
}

static const struct fact3 five[] = {
	{ "n1", "mem.hugepages_2048kb", "0" }, { "n1", "gpu.driver", "550.54" },
	{ "n1", "kernel.release", "6.1.0" },   { "n1", "net.eth0.mtu", "9000" },
	{ "n2", "mem.hugepages_2048kb", "0" }, { "n2", "gpu.driver", "550.54" },
	{ "n2", "kernel.release", "6.1.0" },   { "n2", "net.eth0.mtu", "9000" },
	{ "n3", "mem.hugepages_2048kb", "1024" }, { "n3", "gpu.driver", "550.54" },
	{ "n3", "kernel.release", "6.1.0" },   { "n3", "net.eth0.mtu", "9001" },
	{ "n4", "mem.hugepages_2048kb", "0" }, { "n4", "gpu.driver", "550.54" },
	{ "n4", "kernel.release", "6.1.0" },   { "n4", "net.eth0.mtu", "9000" },
	{ "n5", "mem.hugepages_2048kb", "0" },
	{ "n5", "kernel.release", "6.1.0" },   { "n5", "net.eth0.mtu", "9000" },
};

static void test_odd_and_missing(void **state)
{
	static const char *const want[] = {
		"gpu.driver: 550.54 (4/5) odd: n5=-",
		"mem.hugepages_2048kb: 0 (4/5) odd: n3=1024",
		"net.eth0.mtu: 9000 (4/5) odd: n3=9001",      /* no tolerance on MTUs */
	};
	struct rv_drift *d = new_drift(NULL);
	const struct rv_drift_finding *f;

	(void)state;
	add_all(d, five, N(five));
	expect(d, want, N(want));
	assert_int_equal(rv_drift_nodes(d), 5);
	f = rv_drift_get(d, 1);
	assert_false(f->split);
	assert_true(f->tolerance == 0);
	assert_int_equal(f->nvalues, 2);
	assert_string_equal(f->values[0].value, "0");
	assert_int_equal(f->values[0].count, 4);
	assert_string_equal(f->values[0].nodes[3], "n5");
	assert_string_equal(f->values[1].value, "1024");
	rv_drift_free(d);
	rv_drift_free(NULL);
}

static void test_splits_and_lacking_majority(void **state)
{
	static const struct fact3 facts[] = {
		{ "a", "kernel.release", "6.1" }, { "b", "kernel.release", "6.8" },
		{ "c", "kernel.release", "6.1" }, { "d", "kernel.release", "6.8" },
		{ "a", "cpu.model", "X" }, { "b", "cpu.model", "Y" }, { "c", "cpu.model", "Z" },
		{ "d", "gpu.0.name", "H100" },
		{ "a", "numa.nodes", "2" }, { "b", "numa.nodes", "2" },
	};
	static const char *const want[] = {
		"cpu.model: X[a] Y[b] Z[c] -[d]",
		"gpu.0.name: - (3/4) odd: d=H100",
		"kernel.release: 6.1[a,c] 6.8[b,d]",
		"numa.nodes: 2[a,b] -[c,d]",
	};
	struct rv_drift *d = new_drift(NULL);
	const struct rv_drift_finding *f;

	(void)state;
	add_all(d, facts, N(facts));
	expect(d, want, N(want));
	f = rv_drift_get(d, 1);
	assert_true(f->majority_lacks && !f->majority && f->nmajority == 3);
	f = rv_drift_get(d, 2);
	assert_true(f->split && !f->majority && f->nmajority == 0);
	assert_int_equal(f->nodd, 4);                 /* a split: every node */
	assert_string_equal(f->odd[0].node, "a");
	assert_string_equal(f->odd[1].value, "6.8");
	rv_drift_free(d);
}

static void test_tolerance(void **state)
{
	static const struct fact3 facts[] = {
		{ "a", "mem.total_bytes", "25276157952" },
		{ "b", "mem.total_bytes", "25276162048" },
		{ "c", "mem.total_bytes", "25270000000" },
		{ "d", "mem.total_bytes", "24000000000" },
		{ "e", "mem.total_bytes", "25276157952" },
		{ "a", "disk.vda.size_bytes", "274877906944" },
		{ "b", "disk.vda.size_bytes", "274877906945" },
		{ "c", "disk.vda.size_bytes", "274877906944" },
		{ "d", "disk.vda.size_bytes", "274877906944" },
		{ "e", "disk.vda.size_bytes", "274877906944" },
		{ "a", "swap.total_bytes", "none" }, { "b", "swap.total_bytes", "0" },
		{ "c", "swap.total_bytes", "none" }, { "d", "swap.total_bytes", "none" },
		{ "e", "swap.total_bytes", "none" },
	};
	static const char *const want[] = {
		"disk.vda.size_bytes: 274877906944 (4/5) odd: b=274877906945",
		"mem.total_bytes: 25276157952 (4/5) odd: d=24000000000",
		"swap.total_bytes: none (4/5) odd: b=0",   /* not all numbers: text */
	};
	struct rv_drift *d = new_drift(NULL);
	const struct rv_drift_finding *f;
	struct rv_drift_opts o;

	(void)state;
	add_all(d, facts, N(facts));
	expect(d, want, N(want));
	f = rv_drift_get(d, 1);
	assert_true(f->tolerance == RV_DRIFT_DEF_REL_TOL);
	assert_string_equal(f->values[0].lo, "25270000000");
	assert_string_equal(f->values[0].hi, "25276162048");
	assert_true(rv_drift_get(d, 0)->tolerance == 0);
	rv_drift_free(d);
	/* every node within the tolerance: nothing to say; exact: a split */
	rv_drift_opts_default(&o);
	d = new_drift(&o);
	add_all(d, facts, 3);
	expect(d, NULL, 0);
	rv_drift_free(d);
	o.rel_tol = 0;
	d = new_drift(&o);
	add_all(d, facts, 3);
	assert_int_equal(rv_drift_run(d, NULL), 0);
	assert_int_equal(rv_drift_count(d), 1);
	assert_true(rv_drift_get(d, 0)->split);
	rv_drift_free(d);
}

static void test_globs(void **state)
{
	static const struct fact3 facts[] = {
		{ "a", "gpu.0.serial", "111" }, { "b", "gpu.0.serial", "222" },
		{ "c", "gpu.0.serial", "333" }, { "a", "gpu.0.uuid", "GPU-1" },
		{ "b", "gpu.0.uuid", "GPU-2" }, { "c", "net.veth12ab.mtu", "1500" },
		{ "a", "net.eth0.mac", "aa" }, { "b", "net.eth0.mac", "bb" },
		{ "a", "mem.thp", "always" }, { "b", "mem.thp", "always" },
		{ "c", "mem.thp", "never" }, { "a", "cpu.model", "X" },
		{ "b", "cpu.model", "Y" }, { "c", "cpu.model", "X" },
	};
	static const char *const want_default[] = {
		"cpu.model: X (2/3) odd: b=Y",
		"mem.thp: always (2/3) odd: c=never",
	};
	static const char *const want_mem[] = { "mem.thp: always (2/3) odd: c=never" };
	static const char *const inc[] = { "mem.*", "gpu.*" }, *const exc[] = { "*uuid*" };
	struct rv_drift_opts o;
	struct rv_drift *d = new_drift(NULL);
	size_t n;

	(void)state;
	add_all(d, facts, N(facts));
	expect(d, want_default, N(want_default));
	assert_false(rv_drift_wanted(d, "disk.sda.serial"));
	assert_false(rv_drift_wanted(d, "net.docker0.mtu"));
	assert_true(rv_drift_wanted(d, "net.eth0.operstate"));
	assert_true(rv_drift_default_exclude(&n) != NULL && n > 10);
	rv_drift_free(d);
	/* own lists: gpu.0.serial is compared now, the uuid not */
	rv_drift_opts_default(&o);
	o.include = inc;
	o.ninclude = N(inc);
	o.exclude = exc;
	o.nexclude = N(exc);
	d = new_drift(&o);
	add_all(d, facts, N(facts));
	assert_int_equal(rv_drift_run(d, NULL), 0);
	assert_int_equal(rv_drift_count(d), 2);
	assert_string_equal(rv_drift_get(d, 0)->key, "gpu.0.serial");
	assert_true(rv_drift_get(d, 0)->split);
	assert_string_equal(rv_drift_get(d, 1)->key, "mem.thp");
	rv_drift_free(d);
	o.include = NULL;
	o.ninclude = 0;
	o.nexclude = 0;
	o.tolerant = NULL;
	o.ntolerant = 0;
	d = new_drift(&o);
	add_all(d, facts + 8, 3);
	expect(d, want_mem, N(want_mem));
	rv_drift_free(d);
}

/* GPU facts of three nodes (collect/nvml_facts.h): every board has its own
 * UUID and serial, which is no drift; ECC off on one node's GPU 0 and a
 * link trained at x8 where its peers run x16 are, each naming the node;
 * the best link, the same everywhere, is not. */
static void test_gpu_facts(void **state)
{
	static const struct fact3 facts[] = {
		{ "a", "gpu.0.uuid", "GPU-5b3c1e2a" }, { "a", "gpu.0.serial", "1654922001" },
		{ "a", "gpu.0.ecc", "on" }, { "a", "gpu.0.pcie_width", "x16" },
		{ "a", "gpu.0.pcie_link_max", "gen5 x16" }, { "a", "gpu.0.power_limit_w", "700" },
		{ "b", "gpu.0.uuid", "GPU-9f00d7c4" }, { "b", "gpu.0.serial", "1654922002" },
		{ "b", "gpu.0.ecc", "off" }, { "b", "gpu.0.pcie_width", "x16" },
		{ "b", "gpu.0.pcie_link_max", "gen5 x16" }, { "b", "gpu.0.power_limit_w", "700" },
		{ "c", "gpu.0.uuid", "GPU-0e8d44b1" }, { "c", "gpu.0.serial", "1654922003" },
		{ "c", "gpu.0.ecc", "on" }, { "c", "gpu.0.pcie_width", "x8" },
		{ "c", "gpu.0.pcie_link_max", "gen5 x16" }, { "c", "gpu.0.power_limit_w", "700" },
	};
	static const char *const want[] = {
		"gpu.0.ecc: on (2/3) odd: b=off",
		"gpu.0.pcie_width: x16 (2/3) odd: c=x8",
	};
	/* Identity: left out. Configuration: compared (no default glob may
	 * swallow one by accident). */
	static const char *const identity[] = { "gpu.0.uuid", "gpu.7.serial" };
	static const char *const config[] = {
		"gpu.driver", "gpu.cuda_driver", "gpu.nvml_version", "gpu.count", "gpu.0.name",
		"gpu.0.vbios", "gpu.0.persistence", "gpu.0.power_limit_w",
		"gpu.0.power_limit_enforced_w", "gpu.0.app_clock_sm_mhz", "gpu.0.app_clock_mem_mhz",
		"gpu.0.ecc", "gpu.0.mig", "gpu.0.pcie_width", "gpu.0.pcie_link_max",
	};
	struct rv_drift *d = new_drift(NULL);

	(void)state;
	add_all(d, facts, N(facts));
	expect(d, want, N(want));
	for (size_t i = 0; i < N(identity); i++)
		assert_false(rv_drift_wanted(d, identity[i]));
	for (size_t i = 0; i < N(config); i++)
		if (!rv_drift_wanted(d, config[i]))
			fail_msg("%s is configuration but left out of drift", config[i]);
	rv_drift_free(d);
}

/* The order facts come in changes nothing; a node that reports only
 * excluded keys is still one of the group (and lacks the others). */
static void test_order_and_silent_keys(void **state)
{
	static const char *const want[] = {
		"gpu.driver: 550.54 (4/6) odd: n5=- n6=-",
		"kernel.release: 6.1.0 (5/6) odd: n6=-",
		"mem.hugepages_2048kb: 0 (4/6) odd: n3=1024 n6=-",
		"net.eth0.mtu: 9000 (4/6) odd: n3=9001 n6=-",
	};
	struct rv_drift *d = new_drift(NULL);
	struct rv_err err = { 0 };

	(void)state;
	for (size_t i = N(five); i-- > 0;)
		assert_int_equal(rv_drift_add(d, five[i].node, five[i].key, five[i].value,
					      &err), 0);
	assert_int_equal(rv_drift_add(d, "n6", "board.serial", "XYZ", &err), 0);
	assert_int_equal(rv_drift_add(d, "n2", "gpu.driver", "550.54", &err), 0);  /* again */
	expect(d, want, N(want));
	rv_drift_free(d);
}

static void test_errors_and_limits(void **state)
{
	static const char *const empty[] = { "" };
	struct rv_drift_opts o;
	struct rv_drift *d = NULL;
	struct rv_err err = { 0 };
	char longv[RV_DRIFT_MAX_TEXT + 2];

	(void)state;
	rv_drift_opts_default(&o);
	o.rel_tol = 1.5;
	assert_int_equal(rv_drift_new(&o, &d, &err), -EINVAL);
	assert_null(d);
	rv_err_clear(&err);
	rv_drift_opts_default(&o);
	o.exclude = empty;
	o.nexclude = 1;
	assert_int_equal(rv_drift_new(&o, &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "exclude glob 1"));
	rv_drift_opts_default(&o);
	o.max_facts = 2;
	o.max_bytes = 40;
	d = new_drift(&o);
	assert_int_equal(rv_drift_add(d, "", "k", "v", NULL), -EINVAL);
	assert_int_equal(rv_drift_add(d, "n", NULL, "v", NULL), -EINVAL);
	memset(longv, 'x', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = 0;
	rv_err_clear(&err);
	assert_int_equal(rv_drift_add(d, "n", "k", longv, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "longer than"));
	assert_int_equal(rv_drift_add(d, "n1", "k", "v1", NULL), 0);
	assert_int_equal(rv_drift_add(d, "n1", "k", "v2", NULL), 0);
	rv_err_clear(&err);
	assert_int_equal(rv_drift_add(d, "n2", "k", "v", &err), -E2BIG);
	assert_non_null(strstr(err.msg, "more than 2 facts"));
	rv_err_clear(&err);
	assert_int_equal(rv_drift_run(d, &err), -EINVAL);   /* n1 gave k twice */
	assert_non_null(strstr(err.msg, "n1"));
	assert_int_equal(rv_drift_count(d), 0);
	rv_drift_free(d);
	o.max_facts = 0;
	d = new_drift(&o);
	rv_err_clear(&err);
	assert_int_equal(rv_drift_add(d, "node-with-a-long-name", "some.key", "a value here",
				      &err), -E2BIG);
	assert_non_null(strstr(err.msg, "40 bytes"));
	rv_drift_free(d);
}

/* A second run sees the facts added since; an empty comparison finds
 * nothing. */
static void test_second_run(void **state)
{
	static const char *const want[] = { "mem.thp: always (3/4) odd: d=never" };
	struct rv_drift *d = new_drift(NULL);

	(void)state;
	expect(d, NULL, 0);
	assert_int_equal(rv_drift_nodes(d), 0);
	add_all(d, (const struct fact3[]){ { "a", "mem.thp", "always" },
					   { "b", "mem.thp", "always" },
					   { "c", "mem.thp", "always" } }, 3);
	expect(d, NULL, 0);
	add_all(d, (const struct fact3[]){ { "d", "mem.thp", "never" } }, 1);
	expect(d, want, 1);
	rv_drift_free(d);
}

/* 3000 nodes of 30 facts, one node odd on one. */
static void test_big_group(void **state)
{
	struct rv_drift *d = new_drift(NULL);
	const struct rv_drift_finding *f;
	char node[32], key[32], value[32];

	(void)state;
	for (int k = 0; k < 30; k++)
		for (int i = 0; i < 3000; i++) {
			snprintf(node, sizeof(node), "node%04d", i);
			snprintf(key, sizeof(key), "key.%02d", k);
			snprintf(value, sizeof(value), "%d", k == 7 && i == 1234 ? 1 : 0);
			assert_int_equal(rv_drift_add(d, node, key, value, NULL), 0);
		}
	assert_int_equal(rv_drift_run(d, NULL), 0);
	assert_int_equal(rv_drift_count(d), 1);
	f = rv_drift_get(d, 0);
	assert_string_equal(f->key, "key.07");
	assert_true(f->nmajority == 2999 && f->nnodes == 3000 && f->nodd == 1);
	assert_string_equal(f->odd[0].node, "node1234");
	assert_string_equal(f->odd[0].value, "1");
	rv_drift_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd_and_missing),
		cmocka_unit_test(test_splits_and_lacking_majority),
		cmocka_unit_test(test_tolerance),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_gpu_facts),
		cmocka_unit_test(test_order_and_silent_keys),
		cmocka_unit_test(test_errors_and_limits),
		cmocka_unit_test(test_second_run),
		cmocka_unit_test(test_big_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
