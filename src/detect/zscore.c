/*
 * zscore.c - the z-score detector's score: the mean |z| over the
 * standardized features, or over the largest share of them. See zscore.h.
 */
#include "detect/zscore.h"

#include <math.h>
#include <string.h>

/* The cut guess is kept when at most SLACK x k values exceed it; the next
 * guess sits just under the last cut. */
#define TOPK_GUESS_SLACK 4
#define TOPK_GUESS_MARGIN 0.9

/* Restores the min-heap property of h[0..k-1] below position i. */
static void sift_down(double *h, size_t k, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < k && h[l] < h[m])
			m = l;
		if (r < k && h[r] < h[m])
			m = r;
		if (m == i)
			return;
		double t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Sum of the k largest of a[0..n-1] with a min-heap of the best k in h. */
static double heap_top_sum(const double *a, size_t n, size_t k, double *h, double *cut)
{
	double sum = 0.0;

	memcpy(h, a, k * sizeof(*h));
	for (size_t i = k / 2; i-- > 0;)
		sift_down(h, k, i);
	for (size_t j = k; j < n; j++)
		if (a[j] > h[0]) {
			h[0] = a[j];
			sift_down(h, k, 0);
		}
	for (size_t j = 0; j < k; j++)
		sum += h[j];
	*cut = h[0];
	return sum;
}

/*
 * Sum of the k largest of |z[0..n-1]|, exactly. Neighbouring windows have
 * similar values, so the previous window's cut (*guess) usually leaves
 * between k and a few k values above it: only those go through the heap.
 * When the guess fails, every value does. sel: 2n doubles of scratch.
 */
static double top_k_sum(const float *z, size_t n, size_t k, double *sel, double *guess)
{
	double *a = sel, *h = sel + n, cut, sum;
	size_t above = 0;

	for (size_t j = 0; j < n; j++) {
		a[above] = fabs((double)z[j]);
		above += a[above] > *guess;
	}
	if (above >= k && above <= TOPK_GUESS_SLACK * k) {
		sum = heap_top_sum(a, above, k, h, &cut);
	} else {
		for (size_t j = 0; j < n; j++)
			a[j] = fabs((double)z[j]);
		sum = heap_top_sum(a, n, k, h, &cut);
	}
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

