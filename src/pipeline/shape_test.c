/*
 * shape_test.c - the shape of a window below its channel's resolution is
 * no evidence. An I/O pressure that wiggled by hundredths of a percent
 * while learning (its catalog resolution is half a percent) and then stays
 * at exactly 0, as it does while a CPU hog runs, is never what a window
 * is blamed on: its skewness, kurtosis and autocorrelation were noise, and
 * a flat window does not depart from noise. (Without the channel floors
 * it led eight of the quiet windows here, as it led the open event of a
 * CPU incident in the agent's live test.)
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

enum { TRAIN_ROWS = 900, TEST_ROWS = 500, CHANS = 3, WIN = 30, STEP = 10, QUIET_ROW = 150 };

static uint32_t lcg = 777u;

static double uniform(void)   /* in [0, 1) */
{
	lcg = lcg * 1664525u + 1013904223u;
	return (lcg >> 8) / 16777216.0;
}

/* Channel 0: I/O pressure, 0 but for a spike of 0.02 to 0.12 % in one
 * sample of twelve, at 0 from QUIET_ROW on when `quiet`; channels 1 and 2
 * are CPU percentages with noise. */
static struct rv_table *series(size_t rows, int quiet)
{
	const char *names[CHANS] = { "storage.psi_full_stall_pct", "cpu.busy_pct",
				     "cpu.user_pct" };
	struct rv_table *t;

	assert_int_equal(rv_table_new(rows, CHANS, 0, NULL, &t), 0);
	for (size_t c = 0; c < CHANS; c++)
		assert_non_null(t->names[c] = strdup(names[c]));
	for (size_t r = 0; r < rows; r++) {
		double spike = uniform() < 1.0 / 12.0 ? 0.02 + 0.1 * uniform() : 0.0;

		t->values[r] = (float)(quiet && r >= QUIET_ROW ? 0.0 : spike);
		t->values[rows + r] = (float)(10.0 + 2.0 * uniform());
		t->values[2 * rows + r] = (float)(8.0 + 2.0 * uniform());
	}
	return t;
}

/* Flagged test windows wholly after QUIET_ROW that are blamed on channel
 * 0 (it ranks first). */
static size_t blamed_after(int quiet)
{
	struct rv_detect_opts o;
	struct rv_table *train, *test;
	struct rv_model *m = NULL;
	struct rv_live *l = NULL;
	float rowmaj[TEST_ROWS * CHANS];
	const float *rows[WIN];
	size_t n = 0;

	lcg = 777u;
	train = series(TRAIN_ROWS, 0);
	test = series(TEST_ROWS, quiet);
	rv_detect_opts_default(&o);
	o.window = (struct rv_span){ WIN, 0 };
	o.step = (struct rv_span){ STEP, 0 };
	o.ens.iforest.trees = 50;
	o.ens.sd_floor_rel = 0.01;   /* as the agent */
	assert_int_equal(rv_model_fit(&o, train, &m, NULL, NULL), 0);
	assert_non_null(m->flat_below);
	assert_true(m->flat_below[0] == 0.5);
	assert_int_equal(rv_live_new(m, &l), 0);
	for (size_t r = 0; r < TEST_ROWS; r++)
		for (size_t c = 0; c < CHANS; c++)
			rowmaj[r * CHANS + c] = test->values[c * TEST_ROWS + r];
	for (size_t s = QUIET_ROW; s + WIN <= TEST_ROWS; s += STEP) {
		struct rv_live_out out;

		for (size_t k = 0; k < WIN; k++)
			rows[k] = rowmaj + (s + k) * CHANS;
		rv_live_score(l, rows, &out);
		n += out.flagged && out.nrank > 0 && out.rank[0] == 0;
	}
	rv_live_free(l);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
	return n;
}

static void test_quiet_below_resolution(void **state)
{
	size_t wiggling = blamed_after(0), quiet = blamed_after(1);

	(void)state;
	if (wiggling || quiet)
		fail_msg("windows blamed on the I/O pressure: %zu once its sub-resolution "
			 "wiggle stopped, %zu while it went on", quiet, wiggling);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_below_resolution),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
