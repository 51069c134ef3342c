/*
 * level_test.c - levels that moved and stay (level.h), in the offline run,
 * the live scorer and the model file:
 *   - which channels a fit watches, with their range and margin;
 *   - on the quiet host of novelty_testdata.h with three levels added (the
 *     available memory, about 22 GiB with 40 MiB of noise; the huge page
 *     pool, 0; the swap space, 0), a pool of 2048 pages reserved (the
 *     available memory 4 GiB down) and held for 60 s flags every window
 *     whose newest step lies inside that time and no other, with the
 *     pool's channel first and mem blamed; one incident covers the whole
 *     time and ends with it;
 *   - the available memory 200 MiB down (inside its margin) flags nothing,
 *     1 GiB down flags, and swap turned on flags;
 *   - the live scorer agrees window for window and calls each of them
 *     lasting and material, the level persisting;
 *   - the model file of version 5 round trips the ranges, a bad range is
 *     refused, and without the option nothing is watched.
 */
#include "pipeline/pipeline_testutil.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "pipeline/level.h"
#include "pipeline/live.h"
#include "pipeline/novelty_testdata.h"

/* 300 s of learning, 120 s of test at 8 samples a second: windows of 3 s
 * (24 samples) every 1 s (8). */
enum { TRAIN_ROWS = 2400, TEST_ROWS = 960, WIN = 24, STEP = 8 };
/* The levels, after the quiet host's channels. */
enum { L_AVAIL = QT_CHAN, L_POOL, L_SWAP, L_CHAN };
/* The pool: reserved from test +30 s to +90 s. */
enum { HOLD_R0 = 240, HOLD_R1 = 720 };
#define GIB 1073741824.0
#define MIB 1048576.0
#define AVAIL_LEVEL (22.0 * GIB)

/* The quiet host with the three levels: available memory with noise of
 * 40 MiB around AVAIL_LEVEL, a pool and a swap space of 0. */
static struct rv_table *level_table(size_t nrows, size_t first_row, uint64_t seed)
{
	struct rv_table *q = quiet_table(nrows, first_row, seed), *t = NULL;
	static const char *const names[] = { "mem.mem_available_bytes", "mem.hugepages_total",
					     "mem.swap_total_bytes" };
	struct rv_rng rng;

	assert_int_equal(rv_table_new(nrows, L_CHAN, 1, "levels", &t), 0);
	memcpy(t->ts, q->ts, nrows * sizeof(*t->ts));
	memcpy(t->values, q->values, (size_t)QT_CHAN * nrows * sizeof(float));
	for (size_t c = 0; c < QT_CHAN; c++) {
		t->names[c] = q->names[c];
		q->names[c] = NULL;
	}
	for (size_t i = 0; i < 3; i++)
		assert_non_null(t->names[QT_CHAN + i] = strdup(names[i]));
	rv_rng_seed(&rng, seed + 1000);
	for (size_t r = 0; r < nrows; r++) {
		t->values[L_AVAIL * nrows + r] =
			(float)(AVAIL_LEVEL + 40.0 * MIB * (2.0 * rv_rng_uniform(&rng) - 1.0));
		t->values[L_POOL * nrows + r] = 0.0f;
		t->values[L_SWAP * nrows + r] = 0.0f;
	}
	rv_table_free(q);
	return t;
}

/* Channel c moved by delta over rows [r0, r1). */
static void shift(struct rv_table *t, size_t c, size_t r0, size_t r1, double delta)
{
	for (size_t r = r0; r < r1 && r < t->nrows; r++)
		t->values[c * t->nrows + r] = (float)(t->values[c * t->nrows + r] + delta);
}

static struct rv_model *fit_levels(const struct rv_table *t, int level)
{
	struct rv_detect_opts o;
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };

	rv_detect_opts_default(&o);
	o.ens.iforest.trees = 50;
	o.level = level;
	if (rv_model_fit(&o, t, &m, NULL, &err) != 0)
		fail_msg("rv_model_fit: %s", err.msg);
	return m;
}

static long watched(const struct rv_level *lv, size_t c)
{
	for (size_t i = 0; i < lv->n; i++)
		if (lv->chan[i] == c)
			return (long)i;
	return -1;
}

static void test_catalog_levels(void **state)
{
	double floor = -1, rel = -1;

	(void)state;
	assert_int_equal(rv_catalog_level("mem.mem_available_bytes", &floor, &rel), 1);
	assert_true(floor == 256.0 * MIB && rel == 0.02);
	assert_int_equal(rv_catalog_level("mem.hugepages_total", &floor, &rel), 1);
	assert_true(floor == 0.5 && rel == 0.0);
	assert_int_equal(rv_catalog_level("mem.node_hugepages_total:node1", &floor, &rel), 1);
	assert_int_equal(rv_catalog_level("net.link_up:eth0", &floor, &rel), 1);
	floor = rel = -1;
	/* stocks that a past event leaves where they are: not levels */
	assert_int_equal(rv_catalog_level("mem.cached_bytes", &floor, &rel), 0);
	assert_int_equal(rv_catalog_level("mem.anon_pages_bytes", &floor, &rel), 0);
	assert_int_equal(rv_catalog_level("cpu.busy_pct", &floor, &rel), 0);
	assert_int_equal(rv_catalog_level("not.a_metric", &floor, &rel), 0);
	assert_int_equal(rv_catalog_level(NULL, &floor, &rel), 0);
	assert_true(floor == -1 && rel == -1);
}

static void test_fit(void **state)
{
	struct rv_table *t = level_table(TRAIN_ROWS, 0, 3);
	struct rv_model *m = fit_levels(t, 1);
	const struct rv_level *lv = &m->lvl;
	long a = watched(lv, L_AVAIL), p = watched(lv, L_POOL), s = watched(lv, L_SWAP);

	(void)state;
	assert_int_equal(lv->n, 3);
	assert_true(a >= 0 && p >= 0 && s >= 0 && a < p && p < s);
	assert_true(lv->lo[a] >= AVAIL_LEVEL - 40.0 * MIB - 4096.0);
	assert_true(lv->hi[a] <= AVAIL_LEVEL + 40.0 * MIB + 4096.0);
	assert_true(lv->hi[a] - lv->lo[a] > 60.0 * MIB);
	/* 2 % of the level, above the 256 MiB floor */
	assert_true(fabs(lv->margin[a] - 0.02 * AVAIL_LEVEL) < 2.0 * MIB);
	assert_true(lv->lo[p] == 0.0 && lv->hi[p] == 0.0 && lv->margin[p] == 0.5);
	assert_true(lv->margin[s] == 64.0 * MIB);
	rv_model_free(m);
	/* off: nothing watched */
	m = fit_levels(t, 0);
	assert_int_equal(m->lvl.n, 0);
	rv_model_free(m);
	rv_table_free(t);
}

/* The window whose newest step is rows [w * STEP + WIN - STEP, w * STEP + WIN). */
static int newest_step_inside(size_t w, size_t r0, size_t r1)
{
	size_t a = w * STEP + WIN - STEP;

	return a >= r0 && a + STEP <= r1;
}

static int newest_step_touches(size_t w, size_t r0, size_t r1)
{
	size_t a = w * STEP + WIN - STEP, b = a + STEP;

	return a < r1 && b > r0;
}

/* The pool held for 60 s: every window of it flagged, mem blamed, and
 * one incident from its start to its end. */
static void test_pool_held(void **state)
{
	struct rv_table *train = level_table(TRAIN_ROWS, 0, 3);
	struct rv_table *test = level_table(TEST_ROWS, TRAIN_ROWS, 4);
	struct rv_model *m = fit_levels(train, 1);
	struct rv_incmerge *mg;
	struct capture cap;
	size_t flagged = 0, inside = 0;

	(void)state;
	qt_plant(test, L_POOL, HOLD_R0, HOLD_R1, 2048.0f);
	shift(test, L_AVAIL, HOLD_R0, HOLD_R1, -4.0 * GIB);
	mg = run(m, test, &cap, 2, 1, 1);
	for (size_t w = 0; w < cap.n; w++) {
		const struct seen *x = &cap.w[w];

		if (newest_step_inside(w, HOLD_R0, HOLD_R1)) {
			inside++;
			assert_int_equal(x->res.leveled, 1);
			assert_int_equal(x->res.anomaly, 1);
			assert_int_equal(x->res.level_chan, L_POOL);
			assert_true(x->res.level > 1000.0);
			assert_true(x->res.fused >= RV_SEVERITY_MAJOR);
			/* the pool first once the window is all of it; while the
			 * step is in the window, the detectors see the available
			 * memory fall and may rank it first */
			if (w * STEP >= HOLD_R0 && w * STEP + WIN <= HOLD_R1)
				assert_int_equal(x->rank[0], L_POOL);
			else
				assert_true(x->rank[0] == L_POOL || x->rank[0] == L_AVAIL);
			assert_int_equal(x->subsystem, RV_SUB_MEM);
		} else if (!newest_step_touches(w, HOLD_R0, HOLD_R1)) {
			assert_int_equal(x->res.leveled, 0);
			assert_true(x->res.level == 0.0);
			assert_int_equal(x->res.level_chan, RV_NOVEL_NONE);
		}
		flagged += x->res.leveled;
	}
	assert_int_equal(inside, (HOLD_R1 - HOLD_R0) / STEP);
	assert_true(flagged >= inside && flagged <= inside + 2);
	/* one incident: the whole hold; the detectors may see the release
	 * (the available memory's step back) in the windows that hold it, as
	 * a follow-on phase of at most that many windows */
	assert_true(rv_incmerge_count(mg) >= 1 && rv_incmerge_count(mg) <= 2);
	const struct rv_incident *in = rv_incmerge_get(mg, 0);
	if (rv_incmerge_count(mg) == 2) {
		const struct rv_incident *after = rv_incmerge_get(mg, 1);

		assert_true(after->phase == 2 && after->follows == in->id);
		assert_true(after->first_win > in->last_win);
		assert_true(after->last_win - after->first_win + 1 <= WIN / STEP);
	}
	assert_int_equal(in->subsystem, RV_SUB_MEM);
	assert_true(in->start_ts <= test->ts[HOLD_R0 + STEP]);
	assert_true(in->end_ts >= test->ts[HOLD_R1 - 1]);
	assert_true(in->end_ts <= test->ts[HOLD_R1 - 1] + 3.0 * STEP * QT_INTERVAL_S);
	assert_true(in->end_ts - in->start_ts >= 59.0);
	run_free(mg, &cap);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
}

/* Moves inside the margin flag nothing; past it, and a setting changed, do. */
static void test_margin(void **state)
{
	struct rv_table *train = level_table(TRAIN_ROWS, 0, 3);
	struct rv_model *m = fit_levels(train, 1);
	const struct {
		size_t chan;
		double delta;
		int flags;
	} cases[] = {
		{ L_AVAIL, -200.0 * MIB, 0 }, { L_AVAIL, 200.0 * MIB, 0 },
		{ L_AVAIL, -1.0 * GIB, 1 }, { L_AVAIL, 1.0 * GIB, 1 },
		{ L_SWAP, 1.0 * GIB, 1 }, { L_POOL, 1.0, 1 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rv_table *test = level_table(TEST_ROWS, TRAIN_ROWS, 4);
		struct rv_incmerge *mg;
		struct capture cap;
		size_t flagged = 0;

		shift(test, cases[k].chan, HOLD_R0, HOLD_R1, cases[k].delta);
		mg = run(m, test, &cap, 2, 1, 1);
		for (size_t w = 0; w < cap.n; w++) {
			flagged += cap.w[w].res.leveled;
			if (cap.w[w].res.leveled)
				assert_int_equal(cap.w[w].res.level_chan, cases[k].chan);
		}
		if (cases[k].flags ? flagged < (HOLD_R1 - HOLD_R0) / STEP : flagged != 0)
			fail_msg("case %zu: channel %zu moved by %g: %zu windows flagged", k,
				 cases[k].chan, cases[k].delta, flagged);
		run_free(mg, &cap);
		rv_table_free(test);
	}
	rv_model_free(m);
	rv_table_free(train);
}

/* The live scorer: the same verdicts, lasting and material, persisting. */
static void test_live_agrees(void **state)
{
	struct rv_table *train = level_table(TRAIN_ROWS, 0, 3);
	struct rv_table *test = level_table(TEST_ROWS, TRAIN_ROWS, 4);
	struct rv_model *m = fit_levels(train, 1);
	struct rv_incmerge *mg;
	struct capture cap;
	struct rv_live *l = NULL;
	const float **rows = calloc(WIN, sizeof(*rows));
	float *row = malloc((size_t)TEST_ROWS * L_CHAN * sizeof(*row));

	(void)state;
	assert_non_null(rows);
	assert_non_null(row);
	shift(test, L_POOL, HOLD_R0, HOLD_R1, 2048.0);
	shift(test, L_AVAIL, HOLD_R0, HOLD_R1, -4.0 * GIB);
	mg = run(m, test, &cap, 2, 1, 1);
	for (size_t r = 0; r < TEST_ROWS; r++)
		for (size_t c = 0; c < L_CHAN; c++)
			row[r * L_CHAN + c] = test->values[c * TEST_ROWS + r];
	assert_int_equal(rv_live_new(m, &l), 0);
	for (size_t w = 0; w < cap.n; w++) {
		struct rv_live_out o;

		for (size_t i = 0; i < WIN; i++)
			rows[i] = row + (w * STEP + i) * L_CHAN;
		rv_live_score(l, rows, &o);
		assert_int_equal(o.res.leveled, cap.w[w].res.leveled);
		assert_true(o.res.level == cap.w[w].res.level);
		if (!o.res.leveled)
			continue;
		assert_int_equal(o.flagged, 1);
		assert_int_equal(o.lasting, 1);
		assert_int_equal(o.material, 1);
		assert_int_equal(o.persist[L_POOL], 1);
		assert_true(o.matter[L_POOL] == 1.0f);
		assert_int_equal(o.rank[0], cap.w[w].rank[0]);
		assert_int_equal(o.subsystem, RV_SUB_MEM);
	}
	rv_live_free(l);
	run_free(mg, &cap);
	free(rows);
	free(row);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
}

/* Version 5 round trips the ranges, and the model loaded scores as the
 * one saved; a bad range is refused. */
static void test_model_file(void **state)
{
	struct rv_table *train = level_table(TRAIN_ROWS, 0, 3);
	struct rv_table *test = level_table(TEST_ROWS, TRAIN_ROWS, 4);
	struct rv_model *m = fit_levels(train, 1), *back = NULL;
	struct rv_err err = { 0 };
	char path[] = "/tmp/rv_level_test_XXXXXX";
	int fd = mkstemp(path);
	struct rv_incmerge *ma, *mb;
	struct capture a, b;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(rv_model_save(m, path, &err), 0);
	assert_int_equal(rv_model_load(path, &back, &err), 0);
	assert_int_equal(back->lvl.n, m->lvl.n);
	for (size_t i = 0; i < m->lvl.n; i++) {
		assert_int_equal(back->lvl.chan[i], m->lvl.chan[i]);
		assert_true(back->lvl.lo[i] == m->lvl.lo[i]);
		assert_true(back->lvl.hi[i] == m->lvl.hi[i]);
		assert_true(back->lvl.margin[i] == m->lvl.margin[i]);
	}
	shift(test, L_SWAP, HOLD_R0, HOLD_R1, 1.0 * GIB);
	ma = run(m, test, &a, 2, 1, 1);
	mb = run(back, test, &b, 2, 1, 1);
	same_output(&a, &b);
	same_incidents(ma, mb);
	run_free(ma, &a);
	run_free(mb, &b);
	rv_table_free(test);
	rv_model_free(back);
	back = NULL;
	/* a range upside down */
	m->lvl.lo[0] = m->lvl.hi[0] + 1.0;
	assert_int_equal(rv_model_save(m, path, &err), 0);
	assert_int_equal(rv_model_load(path, &back, &err), -EINVAL);
	assert_null(back);
	assert_non_null(strstr(err.msg, "level entry 0"));
	unlink(path);
	rv_model_free(m);
	rv_table_free(train);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_levels),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_pool_held),
		cmocka_unit_test(test_margin),
		cmocka_unit_test(test_live_agrees),
		cmocka_unit_test(test_model_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
