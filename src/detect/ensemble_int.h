/*
 * ensemble_int.h - the ensemble's state, shared by ensemble.c (fit, score)
 * and ensemble_io.c (save, load). Not part of the module's contract.
 */
#ifndef RV_DETECT_ENSEMBLE_INT_H
#define RV_DETECT_ENSEMBLE_INT_H

#include "detect/detector.h"
#include "detect/ensemble.h"
#include "detect/scaler.h"

struct rv_ensemble {
	struct rv_ens_config cfg;
	size_t nfeat, nraw, nchan;
	uint32_t *feat_chan, *raw_chan;
	struct rv_scaler fs, rs;        /* features; raw windows (raw detectors) */
	int ndet;                       /* rv_det_count() at fit or load */
	void *state[RV_DET_MAX];        /* each enabled detector's fitted state */
	double thr[RV_DET_MAX];
	double fuse_thr;
};

int rv_ens_enabled(const struct rv_ensemble *e, int d);
/* 1 when an enabled detector reads the raw windows. */
int rv_ens_uses_raw(const struct rv_ensemble *e);
/* The scaler and standardized width of detector d's input. */
const struct rv_scaler *rv_ens_scaler(const struct rv_ensemble *e, int d);
/* 1 for a problem large enough that a PCA fit uses BLAS threads (and the
 * detector fits then run one after the other). */
int rv_ens_big(size_t n, size_t F);

/* Raw scores (n rows of `stride` doubles into score, detector d at column
 * d) of n <= RV_ENS_BATCH rows; prescaled: the rows are standardized
 * already (training rows). */
void rv_ens_score_block(const struct rv_ensemble *e, const float *feat, size_t feat_ld,
			const float *raw, size_t raw_ld, size_t n, int prescaled,
			struct rv_ens_scratch *s, double *score, size_t stride);
/* Ratios, flags, fused score and verdict of res from its raw scores. */
void rv_ens_fuse(const struct rv_ensemble *e, struct rv_ens_result *res);

#endif
