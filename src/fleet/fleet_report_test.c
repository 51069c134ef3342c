/*
 * fleet_report_test.c - the report writers of `reveal fleet` (rv_fleet_report,
 * report_int.h) in all four formats, on results built here by hand.
 *
 * A small result (one group of three, one straggler with one stretch, one
 * drift finding) is compared whole in text and markdown. A large one
 * holds what a real range can: a straggler with two stretches and three
 * signals (two plotted, with NaN gaps in the node and in the band), a
 * hostile group whose names carry quotes, "<script>", '&', non-ASCII and
 * invalid UTF-8, a drift finding with one odd node, one with two (one
 * lacking the fact), a split, a group too small to judge and an empty
 * group. Its JSON is parsed back with base/json.h and read field by
 * field; its HTML is checked for balanced tags, escaping, no script or
 * URL, SVG coordinates that are all numbers, a NaN gap that breaks the
 * node's line, and a heat map cut to 600 columns that keeps a one-window
 * spike (the max of each bucket). With RV_FLEET_HTML_OUT set the page is
 * also written there, for a look in a browser.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "fleet/fleet.h"
#include "fleet/report_int.h"

#define T0 1772377200.0   /* 2026-03-01T15:00:00Z */
#define NWIN 1200          /* 3 s windows: one hour */
#define STEP 3.0
#define EVIL_NODE "b\"<script>alert(1)</script>"
#define EVIL_GROUP "rack-<b>&\"\xC3\xA9\"\xFF"

/* r in format fmt, as a string to free. */
static char *render(const struct rv_fleet_result *r, enum rv_fleet_format fmt)
{
	struct { char *text; size_t len; } out = { NULL, 0 };
	FILE *f = open_memstream(&out.text, &out.len);
	int rc = f ? rv_fleet_report(f, r, fmt) : -ENOMEM;
	if (!f || fclose(f) != 0 || rc != 0 || !out.text)
		fail_msg("format %d: %d", (int)fmt, rc);
	return out.text;
}

/* Occurrences of what in s (overlapping ones too). */
static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	while ((s = strstr(s, what)) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* what must be in s (present) or must not (!present). */
static void want(int present, const char *s, const char *what)
{
	if ((strstr(s, what) != NULL) != present)
		fail_msg("%s: %s", present ? "missing" : "present", what);
}
#define assert_has(s, what) want(1, (s), (what))
#define assert_lacks(s, what) want(0, (s), (what))

static const char *const small_nodes[] = { "a", "b", "c" };
static const struct rv_fleet_group small_groups[] = {
	{ .name = "g", .nnodes = 3, .node = small_nodes, .nflagged = 1 },
};
static const struct rv_fleet_stretch small_stretch[] = {
	{ .start = T0 + 190, .end = T0 + 220, .peak = 7.24 },
};
static const struct rv_fleet_signal small_sig[] = {
	{ .channel = "gpu.sm_clock_mhz", .value = 1200, .median = 1800, .z = -6.14 },
	{ .channel = "gpu.mem_used_bytes", .value = 3 * 1073741824.0, .median = 1073741824.0,
	  .z = 4.0 },
};
static const struct rv_fleet_straggler small_strag[] = {
	{ .group = "g", .node = "b", .peak = 7.24, .nstretch = 1, .stretch = small_stretch,
	  .nsig = 2, .sig = small_sig },
};
static const struct rv_fleet_odd small_odd[] = { { .node = "c", .value = "0" } };
static const struct rv_fleet_drift small_drift[] = {
	{ .group = "g", .key = "mem.hugepages_2048kb", .majority = "1024", .nmajority = 2,
	  .nnodes = 3, .nodd = 1, .odd = small_odd },
};

static struct rv_fleet_result small_result(void)
{
	return (struct rv_fleet_result){
		.url = "http://vm:8428", .selector = "job=\"train\"", .group_by = "group",
		.since = T0, .until = T0 + 600, .t0 = T0, .step = 10, .nwin = 60, .nnodes = 3,
		.nchan = 40, .threshold = 3, .persist = 5, .ngroup = 1, .group = small_groups,
		.nstrag = 1, .strag = small_strag, .ndrift = 1, .drift = small_drift,
		.requests = 12, .bytes = 1536000, .read_s = 3.4, .analyse_s = 0.8,
	};
}

static const char SMALL_TEXT[] =
	"reveal fleet report\n"
	"Range:      2026-03-01T15:00:00Z to 2026-03-01T15:10:00Z (10m 00s)\n"
	"Storage:    http://vm:8428\n"
	"Selector:   job=\"train\"\n"
	"Grouped by: group\n"
	"Groups:     1 group, 3 nodes, 40 channels read\n"
	"Windows:    60 windows of 10 s, the first at 2026-03-01T15:00:00Z\n"
	"Straggler:  persistent score above 3 for 5 windows (50 s) in a row\n"
	"Read:       12 API requests, 1.46 MiB in 3.4 s; analysis 0.8 s\n"
	"\n"
	"VERDICT: 2 findings: 1 straggler, 1 configuration drift\n"
	"  - node b is a straggler in group g (out of step 15:03:10\xE2\x80\x93" "15:03:40 UTC, "
	"40 s); gpu.sm_clock_mhz\n"
	"    1.2 k where its peers have 1.8 k\n"
	"  - node c's mem.hugepages_2048kb is 0 where 2 of 3 nodes of group g have 1024\n"
	"\n"
	"STRAGGLERS\n"
	"b in group g: peak score 7.2, 1 stretch out of step\n"
	"  out of step                                       length     peak\n"
	"  15:03:10\xE2\x80\x93" "15:03:40 UTC                               40 s      7.2\n"
	"  signal                    node       peers    difference        z\n"
	"  gpu.sm_clock_mhz         1.2 k       1.8 k         -33 %     -6.1\n"
	"  gpu.mem_used_bytes       3 GiB       1 GiB          3.0x      4.0\n"
	"\n"
	"CONFIGURATION DRIFT\n"
	"mem.hugepages_2048kb in group g: 1024 on 2 of 3 nodes\n"
	"  0: c\n"
	"\n"
	"GROUPS\n"
	"g: 3 nodes, 1 flagged\n"
	"  a, b (straggler), c\n";

static const char SMALL_MD[] =
	"# reveal fleet report\n"
	"\n"
	"- **Range:** 2026-03-01T15:00:00Z to 2026-03-01T15:10:00Z (10m 00s)\n"
	"- **Storage:** `http://vm:8428`\n"
	"- **Selector:** `job=\"train\"`\n"
	"- **Grouped by:** `group`\n"
	"- **Groups:** 1 group, 3 nodes, 40 channels read\n"
	"- **Windows:** 60 windows of 10 s, the first at 2026-03-01T15:00:00Z\n"
	"- **Straggler:** persistent score above 3 for 5 windows (50 s) in a row\n"
	"- **Read:** 12 API requests, 1.46 MiB in 3.4 s; analysis 0.8 s\n"
	"\n"
	"## Verdict: 2 findings: 1 straggler, 1 configuration drift\n"
	"\n"
	"- node `b` is a straggler in group `g` (out of step 15:03:10\xE2\x80\x93" "15:03:40 UTC, "
	"40 s); `gpu.sm_clock_mhz` 1.2 k where its peers have 1.8 k\n"
	"- node `c`'s `mem.hugepages_2048kb` is `0` where 2 of 3 nodes of group `g` have `1024`\n"
	"\n"
	"## Stragglers\n"
	"\n"
	"### `b` in group `g`\n"
	"\n"
	"Peak score 7.2, 1 stretch out of step.\n"
	"\n"
	"| out of step | length | peak |\n"
	"|---|---:|---:|\n"
	"| 15:03:10\xE2\x80\x93" "15:03:40 UTC | 40 s | 7.2 |\n"
	"\n"
	"| signal | node | peers' median | difference | z |\n"
	"|---|---:|---:|---:|---:|\n"
	"| `gpu.sm_clock_mhz` | 1.2 k | 1.8 k | -33 % | -6.1 |\n"
	"| `gpu.mem_used_bytes` | 3 GiB | 1 GiB | 3.0x | 4.0 |\n"
	"\n"
	"## Configuration drift\n"
	"\n"
	"### `mem.hugepages_2048kb` in group `g`\n"
	"\n"
	"`1024` on 2 of 3 nodes.\n"
	"\n"
	"| odd value | nodes |\n"
	"|---|---|\n"
	"| `0` | `c` |\n"
	"\n"
	"## Groups\n"
	"\n"
	"| group | nodes | flagged | members |\n"
	"|---|---:|---:|---|\n"
	"| `g` | 3 | 1 | `a`, `b` **straggler**, `c` |\n";

/* The small result, whole, in text and markdown. */
static void test_exact(void **state)
{
	(void)state;
	static const struct { enum rv_fleet_format fmt; const char *want; } cases[] = {
		{ RV_FLEET_TEXT, SMALL_TEXT },
		{ RV_FLEET_MARKDOWN, SMALL_MD },
	};
	struct rv_fleet_result r = small_result();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = render(&r, cases[i].fmt);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

/* No finding at all: said plainly in every format. */
static void test_no_finding(void **state)
{
	(void)state;
	struct rv_fleet_result r = small_result();
	r.nstrag = 0;
	r.ndrift = 0;
	r.strag = NULL;
	r.drift = NULL;
	struct rv_fleet_group g = small_groups[0];
	g.nflagged = 0;
	r.group = &g;
	char *t = render(&r, RV_FLEET_TEXT);
	assert_has(t, "\nVERDICT: no straggler, no configuration drift\n\nGROUPS\n"
		   "g: 3 nodes, 0 flagged\n  a, b, c\n");
	assert_lacks(t, "STRAGGLERS");
	assert_lacks(t, "DRIFT");
	free(t);
	char *m = render(&r, RV_FLEET_MARKDOWN);
	assert_has(m, "## Verdict: no straggler, no configuration drift\n\n\n## Groups\n");
	free(m);
	char *h = render(&r, RV_FLEET_HTML);
	assert_has(h, "<section class=\"verdict\" id=\"verdict\">\n<h2>Verdict: no straggler, no "
		   "configuration drift</h2>\n</section>\n");
	assert_lacks(h, "<svg");
	free(h);
	char *j = render(&r, RV_FLEET_JSON);
	assert_has(j, "\"verdict\":{\"findings\":0,\"stragglers\":0,\"drift\":0,\"headline\":"
		   "\"no straggler, no configuration drift\",\"sentences\":[]}");
	assert_has(j, "\"stragglers\":[]");
	free(j);

	/* a group too small to judge is named in the verdict */
	struct rv_fleet_group two[] = { g, { .name = "tiny", .nnodes = 2, .node = small_nodes } };
	r.ngroup = 2;
	r.group = two;
	r.nsmall = 1;
	t = render(&r, RV_FLEET_TEXT);
	assert_has(t, "VERDICT: no straggler, no configuration drift\n  - 1 group too small to "
		   "judge for stragglers (fewer than 3 nodes): tiny\n");
	assert_has(t, "tiny: 2 nodes, 0 flagged, too small to judge for stragglers\n");
	free(t);
}

static const char *const a_nodes[] = { "node-1", "node-2", "node-3", "node-4", "node-5" };
static const char *const b_nodes[] = { "b-1", EVIL_NODE, "b-3", "b-4" };
static const char *const c_nodes[] = { "c-1", "c-2" };
static float a_score[5 * NWIN], b_score[4 * NWIN];
static float s0_node[NWIN], s0_med[NWIN], s0_lo[NWIN], s0_hi[NWIN];
static float s1_node[NWIN], s1_med[NWIN], s1_lo[NWIN], s1_hi[NWIN];

static const struct rv_fleet_group big_groups[] = {
	{ .name = "", .nnodes = 2, .node = c_nodes },
	{ .name = "empty", .nnodes = 0 },
	{ .name = "rack-a", .nnodes = 5, .node = a_nodes, .score = a_score, .nflagged = 1 },
	{ .name = EVIL_GROUP, .nnodes = 4, .node = b_nodes, .score = b_score, .nflagged = 1 },
};
static const struct rv_fleet_stretch a_stretch[] = {
	{ .start = T0 + 900, .end = T0 + 990, .peak = 7.2 },
	{ .start = T0 + 2400, .end = T0 + 2430, .peak = 4.1 },
};
static struct rv_fleet_signal a_sig[] = {
	{ .channel = "gpu.sm_clock_mhz", .value = 1200, .median = 1800, .z = -6.1 },
	{ .channel = "net.rx_bytes", .value = 1572864, .median = 3355443.2, .z = -3.5 },
	{ .channel = "cpu.user_pct", .value = 41.5, .median = 55.25, .z = -3.2 },
};
static const struct rv_fleet_stretch b_stretch[] = {
	{ .start = T0 + 60, .end = T0 + 60, .peak = 3.5 },
};
static struct rv_fleet_signal b_sig[] = {
	{ .channel = "net.<tcp>&\"retrans\"", .value = 50, .median = 0, .z = 10 },
};
static const struct rv_fleet_straggler big_strag[] = {
	{ .group = "rack-a", .node = "node-3", .peak = 7.2, .nstretch = 2, .stretch = a_stretch,
	  .nsig = 3, .sig = a_sig },
	{ .group = EVIL_GROUP, .node = EVIL_NODE, .peak = 3.5, .nstretch = 1,
	  .stretch = b_stretch, .nsig = 1, .sig = b_sig },
};
static const struct rv_fleet_odd hp_odd[] = { { "node-5", "0" } };
static const struct rv_fleet_odd kern_odd[] = { { "node-4", "" }, { "node-5", "6.2" } };
static const struct rv_fleet_odd drv_odd[] = {
	{ "b-1", "535" }, { EVIL_NODE, "550<i>" }, { "b-3", "535" }, { "b-4", NULL },
};
static const struct rv_fleet_drift big_drift[] = {
	{ .group = "rack-a", .key = "kernel.release", .majority = "6.1.0", .nmajority = 3,
	  .nnodes = 5, .nodd = 2, .odd = kern_odd },
	{ .group = "rack-a", .key = "mem.hugepages_2048kb", .majority = "1024", .nmajority = 4,
	  .nnodes = 5, .tolerance = 0.01, .nodd = 1, .odd = hp_odd },
	{ .group = EVIL_GROUP, .key = "gpu.driver", .majority = NULL, .nmajority = 2, .nnodes = 4,
	  .nodd = 4, .odd = drv_odd },
};

static void fill_series(void)
{
	for (size_t w = 0; w < NWIN; w++) {
		double t = T0 + (double)w * STEP;
		int out = (t >= T0 + 900 && t <= T0 + 990) || (t >= T0 + 2400 && t <= T0 + 2430);
		s0_node[w] = out ? 1200.0f : 1790.0f + (float)(w % 7);
		s0_med[w] = 1800;
		s0_lo[w] = 1750;
		s0_hi[w] = 1850;
		s1_node[w] = 3e6f + (float)(w % 11) * 1e4f;
		s1_med[w] = 3.3e6f;
		s1_lo[w] = 3.1e6f;
		s1_hi[w] = 3.5e6f;
		for (size_t n = 0; n < 5; n++)
			a_score[n * NWIN + w] = 0.5f;
		for (size_t n = 0; n < 4; n++)
			b_score[n * NWIN + w] = 0.2f;
		if (out)
			a_score[2 * NWIN + w] = 6.0f;
	}
	for (size_t w = 100; w < 140; w++)  /* the node's data missing: 40 windows */
		s0_node[w] = NAN;
	for (size_t w = 600; w < 620; w++)  /* the peers' too */
		s0_lo[w] = s0_hi[w] = s0_med[w] = NAN;
	for (size_t w = 0; w < 100; w++)    /* node-5 joined late */
		a_score[4 * NWIN + w] = NAN;
	a_score[0 * NWIN + 501] = 9.0f;     /* one window of node-1 */
	b_score[1 * NWIN + 20] = 3.5f;
	a_sig[0] = (struct rv_fleet_signal){ a_sig[0].channel, a_sig[0].value, a_sig[0].median,
					     a_sig[0].z, s0_node, s0_med, s0_lo, s0_hi };
	a_sig[1] = (struct rv_fleet_signal){ a_sig[1].channel, a_sig[1].value, a_sig[1].median,
					     a_sig[1].z, s1_node, s1_med, s1_lo, s1_hi };
	b_sig[0].node_v = s1_node;  /* no peers' series: the band and median are left out */
}

static struct rv_fleet_result big_result(void)
{
	return (struct rv_fleet_result){
		.url = "http://vm:8428/?a=1&b=<2>", .selector = "", .group_by = "rack",
		.since = T0, .until = T0 + NWIN * STEP, .t0 = T0, .step = STEP, .nwin = NWIN,
		.nnodes = 11, .nchan = 400, .threshold = 3, .persist = 5, .ngroup = 4,
		.group = big_groups, .nstrag = 2, .strag = big_strag, .ndrift = 3,
		.drift = big_drift, .nsmall = 2, .requests = 401, .bytes = 123456789,
		.read_s = 12.5, .analyse_s = 1.25,
	};
}

static void test_text_big(void **state)
{
	(void)state;
	struct rv_fleet_result r = big_result();
	char *t = render(&r, RV_FLEET_TEXT);
	assert_has(t, "VERDICT: 5 findings: 2 stragglers, 3 configuration drifts\n");
	assert_has(t, "  - node node-3 is a straggler in group rack-a (out of step 15:15:00\xE2\x80\x93"
		   "15:16:30 UTC, 1m 33s and\n    15:40:00\xE2\x80\x93" "15:40:30 UTC, 33 s); "
		   "gpu.sm_clock_mhz 1.2 k where its peers have 1.8 k\n");
	assert_has(t, "  - nodes node-4 (absent), node-5 (6.2) differ in kernel.release where 3 "
		   "of 5 nodes of group rack-a\n    have 6.1.0\n");
	/* control characters and invalid UTF-8 never reach the terminal */
	assert_has(t, "group rack-<b>&\"\xC3\xA9\"\xEF\xBF\xBD is split on gpu.driver: 535 on 2 "
		   "nodes, 550<i> on 1, absent on 1");
	assert_has(t, "(unlabelled): 2 nodes, 0 flagged, too small to judge for stragglers\n");
	assert_has(t, "empty: 0 nodes, 0 flagged, too small to judge for stragglers\n");
	assert_has(t, "2 groups too small to judge for stragglers (fewer than 3 nodes): "
		   "(unlabelled), empty");
	assert_has(t, "  net.rx_bytes         1.5 MiB     3.2 MiB         0.47x     -3.5\n");
	assert_has(t, "  cpu.user_pct          41.5 %      55.2 %     -13.8 pts     -3.2\n");
	assert_has(t, "  535: b-1, b-3\n  550<i>: " EVIL_NODE "\n  absent: b-4\n");
	assert_has(t, "(numbers within 1 % count as equal)");
	for (const char *p = t; *p; p++) {
		if ((unsigned char)*p < ' ' && *p != '\n')
			fail_msg("control character 0x%02x in the text", *p);
	}
	size_t col = 0;
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		col = *p == '\n' ? 0 : col + ((*p & 0xC0) != 0x80);
		if (col > RV_FLEET_REP_WIDTH)
			fail_msg("a line wider than %d columns", RV_FLEET_REP_WIDTH);
	}
	free(t);
}

static void test_markdown_big(void **state)
{
	(void)state;
	struct rv_fleet_result r = big_result();
	char *m = render(&r, RV_FLEET_MARKDOWN);
	/* a name with '|' in a table cell; names in spans, words escaped */
	assert_has(m, "| `net.<tcp>&\"retrans\"` | 50 | 0 | from 0 | 10.0 |\n");
	assert_has(m, "### `" EVIL_NODE "` in group `rack-<b>&\"\xC3\xA9\"\xEF\xBF\xBD`\n");
	assert_has(m, "| \\(unlabelled\\) | 2 | 0 (too small to judge) | `c-1`, `c-2` |\n");
	assert_has(m, "| `535` | `b-1`, `b-3` |\n| `550<i>` | `" EVIL_NODE "` |\n"
		   "| absent | `b-4` |\n");
	/* every table row has the columns of its header */
	const char *p = m;
	while ((p = strstr(p, "\n|")) != NULL) {
		const char *end = strchr(p + 1, '\n');
		size_t bars = 0;
		for (const char *q = p + 1; q < end; q++)
			bars += *q == '|' && q[-1] != '\\';
		if (bars != 3 && bars != 4 && bars != 5 && bars != 6)
			fail_msg("a table row with %zu bars: %.*s", bars, (int)(end - p), p);
		p = end;
	}
	free(m);
}

static const struct rv_json *at(const struct rv_json *v, const char *k, size_t i)
{
	const struct rv_json *a = rv_json_get(v, k);
	assert_int_equal(rv_json_type(a), RV_JSON_ARRAY);
	assert_true(i < rv_json_len(a));
	return rv_json_at(a, i);
}

static void assert_str(const struct rv_json *v, const char *k, const char *want)
{
	const char *got = rv_json_str(rv_json_get(v, k), NULL);
	if (!got || strcmp(got, want) != 0)
		fail_msg("%s: '%s', want '%s'", k, got ? got : "(not a string)", want);
}

static void assert_num(const struct rv_json *v, const char *k, double want)
{
	double got = rv_json_num(rv_json_get(v, k), NAN);
	if (!(fabs(got - want) <= 1e-9 * fabs(want)))
		fail_msg("%s: %.17g, want %.17g", k, got, want);
}

static void assert_json_null(const struct rv_json *v, const char *k)
{
	assert_true(rv_json_get(v, k) && rv_json_type(rv_json_get(v, k)) == RV_JSON_NULL);
}

static void json_head(const struct rv_json *root)
{
	static const char *const keys[] = { "fleet", "verdict", "stragglers", "drift", "groups" };
	assert_int_equal(rv_json_len(root), 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(rv_json_key(root, i), keys[i]);
	const struct rv_json *fl = rv_json_get(root, "fleet");
	assert_str(fl, "url", "http://vm:8428/?a=1&b=<2>");
	assert_str(fl, "selector", "");
	assert_str(fl, "group_by", "rack");
	assert_num(fl, "since_ts", T0);
	assert_str(fl, "since", "2026-03-01T15:00:00Z");
	assert_str(fl, "until", "2026-03-01T16:00:00Z");
	assert_num(fl, "duration_s", 3600);
	assert_num(fl, "step_s", 3);
	assert_num(fl, "windows", NWIN);
	assert_num(fl, "groups", 4);
	assert_num(fl, "threshold", 3);
	assert_num(fl, "persist_windows", 5);
	assert_num(fl, "persist_s", 15);
	assert_num(fl, "small_groups", 2);
	assert_num(fl, "bytes", 123456789);
	assert_num(fl, "analyse_s", 1.25);
	const struct rv_json *v = rv_json_get(root, "verdict");
	assert_num(v, "findings", 5);
	assert_str(v, "headline", "5 findings: 2 stragglers, 3 configuration drifts");
	assert_int_equal(rv_json_len(rv_json_get(v, "sentences")), 6);
	const char *last = rv_json_str(at(v, "sentences", 5), "");
	assert_string_equal(last, "2 groups too small to judge for stragglers (fewer than 3 "
			    "nodes): (unlabelled), empty");
}

static void json_stragglers(const struct rv_json *root)
{
	const struct rv_json *s = at(root, "stragglers", 0);
	assert_str(s, "node", "node-3");
	assert_str(s, "group", "rack-a");
	assert_num(s, "peak", 7.2);
	const struct rv_json *st = at(s, "stretches", 1);
	assert_num(st, "start_ts", T0 + 2400);
	assert_str(st, "start", "2026-03-01T15:40:00Z");
	assert_num(st, "end_ts", T0 + 2430);
	assert_num(st, "duration_s", 33);
	assert_num(st, "peak", 4.1);
	const struct rv_json *g = at(s, "signals", 1);
	assert_str(g, "channel", "net.rx_bytes");
	assert_num(g, "value", 1572864);
	assert_num(g, "median", 3355443.2);
	assert_num(g, "diff", 1572864 - 3355443.2);
	assert_num(g, "ratio", 1572864 / 3355443.2);
	assert_str(g, "diff_text", "0.47x");
	assert_num(g, "z", -3.5);
	assert_int_equal(rv_json_bool(rv_json_get(g, "plotted"), -1), 1);
	assert_int_equal(rv_json_bool(rv_json_get(at(s, "signals", 2), "plotted"), -1), 0);
	/* hostile names come back byte for byte; invalid UTF-8 as U+FFFD */
	s = at(root, "stragglers", 1);
	assert_str(s, "node", EVIL_NODE);
	assert_str(s, "group", "rack-<b>&\"\xC3\xA9\"\xEF\xBF\xBD");
	g = at(s, "signals", 0);
	assert_str(g, "channel", "net.<tcp>&\"retrans\"");
	assert_json_null(g, "ratio");
	assert_str(g, "diff_text", "from 0");
}

static void json_drift_groups(const struct rv_json *root)
{
	const struct rv_json *d = at(root, "drift", 0);
	assert_str(d, "key", "kernel.release");
	assert_str(d, "majority", "6.1.0");
	assert_int_equal(rv_json_bool(rv_json_get(d, "split"), -1), 0);
	assert_num(d, "majority_nodes", 3);
	assert_num(d, "nodes", 5);
	assert_num(d, "tolerance", 0);
	assert_str(at(d, "odd", 0), "node", "node-4");
	assert_json_null(at(d, "odd", 0), "value");
	assert_str(at(d, "odd", 1), "value", "6.2");
	assert_num(at(root, "drift", 1), "tolerance", 0.01);
	d = at(root, "drift", 2);
	assert_int_equal(rv_json_bool(rv_json_get(d, "split"), -1), 1);
	assert_json_null(d, "majority");
	assert_int_equal(rv_json_len(rv_json_get(d, "odd")), 4);
	assert_str(at(d, "odd", 1), "node", EVIL_NODE);
	assert_str(at(d, "odd", 1), "value", "550<i>");
	assert_json_null(at(d, "odd", 3), "value");
	const struct rv_json *g = at(root, "groups", 0);
	assert_str(g, "name", "");
	assert_int_equal(rv_json_bool(rv_json_get(g, "small"), -1), 1);
	g = at(root, "groups", 1);
	assert_str(g, "name", "empty");
	assert_int_equal(rv_json_len(rv_json_get(g, "members")), 0);
	g = at(root, "groups", 2);
	assert_num(g, "flagged", 1);
	assert_int_equal(rv_json_bool(rv_json_get(at(g, "members", 2), "straggler"), -1), 1);
	assert_int_equal(rv_json_bool(rv_json_get(at(g, "members", 1), "straggler"), -1), 0);
	g = at(root, "groups", 3);
	assert_int_equal(rv_json_bool(rv_json_get(at(g, "members", 1), "straggler"), -1), 1);
}

static void test_json(void **state)
{
	(void)state;
	struct rv_fleet_result r = big_result();
	char *j = render(&r, RV_FLEET_JSON);
	struct rv_json_doc *doc = NULL;
	struct rv_err err = { 0 };
	if (rv_json_parse(j, strlen(j), "report.json", &doc, &err) != 0)
		fail_msg("the JSON does not parse: %s", err.msg);
	const struct rv_json *root = rv_json_root(doc);
	json_head(root);
	json_stragglers(root);
	json_drift_groups(root);
	rv_json_doc_free(doc);
	/* one straggler, finding or group per line */
	assert_int_equal(count(j, "\n{\"group\":"), 2 + 3);
	assert_int_equal(count(j, "\n{\"name\":"), 4);
	free(j);
}

static const char *const void_tags[] = { "meta", "br", "hr", "img", "link", "input" };

static int is_void(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(void_tags) / sizeof(void_tags[0]); i++) {
		if (strlen(void_tags[i]) == len && strncmp(void_tags[i], name, len) == 0)
			return 1;
	}
	return 0;
}

/* Every tag closed in order (void tags and "/>" aside); no '<' outside a
 * tag, no '>' in text. */
static void assert_balanced(const char *h)
{
	enum { DEPTH = 64 };
	const char *stack[DEPTH];
	size_t len[DEPTH], depth = 0;
	for (const char *p = h; (p = strchr(p, '<')) != NULL;) {
		const char *end = strchr(p, '>');
		assert_non_null(end);
		if (memchr(p + 1, '<', (size_t)(end - p - 1)))
			fail_msg("'<' inside a tag: %.60s", p);
		int closing = p[1] == '/';
		const char *name = p + 1 + closing;
		size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (p[1] == '!' || end[-1] == '/' || is_void(name, n)) {
			p = end;
			continue;
		}
		if (n == 0)
			fail_msg("a tag without a name: %.60s", p);
		if (!closing) {
			assert_true(depth < DEPTH);
			stack[depth] = name;
			len[depth++] = n;
		} else if (depth == 0 || len[depth - 1] != n || strncmp(stack[depth - 1], name, n)) {
			fail_msg("</%.*s> closes <%.*s>", (int)n, name, depth ? (int)len[depth - 1] : 0,
				 depth ? stack[depth - 1] : "");
		} else {
			depth--;
		}
		p = end;
	}
	assert_int_equal(depth, 0);
}

/* Every coordinate attribute of the SVGs holds numbers and path commands
 * only: no nan, no inf. */
static void assert_svg_numbers(const char *h, size_t min)
{
	static const char *const attrs[] = { " x=\"", " y=\"", " x1=\"", " x2=\"", " y1=\"",
					     " y2=\"", " width=\"", " height=\"", " d=\"",
					     " viewBox=\"" };
	size_t seen = 0;
	for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
		for (const char *p = strstr(h, attrs[a]); p; p = strstr(p + 1, attrs[a])) {
			const char *v = p + strlen(attrs[a]), *end = strchr(v, '"');
			for (const char *q = v; q < end; q++) {
				if (!isdigit((unsigned char)*q) && !strchr(" .,-MLHZ", *q))
					fail_msg("%s%.*s\"", attrs[a], (int)(end - v), v);
			}
			seen++;
		}
	}
	if (seen < min)
		fail_msg("only %zu coordinates", seen);
}

/* The d="..." of the first path of class cls after from. */
static char *path_d(const char *from, const char *cls)
{
	char want[64];
	snprintf(want, sizeof(want), "<path class=\"%s\" d=\"", cls);
	const char *p = strstr(from, want);
	assert_non_null(p);
	p += strlen(want);
	return strndup(p, (size_t)(strchr(p, '"') - p));
}

static void html_plots(const char *h)
{
	/* 2 plotted signals of node-3, 1 of the hostile node; 2 heat maps */
	assert_int_equal(count(h, "<svg class=\"plot\""), 3);
	assert_int_equal(count(h, "<svg class=\"heat\""), 2);
	assert_int_equal(count(h, "</svg>"), 5);
	/* the 40 windows without the node's value break its line: two subpaths */
	char *d = path_d(strstr(h, "aria-label=\"gpu.sm_clock_mhz\""), "node");
	assert_int_equal(count(d, "M"), 2);
	free(d);
	/* the peers' band: two shapes around their gap; the median breaks too */
	d = path_d(strstr(h, "aria-label=\"gpu.sm_clock_mhz\""), "band");
	assert_int_equal(count(d, "M"), 2);
	assert_int_equal(count(d, "Z"), 2);
	free(d);
	d = path_d(strstr(h, "aria-label=\"gpu.sm_clock_mhz\""), "median");
	assert_int_equal(count(d, "M"), 2);
	free(d);
	/* a signal without peers' series: empty band and median, the node drawn */
	const char *evil = strstr(h, "aria-label=\"net.&lt;tcp&gt;&amp;&quot;retrans&quot;\"");
	assert_non_null(evil);
	d = path_d(evil, "band");
	assert_string_equal(d, "");
	free(d);
	/* both stretches of node-3 shaded in each of its plots */
	assert_int_equal(count(h, "<rect class=\"out\""), 2 * 2 + 1);
	/* heat map: 1200 windows in 600 columns, the one-window spike of
	 * node-1 (row 0) kept as the top colour, at column 250 */
	assert_has(h, "<rect x=\"410.00\" y=\"64.00\" width=\"1.00\" height=\"14.00\" "
		   "fill=\"#c92a2a\"/>");
	assert_has(h, "(each column the max of its windows)");
	assert_has(h, "threshold 3.0</text>");
	/* node-5's first 100 windows (50 columns) have no score */
	assert_has(h, "<rect x=\"160.00\" y=\"120.00\" width=\"50.00\" height=\"14.00\" "
		   "fill=\"#ced4da\"/>");
	assert_has(h, "<text class=\"row flag\" x=\"154\" y=\"103.0\" text-anchor=\"end\">"
		   "<title>node-3: peak score 6.0, straggler</title>node-3</text>");
}

static void test_html(void **state)
{
	(void)state;
	struct rv_fleet_result r = big_result();
	char *h = render(&r, RV_FLEET_HTML);
	const char *out = getenv("RV_FLEET_HTML_OUT");  /* for a look in a browser */
	FILE *o = out && *out ? fopen(out, "w") : NULL;
	if (o && (fputs(h, o) < 0 || fclose(o) != 0))
		fail_msg("%s: could not write the page", out);
	assert_true(strncmp(h, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
	assert_has(h, "<meta charset=\"utf-8\">");
	assert_has(h, "</html>\n");
	assert_balanced(h);
	/* self-contained and safe: the only URL is the escaped storage URL */
	assert_int_equal(count(h, "http"), 1);
	assert_has(h, "<code>http://vm:8428/?a=1&amp;b=&lt;2&gt;</code>");
	assert_lacks(h, "<script");
	assert_lacks(h, "url(");
	assert_lacks(h, "src=");
	assert_lacks(h, "xmlns");
	assert_int_equal(count(h, "href=\""), count(h, "href=\"#"));
	assert_has(h, "b&quot;&lt;script&gt;alert(1)&lt;/script&gt;");
	assert_has(h, "rack-&lt;b&gt;&amp;&quot;\xC3\xA9&quot;\xEF\xBF\xBD");
	assert_has(h, "<code>550&lt;i&gt;</code>");
	/* the verdict first, linked to the cards */
	const char *v = strstr(h, "<section class=\"verdict found\" id=\"verdict\">");
	assert_non_null(v);
	assert_true(v < strstr(h, "<section class=\"card"));
	assert_has(h, "<li><a href=\"#straggler-1\">node <code>node-3</code> is a straggler");
	assert_has(h, "<li><a href=\"#drift-3\">group <code>rack-&lt;b&gt;");
	assert_int_equal(count(h, "<section class=\"card strag\""), 2);
	assert_int_equal(count(h, "<section class=\"card drift\""), 3);
	assert_int_equal(count(h, "<section class=\"card group\""), 4);
	assert_has(h, "<td><span class=\"muted\">absent</span></td><td><code>b-4</code></td>");
	assert_has(h, "<td class=\"n\">3.2 MiB</td><td class=\"n\">0.47x</td>");
	assert_svg_numbers(h, 300);
	html_plots(h);
	free(h);
}

static void test_errors(void **state)
{
	(void)state;
	struct rv_fleet_result r = big_result();
	assert_int_equal(rv_fleet_report(NULL, &r, RV_FLEET_TEXT), -EINVAL);
	assert_int_equal(rv_fleet_report(stdout, NULL, RV_FLEET_TEXT), -EINVAL);
	assert_int_equal(rv_fleet_report(stdout, &r, (enum rv_fleet_format)4), -EINVAL);
	/* a stream that fails is -EIO */
	FILE *f = fopen("/dev/full", "w");
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	for (int fmt = 0; fmt < 4; fmt++)
		assert_int_equal(rv_fleet_report(f, &r, (enum rv_fleet_format)fmt), -EIO);
	fclose(f);
	/* a result of nothing but zeros and NULLs still writes every format */
	struct rv_fleet_result z = { .nstrag = 2, .ndrift = 2, .ngroup = 3, .nwin = 5,
				     .since = NAN, .until = NAN, .t0 = NAN, .step = NAN,
				     .threshold = NAN };
	for (int fmt = 0; fmt < 4; fmt++) {
		char *s = render(&z, (enum rv_fleet_format)fmt);
		assert_lacks(s, "(null)");
		free(s);
	}
	/* no time axis, no threshold: the pictures still hold numbers only */
	r.t0 = r.step = r.threshold = NAN;
	char *h = render(&r, RV_FLEET_HTML);
	assert_balanced(h);
	assert_svg_numbers(h, 100);
	assert_int_equal(count(h, "</svg>"), 5);
	free(h);
}

static void test_numbers(void **state)
{
	(void)state;
	static const struct { double v; const char *ch, *want; } q[] = {
		{ 1200, "x", "1.2 k" }, { 999.7, "x", "1 k" }, { 12.345, "x", "12.3" },
		{ 0.00412, "x", "0.00412" }, { -2.5e6, "x", "-2.5 M" }, { 0, "x", "0" },
		{ 1536, "a_bytes", "1.5 KiB" }, { 512, "a_bytes", "512 B" }, { 45.26, "a_pct", "45.3 %" },
		{ NAN, "x", "n/a" }, { INFINITY, "x", "n/a" },
	};
	char buf[RV_FLEET_REP_CELL];
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		rv_fleet_rep_qty(q[i].v, q[i].ch, 0, buf, sizeof(buf));
		assert_string_equal(buf, q[i].want);
	}
	static const struct { double v, m; const char *ch, *want; } d[] = {
		{ 1200, 1800, "x", "-33 %" }, { 5400, 1800, "x", "3.0x" }, { 50, 1, "x", "50x" },
		{ 200, 1000, "x", "0.2x" }, { 1, 1, "x", "same" }, { 3, 0, "x", "from 0" },
		{ 1.05, 1, "x", "+5.0 %" }, { 41.5, 55.25, "c_pct", "-13.8 pts" },
		{ NAN, 1, "x", "?" },
	};
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		rv_fleet_rep_diff(d[i].v, d[i].m, d[i].ch, buf, sizeof(buf));
		assert_string_equal(buf, d[i].want);
	}
	static const struct { double s; const char *want; } t[] = {
		{ 31, "31 s" }, { 2.5, "2.5 s" }, { 252, "4m 12s" }, { 11100, "3h 05m" },
		{ 187200, "2d 04h" }, { -1, "?" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		rv_fleet_rep_duration(t[i].s, buf, sizeof(buf));
		assert_string_equal(buf, t[i].want);
	}
	/* a range over two days shows dates in its times */
	struct rv_fleet_result r = { .since = T0, .until = T0 + 86400 };
	rv_fleet_rep_clock(&r, T0 + 3661, buf, sizeof(buf));
	assert_string_equal(buf, "2026-03-01 16:01:01");
	r.until = T0 + 3600;
	rv_fleet_rep_clock(&r, T0 + 3661, buf, sizeof(buf));
	assert_string_equal(buf, "16:01:01");
}

int main(void)
{
	fill_series();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_no_finding),
		cmocka_unit_test(test_text_big),
		cmocka_unit_test(test_markdown_big),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
