/*
 * select_testutil.h - synthetic channels with a known correlation
 * structure for the tests of select/ (select_corr_test.c,
 * select_prune_test.c) and bench/prune_bench.c: latent series of unit
 * variance, channels built from them plus independent noise, and the
 * direct two-loop pairwise-complete Pearson r to check against. A channel
 * a * L + e (L unit variance, e noise of sd s) has r = a / sqrt(a^2 + s^2)
 * with L; two of the same L have the product of theirs. Not a library:
 * static functions for the test programs only.
 */
#ifndef RV_SELECT_TESTUTIL_H
#define RV_SELECT_TESTUTIL_H

#include <math.h>
#include <stddef.h>

#include "base/rng.h"

/* A standard normal deviate (Box-Muller). */
static inline double st_gauss(struct rv_rng *g)
{
	double u = rv_rng_uniform(g), v = rv_rng_uniform(g);

	return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

/* A latent series of N samples, about unit variance: white noise (no
 * memory, so that the sample r is close to the one it is built with). */
static inline void st_latent(double *out, size_t N, struct rv_rng *g)
{
	for (size_t t = 0; t < N; t++)
		out[t] = st_gauss(g);
}

/* dst = offset + a * latent + noise of sd s. */
static inline void st_mix(float *dst, const double *latent, size_t N, double a, double s,
			  double offset, struct rv_rng *g)
{
	for (size_t t = 0; t < N; t++)
		dst[t] = (float)(offset + a * latent[t] + s * st_gauss(g));
}

/* The r a channel a * L + noise(s) is built to have with L. */
static inline double st_r_latent(double a, double s)
{
	return a / sqrt(a * a + s * s);
}

/* Pairwise-complete Pearson r of x and y (NaN and Inf are gaps), in
 * double, by two loops; NaN when fewer than min_pair samples are shared
 * or either is constant over them. */
static inline double st_direct_r(const float *x, const float *y, size_t N, size_t min_pair)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, mx, my;
	size_t n = 0;

	for (size_t t = 0; t < N; t++)
		if (isfinite(x[t]) && isfinite(y[t])) {
			sx += x[t];
			sy += y[t];
			n++;
		}
	if (n < min_pair)
		return NAN;
	mx = sx / (double)n;
	my = sy / (double)n;
	for (size_t t = 0; t < N; t++)
		if (isfinite(x[t]) && isfinite(y[t])) {
			sxx += (x[t] - mx) * (x[t] - mx);
			syy += (y[t] - my) * (y[t] - my);
			sxy += (x[t] - mx) * (y[t] - my);
		}
	if (!(sxx > 0) || !(syy > 0))
		return NAN;
	return sxy / sqrt(sxx * syy);
}

#endif
