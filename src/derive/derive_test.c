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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
