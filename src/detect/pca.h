/*
 * pca.h - principal component analysis of standardized feature rows, and the
 * two scores built on it:
 *   T2  : Mahalanobis distance inside the retained subspace,
 *         sqrt(sum_k t_k^2 / lambda_k), t = V^T (x - mu)  (the paper's PCA detector);
 *   SPE : squared prediction error, |(x - mu) - V V^T (x - mu)|^2, the energy
 *         outside the subspace (reconstruction error).
 * Fitting keeps the fewest leading components whose eigenvalues reach the
 * requested share of the total variance (0.95 in the paper), capped by
 * max_comp. Eigenvalues use ddof 1 (sklearn's explained_variance_).
 * It never forms an F x F matrix when F exceeds the number of rows n: it then
 * eigendecomposes the n x n Gram matrix and maps the eigenvectors back.
 * Linear algebra through BLAS/LAPACK(E).
 */
#ifndef RV_DETECT_PCA_H
#define RV_DETECT_PCA_H

#include <stddef.h>

#include "base/bytes.h"
#include "base/err.h"

struct rv_pca;

/*
 * Fits on n rows of F floats (row-major, x[i*F + j]). var_keep in (0, 1];
 * max_comp 0 means no cap. Returns 0 and a new model in *out (free with
 * rv_pca_free), -EINVAL for n < 2 or F < 1, -ENOMEM, or -EIO when LAPACK fails.
 */
int rv_pca_fit(const float *x, size_t n, size_t F, double var_keep, size_t max_comp,
	       struct rv_pca **out, struct rv_err *err);
/* The same on rows ld >= F floats apart (x[i*ld + j]; the rest of each row
 * is not read): the first F columns of a wider matrix. */
int rv_pca_fit_ld(const float *x, size_t ld, size_t n, size_t F, double var_keep,
		  size_t max_comp, struct rv_pca **out, struct rv_err *err);
void rv_pca_free(struct rv_pca *p);

size_t rv_pca_dim(const struct rv_pca *p);      /* F */
size_t rv_pca_ncomp(const struct rv_pca *p);    /* k retained components */
/* Doubles of scratch space the score functions need (k + F is enough). */
size_t rv_pca_scratch_len(const struct rv_pca *p);

/*
 * Scores one row x (F floats). contrib, when not NULL, receives F
 * non-negative per-feature shares that sum to the returned value's square
 * (T2) or to the returned value (SPE):
 *   T2 : share_j = max(0, (x_j - mu_j) * sum_k v_jk t_k / lambda_k), renormalised;
 *   SPE: share_j = r_j^2 with r the residual.
 */
double rv_pca_t2(const struct rv_pca *p, const float *x, double *contrib, double *scratch);
double rv_pca_spe(const struct rv_pca *p, const float *x, double *contrib, double *scratch);

/*
 * Scores n rows at once (row i at x + i * ld): one matrix product for the
 * block instead of n matrix-vector products. t2 and spe (n doubles each,
 * either may be NULL) receive rv_pca_t2 and rv_pca_spe of each row (SPE as
 * |xc|^2 - |t|^2, see rv_pca_spe). scratch holds
 * rv_pca_batch_scratch_len(p, n) floats. Allocates nothing.
 */
size_t rv_pca_batch_scratch_len(const struct rv_pca *p, size_t n);
void rv_pca_score_batch(const struct rv_pca *p, const float *x, size_t ld, size_t n,
			double *t2, double *spe, float *scratch);

/* Serialisation into a model file section; load checks F and the values. */
void rv_pca_save(const struct rv_pca *p, struct rv_wbuf *b);
int rv_pca_load(struct rv_rbuf *b, struct rv_pca **out, struct rv_err *err);

#endif
