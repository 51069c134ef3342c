/*
 * chansel_test.c - choosing channels by name (chansel.h): a table's
 * columns kept in order with their values, every column dropped, and the
 * message naming the names one list lacks (count, the first few in order,
 * the rest counted, a small buffer, an empty list).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "pipeline/chansel.h"

static int keep_listed(void *ctx, const char *name)
{
	for (const char *const *n = ctx; *n; n++)
		if (strcmp(*n, name) == 0)
			return 1;
	return 0;
}

/* 3 rows x 4 channels a..d, value of channel c at row r: 10 c + r. */
static struct rv_table *abcd(void)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	struct rv_table *t = NULL;

	assert_int_equal(rv_table_new(3, 4, 0, "t.csv", &t), 0);
	for (size_t c = 0; c < 4; c++) {
		t->names[c] = strdup(names[c]);
		assert_non_null(t->names[c]);
		for (size_t r = 0; r < 3; r++)
			t->values[c * 3 + r] = (float)(10 * c + r);
	}
	return t;
}

static void test_table(void **state)
{
	static const char *const keep[] = { "d", "b", "zz", NULL };
	static const char *const none[] = { NULL };
	struct rv_table *t = abcd();

	(void)state;
	assert_int_equal(rv_chansel_table(t, keep_listed, (void *)keep), 2);
	assert_int_equal(t->ncols, 2);
	assert_string_equal(t->names[0], "b");
	assert_string_equal(t->names[1], "d");
	for (size_t r = 0; r < 3; r++) {
		assert_true(rv_table_at(t, 0, r) == (float)(10 + r));
		assert_true(rv_table_at(t, 1, r) == (float)(30 + r));
	}
	assert_int_equal(rv_chansel_table(t, keep_listed, (void *)none), 2);
	assert_int_equal(t->ncols, 0);
	rv_table_free(t);
}

static void test_missing(void **state)
{
	static const char *const want[] = { "x", "a", "y", "z", "q", "r", "s", "b" };
	static const char *const have[] = { "b", "c", "a" };
	char text[256];
	size_t n = 99;

	(void)state;
	assert_int_equal(rv_chansel_missing(want, 8, have, 3, text, sizeof(text), &n), 0);
	assert_int_equal(n, 6);
	assert_string_equal(text, "x, y, z, q, r and 1 more");
	assert_int_equal(rv_chansel_missing(want + 1, 1, have, 3, text, sizeof(text), &n), 0);
	assert_int_equal(n, 0);
	assert_string_equal(text, "");
	assert_int_equal(rv_chansel_missing(want, 3, have, 3, text, sizeof(text), &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(text, "x, y");
	assert_int_equal(rv_chansel_missing(want, 8, NULL, 0, text, 6, &n), 0);
	assert_int_equal(n, 8);
	assert_string_equal(text, "x, a,");     /* cut to the buffer */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
