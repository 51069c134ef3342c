/*
 * ring_test.c - the agent's history: wrap-around, row access from the
 * newest, flagged rows, and the tables fits are made from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "agent/ring.h"

static const char *const names[] = { "cpu.a", "mem.b" };

/* Pushes rows k = from..to-1 with values (k, 10k) at time 100 + k. */
static void push_rows(struct rv_ring *r, int from, int to)
{
	for (int k = from; k < to; k++) {
		float *row = rv_ring_push(r, 100.0 + k);
		row[0] = (float)k;
		row[1] = (float)(10 * k);
	}
}

static void test_wrap_and_rows(void **state)
{
	struct rv_ring r;

	(void)state;
	assert_int_equal(rv_ring_init(&r, 4, 2), 0);
	push_rows(&r, 0, 3);
	assert_int_equal(r.len, 3);
	assert_true(rv_ring_row(&r, 0)[0] == 2.0f);
	assert_true(rv_ring_row(&r, 2)[1] == 0.0f);
	push_rows(&r, 3, 7);              /* 7 rows into 4 slots: 3..6 remain */
	assert_int_equal(r.len, 4);
	assert_int_equal(r.pushed, 7);
	for (size_t b = 0; b < 4; b++) {
		assert_true(rv_ring_row(&r, b)[0] == (float)(6 - (int)b));
		assert_true(rv_ring_ts(&r, b) == 106.0 - (double)b);
	}
	rv_ring_reset(&r);
	assert_int_equal(r.len, 0);
	assert_int_equal(r.pushed, 0);
	rv_ring_fini(&r);
	assert_int_equal(rv_ring_init(&r, 0, 2), -EINVAL);
	assert_int_equal(rv_ring_init(&r, 4, 0), -EINVAL);
}

static void test_tables(void **state)
{
	struct rv_ring r;
	struct rv_table *t = NULL;

	(void)state;
	assert_int_equal(rv_ring_init(&r, 8, 2), 0);
	assert_int_equal(rv_ring_table(&r, names, 0, -INFINITY, &t), -ENODATA);
	push_rows(&r, 0, 10);             /* 2..9 held */
	assert_int_equal(rv_ring_table(&r, names, 0, -INFINITY, &t), 0);
	assert_int_equal(t->nrows, 8);
	assert_int_equal(t->ncols, 2);
	assert_string_equal(t->names[1], "mem.b");
	for (size_t k = 0; k < 8; k++) {  /* oldest first, column-major */
		assert_true(rv_table_at(t, 0, k) == (float)(k + 2));
		assert_true(rv_table_at(t, 1, k) == (float)(10 * (k + 2)));
		assert_true(t->ts[k] == 102.0 + (double)k);
	}
	rv_table_free(t);

	/* rows 8 and 9 lay in a flagged window: a refit leaves them out */
	rv_ring_mark_flagged(&r, 2);
	push_rows(&r, 10, 11);            /* 3..10 held, 8 and 9 flagged */
	assert_int_equal(rv_ring_table(&r, names, 0, INFINITY, &t), 0);
	assert_int_equal(t->nrows, 6);
	{
		const float want[] = { 3, 4, 5, 6, 7, 10 };
		for (size_t k = 0; k < 6; k++)
			assert_true(rv_table_at(t, 0, k) == want[k]);
	}
	rv_table_free(t);
	/* the newest 3 normal rows: 6, 7, 10 */
	assert_int_equal(rv_ring_table(&r, names, 3, INFINITY, &t), 0);
	assert_int_equal(t->nrows, 3);
	assert_true(rv_table_at(t, 0, 0) == 6.0f);
	assert_true(rv_table_at(t, 0, 2) == 10.0f);
	rv_table_free(t);
	/* an absorb: normal rows, and flagged ones from 109 on (row 9, not 8) */
	assert_int_equal(rv_ring_table(&r, names, 0, 109.0, &t), 0);
	assert_int_equal(t->nrows, 7);
	{
		const float want[] = { 3, 4, 5, 6, 7, 9, 10 };
		for (size_t k = 0; k < 7; k++)
			assert_true(rv_table_at(t, 0, k) == want[k]);
	}
	rv_table_free(t);
	/* all rows, newest 4 */
	assert_int_equal(rv_ring_table(&r, names, 4, -INFINITY, &t), 0);
	assert_int_equal(t->nrows, 4);
	assert_true(rv_table_at(t, 0, 0) == 7.0f);
	rv_table_free(t);
	/* every row flagged: nothing to refit on */
	rv_ring_mark_flagged(&r, 100);
	assert_int_equal(rv_ring_table(&r, names, 0, INFINITY, &t), -ENODATA);
	rv_ring_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_and_rows),
		cmocka_unit_test(test_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
