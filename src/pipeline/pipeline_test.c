/*
 * pipeline_test.c - the offline detection pipeline end to end on tables
 * built in memory: window resolution and counting, window timestamps, the
 * delay line (per-window verdicts equal coverage by incidents, recomputed
 * here from the raw per-window decisions), gap bridging and min_windows on
 * crafted spikes, runs longer than a scoring block, thread counts and the
 * test-table check. The model file: modelfile_test.c; the capturing sink and
 * run comparisons both use: pipeline_testutil.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "base/rng.h"
#include "pipeline/model.h"
#include "pipeline/pipeline_testutil.h"

enum { NCH = 4, IH_TERMS = 12 };

static const char *const NAMES[NCH] = {
	"cpu.busy_pct", "mem.used_bytes", "net.rx_bytes:eth0", "gpu.util_pct:gpu0",
};
static const double CH_MEAN[NCH] = { 40.0, 8e9, 1e6, 70.0 };
static const double CH_SD[NCH] = { 5.0, 1e7, 1e5, 3.0 };

/* ------------------------------------------------------------- tables */

static double irwin_hall(struct rv_rng *r)
{
	double s = 0.0;

	for (int k = 0; k < IH_TERMS; k++)
		s += rv_rng_uniform(r);
	return s - 6.0;
}

/* nrows x NCH Gaussian-like noise around CH_MEAN; timestamps every
 * interval_s seconds (none when interval_s is 0). names may be NULL. */
static struct rv_table *noise_table(size_t nrows, double interval_s, uint64_t seed,
				    const char *const *names, size_t ncols)
{
	struct rv_table *t;
	struct rv_rng r;

	assert_int_equal(rv_table_new(nrows, ncols, interval_s > 0.0, "mem.csv", &t), 0);
	rv_rng_seed(&r, seed);
	for (size_t c = 0; c < ncols; c++) {
		t->names[c] = strdup(names ? names[c] : NAMES[c % NCH]);
		assert_non_null(t->names[c]);
		for (size_t i = 0; i < nrows; i++)
			t->values[c * nrows + i] =
				(float)(CH_MEAN[c % NCH] + CH_SD[c % NCH] * irwin_hall(&r));
	}
	for (size_t i = 0; t->ts && i < nrows; i++)
		t->ts[i] = 1.7e9 + (double)i * interval_s;
	return t;
}

/* Shifts every sample of window w (window == step) of channel c by k sd. */
static void spike(struct rv_table *t, size_t win, size_t len, size_t c, double k)
{
	for (size_t i = win * len; i < (win + 1) * len; i++)
		t->values[c * t->nrows + i] += (float)(k * CH_SD[c]);
}

static struct rv_model *fit(const struct rv_detect_opts *o, const struct rv_table *t)
{
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };
	int rc = rv_model_fit(o, t, &m, NULL, &err);

	if (rc)
		fail_msg("rv_model_fit: %d %s", rc, err.msg);
	assert_non_null(m);
	return m;
}

/* The paper's detectors with small forests, samples-based windows. */
static void opts_samples(struct rv_detect_opts *o, size_t window, size_t step)
{
	rv_detect_opts_paper(o);
	o->ens.iforest.trees = 50;
	o->window.value = (double)window;
	o->step.value = (double)step;
}

/* ----------------------------------------------- windows and timestamps */

static void test_window_count_and_ts(void **state)
{
	static const struct {
		size_t rows, window, step;
	} cases[] = { { 300, 5, 1 }, { 300, 10, 3 }, { 301, 10, 3 }, { 250, 7, 7 } };
	struct rv_table *train = noise_table(600, 1.0, 1, NULL, NCH);

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rv_detect_opts o;
		struct rv_table *test = noise_table(cases[k].rows, 1.0, 2 + k, NULL, NCH);
		struct rv_detect_stats st;
		struct rv_model *m;
		struct rv_incmerge *mg;
		struct capture c;
		size_t want = (cases[k].rows - cases[k].window) / cases[k].step + 1;

		opts_samples(&o, cases[k].window, cases[k].step);
		m = fit(&o, train);
		assert_int_equal(m->window, cases[k].window);
		assert_int_equal(m->step, cases[k].step);
		mg = run(m, test, &c, 0, 1, 1);
		assert_int_equal(c.n, want);
		for (size_t w = 0; w < c.n; w++) {
			size_t last = cases[k].window - 1 + w * cases[k].step;
			assert_int_equal(c.w[w].index, w);
			assert_true(c.w[w].ts == test->ts[last]);
		}
		/* stats count the windows, and the incidents' windows as flagged */
		memset(&st, 0, sizeof(st));
		rv_incmerge_free(mg);
		assert_int_equal(rv_incmerge_new(m->nchan, (const char *const *)m->names, 0, 1, &mg, NULL), 0);
		assert_int_equal(rv_model_run(m, test, NULL, mg, 1, &st, NULL), 0);
		assert_int_equal(st.windows, want);
		{
			size_t flagged = 0, anomalies = 0;
			for (size_t i = 0; i < rv_incmerge_count(mg); i++)
				flagged += rv_incmerge_get(mg, i)->last_win -
					   rv_incmerge_get(mg, i)->first_win + 1;
			for (size_t w = 0; w < c.n; w++)
				anomalies += (size_t)c.w[w].res.anomaly;
			assert_int_equal(st.flagged, flagged);
			assert_int_equal(anomalies, flagged);
		}
		rv_incmerge_free(mg);
		free(c.w);
		rv_model_free(m);
		rv_table_free(test);
	}
	rv_table_free(train);
	(void)state;
}

struct resolution_case {
	double interval_s;          /* 0: no timestamp column */
	struct rv_span window, step;
	size_t want_window, want_step;
};

static void test_window_resolution(void **state)
{
	static const struct resolution_case cases[] = {
		{ 0.2, { 0, 0 }, { 0, 0 }, 15, 5 },     /* the paper's 3 s / 1 s */
		{ 0.5, { 0, 0 }, { 0, 0 }, 6, 2 },
		{ 1.0, { 0, 0 }, { 0, 0 }, 5, 1 },      /* slow sampling: 5 / 1 samples */
		{ 2.0, { 0, 0 }, { 0, 0 }, 5, 1 },
		{ 0.0, { 0, 0 }, { 0, 0 }, 5, 1 },      /* no timestamps */
		{ 0.2, { 8, 0 }, { 2, 0 }, 8, 2 },      /* explicit samples */
		{ 0.0, { 12, 0 }, { 4, 0 }, 12, 4 },
		{ 0.2, { 2.0, 1 }, { 0.4, 1 }, 10, 2 }, /* explicit seconds */
		{ 2.0, { 20.0, 1 }, { 4.0, 1 }, 10, 2 },
		{ 0.2, { 2.0, 1 }, { 0, 0 }, 10, 5 },   /* seconds window, default step */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rv_detect_opts o;
		struct rv_table *t = noise_table(400, cases[k].interval_s, 10 + k, NULL, NCH);
		struct rv_model *m;

		opts_samples(&o, 0, 0);
		o.window = cases[k].window;
		o.step = cases[k].step;
		m = fit(&o, t);
		if (m->window != cases[k].want_window || m->step != cases[k].want_step)
			fail_msg("case %zu: window %zu step %zu, want %zu %zu", k, m->window, m->step,
				 cases[k].want_window, cases[k].want_step);
		if (cases[k].interval_s > 0)
			assert_true(fabs(m->interval_s - cases[k].interval_s) < 1e-6); /* ts ~1.7e9 */
		else
			assert_true(m->interval_s == 0.0);
		rv_model_free(m);
		rv_table_free(t);
	}
	(void)state;
}

static void expect_fit_refused(const struct rv_detect_opts *o, const struct rv_table *t,
			       const char *text)
{
	struct rv_model *m = (struct rv_model *)&m;
	struct rv_err err = { 0 };
	int rc = rv_model_fit(o, t, &m, NULL, &err);

	if (rc != -EINVAL || m != NULL || !strstr(err.msg, text))
		fail_msg("rc %d, err '%s', want '%s'", rc, err.msg, text);
}

static void test_window_refusals(void **state)
{
	struct rv_detect_opts o;
	struct rv_table *nots = noise_table(400, 0.0, 3, NULL, NCH);
	struct rv_table *few = noise_table(12, 0.2, 3, NULL, NCH);

	/* seconds need timestamps: the window, or the step alone */
	opts_samples(&o, 0, 0);
	o.window = (struct rv_span){ 3.0, 1 };
	expect_fit_refused(&o, nots, "need a timestamp column");
	opts_samples(&o, 5, 0);
	o.step = (struct rv_span){ 1.0, 1 };
	expect_fit_refused(&o, nots, "need a timestamp column");
	/* 12 rows of 200 ms data: fewer than the default 15-sample window */
	opts_samples(&o, 0, 0);
	expect_fit_refused(&o, few, "fewer than one window of 15 samples");
	opts_samples(&o, 1, 1);
	expect_fit_refused(&o, nots, "at least 2");
	rv_table_free(nots);
	rv_table_free(few);
	(void)state;
}

/* --------------------------------------------------------- delay line */

struct group {
	size_t first, last, flagged;
};

/* The merge rule of explain/incident.h written out: flagged windows at most
 * `gap` unflagged windows apart form one group; groups with fewer than min
 * flagged windows are dropped (min <= 1 keeps all). Returns the kept count. */
static size_t expected_groups(const int *raw, size_t n, size_t gap, size_t min,
			      struct group *out, size_t *dropped)
{
	size_t kept = 0;
	struct group g = { 0, 0, 0 };

	*dropped = 0;
	for (size_t w = 0; w <= n; w++) {
		int close = w == n || (g.flagged && raw[w] && w - g.last - 1 > gap);
		if (close && g.flagged) {
			if (min <= 1 || g.flagged >= min)
				out[kept++] = g;
			else
				(*dropped)++;
			g.flagged = 0;
		}
		if (w < n && raw[w]) {
			if (!g.flagged)
				g.first = w;
			g.last = w;
			g.flagged++;
		}
	}
	return kept;
}

/* The ensemble's own verdict of a window before the merger. */
static int raw_verdict(const struct rv_model *m, const struct rv_ens_result *res)
{
	const struct rv_ens_config *c = rv_ens_config(m->ens);
	unsigned votes = 0;

	if (c->fusion == RV_FUSE_SCORE)
		return res->fused > rv_ens_fuse_threshold(m->ens);
	for (unsigned f = res->flags; f; f &= f - 1)
		votes++;
	return votes >= c->vote_k;
}

/* Windows seen bridged (anomaly without a raw verdict) and dropped (a raw
 * verdict without anomaly) by check_coverage: the settings must matter. */
static size_t bridged_seen, dropped_seen;

/*
 * The incidents in order of start, joined into chains where one starts
 * within gap + 1 windows of the chain's end (a follow-on phase) or inside
 * it (an incident opened beside another, explain/incident.h): a group of
 * the merge rule is one chain. Returns the number of chains, each as a
 * group (flagged: the largest incident's count; the chain's own is at
 * least that and at most the sum).
 */
static size_t chains(const struct rv_incmerge *mg, size_t gap, const struct rv_incident **by,
		     struct group *out, size_t *sum)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < rv_incmerge_count(mg); i++) {
		const struct rv_incident *a = rv_incmerge_get(mg, i);
		size_t j = n++;

		for (; j > 0 && by[j - 1]->first_win > a->first_win; j--)
			by[j] = by[j - 1];
		by[j] = a;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rv_incident *a = by[i];

		if (k && a->first_win <= out[k - 1].last + gap + 1) {
			struct group *g = &out[k - 1];
			if (a->last_win > g->last)
				g->last = a->last_win;
			if (a->flagged > g->flagged)
				g->flagged = a->flagged;
			sum[k - 1] += a->flagged;
			continue;
		}
		out[k] = (struct group){ a->first_win, a->last_win, a->flagged };
		sum[k++] = a->flagged;
	}
	return k;
}

/* Output anomaly == coverage by the merger's incidents == the groups
 * recomputed from the raw verdicts (a group may hold a chain of incidents:
 * follow-on phases, incidents opened beside another). Returns the number
 * of groups. */
static size_t check_coverage(const struct rv_model *m, const struct capture *c,
			     const struct rv_incmerge *mg, size_t gap, size_t min)
{
	static int raw[MAX_WINDOWS];
	static struct group want[MAX_WINDOWS];
	static const struct rv_incident *by[MAX_WINDOWS];
	static struct group got[MAX_WINDOWS];
	static size_t sum[MAX_WINDOWS];
	size_t dropped, nwant = 0;

	for (size_t w = 0; w < c->n; w++) {
		int covered = 0;
		assert_int_equal(c->w[w].index, w);
		raw[w] = raw_verdict(m, &c->w[w].res);
		for (size_t i = 0; i < rv_incmerge_count(mg); i++) {
			const struct rv_incident *inc = rv_incmerge_get(mg, i);
			covered |= inc->first_win <= w && w <= inc->last_win;
		}
		bridged_seen += (size_t)(c->w[w].res.anomaly && !raw[w]);
		dropped_seen += (size_t)(!c->w[w].res.anomaly && raw[w]);
		if (c->w[w].res.anomaly != covered)
			fail_msg("gap %zu min %zu: window %zu anomaly %d, covered %d", gap, min, w,
				 c->w[w].res.anomaly, covered);
		/* a ranking comes with every window a detector or the fusion flagged */
		if ((c->w[w].res.flags || raw[w]) && c->w[w].nrank != m->nchan)
			fail_msg("window %zu flagged without a ranking", w);
	}
	nwant = expected_groups(raw, c->n, gap, min, want, &dropped);
	assert_int_equal(chains(mg, gap, by, got, sum), nwant);
	assert_int_equal(rv_incmerge_dropped(mg), dropped);
	for (size_t i = 0; i < nwant; i++) {
		if (got[i].first != want[i].first || got[i].last != want[i].last ||
		    got[i].flagged > want[i].flagged || want[i].flagged > sum[i])
			fail_msg("chain %zu: [%zu, %zu] %zu to %zu flagged, want [%zu, %zu] %zu", i,
				 got[i].first, got[i].last, got[i].flagged, sum[i], want[i].first,
				 want[i].last, want[i].flagged);
	}
	for (size_t i = 0; i < rv_incmerge_count(mg); i++) {
		const struct rv_incident *inc = rv_incmerge_get(mg, i);
		assert_true(inc->start_ts == c->w[inc->first_win].ts);
		assert_true(inc->end_ts == c->w[inc->last_win].ts);
	}
	return nwant;
}

/* Overlapping windows over noise with scattered bursts: many incidents of
 * varied lengths and gaps, under several gap / min settings and fusions. */
static void test_delay_line_coverage(void **state)
{
	static const size_t settings[][2] = { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 0, 2 },
					      { 2, 3 }, { 3, 2 }, { 1, 4 }, { 5, 1 } };
	struct rv_table *train = noise_table(1500, 1.0, 21, NULL, NCH);
	struct rv_table *test = noise_table(900, 1.0, 22, NULL, NCH);
	struct rv_rng r;
	size_t incidents = 0;

	bridged_seen = dropped_seen = 0;
	rv_rng_seed(&r, 23);
	for (int b = 0; b < 25; b++) {
		size_t at = rv_rng_below(&r, 880), len = 1 + rv_rng_below(&r, 6);
		size_t c = rv_rng_below(&r, NCH);
		for (size_t i = at; i < at + len; i++)
			test->values[c * test->nrows + i] += (float)(6.0 * CH_SD[c]);
	}
	for (int fusion = 0; fusion < 2; fusion++) {
		struct rv_detect_opts o;
		struct rv_model *m;

		opts_samples(&o, 5, 1);
		if (fusion) {
			o.ens.fusion = RV_FUSE_SCORE;
			o.ens.enabled |= RV_DET_BIT(RV_DET_SPE);
		}
		m = fit(&o, train);
		for (size_t s = 0; s < sizeof(settings) / sizeof(settings[0]); s++) {
			struct capture c;
			struct rv_incmerge *mg = run(m, test, &c, settings[s][0], settings[s][1], 1);
			assert_int_equal(c.n, 896);
			incidents += check_coverage(m, &c, mg, settings[s][0], settings[s][1]);
			run_free(mg, &c);
		}
		rv_model_free(m);
	}
	assert_true(incidents > 40); /* the bursts really produced incidents */
	assert_true(bridged_seen > 0 && dropped_seen > 0);
	rv_table_free(train);
	rv_table_free(test);
	(void)state;
}

/*
 * Non-overlapping windows of 5 samples; bursts fill windows 10-11 (a
 * two-window spike), 30 and 32 (one quiet window between) and 50 (a blip)
 * on two channels. Expected verdicts per (gap, min) for windows 9..12,
 * 29..33 and 49..51.
 */
enum { SPK_LEN = 5 };

struct spike_case {
	size_t gap, min;
	int w10_11, w30, w31, w32, w50;
};

static void test_gap_and_min(void **state)
{
	static const struct spike_case cases[] = {
		{ 0, 1, 1, 1, 0, 1, 1 }, /* no bridging: 30 and 32 apart */
		{ 1, 1, 1, 1, 1, 1, 1 }, /* 31 bridged */
		{ 0, 2, 1, 0, 0, 0, 0 }, /* only the two-window spike is long enough */
		{ 1, 2, 1, 1, 1, 1, 0 }, /* 30-32 has two flagged windows */
		{ 1, 3, 0, 0, 0, 0, 0 }, /* everything is a blip */
		{ 0, 3, 0, 0, 0, 0, 0 },
	};
	static const size_t spiked[] = { 10, 11, 30, 32, 50 };
	static const size_t quiet[] = { 9, 12, 29, 31, 33, 49, 51 };
	struct rv_table *train = noise_table(2000, 1.0, 31, NULL, NCH);
	struct rv_table *test = noise_table(400, 1.0, 32, NULL, NCH);
	struct rv_detect_opts o;
	struct rv_model *m;

	for (size_t i = 0; i < sizeof(spiked) / sizeof(spiked[0]); i++) {
		spike(test, spiked[i], SPK_LEN, 0, 20.0);
		spike(test, spiked[i], SPK_LEN, 2, -20.0);
	}
	opts_samples(&o, SPK_LEN, SPK_LEN);
	m = fit(&o, train);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct spike_case *sc = &cases[k];
		struct capture c;
		struct rv_incmerge *mg = run(m, test, &c, sc->gap, sc->min, 1);

		assert_int_equal(c.n, 80);
		/* preconditions: the spikes are flagged, their neighbours are not */
		for (size_t i = 0; i < sizeof(spiked) / sizeof(spiked[0]); i++)
			assert_true(raw_verdict(m, &c.w[spiked[i]].res));
		for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
			assert_false(raw_verdict(m, &c.w[quiet[i]].res));
		if (c.w[10].res.anomaly != sc->w10_11 || c.w[11].res.anomaly != sc->w10_11 ||
		    c.w[30].res.anomaly != sc->w30 || c.w[31].res.anomaly != sc->w31 ||
		    c.w[32].res.anomaly != sc->w32 || c.w[50].res.anomaly != sc->w50)
			fail_msg("gap %zu min %zu: 10 %d 11 %d 30 %d 31 %d 32 %d 50 %d", sc->gap,
				 sc->min, c.w[10].res.anomaly, c.w[11].res.anomaly,
				 c.w[30].res.anomaly, c.w[31].res.anomaly, c.w[32].res.anomaly,
				 c.w[50].res.anomaly);
		for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
			if (quiet[i] != 31)
				assert_int_equal(c.w[quiet[i]].res.anomaly, 0);
		/* the spiked channels lead the ranking of a spiked window */
		assert_int_equal(c.w[10].nrank, NCH);
		assert_true(c.w[10].rank[0] == 0 || c.w[10].rank[0] == 2);
		assert_true(c.w[10].rank[1] == 0 || c.w[10].rank[1] == 2);
		check_coverage(m, &c, mg, sc->gap, sc->min);
		run_free(mg, &c);
	}
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
	(void)state;
}

/* A failing sink stops the run with its error. */
static void test_sink_error(void **state)
{
	struct rv_table *train = noise_table(400, 1.0, 41, NULL, NCH);
	struct rv_detect_opts o;
	struct rv_model *m;
	struct rv_incmerge *mg;
	struct rv_sink sink;
	struct capture c;

	opts_samples(&o, 5, 1);
	m = fit(&o, train);
	assert_int_equal(rv_incmerge_new(m->nchan, (const char *const *)m->names, 1, 1, &mg, NULL), 0);
	capture_init(&c, m->nchan);
	c.fail_at = 3;
	sink = (struct rv_sink){ .ctx = &c, .window = capture_window };
	assert_int_equal(rv_model_run(m, train, &sink, mg, 1, NULL, NULL), -EIO);
	assert_int_equal(c.n, 3);
	rv_incmerge_free(mg);
	free(c.w);
	rv_model_free(m);
	rv_table_free(train);
	(void)state;
}

/* ------------------------------------------------------- table check */

static void expect_check_refused(const struct rv_model *m, const struct rv_table *t,
				 const char *a, const char *b)
{
	struct rv_err err = { 0 };
	struct rv_incmerge *mg = NULL;
	struct capture c;
	struct rv_sink sink = { .ctx = &c, .window = capture_window };

	assert_int_equal(rv_incmerge_new(m->nchan, (const char *const *)m->names, 0, 1, &mg, NULL), 0);
	assert_int_equal(rv_model_check_table(m, t, &err), -EINVAL);
	if (!strstr(err.msg, a) || (b && !strstr(err.msg, b)) || !strstr(err.msg, "mem.csv"))
		fail_msg("message '%s' lacks '%s' / '%s'", err.msg, a, b ? b : "");
	/* rv_model_run refuses the same table before scoring anything */
	capture_init(&c, m->nchan);
	rv_err_clear(&err);
	assert_int_equal(rv_model_run(m, t, &sink, mg, 1, NULL, &err), -EINVAL);
	assert_int_equal(c.n, 0);
	assert_non_null(strstr(err.msg, a));
	free(c.w);
	rv_incmerge_free(mg);
}

static void test_check_table(void **state)
{
	static const char *const renamed[NCH] = {
		"cpu.busy_pct", "mem.used_bytes", "net.tx_bytes:eth0", "gpu.util_pct:gpu0",
	};
	static const char *const more[NCH + 1] = {
		"cpu.busy_pct", "mem.used_bytes", "net.rx_bytes:eth0", "gpu.util_pct:gpu0",
		"storage.await_ms:sda",
	};
	struct rv_table *train = noise_table(400, 1.0, 51, NULL, NCH);
	struct rv_table *same = noise_table(100, 1.0, 52, NULL, NCH);
	struct rv_table *other = noise_table(100, 1.0, 52, renamed, NCH);
	struct rv_table *fewer = noise_table(100, 1.0, 52, NULL, NCH - 1);
	struct rv_table *extra = noise_table(100, 1.0, 52, more, NCH + 1);
	struct rv_table *shorter = noise_table(4, 1.0, 52, NULL, NCH);
	struct rv_detect_opts o;
	struct rv_model *m;

	opts_samples(&o, 0, 0);
	m = fit(&o, train);
	assert_int_equal(rv_model_check_table(m, same, NULL), 0);
	expect_check_refused(m, other, "'net.tx_bytes:eth0'", "'net.rx_bytes:eth0'");
	expect_check_refused(m, fewer, "'gpu.util_pct:gpu0'", NULL);
	expect_check_refused(m, extra, "'storage.await_ms:sda'", NULL);
	expect_check_refused(m, shorter, "fewer than one window of 5 samples", NULL);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(same);
	rv_table_free(other);
	rv_table_free(fewer);
	rv_table_free(extra);
	rv_table_free(shorter);
	(void)state;
}

/* More windows than one scoring block (run.c scores in blocks of 1024):
 * incidents across block boundaries, any thread count, same verdicts. */
static void test_long_run(void **state)
{
	static const size_t bursts[] = { 1020, 1023, 2046, 2047, 2300 };
	struct rv_table *train = noise_table(800, 1.0, 61, NULL, NCH);
	struct rv_table *test = noise_table(2600, 1.0, 62, NULL, NCH);
	struct rv_detect_opts o;
	struct rv_model *m;
	struct capture a, b;
	struct rv_incmerge *ma, *mb;

	for (size_t i = 0; i < sizeof(bursts) / sizeof(bursts[0]); i++)
		for (size_t r = bursts[i]; r < bursts[i] + 3; r++)
			test->values[1 * test->nrows + r] += (float)(15.0 * CH_SD[1]);
	opts_samples(&o, 5, 1);
	m = fit(&o, train);
	ma = run(m, test, &a, 2, 2, 1);
	mb = run(m, test, &b, 2, 2, 3);
	assert_int_equal(a.n, 2596);
	same_output(&a, &b);
	same_incidents(ma, mb);
	check_coverage(m, &a, ma, 2, 2);
	/* the bursts at rows 1020-1025 make windows 1016-1025 flagged: an
	 * incident that crosses window 1024, the first of the second block */
	assert_int_equal(a.w[1023].res.anomaly, 1);
	assert_int_equal(a.w[1024].res.anomaly, 1);
	run_free(ma, &a);
	run_free(mb, &b);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
	(void)state;
}

/* rv_model_run's contract puts no upper bound on threads; the other
 * threaded entry points clamp to RV_PARALLEL_MAX, so must this one. */
static void test_threads_above_max(void **state)
{
	struct rv_table *train = noise_table(400, 1.0, 71, NULL, NCH);
	struct rv_detect_opts o;
	struct rv_model *m;
	struct capture a, b;
	struct rv_incmerge *ma, *mb;

	opts_samples(&o, 5, 1);
	m = fit(&o, train);
	ma = run(m, train, &a, 0, 1, 1);
	mb = run(m, train, &b, 0, 1, 2 * RV_PARALLEL_MAX);
	same_output(&a, &b);
	run_free(ma, &a);
	run_free(mb, &b);
	rv_model_free(m);
	rv_table_free(train);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_count_and_ts),
		cmocka_unit_test(test_window_resolution),
		cmocka_unit_test(test_window_refusals),
		cmocka_unit_test(test_delay_line_coverage),
		cmocka_unit_test(test_gap_and_min),
		cmocka_unit_test(test_sink_error),
		cmocka_unit_test(test_check_table),
		cmocka_unit_test(test_long_run),
		/* last: it crashes under ASan while the bug it shows is there */
		cmocka_unit_test(test_threads_above_max),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
