/*
 * kb_test.c - the knowledge base: the built-in rules, the confusion matrix
 * of crafted incidents, condition semantics, the confidence formula,
 * override semantics, and the refusals of bad or oversized rule files.
 *
 * The confusion matrix: for every built-in rule a synthetic incident
 * (kb_testdata.h: 60 baseline samples and 30 incident samples 0.5 s
 * apart, 0.5 % seeded noise, ~300 channels with realistic names: ~45
 * background channels that never move, per-CPU members cpu0..cpu7 of
 * eleven families, the signals the rules read, GPM and NVLink channels)
 * shows that rule's pattern; run through rv_evidence_build and
 * rv_kb_match, that rule must be the only one to fire; in a ranked case,
 * one more rule fires, the one that yields_to it, and ranks second. A
 * built-in rule without a case fails the test, so a new rule
 * comes with its case. On failure the whole matrix is printed (always
 * with RV_KB_TEST_MATRIX=1 in the environment).
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
#include "explain/kb_testdata.h"
#include "explain/kb_testutil.h"

static const double EPS = 1e-9;

/* ---- built-in rules ---- */

static struct rv_kb *builtin(void)
{
	struct rv_kb *kb = NULL;
	struct rv_err err = { 0 };
	size_t len;
	const char *text = rv_kb_builtin_text(&len);

	assert_int_equal(rv_kb_new(&kb), 0);
	if (rv_kb_load(kb, "rules.yaml", text, len, &err) != 0)
		fail_msg("built-in rules refused: %s", err.msg);
	return kb;
}

static void test_builtin_loads(void **state)
{
	static const char *const subs[] = { "cpu", "gpu", "mem", "net", "storage" };
	struct rv_kb *kb = builtin(), *kb2 = NULL;
	size_t len, n = rv_kb_count(kb);

	(void)state;
	assert_int_equal(rv_kb_new_builtin(&kb2, NULL), 0);
	assert_non_null(rv_kb_builtin_text(&len));
	assert_true(len > 0);
	assert_int_equal(strlen(rv_kb_builtin_text(NULL)), len);
	assert_non_null(kb2);
	assert_int_equal(rv_kb_count(kb2), n);
	assert_true(n >= 12);
	for (size_t i = 0; i < n; i++) {
		const struct rv_kb_rule *r = rv_kb_get(kb, i);
		int sub_ok = 0;

		for (size_t j = 0; j < i; j++)
			if (strcmp(rv_kb_rule_id(r), rv_kb_rule_id(rv_kb_get(kb, j))) == 0)
				fail_msg("duplicate id %s", rv_kb_rule_id(r));
		assert_true(strlen(rv_kb_rule_title(r)) > 0);
		assert_true(strlen(rv_kb_rule_cause(r)) > 0);
		assert_true(strlen(rv_kb_rule_fix(r)) > 0);
		assert_true(rv_kb_rule_nchecks(r) >= 3);
		for (size_t j = 0; j < NELEM(subs); j++)
			sub_ok |= strcmp(rv_kb_rule_subsystem(r), subs[j]) == 0;
		if (!sub_ok)
			fail_msg("%s: subsystem %s", rv_kb_rule_id(r), rv_kb_rule_subsystem(r));
		for (size_t j = 0; j < rv_kb_rule_nchecks(r); j++) {
			assert_true(strlen(rv_kb_rule_check(r, j)) > 0);
			assert_non_null(rv_kb_rule_check_why(r, j));
		}
		assert_null(rv_kb_rule_check(r, rv_kb_rule_nchecks(r)));
	}
	assert_null(rv_kb_get(kb, n));
	rv_kb_free(kb);
	rv_kb_free(kb2);
}

/* ---- the confusion matrix ---- */

enum { NCASES = NELEM(cases) + NELEM(ranked_cases) };

/* Case i of both tables: cases[] first, then ranked_cases[]; *below is the
 * rule that must rank second, NULL when the case's rule fires alone. */
static const struct scenario *case_at(size_t i, const char **below)
{
	*below = NULL;
	if (i < NELEM(cases))
		return &cases[i];
	*below = ranked_cases[i - NELEM(cases)].below;
	return &ranked_cases[i - NELEM(cases)].sc;
}

static const struct scenario *case_of(const char *id)
{
	const char *below;

	for (size_t i = 0; i < NCASES; i++)
		if (strcmp(case_at(i, &below)->rule, id) == 0)
			return case_at(i, &below);
	return NULL;
}

static size_t rule_index(const struct rv_kb *kb, const struct rv_kb_rule *r)
{
	for (size_t i = 0; i < rv_kb_count(kb); i++)
		if (rv_kb_get(kb, i) == r)
			return i;
	return SIZE_MAX;
}

static void print_matrix(const struct rv_kb *kb, const double *conf, size_t nrules)
{
	print_message("confusion matrix: rows are the crafted cases, columns the rules "
		      "(confidence x100 of each rule that fired; '.' none)\n");
	for (size_t j = 0; j < nrules; j++)
		print_message("  r%-2zu %s\n", j, rv_kb_rule_id(rv_kb_get(kb, j)));
	print_message("%-28s", "case \\ rule");
	for (size_t j = 0; j < nrules; j++)
		print_message(" r%-2zu", j);
	print_message("\n");
	for (size_t i = 0; i < NCASES; i++) {
		const char *below;

		print_message("%-28s", case_at(i, &below)->rule);
		for (size_t j = 0; j < nrules; j++) {
			double c = conf[i * nrules + j];

			if (isnan(c))
				print_message("   .");
			else
				print_message(" %3.0f", c * 100);
		}
		print_message("\n");
	}
}

/* Runs case i; returns 1 when its rule is the only one that fired (in a
 * ranked case: fired first, and its `below` second and last). */
static int run_case(const struct rv_kb *kb, struct host *h, size_t i, double *row)
{
	struct rv_kb_match out[RV_KB_MATCH_MAX];
	struct rv_evidence ev;
	const char *below;
	const struct scenario *sc = case_at(i, &below);
	size_t n;
	int ok;

	host_fill(h, sc, 1000 + i);
	host_evidence(h, &ev);
	n = rv_kb_match(kb, &ev, 0, out, RV_KB_MATCH_MAX);
	for (size_t k = 0; k < n; k++) {
		size_t j = rule_index(kb, out[k].rule);

		assert_true(j < rv_kb_count(kb));
		assert_true(out[k].confidence >= 0 && out[k].confidence <= 1);
		assert_true(out[k].nev >= 1);
		row[j] = out[k].confidence;
	}
	ok = n == (below ? 2u : 1u) && strcmp(rv_kb_rule_id(out[0].rule), sc->rule) == 0 &&
	     (!below || strcmp(rv_kb_rule_id(out[1].rule), below) == 0);
	rv_evidence_free(&ev);
	return ok;
}

static void test_confusion_matrix(void **state)
{
	struct rv_kb *kb = builtin();
	size_t nrules = rv_kb_count(kb), bad = 0;
	double *conf = malloc(NCASES * nrules * sizeof(*conf));
	struct host *h = host_new();

	(void)state;
	assert_non_null(conf);
	for (size_t j = 0; j < nrules; j++)
		if (!case_of(rv_kb_rule_id(rv_kb_get(kb, j)))) {
			print_message("rule %s has no crafted case in kb_test.c\n",
				      rv_kb_rule_id(rv_kb_get(kb, j)));
			bad++;
		}
	for (size_t i = 0; i < NCASES * nrules; i++)
		conf[i] = NAN;
	for (size_t i = 0; i < NCASES; i++)
		if (!run_case(kb, h, i, conf + i * nrules)) {
			const char *below, *rule = case_at(i, &below)->rule;

			if (below)
				print_message("case %zu %s: expected rule %s first, %s second, no "
					      "other\n", i, rule, rule, below);
			else
				print_message("case %zu %s: expected only rule %s to fire\n", i,
					      rule, rule);
			bad++;
		}
	if (bad || getenv("RV_KB_TEST_MATRIX"))
		print_matrix(kb, conf, nrules);
	free(conf);
	free(h);
	rv_kb_free(kb);
	assert_int_equal(bad, 0);
}

/* Nothing moves: no rule fires. */
static void test_quiet(void **state)
{
	struct rv_kb *kb = builtin();
	struct host *h = host_new();
	struct rv_kb_match out[RV_KB_MATCH_MAX];
	struct rv_evidence ev;
	size_t n;

	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		host_fill(h, NULL, seed);
		host_evidence(h, &ev);
		n = rv_kb_match(kb, &ev, 0, out, RV_KB_MATCH_MAX);
		for (size_t k = 0; k < n; k++)
			print_message("quiet series: %s fired\n", rv_kb_rule_id(out[k].rule));
		assert_int_equal(n, 0);
		for (size_t i = 0; i < ev.n; i++)
			if (ev.sig[i].dir != 0)
				fail_msg("quiet series: %s moved (z %g)", ev.sig[i].name, ev.sig[i].z);
		rv_evidence_free(&ev);
	}
	free(h);
	rv_kb_free(kb);
}

/*
 * Moves too small to mean a cause, though their z is huge: a counter that
 * was exactly 0 (its sd floors at 1e-6) and a queue time that doubled from
 * next to nothing. Seen live: a CPU stress wrote 123 bytes of writeback and
 * the disk rule fired. The rules' value floors must keep them quiet.
 */
static void test_tiny_moves(void **state)
{
	static const struct scenario tiny = { NULL, {
		{ "mem.writeback_bytes", 123, LEVEL, 0 }, { "mem.nr_writeback_bytes", 123, LEVEL, 0 },
		{ "mem.dirty_bytes", 5.2e7, LEVEL, 0 }, { "mem.nr_dirty_bytes", 5.2e7, LEVEL, 0 },
		{ "storage.weighted_time_ms:nvme0n1", 60, LEVEL, 0 },
		{ "net.tcp_retrans_segs", 0.2, LEVEL, 0 },
		{ "cpu.cgroup_throttled_time_ms", 3, LEVEL, 0 } } };
	struct rv_kb *kb = builtin();
	struct host *h = host_new();
	struct rv_kb_match out[RV_KB_MATCH_MAX];
	struct rv_evidence ev;
	size_t n;

	(void)state;
	host_fill(h, &tiny, 7);
	host_evidence(h, &ev);
	assert_true(rv_evidence_find(&ev, "mem.writeback_bytes")->dir == 1);
	n = rv_kb_match(kb, &ev, 0, out, RV_KB_MATCH_MAX);
	for (size_t k = 0; k < n; k++)
		print_message("tiny moves: %s fired\n", rv_kb_rule_id(out[k].rule));
	assert_int_equal(n, 0);
	rv_evidence_free(&ev);
	free(h);
	rv_kb_free(kb);
}

/* The evidence of a match names the entries behind each condition. */
static void test_match_evidence(void **state)
{
	struct rv_kb *kb = builtin();
	struct host *h = host_new();
	struct rv_kb_match out[RV_KB_MATCH_MAX];
	struct rv_evidence ev;
	const struct scenario *sc = case_of("irq-imbalance");

	(void)state;
	assert_non_null(sc);
	host_fill(h, sc, 7);
	host_evidence(h, &ev);
	assert_int_equal(rv_kb_match(kb, &ev, 0, out, RV_KB_MATCH_MAX), 1);
	assert_int_equal(out[0].ev[0].required, 1);
	/* the strongest of the any: group: the softirq or NET_RX skew */
	assert_int_equal(out[0].ev[0].sig->skew, 1);
	assert_non_null(strstr(out[0].ev[0].sig->name, "cpu_skew"));
	assert_non_null(strstr(out[0].ev[0].what, "cpu_skew up"));
	for (size_t k = 1; k < out[0].nev; k++) {
		assert_int_equal(out[0].ev[k].required, 0);
		assert_true(out[0].ev[k].sig >= ev.sig && out[0].ev[k].sig < ev.sig + ev.n);
	}
	assert_true(out[0].nev >= 3);   /* retransmits, softnet drops, busy skew */
	/* min_confidence above it: left out */
	assert_int_equal(rv_kb_match(kb, &ev, out[0].confidence + 1e-9, out, RV_KB_MATCH_MAX), 0);
	assert_int_equal(rv_kb_match(kb, &ev, 0, out, 0), 0);
	rv_evidence_free(&ev);
	free(h);
	rv_kb_free(kb);
}

/* ---- conditions and confidence on hand-made evidence ---- */

/* The kb of the last fire(): matches point into it until the next call. */
static struct rv_kb *fired_kb;

/* Matches text's rules against ev; returns how many fired, the first in
 * *top (valid until the next fire() or fire_done()). */
static size_t fire(const char *text, const struct rv_evidence *ev, struct rv_kb_match *top)
{
	struct rv_kb_match out[RV_KB_MATCH_MAX];
	size_t n;

	rv_kb_free(fired_kb);
	fired_kb = load_ok(text);
	n = rv_kb_match(fired_kb, ev, 0, out, RV_KB_MATCH_MAX);
	if (top)   /* always set: GCC cannot tell that a 1 means it was */
		*top = n ? out[0] : (struct rv_kb_match){ 0 };
	return n;
}

static void fire_done(void)
{
	rv_kb_free(fired_kb);
	fired_kb = NULL;
}

#define RULE(conds) "- id: r\n  title: t\n  cause: c\n  require:\n" conds

static void test_conditions(void **state)
{
	struct rv_evidence_sig s[] = {
		sig("a", 10), sig("a:cpu1", 20), sig("b", -6), sig("c", 1), sig("d", 2),
		sig("x:cpu_skew", 8),
	};
	struct rv_evidence ev;
	struct rv_kb_match m;

	(void)state;
	s[5].skew = 1;
	s[3].inc_sd = 5;                      /* c: bursty, ratio 5 */
	s[4].base_n = RV_EV_MIN_BASE - 1;     /* d: too short a baseline */
	s[4].z = 0;
	s[4].dir = 0;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 1, &ev), 0);
	/* globs cover instances; the strongest entry is the evidence */
	assert_int_equal(fire(RULE("    - {signal: \"a*\", dir: up}\n"), &ev, &m), 1);
	assert_string_equal(m.ev[0].sig->name, "a:cpu1");
	assert_string_equal(m.ev[0].what, "a* up");
	assert_int_equal(fire(RULE("    - {signal: a, dir: down}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: b, dir: down}\n"), &ev, NULL), 1);
	assert_int_equal(fire(RULE("    - {signal: b, dir: any}\n"), &ev, NULL), 1);
	assert_int_equal(fire(RULE("    - {signal: b, dir: down, min_z: 7}\n"), &ev, NULL), 0);
	/* min_z below RV_EV_MOVED_Z does not make an unmoved entry up */
	assert_int_equal(fire(RULE("    - {signal: c, dir: up, min_z: 0.5}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: c, dir: any, min_z: 0.5}\n"), &ev, NULL), 1);
	/* bursty: inc_sd / sd_eff */
	assert_int_equal(fire(RULE("    - {signal: c, dir: bursty}\n"), &ev, NULL), 1);
	assert_int_equal(fire(RULE("    - {signal: c, dir: bursty, min_burst: 6}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: a, dir: bursty}\n"), &ev, NULL), 0);
	/* too short a baseline: never up/down, nor bursty */
	assert_int_equal(fire(RULE("    - {signal: d, dir: up, min_z: 0}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: d, dir: any, min_z: 0}\n"), &ev, NULL), 1);
	/* relative change and absolute bounds */
	assert_int_equal(fire(RULE("    - {signal: a, dir: up, min_change: 1}\n"), &ev, NULL), 1);
	assert_int_equal(fire(RULE("    - {signal: a, dir: up, min_change: 1.1}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: b, dir: down, min_change: 0.6}\n"), &ev, NULL),
			 1);
	assert_int_equal(fire(RULE("    - {signal: a, dir: up, min_value: 20}\n"), &ev, NULL), 1);
	assert_int_equal(fire(RULE("    - {signal: a, dir: up, min_value: 20.5}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: a, dir: up, max_value: 19}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: a, dir: up, max_value: 25}\n"), &ev, &m), 1);
	assert_string_equal(m.ev[0].what, "a up, value <= 25");
	/* skew entries: only patterns that name cpu_skew */
	assert_int_equal(fire(RULE("    - {signal: \"x*\", dir: up}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: \"x:cpu_skew\", dir: up}\n"), &ev, NULL), 1);
	assert_int_equal(fire(RULE("    - {signal: \"*cpu_skew\", dir: up}\n"), &ev, NULL), 1);
	/* no entry matches */
	assert_int_equal(fire(RULE("    - {signal: \"nothing*\", dir: any, min_z: 0}\n"), &ev,
			      NULL), 0);
	fire_done();
	rv_evidence_free(&ev);
}

static void test_sections(void **state)
{
	struct rv_evidence_sig s[] = { sig("a", 10), sig("b", 90), sig("c", -5) };
	struct rv_evidence ev;
	struct rv_kb_match m;

	(void)state;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 1, &ev), 0);
	/* every required item must hold */
	assert_int_equal(fire(RULE("    - {signal: a, dir: up}\n    - {signal: c, dir: up}\n"), &ev,
			      NULL), 0);
	/* any: holds when one member does; the strongest is the evidence */
	assert_int_equal(fire(RULE("    - any:\n        - {signal: c, dir: up}\n"
				   "        - {signal: a, dir: up}\n"
				   "        - {signal: b, dir: up}\n"), &ev, &m), 1);
	assert_string_equal(m.ev[0].sig->name, "b");
	/* an exclusion that holds stops the rule */
	assert_int_equal(fire(RULE("    - {signal: a, dir: up}\n  exclude:\n"
				   "    - {signal: c, dir: down}\n"), &ev, NULL), 0);
	assert_int_equal(fire(RULE("    - {signal: a, dir: up}\n  exclude:\n"
				   "    - {signal: c, dir: up}\n"), &ev, NULL), 1);
	fire_done();
	rv_evidence_free(&ev);
}

/* confidence = 0.5 + 0.2 * mean strength(required) + 0.3 * supports held / supports,
 * strength(m) = m / (m + 10). */
static void test_confidence(void **state)
{
	struct rv_evidence_sig s[] = { sig("a", 10), sig("b", 30), sig("c", 1) };
	struct rv_evidence ev;
	struct rv_kb_match m;

	(void)state;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 1, &ev), 0);
	/* a: strength 0.5; one support of two: 0.5 + 0.1 + 0.15 */
	assert_int_equal(fire(RULE("    - {signal: a, dir: up}\n  support:\n"
				   "    - {signal: b, dir: up}\n    - {signal: c, dir: up}\n"),
			      &ev, &m), 1);
	assert_true(fabs(m.confidence - 0.75) < EPS);
	assert_int_equal(m.nev, 2);
	assert_int_equal(m.ev[0].required, 1);
	assert_string_equal(m.ev[0].sig->name, "a");
	assert_int_equal(m.ev[1].required, 0);
	assert_string_equal(m.ev[1].sig->name, "b");
	/* a and b required (0.5, 0.75), no support: 0.5 + 0.2 * 0.625 */
	assert_int_equal(fire(RULE("    - {signal: a, dir: up}\n    - {signal: b, dir: up}\n"),
			      &ev, &m), 1);
	assert_true(fabs(m.confidence - 0.625) < EPS);
	fire_done();
	rv_evidence_free(&ev);
}

/* Highest confidence first, equal ones in rule order; max caps the count. */
static void test_ranking(void **state)
{
	static const char text[] =
		"- {id: low, title: t, cause: c, require: [{signal: a, dir: up}]}\n"
		"- {id: high, title: t, cause: c, require: [{signal: b, dir: up}]}\n"
		"- {id: tie, title: t, cause: c, require: [{signal: a, dir: up}]}\n"
		"- {id: none, title: t, cause: c, require: [{signal: a, dir: down}]}\n";
	struct rv_evidence_sig s[] = { sig("a", 10), sig("b", 30) };
	struct rv_evidence ev;
	struct rv_kb *kb = load_ok(text);
	struct rv_kb_match out[RV_KB_MATCH_MAX];

	(void)state;
	assert_int_equal(rv_evidence_from(s, NELEM(s), 0, 1, &ev), 0);
	assert_int_equal(rv_kb_match(kb, &ev, 0, out, RV_KB_MATCH_MAX), 3);
	assert_string_equal(rv_kb_rule_id(out[0].rule), "high");
	assert_string_equal(rv_kb_rule_id(out[1].rule), "low");
	assert_string_equal(rv_kb_rule_id(out[2].rule), "tie");
	assert_int_equal(rv_kb_match(kb, &ev, 0, out, 2), 2);
	assert_string_equal(rv_kb_rule_id(out[1].rule), "low");
	assert_int_equal(rv_kb_match(kb, &ev, 0.62, out, RV_KB_MATCH_MAX), 1);
	assert_int_equal(rv_kb_match(NULL, &ev, 0, out, RV_KB_MATCH_MAX), 0);
	assert_int_equal(rv_kb_match(kb, NULL, 0, out, RV_KB_MATCH_MAX), 0);
	rv_evidence_free(&ev);
	rv_kb_free(kb);
}

/* ---- override semantics ---- */

static void test_override(void **state)
{
	static const char over[] =
		"- id: packet-loss\n"
		"  title: Replaced\n"
		"  subsystem: net\n"
		"  cause: mine\n"
		"  require: [{signal: net.tcp_retrans_segs, dir: up}]\n"
		"  checks: [\"ss -ti\", {cmd: nstat, why: counters}]\n"
		"- {id: irq-imbalance, enabled: false}\n"
		"- {id: no-such-rule, enabled: false}\n"
		"- id: site-rule\n"
		"  title: New\n"
		"  cause: c\n"
		"  require: [{signal: x, dir: up}]\n";
	static const char readd[] =
		"- {id: irq-imbalance, title: t, cause: c, require: [{signal: y, dir: down}]}\n";
	struct rv_kb *kb = builtin();
	size_t n = rv_kb_count(kb), pl = SIZE_MAX;
	struct rv_err err = { 0 };
	const struct rv_kb_rule *r;

	(void)state;
	for (size_t i = 0; i < n; i++)
		if (strcmp(rv_kb_rule_id(rv_kb_get(kb, i)), "packet-loss") == 0)
			pl = i;
	assert_true(pl < n);
	assert_int_equal(rv_kb_load(kb, "site.yaml", over, strlen(over), &err), 0);
	assert_int_equal(rv_kb_count(kb), n);  /* one removed, one added */
	r = NULL;
	for (size_t i = 0; i < rv_kb_count(kb); i++) {
		const struct rv_kb_rule *x = rv_kb_get(kb, i);

		assert_string_not_equal(rv_kb_rule_id(x), "irq-imbalance");
		assert_string_not_equal(rv_kb_rule_id(x), "no-such-rule");
		if (strcmp(rv_kb_rule_id(x), "packet-loss") == 0)
			r = x;
	}
	assert_non_null(r);
	assert_string_equal(rv_kb_rule_title(r), "Replaced");
	assert_string_equal(rv_kb_rule_cause(r), "mine");
	assert_string_equal(rv_kb_rule_fix(r), "");
	assert_int_equal(rv_kb_rule_nchecks(r), 2);
	assert_string_equal(rv_kb_rule_check(r, 0), "ss -ti");
	assert_string_equal(rv_kb_rule_check_why(r, 0), "");
	assert_string_equal(rv_kb_rule_check_why(r, 1), "counters");
	r = rv_kb_get(kb, rv_kb_count(kb) - 1);
	assert_string_equal(rv_kb_rule_id(r), "site-rule");
	assert_string_equal(rv_kb_rule_subsystem(r), "other");
	/* a later file re-adds the removed rule at the end */
	assert_int_equal(rv_kb_load(kb, "b.yaml", readd, strlen(readd), &err), 0);
	assert_int_equal(rv_kb_count(kb), n + 1);
	assert_string_equal(rv_kb_rule_id(rv_kb_get(kb, n)), "irq-imbalance");
	/* empty texts load nothing */
	assert_int_equal(rv_kb_load(kb, "e.yaml", "", 0, &err), 0);
	assert_int_equal(rv_kb_load(kb, "e.yaml", "# nothing\n", 10, &err), 0);
	assert_int_equal(rv_kb_load(kb, "e.yaml", NULL, 0, &err), 0);
	assert_int_equal(rv_kb_count(kb), n + 1);
	rv_kb_free(kb);
	rv_kb_free(NULL);
}

/* ---- refusals ---- */

struct bad {
	const char *text;
	size_t line, col;
	const char *reason;
};

#define HEAD "- id: a\n  title: t\n  cause: c\n"
#define REQ "  require: [{signal: a, dir: up}]\n"

static const struct bad bads[] = {
	{ HEAD "  colour: red\n" REQ, 4, 3, "unknown key 'colour' in a rule" },
	{ "- title: t\n  cause: c\n" REQ, 1, 3, "a rule needs an id" },
	{ "- id: a\n  cause: c\n" REQ, 1, 3, "rule 'a': needs a title" },
	{ "- id: a\n  title: t\n" REQ, 1, 3, "rule 'a': needs a cause" },
	{ HEAD, 1, 3, "rule 'a': needs require:" },
	{ HEAD "  require: []\n", 1, 3, "rule 'a': needs require:" },
	{ HEAD "  require:\n    - {signal: a, dir: sideways}\n", 5, 24,
	  "dir: 'sideways' is not one of up, down, any, bursty" },
	{ HEAD "  require:\n    - {signal: a, dir: up, min_z: three}\n", 5, 35,
	  "min_z: bad number 'three'" },
	{ HEAD "  require:\n    - {signal: a, dir: up, min_value: 1e999}\n", 5, 39,
	  "min_value: bad number" },
	{ HEAD REQ "- id: a\n  title: u\n  cause: c\n" REQ, 5, 3,
	  "duplicate id 'a' (first at 1:3)" },
	{ HEAD "  require:\n    - {signal: \"\", dir: up}\n", 5, 16, "signal: must not be empty" },
	{ "- id: a\n  title: [x, y]\n", 2, 10, "title: expected a single value, not a list" },
	{ "- id: a\n  title: t\n  cause: {x: 1}\n", 3, 10,
	  "cause: expected a single value, not a mapping" },
	{ "id: a\ntitle: t\n", 1, 1, "a rules file is a list of rules" },
	{ "- a\n", 1, 3, "a rule is a mapping" },
	{ "- id: a\n  title: t\n  title: u\n", 3, 3,
	  "duplicate key 'title' in a rule (first at 2:3)" },
	{ "- id: &x a\n", 1, 7, "anchors (&x) are not supported" },
	{ HEAD "  require:\n    - {any: [{signal: a, dir: up}], signal: b}\n", 5, 37,
	  "any: must be the only key of its item" },
	{ HEAD "  require:\n    - {signal: b, any: []}\n", 5, 19,
	  "any: must be the only key of its item" },
	{ HEAD "  require:\n    - any: [{any: [{signal: a, dir: up}]}]\n", 5, 14,
	  "any: cannot be nested" },
	{ HEAD "  require:\n    - any: []\n", 5, 12, "any: needs at least one condition" },
	{ HEAD "  subsystem: disk\n" REQ, 4, 14, "subsystem: 'disk' is not one of" },
	{ HEAD "  require:\n    - {signal: a, dir: up, min_change: -0.5}\n", 5, 40,
	  "min_change: must be 0 or more" },
	{ HEAD "  require:\n    - {signal: a, dir: up, min_value: 5, max_value: 1}\n", 5, 7,
	  "min_value 5 is above max_value 1" },
	{ HEAD "  require:\n    - {signal: a}\n", 5, 7, "needs a dir" },
	{ HEAD "  require:\n    - {dir: up}\n", 5, 7, "a condition needs a signal" },
	{ HEAD "  require: [a]\n", 4, 13, "require: a condition is a mapping" },
	{ HEAD "  require: {signal: a}\n", 4, 12, "require: expected a list of conditions" },
	{ HEAD REQ "  checks: [{why: w}]\n", 5, 12, "a check needs a cmd" },
	{ HEAD REQ "  checks: [{cmd: c, when: now}]\n", 5, 21, "unknown key 'when' in a check" },
	{ "- id: a\n  title: \"x\\0y\"\n", 2, 10, "title: contains a NUL byte" },
	{ "- id: a\n  title: \"x\\ty\"\n", 2, 10, "title: control character 0x09" },
	{ HEAD REQ "---\n- id: b\n", 5, 1, "only one YAML document is allowed" },
	{ HEAD REQ "  enabled: maybe\n", 5, 12, "enabled: 'maybe' is not one of" },
	{ "- id: a b\n", 1, 7, "id 'a b': only letters, digits" },
	{ "- id: a\n  title: \"unterminated\n", 3, 1, "found unexpected end of stream" },
	{ "- id: a\n  title: t: u\n", 2, 11, "mapping values are not allowed" },
	{ "- [id: a]\n", 1, 3, "a rule is a mapping" },
};

static void check_refused(struct rv_kb *kb, const char *text, size_t len, const char *prefix,
			  const char *reason)
{
	struct rv_err err = { 0 };
	size_t n = rv_kb_count(kb);
	int rc = rv_kb_load(kb, "t.yaml", text, len, &err);

	if (rc != -EINVAL)
		fail_msg("rc %d for:\n%.300s", rc, text);
	assert_int_equal(err.code, -EINVAL);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, reason))
		fail_msg("got \"%s\", want \"%s...%s\" for:\n%.300s", err.msg, prefix, reason, text);
	assert_int_equal(rv_kb_count(kb), n);  /* refused whole */
}

static void test_errors(void **state)
{
	static const char good_bad[] =
		"- {id: good, title: t, cause: c, require: [{signal: a, dir: up}]}\n"
		"- {id: bad}\n";
	struct rv_kb *kb = builtin();
	char prefix[64];

	(void)state;
	for (size_t i = 0; i < NELEM(bads); i++) {
		snprintf(prefix, sizeof(prefix), "t.yaml:%zu:%zu: ", bads[i].line, bads[i].col);
		check_refused(kb, bads[i].text, strlen(bads[i].text), prefix, bads[i].reason);
	}
	/* one good rule before a bad one: nothing is taken */
	check_refused(kb, good_bad, strlen(good_bad), "t.yaml:2:3: ", "needs a title");
	for (size_t i = 0; i < rv_kb_count(kb); i++)
		assert_string_not_equal(rv_kb_rule_id(rv_kb_get(kb, i)), "good");
	assert_int_equal(rv_kb_load(NULL, "x", "", 0, NULL), -EINVAL);
	assert_int_equal(rv_kb_load(kb, "x", NULL, 5, NULL), -EINVAL);
	rv_kb_free(kb);
}

/* ---- limits ---- */

/* Appends printf output to a growing string. */
static void cat(char **s, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void cat(char **s, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	assert_true(k >= 0 && (size_t)k < sizeof(buf));
	*s = realloc(*s, *len + (size_t)k + 1);
	assert_non_null(*s);
	memcpy(*s + *len, buf, (size_t)k + 1);
	*len += (size_t)k;
}

static char *many_rules(size_t first, size_t n, size_t *len)
{
	char *s = NULL;

	*len = 0;
	cat(&s, len, "# generated\n");
	for (size_t i = first; i < first + n; i++)
		cat(&s, len, "- {id: r%zu, title: t, cause: c, require: [{signal: a, dir: up}]}\n",
		    i);
	return s;
}

static void test_limits(void **state)
{
	struct rv_kb *kb = NULL;
	struct rv_err err = { 0 };
	char *s = NULL, prefix[64];
	size_t len = 0;

	(void)state;
	assert_int_equal(rv_kb_new(&kb), 0);
	/* a text over KB_FILE_MAX bytes, whatever it holds */
	s = calloc(KB_FILE_MAX + 1, 1);
	assert_non_null(s);
	memset(s, '#', KB_FILE_MAX);
	check_refused(kb, s, KB_FILE_MAX + 1, "t.yaml:1:1: ", "larger than");
	free(s);
	/* KB_RULES_MAX rules load; one more in the file is refused */
	s = many_rules(0, KB_RULES_MAX + 1, &len);
	snprintf(prefix, sizeof(prefix), "t.yaml:%d:3: ", KB_RULES_MAX + 2);
	check_refused(kb, s, len, prefix, "more than 256 rules in one file");
	free(s);
	s = many_rules(0, KB_RULES_MAX - 6, &len);
	assert_int_equal(rv_kb_load(kb, "t.yaml", s, len, &err), 0);
	free(s);
	/* and across files: 250 + 7 new ones */
	s = many_rules(KB_RULES_MAX - 6, 7, &len);
	check_refused(kb, s, len, "t.yaml:8:3: ", "more than 256 rules in all");
	free(s);
	/* replacing rules does not add any */
	s = many_rules(0, 7, &len);
	assert_int_equal(rv_kb_load(kb, "t.yaml", s, len, &err), 0);
	assert_int_equal(rv_kb_count(kb), KB_RULES_MAX - 6);
	free(s);
	rv_kb_free(kb);
}

static void test_rule_limits(void **state)
{
	struct rv_kb *kb = NULL;
	char *s = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(rv_kb_new(&kb), 0);
	/* a title one byte too long */
	cat(&s, &len, "- id: a\n  title: ");
	for (int i = 0; i <= KB_TITLE_MAX; i++)
		cat(&s, &len, "x");
	cat(&s, &len, "\n");
	check_refused(kb, s, len, "t.yaml:2:10: ", "title: longer than 160 bytes");
	free(s);
	/* items, conditions, any members and checks */
	s = NULL;
	len = 0;
	cat(&s, &len, HEAD "  require:\n");
	for (int i = 0; i <= KB_ITEMS_MAX; i++)
		cat(&s, &len, "    - {signal: a, dir: up}\n");
	check_refused(kb, s, len, "t.yaml:29:7: ", "more than 24 items");
	free(s);
	s = NULL;
	len = 0;
	cat(&s, &len, HEAD "  require:\n");
	for (int i = 0; i < KB_CONDS_MAX / KB_ANY_MAX + 1; i++)
		cat(&s, &len, "    - any: [{signal: a, dir: up}, {signal: a, dir: up}, {signal: a, "
		    "dir: up}, {signal: a, dir: up}, {signal: a, dir: up}, {signal: a, dir: up}, "
		    "{signal: a, dir: up}, {signal: a, dir: up}]\n");
	check_refused(kb, s, len, "t.yaml:11:", "more than 48 conditions in one rule");
	free(s);
	s = NULL;
	len = 0;
	cat(&s, &len, HEAD "  require:\n    - any:\n");
	for (int i = 0; i <= KB_ANY_MAX; i++)
		cat(&s, &len, "        - {signal: a, dir: up}\n");
	check_refused(kb, s, len, "t.yaml:14:11: ", "more than 8 conditions in one any:");
	free(s);
	s = NULL;
	len = 0;
	cat(&s, &len, HEAD REQ "  checks:\n");
	for (int i = 0; i <= KB_CHECKS_MAX; i++)
		cat(&s, &len, "    - uptime\n");
	check_refused(kb, s, len, "t.yaml:22:7: ", "more than 16 checks");
	free(s);
	/* deep nesting is refused at its first level */
	s = NULL;
	len = 0;
	for (int i = 0; i < 10000; i++)
		cat(&s, &len, "[");
	check_refused(kb, s, len, "t.yaml:1:2: ", "a rule is a mapping");
	free(s);
	rv_kb_free(kb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_loads),
		cmocka_unit_test(test_confusion_matrix),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_tiny_moves),
		cmocka_unit_test(test_match_evidence),
		cmocka_unit_test(test_conditions),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_confidence),
		cmocka_unit_test(test_ranking),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_rule_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
