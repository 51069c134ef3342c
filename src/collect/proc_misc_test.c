/*
 * proc_misc_test.c - unit tests of proc.loadavg and proc.pressure: the
 * memhost fixture, fields that are missing, extra, malformed or huge,
 * pressure lines absent (an old kernel's cpu file without "full") or
 * reordered, files that empty after open, and trees without the files.
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

enum { MISC_MAXCH = 32, PSI_PER_LINE = 3 };

/* A source under test, with its channels and the last sample. */
struct run {
	const struct rv_source *src;
	struct rv_chanlist chans;
	void *state;
	double raw[MISC_MAXCH];
	uint8_t valid[MISC_MAXCH];
	struct rv_err err;
};

static int run_open(struct run *r, const struct rv_source *src, const char *root)
{
	struct rv_collect_cfg cfg = { .root = root };

	memset(r, 0, sizeof(*r));
	r->src = src;
	return src->open(&cfg, &r->state, &r->chans, &r->err);
}

static void run_sample(struct run *r)
{
	assert_true(r->chans.n <= MISC_MAXCH);
	memset(r->valid, 0, sizeof(r->valid));
	r->src->sample(r->state, r->raw, r->valid);
}

static void run_close(struct run *r)
{
	r->src->close(r->state);
	rv_chanlist_fini(&r->chans);
}

static void memhost(char *root, size_t cap)
{
	snprintf(root, cap, "%s/collect/memhost", getenv("RV_FIXTURES"));
}

/* Temporary trees: tmp_put writes root/rel in place (same inode). */
static void tmp_tree(char *dir, size_t cap)
{
	char path[512];

	snprintf(dir, cap, "/tmp/rv_misc_XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/proc", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/proc/pressure", dir);
	assert_int_equal(mkdir(path, 0700), 0);
}

static void tmp_put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%s", dir, rel);
	f = fopen(path, "a");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 0), 0);
	fputs(text, f);
	fclose(f);
}

static void tmp_remove(const char *dir)
{
	static const char *const rels[] = {
		"loadavg", "pressure/cpu", "pressure/memory", "pressure/io", "pressure", "",
	};
	char path[512];

	for (size_t i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
		snprintf(path, sizeof(path), "%s/proc/%s", dir, rels[i]);
		if (unlink(path))
			rmdir(path);
	}
	rmdir(dir);
}

/* ------------------------------------------------------------ loadavg */

static void test_loadavg_fixture(void **unused)
{
	static const char *const names[] = {
		"cpu.load1", "cpu.load5", "cpu.load15", "cpu.tasks_runnable", "cpu.tasks_total",
	};
	static const double want[] = { 0.05, 0.32, 0.55, 1.0, 94.0 };
	char root[512];
	struct run r;

	(void)unused;
	memhost(root, sizeof(root));
	assert_int_equal(run_open(&r, &rv_src_proc_loadavg, root), 0);
	assert_int_equal(r.chans.n, 5);
	run_sample(&r);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(r.chans.v[i].name, names[i]);
		assert_int_equal(r.chans.v[i].metric->kind, RV_KIND_GAUGE);
		assert_int_equal(r.valid[i], 1);
		assert_true(r.raw[i] == want[i]);
	}
	run_close(&r);
}

static const struct {
	const char *text;
	uint8_t valid[5];
	double raw4;            /* tasks_total when valid */
} loadavg_cases[] = {
	{ "0.10 0.20 0.30 2/300 4242 extra columns\n", { 1, 1, 1, 1, 1 }, 300 },
	{ "0.10 0.20 0.30 2/18446744073709551615 1\n", { 1, 1, 1, 1, 1 }, 18446744073709551615.0 },
	{ "0.10 0.20 0.30 2/300", { 1, 1, 1, 1, 1 }, 300 },          /* no pid, no newline */
	{ "0.10 0.20\n", { 1, 1, 0, 0, 0 }, 0 },                     /* truncated */
	{ "0.10 abc 0.30 2/300 1\n", { 1, 0, 0, 0, 0 }, 0 },         /* not a number */
	{ "0.10 0.20 0.30 2 300 1\n", { 1, 1, 1, 0, 0 }, 0 },        /* no slash */
	{ "0.10 0.20 0.30 2/x 1\n", { 1, 1, 1, 0, 0 }, 0 },
	{ "0.10 0.20 0.30x 2/300 1\n", { 1, 1, 0, 0, 0 }, 0 },
	{ "0.10 0.20 0.30 2/18446744073709551616 1\n", { 1, 1, 1, 0, 0 }, 0 },
	{ "", { 0, 0, 0, 0, 0 }, 0 },                                /* emptied */
};

static void test_loadavg_malformed(void **unused)
{
	char dir[64];
	struct run r;

	(void)unused;
	tmp_tree(dir, sizeof(dir));
	tmp_put(dir, "loadavg", "1.00 1.00 1.00 1/100 5\n");
	assert_int_equal(run_open(&r, &rv_src_proc_loadavg, dir), 0);
	for (size_t c = 0; c < sizeof(loadavg_cases) / sizeof(loadavg_cases[0]); c++) {
		tmp_put(dir, "loadavg", loadavg_cases[c].text);
		run_sample(&r);
		for (size_t i = 0; i < 5; i++)
			assert_int_equal(r.valid[i], loadavg_cases[c].valid[i]);
		if (r.valid[4])
			assert_true(r.raw[4] == loadavg_cases[c].raw4);
	}
	assert_true(r.raw[0] == 0.10);
	run_close(&r);
	tmp_remove(dir);
	assert_int_equal(run_open(&r, &rv_src_proc_loadavg, dir), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/proc/loadavg"));
	assert_non_null(strstr(r.err.msg, dir));
	rv_chanlist_fini(&r.chans);
}

/* ----------------------------------------------------------- pressure */

static void expect_line(const struct run *r, size_t first, const char *prefix,
			double avg10, double avg60, double total)
{
	char name[RV_CHAN_NAME_MAX];
	static const char *const suffix[PSI_PER_LINE] = { "avg10_pct", "avg60_pct", "stall_pct" };
	double want[PSI_PER_LINE] = { avg10, avg60, total };

	for (size_t k = 0; k < PSI_PER_LINE; k++) {
		snprintf(name, sizeof(name), "%s_%s", prefix, suffix[k]);
		assert_string_equal(r->chans.v[first + k].name, name);
		assert_int_equal(r->valid[first + k], 1);
		if (r->raw[first + k] != want[k])
			fail_msg("%s: %.17g, want %.17g", name, r->raw[first + k], want[k]);
		assert_int_equal(r->chans.v[first + k].metric->kind,
				 k == 2 ? RV_KIND_COUNTER : RV_KIND_GAUGE);
		assert_true(r->chans.v[first + k].scale == (k == 2 ? 1e-4 : 1.0));
		assert_string_equal(r->chans.v[first + k].metric->unit, "%");
	}
}

static void test_pressure_fixture(void **unused)
{
	char root[512];
	struct run r;

	(void)unused;
	memhost(root, sizeof(root));
	assert_int_equal(run_open(&r, &rv_src_proc_pressure, root), 0);
	assert_int_equal(r.chans.n, 18);
	run_sample(&r);
	expect_line(&r, 0, "cpu.psi_some", 0.61, 0.82, 356732240.0);
	expect_line(&r, 3, "cpu.psi_full", 0.0, 0.0, 0.0);
	expect_line(&r, 6, "mem.psi_some", 0.34, 0.51, 117688075.0);
	expect_line(&r, 9, "mem.psi_full", 0.31, 0.48, 112363682.0);
	expect_line(&r, 12, "storage.psi_some", 1.25, 0.80, 98765432.0);
	expect_line(&r, 15, "storage.psi_full", 0.50, 0.25, 45678901.0);
	run_close(&r);
}

static void test_pressure_partial_and_malformed(void **unused)
{
	char dir[64];
	struct run r;

	(void)unused;
	tmp_tree(dir, sizeof(dir));
	/* PSI off: no file at all */
	assert_int_equal(run_open(&r, &rv_src_proc_pressure, dir), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/proc/pressure"));
	assert_non_null(strstr(r.err.msg, dir));
	rv_chanlist_fini(&r.chans);
	/* an older kernel: cpu has no "full" line; no io file */
	tmp_put(dir, "pressure/cpu", "some avg10=1.00 avg60=2.00 avg300=3.00 total=4\n");
	tmp_put(dir, "pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=6\n");
	assert_int_equal(run_open(&r, &rv_src_proc_pressure, dir), 0);
	assert_int_equal(r.chans.n, 9);
	run_sample(&r);
	expect_line(&r, 0, "cpu.psi_some", 1.0, 2.0, 4.0);
	expect_line(&r, 3, "mem.psi_some", 0.0, 0.0, 5.0);
	expect_line(&r, 6, "mem.psi_full", 0.0, 0.0, 6.0);
	/* reordered lines and fields, a new field, a full line not followed */
	tmp_put(dir, "pressure/memory", "full total=16 avg60=0.50 avg300=0.00 avg10=0.25 new=1\n"
		"some avg300=1 avg10=7.50 avg60=8.50 total=15\n");
	tmp_put(dir, "pressure/cpu", "full avg10=9 avg60=9 avg300=9 total=9\n"
		"some avg10=1.50 avg60=2.50 avg300=3.50 total=18446744073709551615\n");
	run_sample(&r);
	expect_line(&r, 0, "cpu.psi_some", 1.5, 2.5, 18446744073709551615.0);
	expect_line(&r, 3, "mem.psi_some", 7.5, 8.5, 15.0);
	expect_line(&r, 6, "mem.psi_full", 0.25, 0.5, 16.0);
	/* bad values, missing fields, a truncated line, an emptied file */
	tmp_put(dir, "pressure/cpu", "some avg10=x avg60=2.50x total=18446744073709551616\n");
	tmp_put(dir, "pressure/memory", "some avg10=1.00 total=-3\nfull avg1");
	run_sample(&r);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(r.valid[i], 0);
	assert_int_equal(r.valid[3], 1);
	assert_true(r.raw[3] == 1.0);
	assert_int_equal(r.valid[4], 0);
	assert_int_equal(r.valid[5], 0);
	for (size_t i = 6; i < 9; i++)
		assert_int_equal(r.valid[i], 0);
	tmp_put(dir, "pressure/cpu", "");
	tmp_put(dir, "pressure/memory", "");
	run_sample(&r);
	for (size_t i = 0; i < 9; i++)
		assert_int_equal(r.valid[i], 0);
	run_close(&r);
	tmp_remove(dir);
	rv_src_proc_pressure.close(NULL);
	rv_src_proc_loadavg.close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loadavg_fixture),
		cmocka_unit_test(test_loadavg_malformed),
		cmocka_unit_test(test_pressure_fixture),
		cmocka_unit_test(test_pressure_partial_and_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
