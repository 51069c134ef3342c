/*
 * features_test.c - per-window features against numpy/scipy/statsmodels.
 *
 * tests/fixtures/features/features.txt (gen_features.py) holds windows of
 * several lengths and shapes with their twelve features computed in Python
 * (np.percentile, scipy.stats.skew/kurtosis, np.polyfit, adfuller), and
 * MacKinnon p-values of statsmodels at chosen t-statistics. The block path
 * of the feature matrix (rv_feat_gauge_block) is held to rv_feat_window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/strparse.h"
#include "features/features.h"

enum { MAX_W = 128, PATH_MAX_LEN = 1024, MIN_CASES = 14, MIN_MACKINNON = 10 };
static const double REL_TOL = 1e-9;
static const double ABS_TOL = 1e-12;

static char *read_fixture(const char *name, size_t *len)
{
	const char *dir = getenv("RV_FIXTURES");
	char path[PATH_MAX_LEN];

	assert_non_null(dir);
	snprintf(path, sizeof path, "%s/features/%s", dir, name);
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);

	assert_true(n > 0);
	rewind(f);
	char *buf = malloc((size_t)n + 1);

	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Next non-comment line as [*ls, *le); 0 at the end of the text. */
static int next_line(const char **p, const char *end, const char **ls, const char **le)
{
	while (*p < end) {
		const char *s = *p, *e = memchr(s, '\n', (size_t)(end - s));

		e = e ? e : end;
		*p = e < end ? e + 1 : end;
		if (e > s && *s != '#') {
			*ls = s;
			*le = e;
			return 1;
		}
	}
	return 0;
}

/* The keyword starting the line: returns 1 and moves *s past it on match. */
static int keyword(const char **s, const char *e, const char *kw)
{
	size_t n = strlen(kw);

	if ((size_t)(e - *s) < n || memcmp(*s, kw, n) != 0 || (*s + n < e && (*s)[n] != ' '))
		return 0;
	*s += n;
	return 1;
}

static double number(const char **s, const char *e)
{
	double v = 0.0;

	rv_str_skip_blank(s, e);
	assert_int_equal(rv_str_double(s, e, &v), 0);
	return v;
}

static void skip_word(const char **s, const char *e)
{
	rv_str_skip_blank(s, e);
	while (*s < e && **s != ' ')
		(*s)++;
}

static void assert_close(double got, double want, double scale, const char *what)
{
	double tol = REL_TOL * fabs(want) + ABS_TOL * scale;

	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.17g, want %.17g (tol %.3g)", what, got, want, tol);
}

static double max_abs(const float *x, size_t n)
{
	double m = 1.0;

	for (size_t i = 0; i < n; i++)
		m = fabs(x[i]) > m ? fabs(x[i]) : m;
	return m;
}

static void check_case(const char *name, const float *x, size_t n, const double *want)
{
	double out[RV_F_COUNT], scratch[MAX_W], scale = max_abs(x, n);
	float strided[3 * MAX_W];
	char what[96];

	rv_feat_window(x, n, 1, RV_FEAT_ALL_MASK, out, scratch);
	for (unsigned f = 0; f < RV_F_COUNT; f++) {
		snprintf(what, sizeof what, "%s/%s", name, rv_feat_name(f));
		assert_close(out[f], want[f], scale, what);
	}
	snprintf(what, sizeof what, "%s/adf_pvalue", name);
	assert_close(rv_feat_adf_pvalue(x, n, 1, scratch), want[RV_F_ADF], 1.0, what);

	/* The same window read with a stride gives the same doubles. */
	double out2[RV_F_COUNT];

	for (size_t i = 0; i < n; i++)
		strided[3 * i] = x[i];
	rv_feat_window(strided, n, 3, RV_FEAT_ALL_MASK, out2, scratch);
	assert_memory_equal(out, out2, sizeof out);
}

static void test_fixture_windows(void **state)
{
	size_t len, ncase = 0;
	char *buf = read_fixture("features.txt", &len);
	const char *p = buf, *end = buf + len, *s, *e;
	char name[32];
	float x[MAX_W];
	double want[RV_F_COUNT];

	(void)state;
	while (next_line(&p, end, &s, &e)) {
		if (!keyword(&s, e, "case"))
			continue;
		rv_str_skip_blank(&s, e);
		const char *ns = s;

		skip_word(&s, e);
		snprintf(name, sizeof name, "%.*s", (int)(s - ns), ns);
		size_t n = (size_t)number(&s, e);

		assert_true(n >= 1 && n <= MAX_W);
		assert_true(next_line(&p, end, &s, &e) && keyword(&s, e, "x"));
		for (size_t i = 0; i < n; i++)
			x[i] = (float)number(&s, e);
		assert_true(next_line(&p, end, &s, &e) && keyword(&s, e, "f"));
		for (unsigned f = 0; f < RV_F_COUNT; f++)
			want[f] = number(&s, e);
		check_case(name, x, n, want);
		ncase++;
	}
	assert_true(ncase >= MIN_CASES);
	free(buf);
}

static void test_mackinnon(void **state)
{
	size_t len, n = 0;
	char *buf = read_fixture("features.txt", &len);
	const char *p = buf, *end = buf + len, *s, *e;

	(void)state;
	while (next_line(&p, end, &s, &e)) {
		if (!keyword(&s, e, "mackinnon"))
			continue;
		double t = number(&s, e), want = number(&s, e);

		assert_close(rv_feat_mackinnon_p(t), want, 0.0, "mackinnon");
		n++;
	}
	assert_true(n >= MIN_MACKINNON);
	assert_true(rv_feat_mackinnon_p(NAN) == 1.0);
	assert_true(rv_feat_mackinnon_p(-INFINITY) == 0.0);
	assert_true(rv_feat_mackinnon_p(INFINITY) == 1.0);
	free(buf);
}

static void test_names_and_counts(void **state)
{
	(void)state;
	assert_string_equal(rv_feat_name(RV_F_MEAN), "mean");
	assert_string_equal(rv_feat_name(RV_F_P75), "p75");
	assert_string_equal(rv_feat_name(RV_F_ADF), "adf");
	assert_string_equal(rv_feat_name(RV_F_SUM), "sum");
	assert_string_equal(rv_feat_name(RV_F_COUNT), "?");
	assert_int_equal(rv_feat_count(RV_FEAT_GAUGE_MASK), 10);
	assert_int_equal(rv_feat_count(RV_FEAT_EVENT_MASK), 2);
	assert_int_equal(rv_feat_count(RV_FEAT_ALL_MASK), RV_F_COUNT);
	assert_int_equal(rv_feat_count(0), 0);
	assert_int_equal(rv_feat_count(~0u), RV_F_COUNT);
}

/* Outputs come in enum order whatever bits are set; others are not written. */
static void test_mask_order(void **state)
{
	const float x[] = { 0, 3, 0, 1, 0, 5 };
	double out[4] = { -7, -7, -7, -7 }, scratch[6];

	(void)state;
	rv_feat_window(x, 6, 1, RV_FEAT_EVENT_MASK, out, scratch);
	assert_true(out[0] == 5.0 && out[1] == 9.0 && out[2] == -7.0);
	rv_feat_window(x, 6, 1, RV_FEAT_BIT(RV_F_SLOPE) | RV_FEAT_BIT(RV_F_MEAN) | (1u << 30),
		       out, scratch);
	assert_true(out[0] == 1.5 && out[2] == -7.0);
	/* slope of 0 3 0 1 0 5 about ibar 2.5: sum((i-ibar)*x)/17.5 = 8.5/17.5 */
	assert_close(out[1], 8.5 / 17.5, 1.0, "slope");
}

static void test_flat_window(void **state)
{
	const float x[9] = { 7.5f, 7.5f, 7.5f, 7.5f, 7.5f, 7.5f, 7.5f, 7.5f, 7.5f };
	double out[RV_F_COUNT], scratch[9];

	(void)state;
	rv_feat_window(x, 9, 1, RV_FEAT_ALL_MASK, out, scratch);
	assert_true(out[RV_F_MEAN] == 7.5 && out[RV_F_STD] == 0.0);
	assert_true(out[RV_F_P25] == 7.5 && out[RV_F_P75] == 7.5);
	assert_true(out[RV_F_SKEW] == 0.0 && out[RV_F_KURT] == 0.0);
	assert_true(out[RV_F_AC1] == 0.0 && out[RV_F_SLOPE] == 0.0);
	assert_true(out[RV_F_ADF] == 1.0);
	assert_true(rv_feat_adf_pvalue(x, 9, 1, scratch) == 1.0);
}

/* Undefined ADF: too short, or x_0..x_{n-2} constant (singular regression). */
static void test_adf_undefined(void **state)
{
	const float singular[] = { 1, 1, 1, 1, 2 };
	const float shortx[] = { 1, 3, 2 };
	double scratch[5], out[1];

	(void)state;
	assert_true(rv_feat_adf_pvalue(singular, 5, 1, scratch) == 1.0);
	assert_true(rv_feat_adf_pvalue(shortx, 3, 1, scratch) == 1.0);
	rv_feat_window(shortx, 3, 1, RV_FEAT_BIT(RV_F_ADF), out, scratch);
	assert_true(out[0] == 1.0);
	rv_feat_window(shortx, 0, 1, RV_FEAT_BIT(RV_F_ADF) | RV_FEAT_BIT(RV_F_MEAN), scratch, out);
	assert_true(scratch[0] == 0.0 && scratch[1] == 1.0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Selection (long windows) agrees with a full sort on tie-heavy data. */
static void test_selection_matches_sort(void **state)
{
	struct rv_rng rng;
	float x[MAX_W];
	double sorted[MAX_W], scratch[MAX_W], out[2];

	(void)state;
	rv_rng_seed(&rng, 42);
	for (size_t n = 33; n <= MAX_W; n += 5) {
		for (size_t i = 0; i < n; i++) {
			x[i] = (float)rv_rng_below(&rng, n / 4);
			sorted[i] = x[i];
		}
		qsort(sorted, n, sizeof(double), cmp_double);
		rv_feat_window(x, n, 1, RV_FEAT_BIT(RV_F_P25) | RV_FEAT_BIT(RV_F_P75), out, scratch);
		for (int q = 0; q < 2; q++) {
			double pos = (double)(n - 1) * (q ? 0.75 : 0.25);
			size_t k = (size_t)pos;
			double want = sorted[k] + (sorted[k + 1] - sorted[k]) * (pos - (double)k);

			assert_close(out[q], want, 1.0, "selection");
		}
	}
}

/*
 * The block path (64 windows side by side) gives exactly rv_feat_window's
 * values, which the fixture test ties to numpy: every window length it
 * serves, steps of 1 and more, short blocks, ties, flat windows and flat
 * windows on a large level (the relative flatness test).
 */
static void test_gauge_block_matches_window(void **state)
{
	static const size_t ws[] = { 2, 3, 4, 5, 7, 15, 16, 17, 31, 32 };
	static const size_t steps[] = { 1, 2, 5 };
	static const size_t ns[] = { 1, 17, RV_FEAT_BLOCK };
	enum { LD = 13, SPAN = RV_FEAT_BLOCK * 5 + 32 };
	static float x[SPAN], out[RV_FEAT_BLOCK * LD];
	double want[RV_F_COUNT], scratch[RV_FEAT_GAUGE_FAST_MAX];
	struct rv_rng rng;

	(void)state;
	rv_rng_seed(&rng, 7);
	for (int shape = 0; shape < 4; shape++) {
		for (size_t i = 0; i < SPAN; i++) {
			double u = rv_rng_uniform(&rng);

			x[i] = shape == 0 ? (float)(u * 10.0 - 5.0)
			     : shape == 1 ? (float)rv_rng_below(&rng, 3)            /* ties */
			     : shape == 2 ? (i / 40 % 2 ? 1e6f : 1e6f + (float)u)   /* flat runs */
			     : (float)(i % 7 == 0 ? 100.0 : 0.0);                   /* spikes */
		}
		for (size_t a = 0; a < sizeof(ws) / sizeof(ws[0]); a++)
			for (size_t b = 0; b < sizeof(steps) / sizeof(steps[0]); b++)
				for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
					size_t w = ws[a], step = steps[b], n = ns[c];

					memset(out, 0xff, sizeof(out));
					rv_feat_gauge_block(x, w, step, n, out, LD);
					for (size_t k = 0; k < n; k++) {
						rv_feat_window(x + k * step, w, 1, RV_FEAT_GAUGE_MASK, want,
							       scratch);
						for (size_t f = 0; f < 10; f++)
							assert_memory_equal(&out[k * LD + f],
									    &(float){ (float)want[f] },
									    sizeof(float));
						/* Nothing written between rows. */
						for (size_t f = 10; f < LD && k + 1 < n; f++)
							assert_true(isnan(out[k * LD + f]));
					}
				}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_windows),
		cmocka_unit_test(test_mackinnon),
		cmocka_unit_test(test_names_and_counts),
		cmocka_unit_test(test_mask_order),
		cmocka_unit_test(test_flat_window),
		cmocka_unit_test(test_adf_undefined),
		cmocka_unit_test(test_selection_matches_sort),
		cmocka_unit_test(test_gauge_block_matches_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
