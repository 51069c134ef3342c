/*
 * strparse_test.c - the cursor scanners of base/strparse.h: rv_str_double
 * against glibc strtod (a table of tricky inputs, refusals, bounded ends,
 * 40000 random numbers of 1 to 19 significant digits), rv_str_u64 and
 * rv_str_i64 limits, blanks and token comparison.
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

#include "base/rng.h"
#include "base/strparse.h"

enum { RANDOM_CASES = 20000, NUM_BUF = 64 };

static int same_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) && signbit(a) == signbit(b);
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* ------------------------------------------------------------- strparse */

/* Parses s (bounded by its strlen) with both rv_str_double and strtod and
 * requires the same value (bit for bit) and the same cursor advance. */
static void expect_like_strtod(const char *s)
{
	const char *p = s, *end = s + strlen(s);
	char *stop;
	double ref, got = -12345.0;
	int rc;

	errno = 0;
	ref = strtod(s, &stop);
	rc = rv_str_double(&p, end, &got);
	if (rc != 0 || !same_double(got, ref) || p != stop)
		fail_msg("'%s': rv_str_double rc %d value %.17g advance %td; strtod %.17g advance %td",
			 s, rc, got, p - s, ref, stop - s);
}

static void test_strparse_double_table(void **state)
{
	static const char *const agree[] = {
		"0", "-0", "+0", "1", "-1", "+7", "42", "123456789", "9007199254740992",
		"9007199254740993", "18446744073709551615", "1234567890123456789",
		"12345678901234567890", "99999999999999999999999999", "0.5", ".5", "-.5",
		"5.", "-5.", "3.14159", "0.1", "0.2", "0.3", "2.2250738585072014e-308",
		"4.9e-324", "1.7976931348623157e308", "1e308", "1e-308", "1e22", "1e23",
		"1e-22", "1e-23", "1E5", "1e+5", "1e-5", "-2.5E-3", "000123", "0000.000",
		"0.000000000000000000000000001", "00000000000000000000001.5",
		"1.0000000000000000000000001", "0.12345678901234567890123",
		"123.456e-2", "9.999999999999999e22", "4503599627370497.5",
		"8.589973e9", "1.5x", "2e5z", "7,5", "1.2.3", "1e0", "1e-0", "0e99999",
		"1e-400", "123456789012345678", "0.1234567890123456789",
		"1234567890.123456789", "nan", "NaN", "-nan", "inf", "-inf", "+INF",
		"Infinity", "-Infinity", "infinit", "infx",
	};
	for (size_t i = 0; i < sizeof(agree) / sizeof(agree[0]); i++)
		expect_like_strtod(agree[i]);
	(void)state;
}

static void expect_refused(const char *s, int code)
{
	const char *p = s, *end = s + strlen(s);
	double v = 99.0;
	int rc = rv_str_double(&p, end, &v);

	/* the contract keeps the cursor on failure; *out is not promised */
	if (rc != code || p != s)
		fail_msg("'%s': rc %d (want %d), advance %td, value %.17g", s, rc, code, p - s, v);
}

static void test_strparse_double_refused(void **state)
{
	static const char *const bad[] = {
		"", "-", "+", ".", "-.", "+.", "e5", "E", "abc", "--1", "+-1", " 1", "\t1",
		"x1", "in", "na", "-x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_refused(bad[i], -EINVAL);
	/* out of range: too large in magnitude for a double */
	expect_refused("1e400", -ERANGE);
	expect_refused("-1e400", -ERANGE);
	expect_refused("1e100001", -ERANGE);
	(void)state;
}

/* A dangling exponent marker: either the token is refused (cursor kept) or
 * only the mantissa is taken, as strtod does; never a different value. */
static void expect_refused_or_mantissa(const char *s, double mantissa, size_t mlen)
{
	const char *p = s, *end = s + strlen(s);
	double v = 99.0;
	int rc = rv_str_double(&p, end, &v);

	if (rc == 0 && (v != mantissa || (size_t)(p - s) != mlen))
		fail_msg("'%s': value %.17g advance %td", s, v, p - s);
	if (rc != 0 && p != s)
		fail_msg("'%s': refused but the cursor moved", s);
}

static void test_strparse_double_partial(void **state)
{
	const char *hex = "0x10", *p = hex;
	double v = 0.0;
	int rc;

	expect_refused_or_mantissa("1e", 1.0, 1);
	expect_refused_or_mantissa("1e+", 1.0, 1);
	expect_refused_or_mantissa("2.5e-", 2.5, 3);
	expect_refused_or_mantissa("3ex", 3.0, 1);
	/* hex is refused: at most the leading "0" is a decimal number */
	rc = rv_str_double(&p, hex + 4, &v);
	if (rc == 0) {
		assert_true(v == 0.0);
		assert_ptr_equal(p, hex + 1);
	} else {
		assert_ptr_equal(p, hex);
	}
	p = "0x1p3";
	rc = rv_str_double(&p, p + 5, &v);
	assert_true(rc != 0 || v == 0.0);
	(void)state;
}

/* "strtod beyond 19 digits" has no length limit in the contract: a long
 * but in-range number is a number, not -ERANGE. */
static void test_strparse_double_long(void **state)
{
	enum { ZEROS = 150, ONES = 130 };
	char buf[ZEROS + ONES + 8];
	size_t n = 0;

	buf[n++] = '0';
	buf[n++] = '.';
	for (int i = 0; i < ZEROS; i++)
		buf[n++] = '0';
	buf[n++] = '1';
	buf[n] = '\0';
	expect_like_strtod(buf); /* 1e-151 */
	for (n = 0; n < ONES; n++)
		buf[n] = '1';
	buf[n] = '\0';
	expect_like_strtod(buf); /* 1.11e129 */
	(void)state;
}

/* The end pointer bounds the token: digits beyond it are not read. */
static void test_strparse_double_bounded(void **state)
{
	static const struct {
		const char *s;
		size_t len;
		double want;
	} cases[] = {
		{ "123456", 3, 123.0 },      { "1.5e10", 3, 1.5 },   { "-0.25", 4, -0.2 },
		{ "12345678901234567890123", 19, 1234567890123456789.0 },
		{ "infinity", 3, INFINITY }, { "9.75", 2, 9.0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = cases[i].s;
		double v = 0;
		assert_int_equal(rv_str_double(&p, p + cases[i].len, &v), 0);
		assert_ptr_equal(p, cases[i].s + cases[i].len);
		assert_true(v == cases[i].want);
	}
	(void)state;
}

/* Random numbers printed with 1..19 significant digits and random decimal
 * strings: exactly rounded means bit-identical to glibc's strtod. */
static void test_strparse_double_random(void **state)
{
	struct rv_rng r;
	char buf[NUM_BUF];

	rv_rng_seed(&r, 2024);
	for (int i = 0; i < RANDOM_CASES; i++) {
		uint64_t bits = rv_rng_u64(&r);
		double x;
		memcpy(&x, &bits, sizeof(x));
		if (!isfinite(x))
			continue;
		snprintf(buf, sizeof(buf), "%.*g", 1 + (int)rv_rng_below(&r, 19), x);
		if (isinf(strtod(buf, NULL)))
			expect_refused(buf, -ERANGE); /* rounded up past DBL_MAX */
		else
			expect_like_strtod(buf);
	}
	for (int i = 0; i < RANDOM_CASES; i++) {
		int ndig = 1 + (int)rv_rng_below(&r, 19), dot = (int)rv_rng_below(&r, 21);
		size_t n = 0;
		if (rv_rng_below(&r, 2))
			buf[n++] = '-';
		for (int d = 0; d < ndig; d++) {
			if (d == dot)
				buf[n++] = '.';
			buf[n++] = (char)('0' + rv_rng_below(&r, 10));
		}
		if (rv_rng_below(&r, 2))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "e%d",
					      (int)rv_rng_below(&r, 61) - 30);
		buf[n] = '\0';
		expect_like_strtod(buf);
	}
	(void)state;
}

static void test_strparse_u64(void **state)
{
	static const struct {
		const char *s;
		int rc;
		uint64_t v;
		size_t adv;
	} cases[] = {
		{ "0", 0, 0, 1 },
		{ "42", 0, 42, 2 },
		{ "000123", 0, 123, 6 },
		{ "12abc", 0, 12, 2 },
		{ "18446744073709551615", 0, UINT64_MAX, 20 },
		{ "18446744073709551616", -ERANGE, 0, 0 },
		{ "18446744073709551620", -ERANGE, 0, 0 },
		{ "99999999999999999999999", -ERANGE, 0, 0 },
		{ "", -EINVAL, 0, 0 },
		{ "-1", -EINVAL, 0, 0 },
		{ "+1", -EINVAL, 0, 0 },
		{ " 1", -EINVAL, 0, 0 },
		{ "x", -EINVAL, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = cases[i].s;
		uint64_t v = 7;
		int rc = rv_str_u64(&p, p + strlen(p), &v);
		if (rc != cases[i].rc || (size_t)(p - cases[i].s) != cases[i].adv ||
		    (rc == 0 && v != cases[i].v) || (rc != 0 && v != 7))
			fail_msg("'%s': rc %d value %llu advance %td", cases[i].s, rc,
				 (unsigned long long)v, p - cases[i].s);
	}
	(void)state;
}

static void test_strparse_i64(void **state)
{
	static const struct {
		const char *s;
		int rc;
		int64_t v;
		size_t adv;
	} cases[] = {
		{ "0", 0, 0, 1 },
		{ "-0", 0, 0, 2 },
		{ "+5", 0, 5, 2 },
		{ "-17x", 0, -17, 3 },
		{ "9223372036854775807", 0, INT64_MAX, 19 },
		{ "-9223372036854775808", 0, INT64_MIN, 20 },
		{ "9223372036854775808", -ERANGE, 0, 0 },
		{ "-9223372036854775809", -ERANGE, 0, 0 },
		{ "-18446744073709551616", -ERANGE, 0, 0 },
		{ "-", -EINVAL, 0, 0 },
		{ "+", -EINVAL, 0, 0 },
		{ "--1", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = cases[i].s;
		int64_t v = 7;
		int rc = rv_str_i64(&p, p + strlen(p), &v);
		if (rc != cases[i].rc || (size_t)(p - cases[i].s) != cases[i].adv ||
		    (rc == 0 && v != cases[i].v) || (rc != 0 && v != 7))
			fail_msg("'%s': rc %d value %lld advance %td", cases[i].s, rc, (long long)v,
				 p - cases[i].s);
	}
	(void)state;
}

static void test_strparse_blank_eq(void **state)
{
	const char *s = " \t \tx y", *p = s;

	rv_str_skip_blank(&p, s + strlen(s));
	assert_ptr_equal(p, s + 4);
	rv_str_skip_blank(&p, s + strlen(s));
	assert_ptr_equal(p, s + 4);
	p = s;
	rv_str_skip_blank(&p, s + 2);
	assert_ptr_equal(p, s + 2);
	p = "\n x";
	rv_str_skip_blank(&p, p + 3);
	assert_int_equal(*p, '\n');

	s = "cpu cpu0";
	assert_true(rv_str_eq(s, s + 3, "cpu"));
	assert_false(rv_str_eq(s, s + 4, "cpu"));
	assert_false(rv_str_eq(s + 4, s + 8, "cpu"));
	assert_true(rv_str_eq(s + 4, s + 8, "cpu0"));
	assert_true(rv_str_eq(s, s, ""));
	(void)state;
}

/* mountinfo lines: the fields after the "-" whatever the optional tags,
 * and lines without the separator or too short refused. */
static void test_mountinfo(void **state)
{
	static const char v1[] = "35 25 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:12 "
				 "master:3 - cgroup cgroup rw,cpu,cpuacct";
	static const char v2[] = "29 23 0:26 /kube /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate";
	static const char *const bad[] = {
		"29 23 0:26 / /sys/fs/cgroup rw cgroup2 cgroup2 rw",    /* no "-" */
		"29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2",     /* no superopts */
		"29 23 0:26 - / rw cgroup2 cgroup2 rw",                 /* "-" before the mount point */
		"",
	};
	struct rv_mountinfo m;

	(void)state;
	assert_int_equal(rv_mountinfo_parse(v1, v1 + strlen(v1), &m), 0);
	assert_true(rv_str_eq(m.root, m.root_end, "/"));
	assert_true(rv_str_eq(m.mount, m.mount_end, "/sys/fs/cgroup/cpu,cpuacct"));
	assert_true(rv_str_eq(m.fstype, m.fstype_end, "cgroup"));
	assert_true(rv_str_eq(m.superopts, m.superopts_end, "rw,cpu,cpuacct"));
	assert_int_equal(rv_mountinfo_parse(v2, v2 + strlen(v2), &m), 0);
	assert_true(rv_str_eq(m.root, m.root_end, "/kube"));
	assert_true(rv_str_eq(m.fstype, m.fstype_end, "cgroup2"));
	assert_true(rv_str_eq(m.superopts, m.superopts_end, "rw,nsdelegate"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rv_mountinfo_parse(bad[i], bad[i] + strlen(bad[i]), &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strparse_double_table),
		cmocka_unit_test(test_strparse_double_refused),
		cmocka_unit_test(test_strparse_double_partial),
		cmocka_unit_test(test_strparse_double_bounded),
		cmocka_unit_test(test_strparse_double_long),
		cmocka_unit_test(test_strparse_double_random),
		cmocka_unit_test(test_strparse_u64),
		cmocka_unit_test(test_strparse_i64),
		cmocka_unit_test(test_strparse_blank_eq),
		cmocka_unit_test(test_mountinfo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
