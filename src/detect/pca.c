/*
 * pca.c - see pca.h. Fitting forms the smaller of the F x F covariance and
 * the n x n Gram matrix in double with dsyrk over blocks of centred rows or
 * features (no n x F copy of the data), then splits the eigenproblem into
 * its LAPACK steps (dsytrd, dsterf, dstemr, dormtr) so that the costly
 * tridiagonal reduction runs once: all eigenvalues come first (they decide
 * k), then eigenvectors for the top k only.
 * Scoring is one float sgemv against the F x k basis and allocates nothing;
 * the caller's scratch holds the float vectors.
 */
#include "detect/pca.h"
#include "detect/pca_int.h"

#include <cblas.h>
#include <errno.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
	PCA_MAGIC = 0x31414350,     /* "PCA1" little-endian: section tag */
	PCA_VERSION = 1,
	BLOCK = 256,                /* rows or features centred per BLAS call */
	COV_BLOCK = 1024,           /* rows summed in float per covariance block */
};

/* Eigenvalues at or below this share of the largest are numerical noise
 * (centred data has rank <= n - 1) and would blow up 1 / lambda. */
static const double EIG_REL_FLOOR = 1e-12;


/* An eigendecomposition in progress: symmetric m x m matrix a (column-major,
 * lower triangle) and what the steps leave behind. */
struct eig_work {
	size_t m;
	double *a, *d, *e, *tau;
	double *w;         /* eigenvalues; all m ascending, then the top k */
	double *z;         /* m x k eigenvectors, column-major, ascending */
	double total;      /* trace: the total variance */
};

static void eig_work_fini(struct eig_work *ew)
{
	free(ew->a);
	free(ew->d);
	free(ew->e);
	free(ew->tau);
	free(ew->w);
	free(ew->z);
	memset(ew, 0, sizeof(*ew));
}

struct rv_pca *rv_pca_alloc(size_t F, size_t k)
{
	struct rv_pca *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->F = F;
	p->k = k;
	p->mu = malloc(F * sizeof(*p->mu));
	p->lambda = malloc(k * sizeof(*p->lambda));
	p->V = malloc(F * k * sizeof(*p->V));
	if (!p->mu || !p->lambda || !p->V) {
		rv_pca_free(p);
		return NULL;
	}
	return p;
}

void rv_pca_free(struct rv_pca *p)
{
	if (!p)
		return;
	free(p->mu);
	free(p->lambda);
	free(p->V);
	free(p);
}

size_t rv_pca_dim(const struct rv_pca *p)
{
	return p->F;
}

size_t rv_pca_ncomp(const struct rv_pca *p)
{
	return p->k;
}

size_t rv_pca_scratch_len(const struct rv_pca *p)
{
	/* Scoring needs 2F + k floats; k + F doubles hold that. */
	return p->k + p->F;
}

static int check_fit_args(const float *x, size_t ld, size_t n, size_t F, double var_keep,
			  struct rv_err *err)
{
	size_t m = F > n ? n : F;     /* side of the matrix to decompose */

	if (n < 2 || F < 1)
		return rv_err_set(err, -EINVAL, "pca: need at least 2 rows and 1 feature (got %zu x %zu)",
				  n, F);
	if (!(var_keep > 0.0 && var_keep <= 1.0))
		return rv_err_set(err, -EINVAL, "pca: variance share %g is not in (0, 1]", var_keep);
	if (ld < F)
		return rv_err_set(err, -EINVAL, "pca: rows %zu apart hold fewer than %zu features",
				  ld, F);
	if (n > INT_MAX || F > INT_MAX || n > SIZE_MAX / ld / sizeof(double) ||
	    m > SIZE_MAX / m / sizeof(double))
		return rv_err_set(err, -EINVAL, "pca: %zu x %zu is too large", n, F);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < F; j++)
			if (!isfinite(x[i * ld + j]))
				return rv_err_set(err, -EINVAL,
						  "pca: row %zu feature %zu is not finite", i, j);
	return 0;
}

static void column_means(const float *x, size_t ld, size_t n, size_t F, double *mu)
{
	memset(mu, 0, F * sizeof(*mu));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < F; j++)
			mu[j] += x[i * ld + j];
	for (size_t j = 0; j < F; j++)
		mu[j] /= (double)n;
}

/* Rows [i0, i0 + ni) and features [j0, j0 + nj) of x - mu into the
 * row-major ni x nj double block. */
static void centred_block(const float *x, size_t ld, const double *mu, size_t i0, size_t ni,
			  size_t j0, size_t nj, double *blk)
{
	for (size_t i = 0; i < ni; i++)
		for (size_t j = 0; j < nj; j++)
			blk[i * nj + j] = (double)x[(i0 + i) * ld + j0 + j] - mu[j0 + j];
}

/*
 * Forms the covariance (F <= n) or Gram (F > n) matrix, scaled by 1/(n-1),
 * in double. The centred rows are never held whole: dsyrk accumulates
 * blocks of rows (covariance, Xc_b^T Xc_b) or of features (Gram,
 * Xc_b Xc_b^T), so the only large allocation is the m x m result.
 */
/*
 * Covariance (F <= n) from float blocks: ssyrk runs at twice dsyrk's speed;
 * each block of COV_BLOCK rows is summed in float into `part` and added to
 * the double matrix, so rounding grows with the block, not with n
 * (about 1e-6 relative for 1024 rows of standardized features).
 */
static int form_cov_float(const float *x, size_t ld, size_t n, size_t F, const double *mu,
			  struct eig_work *ew)
{
	double alpha = 1.0 / (double)(n - 1);
	float *blk = malloc(COV_BLOCK * F * sizeof(*blk));
	float *part = malloc(F * F * sizeof(*part));

	if (!blk || !part) {
		free(blk);
		free(part);
		return -ENOMEM;
	}
	memset(ew->a, 0, F * F * sizeof(*ew->a));
	for (size_t b0 = 0; b0 < n; b0 += COV_BLOCK) {
		size_t nb = n - b0 < COV_BLOCK ? n - b0 : COV_BLOCK;

		for (size_t i = 0; i < nb; i++)
			for (size_t j = 0; j < F; j++)
				blk[i * F + j] = (float)((double)x[(b0 + i) * ld + j] - mu[j]);
		cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)F, (int)nb, 1.0f, blk,
			    (int)F, 0.0f, part, (int)F);
		for (size_t c = 0; c < F; c++)
			for (size_t r = c; r < F; r++)
				ew->a[c * F + r] += (double)part[c * F + r];
	}
	for (size_t c = 0; c < F; c++)
		for (size_t r = c; r < F; r++)
			ew->a[c * F + r] *= alpha;
	free(blk);
	free(part);
	return 0;
}

static int form_cross(const float *x, size_t ld, size_t n, size_t F, const double *mu,
		      struct eig_work *ew)
{
	int gram = F > n;
	size_t m = gram ? n : F, len = gram ? F : n;
	double alpha = 1.0 / (double)(n - 1);
	double *blk;
	int rc;

	ew->m = m;
	ew->a = malloc(m * m * sizeof(*ew->a));
	if (!ew->a)
		return -ENOMEM;
	if (!gram) {
		rc = form_cov_float(x, ld, n, F, mu, ew);
		goto total;
	}
	blk = malloc(BLOCK * m * sizeof(*blk));
	if (!blk)
		return -ENOMEM;
	for (size_t b0 = 0; b0 < len; b0 += BLOCK) {
		size_t nb = len - b0 < BLOCK ? len - b0 : BLOCK;
		double beta = b0 ? 1.0 : 0.0;

		/* A row-major n x nb block is the column-major nb x n matrix. */
		centred_block(x, ld, mu, 0, n, b0, nb, blk);
		cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, (int)m, (int)nb, alpha, blk,
			    (int)nb, beta, ew->a, (int)m);
	}
	free(blk);
	rc = 0;
total:
	ew->total = 0.0;
	for (size_t i = 0; i < m; i++)
		ew->total += ew->a[i * m + i];
	return rc;
}

/* LAPACKE's own allocation failures are -ENOMEM; any other failure -EIO. */
static int lapack_errno(lapack_int info)
{
	if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
		return -ENOMEM;
	return -EIO;
}

/* Reduces a to tridiagonal form and puts all eigenvalues, ascending, in w. */
static int eig_values(struct eig_work *ew, struct rv_err *err)
{
	size_t m = ew->m;
	double *e2;
	lapack_int rc;

	ew->d = malloc(m * sizeof(*ew->d));
	ew->e = malloc(m * sizeof(*ew->e));       /* dstemr wants m, not m - 1 */
	ew->tau = malloc(m * sizeof(*ew->tau));
	ew->w = malloc(m * sizeof(*ew->w));
	e2 = malloc(m * sizeof(*e2));
	if (!ew->d || !ew->e || !ew->tau || !ew->w || !e2) {
		free(e2);
		return rv_err_set(err, -ENOMEM, "pca: out of memory for a %zu x %zu eigenproblem", m, m);
	}
	ew->e[m - 1] = 0.0;
	rc = LAPACKE_dsytrd(LAPACK_COL_MAJOR, 'L', (lapack_int)m, ew->a, (lapack_int)m,
			    ew->d, ew->e, ew->tau);
	if (rc == 0) {
		memcpy(ew->w, ew->d, m * sizeof(*ew->w));
		memcpy(e2, ew->e, m * sizeof(*e2));
		rc = LAPACKE_dsterf((lapack_int)m, ew->w, e2);
	}
	free(e2);
	if (rc != 0)
		return rv_err_set(err, lapack_errno(rc),
				  "pca: eigenvalues of the %zu x %zu matrix failed (LAPACK info %d)",
				  m, m, (int)rc);
	return 0;
}

/*
 * Fewest leading components whose cumulative share exceeds var_keep, as
 * sklearn's PCA(n_components=var_keep) counts them (strictly greater), then
 * without noise-level eigenvalues and capped by max_comp. w is ascending.
 */
size_t rv_pca_choose_k(const double *w, size_t m, double total, double var_keep,
		       size_t max_comp)
{
	double floor_ = EIG_REL_FLOOR * w[m - 1];
	double cum = 0.0;
	size_t k = 0;

	while (k < m && w[m - 1 - k] > floor_) {
		cum += w[m - 1 - k];
		k++;
		if (var_keep < 1.0 && cum > var_keep * total)
			break;
	}
	if (max_comp > 0 && k > max_comp)
		k = max_comp;
	return k;
}

/* Top-k eigenpairs of the tridiagonal form, back-transformed into z. */
static int eig_vectors(struct eig_work *ew, size_t k, struct rv_err *err)
{
	lapack_int m = (lapack_int)ew->m, found = 0;
	lapack_int *isuppz = malloc(2 * (size_t)k * sizeof(*isuppz));
	lapack_logical tryrac = 1;
	lapack_int rc;

	ew->z = malloc(ew->m * k * sizeof(*ew->z));
	if (!ew->z || !isuppz) {
		free(isuppz);
		return rv_err_set(err, -ENOMEM, "pca: out of memory for %zu eigenvectors", k);
	}
	rc = LAPACKE_dstemr(LAPACK_COL_MAJOR, 'V', 'I', m, ew->d, ew->e, 0.0, 0.0,
			    m - (lapack_int)k + 1, m, &found, ew->w, ew->z, m,
			    (lapack_int)k, isuppz, &tryrac);
	free(isuppz);
	if (rc == 0 && found != (lapack_int)k)
		return rv_err_set(err, -EIO, "pca: LAPACK found %d of %zu eigenvectors",
				  (int)found, k);
	if (rc == 0)
		rc = LAPACKE_dormtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', m, (lapack_int)k, ew->a, m,
				    ew->tau, ew->z, m);
	if (rc != 0)
		return rv_err_set(err, lapack_errno(rc),
				  "pca: eigenvectors of the %zu x %zu matrix failed (LAPACK info %d)",
				  ew->m, ew->m, (int)rc);
	return 0;
}

/* Covariance route: z already holds the F-long basis vectors. */
static void basis_from_cov(struct rv_pca *p, const struct eig_work *ew)
{
	size_t F = p->F, k = p->k;

	for (size_t c = 0; c < k; c++) {
		const double *zc = ew->z + (k - 1 - c) * F;
		for (size_t j = 0; j < F; j++)
			p->V[j * k + c] = (float)zc[j];
	}
}

/* Gram route, step 1: the top-k eigenvectors as a row-major n x k float
 * matrix, descending (z holds them ascending, column-major). */
static float *gram_u(const struct eig_work *ew, size_t k)
{
	size_t n = ew->m;
	float *u = malloc(n * k * sizeof(*u));

	if (!u)
		return NULL;
	for (size_t c = 0; c < k; c++) {
		const double *zc = ew->z + (k - 1 - c) * n;
		for (size_t i = 0; i < n; i++)
			u[i * k + c] = (float)zc[i];
	}
	return u;
}

/*
 * Gram route, step 2: v = Xc^T u, normalised (its norm is sqrt((n-1)
 * lambda)). Float is enough here: V is stored as float. Features go a block
 * at a time, so V's rows are filled in order and Xc is again never whole.
 */
static int basis_from_gram(struct rv_pca *p, const float *x, size_t ld, size_t n,
			   const struct eig_work *ew, struct rv_err *err)
{
	size_t F = p->F, k = p->k;
	float *u = gram_u(ew, k), *blk = malloc(BLOCK * n * sizeof(*blk));
	double *norm2 = calloc(k, sizeof(*norm2));
	int rc = 0;

	if (!u || !blk || !norm2) {
		rc = rv_err_set(err, -ENOMEM, "pca: out of memory mapping eigenvectors back");
		goto out;
	}
	for (size_t j0 = 0; j0 < F; j0 += BLOCK) {
		size_t nb = F - j0 < BLOCK ? F - j0 : BLOCK;

		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < nb; j++)
				blk[i * nb + j] = (float)((double)x[i * ld + j0 + j] - p->mu[j0 + j]);
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)nb, (int)k, (int)n, 1.0f,
			    blk, (int)nb, u, (int)k, 0.0f, p->V + j0 * k, (int)k);
	}
	for (size_t j = 0; j < F; j++)
		for (size_t c = 0; c < k; c++)
			norm2[c] += (double)p->V[j * k + c] * p->V[j * k + c];
	for (size_t c = 0; c < k; c++)
		if (!(norm2[c] > 0.0)) {
			rc = rv_err_set(err, -EIO, "pca: component %zu maps to a zero vector", c);
			goto out;
		}
	for (size_t j = 0; j < F; j++)
		for (size_t c = 0; c < k; c++)
			p->V[j * k + c] = (float)(p->V[j * k + c] / sqrt(norm2[c]));
out:
	free(u);
	free(blk);
	free(norm2);
	return rc;
}

/* Everything after the means: eigenproblem, k, basis. */
static int fit_centred(const float *x, size_t ld, size_t n, size_t F, double var_keep,
		       size_t max_comp, const double *mu, struct rv_pca **out,
		       struct rv_err *err)
{
	struct eig_work ew = { 0 };
	struct rv_pca *p = NULL;
	size_t k;
	int rc = form_cross(x, ld, n, F, mu, &ew);

	if (rc < 0) {
		rc = rv_err_set(err, rc, "pca: out of memory for a %zu-square matrix", ew.m);
		goto out;
	}
	rc = eig_values(&ew, err);
	if (rc < 0)
		goto out;
	if (!(ew.w[ew.m - 1] > 0.0) || !(ew.total > 0.0)) {
		rc = rv_err_set(err, -EINVAL, "pca: the %zu rows have no variance", n);
		goto out;
	}
	k = rv_pca_choose_k(ew.w, ew.m, ew.total, var_keep, max_comp);
	rc = eig_vectors(&ew, k, err);
	if (rc < 0)
		goto out;
	free(ew.a);                 /* the reflectors are spent: lower the peak */
	ew.a = NULL;
	p = rv_pca_alloc(F, k);
	if (!p) {
		rc = rv_err_set(err, -ENOMEM, "pca: out of memory for a %zu x %zu basis", F, k);
		goto out;
	}
	memcpy(p->mu, mu, F * sizeof(*mu));
	for (size_t c = 0; c < k; c++)
		p->lambda[c] = ew.w[k - 1 - c];
	if (F > n)
		rc = basis_from_gram(p, x, ld, n, &ew, err);
	else
		basis_from_cov(p, &ew);
out:
	eig_work_fini(&ew);
	if (rc < 0) {
		rv_pca_free(p);
		p = NULL;
	}
	*out = p;
	return rc;
}

int rv_pca_fit(const float *x, size_t n, size_t F, double var_keep, size_t max_comp,
	       struct rv_pca **out, struct rv_err *err)
{
	return rv_pca_fit_ld(x, F, n, F, var_keep, max_comp, out, err);
}

int rv_pca_fit_ld(const float *x, size_t ld, size_t n, size_t F, double var_keep,
		  size_t max_comp, struct rv_pca **out, struct rv_err *err)
{
	double *mu;
	int rc;

	*out = NULL;
	rc = check_fit_args(x, ld, n, F, var_keep, err);
	if (rc < 0)
		return rc;
	mu = malloc(F * sizeof(*mu));
	if (!mu)
		return rv_err_set(err, -ENOMEM, "pca: out of memory for %zu means", F);
	column_means(x, ld, n, F, mu);
	if (rv_pca_use_randomized(n, F, max_comp))
		rc = rv_pca_fit_randomized(x, ld, n, F, var_keep, max_comp, mu, out, err);
	else
		rc = fit_centred(x, ld, n, F, var_keep, max_comp, mu, out, err);
	free(mu);
	return rc;
}

/*
 * Centres x into xc (float) and projects: t = V^T xc. The float vectors live
 * in the caller's scratch: xc at [0, F), t at [F, F + k), the rest after.
 */
static float *project(const struct rv_pca *p, const float *x, double *scratch)
{
	float *xc = (float *)scratch;

	for (size_t j = 0; j < p->F; j++)
		xc[j] = (float)((double)x[j] - p->mu[j]);
	cblas_sgemv(CblasRowMajor, CblasTrans, (int)p->F, (int)p->k, 1.0f, p->V, (int)p->k,
		    xc, 1, 0.0f, xc + p->F, 1);
	return xc;
}

/* Shares s_j renormalised to sum total; negatives dropped unless all are. */
static void normalise_shares(double *s, size_t F, double total)
{
	double pos = 0.0, abs_sum = 0.0;

	for (size_t j = 0; j < F; j++) {
		abs_sum += fabs(s[j]);
		if (s[j] > 0.0)
			pos += s[j];
	}
	for (size_t j = 0; j < F; j++) {
		if (pos > 0.0)
			s[j] = s[j] > 0.0 ? s[j] * (total / pos) : 0.0;
		else if (abs_sum > 0.0)
			s[j] = fabs(s[j]) * (total / abs_sum);
		else
			s[j] = 0.0;
	}
}

double rv_pca_t2(const struct rv_pca *p, const float *x, double *contrib, double *scratch)
{
	float *xc = project(p, x, scratch);
	float *t = xc + p->F, *w = t + p->k;
	double q = 0.0;

	for (size_t c = 0; c < p->k; c++)
		q += (double)t[c] * t[c] / p->lambda[c];
	if (contrib) {
		/* T2^2 = xc . w with w = V (t / lambda): an exact split by feature. */
		for (size_t c = 0; c < p->k; c++)
			t[c] = (float)(t[c] / p->lambda[c]);
		cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)p->F, (int)p->k, 1.0f, p->V,
			    (int)p->k, t, 1, 0.0f, w, 1);
		for (size_t j = 0; j < p->F; j++)
			contrib[j] = (double)xc[j] * w[j];
		normalise_shares(contrib, p->F, q);
	}
	return sqrt(q);
}

double rv_pca_spe(const struct rv_pca *p, const float *x, double *contrib, double *scratch)
{
	float *xc = project(p, x, scratch);
	float *t = xc + p->F, *r = t + p->k;
	double spe = 0.0, tt = 0.0;

	if (!contrib) {
		/* Scoring only: with an orthonormal V, |r|^2 = |xc|^2 - |t|^2 saves the
		 * second product. In double, the cancellation costs ~1e-6 relative
		 * at a 5 % residual share, far below what a threshold resolves. */
		for (size_t j = 0; j < p->F; j++)
			spe += (double)xc[j] * xc[j];
		for (size_t c = 0; c < p->k; c++)
			tt += (double)t[c] * t[c];
		return spe > tt ? spe - tt : 0.0;
	}
	/* r = xc - V t, formed explicitly for the per-feature split. */
	memcpy(r, xc, p->F * sizeof(*r));
	cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)p->F, (int)p->k, -1.0f, p->V, (int)p->k,
		    t, 1, 1.0f, r, 1);
	for (size_t j = 0; j < p->F; j++) {
		double rj2 = (double)r[j] * r[j];
		spe += rj2;
		contrib[j] = rj2;
	}
	return spe;
}

void rv_pca_save(const struct rv_pca *p, struct rv_wbuf *b)
{
	rv_wbuf_u32(b, PCA_MAGIC);
	rv_wbuf_u32(b, PCA_VERSION);
	rv_wbuf_u64(b, p->F);
	rv_wbuf_u64(b, p->k);
	rv_wbuf_f64s(b, p->mu, p->F);
	rv_wbuf_f64s(b, p->lambda, p->k);
	rv_wbuf_f32s(b, p->V, p->F * p->k);
}

/* Header fields; the sizes must fit what is left of the buffer. */
static int load_header(struct rv_rbuf *b, size_t *F, size_t *k, struct rv_err *err)
{
	uint32_t magic = rv_rbuf_u32(b), version = rv_rbuf_u32(b);
	uint64_t f = rv_rbuf_u64(b), kk = rv_rbuf_u64(b);

	if (b->bad)
		return rv_err_set(err, -EINVAL, "pca: model section is truncated");
	if (magic != PCA_MAGIC)
		return rv_err_set(err, -EINVAL, "pca: model section has tag 0x%08x, not PCA",
				  (unsigned)magic);
	if (version != PCA_VERSION)
		return rv_err_set(err, -EINVAL, "pca: model version %u is not supported",
				  (unsigned)version);
	if (f < 1 || f > INT_MAX || kk < 1 || kk > f)
		return rv_err_set(err, -EINVAL, "pca: model has %llu components over %llu features",
				  (unsigned long long)kk, (unsigned long long)f);
	/* f, kk < 2^31 so these products cannot overflow 64 bits. */
	if (!rv_rbuf_has(b, (size_t)(f + kk), sizeof(double)) ||
	    !rv_rbuf_has(b, (size_t)(f * kk), sizeof(float)) ||
	    !rv_rbuf_has(b, (size_t)((f + kk) * sizeof(double) + f * kk * sizeof(float)), 1))
		return rv_err_set(err, -EINVAL, "pca: model section is truncated (%llu x %llu basis)",
				  (unsigned long long)f, (unsigned long long)kk);
	*F = (size_t)f;
	*k = (size_t)kk;
	return 0;
}

static int check_values(const struct rv_pca *p, struct rv_err *err)
{
	for (size_t j = 0; j < p->F; j++)
		if (!isfinite(p->mu[j]))
			return rv_err_set(err, -EINVAL, "pca: model mean %zu is not finite", j);
	for (size_t c = 0; c < p->k; c++)
		if (!(p->lambda[c] > 0.0) || !isfinite(p->lambda[c]))
			return rv_err_set(err, -EINVAL, "pca: model eigenvalue %zu is %g", c,
					  p->lambda[c]);
	for (size_t i = 0; i < p->F * p->k; i++)
		if (!isfinite(p->V[i]))
			return rv_err_set(err, -EINVAL, "pca: model basis value %zu is not finite", i);
	return 0;
}

int rv_pca_load(struct rv_rbuf *b, struct rv_pca **out, struct rv_err *err)
{
	struct rv_pca *p;
	size_t F = 0, k = 0;
	int rc;

	*out = NULL;
	rc = load_header(b, &F, &k, err);
	if (rc < 0)
		return rc;
	p = rv_pca_alloc(F, k);
	if (!p)
		return rv_err_set(err, -ENOMEM, "pca: out of memory for a %zu x %zu model", F, k);
	rv_rbuf_f64s(b, p->mu, F);
	rv_rbuf_f64s(b, p->lambda, k);
	rv_rbuf_f32s(b, p->V, F * k);
	rc = b->bad ? rv_err_set(err, -EINVAL, "pca: model section is truncated")
		    : check_values(p, err);
	if (rc < 0) {
		rv_pca_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

size_t rv_pca_batch_scratch_len(const struct rv_pca *p, size_t n)
{
	return n * (p->F + p->k);
}

/* C = rows - mu (n x F) and T = C V (n x k): one sgemm for the block. */
static void project_batch(const struct rv_pca *p, const float *x, size_t ld, size_t n,
			  float *c, float *t)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < p->F; j++)
			c[i * p->F + j] = (float)((double)x[i * ld + j] - p->mu[j]);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)p->k, (int)p->F, 1.0f,
		    c, (int)p->F, p->V, (int)p->k, 0.0f, t, (int)p->k);
}

void rv_pca_score_batch(const struct rv_pca *p, const float *x, size_t ld, size_t n,
			double *t2, double *spe, float *scratch)
{
	float *c = scratch, *t = scratch + n * p->F;

	project_batch(p, x, ld, n, c, t);
	for (size_t i = 0; i < n; i++) {
		const float *ti = t + i * p->k, *ci = c + i * p->F;
		double q = 0.0, tt = 0.0, cc = 0.0;

		for (size_t k = 0; k < p->k; k++) {
			q += (double)ti[k] * ti[k] / p->lambda[k];
			tt += (double)ti[k] * ti[k];
		}
		if (t2)
			t2[i] = sqrt(q);
		if (spe) {
			for (size_t j = 0; j < p->F; j++)
				cc += (double)ci[j] * ci[j];
			spe[i] = cc > tt ? cc - tt : 0.0;
		}
	}
}
