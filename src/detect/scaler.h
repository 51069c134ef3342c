/*
 * scaler.h - standardisation of feature rows with training statistics.
 *
 * Fitting computes each input column's mean and population standard
 * deviation (ddof 0) over the training rows and keeps only the columns that
 * are not constant in training (sd > RV_SCALER_MIN_SD): a feature that never
 * moved in training carries no baseline to compare against, unless the
 * caller gives it a floor (rv_scaler_fit_floor). Applying maps a
 * row of nin inputs to nout standardized values z = (x - mean) / sd.
 */
#ifndef RV_DETECT_SCALER_H
#define RV_DETECT_SCALER_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/err.h"

#define RV_SCALER_MIN_SD 1e-12

struct rv_scaler {
	size_t nin, nout;
	uint32_t *keep;     /* nout input column indices, ascending */
	double *mean;       /* nout */
	double *inv_sd;     /* nout, 1/sd */
	double *sd;         /* nout */
};

/* Fits on n rows of nin floats (row-major). -EINVAL when n == 0 or every
 * column is constant, -ENOMEM. Call rv_scaler_fini afterwards. */
int rv_scaler_fit(struct rv_scaler *s, const float *x, size_t n, size_t nin, struct rv_err *err);
void rv_scaler_fini(struct rv_scaler *s);
/* The same on up to `threads` threads (columns split between them); the
 * result does not depend on the thread count. */
int rv_scaler_fit_mt(struct rv_scaler *s, const float *x, size_t n, size_t nin, unsigned threads,
		     struct rv_err *err);

/*
 * The same with floor_in (nin values, NULL: none): column j's sd is at
 * least floor_in[j], and with keep_constant a column that was constant in
 * training is kept when floor_in[j] > 0. The caller knows what a column
 * measures: the
 * smallest move of it that matters (a megabyte of memory, half a
 * percentage point of CPU, one error a second), also for a feature that
 * never moved in training, such as the error count of a healthy link:
 * dropping it would hide the first errors.
 */
int rv_scaler_fit_floor(struct rv_scaler *s, const float *x, size_t n, size_t nin,
			unsigned threads, const double *floor_in, int keep_constant,
			struct rv_err *err);

/*
 * Raises every kept column's sd to at least rel * |mean| (rel > 0): a
 * feature that barely moved in training (a memory gauge of gigabytes
 * that drifted by kilobytes) would otherwise turn any later change of a
 * fraction of a percent into dozens of standard deviations.
 */
void rv_scaler_floor(struct rv_scaler *s, double rel);

/* z[0..nout-1] from one input row x[0..nin-1]. */
void rv_scaler_apply(const struct rv_scaler *s, const float *x, float *z);

void rv_scaler_save(const struct rv_scaler *s, struct rv_wbuf *b);
int rv_scaler_load(struct rv_scaler *s, struct rv_rbuf *b, struct rv_err *err);

#endif
