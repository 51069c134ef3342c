/*
 * pca_test.c - PCA fits against scikit-learn (tests/fixtures/detect/gen_pca.py):
 * component count, eigenvalues, T2 and SPE of test rows on the covariance
 * (F <= n) and Gram (F > n) routes, the max_comp cap, contribution sums,
 * the save/load round trip and refusal of bad arguments and bad model bytes;
 * fits on rows of a wider matrix (rv_pca_fit_ld), and the randomized fit
 * against the exact one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "detect/pca.h"

enum { FIX_MAX_BYTES = 1 << 16, FIX_MAX_NUMS = 4096 };

/* float32 scoring against a float64 reference */
static const double REL_TOL = 1e-4;
/* contribution sums are exact up to double rounding */
static const double SUM_TOL = 1e-9;
static const double VAR_KEEP = 0.95;

struct fixture {
	size_t n, F, ntest, cap, ncomp;
	double var_keep;
	float *train, *test;
	const double *eig, *t2, *spe, *t2_cap, *c_t2, *c_spe;
	double nums[FIX_MAX_NUMS];
	size_t count;
};

/* All numbers of a fixture file, '#' lines skipped. */
static void read_numbers(const char *name, struct fixture *fx)
{
	char path[512];
	const char *dir = getenv("RV_FIXTURES");
	static char text[FIX_MAX_BYTES];
	FILE *f;
	size_t len;

	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/detect/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	len = fread(text, 1, sizeof(text), f);
	fclose(f);
	assert_true(len < sizeof(text));
	fx->count = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			p++;
		} else if (*p == '#') {
			while (p < end && *p != '\n')
				p++;
		} else {
			assert_true(fx->count < FIX_MAX_NUMS);
			assert_int_equal(rv_str_double(&p, end, &fx->nums[fx->count]), 0);
			fx->count++;
		}
	}
}

static float *floats(const double *v, size_t n)
{
	float *out = malloc(n * sizeof(*out));

	assert_non_null(out);
	for (size_t i = 0; i < n; i++)
		out[i] = (float)v[i];
	return out;
}

static struct fixture *load_fixture(const char *name)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	const double *v;

	assert_non_null(fx);
	read_numbers(name, fx);
	v = fx->nums;
	fx->n = (size_t)v[0];
	fx->F = (size_t)v[1];
	fx->ntest = (size_t)v[2];
	fx->var_keep = v[3];
	fx->cap = (size_t)v[4];
	fx->ncomp = (size_t)v[5];
	v += 6;
	assert_int_equal(fx->count, 6 + (fx->n + 3 * fx->ntest) * fx->F + fx->ncomp + 3 * fx->ntest);
	fx->train = floats(v, fx->n * fx->F);
	v += fx->n * fx->F;
	fx->test = floats(v, fx->ntest * fx->F);
	v += fx->ntest * fx->F;
	fx->eig = v;
	fx->t2 = v + fx->ncomp;
	fx->spe = fx->t2 + fx->ntest;
	fx->t2_cap = fx->spe + fx->ntest;
	fx->c_t2 = fx->t2_cap + fx->ntest;
	fx->c_spe = fx->c_t2 + fx->ntest * fx->F;
	return fx;
}

static void free_fixture(struct fixture *fx)
{
	free(fx->train);
	free(fx->test);
	free(fx);
}

static void assert_close(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.10g, want %.10g (tol %.3g)", got, want, tol);
}

static double sum(const double *v, size_t n)
{
	double s = 0.0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* Non-negative shares, each within REL_TOL of the total from the reference
 * (want NULL: only the sign), summing to total. */
static void check_shares(const double *got, const double *want, size_t n, double total)
{
	for (size_t i = 0; i < n; i++) {
		assert_true(got[i] >= 0.0);
		if (want)
			assert_close(got[i], want[i], REL_TOL * total);
	}
	assert_close(sum(got, n), total, SUM_TOL * total);
}

/* T2 of the test rows against sklearn; with full also SPE and both
 * contribution vectors. */
static void check_scores(const struct rv_pca *p, const struct fixture *fx, const double *t2ref,
			 int full)
{
	size_t F = fx->F;
	double *scratch = malloc(rv_pca_scratch_len(p) * sizeof(double));
	double *contrib = malloc(F * sizeof(double));
	double spe_scale = sum(fx->eig, fx->ncomp);

	assert_non_null(scratch);
	assert_non_null(contrib);
	for (size_t i = 0; i < fx->ntest; i++) {
		const float *x = fx->test + i * F;
		double t2 = rv_pca_t2(p, x, contrib, scratch);

		assert_close(t2, t2ref[i], REL_TOL * t2ref[i]);
		check_shares(contrib, full ? fx->c_t2 + i * F : NULL, F, t2 * t2);
		assert_true(rv_pca_t2(p, x, NULL, scratch) == t2);
		if (!full)
			continue;
		double spe = rv_pca_spe(p, x, contrib, scratch);
		/* the along-axis row has a ~0 residual: absolute floor */
		double spe_tol = REL_TOL * (fx->spe[i] + 1e-3 * spe_scale);
		assert_close(spe, fx->spe[i], spe_tol);
		for (size_t j = 0; j < F; j++)
			assert_close(contrib[j], fx->c_spe[i * F + j], spe_tol);
		check_shares(contrib, NULL, F, spe);
	}
	free(scratch);
	free(contrib);
}

/* Copy of the n x F rows x at stride F + pad, NaN in the padding: a fit
 * that read it would refuse the rows as not finite. */
static float *padded(const float *x, size_t n, size_t F, size_t pad)
{
	float *y = malloc(n * (F + pad) * sizeof(*y));

	assert_non_null(y);
	for (size_t i = 0; i < n; i++) {
		memcpy(y + i * (F + pad), x + i * F, F * sizeof(*y));
		for (size_t j = F; j < F + pad; j++)
			y[i * (F + pad) + j] = NAN;
	}
	return y;
}

/* Two models score the m rows x exactly alike (T2 and SPE). */
static void same_scores(const struct rv_pca *a, const struct rv_pca *b, const float *x,
			size_t m, size_t F)
{
	double *sa = malloc(rv_pca_scratch_len(a) * sizeof(double));
	double *sb = malloc(rv_pca_scratch_len(b) * sizeof(double));

	assert_non_null(sa);
	assert_non_null(sb);
	assert_int_equal(rv_pca_ncomp(a), rv_pca_ncomp(b));
	for (size_t i = 0; i < m; i++) {
		assert_true(rv_pca_t2(a, x + i * F, NULL, sa) == rv_pca_t2(b, x + i * F, NULL, sb));
		assert_true(rv_pca_spe(a, x + i * F, NULL, sa) == rv_pca_spe(b, x + i * F, NULL, sb));
	}
	free(sa);
	free(sb);
}

static void check_case(const char *name)
{
	struct fixture *fx = load_fixture(name);
	struct rv_pca *p = NULL;
	struct rv_err err = { 0 };

	assert_int_equal(rv_pca_fit(fx->train, fx->n, fx->F, fx->var_keep, 0, &p, &err), 0);
	assert_int_equal(rv_pca_dim(p), fx->F);
	assert_int_equal(rv_pca_ncomp(p), fx->ncomp);
	check_scores(p, fx, fx->t2, 1);
	rv_pca_free(p);

	/* max_comp caps k: the scores are those of sklearn's 2-component fit */
	assert_true(fx->cap < fx->ncomp);
	assert_int_equal(rv_pca_fit(fx->train, fx->n, fx->F, fx->var_keep, fx->cap, &p, &err), 0);
	assert_int_equal(rv_pca_ncomp(p), fx->cap);
	check_scores(p, fx, fx->t2_cap, 0);

	/* The first F columns of wider rows fit the same model. */
	float *wide = padded(fx->train, fx->n, fx->F, 3);
	struct rv_pca *q = NULL;

	assert_int_equal(rv_pca_fit_ld(wide, fx->F + 3, fx->n, fx->F, fx->var_keep, fx->cap, &q,
				       &err), 0);
	same_scores(p, q, fx->test, fx->ntest, fx->F);
	rv_pca_free(q);
	assert_int_equal(rv_pca_fit_ld(wide, fx->F - 1, fx->n, fx->F, fx->var_keep, 0, &q, &err),
			 -EINVAL);
	free(wide);
	rv_pca_free(p);
	free_fixture(fx);
}

static void test_cov_route(void **state)
{
	(void)state;
	check_case("pca_cov.txt");
}

static void test_gram_route(void **state)
{
	(void)state;
	check_case("pca_gram.txt");
}

/*
 * The eigenvalues are not exposed, but they show through T2: a unit step e_j
 * from the mean has T2^2 = sum_c v_jc^2 / lambda_c, so the sum over all F
 * steps is sum_c |v_c|^2 / lambda_c = sum_c 1 / lambda_c (sklearn's values).
 */
static void check_eigen_sum(const char *name)
{
	struct fixture *fx = load_fixture(name);
	struct rv_pca *p = NULL;
	size_t F = fx->F;
	double *mu = calloc(F, sizeof(double));
	float *x = malloc(F * sizeof(float));
	double *scratch, want = 0.0, got = 0.0;

	assert_non_null(mu);
	assert_non_null(x);
	assert_int_equal(rv_pca_fit(fx->train, fx->n, F, VAR_KEEP, 0, &p, NULL), 0);
	scratch = malloc(rv_pca_scratch_len(p) * sizeof(double));
	assert_non_null(scratch);
	for (size_t i = 0; i < fx->n; i++)
		for (size_t j = 0; j < F; j++)
			mu[j] += fx->train[i * F + j] / (double)fx->n;
	/* a unit step from a float-rounded mean: compare differences so the
	 * rounding of mu cancels (T2^2 is quadratic, so use +/- steps) */
	for (size_t j = 0; j < F; j++) {
		double sq[2];
		for (int s = 0; s < 2; s++) {
			for (size_t q = 0; q < F; q++)
				x[q] = (float)mu[q];
			x[j] = (float)(mu[j] + (s ? 1.0 : -1.0));
			double t = rv_pca_t2(p, x, NULL, scratch);
			sq[s] = t * t;
		}
		got += 0.5 * (sq[0] + sq[1]);
	}
	for (size_t c = 0; c < fx->ncomp; c++)
		want += 1.0 / fx->eig[c];
	assert_close(got, want, 1e-3 * want);
	free(scratch);
	free(x);
	free(mu);
	rv_pca_free(p);
	free_fixture(fx);
}

static void test_eigenvalues(void **state)
{
	(void)state;
	check_eigen_sum("pca_cov.txt");
	check_eigen_sum("pca_gram.txt");
}

/* var_keep = 1 keeps every component above the noise floor: all 8 on the
 * covariance route, n - 1 = 9 on the Gram route (centring removes one). */
static void test_keep_all(void **state)
{
	struct fixture *cov = load_fixture("pca_cov.txt");
	struct fixture *gram = load_fixture("pca_gram.txt");
	struct rv_pca *p = NULL;
	double *scratch;

	(void)state;
	assert_int_equal(rv_pca_fit(cov->train, cov->n, cov->F, 1.0, 0, &p, NULL), 0);
	assert_int_equal(rv_pca_ncomp(p), cov->F);
	rv_pca_free(p);
	assert_int_equal(rv_pca_fit(gram->train, gram->n, gram->F, 1.0, 0, &p, NULL), 0);
	assert_int_equal(rv_pca_ncomp(p), gram->n - 1);
	/* a training row then lies in the subspace: no residual left */
	scratch = malloc(rv_pca_scratch_len(p) * sizeof(double));
	assert_non_null(scratch);
	assert_true(rv_pca_spe(p, gram->train, NULL, scratch) < 1e-6 * sum(gram->eig, gram->ncomp));
	free(scratch);
	rv_pca_free(p);
	free_fixture(cov);
	free_fixture(gram);
}

/*
 * The randomized fit (a capped basis of a matrix at least RAND_MIN_SIDE on
 * both sides) finds the exact fit's subspace on data with a clear
 * spectrum: rank-5 signal with distinct strengths plus small noise. The
 * exact fit keeps 5 components by variance share, the randomized one by the
 * cap; their scores agree to float accuracy (SPE to that of |x|^2, which
 * its formula subtracts from). Wider rows (ld) change nothing.
 */
static void test_randomized_matches_exact(void **state)
{
	enum { N = 1100, F = 1030, R = 5, M = 40 };
	float *x = malloc((size_t)(N + M) * F * sizeof(*x)), *wide;
	struct rv_pca *exact = NULL, *rnd = NULL, *rnd_ld = NULL;
	double *se, *sr, t2e, t2r, spe_e, spe_r;
	uint64_t st = 12345;

	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < (size_t)(N + M); i++) {
		double f[R];

		for (size_t r = 0; r < R; r++) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			f[r] = ((double)(st >> 11) / 9007199254740992.0 - 0.5) * (double)(10 - 2 * r);
		}
		for (size_t j = 0; j < F; j++) {
			double v = 0.0;

			for (size_t r = 0; r < R; r++)
				v += f[r] * sin((double)((r + 1) * (j + 1)) * 0.37);
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			x[i * F + j] = (float)(v + 1e-3 * ((double)(st >> 11) / 9007199254740992.0 - 0.5));
		}
	}
	assert_int_equal(rv_pca_fit(x, N, F, 0.99, 0, &exact, NULL), 0);
	assert_int_equal(rv_pca_ncomp(exact), R);
	assert_int_equal(rv_pca_fit(x, N, F, 0.99, R, &rnd, NULL), 0);
	assert_int_equal(rv_pca_ncomp(rnd), R);
	wide = padded(x, N, F, 2);
	assert_int_equal(rv_pca_fit_ld(wide, F + 2, N, F, 0.99, R, &rnd_ld, NULL), 0);
	same_scores(rnd, rnd_ld, x + (size_t)N * F, M, F);
	se = malloc(rv_pca_scratch_len(exact) * sizeof(double));
	sr = malloc(rv_pca_scratch_len(rnd) * sizeof(double));
	assert_non_null(se);
	assert_non_null(sr);
	for (size_t i = N; i < (size_t)(N + M); i++) {
		t2e = rv_pca_t2(exact, x + i * F, NULL, se);
		t2r = rv_pca_t2(rnd, x + i * F, NULL, sr);
		spe_e = rv_pca_spe(exact, x + i * F, NULL, se);
		spe_r = rv_pca_spe(rnd, x + i * F, NULL, sr);
		double norm = 0.0;

		for (size_t j = 0; j < F; j++)
			norm += (double)x[i * F + j] * x[i * F + j];
		assert_close(t2r, t2e, 1e-3 * t2e);
		/* SPE = |xc|^2 - |t|^2 of float projections: known to a few
		 * float epsilons of |x|^2, whatever the subspace. */
		assert_close(spe_r, spe_e, 4e-7 * norm);
	}
	free(se);
	free(sr);
	free(wide);
	free(x);
	rv_pca_free(exact);
	rv_pca_free(rnd);
	rv_pca_free(rnd_ld);
}

static void test_bad_args(void **state)
{
	static const float two[2][2] = { { 1, 2 }, { 3, 5 } };
	static const float flat[3][2] = { { 1, 2 }, { 1, 2 }, { 1, 2 } };
	float nan_row[2][2] = { { 1, 2 }, { 3, 5 } };
	struct rv_pca *p = (struct rv_pca *)&p;
	struct rv_err err = { 0 };

	(void)state;
	assert_int_equal(rv_pca_fit(two[0], 1, 2, VAR_KEEP, 0, &p, &err), -EINVAL);
	assert_null(p);
	assert_true(strlen(err.msg) > 0);
	assert_int_equal(rv_pca_fit(two[0], 2, 0, VAR_KEEP, 0, &p, NULL), -EINVAL);
	assert_int_equal(rv_pca_fit(two[0], 2, 2, 0.0, 0, &p, NULL), -EINVAL);
	assert_int_equal(rv_pca_fit(two[0], 2, 2, 1.5, 0, &p, NULL), -EINVAL);
	assert_int_equal(rv_pca_fit(two[0], 2, 2, NAN, 0, &p, NULL), -EINVAL);
	nan_row[1][0] = NAN;
	assert_int_equal(rv_pca_fit(nan_row[0], 2, 2, VAR_KEEP, 0, &p, NULL), -EINVAL);
	assert_int_equal(rv_pca_fit(flat[0], 3, 2, VAR_KEEP, 0, &p, NULL), -EINVAL);
	assert_null(p);
	/* two rows are enough: one component, along the difference */
	assert_int_equal(rv_pca_fit(two[0], 2, 2, VAR_KEEP, 0, &p, NULL), 0);
	assert_int_equal(rv_pca_ncomp(p), 1);
	rv_pca_free(p);
	rv_pca_free(NULL);
}

static struct rv_pca *fit_cov(struct fixture **fxp)
{
	struct rv_pca *p = NULL;

	*fxp = load_fixture("pca_cov.txt");
	assert_int_equal(rv_pca_fit((*fxp)->train, (*fxp)->n, (*fxp)->F, VAR_KEEP, 0, &p, NULL), 0);
	return p;
}

static void test_round_trip(void **state)
{
	struct fixture *fx;
	struct rv_pca *p = fit_cov(&fx), *q = NULL;
	struct rv_wbuf w;
	struct rv_rbuf r;
	double *s1, *s2, *c1, *c2;

	(void)state;
	rv_wbuf_init(&w);
	rv_pca_save(p, &w);
	rv_wbuf_u32(&w, 0xabcd);        /* the next section must stay unread */
	assert_false(w.oom);
	rv_rbuf_init(&r, w.data, w.len);
	assert_int_equal(rv_pca_load(&r, &q, NULL), 0);
	assert_int_equal(rv_rbuf_u32(&r), 0xabcd);
	assert_int_equal(rv_pca_dim(q), fx->F);
	assert_int_equal(rv_pca_ncomp(q), rv_pca_ncomp(p));
	s1 = malloc(rv_pca_scratch_len(p) * sizeof(double));
	s2 = malloc(rv_pca_scratch_len(q) * sizeof(double));
	c1 = malloc(fx->F * sizeof(double));
	c2 = malloc(fx->F * sizeof(double));
	assert_true(s1 && s2 && c1 && c2);
	for (size_t i = 0; i < fx->ntest; i++) {
		const float *x = fx->test + i * fx->F;
		assert_true(rv_pca_t2(p, x, c1, s1) == rv_pca_t2(q, x, c2, s2));
		assert_memory_equal(c1, c2, fx->F * sizeof(double));
		assert_true(rv_pca_spe(p, x, c1, s1) == rv_pca_spe(q, x, c2, s2));
		assert_memory_equal(c1, c2, fx->F * sizeof(double));
	}
	free(s1);
	free(s2);
	free(c1);
	free(c2);
	rv_wbuf_fini(&w);
	rv_pca_free(p);
	rv_pca_free(q);
	free_fixture(fx);
}

/* Loads a model buffer and expects -EINVAL with a message and no model. */
static void expect_refused(const void *data, size_t len)
{
	struct rv_pca *q = (struct rv_pca *)&q;
	struct rv_err err = { 0 };
	struct rv_rbuf r;

	rv_rbuf_init(&r, data, len);
	assert_int_equal(rv_pca_load(&r, &q, &err), -EINVAL);
	assert_null(q);
	assert_int_equal(err.code, -EINVAL);
	assert_true(strlen(err.msg) > 0);
}

static void put_u64(uint8_t *at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		at[i] = (uint8_t)(v >> (8 * i));
}

enum { OFF_MAGIC = 0, OFF_VERSION = 4, OFF_F = 8, OFF_K = 16, OFF_MU = 24 };

static void test_corrupt(void **state)
{
	struct fixture *fx;
	struct rv_pca *p = fit_cov(&fx);
	size_t k = rv_pca_ncomp(p), F = fx->F, off_lambda = OFF_MU + 8 * F;
	struct rv_wbuf w;
	uint8_t *bad;
	double v;

	(void)state;
	rv_wbuf_init(&w);
	rv_pca_save(p, &w);
	assert_int_equal(w.len, OFF_MU + 8 * (F + k) + 4 * F * k);
	for (size_t len = 0; len < w.len; len++)
		expect_refused(w.data, len);
	bad = malloc(w.len);
	assert_non_null(bad);
	const struct { size_t off; uint64_t val; int wide; } pokes[] = {
		{ OFF_MAGIC, 0x12345678, 0 }, { OFF_VERSION, 99, 0 },
		{ OFF_F, 0, 1 }, { OFF_K, 0, 1 }, { OFF_K, F + 1, 1 },
		{ OFF_F, UINT64_MAX / 2, 1 }, { OFF_K, UINT64_MAX, 1 },
		{ OFF_F, F + 1, 1 },             /* sizes no longer fit the bytes */
	};
	for (size_t i = 0; i < sizeof(pokes) / sizeof(pokes[0]); i++) {
		memcpy(bad, w.data, w.len);
		if (pokes[i].wide)
			put_u64(bad + pokes[i].off, pokes[i].val);
		else
			for (int b = 0; b < 4; b++)
				bad[pokes[i].off + b] = (uint8_t)(pokes[i].val >> (8 * b));
		expect_refused(bad, w.len);
	}
	const double bad_lambda[] = { NAN, -1.0, 0.0, INFINITY };
	for (size_t i = 0; i < sizeof(bad_lambda) / sizeof(bad_lambda[0]); i++) {
		memcpy(bad, w.data, w.len);
		v = bad_lambda[i];
		memcpy(bad + off_lambda + 8 * (k - 1), &v, sizeof(v));
		expect_refused(bad, w.len);
	}
	memcpy(bad, w.data, w.len);
	v = NAN;
	memcpy(bad + OFF_MU, &v, sizeof(v));
	expect_refused(bad, w.len);
	free(bad);
	rv_wbuf_fini(&w);
	rv_pca_free(p);
	free_fixture(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cov_route),
		cmocka_unit_test(test_gram_route),
		cmocka_unit_test(test_eigenvalues),
		cmocka_unit_test(test_keep_all),
		cmocka_unit_test(test_randomized_matches_exact),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_corrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
