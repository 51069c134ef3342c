/*
 * report_num_test.c - the small parts of the report renderers (report.h,
 * report_int.h): format names, change texts, quantities scaled for
 * people, times, durations, UTF-8 widths, the error returns of
 * rv_report_write, and the edge cases of small hand-made reports: text
 * wrapping (long words, long names, escape sequences) and markdown
 * escaping. The fixture report's rendering is tested in report_test.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/report.h"
#include "explain/report_int.h"

#define T0 1764583200.0  /* 2025-12-01T10:00:00Z */


static void test_format_names(void **state)
{
	(void)state;
	static const char *const names[] = { "text", "markdown", "json", "html" };
	for (int i = 0; i < 4; i++) {
		assert_string_equal(rv_report_format_name((enum rv_report_format)i), names[i]);
		assert_int_equal(rv_report_format_parse(names[i]), i);
	}
	assert_int_equal(rv_report_format_parse("HTML"), -1);
	assert_int_equal(rv_report_format_parse("pdf"), -1);
	assert_int_equal(rv_report_format_parse(""), -1);
	assert_int_equal(rv_report_format_parse(NULL), -1);
	assert_string_equal(rv_report_format_name((enum rv_report_format)99), "unknown");
}

static void test_change_text(void **state)
{
	(void)state;
	static const struct {
		double base, value;
		const char *want;
	} cases[] = {
		{ 126, 1197, "+850 %" },   { 100, 58, "-42 %" },     { 100, 100.3, "+0.3 %" },
		{ 0, 5, "from 0" },        { 0, -5, "from 0" },      { 5, 5, "no change" },
		{ 0, 0, "no change" },     { NAN, 1, "?" },          { 1, NAN, "?" },
		{ 1, INFINITY, "?" },      { -10, -5, "+50 %" },     { -10, -20, "-100 %" },
		{ 100, 100.01, "+0.01 %" }, { 100, 0, "-100 %" },    { 1, 3e6, "+3e+08 %" },
		{ 4.1, 9.2, "+124 %" },    { 100, 109.9, "+9.9 %" }, { -1e308, 1e308, "+200 %" },
		{ 5e-324, 1e308, "from ~0" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[32];
		rv_report_change_text(cases[i].base, cases[i].value, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want) != 0)
			fail_msg("change %g -> %g: got \"%s\", want \"%s\"", cases[i].base,
				 cases[i].value, buf, cases[i].want);
	}
	char small[4];
	rv_report_change_text(126, 1197, small, sizeof(small));
	assert_string_equal(small, "+85");
	rv_report_change_text(1, 2, NULL, 0);  /* no buffer: nothing happens */
}

static void test_quantities(void **state)
{
	(void)state;
	static const struct {
		double v;
		const char *unit;
		double step;
		const char *want;
	} cases[] = {
		{ 1234, "packets/s", 0, "1.2 k packets/s" }, { 3.4e6, "", 0, "3.4 M" },
		{ 1572864, "bytes/s", 0, "1.5 MiB/s" },      { 8589934592.0, "bytes", 0, "8 GiB" },
		{ 512, "bytes", 0, "512 B" },                { 45.23, "%", 0, "45.2 %" },
		{ 126, "segments/s", 0, "126 segments/s" },  { 0.004, "", 0, "0.004" },
		{ 0.42, "", 0, "0.42" },                     { 999.7, "", 0, "1 k" },
		{ -2500, "W", 0, "-2.5 k W" },               { 0, "%", 0, "0 %" },
		{ NAN, "%", 0, "n/a" },                      { INFINITY, "", 0, "inf" },
		{ 1.2e-5, "", 0, "1.2e-05" },                { 1e300, "", 0, "1e+300" },
		{ 1.4, "", 0.2, "1.4" },                  { 1500, "", 500, "1.5 k" },
		{ 2000, "", 500, "2 k" },                    { 0.0002, "", 0.0001, "0.0002" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[RV_REPORT_CELL];
		rv_report_qty(cases[i].v, cases[i].unit, cases[i].step, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want) != 0)
			fail_msg("qty %g %s: got \"%s\", want \"%s\"", cases[i].v, cases[i].unit, buf,
				 cases[i].want);
	}
	char buf[RV_REPORT_CELL];
	rv_report_duration(252, buf, sizeof(buf));
	assert_string_equal(buf, "4m 12s");
	rv_report_duration(7325, buf, sizeof(buf));
	assert_string_equal(buf, "2h 02m");
	rv_report_duration(12.44, buf, sizeof(buf));
	assert_string_equal(buf, "12.4 s");
	rv_report_duration(-1, buf, sizeof(buf));
	assert_string_equal(buf, "?");
	rv_report_iso(T0, buf, sizeof(buf));
	assert_string_equal(buf, "2025-12-01T10:00:00Z");
	rv_report_iso(NAN, buf, sizeof(buf));
	assert_string_equal(buf, "?");
	assert_int_equal(rv_report_width("a\xC3\xA9z"), 3);
	assert_int_equal(rv_report_width("\xFF\xC3"), 2);
}

static void test_errors(void **state)
{
	(void)state;
	static const struct rv_report_incident in = { .id = 1, .start_ts = T0, .end_ts = T0 + 5,
						      .severity = "minor" };
	static const struct rv_report report = { .title = "t", .nincidents = 1, .incidents = &in };
	assert_int_equal(rv_report_write(NULL, &report, RV_REPORT_TEXT, 0), -EINVAL);
	assert_int_equal(rv_report_write(stdout, NULL, RV_REPORT_TEXT, 0), -EINVAL);
	assert_int_equal(rv_report_write(stdout, &report, (enum rv_report_format)7, 0), -EINVAL);
	assert_int_equal(rv_report_write(stdout, &report, (enum rv_report_format)-1, 0), -EINVAL);
	/* a stream that cannot be written: the error flag is set, -EIO */
	FILE *ro = fopen("/dev/null", "r");
	assert_non_null(ro);
	for (int fmt = 0; fmt < 4; fmt++) {
		for (int summary = 0; summary <= 1; summary++) {
			clearerr(ro);
			assert_int_equal(rv_report_write(ro, &report, (enum rv_report_format)fmt,
							 summary), -EIO);
		}
	}
	fclose(ro);
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

/* Every line of the text format within RV_REPORT_WIDTH code points. */
static void assert_width(const char *s)
{
	for (const char *line = s; *line; line += strcspn(line, "\n") + 1) {
		char *one = strndup(line, strcspn(line, "\n"));
		assert_non_null(one);
		if (rv_report_width(one) > RV_REPORT_WIDTH)
			fail_msg("wider than %d columns: %s", RV_REPORT_WIDTH, one);
		free(one);
		if (!line[strcspn(line, "\n")])
			break;
	}
}

static void test_text_wrap(void **state)
{
	(void)state;
	char note[700], word[160];
	size_t off = 0;
	for (int i = 0; i < 60; i++)
		off += (size_t)snprintf(note + off, sizeof(note) - off, "word%02d ", i);
	memset(word, 'x', sizeof(word) - 1);
	word[sizeof(word) - 1] = '\0';
	snprintf(note + off, sizeof(note) - off, "%s tail\x1b[31m", word);
	struct rv_report_signal sig = { "cpu.\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9_a_very_long_signal_"
					"name_that_does_not_fit_in_the_name_column_of_the_table",
					"packets/s", 0.5, 1, 0, 2, 3, 1, 5, 1, NAN };
	struct rv_report_incident in = { .id = 9, .start_ts = T0, .end_ts = T0 + 1,
					 .severity = "major", .nsignals = 1, .signals = &sig,
					 .note = note };
	struct rv_report r = { .title = "t", .source = "s", .nincidents = 1, .incidents = &in };
	char *t = render(&r, RV_REPORT_TEXT, 0);
	assert_width(t);
	assert_has(t, "Note: word00 word01");
	assert_has(t, "word59");
	assert_has(t, "xxxxxxxx\n");  /* the long word was cut */
	assert_null(strchr(t, 0x1b));  /* the escape sequence is defused */
	assert_has(t, "_table\n");    /* the long name on its own line */
	free(t);
}

static void test_markdown_escaping(void **state)
{
	(void)state;
	struct rv_report_signal sig = { "a|b`c", "", NAN, 1, 0, 2, 2, 1, 1, 1, NAN };
	struct rv_report_incident in = { .id = 4, .severity = "minor|x", .nsignals = 1,
					 .signals = &sig, .note = "*bold* <b> _x_ [l](u) #h" };
	struct rv_report r = { .title = "T", .source = "S", .nincidents = 1, .incidents = &in };
	char *m = render(&r, RV_REPORT_MARKDOWN, 0);
	assert_has(m, "| ``a\\|b`c`` |");
	assert_has(m, "\\*bold\\* &lt;b&gt; \\_x\\_ \\[l\\](u) \\#h");
	assert_has(m, "| minor\\|x |");
	free(m);
}

/* The values that break plots and number formatting, in every role. */
static const double extremes[] = { NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, DBL_MIN,
				   5e-324, -0.0, 0, 1e-300, 1e300, 1, -7.5 };
enum { NEXT = sizeof(extremes) / sizeof(extremes[0]) };

/* No "nan" or "inf" written as a number (the names here have neither). */
static void assert_finite_numbers(const char *s, const char *what)
{
	for (const char *p = s; *p; p++) {
		if (strncmp(p, "nan", 3) == 0 || strncmp(p, "inf", 3) == 0)
			fail_msg("%s: a non-finite number: %.40s", what, p);
	}
}

static void render_extreme(double a, double b, double t)
{
	double ts[4] = { t, t + 1, NAN, t + 3 }, v[4] = { a, b, a, b };
	struct rv_report_series ser = { "x.series", "bytes", 4, ts, v, a, b, b };
	struct rv_report_signal sig = { "x.signal", "%", a, a, b, b, a, b, a, 1, b };
	struct rv_report_step chain[2] = { { "x.a", "cpu", 1, a }, { "x.b", "gpu", -1, b } };
	struct rv_report_incident in = { .id = 1, .start_ts = t, .end_ts = t + b, .windows = 1,
					 .peak_score = a, .mean_score = b, .severity = "major",
					 .nsignals = 1, .signals = &sig, .nseries = 1, .series = &ser,
					 .nchain = 2, .chain = chain };
	struct rv_report r = { .title = "x", .source = "y", .generated_ts = a, .nincidents = 1,
			       .incidents = &in };
	for (int fmt = 0; fmt < 4; fmt++) {
		char *out = render(&r, (enum rv_report_format)fmt, 0);
		if (fmt == RV_REPORT_TEXT)
			assert_width(out);
		if (fmt == RV_REPORT_JSON)
			assert_finite_numbers(out, "json");
		if (fmt == RV_REPORT_HTML) {
			const char *svg = strstr(out, "<svg");
			assert_non_null(svg);
			char *plot = strndup(svg, (size_t)(strstr(svg, "</svg>") - svg));
			assert_finite_numbers(strstr(plot, "<rect"), "svg");
			free(plot);
		}
		free(out);
	}
}

static void test_extremes(void **state)
{
	(void)state;
	for (size_t i = 0; i < NEXT; i++) {
		for (size_t j = 0; j < NEXT; j++) {
			render_extreme(extremes[i], extremes[j], T0);
			render_extreme(extremes[i], extremes[j], extremes[(i + j) % NEXT]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_change_text),
		cmocka_unit_test(test_quantities),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_text_wrap),
		cmocka_unit_test(test_markdown_escaping),
		cmocka_unit_test(test_extremes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
