/*
 * kb_testutil.h - test support of kb_test.c and kb_order_test.c (not part
 * of the library): a hand-made evidence entry and a rules text that must
 * load. Header-only, everything static, like kb_testdata.h.
 */
#ifndef RV_EXPLAIN_KB_TESTUTIL_H
#define RV_EXPLAIN_KB_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "explain/evidence.h"
#include "explain/kb.h"

/* A moved entry: base 10 sd 1, value 10 + z, dir from z. */
static struct rv_evidence_sig sig(const char *name, double z)
{
	return (struct rv_evidence_sig){
		.name = name, .base_n = 60, .inc_n = 30, .base_mean = 10, .base_sd = 1,
		.value = 10 + z, .inc_sd = 1, .peak = 10 + z, .z = z, .change = z / 10,
		.dir = fabs(z) >= RV_EV_MOVED_Z ? (z > 0 ? 1 : -1) : 0, .onset_ts = NAN,
	};
}

static struct rv_kb *load_ok(const char *text)
{
	struct rv_kb *kb = NULL;
	struct rv_err err = { 0 };

	assert_int_equal(rv_kb_new(&kb), 0);
	if (rv_kb_load(kb, "t.yaml", text, strlen(text), &err) != 0)
		fail_msg("refused: %s", err.msg);
	return kb;
}

#endif
