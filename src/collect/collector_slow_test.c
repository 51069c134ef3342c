/*
 * collector_slow_test.c - slow sources (collector.h): with slow_every 3, a
 * slow source (proc.fs) is read at sweeps 0, 3, 6 only and its channels
 * are gaps at the others, whatever its files say meanwhile; a fast one
 * (proc.stat) at every sweep; the same through rv_collector_read (what a
 * recorder stores); slow_every 1 reads everything every sweep; and
 * rv_collect_slow_every rounds intervals to whole sweeps. The tree is a
 * temporary root (procnet_test.h's harness).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/collector.h"
#include "collect/procnet_test.h"

enum { NS_PER_MS = 1000000, SWEEPS = 7 };

static const char stat_fmt[] =
	"cpu  100 0 50 1000 0 0 0 0 0 0\n"
	"cpu0 100 0 50 1000 0 0 0 0 0 0\n"
	"intr 500\n"
	"ctxt %d\n"
	"btime 1\n"
	"processes 10\n"
	"procs_running 1\n"
	"procs_blocked 0\n";

/* Sweep k's files: ctxt 1000 + 10 k, dentries 5000 + k. */
static void write_sweep(const char *root, int k)
{
	char text[512];

	snprintf(text, sizeof(text), stat_fmt, 1000 + 10 * k);
	put_file(root, "/proc/stat", text);
	snprintf(text, sizeof(text), "%d 100 45 0 7 0\n", 5000 + k);
	put_file(root, "/proc/sys/fs/dentry-state", text);
}

static void make_root(char *root, size_t cap)
{
	char dir[RUN_PATH_MAX];

	tmp_root(root, cap, 0);
	snprintf(dir, sizeof(dir), "%s/proc/sys", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/proc/sys/fs", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	put_file(root, "/proc/sys/fs/inode-nr", "300 20\n");
	put_file(root, "/proc/sys/fs/file-nr", "900 0 100000\n");
	write_sweep(root, 0);
}

static void remove_root(const char *root)
{
	static const char *const rel[] = {
		"/proc/stat", "/proc/sys/fs/dentry-state", "/proc/sys/fs/inode-nr",
		"/proc/sys/fs/file-nr", "/proc/sys/fs", "/proc/sys", "/proc", "",
	};
	char path[RUN_PATH_MAX];

	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, rel[i]);
		if (unlink(path) != 0)
			assert_int_equal(rmdir(path), 0);
	}
}

static size_t chan_at(const struct rv_collector *c, const char *name)
{
	for (size_t i = 0; i < rv_collector_nchan(c); i++)
		if (strcmp(rv_collector_chan(c, i)->name, name) == 0)
			return i;
	fail_msg("no channel %s", name);
	return 0;
}

static size_t source_at(const struct rv_collector *c, const char *name)
{
	for (size_t i = 0; i < rv_collector_nsources(c); i++) {
		const char *n;
		size_t nch;
		uint64_t last, total;

		rv_collector_source_stats(c, i, &n, &nch, &last, &total);
		if (strcmp(n, name) == 0)
			return i;
	}
	fail_msg("no source %s", name);
	return 0;
}

/* Seven sweeps 100 ms apart with slow_every `every`; the files move
 * before each. */
static void sweeps(const char *root, unsigned every)
{
	struct rv_collector *c = NULL;
	struct rv_err err = { 0 };
	double v[512];
	uint8_t ok[512];
	size_t dent, ctxt;

	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = root,
						.slow_every = every }, &c, &err), 0);
	assert_true(rv_collector_nchan(c) <= 512);
	dent = chan_at(c, "storage.dentries");
	ctxt = chan_at(c, "cpu.context_switches");
	assert_int_equal(rv_collector_source_slow(c, source_at(c, "proc.fs")), every > 1);
	assert_int_equal(rv_collector_source_slow(c, source_at(c, "proc.stat")), 0);
	for (int k = 0; k < SWEEPS; k++) {
		int slow = every <= 1 || k % (int)every == 0;

		write_sweep(root, k);
		rv_collector_sample(c, (rv_ns)k * 100 * NS_PER_MS, v, ok);
		assert_int_equal(ok[dent], slow);
		if (slow)
			assert_true(v[dent] == 5000.0 + k);
		assert_int_equal(ok[ctxt], k > 0);         /* a rate from the second sweep */
		if (k > 0)
			assert_true(v[ctxt] > 99.9 && v[ctxt] < 100.1);   /* 10 per 100 ms */
	}
	rv_collector_close(c);
}

static void test_slow_source_gaps(void **unused)
{
	char root[RUN_PATH_MAX];

	make_root(root, sizeof(root));
	sweeps(root, 3);
	sweeps(root, 1);
	sweeps(root, 0);
	remove_root(root);
	(void)unused;
}

/* What a recorder stores: raw values, the slow ones at their sweeps only. */
static void test_slow_raw(void **unused)
{
	char root[RUN_PATH_MAX];
	struct rv_collector *c = NULL;
	struct rv_err err = { 0 };
	const double *raw;
	const uint8_t *ok;
	size_t dent = SIZE_MAX;

	make_root(root, sizeof(root));
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = root,
						.slow_every = 2 }, &c, &err), 0);
	for (size_t i = 0; i < rv_collector_nraw(c); i++)
		if (strcmp(rv_collector_raw_chan(c, i)->name, "storage.dentries") == 0)
			dent = i;
	assert_true(dent != SIZE_MAX);
	for (int k = 0; k < 5; k++) {
		write_sweep(root, k);
		rv_collector_read(c);
		rv_collector_raw(c, &raw, &ok);
		assert_int_equal(ok[dent], k % 2 == 0);
		if (k % 2 == 0)
			assert_true(raw[dent] == 5000.0 + k);
	}
	rv_collector_close(c);
	remove_root(root);
	(void)unused;
}

static void test_slow_every(void **unused)
{
	assert_int_equal(rv_collect_slow_every(0.1, 1.0), 10);
	assert_int_equal(rv_collect_slow_every(0.2, 1.0), 5);
	assert_int_equal(rv_collect_slow_every(0.3, 1.0), 3);     /* 3.33: 900 ms */
	assert_int_equal(rv_collect_slow_every(0.4, 1.0), 3);     /* 2.5 rounds up */
	assert_int_equal(rv_collect_slow_every(0.1, 0.14), 1);
	assert_int_equal(rv_collect_slow_every(1.0, 1.0), 1);
	assert_int_equal(rv_collect_slow_every(2.0, 1.0), 1);
	assert_int_equal(rv_collect_slow_every(0.1, 0.0), 1);
	assert_int_equal(rv_collect_slow_every(0.0, 1.0), 1);
	assert_int_equal(rv_collect_slow_every(0.01, 10.0), 1000);
	(void)unused;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_source_gaps),
		cmocka_unit_test(test_slow_raw),
		cmocka_unit_test(test_slow_every),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
