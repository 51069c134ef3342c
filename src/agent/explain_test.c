/*
 * explain_test.c - the causes the agent keeps for an incident
 * (rv_agent_rank_causes, agent/explain.c):
 *   - the cause of the onset survives the close: decided on the onset, it
 *     stays first when the close matches no rule ("no rule matched" never
 *     replaces it), when it matches another rule of the subsystem (added
 *     second, role cause) and when it matches only another subsystem's
 *     rule (a note, never the cause);
 *   - deciding: the subsystem's matches become the onset's, another
 *     subsystem's stay notes, a CPU rule on a storage or net incident
 *     among them;
 *   - no more than RV_STORE_CAUSE_MAX, causes before notes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "agent/agent_int.h"
#include "explain/kb.h"

static struct rv_kb *kb;

static int setup(void **state)
{
	(void)state;
	return rv_kb_new_builtin(&kb, NULL);
}

static int teardown(void **state)
{
	(void)state;
	rv_kb_free(kb);
	return 0;
}

/* A match of built-in rule id with confidence c (no evidence). */
static struct rv_kb_match match(const char *id, double c)
{
	for (size_t i = 0; i < rv_kb_count(kb); i++)
		if (strcmp(rv_kb_rule_id(rv_kb_get(kb, i)), id) == 0)
			return (struct rv_kb_match){ .rule = rv_kb_get(kb, i), .confidence = c };
	fail_msg("no built-in rule %s", id);
	return (struct rv_kb_match){ 0 };
}

static void expect(const struct rv_store_cause *c, const char *id, enum rv_store_role role)
{
	assert_string_equal(c->rule_id, id);
	assert_int_equal(c->role, role);
}

/* The onset of a metadata storm, decided. */
static struct agent_onset storm_onset(void)
{
	struct agent_onset o = { 0 };
	struct rv_kb_match m[] = { match("metadata-storm", 0.9), match("cpu-contention", 0.8) };
	struct rv_store_cause out[RV_STORE_CAUSE_MAX];
	size_t n = rv_agent_rank_causes(kb, &o, m, 2, "storage", 1, out);

	assert_int_equal(n, 2);
	expect(&out[0], "metadata-storm", RV_STORE_ROLE_ONSET);
	expect(&out[1], "cpu-contention", RV_STORE_ROLE_NOTE);
	o.decided = 1;
	o.n = 1;
	o.cause[0] = out[0];
	return o;
}

static void test_onset_survives_close(void **state)
{
	struct agent_onset o = storm_onset();
	struct rv_store_cause out[RV_STORE_CAUSE_MAX];
	struct rv_kb_match later[] = { match("disk-saturation-writeback", 0.95) };
	struct rv_kb_match cpu[] = { match("cpu-contention", 0.97) };
	size_t n;

	(void)state;
	/* the close matches nothing */
	n = rv_agent_rank_causes(kb, &o, NULL, 0, "storage", 0, out);
	assert_int_equal(n, 1);
	expect(&out[0], "metadata-storm", RV_STORE_ROLE_ONSET);
	assert_true(out[0].confidence == 0.9);
	/* a later, better-supported storage rule comes second */
	n = rv_agent_rank_causes(kb, &o, later, 1, "storage", 0, out);
	assert_int_equal(n, 2);
	expect(&out[0], "metadata-storm", RV_STORE_ROLE_ONSET);
	expect(&out[1], "disk-saturation-writeback", RV_STORE_ROLE_CAUSE);
	/* only a CPU rule at the close: a note */
	n = rv_agent_rank_causes(kb, &o, cpu, 1, "storage", 0, out);
	assert_int_equal(n, 2);
	expect(&out[0], "metadata-storm", RV_STORE_ROLE_ONSET);
	expect(&out[1], "cpu-contention", RV_STORE_ROLE_NOTE);
	/* the onset's rule matched again: once, as the onset's */
	struct rv_kb_match again[] = { match("metadata-storm", 0.5) };
	n = rv_agent_rank_causes(kb, &o, again, 1, "storage", 0, out);
	assert_int_equal(n, 1);
	expect(&out[0], "metadata-storm", RV_STORE_ROLE_ONSET);
}

/* Not decided yet (an open incident's first explanation): causes, not the
 * onset's; no CPU rule ever the cause of a storage or net incident. */
static void test_undecided_and_cross_layer(void **state)
{
	struct agent_onset o = { 0 };
	struct rv_store_cause out[RV_STORE_CAUSE_MAX];
	struct rv_kb_match m[] = { match("cpu-contention", 0.97),
				   match("cpu-bound-undecided", 0.9),
				   match("packet-loss", 0.8) };
	size_t n;

	(void)state;
	n = rv_agent_rank_causes(kb, &o, m, 3, "net", 0, out);
	assert_int_equal(n, 3);
	expect(&out[0], "packet-loss", RV_STORE_ROLE_CAUSE);
	expect(&out[1], "cpu-contention", RV_STORE_ROLE_NOTE);
	expect(&out[2], "cpu-bound-undecided", RV_STORE_ROLE_NOTE);
	n = rv_agent_rank_causes(kb, &o, m, 2, "storage", 1, out);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].role, RV_STORE_ROLE_NOTE);
	assert_int_equal(out[1].role, RV_STORE_ROLE_NOTE);
	/* an incident never reported open decides on the whole: NULL onset */
	n = rv_agent_rank_causes(kb, NULL, m, 3, "cpu", 1, out);
	assert_int_equal(n, 3);
	expect(&out[0], "cpu-contention", RV_STORE_ROLE_ONSET);
	expect(&out[1], "cpu-bound-undecided", RV_STORE_ROLE_ONSET);
	expect(&out[2], "packet-loss", RV_STORE_ROLE_NOTE);
}

static void test_bounded(void **state)
{
	struct agent_onset o = { 0 };
	struct rv_store_cause out[RV_STORE_CAUSE_MAX];
	struct rv_kb_match m[RV_KB_MATCH_MAX];
	size_t k = 0, n;

	(void)state;
	for (size_t i = 0; i < rv_kb_count(kb) && k < RV_KB_MATCH_MAX; i++)
		m[k++] = (struct rv_kb_match){ .rule = rv_kb_get(kb, i), .confidence = 0.5 };
	o.decided = 1;
	o.n = RV_STORE_CAUSE_MAX;
	for (size_t i = 0; i < o.n; i++)
		snprintf(o.cause[i].rule_id, sizeof(o.cause[i].rule_id), "r%zu", i);
	n = rv_agent_rank_causes(kb, &o, m, k, "cpu", 0, out);
	assert_int_equal(n, RV_STORE_CAUSE_MAX);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(out[i].role, RV_STORE_ROLE_ONSET);
	/* causes before notes */
	o.n = 0;
	n = rv_agent_rank_causes(kb, &o, m, k, "cpu", 0, out);
	for (size_t i = 1; i < n; i++)
		assert_true(out[i - 1].role != RV_STORE_ROLE_NOTE ||
			    out[i].role == RV_STORE_ROLE_NOTE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_onset_survives_close),
		cmocka_unit_test(test_undecided_and_cross_layer),
		cmocka_unit_test(test_bounded),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
