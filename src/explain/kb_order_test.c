/*
 * kb_order_test.c - the knowledge base's ways of saying how causes relate:
 * the `grows` direction (a signal still rising through the incident),
 * undecided rules (candidates, decided_by: they stand for causes the
 * evidence cannot tell apart, and give way as soon as one of them fires)
 * and yields_to (a rule whose pattern also follows from other causes ranks
 * below them when they fire), with the refusals of their bad forms.
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

#include "explain/evidence.h"
#include "explain/kb.h"
#include "explain/kb_int.h"
#include "explain/kb_testutil.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Matches text's rules against ev; writes the ids fired, best first,
 * space-separated, into ids; returns how many. */
static size_t ranked(const char *text, const struct rv_evidence *ev, char *ids, size_t size)
{
	struct rv_kb *kb = load_ok(text);
	struct rv_kb_match out[RV_KB_MATCH_MAX];
	size_t n = rv_kb_match(kb, ev, 0, out, RV_KB_MATCH_MAX), k = 0;

	ids[0] = '\0';
	for (size_t i = 0; i < n && k < size; i++)
		k += (size_t)snprintf(ids + k, size - k, "%s%s", i ? " " : "",
				      rv_kb_rule_id(out[i].rule));
	rv_kb_free(kb);
	return n;
}

static void refused(const char *text, const char *want);

/* grows: up, its peak excess at least KB_GROWTH times its mean excess, over
 * an incident of at least KB_GROWS_MIN_S. */
static void test_grows(void **state)
{
	static const char rule[] =
		"- {id: r, title: t, cause: c, require: [{signal: \"a*\", dir: grows}]}\n";
	struct rv_evidence_sig s[] = { sig("a", 10) };
	struct rv_evidence ev;
	char ids[64];

	(void)state;
	/* a step: the peak no farther than the mean */
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked(rule, &ev, ids, sizeof(ids)), 0);
	rv_evidence_free(&ev);
	/* a ramp: peak excess 2 x the mean's */
	s[0].peak = 10 + 2 * 10;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked(rule, &ev, ids, sizeof(ids)), 1);
	rv_evidence_free(&ev);
	/* ... just below the ratio */
	s[0].peak = 10 + 1.49 * 10;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked(rule, &ev, ids, sizeof(ids)), 0);
	rv_evidence_free(&ev);
	/* a ramp over too short an incident: a one-time step looks the same */
	s[0].peak = 10 + 2 * 10;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, KB_GROWS_MIN_S - 0.5, &ev), 0);
	assert_int_equal(ranked(rule, &ev, ids, sizeof(ids)), 0);
	rv_evidence_free(&ev);
	/* min_delta: the mean at least this far from the baseline (here 10) */
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked("- {id: r, title: t, cause: c, require: [{signal: a, dir: grows, "
				"min_delta: 10}]}\n", &ev, ids, sizeof(ids)), 1);
	assert_int_equal(ranked("- {id: r, title: t, cause: c, require: [{signal: a, dir: grows, "
				"min_delta: 10.5}]}\n", &ev, ids, sizeof(ids)), 0);
	rv_evidence_free(&ev);
	refused("- {id: r, title: t, cause: c, require: [{signal: a, dir: up, min_delta: -1}]}\n",
		"min_delta: must be 0 or more");
	/* min_peak, max_peak: the sample farthest from the baseline (here 30) */
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked("- {id: r, title: t, cause: c, require: [{signal: a, dir: up, "
				"min_peak: 30, max_peak: 30}]}\n", &ev, ids, sizeof(ids)), 1);
	assert_int_equal(ranked("- {id: r, title: t, cause: c, require: [{signal: a, dir: up, "
				"max_peak: 29}]}\n", &ev, ids, sizeof(ids)), 0);
	assert_int_equal(ranked("- {id: r, title: t, cause: c, require: [{signal: a, dir: up, "
				"min_peak: 31}]}\n", &ev, ids, sizeof(ids)), 0);
	rv_evidence_free(&ev);
	/* a fall is not growth */
	s[0] = sig("a", -10);
	s[0].peak = 10 - 2 * 10;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked(rule, &ev, ids, sizeof(ids)), 0);
	rv_evidence_free(&ev);
}

#define GROUP "- id: g\n  title: t\n  cause: c\n  candidates: [x, y]\n" \
	"  decided_by: the x counter\n  require: [{signal: a, dir: up}]\n"

/* An undecided rule fires only while none of its candidates does. */
static void test_undecided(void **state)
{
	static const char some[] =
		GROUP
		"- {id: x, title: t, cause: c, require: [{signal: b, dir: up}]}\n"
		"- {id: y, title: t, cause: c, require: [{signal: c, dir: up}]}\n"
		"- {id: z, title: t, cause: c, require: [{signal: a, dir: up}]}\n";
	struct rv_evidence_sig s[] = { sig("a", 50), sig("b", 4), sig("c", 0) };
	struct rv_evidence ev;
	struct rv_kb *kb = load_ok(some);
	const struct rv_kb_rule *g = rv_kb_get(kb, 0);
	char ids[64];

	(void)state;
	assert_int_equal(rv_kb_rule_ncandidates(g), 2);
	assert_string_equal(rv_kb_rule_candidate(g, 1), "y");
	assert_null(rv_kb_rule_candidate(g, 2));
	assert_string_equal(rv_kb_rule_decided_by(g), "the x counter");
	assert_int_equal(rv_kb_rule_ncandidates(rv_kb_get(kb, 1)), 0);
	assert_string_equal(rv_kb_rule_decided_by(rv_kb_get(kb, 1)), "");
	rv_kb_free(kb);
	/* x fires: the group gives way, even though it would rank first */
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked(some, &ev, ids, sizeof(ids)), 2);
	assert_string_equal(ids, "z x");
	rv_evidence_free(&ev);
	/* neither candidate: the group stands for them, ranked by confidence */
	s[1] = sig("b", 0);
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked(some, &ev, ids, sizeof(ids)), 2);
	assert_string_equal(ids, "z g");
	rv_evidence_free(&ev);
}

/* yields_to: below each later match it yields to; cycles end. */
static void test_yields(void **state)
{
	static const char chain[] =
		"- {id: gen, title: t, cause: c, yields_to: [spec, other],\n"
		"   require: [{signal: a, dir: up}]}\n"
		"- {id: spec, title: t, cause: c, require: [{signal: b, dir: up}]}\n"
		"- {id: mid, title: t, cause: c, require: [{signal: c, dir: up}]}\n";
	static const char loop[] =
		"- {id: p, title: t, cause: c, yields_to: [q], require: [{signal: a, dir: up}]}\n"
		"- {id: q, title: t, cause: c, yields_to: [p], require: [{signal: b, dir: up}]}\n";
	struct rv_evidence_sig s[] = { sig("a", 90), sig("b", 5), sig("c", 20) };
	struct rv_evidence ev;
	char ids[64];

	(void)state;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	/* by confidence: gen (z 90), mid (20), spec (5); gen yields to spec */
	assert_int_equal(ranked(chain, &ev, ids, sizeof(ids)), 3);
	assert_string_equal(ids, "mid spec gen");
	/* yielding to a rule that did not fire changes nothing */
	rv_evidence_free(&ev);
	s[1] = sig("b", 0);
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked(chain, &ev, ids, sizeof(ids)), 2);
	assert_string_equal(ids, "gen mid");
	rv_evidence_free(&ev);
	/* a cycle: both still listed, the call returns */
	s[1] = sig("b", 5);
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 60, &ev), 0);
	assert_int_equal(ranked(loop, &ev, ids, sizeof(ids)), 2);
	assert_true(strcmp(ids, "p q") == 0 || strcmp(ids, "q p") == 0);
	rv_evidence_free(&ev);
}

static void refused(const char *text, const char *want)
{
	struct rv_kb *kb = NULL;
	struct rv_err err = { 0 };

	assert_int_equal(rv_kb_new(&kb), 0);
	assert_int_equal(rv_kb_load(kb, "t.yaml", text, strlen(text), &err), -EINVAL);
	if (!strstr(err.msg, want))
		fail_msg("error '%s' does not say '%s'", err.msg, want);
	assert_int_equal(rv_kb_count(kb), 0);
	rv_kb_free(kb);
}

#define HEAD "- id: g\n  title: t\n  cause: c\n  require: [{signal: a, dir: up}]\n"

static void test_refusals(void **state)
{
	(void)state;
	refused(HEAD "  candidates: [x]\n  decided_by: d\n", "at least two rule ids");
	refused(HEAD "  candidates: [x, x]\n  decided_by: d\n", "candidates: 'x' twice");
	refused(HEAD "  candidates: [x, y]\n", "candidates and decided_by go together");
	refused(HEAD "  decided_by: d\n", "candidates and decided_by go together");
	refused(HEAD "  candidates: [x, g]\n  decided_by: d\n", "cannot stand for itself");
	refused(HEAD "  candidates: x\n  decided_by: d\n", "expected a list of rule ids");
	refused(HEAD "  candidates: [x, \"b a d\"]\n  decided_by: d\n",
		"only letters, digits");
	refused(HEAD "  candidates: [a, b, c, d, e, f, h, i, j]\n  decided_by: d\n",
		"more than 8 rule ids");
	refused(HEAD "  yields_to: [g]\n", "cannot yield to itself");
	refused(HEAD "  yields_to: [x, x]\n", "yields_to: 'x' twice");
	refused(HEAD "  yields_to: {x: 1}\n", "expected a list of rule ids");
	refused("- {id: g, title: t, cause: c, require: [{signal: a, dir: rising}]}\n",
		"grows");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows),
		cmocka_unit_test(test_undecided),
		cmocka_unit_test(test_yields),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
