/*
 * live_test.c - the single-window scorer gives what the offline run gives
 * for the same rows: detector scores, flags, the novelty and the channel
 * ranking, window for window over the synthetic job's test half, and over
 * a quiet host of 300 channels where one event channel bursts (the novelty
 * statistic, novelty.h); and the lasting rule of live.h on that host.
 */
#include "pipeline/pipeline_testutil.h"

#include <math.h>

#include "pipeline/live.h"
#include "pipeline/novelty_testdata.h"
#include "record/synth.h"

static void near(double a, double b)
{
	/* sgemv here, sgemm in the offline batches: the last float bits differ */
	if (!(fabs(a - b) <= 1e-4 * (1.0 + fabs(a) + fabs(b))))
		fail_msg("live %.9g, offline %.9g", a, b);
}

static void test_live_matches_offline(void **state)
{
	struct rv_synth_params p;
	struct rv_detect_opts o;
	struct rv_table *train = NULL, *test = NULL;
	struct rv_model *m = NULL;
	struct rv_live *l = NULL;
	struct capture cap;
	struct rv_incmerge *mg;
	uint8_t *labels = NULL;
	float *rowmaj;
	const float **rows;
	size_t flagged = 0, rank_agree = 0;

	(void)state;
	rv_synth_defaults(&p);
	p.train_s = 200.0;
	p.test_s = 300.0;
	assert_int_equal(rv_synth_generate(&p, &train, &test, &labels), 0);
	free(labels);
	rv_detect_opts_default(&o);
	o.ens.iforest.trees = 50;
	o.incident_gap = 0;
	assert_int_equal(rv_model_fit(&o, train, &m, NULL, NULL), 0);
	assert_true(m->nchan <= MAX_CHAN);

	mg = run(m, test, &cap, 0, 1, 1);
	(void)same_output;      /* the shared helpers this test does not need */
	(void)same_incidents;
	assert_true(cap.n > 100);

	rowmaj = malloc(test->nrows * m->nchan * sizeof(*rowmaj));
	rows = malloc(m->window * sizeof(*rows));
	assert_non_null(rowmaj);
	assert_non_null(rows);
	for (size_t r = 0; r < test->nrows; r++)
		for (size_t c = 0; c < m->nchan; c++)
			rowmaj[r * m->nchan + c] = rv_table_at(test, c, r);
	assert_int_equal(rv_live_new(m, &l), 0);
	for (size_t i = 0; i < cap.n; i++) {
		const struct seen *s = &cap.w[i];
		struct rv_live_out out;

		assert_int_equal(s->index, i);
		for (size_t k = 0; k < m->window; k++)
			rows[k] = rowmaj + (i * m->step + k) * m->nchan;
		rv_live_score(l, rows, &out);
		for (int d = 0; d < RV_DET_FIXED; d++)
			near(out.res.score[d], s->res.score[d]);
		near(out.res.fused, s->res.fused);
		/* the novelty is the same sum of the same floats */
		assert_true(out.res.novelty == s->res.novelty);
		assert_int_equal(out.res.novel_chan, s->res.novel_chan);
		assert_int_equal(out.res.novel, s->res.novel);
		/* a flag may only differ where the score sits on the threshold */
		for (int d = 0; d < RV_DET_FIXED; d++)
			if (((out.res.flags ^ s->res.flags) >> d) & 1u)
				near(out.res.ratio[d], 1.0);
		if (out.flagged && s->nrank) {
			flagged++;
			assert_int_equal(out.nrank, m->nchan);
			rank_agree += out.rank[0] == s->rank[0];
		}
		/* the window mean is the mean of the rows it was given */
		double sum = 0.0;
		for (size_t k = 0; k < m->window; k++)
			sum += rows[k][0];
		near(out.mean[0], sum / (double)m->window);
		if (!out.flagged) {
			assert_int_equal(out.nrank, 0);
			assert_true(out.weight[0] == 0.0);
		}
	}
	/* the synthetic job has planted faults: some windows are flagged, and
	 * their top channel is the offline one */
	assert_true(flagged > 5);
	assert_true(rank_agree >= flagged - flagged / 20);

	rv_live_free(l);
	free(rows);
	free(rowmaj);
	run_free(mg, &cap);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
}

/* Row-major copy of t (the live scorer's rows point into it). */
static float *row_major(const struct rv_table *t)
{
	float *rm = malloc(t->nrows * t->ncols * sizeof(*rm));

	assert_non_null(rm);
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++)
			rm[r * t->ncols + c] = rv_table_at(t, c, r);
	return rm;
}

/* 300 quiet channels; net.tcpext_tcp_timeouts counts 30/s for 10 s of
 * the test. Live and offline flag the same windows by novelty, with the
 * same top channel and subsystem, and the channel carries at least
 * RV_NOVELTY_SHARE of the live attribution. */
static void test_live_novelty_matches_offline(void **state)
{
	struct rv_table *train = quiet_table(2400, 0, 1), *test = quiet_table(480, 2400, 2);
	struct rv_detect_opts o;
	struct rv_model *m = NULL;
	struct rv_live *l = NULL;
	struct rv_incmerge *mg;
	struct capture cap;
	const float **rows;
	float *rm;
	size_t novel = 0;

	(void)state;
	qt_plant(test, QT_TIMEOUTS, 240, 320, 30.0f);
	rv_detect_opts_default(&o);
	o.ens.iforest.trees = 50;
	assert_int_equal(rv_model_fit(&o, train, &m, NULL, NULL), 0);
	assert_int_equal(m->nov.n, QT_EVENTS);
	mg = run(m, test, &cap, 0, 1, 2);
	rm = row_major(test);
	rows = malloc(m->window * sizeof(*rows));
	assert_non_null(rows);
	assert_int_equal(rv_live_new(m, &l), 0);
	for (size_t i = 0; i < cap.n; i++) {
		const struct seen *s = &cap.w[i];
		struct rv_live_out out;
		double total = 0.0;

		for (size_t k = 0; k < m->window; k++)
			rows[k] = rm + (i * m->step + k) * m->nchan;
		rv_live_score(l, rows, &out);
		assert_true(out.res.novelty == s->res.novelty);
		assert_int_equal(out.res.novel_chan, s->res.novel_chan);
		assert_int_equal(out.res.novel, s->res.novel);
		near(out.res.fused, s->res.fused);
		if (!out.res.novel)
			continue;
		novel++;
		assert_int_equal(out.res.anomaly, 1);
		assert_int_equal(out.flagged, 1);
		assert_int_equal(out.nrank, m->nchan);
		assert_int_equal(out.rank[0], QT_TIMEOUTS);
		assert_int_equal(s->rank[0], QT_TIMEOUTS);
		assert_int_equal(out.subsystem, RV_SUB_NET);
		assert_int_equal(s->subsystem, RV_SUB_NET);
		for (size_t c = 0; c < m->nchan; c++)
			total += out.weight[c];
		assert_true(out.weight[QT_TIMEOUTS] >= RV_NOVELTY_SHARE * total * (1.0 - 1e-9));
	}
	assert_int_equal(novel, 12);
	rv_live_free(l);
	free(rows);
	free(rm);
	run_free(mg, &cap);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
}

/* A model fitted on the quiet host of novelty_testdata.h (its gauges
 * named as catalog channels with `catalog`, catalog_names), a scorer, and
 * the test rows row-major. */
struct quiet_fix {
	struct rv_table *train, *test;
	struct rv_model *m;
	struct rv_live *l;
	float *rm;
};

static void catalog_names(struct rv_table *t);

static void quiet_fit(struct quiet_fix *f, int catalog)
{
	struct rv_detect_opts o;

	f->train = quiet_table(2400, 0, 1);
	f->test = quiet_table(480, 2400, 2);
	f->m = NULL;
	f->l = NULL;
	if (catalog)
		catalog_names(f->train);
	rv_detect_opts_default(&o);
	o.ens.iforest.trees = 50;
	assert_int_equal(rv_model_fit(&o, f->train, &f->m, NULL, NULL), 0);
	f->rm = row_major(f->test);
	assert_int_equal(rv_live_new(f->m, &f->l), 0);
}

static void quiet_free(struct quiet_fix *f)
{
	rv_live_free(f->l);
	free(f->rm);
	rv_model_free(f->m);
	rv_table_free(f->train);
	rv_table_free(f->test);
}

/* The disturbed channels of test_lasting: ten gauges of one kind of
 * novelty_testdata.h, storage.await_ms:devK (3, outside the catalog) unless
 * a test picks another. */
enum { LT_N = 10 };
static size_t lt_kind = 3;
static size_t lt_chan(size_t k)
{
	return lt_kind + 5 * k;
}

/* Copies the window ending at row `end` of rm (row-major, nchan wide) into
 * win (window x nchan, allocated here) and points rows[] at its samples. */
static float *copy_window(const struct rv_model *m, const float *rm, size_t end,
			  const float **rows)
{
	float *win = malloc(m->window * m->nchan * sizeof(*win));

	assert_non_null(win);
	assert_true(m->window <= 64);
	for (size_t i = 0; i < m->window; i++) {
		memcpy(win + i * m->nchan, rm + (end + 1 - m->window + i) * m->nchan,
		       m->nchan * sizeof(*win));
		rows[i] = win + i * m->nchan;
	}
	return win;
}

/*
 * Scores the window ending at row `end` of rm (row-major, nchan wide) with
 * `jump` added to the disturbed channels at the window's newest `moved`
 * samples (a spike when moved is 1, a shift otherwise); with hold > 1 the
 * channels' readings are held that many samples (and the scorer told).
 */
static struct rv_live_out lt_score(struct rv_live *l, const struct rv_model *m, float *rm,
				   size_t end, size_t moved, double jump, uint8_t hold)
{
	static uint8_t holds[QT_CHAN];
	const float *rows[64];
	float *win = copy_window(m, rm, end, rows);
	struct rv_live_out out;

	memset(holds, 1, sizeof(holds));
	for (size_t k = 0; k < LT_N; k++) {
		size_t c = lt_chan(k);

		holds[c] = hold;
		for (size_t i = 0; i < m->window; i++) {
			/* the last sample of its reading, counted from the newest */
			size_t at = m->window - 1 - (m->window - 1 - i) / hold * hold;

			win[i * m->nchan + c] = win[at * m->nchan + c];
		}
		for (size_t i = m->window - moved; i < m->window; i++)
			win[i * m->nchan + c] += (float)jump;
	}
	rv_live_set_hold(l, hold > 1 ? holds : NULL);
	rv_live_score(l, rows, &out);
	free(win);
	return out;
}

/*
 * The lasting rule (live.h): ten channels that jump far in one sample
 * flag the window, but their evidence does not last; a jump held for most
 * of the newest two steps lasts. Channels read once a second (hold) are
 * judged on their readings: two readings, which a short burst between them
 * makes, do not last; three do. An unflagged window lasts; one the
 * novelty flagged lasts when its events came in each of its newest two
 * steps, not when they came at one instant, nor in two steps with a
 * quiet one between or after them.
 */
static void test_lasting(void **state)
{
	struct quiet_fix f;
	struct rv_model *m;
	struct rv_live *l;
	struct rv_live_out out;
	float *rm;
	size_t end = 200, step;

	(void)state;
	quiet_fit(&f, 0);
	m = f.m;
	l = f.l;
	rm = f.rm;
	step = m->step;
	assert_int_equal(m->window, 3 * step);      /* 3 s windows of 1 s steps */

	/* untouched: not flagged, counted as lasting */
	out = lt_score(l, m, rm, end, 0, 0.0, 1);
	assert_int_equal(out.flagged, 0);
	assert_int_equal(out.lasting, 1);
	/* one sample, at the newest and at an older position */
	out = lt_score(l, m, rm, end, 1, 30.0, 1);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.rank[0] % 5, 3);
	assert_int_equal(out.lasting, 0);
	assert_true(out.lasting_share < 1.0 / 3.0);
	/* most of the newest two steps: lasts; just half of them: not yet */
	out = lt_score(l, m, rm, end, step + 1, 5.0, 1);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.lasting, 1);
	assert_true(out.lasting_share > 0.99);
	out = lt_score(l, m, rm, end, step, 5.0, 1);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.lasting, 0);
	/* held readings: two are a burst, three last; unheld, the same samples
	 * would last */
	out = lt_score(l, m, rm, end, 2 * step, 5.0, (uint8_t)step);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.lasting, 0);
	out = lt_score(l, m, rm, end, 2 * step, 5.0, 1);
	assert_int_equal(out.lasting, 1);
	out = lt_score(l, m, rm, end, 3 * step, 5.0, (uint8_t)step);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.lasting, 1);

	/* the novelty: timeouts counted in each of the newest two steps last,
	 * however short the rest; in the two older steps (they stopped) or
	 * in the oldest and the newest (two bursts, a quiet step between)
	 * they do not, nor does a burst of them at one instant */
	for (int at = 0; at < 3; at++) {
		size_t a = at == 0 ? step + step / 2 : step / 2,
		       b = at == 1 ? step + step / 2 : 2 * step + step / 2;

		for (size_t i = 0; i < m->window; i++)
			rm[(end + 1 - m->window + i) * m->nchan + QT_TIMEOUTS] =
				i == a || i == b ? 30.0f : 0.0f;
		out = lt_score(l, m, rm, end, 1, 30.0, 1);
		assert_int_equal(out.res.novel, 1);
		assert_int_equal(out.lasting, at == 0);
	}
	for (size_t i = 0; i < m->window; i++)
		rm[(end + 1 - m->window + i) * m->nchan + QT_TIMEOUTS] =
			i == m->window - step - 1 ? 300.0f : 0.0f;
	out = lt_score(l, m, rm, end, 0, 0.0, 1);
	assert_int_equal(out.res.novel, 1);
	assert_int_equal(out.rank[0], QT_TIMEOUTS);
	assert_int_equal(out.lasting, 0);

	quiet_free(&f);
}

/* Names the gauges of novelty_testdata.h but the packet counters as
 * catalog channels whose materiality floors lie far above their moves (a
 * thousand a second, 1024 pages a second, 50 ms/s): only the packet
 * counters and what a test moves can be material. */
static void catalog_names(struct rv_table *t)
{
	for (size_t c = 0; c < QT_GAUGES; c++) {
		char name[64];

		if (c == 0)   /* 50 ms/s matter: ten spreads */
			snprintf(name, sizeof(name), "storage.discard_time_ms:dev0");
		else if (c % 5 == 0)
			snprintf(name, sizeof(name), "cpu.context_switches:%zu", c / 5);
		else if (c % 5 == 1)
			snprintf(name, sizeof(name), "mem.pgscan_kswapd:%zu", c / 5);
		else if (c % 5 == 3)
			snprintf(name, sizeof(name), "storage.weighted_time_ms:dev%zu", c / 5);
		else if (c % 5 == 4)
			snprintf(name, sizeof(name), "mem.pgfault:%zu", c / 5);
		else
			continue;
		free(t->names[c]);
		t->names[c] = strdup(name);
		assert_non_null(t->names[c]);
	}
}

/*
 * Materiality (live.h): ten packet counters (net.rx_packets:ethK, a
 * thousand packets a second matter) that move by 500 packets a second,
 * near twice their spread, for most of the window flag it and last, but
 * are not material (each moved a part of its floor: out.matter); by 3000
 * they are. Ten device-time channels moving by
 * 30 ms/s, six times their resolution, are not; by 100 ms/s they are. An
 * unflagged window counts as material.
 */
static void test_material(void **state)
{
	struct quiet_fix f;
	struct rv_model *m;
	struct rv_live *l;
	struct rv_live_out out;
	float *rm;
	size_t end = 200;

	(void)state;
	quiet_fit(&f, 1);
	m = f.m;
	l = f.l;
	rm = f.rm;

	out = lt_score(l, m, rm, end, 0, 0.0, 1);
	assert_int_equal(out.flagged, 0);
	assert_int_equal(out.material, 1);
	lt_kind = 2;
	out = lt_score(l, m, rm, end, 2 * m->step, 500.0, 1);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.rank[0] % 5, 2);
	assert_int_equal(out.lasting, 1);
	assert_int_equal(out.material, 0);
	/* each channel's share of its floor: the 500 and the window's own
	 * swing (its cycle), below a thousand, about half on average */
	{
		double sum = 0.0;

		for (size_t k = 0; k < LT_N; k++) {
			size_t c = lt_chan(k);

			assert_true(out.weight[c] > 0.0);
			assert_true(out.matter[c] > 0.0f && out.matter[c] < 1.0f);
			sum += out.matter[c];
		}
		assert_true(sum / LT_N > 0.3 && sum / LT_N < 0.8);
	}
	out = lt_score(l, m, rm, end, 2 * m->step, 3000.0, 1);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.material, 1);
	for (size_t k = 0; k < LT_N; k++)
		assert_true(out.matter[lt_chan(k)] == 1.0f);
	lt_kind = 3;
	out = lt_score(l, m, rm, end, 2 * m->step, 30.0, 1);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.rank[0] % 5, 3);
	assert_int_equal(out.material, 0);
	out = lt_score(l, m, rm, end, 2 * m->step, 100.0, 1);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.material, 1);

	quiet_free(&f);
}

/*
 * Scores the window ending at row `end` of rm with the scan rates of
 * `nscan` memory channels (mem.pgscan_kswapd:K, 1024 pages a second
 * matter) up by `scan` and the discard time of dev0 (50 ms/s matter) up
 * by `discard` over the newest two steps and one sample.
 */
static struct rv_live_out scan_and_discard(struct rv_live *l, const struct rv_model *m,
					   const float *rm, size_t end, size_t nscan, double scan,
					   double discard)
{
	const float *rows[64];
	float *win = copy_window(m, rm, end, rows);
	struct rv_live_out out;

	assert_true(m->window > 2 * m->step);
	for (size_t i = m->window - 2 * m->step - 1; i < m->window; i++) {
		for (size_t k = 0; k < nscan; k++)
			win[i * m->nchan + 1 + 5 * k] += (float)scan;
		win[i * m->nchan] += (float)discard;
	}
	rv_live_set_hold(l, NULL);
	rv_live_score(l, rows, &out);
	free(win);
	return out;
}

/*
 * Materiality is a share of the heavier half, of its 8 most responsible
 * channels at most (live.h): thirty scan rates
 * up by 150 pages a second (each a fraction of its floor) carry most of
 * the score; dev0's discard time up by 250 ms/s, five times its floor,
 * ranks within the heavier half but carries a small part of it: not
 * material, as the few loopback packets a second a CPU hog moves between
 * softirqs beside a discard of a second. The discard alone is material,
 * and so are the scan rates at their floor.
 */
static void test_material_share(void **state)
{
	struct quiet_fix f;
	struct rv_model *m;
	struct rv_live *l;
	struct rv_live_out out;
	float *rm;
	double heavy = 0.0, total = 0.0, moved = 0.0;
	int discard_heavy = 0;

	(void)state;
	quiet_fit(&f, 1);
	m = f.m;
	l = f.l;
	rm = f.rm;

	out = scan_and_discard(l, m, rm, 200, 30, 150.0, 250.0);
	assert_int_equal(out.flagged, 1);
	assert_true(out.matter[0] == 1.0f);
	for (size_t c = 0; c < m->nchan; c++)
		total += out.weight[c];
	for (size_t k = 0; k < 8 && heavy < 0.5 * total; k++) {   /* live.c */
		size_t c = out.rank[k];

		heavy += out.weight[c];
		moved += out.weight[c] * out.matter[c];
		if (c == 0)
			discard_heavy = 1;
		else
			assert_true(out.matter[c] < 0.5f);
	}
	assert_int_equal(discard_heavy, 1);
	assert_true(moved < heavy / 3.0);
	assert_int_equal(out.material, 0);
	out = scan_and_discard(l, m, rm, 200, 0, 0.0, 250.0);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.material, 1);
	out = scan_and_discard(l, m, rm, 200, 30, 1200.0, 250.0);
	assert_int_equal(out.flagged, 1);
	assert_int_equal(out.material, 1);

	quiet_free(&f);
}

/*
 * Scores the window ending at row `end` of rm with six device-time
 * channels (storage.weighted_time_ms:devK) spiked by 5000 ms/s at the
 * newest sample, a start-up burst that outweighs the rest, and the ten
 * packet counters (net.rx_packets:ethK) moved by `shift` over the newest
 * two steps and one sample.
 */
static struct rv_live_out burst_and_shift(struct rv_live *l, const struct rv_model *m,
					  const float *rm, size_t end, double shift)
{
	const float *rows[64];
	float *win = copy_window(m, rm, end, rows);
	struct rv_live_out out;

	assert_true(m->window > 2 * m->step);
	for (size_t k = 0; k < 6; k++)
		win[(m->window - 1) * m->nchan + 3 + 5 * k] += 5000.0f;
	for (size_t k = 0; k < LT_N; k++)
		for (size_t i = m->window - 2 * m->step - 1; i < m->window; i++)
			win[i * m->nchan + 2 + 5 * k] += (float)shift;
	rv_live_set_hold(l, NULL);
	rv_live_score(l, rows, &out);
	free(win);
	return out;
}

/*
 * A strong window lasts when one of its top channels moved by its
 * materiality floor in each of its newest two steps, though a one-sample
 * burst holds most of its attribution: packet counters 1500 a second up
 * for two steps beside the burst last; 500 a second up (below the floor of
 * a thousand) do not, and the burst alone does not.
 */
static void test_material_lasts(void **state)
{
	struct quiet_fix f;
	struct rv_model *m;
	struct rv_live *l;
	struct rv_live_out out;
	float *rm;

	(void)state;
	quiet_fit(&f, 1);
	m = f.m;
	l = f.l;
	rm = f.rm;

	out = burst_and_shift(l, m, rm, 200, 0.0);
	assert_int_equal(out.flagged, 1);
	assert_true(out.res.fused > 2.0);
	assert_int_equal(out.rank[0] % 5, 3);
	assert_int_equal(out.lasting, 0);
	out = burst_and_shift(l, m, rm, 200, 500.0);
	assert_int_equal(out.rank[0] % 5, 3);
	assert_true(out.lasting_share < 1.0 / 3.0);
	assert_int_equal(out.lasting, 0);
	out = burst_and_shift(l, m, rm, 200, 1500.0);
	assert_int_equal(out.rank[0] % 5, 3);
	assert_true(out.lasting_share < 1.0 / 3.0);
	assert_int_equal(out.lasting, 1);

	quiet_free(&f);
}

/*
 * Scores the window ending at row `end` of rm with the six device-time
 * channels spiked by 5000 ms/s at sample `spike` (counted from the oldest)
 * and the ten packet counters up 3000 a second from sample `from` on;
 * with `hold`, the packet counters read once per step, their newest
 * reading at sample `read` (a step old at most: they hold the value of
 * the reading before it from there back).
 */
static struct rv_live_out persist_score(struct rv_live *l, const struct rv_model *m,
					const float *rm, size_t end, size_t spike, size_t from,
					int hold, size_t read)
{
	static uint8_t holds[QT_CHAN];
	const float *rows[64];
	float *win = copy_window(m, rm, end, rows);
	struct rv_live_out out;

	memset(holds, 1, sizeof(holds));
	for (size_t k = 0; k < 6; k++)
		win[spike * m->nchan + 3 + 5 * k] += 5000.0f;
	for (size_t k = 0; k < LT_N; k++) {
		size_t c = 2 + 5 * k;

		for (size_t i = from; i < m->window; i++)
			win[i * m->nchan + c] += 3000.0f;
		if (!hold)
			continue;
		holds[c] = (uint8_t)m->step;
		/* the readings (read, a step before it, ...) keep their value;
		 * samples before the oldest one keep theirs */
		for (size_t i = 0; i < m->window; i++) {
			size_t back = i >= read ? 0 : (read - i + m->step - 1) / m->step * m->step;

			if (back <= read)
				win[i * m->nchan + c] = win[(read - back) * m->nchan + c];
		}
	}
	rv_live_set_hold(l, hold ? holds : NULL);
	rv_live_score(l, rows, &out);
	free(win);
	return out;
}

/*
 * Persistence (live.h, out->persist): a one-sample burst of the device-time
 * channels in the window's middle step has stopped, packet counters up
 * since then still move; a burst at the newest sample still moves. Held
 * readings persist when the newest one came in the newest step and moved,
 * not when the value held there is an older reading's. An unflagged window
 * has none.
 */
static void test_persist(void **state)
{
	struct quiet_fix f;
	struct rv_model *m;
	struct rv_live *l;
	struct rv_live_out out;
	size_t w, step;

	(void)state;
	quiet_fit(&f, 1);
	m = f.m;
	l = f.l;
	w = m->window;
	step = m->step;
	assert_int_equal(w, 3 * step);

	out = lt_score(l, m, f.rm, 200, 0, 0.0, 1);
	assert_int_equal(out.flagged, 0);
	for (size_t c = 0; c < m->nchan; c++)
		assert_int_equal(out.persist[c], 0);

	out = persist_score(l, m, f.rm, 200, step + 1, step + 1, 0, 0);
	assert_int_equal(out.flagged, 1);
	for (size_t k = 0; k < 6; k++) {
		assert_true(out.weight[3 + 5 * k] > 0.0);
		assert_int_equal(out.persist[3 + 5 * k], 0);
	}
	for (size_t k = 0; k < LT_N; k++)
		assert_int_equal(out.persist[2 + 5 * k], 1);

	out = persist_score(l, m, f.rm, 200, w - 1, step + 1, 0, 0);
	for (size_t k = 0; k < 6; k++)
		assert_int_equal(out.persist[3 + 5 * k], 1);

	/* held: the reading of the newest step moved; then one a step older
	 * (the newest step holds it) */
	out = persist_score(l, m, f.rm, 200, step + 1, step + 1, 1, w - 2);
	assert_int_equal(out.flagged, 1);
	for (size_t k = 0; k < LT_N; k++)
		assert_int_equal(out.persist[2 + 5 * k], 1);
	out = persist_score(l, m, f.rm, 200, step + 1, step + 1, 1, w - step - 1);
	assert_int_equal(out.flagged, 1);
	for (size_t k = 0, weighed = 0; k < LT_N; k++) {
		if (out.weight[2 + 5 * k] > 0.0) {
			assert_int_equal(out.persist[2 + 5 * k], 0);
			weighed++;
		}
		if (k == LT_N - 1)
			assert_true(weighed > 0);
	}

	quiet_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_matches_offline),
		cmocka_unit_test(test_live_novelty_matches_offline),
		cmocka_unit_test(test_lasting),
		cmocka_unit_test(test_material),
		cmocka_unit_test(test_material_share),
		cmocka_unit_test(test_material_lasts),
		cmocka_unit_test(test_persist),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
