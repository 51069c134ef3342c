/*
 * promtext_test.c - the exposition writer's exact output (families, labels
 * with escapes, special and integral values), reuse after reset, name
 * checks, the sticky failure, and a page read back by `promtool check
 * metrics` (a declared test dependency: the test fails when it is missing).
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
#include <sys/wait.h>

#include <cmocka.h>

#include "serve/promtext.h"

static void test_family_and_samples(void **state)
{
	struct rv_promtext p;
	const char *const cpu0[] = { "channel", "cpu.busy_pct:cpu0", NULL };
	const char *const two[] = { "a", "1", "b", "x y", NULL };
	size_t len;

	(void)state;
	rv_prom_init(&p);
	assert_string_equal(rv_prom_text(&p, &len), "");
	assert_int_equal(len, 0);
	assert_int_equal(rv_prom_family(&p, "reveal_value", "gauge", "Last value of a channel."), 0);
	assert_int_equal(rv_prom_family(&p, "reveal_value", "gauge", "again"), 0);  /* once */
	assert_int_equal(rv_prom_sample(&p, "reveal_value", cpu0, 98.5), 0);
	assert_int_equal(rv_prom_sample(&p, "reveal_value", two, 3), 0);
	assert_int_equal(rv_prom_family(&p, "reveal_windows_total", "counter", NULL), 0);
	assert_int_equal(rv_prom_sample(&p, "reveal_windows_total", NULL, 120), 0);
	assert_int_equal(rv_prom_family(&p, "up:ratio", "untyped", "a\\b\nc \"q\""), 0);
	assert_int_equal(rv_prom_sample(&p, "up:ratio", (const char *const[]){ NULL }, 0.25), 0);
	assert_string_equal(rv_prom_text(&p, &len),
		"# HELP reveal_value Last value of a channel.\n"
		"# TYPE reveal_value gauge\n"
		"reveal_value{channel=\"cpu.busy_pct:cpu0\"} 98.5\n"
		"reveal_value{a=\"1\",b=\"x y\"} 3\n"
		"# TYPE reveal_windows_total counter\n"
		"reveal_windows_total 120\n"
		"# HELP up:ratio a\\\\b\\nc \"q\"\n"
		"# TYPE up:ratio untyped\n"
		"up:ratio 0.25\n");
	assert_int_equal(len, strlen(rv_prom_text(&p, NULL)));
	/* A family seen earlier with others after it would split its samples. */
	assert_int_equal(rv_prom_family(&p, "reveal_value", "gauge", NULL), -EEXIST);
	assert_int_equal(rv_prom_failed(&p), 0);
	rv_prom_fini(&p);
	rv_prom_fini(NULL);
}

static void test_label_escapes(void **state)
{
	struct rv_promtext p;
	const char *const lab[] = {
		"path", "C:\\dir\\x", "quote", "say \"hi\"", "nl", "a\nb", "utf8", "\xc2\xb5s", NULL,
	};

	(void)state;
	rv_prom_init(&p);
	assert_int_equal(rv_prom_sample(&p, "m", lab, 1), 0);
	assert_string_equal(rv_prom_text(&p, NULL),
		"m{path=\"C:\\\\dir\\\\x\",quote=\"say \\\"hi\\\"\",nl=\"a\\nb\",utf8=\"\xc2\xb5s\"} 1\n");
	rv_prom_fini(&p);
}

static void test_values(void **state)
{
	static const struct { double v; const char *want; } cases[] = {
		{ 0.0, "0" }, { -0.0, "0" }, { 1.0, "1" }, { -3.0, "-3" }, { 42.0, "42" },
		{ 1733000000.0, "1733000000" }, { 9007199254740991.0, "9007199254740991" },
		{ 9007199254740992.0, "9007199254740992" }, { 1152921504606846976.0, "1.152921504606847e+18" },
		{ 1e20, "1e+20" },
		{ 0.1, "0.1" }, { 0.25, "0.25" }, { -1.5, "-1.5" }, { 1e-7, "1e-07" },
		{ 0.30000000000000004, "0.30000000000000004" }, { 1.0 / 3.0, "0.3333333333333333" },
		{ 1733000000.123, "1733000000.123" }, { 2.5e-300, "2.5e-300" },
		{ NAN, "NaN" }, { -NAN, "NaN" }, { INFINITY, "+Inf" }, { -INFINITY, "-Inf" },
	};
	char buf[RV_PROM_VALUE_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = rv_prom_fmt_value(cases[i].v, buf);

		assert_string_equal(buf, cases[i].want);
		assert_int_equal(n, strlen(cases[i].want));
		if (isfinite(cases[i].v))   /* every finite value reads back exactly */
			assert_true(strtod(buf, NULL) == cases[i].v);
	}
}

static void test_sample_special_values(void **state)
{
	struct rv_promtext p;

	(void)state;
	rv_prom_init(&p);
	assert_int_equal(rv_prom_family(&p, "v", "gauge", NULL), 0);
	assert_int_equal(rv_prom_sample(&p, "v", (const char *const[]){ "k", "nan", NULL }, NAN), 0);
	assert_int_equal(rv_prom_sample(&p, "v", (const char *const[]){ "k", "pinf", NULL }, INFINITY), 0);
	assert_int_equal(rv_prom_sample(&p, "v", (const char *const[]){ "k", "ninf", NULL }, -INFINITY), 0);
	assert_int_equal(rv_prom_sample(&p, "v", (const char *const[]){ "k", "big", NULL }, 1e300), 0);
	assert_string_equal(rv_prom_text(&p, NULL),
		"# TYPE v gauge\n"
		"v{k=\"nan\"} NaN\n"
		"v{k=\"pinf\"} +Inf\n"
		"v{k=\"ninf\"} -Inf\n"
		"v{k=\"big\"} 1e+300\n");
	rv_prom_fini(&p);
}

static void write_page(struct rv_promtext *p, int n)
{
	char val[32];

	assert_int_equal(rv_prom_family(p, "reveal_channel_value", "gauge", "Last value."), 0);
	for (int i = 0; i < n; i++) {
		snprintf(val, sizeof(val), "cpu.busy_pct:cpu%d", i);
		assert_int_equal(rv_prom_sample(p, "reveal_channel_value",
			(const char *const[]){ "channel", val, NULL }, i * 0.5), 0);
	}
}

static void test_reset_reuses_buffer(void **state)
{
	struct rv_promtext p;
	char *first, *buf;
	size_t len, cap;

	(void)state;
	rv_prom_init(&p);
	write_page(&p, 500);   /* larger than the first buffer: it grew */
	first = strdup(rv_prom_text(&p, &len));
	assert_non_null(first);
	assert_true(len > 4096);
	buf = p.page.data;
	cap = p.page.cap;
	for (int round = 0; round < 3; round++) {
		rv_prom_reset(&p);
		assert_string_equal(rv_prom_text(&p, NULL), "");
		write_page(&p, 500);
		assert_ptr_equal(p.page.data, buf);   /* no new allocation once warm */
		assert_int_equal(p.page.cap, cap);
		assert_string_equal(rv_prom_text(&p, NULL), first);
	}
	free(first);
	rv_prom_fini(&p);
}

static void test_name_checks(void **state)
{
	static const struct { const char *name; int metric, label; } cases[] = {
		{ "a", 1, 1 }, { "_x", 1, 1 }, { "reveal_fused_score", 1, 1 },
		{ "job:rate5m", 1, 0 }, { ":x", 1, 0 }, { "A9_z", 1, 1 }, { "__name__", 1, 1 },
		{ "", 0, 0 }, { "9a", 0, 0 }, { "a-b", 0, 0 }, { "a.b", 0, 0 }, { "a b", 0, 0 },
		{ "\xc2\xb5", 0, 0 }, { "a\n", 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(rv_prom_name_ok(cases[i].name), cases[i].metric);
		assert_int_equal(rv_prom_label_name_ok(cases[i].name), cases[i].label);
	}
	assert_int_equal(rv_prom_name_ok(NULL), 0);
	assert_int_equal(rv_prom_label_name_ok(NULL), 0);
}

static void test_rejects_bad_input(void **state)
{
	struct rv_promtext p;

	(void)state;
	rv_prom_init(&p);
	assert_int_equal(rv_prom_family(&p, "bad-name", "gauge", NULL), -EINVAL);
	assert_int_equal(rv_prom_family(&p, "ok", "gaugee", NULL), -EINVAL);
	assert_int_equal(rv_prom_family(&p, "ok", NULL, NULL), -EINVAL);
	assert_int_equal(rv_prom_sample(&p, "cpu.busy", NULL, 1), -EINVAL);
	assert_int_equal(rv_prom_sample(&p, "m", (const char *const[]){ "a:b", "v", NULL }, 1), -EINVAL);
	assert_int_equal(rv_prom_sample(&p, "m", (const char *const[]){ "a", NULL }, 1), -EINVAL);
	assert_int_equal(rv_prom_sample(&p, "m", (const char *const[]){ "a", "1", "a", "2", NULL }, 1),
			 -EINVAL);
	assert_string_equal(rv_prom_text(&p, NULL), "");   /* nothing of them written */
	assert_int_equal(rv_prom_failed(&p), 0);           /* and no sticky failure */
	assert_int_equal(rv_prom_family(&p, "ok", "histogram", NULL), 0);
	rv_prom_fini(&p);
}

static void test_sticky_failure(void **state)
{
	struct rv_promtext p;

	(void)state;
	rv_prom_init(&p);
	p.page.max = 64;
	assert_int_equal(rv_prom_sample(&p, "short", NULL, 1), 0);
	assert_int_equal(rv_prom_sample(&p, "m", (const char *const[]){ "k",
		"a value far too long for a page of sixty-four bytes", NULL }, 1), -ENOMEM);
	assert_int_equal(rv_prom_failed(&p), -ENOMEM);
	assert_int_equal(rv_prom_sample(&p, "x", NULL, 1), -ENOMEM);   /* sticky */
	assert_int_equal(rv_prom_family(&p, "x", "gauge", NULL), -ENOMEM);
	rv_prom_reset(&p);
	assert_int_equal(rv_prom_failed(&p), 0);
	assert_int_equal(rv_prom_sample(&p, "x", NULL, 2), 0);
	assert_string_equal(rv_prom_text(&p, NULL), "x 2\n");
	rv_prom_fini(&p);
}

static void test_sanitize(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "cpu.busy_pct:cpu3", "cpu_busy_pct:cpu3" }, { "9lives", "_9lives" },
		{ "", "_" }, { "ok_name", "ok_name" }, { "a-b c", "a_b_c" },
		{ "\xc2\xb5s", "__s" },
	};
	char out[64], small[4];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rv_prom_sanitize(cases[i].in, out, sizeof(out));
		assert_string_equal(out, cases[i].out);
		assert_true(rv_prom_name_ok(out));
	}
	rv_prom_sanitize("abcdef", small, sizeof(small));
	assert_string_equal(small, "abc");
	rv_prom_sanitize("7x", small, 2);
	assert_string_equal(small, "_");
	memset(small, 'z', sizeof(small));
	rv_prom_sanitize("abc", small, 1);
	assert_int_equal(small[0], '\0');
	rv_prom_sanitize("abc", small, 0);   /* writes nothing */
	assert_int_equal(small[1], 'z');
}

/* Exit status of cmd (`promtool check metrics ...`) reading text on its
 * stdin. */
static int promtool_check(const char *cmd, const char *text)
{
	FILE *f = popen(cmd, "w");
	int st;

	assert_non_null(f);
	fputs(text, f);
	st = pclose(f);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_promtool_accepts_page(void **state)
{
	struct rv_promtext p;
	const char *const lab[] = { "channel", "gpu.temp_c:gpu0 \"x\"\\\n", NULL };

	(void)state;
	if (system("command -v promtool >/dev/null 2>&1") != 0)
		fail_msg("promtool not found in PATH: it is a declared test dependency "
			 "(Debian package prometheus)");
	rv_prom_init(&p);
	assert_int_equal(rv_prom_family(&p, "reveal_channel_value", "gauge",
					"Last value of a channel\nwith \\ and \"quotes\"."), 0);
	assert_int_equal(rv_prom_sample(&p, "reveal_channel_value", lab, 0.1), 0);
	assert_int_equal(rv_prom_sample(&p, "reveal_channel_value",
		(const char *const[]){ "channel", "nan", NULL }, NAN), 0);
	assert_int_equal(rv_prom_sample(&p, "reveal_channel_value",
		(const char *const[]){ "channel", "inf", NULL }, -INFINITY), 0);
	assert_int_equal(rv_prom_family(&p, "reveal_windows_scored_total", "counter",
					"Windows scored since start."), 0);
	assert_int_equal(rv_prom_sample(&p, "reveal_windows_scored_total", NULL, 1234), 0);
	assert_int_equal(rv_prom_family(&p, "reveal_incidents_open", "gauge", "Open incidents."), 0);
	assert_int_equal(rv_prom_sample(&p, "reveal_incidents_open", NULL, 0), 0);
	assert_int_equal(promtool_check("promtool check metrics", rv_prom_text(&p, NULL)), 0);
	/* The check can fail: promtool rejects a sample line without a value. */
	assert_int_not_equal(promtool_check("promtool check metrics >/dev/null 2>&1",
					    "# TYPE x gauge\nx{a=\"1\"}\n"), 0);
	rv_prom_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_and_samples),
		cmocka_unit_test(test_label_escapes),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_sample_special_values),
		cmocka_unit_test(test_reset_reuses_buffer),
		cmocka_unit_test(test_name_checks),
		cmocka_unit_test(test_rejects_bad_input),
		cmocka_unit_test(test_sticky_failure),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_promtool_accepts_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
