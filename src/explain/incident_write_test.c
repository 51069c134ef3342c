/*
 * incident_write_test.c - the incident writers: JSON and the summary table.
 *
 * ISO dates were checked against `date -u -d @ts`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain/incident.h"

enum { OUT_MAX = 8192 };

static const char *const det_names[] = { "zscore", "pca", "iforest" };
enum { NDET = sizeof(det_names) / sizeof(det_names[0]) };

/* Runs a writer into a temporary file and returns its text in buf. */
static int json_writer(FILE *f, const struct rv_incmerge *m, const char *const *names, size_t n)
{
	return rv_incident_write_json(f, m, names, n, 0);
}

static void capture(int (*writer)(FILE *, const struct rv_incmerge *, const char *const *, size_t),
		    const struct rv_incmerge *m, char *buf, size_t len)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(writer(f, m, det_names, NDET), 0);
	rewind(f);
	size_t n = fread(buf, 1, len - 1, f);
	assert_true(n < len - 1);
	buf[n] = '\0';
	fclose(f);
}

static struct rv_incmerge *two_incidents(const char *const *names)
{
	struct rv_incmerge *m = NULL;
	const double w0[] = { 3, 0.5, 0 }, w1[] = { 1, 0.5, 0 }, w5[] = { 0, 0, 2 };
	assert_int_equal(rv_incmerge_new(3, names, 0, 1, &m, NULL), 0);
	/* acc {4, 1, 0}, both lasting in the last window: shares 0.8 and 0.2;
	 * mean (2.5 + 4.5) / 2 = 3.5 */
	assert_int_equal(rv_incmerge_push(m, 0, 1700000000.0, 1, 2.5, 1u, w0), 0);
	assert_int_equal(rv_incmerge_push(m, 1, 1700000001.5, 1, 4.5, 2u, w1), 0);
	assert_int_equal(rv_incmerge_push(m, 2, 1700000003.0, 0, 0.5, 0, NULL), 0);
	/* bit 3 has no name with three detectors */
	assert_int_equal(rv_incmerge_push(m, 5, 951782400.0, 1, 3.0, 4u | 8u, w5), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	return m;
}

static void test_json(void **state)
{
	(void)state;
	static const char *const names[] = { "net.in\"errs", "cpu.back\\slash", "mem.ctl\x01\n" };
	struct rv_incmerge *m = two_incidents(names);
	char buf[OUT_MAX];
	capture(json_writer, m, buf, sizeof(buf));
	assert_string_equal(buf,
		"{\"incidents\":[\n"
		"{\"id\":1,\"start\":1700000000.000,\"end\":1700000001.500,\"duration_s\":1.500,"
		"\"windows\":2,\"peak_score\":4.5,\"mean_score\":3.5,\"detectors\":[\"zscore\",\"pca\"],"
		"\"subsystem\":\"net\",\"phase\":1,\"follows\":null,"
		"\"top_metrics\":[{\"name\":\"net.in\\\"errs\",\"share\":0.800000},"
		"{\"name\":\"cpu.back\\\\slash\",\"share\":0.200000}]},\n"
		"{\"id\":2,\"start\":951782400.000,\"end\":951782400.000,\"duration_s\":0.000,"
		"\"windows\":1,\"peak_score\":3,\"mean_score\":3,\"detectors\":[\"iforest\",\"bit3\"],"
		"\"subsystem\":\"mem\",\"phase\":1,\"follows\":null,\"top_metrics\":[{\"name\":\"mem.ctl\\u0001\\n\",\"share\":1.000000}]}\n"
		"]}\n");
	rv_incmerge_free(m);
}

static void test_json_empty_and_nonfinite(void **state)
{
	(void)state;
	struct rv_incmerge *m = NULL;
	char buf[OUT_MAX];
	assert_int_equal(rv_incmerge_new(0, NULL, 0, 1, &m, NULL), 0);
	capture(json_writer, m, buf, sizeof(buf));
	assert_string_equal(buf, "{\"incidents\":[]}\n");

	assert_int_equal(rv_incmerge_push(m, 0, 0.25, 1, INFINITY, 0, NULL), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	capture(json_writer, m, buf, sizeof(buf));
	assert_string_equal(buf,
		"{\"incidents\":[\n"
		"{\"id\":1,\"start\":0.250,\"end\":0.250,\"duration_s\":0.000,\"windows\":1,"
		"\"peak_score\":null,\"mean_score\":null,\"detectors\":[],\"subsystem\":\"other\","
		"\"phase\":1,\"follows\":null,\"top_metrics\":[]}\n"
		"]}\n");
	assert_int_equal(rv_incident_write_json(NULL, m, det_names, NDET, 0), -EINVAL);
	/* with the window, for `reveal report` */
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(rv_incident_write_json(f, m, det_names, NDET, 15), 0);
	rewind(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_true(strncmp(buf, "{\"window\":15,\"incidents\":[\n{\"id\":1,", 31) == 0);
	rv_incmerge_free(m);
}

static void test_table(void **state)
{
	(void)state;
	struct rv_incmerge *m = NULL;
	char buf[OUT_MAX];
	assert_int_equal(rv_incmerge_new(0, NULL, 0, 1, &m, NULL), 0);
	capture(rv_incident_write_table, m, buf, sizeof(buf));
	assert_string_equal(buf, "no incidents\n");
	rv_incmerge_free(m);

	static const char *const names[] = { "net.in_errs", "cpu.busy", "mem.avail" };
	m = two_incidents(names);
	capture(rv_incident_write_table, m, buf, sizeof(buf));
	assert_string_equal(buf,
		"id   start                  duration windows       peak  detectors               subsystem top metrics\n"
		"1    2023-11-14T22:13:20Z       1.5s       2      4.500  zscore,pca              net       net.in_errs (80%), cpu.busy (20%)\n"
		"2    2000-02-29T00:00:00Z       0.0s       1      3.000  iforest,bit3            mem       mem.avail (100%)\n");
	rv_incmerge_free(m);
}

/* The start column of a one-incident-per-timestamp table. */
static void test_table_dates(void **state)
{
	(void)state;
	static const struct {
		double ts;
		const char *iso;
	} cases[] = {
		{ 0, "1970-01-01T00:00:00Z" },
		{ -1, "1969-12-31T23:59:59Z" },
		{ -0.5, "1969-12-31T23:59:59Z" },
		{ -86401, "1969-12-30T23:59:59Z" },
		{ 951782400, "2000-02-29T00:00:00Z" },
		{ 1700000000.9, "2023-11-14T22:13:20Z" },
		{ 4102444800, "2100-01-01T00:00:00Z" },
		{ -62135596800, "0001-01-01T00:00:00Z" },
		{ 253402300799, "9999-12-31T23:59:59Z" },
		{ 253402300800, "253402300800.000" },
	};
	enum { NCASE = sizeof(cases) / sizeof(cases[0]), START_COL = 5 };
	struct rv_incmerge *m = NULL;
	assert_int_equal(rv_incmerge_new(0, NULL, 0, 1, &m, NULL), 0);
	for (size_t i = 0; i < NCASE; i++)
		assert_int_equal(rv_incmerge_push(m, 2 * i, cases[i].ts, 1, 1, 0, NULL), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	char buf[OUT_MAX];
	capture(rv_incident_write_table, m, buf, sizeof(buf));
	const char *line = strchr(buf, '\n');
	for (size_t i = 0; i < NCASE; i++) {
		assert_non_null(line);
		line++;
		size_t n = strlen(cases[i].iso);
		if (strncmp(line + START_COL, cases[i].iso, n) != 0 || line[START_COL + n] != ' ')
			fail_msg("ts %.3f: want %s in %.60s", cases[i].ts, cases[i].iso, line);
		line = strchr(line, '\n');
	}
	rv_incmerge_free(m);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_empty_and_nonfinite),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_dates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
