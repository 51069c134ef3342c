/*
 * csv_test.c - unit tests of the CSV / CSV.gz reader and the rv_table
 * helpers (record/csv.h, record/table.h).
 *
 * Small inputs are written to temporary files by the test itself (plain, or
 * gzip through zlib) so that each case reads as one string; bad inputs are a
 * table of cases with the exact message expected. Real data comes from
 * tests/fixtures/record/ (gen_record.py computes the expected values with
 * numpy and Python's datetime).
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
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "base/strparse.h"
#include "record/csv.h"

enum {
	PATH_MAX_TEST = 4096,
	MANY_ROWS = 40000,          /* about 1 MB: crosses several read chunks */
	WIDE_COLS = 30000,          /* a header line longer than one read chunk */
	LONG_ROWS = 3,
};

struct tmpfile {
	char path[PATH_MAX_TEST];
};

/* Writes data to a new temporary file, gzip-compressed when gz is set. */
static void write_tmp(struct tmpfile *f, const void *data, size_t len, int gz)
{
	int fd;

	snprintf(f->path, sizeof(f->path), "/tmp/rv_csv_test_XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	if (gz) {
		gzFile z = gzdopen(fd, "wb");
		assert_non_null(z);
		if (len)
			assert_int_equal(gzwrite(z, data, (unsigned)len), (int)len);
		assert_int_equal(gzclose(z), Z_OK);
	} else {
		assert_int_equal(write(fd, data, len), (ssize_t)len);
		assert_int_equal(close(fd), 0);
	}
}

/* Reads the whole of path into a malloc'd buffer. */
static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	assert_true(n >= 0);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static struct rv_table *read_text(const char *text, int gz)
{
	struct tmpfile f;
	struct rv_table *t = NULL;
	struct rv_err err = { 0 };
	int rc;

	write_tmp(&f, text, strlen(text), gz);
	rc = rv_csv_read(f.path, &t, &err);
	if (rc)
		print_error("unexpected: %s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(t);
	assert_string_equal(t->path, f.path);
	unlink(f.path);
	return t;
}

static void check_basic(int gz)
{
	static const char text[] =
		"timestamp,a,b\n1700000000,1.5,-2\n1700000060,3,4e2\n1700000060,,nan\n";
	struct rv_table *t = read_text(text, gz);

	assert_int_equal(t->nrows, 3);
	assert_int_equal(t->ncols, 2);
	assert_string_equal(t->names[0], "a");
	assert_string_equal(t->names[1], "b");
	assert_non_null(t->ts);
	assert_true(t->ts[0] == 1700000000.0 && t->ts[1] == 1700000060.0);
	assert_true(t->ts[2] == 1700000060.0);
	assert_true(rv_table_at(t, 0, 0) == 1.5f && rv_table_at(t, 0, 1) == 3.0f);
	assert_true(rv_table_at(t, 1, 0) == -2.0f && rv_table_at(t, 1, 1) == 400.0f);
	assert_true(isnan(rv_table_at(t, 0, 2)) && isnan(rv_table_at(t, 1, 2)));
	assert_true(t->values[1 * 3 + 1] == 400.0f);      /* column-major */
	assert_int_equal(t->stats.empty_cells, 1);
	assert_int_equal(t->stats.nan_cells, 1);
	assert_int_equal(t->stats.inf_cells, 0);
	rv_table_free(t);
}

static void test_plain(void **state)
{
	check_basic(0);
}

static void test_gzip(void **state)
{
	check_basic(1);
}

static void test_crlf_spaces_bom(void **state)
{
	struct rv_table *t = read_text("\xef\xbb\xbftimestamp , a ,\tb\r\n 1 , 2 ,3\t\r\n2,4,5\r\n", 0);

	assert_int_equal(t->nrows, 2);
	assert_string_equal(t->names[0], "a");
	assert_string_equal(t->names[1], "b");
	assert_true(t->ts[0] == 1.0 && t->ts[1] == 2.0);
	assert_true(rv_table_at(t, 0, 0) == 2.0f && rv_table_at(t, 1, 0) == 3.0f);
	assert_true(rv_table_at(t, 1, 1) == 5.0f);
	rv_table_free(t);
}

static void test_no_final_newline_and_trailing_blanks(void **state)
{
	struct rv_table *t = read_text("a,b\n1,2\n3,4", 0);

	assert_int_equal(t->nrows, 2);
	assert_true(rv_table_at(t, 1, 1) == 4.0f);
	rv_table_free(t);
	t = read_text("a\n1\n7\n\n\r\n  \n", 1);
	assert_int_equal(t->nrows, 2);
	assert_true(rv_table_at(t, 0, 1) == 7.0f);
	rv_table_free(t);
}

static void test_no_timestamp(void **state)
{
	struct rv_table *t = read_text("x,y\n1,2\n", 0);

	assert_null(t->ts);
	assert_int_equal(t->ncols, 2);
	assert_true(rv_table_median_step(t) == 0.0);
	rv_table_free(t);
}

static void test_timestamp_not_first(void **state)
{
	struct rv_table *t = read_text("a,timestamp,b\n1,100,2\n3,200.25,4\n", 0);

	assert_int_equal(t->ncols, 2);
	assert_string_equal(t->names[0], "a");
	assert_string_equal(t->names[1], "b");
	assert_true(t->ts[0] == 100.0 && t->ts[1] == 200.25);
	assert_true(rv_table_at(t, 0, 1) == 3.0f && rv_table_at(t, 1, 1) == 4.0f);
	rv_table_free(t);
}

static void test_iso_timestamps(void **state)
{
	/* 2024-01-31T12:00:00Z is 1706702400 (date -u -d ... +%s). */
	struct rv_table *t = read_text("x,timestamp\n1,2024-01-31T12:00:00Z\n"
				       "2,2024-01-31 12:00:00.5\n"
				       "3,2024-01-31T13:00:01+01:00\n"
				       "4,2024-01-31T07:00:02-0500\n", 0);

	assert_int_equal(t->nrows, 4);
	assert_true(t->ts[0] == 1706702400.0);
	assert_true(t->ts[1] == 1706702400.5);
	assert_true(t->ts[2] == 1706702401.0);
	assert_true(t->ts[3] == 1706702402.0);
	rv_table_free(t);
}

static void test_nan_inf_counts(void **state)
{
	struct rv_table *t = read_text("a,b\n,nan\ninf,-inf\nNaN,Infinity\n1, \n", 0);

	assert_int_equal(t->nrows, 4);
	assert_int_equal(t->stats.empty_cells, 2);
	assert_int_equal(t->stats.nan_cells, 2);
	assert_int_equal(t->stats.inf_cells, 3);
	for (size_t r = 0; r < 3; r++)
		assert_true(isnan(rv_table_at(t, 0, r)) && isnan(rv_table_at(t, 1, r)));
	assert_true(rv_table_at(t, 0, 3) == 1.0f && isnan(rv_table_at(t, 1, 3)));
	rv_table_free(t);
}

/* Rows i = 0..MANY_ROWS-1 of "i,i/2,-i" through several read chunks. */
static char *many_rows_text(size_t *len)
{
	size_t cap = (size_t)MANY_ROWS * 40, n = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	n += (size_t)snprintf(buf, cap, "timestamp,half,neg\n");
	for (int i = 0; i < MANY_ROWS; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%d,%.1f,%d\n", i, i / 2.0, -i);
	*len = n;
	return buf;
}

static void check_many(int gz)
{
	size_t len;
	char *text = many_rows_text(&len);
	struct rv_table *t = read_text(text, gz);

	assert_int_equal(t->nrows, MANY_ROWS);
	for (size_t i = 0; i < MANY_ROWS; i++) {
		if (t->ts[i] != (double)i || rv_table_at(t, 0, i) != (float)(i / 2.0) ||
		    rv_table_at(t, 1, i) != -(float)i)
			fail_msg("row %zu wrong", i);
	}
	assert_true(rv_table_median_step(t) == 1.0);
	rv_table_free(t);
	free(text);
}

static void test_many_rows(void **state)
{
	check_many(0);
	check_many(1);
}

/* A header and rows longer than one read chunk: cell (c, r) is c + r/10. */
static void test_long_line(void **state)
{
	size_t cap = (size_t)WIDE_COLS * 16 * (LONG_ROWS + 1), n = 0;
	char *buf = malloc(cap);
	struct rv_table *t;

	assert_non_null(buf);
	for (int c = 0; c < WIDE_COLS; c++)
		n += (size_t)snprintf(buf + n, cap - n, "%sc%05d", c ? "," : "", c);
	for (int r = 0; r < LONG_ROWS; r++) {
		buf[n++] = '\n';
		for (int c = 0; c < WIDE_COLS; c++)
			n += (size_t)snprintf(buf + n, cap - n, "%s%d.%d", c ? "," : "", c, r);
	}
	assert_true(n > 256 * 1024);
	t = read_text(buf, 1);
	assert_int_equal(t->ncols, WIDE_COLS);
	assert_int_equal(t->nrows, LONG_ROWS);
	assert_string_equal(t->names[WIDE_COLS - 1], "c29999");
	for (size_t c = 0; c < WIDE_COLS; c++)
		for (size_t r = 0; r < LONG_ROWS; r++)
			if (rv_table_at(t, c, r) != (float)(c + r / 10.0))
				fail_msg("cell %zu,%zu wrong", c, r);
	rv_table_free(t);
	free(buf);
}

struct bad_case {
	const char *text;
	int code;
	const char *msg;        /* expected err.msg after "PATH" */
};

static const struct bad_case bad_cases[] = {
	{ "", -EINVAL, ":1:1: empty file: a header line is expected" },
	{ "\n \r\n\n", -EINVAL, ":1:1: empty file: a header line is expected" },
	{ "timestamp,a,b\n", -EINVAL, ":2:1: no data rows after the header" },
	{ "timestamp,a,b\r\n\r\n\n", -EINVAL, ":2:1: no data rows after the header" },
	{ "timestamp\n1\n", -EINVAL, ":1: no channel columns" },
	{ "timestamp,mem.used,x,mem.used\n1,2,3,4\n", -EINVAL,
	  ":1:4: duplicate column name 'mem.used' (also column 2)" },
	{ "timestamp,a, timestamp\n", -EINVAL,
	  ":1:3: duplicate column name 'timestamp' (also column 1)" },
	{ "a,,b\n1,2,3\n", -EINVAL, ":1:2: empty column name" },
	{ "a,b,\n", -EINVAL, ":1:3: empty column name" },
	{ "\"a,b\",c\n1,2\n", -EINVAL, ":1:1: quoted column names are not supported" },
	{ "t,a,b,c\n1,2,3,4\n5,6,7\n", -EINVAL, ":3: row has 3 fields, header has 4" },
	{ "a,b\n1,2\n1,2,3\n", -EINVAL, ":3: row has 3 fields, header has 2" },
	{ "a,b\n1,2,\n", -EINVAL, ":2: row has 3 fields, header has 2" },
	{ "a,b,c\n1,abc\n", -EINVAL, ":2: row has 2 fields, header has 3" },
	{ "a,b\nabc,1,2\n", -EINVAL, ":2: row has 3 fields, header has 2" },
	{ "timestamp,a\n5,1\n3,1,2\n", -EINVAL, ":3: row has 3 fields, header has 2" },
	{ "timestamp,a,cpu.util\n1,2,3\n2,3,abc\n", -EINVAL,
	  ":3:3: non-numeric value 'abc' in column 'cpu.util'" },
	{ "a,b\n1.5x,2\n", -EINVAL, ":2:1: non-numeric value '1.5x' in column 'a'" },
	{ "a,b\n1,2 3\n", -EINVAL, ":2:2: non-numeric value '2 3' in column 'b'" },
	{ "a,b\n1,0x10\n", -EINVAL, ":2:2: non-numeric value '0x10' in column 'b'" },
	{ "a,b\n1,1e39\n", -EINVAL, ":2:2: value '1e39' out of float range in column 'b'" },
	{ "a,b\n1e999,1\n", -EINVAL, ":2:1: value '1e999' out of float range in column 'a'" },
	{ "timestamp,a\n1700000000,1\n1700000060,2\n1700000000,3\n", -EINVAL,
	  ":4:1: timestamp 1700000000 is earlier than the previous row's 1700000060" },
	{ "a,timestamp\n1,2024-01-31T12:00:00Z\n2,2024-01-31T11:59:59Z\n", -EINVAL,
	  ":3:2: timestamp 2024-01-31T11:59:59Z is earlier than the previous row's "
	  "2024-01-31T12:00:00Z" },
	{ "timestamp,a\n,1\n", -EINVAL, ":2:1: empty timestamp" },
	{ "timestamp,a\nnan,1\n", -EINVAL, ":2:1: non-finite timestamp 'nan'" },
	{ "timestamp,a\n-inf,1\n", -EINVAL, ":2:1: non-finite timestamp '-inf'" },
	{ "timestamp,a\n2024-13-01T00:00:00Z,1\n", -EINVAL,
	  ":2:1: unparsable timestamp '2024-13-01T00:00:00Z'" },
	{ "a\n1\n\n2\n", -EINVAL, ":3: blank line" },
};

static void test_bad_inputs(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		for (int gz = 0; gz < 2; gz++) {
			struct tmpfile f;
			struct rv_table *t = (struct rv_table *)&f;   /* must be reset */
			struct rv_err err = { 0 };
			char want[PATH_MAX_TEST + RV_ERR_MSG_MAX];
			int rc;

			write_tmp(&f, c->text, strlen(c->text), gz);
			rc = rv_csv_read(f.path, &t, &err);
			snprintf(want, sizeof(want), "%s%s", f.path, c->msg);
			if (rc != c->code || strcmp(err.msg, want) != 0)
				fail_msg("case %zu gz %d: rc %d msg '%s', want '%s'",
					 i, gz, rc, err.msg, want);
			assert_int_equal(err.code, c->code);
			assert_null(t);
			unlink(f.path);
		}
	}
}

static void test_open_errors(void **state)
{
	struct rv_table *t;
	struct rv_err err = { 0 };
	char want[PATH_MAX_TEST];

	assert_int_equal(rv_csv_read("/nonexistent/x.csv", &t, &err), -ENOENT);
	assert_null(t);
	assert_string_equal(err.msg, "/nonexistent/x.csv: No such file or directory");
	rv_err_clear(&err);
	assert_int_equal(rv_csv_read("/tmp", &t, &err), -EISDIR);
	snprintf(want, sizeof(want), "/tmp: %s", strerror(EISDIR));
	assert_string_equal(err.msg, want);
	assert_int_equal(rv_csv_read("/tmp", &t, NULL), -EISDIR);
}

/* Reads a copy of src cut to len bytes; expects a gzip stream error. */
static void check_cut_gzip(const char *src, const char *data, size_t len)
{
	struct tmpfile f;
	struct rv_table *t;
	struct rv_err err = { 0 };
	char want[PATH_MAX_TEST + 32];

	write_tmp(&f, data, len, 0);
	assert_int_equal(rv_csv_read(f.path, &t, &err), -EIO);
	assert_null(t);
	snprintf(want, sizeof(want), "%s: gzip read error: ", f.path);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("%s cut at %zu: '%s'", src, len, err.msg);
	unlink(f.path);
}

static void test_truncated_gzip(void **state)
{
	size_t len, glen;
	char *text = many_rows_text(&len), *gzdata;
	struct tmpfile f;

	write_tmp(&f, text, len, 1);
	gzdata = slurp(f.path, &glen);
	unlink(f.path);
	check_cut_gzip("half", gzdata, glen / 2);
	check_cut_gzip("no trailer", gzdata, glen - 4);
	check_cut_gzip("header only", gzdata, 12);
	/* A corrupt stream after a valid header. */
	memset(gzdata + 20, 0xff, 64);
	check_cut_gzip("corrupt", gzdata, glen);
	free(gzdata);
	free(text);
}

static char *fixture_path(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("RV_FIXTURES");

	if (!dir)
		fail_msg("RV_FIXTURES is not set");
	snprintf(buf, size, "%s/record/%s", dir, name);
	return buf;
}

/* Next whitespace-separated number of line [*p, end). */
static double next_number(const char **p, const char *end)
{
	double v;

	rv_str_skip_blank(p, end);
	assert_int_equal(rv_str_double(p, end, &v), 0);
	return v;
}

static void test_real_data(void **state)
{
	char path[PATH_MAX_TEST], *line = NULL;
	size_t cap = 0;
	struct rv_table *t;
	struct rv_err err = { 0 };
	FILE *fp;

	assert_int_equal(rv_csv_read(fixture_path(path, sizeof(path), "omi1_head.csv.gz"),
				     &t, &err), 0);
	fp = fopen(fixture_path(path, sizeof(path), "omi1_head_expected.txt"), "r");
	assert_non_null(fp);
	for (size_t i = 0; getline(&line, &cap, fp) > 0; i++) {
		const char *p = line, *end = line + strlen(line);
		if (i == 0) {
			assert_int_equal(t->nrows, (size_t)next_number(&p, end));
			assert_int_equal(t->ncols, (size_t)next_number(&p, end));
		} else if (i == 1) {
			assert_true(t->ts[0] == next_number(&p, end));
			assert_true(t->ts[t->nrows - 1] == next_number(&p, end));
			assert_true(rv_table_median_step(t) == next_number(&p, end));
		} else {
			size_t c = i - 2, nlen = strcspn(line, " ");
			double sum = 0, lo = INFINITY, hi = -INFINITY;
			assert_true(c < t->ncols);
			assert_int_equal(strlen(t->names[c]), nlen);
			assert_memory_equal(t->names[c], line, nlen);
			p += nlen;
			for (size_t r = 0; r < t->nrows; r++) {
				double v = rv_table_at(t, c, r);
				sum += v;
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
			assert_float_equal(sum, next_number(&p, end), 1e-9);
			assert_true(lo == next_number(&p, end));
			assert_true(hi == next_number(&p, end));
		}
	}
	free(line);
	fclose(fp);
	rv_table_free(t);
}

static void test_parse_time_cases(void **state)
{
	char path[PATH_MAX_TEST], *line = NULL;
	size_t cap = 0, good = 0, bad = 0;
	ssize_t n;
	FILE *fp = fopen(fixture_path(path, sizeof(path), "iso_cases.txt"), "r");

	assert_non_null(fp);
	while ((n = getline(&line, &cap, fp)) > 0) {
		char *tab = strchr(line, '\t'), *end = line + n;
		const char *p;
		double got = 0;
		int rc;

		assert_non_null(tab);
		if (end[-1] == '\n')
			end--;
		rc = rv_csv_parse_time(line, tab, &got);
		p = tab + 1;
		if (rv_str_eq(p, end, "BAD")) {
			if (rc != -EINVAL)
				fail_msg("'%.*s' accepted", (int)(tab - line), line);
			bad++;
			continue;
		}
		if (rc != 0 || fabs(got - next_number(&p, end)) > 1e-6)
			fail_msg("'%.*s': rc %d got %.17g", (int)(tab - line), line, rc, got);
		good++;
	}
	assert_true(good >= 50 && bad >= 15);
	free(line);
	fclose(fp);
}

/* A table "mem" of channels ch0, ch1, ... from row-major values. */
static struct rv_table *make_table(size_t nrows, size_t ncols, const float *rowmajor,
				   const double *ts)
{
	struct rv_table *t;

	assert_int_equal(rv_table_new(nrows, ncols, ts != NULL, "mem", &t), 0);
	for (size_t c = 0; c < ncols; c++) {
		char name[32];
		snprintf(name, sizeof(name), "ch%zu", c);
		t->names[c] = strdup(name);
		for (size_t r = 0; r < nrows; r++)
			t->values[c * nrows + r] = rowmajor[r * ncols + c];
	}
	if (ts)
		memcpy(t->ts, ts, nrows * sizeof(*ts));
	return t;
}

static void test_fill_gaps(void **state)
{
	const float rows[] = {
		NAN, 1, 5,
		NAN, NAN, 6,
		2, 3, NAN,
		NAN, NAN, 7,
		4, NAN, NAN,
	};
	const float want[] = {
		2, 1, 5,
		2, 1, 6,
		2, 3, 6,
		2, 3, 7,
		4, 3, 7,
	};
	struct rv_table *t = make_table(5, 3, rows, NULL);
	struct rv_err err = { 0 };
	size_t filled = 99;

	assert_int_equal(rv_table_fill_gaps(t, &filled, &err), 0);
	assert_int_equal(filled, 8);
	for (size_t r = 0; r < 5; r++)
		for (size_t c = 0; c < 3; c++)
			assert_true(rv_table_at(t, c, r) == want[r * 3 + c]);
	assert_int_equal(rv_table_fill_gaps(t, &filled, &err), 0);
	assert_int_equal(filled, 0);
	rv_table_free(t);
}

static void test_fill_gaps_all_missing(void **state)
{
	const float rows[] = { 1, NAN, NAN, 2, NAN, NAN };
	struct rv_table *t = make_table(2, 3, rows, NULL);
	struct rv_err err = { 0 };
	size_t filled = 99;

	assert_int_equal(rv_table_fill_gaps(t, &filled, &err), -EINVAL);
	assert_string_equal(err.msg, "mem: channel 'ch1' has no numeric value");
	assert_int_equal(filled, 0);
	assert_true(isnan(rv_table_at(t, 2, 0)));   /* untouched on failure */
	rv_table_free(t);
}

static void test_median_step(void **state)
{
	const float v[8] = { 0 };
	const double odd[] = { 0, 10, 30, 31, 41 };          /* 10 20 1 10 -> 10 */
	const double even[] = { 0, 1, 4, 9, 25, 26, 126 };   /* 1 3 5 16 1 100 -> 4 */
	const double same[] = { 5, 65, 125, 185 };
	struct rv_table *t;

	t = make_table(5, 1, v, odd);
	assert_true(rv_table_median_step(t) == 10.0);
	rv_table_free(t);
	t = make_table(7, 1, v, even);
	assert_true(rv_table_median_step(t) == 4.0);
	rv_table_free(t);
	t = make_table(4, 1, v, same);
	assert_true(rv_table_median_step(t) == 60.0);
	rv_table_free(t);
	t = make_table(1, 1, v, odd);
	assert_true(rv_table_median_step(t) == 0.0);
	rv_table_free(t);
	t = make_table(5, 1, v, NULL);
	assert_true(rv_table_median_step(t) == 0.0);
	rv_table_free(t);
	rv_table_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_crlf_spaces_bom),
		cmocka_unit_test(test_no_final_newline_and_trailing_blanks),
		cmocka_unit_test(test_no_timestamp),
		cmocka_unit_test(test_timestamp_not_first),
		cmocka_unit_test(test_iso_timestamps),
		cmocka_unit_test(test_nan_inf_counts),
		cmocka_unit_test(test_many_rows),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_truncated_gzip),
		cmocka_unit_test(test_real_data),
		cmocka_unit_test(test_parse_time_cases),
		cmocka_unit_test(test_fill_gaps),
		cmocka_unit_test(test_fill_gaps_all_missing),
		cmocka_unit_test(test_median_step),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
