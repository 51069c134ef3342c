/*
 * stats.c - quantiles by sorting; n is at most a few hundred thousand
 * training scores, so a full sort is simpler than selection and fast enough.
 */
#include "base/stats.h"

#include <math.h>
#include <stdlib.h>

static double quantile_sorted(const double *v, size_t n, double q);

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

void rv_select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		double a = v[lo], b = v[mid], c = v[hi];
		double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		size_t i = lo, j = hi;

		for (;;) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i >= j)
				break;
			double t = v[i];
			v[i] = v[j];
			v[j] = t;
			i++;
			j--;
		}
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
}

double rv_median_step(const double *ts, size_t n)
{
	double *d, med;
	size_t m;

	if (n < 2)
		return 0;
	m = n - 1;
	if (!(d = malloc(m * sizeof(*d))))
		return NAN;
	for (size_t i = 0; i < m; i++)
		d[i] = ts[i + 1] - ts[i];
	rv_select_kth(d, m, m / 2);
	med = d[m / 2];
	if (m % 2 == 0) {
		/* rv_select_kth left every smaller value below m / 2 */
		double lower = d[0];
		for (size_t i = 1; i < m / 2; i++)
			lower = d[i] > lower ? d[i] : lower;
		med = (med + lower) / 2;
	}
	free(d);
	return med;
}

double rv_quantile_inplace(double *v, size_t n, double q)
{
	double pos, frac, next;
	size_t lo;

	for (size_t i = 0; i < n; i++)
		if (isnan(v[i])) {
			/* Rare: sort, so that NaN ranks last as documented. */
			rv_sort_doubles(v, n);
			return quantile_sorted(v, n, q);
		}
	if (q <= 0.0 || q >= 1.0 || n == 1) {
		double m = v[0];
		for (size_t i = 1; i < n; i++)
			m = q <= 0.0 ? (v[i] < m ? v[i] : m) : (v[i] > m ? v[i] : m);
		return m;
	}
	pos = q * (double)(n - 1);
	lo = (size_t)floor(pos);
	frac = pos - (double)lo;
	if (lo + 1 >= n) {
		rv_select_kth(v, n, n - 1);
		return v[n - 1];
	}
	/* Selection instead of a sort: thresholds take quantiles of thousands
	 * of training scores, once per detector, on the serial path. */
	rv_select_kth(v, n, lo);
	next = v[lo + 1];
	for (size_t i = lo + 2; i < n; i++)
		next = v[i] < next ? v[i] : next;
	return v[lo] + frac * (next - v[lo]);
}

static double quantile_sorted(const double *v, size_t n, double q)
{
	double pos, frac;
	size_t lo;

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
