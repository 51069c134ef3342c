/*
 * fmtnum_test.c - rv_fmt_g6 / rv_fmt_g15 against printf on fixed edge
 * cases and on many random values across the fast path's range and beyond.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/fmtnum.h"
#include "base/rng.h"

enum { RANDOM_VALUES = 100000 };

/* fmt (rv_fmt_g6 or rv_fmt_g15) prints v as printf's "%.<digits>g" does. */
static void check(double v, size_t (*fmt)(double, char *), int digits)
{
	char got[RV_FMT_MAX], want[64];
	size_t n = fmt(v, got);

	snprintf(want, sizeof(want), "%.*g", digits, v);
	assert_string_equal(got, want);
	assert_int_equal(n, strlen(want));
}

static void test_g6_edges(void **state)
{
	static const double v[] = {
		0.0, -0.0, 1.0, 0.5, 0.123456, 1.234567, 12.5, 100000.0, 999999.5, 999999.4,
		0.0001, 0.00009999995, 0.00012345, 123456.7, 0.1, 2.5e-5, 1e6, 1e-300, 1e300,
		0.30000000000000004, 0.999999, 0.9999996, 9.9999996, -1.5, -0.000321, 42.0,
		NAN, INFINITY, -INFINITY,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check(v[i], rv_fmt_g6, 6);
}

static void test_g6_random(void **state)
{
	struct rv_rng r;

	(void)state;
	rv_rng_seed(&r, 7);
	for (int i = 0; i < RANDOM_VALUES; i++) {
		double mag = exp(rv_rng_uniform(&r) * 30.0 - 15.0);
		check(rv_rng_u64(&r) & 1 ? mag : -mag, rv_fmt_g6, 6);
	}
}

static void test_g15(void **state)
{
	static const double v[] = {
		0.0, 1.0, -3.0, 1700000000.0, 1700000000.2, 123456789012345.0, 1e15, 1e16,
		-1700000060.0, 0.1, NAN, INFINITY,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check(v[i], rv_fmt_g15, 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g6_edges),
		cmocka_unit_test(test_g6_random),
		cmocka_unit_test(test_g15),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
