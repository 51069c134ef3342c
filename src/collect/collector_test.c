/*
 * collector_test.c - the proc.stat source and the collector around it:
 * channel discovery on a fixture tree (CPUs numbered with a hole), raw
 * values, counters turned into rates over the given interval, a counter
 * reset (no rate, never negative), a CPU going offline (a gap in its own
 * channels only), malformed and truncated lines, a file that empties, and
 * sources that cannot open reported with their reason; the channel filter
 * (a metric set): exactly the kept channels, a ratio's inputs read but not
 * in the frame, sources with nothing kept closed and not sampled, the
 * filter applied again at rediscovery. pfile and the channel list are
 * exercised on the way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc_testutil.h"   /* counting, allocs (RV_COUNT_ALLOCS) */
#include "collect/collector.h"
#include "collect/pfile.h"
#include "collect/sources.h"

enum { NS_PER_S = 1000000000 };


static const char *fixtures(void)
{
	const char *d = getenv("RV_FIXTURES");

	assert_non_null(d);
	return d;
}

/* Index of channel `name`, failing the test when absent. */
static size_t chan_index(const struct rv_collector *c, const char *name)
{
	for (size_t i = 0; i < rv_collector_nchan(c); i++)
		if (strcmp(rv_collector_chan(c, i)->name, name) == 0)
			return i;
	fail_msg("no channel %s", name);
	return 0;
}

static int has_chan(const struct rv_collector *c, const char *name)
{
	for (size_t i = 0; i < rv_collector_nchan(c); i++)
		if (strcmp(rv_collector_chan(c, i)->name, name) == 0)
			return 1;
	return 0;
}

/* The fixture: a host line, cpu0 and cpu2 (cpu1 offline at open). */
static void test_stat_fixture_raw(void **state)
{
	char root[512];
	const struct rv_source *s = &rv_src_proc_stat;
	struct rv_chanlist l = { .source = "proc.stat" };
	struct rv_err err = { 0 };
	void *st = NULL;
	double raw[64];
	uint8_t ok[64];

	(void)state;
	snprintf(root, sizeof(root), "%s/collect/statonly", fixtures());
	assert_int_equal(s->open(&(struct rv_collect_cfg){ .root = root, .nvml_lib = NULL }, &st, &l, &err), 0);
	assert_int_equal(l.n, 3 * 9 + 5);
	assert_string_equal(l.v[0].name, "cpu.user_pct");
	assert_string_equal(l.v[9].name, "cpu.user_pct:cpu0");
	assert_string_equal(l.v[18].name, "cpu.user_pct:cpu2");
	assert_string_equal(l.v[26].name, "cpu.busy_pct:cpu2");
	assert_string_equal(l.v[27].name, "cpu.context_switches");
	assert_string_equal(l.v[31].name, "cpu.procs_blocked");
	assert_true(l.v[27].metric->kind == RV_KIND_COUNTER);
	assert_true(l.v[30].metric->kind == RV_KIND_GAUGE);
	memset(ok, 0, sizeof(ok));
	s->sample(st, raw, ok);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(ok[i], 1);
	assert_true(raw[0] == 1000 && raw[3] == 50000 && raw[7] == 7);
	assert_true(raw[8] == 1000 + 20 + 300 + 0 + 60 + 7);        /* busy */
	assert_true(raw[18 + 7] == 4);                               /* cpu2 steal */
	assert_true(raw[27] == 987654 && raw[28] == 123456 && raw[29] == 4242);
	assert_true(raw[30] == 3 && raw[31] == 1);
	s->close(st);
	rv_chanlist_fini(&l);
}

/* Writes text to path in place (same inode: the open fd sees it). */
static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

struct tree {
	char root[256], stat[300];
};

static void make_tree(struct tree *t, const char *text)
{
	char dir[300];

	snprintf(t->root, sizeof(t->root), "/tmp/rv_collect_XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(dir, sizeof(dir), "%s/proc", t->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(t->stat, sizeof(t->stat), "%s/proc/stat", t->root);
	put(t->stat, text);
}

static void drop_tree(struct tree *t)
{
	char dir[300];

	unlink(t->stat);
	snprintf(dir, sizeof(dir), "%s/proc", t->root);
	rmdir(dir);
	rmdir(t->root);
}

static const char STAT_A[] =
	"cpu  100 0 100 1000 0 0 0 0 0 0\n"
	"cpu0 50 0 50 500 0 0 0 0 0 0\n"
	"cpu1 50 0 50 500 0 0 0 0 0 0\n"
	"ctxt 1000\nprocesses 10\nprocs_running 2\nprocs_blocked 0\n";

static void test_rates_resets_gaps(void **state)
{
	struct tree t;
	struct rv_collector *c = NULL;
	struct rv_err err = { 0 };
	double v[64];
	uint8_t ok[64];
	rv_ns t0 = 5 * (rv_ns)NS_PER_S;

	(void)state;
	make_tree(&t, STAT_A);
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root, .nvml_lib = NULL }, &c, &err), 0);
	size_t n = rv_collector_nchan(c);
	size_t user = chan_index(c, "cpu.user_pct"), user1 = chan_index(c, "cpu.user_pct:cpu1");
	size_t ctxt = chan_index(c, "cpu.context_switches"), run = chan_index(c, "cpu.procs_running");
	size_t busy0 = chan_index(c, "cpu.busy_pct:cpu0");

	assert_true(n <= 64);
	assert_false(has_chan(c, "cpu.interrupts"));    /* no intr line at open */
	/* First sweep: gauges valid, counters have no rate yet. */
	rv_collector_sample(c, t0, v, ok);
	assert_int_equal(ok[user], 0);
	assert_int_equal(ok[ctxt], 0);
	assert_int_equal(ok[run], 1);
	assert_true(v[run] == 2.0);

	/* Two seconds later: 2000 more switches -> 1000/s; the host's user
	 * time grew by 100 ticks over 2 CPUs and 2 s -> 25 % of the host;
	 * cpu0's busy by 120 ticks in 2 s -> 60 % of cpu0 (USER_HZ 100). */
	put(t.stat, "cpu  200 0 100 1100 0 0 0 0 0 0\n"
		    "cpu0 110 0 110 500 0 0 0 0 0 0\n"
		    "cpu1 90 0 50 600 0 0 0 0 0 0\n"
		    "ctxt 3000\nprocesses 10\nprocs_running 5\nprocs_blocked 0\n");
	rv_collector_sample(c, t0 + 2 * (rv_ns)NS_PER_S, v, ok);
	assert_int_equal(ok[ctxt], 1);
	assert_true(fabs(v[ctxt] - 1000.0) < 1e-9);
	if (sysconf(_SC_CLK_TCK) == 100) {
		assert_true(fabs(v[user] - 25.0) < 1e-9);
		assert_true(fabs(v[busy0] - 60.0) < 1e-9);
	}
	assert_true(v[run] == 5.0);

	/* A counter that went backwards was reset: no rate, never negative;
	 * cpu1 went offline: its channels are a gap, cpu0's are not. */
	put(t.stat, "cpu  300 0 100 1200 0 0 0 0 0 0\n"
		    "cpu0 160 0 110 550 0 0 0 0 0 0\n"
		    "ctxt 10\nprocesses 10\nprocs_running 1\nprocs_blocked 0\n");
	rv_collector_sample(c, t0 + 3 * (rv_ns)NS_PER_S, v, ok);
	assert_int_equal(ok[ctxt], 0);
	assert_true(v[ctxt] == 0.0);
	assert_int_equal(ok[user1], 0);
	assert_int_equal(ok[busy0], 1);
	assert_true(fabs(v[busy0] - 50.0 * 100.0 / (double)sysconf(_SC_CLK_TCK)) < 1e-9);

	/* After the reset, the next interval has a rate again; cpu1 is back. */
	put(t.stat, "cpu  400 0 100 1300 0 0 0 0 0 0\n"
		    "cpu0 170 0 110 640 0 0 0 0 0 0\n"
		    "cpu1 95 0 50 700 0 0 0 0 0 0\n"
		    "ctxt 510\nprocesses 10\nprocs_running 1\nprocs_blocked 0\n");
	rv_collector_sample(c, t0 + 4 * (rv_ns)NS_PER_S, v, ok);
	assert_int_equal(ok[ctxt], 1);
	assert_true(fabs(v[ctxt] - 500.0) < 1e-9);
	/* cpu1's last valid value is from t0 + 2 s: the rate covers the 2 s
	 * since then (5 ticks), not a gap */
	assert_int_equal(ok[user1], 1);
	assert_true(fabs(v[user1] - 250.0 / (double)sysconf(_SC_CLK_TCK)) < 1e-9);

	/* Malformed lines: a cpu line cut short, a non-numeric ctxt, an unknown
	 * CPU, huge values: gaps where unreadable, no crash. */
	put(t.stat, "cpu  400 0\n"
		    "cpu0 18446744073709551615 0 110 640 0 0 0 0 0 0\n"
		    "cpu7 1 1 1 1 1 1 1 1\n"
		    "ctxt lots\nprocs_running 9\n");
	rv_collector_sample(c, t0 + 5 * (rv_ns)NS_PER_S, v, ok);
	assert_int_equal(ok[user], 0);
	assert_int_equal(ok[ctxt], 0);
	assert_int_equal(ok[run], 1);
	assert_true(v[run] == 9.0);
	assert_int_equal(ok[chan_index(c, "cpu.procs_blocked")], 0);

	/* The file empties: every channel is a gap. */
	put(t.stat, "");
	assert_int_equal(rv_collector_sample(c, t0 + 6 * (rv_ns)NS_PER_S, v, ok), 0);
	rv_collector_close(c);
	drop_tree(&t);
}

/* Rediscovery: the same channels keep the open state (rates go on); a CPU
 * that came online gives a new channel list and counters that restart. */
static void test_rediscover(void **state)
{
	struct tree t;
	struct rv_collector *c = NULL;
	struct rv_err err = { 0 };
	double v[128];
	uint8_t ok[128];
	rv_ns t0 = 5 * (rv_ns)NS_PER_S;

	(void)state;
	make_tree(&t, "cpu  100 0 100 1000 0 0 0 0 0 0\n"
		      "cpu0 50 0 50 500 0 0 0 0 0 0\n"
		      "ctxt 1000\n");
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root, .nvml_lib = NULL }, &c, &err), 0);
	size_t before = rv_collector_nchan(c), ctxt = chan_index(c, "cpu.context_switches");

	rv_collector_sample(c, t0, v, ok);
	assert_int_equal(rv_collector_rediscover(c, &err), 0);
	assert_int_equal(rv_collector_nchan(c), before);
	put(t.stat, "cpu  100 0 100 1000 0 0 0 0 0 0\n"
		    "cpu0 50 0 50 500 0 0 0 0 0 0\n"
		    "ctxt 2000\n");
	rv_collector_sample(c, t0 + (rv_ns)NS_PER_S, v, ok);
	assert_int_equal(ok[ctxt], 1);                  /* unchanged: rates go on */
	assert_true(v[ctxt] == 1000.0);

	put(t.stat, "cpu  100 0 100 1000 0 0 0 0 0 0\n"
		    "cpu0 50 0 50 500 0 0 0 0 0 0\n"
		    "cpu1 50 0 50 500 0 0 0 0 0 0\n"
		    "ctxt 3000\n");
	assert_int_equal(rv_collector_rediscover(c, &err), 1);
	assert_true(rv_collector_nchan(c) == before + 9);
	assert_true(has_chan(c, "cpu.busy_pct:cpu1"));
	ctxt = chan_index(c, "cpu.context_switches");
	rv_collector_sample(c, t0 + 2 * (rv_ns)NS_PER_S, v, ok);
	assert_int_equal(ok[ctxt], 0);                  /* counters start again */
	put(t.stat, "cpu  100 0 100 1000 0 0 0 0 0 0\n"
		    "cpu0 50 0 50 500 0 0 0 0 0 0\n"
		    "cpu1 50 0 50 500 0 0 0 0 0 0\n"
		    "ctxt 3500\n");
	rv_collector_sample(c, t0 + 3 * (rv_ns)NS_PER_S, v, ok);
	assert_int_equal(ok[ctxt], 1);
	assert_true(v[ctxt] == 500.0);
	rv_collector_close(c);
	drop_tree(&t);
}

/* The collector copies cfg's root and exclude list: the caller's may go
 * once open returns (an agent's config reloaded, a block-scope array), and
 * rediscovery still reads the same tree and leaves the same sources out. */
static void test_cfg_copied(void **state)
{
	struct tree t;
	struct rv_collector *c = NULL;
	struct rv_err err = { 0 };
	char *root, *name;
	const char **exclude = malloc(sizeof(*exclude));
	size_t before, excluded = 0;

	(void)state;
	make_tree(&t, "cpu  100 0 100 1000 0 0 0 0 0 0\ncpu0 50 0 50 500 0 0 0 0 0 0\nctxt 1\n");
	root = strdup(t.root);
	name = strdup("proc.loadavg");
	assert_non_null(exclude);
	exclude[0] = name;
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = root, .exclude = exclude,
								      .nexclude = 1 }, &c, &err), 0);
	before = rv_collector_nchan(c);
	assert_true(before > 0);
	memset(root, 'x', strlen(root));
	memset(name, 'x', strlen(name));
	free(root);
	free(name);
	free(exclude);
	assert_int_equal(rv_collector_rediscover(c, &err), 0);
	assert_int_equal(rv_collector_nchan(c), before);
	for (size_t i = 0; i < rv_collector_nunavail(c); i++)
		excluded += strcmp(rv_collector_unavail_source(c, i), "proc.loadavg") == 0 &&
			    strstr(rv_collector_unavail_reason(c, i), "excluded") != NULL;
	assert_int_equal(excluded, 1);
	rv_collector_close(c);
	drop_tree(&t);
}

/* Sources with nothing to read under the root are listed with a reason
 * naming the path; one that has its file still opens. */
static void test_unavailable_sources(void **state)
{
	struct tree t;
	struct rv_collector *c = NULL;
	struct rv_err err = { 0 };
	int stat_ok = 0;

	(void)state;
	make_tree(&t, STAT_A);
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root, .nvml_lib = NULL }, &c, &err), 0);
	for (size_t i = 0; i < rv_collector_nchan(c); i++)
		stat_ok |= strcmp(rv_collector_chan(c, i)->source, "proc.stat") == 0;
	assert_true(stat_ok);
	for (size_t i = 0; i < rv_collector_nunavail(c); i++) {
		const char *src = rv_collector_unavail_source(c, i);

		assert_true(strcmp(src, "proc.stat") != 0);
		/* File sources name their path under the root; nvml names its
		 * library, which the root does not move. */
		assert_non_null(strstr(rv_collector_unavail_reason(c, i),
					strcmp(src, "nvml") == 0 ? "libnvidia-ml" : t.root));
	}
	rv_collector_close(c);
	unlink(t.stat);
	/* Without /proc/stat the stat source is unavailable, with the path. */
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root, .nvml_lib = NULL }, &c, &err), 0);
	assert_int_equal(rv_collector_nchan(c) == 0 || !has_chan(c, "cpu.user_pct"), 1);
	int found = 0;

	for (size_t i = 0; i < rv_collector_nunavail(c); i++)
		if (strcmp(rv_collector_unavail_source(c, i), "proc.stat") == 0) {
			found = 1;
			assert_non_null(strstr(rv_collector_unavail_reason(c, i), "/proc/stat"));
		}
	assert_true(found);
	rv_collector_close(c);
	drop_tree(&t);
}

/* pfile grows its buffer at open until the file fits twice over. */
static void test_pfile_growth(void **state)
{
	struct tree t;
	struct rv_pfile f;
	struct rv_err err = { 0 };
	char *big = malloc(20000);

	(void)state;
	assert_non_null(big);
	memset(big, 'x', 19999);
	big[19999] = '\0';
	make_tree(&t, big);
	assert_int_equal(rv_pfile_open(&f, t.root, "/proc/stat", &err), 0);
	assert_true(f.cap >= 2 * 19999);
	assert_int_equal(rv_pfile_read(&f), 19999);
	assert_int_equal(f.buf[19999], '\0');
	rv_pfile_close(&f);
	assert_int_equal(rv_pfile_open(&f, t.root, "/proc/nope", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/proc/nope"));
	free(big);
	drop_tree(&t);
}

/* Channel names: catalog types only, instances appended, length bounded. */
static void test_chanlist(void **state)
{
	struct rv_chanlist l = { .source = "x" };
	struct rv_err err = { 0 };
	char inst[200];

	(void)state;
	assert_int_equal(rv_chanlist_add(&l, "cpu.user_pct", "cpu3", 0.0, &err), 0);
	assert_string_equal(l.v[0].name, "cpu.user_pct:cpu3");
	assert_true(l.v[0].scale == 1.0);
	assert_int_equal(rv_chanlist_add(&l, "cpu.no_such_metric", NULL, 1.0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "cpu.no_such_metric"));
	memset(inst, 'a', sizeof(inst) - 1);
	inst[sizeof(inst) - 1] = '\0';
	assert_int_equal(rv_chanlist_add(&l, "cpu.user_pct", inst, 1.0, &err), -EINVAL);
	assert_int_equal(l.n, 1);
	rv_chanlist_fini(&l);
}

/*
 * Every registered source, opened after other channels are already in the
 * list (as in the collector), writes only its own slice of the frame: the
 * raw array handed to sample() starts at its first channel. Canaries on
 * both sides of the slice must survive, on every fixture tree a source
 * opens on (and the live host).
 */
static void test_sources_write_their_slice(void **state)
{
	static const char *const trees[] = {
		"", "collect/statonly", "collect/memhost", "collect/nethost",
		"collect/syshost", "collect/irqhost8", "collect/cgroup-v1", "collect/cgroup-v2",
	};
	enum { PAD = 37, GUARD = 8 };
	int opened = 0;

	(void)state;
	for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		char root[512];

		if (trees[t][0])
			snprintf(root, sizeof(root), "%s/%s", fixtures(), trees[t]);
		else
			root[0] = '\0';
		for (size_t k = 0; rv_sources[k]; k++) {
			const struct rv_source *s = rv_sources[k];
			struct rv_chanlist l = { .source = "pad" };
			struct rv_err err = { 0 };
			void *st = NULL;

			for (int i = 0; i < PAD; i++)
				assert_int_equal(rv_chanlist_add(&l, "cpu.load1", NULL, 1.0, &err), 0);
			if (s->open(&(struct rv_collect_cfg){ .root = root, .nvml_lib = NULL }, &st, &l, &err) != 0) {
				rv_chanlist_fini(&l);
				continue;
			}
			size_t n = l.n - PAD;
			double *raw = malloc((n + 2 * GUARD) * sizeof(*raw));
			uint8_t *ok = malloc(n + 2 * GUARD);

			assert_non_null(raw);
			assert_non_null(ok);
			for (size_t i = 0; i < n + 2 * GUARD; i++) {
				raw[i] = -12345.0;
				ok[i] = 0xee;
			}
			for (size_t i = 0; i < n; i++)
				ok[GUARD + i] = 0;
			s->sample(st, raw + GUARD, ok + GUARD);
			for (size_t i = 0; i < GUARD; i++) {
				if (raw[i] != -12345.0 || ok[i] != 0xee ||
				    raw[GUARD + n + i] != -12345.0 || ok[GUARD + n + i] != 0xee)
					fail_msg("%s on '%s' wrote outside its %zu channels", s->name,
						 root, n);
			}
			opened++;
			s->close(st);
			free(raw);
			free(ok);
			rv_chanlist_fini(&l);
		}
	}
	assert_true(opened >= 10);
}

/* Sweeping allocates nothing: the whole collector, on the live host and
 * on the largest fixture tree, sampled repeatedly with counting on. */
static void test_sweep_allocates_nothing(void **state)
{
#ifdef RV_COUNT_ALLOCS
	static const char *const trees[] = { "", "collect/irqhost8", "collect/syshost",
					      "collect/nethost", "collect/memhost",
					      "collect/cgroup-v1", "collect/cgroup-v2" };

	(void)state;
	/* The counter sees this executable's allocations (it must not be a
	 * check that cannot fail). */
	allocs = 0;
	counting = 1;
	free(malloc(8));
	counting = 0;
	assert_int_equal(allocs, 1);
	for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		struct rv_collector *c = NULL;
		struct rv_err err = { 0 };
		char root[512];

		if (trees[t][0])
			snprintf(root, sizeof(root), "%s/%s", fixtures(), trees[t]);
		else
			root[0] = '\0';
		assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = root, .nvml_lib = NULL }, &c, &err), 0);
		size_t n = rv_collector_nchan(c) + 1;
		double *v = __libc_malloc(n * sizeof(*v));
		uint8_t *ok = __libc_malloc(n);

		assert_non_null(v);
		assert_non_null(ok);
		allocs = 0;
		counting = 1;
		for (int k = 0; k < 5; k++)
			rv_collector_sample(c, (rv_ns)(k + 1) * 100000000ULL, v, ok);
		counting = 0;
		if (allocs)
			fail_msg("%lu allocations while sampling under '%s'", allocs, root);
		free(v);
		free(ok);
		rv_collector_close(c);
	}
#else
	(void)state;
	skip();         /* ASan owns malloc; the release build runs this */
#endif
}

/* ------------------------------------------------------ channel filter */

/* A keep callback over a NULL-terminated list of names (a metric set). */
static int keep_listed(void *ctx, const char *channel)
{
	for (const char *const *n = ctx; *n; n++)
		if (strcmp(*n, channel) == 0)
			return 1;
	return 0;
}

/* A tree with /proc/stat, /proc/loadavg and /proc/net/snmp (TCP only). */
struct ftree {
	struct tree t;
	char root[256], path[3][300];
};

static const char SNMP_A[] = "Tcp: ActiveOpens OutSegs RetransSegs\nTcp: 10 1000 5\n";
static const char SNMP_B[] = "Tcp: ActiveOpens OutSegs RetransSegs\nTcp: 12 3000 25\n";

static void make_ftree(struct ftree *f)
{
	char dir[300];

	make_tree(&f->t, STAT_A);
	snprintf(f->root, sizeof(f->root), "%s", f->t.root);
	snprintf(f->path[0], sizeof(f->path[0]), "%s", f->t.stat);
	snprintf(f->path[1], sizeof(f->path[1]), "%s/proc/loadavg", f->root);
	put(f->path[1], "0.50 0.40 0.30 2/345 6789\n");
	snprintf(dir, sizeof(dir), "%s/proc/net", f->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(f->path[2], sizeof(f->path[2]), "%s/proc/net/snmp", f->root);
	put(f->path[2], SNMP_A);
}

static void drop_ftree(struct ftree *f)
{
	char dir[300];

	unlink(f->path[1]);
	unlink(f->path[2]);
	snprintf(dir, sizeof(dir), "%s/proc/net", f->root);
	rmdir(dir);
	drop_tree(&f->t);
}

/* 1 when this process holds a descriptor open on path. */
static int fd_open_on(const char *path)
{
	char link[64], target[512];
	int found = 0;

	for (int fd = 0; fd < 1024 && !found; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = strcmp(target, path) == 0;
	}
	return found;
}

static const char *unavail_reason(const struct rv_collector *c, const char *source)
{
	for (size_t i = 0; i < rv_collector_nunavail(c); i++)
		if (strcmp(rv_collector_unavail_source(c, i), source) == 0)
			return rv_collector_unavail_reason(c, i);
	return NULL;
}

static size_t sampled_sources(const struct rv_collector *c, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < rv_collector_nsources(c); i++) {
		const char *s;
		size_t nch;
		uint64_t last, total;

		rv_collector_source_stats(c, i, &s, &nch, &last, &total);
		n += strcmp(s, name) == 0;
	}
	return n;
}

/*
 * The filter keeps exactly the listed channels, in their unfiltered order;
 * a name the host lacks is no error; the kept ratio's inputs are read (raw
 * list) but not in the frame; every kept value equals the unfiltered
 * collector's for the same channel, rates and the ratio included.
 */
static void test_filter_keeps_exactly(void **state)
{
	static const char *const set[] = { "net.tcp_retrans_pct", "cpu.context_switches",
					    "cpu.no_such_channel", "cpu.user_pct:cpu0", NULL };
	static const char *const want[] = { "cpu.user_pct:cpu0", "cpu.context_switches",
					     "net.tcp_retrans_pct" };
	struct ftree t;
	struct rv_collector *c = NULL, *all = NULL;
	struct rv_err err = { 0 };
	double v[8], va[256];
	uint8_t ok[8], oka[256];
	rv_ns t0 = 5 * (rv_ns)NS_PER_S;

	(void)state;
	make_ftree(&t);
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root, .keep = keep_listed, .keep_ctx = (void *)set }, &c, &err), 0);
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root }, &all, &err), 0);
	assert_int_equal(rv_collector_nchan(c), 3);
	assert_int_equal(rv_collector_nleft(all), 0);
	assert_int_equal(rv_collector_nleft(c), rv_collector_nchan(all) - 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(rv_collector_chan(c, i)->name, want[i]);
	assert_true(chan_index(all, want[0]) < chan_index(all, want[1]) &&
		    chan_index(all, want[1]) < chan_index(all, want[2]));
	assert_string_equal(rv_collector_chan(c, 2)->source, "derive");
	/* raw: the two kept source channels, then the ratio's inputs */
	assert_int_equal(rv_collector_nraw(c), 4);
	assert_string_equal(rv_collector_raw_chan(c, 0)->name, "cpu.user_pct:cpu0");
	assert_string_equal(rv_collector_raw_chan(c, 1)->name, "cpu.context_switches");
	assert_true(has_chan(all, rv_collector_raw_chan(c, 2)->name));
	assert_false(has_chan(c, "net.tcp_out_segs") || has_chan(c, "net.tcp_retrans_segs"));
	assert_null(rv_collector_raw_chan(c, 4));
	assert_null(unavail_reason(all, "proc.loadavg"));
	assert_string_equal(unavail_reason(c, "proc.loadavg"), "no channel in the metric set");
	assert_int_equal(sampled_sources(c, "proc.loadavg"), 0);
	assert_int_equal(rv_collector_nsources(c), 2);
	assert_true(rv_collector_nchan(all) <= 256);

	for (int k = 0; k < 2; k++) {
		if (k) {
			put(t.path[0], "cpu  200 0 100 1100 0 0 0 0 0 0\n"
				       "cpu0 110 0 110 500 0 0 0 0 0 0\n"
				       "cpu1 90 0 50 600 0 0 0 0 0 0\n"
				       "ctxt 3000\nprocesses 10\nprocs_running 5\nprocs_blocked 0\n");
			put(t.path[2], SNMP_B);
		}
		assert_int_equal(rv_collector_sample(c, t0 + k * (rv_ns)NS_PER_S, v, ok),
				 k ? 3 : 0);
		rv_collector_sample(all, t0 + k * (rv_ns)NS_PER_S, va, oka);
		for (size_t i = 0; i < 3; i++) {
			size_t j = chan_index(all, want[i]);

			assert_int_equal(ok[i], oka[j]);
			assert_true(!ok[i] || v[i] == va[j]);
		}
	}
	assert_true(fabs(v[1] - 2000.0) < 1e-9);        /* ctxt 1000 -> 3000 in 1 s */
	assert_true(fabs(v[2] - 1.0) < 1e-9);           /* 20 of 2000 segments: 1 % */
	rv_collector_close(c);
	rv_collector_close(all);
	drop_ftree(&t);
}

/*
 * A source none of whose channels is kept is closed at open: no
 * descriptor stays on its file (it is open without the filter), it is not
 * among the sampled sources, it is unavailable with the reason; a filter
 * that keeps nothing leaves an empty frame. Sampling with a filter
 * allocates nothing.
 */
static void test_filter_closes_unkept_sources(void **state)
{
	static const char *const set[] = { "cpu.load1", "cpu.load5", NULL };
	static const char *const none[] = { NULL };
	struct ftree t;
	struct rv_collector *c = NULL;
	struct rv_err err = { 0 };
	char stat_path[PATH_MAX], load_path[PATH_MAX];
	double v[8];
	uint8_t ok[8];

	(void)state;
	make_ftree(&t);
	assert_non_null(realpath(t.path[0], stat_path));
	assert_non_null(realpath(t.path[1], load_path));
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root }, &c, &err), 0);
	assert_true(fd_open_on(stat_path));             /* the check can fail */
	rv_collector_close(c);

	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root, .keep = keep_listed, .keep_ctx = (void *)set }, &c, &err), 0);
	assert_false(fd_open_on(stat_path));
	assert_true(fd_open_on(load_path));
	assert_int_equal(rv_collector_nsources(c), 1);
	assert_int_equal(sampled_sources(c, "proc.loadavg"), 1);
	assert_string_equal(unavail_reason(c, "proc.stat"), "no channel in the metric set");
	assert_string_equal(unavail_reason(c, "proc.net_snmp"), "no channel in the metric set");
	assert_int_equal(rv_collector_nchan(c), 2);
	assert_int_equal(rv_collector_nraw(c), 2);
#ifdef RV_COUNT_ALLOCS
	allocs = 0;
	counting = 1;
#endif
	for (int k = 0; k < 3; k++)
		assert_int_equal(rv_collector_sample(c, (rv_ns)(k + 1) * NS_PER_S, v, ok), 2);
#ifdef RV_COUNT_ALLOCS
	counting = 0;
	assert_int_equal(allocs, 0);
#endif
	assert_true(v[0] == 0.5 && v[1] == 0.4);
	rv_collector_close(c);

	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root, .keep = keep_listed, .keep_ctx = (void *)none }, &c, &err), 0);
	assert_int_equal(rv_collector_nchan(c), 0);
	assert_int_equal(rv_collector_nraw(c), 0);
	assert_int_equal(rv_collector_nsources(c), 0);
	assert_false(fd_open_on(load_path));
	assert_int_equal(rv_collector_sample(c, NS_PER_S, v, ok), 0);
	rv_collector_close(c);
	drop_ftree(&t);
}

/* Rediscovery applies the filter again: a CPU that comes online adds only
 * its kept channels; unchanged kept channels mean no change. */
static void test_filter_rediscover(void **state)
{
	static const char *const set[] = { "cpu.user_pct:cpu1", "cpu.user_pct:cpu2",
					    "cpu.context_switches", NULL };
	struct ftree t;
	struct rv_collector *c = NULL;
	struct rv_err err = { 0 };

	(void)state;
	make_ftree(&t);
	assert_int_equal(rv_collector_open(&(struct rv_collect_cfg){ .root = t.root, .keep = keep_listed, .keep_ctx = (void *)set }, &c, &err), 0);
	assert_int_equal(rv_collector_nchan(c), 2);
	/* a new CPU whose channels the set does not name: nothing changes */
	put(t.path[0], "cpu  100 0 100 1000 0 0 0 0 0 0\n"
		       "cpu0 50 0 50 500 0 0 0 0 0 0\ncpu1 50 0 50 500 0 0 0 0 0 0\n"
		       "cpu3 50 0 50 500 0 0 0 0 0 0\nctxt 1000\n");
	assert_int_equal(rv_collector_rediscover(c, &err), 0);
	put(t.path[0], "cpu  100 0 100 1000 0 0 0 0 0 0\n"
		       "cpu0 50 0 50 500 0 0 0 0 0 0\ncpu1 50 0 50 500 0 0 0 0 0 0\n"
		       "cpu2 50 0 50 500 0 0 0 0 0 0\nctxt 1000\n");
	assert_int_equal(rv_collector_rediscover(c, &err), 1);
	assert_int_equal(rv_collector_nchan(c), 3);
	assert_string_equal(rv_collector_chan(c, 1)->name, "cpu.user_pct:cpu2");
	assert_string_equal(unavail_reason(c, "proc.loadavg"), "no channel in the metric set");
	rv_collector_close(c);
	drop_ftree(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_fixture_raw),
		cmocka_unit_test(test_rates_resets_gaps),
		cmocka_unit_test(test_rediscover),
		cmocka_unit_test(test_cfg_copied),
		cmocka_unit_test(test_unavailable_sources),
		cmocka_unit_test(test_pfile_growth),
		cmocka_unit_test(test_chanlist),
		cmocka_unit_test(test_sources_write_their_slice),
		cmocka_unit_test(test_sweep_allocates_nothing),
		cmocka_unit_test(test_filter_keeps_exactly),
		cmocka_unit_test(test_filter_closes_unkept_sources),
		cmocka_unit_test(test_filter_rediscover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
