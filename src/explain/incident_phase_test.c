/*
 * incident_phase_test.c - follow-on phases: the blame of the onset stays,
 * the after-effect is a phase linked to its cause, and what is stronger
 * than its supposed cause is an incident of its own.
 *
 * Expected values are worked out by hand in the comments beside each case.
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

/* Pushes n windows from win, all flagged with score and weights w. */
static size_t push_run(struct rv_incmerge *m, size_t win, size_t n, double score,
		       const double *w)
{
	for (size_t i = 0; i < n; i++, win++)
		assert_int_equal(rv_incmerge_push(m, win, (double)win, 1, score, 1u, w), 0);
	return win;
}

/*
 * A cpu fault whose after-effects are on the network: the incident keeps
 * the blame of its onset (cpu), ends when the cpu channels are back, and
 * the network stretch after it is its follow-on phase, linked to it.
 */
static void test_onset_blame_and_follow_on(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.a", "cpu.b", "net.x", "net.y" };
	struct rv_incmerge *m = NULL;
	const double rise[] = { 4, 2, 1, 0 }, peak[] = { 8, 4, 1, 0 }, cpu[] = { 6, 3, 2, 1 };
	const double net[] = { 0.5, 0, 9, 6 };
	struct rv_incident open;
	size_t w;

	assert_int_equal(rv_incmerge_new(4, names, 2, 2, &m, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 1.5, 1u, rise), 0);
	assert_int_equal(rv_incmerge_push(m, 1, 1, 1, 3.0, 1u, peak), 0);
	w = push_run(m, 2, 4, 2.0, cpu);                 /* windows 2..5: cpu goes on */
	w = push_run(m, w, 10, 1.5, net);                /* windows 6..15: the net after-effect */
	/* the open incident is now the follow-on: net, phase 2, after incident 1 */
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
	assert_int_equal(open.subsystem, RV_SUB_NET);
	assert_int_equal(open.phase, 2);
	assert_int_equal(open.follows, 1);
	assert_int_equal(open.first_win, 6);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 2);

	/* onset: windows 0..1 (the peak) = {12, 6, 2, 0}: cpu, cpu.a first */
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->id, 1);
	assert_int_equal(in->phase, 1);
	assert_int_equal(in->follows, 0);
	assert_int_equal(in->subsystem, RV_SUB_CPU);
	assert_int_equal(in->top[0], 0);
	assert_near(in->top_weight[0], 12.0 / 20.0, EPS);
	assert_near(in->sub_share[RV_SUB_CPU], 18.0 / 20.0, EPS);
	/* it ends with its last cpu window, not with the net stretch */
	assert_int_equal(in->first_win, 0);
	assert_int_equal(in->last_win, 5);
	assert_int_equal(in->flagged, 6);
	assert_near(in->peak_score, 3.0, EPS);

	in = rv_incmerge_get(m, 1);
	assert_int_equal(in->id, 2);
	assert_int_equal(in->phase, 2);
	assert_int_equal(in->follows, 1);
	assert_int_equal(in->subsystem, RV_SUB_NET);
	assert_int_equal(in->top[0], 2);
	assert_int_equal(in->first_win, 6);
	assert_int_equal(in->last_win, 15);
	assert_int_equal(in->flagged, 10);
	/* every flagged window lies in one of them */
	for (size_t k = 0; k < w; k++)
		assert_int_equal(rv_incmerge_covers(m, k), 1);
	rv_incmerge_free(m);
}

/* A stronger stretch that outlives a weak incident is not its after-effect:
 * an incident of its own, phase 1. */
static void test_stronger_is_not_follow_on(void **state)
{
	(void)state;
	static const char *const names[] = { "net.x", "cpu.y" };
	struct rv_incmerge *m = NULL;
	const double net[] = { 3, 0 }, cpu[] = { 0, 9 };
	size_t w;

	assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
	w = push_run(m, 0, 6, 1.4, net);
	w = push_run(m, w, 6, 8.0, cpu);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 2);
	assert_int_equal(rv_incmerge_get(m, 1)->subsystem, RV_SUB_CPU);
	assert_int_equal(rv_incmerge_get(m, 1)->phase, 1);
	assert_int_equal(rv_incmerge_get(m, 1)->follows, 0);
	(void)w;
	rv_incmerge_free(m);
}

/* Four channels, cpu.a, cpu.b, net.x, net.y; an incident on cpu whose first
 * window (score peak) is its peak and windows 1..5 go on at score cpu_score,
 * then n windows on net at net_score: its follow-on phase. Returns the next
 * window. */
static const char *const phase_names[] = { "cpu.a", "cpu.b", "net.x", "net.y" };
static const double w_net[] = { 0.5, 0, 9, 6 };

static size_t cpu_then_net(struct rv_incmerge *m, double peak, double cpu_score, size_t n,
			   double net_score)
{
	const double first[] = { 8, 4, 1, 0 }, cpu[] = { 6, 3, 2, 1 };
	struct rv_incident open;

	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, peak, 1u, first), 0);
	size_t w = push_run(m, 1, 5, cpu_score, cpu);
	w = push_run(m, w, n, net_score, w_net);
	assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
	assert_int_equal(open.phase, 2);
	assert_int_equal(open.follows, 1);
	return w;
}

/* A follow-on phase that later outgrows its cause (peak 3.0) was a new
 * fault all along: phase 1, following nothing, from then on. Below that
 * it stays a phase. */
static void test_follow_on_that_outgrows_its_cause(void **state)
{
	(void)state;
	struct rv_incmerge *m = NULL;
	struct rv_incident open;
	size_t w;

	assert_int_equal(rv_incmerge_new(4, phase_names, 2, 2, &m, NULL), 0);
	w = cpu_then_net(m, 3.0, 2.0, 4, 1.5);           /* windows 6..9: weaker, on net */
	w = push_run(m, w, 1, 2.9, w_net);               /* window 10: below 3.0 */
	assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
	assert_int_equal(open.phase, 2);
	w = push_run(m, w, 3, 3.5, w_net);               /* windows 11..13: stronger */
	assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
	assert_int_equal(open.phase, 1);
	assert_int_equal(open.follows, 0);
	assert_int_equal(open.first_win, 6);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 2);
	assert_int_equal(rv_incmerge_get(m, 1)->phase, 1);
	assert_int_equal(rv_incmerge_get(m, 1)->follows, 0);
	assert_int_equal(rv_incmerge_get(m, 1)->subsystem, RV_SUB_NET);
	(void)w;
	rv_incmerge_free(m);
}

/* A follow-on phase that grows but stays below its cause's peak (9.0)
 * stays linked: a fault can leave the job worse off after it than during
 * it (a TCP connection stuck in a slow mode after packet loss). */
static void test_follow_on_that_grows(void **state)
{
	(void)state;
	struct rv_incmerge *m = NULL;
	struct rv_incident open;
	size_t w;

	assert_int_equal(rv_incmerge_new(4, phase_names, 2, 2, &m, NULL), 0);
	w = cpu_then_net(m, 9.0, 4.0, 4, 1.2);           /* the after-effect, linked at 1.2 */
	w = push_run(m, w, 4, 4.8, w_net);               /* four times that, below 9.0 */
	assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
	assert_int_equal(open.phase, 2);
	assert_int_equal(open.follows, 1);
	(void)w;
	rv_incmerge_free(m);
}

/*
 * One window that another subsystem leads inside a CPU hog's onset, its
 * last (the fifth): weights are shares, so the hog's channel falls to a
 * sixth of its level there without being gone. The onset keeps it (it
 * lasts in the window before), the incident stays cpu, one phase, and
 * the hog's windows after it continue it.
 */
static void test_onset_dip_is_not_transient(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.user_pct", "net.rx" };
	struct rv_incmerge *m = NULL;
	const double hog[] = { 6, 0.5 }, dip[] = { 1, 5 };
	size_t w;

	assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
	w = push_run(m, 0, 4, 3.0, hog);
	w = push_run(m, w, 1, 2.0, dip);   /* window 4: cpu 1 < 0.25 * 6 */
	w = push_run(m, w, 6, 3.0, hog);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->subsystem, RV_SUB_CPU);
	assert_int_equal(in->phase, 1);
	assert_int_equal(in->flagged, 11);
	/* the onset: windows 0-1 (no later window beats the first's peak),
	 * {12, 1}, both lasting in window 3 or 4 */
	assert_int_equal(in->ntop, 2);
	assert_int_equal(in->top[0], 0);
	assert_near(in->top_weight[0], 12.0 / 13.0, EPS);
	rv_incmerge_free(m);
}

/*
 * Bursts on another subsystem in two of the onset's five windows (the
 * writes of whoever reacts to the incident) outweigh a CPU hog there, and
 * the second lies in the last two windows: a channel present in fewer than
 * half of the onset's windows leaves it, and the hog keeps the blame.
 */
static void test_onset_bursts_are_not_blame(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.user_pct", "storage.writes" };
	struct rv_incmerge *m = NULL;
	const double hog[] = { 6, 0 }, burst[] = { 2, 40 };
	size_t w;

	assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
	w = push_run(m, 0, 2, 3.0, hog);
	w = push_run(m, w, 1, 4.0, burst);   /* window 2: the peak */
	w = push_run(m, w, 1, 3.0, hog);
	w = push_run(m, w, 1, 3.5, burst);   /* window 4 */
	w = push_run(m, w, 6, 3.0, hog);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	/* onset {14, 40} of 3 windows; storage at 10 or more in 2 of 5 */
	assert_int_equal(in->subsystem, RV_SUB_CPU);
	assert_int_equal(in->phase, 1);
	assert_int_equal(in->ntop, 1);
	assert_int_equal(in->top[0], 0);
	assert_near(in->top_weight[0], 1.0, EPS);
	rv_incmerge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_onset_blame_and_follow_on),
		cmocka_unit_test(test_stronger_is_not_follow_on),
		cmocka_unit_test(test_follow_on_that_outgrows_its_cause),
		cmocka_unit_test(test_follow_on_that_grows),
		cmocka_unit_test(test_onset_dip_is_not_transient),
		cmocka_unit_test(test_onset_bursts_are_not_blame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
