/*
 * proc_meminfo_test.c - unit tests of proc.meminfo and of the key-value
 * reader under it: the memhost fixture (a real /proc/meminfo), lines
 * matched by name in any order, unknown fields, malformed and huge
 * values, a file that empties or is unlinked after open, missing files,
 * the learned line order against a file that changes under it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "collect/sources.h"

enum { MAXCH = 128, MEMHOST_FIELDS = 54 };

struct opened {
	struct rv_chanlist chans;
	void *state;
	double raw[MAXCH];
	uint8_t valid[MAXCH];
};

static int open_src(struct opened *o, const char *root, struct rv_err *err)
{
	struct rv_collect_cfg cfg = { .root = root };

	memset(o, 0, sizeof(*o));
	rv_err_clear(err);
	return rv_src_proc_meminfo.open(&cfg, &o->state, &o->chans, err);
}

static void sample(struct opened *o)
{
	assert_true(o->chans.n <= MAXCH);
	memset(o->valid, 0, sizeof(o->valid));
	rv_src_proc_meminfo.sample(o->state, o->raw, o->valid);
}

static void close_src(struct opened *o)
{
	rv_src_proc_meminfo.close(o->state);
	rv_chanlist_fini(&o->chans);
}

/* Index of channel `name`; fails the test when absent. */
static size_t chan(const struct opened *o, const char *name)
{
	for (size_t i = 0; i < o->chans.n; i++)
		if (strcmp(o->chans.v[i].name, name) == 0)
			return i;
	fail_msg("no channel %s", name);
	return 0;
}

/* A fresh tree with proc/meminfo holding `text`; the root in dir. */
static void make_tree(char *dir, size_t cap, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(dir, cap, "/tmp/rv_meminfo_XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/proc", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Rewrites the file in place (same inode: the source's fd sees it). */
static void rewrite(const char *dir, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 0), 0);
	fputs(text, f);
	fclose(f);
}

static void remove_tree(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", dir);
	rmdir(path);
	rmdir(dir);
}

/* Values of tests/fixtures/collect/memhost/proc/meminfo. */
static const struct {
	const char *name;
	double raw, scale;
	const char *unit;
} memhost_values[] = {
	{ "mem.mem_total_bytes", 24683568.0, 1024.0, "bytes" },
	{ "mem.active_anon_bytes", 11796.0, 1024.0, "bytes" },
	{ "mem.vmalloc_total_bytes", 34359738367.0, 1024.0, "bytes" },
	{ "mem.hugepages_total", 0.0, 1.0, "pages" },
	{ "mem.hugepagesize_bytes", 2048.0, 1024.0, "bytes" },
	{ "mem.direct_map_1g_bytes", 25165824.0, 1024.0, "bytes" },
};

static void test_memhost_fixture(void **unused)
{
	char root[512];
	struct rv_err err;
	struct opened o;
	size_t i;

	(void)unused;
	snprintf(root, sizeof(root), "%s/collect/memhost", getenv("RV_FIXTURES"));
	assert_int_equal(open_src(&o, root, &err), 0);
	assert_int_equal(o.chans.n, MEMHOST_FIELDS);
	/* table order, which is also the kernel's */
	assert_string_equal(o.chans.v[0].name, "mem.mem_total_bytes");
	assert_string_equal(o.chans.v[1].name, "mem.mem_free_bytes");
	assert_string_equal(o.chans.v[MEMHOST_FIELDS - 1].name, "mem.direct_map_1g_bytes");
	for (i = 0; i < o.chans.n; i++) {
		assert_int_equal(o.chans.v[i].metric->kind, RV_KIND_GAUGE);
		assert_string_equal(o.chans.v[i].metric->name, o.chans.v[i].name);
	}
	sample(&o);
	for (i = 0; i < o.chans.n; i++)
		assert_int_equal(o.valid[i], 1);
	for (i = 0; i < sizeof(memhost_values) / sizeof(memhost_values[0]); i++) {
		size_t c = chan(&o, memhost_values[i].name);

		assert_true(o.raw[c] == memhost_values[i].raw);
		assert_true(o.chans.v[c].scale == memhost_values[i].scale);
		assert_string_equal(o.chans.v[c].metric->unit, memhost_values[i].unit);
	}
	close_src(&o);
}

static void test_order_and_unknown_fields(void **unused)
{
	char dir[64];
	struct rv_err err;
	struct opened o;

	(void)unused;
	make_tree(dir, sizeof(dir), "FutureField:     7 kB\nMemTotal:  2000 kB\n"
		  "MemFree:   1000 kB\nHugePages_Free:  3\n");
	assert_int_equal(open_src(&o, dir, &err), 0);
	assert_int_equal(o.chans.n, 3);
	assert_string_equal(o.chans.v[0].name, "mem.mem_total_bytes");
	assert_string_equal(o.chans.v[1].name, "mem.mem_free_bytes");
	assert_string_equal(o.chans.v[2].name, "mem.hugepages_free");
	rewrite(dir, "HugePages_Free:  4\nMemFree:   1500 kB\nNewer: 1\nMemTotal:  2000 kB\n");
	sample(&o);
	assert_int_equal(o.valid[0], 1);
	assert_true(o.raw[0] == 2000.0);
	assert_int_equal(o.valid[1], 1);
	assert_true(o.raw[1] == 1500.0);
	assert_int_equal(o.valid[2], 1);
	assert_true(o.raw[2] == 4.0);
	close_src(&o);
	remove_tree(dir);
}

static const char six_fields[] =
	"MemTotal:  2000 kB\nMemFree:   1000 kB\nBuffers:   10 kB\n"
	"Cached:    20 kB\nSwapCached:  0 kB\nActive:    30 kB\n";

static void test_malformed_lines(void **unused)
{
	char dir[64];
	struct rv_err err;
	struct opened o;

	(void)unused;
	make_tree(dir, sizeof(dir), six_fields);
	assert_int_equal(open_src(&o, dir, &err), 0);
	assert_int_equal(o.chans.n, 6);
	rewrite(dir, "MemTotal:\n"                              /* truncated */
		"MemFree:   abc kB\n"                             /* not a number */
		"Buffers:   12 kB extra\n"                        /* extra column */
		"Cached:    18446744073709551615 kB\n"            /* 2^64 - 1 */
		"SwapCached:  18446744073709551616 kB\n");        /* 2^64 */
	sample(&o);                                               /* Active: gone */
	assert_int_equal(o.valid[0], 0);
	assert_int_equal(o.valid[1], 0);
	assert_int_equal(o.valid[2], 0);
	assert_int_equal(o.valid[3], 1);
	assert_true(o.raw[3] == 18446744073709551615.0);
	assert_int_equal(o.valid[4], 0);
	assert_int_equal(o.valid[5], 0);
	/* a duplicated line is not a value we can trust */
	rewrite(dir, "MemTotal:  2000 kB\nMemTotal:  2001 kB\nMemFree 5\nBuffers:\t7\n");
	sample(&o);
	assert_int_equal(o.valid[0], 0);
	assert_int_equal(o.valid[1], 1);
	assert_true(o.raw[1] == 5.0);
	assert_int_equal(o.valid[2], 1);
	assert_true(o.raw[2] == 7.0);
	/* truncated mid-line, no newline at the end */
	rewrite(dir, "MemTotal:  2000 kB\nMemFree:   10");
	sample(&o);
	assert_int_equal(o.valid[0], 1);
	assert_int_equal(o.valid[1], 1);
	assert_true(o.raw[1] == 10.0);
	assert_int_equal(o.valid[2], 0);
	close_src(&o);
	remove_tree(dir);
}

static void test_file_empties_or_vanishes(void **unused)
{
	char dir[64], path[512];
	struct rv_err err;
	struct opened o;

	(void)unused;
	make_tree(dir, sizeof(dir), six_fields);
	assert_int_equal(open_src(&o, dir, &err), 0);
	rewrite(dir, "");
	sample(&o);
	for (size_t i = 0; i < o.chans.n; i++)
		assert_int_equal(o.valid[i], 0);
	/* unlinked: the open file is still read (a procfs file that goes
	 * away fails the read instead, which the empty case covers) */
	rewrite(dir, six_fields);
	snprintf(path, sizeof(path), "%s/proc/meminfo", dir);
	assert_int_equal(unlink(path), 0);
	sample(&o);
	assert_int_equal(o.valid[5], 1);
	assert_true(o.raw[5] == 30.0);
	close_src(&o);
	remove_tree(dir);
}

/* Asserts that a and b read the same values and validity bits. */
static void assert_same(const struct opened *a, const struct opened *b, const char *what)
{
	assert_int_equal(a->chans.n, b->chans.n);
	for (size_t i = 0; i < a->chans.n; i++) {
		if (a->valid[i] != b->valid[i] || a->raw[i] != b->raw[i])
			fail_msg("%s: channel %s: %g/%d, a fresh source %g/%d", what,
				 a->chans.v[i].name, a->raw[i], a->valid[i], b->raw[i], b->valid[i]);
	}
}

/*
 * A sample tries the order of lines learned at the last one, and falls
 * back to hashing each key when a line's key differs: whatever the file
 * becomes, a source that learned the old order reads exactly what a
 * source that never sampled it reads (its first sample hashes).
 */
static void test_learned_order_changes(void **unused)
{
	static const char base[] = "MemTotal: 1000 kB\nMemFree: 500 kB\nFoo: 1 kB\n"
				   "HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB\n";
	static const char *const variants[] = {
		base,
		"MemTotal: 1001 kB\nMemFree: 499 kB\nFoo: 2 kB\n"
		"HugePages_Total: 5\nCached: 21 kB\nDirectMap4k: 9 kB\n",
		"MemTotal: 1000 kB\nCached: 20 kB\nFoo: 1 kB\n"
		"HugePages_Total: 4\nMemFree: 500 kB\nDirectMap4k: 8 kB\n",
		"Bar: 3 kB\nMemTotal: 1000 kB\nMemFree: 500 kB\nFoo: 1 kB\n"
		"HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB\n",
		"MemTotal: 1000 kB\nMemFree: 500 kB\n"
		"HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB\n",
		"MemTotal: 1000 kB\nMemFree: 500 kB\nMemFree: 1 kB\n"
		"HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB\n",
		"MemTotal: 1000 kB\nMemFreeX: 500 kB\nFoo: 1 kB\n"
		"HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB\n",
		"MemTotal: 1000 kB\nMemFre: 500 kB\nFoo: 1 kB\n"
		"HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB\n",
		"MemTotal: 1000 kB\nMemFree\t500 kB\nFoo: 1 kB\n"
		"HugePages_Total: 4\nCached:20 kB\nDirectMap4k 8 kB\n",
		"MemTotal: 1000 kB\nMemFree: 500 kB\n\n"
		"HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB\n",
		"MemTotal: 1000 kB\nMemFree: 500 kB\n: 1 kB\n"
		"HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB\n",
		"MemTotal: 1000 kB\nMemFree: x kB\nFoo: 1 kB\n"
		"HugePages_Total: 4\nCached: 20 MB\nDirectMap4k: 8 kB\n",
		"MemTotal: 1000 kB\nMemFree: 500 kB\nFoo: 1 kB\n"
		"HugePages_Total: 4\nCached: 20 kB\nDirectMap4k: 8 kB",
		"MemTotal: 1000 kB\nMemFree: 500 kB\nFoo: 1 kB\n"
		"HugePages_Total: 4\nCached: 20 kB\n",
		"MemTotal",
		"",
	};
	char dir[64], many[2048];
	size_t len = 0;
	struct rv_err err;
	struct opened a, b;

	(void)unused;
	/* more lines than the order has room for (twice the lines at open
	 * and 16): every sample hashes */
	for (int i = 0; i < 60; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len, "X%d: %d kB\n", i, i);
	snprintf(many + len, sizeof(many) - len, "MemFree: 7 kB\nCached: 9 kB\n");
	make_tree(dir, sizeof(dir), base);
	assert_int_equal(open_src(&a, dir, &err), 0);
	assert_int_equal(a.chans.n, 5);
	for (size_t v = 0; v <= sizeof(variants) / sizeof(variants[0]); v++) {
		const char *text = v < sizeof(variants) / sizeof(variants[0]) ? variants[v] : many;

		rewrite(dir, base);
		assert_int_equal(open_src(&b, dir, &err), 0);
		sample(&a);     /* learns the base order (again) */
		rewrite(dir, text);
		sample(&b);
		for (int k = 0; k < 3; k++) {
			sample(&a);
			assert_same(&a, &b, text);
		}
		close_src(&b);
	}
	close_src(&a);
	remove_tree(dir);
}

static void test_missing_and_useless_files(void **unused)
{
	char dir[64];
	struct rv_err err;
	struct opened o;

	(void)unused;
	assert_int_equal(open_src(&o, "/nonexistent/rv", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/rv/proc/meminfo"));
	assert_int_equal(o.chans.n, 0);
	rv_chanlist_fini(&o.chans);
	make_tree(dir, sizeof(dir), "Nothing: 1 kB\nWeKnow: 2 kB\n");
	assert_int_equal(open_src(&o, dir, &err), -ENODATA);
	assert_non_null(strstr(err.msg, "/proc/meminfo"));
	assert_int_equal(o.chans.n, 0);
	rv_chanlist_fini(&o.chans);
	remove_tree(dir);
	rv_src_proc_meminfo.close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memhost_fixture),
		cmocka_unit_test(test_order_and_unknown_fields),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_file_empties_or_vanishes),
		cmocka_unit_test(test_learned_order_changes),
		cmocka_unit_test(test_missing_and_useless_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
