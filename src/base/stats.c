/*
 * stats.c - quantiles by sorting; n is at most a few hundred thousand
 * training scores, so a full sort is simpler than selection and fast enough.
 */
#include "base/stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return (x > y) - (x < y);
}

void rv_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double rv_quantile_inplace(double *v, size_t n, double q)
{
	double pos, frac;
	size_t lo;

	rv_sort_doubles(v, n);
	if (q <= 0.0)
		return v[0];
	if (q >= 1.0)
		return v[n - 1];
	pos = q * (double)(n - 1);
	lo = (size_t)floor(pos);
	frac = pos - (double)lo;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + frac * (v[lo + 1] - v[lo]);
}
