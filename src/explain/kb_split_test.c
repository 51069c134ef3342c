/*
 * kb_split_test.c - a rule cannot contradict its incident (kb.h
 * rv_kb_cause_of, rv_kb_split) and what remains when no rule of the
 * incident's subsystem fired (rv_kb_near), on the crafted incidents of
 * kb_testdata.h:
 *   - every crafted case, whose one rule fires, judged as an incident of
 *     each subsystem: its rule is the likely cause when the incident is of
 *     the rule's subsystem, and only a note otherwise (every pair of
 *     subsystems, so a CPU rule never becomes the cause of a storage, net,
 *     memory or GPU incident);
 *   - a rule of subsystem "other" and an incident of subsystem "other"
 *     take no side;
 *   - a metadata storm whose dentries did not move: no storage rule fires,
 *     and metadata-storm is the nearest, half its required items held,
 *     with the dentry condition as what it lacked; an excluded rule says
 *     what excluded it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/evidence.h"
#include "explain/kb.h"
#include "explain/kb_testdata.h"
#include "explain/kb_testutil.h"

static const char *const subsystems[] = { "cpu", "gpu", "mem", "net", "storage" };

static struct rv_kb *builtin(void)
{
	struct rv_kb *kb = NULL;

	assert_int_equal(rv_kb_new_builtin(&kb, NULL), 0);
	return kb;
}

static const struct rv_kb_rule *rule_of(const struct rv_kb *kb, const char *id)
{
	for (size_t i = 0; i < rv_kb_count(kb); i++)
		if (strcmp(rv_kb_rule_id(rv_kb_get(kb, i)), id) == 0)
			return rv_kb_get(kb, i);
	fail_msg("no built-in rule %s", id);
	return NULL;
}

static int listed(const struct rv_kb_match *m, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rv_kb_rule_id(m[i].rule), id) == 0)
			return 1;
	return 0;
}

/* Every crafted case against an incident of every subsystem. */
static void test_subsystem_pairs(void **state)
{
	struct rv_kb *kb = builtin();
	struct host *h = host_new();
	size_t pairs = 0, cpu_elsewhere = 0;

	(void)state;
	for (size_t i = 0; i < NELEM(cases); i++) {
		struct rv_kb_match m[RV_KB_MATCH_MAX], cause[RV_KB_MATCH_MAX], note[RV_KB_MATCH_MAX];
		const char *own = rv_kb_rule_subsystem(rule_of(kb, cases[i].rule));
		struct rv_evidence ev;
		size_t n, nc, nn;

		host_fill(h, &cases[i], 2000 + i);
		host_evidence(h, &ev);
		n = rv_kb_match(kb, &ev, 0, m, RV_KB_MATCH_MAX);
		assert_true(listed(m, n, cases[i].rule));
		for (size_t s = 0; s < NELEM(subsystems); s++) {
			const struct rv_kb_rule *r = rule_of(kb, cases[i].rule);
			int same = strcmp(own, subsystems[s]) == 0;

			/* an undecided rule: through one of its candidates too */
			for (size_t k = 0; k < rv_kb_rule_ncandidates(r); k++)
				same |= strcmp(rv_kb_rule_subsystem(rule_of(kb,
							rv_kb_rule_candidate(r, k))),
					       subsystems[s]) == 0;

			nc = rv_kb_split(kb, m, n, subsystems[s], cause, note, &nn);
			assert_int_equal(nc + nn, n);
			if (listed(cause, nc, cases[i].rule) != same ||
			    listed(note, nn, cases[i].rule) == same)
				fail_msg("case %s (rule of %s) as a %s incident: cause %d, note %d",
					 cases[i].rule, own, subsystems[s],
					 listed(cause, nc, cases[i].rule),
					 listed(note, nn, cases[i].rule));
			for (size_t k = 0; k < nc; k++)
				assert_int_equal(rv_kb_cause_of(kb, cause[k].rule, subsystems[s]), 1);
			for (size_t k = 0; k < nn; k++)
				assert_int_equal(rv_kb_cause_of(kb, note[k].rule, subsystems[s]), 0);
			pairs++;
			cpu_elsewhere += strcmp(own, "cpu") == 0 && !same;
		}
		rv_evidence_free(&ev);
	}
	/* every case with every subsystem; the CPU rules among them */
	assert_int_equal(pairs, NELEM(cases) * NELEM(subsystems));
	assert_true(cpu_elsewhere >= 4 * 4);
	free(h);
	rv_kb_free(kb);
}

static void test_other_takes_no_side(void **state)
{
	struct rv_kb *kb = load_ok("- id: anything\n  title: t\n  cause: c\n"
				   "  require: [{signal: x, dir: up}]\n"
				   "- id: cpu-thing\n  title: t\n  cause: c\n  subsystem: cpu\n"
				   "  require: [{signal: x, dir: up}]\n");
	const struct rv_kb_rule *any = rv_kb_get(kb, 0), *cpu = rv_kb_get(kb, 1);

	(void)state;
	assert_string_equal(rv_kb_rule_subsystem(any), "other");
	for (size_t s = 0; s < NELEM(subsystems); s++) {
		assert_int_equal(rv_kb_cause_of(kb, any, subsystems[s]), 1);
		assert_int_equal(rv_kb_cause_of(kb, cpu, subsystems[s]),
				 strcmp(subsystems[s], "cpu") == 0);
	}
	assert_int_equal(rv_kb_cause_of(kb, cpu, "other"), 1);
	assert_int_equal(rv_kb_cause_of(kb, NULL, "cpu"), 1);

	/* both fire; as a memory incident, the cpu rule is a note */
	struct rv_evidence_sig x = sig("x", 8);
	struct rv_evidence ev = { .n = 1, .sig = &x, .start_ts = 0, .end_ts = 1 };
	struct rv_kb_match m[RV_KB_MATCH_MAX], cause[RV_KB_MATCH_MAX], note[RV_KB_MATCH_MAX];
	size_t n = rv_kb_match(kb, &ev, 0, m, RV_KB_MATCH_MAX), nn;

	assert_int_equal(n, 2);
	assert_int_equal(rv_kb_split(kb, m, n, "mem", cause, note, &nn), 1);
	assert_int_equal(nn, 1);
	assert_ptr_equal(cause[0].rule, any);
	assert_ptr_equal(note[0].rule, cpu);
	assert_int_equal(rv_kb_split(kb, m, n, "other", cause, note, &nn), 2);
	assert_int_equal(nn, 0);
	rv_kb_free(kb);
}

/* An undecided rule stands for its candidates, whatever its own subsystem. */
static void test_undecided_spans_subsystems(void **state)
{
	struct rv_kb *kb = builtin();
	const struct rv_kb_rule *u = rule_of(kb, "cpu-bound-undecided");

	(void)state;
	assert_string_equal(rv_kb_rule_subsystem(u), "cpu");
	assert_int_equal(rv_kb_cause_of(kb, u, "cpu"), 1);
	/* memory-bandwidth-saturation, one of its candidates, is a mem rule */
	assert_int_equal(rv_kb_cause_of(kb, u, "mem"), 1);
	assert_int_equal(rv_kb_cause_of(kb, u, "net"), 0);
	assert_int_equal(rv_kb_cause_of(kb, u, "storage"), 0);
	/* without the kb to resolve them, its own subsystem alone */
	assert_int_equal(rv_kb_cause_of(NULL, u, "mem"), 0);
	rv_kb_free(kb);
}

/* The metadata-storm case without its dentries, inodes and buffers. */
static void test_near(void **state)
{
	struct rv_kb *kb = builtin();
	struct host *h = host_new();
	struct scenario sc = { 0 };
	struct rv_kb_match m[RV_KB_MATCH_MAX], cause[RV_KB_MATCH_MAX], note[RV_KB_MATCH_MAX];
	struct rv_kb_near near[RV_KB_MATCH_MAX];
	struct rv_evidence ev;
	size_t n, nc, nn, k = 0, nnear;

	(void)state;
	for (size_t i = 0; i < NELEM(cases); i++)
		if (strcmp(cases[i].rule, "metadata-storm") == 0)
			sc = cases[i];
	assert_non_null(sc.rule);
	for (size_t j = 0; j < MOVES_MAX && sc.mv[j].pat; j++)
		if (fnmatch("storage.dentries*", sc.mv[j].pat, 0) != 0 &&
		    fnmatch("storage.inodes*", sc.mv[j].pat, 0) != 0 &&
		    strcmp(sc.mv[j].pat, "mem.buffers_bytes") != 0)
			sc.mv[k++] = sc.mv[j];
	memset(&sc.mv[k], 0, (MOVES_MAX - k) * sizeof(sc.mv[0]));
	host_fill(h, &sc, 77);
	host_evidence(h, &ev);
	n = rv_kb_match(kb, &ev, 0, m, RV_KB_MATCH_MAX);
	nc = rv_kb_split(kb, m, n, "storage", cause, note, &nn);
	assert_int_equal(nc, 0);
	nnear = rv_kb_near(kb, &ev, "storage", near, RV_KB_MATCH_MAX);
	assert_true(nnear >= 1);
	assert_string_equal(rv_kb_rule_id(near[0].rule), "metadata-storm");
	assert_int_equal(near[0].required, 2);
	assert_int_equal(near[0].held, 1);
	assert_non_null(near[0].missing);
	assert_non_null(strstr(near[0].missing, "storage.dentries"));
	for (size_t i = 0; i < nnear; i++) {
		assert_string_equal(rv_kb_rule_subsystem(near[i].rule), "storage");
		assert_true(near[i].held < near[i].required || near[i].excluded_by);
		assert_true(i == 0 || near[i].held * near[i - 1].required <=
					      near[i - 1].held * near[i].required);
	}
	/* only the subsystem asked for; nothing when nothing moved */
	nnear = rv_kb_near(kb, &ev, "gpu", near, RV_KB_MATCH_MAX);
	for (size_t i = 0; i < nnear; i++)
		assert_string_equal(rv_kb_rule_subsystem(near[i].rule), "gpu");
	rv_evidence_free(&ev);
	host_fill(h, NULL, 78);
	host_evidence(h, &ev);
	assert_int_equal(rv_kb_near(kb, &ev, "storage", near, RV_KB_MATCH_MAX), 0);
	rv_evidence_free(&ev);

	/* the metadata storm with 4 GB of dirty data: excluded, and it says so */
	for (size_t i = 0; i < NELEM(cases); i++)
		if (strcmp(cases[i].rule, "metadata-storm") == 0)
			sc = cases[i];
	for (k = 0; k < MOVES_MAX && sc.mv[k].pat; k++)
		;
	assert_true(k < MOVES_MAX);
	sc.mv[k] = (struct move){ "mem.dirty_bytes", 4e9, LEVEL, 0 };
	host_fill(h, &sc, 79);
	host_evidence(h, &ev);
	nnear = rv_kb_near(kb, &ev, "storage", near, RV_KB_MATCH_MAX);
	k = 0;
	while (k < nnear && strcmp(rv_kb_rule_id(near[k].rule), "metadata-storm") != 0)
		k++;
	assert_true(k < nnear);
	assert_non_null(near[k].excluded_by);
	assert_non_null(strstr(near[k].excluded_by, "mem.dirty_bytes"));
	rv_evidence_free(&ev);
	free(h);
	rv_kb_free(kb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subsystem_pairs),
		cmocka_unit_test(test_other_takes_no_side),
		cmocka_unit_test(test_undecided_spans_subsystems),
		cmocka_unit_test(test_near),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
