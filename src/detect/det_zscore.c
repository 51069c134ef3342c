/*
 * det_zscore.c - the zscore detector (detector.h): mean |z| over the
 * standardized features (the paper's), or over the largest zscore_top
 * share of them (zscore.c). No state beyond the feature scaler, nothing
 * in the model file.
 */
#include "detect/detector.h"

#include "detect/ensemble.h"
#include "detect/zscore.h"

/* Scratch: the selection's hint between windows, then 2 x dim doubles. */
static size_t zs_scratch_len(const void *state, size_t dim)
{
	(void)state;
	return (1 + 2 * (dim ? dim : 1)) * sizeof(double);
}

static void zs_score_block(const struct rv_ens_config *cfg, const void *state, const float *z,
			   size_t ld, size_t n, size_t dim, void *scratch, double *score,
			   size_t stride)
{
	double *guess = scratch;

	(void)state;
	for (size_t i = 0; i < n; i++)
		score[i * stride] = rv_zscore_score(z + i * ld, dim, cfg->zscore_top, NULL, guess + 1,
						    guess);
}

static double zs_contrib(const struct rv_ens_config *cfg, const void *state, const float *z,
			 size_t dim, void *scratch, double *contrib)
{
	double *guess = scratch;

	(void)state;
	return rv_zscore_score(z, dim, cfg->zscore_top, contrib, guess + 1, guess);
}

const struct rv_detector_ops rv_det_zscore = {
	.name = "zscore",
	.input = RV_DET_IN_FEAT,
	.threshold = RV_DET_THR_QUANTILE,
	.paper = 1,
	.scratch_len = zs_scratch_len,
	.score_block = zs_score_block,
	.contrib = zs_contrib,
};
