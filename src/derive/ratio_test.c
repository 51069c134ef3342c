/*
 * ratio_test.c - the ratio channels by hand: which instances get one (all
 * inputs present, same instance, whole metric names only), their names
 * and values, gaps when an input is a gap or a denominator is not
 * positive, and busy MHz with its third input; the inputs of each ratio.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "derive/ratio.h"

static void test_plan_and_apply(void **state)
{
	static const char *const names[] = {
		"cpu.instructions:cpu0", "cpu.cycles:cpu0",
		"cpu.instructions:cpu1",                         /* no cycles: no ratio */
		"cpu.cycles_total:cpu1",                         /* not a whole name */
		"cpu.aperf:cpu0", "cpu.mperf:cpu0", "cpu.tsc:cpu0",
		"cpu.aperf:cpu1", "cpu.mperf:cpu1",              /* no tsc: no busy MHz */
		"net.tcp_retrans_segs", "net.tcp_out_segs",
		"cpu.cache_misses:cpu0",                         /* no references */
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	double v[N] = { 3e9, 2e9, 1, 1, 1.5e9, 1e9, 2.4e9, 1, 1, 5, 1000, 7 };
	uint8_t ok[N];
	double out[8];
	uint8_t out_ok[8];
	struct rv_ratio_plan *p = NULL;

	(void)state;
	memset(ok, 1, sizeof(ok));
	assert_int_equal(rv_ratio_plan_new(names, N, &p), 0);
	assert_int_equal(rv_ratio_count(p), 3);
	assert_string_equal(rv_ratio_name(p, 0), "cpu.ipc:cpu0");
	assert_string_equal(rv_ratio_name(p, 1), "cpu.busy_mhz:cpu0");
	assert_string_equal(rv_ratio_name(p, 2), "net.tcp_retrans_pct");
	assert_string_equal(rv_ratio_metric(p, 0)->unit, "instr/cycle");
	{
		size_t idx[3];

		assert_int_equal(rv_ratio_inputs(p, 0, idx), 2);
		assert_true(idx[0] == 0 && idx[1] == 1);
		assert_int_equal(rv_ratio_inputs(p, 1, idx), 3);
		assert_true(idx[0] == 4 && idx[1] == 5 && idx[2] == 6);
		assert_int_equal(rv_ratio_inputs(p, 2, idx), 2);
		assert_true(idx[0] == 9 && idx[1] == 10);
	}
	rv_ratio_apply(p, v, ok, out, out_ok);
	assert_true(out_ok[0] && out[0] == 1.5);
	/* 2.4 GHz TSC, APERF/MPERF 1.5: 3600 MHz while busy */
	assert_true(out_ok[1] && fabs(out[1] - 3600.0) < 1e-9);
	assert_true(out_ok[2] && out[2] == 0.5);
	/* A gap in an input, a zero denominator: gaps, not 0 or inf. */
	ok[1] = 0;
	v[10] = 0.0;
	rv_ratio_apply(p, v, ok, out, out_ok);
	assert_int_equal(out_ok[0], 0);
	assert_int_equal(out_ok[2], 0);
	assert_int_equal(out_ok[1], 1);
	ok[6] = 0;                      /* the third input of busy MHz */
	rv_ratio_apply(p, v, ok, out, out_ok);
	assert_int_equal(out_ok[1], 0);
	rv_ratio_plan_free(p);

	/* No inputs at all: an empty plan that applies to nothing. */
	assert_int_equal(rv_ratio_plan_new(names, 0, &p), 0);
	assert_int_equal(rv_ratio_count(p), 0);
	rv_ratio_apply(p, v, ok, out, out_ok);
	rv_ratio_plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_and_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
