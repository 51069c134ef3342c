/*
 * promapi_test.c - the parser of the Prometheus HTTP API's answers
 * (rv_prom_parse): real answers of Prometheus 2.42 and VictoriaMetrics
 * 1.79 of every kind (captured by hand from both servers fed by
 * remote-write, trimmed), NaN and infinities, fractional timestamps,
 * empty results, warnings and isPartial, API error answers and their
 * codes, every truncation of an answer, shapes that are not the API's
 * (each error naming its place), the limits, and a result reused. The
 * HTTP side is in promapi_http_test.c.
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

#include <cmocka.h>

#include "remote/promapi.h"
#include "remote/promapi_int.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------- real answers (trimmed) */

/* Prometheus 2.42, POST /api/v1/query_range, query
 * reveal_channel_mean{channel="cpu.util"}, start..end step 10. */
static const char PROM_RANGE[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
	"{\"metric\":{\"__name__\":\"reveal_channel_mean\",\"channel\":\"cpu.util\","
	"\"cluster\":\"lab\",\"group\":\"g1\",\"instance\":\"n1:9100\",\"node\":\"n1\","
	"\"subsystem\":\"cpu\"},\"values\":[[1796573020,\"1.5\"],[1796573030,\"1.75\"],"
	"[1796573040,\"1.75\"],[1796573050,\"2.25\"],[1796573060,\"2.5\"],"
	"[1796573070,\"2.75\"]]},"
	"{\"metric\":{\"__name__\":\"reveal_channel_mean\",\"channel\":\"cpu.util\","
	"\"cluster\":\"lab\",\"group\":\"g1\",\"instance\":\"n2:9100\",\"node\":\"n2\","
	"\"subsystem\":\"cpu\"},\"values\":[[1796573020,\"3\"],[1796573030,\"3.25\"],"
	"[1796573040,\"3.25\"],[1796573050,\"NaN\"],[1796573060,\"+Inf\"],"
	"[1796573070,\"-Inf\"]]}]}}";

/* VictoriaMetrics 1.79, the same query (it leaves NaN out and fills the
 * step from the sample before; its labels in another order). */
static const char VM_RANGE[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
	"{\"metric\":{\"__name__\":\"reveal_channel_mean\",\"channel\":\"cpu.util\","
	"\"cluster\":\"lab\",\"group\":\"g1\",\"instance\":\"n2:9100\",\"node\":\"n2\","
	"\"subsystem\":\"cpu\"},\"values\":[[1796573020,\"3\"],[1796573030,\"3.25\"],"
	"[1796573040,\"3.25\"],[1796573050,\"3.5\"],[1796573060,\"+Inf\"],"
	"[1796573070,\"-Inf\"]]}]}}";

/* /api/v1/query of a range selector (a matrix): a sample off the step. */
static const char PROM_QUERY_MATRIX[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
	"{\"metric\":{\"__name__\":\"reveal_channel_mean\",\"channel\":\"cpu.util\","
	"\"cluster\":\"lab\",\"group\":\"g1\",\"instance\":\"n1:9100\",\"node\":\"n1\","
	"\"subsystem\":\"cpu\"},\"values\":[[1796573020,\"1.5\"],[1796573030,\"1.75\"],"
	"[1796573040.250,\"2\"],[1796573050,\"2.25\"]]}]}}";
static const char VM_QUERY_MATRIX[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
	"{\"metric\":{\"__name__\":\"reveal_channel_mean\",\"cluster\":\"lab\","
	"\"instance\":\"n1:9100\",\"node\":\"n1\",\"channel\":\"cpu.util\",\"group\":\"g1\","
	"\"subsystem\":\"cpu\"},\"values\":[[1796573020,\"1.5\"],[1796573030,\"1.75\"],"
	"[1796573040.25,\"2\"],[1796573050,\"2.25\"]]}]}}";

/* Both: /api/v1/query reveal_channel_mean{channel="mem.used_bytes"}. */
static const char PROM_VECTOR[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
	"{\"metric\":{\"__name__\":\"reveal_channel_mean\",\"channel\":\"mem.used_bytes\","
	"\"cluster\":\"lab\",\"group\":\"g1\",\"instance\":\"n1:9100\",\"node\":\"n1\","
	"\"subsystem\":\"mem\"},\"value\":[1796573070,\"1000000002.75\"]},"
	"{\"metric\":{\"__name__\":\"reveal_channel_mean\",\"channel\":\"mem.used_bytes\","
	"\"cluster\":\"lab\",\"group\":\"g1\",\"instance\":\"n2:9100\",\"node\":\"n2\","
	"\"subsystem\":\"mem\"},\"value\":[1796573070,\"1000000004.25\"]}]}}";

/* scalar(...): Prometheus answers a scalar, VictoriaMetrics a vector of
 * one series without labels. */
static const char PROM_SCALAR[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
	"\"result\":[1796573070,\"1000000002.75\"]}}";
static const char VM_SCALAR[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
	"[{\"metric\":{},\"value\":[1796573070,\"1000000002.75\"]}]}}";

/* /api/v1/series match[]=reveal_fact_info (a value with a quote and é). */
static const char PROM_SERIES[] =
	"{\"status\":\"success\",\"data\":[{\"__name__\":\"reveal_fact_info\","
	"\"fact\":\"mem.hugepage_size\",\"group\":\"g1\",\"node\":\"n1\","
	"\"value\":\"2MiB \\\"quoted\\\" \xc3\xa9\"},{\"__name__\":\"reveal_fact_info\","
	"\"fact\":\"mem.hugepage_size\",\"group\":\"g1\",\"node\":\"n3\",\"value\":\"1GiB\"}]}";
static const char VM_SERIES[] =
	"{\"status\":\"success\",\"data\":[{\"__name__\":\"reveal_fact_info\",\"node\":\"n1\","
	"\"fact\":\"mem.hugepage_size\",\"group\":\"g1\","
	"\"value\":\"2MiB \\\"quoted\\\" \xc3\xa9\"},{\"__name__\":\"reveal_fact_info\","
	"\"node\":\"n3\",\"fact\":\"mem.hugepage_size\",\"group\":\"g1\",\"value\":\"1GiB\"}]}";

/* Both: /api/v1/label/node/values. */
static const char LABEL_VALUES[] = "{\"status\":\"success\",\"data\":[\"n1\",\"n2\",\"n3\"]}";

/* Errors: a bad query. */
static const char PROM_BAD_DATA[] =
	"{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter "
	"\\\"query\\\": 1:21: parse error: unexpected end of input inside braces\"}";
static const char VM_422[] =
	"{\"status\":\"error\",\"errorType\":\"422\",\"error\":\"error when executing "
	"query=\\\"reveal_channel_mean{\\\" for (time=1796573070000, step=300000): "
	"labelFilterExpr: unexpected token \\\"\\\"; want \\\"ident\\\"; unparsed data: \\\"\\\"\"}";

/* Both: an empty range. */
static const char EMPTY_MATRIX[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}";

/* --------------------------------------------------------------- helpers */

static int parse(const char *body, enum rv_prom_kind kind, const struct rv_prom_limits *lim,
		 struct rv_prom_result *r, struct rv_err *err)
{
	rv_err_clear(err);
	return rv_prom_parse(body, strlen(body), kind, lim, r, err);
}

static void expect_points(const struct rv_prom_series *s, const double *t, const double *v,
			  size_t n)
{
	assert_int_equal(s->npoints, n);
	for (size_t i = 0; i < n; i++) {
		assert_true(s->t[i] == t[i]);
		if (isnan(v[i]))
			assert_true(isnan(s->v[i]));
		else
			assert_true(s->v[i] == v[i]);
	}
}

static void expect_empty(const struct rv_prom_result *r)
{
	assert_null(r->mem);
	assert_null(r->series);
	assert_int_equal(r->nseries + r->npoints + r->nvalues + r->nwarnings, 0);
}

/* ------------------------------------------------------------------ tests */

static void test_range(void **state)
{
	static const double t[] = { 1796573020, 1796573030, 1796573040,
				    1796573050, 1796573060, 1796573070 };
	static const double v1[] = { 1.5, 1.75, 1.75, 2.25, 2.5, 2.75 };
	static const double v2[] = { 3, 3.25, 3.25, NAN, INFINITY, -INFINITY };
	static const double vm[] = { 3, 3.25, 3.25, 3.5, INFINITY, -INFINITY };
	struct rv_prom_result r = { 0 };
	struct rv_err err;

	(void)state;
	assert_int_equal(parse(PROM_RANGE, RV_PROM_QUERY_RANGE, NULL, &r, &err), 0);
	assert_int_equal(r.type, RV_PROM_MATRIX);
	assert_int_equal(r.nseries, 2);
	assert_int_equal(r.npoints, 12);
	assert_int_equal(r.nwarnings, 0);
	assert_int_equal(r.partial, 0);
	assert_int_equal(r.series[0].nlabels, 7);
	assert_string_equal(r.series[0].labels[0].name, "__name__");
	assert_string_equal(rv_prom_label(&r.series[0], "__name__"), "reveal_channel_mean");
	assert_string_equal(rv_prom_label(&r.series[1], "node"), "n2");
	assert_string_equal(rv_prom_label(&r.series[1], "instance"), "n2:9100");
	assert_null(rv_prom_label(&r.series[1], "nodes"));
	assert_null(rv_prom_label(&r.series[1], NULL));
	expect_points(&r.series[0], t, v1, N(t));
	expect_points(&r.series[1], t, v2, N(t));
	assert_true(signbit(r.series[1].v[5]));
	/* the same query on VictoriaMetrics, into the same result */
	assert_int_equal(parse(VM_RANGE, RV_PROM_QUERY_RANGE, NULL, &r, &err), 0);
	assert_int_equal(r.nseries, 1);
	assert_string_equal(rv_prom_label(&r.series[0], "subsystem"), "cpu");
	expect_points(&r.series[0], t, vm, N(t));
	rv_prom_result_fini(&r);
	expect_empty(&r);
	rv_prom_result_fini(&r);
}

static void test_query(void **state)
{
	static const double tq[] = { 1796573020, 1796573030, 1796573040.25, 1796573050 };
	static const double vq[] = { 1.5, 1.75, 2, 2.25 };
	const char *const matrices[] = { PROM_QUERY_MATRIX, VM_QUERY_MATRIX };
	const char *const scalars[] = { PROM_SCALAR, VM_SCALAR };
	struct rv_prom_result r = { 0 };
	struct rv_err err;

	(void)state;
	assert_int_equal(parse(PROM_VECTOR, RV_PROM_QUERY, NULL, &r, &err), 0);
	assert_int_equal(r.type, RV_PROM_VECTOR);
	assert_int_equal(r.nseries, 2);
	assert_int_equal(r.npoints, 2);
	assert_string_equal(rv_prom_label(&r.series[1], "channel"), "mem.used_bytes");
	assert_int_equal(r.series[1].npoints, 1);
	assert_true(r.series[1].t[0] == 1796573070);
	assert_true(r.series[1].v[0] == 1000000004.25);
	for (size_t i = 0; i < N(matrices); i++) {
		assert_int_equal(parse(matrices[i], RV_PROM_QUERY, NULL, &r, &err), 0);
		assert_int_equal(r.type, RV_PROM_MATRIX);
		expect_points(&r.series[0], tq, vq, N(tq));
	}
	for (size_t i = 0; i < N(scalars); i++) {
		assert_int_equal(parse(scalars[i], RV_PROM_QUERY, NULL, &r, &err), 0);
		assert_int_equal(r.type, i == 0 ? RV_PROM_SCALAR : RV_PROM_VECTOR);
		assert_int_equal(r.nseries, 1);
		assert_int_equal(r.npoints, 1);
		assert_int_equal(r.series[0].nlabels, 0);
		assert_true(r.series[0].v[0] == 1000000002.75);
	}
	/* a vector or a scalar is no answer of query_range */
	assert_int_equal(parse(PROM_VECTOR, RV_PROM_QUERY_RANGE, NULL, &r, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "\"vector\""));
	expect_empty(&r);
	assert_int_equal(parse(PROM_SCALAR, RV_PROM_QUERY_RANGE, NULL, &r, &err), -EBADMSG);
	rv_prom_result_fini(&r);
}

static void test_series_and_values(void **state)
{
	const char *const series[] = { PROM_SERIES, VM_SERIES };
	struct rv_prom_result r = { 0 };
	struct rv_err err;

	(void)state;
	for (size_t i = 0; i < N(series); i++) {
		assert_int_equal(parse(series[i], RV_PROM_SERIES, NULL, &r, &err), 0);
		assert_int_equal(r.type, RV_PROM_LABELSETS);
		assert_int_equal(r.nseries, 2);
		assert_int_equal(r.npoints, 0);
		assert_int_equal(r.series[0].nlabels, 5);
		assert_int_equal(r.series[0].npoints, 0);
		assert_string_equal(rv_prom_label(&r.series[0], "value"),
				    "2MiB \"quoted\" \xc3\xa9");
		assert_string_equal(rv_prom_label(&r.series[1], "node"), "n3");
		assert_string_equal(rv_prom_label(&r.series[1], "value"), "1GiB");
	}
	assert_int_equal(parse(LABEL_VALUES, RV_PROM_LABEL_VALUES, NULL, &r, &err), 0);
	assert_int_equal(r.type, RV_PROM_STRINGS);
	assert_int_equal(r.nvalues, 3);
	assert_int_equal(r.nseries, 0);
	assert_string_equal(r.values[0], "n1");
	assert_string_equal(r.values[2], "n3");
	/* a list of strings is no list of label sets, and the reverse */
	assert_int_equal(parse(LABEL_VALUES, RV_PROM_SERIES, NULL, &r, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "data[0]"));
	assert_int_equal(parse(PROM_SERIES, RV_PROM_LABEL_VALUES, NULL, &r, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "data[0]"));
	rv_prom_result_fini(&r);
}

static void test_empty(void **state)
{
	static const struct {
		const char *body;
		enum rv_prom_kind kind;
		enum rv_prom_type type;
	} cases[] = {
		{ EMPTY_MATRIX, RV_PROM_QUERY_RANGE, RV_PROM_MATRIX },
		{ "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
		  RV_PROM_QUERY, RV_PROM_VECTOR },
		{ "{\"status\":\"success\",\"data\":[]}", RV_PROM_SERIES, RV_PROM_LABELSETS },
		{ "{\"status\":\"success\",\"data\":null}", RV_PROM_SERIES, RV_PROM_LABELSETS },
		{ "{\"status\":\"success\",\"data\":[]}", RV_PROM_LABEL_VALUES, RV_PROM_STRINGS },
		{ "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":"
		  "[{\"metric\":{},\"values\":[]}]}}", RV_PROM_QUERY_RANGE, RV_PROM_MATRIX },
	};
	struct rv_prom_result r = { 0 };
	struct rv_err err;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		assert_int_equal(parse(cases[i].body, cases[i].kind, NULL, &r, &err), 0);
		assert_int_equal(r.type, cases[i].type);
		assert_int_equal(r.npoints + r.nvalues + r.nwarnings, 0);
		assert_int_equal(r.nseries, i == N(cases) - 1);
	}
	assert_int_equal(r.series[0].nlabels, 0);
	rv_prom_result_fini(&r);
}

static void test_warnings(void **state)
{
	static const char body[] =
		"{\"status\":\"success\",\"isPartial\":true,\"warnings\":[\"remote store a: timeout\","
		"\"second\"],\"stats\":{\"seriesFetched\":\"1\"},\"data\":{\"resultType\":\"matrix\","
		"\"result\":[{\"metric\":{\"node\":\"a\"},\"values\":[[1,\"1e+06\"],[2.5,\"-0\"]]}]}}";
	struct rv_prom_result r = { 0 };
	struct rv_err err;

	(void)state;
	assert_int_equal(parse(body, RV_PROM_QUERY_RANGE, NULL, &r, &err), 0);
	assert_int_equal(r.nwarnings, 3);
	assert_int_equal(r.partial, 1);
	assert_string_equal(r.warnings[0], "remote store a: timeout");
	assert_string_equal(r.warnings[1], "second");
	assert_non_null(strstr(r.warnings[2], "isPartial"));
	assert_int_equal(r.npoints, 2);
	assert_true(r.series[0].v[0] == 1e6);
	assert_true(r.series[0].v[1] == 0 && signbit(r.series[0].v[1]));
	assert_true(r.series[0].t[1] == 2.5);
	assert_null(r.values);
	assert_int_equal(parse(LABEL_VALUES, RV_PROM_LABEL_VALUES, NULL, &r, &err), 0);
	assert_null(r.warnings);
	rv_prom_result_fini(&r);
}

static void test_api_errors(void **state)
{
	static const struct {
		const char *body;
		int code;
		const char *msg;
	} cases[] = {
		{ PROM_BAD_DATA, -EINVAL, "API error bad_data: invalid parameter \"query\": 1:21" },
		{ VM_422, -EINVAL, "API error 422: error when executing query=" },
		{ "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out\"}",
		  -ETIMEDOUT, "timeout: query timed out" },
		{ "{\"status\":\"error\",\"errorType\":\"canceled\",\"error\":\"x\"}", -ECANCELED, "canceled" },
		{ "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query processing "
		  "would load too many samples\\ninto memory\"}", -EIO,
		  "execution: query processing would load too many samples into memory" },
		{ "{\"status\":\"error\",\"errorType\":\"unavailable\",\"error\":\"\"}", -EAGAIN,
		  "unavailable" },
		{ "{\"status\":\"error\",\"errorType\":\"503\",\"error\":\"busy\"}", -EAGAIN, "503: busy" },
		{ "{\"status\":\"error\",\"errorType\":\"not_found\",\"error\":\"\"}", -ENOENT, "" },
		{ "{\"status\":\"error\",\"errorType\":\"whatever\",\"error\":\"e\"}", -EIO, "whatever" },
		{ "{\"status\":\"error\"}", -EIO, "(no errorType)" },
		{ "{\"status\":\"weird\",\"data\":[]}", -EBADMSG, "neither success nor error" },
		{ "{\"data\":[]}", -EBADMSG, "no \"status\"" },
	};
	struct rv_prom_result r = { 0 };
	struct rv_err err;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		assert_int_equal(parse(cases[i].body, RV_PROM_QUERY, NULL, &r, &err), cases[i].code);
		assert_int_equal(err.code, cases[i].code);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].msg);
		assert_null(strchr(err.msg, '\n'));
		expect_empty(&r);
	}
}

/* Every proper prefix of an answer, and the answer with one byte cut out
 * of each place, is refused (-EBADMSG, a message, an empty result) or,
 * for a cut, gives a well-formed result. */
static void test_truncated(void **state)
{
	const char *const bodies[] = { PROM_RANGE, VM_SERIES, PROM_SCALAR, LABEL_VALUES };
	struct rv_prom_result r = { 0 };
	struct rv_err err;
	char cut[sizeof(PROM_RANGE)];

	(void)state;
	for (size_t b = 0; b < N(bodies); b++) {
		size_t len = strlen(bodies[b]);
		enum rv_prom_kind kind = b == 0 ? RV_PROM_QUERY_RANGE : b == 1 ? RV_PROM_SERIES :
					 b == 2 ? RV_PROM_QUERY : RV_PROM_LABEL_VALUES;

		for (size_t n = 0; n < len; n++) {
			rv_err_clear(&err);
			assert_int_equal(rv_prom_parse(bodies[b], n, kind, NULL, &r, &err), -EBADMSG);
			assert_true(err.msg[0] != '\0');
			expect_empty(&r);
		}
		for (size_t n = 0; n < len; n++) {
			int rc;

			memcpy(cut, bodies[b], n);
			memcpy(cut + n, bodies[b] + n + 1, len - n - 1);
			rv_err_clear(&err);
			rc = rv_prom_parse(cut, len - 1, kind, NULL, &r, &err);
			assert_true(rc == 0 || rc == -EBADMSG);
			if (rc < 0)
				expect_empty(&r);
		}
	}
	assert_int_equal(rv_prom_parse(NULL, 0, RV_PROM_QUERY, NULL, &r, &err), -EBADMSG);
	rv_prom_result_fini(&r);
}

#define RANGE_OF(items) \
	"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[" items "]}}"

static void test_malformed(void **state)
{
	static const struct {
		const char *body;
		const char *msg;
	} cases[] = {
		{ "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]},}",
		  "malformed JSON: answer:1:" },
		{ "[1,2]", "not a JSON object" },
		{ "{\"status\":\"success\"}", "data: not an object" },
		{ "{\"status\":\"success\",\"data\":{\"result\":[]}}", "no resultType" },
		{ "{\"status\":\"success\",\"data\":{\"resultType\":\"string\",\"result\":[1,\"a\"]}}",
		  "\"string\"" },
		{ "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":{}}}",
		  "data.result: not an array" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[1,\"1\"],[1,\"2\"]]}"),
		  "data.result[0].values[1][0]: time 1.000 is not after" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[2,\"1\"]]},{\"metric\":{},\"values\":[[3,\"1\"],[2,\"2\"]]}"),
		  "data.result[1].values[1][0]" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[1,\"1\"],[2,\"abc\"]]}"),
		  "data.result[0].values[1][1]: \"abc\" is not a number" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[1,\"\"]]}"), "values[0][1]: \"\"" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[1,\" 1\"]]}"), "is not a number" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[1,\"1x\"]]}"), "is not a number" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[1,\"0x10\"]]}"), "is not a number" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[1,1.5]]}"),
		  "data.result[0].values[0]: not a pair" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[\"1\",\"1\"]]}"), "values[0]: not a pair" },
		{ RANGE_OF("{\"metric\":{},\"values\":[[1,\"1\",3]]}"), "values[0]: not a pair" },
		{ RANGE_OF("{\"metric\":{},\"values\":{}}"), "data.result[0].values: not an array" },
		{ RANGE_OF("{\"values\":[]}"), "data.result[0].metric: not an object" },
		{ RANGE_OF("{\"metric\":{\"a\":1},\"values\":[]}"), "data.result[0].metric[0]: not a string" },
		{ RANGE_OF("{\"metric\":{\"a\":\"x\\u0000y\"},\"values\":[]}"), "with a NUL" },
		{ RANGE_OF("{\"metric\":{\"\":\"x\"},\"values\":[]}"), "label 1: an empty name" },
		{ RANGE_OF("{\"metric\":{\"a\":\"1\",\"a\":\"2\"},\"values\":[]}"),
		  "malformed JSON: answer:1:" },
		{ RANGE_OF("{\"metric\":{},\"histograms\":[]}"), "native histograms" },
		{ RANGE_OF("7"), "data.result[0]: not an object" },
		{ "{\"status\":\"success\",\"warnings\":\"w\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}",
		  "warnings: not an array" },
		{ "{\"status\":\"success\",\"warnings\":[1],\"data\":{\"resultType\":\"matrix\",\"result\":[]}}",
		  "warnings[0]: not a string" },
		{ "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}\xff",
		  "malformed JSON" },
		{ "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":"
		  "{\"a\":\"\xc3\x28\"},\"values\":[]}]}}", "malformed JSON" },
	};
	struct rv_prom_result r = { 0 };
	struct rv_err err;

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		int rc = parse(cases[i].body, RV_PROM_QUERY_RANGE, NULL, &r, &err);

		if (rc != -EBADMSG || !strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: %d \"%s\", not -EBADMSG with \"%s\"", i, rc, err.msg,
				 cases[i].msg);
		expect_empty(&r);
	}
	assert_int_equal(parse(RANGE_OF("{\"metric\":{},\"value\":[1,\"1\"]}"), RV_PROM_QUERY, NULL,
			       &r, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "data.result[0].values: not an array"));
	assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":"
			       "[{\"metric\":{},\"value\":[1,\"1\"]},{\"metric\":{}}]}}",
			       RV_PROM_QUERY, NULL, &r, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "data.result[1].value: not a pair"));
	assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
			       "\"result\":[1,\"nope\"]}}", RV_PROM_QUERY, NULL, &r, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "data.result[1]: \"nope\""));
	assert_int_equal(parse("{\"status\":\"success\",\"data\":{}}", RV_PROM_SERIES, NULL, &r, &err),
			 -EBADMSG);
	assert_non_null(strstr(err.msg, "data: not an array"));
	assert_int_equal(parse("{\"status\":\"success\",\"data\":[\"a\",null]}", RV_PROM_LABEL_VALUES,
			       NULL, &r, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "data[1]: not a string"));
	expect_empty(&r);
}

static void test_limits(void **state)
{
	struct rv_prom_limits lim = { .max_series = 2, .max_points = 12 };
	struct rv_prom_result r = { 0 };
	struct rv_err err;

	(void)state;
	assert_int_equal(parse(PROM_RANGE, RV_PROM_QUERY_RANGE, &lim, &r, &err), 0);
	lim.max_points = 11;
	assert_int_equal(parse(PROM_RANGE, RV_PROM_QUERY_RANGE, &lim, &r, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "12 points, more than the limit of 11"));
	expect_empty(&r);
	lim.max_points = 0;   /* the default */
	lim.max_series = 1;
	assert_int_equal(parse(PROM_RANGE, RV_PROM_QUERY_RANGE, &lim, &r, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "2 series"));
	lim.max_series = 2;
	assert_int_equal(parse(LABEL_VALUES, RV_PROM_LABEL_VALUES, &lim, &r, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "3 values"));
	lim.max_series = 3;
	assert_int_equal(parse(LABEL_VALUES, RV_PROM_LABEL_VALUES, &lim, &r, &err), 0);
	lim.max_body_bytes = strlen(LABEL_VALUES) - 1;
	assert_int_equal(parse(LABEL_VALUES, RV_PROM_LABEL_VALUES, &lim, &r, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "bytes, more than the limit"));
	expect_empty(&r);
	assert_int_equal(rv_prom_parse(LABEL_VALUES, 3, RV_PROM_LABEL_VALUES, NULL, NULL, &err),
			 -EINVAL);
	assert_int_equal(rv_prom_parse(NULL, 3, RV_PROM_LABEL_VALUES, NULL, &r, &err), -EINVAL);
}

/* A large answer (1,000 series x 360 points, about 10 MB) parses whole. */
static void test_large(void **state)
{
	enum { SERIES = 1000, POINTS = 360, LINE = 64 };
	size_t cap = (size_t)SERIES * (POINTS * LINE + 256), len = 0;
	char *b = malloc(cap);
	struct rv_prom_result r = { 0 };
	struct rv_err err = { 0 };

	(void)state;
	assert_non_null(b);
	len += (size_t)snprintf(b, cap, "%s", "{\"status\":\"success\",\"data\":"
				"{\"resultType\":\"matrix\",\"result\":[");
	for (int s = 0; s < SERIES; s++) {
		len += (size_t)snprintf(b + len, cap - len, "%s{\"metric\":{\"__name__\":\"m\","
					"\"node\":\"n%04d\"},\"values\":[", s ? "," : "", s);
		for (int i = 0; i < POINTS; i++)
			len += (size_t)snprintf(b + len, cap - len, "%s[%.3f,\"%d.5\"]", i ? "," : "",
						1700000000.0 + i * 10 + 0.125, s + i);
		len += (size_t)snprintf(b + len, cap - len, "]}");
	}
	len += (size_t)snprintf(b + len, cap - len, "]}}");
	assert_true(len < cap);
	assert_int_equal(rv_prom_parse(b, len, RV_PROM_QUERY_RANGE, NULL, &r, &err), 0);
	assert_int_equal(r.nseries, SERIES);
	assert_int_equal(r.npoints, (size_t)SERIES * POINTS);
	assert_string_equal(rv_prom_label(&r.series[SERIES - 1], "node"), "n0999");
	assert_true(r.series[SERIES - 1].t[POINTS - 1] == 1700000000.0 + (POINTS - 1) * 10 + 0.125);
	assert_true(r.series[SERIES - 1].v[POINTS - 1] == SERIES - 1 + POINTS - 1 + 0.5);
	rv_prom_result_fini(&r);
	free(b);
}

/* Text of an answer made fit for a message; s need not be NUL-ended. */
static void test_printable(void **state)
{
	static const char text[] = "ab\xc3\xa9\n\x01\x7f\xff\xc3";
	char out[32];

	(void)state;
	assert_int_equal(rv_prom_printable(out, sizeof(out), text, strlen(text)), strlen(text));
	assert_string_equal(out, "ab\xc3\xa9   ??");
	/* the last byte starts a sequence that goes on past len: not read */
	assert_int_equal(rv_prom_printable(out, sizeof(out), text, 3), 3);
	assert_string_equal(out, "ab?");
	/* a sequence that does not fit whole is not cut */
	assert_int_equal(rv_prom_printable(out, 4, text, strlen(text)), 3);
	assert_string_equal(out, "ab?");
	assert_int_equal(rv_prom_printable(out, 5, text, strlen(text)), 4);
	assert_string_equal(out, "ab\xc3\xa9");
	assert_int_equal(rv_prom_printable(out, sizeof(out), "a\0b", 3), 1);
	assert_string_equal(out, "a");
	assert_int_equal(rv_prom_http_errno(422), -EINVAL);
	assert_int_equal(rv_prom_http_errno(403), -EACCES);
	assert_int_equal(rv_prom_http_errno(418), -EINVAL);
	assert_int_equal(rv_prom_http_errno(500), -EIO);
	assert_int_equal(rv_prom_http_errno(302), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_series_and_values),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_api_errors),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
