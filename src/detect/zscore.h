/*
 * zscore.h - the z-score detector (no state beyond the feature scaler).
 */
#ifndef RV_DETECT_ZSCORE_H
#define RV_DETECT_ZSCORE_H

#include <stddef.h>

/*
 * Mean |z| over the n standardized features, or, with top in (0, 1), over
 * the largest ceil(top * n) of them. contrib (may be NULL) receives |z| of
 * every feature. sel: n doubles of scratch; guess: a double kept between
 * calls by one thread (start at 0), which speeds up the selection on
 * windows that resemble the previous one without changing the result.
 */
double rv_zscore_score(const float *z, size_t n, double top, double *contrib, double *sel,
		       double *guess);

#endif
