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

/* Sorts v ascending in place (NaN last). */
void rv_sort_doubles(double *v, size_t n);

#endif
