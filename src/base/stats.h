/*
 * stats.h - small numeric helpers shared by the computing stages.
 */
#ifndef RV_BASE_STATS_H
#define RV_BASE_STATS_H

#include <stddef.h>

/*
 * q-quantile (q in [0, 1]) of v[0..n-1] with numpy's default linear
 * interpolation at (n-1)*q. Reorders v (a selection, not a full sort;
 * sorted when v holds a NaN, which ranks last). n must be > 0.
 */
double rv_quantile_inplace(double *v, size_t n, double q);

/*
 * Puts the k-th smallest (0-based, k < n) of v[0..n-1] at v[k], no larger
 * ones before it and no smaller ones after: Hoare partitioning with a
 * median-of-three pivot, linear on average. v must hold no NaN.
 */
void rv_select_kth(double *v, size_t n, size_t k);

/*
 * Median of the n - 1 differences between consecutive values of ts[0..n-1]
 * (a sampling interval; the mean of the two middle ones for an even
 * count): 0 when n < 2, NAN when out of memory. ts must hold no NaN. The
 * one median step of reveal: the model's sampling interval
 * (rv_table_median_step) and the pace of `reveal report --data`.
 */
double rv_median_step(const double *ts, size_t n);

/* Sorts v ascending in place (NaN last). */
void rv_sort_doubles(double *v, size_t n);

#endif
