/*
 * pca_rand.c - randomized PCA for wide feature matrices.
 *
 * On a 700-channel host the feature rows have ~7000 columns and the
 * training set a few thousand rows; the exact fit then reduces a
 * thousands-square matrix to tridiagonal form, which costs tens of seconds.
 * When the basis is capped well below both sides (max_comp), the top
 * components are found instead with a randomized range finder (Halko,
 * Martinsson and Tropp 2011, algorithm 4.4): Y = Xc * Omega with a Gaussian
 * Omega of l = k + RAND_OVERSAMPLE columns, RAND_POWER_ITERS power
 * iterations with re-orthonormalisation, B = Q^T Xc, and the small l x l
 * eigenproblem of B B^T. Everything heavy is float sgemm; the small
 * eigenproblem and the variance bookkeeping are in double. The random
 * matrix comes from a fixed seed, so fits are reproducible.
 */
#include <cblas.h>
#include <errno.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "detect/pca.h"
#include "detect/pca_int.h"

enum {
	RAND_OVERSAMPLE = 16,     /* extra columns of the sketch */
	RAND_POWER_ITERS = 2,     /* sharpen the spectrum of slowly decaying data */
	RAND_MIN_SIDE = 1024,     /* below this, the exact fit is fast enough */
	RAND_CAP_RATIO = 4,       /* randomized when side >= ratio x cap */
};
#define RAND_SEED 0x5eedc0ffeeULL

int rv_pca_use_randomized(size_t n, size_t F, size_t max_comp)
{
	size_t side = n < F ? n : F;

	return max_comp > 0 && side >= RAND_MIN_SIDE && side >= RAND_CAP_RATIO * max_comp;
}

/* Orthonormalises the columns of the rows x cols row-major matrix a. */
static int orthonormalise(float *a, size_t rows, size_t cols, float *tau)
{
	lapack_int info = LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)cols, a,
					 (lapack_int)cols, tau);

	if (info == 0)
		info = LAPACKE_sorgqr(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)cols,
				      (lapack_int)cols, a, (lapack_int)cols, tau);
	return info == 0 ? 0 : -EIO;
}

/* Centred float copy of x; total receives the trace of the covariance. */
static float *centre(const float *x, size_t ld, size_t n, size_t F, const double *mu,
		     double *total)
{
	float *xc = malloc(n * F * sizeof(*xc));
	double ss = 0.0;

	if (!xc)
		return NULL;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < F; j++) {
			double d = x[i * ld + j] - mu[j];
			xc[i * F + j] = (float)d;
			ss += d * d;
		}
	*total = ss / (double)(n - 1);
	return xc;
}

/* Q (n x l): an orthonormal basis of the range of xc's top directions. */
static int range_finder(const float *xc, size_t n, size_t F, size_t l, float *q, float *z,
			float *tau)
{
	struct rv_rng rng;
	int rc;

	rv_rng_seed(&rng, RAND_SEED);
	for (size_t i = 0; i < F * l; i++) {
		double u = rv_rng_uniform(&rng), v = rv_rng_uniform(&rng);
		z[i] = (float)(sqrt(-2.0 * log(u > 0.0 ? u : 1e-300)) * cos(2.0 * M_PI * v));
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)l, (int)F, 1.0f, xc,
		    (int)F, z, (int)l, 0.0f, q, (int)l);
	rc = orthonormalise(q, n, l, tau);
	for (int it = 0; it < RAND_POWER_ITERS && !rc; it++) {
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)F, (int)l, (int)n, 1.0f,
			    xc, (int)F, q, (int)l, 0.0f, z, (int)l);
		rc = orthonormalise(z, F, l, tau);
		if (rc)
			break;
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)l, (int)F, 1.0f,
			    xc, (int)F, z, (int)l, 0.0f, q, (int)l);
		rc = orthonormalise(q, n, l, tau);
	}
	return rc;
}

/* Eigenpairs of B B^T (l x l, B = Q^T xc is l x F): w ascending, u column-major. */
static int small_eig(const float *b, size_t l, size_t F, double *w, double *u)
{
	float *g = malloc(l * l * sizeof(*g));
	lapack_int info;

	if (!g)
		return -ENOMEM;
	cblas_ssyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)l, (int)F, 1.0f, b, (int)F,
		    0.0f, g, (int)l);
	for (size_t i = 0; i < l; i++)
		for (size_t j = 0; j <= i; j++)
			u[j * l + i] = u[i * l + j] = g[i * l + j];
	free(g);
	info = LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'L', (lapack_int)l, u, (lapack_int)l, w);
	return info == 0 ? 0 : -EIO;
}

/* V[:, c] = B^T u_c / sigma_c for the top k pairs (one sgemm);
 * lambda = sigma^2 / (n - 1). */
static int fill_basis(struct rv_pca *p, const float *b, size_t l, size_t n, const double *w,
		      const double *u)
{
	float *uk = malloc(l * p->k * sizeof(*uk));

	if (!uk)
		return -ENOMEM;
	for (size_t c = 0; c < p->k; c++) {
		size_t src = l - 1 - c;           /* eigenvalues ascend */
		double sigma = sqrt(w[src]);

		p->lambda[c] = w[src] / (double)(n - 1);
		for (size_t r = 0; r < l; r++)
			uk[r * p->k + c] = (float)(u[src * l + r] / sigma);
	}
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)p->F, (int)p->k, (int)l, 1.0f, b,
		    (int)p->F, uk, (int)p->k, 0.0f, p->V, (int)p->k);
	free(uk);
	return 0;
}

/* Eigenpairs of the sketch (w ascending, u) -> the model: k by var_keep
 * against the covariance trace `total`, the basis from B. */
static int basis_from_sketch(const float *b, size_t l, size_t n, size_t F, double var_keep,
			     size_t max_comp, double total, const double *mu, double *w,
			     const double *u, struct rv_pca **out, struct rv_err *err)
{
	struct rv_pca *p;
	size_t k;
	int rc;

	for (size_t i = 0; i < l; i++)
		w[i] = w[i] > 0.0 ? w[i] : 0.0;
	if (!(w[l - 1] > 0.0) || !(total > 0.0))
		return rv_err_set(err, -EINVAL, "pca: the %zu rows have no variance", n);
	/* choose_k compares eigenvalues with the covariance trace: scale them. */
	for (size_t i = 0; i < l; i++)
		w[i] /= (double)(n - 1);
	k = rv_pca_choose_k(w, l, total, var_keep, max_comp);
	for (size_t i = 0; i < l; i++)
		w[i] *= (double)(n - 1);
	p = rv_pca_alloc(F, k);
	if (!p)
		return -ENOMEM;
	memcpy(p->mu, mu, F * sizeof(*mu));
	rc = fill_basis(p, b, l, n, w, u);
	if (rc) {
		rv_pca_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int rv_pca_fit_randomized(const float *x, size_t ld, size_t n, size_t F, double var_keep,
			  size_t max_comp, const double *mu, struct rv_pca **out,
			  struct rv_err *err)
{
	size_t side = n < F ? n : F, l = max_comp + RAND_OVERSAMPLE;
	float *xc, *q = NULL, *z = NULL, *tau = NULL, *b = NULL;
	double total = 0.0, *w = NULL, *u = NULL;
	int rc = -ENOMEM;

	*out = NULL;
	if (l > side)
		l = side;
	xc = centre(x, ld, n, F, mu, &total);
	q = malloc(n * l * sizeof(*q));
	z = malloc(F * l * sizeof(*z));
	tau = malloc(l * sizeof(*tau));
	w = malloc(l * sizeof(*w));
	u = malloc(l * l * sizeof(*u));
	if (!xc || !q || !z || !tau || !w || !u)
		goto out;
	rc = range_finder(xc, n, F, l, q, z, tau);
	free(z);
	z = NULL;
	if (!rc && !(b = malloc(l * F * sizeof(*b))))
		rc = -ENOMEM;
	if (!rc) {
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)l, (int)F, (int)n, 1.0f, q,
			    (int)l, xc, (int)F, 0.0f, b, (int)F);
		rc = small_eig(b, l, F, w, u);
	}
	if (!rc)
		rc = basis_from_sketch(b, l, n, F, var_keep, max_comp, total, mu, w, u, out, err);
out:
	if (rc == -ENOMEM)
		rv_err_set(err, rc, "pca: out of memory for a %zu x %zu randomized fit", n, F);
	else if (rc == -EIO)
		rv_err_set(err, rc, "pca: LAPACK failed in the randomized fit");
	free(xc);
	free(q);
	free(z);
	free(tau);
	free(w);
	free(u);
	free(b);
	return rc;
}
