/*
 * det_subspace.h - what the two PCA-based detectors (det_pca.c: T2 inside
 * the subspace, det_spe.c: residual outside it) share: the fit with its
 * BLAS thread rule, the out-of-fold calibration scores, the scratch,
 * batch scoring and the model section (the same PCA state for both).
 * Private to detect/.
 */
#ifndef RV_DETECT_DET_SUBSPACE_H
#define RV_DETECT_DET_SUBSPACE_H

#include "detect/detector.h"
#include "detect/ensemble.h"
#include "detect/pca.h"

/* PCA fit keeping `keep` of the variance under the config's component
 * caps, with BLAS threads only for large problems (rv_ens_big). */
int rv_subspace_fit(const struct rv_ens_config *cfg, const struct rv_det_rows *r, double keep,
		    struct rv_pca **out, struct rv_err *err);
/* Out-of-fold scores (T2, or SPE with spe) of every row into
 * score[i * stride]: fit on one contiguous half, score the other. */
int rv_subspace_folds(const struct rv_ens_config *cfg, const struct rv_pca *p,
		      const struct rv_det_rows *r, int spe, double *score, size_t stride);
size_t rv_subspace_scratch_len(const void *state, size_t dim);
/* Parts of that scratch: per-row doubles, batch floats, a score column. */
struct rv_subspace_scratch {
	double *row;
	float *batch;
	double *col;
};
void rv_subspace_scratch(const struct rv_pca *p, void *scratch, struct rv_subspace_scratch *s);
/* score_block of both: T2, or SPE with spe, of n rows. */
void rv_subspace_score_block(const void *state, const float *z, size_t ld, size_t n,
			     void *scratch, int spe, double *score, size_t stride);
/* The PCA state's section; load checks the dimension, naming `what`. */
void rv_subspace_save(const void *state, struct rv_wbuf *b);
int rv_subspace_load(struct rv_rbuf *b, size_t dim, const char *what, void **state,
		     struct rv_err *err);
void rv_subspace_free(void *state);

#endif
