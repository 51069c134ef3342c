/*
 * select_corr_test.c - select/corr.h against the direct two-loop
 * pairwise-complete Pearson r: without gaps (exact to float rounding, and
 * close to the r the channels were built with); with light gaps, random
 * and in runs (AUTO takes FILL: within the documented 0.02); with heavy
 * gaps tied to a level shift (AUTO takes EXACT: within 1e-4, where FILL
 * would be far off); constant, empty and single-valued channels; pairs
 * that share too few samples; the scaled spread; the refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "select/corr.h"
#include "select/select_testutil.h"

enum { C = 36, N = 5000, GROUPS = 4 };

#define EXACT_TOL 1e-4   /* float sums against double */
#define FILL_TOL 0.02    /* corr.h: FILL with at most 1 % gaps per channel */
#define BUILT_TOL 0.05   /* sample r against the r it was built with, N = 5000 */

/* C channels of N samples: GROUPS latent series, channel c of group c %
 * GROUPS with a weight and noise that vary with c; *built gets the r each
 * channel was built to have with its latent series. */
static float *make_channels(double *built, uint64_t seed)
{
	float *x = malloc(sizeof(float) * C * N);
	double *lat = malloc(sizeof(double) * GROUPS * N);
	struct rv_rng g;

	assert_non_null(x);
	assert_non_null(lat);
	rv_rng_seed(&g, seed);
	for (size_t k = 0; k < GROUPS; k++)
		st_latent(lat + k * N, N, &g);
	for (size_t c = 0; c < C; c++) {
		double a = 1.0 + (double)(c % 5), s = 0.2 + 0.3 * (double)(c % 7);

		st_mix(x + c * N, lat + (c % GROUPS) * N, N, a, s, 100.0 * (double)c, &g);
		built[c] = st_r_latent(a, s);
	}
	free(lat);
	return x;
}

/* Largest |r - direct r| over all pairs; both NaN or neither. */
static double max_error(const struct rv_corr *cr, const float *x)
{
	double worst = 0.0;

	for (size_t i = 0; i < C; i++)
		for (size_t j = 0; j < C; j++) {
			double want = i == j && !rv_corr_constant(cr, i) ? 1.0
				: st_direct_r(x + i * N, x + j * N, N, RV_CORR_MIN_PAIR);
			double got = rv_corr_r(cr, i, j);

			if (isnan(want) != isnan(got))
				fail_msg("r(%zu, %zu): %g, direct %g", i, j, got, want);
			if (!isnan(want) && fabs(got - want) > worst)
				worst = fabs(got - want);
		}
	return worst;
}

static struct rv_corr *compute(const float *x, enum rv_corr_gaps gaps)
{
	struct rv_corr *cr = NULL;
	struct rv_err err;

	rv_err_clear(&err);
	if (rv_corr_compute(x, C, N, gaps, "t", &cr, &err) != 0)
		fail_msg("%s", err.msg);
	return cr;
}

/* AUTO takes EXACT or not as want_exact says and matches the direct r
 * within its tolerance; the other mode is exact within EXACT_TOL (EXACT)
 * or off by more than FILL_TOL (FILL where the gaps are heavy). */
static void expect_modes(const float *x, int want_exact)
{
	struct rv_corr *cr = compute(x, RV_CORR_AUTO);

	assert_int_equal(rv_corr_exact(cr), want_exact);
	assert_true(max_error(cr, x) < (want_exact ? EXACT_TOL : FILL_TOL));
	rv_corr_free(cr);
	cr = compute(x, want_exact ? RV_CORR_FILL : RV_CORR_EXACT);
	assert_int_equal(rv_corr_exact(cr), !want_exact);
	if (want_exact)
		assert_true(max_error(cr, x) > FILL_TOL);
	else
		assert_true(max_error(cr, x) < EXACT_TOL);
	rv_corr_free(cr);
}

static void test_no_gaps(void **state)
{
	double built[C];
	float *x = make_channels(built, 1);
	struct rv_corr *cr = compute(x, RV_CORR_AUTO);

	(void)state;
	assert_true(max_error(cr, x) < EXACT_TOL);
	assert_int_equal(rv_corr_nchan(cr), C);
	assert_int_equal(rv_corr_nvarying(cr), C);
	assert_int_equal(rv_corr_exact(cr), 0);
	assert_true(rv_corr_gap_share(cr) == 0.0);
	for (size_t i = 0; i < C; i++) {
		assert_int_equal(rv_corr_valid(cr, i), N);
		for (size_t j = 0; j < C; j++) {
			double want = i == j ? 1.0 : i % GROUPS == j % GROUPS ? built[i] * built[j] : 0.0;

			if (fabs(rv_corr_r(cr, i, j) - want) > BUILT_TOL)
				fail_msg("r(%zu, %zu) = %g, built as %g", i, j, rv_corr_r(cr, i, j), want);
		}
	}
	assert_true(isnan(rv_corr_r(cr, 0, C)));
	rv_corr_free(cr);
	free(x);
}

/* Light gaps: 0.25 % at random in every third channel, a run of 0.7 % in
 * every fifth: AUTO fills, within FILL_TOL; EXACT is exact. */
static void test_light_gaps(void **state)
{
	double built[C];
	float *x = make_channels(built, 2);
	struct rv_corr *cr;
	struct rv_rng g;

	(void)state;
	rv_rng_seed(&g, 3);
	for (size_t c = 0; c < C; c += 3)
		for (size_t k = 0; k < N / 400; k++)
			x[c * N + rv_rng_below(&g, N)] = NAN;
	for (size_t c = 0; c < C; c += 5)
		for (size_t t = 1000 + 7 * c; t < 1000 + 7 * c + 35; t++)
			x[c * N + t] = c % 2 ? INFINITY : NAN;
	cr = compute(x, RV_CORR_AUTO);
	assert_true(rv_corr_gap_share(cr) > 0.0 && rv_corr_gap_share(cr) < 0.01);
	assert_true(rv_corr_valid(cr, 0) < N);
	rv_corr_free(cr);
	expect_modes(x, 0);
	free(x);
}

/* Heavy gaps where the level is unusual: the first channel of each group
 * misses its 20 % highest stretch (its values above a level); AUTO goes
 * pairwise-complete and matches; filling would be off by more. */
static void test_heavy_gaps(void **state)
{
	double built[C];
	float *x = make_channels(built, 4);

	(void)state;
	for (size_t c = 0; c < GROUPS; c++)
		for (size_t t = 0; t < N; t++)
			if (x[c * N + t] > 100.0f * (float)c + 0.84f * (1.0f + (float)(c % 5)))
				x[c * N + t] = NAN;
	for (size_t t = 2000; t < 3500; t++)
		x[(C - 1) * N + t] = NAN;
	expect_modes(x, 1);
	free(x);
}

/* Constant, empty and single-valued channels get no r; a pair sharing
 * fewer than RV_CORR_MIN_PAIR samples is not measured. */
static void test_constant_and_disjoint(void **state)
{
	double built[C];
	float *x = make_channels(built, 5);
	struct rv_corr *cr;

	(void)state;
	for (size_t t = 0; t < N; t++) {
		x[1 * N + t] = 7.0f;                       /* constant */
		x[2 * N + t] = NAN;                        /* empty */
		x[3 * N + t] = t == 17 ? 1.0f : NAN;       /* one value */
		x[4 * N + t] = t % 3 ? 5.0f : NAN;         /* constant with gaps */
		if (t >= N / 2)
			x[5 * N + t] = NAN;                /* first half only */
		else
			x[6 * N + t] = NAN;                /* second half only */
	}
	x[6 * N + N / 2 - 1] = 0.5f;                       /* 1 shared sample */
	cr = compute(x, RV_CORR_AUTO);
	assert_int_equal(rv_corr_nvarying(cr), C - 4);
	for (size_t i = 1; i <= 4; i++) {
		assert_int_equal(rv_corr_constant(cr, i), 1);
		assert_true(isnan(rv_corr_r(cr, i, i)));
		assert_true(isnan(rv_corr_r(cr, 0, i)));
		assert_true(rv_corr_spread(cr, i) == 0.0);
	}
	assert_int_equal(rv_corr_valid(cr, 2), 0);
	assert_int_equal(rv_corr_constant(cr, C), 1);
	assert_true(isnan(rv_corr_r(cr, 5, 6)));
	assert_false(isnan(rv_corr_r(cr, 5, 7)));
	assert_int_equal(rv_corr_exact(cr), 1);
	assert_true(max_error(cr, x) < EXACT_TOL);
	rv_corr_free(cr);
	free(x);
}

/* Spread: the variance scaled by the range, (0, 0.25]. */
static void test_spread(void **state)
{
	float x[2 * 1000];
	struct rv_corr *cr = NULL;

	(void)state;
	for (size_t t = 0; t < 1000; t++) {
		x[t] = t % 2 ? 10.0f : 20.0f;          /* two levels: 0.25 */
		x[1000 + t] = t == 500 ? 1e6f : 0.0f;  /* one spike: about 0.001 */
	}
	assert_int_equal(rv_corr_compute(x, 2, 1000, RV_CORR_AUTO, NULL, &cr, NULL), 0);
	assert_true(fabs(rv_corr_spread(cr, 0) - 0.25) < 1e-12);
	assert_true(rv_corr_spread(cr, 1) > 0.0009 && rv_corr_spread(cr, 1) < 0.0011);
	assert_true(fabs(rv_corr_r(cr, 0, 1)) < 0.05);
	rv_corr_free(cr);
}

/* Nothing varies: no BLAS call, no slot, no r. */
static void test_all_constant(void **state)
{
	float x[3 * 50];
	struct rv_corr *cr = NULL;

	(void)state;
	for (size_t i = 0; i < 3 * 50; i++)
		x[i] = i < 50 ? 1.0f : i < 100 ? NAN : 2.0f;
	assert_int_equal(rv_corr_compute(x, 3, 50, RV_CORR_EXACT, NULL, &cr, NULL), 0);
	assert_int_equal(rv_corr_nvarying(cr), 0);
	assert_int_equal(rv_corr_exact(cr), 0);
	assert_true(isnan(rv_corr_r(cr, 0, 2)));
	assert_true(rv_corr_gap_share(cr) == 0.0);
	rv_corr_free(cr);
}

static void test_refusals(void **state)
{
	float x[4] = { 1, 2, 3, 4 };
	struct rv_corr *cr = (struct rv_corr *)x;
	struct rv_err err;

	(void)state;
	rv_err_clear(&err);
	assert_int_equal(rv_corr_compute(x, 0, 4, RV_CORR_AUTO, "in.csv", &cr, &err), -EINVAL);
	assert_string_equal(err.msg, "in.csv: no channel or no sample to correlate");
	assert_null(cr);
	assert_int_equal(rv_corr_compute(x, RV_CORR_MAX_CHANNELS + 1, 1, RV_CORR_AUTO, NULL, &cr,
					 NULL), -EINVAL);
	rv_corr_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_gaps),
		cmocka_unit_test(test_light_gaps),
		cmocka_unit_test(test_heavy_gaps),
		cmocka_unit_test(test_constant_and_disjoint),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_all_constant),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
