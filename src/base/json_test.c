/*
 * json_test.c - the strict JSON reader of base/json.h: every value type,
 * escapes and surrogate pairs, numbers against glibc strtod (table, long
 * and random ones, range), the accessors on absent values, and a document
 * shaped like rv_incident_write_json output. Errors and limits are in
 * json_err_test.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/rng.h"
#include "base/json_testutil.h"

enum { RANDOM_NUMBERS = 20000, NUM_TEXT = 1200 };

static int same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* The number document text must read as strtod reads it. */
static void expect_number_like_strtod(const char *text)
{
	struct rv_json_doc *d = parse(text);
	double want = strtod(text, NULL), got = rv_json_num(rv_json_root(d), -1.0);

	if (!same_double(got, want))
		fail_msg("'%.60s': got %.17g, strtod %.17g", text, got, want);
	rv_json_doc_free(d);
}

/* ------------------------------------------------------------------ values */

static void test_json_scalars(void **state)
{
	struct rv_json_doc *d;
	const struct rv_json *v;
	int64_t i = 0;

	d = parse(" \t\r\n null \n");
	v = rv_json_root(d);
	assert_int_equal(rv_json_type(v), RV_JSON_NULL);
	assert_true(isnan(rv_json_num(v, NAN)));
	assert_string_equal(rv_json_str(v, "dflt"), "dflt");
	assert_int_equal(rv_json_bool(v, -1), -1);
	assert_int_equal(rv_json_line(v), 2);
	rv_json_doc_free(d);

	d = parse("true");
	assert_int_equal(rv_json_type(rv_json_root(d)), RV_JSON_TRUE);
	assert_int_equal(rv_json_bool(rv_json_root(d), -1), 1);
	rv_json_doc_free(d);
	d = parse("false");
	assert_int_equal(rv_json_type(rv_json_root(d)), RV_JSON_FALSE);
	assert_int_equal(rv_json_bool(rv_json_root(d), -1), 0);
	rv_json_doc_free(d);

	d = parse("-12.5e1");
	v = rv_json_root(d);
	assert_int_equal(rv_json_type(v), RV_JSON_NUMBER);
	assert_true(rv_json_num(v, 0) == -125.0);
	assert_int_equal(rv_json_i64(v, &i), 0);
	assert_int_equal(i, -125);
	assert_null(rv_json_str(v, NULL));
	assert_int_equal(rv_json_len(v), 0);
	assert_null(rv_json_at(v, 0));
	rv_json_doc_free(d);

	d = parse("\"hi\"");
	v = rv_json_root(d);
	assert_int_equal(rv_json_type(v), RV_JSON_STRING);
	assert_string_equal(rv_json_str(v, NULL), "hi");
	assert_int_equal(rv_json_str_len(v), 2);
	assert_true(isnan(rv_json_num(v, NAN)));
	assert_int_equal(rv_json_i64(v, &i), -EINVAL);
	rv_json_doc_free(d);

	d = parse("\"\"");
	assert_string_equal(rv_json_str(rv_json_root(d), NULL), "");
	assert_int_equal(rv_json_str_len(rv_json_root(d)), 0);
	rv_json_doc_free(d);
	(void)state;
}

static void test_json_containers(void **state)
{
	struct rv_json_doc *d = parse("{\n"
				      "  \"a\": [1, \"two\", [], {}, null, true],\n"
				      "  \"b\": {\"c\": {\"d\": -0.5}},\n"
				      "  \"\": 7,\n"
				      "  \"e\":\n"
				      "    [ [ [ ] ] ]\n"
				      "}");
	const struct rv_json *r = rv_json_root(d), *a, *b;

	assert_int_equal(rv_json_type(r), RV_JSON_OBJECT);
	assert_int_equal(rv_json_len(r), 4);
	assert_string_equal(rv_json_key(r, 0), "a");
	assert_string_equal(rv_json_key(r, 2), "");
	assert_int_equal(rv_json_key_len(r, 1), 1);
	assert_null(rv_json_key(r, 4));
	assert_int_equal(rv_json_key_len(r, 4), 0);
	a = rv_json_get(r, "a");
	assert_ptr_equal(a, rv_json_at(r, 0));
	assert_int_equal(rv_json_type(a), RV_JSON_ARRAY);
	assert_int_equal(rv_json_len(a), 6);
	assert_null(rv_json_key(a, 0));
	assert_null(rv_json_get(a, "a"));
	assert_true(rv_json_num(rv_json_at(a, 0), 0) == 1.0);
	assert_string_equal(rv_json_str(rv_json_at(a, 1), NULL), "two");
	assert_int_equal(rv_json_type(rv_json_at(a, 2)), RV_JSON_ARRAY);
	assert_int_equal(rv_json_len(rv_json_at(a, 2)), 0);
	assert_int_equal(rv_json_type(rv_json_at(a, 3)), RV_JSON_OBJECT);
	assert_int_equal(rv_json_len(rv_json_at(a, 3)), 0);
	assert_int_equal(rv_json_type(rv_json_at(a, 4)), RV_JSON_NULL);
	assert_non_null(rv_json_at(a, 4));
	assert_int_equal(rv_json_bool(rv_json_at(a, 5), 0), 1);
	assert_null(rv_json_at(a, 6));
	b = rv_json_get(r, "b");
	assert_true(rv_json_num(rv_json_get(rv_json_get(b, "c"), "d"), 0) == -0.5);
	assert_true(rv_json_num(rv_json_get(r, ""), 0) == 7.0);
	assert_null(rv_json_get(r, "z"));
	assert_null(rv_json_get(r, "aa"));
	assert_null(rv_json_get(r, NULL));
	assert_int_equal(rv_json_len(rv_json_at(rv_json_at(rv_json_get(r, "e"), 0), 0)), 0);
	/* lines: the object, its members' values, a value on the line after its name */
	assert_int_equal(rv_json_line(r), 1);
	assert_int_equal(rv_json_line(a), 2);
	assert_int_equal(rv_json_line(rv_json_at(a, 5)), 2);
	assert_int_equal(rv_json_line(b), 3);
	assert_int_equal(rv_json_line(rv_json_get(r, "e")), 6);
	rv_json_doc_free(d);

	d = parse("[[1,2],[3]]");
	r = rv_json_root(d);
	assert_int_equal(rv_json_len(r), 2);
	assert_true(rv_json_num(rv_json_at(rv_json_at(r, 0), 1), 0) == 2.0);
	assert_true(rv_json_num(rv_json_at(rv_json_at(r, 1), 0), 0) == 3.0);
	rv_json_doc_free(d);
	(void)state;
}

/* Absent values read as null; NULL documents and frees are harmless. */
static void test_json_absent(void **state)
{
	int64_t i = 5;

	assert_int_equal(rv_json_type(NULL), RV_JSON_NULL);
	assert_int_equal(rv_json_len(NULL), 0);
	assert_null(rv_json_at(NULL, 0));
	assert_null(rv_json_key(NULL, 0));
	assert_int_equal(rv_json_key_len(NULL, 0), 0);
	assert_null(rv_json_get(NULL, "a"));
	assert_true(rv_json_num(NULL, 2.5) == 2.5);
	assert_int_equal(rv_json_i64(NULL, &i), -EINVAL);
	assert_int_equal(i, 5);
	assert_int_equal(rv_json_bool(NULL, 3), 3);
	assert_string_equal(rv_json_str(NULL, "x"), "x");
	assert_int_equal(rv_json_str_len(NULL), 0);
	assert_int_equal(rv_json_line(NULL), 0);
	assert_null(rv_json_root(NULL));
	rv_json_doc_free(NULL);
	assert_int_equal(rv_json_parse("1", 1, "t.json", NULL, NULL), -EINVAL);
	expect_error_n(NULL, 0, "t.json:1:1: empty document");
	(void)state;
}

/* ----------------------------------------------------------------- strings */

static void check_string(const char *json, const char *want, size_t want_len)
{
	struct rv_json_doc *d = parse(json);
	const struct rv_json *v = rv_json_root(d);

	if (rv_json_str_len(v) != want_len || memcmp(rv_json_str(v, ""), want, want_len) != 0 ||
	    rv_json_str(v, "")[want_len] != '\0')
		fail_msg("%s: got %zu bytes '%s'", json, rv_json_str_len(v), rv_json_str(v, ""));
	rv_json_doc_free(d);
}

static void test_json_escapes(void **state)
{
	check_string("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"", "\" \\ / \b \f \n \r \t", 15);
	check_string("\"\\u0041\\u00e9\\u00E9\\u20ac\"", "A\xC3\xA9\xC3\xA9\xE2\x82\xAC", 8);
	check_string("\"\\u007f\\u0080\\u07FF\\u0800\\uFFFF\"",
		      "\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF", 11);
	/* surrogate pairs: U+1F600, U+10000, U+10FFFF */
	check_string("\"\\uD83D\\uDE00\"", "\xF0\x9F\x98\x80", 4);
	check_string("\"x\\ud800\\udc00y\"", "x\xF0\x90\x80\x80y", 6);
	check_string("\"\\uDBFF\\uDFFF\"", "\xF4\x8F\xBF\xBF", 4);
	/* raw UTF-8 passes through; DEL is not a control character */
	check_string("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F\"",
		      "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F", 10);
	check_string("\"\xEF\xBF\xBF\xF4\x8F\xBF\xBF\"", "\xEF\xBF\xBF\xF4\x8F\xBF\xBF", 7);
	/* \u0000 is kept: the length tells */
	check_string("\"a\\u0000b\"", "a\0b", 3);
	(void)state;
}

/* Member names with escapes, and a name holding NUL found only whole. */
static void test_json_keys(void **state)
{
	struct rv_json_doc *d = parse("{\"a\\u0000b\": 1, \"a\": 2, \"\\u00e9\": 3, \"t\\tab\": 4}");
	const struct rv_json *r = rv_json_root(d);

	assert_int_equal(rv_json_key_len(r, 0), 3);
	assert_memory_equal(rv_json_key(r, 0), "a\0b", 4);
	assert_true(rv_json_num(rv_json_get(r, "a"), 0) == 2.0);
	assert_true(rv_json_num(rv_json_get(r, "\xC3\xA9"), 0) == 3.0);
	assert_true(rv_json_num(rv_json_get(r, "t\tab"), 0) == 4.0);
	rv_json_doc_free(d);
	(void)state;
}

/* ----------------------------------------------------------------- numbers */

static void test_json_numbers(void **state)
{
	static const char *const agree[] = {
		"0", "-0", "1", "-1", "0.5", "-0.5", "3.14159", "0.1", "0.2", "0.3", "1e0", "1E5",
		"1e+5", "1e-5", "-2.5E-3", "1e308", "1e-308", "1.7976931348623157e308",
		"1.7976931348623158e308", "2.2250738585072014e-308", "2.2250738585072011e-308",
		"4.9e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "1e-400",
		"-1e-400", "1e-99999999999999999999", "9007199254740993", "9007199254740993.0",
		"18446744073709551616", "123456789012345678901234567890", "1e22", "1e23",
		"0.000000000000000000000000000000000001", "100000000000000000000000e-24",
		"8.98846567431158e307", "0e1000000000", "-0.0e-5",
	};
	struct rv_json_doc *d;
	double v;

	for (size_t i = 0; i < sizeof(agree) / sizeof(agree[0]); i++)
		expect_number_like_strtod(agree[i]);
	/* -0 keeps its sign; underflow is 0 with its sign */
	d = parse("[-0, -0.0, -1e-400, 0]");
	v = rv_json_num(rv_json_at(rv_json_root(d), 0), 1);
	assert_true(v == 0.0 && signbit(v));
	assert_true(signbit(rv_json_num(rv_json_at(rv_json_root(d), 1), 1)));
	assert_true(signbit(rv_json_num(rv_json_at(rv_json_root(d), 2), 1)));
	assert_false(signbit(rv_json_num(rv_json_at(rv_json_root(d), 3), 1)));
	rv_json_doc_free(d);
	/* past the largest double: an error, never inf */
	expect_error("1e400", "t.json:1:1: number out of range");
	expect_error("[1, -1e309]", "t.json:1:5: number out of range");
	expect_error("1.7976931348623159e308", "t.json:1:1: number out of range");
	expect_error("123456789e99999999999999999999", "t.json:1:1: number out of range");
	(void)state;
}

/* Exact integers, and what rv_json_i64 refuses. */
static void test_json_integers(void **state)
{
	struct rv_json_doc *d = parse("[9223372036854775807, -9223372036854775808, 9007199254740993,"
				      " 9223372036854775808, 1.5, 1e3, 1e20, -0, 2.0e0, \"7\","
				      " 9007199254740991e0, 9007199254740992e0]");
	const struct rv_json *r = rv_json_root(d);
	int64_t i = 0;

	assert_int_equal(rv_json_i64(rv_json_at(r, 0), &i), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(rv_json_i64(rv_json_at(r, 1), &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(rv_json_i64(rv_json_at(r, 2), &i), 0);
	assert_true(i == 9007199254740993LL);
	assert_true(rv_json_num(rv_json_at(r, 2), 0) == 9007199254740992.0);
	assert_int_equal(rv_json_i64(rv_json_at(r, 3), &i), -ERANGE);
	assert_true(rv_json_num(rv_json_at(r, 3), 0) == 9223372036854775808.0);
	assert_int_equal(rv_json_i64(rv_json_at(r, 4), &i), -EINVAL);
	assert_int_equal(rv_json_i64(rv_json_at(r, 5), &i), 0);
	assert_int_equal(i, 1000);
	assert_int_equal(rv_json_i64(rv_json_at(r, 6), &i), -ERANGE);
	assert_int_equal(rv_json_i64(rv_json_at(r, 7), &i), 0);
	assert_int_equal(i, 0);
	assert_int_equal(rv_json_i64(rv_json_at(r, 8), &i), 0);
	assert_int_equal(i, 2);
	assert_int_equal(rv_json_i64(rv_json_at(r, 9), &i), -EINVAL);
	assert_int_equal(rv_json_i64(rv_json_at(r, 10), &i), 0);
	assert_true(i == 9007199254740991LL);
	assert_int_equal(rv_json_i64(rv_json_at(r, 11), &i), -ERANGE);
	rv_json_doc_free(d);
	(void)state;
}

/* Numbers longer than the digits kept: the sticky digit rounds right. */
static void test_json_numbers_long(void **state)
{
	/* the exact midpoint between 0 and the smallest subnormal */
	static const char half_min[] =
		"2.4703282292062327208828439643411068618252990130716238221279284125033775363510437"
		"593264991818081799618989828234772285886546332835517796989819938739800539093906315"
		"035659515570226392290858392449105184435931802849936536152500319370457678249219365"
		"623669863658480757001585769269903706311928279558551332927834338409351978015531246"
		"597263579574622766465272827220056374006485499977096599470454020828166226237857393"
		"450736339007967761930577506740176324673600968951340535537458516661134223766678604"
		"162159680461914467291840300530057530849048765391711386591646239524912623653881879"
		"636239373280423891018672348497668235089863388587925628302755995657524455507255189"
		"313690836254779186948667994968324049705821028513185451396213837722826145437693412"
		"532098591327667236328125";
	char *buf = malloc(NUM_TEXT + 64);
	size_t n;

	assert_non_null(buf);
	/* the midpoint rounds to even (0); a hair above it to 4.9e-324 */
	snprintf(buf, NUM_TEXT + 64, "%se-324", half_min);
	expect_number_like_strtod(buf);
	n = (size_t)snprintf(buf, NUM_TEXT, "%s", half_min);
	while (n < NUM_TEXT - 2)
		buf[n++] = '0';
	buf[n++] = '1';
	snprintf(buf + n, NUM_TEXT + 64 - n, "e-324");
	expect_number_like_strtod(buf);
	/* 1000 digits, and zeros before and after the significant ones */
	n = 0;
	for (int i = 0; i < 1000; i++)
		buf[n++] = (char)('1' + i % 9);
	snprintf(buf + n, NUM_TEXT + 64 - n, "e-700");
	expect_number_like_strtod(buf);
	n = (size_t)snprintf(buf, NUM_TEXT, "0.");
	while (n < 1000)
		buf[n++] = '0';
	snprintf(buf + n, NUM_TEXT + 64 - n, "15e990");
	expect_number_like_strtod(buf);
	free(buf);
	(void)state;
}

/* Random numbers of every shape the grammar allows, against strtod. */
static void test_json_numbers_random(void **state)
{
	struct rv_rng r;
	char buf[128];

	rv_rng_seed(&r, 8259);
	for (int k = 0; k < RANDOM_NUMBERS; k++) {
		size_t n = 0;
		if (rv_rng_below(&r, 2))
			buf[n++] = '-';
		size_t ndig = 1 + rv_rng_below(&r, 25);
		buf[n++] = (char)('1' + rv_rng_below(&r, 9));
		for (size_t i = 1; i < ndig; i++)
			buf[n++] = (char)('0' + rv_rng_below(&r, 10));
		if (rv_rng_below(&r, 2)) {
			buf[n++] = '.';
			for (size_t i = 1 + rv_rng_below(&r, 20); i > 0; i--)
				buf[n++] = (char)('0' + rv_rng_below(&r, 10));
		}
		if (rv_rng_below(&r, 2))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "e%d",
					      (int)rv_rng_below(&r, 640) - 340);
		buf[n] = '\0';
		if (isinf(strtod(buf, NULL)))
			continue;
		expect_number_like_strtod(buf);
	}
	(void)state;
}

/* A locale with a decimal comma changes nothing (when one is installed). */
static void test_json_locale(void **state)
{
	static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE" };
	const char *set = NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !set; i++)
		set = setlocale(LC_NUMERIC, names[i]);
	if (!set)
		skip();
	struct rv_json_doc *d = parse("[1.5, 2.25e-1, 0.12345678901234567890123]");
	const struct rv_json *r = rv_json_root(d);
	int ok = rv_json_num(rv_json_at(r, 0), 0) == 1.5 &&
		 rv_json_num(rv_json_at(r, 1), 0) == 0.225 &&
		 rv_json_num(rv_json_at(r, 2), 0) == 0.12345678901234568;
	rv_json_doc_free(d);
	setlocale(LC_NUMERIC, "C");
	assert_true(ok);
	(void)state;
}

/* --------------------------------------------------------------- incidents */

/* Shaped like `reveal detect --incidents` output (rv_incident_write_json),
 * with a non-finite score written as null. */
static const char incidents[] =
	"{\"incidents\":[\n"
	"{\"id\":1,\"start\":1700000005.000,\"end\":1700000007.000,\"duration_s\":2.000,"
	"\"windows\":2,\"peak_score\":0.91330285643181841,\"mean_score\":0.91024620145582014,"
	"\"detectors\":[\"spe\"],\"subsystem\":\"mem\",\"top_metrics\":[{\"name\":\"mem.used_bytes\","
	"\"share\":0.379783},{\"name\":\"disk.read_bytes:sda\",\"share\":0.269973}]},\n"
	"{\"id\":6,\"start\":1700000269.000,\"end\":1700000269.000,\"duration_s\":0.000,"
	"\"windows\":1,\"peak_score\":null,\"mean_score\":0.9247879546729636,\"detectors\":[],"
	"\"subsystem\":\"mem\",\"top_metrics\":[]},\n"
	"{\"id\":8,\"start\":1700000400.000,\"end\":1700000423.000,\"duration_s\":23.000,"
	"\"windows\":24,\"peak_score\":84.381989997887445,\"mean_score\":70.238388940015327,"
	"\"detectors\":[\"zscore\",\"pca\",\"iforest\",\"spe\",\"bit7\"],\"subsystem\":\"net\","
	"\"top_metrics\":[{\"name\":\"net.rx_bytes:eth0\",\"share\":0.924557},"
	"{\"name\":\"cpu.util\",\"share\":0.069716}]}\n"
	"]}\n";

static void test_json_incidents(void **state)
{
	struct rv_json_doc *d = parse(incidents);
	const struct rv_json *list = rv_json_get(rv_json_root(d), "incidents"), *in, *top;
	int64_t id = 0, windows = 0;

	assert_int_equal(rv_json_type(list), RV_JSON_ARRAY);
	assert_int_equal(rv_json_len(list), 3);

	in = rv_json_at(list, 0);
	assert_int_equal(rv_json_line(in), 2);
	assert_int_equal(rv_json_i64(rv_json_get(in, "id"), &id), 0);
	assert_int_equal(id, 1);
	assert_true(rv_json_num(rv_json_get(in, "start"), 0) == 1700000005.0);
	assert_true(rv_json_num(rv_json_get(in, "duration_s"), 0) == 2.0);
	assert_true(rv_json_num(rv_json_get(in, "peak_score"), 0) == 0.91330285643181841);
	assert_string_equal(rv_json_str(rv_json_at(rv_json_get(in, "detectors"), 0), ""), "spe");
	top = rv_json_get(in, "top_metrics");
	assert_int_equal(rv_json_len(top), 2);
	assert_string_equal(rv_json_str(rv_json_get(rv_json_at(top, 1), "name"), ""),
			    "disk.read_bytes:sda");
	assert_true(rv_json_num(rv_json_get(rv_json_at(top, 1), "share"), 0) == 0.269973);

	in = rv_json_at(list, 1);
	assert_int_equal(rv_json_line(in), 3);
	assert_int_equal(rv_json_type(rv_json_get(in, "peak_score")), RV_JSON_NULL);
	assert_true(isnan(rv_json_num(rv_json_get(in, "peak_score"), NAN)));
	assert_int_equal(rv_json_len(rv_json_get(in, "detectors")), 0);
	assert_int_equal(rv_json_len(rv_json_get(in, "top_metrics")), 0);
	assert_null(rv_json_get(in, "no_such_field"));

	in = rv_json_at(list, 2);
	assert_int_equal(rv_json_line(in), 4);
	assert_int_equal(rv_json_i64(rv_json_get(in, "windows"), &windows), 0);
	assert_int_equal(windows, 24);
	assert_int_equal(rv_json_len(rv_json_get(in, "detectors")), 5);
	assert_string_equal(rv_json_str(rv_json_get(in, "subsystem"), ""), "net");
	assert_int_equal(rv_json_line(rv_json_get(in, "top_metrics")), 4);
	rv_json_doc_free(d);

	/* the empty file the writer produces when nothing was found */
	d = parse("{\"incidents\":[]}\n");
	assert_int_equal(rv_json_len(rv_json_get(rv_json_root(d), "incidents")), 0);
	rv_json_doc_free(d);
	/* cut anywhere, it fails with an error, never a partial document */
	for (size_t n = 0; n < sizeof(incidents) - 2; n++) {
		struct rv_json_doc *part = NULL;
		struct rv_err err = { 0 };
		assert_int_equal(rv_json_parse(incidents, n, "inc.json", &part, &err), -EINVAL);
		assert_null(part);
		assert_true(strncmp(err.msg, "inc.json:", 9) == 0);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_scalars),
		cmocka_unit_test(test_json_containers),
		cmocka_unit_test(test_json_absent),
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_json_keys),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_json_integers),
		cmocka_unit_test(test_json_numbers_long),
		cmocka_unit_test(test_json_numbers_random),
		cmocka_unit_test(test_json_locale),
		cmocka_unit_test(test_json_incidents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
