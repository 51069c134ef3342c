/*
 * iforest_test.c - Isolation Forest against scikit-learn, and its model file.
 *
 * Random streams differ from sklearn's, so the comparison is statistical:
 * tests/fixtures/detect/gen_iforest.py stores, per test point, the mean and
 * spread of -score_samples over 40 sklearn forests of 100 trees; our mean
 * over SEEDS forests must lie within TOL of it (the spread of our mean is
 * std / sqrt(SEEDS) <= 0.006 here, the reference's about 0.003, so TOL is
 * over 3 sigma; measured differences stay below 0.012, while drawing
 * constant features, a midpoint threshold or a missing c(s) moves scores by
 * 0.04 or more). A depth limit off by one moves them by less than 0.01,
 * so test_tree_shape checks the depth directly. The other cases check
 * what sklearn does not pin down: determinism, contributions, constant
 * features, model load hardening.
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

#include "base/rng.h"
#include "base/strparse.h"
#include "detect/iforest.h"

enum {
	SEEDS = 8,              /* forests averaged per sklearn comparison */
	TEST_INLIERS = 8,       /* gen_iforest.py: first test points are inliers */
	TEST_FAR = 4,           /* ... and the last ones clear outliers */
	MAX_TEST = 64,
	FIXTURE_MAX_BYTES = 1 << 20,
	/* model layout (iforest.c): header, per-tree counts, 16-byte nodes */
	OFF_VERSION = 4, OFF_F = 8, OFF_TREES = 16, OFF_SAMPLES = 24, OFF_NODES = 32,
	HDR_BYTES = 40,
	NODE_BYTES = 16,
	NODE_THR = 4, NODE_RIGHT = 8, NODE_SIZE = 12,
	FUZZ_ROUNDS = 3000,
	SMALL_F = 4, SMALL_SAMPLES = 16,        /* small_forest() */
};

#define TOL 0.02                /* |our mean - sklearn mean| per test point */
#define PI 3.14159265358979323846

static const struct rv_iforest_params default_prm = { .trees = 100, .samples = 256, .seed = 1 };

struct ref_case {
	size_t rows;                    /* fitted on the first rows of train */
	double mean[MAX_TEST], std[MAX_TEST];
};

struct fixture {
	size_t n, F, m;
	float *train, *test;
	struct ref_case ref[2];         /* "full", "small" */
};

/* ---- fixture parsing ---- */

static void skip_space(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r'))
		(*p)++;
}

static void expect_word(const char **p, const char *end, const char *w)
{
	size_t len = strlen(w);

	skip_space(p, end);
	assert_true((size_t)(end - *p) >= len && memcmp(*p, w, len) == 0);
	*p += len;
}

static size_t read_count(const char **p, const char *end)
{
	uint64_t v;

	skip_space(p, end);
	assert_int_equal(rv_str_u64(p, end, &v), 0);
	return (size_t)v;
}

static double read_num(const char **p, const char *end)
{
	double v;

	skip_space(p, end);
	assert_int_equal(rv_str_double(p, end, &v), 0);
	return v;
}

static float *read_rows(const char **p, const char *end, size_t n, size_t F)
{
	float *x = malloc(n * F * sizeof(*x));

	assert_non_null(x);
	for (size_t i = 0; i < n * F; i++)
		x[i] = (float)read_num(p, end);
	return x;
}

static char *slurp(const char *name, size_t *len)
{
	const char *dir = getenv("RV_FIXTURES");
	char path[4096];
	char *buf = malloc(FIXTURE_MAX_BYTES);
	FILE *fp;

	assert_non_null(dir);
	assert_non_null(buf);
	snprintf(path, sizeof(path), "%s/detect/%s", dir, name);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	*len = fread(buf, 1, FIXTURE_MAX_BYTES, fp);
	fclose(fp);
	assert_true(*len > 0 && *len < FIXTURE_MAX_BYTES);
	return buf;
}

static void load_fixture(struct fixture *fx)
{
	size_t len;
	char *buf = slurp("iforest_data.txt", &len);
	const char *p = buf, *end = buf + len;
	static const char *const cases[] = { "full", "small" };

	expect_word(&p, end, "train");
	fx->n = read_count(&p, end);
	fx->F = read_count(&p, end);
	fx->train = read_rows(&p, end, fx->n, fx->F);
	expect_word(&p, end, "test");
	fx->m = read_count(&p, end);
	assert_true(fx->m == TEST_INLIERS + 4 + TEST_FAR);
	fx->test = read_rows(&p, end, fx->m, fx->F);
	for (size_t c = 0; c < 2; c++) {
		expect_word(&p, end, "ref");
		expect_word(&p, end, cases[c]);
		fx->ref[c].rows = read_count(&p, end);
		assert_true(fx->ref[c].rows <= fx->n);
		for (size_t i = 0; i < fx->m; i++) {
			fx->ref[c].mean[i] = read_num(&p, end);
			fx->ref[c].std[i] = read_num(&p, end);
			(void)read_num(&p, end);        /* sklearn random_state=0 alone */
		}
	}
	free(buf);
}

static void free_fixture(struct fixture *fx)
{
	free(fx->train);
	free(fx->test);
}

/* ---- helpers ---- */

static double gauss(struct rv_rng *r)
{
	double u = 1.0 - rv_rng_uniform(r), v = rv_rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * PI * v);
}

static float *gauss_rows(size_t n, size_t F, uint64_t seed)
{
	struct rv_rng r;
	float *x = malloc(n * F * sizeof(*x));

	assert_non_null(x);
	rv_rng_seed(&r, seed);
	for (size_t i = 0; i < n * F; i++)
		x[i] = (float)gauss(&r);
	return x;
}

static struct rv_iforest *fit(const float *x, size_t n, size_t F, const struct rv_iforest_params *prm)
{
	struct rv_iforest *f = NULL;
	struct rv_err err = { 0 };

	assert_int_equal(rv_iforest_fit(x, n, F, prm, &f, &err), 0);
	assert_non_null(f);
	assert_int_equal(rv_iforest_dim(f), F);
	return f;
}

/* ---- sklearn agreement ---- */

static void check_case(const struct fixture *fx, const struct ref_case *rc)
{
	double mean[MAX_TEST] = { 0 };

	for (uint64_t s = 0; s < SEEDS; s++) {
		struct rv_iforest_params prm = default_prm;
		struct rv_iforest *f;

		prm.seed = 1000 + s;
		f = fit(fx->train, rc->rows, fx->F, &prm);
		for (size_t i = 0; i < fx->m; i++)
			mean[i] += rv_iforest_score(f, &fx->test[i * fx->F], NULL) / SEEDS;
		rv_iforest_free(f);
	}
	for (size_t i = 0; i < fx->m; i++) {
		if (fabs(mean[i] - rc->mean[i]) > TOL)
			fail_msg("rows %zu point %zu: score %.4f, sklearn %.4f (std %.4f)",
				 rc->rows, i, mean[i], rc->mean[i], rc->std[i]);
	}
	for (size_t i = fx->m - TEST_FAR; i < fx->m; i++)
		for (size_t j = 0; j < TEST_INLIERS; j++)
			assert_true(mean[i] > mean[j]);
}

static void test_matches_sklearn(void **state)
{
	struct fixture fx;

	load_fixture(&fx);
	check_case(&fx, &fx.ref[0]);
	check_case(&fx, &fx.ref[1]);        /* n = 100 < samples = 256 */
	free_fixture(&fx);
}

static void test_seed(void **state)
{
	struct fixture fx;
	struct rv_iforest_params prm = default_prm;
	struct rv_iforest *a, *b, *c;
	int differ = 0;

	load_fixture(&fx);
	a = fit(fx.train, fx.n, fx.F, &prm);
	b = fit(fx.train, fx.n, fx.F, &prm);
	prm.seed = 2;
	c = fit(fx.train, fx.n, fx.F, &prm);
	for (size_t i = 0; i < fx.m; i++) {
		const float *x = &fx.test[i * fx.F];
		double s = rv_iforest_score(a, x, NULL);

		assert_true(s > 0.0 && s <= 1.0);
		assert_true(s == rv_iforest_score(b, x, NULL));
		differ += s != rv_iforest_score(c, x, NULL);
	}
	assert_true(differ > 0);
	rv_iforest_free(a);
	rv_iforest_free(b);
	rv_iforest_free(c);
	free_fixture(&fx);
}

/* Rows of a wider matrix (ld > F, padding NaN: reading it would fail
 * the finite check) fit the same forest as the dense rows. */
static void test_fit_ld(void **state)
{
	struct fixture fx;
	struct rv_iforest_params prm = default_prm;
	struct rv_iforest *a, *b = NULL;
	enum { PAD = 3 };
	float *wide;

	(void)state;
	load_fixture(&fx);
	wide = malloc(fx.n * (fx.F + PAD) * sizeof(*wide));
	assert_non_null(wide);
	for (size_t i = 0; i < fx.n; i++)
		for (size_t j = 0; j < fx.F + PAD; j++)
			wide[i * (fx.F + PAD) + j] = j < fx.F ? fx.train[i * fx.F + j] : NAN;
	a = fit(fx.train, fx.n, fx.F, &prm);
	assert_int_equal(rv_iforest_fit_ld(wide, fx.F + PAD, fx.n, fx.F, &prm, &b, NULL), 0);
	for (size_t i = 0; i < fx.m; i++) {
		const float *x = &fx.test[i * fx.F];

		assert_true(rv_iforest_score(a, x, NULL) == rv_iforest_score(b, x, NULL));
	}
	rv_iforest_free(b);
	b = (struct rv_iforest *)&b;
	assert_int_equal(rv_iforest_fit_ld(wide, fx.F - 1, fx.n, fx.F, &prm, &b, NULL), -EINVAL);
	assert_null(b);
	rv_iforest_free(a);
	free(wide);
	free_fixture(&fx);
}

/* ---- tree shape, read from the documented model layout ---- */

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * Walks the saved trees: every root holds `rows` rows, no split uses the
 * constant feature, no leaf is deeper than `limit` and some tree reaches
 * it (c(s) hides a depth limit off by one from the score comparison).
 */
static void check_shape(const struct rv_iforest *f, size_t rows, unsigned limit, uint32_t const_feat)
{
	struct rv_wbuf w;
	const uint8_t *node;
	size_t trees;
	unsigned deepest = 0;

	rv_wbuf_init(&w);
	rv_iforest_save(f, &w);
	trees = get_u32(w.data + OFF_TREES);
	assert_int_equal(get_u32(w.data + OFF_SAMPLES), rows);
	node = w.data + HDR_BYTES + 4 * trees;
	for (size_t t = 0; t < trees; t++) {
		size_t count = get_u32(w.data + HDR_BYTES + 4 * t);
		unsigned *depth = calloc(count, sizeof(*depth));

		assert_non_null(depth);
		assert_int_equal(get_u32(node + NODE_SIZE), rows);
		for (size_t i = 0; i < count; i++, node += NODE_BYTES) {
			uint32_t feat = get_u32(node), right = get_u32(node + NODE_RIGHT);

			assert_true(depth[i] <= limit);
			deepest = depth[i] > deepest ? depth[i] : deepest;
			if (feat == UINT32_MAX)
				continue;
			assert_true(feat != const_feat && right < count);
			depth[i + 1] = depth[right] = depth[i] + 1;
		}
		free(depth);
	}
	assert_int_equal(deepest, limit);
	rv_wbuf_fini(&w);
}

static void test_tree_shape(void **state)
{
	struct fixture fx;
	struct rv_iforest *f;

	load_fixture(&fx);
	f = fit(fx.train, fx.n, fx.F, &default_prm);
	check_shape(f, 256, 8, 4);          /* ceil(log2(256)); feature 4 is constant */
	rv_iforest_free(f);
	f = fit(fx.train, fx.ref[1].rows, fx.F, &default_prm);
	check_shape(f, 100, 7, 4);          /* n = 100 < samples: ceil(log2(100)) */
	rv_iforest_free(f);
	free_fixture(&fx);
}

/* ---- contributions and constant features ---- */

/*
 * A row at the centre except feature HOT, far outside the training range:
 * iForest rates it only mildly anomalous in 8 dimensions (most splits are on
 * other features), so this checks the contrib weighting finds the cause.
 */
static void test_contrib_points_at_feature(void **state)
{
	enum { N = 1000, F = 8, HOT = 3 };
	float *x = gauss_rows(N, F, 7);
	struct rv_iforest *f = fit(x, N, F, &default_prm);
	float centre[F] = { 0 }, out[F] = { 0 };
	double c[F], sum = 0.0;

	out[HOT] = 9.0f;
	assert_true(rv_iforest_score(f, out, c) > rv_iforest_score(f, centre, NULL));
	for (size_t j = 0; j < F; j++) {
		assert_true(c[j] >= 0.0);
		sum += c[j];
	}
	assert_true(fabs(sum - 1.0) < 1e-9);
	assert_true(c[HOT] > 0.5);
	/* the centre row spreads its weight: no feature dominates */
	rv_iforest_score(f, centre, c);
	for (size_t j = 0; j < F; j++)
		assert_true(c[j] < 0.3);
	rv_iforest_free(f);
	free(x);
}

static void test_constant_features_unused(void **state)
{
	enum { N = 300, F = 6, C1 = 1, C2 = 4 };
	float *x = gauss_rows(N, F, 11);
	struct rv_iforest *f;
	double c[F];

	for (size_t i = 0; i < N; i++) {
		x[i * F + C1] = 3.0f;
		x[i * F + C2] = -1.0f;
	}
	f = fit(x, N, F, &default_prm);
	for (size_t i = 0; i < N; i++) {
		float row[F];
		double s = rv_iforest_score(f, &x[i * F], c);

		assert_true(c[C1] == 0.0 && c[C2] == 0.0);
		/* a value never seen in a constant feature changes nothing */
		memcpy(row, &x[i * F], sizeof(row));
		row[C1] = 1e6f;
		row[C2] = -1e6f;
		assert_true(rv_iforest_score(f, row, NULL) == s);
	}
	rv_iforest_free(f);
	free(x);
}

static void test_all_constant(void **state)
{
	enum { N = 50, F = 3 };
	float x[N * F];
	struct rv_iforest *f;
	double c[F];

	for (size_t i = 0; i < N * F; i++)
		x[i] = 2.0f;
	f = fit(x, N, F, &default_prm);
	/* every root is a leaf of size 50: E[h] = c(50), score 2^-1 */
	assert_true(fabs(rv_iforest_score(f, x, c) - 0.5) < 1e-6);
	for (size_t j = 0; j < F; j++)
		assert_true(c[j] == 0.0);
	rv_iforest_free(f);
}

static void test_one_row(void **state)
{
	float x[2] = { 1.0f, 2.0f }, y[2] = { 5.0f, -5.0f };
	struct rv_iforest *f = fit(x, 1, 2, &default_prm);

	/* c(1) = 0: sklearn defines the score as 2^-1 */
	assert_true(rv_iforest_score(f, y, NULL) == 0.5);
	rv_iforest_free(f);
}

static void test_bad_args(void **state)
{
	float x[4] = { 0.0f, 1.0f, NAN, 3.0f };
	struct rv_iforest_params prm = default_prm;
	struct rv_iforest *f = (struct rv_iforest *)&prm;
	struct rv_err err = { 0 };

	assert_int_equal(rv_iforest_fit(x, 0, 2, &prm, &f, &err), -EINVAL);
	assert_null(f);
	assert_int_equal(rv_iforest_fit(x, 2, 2, &prm, &f, &err), -EINVAL);
	prm.trees = 0;
	assert_int_equal(rv_iforest_fit(x, 1, 2, &prm, &f, NULL), -EINVAL);
	rv_iforest_free(NULL);
}

/* ---- model file ---- */

static struct rv_iforest *small_forest(size_t trees)
{
	enum { N = 40 };
	float *x = gauss_rows(N, SMALL_F, 5);
	struct rv_iforest_params prm = { .trees = trees, .samples = SMALL_SAMPLES, .seed = 9 };
	struct rv_iforest *f = fit(x, N, SMALL_F, &prm);

	free(x);
	return f;
}

static int load_bytes(const uint8_t *p, size_t len, struct rv_iforest **out)
{
	struct rv_rbuf rb;
	struct rv_err err = { 0 };
	int rc;

	rv_rbuf_init(&rb, p, len);
	rc = rv_iforest_load(&rb, out, &err);
	if (rc)
		assert_true(err.code == rc && err.msg[0] != '\0');
	return rc;
}

static void test_save_load(void **state)
{
	struct fixture fx;
	struct rv_iforest *a, *b;
	struct rv_wbuf w1, w2;
	double ca[8], cb[8];

	load_fixture(&fx);
	a = fit(fx.train, fx.n, fx.F, &default_prm);
	rv_wbuf_init(&w1);
	rv_iforest_save(a, &w1);
	assert_false(w1.oom);
	assert_int_equal(load_bytes(w1.data, w1.len, &b), 0);
	assert_int_equal(rv_iforest_dim(b), fx.F);
	for (size_t i = 0; i < fx.m; i++) {
		const float *x = &fx.test[i * fx.F];

		assert_true(rv_iforest_score(a, x, ca) == rv_iforest_score(b, x, cb));
		assert_memory_equal(ca, cb, fx.F * sizeof(double));
	}
	rv_wbuf_init(&w2);
	rv_iforest_save(b, &w2);
	assert_int_equal(w1.len, w2.len);
	assert_memory_equal(w1.data, w2.data, w1.len);
	rv_wbuf_fini(&w1);
	rv_wbuf_fini(&w2);
	rv_iforest_free(a);
	rv_iforest_free(b);
	free_fixture(&fx);
}

/* Applies one corruption to a copy of the saved model; load must refuse it. */
static void expect_refused(const struct rv_wbuf *w, size_t off, uint32_t v)
{
	uint8_t *p = malloc(w->len);
	struct rv_iforest *f = (struct rv_iforest *)p;

	assert_non_null(p);
	memcpy(p, w->data, w->len);
	put_u32(p + off, v);
	assert_int_equal(load_bytes(p, w->len, &f), -EINVAL);
	assert_null(f);
	free(p);
}

/* Offset of the first split below the root of tree 0 (the node after it). */
static size_t inner_split(const struct rv_wbuf *w, size_t node0)
{
	for (size_t off = node0 + NODE_BYTES; off + NODE_BYTES <= w->len; off += NODE_BYTES)
		if (get_u32(w->data + off) != UINT32_MAX)
			return off;
	fail_msg("no inner split");
	return 0;
}

static void test_load_refuses(void **state)
{
	enum { TREES = 2 };
	struct rv_iforest *f = small_forest(TREES), *g;
	struct rv_wbuf w;
	size_t node0 = HDR_BYTES + TREES * 4, first_count, inner;
	float nan = NAN;
	uint32_t nan_bits;

	rv_wbuf_init(&w);
	rv_iforest_save(f, &w);
	first_count = get_u32(w.data + HDR_BYTES);
	assert_true(get_u32(w.data + node0) < SMALL_F);   /* the root splits */
	inner = inner_split(&w, node0);
	assert_true(inner < node0 + first_count * NODE_BYTES);
	for (size_t len = 0; len < w.len; len++) {
		g = f;
		assert_int_equal(load_bytes(w.data, len, &g), -EINVAL);
		assert_null(g);
	}
	expect_refused(&w, 0, 0x12345678u);                             /* tag */
	expect_refused(&w, OFF_VERSION, 2);
	expect_refused(&w, OFF_F, 0);
	expect_refused(&w, OFF_NODES, 0xffffffu);                       /* more nodes than bytes */
	expect_refused(&w, HDR_BYTES, (uint32_t)first_count + 1);       /* tree sizes */
	expect_refused(&w, node0, SMALL_F);                             /* feature index = F */
	memcpy(&nan_bits, &nan, sizeof(nan_bits));
	expect_refused(&w, node0 + NODE_THR, nan_bits);
	expect_refused(&w, node0 + NODE_RIGHT, 0);                      /* itself: a cycle */
	expect_refused(&w, inner + NODE_RIGHT, 0);                      /* back to the root */
	expect_refused(&w, node0 + NODE_RIGHT, 1);                      /* right = left: shared */
	expect_refused(&w, node0 + NODE_RIGHT, (uint32_t)first_count); /* into the next tree */
	expect_refused(&w, node0 + NODE_SIZE, 0);
	expect_refused(&w, node0 + NODE_SIZE, SMALL_SAMPLES - 1);       /* root size != samples */
	expect_refused(&w, node0 + NODE_BYTES + NODE_SIZE,              /* children != parent */
		       get_u32(w.data + node0 + NODE_BYTES + NODE_SIZE) + 1);
	rv_wbuf_fini(&w);
	rv_iforest_free(f);
}

/* Random byte damage: load either refuses or yields a forest safe to score. */
static void test_load_fuzz(void **state)
{
	struct rv_iforest *f = small_forest(3), *g;
	struct rv_wbuf w;
	struct rv_rng r;
	uint8_t *p;
	float x[SMALL_F] = { 0.1f, -0.3f, 2.0f, 0.0f };
	double c[SMALL_F];
	int loaded = 0;

	rv_wbuf_init(&w);
	rv_iforest_save(f, &w);
	p = malloc(w.len);
	assert_non_null(p);
	rv_rng_seed(&r, 3);
	for (int k = 0; k < FUZZ_ROUNDS; k++) {
		memcpy(p, w.data, w.len);
		p[rv_rng_below(&r, w.len)] ^= (uint8_t)(1u + rv_rng_below(&r, 255));
		if (load_bytes(p, w.len, &g) != 0)
			continue;
		if (rv_iforest_dim(g) == SMALL_F) {   /* a damaged F changes the row size */
			double s = rv_iforest_score(g, x, c);
			assert_true(s > 0.0 && s <= 1.0);
		}
		loaded++;
		rv_iforest_free(g);
	}
	assert_true(loaded > 0 && loaded < FUZZ_ROUNDS);
	free(p);
	rv_wbuf_fini(&w);
	rv_iforest_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_sklearn),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_fit_ld),
		cmocka_unit_test(test_tree_shape),
		cmocka_unit_test(test_contrib_points_at_feature),
		cmocka_unit_test(test_constant_features_unused),
		cmocka_unit_test(test_all_constant),
		cmocka_unit_test(test_one_row),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_load_refuses),
		cmocka_unit_test(test_load_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
