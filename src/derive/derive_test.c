/*
 * derive_test.c - rv_derive_value by hand: gauges scaled, counter rates
 * over the interval, resets and wraps as gaps (never negative), gaps in
 * either sample, a zero or negative interval.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "derive/derive.h"

static void test_derive(void **state)
{
	double v;

	(void)state;
	assert_int_equal(rv_derive_value(RV_KIND_GAUGE, 1024.0, 3.0, 1, 0.0, 0, 0.0, &v), 1);
	assert_true(v == 3072.0);
	assert_int_equal(rv_derive_value(RV_KIND_GAUGE, 1.0, 3.0, 0, 0.0, 1, 1.0, &v), 0);
	assert_true(v == 0.0);
	/* 1500 more in 0.5 s, 512 bytes each: 1.536 MB/s */
	assert_int_equal(rv_derive_value(RV_KIND_COUNTER, 512.0, 2500.0, 1, 1000.0, 1, 0.5, &v), 1);
	assert_true(v == 1536000.0);
	assert_int_equal(rv_derive_value(RV_KIND_EVENT, 1.0, 7.0, 1, 7.0, 1, 2.0, &v), 1);
	assert_true(v == 0.0);
	/* reset / wrap: a gap, not a negative rate */
	assert_int_equal(rv_derive_value(RV_KIND_COUNTER, 1.0, 5.0, 1, 1e12, 1, 1.0, &v), 0);
	assert_true(v == 0.0);
	/* no previous sample, no current sample, no interval */
	assert_int_equal(rv_derive_value(RV_KIND_COUNTER, 1.0, 5.0, 1, 0.0, 0, 1.0, &v), 0);
	assert_int_equal(rv_derive_value(RV_KIND_COUNTER, 1.0, 5.0, 0, 1.0, 1, 1.0, &v), 0);
	assert_int_equal(rv_derive_value(RV_KIND_COUNTER, 1.0, 5.0, 1, 1.0, 1, 0.0, &v), 0);
	assert_int_equal(rv_derive_value(RV_KIND_COUNTER, 1.0, 5.0, 1, 1.0, 1, -1.0, &v), 0);
	/* huge counters near 2^64 keep their difference */
	assert_int_equal(rv_derive_value(RV_KIND_COUNTER, 1.0, 18446744073709549568.0, 1,
					 18446744073709547520.0, 1, 1.0, &v), 1);
	assert_true(v == 2048.0);
}

/* A channel's last valid sample carries over gaps: the rate after a gap
 * covers the whole interval, unless the gap is longer than
 * RV_DERIVE_MAX_GAP_S; a reset is no rate; the first sample has none. */
static void test_step(void **state)
{
	struct rv_derive_prev p = { 0 };
	const int64_t S = 1000000000;
	double v = -1;

	(void)state;
	assert_int_equal(rv_derive_step(RV_KIND_COUNTER, 1.0, 100, 1, 10 * S, &p, &v), 0);
	assert_int_equal(rv_derive_step(RV_KIND_COUNTER, 1.0, 0, 0, 11 * S, &p, &v), 0);
	assert_true(v == 0.0);
	/* 300 more over the 2 s since the last valid sample */
	assert_int_equal(rv_derive_step(RV_KIND_COUNTER, 1.0, 400, 1, 12 * S, &p, &v), 1);
	assert_true(v == 150.0);
	/* a reset: no rate, and the next interval counts from the new value */
	assert_int_equal(rv_derive_step(RV_KIND_COUNTER, 1.0, 50, 1, 13 * S, &p, &v), 0);
	assert_int_equal(rv_derive_step(RV_KIND_COUNTER, 2.0, 60, 1, 14 * S, &p, &v), 1);
	assert_true(v == 20.0);
	/* away for longer than RV_DERIVE_MAX_GAP_S: no rate across it */
	assert_int_equal(rv_derive_step(RV_KIND_COUNTER, 1.0, 99, 1,
					14 * S + (int64_t)(RV_DERIVE_MAX_GAP_S * 1e9) + S, &p, &v),
			 0);
	/* gauges need no history */
	assert_int_equal(rv_derive_step(RV_KIND_GAUGE, 2.0, 7, 1, 99 * S, &p, &v), 1);
	assert_true(v == 14.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
