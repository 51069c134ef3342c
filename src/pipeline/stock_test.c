/*
 * stock_test.c - amounts of memory (rv_catalog_stock) are judged by how
 * they move. A page cache that grows by 300 MB and stays there is flagged
 * while it grows, and not in the windows after; the same series under a
 * name outside the catalog keeps its later windows flagged through its
 * level features. And a gauge that stood still in training is not an
 * outlier for a wiggle below its catalog resolution.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/model.h"
#include "pipeline/live.h"
#include "record/table.h"

enum { TRAIN_ROWS = 600, TEST_ROWS = 400, CHANS = 3, WIN = 15, STEP = 5, SHIFT_ROW = 150 };

static uint32_t lcg = 12345u;

static double noise(void)   /* uniform in [-1, 1) */
{
	lcg = lcg * 1664525u + 1013904223u;
	return (lcg >> 8) / 8388608.0 - 1.0;
}

/* Channel 0 is `name`: 1 GB of cache wiggling by 4 KiB (with `wiggle`
 * more in the test half), plus `shift` from SHIFT_ROW on, reached over 5
 * rows; channels 1 and 2 are CPU percentages with noise. */
static struct rv_table *series(const char *name, size_t rows, double shift, double wiggle)
{
	struct rv_table *t;
	const char *names[CHANS] = { name, "cpu.busy_pct", "cpu.user_pct" };

	assert_int_equal(rv_table_new(rows, CHANS, 0, NULL, &t), 0);
	for (size_t c = 0; c < CHANS; c++)
		assert_non_null(t->names[c] = strdup(names[c]));
	for (size_t r = 0; r < rows; r++) {
		double ramp = r < SHIFT_ROW ? 0.0 : r >= SHIFT_ROW + 5 ? 1.0 : (r - SHIFT_ROW) / 5.0;

		t->values[r] = (float)(1e9 + 4096.0 * noise() + wiggle * noise() + shift * ramp);
		t->values[rows + r] = (float)(10.0 + noise());
		t->values[2 * rows + r] = (float)(8.0 + noise());
	}
	return t;
}

struct counts {
	size_t during;   /* flagged windows that hold part of the ramp */
	size_t after;    /* flagged windows wholly after it */
	size_t nafter;
};

static struct counts score(const char *name, double shift, double wiggle)
{
	struct rv_detect_opts o;
	struct rv_table *train, *test;
	struct rv_model *m = NULL;
	struct rv_live *l = NULL;
	struct counts n = { 0 };
	float rowmaj[TEST_ROWS * CHANS];
	const float *rows[WIN];

	lcg = 12345u;
	train = series(name, TRAIN_ROWS, 0.0, 0.0);
	test = series(name, TEST_ROWS, shift, wiggle);
	rv_detect_opts_default(&o);
	o.window = (struct rv_span){ WIN, 0 };
	o.step = (struct rv_span){ STEP, 0 };
	o.ens.iforest.trees = 50;
	o.ens.sd_floor_rel = 0.01;   /* as the agent */
	assert_int_equal(rv_model_fit(&o, train, &m, NULL, NULL), 0);
	assert_int_equal(rv_live_new(m, &l), 0);
	for (size_t r = 0; r < TEST_ROWS; r++)
		for (size_t c = 0; c < CHANS; c++)
			rowmaj[r * CHANS + c] = test->values[c * TEST_ROWS + r];
	for (size_t s = 0; s + WIN <= TEST_ROWS; s += STEP) {
		struct rv_live_out out;

		for (size_t k = 0; k < WIN; k++)
			rows[k] = rowmaj + (s + k) * CHANS;
		rv_live_score(l, rows, &out);
		if (s + WIN > SHIFT_ROW && s < SHIFT_ROW + 5)
			n.during += out.flagged != 0;
		else if (s >= SHIFT_ROW + 5) {
			n.after += out.flagged != 0;
			n.nafter++;
		}
	}
	rv_live_free(l);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
	return n;
}

/* Each detector at its training quantile flags a few windows of an
 * unchanged series by chance (the same ones in every variant: the CPU
 * channels' noise is the same); the comparisons are against that. */
static struct counts chance(void)
{
	return score("mem.cached_bytes", 0.0, 0.0);
}

static void test_stock_settles(void **state)
{
	struct counts base = chance(), n = score("mem.cached_bytes", 3e8, 0.0);

	(void)state;
	assert_true(n.nafter > 40);
	assert_true(base.after < n.nafter / 4);
	if (n.during <= base.during)
		fail_msg("the growth itself was not flagged (%zu windows, %zu by chance)", n.during,
			 base.during);
	if (n.after > base.after + 1)
		fail_msg("%zu of %zu windows after the growth stayed flagged (%zu by chance)",
			 n.after, n.nafter, base.after);
}

static void test_level_stays_for_unknown_names(void **state)
{
	struct counts n = score("host.cached", 3e8, 0.0);

	(void)state;
	if (n.after < n.nafter * 9 / 10)
		fail_msg("only %zu of %zu windows after the shift flagged", n.after, n.nafter);
}

/* 200 KiB of wiggle on a gauge that moved 4 KiB in training: below the
 * catalog's 1 MiB resolution of memory, so nothing more is flagged than by
 * chance. */
static void test_resolution_floor(void **state)
{
	struct counts base = chance(), n = score("mem.cached_bytes", 0.0, 200.0 * 1024);

	(void)state;
	if (n.during + n.after > base.during + base.after + 1)
		fail_msg("%zu windows flagged for wiggles under 1 MiB (%zu by chance)",
			 n.during + n.after, base.during + base.after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stock_settles),
		cmocka_unit_test(test_level_stays_for_unknown_names),
		cmocka_unit_test(test_resolution_floor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
