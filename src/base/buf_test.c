/*
 * buf_test.c - unit tests of the growable buffer (buf.h: cap, sticky
 * -ENOMEM, reset keeps the allocation, take) and of the one JSON string
 * writer (json.h: rv_json_buf_str, rv_json_fput_str, rv_json_buf_num):
 * control characters, quotes, backslash, valid multi-byte UTF-8 and
 * invalid UTF-8, to a buffer and to a FILE alike.
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

#include "base/buf.h"
#include "base/json.h"
#include "base/utf8.h"

static void test_buf_append(void **state)
{
	struct rv_buf b;
	size_t len;

	(void)state;
	rv_buf_init(&b, 0);
	assert_int_equal(b.max, RV_BUF_MAX_BYTES);
	assert_string_equal(rv_buf_text(&b, &len), "");
	assert_int_equal(len, 0);
	assert_int_equal(rv_buf_puts(&b, "ab"), 0);
	assert_int_equal(rv_buf_put(&b, "cdef", 2), 0);
	assert_int_equal(rv_buf_printf(&b, "%d-%s", 42, "x"), 0);
	assert_string_equal(rv_buf_text(&b, &len), "abcd42-x");
	assert_int_equal(len, 8);
	rv_buf_fini(&b);
	rv_buf_fini(NULL);
}

static void test_buf_grows_and_resets(void **state)
{
	struct rv_buf b;
	const char *data;

	(void)state;
	rv_buf_init(&b, 0);
	for (int i = 0; i < 10000; i++)
		rv_buf_puts(&b, "0123456789");
	assert_int_equal(rv_buf_failed(&b), 0);
	assert_int_equal(b.len, 100000);
	assert_int_equal(strlen(b.data), 100000);
	data = b.data;
	rv_buf_reset(&b);
	assert_string_equal(rv_buf_text(&b, NULL), "");
	rv_buf_puts(&b, "again");
	assert_ptr_equal(b.data, data);   /* reset keeps the allocation */
	rv_buf_fini(&b);
}

static void test_buf_cap_is_sticky(void **state)
{
	struct rv_buf b;
	size_t len = 99;

	(void)state;
	rv_buf_init(&b, 8);
	assert_int_equal(rv_buf_puts(&b, "1234567"), 0);   /* 7 + NUL fit */
	assert_int_equal(rv_buf_puts(&b, "8"), -ENOMEM);
	assert_int_equal(rv_buf_puts(&b, ""), -ENOMEM);    /* sticky */
	assert_int_equal(rv_buf_printf(&b, "x"), -ENOMEM);
	assert_string_equal(rv_buf_text(&b, NULL), "1234567");
	assert_null(rv_buf_take(&b, &len));               /* failed: no text */
	assert_int_equal(len, 0);
	assert_int_equal(rv_buf_failed(&b), 0);            /* b is empty again */
	assert_int_equal(b.max, 8);
	rv_buf_puts(&b, "12345678");
	assert_int_equal(rv_buf_failed(&b), -ENOMEM);
	rv_buf_reset(&b);                                  /* reset clears it */
	assert_int_equal(rv_buf_puts(&b, "ok"), 0);
	rv_buf_fini(&b);
}

static void test_buf_take(void **state)
{
	struct rv_buf b;
	size_t len;
	char *s;

	(void)state;
	rv_buf_init(&b, 0);
	s = rv_buf_take(&b, &len);   /* nothing written: "" */
	assert_non_null(s);
	assert_string_equal(s, "");
	assert_int_equal(len, 0);
	free(s);
	rv_buf_printf(&b, "%s", "hello");
	s = rv_buf_take(&b, &len);
	assert_string_equal(s, "hello");
	assert_int_equal(len, 5);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	free(s);
	rv_buf_fini(&b);
}

/* One case of the string writer: input and the exact JSON expected. */
struct json_case {
	const char *in, *out;
};

static const struct json_case json_cases[] = {
	{ "plain", "\"plain\"" },
	{ "", "\"\"" },
	{ "q\"b\\s/", "\"q\\\"b\\\\s/\"" },
	{ "a\nb\rc\td", "\"a\\nb\\rc\\td\"" },
	{ "\x01\x08\x0c\x1f\x7f", "\"\\u0001\\u0008\\u000c\\u001f\x7f\"" },
	{ "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
	{ "a\xffz", "\"a\\ufffdz\"" },                 /* never valid */
	{ "\x80x", "\"\\ufffdx\"" },                   /* stray continuation */
	{ "\xc3", "\"\\ufffd\"" },                     /* truncated at the end */
	{ "\xe2\x82x", "\"\\ufffd\\ufffdx\"" },        /* truncated: each byte */
	{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },          /* overlong '/' */
	{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },  /* surrogate */
	{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },  /* > U+10FFFF */
};

static void test_json_str(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
		const struct json_case *c = &json_cases[i];
		struct rv_buf b;
		char *mem = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&mem, &n);

		rv_buf_init(&b, 0);
		assert_int_equal(rv_json_buf_str(&b, c->in), 0);
		assert_string_equal(rv_buf_text(&b, NULL), c->out);
		assert_non_null(f);
		rv_json_fput_str(f, c->in);
		fclose(f);
		assert_string_equal(mem, c->out);
		free(mem);
		rv_buf_fini(&b);
	}
}

static void test_json_null_and_num(void **state)
{
	struct rv_buf b;

	(void)state;
	rv_buf_init(&b, 0);
	rv_json_buf_str(&b, NULL);
	rv_buf_puts(&b, ",");
	rv_json_buf_num(&b, NAN);
	rv_buf_puts(&b, ",");
	rv_json_buf_num(&b, 42.0);
	rv_buf_puts(&b, ",");
	rv_json_buf_num(&b, 0.25);
	rv_buf_puts(&b, ",");
	rv_json_buf_num(&b, 1700000000.5);
	assert_string_equal(rv_buf_text(&b, NULL), "null,null,42,0.25,1700000000.500");
	rv_buf_fini(&b);
	rv_buf_init(&b, 4);
	assert_int_equal(rv_json_buf_str(&b, "long"), -ENOMEM);
	rv_buf_fini(&b);
}

static void test_utf8_len(void **state)
{
	(void)state;
	assert_int_equal(rv_utf8_len((const unsigned char *)"a"), 1);
	assert_int_equal(rv_utf8_len((const unsigned char *)""), 1);
	assert_int_equal(rv_utf8_len((const unsigned char *)"\xc3\xa9"), 2);
	assert_int_equal(rv_utf8_len((const unsigned char *)"\xe2\x82\xac"), 3);
	assert_int_equal(rv_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80"), 4);
	assert_int_equal(rv_utf8_len((const unsigned char *)"\xe0\x80\x80"), 0);
	assert_int_equal(rv_utf8_len((const unsigned char *)"\xbf"), 0);
}

/* rv_text_add: appends, cuts to fit with a terminator, counts the whole
 * text; a NULL buffer only measures. */
static void test_text_add(void **state)
{
	char buf[8];
	struct rv_text t = { .buf = buf, .cap = sizeof(buf) };
	struct rv_text m = { 0 };

	(void)state;
	rv_text_add(&t, "pid %d", 42);
	assert_string_equal(buf, "pid 42");
	rv_text_add(&t, " on gpu%u", 3u);
	assert_string_equal(buf, "pid 42 ");
	assert_int_equal(t.len, strlen("pid 42 on gpu3"));
	rv_text_add(&t, "%s", "x");
	assert_string_equal(buf, "pid 42 ");
	assert_int_equal(t.len, strlen("pid 42 on gpu3x"));
	rv_text_add(&m, "%s-%d", "abc", 12345);
	assert_int_equal(m.len, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_add),
		cmocka_unit_test(test_buf_append),
		cmocka_unit_test(test_buf_grows_and_resets),
		cmocka_unit_test(test_buf_cap_is_sticky),
		cmocka_unit_test(test_buf_take),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_json_null_and_num),
		cmocka_unit_test(test_utf8_len),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
