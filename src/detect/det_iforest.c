/*
 * det_iforest.c - the iforest detector (detector.h): Isolation Forest
 * score of the standardized features (the paper's, contamination 1 %;
 * the forest itself is iforest.c).
 */
#include "detect/detector.h"

#include <errno.h>

#include "detect/ensemble.h"
#include "detect/iforest.h"

static int ifo_fit(const struct rv_ens_config *cfg, const struct rv_det_rows *r, void **state,
		   struct rv_err *err)
{
	struct rv_iforest *f = NULL;
	int rc = rv_iforest_fit_ld(r->z, r->ld, r->n, r->dim, &cfg->iforest, &f, err);

	*state = f;
	return rc;
}

static size_t ifo_scratch_len(const void *state, size_t dim)
{
	(void)state;
	(void)dim;
	return RV_ENS_BATCH * sizeof(double);
}

static void ifo_score_block(const struct rv_ens_config *cfg, const void *state, const float *z,
			    size_t ld, size_t n, size_t dim, void *scratch, double *score,
			    size_t stride)
{
	double *col = scratch;

	(void)cfg;
	(void)dim;
	rv_iforest_score_batch(state, z, ld, n, col);
	for (size_t i = 0; i < n; i++)
		score[i * stride] = col[i];
}

static double ifo_contrib(const struct rv_ens_config *cfg, const void *state, const float *z,
			  size_t dim, void *scratch, double *contrib)
{
	(void)cfg;
	(void)dim;
	(void)scratch;
	return rv_iforest_score(state, z, contrib);
}

static void ifo_save(const void *state, struct rv_wbuf *b)
{
	rv_iforest_save(state, b);
}

static int ifo_load(struct rv_rbuf *b, size_t dim, void **state, struct rv_err *err)
{
	struct rv_iforest *f = NULL;
	int rc = rv_iforest_load(b, &f, err);

	*state = f;
	if (!rc && rv_iforest_dim(f) != dim)
		rc = rv_err_set(err, -EINVAL, "model: Isolation Forest dimension mismatch");
	return rc;
}

static void ifo_free(void *state)
{
	rv_iforest_free(state);
}

const struct rv_detector_ops rv_det_iforest = {
	.name = "iforest",
	.input = RV_DET_IN_FEAT,
	.threshold = RV_DET_THR_CONTAMINATION,
	.paper = 1,
	.fit = ifo_fit,
	.scratch_len = ifo_scratch_len,
	.score_block = ifo_score_block,
	.contrib = ifo_contrib,
	.save = ifo_save,
	.load = ifo_load,
	.free = ifo_free,
};
