/*
 * scaler_test.c - the feature scaler (detect/scaler.h) on 400 rows of 12
 * correlated features generated with base/rng.h by operations that are
 * exact in IEEE double; tests/fixtures/detect/gen_ensemble.py replays the
 * generator and stores numpy's column means and population standard
 * deviations. Checks the statistics, dropped constant columns, the save/load
 * round trip and refusal of truncated or corrupted sections.
 * The generator and fixture reader: ensemble_testdata.h (shared with
 * ensemble_test.c).
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

#include "base/bytes.h"
#include "detect/ensemble_testdata.h"
#include "detect/scaler.h"

/* ------------------------------------------------------------- scaler */

static void test_scaler_vs_numpy(void **state)
{
	struct rv_scaler s;
	float z[NF];

	assert_int_equal(rv_scaler_fit(&s, D.feat, ROWS, NF, NULL), 0);
	assert_int_equal(s.nin, NF);
	assert_int_equal(s.nout, NF);
	for (size_t j = 0; j < NF; j++) {
		assert_int_equal(s.keep[j], j);
		assert_true(close_rel(s.mean[j], D.mean[j], 1e-12));
		assert_true(close_rel(s.sd[j], D.sd[j], 1e-10));
		assert_true(close_rel(s.inv_sd[j], 1.0 / D.sd[j], 1e-10));
	}
	rv_scaler_apply(&s, D.feat + 7 * NF, z);
	for (size_t j = 0; j < NF; j++)
		assert_true(close_rel(z[j], (D.feat[7 * NF + j] - D.mean[j]) / D.sd[j], 1e-5));
	rv_scaler_fini(&s);
	assert_null(s.keep);
	rv_scaler_fini(&s);
	(void)state;
}

/* Columns 2, 5 and 11 made constant are dropped; keep lists the others. */
static void test_scaler_constant_columns(void **state)
{
	static float x[ROWS * NF];
	static const uint32_t want_keep[] = { 0, 1, 3, 4, 6, 7, 8, 9, 10 };
	struct rv_scaler s;
	struct rv_err err = { 0 };
	float z[NF], row[NF];

	memcpy(x, D.feat, sizeof(x));
	for (size_t i = 0; i < ROWS; i++) {
		x[i * NF + 2] = 5.0f;
		x[i * NF + 5] = -1e9f;
		x[i * NF + 11] = 0.0f;
	}
	assert_int_equal(rv_scaler_fit(&s, x, ROWS, NF, &err), 0);
	assert_int_equal(s.nout, 9);
	for (size_t o = 0; o < 9; o++) {
		assert_int_equal(s.keep[o], want_keep[o]);
		assert_true(close_rel(s.mean[o], D.mean[want_keep[o]], 1e-12));
		assert_true(close_rel(s.sd[o], D.sd[want_keep[o]], 1e-10));
	}
	for (size_t j = 0; j < NF; j++)
		row[j] = (float)D.mean[j];
	row[4] = (float)(D.mean[4] + 2.0 * D.sd[4]);
	rv_scaler_apply(&s, row, z);
	assert_true(fabs(z[3] - 2.0) < 1e-5); /* column 4 is output 3 */
	assert_true(fabs(z[0]) < 1e-5);
	rv_scaler_fini(&s);

	/* everything constant, or nothing to fit on */
	for (size_t i = 0; i < ROWS * NF; i++)
		x[i] = 3.0f;
	assert_int_equal(rv_scaler_fit(&s, x, ROWS, NF, &err), -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "constant"));
	assert_null(s.keep);
	rv_err_clear(&err);
	assert_int_equal(rv_scaler_fit(&s, x, 0, NF, &err), -EINVAL);
	assert_true(err.msg[0] != '\0');
	(void)state;
}

/* A column of large values that barely moves gets sd = rel * |mean|; a
 * column whose sd is already larger keeps it. */
static void test_scaler_floor(void **state)
{
	float x[4 * 2] = { 1e9f, 0.0f, 1e9f + 64, 10.0f, 1e9f, 0.0f, 1e9f + 64, 10.0f };
	struct rv_scaler s;
	float z[2], row[2];

	(void)state;
	assert_int_equal(rv_scaler_fit(&s, x, 4, 2, NULL), 0);
	assert_int_equal(s.nout, 2);
	assert_true(close_rel(s.sd[0], 32.0, 1e-9));
	rv_scaler_floor(&s, 0.01);
	assert_true(close_rel(s.sd[0], 0.01 * (1e9 + 32), 1e-9));
	assert_true(close_rel(s.inv_sd[0], 1.0 / (0.01 * (1e9 + 32)), 1e-9));
	assert_true(close_rel(s.sd[1], 5.0, 1e-12));    /* 5 > 0.01 * 5 */
	row[0] = (float)(1e9 * 1.02);
	row[1] = 5.0f;
	rv_scaler_apply(&s, row, z);
	assert_true(fabs(z[0] - 2.0) < 1e-3);           /* a 2 % move is 2 sd */
	rv_scaler_floor(&s, 0.0);                        /* 0 changes nothing */
	assert_true(close_rel(s.sd[0], 0.01 * (1e9 + 32), 1e-9));
	rv_scaler_fini(&s);
}

/* Floors by input column: a constant column with a floor is kept with the
 * floor as its sd, one without is dropped; a moving column's sd is raised
 * to its floor, never lowered; NULL floors are rv_scaler_fit_mt. */
static void test_scaler_fit_floor(void **state)
{
	float x[4 * 3] = { 5.0f, 7.5f, 0.0f, 5.0f, 7.0f, 0.001f,
			   5.0f, 7.0f, 0.0f, 5.0f, 7.0f, 4.0f };
	const double floor_in[3] = { 2.0, 9.0, 0.5 };
	const double partial[3] = { 0.0, 9.0, 0.0 };
	struct rv_scaler s, t;
	float z[3], row[3] = { 11.0f, 7.0f, 1.0f };

	(void)state;
	assert_int_equal(rv_scaler_fit_mt(&t, x, 4, 3, 1, NULL), 0);
	assert_int_equal(t.nout, 2);                    /* column 0 is constant */
	assert_int_equal(rv_scaler_fit_floor(&s, x, 4, 3, 1, floor_in, 1, NULL), 0);
	assert_int_equal(s.nout, 3);
	assert_int_equal(s.keep[0], 0);
	assert_true(close_rel(s.sd[0], 2.0, 1e-12));    /* kept on its floor */
	assert_true(close_rel(s.sd[1], 9.0, 1e-12));    /* raised */
	assert_true(close_rel(s.sd[2], t.sd[1], 1e-12)); /* larger than 0.5: kept */
	assert_true(close_rel(s.inv_sd[1], 1.0 / 9.0, 1e-12));
	rv_scaler_apply(&s, row, z);
	assert_true(fabs(z[0] - 3.0) < 1e-6);           /* (11 - 5) / 2 */
	rv_scaler_fini(&s);
	assert_int_equal(rv_scaler_fit_floor(&s, x, 4, 3, 1, partial, 1, NULL), 0);
	assert_int_equal(s.nout, 2);                    /* no floor: dropped */
	assert_int_equal(s.keep[0], 1);
	rv_scaler_fini(&s);
	/* without keep_constant the floors only raise */
	assert_int_equal(rv_scaler_fit_floor(&s, x, 4, 3, 1, floor_in, 0, NULL), 0);
	assert_int_equal(s.nout, 2);
	assert_true(close_rel(s.sd[0], 9.0, 1e-12));
	rv_scaler_fini(&s);
	rv_scaler_fini(&t);
}

static void test_scaler_save_load(void **state)
{
	struct rv_scaler s, t;
	struct rv_wbuf w;
	struct rv_rbuf r;
	float z1[NF], z2[NF];

	assert_int_equal(rv_scaler_fit(&s, D.feat, ROWS, NF, NULL), 0);
	rv_wbuf_init(&w);
	rv_scaler_save(&s, &w);
	rv_wbuf_f64(&w, 123.0); /* what follows the section stays readable */
	rv_rbuf_init(&r, w.data, w.len);
	assert_int_equal(rv_scaler_load(&t, &r, NULL), 0);
	assert_true(rv_rbuf_f64(&r) == 123.0);
	assert_false(r.bad);
	assert_int_equal(t.nin, s.nin);
	assert_int_equal(t.nout, s.nout);
	assert_memory_equal(t.keep, s.keep, s.nout * sizeof(*s.keep));
	assert_memory_equal(t.mean, s.mean, s.nout * sizeof(*s.mean));
	assert_memory_equal(t.sd, s.sd, s.nout * sizeof(*s.sd));
	assert_memory_equal(t.inv_sd, s.inv_sd, s.nout * sizeof(*s.inv_sd));
	for (size_t i = 0; i < ROWS; i += 37) {
		rv_scaler_apply(&s, D.feat + i * NF, z1);
		rv_scaler_apply(&t, D.feat + i * NF, z2);
		assert_memory_equal(z1, z2, sizeof(z1));
	}
	rv_scaler_fini(&t);
	rv_scaler_fini(&s);
	rv_wbuf_fini(&w);
	(void)state;
}

/* Layout of a saved scaler: tag u32, version u32, nin u64, nout u64,
 * keep u32 x nout, mean f64 x nout, sd f64 x nout. */
enum { SC_TAG = 0, SC_VER = 4, SC_NIN = 8, SC_NOUT = 16, SC_KEEP = 24 };

static void expect_scaler_refused(const uint8_t *data, size_t len, const char *what)
{
	struct rv_scaler t;
	struct rv_rbuf r;
	struct rv_err err = { 0 };
	int rc;

	rv_rbuf_init(&r, data, len);
	rc = rv_scaler_load(&t, &r, &err);
	if (rc != -EINVAL || err.code != -EINVAL || err.msg[0] == '\0' || t.keep || t.mean)
		fail_msg("%s: rc %d, err '%s'", what, rc, err.msg);
}

static void test_scaler_corrupt(void **state)
{
	struct rv_scaler s;
	struct rv_wbuf w;
	uint8_t *c;
	size_t n, mean_at, sd_at;
	const double inf = INFINITY, zero = 0.0, neg = -1.0, nan = NAN;
	const uint64_t big = NF + 1;

	assert_int_equal(rv_scaler_fit(&s, D.feat, ROWS, NF, NULL), 0);
	rv_wbuf_init(&w);
	rv_scaler_save(&s, &w);
	n = w.len;
	assert_int_equal(n, SC_KEEP + NF * (4 + 8 + 8));
	mean_at = SC_KEEP + NF * 4;
	sd_at = mean_at + NF * 8;
	c = malloc(n);
	assert_non_null(c);
	for (size_t len = 0; len < n; len++)
		expect_scaler_refused(w.data, len, "truncated");
#define CORRUPT(off, val, what)                                          \
	do {                                                             \
		memcpy(c, w.data, n);                                    \
		memcpy(c + (off), &(val), sizeof(val));                  \
		expect_scaler_refused(c, n, what);                       \
	} while (0)
	{
		const uint32_t bad_tag = 0x12345678u, bad_ver = 2, keep_dup = 0, keep_big = NF;
		const uint64_t nout0 = 0;
		CORRUPT(SC_TAG, bad_tag, "tag");
		CORRUPT(SC_VER, bad_ver, "version");
		CORRUPT(SC_NOUT, nout0, "nout 0");
		CORRUPT(SC_NOUT, big, "nout > nin");
		CORRUPT(SC_KEEP + 4, keep_dup, "keep not ascending");
		CORRUPT(SC_KEEP + 4 * (NF - 1), keep_big, "keep >= nin");
	}
	CORRUPT(mean_at + 8 * 3, inf, "mean inf");
	CORRUPT(mean_at, nan, "mean nan");
	CORRUPT(sd_at + 8 * 5, zero, "sd 0");
	CORRUPT(sd_at, neg, "sd negative");
	CORRUPT(sd_at + 8 * 11, nan, "sd nan");
	CORRUPT(sd_at + 8 * 2, inf, "sd inf");
#undef CORRUPT
	free(c);
	rv_wbuf_fini(&w);
	rv_scaler_fini(&s);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_matches_python),
		cmocka_unit_test(test_scaler_vs_numpy),
		cmocka_unit_test(test_scaler_constant_columns),
		cmocka_unit_test(test_scaler_floor),
		cmocka_unit_test(test_scaler_fit_floor),
		cmocka_unit_test(test_scaler_save_load),
		cmocka_unit_test(test_scaler_corrupt),
	};
	return cmocka_run_group_tests(tests, ens_data_setup, NULL);
}
