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
	struct rv_incmerge *m = NULL;
	struct rv_incident open;

	assert_int_equal(rv_incmerge_new(0, NULL, 0, 2, &m, NULL), 0);
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
	assert_int_equal(rv_incmerge_new(0, NULL, 0, 2, &m, NULL), 0);
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
	struct rv_incmerge *m = NULL;

	assert_int_equal(rv_incmerge_new(0, NULL, 2, 2, &m, NULL), 0);
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
 * anything, and 3 lasting windows whose excess over 1 adds up to 1 (a
 * sustained moderate fault) after 3 windows instead of 8.
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

	/* a sustained excess is one whose evidence lasts: three moderate
	 * windows of one burst (a page-in held in the windows that overlap
	 * it) do not add up, even when a lasting window of small moves
	 * follows; a strong one after them is an incident of its own */
	m = gated(2.0, 3, 10);
	push_w(m, 0, 3, 1.6, 0, 1);
	push_w(m, 3, 1, 0.9, 1, 0);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 4, 2, 1.6, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);   /* 2 lasting windows */
	push_w(m, 6, 1, 4.0, 0, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);   /* strong after weak */
	assert_int_equal(in.first_win, 6);
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
 * gate decide (the incident beginning at its first strong window when the
 * ones before were weak). Without the rule, or without a gate,
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
	assert_int_equal(in.first_win, 7);    /* begins at its first strong window */
	assert_int_equal(in.flagged, 1);
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

	/* a strong material window: reported, beginning there (the
	 * immaterial windows before it are no part of its blame, but count
	 * for its length: min_windows 2 is met) */
	m = gated(2.0, 3, 0);
	push_w(m, 0, 2, 4.0, 1, 0);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	push_w(m, 2, 1, 2.5, 1, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	assert_int_equal(in.first_win, 2);
	assert_int_equal(in.flagged, 1);
	assert_true(in.peak_score == 2.5);
	push_w(m, 3, 1, 4.0, 1, 0);                 /* immaterial, but inside it now */
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	assert_int_equal(in.first_win, 2);
	assert_true(in.peak_score == 4.0);
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

/*
 * The blame of an incident comes from its material windows on: flagged
 * windows before its first material one (a file read back on a quiet
 * host) leave nothing in it, so a CPU hog that follows them is a cpu
 * incident, beginning at its first material window.
 */
static void test_blame_from_first_material(void **state)
{
	(void)state;
	static const char *const names[] = { "storage.reads:vda", "cpu.user_pct",
					      "cpu.idle_pct" };
	static const double reads[] = { 1.0, 0.0, 0.0 }, hog[] = { 0.1, 0.3, 0.25 };
	struct rv_incmerge *m = NULL;
	struct rv_incident in;

	assert_int_equal(rv_incmerge_new(3, names, 2, 2, &m, NULL), 0);
	rv_incmerge_set_gate(m, 2.0, 8);
	for (size_t i = 0; i < 8; i++) {
		int hogs = i >= 3;
		struct rv_incwin w = { .win = i, .ts = (double)i, .flagged = 1,
				       .score = hogs ? 2.5 : 3.0, .detectors = 1u,
				       .weight = hogs ? hog : reads, .lasting = 1,
				       .immaterial = !hogs };

		assert_int_equal(rv_incmerge_push_win(m, &w), 0);
		assert_int_equal(rv_incmerge_peek_open(m, &in), hogs);
	}
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	in = *rv_incmerge_get(m, 0);
	assert_int_equal(in.subsystem, RV_SUB_CPU);
	assert_int_equal(in.first_win, 3);
	assert_int_equal(in.flagged, 5);
	assert_true(in.sub_share[RV_SUB_STORAGE] < 0.2);
	rv_incmerge_free(m);
}

/*
 * A fault that begins a few windows after a weak stretch of something
 * else (pages read back, material but scoring just over the threshold)
 * is blamed on what it moves: the stretch, not reported yet and weak
 * throughout, begins afresh at its first strong material window. Once a
 * strong window has been seen, a stronger one does not restart it.
 */
static void test_strong_after_weak_restarts(void **state)
{
	(void)state;
	static const char *const names[] = { "storage.reads:vda", "cpu.idle_pct",
					      "mem.anon_pages_bytes" };
	static const double reads[] = { 1.0, 0.2, 0.0 }, leak[] = { 0.0, 0.1, 1.0 };
	struct rv_incmerge *m = NULL;
	struct rv_incident in;
	assert_int_equal(rv_incmerge_new(3, names, 2, 2, &m, NULL), 0);
	/* weak reads at 0..2, two quiet windows, the leak from 5 on */
	const double score[] = { 1.1, 1.05, 1.1, 0, 0, 6.0, 8.0, 7.0, 7.0, 7.0, 7.0 };

	rv_incmerge_set_gate(m, 2.0, 8);
	for (size_t i = 0; i < sizeof(score) / sizeof(score[0]); i++) {
		struct rv_incwin w = { .win = i, .ts = (double)i, .flagged = score[i] > 0,
				       .score = score[i], .detectors = 1u,
				       .weight = i < 5 ? reads : leak, .lasting = 1 };

		assert_int_equal(rv_incmerge_push_win(m, &w), 0);
	}
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	assert_int_equal(in.first_win, 5);
	assert_int_equal(in.subsystem, RV_SUB_MEM);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_int_equal(rv_incmerge_get(m, 0)->first_win, 5);
	assert_int_equal(rv_incmerge_get(m, 0)->subsystem, RV_SUB_MEM);
	assert_true(rv_incmerge_get(m, 0)->sub_share[RV_SUB_STORAGE] == 0.0);
	rv_incmerge_free(m);

	/* strong from the start: 6.0 then 8.0 is one stretch from window 0 */
	assert_int_equal(rv_incmerge_new(3, names, 2, 2, &m, NULL), 0);
	rv_incmerge_set_gate(m, 2.0, 8);
	for (size_t i = 0; i < 4; i++) {
		struct rv_incwin w = { .win = i, .ts = (double)i, .flagged = 1,
				       .score = i == 0 ? 6.0 : 8.0, .detectors = 1u,
				       .weight = i == 0 ? reads : leak, .lasting = 1 };

		assert_int_equal(rv_incmerge_push_win(m, &w), 0);
	}
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_get(m, 0)->first_win, 0);
	assert_int_equal(rv_incmerge_get(m, 0)->flagged, 4);
	rv_incmerge_free(m);
}

/*
 * One signal the kernel keeps under several names (a node's counter on a
 * host of one node, minor faults where there are no major ones) counts
 * once among its subsystem's leaders: two mem channels with the same
 * weight do not outweigh cpu's two distinct ones, while two mem channels
 * of different weight still add up.
 */
static void test_same_signal_counts_once(void **state)
{
	(void)state;
	static const char *const names[] = { "mem.anon_pages_bytes",
					      "mem.node_anon_pages_bytes:node0", "cpu.user_pct",
					      "cpu.idle_pct" };
	static const double dup[] = { 0.3, 0.3, 0.25, 0.2 }, distinct[] = { 0.3, 0.28, 0.25, 0.2 };
	const double *w[] = { dup, distinct };
	const enum rv_subsystem want[] = { RV_SUB_CPU, RV_SUB_MEM };

	for (int k = 0; k < 2; k++) {
		struct rv_incmerge *m = NULL;

		assert_int_equal(rv_incmerge_new(4, names, 0, 1, &m, NULL), 0);
		assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 2.0, 1u, w[k]), 0);
		assert_int_equal(rv_incmerge_push(m, 1, 1, 1, 2.0, 1u, w[k]), 0);
		assert_int_equal(rv_incmerge_finish(m), 0);
		assert_int_equal(rv_incmerge_get(m, 0)->subsystem, want[k]);
		/* both names stay among its top channels */
		assert_int_equal(rv_incmerge_get(m, 0)->ntop, 4);
		rv_incmerge_free(m);
	}
}

/*
 * A CPU hog on a quiet host moves its loopback softirqs to the other CPU:
 * a few packets a second (a hundredth of what could matter) far outside
 * the spread learnt near 0, so those windows score far above the hog's
 * own and, judged immaterial, are weighed by what moved materially in
 * them. As raw shares the softirqs would crush the CPU channels in each
 * of them: the onset would peak at one, the CPU channels would not last
 * through it, and the incident would close while the hog runs, blamed on
 * a disk discard of the hog's last second. Here it stays one cpu
 * incident from the hog's first window to its last; the discard after
 * it, a window of its own, is a blip.
 */
static void test_immaterial_windows_weigh_what_moved(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.user_pct", "cpu.user_pct:cpu0",
					      "cpu.busy_pct:cpu1", "net.softirq_net_rx:cpu1",
					      "storage.discard_time_ms:vda" };
	/* the hog alone; the softirqs beside it; a discard after it */
	static const double hog[] = { 3, 3, 3, 0, 0 }, irq[] = { 0.3, 0.3, 0.3, 97, 0 },
			    disc[] = { 1, 1, 1, 0, 20 };
	static const float moved[] = { 1, 1, 1, 0.01f, 1 };
	struct rv_incmerge *m = NULL;
	struct rv_incident in;
	size_t win = 0;

	assert_int_equal(rv_incmerge_new(5, names, 2, 3, &m, NULL), 0);
	rv_incmerge_set_gate(m, 2.0, 8);
	for (size_t i = 0; i < 16; i++, win++) {
		int soft = i >= 2 && i % 3 != 1, last = i == 15;
		struct rv_incwin w = { .win = win, .ts = (double)win, .flagged = 1,
				       .score = soft ? 100.0 : 5.0, .detectors = 1u,
				       .weight = last ? disc : soft ? irq : hog, .lasting = 1,
				       .immaterial = soft, .matter = moved };

		assert_int_equal(rv_incmerge_push_win(m, &w), 0);
		/* reported from its third window (min_windows) */
		assert_int_equal(rv_incmerge_peek_open(m, &in), i >= 2);
		if (i >= 2)
			assert_int_equal(in.subsystem, RV_SUB_CPU);
	}
	for (size_t i = 0; i < 4; i++, win++)
		assert_int_equal(rv_incmerge_push(m, win, (double)win, 0, 0, 0, NULL), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_int_equal(rv_incmerge_dropped(m), 1);
	in = *rv_incmerge_get(m, 0);
	assert_int_equal(in.first_win, 0);
	assert_int_equal(in.last_win, 14);
	assert_int_equal(in.subsystem, RV_SUB_CPU);
	assert_true(in.sub_share[RV_SUB_NET] < 0.1);
	rv_incmerge_free(m);
}

/*
 * The gate weighs a material window's strength, its score with no
 * detector below its threshold dragging it down: a CPU hog over a busy
 * baseline that one detector does not see at all (z-score 1.6 times its
 * threshold, PCA 5.4, the isolation forest 0.7: fused 1.8, strength 2.05)
 * is reported once it is long enough, not after the sustained rule's
 * windows. An immaterial window's strength is not weighed.
 */
static void test_gate_weighs_strength(void **state)
{
	(void)state;
	struct rv_incident in;

	for (int material = 0; material <= 1; material++) {
		struct rv_incmerge *m = gated(2.0, 3, 0);

		for (size_t i = 0; i < 3; i++) {
			struct rv_incwin w = { .win = i, .ts = (double)i, .flagged = 1,
					       .score = 1.8, .detectors = 3u, .lasting = 0,
					       .immaterial = !material, .strength = 2.05 };

			assert_int_equal(rv_incmerge_push_win(m, &w), 0);
			/* min_windows 2 */
			assert_int_equal(rv_incmerge_peek_open(m, &in), material && i >= 1);
		}
		rv_incmerge_free(m);
	}
	/* the same windows with the strength of their score wait */
	struct rv_incmerge *m = gated(2.0, 3, 0);

	push_w(m, 0, 3, 1.8, 0, 1);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	rv_incmerge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_sustained_gate),
		cmocka_unit_test(test_burst_gate),
		cmocka_unit_test(test_material_gate),
		cmocka_unit_test(test_blame_from_first_material),
		cmocka_unit_test(test_same_signal_counts_once),
		cmocka_unit_test(test_strong_after_weak_restarts),
		cmocka_unit_test(test_immaterial_windows_weigh_what_moved),
		cmocka_unit_test(test_gate_weighs_strength),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
