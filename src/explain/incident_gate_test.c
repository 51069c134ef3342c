/*
 * incident_gate_test.c - the reporting gate of the incident merger: peak,
 * length, sustained excess, bursts and materiality.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

#include "explain/incident.h"

static const double EPS = 1e-12;

static void assert_near(double got, double want, double eps)
{
	if (!(fabs(got - want) <= eps))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* Pushes scores[i] (0 = unflagged) as windows 0.., gated at peak 2 /
 * `windows` flagged windows; closes everything. */
static struct rv_incmerge *merge_gated(const double *scores, size_t n, size_t windows,
				       int *open_seen_at)
{
	struct rv_incmerge *m = rv_incmerge_new(0, NULL, 0, 2);
	struct rv_incident open;

	assert_non_null(m);
	rv_incmerge_set_gate(m, 2.0, windows);
	*open_seen_at = -1;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rv_incmerge_push(m, i, (double)i, scores[i] > 0, scores[i], 1u, NULL),
				 0);
		if (*open_seen_at < 0 && rv_incmerge_peek_open(m, &open))
			*open_seen_at = (int)i;
	}
	assert_int_equal(rv_incmerge_finish(m), 0);
	return m;
}

/* The gate: weak incidents are blips unless sustained; strong ones are
 * reported as soon as they pass the gate's peak. */
static void test_gate(void **state)
{
	(void)state;
	/* weak [0..2] dropped; strong [4..6] reported at window 5, its second
	 * window, though its peak came first; weak [8..12] sustained, at 12 */
	static const double s[] = { 1.1, 1.9, 1.5, 0, 3.0, 1.2, 1.1, 0, 1.2, 1.3, 1.2, 1.1, 1.4, 0 };
	const size_t n = sizeof(s) / sizeof(s[0]);
	int seen;
	struct rv_incmerge *m = merge_gated(s, n, 5, &seen);

	assert_int_equal(rv_incmerge_count(m), 2);
	assert_int_equal(rv_incmerge_dropped(m), 1);
	assert_int_equal(rv_incmerge_get(m, 0)->first_win, 4);
	assert_near(rv_incmerge_get(m, 0)->peak_score, 3.0, EPS);
	assert_int_equal(rv_incmerge_get(m, 1)->first_win, 8);
	assert_int_equal(rv_incmerge_get(m, 1)->flagged, 5);
	assert_int_equal(seen, 5);
	rv_incmerge_free(m);

	/* windows 0: only strong ones; a peak of exactly 2 is not above it */
	m = merge_gated(s, n, 0, &seen);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_int_equal(rv_incmerge_dropped(m), 2);
	rv_incmerge_free(m);
	static const double edge[] = { 2.0, 2.0, 0 };
	m = merge_gated(edge, 3, 0, &seen);
	assert_int_equal(rv_incmerge_count(m), 0);
	assert_int_equal(seen, -1);
	rv_incmerge_free(m);

	/* no gate (peak 0): every incident of min_windows counts */
	m = rv_incmerge_new(0, NULL, 0, 2);
	rv_incmerge_set_gate(m, 0.0, 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rv_incmerge_push(m, i, (double)i, s[i] > 0, s[i], 1u, NULL), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 3);
	rv_incmerge_free(m);
}

/* A merger (max_gap 2, min_windows 2) with the agent's gate: peak 2 at
 * once or 8 windows, and the sustained and bursts rules as given (0: off);
 * peak 0: no gate. */
static struct rv_incmerge *gated(double peak, size_t sustained, size_t bursts)
{
	struct rv_incmerge *m = rv_incmerge_new(0, NULL, 2, 2);

	assert_non_null(m);
	rv_incmerge_set_gate(m, peak, 8);
	rv_incmerge_set_sustained(m, sustained);
	rv_incmerge_set_bursts(m, bursts);
	return m;
}

/* Pushes n flagged windows from first with score, lasting and material as
 * given (no attribution). */
static void push_w(struct rv_incmerge *m, size_t first, size_t n, double score, int lasting,
		   int material)
{
	for (size_t i = first; i < first + n; i++) {
		struct rv_incwin w = { .win = i, .ts = (double)i, .flagged = 1, .score = score,
				       .detectors = 1u, .lasting = lasting,
				       .immaterial = !material };

		assert_int_equal(rv_incmerge_push_win(m, &w), 0);
	}
}

/*
 * The gate with persistence: peak 2 is reported at once, 8 windows of
 * anything, and 3 windows whose excess over 1 adds up to 1 (a sustained
 * moderate fault) after 3 windows instead of 8.
 */
static void test_sustained_gate(void **state)
{
	(void)state;
	struct rv_incident in;
	struct rv_incmerge *m = gated(2.0, 3, 0);
	push_w(m, 0, 2, 1.4, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);   /* 2 windows: too short */
	push_w(m, 2, 1, 1.4, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);   /* excess 1.2 in 3 windows */
	rv_incmerge_free(m);

	/* a weak excess (0.1 a window) waits for the 8 windows */
	m = gated(2.0, 3, 0);
	push_w(m, 0, 7, 1.1, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 7, 1, 1.1, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	rv_incmerge_free(m);

	/* without set_sustained the moderate one waits too; a short one is a blip */
	m = gated(2.0, 0, 0);
	push_w(m, 0, 4, 1.4, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 0);
	assert_int_equal(rv_incmerge_dropped(m), 1);
	rv_incmerge_free(m);
}

/*
 * The gate with bursts (rv_incmerge_set_bursts): a strong stretch none of
 * whose windows lasts is not reported until it has the bursts' windows,
 * and is a blip when it stops before; one lasting window lets the usual
 * gate decide, from that window on. Without the rule, or without a gate,
 * lasting changes nothing.
 */
static void test_burst_gate(void **state)
{
	(void)state;
	struct rv_incident in;
	struct rv_incmerge *m = gated(2.0, 0, 10);
	push_w(m, 0, 3, 4.0, 0, 1);                          /* a page-in: 3 windows */
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 6, 1, 1.0, 1, 1);                          /* gap 3: it ended */
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);    /* one window: too short */
	assert_int_equal(rv_incmerge_dropped(m), 1);
	push_w(m, 7, 1, 4.0, 0, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);    /* lasted at window 6 */
	assert_int_equal(in.first_win, 6);
	rv_incmerge_free(m);

	/* bursts that go on: reported at their 10th window, not before */
	m = gated(2.0, 0, 10);
	push_w(m, 0, 9, 4.0, 0, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 9, 1, 4.0, 0, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	rv_incmerge_free(m);

	/* a weak stretch that lasts keeps the usual rules: 8 windows */
	m = gated(2.0, 0, 10);
	push_w(m, 0, 7, 1.1, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 7, 1, 1.1, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	rv_incmerge_free(m);

	/* bursts 0 (the default), or no gate: reported at the second window */
	for (int gate = 0; gate < 2; gate++) {
		m = gated(gate ? 2.0 : 0.0, 0, gate ? 0 : 10);
		push_w(m, 0, 2, 4.0, 0, 1);
		assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
		rv_incmerge_free(m);
	}
}

/*
 * The gate with materiality (struct rv_incwin): a stretch of strong
 * windows none of which is material is never reported, however long, and
 * is a blip when it stops; it is judged on its material windows alone, so
 * a weak material window beside strong immaterial ones does not pass for
 * strong, while a strong one, or a sustained material excess, does.
 * Without a gate materiality changes nothing.
 */
static void test_material_gate(void **state)
{
	(void)state;
	struct rv_incident in;
	struct rv_incmerge *m = gated(2.0, 3, 10);
	push_w(m, 0, 30, 4.0, 1, 0);           /* page-ins for 30 windows */
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 30, 1, 1.1, 1, 1);           /* a weak material window inside */
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 31, 1, 4.0, 1, 0);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 0);
	assert_int_equal(rv_incmerge_dropped(m), 1);
	rv_incmerge_free(m);

	/* a strong material window: reported from the stretch's start */
	m = gated(2.0, 3, 0);
	push_w(m, 0, 2, 4.0, 1, 0);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 2, 1, 2.5, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	assert_int_equal(in.first_win, 0);
	assert_true(in.peak_score == 4.0);         /* the incident's own peak */
	rv_incmerge_free(m);

	/* moderate material windows: their summed excess, at the third */
	m = gated(2.0, 3, 0);
	push_w(m, 0, 4, 3.0, 1, 0);
	push_w(m, 4, 2, 1.6, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 6, 1, 1.6, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	rv_incmerge_free(m);

	/* no gate: immaterial windows are reported as before */
	m = gated(0.0, 3, 10);
	push_w(m, 0, 2, 1.1, 1, 0);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	rv_incmerge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_sustained_gate),
		cmocka_unit_test(test_burst_gate),
		cmocka_unit_test(test_material_gate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
