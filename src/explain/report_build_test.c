/*
 * report_build_test.c - the library side of `reveal report`: an incidents
 * file's object read (and refused with FILE:LINE), the filters, the head of
 * a report incident, the store's subsystem ranking, an incident outside
 * the data explained with a note instead of evidence, and whose workload:
 * the consumers in every format and "{consumer}" in a cause rewritten.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "explain/report_build.h"

static const char FILE_TEXT[] =
	"{\"window\": 5, \"incidents\": [\n"
	" {\"id\": 3, \"start\": 100, \"end\": 110, \"windows\": 4, \"peak_score\": 3.5,\n"
	"  \"mean_score\": 2, \"subsystem\": \"mem\", \"detectors\": [\"pca\", \"spe\"],\n"
	"  \"top_metrics\": [{\"name\": \"mem.used_bytes\", \"share\": 0.75},\n"
	"                  {\"name\": \"cpu.util\", \"share\": 0.25}],\n"
	"  \"phase\": 2, \"follows\": 1},\n"
	" {\"id\": 4, \"start\": 120, \"end\": 110}\n"
	"]}\n";

static const struct rv_json *incidents(struct rv_json_doc **doc)
{
	assert_int_equal(rv_json_parse(FILE_TEXT, strlen(FILE_TEXT), "inc.json", doc, NULL), 0);
	return rv_json_get(rv_json_root(*doc), "incidents");
}

static void test_in_from_json(void **state)
{
	struct rv_json_doc *doc = NULL;
	const struct rv_json *arr = incidents(&doc);
	struct rv_report_in in;
	struct rv_err err;

	(void)state;
	rv_err_clear(&err);
	assert_int_equal(rv_report_in_from_json(rv_json_at(arr, 0), "inc.json", &in, &err), 0);
	assert_int_equal(in.id, 3);
	assert_int_equal(in.ntop, 2);
	assert_string_equal(in.top[0], "mem.used_bytes");
	assert_int_equal(in.ndet_names, 2);
	assert_int_equal(in.phase, 2);
	assert_int_equal(in.follows, 1);
	assert_int_equal(in.nsub, 2);
	assert_string_equal(in.sub[0].name, "mem");
	assert_true(fabs(in.sub[0].share - 0.75) < 1e-12);
	assert_int_equal(rv_report_in_from_json(rv_json_at(arr, 1), "inc.json", &in, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "inc.json:7: an incident needs an id and finite start <= end");
	rv_json_doc_free(doc);
}

static void test_passes(void **state)
{
	struct rv_report_in in = { .id = 3, .start_ts = 100, .end_ts = 110, .peak = 3.5, .nsub = 2,
				   .sub = { { "mem", 0.75 }, { "cpu", 0.25 } } };
	struct rv_report_filter f = { .since = -INFINITY, .until = INFINITY, .subsystem = -1 };

	(void)state;
	assert_true(rv_report_passes(&f, &in));
	f.min_sev = RV_SEV_CRITICAL;
	assert_false(rv_report_passes(&f, &in));   /* 3.5 is major */
	f.min_sev = RV_SEV_MAJOR;
	assert_true(rv_report_passes(&f, &in));
	f.subsystem = RV_SUB_CPU;                  /* 25 %: enough */
	assert_true(rv_report_passes(&f, &in));
	f.subsystem = RV_SUB_NET;
	assert_false(rv_report_passes(&f, &in));
	f.subsystem = -1;
	f.since = 111;
	assert_false(rv_report_passes(&f, &in));
	f.since = 110;
	f.id = 4;
	assert_false(rv_report_passes(&f, &in));
}

static void test_head_and_subsystems(void **state)
{
	struct rv_pool pl = { 0 };
	struct rv_report_in in = { .id = 9, .host = "h", .peak = 6, .ndet_names = 2,
				    .det_name = { "zscore", "iforest" } };
	struct rv_report_incident r;

	(void)state;
	rv_report_parse_subsystems("cpu:0.712,bogus:0.1,mem:0.204,net:", &in);
	assert_int_equal(in.nsub, 2);
	assert_string_equal(in.sub[1].name, "mem");
	rv_report_fill_head(&pl, &r, &in);
	assert_string_equal(r.severity, "critical");
	assert_int_equal(r.ndetectors, 2);
	assert_string_equal(r.detectors[0], "zscore");
	assert_string_equal(r.detectors[1], "iforest");
	assert_int_equal(r.nsubsys, 2);
	assert_string_equal(r.host, "h");
	assert_int_equal(rv_report_sub_index("storage"), RV_SUB_STORAGE);
	assert_int_equal(rv_report_sub_index("disk"), RV_SUB_OTHER);
	assert_false(pl.oom);
	rv_pool_free(&pl);
}

static float no_value(const void *ctx, size_t row, size_t chan)
{
	(void)ctx;
	(void)row;
	(void)chan;
	return NAN;
}

/* Data that ends before the incident: its head, its top signals and a
 * note; the phases linked over the whole file. */
static void test_offline_outside_data(void **state)
{
	static const double ts[] = { 0, 1, 2 };
	static const char *const names[] = { "cpu.util" };
	const struct rv_ev_source src = { .nrows = 3, .nchan = 1, .ts = ts, .names = names,
					  .get = no_value };
	struct rv_details_opts o = rv_details_defaults(5);
	struct rv_report_filter f = { .since = -INFINITY, .until = INFINITY, .subsystem = -1 };
	struct rv_json_doc *doc = NULL;
	struct rv_pool pl = { 0 };
	struct rv_report rep = { 0 };
	struct rv_err err;
	const struct rv_json *arr = incidents(&doc);

	(void)state;
	rv_err_clear(&err);
	/* the second object is refused, with its line */
	assert_int_equal(rv_report_offline_incidents(&pl, &f, "inc.json", NULL, &src, &o, arr,
						     &rep, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "inc.json:7:"));
	rv_json_doc_free(doc);
	/* the first alone: outside the data, so a note and no evidence */
	memset(&rep, 0, sizeof(rep));
	doc = NULL;
	{
		static const char one[] = "{\"incidents\": [{\"id\": 3, \"start\": 100, \"end\": 110,"
					  " \"top_metrics\": [{\"name\": \"cpu.util\", \"share\": 1}]}]}";
		assert_int_equal(rv_json_parse(one, strlen(one), "one.json", &doc, NULL), 0);
	}
	arr = rv_json_get(rv_json_root(doc), "incidents");
	assert_int_equal(rv_report_offline_incidents(&pl, &f, "one.json", NULL, &src, &o, arr,
						     &rep, &err), 0);
	assert_int_equal(rep.nincidents, 1);
	assert_int_equal(rep.incidents[0].ncauses, 0);
	assert_int_equal(rep.incidents[0].nsignals, 1);
	assert_non_null(strstr(rep.incidents[0].note, "does not cover this incident"));
	rv_json_doc_free(doc);
	rv_pool_free(&pl);
}

static char *render(const struct rv_report *r, enum rv_report_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(rv_report_write(f, r, fmt, 0), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_consumers(void **state)
{
	static const char *const fmt_has[] = {
		"Whose workload:", "### Whose workload", "\"consumers\":[{\"kind\":\"process\"",
		"<h3>Whose workload</h3>",
	};
	struct rv_pool pl = { 0 };
	struct rv_report_cause cause = { .id = "cpu-contention", .title = "CPU contention",
					 .confidence = 0.8, .fix = "Move {consumer} away.",
					 .cause = "Tasks wait. Top: {consumer}; again {consumer}." };
	struct rv_report_consumer c[2] = {
		{ .text = "pid 4242 stress-ng in foo.service took 1.90 cores (61 %)", .pid = 4242,
		  .comm = "stress-ng", .cgroup = "/system.slice/foo.service", .unit = "foo.service",
		  .resource = "cpu", .amount = 1.9, .before = NAN, .share = 0.61,
		  .pressure = NAN, .measured_ts = 1000 },
		{ .text = "cgroup foo.service took 2.00 cores (70 %), 0.10 before", .is_cgroup = 1,
		  .cgroup = "/system.slice/foo.service", .label = "foo.service", .resource = "cpu",
		  .amount = 2, .before = 0.1, .share = 0.7, .pressure = 3.5, .measured_ts = 1000 },
	};
	struct rv_report_incident in = { .id = 9, .start_ts = 990, .end_ts = 1010,
					 .severity = "major", .ncauses = 1, .causes = &cause };
	struct rv_report r = { .title = "t", .source = "s", .filters = "", .nincidents = 1,
			       .incidents = &in };

	(void)state;
	rv_report_set_consumers(&pl, &in, c, 2);
	assert_int_equal(in.nconsumers, 2);
	assert_string_equal(cause.cause, "Tasks wait. Top: pid 4242 stress-ng in foo.service took"
			    " 1.90 cores (61 %); again pid 4242 stress-ng in foo.service took"
			    " 1.90 cores (61 %).");
	assert_string_equal(cause.fix, "Move pid 4242 stress-ng in foo.service took 1.90 cores"
			    " (61 %) away.");
	for (int f = 0; f < 4; f++) {
		char *out = render(&r, (enum rv_report_format)f);

		if (!strstr(out, fmt_has[f]) || !strstr(out, "stress-ng"))
			fail_msg("format %d lacks the consumers:\n%s", f, out);
		if (f == RV_REPORT_JSON && (!strstr(out, "\"pid\":4242") ||
					    !strstr(out, "\"pid\":null,\"comm\":null") ||
					    !strstr(out, "\"before\":0.1")))
			fail_msg("JSON consumers:\n%s", out);
		free(out);
	}
	/* none measured: said so where a rule asks */
	cause.cause = "Top: {consumer}.";
	rv_report_set_consumers(&pl, &in, NULL, 0);
	assert_string_equal(cause.cause, "Top: no consumer was measured.");
	assert_int_equal(in.nconsumers, 0);
	rv_pool_free(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_from_json),
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_head_and_subsystems),
		cmocka_unit_test(test_offline_outside_data),
		cmocka_unit_test(test_consumers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
