/*
 * live_test.c - the single-window scorer gives what the offline run gives
 * for the same rows: detector scores, flags, the novelty and the channel
 * ranking, window for window over the synthetic job's test half, and over
 * a quiet host of 300 channels where one event channel bursts (the novelty
 * statistic, novelty.h).
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
		for (int d = 0; d < RV_DET_COUNT; d++)
			near(out.res.score[d], s->res.score[d]);
		near(out.res.fused, s->res.fused);
		/* the novelty is the same sum of the same floats */
		assert_true(out.res.novelty == s->res.novelty);
		assert_int_equal(out.res.novel_chan, s->res.novel_chan);
		assert_int_equal(out.res.novel, s->res.novel);
		/* a flag may only differ where the score sits on the threshold */
		for (int d = 0; d < RV_DET_COUNT; d++)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_matches_offline),
		cmocka_unit_test(test_live_novelty_matches_offline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
