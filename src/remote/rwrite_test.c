/*
 * rwrite_test.c - remote-write requests encoded and read back: every body
 * is uncompressed with snappy (block format) and unpacked with the
 * protobuf-c code generated from remote_write.proto, and every label,
 * value and timestamp compared; label order and checks (bad and reserved
 * names named in the error, empty values dropped, duplicates refused);
 * sample order; the stale marker's bits; the limits (-E2BIG, the request
 * untouched); a full-size request; one output buffer across requests.
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
#include <snappy-c.h>

#include "remote/rwrite.h"
#include "remote_write.pb-c.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define CLR(e) (rv_err_clear(&(e)), &(e))   /* a cleared struct rv_err * */

static uint64_t bits_of(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof b);
	return b;
}

/* Encodes w into out (cap bytes) and reads it back; the caller frees the
 * result with prometheus__write_request__free_unpacked. */
static Prometheus__WriteRequest *roundtrip_in(struct rv_rw *w, void *out,
					      size_t cap)
{
	struct rv_err err = { 0 };
	size_t len = 0, plain = 0;
	Prometheus__WriteRequest *req;
	char *pb;

	assert_int_equal(rv_rw_encode(w, out, cap, &len, &err), 0);
	assert_true(len > 0 && len <= cap);
	/* the block format starts with the length as a varint, never with
	 * the framed format's stream identifier chunk (0xff) */
	assert_int_not_equal(((unsigned char *)out)[0], 0xff);
	assert_int_equal(snappy_validate_compressed_buffer(out, len), SNAPPY_OK);
	assert_int_equal(snappy_uncompressed_length(out, len, &plain), SNAPPY_OK);
	pb = malloc(plain + 1);
	assert_non_null(pb);
	assert_int_equal(snappy_uncompress(out, len, pb, &plain), SNAPPY_OK);
	req = prometheus__write_request__unpack(NULL, plain, (uint8_t *)pb);
	free(pb);
	assert_non_null(req);
	return req;
}

static Prometheus__WriteRequest *roundtrip(struct rv_rw *w)
{
	size_t cap = rv_rw_out_max(w);
	void *out = malloc(cap);
	Prometheus__WriteRequest *req;

	assert_non_null(out);
	req = roundtrip_in(w, out, cap);
	free(out);
	return req;
}

static struct rv_rw *new_rw(const struct rv_rw_limits *lim)
{
	struct rv_rw *w = NULL;
	struct rv_err err = { 0 };

	assert_int_equal(rv_rw_new(lim, &w, &err), 0);
	assert_non_null(w);
	return w;
}

static void assert_label(const Prometheus__Label *l, const char *name,
			 const char *value)
{
	assert_string_equal(l->name, name);
	assert_string_equal(l->value, value);
}

static void test_headers(void **state)
{
	(void)state;
	assert_string_equal(RV_RW_CONTENT_ENCODING, "snappy");
	assert_string_equal(RV_RW_CONTENT_TYPE, "application/x-protobuf");
	assert_string_equal(RV_RW_VERSION_HEADER, "X-Prometheus-Remote-Write-Version");
	assert_string_equal(RV_RW_VERSION, "0.1.0");
	assert_string_equal(RV_RW_USER_AGENT, "reveal/" REVEAL_VERSION);
}

/* Two series; labels given out of order, one with an empty value; samples
 * out of order with special values. */
static void test_roundtrip(void **state)
{
	const struct rv_rw_label cpu[] = {
		{ "instance", "node1:9100" }, { "cpu", "3" }, { "__name__", "reveal_cpu_busy_pct" },
		{ "Zone", "eu" }, { "empty", "" }, { "job", "r\xc3\xa9veal \xe2\x9c\x93" },
	};
	const struct rv_rw_sample cpu_s[] = {
		{ 12.5, 1700000002000 }, { -0.0, 1700000000000 }, { INFINITY, 1700000001000 },
		{ NAN, 1700000003000 }, { -1e300, -5 },
	};
	const struct rv_rw_label mem[] = { { "__name__", "node:mem_bytes" } };
	const struct rv_rw_sample mem_s[] = { { 4.0e9, 1 } };
	struct rv_err err = { 0 };
	struct rv_rw *w = new_rw(NULL);
	Prometheus__WriteRequest *req;
	Prometheus__TimeSeries *ts;

	(void)state;
	assert_int_equal(rv_rw_add(w, cpu, N(cpu), cpu_s, N(cpu_s), &err), 0);
	assert_int_equal(rv_rw_add(w, mem, N(mem), mem_s, N(mem_s), &err), 0);
	assert_int_equal(err.code, 0);
	assert_int_equal(rv_rw_nseries(w), 2);
	assert_int_equal(rv_rw_nsamples(w), 6);
	req = roundtrip(w);
	assert_int_equal(req->n_timeseries, 2);
	ts = req->timeseries[0];
	assert_int_equal(ts->n_labels, 5);   /* "empty" dropped */
	assert_label(ts->labels[0], "Zone", "eu");   /* byte order: 'Z' < '_' */
	assert_label(ts->labels[1], "__name__", "reveal_cpu_busy_pct");
	assert_label(ts->labels[2], "cpu", "3");
	assert_label(ts->labels[3], "instance", "node1:9100");
	assert_label(ts->labels[4], "job", "r\xc3\xa9veal \xe2\x9c\x93");
	assert_int_equal(ts->n_samples, 5);
	assert_int_equal(ts->samples[0]->timestamp, -5);
	assert_true(ts->samples[0]->value == -1e300);
	assert_int_equal(ts->samples[1]->timestamp, 1700000000000);
	assert_int_equal(bits_of(ts->samples[1]->value), 0);   /* -0 sent as +0 */
	assert_int_equal(ts->samples[2]->timestamp, 1700000001000);
	assert_true(isinf(ts->samples[2]->value) && ts->samples[2]->value > 0);
	assert_int_equal(ts->samples[3]->timestamp, 1700000002000);
	assert_true(ts->samples[3]->value == 12.5);
	assert_int_equal(ts->samples[4]->timestamp, 1700000003000);
	assert_true(isnan(ts->samples[4]->value));
	assert_false(rv_rw_is_stale(ts->samples[4]->value));
	ts = req->timeseries[1];
	assert_int_equal(ts->n_labels, 1);
	assert_label(ts->labels[0], "__name__", "node:mem_bytes");
	assert_int_equal(ts->n_samples, 1);
	assert_int_equal(ts->samples[0]->timestamp, 1);
	assert_true(ts->samples[0]->value == 4.0e9);
	prometheus__write_request__free_unpacked(req, NULL);
	rv_rw_free(w);
}

/* Bad names: -EINVAL, the message names the label; nothing added. */
static void test_names(void **state)
{
	static const struct {
		struct rv_rw_label bad;   /* added beside a valid __name__ */
		const char *want;         /* in the message */
	} cases[] = {
		{ { "9lives", "x" }, "label name \"9lives\" is not valid" },
		{ { "a-b", "x" }, "label name \"a-b\" is not valid" },
		{ { "a:b", "x" }, "label name \"a:b\" is not valid" },
		{ { "", "x" }, "label name \"\" is not valid" },
		{ { "__meta", "x" }, "label name \"__meta\" is reserved" },
		{ { "__", "x" }, "label name \"__\" is reserved" },
		{ { "__name__", "1metric" }, "metric name \"1metric\" is not valid" },
		{ { "__name__", "a.b" }, "metric name \"a.b\" is not valid" },
		{ { "ok", NULL }, "a label with a NULL value" },
		{ { "host", "caf\xc3" }, "the value of label \"host\" is not UTF-8 (byte 3)" },
		{ { "host", "\xff" }, "the value of label \"host\" is not UTF-8 (byte 0)" },
		{ { NULL, "x" }, "a label with a NULL name" },
	};
	const struct rv_rw_sample s = { 1, 1 };
	struct rv_rw *w = new_rw(NULL);
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct rv_rw_label l[2] = { { "__name__", "m" }, cases[i].bad };
		struct rv_err err = { 0 };
		const struct rv_rw_label *ls = l;
		size_t n = 2;

		if (cases[i].bad.name != NULL && strcmp(cases[i].bad.name, "__name__") == 0)
			ls = &l[1], n = 1;
		assert_int_equal(rv_rw_add(w, ls, n, &s, 1, &err), -EINVAL);
		assert_int_equal(err.code, -EINVAL);
		if (strstr(err.msg, cases[i].want) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].want);
	}
	assert_int_equal(rv_rw_nseries(w), 0);
	rv_rw_free(w);
}

static void test_labels_refused(void **state)
{
	const struct rv_rw_label dup[] = { { "__name__", "m" }, { "a", "1" }, { "a", "2" } };
	const struct rv_rw_label dup_empty[] = { { "a", "" }, { "__name__", "m" }, { "a", "x" } };
	const struct rv_rw_label noname[] = { { "a", "1" } };
	const struct rv_rw_label empty_name[] = { { "__name__", "" }, { "a", "1" } };
	const struct rv_rw_sample s = { 1, 1 };
	struct rv_rw *w = new_rw(NULL);
	struct rv_err err = { 0 };

	(void)state;
	assert_int_equal(rv_rw_add(w, dup, N(dup), &s, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "series m: label \"a\" given twice"));
	rv_err_clear(&err);
	assert_int_equal(rv_rw_add(w, dup_empty, N(dup_empty), &s, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "label \"a\" given twice"));
	rv_err_clear(&err);
	assert_int_equal(rv_rw_add(w, noname, N(noname), &s, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "without a metric name"));
	rv_err_clear(&err);
	assert_int_equal(rv_rw_add(w, empty_name, N(empty_name), &s, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "without a metric name"));
	rv_err_clear(&err);
	assert_int_equal(rv_rw_add(w, dup, 1, &s, 0, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "series m has no sample"));
	rv_err_clear(&err);
	assert_int_equal(rv_rw_add(w, NULL, 1, &s, 1, &err), -EINVAL);
	assert_int_equal(rv_rw_nseries(w), 0);
	rv_rw_free(w);
}

static void test_samples(void **state)
{
	const struct rv_rw_label l[] = { { "__name__", "m" } };
	const struct rv_rw_sample twice[] = { { 1, 5 }, { 2, 3 }, { 3, 5 } };
	struct rv_rw_sample many[100];
	struct rv_err err = { 0 };
	struct rv_rw *w = new_rw(NULL);
	Prometheus__WriteRequest *req;
	size_t i;

	(void)state;
	assert_int_equal(rv_rw_add(w, l, 1, twice, N(twice), &err), -EINVAL);
	assert_non_null(strstr(err.msg, "series m: two samples at timestamp 5 ms"));
	assert_int_equal(rv_rw_nsamples(w), 0);
	for (i = 0; i < N(many); i++) {   /* a permutation of 0..99 s */
		many[i].ts_ms = (int64_t)((i * 37) % N(many)) * 1000;
		many[i].value = (double)many[i].ts_ms / 2;
	}
	assert_int_equal(rv_rw_add(w, l, 1, many, N(many), &err), 0);
	req = roundtrip(w);
	assert_int_equal(req->timeseries[0]->n_samples, N(many));
	for (i = 0; i < N(many); i++) {
		assert_int_equal(req->timeseries[0]->samples[i]->timestamp, (int64_t)i * 1000);
		assert_true(req->timeseries[0]->samples[i]->value == (double)i * 500);
	}
	prometheus__write_request__free_unpacked(req, NULL);
	rv_rw_free(w);
}

static void test_stale(void **state)
{
	const struct rv_rw_label l[] = { { "job", "x" }, { "__name__", "up" } };
	struct rv_err err = { 0 };
	struct rv_rw *w = new_rw(NULL);
	Prometheus__WriteRequest *req;

	(void)state;
	assert_int_equal(bits_of(rv_rw_stale_nan()), RV_RW_STALE_NAN_BITS);
	assert_true(isnan(rv_rw_stale_nan()));
	assert_true(rv_rw_is_stale(rv_rw_stale_nan()));
	assert_false(rv_rw_is_stale(NAN));
	assert_false(rv_rw_is_stale(0.0));
	assert_int_equal(rv_rw_add_stale(w, l, N(l), 1234567, &err), 0);
	req = roundtrip(w);
	assert_int_equal(req->n_timeseries, 1);
	assert_label(req->timeseries[0]->labels[0], "__name__", "up");
	assert_label(req->timeseries[0]->labels[1], "job", "x");
	assert_int_equal(req->timeseries[0]->n_samples, 1);
	assert_int_equal(req->timeseries[0]->samples[0]->timestamp, 1234567);
	assert_int_equal(bits_of(req->timeseries[0]->samples[0]->value),
			 UINT64_C(0x7ff0000000000002));
	prometheus__write_request__free_unpacked(req, NULL);
	rv_rw_free(w);
}

/* Each limit gives -E2BIG naming it, and leaves the request whole. */
static void test_limits(void **state)
{
	const struct rv_rw_limits lim = { .max_series = 2, .max_samples = 3,
					  .max_labels = 4, .max_label_bytes = 40 };
	const struct rv_rw_label a[] = { { "__name__", "a" }, { "k", "v" } };
	const struct rv_rw_label big[] = { { "__name__", "b" },
		{ "long", "0123456789012345678901234567890123456789" } };
	const struct rv_rw_label three[] = { { "__name__", "c" }, { "x", "1" }, { "y", "2" } };
	const struct rv_rw_label five[] = { { "__name__", "d" }, { "p", "1" }, { "q", "1" },
					    { "r", "1" }, { "s", "1" } };
	const struct rv_rw_sample s[] = { { 1, 1 }, { 2, 2 }, { 3, 3 } };
	struct rv_rw_limits huge = { .max_samples = (size_t)RV_RW_MAX_SAMPLES + 1 };
	struct rv_err err = { 0 };
	struct rv_rw *w = new_rw(&lim), *none = NULL;
	Prometheus__WriteRequest *req;

	(void)state;
	assert_int_equal(rv_rw_new(&huge, &none, &err), -E2BIG);
	assert_null(none);
	assert_non_null(strstr(err.msg, "max_samples"));
	assert_int_equal(rv_rw_add(w, a, N(a), s, 2, CLR(err)), 0);
	assert_int_equal(rv_rw_add(w, a, N(a), s, 2, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "series a does not fit: the request holds at most 3 samples (max_samples)"));
	assert_int_equal(rv_rw_add(w, big, N(big), s, 1, CLR(err)), -E2BIG);
	assert_non_null(strstr(err.msg, "at most 40 bytes of label names and values (max_label_bytes)"));
	assert_int_equal(rv_rw_add(w, three, N(three), s, 1, CLR(err)), -E2BIG);
	assert_non_null(strstr(err.msg, "series c does not fit: the request holds at most 4 labels (max_labels)"));
	assert_int_equal(rv_rw_add(w, five, N(five), s, 1, CLR(err)), -E2BIG);
	assert_non_null(strstr(err.msg, "series d has 5 labels, a request holds at most 4 (max_labels)"));
	assert_int_equal(rv_rw_add(w, a, 1, s, 1, CLR(err)), 0);
	assert_int_equal(rv_rw_add(w, a, 1, s + 2, 1, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "at most 2 series (max_series)"));
	assert_int_equal(rv_rw_nseries(w), 2);
	assert_int_equal(rv_rw_nsamples(w), 3);
	req = roundtrip(w);   /* the refused series left no trace */
	assert_int_equal(req->n_timeseries, 2);
	assert_int_equal(req->timeseries[0]->n_labels, 2);
	assert_label(req->timeseries[0]->labels[1], "k", "v");
	assert_int_equal(req->timeseries[0]->n_samples, 2);
	assert_int_equal(req->timeseries[1]->n_labels, 1);
	assert_int_equal(req->timeseries[1]->samples[0]->timestamp, 1);
	prometheus__write_request__free_unpacked(req, NULL);
	rv_rw_reset(w);   /* room again */
	assert_int_equal(rv_rw_add(w, three, N(three), s, 3, CLR(err)), 0);
	rv_rw_free(w);
	rv_rw_free(NULL);
}

/* A request full to the default limits: long, varied labels. */
static void test_large(void **state)
{
	enum { SERIES = RV_RW_DEF_SERIES, PER = RV_RW_DEF_SAMPLES / RV_RW_DEF_SERIES };
	char name[64], inst[64], val[300];
	struct rv_rw_label l[3] = { { "__name__", name }, { "instance", inst }, { "v", val } };
	struct rv_rw_sample s[PER];
	struct rv_err err = { 0 };
	struct rv_rw *w = new_rw(NULL);
	Prometheus__WriteRequest *req;
	size_t i, j;

	(void)state;
	for (i = 0; i < SERIES; i++) {
		snprintf(name, sizeof name, "reveal_metric_%zu", i);
		snprintf(inst, sizeof inst, "host-%zu:9100", i % 97);
		memset(val, 'a' + (int)(i % 26), i % 200 + 1);
		val[i % 200 + 1] = '\0';
		for (j = 0; j < PER; j++)
			s[j] = (struct rv_rw_sample){ (double)(i * PER + j) * 0.25,
						      (int64_t)(1700000000000 + j * 1000) };
		assert_int_equal(rv_rw_add(w, l, 3, s, PER, &err), 0);
	}
	assert_int_equal(rv_rw_add(w, l, 3, s, 1, &err), -E2BIG);
	req = roundtrip(w);
	assert_int_equal(req->n_timeseries, SERIES);
	for (i = 0; i < SERIES; i++) {
		Prometheus__TimeSeries *ts = req->timeseries[i];

		snprintf(name, sizeof name, "reveal_metric_%zu", i);
		snprintf(inst, sizeof inst, "host-%zu:9100", i % 97);
		assert_int_equal(ts->n_labels, 3);
		assert_label(ts->labels[0], "__name__", name);
		assert_label(ts->labels[1], "instance", inst);
		assert_int_equal(strlen(ts->labels[2]->value), i % 200 + 1);
		assert_int_equal(ts->labels[2]->value[0], 'a' + (int)(i % 26));
		assert_int_equal(ts->n_samples, PER);
		for (j = 0; j < PER; j++) {
			assert_true(ts->samples[j]->value == (double)(i * PER + j) * 0.25);
			assert_int_equal(ts->samples[j]->timestamp, 1700000000000 + (int64_t)j * 1000);
		}
	}
	prometheus__write_request__free_unpacked(req, NULL);
	rv_rw_free(w);
}

/* One output buffer for successive requests; a buffer too small. */
static void test_reuse(void **state)
{
	const struct rv_rw_label a[] = { { "__name__", "first" }, { "x", "1" } };
	const struct rv_rw_label b[] = { { "__name__", "second" } };
	const struct rv_rw_sample s[] = { { 1, 10 }, { 2, 20 } };
	struct rv_err err = { 0 };
	struct rv_rw *w = new_rw(NULL);
	size_t cap = rv_rw_out_max(w), len;
	char small[8];
	void *out = malloc(cap);
	Prometheus__WriteRequest *req;
	int round;

	(void)state;
	assert_non_null(out);
	req = roundtrip_in(w, out, cap);   /* empty request: no series */
	assert_int_equal(req->n_timeseries, 0);
	prometheus__write_request__free_unpacked(req, NULL);
	for (round = 0; round < 3; round++) {
		rv_rw_reset(w);
		assert_int_equal(rv_rw_add(w, a, N(a), s, 2, &err), 0);
		req = roundtrip_in(w, out, cap);
		assert_int_equal(req->n_timeseries, 1);
		assert_label(req->timeseries[0]->labels[0], "__name__", "first");
		prometheus__write_request__free_unpacked(req, NULL);
		rv_rw_reset(w);
		assert_int_equal(rv_rw_nseries(w), 0);
		assert_int_equal(rv_rw_add(w, b, N(b), s + 1, 1, &err), 0);
		req = roundtrip_in(w, out, cap);
		assert_int_equal(req->n_timeseries, 1);
		assert_int_equal(req->timeseries[0]->n_labels, 1);
		assert_label(req->timeseries[0]->labels[0], "__name__", "second");
		assert_int_equal(req->timeseries[0]->n_samples, 1);
		assert_int_equal(req->timeseries[0]->samples[0]->timestamp, 20);
		prometheus__write_request__free_unpacked(req, NULL);
	}
	assert_int_equal(rv_rw_encode(w, small, sizeof small, &len, &err), -ENOSPC);
	assert_int_equal(len, 0);
	assert_non_null(strstr(err.msg, "an output buffer of 8 bytes is too small"));
	free(out);
	rv_rw_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_labels_refused),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
