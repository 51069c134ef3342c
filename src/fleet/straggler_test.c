/*
 * straggler_test.c - the straggler statistics on crafted data: one window
 * computed by hand (medians of odd and even counts, MAD, floors, clipping,
 * no verdict below 3 values); a node shifted on a few channels found with
 * the right stretch and signals; one-window spikes and short bursts not
 * flagged; noise on every node (shared moves, correlated channels, one
 * noisier node) flags nothing; identical nodes (MAD 0) calm but for a
 * really different one; missing values and nodes; groups of 3 and of 2000;
 * constant channels and per-channel floors; the same number under two
 * names counted once; several stretches, open and closed; the limits on
 * stretches and tracked nodes; two objects side by side.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/rng.h"
#include "fleet/straggler.h"

enum { MAXF = 16 };

/* A group: each channel has a level; every window each node gets
 * level x (1 + shared move + own noise), sd relative to the level. */
struct sim {
	size_t n, c;
	double *x, *level;
	double sd, shared;
	struct rv_rng rng;
};

static double gauss(struct rv_rng *r)
{
	double u = rv_rng_uniform(r), v = rv_rng_uniform(r);

	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

static void sim_init(struct sim *s, size_t n, size_t c, double sd, uint64_t seed)
{
	*s = (struct sim){ .n = n, .c = c, .sd = sd };
	s->x = malloc(n * c * sizeof(*s->x));
	s->level = malloc(c * sizeof(*s->level));
	assert_non_null(s->x);
	assert_non_null(s->level);
	rv_rng_seed(&s->rng, seed);
	for (size_t ch = 0; ch < c; ch++)
		s->level[ch] = 10.0 + (double)((ch * 37) % 1000);
}

static void sim_window(struct sim *s)
{
	for (size_t ch = 0; ch < s->c; ch++) {
		double move = s->shared * gauss(&s->rng);

		for (size_t i = 0; i < s->n; i++)
			s->x[i * s->c + ch] = s->level[ch] *
					      (1.0 + move + s->sd * gauss(&s->rng));
	}
}

/* Multiplies node's channels chans[0..k) by f in the current window. */
static void shift(struct sim *s, size_t node, const size_t *chans, size_t k, double f)
{
	for (size_t j = 0; j < k; j++)
		s->x[node * s->c + chans[j]] *= f;
}

static void sim_fini(struct sim *s)
{
	free(s->x);
	free(s->level);
}

static struct rv_strag *new_strag(size_t n, size_t c, const struct rv_strag_opts *o)
{
	struct rv_strag *s = NULL;
	struct rv_err err = { 0 };

	assert_int_equal(rv_strag_new(n, c, o, &s, &err), 0);
	assert_non_null(s);
	return s;
}

static void push(struct rv_strag *s, size_t w, const double *x)
{
	struct rv_err err = { 0 };

	assert_int_equal(rv_strag_push(s, 1000.0 + 10.0 * (double)w, x, &err), 0);
}

static size_t findings(const struct rv_strag *s, struct rv_strag_finding *f)
{
	size_t n = rv_strag_findings(s, f, MAXF);

	assert_true(n <= MAXF);
	return n;
}

static void test_options_and_errors(void **state)
{
	struct rv_strag_opts o;
	struct rv_strag *s = NULL;
	struct rv_err err = { 0 };
	double x[3] = { 1, 2, 3 };

	(void)state;
	rv_strag_opts_default(&o);
	assert_true(o.zcap == RV_STRAG_DEF_ZCAP && o.threshold == RV_STRAG_DEF_THRESHOLD);
	assert_int_equal(o.persist, RV_STRAG_DEF_PERSIST);
	assert_int_equal(o.topk, RV_STRAG_DEF_TOPK);
	assert_int_equal(rv_strag_new(2, 5, NULL, &s, &err), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err.msg, "at least 3 nodes"));
	rv_err_clear(&err);
	assert_int_equal(rv_strag_new(1 << 15, 1 << 15, NULL, &s, &err), -E2BIG);
	rv_err_clear(&err);
	o.nsignals = RV_STRAG_MAX_SIGNALS + 1;
	assert_int_equal(rv_strag_new(3, 1, &o, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "nsignals"));
	rv_err_clear(&err);
	rv_strag_opts_default(&o);
	o.rel_floor = NAN;
	assert_int_equal(rv_strag_new(3, 1, &o, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rel_floor"));
	s = new_strag(3, 1, NULL);
	assert_true(isnan(rv_strag_score(s, 0)) && isnan(rv_strag_window_score(s, 0)));
	assert_true(isnan(rv_strag_score(s, 3)));
	assert_int_equal(rv_strag_push(s, 5.0, x, &err), 0);
	rv_err_clear(&err);
	assert_int_equal(rv_strag_push(s, 5.0, x, &err), -EINVAL);   /* not later */
	assert_non_null(strstr(err.msg, "not after"));
	assert_int_equal(rv_strag_push(s, NAN, x, NULL), -EINVAL);
	rv_err_clear(&err);
	assert_int_equal(rv_strag_set_floors(s, x, &err), -EINVAL);  /* after a push */
	assert_int_equal(rv_strag_findings(s, NULL, 0), 0);
	rv_strag_free(s);
	rv_strag_free(NULL);
}

/* 5 nodes x 4 channels by hand. A MAD of 1 is a standard deviation of
 * 1.4826 times the small-sample factor of its count. */
#define SD5 (1.4826 * 1.206)
#define SD4 (1.4826 * 1.363)
static void test_one_window_by_hand(void **state)
{
	const double x[5 * 4] = {
		/* ch0  ch1   ch2  ch3 */
		1,    10,   1,   NAN,
		2,    10,   2,   7,
		3,    10,   3,   NAN,
		4,    NAN,  10,  INFINITY,
		100,  20,   NAN, 8,
	};
	double med[4], sp[4], score[5], z[20];
	struct rv_err err = { 0 };

	(void)state;
	assert_int_equal(rv_strag_window(x, 5, 4, NULL, NULL, med, sp, score, z, &err), 0);
	/* ch0: median 3, MAD 1 */
	assert_true(med[0] == 3.0 && fabs(sp[0] - SD5) < 1e-12);
	assert_true(fabs(z[0 * 4 + 0] - (-2.0 / SD5)) < 1e-12);
	assert_true(z[4 * 4 + 0] == 10.0);                /* 65 clipped */
	/* ch1: even count, median (10 + 10) / 2, MAD 0: floors 5 % of 10 and 0.5 */
	assert_true(med[1] == 10.0 && sp[1] == 0.5);
	assert_true(z[0 * 4 + 1] == 0.0 && z[4 * 4 + 1] == 10.0);
	assert_true(isnan(z[3 * 4 + 1]));                 /* missing */
	/* ch2: 1, 2, 3, 10: median 2.5, deviations 1.5 .5 .5 7.5: MAD 1 */
	assert_true(med[2] == 2.5 && fabs(sp[2] - SD4) < 1e-12);
	/* ch3: two finite values: no verdict */
	assert_true(isnan(med[3]) && isnan(sp[3]) && isnan(z[1 * 4 + 3]));
	/* scores: the top |z| over min(topk, 4) = 4 slots */
	assert_true(fabs(score[4] - (10.0 + 10.0) / 4.0) < 1e-12);
	assert_true(fabs(score[0] - (2.0 / SD5 + 1.5 / SD4) / 4.0) < 1e-12);
	assert_true(fabs(score[3] - (1.0 / SD5 + 7.5 / SD4) / 4.0) < 1e-12);
	/* without z, and a bad size */
	assert_int_equal(rv_strag_window(x, 5, 4, NULL, NULL, med, sp, score, NULL, &err), 0);
	assert_int_equal(rv_strag_window(x, 2, 4, NULL, NULL, med, sp, score, NULL, &err),
			 -EINVAL);
}

/* Node 7 of 20 runs 80 % high on 5 of 100 channels in windows 30..69. */
static void test_shift_found(void **state)
{
	static const size_t chans[] = { 3, 17, 42, 64, 88 };
	struct rv_strag_finding f[MAXF];
	struct rv_strag_stats st;
	struct sim sim;
	struct rv_strag *s = new_strag(20, 100, NULL);

	(void)state;
	sim_init(&sim, 20, 100, 0.1, 1);
	for (size_t w = 0; w < 100; w++) {
		sim_window(&sim);
		if (w >= 30 && w < 70)
			shift(&sim, 7, chans, 5, 1.8);
		push(s, w, sim.x);
		if (w == 50)
			assert_true(rv_strag_score(s, 7) > RV_STRAG_DEF_THRESHOLD &&
				    rv_strag_window_score(s, 7) > RV_STRAG_DEF_THRESHOLD);
	}
	assert_int_equal(findings(s, f), 1);
	assert_int_equal(f[0].node, 7);
	assert_true(f[0].first >= 30 && f[0].first <= 31);
	assert_true(f[0].last >= 69 && f[0].last <= 70);
	assert_true(f[0].t_first == 1000.0 + 10.0 * (double)f[0].first);
	assert_false(f[0].open);
	assert_false(f[0].signals_lost);
	assert_true(f[0].peak > RV_STRAG_DEF_THRESHOLD && f[0].peak_window >= 30 &&
		    f[0].peak_window <= 70);
	assert_int_equal(f[0].nsignals, RV_STRAG_DEF_NSIGNALS);
	for (size_t j = 0; j < f[0].nsignals; j++) {
		const struct rv_strag_signal *g = &f[0].sig[j];
		size_t k = 0;

		while (k < 5 && chans[k] != g->chan)
			k++;
		assert_true(k < 5);                          /* one of the shifted */
		assert_true(fabs(g->value / sim.level[g->chan] - 1.8) < 0.1);
		assert_true(fabs(g->median / sim.level[g->chan] - 1.0) < 0.05);
		assert_true(g->z > 5.0 && g->z <= 10.0);
		assert_true(g->nwin >= 38 && g->nwin <= 41);
		if (j > 0)
			assert_true(fabs(g->z) <= fabs(f[0].sig[j - 1].z) + 1e-9);
	}
	for (size_t i = 0; i < 20; i++)
		assert_int_equal(rv_strag_flagged(s, i), i == 7);
	rv_strag_stats(s, &st);
	assert_int_equal(st.windows, 100);
	assert_int_equal(st.flagged, 1);
	assert_int_equal(st.stretches, 1);
	assert_int_equal(st.stretches_lost + st.signals_lost, 0);
	rv_strag_free(s);
	sim_fini(&sim);
}

/* Shifts node on channels [0, k) by f in windows [a, b) of w windows;
 * returns the findings. */
static size_t run_burst(size_t n, size_t c, size_t w, size_t node, size_t k,
			double f, size_t a, size_t b, uint64_t seed,
			struct rv_strag_finding *out, double *wscore_at_a)
{
	size_t chans[64], nf;
	struct sim sim;
	struct rv_strag *s = new_strag(n, c, NULL);

	for (size_t j = 0; j < k; j++)
		chans[j] = j;
	sim_init(&sim, n, c, 0.1, seed);
	for (size_t i = 0; i < w; i++) {
		sim_window(&sim);
		if (i >= a && i < b)
			shift(&sim, node, chans, k, f);
		push(s, i, sim.x);
		if (i == a && wscore_at_a)
			*wscore_at_a = rv_strag_window_score(s, node);
	}
	nf = findings(s, out);
	rv_strag_free(s);
	sim_fini(&sim);
	return nf;
}

static void test_spikes_and_short_bursts(void **state)
{
	struct rv_strag_finding f[MAXF];
	double ws = 0;

	(void)state;
	/* one window, every channel 5 x: seen, not a straggler */
	assert_int_equal(run_burst(10, 50, 60, 3, 50, 5.0, 20, 21, 2, f, &ws), 0);
	assert_true(ws >= RV_STRAG_DEF_ZCAP - 1e-9);
	/* bursts shorter than persist windows */
	assert_int_equal(run_burst(10, 50, 60, 3, 50, 5.0, 20, 23, 3, f, &ws), 0);
	assert_int_equal(run_burst(10, 50, 60, 3, 50, 5.0, 20, 20 + RV_STRAG_DEF_PERSIST - 2,
				   4, f, NULL), 0);
	/* a little longer than persist: found */
	assert_int_equal(run_burst(10, 50, 60, 3, 50, 5.0, 20, 20 + RV_STRAG_DEF_PERSIST + 2,
				   4, f, NULL), 1);
	assert_int_equal(f[0].node, 3);
	assert_int_equal(f[0].first, 20);
}

/* Noise on every node: moves shared by the group, a factor per node
 * shared by a block of channels (correlated channels), one node twice as
 * noisy. Nothing is flagged; scores stay well below the threshold. */
static void test_noise_flags_nothing(void **state)
{
	struct sim sim;
	struct rv_strag *s = new_strag(50, 400, NULL);
	double top = 0;

	(void)state;
	sim_init(&sim, 50, 400, 0.1, 5);
	sim.shared = 0.2;
	for (size_t w = 0; w < 200; w++) {
		sim_window(&sim);
		for (size_t i = 0; i < 50; i++) {
			double node_f = 1.0 + 0.1 * gauss(&sim.rng);

			for (size_t ch = 0; ch < 40; ch++)
				sim.x[i * 400 + ch] *= node_f;
			if (i == 9)
				for (size_t ch = 0; ch < 400; ch++)
					sim.x[i * 400 + ch] *= 1.0 + 0.17 * gauss(&sim.rng);
		}
		push(s, w, sim.x);
		for (size_t i = 0; w >= 20 && i < 50; i++)
			top = fmax(top, rv_strag_score(s, i));
	}
	assert_int_equal(rv_strag_findings(s, NULL, 0), 0);
	assert_true(top < RV_STRAG_DEF_THRESHOLD * 0.75);
	rv_strag_free(s);
	sim_fini(&sim);
}

/* Every node reports the same numbers (MAD 0 everywhere): calm, also for
 * a node a thousandth off; a node at twice the level on 6 channels is a
 * straggler. Some channels are constant 0. */
static void test_identical_nodes(void **state)
{
	struct rv_strag_finding f[MAXF];
	struct sim sim;
	struct rv_strag *s = new_strag(10, 50, NULL);

	(void)state;
	sim_init(&sim, 10, 50, 0.0, 6);
	sim.shared = 0.3;
	for (size_t w = 0; w < 60; w++) {
		sim_window(&sim);
		for (size_t i = 0; i < 10; i++)
			for (size_t ch = 40; ch < 50; ch++)
				sim.x[i * 50 + ch] = 0;
		for (size_t ch = 0; ch < 50; ch++)
			sim.x[5 * 50 + ch] *= 1.001;
		if (w >= 10 && w < 40)
			for (size_t ch = 0; ch < 6; ch++)
				sim.x[4 * 50 + ch] *= 2.0;
		push(s, w, sim.x);
		if (w < 10)
			for (size_t i = 0; i < 10; i++)
				assert_true(rv_strag_score(s, i) < 0.1);
	}
	assert_int_equal(findings(s, f), 1);
	assert_int_equal(f[0].node, 4);
	assert_int_equal(f[0].first, 10);
	assert_int_equal(f[0].last, 39);
	assert_true(f[0].sig[0].chan < 6 && f[0].sig[0].z == RV_STRAG_DEF_ZCAP);
	assert_true(rv_strag_spread(s)[45] > 0 && rv_strag_median(s)[45] == 0);
	rv_strag_free(s);
	sim_fini(&sim);
}

/* A fifth of the values missing, a channel too sparse for a verdict, a
 * node silent for a while; node 2 still found, node 11 not. */
static void test_missing_values(void **state)
{
	static const size_t chans[] = { 10, 11, 12, 13, 14, 15, 16, 17 };
	struct rv_strag_finding f[MAXF];
	struct sim sim;
	struct rv_strag *s = new_strag(12, 60, NULL);

	(void)state;
	sim_init(&sim, 12, 60, 0.1, 7);
	for (size_t w = 0; w < 100; w++) {
		sim_window(&sim);
		for (size_t k = 0; k < 12 * 60; k++)
			if (rv_rng_uniform(&sim.rng) < 0.2)
				sim.x[k] = NAN;
		for (size_t i = 2; i < 12; i++)
			sim.x[i * 60 + 0] = NAN;          /* channel 0: 2 values */
		for (size_t ch = 0; w >= 10 && w < 20 && ch < 60; ch++)
			sim.x[11 * 60 + ch] = NAN;
		if (w >= 30 && w < 80)
			shift(&sim, 2, chans, 8, 2.0);
		push(s, w, sim.x);
		assert_true(isnan(rv_strag_median(s)[0]) && isnan(rv_strag_spread(s)[0]));
		assert_true(isnan(rv_strag_zof(s, 0, 1.0)));
		if (w >= 10 && w < 20)
			assert_true(isnan(rv_strag_window_score(s, 11)) &&
				    rv_strag_score(s, 11) < RV_STRAG_DEF_THRESHOLD);
	}
	assert_int_equal(findings(s, f), 1);
	assert_int_equal(f[0].node, 2);
	assert_true(f[0].first >= 30 && f[0].first <= 32 && f[0].last >= 78 && f[0].last <= 80);
	for (size_t j = 0; j < f[0].nsignals; j++) {
		assert_true(f[0].sig[j].chan >= 10 && f[0].sig[j].chan <= 17);
		assert_true(f[0].sig[j].nwin >= 32 && f[0].sig[j].nwin <= 45);
	}
	rv_strag_free(s);
	sim_fini(&sim);
}

static void test_three_nodes(void **state)
{
	struct rv_strag_finding f[MAXF];
	double ws;

	(void)state;
	/* noise only: the MAD of 3 values is now and then nearly 0 */
	assert_int_equal(run_burst(3, 200, 300, 0, 0, 1.0, 0, 0, 8, f, NULL), 0);
	/* the spread of 3 comes from the two others alone: a shift must be
	 * larger than in a big group to stand out as clearly */
	assert_int_equal(run_burst(3, 200, 300, 1, 8, 3.0, 100, 200, 9, f, &ws), 1);
	assert_int_equal(f[0].node, 1);
	assert_true(f[0].first >= 100 && f[0].first <= 102 && f[0].last >= 199 &&
		    f[0].last <= 201);
}

static void test_two_thousand_nodes(void **state)
{
	struct rv_strag_finding f[MAXF];

	(void)state;
	assert_int_equal(run_burst(2000, 40, 30, 1234, 6, 1.8, 5, 30, 10, f, NULL), 1);
	assert_int_equal(f[0].node, 1234);
	assert_int_equal(f[0].first, 5);
	assert_true(f[0].open && f[0].last == 29);
}

/* Channels constant at 0 on every node: a node at 0.1 is within the
 * default absolute floor (0.5); with a floor of 0 for those channels it
 * is at the cap. The spread is never 0. */
static void test_constant_channels_and_floors(void **state)
{
	double floors[20];
	struct sim sim;
	struct rv_strag *s = new_strag(8, 20, NULL), *t = new_strag(8, 20, NULL);
	struct rv_err err = { 0 };

	(void)state;
	for (size_t ch = 0; ch < 20; ch++)
		floors[ch] = ch < 10 ? 0.0 : NAN;
	floors[3] = -1;
	assert_int_equal(rv_strag_set_floors(t, floors, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "channel 3"));
	floors[3] = 0.0;
	assert_int_equal(rv_strag_set_floors(t, floors, &err), 0);
	sim_init(&sim, 8, 20, 0.1, 11);
	for (size_t w = 0; w < 30; w++) {
		sim_window(&sim);
		for (size_t i = 0; i < 8; i++)
			for (size_t ch = 0; ch < 10; ch++)
				sim.x[i * 20 + ch] = 0;
		push(s, w, sim.x);
		push(t, w, sim.x);
	}
	assert_true(fabs(rv_strag_zof(s, 0, 0.1) - 0.2) < 1e-12);
	assert_true(rv_strag_zof(t, 0, 0.1) == RV_STRAG_DEF_ZCAP);
	assert_true(rv_strag_zof(t, 0, -0.1) == -RV_STRAG_DEF_ZCAP);
	assert_true(rv_strag_zof(t, 0, 0.0) == 0.0);
	assert_true(rv_strag_spread(t)[0] > 0 && rv_strag_spread(s)[0] == 0.5);
	assert_true(isnan(rv_strag_zof(t, 20, 1.0)) && isnan(rv_strag_zof(t, 1, NAN)));
	/* the floor of a channel with one set stays NaN-default elsewhere */
	assert_true(rv_strag_spread(t)[15] == rv_strag_spread(s)[15]);
	rv_strag_free(s);
	rv_strag_free(t);
	sim_fini(&sim);
}

/* Node 2 is far off on channel 5 only, and channels 6..12 carry the same
 * numbers as channel 5 (one quantity under eight names): one channel, no
 * straggler. The same node off on eight channels of their own is one. */
static void test_aliases_count_once(void **state)
{
	static const size_t eight[] = { 5, 6, 7, 8, 9, 10, 11, 12 };
	struct rv_strag_finding f[MAXF];
	struct sim sim;
	struct rv_strag *s = new_strag(10, 40, NULL), *t = new_strag(10, 40, NULL);

	(void)state;
	sim_init(&sim, 10, 40, 0.1, 12);
	for (size_t w = 0; w < 60; w++) {
		sim_window(&sim);
		shift(&sim, 2, eight, 8, 3.0);
		push(t, w, sim.x);
		for (size_t i = 0; i < 10; i++)
			for (size_t ch = 6; ch <= 12; ch++)
				sim.x[i * 40 + ch] = sim.x[i * 40 + 5];
		push(s, w, sim.x);
	}
	assert_int_equal(rv_strag_findings(s, NULL, 0), 0);
	assert_true(rv_strag_score(s, 2) < RV_STRAG_DEF_THRESHOLD / 2);
	assert_int_equal(findings(t, f), 1);
	assert_int_equal(f[0].node, 2);
	rv_strag_free(s);
	rv_strag_free(t);
	sim_fini(&sim);
}

/* A straggler's signals: a channel and its copy appear once. */
static void test_alias_signals(void **state)
{
	static const size_t six[] = { 20, 30, 31, 32, 33, 34 };
	struct rv_strag_finding f[MAXF];
	struct sim sim;
	struct rv_strag *s = new_strag(10, 40, NULL);

	(void)state;
	sim_init(&sim, 10, 40, 0.1, 13);
	for (size_t w = 0; w < 40; w++) {
		sim_window(&sim);
		shift(&sim, 6, six, 6, 3.0);
		for (size_t i = 0; i < 10; i++)
			sim.x[i * 40 + 21] = sim.x[i * 40 + 20];
		push(s, w, sim.x);
	}
	assert_int_equal(findings(s, f), 1);
	assert_int_equal(f[0].nsignals, RV_STRAG_DEF_NSIGNALS);
	for (size_t j = 0; j < f[0].nsignals; j++)
		assert_int_not_equal(f[0].sig[j].chan, 21);
	rv_strag_free(s);
	sim_fini(&sim);
}

/* Two stretches of node 1 (the second still open), one of node 4;
 * then the limits: one stretch held, one node tracked. */
static void run_two_stretches(const struct rv_strag_opts *o, struct rv_strag_finding *f,
			      size_t *nf, struct rv_strag_stats *st)
{
	static const size_t chans[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct sim sim;
	struct rv_strag *s = new_strag(12, 30, o);

	sim_init(&sim, 12, 30, 0.1, 14);
	for (size_t w = 0; w < 100; w++) {
		sim_window(&sim);
		if ((w >= 10 && w < 30) || w >= 60)
			shift(&sim, 1, chans, 8, 2.5);
		if (w >= 15 && w < 40)
			shift(&sim, 4, chans, 8, 0.3);
		push(s, w, sim.x);
	}
	*nf = findings(s, f);
	rv_strag_stats(s, st);
	rv_strag_free(s);
	sim_fini(&sim);
}

static void test_stretches_and_limits(void **state)
{
	struct rv_strag_finding f[MAXF];
	struct rv_strag_stats st;
	struct rv_strag_opts o;
	size_t nf;

	(void)state;
	run_two_stretches(NULL, f, &nf, &st);
	assert_int_equal(nf, 3);
	assert_true(f[0].node == 1 && f[0].first == 10 && f[0].last >= 29 && f[0].last <= 30 &&
		    !f[0].open);
	assert_true(f[1].node == 1 && f[1].first == 60 && f[1].last == 99 && f[1].open);
	assert_true(f[2].node == 4 && f[2].first >= 15 && f[2].first <= 16 && !f[2].open);
	assert_true(f[2].sig[0].z < 0 && f[2].sig[0].chan < 8);   /* low, not high */
	assert_true(st.flagged == 2 && st.stretches == 3 && st.stretches_lost == 0);
	/* the count comes back whatever max is */
	rv_strag_opts_default(&o);
	o.max_stretches = 1;
	o.max_active = 1;
	run_two_stretches(&o, f, &nf, &st);
	/* held: node 1's first (closed) and the open one; node 4's was lost */
	assert_int_equal(nf, 2);
	assert_true(f[0].node == 1 && f[1].node == 1 && f[1].open);
	assert_int_equal(st.stretches, 3);
	assert_int_equal(st.stretches_lost, 1);
	/* node 4 rose while node 1 held the only slot */
	assert_int_equal(st.signals_lost, 1);
}

/* Two objects used in turn give what each gives alone. */
static void test_two_objects(void **state)
{
	struct rv_strag_finding f[MAXF], g[MAXF];
	struct sim a, b;
	struct rv_strag *s = new_strag(10, 30, NULL), *t = new_strag(10, 30, NULL);
	size_t nf, chans[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

	(void)state;
	nf = run_burst(10, 30, 50, 3, 8, 2.0, 10, 40, 15, f, NULL);
	sim_init(&a, 10, 30, 0.1, 15);
	sim_init(&b, 10, 30, 0.1, 16);
	for (size_t w = 0; w < 50; w++) {
		sim_window(&a);
		sim_window(&b);
		if (w >= 10 && w < 40)
			shift(&a, 3, chans, 8, 2.0);
		push(s, w, a.x);
		push(t, w, b.x);
	}
	assert_int_equal(nf, 1);
	assert_int_equal(findings(s, g), 1);
	assert_true(f[0].node == g[0].node && f[0].first == g[0].first &&
		    f[0].last == g[0].last && f[0].peak == g[0].peak &&
		    f[0].nsignals == g[0].nsignals);
	for (size_t j = 0; j < f[0].nsignals; j++)
		assert_true(f[0].sig[j].chan == g[0].sig[j].chan &&
			    f[0].sig[j].z == g[0].sig[j].z);
	assert_int_equal(rv_strag_findings(t, NULL, 0), 0);
	rv_strag_free(s);
	rv_strag_free(t);
	sim_fini(&a);
	sim_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_and_errors),
		cmocka_unit_test(test_one_window_by_hand),
		cmocka_unit_test(test_shift_found),
		cmocka_unit_test(test_spikes_and_short_bursts),
		cmocka_unit_test(test_noise_flags_nothing),
		cmocka_unit_test(test_identical_nodes),
		cmocka_unit_test(test_missing_values),
		cmocka_unit_test(test_three_nodes),
		cmocka_unit_test(test_two_thousand_nodes),
		cmocka_unit_test(test_constant_channels_and_floors),
		cmocka_unit_test(test_aliases_count_once),
		cmocka_unit_test(test_alias_signals),
		cmocka_unit_test(test_stretches_and_limits),
		cmocka_unit_test(test_two_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
