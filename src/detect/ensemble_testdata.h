/*
 * ensemble_testdata.h - test support shared by ensemble_test.c and
 * scaler_test.c (not part of the library): the synthetic data both use.
 *
 * 400 rows of 12 correlated features (4 channels x 3) and 12 raw columns,
 * generated with base/rng.h by operations that are exact in IEEE double;
 * tests/fixtures/detect/gen_ensemble.py replays the generator and stores
 * numpy's column statistics, the zscore threshold and the first and last row
 * in ensemble_stats.txt. ens_data_setup() (a cmocka group setup) fills D from
 * both; test_data_matches_python() checks that they agree bit for bit.
 *
 * Header-only on purpose: the build compiles every .c file of src/detect
 * that is not a *_test.c into the library. Everything here is static, so
 * each test gets its own copy.
 */
#ifndef RV_DETECT_ENSEMBLE_TESTDATA_H
#define RV_DETECT_ENSEMBLE_TESTDATA_H

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

enum {
	ROWS = 400, NF = 12, NRAW = 12, NCHAN = 4, PER_CHAN = 3, IH_TERMS = 12,
	FIX_MAX_BYTES = 1 << 14,
};
static const uint64_t ENS_SEED = 20251030;

/* the generator of gen_ensemble.py */
static const double FA[NF] = { 1.0, 0.5, 2.0, 0.75, 1.5, 1.25, 0.25, 1.0, 3.0, 0.5, 1.75, 1.0 };
static const double FB[NF] = { 0.5, 0.25, 1.0, 0.5, 0.5, 0.75, 0.125, 0.5, 1.5, 0.25, 0.5, 0.75 };
static const double FOFF[NF] = { 10.0, -3.0, 100.0, 0.5, 42.0, 7.0, -20.0, 1000.0, 0.0, 5.0, 64.0, -1.0 };
static const double RA[NRAW] = { 1.0, 1.5, 2.0, 0.5, 0.75, 1.0, 2.5, 1.25, 0.5, 1.0, 2.0, 3.0 };
static const double RB = 0.5;
static const double ROFF[NRAW] = { 1.0, 2.0, 3.0, 10.0, 20.0, 30.0, -5.0, -6.0, -7.0, 50.0, 60.0, 70.0 };

struct data {
	float feat[ROWS * NF], raw[ROWS * NRAW];
	uint32_t feat_chan[NF], raw_chan[NRAW];
	/* numpy reference (ensemble_stats.txt) */
	double mean[NF], sd[NF], raw_mean[NRAW], raw_sd[NRAW], zscore_thr;
	double row0[NF], row_last[NF];
};

static struct data D;

static double irwin_hall(struct rv_rng *r)
{
	double s = 0.0;

	for (int k = 0; k < IH_TERMS; k++)
		s += rv_rng_uniform(r);
	return s - 6.0;
}

static void generate(struct data *d)
{
	struct rv_rng r;

	rv_rng_seed(&r, ENS_SEED);
	for (size_t i = 0; i < ROWS; i++) {
		double g[2];
		g[0] = irwin_hall(&r);
		g[1] = irwin_hall(&r);
		for (size_t j = 0; j < NF; j++)
			d->feat[i * NF + j] = (float)(FA[j] * g[j % 2] + FB[j] * irwin_hall(&r) + FOFF[j]);
		for (size_t j = 0; j < NRAW; j++)
			d->raw[i * NRAW + j] =
				(float)(RA[j] * g[(j / 3) % 2] + RB * irwin_hall(&r) + ROFF[j]);
	}
	for (size_t j = 0; j < NF; j++)
		d->feat_chan[j] = (uint32_t)(j / PER_CHAN);
	for (size_t j = 0; j < NRAW; j++)
		d->raw_chan[j] = (uint32_t)(j / PER_CHAN);
}

/* Reads the numbers after `key` on its line of ensemble_stats.txt. */
static void fixture_numbers(const char *text, const char *key, double *out, size_t n)
{
	size_t klen = strlen(key);
	const char *p = text, *end = text + strlen(text);

	while (p < end && !(memcmp(p, key, klen) == 0 && p[klen] == ' ')) {
		while (p < end && *p != '\n')
			p++;
		p += p < end;
	}
	assert_true(p < end);
	p += klen;
	for (size_t i = 0; i < n; i++) {
		rv_str_skip_blank(&p, end);
		assert_int_equal(rv_str_double(&p, end, &out[i]), 0);
	}
}

/* cmocka group setup: generates D and reads its numpy reference. */
static int ens_data_setup(void **state)
{
	static char text[FIX_MAX_BYTES];
	const char *dir = getenv("RV_FIXTURES");
	char path[512];
	FILE *f;
	size_t len;

	if (!dir)
		return -1;
	generate(&D);
	snprintf(path, sizeof(path), "%s/detect/ensemble_stats.txt", dir);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	fixture_numbers(text, "feat_mean", D.mean, NF);
	fixture_numbers(text, "feat_sd", D.sd, NF);
	fixture_numbers(text, "raw_mean", D.raw_mean, NRAW);
	fixture_numbers(text, "raw_sd", D.raw_sd, NRAW);
	fixture_numbers(text, "zscore_thr", &D.zscore_thr, 1);
	fixture_numbers(text, "row0", D.row0, NF);
	fixture_numbers(text, "row399", D.row_last, NF);
	(void)state;
	return 0;
}

static int close_rel(double a, double b, double tol)
{
	return fabs(a - b) <= tol * (fabs(b) > 1.0 ? fabs(b) : 1.0);
}

/* The C generator and the Python one agree on the data bit for bit. */
static void test_data_matches_python(void **state)
{
	for (size_t j = 0; j < NF; j++) {
		assert_true((double)D.feat[j] == D.row0[j]);
		assert_true((double)D.feat[(ROWS - 1) * NF + j] == D.row_last[j]);
	}
	(void)state;
}

#endif
