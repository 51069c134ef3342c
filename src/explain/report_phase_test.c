/*
 * report_phase_test.c - the phases of a cascade in the report renderers
 * (report.h): a crafted pair, incident 12 (cpu) followed by incident 13
 * (net, phase 2, 4 s later), and a lone incident 14 beside them.
 *
 * Every format must name the link on both sides of the pair, beside the
 * chain (text and markdown sentences, HTML paragraphs with links to the
 * other card, markdown links to an anchor), nothing on the lone incident,
 * and the JSON fields phase, follows and followed_by on all three (in
 * summary mode too). When the report leaves out the linked incident (a
 * filter) the line still names its id, without a link. Text from the
 * caller in these lines is escaped like any other. Incident 14's likely
 * cause is an undecided rule: every format names the causes that remain
 * and what would decide. The rest of the renderers is covered by
 * report_test.c.
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
#include "explain/report_int.h"

#define T0 1764583200.0  /* 2025-12-01T10:00:00Z */

static const struct rv_report_subsys subs_cpu[] = { { "cpu", 0.9 }, { "net", 0.1 } };
static const struct rv_report_subsys subs_net[] = { { "net", 1.0 } };
static const struct rv_report_step chain_12[] = {
	{ "cpu.busy_pct", "cpu", 1, T0 },
	{ "net.tcp_retrans_segs", "net", 1, T0 + 1.5 },
};
static const struct rv_report_link follows_12[] = { { 13, "net", 4.0, 1 } };
static const struct rv_report_cause undecided_14[] = {
	{ .id = "cpu-bound-undecided", .title = "New CPU-bound work", .subsystem = "cpu",
	  .confidence = 0.7, .cause = "Busy in user mode.", .fix = "",
	  .undecided = "cache-thrash, memory-bandwidth-saturation",
	  .decided_by = "IPC & LLC misses", .measured = 1, .measured_first = 24,
	  .measured_right = 23 },
};

/* 12 (cpu, with a chain) -> 13 (net, phase 2, no chain); 14 alone, with a
 * chain of its own. */
static struct rv_report_incident incs[3];

static void make_incidents(void)
{
	memset(incs, 0, sizeof(incs));
	incs[0] = (struct rv_report_incident){
		.id = 12, .host = "h", .start_ts = T0, .end_ts = T0 + 20, .windows = 20,
		.peak_score = 6, .mean_score = 3, .severity = "critical", .nsubsys = 2,
		.subsys = subs_cpu, .nchain = 2, .chain = chain_12, .note = "", .phase = 1,
		.nfollowers = 1, .followers = follows_12,
	};
	incs[1] = (struct rv_report_incident){
		.id = 13, .host = "h", .start_ts = T0 + 4, .end_ts = T0 + 40, .windows = 30,
		.peak_score = 3, .mean_score = 2, .severity = "major", .nsubsys = 1,
		.subsys = subs_net, .note = "", .phase = 2, .follows = 12,
		.follows_subsystem = "cpu", .follows_shown = 1,
	};
	incs[2] = (struct rv_report_incident){
		.id = 14, .host = "h", .start_ts = T0 + 600, .end_ts = T0 + 610, .windows = 10,
		.peak_score = 2.5, .mean_score = 2, .severity = "major", .nsubsys = 2,
		.subsys = subs_cpu, .nchain = 2, .chain = chain_12, .note = "",
		.ncauses = 1, .causes = undecided_14,
	};
}

static struct rv_report report_of(struct rv_report_incident *in, size_t n)
{
	return (struct rv_report){ .title = "reveal incident report", .source = "test",
				   .generated_ts = T0 + 3600, .nincidents = n, .incidents = in,
				   .nrules = 3 };
}

static char *render(const struct rv_report *r, enum rv_report_format fmt, int summary)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rv_report_write(f, r, fmt, summary), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("missing \"%s\" in:\n%s", needle, hay);
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("unexpected \"%s\" in:\n%s", needle, hay);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A copy of the part of s from `from` up to the next `next` after it (or
 * the end): one incident's section. */
static char *section(const char *s, const char *from, const char *next)
{
	const char *a = strstr(s, from);
	if (!a)
		fail_msg("no \"%s\"", from);
	const char *b = strstr(a + strlen(from), next);
	char *out = strndup(a, b ? (size_t)(b - a) : strlen(a));
	assert_non_null(out);
	return out;
}

/* A copy of text s with its wrapped lines joined ("\n  " -> " "). */
static char *unwrap(const char *s)
{
	char *out = strdup(s), *w = out;
	assert_non_null(out);
	for (const char *p = s; *p;) {
		if (strncmp(p, "\n  ", 3) == 0) {
			*w++ = ' ';
			p += 3;
		} else {
			*w++ = *p++;
		}
	}
	*w = '\0';
	return out;
}

/* p comes after q in s (both must be there). */
static void assert_after(const char *s, const char *q, const char *p)
{
	const char *a = strstr(s, q), *b = strstr(s, p);
	if (!a || !b || b < a)
		fail_msg("\"%s\" is not after \"%s\" in:\n%s", p, q, s);
}

static void test_text(void **state)
{
	(void)state;
	struct rv_report r = report_of(incs, 3);
	char *t = render(&r, RV_REPORT_TEXT, 0);
	char *s12 = section(t, "INCIDENT 12 ", "INCIDENT ");
	char *s13 = section(t, "INCIDENT 13 ", "INCIDENT ");
	char *s14 = section(t, "INCIDENT 14 ", "INCIDENT ");

	assert_has(s12, "\n  Followed by incident 13 (net, 4.0 s after it began).\n");
	assert_after(s12, "cpu.busy_pct up (+0.0 s) -> net.tcp_retrans_segs up", "Followed by");
	assert_lacks(s12, "Follow-on");
	/* no chain of its own: the section is there for the phase */
	assert_has(s13, "\nChain\n  Follow-on phase 2 of incident 12 (cpu).\n");
	assert_lacks(s13, "Followed by");
	assert_has(s14, "Chain (first mover");
	assert_lacks(s14, "Follow");
	free(s12);
	free(s13);
	free(s14);
	free(t);
}

static void test_markdown(void **state)
{
	(void)state;
	struct rv_report r = report_of(incs, 3);
	char *m = render(&r, RV_REPORT_MARKDOWN, 0);
	char *s12 = section(m, "<a id=\"incident-12\"></a>", "## Incident 13");
	char *s13 = section(m, "<a id=\"incident-13\"></a>", "## Incident 14");
	char *s14 = section(m, "## Incident 14", "## Incident ");

	/* the anchors stand before the headings */
	assert_has(m, "\n<a id=\"incident-12\"></a>\n\n## Incident 12: critical, cpu\n");
	assert_has(m, "\n<a id=\"incident-13\"></a>\n\n## Incident 13: major, net\n");
	assert_has(s12, "\nFollowed by [incident 13](#incident-13) (net, 4.0 s after it began).\n");
	assert_after(s12, "### Chain", "Followed by");
	assert_has(s13, "### Chain\n\nFollow-on phase 2 of [incident 12](#incident-12) (cpu).\n");
	assert_lacks(s14, "Follow");
	assert_lacks(m, "incident-14");
	free(s12);
	free(s13);
	free(s14);
	free(m);
}

static void test_html(void **state)
{
	(void)state;
	struct rv_report r = report_of(incs, 3);
	char *h = render(&r, RV_REPORT_HTML, 0);
	char *c12 = section(h, "id=\"incident-12\"", "</section>");
	char *c13 = section(h, "id=\"incident-13\"", "</section>");
	char *c14 = section(h, "id=\"incident-14\"", "</section>");

	assert_has(c12, "<p class=\"phase\">Followed by <a href=\"#incident-13\">incident 13</a> "
		   "(net, 4.0 s after it began).</p>");
	assert_after(c12, "<ol class=\"chain\">", "<p class=\"phase\">");
	assert_has(c13, "<h3>Chain</h3>\n<p class=\"phase\">Follow-on phase 2 of "
		   "<a href=\"#incident-12\">incident 12</a> (cpu).</p>");
	assert_lacks(c14, "class=\"phase\"");
	/* every link has its target on the page, nothing leaves it */
	assert_int_equal(count(h, "href=\""), count(h, "href=\"#incident-"));
	assert_lacks(h, "http");
	free(c12);
	free(c13);
	free(c14);
	free(h);
}

static void test_json(void **state)
{
	(void)state;
	struct rv_report r = report_of(incs, 3);
	for (int summary = 0; summary <= 1; summary++) {
		char *j = render(&r, RV_REPORT_JSON, summary);
		assert_has(j, "\"phase\":1,\"follows\":null,\"followed_by\":[13]");
		assert_has(j, "\"phase\":2,\"follows\":12,\"followed_by\":[]");
		/* the lone one: phase 0 given, 1 shown */
		assert_int_equal(count(j, "\"phase\":1,\"follows\":null,\"followed_by\":[]"), 1);
		assert_int_equal(count(j, "\"phase\":"), 3);
		free(j);
	}
}

/* The lone incident alone: no link anywhere, in any format. */
static void test_lone(void **state)
{
	(void)state;
	struct rv_report r = report_of(&incs[2], 1);
	char *t = render(&r, RV_REPORT_TEXT, 0);
	assert_lacks(t, "Follow");
	assert_lacks(t, "phase");
	free(t);
	char *m = render(&r, RV_REPORT_MARKDOWN, 0);
	assert_lacks(m, "Follow");
	assert_lacks(m, "phase");
	assert_lacks(m, "<a id=");
	free(m);
	char *h = render(&r, RV_REPORT_HTML, 0);
	assert_lacks(h, "Follow");
	assert_lacks(h, "class=\"phase\"");
	free(h);
}

/* An undecided rule's causes that remain, and what decides, in every
 * format; a decided rule (incidents 12 and 13 have none) shows neither. */
static void test_undecided_cause(void **state)
{
	(void)state;
	struct rv_report r = report_of(incs, 3);
	char *t = render(&r, RV_REPORT_TEXT, 0);
	assert_has(t, "     Undecided between: cache-thrash, memory-bandwidth-saturation\n"
		   "     What decides: IPC & LLC misses\n");
	assert_int_equal(count(t, "Undecided between:"), 1);
	assert_has(t, "     Calibrated: first in 24 recorded live incidents, right in 23\n");
	assert_int_equal(count(t, "Calibrated:"), 1);
	free(t);
	char *m = render(&r, RV_REPORT_MARKDOWN, 0);
	assert_has(m, "   **Undecided between:** cache-thrash, memory-bandwidth-saturation\n\n"
		   "   **What decides:** IPC &amp; LLC misses\n");
	assert_has(m, "   **Calibrated:** first in 24 recorded live incidents, right in 23\n");
	free(m);
	char *h = render(&r, RV_REPORT_HTML, 0);
	assert_has(h, "<p class=\"undecided\"><b>Undecided between:</b> cache-thrash, "
		   "memory-bandwidth-saturation</p>\n<p><b>What decides:</b> IPC &amp; LLC "
		   "misses</p>\n");
	assert_has(h, "<p class=\"calibrated\"><b>Calibrated:</b> first in 24 recorded live "
		   "incidents, right in 23</p>\n");
	free(h);
	char *j = render(&r, RV_REPORT_JSON, 0);
	assert_has(j, "\"undecided\":\"cache-thrash, memory-bandwidth-saturation\","
		   "\"decided_by\":\"IPC & LLC misses\"");
	assert_int_equal(count(j, "\"undecided\""), 1);
	assert_has(j, "\"measured\":{\"first\":24,\"right\":23}");
	free(j);
}

/* A filter kept only the follow-on: its line names incident 12 without a
 * link (there is no card or anchor to point at); the subsystem is known
 * from the report's data all the same. */
static void test_linked_incident_filtered_out(void **state)
{
	(void)state;
	struct rv_report_incident in = incs[1];
	in.follows_shown = 0;
	struct rv_report r = report_of(&in, 1);
	char *t = render(&r, RV_REPORT_TEXT, 0);
	assert_has(t, "Follow-on phase 2 of incident 12 (cpu).");
	free(t);
	char *m = render(&r, RV_REPORT_MARKDOWN, 0);
	assert_has(m, "\nFollow-on phase 2 of incident 12 (cpu).\n");
	assert_lacks(m, "](#incident-12)");
	free(m);
	char *h = render(&r, RV_REPORT_HTML, 0);
	assert_has(h, "<p class=\"phase\">Follow-on phase 2 of incident 12 (cpu).</p>");
	assert_lacks(h, "href=\"#incident-12\"");
	free(h);

	/* the predecessor alone, its follower filtered out and of no known
	 * subsystem or time: the id, nothing else */
	struct rv_report_link gone = { 13, NULL, NAN, 0 };
	struct rv_report_incident p = incs[0];
	p.followers = &gone;
	r = report_of(&p, 1);
	t = render(&r, RV_REPORT_TEXT, 0);
	assert_has(t, "  Followed by incident 13.\n");
	free(t);
	h = render(&r, RV_REPORT_HTML, 0);
	assert_has(h, "<p class=\"phase\">Followed by incident 13.</p>");
	assert_lacks(h, "href=\"#incident-13\"");
	free(h);
}

/* Several followers in one sentence, a hostile subsystem name escaped,
 * the text kept within its width. */
static void test_many_and_escaping(void **state)
{
	(void)state;
	enum { N = 12 };
	struct rv_report_link many[N];
	for (size_t i = 0; i < N; i++)
		many[i] = (struct rv_report_link){ 100 + i, "storage", 65.0 * (double)i, 0 };
	many[0].subsystem = "<b>|*x*";
	struct rv_report_incident in = incs[0];
	in.followers = many;
	in.nfollowers = N;
	in.follows = 7;
	in.phase = 3;
	in.follows_subsystem = "a<b";
	struct rv_report r = report_of(&in, 1);

	char *t = render(&r, RV_REPORT_TEXT, 0), *u = unwrap(t);
	assert_has(t, "  Follow-on phase 3 of incident 7 (a<b).\n");
	assert_has(u, " Followed by incident 100 (<b>|*x*, 0.0 s after it began), incident 101 "
		   "(storage, 1m 05s after it began),");
	assert_has(u, "incident 111 (storage, 11m 55s after it began).\n");
	free(u);
	for (const char *line = t; *line;) {
		size_t len = strcspn(line, "\n");
		if (len > RV_REPORT_WIDTH)
			fail_msg("line wider than %d: %.*s", RV_REPORT_WIDTH, (int)len, line);
		line += len + (line[len] == '\n');
	}
	free(t);
	char *m = render(&r, RV_REPORT_MARKDOWN, 0);
	assert_has(m, "Follow-on phase 3 of incident 7 (a&lt;b).");
	assert_has(m, "Followed by incident 100 (&lt;b&gt;\\|\\*x\\*, 0.0 s after it began), "
		   "incident 101");
	free(m);
	char *h = render(&r, RV_REPORT_HTML, 0);
	assert_has(h, "Follow-on phase 3 of incident 7 (a&lt;b).</p>");
	assert_has(h, "(&lt;b&gt;|*x*, 0.0 s after it began)");
	assert_lacks(h, "<b>|");
	free(h);
	char *j = render(&r, RV_REPORT_JSON, 0);
	assert_has(j, "\"phase\":3,\"follows\":7,\"followed_by\":[100,101,102,103,104,105,106,"
		   "107,108,109,110,111]");
	free(j);
}

int main(void)
{
	make_incidents();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_lone),
		cmocka_unit_test(test_undecided_cause),
		cmocka_unit_test(test_linked_incident_filtered_out),
		cmocka_unit_test(test_many_and_escaping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
