/*
 * details_test.c - the baseline of an incident's evidence that leaves out
 * the stretches of other incidents (rv_details_clean_baseline).
 *
 * Times are relative to the incident's stretch start S = 1000; the
 * baseline is 120 s long by default, at least 30 s when cut short, and
 * begins 5 s after the end of an incident before it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

#include "explain/details.h"

#define S 1000.0
#define BASE 120.0
#define MIN 30.0
#define SETTLE 5.0

static void base(const double (*busy)[2], size_t n, double oldest, double want_from,
		 double want_to)
{
	double from = NAN, to = NAN;

	rv_details_clean_baseline(S, busy, n, BASE, MIN, SETTLE, oldest, &from, &to);
	assert_float_equal(from, want_from, 1e-9);
	assert_float_equal(to, want_to, 1e-9);
}

static void test_no_other_incident(void **state)
{
	(void)state;
	base(NULL, 0, 0, S - BASE, S);
}

static void test_others_outside_the_baseline(void **state)
{
	/* one ended before the baseline began, one began after the incident */
	static const double busy[][2] = { { S - 300, S - BASE - 1 }, { S + 10, S + 50 } };

	(void)state;
	base(busy, 2, 0, S - BASE, S);
}

static void test_after_an_earlier_incident(void **state)
{
	/* the same fault 100 s before (40 s long): the baseline is the quiet
	 * stretch after it, 5 s after its end */
	static const double busy[][2] = { { S - 140, S - 100 } };

	(void)state;
	base(busy, 1, 0, S - 95, S);
}

static void test_latest_end_counts(void **state)
{
	static const double busy[][2] = { { S - 60, S - 40 }, { S - 150, S - 100 } };

	(void)state;
	base(busy, 2, 0, S - 35, S);
}

static void test_too_soon_after_another(void **state)
{
	/* 20 s after another incident (15 s after its settle): too short a
	 * baseline; the one before that incident began instead */
	static const double busy[][2] = { { S - 60, S - 20 } };

	(void)state;
	base(busy, 1, 0, S - 60 - BASE, S - 60);
}

static void test_follow_on_of_an_open_incident(void **state)
{
	/* its first phase is still open: the host before that phase */
	static const double busy[][2] = { { S - 45, INFINITY } };

	(void)state;
	base(busy, 1, 0, S - 45 - BASE, S - 45);
}

static void test_oldest_sample(void **state)
{
	static const double busy[][2] = { { S - 60, S - 20 } };

	(void)state;
	/* the default cut at the first sample held */
	base(NULL, 0, S - 50, S - 50, S);
	/* the stretch before the other incident cut at it, still 30 s or more */
	base(busy, 1, S - 100, S - 100, S - 60);
	/* ... and when less than 30 s would be left: the default, cut */
	base(busy, 1, S - 80, S - 80, S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_other_incident),
		cmocka_unit_test(test_others_outside_the_baseline),
		cmocka_unit_test(test_after_an_earlier_incident),
		cmocka_unit_test(test_latest_end_counts),
		cmocka_unit_test(test_too_soon_after_another),
		cmocka_unit_test(test_follow_on_of_an_open_incident),
		cmocka_unit_test(test_oldest_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
