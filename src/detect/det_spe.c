/*
 * det_spe.c - the spe detector (detector.h): squared reconstruction error
 * of the standardized raw window outside its own PCA subspace keeping
 * spe_var_keep of the variance (reveal's addition). The subspace helpers
 * are in det_pca.c.
 */
#include "detect/det_subspace.h"


static int spe_fit(const struct rv_ens_config *cfg, const struct rv_det_rows *r, void **state,
		   struct rv_err *err)
{
	struct rv_pca *p = NULL;
	int rc = rv_subspace_fit(cfg, r, cfg->spe_var_keep, &p, err);

	*state = p;
	return rc;
}

static int spe_folds(const struct rv_ens_config *cfg, const void *state,
		     const struct rv_det_rows *r, double *score, size_t stride)
{
	return rv_subspace_folds(cfg, state, r, 1, score, stride);
}

static void spe_score_block(const struct rv_ens_config *cfg, const void *state, const float *z,
			    size_t ld, size_t n, size_t dim, void *scratch, double *score,
			    size_t stride)
{
	(void)cfg;
	(void)dim;
	rv_subspace_score_block(state, z, ld, n, scratch, 1, score, stride);
}

static double spe_contrib(const struct rv_ens_config *cfg, const void *state, const float *z,
			  size_t dim, void *scratch, double *contrib)
{
	struct rv_subspace_scratch s;

	(void)cfg;
	(void)dim;
	rv_subspace_scratch(state, scratch, &s);
	return rv_pca_spe(state, z, contrib, s.row);
}

static int spe_load(struct rv_rbuf *b, size_t dim, void **state, struct rv_err *err)
{
	return rv_subspace_load(b, dim, "raw PCA", state, err);
}

const struct rv_detector_ops rv_det_spe = {
	.name = "spe",
	.input = RV_DET_IN_RAW,
	.threshold = RV_DET_THR_QUANTILE,
	.paper = 0,
	.fit = spe_fit,
	.fold_scores = spe_folds,
	.scratch_len = rv_subspace_scratch_len,
	.score_block = spe_score_block,
	.contrib = spe_contrib,
	.save = rv_subspace_save,
	.load = spe_load,
	.free = rv_subspace_free,
};
