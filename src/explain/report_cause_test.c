/*
 * report_cause_test.c - what the reports say of an incident's likely
 * cause beyond the causes themselves (report.h), in text, markdown, JSON
 * and HTML:
 *   - a cause decided on the incident's onset says so, and one the whole
 *     incident's evidence no longer shows says that too;
 *   - the rules of other subsystems that fired are listed apart, as what
 *     was seen as well, never as a cause;
 *   - with no cause, the incident's subsystem is named ("No storage
 *     rule ...") with the rules of that subsystem that came closest and
 *     what each lacked or what excluded it.
 * The built report (report_build.c) puts these together from the
 * knowledge base: the same cases through rv_report_fill_explained.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/report.h"
#include "explain/report_build.h"
#include "explain/report_int.h"
#include "explain/kb_testutil.h"

#define T0 1764583200.0  /* 2025-12-01T10:00:00Z */

static const struct rv_report_subsys net[] = { { "net", 0.9 }, { "cpu", 0.1 } };
static const struct rv_report_subsys storage[] = { { "storage", 1.0 } };
static const char *const ev_a[] = { "net.tcp_retrans_segs up: 1/s -> 90/s (z 40)" };
static const struct rv_report_cause causes_a[] = {
	{ .id = "packet-loss", .title = "Packet loss on the network path", .subsystem = "net",
	  .confidence = 0.82, .cause = "Segments are lost.", .nevidence = 1, .evidence = ev_a,
	  .onset = 1 },
	{ .id = "bandwidth-throttle", .title = "Traffic queued and dropped at a local qdisc",
	  .subsystem = "net", .confidence = 0.41, .cause = "A qdisc drops.", .onset = 1,
	  .onset_only = 1 },
	{ .id = "irq-imbalance", .title = "Interrupts on one CPU", .subsystem = "net",
	  .confidence = 0.3, .cause = "One CPU." },
};
static const struct rv_report_note notes_a[] = {
	{ "cpu-contention", "CPU contention or a noisy neighbour", "cpu", 0.61 },
};
static const struct rv_report_near near_b[] = {
	{ "metadata-storm", "File-system metadata storm", 1, 2,
	  "storage.dentries* up, change >= 5 %", NULL },
	{ "disk-saturation-writeback", "Disk saturated by a write storm", 1, 2, NULL,
	  "mem.pswpout up" },
};
static const struct rv_report_incident incs[] = {
	{ .id = 1, .host = "n1", .start_ts = T0, .end_ts = T0 + 40, .windows = 40,
	  .peak_score = 3, .mean_score = 2, .severity = "major", .nsubsys = 2, .subsys = net,
	  .ncauses = 3, .causes = causes_a, .nnotes = 1, .notes = notes_a, .note = "" },
	{ .id = 2, .host = "n1", .start_ts = T0 + 100, .end_ts = T0 + 140, .windows = 40,
	  .peak_score = 3, .mean_score = 2, .severity = "major", .nsubsys = 1, .subsys = storage,
	  .nnotes = 1, .notes = notes_a, .nnear = 2, .near = near_b, .note = "" },
};
static const struct rv_report report = {
	.title = "t", .source = "s", .filters = "", .generated_ts = T0, .nincidents = 2,
	.incidents = incs, .nrules = 30,
};

static char *render(enum rv_report_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(rv_report_write(f, &report, fmt, 0), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("missing \"%s\" in:\n%s", needle, hay);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_text(void **state)
{
	char *t = render(RV_REPORT_TEXT);

	(void)state;
	has(t, "  1. Packet loss on the network path [packet-loss, net], confidence 82 %, decided "
	       "at the onset\n");
	has(t, "[bandwidth-throttle, net], confidence 41 %, decided\n     at the onset\n"
	       "     Decided when the incident began (its onset);");
	assert_int_equal(count(t, "Decided when the incident began"), 1);
	has(t, "  3. Interrupts on one CPU [irq-imbalance, net], confidence 30 %\n");
	assert_int_equal(count(t, ", decided"), 2);
	has(t, "  Also seen (other subsystems' rules, not the cause of this incident):\n"
	       "    - CPU contention or a noisy neighbour [cpu-contention, cpu], confidence 61 %\n");
	/* no cause: the subsystem named, the closest rules and what they lacked */
	has(t, "No storage rule of the knowledge base (30 rules) matched this incident.");
	has(t, "  Closest rules, and what they lacked:\n    - File-system metadata storm "
	       "[metadata-storm]: 1 of 2 required signals held; lacks\n      storage.dentries* "
	       "up, change >= 5 %\n");
	has(t, "[disk-saturation-writeback]: 1 of 2 required signals held;\n      excluded by "
	       "mem.pswpout up\n");
	assert_int_equal(count(t, "Also seen"), 2);
	free(t);
}

static void test_markdown(void **state)
{
	char *m = render(RV_REPORT_MARKDOWN);

	(void)state;
	has(m, "confidence 82 %, decided at the onset\n");
	has(m, "\n   " RV_REPORT_ONSET_ONLY "\n");
	has(m, "Also seen (other subsystems' rules, not the cause of this incident):\n\n"
	       "- CPU contention or a noisy neighbour \\[cpu-contention, cpu\\], confidence 61 %\n");
	has(m, "No storage rule of the knowledge base (30 rules) matched this incident.");
	has(m, "Closest rules, and what they lacked:\n\n- File-system metadata storm "
	       "\\[metadata-storm\\]: 1 of 2 required signals held; lacks storage.dentries\\* up");
	free(m);
}

static void test_json(void **state)
{
	char *j = render(RV_REPORT_JSON);

	(void)state;
	has(j, "\"confidence\":0.82,\"onset\":true,\"cause\":");
	has(j, "\"confidence\":0.41,\"onset\":true,\"onset_only\":true,\"cause\":");
	has(j, "\"confidence\":0.3,\"onset\":false,\"cause\":");
	has(j, "\"notes\":[{\"id\":\"cpu-contention\",\"title\":\"CPU contention or a noisy "
	       "neighbour\",\"subsystem\":\"cpu\",\"confidence\":0.61}],\"near\":[],");
	has(j, "\"causes\":[],\"notes\":[{");
	has(j, "\"near\":[{\"id\":\"metadata-storm\",\"title\":\"File-system metadata storm\","
	       "\"held\":1,\"required\":2,\"missing\":\"storage.dentries* up, change >= 5 %\","
	       "\"excluded_by\":null},{\"id\":\"disk-saturation-writeback\"");
	has(j, "\"missing\":null,\"excluded_by\":\"mem.pswpout up\"}]");
	free(j);
}

static void test_html(void **state)
{
	char *h = render(RV_REPORT_HTML);

	(void)state;
	has(h, "confidence 82 %, decided at the onset</span>");
	has(h, "<p class=\"onset\">" RV_REPORT_ONSET_ONLY "</p>");
	has(h, "<ul class=\"notes\">\n<li>CPU contention or a noisy neighbour [cpu-contention, "
	       "cpu], confidence 61 %</li>");
	has(h, "<p class=\"nomatch\">No storage rule of the knowledge base");
	has(h, "<ul class=\"near\">\n<li>File-system metadata storm [metadata-storm]: 1 of 2 "
	       "required signals held; lacks storage.dentries* up, change &gt;= 5 %</li>");
	free(h);
}

/* The builder: matches split by the incident's subsystem, the onset's
 * causes first (one not matched now from the rule alone), and the
 * nearest rules when none of the subsystem matched. */
static void test_build(void **state)
{
	struct rv_kb *kb = load_ok(
		"- id: net-a\n  title: A\n  cause: a\n  subsystem: net\n"
		"  require: [{signal: x, dir: up}]\n"
		"- id: net-b\n  title: B\n  cause: b\n  subsystem: net\n"
		"  require: [{signal: y, dir: up}]\n"
		"- id: cpu-c\n  title: C\n  cause: c\n  subsystem: cpu\n"
		"  require: [{signal: x, dir: up}]\n"
		"- id: net-d\n  title: D\n  cause: d\n  subsystem: net\n"
		"  require: [{signal: x, dir: up}, {signal: z, dir: up}]\n");
	struct rv_evidence_sig s[] = { sig("x", 9), sig("y", 0), sig("z", 0) };
	struct rv_evidence ev = { .n = 3, .sig = s, .start_ts = 0, .end_ts = 1 };
	struct rv_kb_match m[RV_KB_MATCH_MAX];
	size_t n = rv_kb_match(kb, &ev, 0, m, RV_KB_MATCH_MAX);
	struct rv_report_in in = { .id = 7, .nsub = 1 };
	struct rv_report_onset onset[] = { { "net-b", 0.77 } };
	struct rv_report_incident r;
	struct rv_pool pool = { 0 }, *pl = &pool;

	(void)state;
	assert_int_equal(n, 2);   /* net-a, cpu-c */
	in.sub[0] = (struct rv_report_subsys){ "net", 1.0 };
	memset(&r, 0, sizeof(r));
	rv_report_fill_explained(pl, &r, &in, &ev, kb, m, n, onset, 1);
	assert_int_equal(r.ncauses, 2);
	assert_string_equal(r.causes[0].id, "net-b");
	assert_true(r.causes[0].onset && r.causes[0].onset_only && r.causes[0].confidence == 0.77);
	assert_string_equal(r.causes[1].id, "net-a");
	assert_true(!r.causes[1].onset && !r.causes[1].onset_only);
	assert_int_equal(r.nnotes, 1);
	assert_string_equal(r.notes[0].id, "cpu-c");
	assert_int_equal(r.nnear, 0);
	/* as a storage incident: no cause, both notes; no storage rule near */
	in.sub[0] = (struct rv_report_subsys){ "storage", 1.0 };
	memset(&r, 0, sizeof(r));
	rv_report_fill_explained(pl, &r, &in, &ev, kb, m, n, NULL, 0);
	assert_int_equal(r.ncauses, 0);
	assert_int_equal(r.nnotes, 2);
	assert_int_equal(r.nnear, 0);
	/* the net rules without x: none fires; net-d and net-a came closest */
	s[0] = sig("x", 0);
	s[2] = sig("z", 9);
	n = rv_kb_match(kb, &ev, 0, m, RV_KB_MATCH_MAX);
	assert_int_equal(n, 0);
	in.sub[0] = (struct rv_report_subsys){ "net", 1.0 };
	memset(&r, 0, sizeof(r));
	rv_report_fill_explained(pl, &r, &in, &ev, kb, m, n, NULL, 0);
	assert_int_equal(r.ncauses, 0);
	assert_int_equal(r.nnear, 1);
	assert_string_equal(r.near[0].id, "net-d");
	assert_int_equal(r.near[0].held, 1);
	assert_int_equal(r.near[0].required, 2);
	assert_non_null(strstr(r.near[0].missing, "x up"));
	rv_pool_free(pl);
	rv_kb_free(kb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_build),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
