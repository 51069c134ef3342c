/*
 * zscore_test.c - the z-score detector's score (detect/zscore.h) against a
 * brute force written here: sort |z| descending and average the first
 * ceil(top * n). Covers the selection with a good, a too-high and a
 * too-low guess carried between calls, ties, NaN-free edge sizes (n = 1,
 * k = 1, k = n - 1) and the contributions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "detect/zscore.h"

enum { MAX_N = 700 };

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/* Independent value: mean of the k largest |z|, summed largest first. */
static double brute(const float *z, size_t n, double top)
{
	static double a[MAX_N];
	size_t k = top > 0.0 && top < 1.0 ? (size_t)ceil(top * (double)n) : n;
	double sum = 0.0;

	for (size_t j = 0; j < n; j++)
		a[j] = fabs((double)z[j]);
	qsort(a, n, sizeof(*a), cmp_desc);
	for (size_t j = 0; j < k; j++)
		sum += a[j];
	return sum / (double)k;
}

static void check(const float *z, size_t n, double top, double *guess)
{
	static double sel[MAX_N], contrib[MAX_N];
	double got = rv_zscore_score(z, n, top, contrib, sel, guess);
	double want = brute(z, n, top);

	assert_true(fabs(got - want) <= 1e-12 * fmax(1.0, want));
	for (size_t j = 0; j < n; j++)
		assert_true(contrib[j] == fabs((double)z[j]));
}

/* A run of windows that drift slowly (the guess pays off), then jumps that
 * leave it far too high and far too low. */
static void test_top_share_matches_brute_force(void **state)
{
	static float z[MAX_N];
	static const size_t sizes[] = { 1, 2, 9, 10, 11, 300, 699, 700 };
	static const double tops[] = { 0.1, 0.01, 0.5, 0.999, 1.0 };
	struct rv_rng rng;

	(void)state;
	rv_rng_seed(&rng, 42);
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (size_t ti = 0; ti < sizeof(tops) / sizeof(tops[0]); ti++) {
			size_t n = sizes[si];
			double guess = 0.0;

			for (size_t j = 0; j < n; j++)
				z[j] = (float)(4.0 * rv_rng_uniform(&rng) - 2.0);
			for (int w = 0; w < 40; w++) {
				double scale = w == 20 ? 1000.0 : w == 30 ? 1e-3 : 1.0;

				for (size_t j = 0; j < n; j++)
					z[j] = (float)(z[j] + 0.05 * (rv_rng_uniform(&rng) - 0.5));
				for (size_t j = 0; j < n; j++)
					z[j] = (float)(z[j] * scale);
				check(z, n, tops[ti], &guess);
				for (size_t j = 0; j < n; j++)
					z[j] = (float)(z[j] / scale);
			}
		}
	}
}

/* Many equal values straddle the cut: the sum counts exactly k of them. */
static void test_ties(void **state)
{
	static float z[MAX_N];
	double guess = 0.0;

	(void)state;
	for (size_t j = 0; j < 100; j++)
		z[j] = (j % 3 == 0) ? -2.0f : (j % 3 == 1 ? 2.0f : 0.5f);
	check(z, 100, 0.1, &guess);
	check(z, 100, 0.7, &guess);
	guess = 2.0;                  /* exactly the tied value: none above */
	check(z, 100, 0.1, &guess);
	for (size_t j = 0; j < 50; j++)
		z[j] = 1.0f;
	guess = 0.0;
	check(z, 50, 0.1, &guess);
	/* By hand: |z| = 3, 1, 2, 5 with top 0.5 -> (5 + 3) / 2. */
	const float four[] = { -3.0f, 1.0f, 2.0f, -5.0f };
	double sel[4];

	guess = 0.0;
	assert_true(rv_zscore_score(four, 4, 0.5, NULL, sel, &guess) == 4.0);
	assert_true(rv_zscore_score(four, 4, 1.0, NULL, sel, &guess) == 11.0 / 4.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_share_matches_brute_force),
		cmocka_unit_test(test_ties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
