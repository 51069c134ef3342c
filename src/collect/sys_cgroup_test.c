/*
 * sys_cgroup_test.c - source sys.cgroup (sys_cgroup.c): the fixture trees
 * tests/fixtures/collect/cgroup-v2 (a Kubernetes pod and container with
 * quotas, a lifted quota with old counts) and cgroup-v1 (cpu,cpuacct with
 * the cpu and cpuacct symlinks systemd makes, docker and Slurm cgroups):
 * channels, sums over the quota'd cgroups only. Then trees written to a
 * temp dir: hierarchies found through mountinfo or not at all, a quota
 * set after open (seen at the next refresh), the walk's pace and its kept
 * tops, cgroups removed or counts
 * going down (the sums never do), the bound on watched cgroups, the depth
 * and per-refresh bounds of the walk, malformed files, no allocation while
 * sampling. Last, the cost of a sweep with 0, 10 and 200 quota'd cgroups
 * (printed, not asserted) and this host's own tree.
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
#include <time.h>
#include <unistd.h>

#include "base/alloc_testutil.h"   /* counting, allocs (RV_COUNT_ALLOCS) */
#include "catalog/catalog.h"
#include "collect/sources.h"
#include "collect/sys_cgroup.h"

enum { PATH_LEN = 512, NCH = 3, CH_PERIODS = 0, CH_TIME = 1, CH_QUOTAS = 2 };

#define V2 "sys/fs/cgroup"

struct run {
	struct rv_chanlist chans;
	void *state;
	double raw[NCH];
	uint8_t valid[NCH];
	struct rv_err err;
};

static int run_open(struct run *r, const char *root)
{
	struct rv_collect_cfg cfg = { .root = root };
	int rc;

	memset(r, 0, sizeof(*r));
	rc = rv_src_sys_cgroup.open(&cfg, &r->state, &r->chans, &r->err);
	if (rc)
		rv_chanlist_fini(&r->chans);
	else
		assert_int_equal(r->chans.n, NCH);
	return rc;
}

static void run_sample(struct run *r)
{
	for (int i = 0; i < NCH; i++) {
		r->raw[i] = -12345.0;
		r->valid[i] = 0;
	}
	rv_src_sys_cgroup.sample(r->state, r->raw, r->valid);
}

static void run_close(struct run *r)
{
	rv_src_sys_cgroup.close(r->state);
	rv_chanlist_fini(&r->chans);
	r->state = NULL;
}

/* Asserts the three values of the last sample: throttled periods, time in
 * ns, quota'd cgroups (-1: the count must be invalid). */
static void expect(const struct run *r, double periods, double time_ns, double quotas)
{
	if (!r->valid[CH_PERIODS] || r->raw[CH_PERIODS] != periods)
		fail_msg("periods: valid %d raw %.17g, want %.17g", r->valid[CH_PERIODS],
			 r->raw[CH_PERIODS], periods);
	if (!r->valid[CH_TIME] || r->raw[CH_TIME] != time_ns)
		fail_msg("time: valid %d raw %.17g, want %.17g", r->valid[CH_TIME],
			 r->raw[CH_TIME], time_ns);
	if (quotas < 0 ? r->valid[CH_QUOTAS] != 0
		       : !r->valid[CH_QUOTAS] || r->raw[CH_QUOTAS] != quotas)
		fail_msg("quotas: valid %d raw %.17g, want %.17g", r->valid[CH_QUOTAS],
			 r->raw[CH_QUOTAS], quotas);
}

static const char *fixture(const char *tree)
{
	static char root[PATH_LEN];
	const char *d = getenv("RV_FIXTURES");

	assert_non_null(d);
	snprintf(root, sizeof(root), "%s/collect/%s", d, tree);
	return root;
}

/* ------------------------------------------------------- temp trees */

struct tmp {
	char root[64];
};

static void tmp_make(struct tmp *t)
{
	snprintf(t->root, sizeof(t->root), "/tmp/rv_cgroup_XXXXXX");
	assert_non_null(mkdtemp(t->root));
}

/* Writes root/rel (creating its directories) with text, in place: an open
 * descriptor sees the new text, as with cgroupfs. */
static void put(const struct tmp *t, const char *rel, const char *text)
{
	char path[3 * PATH_LEN];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->root, rel);
	for (char *p = path + strlen(t->root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
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

static void rm_tree(const char *path)
{
	assert_int_equal(nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void tmp_drop(struct tmp *t)
{
	rm_tree(t->root);
}

/* A v2 hierarchy with the cpu controller at root/sys/fs/cgroup. */
static void v2_top(const struct tmp *t)
{
	put(t, V2 "/cgroup.controllers", "cpuset cpu io memory pids\n");
	put(t, V2 "/cpu.stat", "usage_usec 100\nuser_usec 60\nsystem_usec 40\n");
}

/* Cgroup rel of a v2 tree: cpu.max (quota in us or "max") and cpu.stat. */
static void v2_cg(const struct tmp *t, const char *rel, const char *max, unsigned long nr,
		  unsigned long usec)
{
	char path[2 * PATH_LEN], text[PATH_LEN];

	snprintf(path, sizeof(path), V2 "/%s/cpu.max", rel);
	snprintf(text, sizeof(text), "%s 100000\n", max);
	put(t, path, text);
	snprintf(path, sizeof(path), V2 "/%s/cpu.stat", rel);
	snprintf(text, sizeof(text), "usage_usec 500\nuser_usec 400\nsystem_usec 100\n"
		 "nr_periods %lu\nnr_throttled %lu\nthrottled_usec %lu\nnr_bursts 0\n"
		 "burst_usec 0\n", 2 * nr, nr, usec);
	put(t, path, text);
}

/* ---------------------------------------------------------- fixtures */

/* The pod (40, 1.5 s) and its container (30, 0.9 s) and user.slice (5,
 * 0.25 s) have quotas; slurmd.service's quota was lifted (7 left). */
static void test_v2_fixture(void **state)
{
	static const char *const names[NCH] = {
		"cpu.cgroup_throttled_periods", "cpu.cgroup_throttled_time_ms",
		"cpu.cgroups_with_quota",
	};
	static const enum rv_kind kinds[NCH] = { RV_KIND_EVENT, RV_KIND_COUNTER, RV_KIND_GAUGE };
	struct run r;

	(void)state;
	assert_int_equal(run_open(&r, fixture("cgroup-v2")), 0);
	for (int i = 0; i < NCH; i++) {
		assert_string_equal(r.chans.v[i].name, names[i]);
		assert_int_equal(r.chans.v[i].metric->kind, kinds[i]);
	}
	assert_true(r.chans.v[CH_TIME].scale == 1e-6);  /* ns -> ms */
	run_sample(&r);
	expect(&r, 75, 2650000000.0, 3);
	run_sample(&r);
	expect(&r, 75, 2650000000.0, 3);
	run_close(&r);
}

/* Only docker/0a1b2c (12, 3 s) and job_42 (8, 0.4 s) have quotas; the
 * cpu and cpuacct symlinks name the same hierarchy: counted once. */
static void test_v1_fixture(void **state)
{
	struct run r;

	(void)state;
	assert_int_equal(run_open(&r, fixture("cgroup-v1")), 0);
	run_sample(&r);
	expect(&r, 20, 3400000000.0, 2);
	run_close(&r);
}

/* No cpu hierarchy: unavailable, naming the paths under the root. */
static void test_absent(void **state)
{
	struct tmp t;
	struct run r;

	(void)state;
	tmp_make(&t);
	assert_int_equal(run_open(&r, t.root), -ENOENT);
	assert_non_null(strstr(r.err.msg, t.root));
	assert_non_null(strstr(r.err.msg, "/sys/fs/cgroup"));
	/* v2 without the cpu controller, an empty unified tree, memory v1 */
	put(&t, V2 "/cgroup.controllers", "cpuset io memory pids\n");
	put(&t, V2 "/unified/cgroup.controllers", "");
	put(&t, V2 "/memory/memory.stat", "cache 0\n");
	assert_int_equal(run_open(&r, t.root), -ENOENT);
	/* v1 cpu needs cpu.cfs_quota_us and cpu.stat at its top */
	put(&t, V2 "/cpu/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n");
	assert_int_equal(run_open(&r, t.root), -ENOENT);
	put(&t, V2 "/cpu/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(run_open(&r, t.root), 0);
	run_sample(&r);
	expect(&r, 0, 0, 0);
	run_close(&r);
	tmp_drop(&t);
}

/* v1 cpu and a v2 tree mounted elsewhere, found through mountinfo; an
 * escaped mount point and a memory hierarchy are not followed. */
static void test_mountinfo(void **state)
{
	struct tmp t;
	struct run r;

	(void)state;
	tmp_make(&t);
	put(&t, "proc/self/mountinfo",
	    "22 1 0:21 / /proc rw,relatime shared:12 - proc proc rw\n"
	    "31 30 0:28 / /cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpuacct,cpu\n"
	    "32 30 0:29 / /cgroup/mem rw - cgroup cgroup rw,memory\n"
	    "33 30 0:30 / /mnt/cg\\0402 rw - cgroup2 cgroup2 rw\n"
	    "34 30 0:31 / /mnt/cg2 rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	    "garbage line\n");
	put(&t, "cgroup/cpu/cpu.cfs_quota_us", "-1\n");
	put(&t, "cgroup/cpu/cpu.stat", "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n");
	put(&t, "cgroup/cpu/job/cpu.cfs_quota_us", "20000\n");
	put(&t, "cgroup/cpu/job/cpu.stat", "nr_periods 9\nnr_throttled 4\nthrottled_time 1000\n");
	put(&t, "cgroup/mem/job/cpu.cfs_quota_us", "20000\n");
	put(&t, "cgroup/mem/cpu.stat", "nr_throttled 100\nthrottled_time 1000\n");
	put(&t, "mnt/cg 2/cgroup.controllers", "cpu\n");
	put(&t, "mnt/cg 2/a/cpu.max", "1000 100000\n");
	put(&t, "mnt/cg 2/a/cpu.stat", "nr_throttled 100\nthrottled_usec 1\n");
	put(&t, "mnt/cg2/cgroup.controllers", "cpu memory\n");
	put(&t, "mnt/cg2/b/cpu.max", "1000 100000\n");
	put(&t, "mnt/cg2/b/cpu.stat", "nr_throttled 3\nthrottled_usec 7\n");
	assert_int_equal(run_open(&r, t.root), 0);
	run_sample(&r);
	expect(&r, 7, 1000 + 7000, 2);
	run_close(&r);
	tmp_drop(&t);
}

/* ------------------------------------------------------------ changes */

/* A quota set after open (on an existing cgroup, on a new one) shows at
 * the next refresh, not before; a cgroup that joins adds from its first
 * read on, so the sums do not jump. With the default interval a new quota
 * shows within a second. */
static void test_quota_after_open(void **state)
{
	struct tmp t;
	struct run r;

	(void)state;
	tmp_make(&t);
	v2_top(&t);
	v2_cg(&t, "a", "50000", 10, 1000);
	v2_cg(&t, "b", "max", 20, 2000);
	assert_int_equal(run_open(&r, t.root), 0);
	rv_cgroup_tune(r.state, UINT64_MAX / 2, 0);     /* one walk now, then none */
	run_sample(&r);
	expect(&r, 10, 1000000, 1);
	v2_cg(&t, "b", "50000", 20, 2000);
	v2_cg(&t, "c/d", "30000", 5, 500);
	run_sample(&r);                 /* not walked: not seen yet */
	expect(&r, 10, 1000000, 1);
	rv_cgroup_tune(r.state, 0, 0);
	run_sample(&r);
	expect(&r, 10, 1000000, 3);     /* found, their counts so far not added */
	v2_cg(&t, "a", "50000", 11, 1100);
	v2_cg(&t, "b", "50000", 22, 2200);
	v2_cg(&t, "c/d", "30000", 8, 800);
	run_sample(&r);
	expect(&r, 16, 1600000, 3);
	run_close(&r);

	assert_int_equal(run_open(&r, t.root), 0);     /* the default: 1 s */
	run_sample(&r);
	expect(&r, 41, 4100000, 3);
	v2_cg(&t, "e", "30000", 1, 1);
	usleep(1100 * 1000);
	run_sample(&r);
	expect(&r, 41, 4100000, 4);
	run_close(&r);
	tmp_drop(&t);
}

static size_t count_fds(void)
{
	char path[64];
	size_t n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/* A walk waits RV_CGROUP_WALK_PACE times what it took (at least the
 * refresh, at most RV_CGROUP_WALK_GAP_MAX_S). The tops stay open between
 * walks and their quota file is read again at each: a quota set on the top
 * (a container's namespaced root) is found, and twenty walks leave the
 * process with the descriptors it had after one, and its watch. */
static void test_walk_pace(void **state)
{
	const uint64_t s = 1000000000ULL, max = (uint64_t)RV_CGROUP_WALK_GAP_MAX_S * s;
	struct tmp t;
	struct run r;
	size_t fds;

	(void)state;
	assert_int_equal(rv_cgroup_walk_gap_ns(s, 100000), s);
	assert_int_equal(rv_cgroup_walk_gap_ns(s, 1000000), RV_CGROUP_WALK_PACE * 1000000ULL);
	assert_int_equal(rv_cgroup_walk_gap_ns(s, s), max);
	assert_int_equal(rv_cgroup_walk_gap_ns(s, UINT64_MAX), max);
	assert_int_equal(rv_cgroup_walk_gap_ns(2 * max, 1000000), 2 * max);
	assert_int_equal(rv_cgroup_walk_gap_ns(0, 0), 0);

	tmp_make(&t);
	v2_top(&t);
	put(&t, V2 "/cpu.max", "max 100000\n");
	v2_cg(&t, "a", "50000", 10, 1000);
	assert_int_equal(run_open(&r, t.root), 0);
	rv_cgroup_tune(r.state, 0, 0);
	run_sample(&r);
	expect(&r, 10, 1000000, 1);
	fds = count_fds();
	v2_cg(&t, ".", "50000", 7, 700);
	run_sample(&r);
	expect(&r, 10, 1000000, 2);
	v2_cg(&t, ".", "50000", 9, 900);
	for (int i = 0; i < 20; i++)
		run_sample(&r);
	expect(&r, 12, 1200000, 2);
	assert_int_equal(count_fds(), fds + 1);
	run_close(&r);
	tmp_drop(&t);
}

/* A cgroup removed, a quota lifted, a count that goes down: the sums
 * never go down, and the others go on adding. */
static void test_removed(void **state)
{
	char path[PATH_LEN];
	struct tmp t;
	struct run r;

	(void)state;
	tmp_make(&t);
	v2_top(&t);
	v2_cg(&t, "a", "50000", 10, 1000);
	v2_cg(&t, "b", "50000", 20, 2000);
	v2_cg(&t, "c", "50000", 30, 3000);
	assert_int_equal(run_open(&r, t.root), 0);
	rv_cgroup_tune(r.state, 0, 0);
	run_sample(&r);
	expect(&r, 60, 6000000, 3);
	snprintf(path, sizeof(path), "%s/" V2 "/a", t.root);
	rm_tree(path);
	v2_cg(&t, "b", "max", 25, 2500);        /* lifted: 5 more, not seen */
	v2_cg(&t, "c", "50000", 31, 3100);
	run_sample(&r);
	expect(&r, 61, 6100000, 1);
	v2_cg(&t, "b", "max", 40, 4000);
	v2_cg(&t, "c", "50000", 2, 200);        /* went down: adds nothing */
	run_sample(&r);
	expect(&r, 61, 6100000, 1);
	v2_cg(&t, "c", "50000", 5, 500);
	run_sample(&r);
	expect(&r, 64, 6400000, 1);
	run_close(&r);
	tmp_drop(&t);
}

/* More quota'd cgroups than the source watches: all are counted, the
 * first RV_CGROUP_WATCH_MAX summed. */
static void test_watch_bound(void **state)
{
	enum { N = RV_CGROUP_WATCH_MAX + 44 };
	char rel[PATH_LEN];
	struct tmp t;
	struct run r;

	(void)state;
	tmp_make(&t);
	v2_top(&t);
	for (int i = 0; i < N; i++) {
		snprintf(rel, sizeof(rel), "pod%d", i);
		v2_cg(&t, rel, "50000", 1, 0);
	}
	assert_int_equal(run_open(&r, t.root), 0);
	run_sample(&r);
	expect(&r, RV_CGROUP_WATCH_MAX, 0, N);
	for (int i = 0; i < N; i++) {
		snprintf(rel, sizeof(rel), "pod%d", i);
		v2_cg(&t, rel, "50000", 3, 0);
	}
	rv_cgroup_tune(r.state, 0, 0);
	run_sample(&r);
	expect(&r, 3 * RV_CGROUP_WATCH_MAX, 0, N);
	run_close(&r);
	tmp_drop(&t);
}

/* Quotas RV_CGROUP_DEPTH_MAX levels down are found, one more are not; a
 * walk cut by its budget goes on at the next refresh and the count is
 * that of the last whole pass. */
static void test_walk_bounds(void **state)
{
	char rel[PATH_LEN] = "";
	struct tmp t;
	struct run r;

	(void)state;
	tmp_make(&t);
	v2_top(&t);
	for (int d = 1; d <= RV_CGROUP_DEPTH_MAX + 1; d++) {
		size_t len = strlen(rel);

		snprintf(rel + len, sizeof(rel) - len, "%sl%d", d > 1 ? "/" : "", d);
		if (d >= RV_CGROUP_DEPTH_MAX)
			v2_cg(&t, rel, "50000", (unsigned long)d, 0);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(rel, sizeof(rel), "flat%d", i);
		v2_cg(&t, rel, "max", 0, 0);
	}
	assert_int_equal(run_open(&r, t.root), 0);
	run_sample(&r);
	expect(&r, RV_CGROUP_DEPTH_MAX, 0, 1);
	/* 1 top + 4 flat + 9 deep: 14 directories, walked 3 a refresh */
	v2_cg(&t, "flat2", "10000", 0, 0);
	rv_cgroup_tune(r.state, 0, 3);
	for (int i = 0; i < 4; i++) {
		run_sample(&r);
		expect(&r, RV_CGROUP_DEPTH_MAX, 0, 1);
	}
	run_sample(&r);                 /* the fifth refresh ends the pass */
	expect(&r, RV_CGROUP_DEPTH_MAX, 0, 2);
	v2_cg(&t, "flat2", "10000", 6, 0);
	run_sample(&r);
	expect(&r, RV_CGROUP_DEPTH_MAX + 6, 0, 2);
	run_close(&r);
	tmp_drop(&t);
}

/* Malformed quota files are no quota; a malformed cpu.stat adds nothing
 * that sweep and its increment comes with its next good read; lines the
 * source does not read may be anything. */
static void test_malformed(void **state)
{
	static const char *const bad_max[] = {
		"abc 100000\n", "maxi 100000\n", "-5 100000\n", "5000\n", "5000 100000 x\n", "",
		"99999999999999999999 100000\n",
	};
	static const char *const bad_stat[] = {
		"nr_throttled x\nthrottled_usec 10\n", "nr_throttled 10\n",
		"throttled_usec 10\n", "nr_throttled 10 20\nthrottled_usec 10\n",
		"nr_throttled 18446744073709551616\nthrottled_usec 10\n", "", "\n\n",
		"nr_throttled -3\nthrottled_usec 10\n",
	};
	char rel[PATH_LEN];
	struct tmp t;
	struct run r;

	(void)state;
	tmp_make(&t);
	v2_top(&t);
	for (size_t i = 0; i < sizeof(bad_max) / sizeof(bad_max[0]); i++) {
		snprintf(rel, sizeof(rel), V2 "/bad%zu/cpu.max", i);
		put(&t, rel, bad_max[i]);
		snprintf(rel, sizeof(rel), V2 "/bad%zu/cpu.stat", i);
		put(&t, rel, "nr_throttled 1000\nthrottled_usec 1000\n");
	}
	put(&t, V2 "/ok/cpu.max", " 5000   100000 \n");
	put(&t, V2 "/ok/cpu.stat", "some garbage\nnr_throttled 2\n= =\nthrottled_usec 3\n");
	assert_int_equal(run_open(&r, t.root), 0);
	run_sample(&r);
	expect(&r, 2, 3000, 1);
	for (size_t i = 0; i < sizeof(bad_stat) / sizeof(bad_stat[0]); i++) {
		put(&t, V2 "/ok/cpu.stat", bad_stat[i]);
		run_sample(&r);
		expect(&r, 2, 3000, 1);
	}
	put(&t, V2 "/ok/cpu.stat", "nr_throttled 9\nthrottled_usec 10\n");
	run_sample(&r);
	expect(&r, 9, 10000, 1);
	run_close(&r);
	tmp_drop(&t);
}

/* Sampling allocates nothing, walks included: a new cgroup, a removed
 * one, a cut walk. */
static void test_no_alloc(void **state)
{
#ifdef RV_COUNT_ALLOCS
	char rel[PATH_LEN];
	struct tmp t;
	struct run r;

	(void)state;
	allocs = 0;             /* the counter sees this executable's calls */
	counting = 1;
	free(malloc(8));
	counting = 0;
	assert_int_equal(allocs, 1);
	tmp_make(&t);
	v2_top(&t);
	for (int i = 0; i < 10; i++) {
		snprintf(rel, sizeof(rel), "k/pod%d/c", i);
		v2_cg(&t, rel, i % 2 ? "50000" : "max", 1, 1);
	}
	assert_int_equal(run_open(&r, t.root), 0);
	rv_cgroup_tune(r.state, 0, 4);
	for (int k = 0; k < 40; k++) {
		if (k == 5)
			v2_cg(&t, "k/new", "10000", 1, 1);
		if (k == 10) {
			snprintf(rel, sizeof(rel), "%s/" V2 "/k/pod1", t.root);
			rm_tree(rel);
		}
		allocs = 0;
		counting = 1;
		run_sample(&r);
		counting = 0;
		if (allocs)
			fail_msg("%lu allocations in sample %d", allocs, k);
	}
	expect(&r, 5, 5000, 5);         /* pod1 went, k/new came: sums as at open */
	run_close(&r);
	tmp_drop(&t);
#else
	(void)state;
	skip();                 /* ASan owns malloc; the release build runs this */
#endif
}

/* ------------------------------------------------------------- cost */

static double cpu_us(void)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts), 0);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* CPU microseconds per sample of an open source (user and system, this
 * thread): reads only, or a walk each. */
static double us_per_sample(struct run *r, int walk, int n)
{
	double t0;

	rv_cgroup_tune(r->state, walk ? 0 : UINT64_MAX / 2, 0);
	if (!walk)
		run_sample(r);          /* the walk the tune asked for */
	t0 = cpu_us();
	for (int i = 0; i < n; i++)
		run_sample(r);
	return (cpu_us() - t0) / n;
}

/* Prints the CPU cost of a sweep with 0, 10 and 200 quota'd cgroups
 * among 200 others (a small Kubernetes node), with and without the walk,
 * and of this host's tree. Timings are not asserted. */
static void test_cost(void **state)
{
	static const int quotas[] = { 0, 10, 200 };
	enum { OTHERS = 200, READS = 1000, WALKS = 50 };
	char rel[PATH_LEN];
	struct run r;

	(void)state;
	for (size_t q = 0; q < sizeof(quotas) / sizeof(quotas[0]); q++) {
		struct tmp t;
		int n;

		tmp_make(&t);
		v2_top(&t);
		for (int i = 0; i < OTHERS + quotas[q]; i++) {
			snprintf(rel, sizeof(rel), "kubepods.slice/pod%d/c%d", i / 2, i);
			v2_cg(&t, rel, i < quotas[q] ? "50000" : "max", 1, 1);
		}
		n = OTHERS + quotas[q];
		assert_int_equal(run_open(&r, t.root), 0);
		print_message("fixture, %3d quota'd of %d cgroups: sample %.1f us, with walk %.1f us\n",
			      quotas[q], n + (n + 1) / 2 + 2,
			      us_per_sample(&r, 0, READS), us_per_sample(&r, 1, WALKS));
		run_close(&r);
		tmp_drop(&t);
	}
	if (run_open(&r, "") == 0) {
		run_sample(&r);
		print_message("this host, %.0f quota'd cgroups: sample %.1f us, with walk %.1f us\n",
			      r.raw[CH_QUOTAS], us_per_sample(&r, 0, READS),
			      us_per_sample(&r, 1, WALKS));
		run_close(&r);
	}
}

/* This host: opens and samples, or says why not. */
static void test_live_host(void **state)
{
	struct run r;
	int rc;

	(void)state;
	rc = run_open(&r, "");
	if (rc) {
		assert_true(rc < 0);
		assert_true(r.err.msg[0] != '\0');
		print_message("sys.cgroup: %s\n", r.err.msg);
		return;
	}
	run_sample(&r);
	assert_int_equal(r.valid[CH_PERIODS], 1);
	assert_int_equal(r.valid[CH_QUOTAS], 1);
	print_message("sys.cgroup: %.0f cgroups with a quota\n", r.raw[CH_QUOTAS]);
	run_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2_fixture),
		cmocka_unit_test(test_v1_fixture),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_quota_after_open),
		cmocka_unit_test(test_walk_pace),
		cmocka_unit_test(test_removed),
		cmocka_unit_test(test_watch_bound),
		cmocka_unit_test(test_walk_bounds),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_no_alloc),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_live_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
