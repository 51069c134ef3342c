/*
 * table_read_test.c - rv_table_read_path picks the reader by the file's
 * name (CSV, CSV.gz, .rvl), names the file in its errors; and
 * rv_table_read_many reads several files side by side, one result each.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "catalog/catalog.h"
#include "record/rvl.h"
#include "record/table_read.h"

static const char CSV[] = "timestamp,cpu.util,mem.used\n10,1,5\n11,2,\n12,3,7\n";

struct dir {
	char path[64];
	char csv[96], gz[96], rvl[96], dat[96];
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void write_rvl(const char *path)
{
	const struct rv_rvl_chan ch[] = { { "cpu.util", "%", RV_KIND_GAUGE, 1.0 } };
	struct rv_rvl_writer *w = NULL;

	assert_int_equal(rv_rvl_writer_open(path, ch, 1, 0, &w, NULL), 0);
	for (int i = 0; i < 4; i++) {
		double v = 10.0 * i;
		assert_int_equal(rv_rvl_writer_append(w, (int64_t)(100 + i) * 1000000000, &v, NULL,
						      NULL), 0);
	}
	assert_int_equal(rv_rvl_writer_close(w, 0, NULL), 0);
}

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));
	gzFile gz;

	if (!d)
		return -1;
	snprintf(d->path, sizeof(d->path), "/tmp/rv_table_read_XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	snprintf(d->csv, sizeof(d->csv), "%s/a.csv", d->path);
	snprintf(d->gz, sizeof(d->gz), "%s/a.csv.gz", d->path);
	snprintf(d->rvl, sizeof(d->rvl), "%s/a.rvl", d->path);
	snprintf(d->dat, sizeof(d->dat), "%s/a.dat", d->path);
	write_file(d->csv, CSV);
	gz = gzopen(d->gz, "wb");
	if (!gz || gzputs(gz, CSV) < 0 || gzclose(gz) != Z_OK)
		return -1;
	write_rvl(d->rvl);
	write_file(d->dat, "\x01\x02 not a table\n1,2\n");
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	unlink(d->csv);
	unlink(d->gz);
	unlink(d->rvl);
	unlink(d->dat);
	rmdir(d->path);
	free(d);
	return 0;
}

static void check_csv_table(const struct rv_table *t)
{
	assert_int_equal(t->nrows, 3);
	assert_int_equal(t->ncols, 2);
	assert_string_equal(t->names[0], "cpu.util");
	assert_non_null(t->ts);
	assert_true(t->ts[2] == 12.0);
	assert_true(rv_table_at(t, 0, 2) == 3.0f);
	assert_true(isnan(rv_table_at(t, 1, 1)));   /* gaps are left to the caller */
}

static void test_csv(void **state)
{
	struct dir *d = *state;
	struct rv_table *t = NULL;

	assert_false(rv_table_path_is_rvl(d->csv));
	assert_int_equal(rv_table_read_path(d->csv, &t, NULL), 0);
	check_csv_table(t);
	rv_table_free(t);
}

static void test_csv_gz(void **state)
{
	struct dir *d = *state;
	struct rv_table *t = NULL;

	assert_int_equal(rv_table_read_path(d->gz, &t, NULL), 0);
	check_csv_table(t);
	rv_table_free(t);
}

static void test_rvl(void **state)
{
	struct dir *d = *state;
	struct rv_table *t = NULL;
	struct rv_err err;

	rv_err_clear(&err);
	assert_true(rv_table_path_is_rvl(d->rvl));
	assert_int_equal(rv_table_read_path(d->rvl, &t, &err), 0);
	assert_int_equal(t->ncols, 1);
	assert_string_equal(t->names[0], "cpu.util");
	assert_int_equal(t->nrows, 4);
	assert_true(rv_table_at(t, 0, 3) == 30.0f);
	rv_table_free(t);
}

/* A name of no known format is read as CSV; what is not CSV fails with the
 * file's name in the message, as does a file that is not there. */
static void test_errors_name_the_file(void **state)
{
	struct dir *d = *state;
	struct rv_table *t = (struct rv_table *)d;
	struct rv_err err;
	char missing[128];

	rv_err_clear(&err);
	assert_int_not_equal(rv_table_read_path(d->dat, &t, &err), 0);
	assert_null(t);
	assert_non_null(strstr(err.msg, d->dat));
	snprintf(missing, sizeof(missing), "%s/none.rvl", d->path);
	rv_err_clear(&err);
	assert_int_equal(rv_table_read_path(missing, &t, &err), -ENOENT);
	assert_non_null(strstr(err.msg, missing));
}

static void test_many(void **state)
{
	struct dir *d = *state;
	struct rv_table_job jobs[3] = {
		{ .path = d->csv, .fill_gaps = 1 }, { .path = d->rvl }, { .path = d->dat },
	};

	assert_int_not_equal(rv_table_read_many(jobs, 3, 2), 0);
	assert_int_equal(jobs[0].rc, 0);
	assert_int_equal(jobs[0].filled, 1);
	assert_true(rv_table_at(jobs[0].t, 1, 1) == 5.0f);
	assert_int_equal(jobs[1].rc, 0);
	assert_int_equal(jobs[1].t->nrows, 4);
	assert_int_not_equal(jobs[2].rc, 0);
	assert_null(jobs[2].t);
	assert_non_null(strstr(jobs[2].err.msg, d->dat));
	rv_table_free(jobs[0].t);
	rv_table_free(jobs[1].t);
	assert_int_equal(rv_table_read_many(jobs, 2, 2), 0);
	rv_table_free(jobs[0].t);
	rv_table_free(jobs[1].t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_gz),
		cmocka_unit_test(test_rvl),
		cmocka_unit_test(test_errors_name_the_file),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
