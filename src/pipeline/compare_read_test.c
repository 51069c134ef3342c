/*
 * compare_read_test.c - a per-window CSV of `reveal detect` read back for
 * `reveal compare` (compare.h: rv_compare_read_stream) and the two
 * outputs:
 *   - windows, step and incidents formed by detect's merger: --gap bridges,
 *     --min-windows drops, a gap in the timestamps keeps incidents apart,
 *     the subsystem comes from top_metrics, a window without attribution
 *     (a bridged one) continues an incident, windows of other channels
 *     after the onset open another incident as in detect;
 *   - a file compared with itself: IoU 1, hit rates 1;
 *   - bad input named by file and line: no anomaly column, a row with the
 *     wrong field count, a bad flag or timestamp, timestamps not
 *     increasing, an empty file, a header alone, a NUL byte, a blank line
 *     before more rows (a blank line at the end and \r\n are fine);
 *   - text and JSON output (the JSON parsed back).
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

#include "base/json.h"
#include "pipeline/compare.h"

#define EPS 1e-9

static const char header[] =
	"timestamp,anomaly,score,zscore,pca,iforest,top_metrics,subsystem,spe,"
	"zscore_score,pca_score,iforest_score,spe_score\n";
static const char cpu_rank[] = "cpu.busy_pct;cpu.steal_pct;cpu.procs_running;net.rx_bytes:eth0";
static const char net_rank[] = "net.tcp_retrans_segs;net.rx_bytes:eth0;net.tx_bytes:eth0";

/*
 * A detect CSV of one window per character of pat, at t0 + 1, t0 + 2, ...:
 * '.' quiet, 'c' anomalous with cpu channels ranked first, 'n' with net
 * ones, 'b' anomalous without a ranking (a bridged window), '_' a window
 * some detector flagged that no incident took (ranked, anomaly 0).
 */
static char *csv_of(const char *pat, double t0)
{
	size_t n = strlen(pat), cap = sizeof(header) + n * 200;
	char *s = malloc(cap);
	size_t len;

	assert_non_null(s);
	len = (size_t)snprintf(s, cap, "%s", header);
	for (size_t i = 0; i < n; i++) {
		char c = pat[i];
		int an = c == 'c' || c == 'n' || c == 'b';
		const char *rank = c == 'c' || c == '_' ? cpu_rank : c == 'n' ? net_rank : "";
		len += (size_t)snprintf(s + len, cap - len, "%.1f,%d,%s,%d,%d,0,%s,%s,0,1,1,1,1\n",
					t0 + (double)(i + 1), an, an ? "3.5" : "0.4", an, an, rank,
					c == 'c' ? "cpu" : c == 'n' ? "net" : "");
	}
	return s;
}

/* Reads text as the CSV "t.csv"; returns rv_compare_read_stream's result. */
static int read_text(const char *text, size_t gap, size_t min, struct rv_compare_run *run,
		     struct rv_err *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(f);
	rv_err_clear(err);
	rc = rv_compare_read_stream(f, "t.csv", gap, min, 1.0, run, err);
	fclose(f);
	return rc;
}

static void read_pat(const char *pat, size_t gap, size_t min, struct rv_compare_run *run)
{
	char *text = csv_of(pat, 1000);
	struct rv_err err;

	assert_int_equal(read_text(text, gap, min, run, &err), 0);
	free(text);
}

static void test_windows_and_incidents(void **state)
{
	struct rv_compare_run r;

	(void)state;
	read_pat("..ccc.cc....nnn.._", 0, 1, &r);
	assert_int_equal(r.nwin, 18);
	assert_true(fabs(r.step - 1.0) < EPS);
	assert_true(r.ts[0] == 1001.0);
	assert_int_equal(r.anomaly[2], 1);
	assert_int_equal(r.anomaly[17], 0);   /* flagged by a detector, no incident */
	assert_int_equal(r.ninc, 3);
	assert_true(r.inc[0].start_ts == 1003 && r.inc[0].end_ts == 1005);
	assert_int_equal(r.inc[0].windows, 3);
	assert_int_equal(r.inc[0].subsystem, RV_SUB_CPU);
	assert_true(r.inc[0].attributed);
	assert_true(r.inc[1].start_ts == 1007 && r.inc[1].end_ts == 1008);
	assert_int_equal(r.inc[2].subsystem, RV_SUB_NET);
	rv_compare_run_fini(&r);

	read_pat("..ccc.cc....nnn.._", 2, 1, &r);   /* --gap 2 bridges the one window */
	assert_int_equal(r.ninc, 2);
	assert_true(r.inc[0].start_ts == 1003 && r.inc[0].end_ts == 1008);
	assert_int_equal(r.inc[0].windows, 5);
	rv_compare_run_fini(&r);

	read_pat("..ccc.cc....nnn.._", 0, 3, &r);   /* --min-windows 3 drops the pair */
	assert_int_equal(r.ninc, 2);
	assert_true(r.inc[1].start_ts == 1013);
	rv_compare_run_fini(&r);

	read_pat("..ccbbcc..", 0, 1, &r);   /* bridged windows carry it on */
	assert_int_equal(r.ninc, 1);
	assert_true(r.inc[0].end_ts == 1008);
	rv_compare_run_fini(&r);
}

/* After the onset, windows of other channels are not the same incident:
 * the merger opens another one where they begin, as detect does. */
static void test_follow_on(void **state)
{
	struct rv_compare_run r;

	(void)state;
	read_pat("..cccccnnnnnn...", 0, 1, &r);
	assert_int_equal(r.ninc, 2);
	assert_int_equal(r.inc[0].subsystem, RV_SUB_CPU);
	assert_int_equal(r.inc[1].subsystem, RV_SUB_NET);
	assert_true(r.inc[0].end_ts == 1007 && r.inc[1].start_ts == 1008);
	rv_compare_run_fini(&r);
}

/* Windows missing from the file count as quiet ones for --gap. */
static void test_time_gap(void **state)
{
	char text[1024];
	struct rv_compare_run r;
	struct rv_err err;

	(void)state;
	snprintf(text, sizeof(text), "timestamp,anomaly,top_metrics\n"
		 "1,1,cpu.busy_pct\n2,1,cpu.busy_pct\n3,0,\n10,1,cpu.busy_pct\n11,1,cpu.busy_pct\n"
		 "12,0,\n");
	assert_int_equal(read_text(text, 2, 1, &r, &err), 0);
	assert_int_equal(r.ninc, 2);
	assert_true(r.inc[1].start_ts == 10);
	rv_compare_run_fini(&r);
	/* without a column of ranks: one incident, its subsystem unknown */
	snprintf(text, sizeof(text), "anomaly,timestamp\r\n0,5\r\n1,6\r\n1,7\r\n\r\n\r\n");
	assert_int_equal(read_text(text, 0, 1, &r, &err), 0);
	assert_int_equal(r.nwin, 3);
	assert_int_equal(r.ninc, 1);
	assert_false(r.inc[0].attributed);
	rv_compare_run_fini(&r);
}

static void test_itself(void **state)
{
	struct rv_compare_run a, b;
	struct rv_compare_result res;

	(void)state;
	read_pat("..ccc.cc....nnn...cccccnnnnnn..", 0, 1, &a);
	read_pat("..ccc.cc....nnn...cccccnnnnnn..", 0, 1, &b);
	assert_int_equal(rv_compare_runs(&a, &b, -INFINITY, INFINITY, &res, NULL), 0);
	assert_true(res.iou == 1.0);
	assert_true(res.a.hit_rate == 1.0 && res.b.hit_rate == 1.0);
	assert_int_equal(res.npair, a.ninc);
	rv_compare_result_fini(&res);
	rv_compare_run_fini(&a);
	rv_compare_run_fini(&b);
}

struct bad_case {
	const char *text;
	int rc;
	const char *msg;
};

static void test_bad_input(void **state)
{
	static const struct bad_case cases[] = {
		{ "timestamp,score\n1,0.5\n", -EINVAL, "t.csv:1: no 'anomaly' column" },
		{ "anomaly\n1\n", -EINVAL, "t.csv:1: no 'timestamp' column" },
		{ "timestamp,anomaly,anomaly\n1,0,0\n", -EINVAL, "t.csv:1:3: a second 'anomaly'" },
		{ "timestamp,anomaly\n1,0\n2,0,7\n", -EINVAL, "t.csv:3: row has 3 fields, header has 2" },
		{ "timestamp,anomaly\n1,0\n2\n", -EINVAL, "t.csv:3: row has 1 fields" },
		{ "timestamp,anomaly\n1,0\n2,0\n3,2\n", -EINVAL, "t.csv:4:2: '2': want an anomaly flag" },
		{ "timestamp,anomaly\nnoon,0\n", -EINVAL, "t.csv:2:1: 'noon': want a timestamp" },
		{ "timestamp,anomaly,score\n1,0,x\n", -EINVAL, "t.csv:2:3: 'x': want a score" },
		{ "timestamp,anomaly\n1,0\n1,0\n", -EINVAL, "t.csv:3: timestamp 1 is not after" },
		{ "timestamp,anomaly\n2,0\n1,0\n", -EINVAL, "t.csv:3: timestamp" },
		{ "", -EINVAL, "t.csv: empty file" },
		{ "\ntimestamp,anomaly\n1,0\n", -EINVAL, "t.csv:1: no 'timestamp' column" },
		{ "timestamp,anomaly\n", -EINVAL, "t.csv: no windows" },
		{ "timestamp,anomaly\n1,0\n\n2,0\n", -EINVAL, "t.csv:3: a blank line before more rows" },
		{ "timestamp,anomaly,top_metrics\n1,1,a;;b\n", -EINVAL, "t.csv:2:3: an empty channel" },
	};
	struct rv_compare_run r;
	struct rv_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = read_text(cases[i].text, 0, 1, &r, &err);
		if (rc != cases[i].rc || !strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: rc %d, message '%s', want %d '%s'", i, rc, err.msg,
				 cases[i].rc, cases[i].msg);
		rv_compare_run_fini(&r);
	}
}

/* A NUL byte: not text (fmemopen of a buffer with a NUL inside). */
static void test_binary(void **state)
{
	static const char bin[] = "timestamp,anomaly\n1,\0\n";
	FILE *f = fmemopen((void *)bin, sizeof(bin) - 1, "r");
	struct rv_compare_run r;
	struct rv_err err;

	(void)state;
	assert_non_null(f);
	rv_err_clear(&err);
	assert_int_equal(rv_compare_read_stream(f, "t.csv", 0, 1, 1.0, &r, &err), -EILSEQ);
	assert_non_null(strstr(err.msg, "t.csv:2: a NUL byte"));
	fclose(f);
	rv_compare_run_fini(&r);
	rv_err_clear(&err);
	assert_int_equal(rv_compare_read_csv("/nonexistent/x.csv", 0, 1, 1.0, &r, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.csv: "));
	rv_compare_run_fini(&r);
}

/* Writes with fn into a memory stream; returns the text (free it). */
static char *written(int (*fn)(FILE *, const struct rv_compare_run *,
			       const struct rv_compare_run *, const struct rv_compare_result *),
		     const struct rv_compare_run *a, const struct rv_compare_run *b,
		     const struct rv_compare_result *res)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(fn(f, a, b, res), 0);
	fclose(f);
	return text;
}

static void test_output(void **state)
{
	struct rv_compare_run a, b;
	struct rv_compare_result res;
	struct rv_json_doc *doc = NULL;
	const struct rv_json *root, *inc;
	char *text;

	(void)state;
	read_pat("..ccc.......nnn...", 0, 1, &a);
	read_pat("..cccc..............", 0, 1, &b);   /* the net one is A's alone */
	assert_int_equal(rv_compare_runs(&a, &b, -INFINITY, INFINITY, &res, NULL), 0);
	text = written(rv_compare_write_text, &a, &b, &res);
	assert_non_null(strstr(text, "A: t.csv (per-window CSV, 18 windows, step 1 s)"));
	assert_non_null(strstr(text, "IoU of anomalous windows:  0.429"));
	assert_non_null(strstr(text, "A found by B 0.50 (1 of 2), B found by A 1.00 (1 of 1)"));
	assert_non_null(strstr(text, "median IoU 0.50 and hit rate 0.92"));
	assert_non_null(strstr(text, "\n  1     1970-01-01T00:16:43Z      2.0 s  cpu      "
				     "   1     1970-01-01T00:16:43Z      3.0 s  cpu        3.0 s\n"));
	assert_non_null(strstr(text, "\n  2     1970-01-01T00:16:53Z      2.0 s  net      "
				     "   \xe2\x80\x94\n"));
	assert_non_null(strstr(text, "Left out (outside the range): A 0 windows, 0 incidents;"
				     " B 2 windows, 0 incidents\n"));
	free(text);

	text = written(rv_compare_write_json, &a, &b, &res);
	assert_int_equal(rv_json_parse(text, strlen(text), "out.json", &doc, NULL), 0);
	root = rv_json_get(rv_json_root(doc), "compare");
	assert_true(fabs(rv_json_num(rv_json_get(root, "iou"), -1) - 3.0 / 7.0) < 1e-6);
	assert_true(fabs(rv_json_num(rv_json_get(rv_json_get(root, "a"), "hit_rate"), -1) - 0.5) <
		    1e-6);
	assert_int_equal(rv_json_num(rv_json_get(rv_json_get(root, "b"), "windows"), -1), 18);
	assert_int_equal(rv_json_num(rv_json_get(rv_json_get(root, "b"), "windows_out"), -1), 2);
	assert_true(rv_json_num(rv_json_get(rv_json_get(root, "paper"), "iou"), -1) == 0.5);
	inc = rv_json_get(rv_json_root(doc), "incidents");
	assert_int_equal(rv_json_len(inc), 2);
	assert_string_equal(rv_json_str(rv_json_get(rv_json_get(rv_json_at(inc, 0), "b"),
						    "subsystem"), ""), "cpu");
	assert_int_equal(rv_json_type(rv_json_get(rv_json_at(inc, 1), "b")), RV_JSON_NULL);
	assert_string_equal(rv_json_str(rv_json_get(rv_json_get(rv_json_at(inc, 1), "a"),
						    "start"), ""), "1970-01-01T00:16:53Z");
	rv_json_doc_free(doc);
	free(text);
	rv_compare_result_fini(&res);
	rv_compare_run_fini(&a);
	rv_compare_run_fini(&b);
}

/* Without incidents: hit rates null in JSON, n/a in text. */
static void test_output_empty(void **state)
{
	struct rv_compare_run a, b;
	struct rv_compare_result res;
	struct rv_json_doc *doc = NULL;
	const struct rv_json *root;
	char *text;

	(void)state;
	read_pat("......", 0, 1, &a);
	read_pat("......", 0, 1, &b);
	assert_int_equal(rv_compare_runs(&a, &b, -INFINITY, INFINITY, &res, NULL), 0);
	text = written(rv_compare_write_text, &a, &b, &res);
	assert_non_null(strstr(text, "IoU of anomalous windows:  1.000 (no anomalous window"));
	assert_non_null(strstr(text, "A found by B n/a (no incidents)"));
	assert_non_null(strstr(text, "no incidents in either run"));
	free(text);
	text = written(rv_compare_write_json, &a, &b, &res);
	assert_int_equal(rv_json_parse(text, strlen(text), "out.json", &doc, NULL), 0);
	root = rv_json_get(rv_json_root(doc), "compare");
	assert_int_equal(rv_json_type(rv_json_get(rv_json_get(root, "a"), "hit_rate")),
			 RV_JSON_NULL);
	assert_int_equal(rv_json_len(rv_json_get(rv_json_root(doc), "incidents")), 0);
	rv_json_doc_free(doc);
	free(text);
	rv_compare_result_fini(&res);
	rv_compare_run_fini(&a);
	rv_compare_run_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows_and_incidents),
		cmocka_unit_test(test_follow_on),
		cmocka_unit_test(test_time_gap),
		cmocka_unit_test(test_itself),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_output_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
