/*
 * json_testutil.h - what json_test.c and json_err_test.c share: parsing a
 * text that must parse, and one that must fail with a given message.
 * Include after <cmocka.h>.
 */
#ifndef RV_BASE_JSON_TESTUTIL_H
#define RV_BASE_JSON_TESTUTIL_H

#include <errno.h>
#include <string.h>

#include "base/json.h"

static inline struct rv_json_doc *parse_n(const char *text, size_t len)
{
	struct rv_json_doc *d = NULL;
	struct rv_err err = { 0 };
	int rc = rv_json_parse(text, len, "t.json", &d, &err);

	if (rc != 0 || !d)
		fail_msg("'%.*s' does not parse: %d %s", (int)(len < 200 ? len : 200), text, rc,
			 err.msg);
	return d;
}

static inline struct rv_json_doc *parse(const char *text)
{
	return parse_n(text, strlen(text));
}

/* text[0..len) must fail with -EINVAL and a message starting with want. */
static inline void expect_error_n(const char *text, size_t len, const char *want)
{
	struct rv_json_doc *d = (struct rv_json_doc *)&d;
	struct rv_err err = { 0 };
	int rc = rv_json_parse(text, len, "t.json", &d, &err);

	if (rc != -EINVAL || d != NULL || err.code != -EINVAL ||
	    strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("'%.*s': rc %d, message '%s', want '%s'", (int)(len < 200 ? len : 200), text,
			 rc, err.msg, want);
}

static inline void expect_error(const char *text, const char *want)
{
	expect_error_n(text, strlen(text), want);
}

#endif
