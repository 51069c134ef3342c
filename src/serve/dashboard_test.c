/*
 * dashboard_test.c - the dashboard page's contract: small, self-contained
 * (no external script, style, image or font), no markup built from data,
 * polling both API paths, and reading every field of the JSON shapes in
 * dashboard.h that it promises to show.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "serve/dashboard.h"

enum { PAGE_MAX_BYTES = 20 * 1024 };

static const char *page(void)
{
	return rv_dashboard_html;
}

static void test_size_and_shape(void **state)
{
	(void)state;
	assert_int_equal(rv_dashboard_html_len, strlen(page()));
	assert_true(rv_dashboard_html_len < PAGE_MAX_BYTES);
	assert_int_equal(strncmp(page(), "<!DOCTYPE html>\n", 16), 0);
	assert_non_null(strstr(page(), "<meta charset=\"utf-8\">"));
	assert_non_null(strstr(page(), "</html>\n"));
	/* One inline script and one inline style. */
	assert_non_null(strstr(page(), "<script>"));
	assert_null(strstr(strstr(page(), "<script>") + 1, "<script"));
	assert_non_null(strstr(page(), "<style>"));
}

static void test_self_contained(void **state)
{
	static const char *const banned[] = {
		"<script src", "<link rel=\"stylesheet\"", "@import", "url(", "<img", "<iframe",
		"//cdn", "https:", "innerHTML", "outerHTML", "insertAdjacentHTML",
		"document.write", "eval(",
	};
	const char *s = page();

	(void)state;
	for (size_t i = 0; i < sizeof(banned) / sizeof(banned[0]); i++)
		if (strstr(s, banned[i]))
			fail_msg("the page contains '%s'", banned[i]);
	/* The only absolute URL is the SVG namespace name, never fetched. */
	while ((s = strstr(s, "http://")) != NULL) {
		assert_int_equal(strncmp(s, "http://www.w3.org/2000/svg\"", 27), 0);
		s++;
	}
}

static void test_reads_the_api(void **state)
{
	static const char *const wanted[] = {
		"\"api/v1/status\"", "\"api/v1/incidents\"", "2000",
		/* status */
		".host", ".version", ".state", ".learn_progress", ".learn_remaining_s",
		".uptime_s", ".interval_s", ".channels", ".windows_scored", ".fused_score",
		".fused_threshold", ".anomaly", ".detectors", ".score", ".threshold", ".fired",
		".model", ".fitted_at", ".train_windows", ".features", ".sources", ".last_us",
		".unavailable", ".source", ".reason",
		/* incidents */
		".incidents", ".id", ".start", ".end", ".open", ".duration_s", ".subsystem",
		".top_metrics", ".share", ".baseline", ".value",
		/* drawing */
		"createElementNS", "textContent", "svgEl(\"path\"", "class: \"thr\"", "\"learning\"",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (!strstr(page(), wanted[i]))
			fail_msg("the page lacks '%s'", wanted[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_and_shape),
		cmocka_unit_test(test_self_contained),
		cmocka_unit_test(test_reads_the_api),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
