/*
 * det_pca.c - the pca detector (detector.h): Mahalanobis distance (T2) of
 * the standardized features in the PCA subspace keeping var_keep of the
 * variance (the paper's). Also the subspace helpers det_spe.c shares
 * (det_subspace.h).
 */
#include "detect/det_subspace.h"

#include <errno.h>
#include <stdlib.h>

#include "detect/ensemble_int.h"

int rv_subspace_fit(const struct rv_ens_config *cfg, const struct rv_det_rows *r, double keep,
		    struct rv_pca **out, struct rv_err *err)
{
	int big = rv_ens_big(r->n, r->dim);
	size_t max_comp = cfg->pca_max_comp;

	/* A component estimated from too few rows is noise with a tiny
	 * eigenvalue, and 1 / lambda turns it into false alarms. */
	if (cfg->pca_rows_per_comp > 0) {
		size_t by_rows = r->n / cfg->pca_rows_per_comp > 0 ? r->n / cfg->pca_rows_per_comp : 1;
		if (max_comp == 0 || by_rows < max_comp)
			max_comp = by_rows;
	}
	int before = rv_ens_blas_threads(big && r->threads > 1 ? (int)r->threads : 1);
	int rc = rv_pca_fit_ld(r->z, r->ld, r->n, r->dim, keep, max_comp, out, err);

	rv_ens_blas_threads(before);
	return rc;
}

int rv_subspace_folds(const struct rv_ens_config *cfg, const struct rv_pca *final,
		      const struct rv_det_rows *r, int spe, double *score, size_t stride)
{
	size_t half = r->n / 2, ld = r->ld;
	double *scratch = NULL;
	int rc = 0;
	/* The fold models keep exactly the final model's component count: T2
	 * grows with the number of components and SPE shrinks with it, so a
	 * fold with fewer (the row cap halves with the rows) would set a
	 * threshold on another scale. */
	struct rv_ens_config fold_cfg = *cfg;

	fold_cfg.pca_max_comp = rv_pca_ncomp(final);
	fold_cfg.pca_rows_per_comp = 0;

	for (int fold = 0; fold < 2 && !rc; fold++) {
		size_t f0 = fold ? half : 0, fn = fold ? r->n - half : half;
		size_t t0 = fold ? 0 : half, tn = fold ? half : r->n - half;
		struct rv_det_rows fr = { r->z + f0 * ld, ld, fn, r->dim, r->threads };
		struct rv_pca *p = NULL;

		rc = rv_subspace_fit(&fold_cfg, &fr, 1.0, &p, NULL);
		if (!rc && !(scratch = realloc(scratch, rv_pca_scratch_len(p) * sizeof(double))))
			rc = -ENOMEM;
		for (size_t i = t0; i < t0 + tn && !rc; i++) {
			const float *row = r->z + i * ld;
			score[i * stride] = spe ? rv_pca_spe(p, row, NULL, scratch)
						: rv_pca_t2(p, row, NULL, scratch);
		}
		rv_pca_free(p);
	}
	free(scratch);
	return rc;
}

static size_t row_len(const struct rv_pca *p)
{
	size_t np = rv_pca_scratch_len(p);

	return np ? np : 1;
}

size_t rv_subspace_scratch_len(const void *state, size_t dim)
{
	const struct rv_pca *p = state;

	(void)dim;
	return (row_len(p) + RV_ENS_BATCH) * sizeof(double) +
	       rv_pca_batch_scratch_len(p, RV_ENS_BATCH) * sizeof(float);
}

void rv_subspace_scratch(const struct rv_pca *p, void *scratch, struct rv_subspace_scratch *s)
{
	s->row = scratch;
	s->col = s->row + row_len(p);
	s->batch = (float *)(s->col + RV_ENS_BATCH);
}

static int pca_fit(const struct rv_ens_config *cfg, const struct rv_det_rows *r, void **state,
		   struct rv_err *err)
{
	struct rv_pca *p = NULL;
	int rc = rv_subspace_fit(cfg, r, cfg->var_keep, &p, err);

	*state = p;
	return rc;
}

static int pca_folds(const struct rv_ens_config *cfg, const void *state,
		     const struct rv_det_rows *r, double *score, size_t stride)
{
	return rv_subspace_folds(cfg, state, r, 0, score, stride);
}

void rv_subspace_score_block(const void *state, const float *z, size_t ld, size_t n,
			     void *scratch, int spe, double *score, size_t stride)
{
	struct rv_subspace_scratch s;

	rv_subspace_scratch(state, scratch, &s);
	rv_pca_score_batch(state, z, ld, n, spe ? NULL : s.col, spe ? s.col : NULL, s.batch);
	for (size_t i = 0; i < n; i++)
		score[i * stride] = s.col[i];
}

void rv_subspace_save(const void *state, struct rv_wbuf *b)
{
	rv_pca_save(state, b);
}

int rv_subspace_load(struct rv_rbuf *b, size_t dim, const char *what, void **state,
		     struct rv_err *err)
{
	struct rv_pca *p = NULL;
	int rc = rv_pca_load(b, &p, err);

	*state = p;
	if (!rc && rv_pca_dim(p) != dim)
		rc = rv_err_set(err, -EINVAL, "model: %s dimension mismatch", what);
	return rc;
}

void rv_subspace_free(void *state)
{
	rv_pca_free(state);
}

static void pca_score_block(const struct rv_ens_config *cfg, const void *state, const float *z,
			    size_t ld, size_t n, size_t dim, void *scratch, double *score,
			    size_t stride)
{
	(void)cfg;
	(void)dim;
	rv_subspace_score_block(state, z, ld, n, scratch, 0, score, stride);
}

static double pca_contrib(const struct rv_ens_config *cfg, const void *state, const float *z,
			  size_t dim, void *scratch, double *contrib)
{
	struct rv_subspace_scratch s;

	(void)cfg;
	(void)dim;
	rv_subspace_scratch(state, scratch, &s);
	return rv_pca_t2(state, z, contrib, s.row);
}

static int pca_load(struct rv_rbuf *b, size_t dim, void **state, struct rv_err *err)
{
	return rv_subspace_load(b, dim, "PCA", state, err);
}

const struct rv_detector_ops rv_det_pca = {
	.name = "pca",
	.input = RV_DET_IN_FEAT,
	.threshold = RV_DET_THR_QUANTILE,
	.paper = 1,
	.fit = pca_fit,
	.fold_scores = pca_folds,
	.scratch_len = rv_subspace_scratch_len,
	.score_block = pca_score_block,
	.contrib = pca_contrib,
	.save = rv_subspace_save,
	.load = pca_load,
	.free = rv_subspace_free,
};
