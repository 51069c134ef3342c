/*
 * report_test.c - the report renderers (report.h) in all four formats.
 *
 * One fixture report, built here, exercises what an outage report holds:
 * incident 1 has causes with evidence and checks, a chain of three steps,
 * plots with a NaN gap, byte rates and a name with HTML/markdown
 * metacharacters; incident 2 has no cause, no plots and a note; incident 3
 * is still open and its plots are degenerate (flat, one sample, no finite
 * sample, 1e300, 1e-300, a band outside the data). The tests read what was
 * written: numbers and change texts in the text format, column counts of
 * the markdown tables, JSON syntax (a small validating parser below), and
 * the HTML's escaping, absence of URLs and scripts, and SVG paths.
 *
 * With RV_REPORT_HTML_OUT set, the fixture's HTML page is also written to
 * that path, for the headless-browser check (tests/integration).
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

#include "explain/report.h"
#include "explain/report_int.h"

enum { NPTS = 60, NLONG = 5000 };
#define T0 1764583200.0  /* 2025-12-01T10:00:00Z */

/* ---- the fixture ---- */

static double ts_a[NPTS], v_retrans[NPTS], v_softirq[NPTS], v_gpu[NPTS], v_rx[NPTS];
static double ts_long[NLONG], v_long[NLONG];
static double ts_3[NPTS], v_flat[NPTS], v_nan[NPTS], v_huge[NPTS], v_tiny[NPTS];
#define T3 1764590030.0  /* 2025-12-01T11:53:50Z */
static const double ts_one[1] = { T3 }, v_one[1] = { 42.0 };

static const char WEIRD[] = "net.bad<&>\"name'";

static const char *const det_all[] = { "zscore", "pca", "iforest" };
static const char *const det_one[] = { "spe" };

static const struct rv_report_subsys subs_1[] = {
	{ "net", 0.62 }, { "cpu", 0.25 }, { "gpu", 0.13 },
};
static const struct rv_report_subsys subs_2[] = { { "gpu", 1.0 } };
static const struct rv_report_subsys subs_3[] = { { "storage", 0.9 }, { "mem", 0.1 } };

static const struct rv_report_signal sig_1[] = {
	{ "net.tcp_retrans_segs", "segments/s", 0.48, 126, 20, 1197, 2140, 8.5, 41.2, 1, T0 + 0.0 },
	{ "cpu.softirq_pct", "%", 0.21, 4.1, 0.5, 9.2, 14.0, 1.24, 10.2, 1, T0 + 0.4 },
	{ "gpu.util_pct", "%", 0.13, 97, 1.5, 55.9, 31, -0.42, -27, -1, T0 + 1.2 },
	{ "net.rx_bytes", "bytes/s", 0.08, 1572864, 1e5, 3355443.2, 4e6, 1.13, 17, 1, T0 + 2 },
	{ WEIRD, "", NAN, 0, 0, 5, 5, INFINITY, NAN, 1, NAN },
};

static const char *const ev_1[] = {
	"net.tcp_retrans_segs up: 126/s -> 1197/s (z 41)",
	"cpu.softirq_pct up: 4.1 % -> 9.2 % (z 10)",
};
static const struct rv_report_check checks_1[] = {
	{ "ss -ti", "retransmits per connection" },
	{ "ethtool -S eth0 | grep -i drop", "" },
	{ "nstat -az TcpRetransSegs\nsar -n ETCP 1 5", "retransmits over time" },
};
static const struct rv_report_check checks_2[] = { { "cat /proc/interrupts", "IRQ spread" } };
static const struct rv_report_cause causes_1[] = {
	{ "net.retrans_storm", "TCP retransmit storm starves the input pipeline", "net", 0.82,
	  "Retransmits rose first, then softirq time on the CPUs that handle the NIC, and the "
	  "GPUs went idle waiting for input: the data loader is network-bound and the network "
	  "drops packets.", 2, ev_1, 3, checks_1,
	  "Find the dropping hop (switch port counters, NIC ring sizes with ethtool -g); raise "
	  "the rings or move the data set closer.", NULL, NULL, 0, 0, 0, 0, 0 },
	{ "cpu.irq_imbalance", "Interrupts of the NIC land on one CPU", "cpu", 0.41,
	  "softirq time concentrated on a single CPU.", 0, NULL, 1, checks_2, "", NULL, NULL, 0, 0, 0, 0, 0 },
};
static const struct rv_report_step chain_1[] = {
	{ "net.tcp_retrans_segs", "net", 1, T0 + 0.0 },
	{ "cpu.softirq_pct", "cpu", 1, T0 + 0.4 },
	{ "gpu.util_pct", "gpu", -1, T0 + 1.2 },
};

static const struct rv_report_series ser_1[] = {
	{ "net.tcp_retrans_segs", "segments/s", NPTS, ts_a, v_retrans, 66, 186, 126 },
	{ "cpu.softirq_pct", "%", NPTS, ts_a, v_softirq, 2.6, 5.6, 4.1 },
	{ "gpu.util_pct", "%", NPTS, ts_a, v_gpu, 92.5, 101.5, 97 },
	{ "net.rx_bytes", "bytes/s", NPTS, ts_a, v_rx, NAN, NAN, NAN },
	{ WEIRD, "", NLONG, ts_long, v_long, 9, 23, 16 },
};

static const struct rv_report_signal sig_2[] = {
	{ "gpu.mem_used_bytes", "bytes", 0.7, 8.0 * 1073741824.0, 1e6, 79.5 * 1073741824.0, 80e9,
	  8.9, 55, 1, NAN },
	{ "gpu.temp_c", "C", 0.3, NAN, NAN, 71, 74, NAN, NAN, 0, NAN },
};

static const struct rv_report_series ser_3[] = {
	{ "storage.flat_bytes", "bytes", NPTS, ts_3, v_flat, 7, 7, 7 },
	{ "storage.one_sample", "", 1, ts_one, v_one, NAN, NAN, NAN },
	{ "storage.all_missing", "", NPTS, ts_3, v_nan, 1, 2, 1.5 },
	{ "storage.huge", "", NPTS, ts_3, v_huge, NAN, NAN, 1e300 },
	{ "storage.tiny", "", NPTS, ts_3, v_tiny, NAN, NAN, NAN },
	{ "storage.band_above", "%", NPTS, ts_3, v_flat, 50, 60, 55 },
	{ "storage.empty", "", 0, NULL, NULL, NAN, NAN, NAN },
};
static const struct rv_report_signal sig_3[] = {
	{ "storage.flat_bytes", "bytes", 1, 4096, 0, 4096, 4096, 0, 0, 0, NAN },
};
static const char *const ev_3[] = { "storage.write_bytes up" };
static const struct rv_report_cause causes_3[] = {
	{ "storage.write_storm", "A write storm fills the page cache", "storage", 0.004,
	  "Dirty pages pile up.", 1, ev_3, 0, NULL, "Throttle the writer.", "", NULL, 0, 0, 0, 0, 0 },
};
static const struct rv_report_step chain_3[] = { { "storage.flat_bytes", "storage", 1, NAN } };

static const struct rv_report_incident incs[] = {
	{ .id = 1, .host = "node-7", .start_ts = T0, .end_ts = T0 + 252, .windows = 240,
	  .peak_score = 12.34, .mean_score = 4.5, .severity = "critical", .ndetectors = 3,
	  .detectors = det_all, .nsubsys = 3, .subsys = subs_1, .nsignals = 5, .signals = sig_1,
	  .nseries = 5, .series = ser_1, .ncauses = 2, .causes = causes_1, .nchain = 3,
	  .chain = chain_1, .note = "" },
	{ .id = 2, .host = "", .start_ts = T0 + 3600, .end_ts = T0 + 3600 + 7325, .windows = 12,
	  .peak_score = 2.1, .mean_score = 1.4, .severity = "minor", .ndetectors = 1,
	  .detectors = det_one, .nsubsys = 1, .subsys = subs_2, .nsignals = 2, .signals = sig_2,
	  .note = "The raw samples of this incident were not kept, so there are no plots." },
	{ .id = 3, .host = "node-\xC3\xA9t\xC3\xA9", .start_ts = T3, .end_ts = T3, .open = 1,
	  .windows = 1, .peak_score = 1.1, .mean_score = 1.1, .severity = "major",
	  .ndetectors = 3, .detectors = det_all, .nsubsys = 2, .subsys = subs_3, .nsignals = 1,
	  .signals = sig_3, .nseries = 7, .series = ser_3, .ncauses = 1, .causes = causes_3,
	  .nchain = 1, .chain = chain_3, .note = "" },
};
static const struct rv_report report = {
	.title = "reveal incident report", .source = "offline detect.csv & test.csv",
	.filters = "since 2025-12-01T00:00:00Z", .generated_ts = T0 + 86400, .nincidents = 3,
	.incidents = incs, .nrules = 42,
};

static void fill_series(void)
{
	for (int i = 0; i < NPTS; i++) {
		double t = T0 - 30 + i;
		ts_a[i] = t;
		int in = t >= T0 && t <= T0 + 252;
		v_retrans[i] = (in ? 1200 : 126) + (i % 7) * 3;
		v_softirq[i] = (in ? 9 : 4) + (i % 3) * 0.2;
		v_gpu[i] = in ? 55 + i % 5 : 97;
		v_rx[i] = (in ? 3.2 : 1.5) * 1048576 + (i % 4) * 1000;
		ts_3[i] = T3 - 30 + i;
		v_flat[i] = 7.0;
		v_nan[i] = NAN;
		v_huge[i] = 1e300 * (1 + (i % 5) * 0.1);
		v_tiny[i] = 1e-300 * (1 + (i % 4));
	}
	for (int i = 40; i < 45; i++)   /* a gap: the line breaks */
		v_retrans[i] = NAN;
	v_softirq[10] = NAN;            /* a lone sample between gaps */
	v_softirq[12] = NAN;
	for (int i = 0; i < NLONG; i++) {
		ts_long[i] = T0 - 60 + i * 0.1;
		v_long[i] = i == 2500 ? 500 : (i % 100 == 0 ? NAN : 10 + (i % 13));
	}
}

/* The report rendered into a string (caller frees). */
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
		fail_msg("missing \"%s\"", needle);
}

static void assert_lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("unexpected \"%s\"", needle);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static size_t lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- a validating JSON parser (RFC 8259 syntax, UTF-8 strings) ---- */

enum { JSON_MAX_DEPTH = 64 };

static int jp_value(const char **p, int depth);

static void jp_ws(const char **p)
{
	*p += strspn(*p, " \t\n\r");
}

static int jp_string(const char **p)
{
	const char *s = *p + 1;
	while (*s != '"') {
		if ((unsigned char)*s < 0x20)
			return 0;  /* a raw control character, or the end of the text */
		size_t len = rv_utf8_len((const unsigned char *)s);
		if (*s == '\\' && s[1] == 'u')
			len = strspn(s + 2, "0123456789abcdefABCDEF") >= 4 ? 6 : 0;
		else if (*s == '\\')
			len = s[1] && strchr("\"\\/bfnrt", s[1]) ? 2 : 0;
		if (len == 0)
			return 0;
		s += len;
	}
	*p = s + 1;
	return 1;
}

static int jp_number(const char **p)
{
	const char *s = *p + (**p == '-');
	size_t n = strspn(s, "0123456789");
	if (n == 0 || (s[0] == '0' && n > 1))
		return 0;
	s += n;
	if (*s == '.') {
		if ((n = strspn(s + 1, "0123456789")) == 0)
			return 0;
		s += 1 + n;
	}
	if (*s == 'e' || *s == 'E') {
		s += 1 + (s[1] == '+' || s[1] == '-');
		if ((n = strspn(s, "0123456789")) == 0)
			return 0;
		s += n;
	}
	*p = s;
	return 1;
}

/* Members (object) or elements up to `close`. */
static int jp_items(const char **p, char close, int object, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		return 0;
	++*p;
	jp_ws(p);
	if (**p == close) {
		++*p;
		return 1;
	}
	for (;;) {
		jp_ws(p);
		if (object && (**p != '"' || !jp_string(p) || (jp_ws(p), *(*p)++ != ':')))
			return 0;
		if (!jp_value(p, depth + 1))
			return 0;
		jp_ws(p);
		char c = *(*p)++;
		if (c == close)
			return 1;
		if (c != ',')
			return 0;
	}
}

static int jp_word(const char **p, const char *w)
{
	size_t n = strlen(w);
	if (strncmp(*p, w, n) != 0)
		return 0;
	*p += n;
	return 1;
}

static int jp_value(const char **p, int depth)
{
	jp_ws(p);
	switch (**p) {
	case '{': return jp_items(p, '}', 1, depth);
	case '[': return jp_items(p, ']', 0, depth);
	case '"': return jp_string(p);
	case 't': return jp_word(p, "true");
	case 'f': return jp_word(p, "false");
	case 'n': return jp_word(p, "null");
	default: return jp_number(p);
	}
}

/* 1 when s is exactly one JSON value (whitespace around allowed). */
static int json_valid(const char *s)
{
	if (!jp_value(&s, 0))
		return 0;
	jp_ws(&s);
	return *s == '\0';
}

static void test_json_checker(void **state)
{
	(void)state;
	static const char *const good[] = { "{}", "[]", "0", "-1.5e+3", "\"a\\u00e9\\n\"",
					    "{\"a\":[1,null,true,false,{\"b\":\"\xC3\xA9\"}]}" };
	static const char *const bad[] = { "", "{", "[1,]", "{\"a\"}", "01", "1.", "NaN",
					   "\"a\nb\"", "\"\\x\"", "\"\xC3\"", "{} {}", "[nul]",
					   "{\"a\":1,}", "-", "inf" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(json_valid(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (json_valid(bad[i]))
			fail_msg("accepted bad JSON '%s'", bad[i]);
	}
}

/* ---- text ---- */

/* Every line at most RV_REPORT_WIDTH code points, no control characters. */
static void assert_text_shape(const char *s)
{
	size_t line = 1, w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		if (*p == '\n') {
			line++;
			w = 0;
			p++;
			continue;
		}
		if (*p < ' ' || *p == 0x7f)
			fail_msg("line %zu: control character 0x%02x", line, *p);
		size_t len = rv_utf8_len(p);
		if (len == 0)
			fail_msg("line %zu: invalid UTF-8", line);
		p += len;
		if (++w > RV_REPORT_WIDTH)
			fail_msg("line %zu is wider than %d columns", line, RV_REPORT_WIDTH);
	}
}

static void test_text(void **state)
{
	(void)state;
	char *t = render(&report, RV_REPORT_TEXT, 0);
	assert_text_shape(t);
	assert_has(t, "reveal incident report\n");
	assert_has(t, "3 incidents\n");
	assert_has(t, "knowledge base of 42 rules");
	assert_has(t, "INCIDENT 1  CRITICAL  net  2025-12-01T10:00:00Z .. 2025-12-01T10:04:12Z  "
		   "(4m 12s)");
	assert_has(t, "Host node-7, 240 flagged windows, score peak 12.3, mean 4.5");
	assert_has(t, "Detectors:  zscore, pca, iforest\n");
	assert_has(t, "Subsystems: net 62 %, cpu 25 %, gpu 13 %\n");
	/* the signal table: numbers scaled, change texts, onsets */
	assert_has(t, "126 segments/s");
	assert_has(t, "1.2 k segments/s");
	assert_has(t, "+850 %");
	assert_has(t, "-42 %");
	assert_has(t, "+124 %");
	assert_has(t, "1.5 MiB/s");
	assert_has(t, "3.2 MiB/s");
	assert_has(t, "from 0");
	assert_has(t, "41.2");
	assert_has(t, "+0.4 s");
	assert_has(t, "79.5 GiB");
	/* causes: title, confidence, evidence, numbered checks, fix */
	assert_has(t, "  1. TCP retransmit storm starves the input pipeline [net.retrans_storm, "
		   "net], confidence 82 %\n");
	assert_has(t, "  2. Interrupts of the NIC land on one CPU");
	assert_has(t, "       - net.tcp_retrans_segs up: 126/s -> 1197/s (z 41)\n");
	assert_has(t, "       1) $ ss -ti\n            retransmits per connection\n");
	assert_has(t, "       2) $ ethtool -S eth0 | grep -i drop\n");
	assert_has(t, "       3) $ nstat -az TcpRetransSegs\n          $ sar -n ETCP 1 5\n"
		   "            retransmits over time\n");
	assert_has(t, "     Fix: Find the dropping hop");
	assert_has(t, "confidence <1 %");
	/* the chain, ASCII arrows, offsets from the first step */
	assert_has(t, "net.tcp_retrans_segs up (+0.0 s) -> cpu.softirq_pct up (+0.4 s) -> "
		   "gpu.util_pct down");
	assert_has(t, "(+1.2 s)");
	assert_int_equal(count(t, "Chain ("), 1);  /* one step in incident 3: no chain */
	/* incident 2: no rule matched, the top signals instead, the note */
	assert_has(t, "No gpu rule of the knowledge base (42 rules) matched this incident. Look");
	assert_has(t, "gpu.mem_used_bytes up (+894 %)");
	assert_has(t, "Note: The raw samples of this incident were not kept");
	assert_has(t, "(2h 02m)");
	/* incident 3: open, UTF-8 passes, the weird name is shown as it is */
	assert_has(t, "still open");
	assert_has(t, "node-\xC3\xA9t\xC3\xA9");
	assert_has(t, WEIRD);
	assert_has(t, "n/a");
	free(t);
}

static void test_text_summary(void **state)
{
	(void)state;
	char *t = render(&report, RV_REPORT_TEXT, 1);
	assert_text_shape(t);
	assert_int_equal(lines(t), 3);
	assert_has(t, "#1 critical net 2025-12-01T10:00:00Z 4m 12s  TCP retransmit storm starves "
		   "the input");
	assert_has(t, "...\n");  /* cut to the width */
	assert_has(t, "#2 minor gpu 2025-12-01T11:00:00Z 2h 02m  no rule matched  top "
		   "gpu.mem_used_bytes +894 %\n");
	assert_has(t, "#3 major storage 2025-12-01T11:53:50Z 0.0 s (open)");
	free(t);
}

/* ---- markdown ---- */

/* Cells of a table row: the '|' not escaped by a backslash, less one. */
static size_t md_cells(const char *line, size_t len)
{
	size_t pipes = 0;
	for (size_t i = 0; i < len; i++)
		pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
	return pipes - 1;
}

/* Every table has rows of its header's width and a delimiter row; returns
 * the number of tables. */
static size_t assert_md_tables(const char *s)
{
	size_t tables = 0, want = 0;
	int in_table = 0;
	for (const char *line = s; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		if (len > 0 && line[0] == '|') {
			assert_int_equal(line[len - 1], '|');
			size_t cells = md_cells(line, len);
			if (!in_table) {
				want = cells;
				tables++;
				assert_true(end && end[1] == '|' &&
					    strspn(end + 1, "|-: ") == strcspn(end + 1, "\n"));
			} else if (cells != want) {
				fail_msg("table row has %zu cells, header %zu: %.*s", cells, want,
					 (int)len, line);
			}
			in_table = 1;
		} else {
			in_table = 0;
		}
		line += len + (end != NULL);
	}
	return tables;
}

static void test_markdown(void **state)
{
	(void)state;
	char *m = render(&report, RV_REPORT_MARKDOWN, 0);
	/* overview + a signal table per incident */
	assert_int_equal(assert_md_tables(m), 4);
	assert_has(m, "# reveal incident report\n");
	assert_has(m, "- **Source:** offline detect.csv &amp; test.csv\n");
	assert_has(m, "## Incident 1: critical, net\n");
	assert_has(m, "## Incident 3: major, storage (still open)\n");
	assert_has(m, "| `net.tcp_retrans_segs` | 48 % | 126 segments/s | 1.2 k segments/s | "
		   "2.1 k segments/s | +850 % | 41.2 | +0.0 s |");
	assert_has(m, "1. **TCP retransmit storm starves the input pipeline** "
		   "(`net.retrans_storm`, net): confidence 82 %");
	assert_has(m, "   1. `ss -ti`: retransmits per connection\n");
	/* a '|' in a command outside a table stays as it is, in a code span */
	assert_has(m, "   2. `ethtool -S eth0 | grep -i drop`\n");
	/* a command of two lines is a fenced block */
	assert_has(m, "      ```sh\n      nstat -az TcpRetransSegs\n      sar -n ETCP 1 5\n"
		   "      ```\n");
	assert_has(m, "   **Fix:** Find the dropping hop");

	assert_has(m, "`net.tcp_retrans_segs` up (+0.0 s) \xE2\x86\x92 `cpu.softirq_pct` up "
		   "(+0.4 s) \xE2\x86\x92 `gpu.util_pct` down (+1.2 s)");
	assert_has(m, "No gpu rule of the knowledge base (42 rules) matched this incident.");
	assert_has(m, "**Note:** The raw samples");
	/* the weird name: literal in a code span, '|' free; escaped in text */
	assert_has(m, "`net.bad<&>\"name'`");
	free(m);

	m = render(&report, RV_REPORT_MARKDOWN, 1);
	assert_int_equal(assert_md_tables(m), 1);
	assert_int_equal(lines(m), 2 + 3);
	free(m);
}

/* ---- JSON ---- */

static void test_json(void **state)
{
	(void)state;
	char *j = render(&report, RV_REPORT_JSON, 0);
	if (!json_valid(j))
		fail_msg("invalid JSON:\n%s", j);
	assert_has(j, "{\"report\":{\"title\":\"reveal incident report\",\"source\":\"offline "
		   "detect.csv & test.csv\"");
	assert_has(j, "\"generated_ts\":1764669600,\"generated\":\"2025-12-02T10:00:00Z\"");
	assert_has(j, "\"nincidents\":3,\"nrules\":42");
	assert_has(j, "{\"id\":1,\"host\":\"node-7\",\"start_ts\":1764583200,"
		   "\"start\":\"2025-12-01T10:00:00Z\"");
	assert_has(j, "\"duration_s\":252,\"open\":false,\"windows\":240");
	assert_has(j, "\"detectors\":[\"zscore\",\"pca\",\"iforest\"]");
	assert_has(j, "\"subsystems\":[{\"name\":\"net\",\"share\":0.62}");
	assert_has(j, "{\"name\":\"net.tcp_retrans_segs\",\"unit\":\"segments/s\",\"share\":0.48,"
		   "\"baseline\":126,\"base_sd\":20,\"value\":1197,\"peak\":2140,\"change\":8.5,"
		   "\"change_text\":\"+850 %\",\"z\":41.2,\"dir\":1,\"onset_ts\":1764583200}");
	/* the weird name escaped; NaN and infinity are null */
	assert_has(j, "{\"name\":\"net.bad<&>\\\"name'\",\"unit\":\"\",\"share\":null,"
		   "\"baseline\":0,");
	assert_has(j, "\"change\":null,\"change_text\":\"from 0\",\"z\":null,\"dir\":1,"
		   "\"onset_ts\":null}");
	assert_has(j, "\"v\":[126,129,");
	assert_has(j, "null,null,null,null,null");  /* the gap in the retransmits */
	assert_has(j, "\"band_lo\":null,\"band_hi\":null,\"base_mean\":null");
	assert_has(j, "\"checks\":[{\"cmd\":\"ss -ti\",\"why\":\"retransmits per connection\"}");
	assert_has(j, "{\"cmd\":\"nstat -az TcpRetransSegs\\nsar -n ETCP 1 5\"");
	assert_has(j, "\"chain\":[{\"name\":\"net.tcp_retrans_segs\",\"subsystem\":\"net\","
		   "\"dir\":1,\"onset_ts\":1764583200},");
	assert_has(j, "\"causes\":[],\"notes\":[],\"near\":[],\"chain\":[],\"consumers\":[],"
		   "\"note\":\"The raw samples");
	assert_has(j, "\"confidence\":0.004,\"onset\":false,\"cause\":");
	assert_has(j, "\"host\":\"node-\xC3\xA9t\xC3\xA9\"");
	assert_has(j, "\"open\":true");
	assert_has(j, "{\"name\":\"storage.empty\",\"unit\":\"\",\"band_lo\":null,\"band_hi\":null,"
		   "\"base_mean\":null,\"n\":0,\"ts\":[],\"v\":[]}");
	assert_lacks(j, "nan");
	assert_lacks(j, "inf\"");
	assert_int_equal(count(j, "\n{\"id\":"), 3);
	free(j);
}

static void test_json_escaping(void **state)
{
	(void)state;
	struct rv_report_incident in = {
		.id = UINT64_MAX, .host = "a\"b\\c\x01\n\t\x1f\x7f\xC3\xA9\xE2\x86\x92\xFF\xC3z",
		.start_ts = NAN, .end_ts = INFINITY, .peak_score = -INFINITY, .mean_score = NAN,
		.severity = NULL, .ndetectors = 2, .detectors = NULL, .note = NULL,
	};
	struct rv_report r = { .title = NULL, .source = "s", .nincidents = 1, .incidents = &in,
			       .generated_ts = NAN };
	char *j = render(&r, RV_REPORT_JSON, 0);
	if (!json_valid(j))
		fail_msg("invalid JSON:\n%s", j);
	assert_has(j, "\"title\":null");
	assert_has(j, "\"generated_ts\":null,\"generated\":null");
	assert_has(j, "{\"id\":18446744073709551615,");
	assert_has(j, "\"host\":\"a\\\"b\\\\c\\u0001\\n\\t\\u001f\x7f\xC3\xA9\xE2\x86\x92"
		   "\\ufffd\\ufffdz\"");
	assert_has(j, "\"start_ts\":null,\"start\":null,\"end_ts\":null,\"end\":null,"
		   "\"duration_s\":null");
	assert_has(j, "\"peak_score\":null,\"mean_score\":null,\"severity\":null,\"detectors\":[]");
	assert_has(j, "\"note\":null}");
	free(j);
}

/* ---- HTML ---- */

/* The text between the first `open` at or after p and the next `close`. */
static const char *between(const char *p, const char *open, const char *close, size_t *len)
{
	const char *a = strstr(p, open);
	if (!a)
		return NULL;
	a += strlen(open);
	const char *b = strstr(a, close);
	assert_non_null(b);
	*len = (size_t)(b - a);
	return a;
}

/* Points in a path's d: coordinate pairs after M and L. */
static size_t path_points(const char *d, size_t len)
{
	size_t points = 0;
	for (size_t i = 0; i < len; i++) {
		if (d[i] == 'M' || d[i] == 'L')
			points++;
	}
	return points;
}

/* Checks each <svg>; returns how many there are. */
static size_t assert_svgs(const char *h, size_t *nodata, size_t *subpaths)
{
	size_t n = 0, len = 0;
	*nodata = 0;
	for (const char *p = h; (p = strstr(p, "<svg ")); n++) {
		const char *end = strstr(p, "</svg>");
		assert_non_null(end);
		char *svg = strndup(p, (size_t)(end - p));
		assert_non_null(svg);
		for (const char *q = svg; *q; q++) {
			if (strncmp(q, "nan", 3) == 0 || strncmp(q, "inf", 3) == 0)
				fail_msg("svg %zu has a non-finite number: %.60s", n, q);
		}
		const char *d = between(svg, "<path class=\"value\"", "</path>", &len);
		if (strstr(svg, "class=\"plot nodata\"")) {
			assert_null(d);
			assert_has(svg, ">no data</text>");
			(*nodata)++;
		} else {
			assert_non_null(d);
			d = between(d, " d=\"", "\"", &len);
			assert_non_null(d);
			if (path_points(d, len) < 2)
				fail_msg("svg %zu: path with fewer than 2 points: %.*s", n, (int)len, d);
			*subpaths += count(svg, "M") >= 1;
		}
		assert_has(svg, "<title>");
		assert_has(svg, "class=\"span\"");
		free(svg);
		p = end;
	}
	return n;
}

static void write_html_out(const char *h)
{
	const char *path = getenv("RV_REPORT_HTML_OUT");
	if (!path || !*path)
		return;
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(h, f);
	assert_int_equal(fclose(f), 0);
}

static void test_html(void **state)
{
	(void)state;
	char *h = render(&report, RV_REPORT_HTML, 0);
	write_html_out(h);
	assert_true(strncmp(h, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
	assert_has(h, "<meta charset=\"utf-8\">");
	assert_has(h, "<style>");
	assert_has(h, "</html>\n");
	/* self-contained: no URL, no script, no external reference */
	assert_lacks(h, "http");
	assert_lacks(h, "<script");
	assert_lacks(h, "url(");
	assert_lacks(h, "@import");
	assert_lacks(h, "src=");
	assert_int_equal(count(h, "href=\""), count(h, "href=\"#incident-"));
	/* escaping: the weird name never appears raw */
	assert_lacks(h, WEIRD);
	assert_has(h, "net.bad&lt;&amp;&gt;&quot;name&#39;");
	assert_has(h, "offline detect.csv &amp; test.csv");
	/* cards, content */
	assert_int_equal(count(h, "<section class=\"card"), 3);
	assert_int_equal(count(h, "</section>"), 3);
	assert_has(h, "id=\"incident-1\"");
	assert_has(h, "<td class=\"num\">+850 %</td>");
	assert_has(h, "<td class=\"num\">1.5 MiB/s</td>");
	assert_has(h, "<li><code class=\"cmd\">ss -ti</code> <span class=\"why\">retransmits per "
		   "connection");
	assert_has(h, "<p class=\"nomatch\">No gpu rule of the knowledge base");

	assert_has(h, "<p class=\"note\">Note: The raw samples");
	assert_has(h, "<ol class=\"chain\"><li><code>net.tcp_retrans_segs</code> up (+0.0 s)"
		   "</li><li><code>cpu.softirq_pct</code> up (+0.4 s)</li>");
	/* plots: one per series, each with a drawn path or an explicit no data */
	size_t nodata = 0, subpaths = 0;
	assert_int_equal(assert_svgs(h, &nodata, &subpaths), 5 + 7);
	assert_int_equal(nodata, 2);  /* all NaN, and no samples at all */
	assert_lacks(h, "xmlns");
	free(h);
}

static void test_html_paths(void **state)
{
	(void)state;
	/* the NaN gap of the retransmits breaks the line: two subpaths */
	struct rv_report_incident in = incs[0];
	in.nseries = 1;
	char *h = render(&(struct rv_report){ .nincidents = 1, .incidents = &in }, RV_REPORT_HTML,
			 0);
	size_t len = 0;
	const char *d = between(strstr(h, "<path class=\"value\""), " d=\"", "\"", &len);
	assert_non_null(d);
	char *dd = strndup(d, len);
	assert_int_equal(count(dd, "M"), 2);
	assert_int_equal(path_points(dd, len), NPTS - 5);
	free(dd);
	free(h);

	/* a lone sample between two gaps is a dot: M x y L x y */
	in.series = &ser_1[1];
	h = render(&(struct rv_report){ .nincidents = 1, .incidents = &in }, RV_REPORT_HTML, 0);
	d = between(strstr(h, "<path class=\"value\""), " d=\"", "\"", &len);
	dd = strndup(d, len);
	assert_int_equal(count(dd, "M"), 4);  /* the lone sample is a dash of its own */
	assert_int_equal(path_points(dd, len), NPTS - 2 + 2);
	free(dd);
	free(h);

	/* 5000 samples are cut to buckets, the spike of 500 survives */
	in.series = &ser_1[4];
	h = render(&(struct rv_report){ .nincidents = 1, .incidents = &in }, RV_REPORT_HTML, 0);
	d = between(strstr(h, "<path class=\"value\""), " d=\"", "\"", &len);
	dd = strndup(d, len);
	size_t pts = path_points(dd, len);
	if (pts < 100 || pts > NLONG / 2)
		fail_msg("%zu points", pts);
	free(dd);
	assert_has(h, "5000 samples, 10 to 500");
	free(h);
}

static void test_summary(void **state)
{
	(void)state;
	char *j = render(&report, RV_REPORT_JSON, 1);
	assert_true(json_valid(j));
	assert_int_equal(count(j, "\n{\"id\":"), 3);
	assert_lacks(j, "\"signals\"");
	assert_lacks(j, "\"series\"");
	assert_lacks(j, "\"causes\"");
	assert_has(j, "\"summary\":true");
	assert_has(j, "\"top_signal\":\"net.tcp_retrans_segs\",\"cause\":\"TCP retransmit storm "
		   "starves the input pipeline\",\"confidence\":0.82");
	assert_has(j, "\"top_signal\":\"gpu.mem_used_bytes\",\"cause\":null,\"confidence\":null");
	free(j);
	char *h = render(&report, RV_REPORT_HTML, 1);
	assert_int_equal(count(h, "<tr>"), 1 + 3);
	assert_lacks(h, "<svg");
	assert_lacks(h, "<section");
	assert_lacks(h, "href=");
	assert_lacks(h, "http");
	free(h);
}

static void test_empty(void **state)
{
	(void)state;
	struct rv_report r = { .title = "reveal incident report", .source = "store x.db",
			       .generated_ts = T0, .nrules = 5 };
	for (int summary = 0; summary <= 1; summary++) {
		char *t = render(&r, RV_REPORT_TEXT, summary);
		assert_has(t, "no incidents\n");
		assert_text_shape(t);
		free(t);
		char *m = render(&r, RV_REPORT_MARKDOWN, summary);
		assert_has(m, "no incidents\n");
		assert_int_equal(assert_md_tables(m), 0);
		free(m);
		char *j = render(&r, RV_REPORT_JSON, summary);
		assert_true(json_valid(j));
		assert_has(j, "\"nincidents\":0");
		assert_has(j, "\"incidents\":[]}");
		free(j);
		char *h = render(&r, RV_REPORT_HTML, summary);
		assert_has(h, "<p class=\"empty\">no incidents</p>");
		assert_has(h, "</html>\n");
		assert_lacks(h, "<table");
		free(h);
	}
	/* everything NULL but the struct itself */
	struct rv_report z = { .nincidents = 2 };
	for (int fmt = 0; fmt < 4; fmt++)
		free(render(&z, (enum rv_report_format)fmt, 0));
}

int main(void)
{
	fill_series();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_checker),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_summary),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_html_paths),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
