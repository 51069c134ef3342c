/*
 * ensemble_int.h - the ensemble's state, shared by ensemble.c (fit, score)
 * and ensemble_io.c (save, load). Not part of the module's contract.
 */
#ifndef RV_DETECT_ENSEMBLE_INT_H
#define RV_DETECT_ENSEMBLE_INT_H

#include "detect/ensemble.h"
#include "detect/iforest.h"
#include "detect/pca.h"
#include "detect/scaler.h"

struct rv_ensemble {
	struct rv_ens_config cfg;
	size_t nfeat, nraw, nchan;
	uint32_t *feat_chan, *raw_chan;
	struct rv_scaler fs, rs;
	struct rv_pca *pca, *spe;
	struct rv_iforest *ifo;
	double thr[RV_DET_COUNT];
	double fuse_thr;
};

int rv_ens_enabled(const struct rv_ensemble *e, enum rv_det d);

/* Raw scores (n x RV_DET_COUNT into score) of n <= RV_ENS_BATCH rows;
 * prescaled: the rows are standardized already (training rows). */
void rv_ens_score_block(const struct rv_ensemble *e, const float *feat, size_t feat_ld,
			const float *raw, size_t raw_ld, size_t n, int prescaled,
			struct rv_ens_scratch *s, double *score);
/* Ratios, flags, fused score and verdict of res from its raw scores. */
void rv_ens_fuse(const struct rv_ensemble *e, struct rv_ens_result *res);

#endif
