/*
 * yamlread_test.c - the event stream of yaml/yamlread.h: YAML's nulls and
 * the kinds of node as messages name them, the FILE:LINE:COL of syntax and
 * encoding errors (an encoding error by byte offset, on a later line),
 * anchors and aliases refused with their name cut at quote_max, and the
 * root of the one document a text may hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "yaml/yamlread.h"

/* Reads every event of text; the first error's rc, or 0. */
static int read_all(const char *text, int quote_max, struct rv_err *err)
{
	struct rv_yaml y;
	int rc;

	rv_err_clear(err);
	rc = rv_yaml_init(&y, "t.yaml", text, strlen(text), quote_max, err);
	assert_int_equal(rc, 0);
	while ((rc = rv_yaml_next(&y)) == 0 && y.ev.type != YAML_STREAM_END_EVENT)
		;
	rv_yaml_fini(&y);
	return rc;
}

/* The scalars of a flow list: which are null; the kinds of three nodes;
 * an empty value. */
static void test_null_and_kind(void **state)
{
	static const char text[] = "[~, null, Null, NULL, '', \"~\", x, nULL, {a: b}, [c]]";
	static const int want_null[] = { 1, 1, 1, 1, 0, 0, 0, 0 };
	struct rv_yaml y;
	struct rv_err err;
	size_t n = 0;
	int rc;

	rv_err_clear(&err);
	assert_int_equal(rv_yaml_init(&y, "t.yaml", text, strlen(text), 8, &err), 0);
	for (int i = 0; i < 3; i++)  /* STREAM_START, DOCUMENT_START, SEQUENCE_START */
		assert_int_equal(rv_yaml_next(&y), 0);
	assert_string_equal(rv_yaml_node_kind(&y.ev), "a list");
	while ((rc = rv_yaml_next(&y)) == 0 && y.ev.type == YAML_SCALAR_EVENT) {
		assert_true(n < sizeof(want_null) / sizeof(want_null[0]));
		if (rv_yaml_is_null(&y.ev) != want_null[n])
			fail_msg("scalar %zu ('%s'): is_null %d", n, y.ev.data.scalar.value,
				 !want_null[n]);
		assert_string_equal(rv_yaml_node_kind(&y.ev), "a single value");
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, sizeof(want_null) / sizeof(want_null[0]));
	assert_string_equal(rv_yaml_node_kind(&y.ev), "a mapping");
	assert_int_equal(rv_yaml_is_null(&y.ev), 0);
	rv_yaml_fini(&y);

	assert_int_equal(rv_yaml_init(&y, "t.yaml", "a:\n", 3, 8, &err), 0);
	for (int i = 0; i < 5; i++)  /* ..., MAPPING_START, "a", its value */
		assert_int_equal(rv_yaml_next(&y), 0);
	assert_int_equal(y.ev.type, YAML_SCALAR_EVENT);
	assert_int_equal(rv_yaml_is_null(&y.ev), 1);
	rv_yaml_fini(&y);
}

struct err_case {
	const char *text;
	int quote_max;
	const char *want;     /* the whole message */
};

static const struct err_case err_cases[] = {
	{ "a: &anchor 1\n", 64, "t.yaml:1:4: anchors (&anchor) are not supported" },
	{ "a: &anchor 1\n", 3, "t.yaml:1:4: anchors (&anc) are not supported" },
	{ "a: 1\nb: &s [1]\n", 64, "t.yaml:2:4: anchors (&s) are not supported" },
	{ "a: 1\nb: &m {c: 1}\n", 64, "t.yaml:2:4: anchors (&m) are not supported" },
	{ "a: 1\nb: *alias\n", 64, "t.yaml:2:4: aliases (*alias) are not supported" },
	{ "a: 1\nb: *alias\n", 2, "t.yaml:2:4: aliases (*al) are not supported" },
	{ "a: 1\nb: 1: 2\n", 64, "t.yaml:2:5: mapping values are not allowed in this context" },
	{ "a: [1\n", 64, "t.yaml:2:1: did not find expected ',' or ']' "
	  "(while parsing a flow sequence at 1:4)" },
	{ "a: 1\nb: 2\nc: caf\xc3\n", 64, "t.yaml:3:8: invalid trailing UTF-8 octet" },
};

static void test_errors(void **state)
{
	struct rv_err err;

	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		int rc = read_all(c->text, c->quote_max, &err);

		if (rc != -EINVAL || err.code != -EINVAL || strcmp(err.msg, c->want) != 0)
			fail_msg("'%s': rc %d '%s', not '%s'", c->text, rc, err.msg, c->want);
	}
}

/* Good text reads to its end; NULL err is allowed; the place of a mark. */
static void test_good_and_at(void **state)
{
	struct rv_yaml y;
	struct rv_err err;
	char buf[64];
	yaml_mark_t m = { .line = 2, .column = 6 };
	int rc;

	assert_int_equal(read_all("", 8, &err), 0);
	assert_int_equal(read_all("a: [1, {b: ~}]\n---\nc\n", 8, &err), 0);
	assert_int_equal(rv_yaml_init(&y, "x", "a: *b\n", 6, 8, NULL), 0);
	while ((rc = rv_yaml_next(&y)) == 0 && y.ev.type != YAML_STREAM_END_EVENT)
		;
	assert_int_equal(rc, -EINVAL);
	assert_string_equal(rv_yaml_at(&y, m, buf, sizeof(buf)), "x:3:7: ");
	rv_yaml_fini(&y);
}

/* The root of the one document, none, or a second document refused. */
static void test_documents(void **state)
{
	static const struct {
		const char *text;
		yaml_event_type_t root;
		const char *want;   /* rv_yaml_end's message, or NULL */
	} cases[] = {
		{ "", YAML_STREAM_END_EVENT, NULL },
		{ "# a comment\n", YAML_STREAM_END_EVENT, NULL },
		{ "--- x\n...\n", YAML_SCALAR_EVENT, NULL },
		{ "- a\n", YAML_SEQUENCE_START_EVENT, NULL },
		{ "a\n---\nb\n", YAML_SCALAR_EVENT,
		  "t.yaml:2:1: only one YAML document is allowed" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rv_yaml y;
		struct rv_err err;
		int rc;

		rv_err_clear(&err);
		assert_int_equal(rv_yaml_init(&y, "t.yaml", cases[i].text, strlen(cases[i].text), 8,
					      &err), 0);
		assert_int_equal(rv_yaml_root(&y), 0);
		assert_int_equal(y.ev.type, cases[i].root);
		if (cases[i].root == YAML_SEQUENCE_START_EVENT)  /* to the root's last event */
			while (rv_yaml_next(&y) == 0 && y.ev.type != YAML_SEQUENCE_END_EVENT)
				;
		if (cases[i].root != YAML_STREAM_END_EVENT) {
			rc = rv_yaml_end(&y);
			assert_int_equal(rc, cases[i].want ? -EINVAL : 0);
			assert_string_equal(err.msg, cases[i].want ? cases[i].want : "");
		}
		rv_yaml_fini(&y);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_and_kind),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_good_and_at),
		cmocka_unit_test(test_documents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
