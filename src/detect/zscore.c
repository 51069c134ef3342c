/*
 * zscore.c - the z-score detector's score: the mean |z| over the
 * standardized features, or over the largest share of them. See zscore.h.
 */
#include "detect/zscore.h"

#include <math.h>
#include <string.h>

#include "base/stats.h"

/* The next window's guess sits just under this window's cut; a guess that
 * leaves fewer than k values above it is lowered by this factor, at most
 * GUESS_TRIES times, before every value is taken. */
#define TOPK_GUESS_MARGIN 0.9
#define TOPK_GUESS_LOWER 0.5
#define TOPK_GUESS_TRIES 3

/* Sum of the k largest of a[0..n-1] (0 < k <= n; a is reordered by a
 * selection, a few comparisons per value) and the k-th largest in *cut. */
static double select_top_sum(double *a, size_t n, size_t k, double *cut)
{
	double sum = 0.0;

	rv_select_kth(a, n, n - k);
	for (size_t j = n - k; j < n; j++)
		sum += a[j];
	*cut = a[n - k];
	return sum;
}

/*
 * Sum of the k largest of |z[0..n-1]|, exactly. Neighbouring windows have
 * similar values, so the previous window's cut (*guess) usually leaves
 * between k and a few k values above it, and only those go through the
 * selection. Any guess with at least k values above it gives the exact
 * sum; one with fewer is lowered and the values filtered again (a cheap,
 * branch-free pass), and the last try takes every value. sel: n doubles.
 */
static double top_k_sum(const float *z, size_t n, size_t k, double *sel, double *guess)
{
	double *a = sel, g = *guess, cut, sum;
	size_t above;

	for (int tries = 0;; tries++) {
		if (tries == TOPK_GUESS_TRIES)
			g = -1.0;                 /* |z| >= 0 > g: every value */
		above = 0;
		for (size_t j = 0; j < n; j++) {
			a[above] = fabs((double)z[j]);
			above += a[above] > g;
		}
		if (above >= k)
			break;
		g *= TOPK_GUESS_LOWER;
	}
	sum = select_top_sum(a, above, k, &cut);
	/* Just under the cut, so the next window's k-th value clears it. */
	*guess = cut * TOPK_GUESS_MARGIN;
	return sum;
}

/*
 * Mean |z| over the features, or, with top in (0, 1), over the largest
 * top share of them: an anomaly moves a few signals, and averaging over
 * hundreds of quiet features dilutes it. contrib gets |z| of every feature:
 * for explaining, how far each signal moved matters, not whether it made
 * the cut (measured: keeping only the top share ranked the labelled
 * culprits worse). sel: n doubles of scratch.
 */
double rv_zscore_score(const float *z, size_t n, double top, double *contrib, double *sel,
			   double *guess)
{
	size_t k = top > 0.0 && top < 1.0 ? (size_t)ceil(top * (double)n) : n;
	double sum = 0.0;

	if (n == 0)
		return 0.0;
	if (k < n) {
		sum = top_k_sum(z, n, k, sel, guess);
	} else {
		for (size_t j = 0; j < n; j++)
			sum += fabs((double)z[j]);
	}
	if (contrib)
		for (size_t j = 0; j < n; j++)
			contrib[j] = fabs((double)z[j]);
	return sum / (double)k;
}

