/*
 * window_test.c - the feature matrix: layout against the Python reference.
 *
 * tests/fixtures/features/featmat.txt (gen_features.py) holds a 3-channel
 * series (gauge with ADF, unused, events), and the rows that the reference
 * pipeline's window_features gives for windows of 5 rows every 2 rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/strparse.h"
#include "features/window.h"

enum { MAX_CH = 4, MAX_ROWS = 64, MAX_COLS = 32, PATH_MAX_LEN = 1024, NAME_LEN = 64 };

struct fixture {
	size_t nrows, ncols, w, step, nwin, nfeat;
	unsigned masks[MAX_CH];
	float values[MAX_CH * MAX_ROWS];
	size_t end_row[MAX_ROWS];
	double rows[MAX_ROWS][MAX_COLS];
};

static char *read_file(const char *name, size_t *len)
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

/* Moves *p to the line after the next one that starts with kw + ' '; the
 * numbers of that line start at *s and end at *e. */
static void find_line(const char **p, const char *end, const char *kw,
		      const char **s, const char **e)
{
	size_t n = strlen(kw);

	while (*p < end) {
		const char *ls = *p, *le = memchr(ls, '\n', (size_t)(end - ls));

		le = le ? le : end;
		*p = le < end ? le + 1 : end;
		if ((size_t)(le - ls) > n && memcmp(ls, kw, n) == 0 && ls[n] == ' ') {
			*s = ls + n;
			*e = le;
			return;
		}
	}
	fail_msg("featmat.txt: no line '%s'", kw);
}

static double num(const char **s, const char *e)
{
	double v = 0.0;

	rv_str_skip_blank(s, e);
	assert_int_equal(rv_str_double(s, e, &v), 0);
	return v;
}

static void load_fixture(struct fixture *fx)
{
	size_t len;
	char *buf = read_file("featmat.txt", &len);
	const char *p = buf, *end = buf + len, *s, *e;

	find_line(&p, end, "dims", &s, &e);
	fx->nrows = (size_t)num(&s, e);
	fx->ncols = (size_t)num(&s, e);
	fx->w = (size_t)num(&s, e);
	fx->step = (size_t)num(&s, e);
	assert_true(fx->nrows <= MAX_ROWS && fx->ncols <= MAX_CH);
	find_line(&p, end, "masks", &s, &e);
	fx->nfeat = 0;
	for (size_t c = 0; c < fx->ncols; c++) {
		fx->masks[c] = (unsigned)num(&s, e);
		fx->nfeat += rv_feat_count(fx->masks[c]);
	}
	assert_true(fx->nfeat <= MAX_COLS);
	for (size_t c = 0; c < fx->ncols; c++) {
		find_line(&p, end, "values", &s, &e);
		for (size_t r = 0; r < fx->nrows; r++)
			fx->values[c * fx->nrows + r] = (float)num(&s, e);
	}
	find_line(&p, end, "nwin", &s, &e);
	fx->nwin = (size_t)num(&s, e);
	assert_true(fx->nwin <= MAX_ROWS);
	find_line(&p, end, "end_row", &s, &e);
	for (size_t k = 0; k < fx->nwin; k++)
		fx->end_row[k] = (size_t)num(&s, e);
	for (size_t k = 0; k < fx->nwin; k++) {
		find_line(&p, end, "row", &s, &e);
		for (size_t j = 0; j < fx->nfeat; j++)
			fx->rows[k][j] = num(&s, e);
	}
	free(buf);
}

/* The matrix stores float: the reference value rounded to float, +-1 ulp. */
static void assert_float_close(float got, double want, size_t k, size_t j)
{
	double tol = 2.0 * FLT_EPSILON * fabs(want) + 1e-30;

	if (!(fabs((double)got - want) <= tol))
		fail_msg("window %zu column %zu: got %.9g, want %.17g", k, j, got, want);
}

static void test_reference_layout(void **state)
{
	static struct fixture fx;
	struct rv_featmat m;
	struct rv_err err;
	const uint8_t gauge_adf[] = { RV_F_MEAN, RV_F_STD, RV_F_MIN, RV_F_MAX, RV_F_P25,
				      RV_F_P75, RV_F_SKEW, RV_F_KURT, RV_F_SLOPE, RV_F_AC1,
				      RV_F_ADF };

	(void)state;
	load_fixture(&fx);
	rv_err_clear(&err);
	assert_int_equal(rv_featmat_build(fx.values, fx.nrows, fx.ncols, fx.masks, fx.w,
					  fx.step, &m, &err), 0);
	assert_int_equal(m.nwin, fx.nwin);
	assert_int_equal(m.nfeat, 13);
	for (size_t k = 0; k < m.nwin; k++)
		assert_int_equal(m.end_row[k], fx.end_row[k]);
	/* channel 0: ten gauge features + adf; channel 1 unused; 2: max, sum */
	for (size_t j = 0; j < 11; j++) {
		assert_int_equal(m.chan[j], 0);
		assert_int_equal(m.feat[j], gauge_adf[j]);
	}
	assert_int_equal(m.chan[11], 2);
	assert_int_equal(m.feat[11], RV_F_MAX);
	assert_int_equal(m.chan[12], 2);
	assert_int_equal(m.feat[12], RV_F_SUM);
	for (size_t k = 0; k < m.nwin; k++)
		for (size_t j = 0; j < m.nfeat; j++)
			assert_float_close(m.x[k * m.nfeat + j], fx.rows[k][j], k, j);
	rv_featmat_fini(&m);
	assert_null(m.x);
	rv_featmat_fini(&m);
	rv_featmat_fini(NULL);
}

/* Cells of the matrix built with the given step; v as in the test below. */
static void check_cells(const float *v, size_t nrows, size_t ncols, const unsigned *masks,
			size_t w, size_t step)
{
	struct rv_featmat m;
	double out[RV_F_COUNT], scratch[MAX_ROWS];

	assert_int_equal(rv_featmat_build(v, nrows, ncols, masks, w, step, &m, NULL), 0);
	assert_int_equal(m.nwin, (nrows - w) / step + 1);
	for (size_t k = 0; k < m.nwin; k++) {
		const float *row = m.x + k * m.nfeat;

		assert_int_equal(m.end_row[k], k * step + w - 1);
		for (size_t c = 0; c < ncols; c++) {
			rv_feat_window(v + c * nrows + k * step, w, 1, masks[c], out, scratch);
			for (size_t f = 0; f < rv_feat_count(masks[c]); f++)
				assert_true(*row++ == (float)out[f]);
		}
		assert_true(row == m.x + (k + 1) * m.nfeat);
	}
	rv_featmat_fini(&m);
}

/*
 * Every cell equals rv_feat_window on that channel's window, whether the
 * sorted windows slide (step < w) or restart (step >= w), with ties.
 */
static void test_cells_match_window(void **state)
{
	enum { NROWS = 40, NCOLS = 3, W = 7, NTIES = 5 };
	static float v[NCOLS * NROWS];
	const unsigned masks[NCOLS] = { RV_FEAT_GAUGE_MASK, RV_FEAT_EVENT_MASK,
					RV_FEAT_BIT(RV_F_ADF) | RV_FEAT_BIT(RV_F_P75) };
	const size_t steps[] = { 1, 2, 3, W, W + 2 };
	struct rv_rng rng;
	struct rv_featmat m;

	(void)state;
	rv_rng_seed(&rng, 3);
	for (size_t i = 0; i < NCOLS * NROWS; i++)
		v[i] = (float)rv_rng_uniform(&rng);
	for (size_t r = 0; r < NROWS; r++)
		v[r] = 0.25f * (float)rv_rng_below(&rng, NTIES);
	for (size_t r = 10; r < 20; r++)
		v[2 * NROWS + r] = 4.0f;  /* flat stretch in channel 2 */
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		check_cells(v, NROWS, NCOLS, masks, W, steps[i]);

	assert_int_equal(rv_featmat_build(v, NROWS, NCOLS, masks, W, 1, &m, NULL), 0);
	assert_int_equal(m.nfeat, 14);
	/* window 10 covers rows 10..16, all 4.0 in channel 2: p75 (enum order
	 * first) 4, adf 1 */
	assert_true(m.x[10 * m.nfeat + 12] == 4.0f && m.x[10 * m.nfeat + 13] == 1.0f);
	rv_featmat_fini(&m);
}

static void expect_einval(const float *v, size_t nrows, size_t ncols, const unsigned *masks,
			  size_t w, size_t step)
{
	struct rv_featmat m;
	struct rv_err err;

	rv_err_clear(&err);
	assert_int_equal(rv_featmat_build(v, nrows, ncols, masks, w, step, &m, &err), -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	assert_true(err.msg[0] != '\0');
	assert_null(m.x);
	assert_int_equal(m.nwin, 0);
	rv_featmat_fini(&m);
}

static void test_bad_arguments(void **state)
{
	const float v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const unsigned gauge = RV_FEAT_GAUGE_MASK, none = 0, bad = 1u << RV_F_COUNT;
	struct rv_featmat m;

	(void)state;
	expect_einval(v, 4, 1, &gauge, 5, 1);   /* fewer rows than the window */
	expect_einval(v, 8, 1, &gauge, 1, 1);   /* window too short */
	expect_einval(v, 8, 1, &gauge, 4, 0);   /* step 0 */
	expect_einval(v, 8, 1, &bad, 4, 1);     /* unknown feature bit */
	expect_einval(v, 8, 1, &none, 4, 1);    /* nothing selected */
	expect_einval(v, 8, 0, &gauge, 4, 1);   /* no channel */
	/* the last window must fit: 8 rows, w 4, step 3 -> ends at 3 and 6 */
	assert_int_equal(rv_featmat_build(v, 8, 1, &gauge, 4, 3, &m, NULL), 0);
	assert_int_equal(m.nwin, 2);
	assert_int_equal(m.end_row[1], 6);
	assert_true(m.x[1 * m.nfeat + 0] == 5.5f);  /* mean of 4..7 */
	rv_featmat_fini(&m);
}

static void test_colname(void **state)
{
	const float v[6] = { 1, 2, 3, 0, 1, 0 };
	const unsigned masks[2] = { RV_FEAT_BIT(RV_F_MEAN), RV_FEAT_EVENT_MASK };
	const char *const names[2] = { "cpu.util", "net.retrans" };
	struct rv_featmat m;
	char buf[NAME_LEN], small[8];

	(void)state;
	assert_int_equal(rv_featmat_build(v, 3, 2, masks, 2, 1, &m, NULL), 0);
	assert_string_equal(rv_featmat_colname(&m, names, 0, buf, sizeof buf), "cpu.util/mean");
	assert_string_equal(rv_featmat_colname(&m, names, 2, buf, sizeof buf), "net.retrans/sum");
	assert_string_equal(rv_featmat_colname(&m, NULL, 1, buf, sizeof buf), "ch1/max");
	assert_string_equal(rv_featmat_colname(&m, names, 3, buf, sizeof buf), "");
	assert_string_equal(rv_featmat_colname(&m, names, 0, small, sizeof small), "cpu.uti");
	rv_featmat_fini(&m);
}

/* Wiggles that span less than a channel's flat_below (0.3 < 0.5) have no
 * shape: skewness, kurtosis and autocorrelation 0, ADF's p-value 1, on
 * the block path (gauge), the window path (gauge + ADF) and without min
 * and max among the features (a stock) alike; a
 * channel whose floor is below the span (0.2) keeps its shape, and every
 * other feature is as without floors. The streaming rows agree. */
static void test_flat_below(void **state)
{
	enum { NR = 40, NC = 4, W = 16, STEP = 4 };
	const unsigned adf = RV_FEAT_GAUGE_MASK | RV_FEAT_BIT(RV_F_ADF);
	const unsigned masks[NC] = { RV_FEAT_GAUGE_MASK, adf, adf, RV_FEAT_STOCK_MASK };
	const double floors[NC] = { 0.5, 0.5, 0.2, 0.5 };
	static const float wig[8] = { 0.0f, 0.3f, 0.0f, 0.1f, 0.0f, 0.0f, 0.2f, 0.0f };
	float v[NR * NC];
	struct rv_featmat plain, flat;

	(void)state;
	for (size_t c = 0; c < NC; c++)
		for (size_t r = 0; r < NR; r++)
			v[c * NR + r] = wig[r % 8];
	assert_int_equal(rv_featmat_build(v, NR, NC, masks, W, STEP, &plain, NULL), 0);
	assert_int_equal(rv_featmat_build_mt(v, NR, NC, masks, floors, W, STEP, 2, &flat, NULL), 0);
	assert_int_equal(flat.nfeat, plain.nfeat);
	for (size_t k = 0; k < flat.nwin; k++) {
		for (size_t j = 0; j < flat.nfeat; j++) {
			float got = flat.x[k * flat.nfeat + j], was = plain.x[k * plain.nfeat + j];
			unsigned f = flat.feat[j];
			int shape = f == RV_F_SKEW || f == RV_F_KURT || f == RV_F_AC1 || f == RV_F_ADF;

			if (!shape || flat.chan[j] == 2)
				assert_true(got == was);
			else
				assert_true(got == (f == RV_F_ADF ? 1.0f : 0.0f));
			/* the wiggle has a shape of its own without the floor */
			if (shape && f != RV_F_ADF && flat.chan[j] == 2)
				assert_true(was != 0.0f);
		}
	}
	/* the streaming rows of windows 1..2 are the matrix's */
	float rows[2 * 80];
	double scratch[8 * W];

	assert_true(flat.nfeat <= 80 && rv_featmat_scratch_len(NC, masks, W) <= 8 * W);
	rv_featmat_rows(v, NR, NC, masks, floors, W, STEP, 1, 3, rows, scratch);
	assert_memory_equal(rows, flat.x + flat.nfeat, 2 * flat.nfeat * sizeof(float));
	rv_featmat_fini(&plain);
	rv_featmat_fini(&flat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_layout),
		cmocka_unit_test(test_cells_match_window),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_colname),
		cmocka_unit_test(test_flat_below),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
