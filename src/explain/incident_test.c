/*
 * incident_test.c - merging flagged windows into incidents, JSON and table.
 *
 * Expected values are worked out by hand in the comments beside each case
 * (sums of a few weights); ISO dates were checked against `date -u -d @ts`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain/incident.h"

enum { OUT_MAX = 8192 };
static const double EPS = 1e-12;

static const char *const det_names[] = { "zscore", "pca", "iforest" };
enum { NDET = sizeof(det_names) / sizeof(det_names[0]) };

static void assert_near(double got, double want, double eps)
{
	if (!(fabs(got - want) <= eps))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* Pushes flags[i] as window i (score 1, detector bit 0, no weights). */
static struct rv_incmerge *merge_flags(const char *flags, size_t max_gap, size_t min_windows)
{
	struct rv_incmerge *m = NULL;
	assert_int_equal(rv_incmerge_new(0, NULL, max_gap, min_windows, &m, NULL), 0);
	for (size_t i = 0; flags[i]; i++)
		assert_int_equal(rv_incmerge_push(m, i, (double)i * 10, flags[i] == '1', 1.0, 1u, NULL),
				 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	return m;
}

static void assert_span(const struct rv_incmerge *m, size_t i, size_t first, size_t last,
			size_t flagged)
{
	const struct rv_incident *in = rv_incmerge_get(m, i);
	assert_non_null(in);
	assert_int_equal(in->id, i + 1);
	assert_int_equal(in->first_win, first);
	assert_int_equal(in->last_win, last);
	assert_int_equal(in->flagged, flagged);
	assert_near(in->start_ts, (double)first * 10, EPS);
	assert_near(in->end_ts, (double)last * 10, EPS);
}

static void test_gap(void **state)
{
	(void)state;
	struct rv_incmerge *m = merge_flags("110100", 0, 1);
	assert_int_equal(rv_incmerge_count(m), 2);
	assert_span(m, 0, 0, 1, 2);
	assert_span(m, 1, 3, 3, 1);
	assert_null(rv_incmerge_get(m, 2));
	rv_incmerge_free(m);

	m = merge_flags("110100", 1, 1);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_span(m, 0, 0, 3, 3);
	rv_incmerge_free(m);

	/* gap 2: two unflagged bridge, three do not */
	m = merge_flags("1001000100", 2, 1);
	assert_int_equal(rv_incmerge_count(m), 2);
	assert_span(m, 0, 0, 3, 2);
	assert_span(m, 1, 7, 7, 1);
	assert_int_equal(rv_incmerge_dropped(m), 0);
	rv_incmerge_free(m);
}

static void test_min_windows(void **state)
{
	(void)state;
	/* [0] blip, [2..3] kept, [6..8] kept, [10] blip closed by finish */
	struct rv_incmerge *m = merge_flags("10110011101", 0, 2);
	assert_int_equal(rv_incmerge_count(m), 2);
	assert_int_equal(rv_incmerge_dropped(m), 2);
	assert_span(m, 0, 2, 3, 2);
	assert_span(m, 1, 6, 8, 3);
	rv_incmerge_free(m);

	m = merge_flags("10110011101", 0, 0);
	assert_int_equal(rv_incmerge_count(m), 4);
	assert_int_equal(rv_incmerge_dropped(m), 0);
	rv_incmerge_free(m);
}

static void test_order_and_skipped_windows(void **state)
{
	(void)state;
	struct rv_incmerge *m = NULL;
	struct rv_err err = { 0 };

	/* channels without names: refused, with a reason */
	assert_int_equal(rv_incmerge_new(2, NULL, 1, 1, &m, &err), -EINVAL);
	assert_null(m);
	assert_non_null(strstr(err.msg, "without names"));
	assert_int_equal(rv_incmerge_new(0, NULL, 1, 1, &m, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 1, 0, NULL), 0);
	/* window 1 never pushed: one unflagged window, within max_gap 1 */
	assert_int_equal(rv_incmerge_push(m, 2, 20, 1, 1, 0, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 2, 20, 1, 1, 0, NULL), -EINVAL);
	assert_int_equal(rv_incmerge_push(m, 1, 10, 1, 1, 0, NULL), -EINVAL);
	/* windows 3 and 4 missing: two unflagged, more than max_gap */
	assert_int_equal(rv_incmerge_push(m, 5, 50, 1, 1, 0, NULL), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_span(m, 0, 0, 2, 2);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 2);
	assert_span(m, 1, 5, 5, 1);
	rv_incmerge_free(m);
	rv_incmerge_free(NULL);
}

/* A live agent reports an incident as soon as the gap is exceeded. */
static void test_close_timing(void **state)
{
	(void)state;
	struct rv_incmerge *m = NULL;
	assert_int_equal(rv_incmerge_new(0, NULL, 1, 1, &m, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 1, 0, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 1, 10, 0, 0, 0, NULL), 0);
	assert_int_equal(rv_incmerge_count(m), 0);
	assert_int_equal(rv_incmerge_push(m, 2, 20, 0, 0, 0, NULL), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	rv_incmerge_free(m);

	assert_int_equal(rv_incmerge_new(0, NULL, 0, 1, &m, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 1, 0, NULL), 0);
	assert_int_equal(rv_incmerge_count(m), 0);
	assert_int_equal(rv_incmerge_push(m, 1, 10, 0, 0, 0, NULL), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	rv_incmerge_free(m);
}

static void test_scores_detectors_finish(void **state)
{
	(void)state;
	struct rv_incmerge *m = NULL;
	assert_int_equal(rv_incmerge_new(0, NULL, 1, 1, &m, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 2.0, 1u, NULL), 0);
	/* unflagged: its score and detector bit are not the incident's */
	assert_int_equal(rv_incmerge_push(m, 1, 10, 0, 100.0, 8u, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 2, 20, 1, 5.0, 2u, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 3, 30, 1, 3.0, 4u | 1u, NULL), 0);
	assert_int_equal(rv_incmerge_count(m), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->detectors, 7u);
	assert_int_equal(in->flagged, 3);
	assert_near(in->peak_score, 5.0, EPS);
	assert_near(in->mean_score, 10.0 / 3.0, EPS);
	assert_int_equal(in->subsystem, RV_SUB_OTHER);  /* no weights at all */
	assert_int_equal(in->ntop, 0);
	rv_incmerge_free(m);
}

static void test_top_channels(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.a", "net.b", "net.c", "mem.d" };
	struct rv_incmerge *m = NULL;
	const double w1[] = { 1, 0, 2, 0 };
	const double w2[] = { 1, -5, 0, 3 };
	const double w3[] = { 0, NAN, 0, 0 };
	assert_int_equal(rv_incmerge_new(4, names, 0, 1, &m, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 1, 0, w1), 0);
	assert_int_equal(rv_incmerge_push(m, 1, 1, 1, 1, 0, w2), 0);
	assert_int_equal(rv_incmerge_push(m, 2, 2, 1, 1, 0, w3), 0);
	/* a flagged window without attribution adds nothing */
	assert_int_equal(rv_incmerge_push(m, 3, 3, 1, 1, 0, NULL), 0);
	/* next incident: its accumulator starts from zero */
	const double w4[] = { 0, 1, 0, 0 };
	assert_int_equal(rv_incmerge_push(m, 5, 5, 1, 1, 0, w4), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 2);

	/* acc = {2, 0, 2, 3}, total 7: d, then a and c tied (a first) */
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->ntop, 3);
	assert_int_equal(in->top[0], 3);
	assert_int_equal(in->top[1], 0);
	assert_int_equal(in->top[2], 2);
	assert_near(in->top_weight[0], 3.0 / 7.0, EPS);
	assert_near(in->top_weight[1], 2.0 / 7.0, EPS);
	assert_near(in->top_weight[2], 2.0 / 7.0, EPS);
	assert_int_equal(in->subsystem, RV_SUB_MEM);  /* mem 3 > cpu 2 = net 2 */

	in = rv_incmerge_get(m, 1);
	assert_int_equal(in->ntop, 1);
	assert_int_equal(in->top[0], 1);
	assert_near(in->top_weight[0], 1.0, EPS);
	assert_int_equal(in->subsystem, RV_SUB_NET);
	rv_incmerge_free(m);
}

/* The live agent's view: the open incident while it lasts, forgetting
 * closed ones, and ids that continue after a restart. */
static void test_peek_forget_next_id(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.a", "net.b" };
	struct rv_incmerge *m = NULL;
	struct rv_incident in;
	const double w1[] = { 1, 3 }, w2[] = { 5, 0 };

	assert_int_equal(rv_incmerge_new(2, names, 1, 2, &m, NULL), 0);
	rv_incmerge_set_next_id(m, 41);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 10, 1, 2.0, 1u, w1), 0);
	/* one flagged window is below min_windows 2: not reported yet */
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	assert_int_equal(rv_incmerge_push(m, 1, 11, 1, 4.0, 2u, w2), 0);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	assert_int_equal(in.id, 41);
	assert_int_equal(in.flagged, 2);
	assert_near(in.start_ts, 10, EPS);
	assert_near(in.end_ts, 11, EPS);
	assert_near(in.mean_score, 3.0, EPS);
	assert_near(in.peak_score, 4.0, EPS);
	assert_int_equal(in.detectors, 3u);
	/* acc = {6, 3}, but net.b is gone in the last window (0 < 3/2 / 4):
	 * cpu.a alone */
	assert_int_equal(in.ntop, 1);
	assert_int_equal(in.top[0], 0);
	assert_near(in.top_weight[0], 1.0, EPS);
	assert_int_equal(in.subsystem, RV_SUB_CPU);
	/* peeking changes nothing: the incident closes with the same summary */
	assert_int_equal(rv_incmerge_push(m, 2, 12, 0, 0.5, 0u, NULL), 0);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 1);
	assert_int_equal(rv_incmerge_push(m, 3, 13, 0, 0.5, 0u, NULL), 0);
	assert_int_equal(rv_incmerge_peek_open(m, &in), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_int_equal(rv_incmerge_get(m, 0)->id, 41);
	assert_near(rv_incmerge_get(m, 0)->top_weight[0], 1.0, EPS);
	rv_incmerge_forget_closed(m);
	assert_int_equal(rv_incmerge_count(m), 0);
	assert_null(rv_incmerge_get(m, 0));
	assert_int_equal(rv_incmerge_push(m, 4, 14, 1, 1.0, 1u, w1), 0);
	assert_int_equal(rv_incmerge_push(m, 5, 15, 1, 1.0, 1u, w1), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_int_equal(rv_incmerge_get(m, 0)->id, 42);
	rv_incmerge_free(m);
}

static void test_subsystem_by_sum(void **state)
{
	(void)state;
	/* the single largest channel is cpu, but net carries more in total */
	static const char *const names[] = { "net.x", "net.y", "cpu.z", "weird" };
	struct rv_incmerge *m = NULL;
	const double w[] = { 2, 2.5, 3, 0 };
	assert_int_equal(rv_incmerge_new(4, names, 0, 1, &m, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 1, 0, w), 0);
	/* only an unknown-subsystem channel: other */
	const double w_other[] = { 0, 0, 0, 4 };
	assert_int_equal(rv_incmerge_push(m, 2, 0, 1, 1, 0, w_other), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->subsystem, RV_SUB_NET);
	assert_int_equal(in->top[0], 2);
	assert_near(in->top_weight[0], 3.0 / 7.5, EPS);
	assert_int_equal(rv_incmerge_get(m, 1)->subsystem, RV_SUB_OTHER);
	rv_incmerge_free(m);
}

static void test_top_max(void **state)
{
	(void)state;
	enum { NCH = 12 };
	static const char *const names[NCH] = { "c0", "c1", "c2", "c3", "c4", "c5",
						 "c6", "c7", "c8", "c9", "c10", "c11" };
	/* weights 0, 1, ..., 11 in a shuffled order of channels */
	static const uint32_t order[NCH] = { 7, 2, 11, 0, 5, 9, 3, 10, 1, 8, 4, 6 };
	double w[NCH];
	double total = 0;
	for (size_t i = 0; i < NCH; i++) {
		w[order[i]] = (double)i;
		total += (double)i;
	}
	struct rv_incmerge *m = NULL;
	assert_int_equal(rv_incmerge_new(NCH, names, 0, 1, &m, NULL), 0);
	assert_int_equal(rv_incmerge_push(m, 0, 0, 1, 1, 0, w), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->ntop, RV_INCIDENT_TOP_MAX);
	for (size_t k = 0; k < RV_INCIDENT_TOP_MAX; k++) {
		assert_int_equal(in->top[k], order[NCH - 1 - k]);
		assert_near(in->top_weight[k], (double)(NCH - 1 - k) / total, EPS);
	}
	rv_incmerge_free(m);
}

/* Pushes n windows from win, all flagged with score and weights w. */
static size_t push_run(struct rv_incmerge *m, size_t win, size_t n, double score,
		       const double *w)
{
	for (size_t i = 0; i < n; i++, win++)
		assert_int_equal(rv_incmerge_push(m, win, (double)win, 1, score, 1u, w), 0);
	return win;
}

/* The hysteresis: after the onset, a window continues the incident while
 * its onset channels keep a quarter of their onset weight per window. */
static void test_close_on_onset_channels(void **state)
{
	(void)state;
	static const char *const names[] = { "mem.a", "mem.b", "storage.c" };
	struct rv_incmerge *m = NULL;
	const double on[] = { 10, 0, 0 }, low[] = { 3, 1, 4 }, gone[] = { 2, 1, 4 };
	size_t w;

	assert_int_equal(rv_incmerge_new(3, names, 1, 1, &m, NULL), 0);
	w = push_run(m, 0, 5, 2.0, on);       /* onset level: 10 per window */
	w = push_run(m, w, 5, 1.2, low);      /* 3 >= 2.5: still its own */
	w = push_run(m, w, 2, 1.2, gone);     /* 2 < 2.5: not its own */
	assert_int_equal(rv_incmerge_count(m), 1);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->last_win, 9);
	assert_int_equal(in->flagged, 10);
	assert_int_equal(in->subsystem, RV_SUB_MEM);
	/* the two windows after it are its follow-on, kept (min_windows 1) */
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 2);
	assert_int_equal(rv_incmerge_get(m, 1)->follows, in->id);
	assert_int_equal(rv_incmerge_get(m, 1)->first_win, 10);
	assert_int_equal(rv_incmerge_get(m, 1)->subsystem, RV_SUB_STORAGE);
	(void)w;
	rv_incmerge_free(m);
}

/* Packet loss: failed retransmissions (net.a) lead the onset, delayed ACKs
 * (net.b) are a minor part of it and go on after the fault with far more
 * weight than the whole onset level (a novel counter's attribution). The
 * onset {6, 1.5, 1} per window: net.a (6 of 8.5) is short of 80 %, so the
 * onset channels are net.a and net.b, level 7.5, continuing at 1.875.
 * Uncapped, net.b's 30 would continue the incident for ever; counted up to
 * its own onset level it gives 1.5 < 1.875: the incident ends with the
 * fault and the delayed ACKs are its follow-on. */
static void test_minor_onset_channel_cannot_hold(void **state)
{
	(void)state;
	static const char *const names[] = { "net.a", "net.b", "cpu.c" };
	struct rv_incmerge *m = NULL;
	const double fault[] = { 6, 1.5, 1 }, after[] = { 0, 30, 0 };
	size_t w;

	assert_int_equal(rv_incmerge_new(3, names, 1, 1, &m, NULL), 0);
	w = push_run(m, 0, 6, 3.0, fault);
	w = push_run(m, w, 6, 1.5, after);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 2);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->last_win, 5);
	assert_int_equal(in->flagged, 6);
	assert_int_equal(rv_incmerge_get(m, 1)->follows, in->id);
	assert_int_equal(rv_incmerge_get(m, 1)->first_win, 6);
	(void)w;
	rv_incmerge_free(m);
}

/*
 * A fault that begins while a lasting after-effect goes on: tail loss
 * probes (net.tlp) hold an incident open; a CPU fault comes on top. Its
 * windows still belong to the after-effect (net.tlp goes on), but the score
 * more than doubles and the channels that grew fourfold (cpu.user, cpu.sys)
 * lie outside its onset channels: a second incident opens beside it, with
 * its own blame, and closes with the fault while the first goes on.
 */
static void test_new_fault_during_after_effect(void **state)
{
	(void)state;
	static const char *const names[] = { "net.tlp", "net.seg", "cpu.user", "cpu.sys",
					     "mem.x" };
	struct rv_incmerge *m = NULL;
	assert_int_equal(rv_incmerge_new(5, names, 2, 2, &m, NULL), 0);
	/* net.tlp's weight scales with the window (a counter never seen while
	 * learning): 3x when the fault comes, less than the fourfold growth */
	const double tlp[] = { 10, 0.5, 0.5, 0.5, 0.5 }, fault[] = { 30, 0.6, 40, 20, 0.6 };
	struct rv_incident open[RV_INCMERGE_OPEN_MAX];
	size_t w;

	assert_non_null(m);
	w = push_run(m, 0, 10, 1.5, tlp);
	assert_int_equal(rv_incmerge_peek_all(m, open, RV_INCMERGE_OPEN_MAX), 1);
	w = push_run(m, w, 10, 5.0, fault);            /* windows 10..19 */
	assert_int_equal(rv_incmerge_peek_all(m, open, RV_INCMERGE_OPEN_MAX), 2);
	assert_int_equal(open[0].id, 1);
	assert_int_equal(open[0].subsystem, RV_SUB_NET);
	assert_int_equal(open[1].id, 2);
	assert_int_equal(open[1].subsystem, RV_SUB_CPU);
	assert_int_equal(open[1].phase, 1);
	assert_int_equal(open[1].follows, 0);
	assert_int_equal(open[1].first_win, 10);
	assert_int_equal(open[1].top[0], 2);
	w = push_run(m, w, 10, 1.5, tlp);              /* the fault is over */
	assert_int_equal(rv_incmerge_count(m), 1);     /* the cpu one closed */
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->id, 2);
	assert_int_equal(in->last_win, 19);
	assert_int_equal(in->flagged, 10);
	assert_int_equal(rv_incmerge_peek_all(m, open, RV_INCMERGE_OPEN_MAX), 1);
	assert_int_equal(open[0].id, 1);
	for (size_t k = 0; k < 3; k++, w++)
		assert_int_equal(rv_incmerge_push(m, w, (double)w, 0, 0.5, 0u, NULL), 0);
	assert_int_equal(rv_incmerge_count(m), 2);
	in = rv_incmerge_get(m, 1);
	assert_int_equal(in->id, 1);
	assert_int_equal(in->subsystem, RV_SUB_NET);
	assert_int_equal(in->first_win, 0);
	assert_int_equal(in->last_win, 29);
	assert_int_equal(in->flagged, 30);
	/* ids come in the order the incidents qualified; every window decided */
	for (size_t k = 0; k < w; k++) {
		int anomaly = -1;
		assert_int_equal(rv_incmerge_decided(m, k, 2, &anomaly), 1);
		assert_int_equal(anomaly, k < 30);
	}
	rv_incmerge_free(m);
}

/* A leak that grows in its own channels: the score outruns its recent
 * level, but nothing new grows outside its onset channels: one incident. */
static void test_growth_in_own_channels_stays_one(void **state)
{
	(void)state;
	static const char *const names[] = { "mem.a", "cpu.b", "net.c" };
	struct rv_incmerge *m = NULL;
	double w[3] = { 10, 0.5, 0.5 }, score = 1.5;

	assert_int_equal(rv_incmerge_new(3, names, 2, 2, &m, NULL), 0);
	for (size_t k = 0; k < 15; k++) {
		assert_int_equal(rv_incmerge_push(m, k, (double)k, 1, score, 1u, w), 0);
		score *= 1.3;
		w[0] *= 1.3;
	}
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_int_equal(rv_incmerge_get(m, 0)->flagged, 15);
	rv_incmerge_free(m);
}

/* The delay line's question: a window is decided once no open incident
 * may still take it. */
static void test_decided(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.a" };
	struct rv_incmerge *m = NULL;
	const double wt[] = { 1 };
	int anomaly = -1;

	assert_int_equal(rv_incmerge_new(1, names, 2, 3, &m, NULL), 0);
	assert_int_equal(rv_incmerge_decided(m, 0, 3, &anomaly), 1);   /* nothing open */
	assert_int_equal(anomaly, 0);
	assert_int_equal(rv_incmerge_push(m, 1, 1, 1, 2.0, 1u, wt), 0);
	assert_int_equal(rv_incmerge_decided(m, 0, 3, &anomaly), 1);   /* before it */
	assert_int_equal(anomaly, 0);
	assert_int_equal(rv_incmerge_decided(m, 1, 3, &anomaly), 0);   /* 1 of 3 windows */
	assert_int_equal(rv_incmerge_push(m, 2, 2, 1, 2.0, 1u, wt), 0);
	assert_int_equal(rv_incmerge_push(m, 3, 3, 1, 2.0, 1u, wt), 0);
	assert_int_equal(rv_incmerge_decided(m, 2, 3, &anomaly), 1);
	assert_int_equal(anomaly, 1);
	assert_int_equal(rv_incmerge_push(m, 4, 4, 0, 0.5, 0u, NULL), 0);
	assert_int_equal(rv_incmerge_decided(m, 4, 3, &anomaly), 0);   /* may be bridged */
	rv_incmerge_free(m);
}

/* A CPU hog: its start-up interrupts lead the first windows and fade, its
 * user time stays: the onset keeps what lasts, and the incident goes on
 * with it. */
static void test_same_subsystem_continues(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.irq_res", "cpu.user_pct", "net.x" };
	struct rv_incmerge *m = NULL;
	const double launch[] = { 40, 5, 0 }, steady[] = { 1, 6, 2 }, after[] = { 0.5, 1, 6 };
	size_t w;

	assert_int_equal(rv_incmerge_new(3, names, 2, 2, &m, NULL), 0);
	w = push_run(m, 0, 2, 6.0, launch);   /* irq_res carries 8/9 of these */
	w = push_run(m, w, 23, 2.0, steady);  /* irq_res at 1 of 40: gone by window 5 */
	w = push_run(m, w, 6, 1.5, after);    /* net leads: not its own */
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 2);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->subsystem, RV_SUB_CPU);
	assert_int_equal(in->last_win, 24);
	assert_int_equal(in->flagged, 25);
	assert_int_equal(rv_incmerge_get(m, 1)->follows, in->id);
	assert_int_equal(rv_incmerge_get(m, 1)->subsystem, RV_SUB_NET);
	(void)w;
	rv_incmerge_free(m);
}

/* A start-up burst on another subsystem leads the first windows and is
 * gone by the fifth: the blame is what lasts. */
static void test_startup_burst_dropped(void **state)
{
	(void)state;
	static const char *const names[] = { "storage.reads", "cpu.user_pct" };
	struct rv_incmerge *m = NULL;
	const double burst[] = { 50, 4 }, hog[] = { 0.5, 6 };
	size_t w;

	assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
	w = push_run(m, 0, 2, 9.0, burst);
	w = push_run(m, w, 10, 3.0, hog);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->subsystem, RV_SUB_CPU);
	assert_int_equal(in->ntop, 1);
	assert_int_equal(in->top[0], 1);
	assert_int_equal(in->flagged, 12);
	(void)w;
	rv_incmerge_free(m);
}

/* While the onset still gathers, an open incident is blamed on what lasts
 * in its last window too: the burst's storage channel, at half its onset
 * weight per window in the second burst window, stays; a hog window with
 * storage below a quarter of it leaves the blame to cpu. */
static void test_open_blame_from_what_lasts(void **state)
{
	(void)state;
	static const char *const names[] = { "storage.reads", "cpu.user_pct" };
	struct rv_incmerge *m = NULL;
	const double burst[] = { 50, 4 }, hog[] = { 0.5, 6 };
	struct rv_incident open;
	size_t w;

	assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
	w = push_run(m, 0, 2, 9.0, burst);
	assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
	assert_int_equal(open.subsystem, RV_SUB_STORAGE);
	w = push_run(m, w, 1, 3.0, hog);                 /* onset {100, 8} of 2 windows */
	assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
	assert_int_equal(open.subsystem, RV_SUB_CPU);
	assert_int_equal(open.ntop, 1);
	assert_int_equal(open.top[0], 1);
	assert_near(open.top_weight[0], 1.0, EPS);
	(void)w;
	rv_incmerge_free(m);
}

/* Window win flagged with score 3 and weights w, each channel's persistence
 * p (NULL: unknown). */
static void push_persist(struct rv_incmerge *m, size_t win, const double *w, const uint8_t *p)
{
	struct rv_incwin iw = { .win = win, .ts = (double)win, .flagged = 1, .score = 3.0,
				.detectors = 1u, .weight = w, .lasting = 1, .persist = p };

	assert_int_equal(rv_incmerge_push_win(m, &iw), 0);
}

/* At open, a channel that stopped moving before the window's end (a
 * discard of a second beside a CPU hog's onset, still in every window that
 * holds it, at its full weight) leaves the blame to what still moves, in
 * an onset of one window too; when nothing would stay, or the windows do
 * not say, the weights alone decide. */
static void test_open_blame_leaves_what_stopped(void **state)
{
	(void)state;
	static const char *const names[] = { "storage.discard_time_ms:vda", "cpu.user_pct" };
	const double w[] = { 50, 6 };
	const uint8_t hog_moves[] = { 0, 1 }, none[] = { 0, 0 };
	struct rv_incident open;

	for (size_t min = 1; min <= 2; min++) {
		struct rv_incmerge *m = NULL;

		assert_int_equal(rv_incmerge_new(2, names, 2, min, &m, NULL), 0);
		for (size_t k = 0; k < min; k++)
			push_persist(m, k, w, hog_moves);
		assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
		assert_int_equal(open.subsystem, RV_SUB_CPU);
		assert_int_equal(open.ntop, 1);
		assert_int_equal(open.top[0], 1);
		assert_near(open.sub_share[RV_SUB_CPU], 1.0, EPS);
		rv_incmerge_free(m);
	}
	for (int unknown = 0; unknown <= 1; unknown++) {
		struct rv_incmerge *m = NULL;

		assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
		push_persist(m, 0, w, unknown ? NULL : none);
		push_persist(m, 1, w, unknown ? NULL : none);
		assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
		assert_int_equal(open.subsystem, RV_SUB_STORAGE);
		assert_int_equal(open.ntop, 2);
		assert_int_equal(open.top[0], 0);
		rv_incmerge_free(m);
	}
}

/*
 * A program's start-up outscores the fault it begins: two windows of its
 * page allocations (mem, score 5) and then the CPU it takes (score 3, not
 * a new peak, so not yet in the onset), the allocations over. Reported
 * open at the third window, the blame is what all windows so far show,
 * less what stopped moving: cpu. Without the windows saying what still
 * moves, the onset up to its peak decides (mem).
 */
static void test_open_blame_after_startup(void **state)
{
	(void)state;
	static const char *const names[] = { "mem.numa_hit", "cpu.user_pct" };
	const double startup[] = { 10, 0 }, hog[] = { 0.5, 6 };
	const uint8_t over[] = { 0, 1 };

	for (int known = 0; known <= 1; known++) {
		struct rv_incmerge *m = NULL;
		struct rv_incwin iw = { .flagged = 1, .detectors = 1u, .lasting = 1 };
		struct rv_incident open;

		assert_int_equal(rv_incmerge_new(2, names, 2, 3, &m, NULL), 0);
		for (size_t k = 0; k < 3; k++) {
			iw.win = k;
			iw.ts = (double)k;
			iw.score = k < 2 ? 5.0 : 3.0;
			iw.weight = k < 2 ? startup : hog;
			iw.persist = known ? (k < 2 ? NULL : over) : NULL;
			assert_int_equal(rv_incmerge_push_win(m, &iw), 0);
		}
		assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
		assert_int_equal(open.subsystem, known ? RV_SUB_CPU : RV_SUB_MEM);
		rv_incmerge_free(m);
	}
}

/* Window win flagged with score 3, weights w, and how much of its
 * materiality floor each channel moved (mat, NULL: unknown). */
static void push_matter(struct rv_incmerge *m, size_t win, const double *w, const float *mat)
{
	struct rv_incwin iw = { .win = win, .ts = (double)win, .flagged = 1, .score = 3.0,
				.detectors = 1u, .weight = w, .lasting = 1, .matter = mat };

	assert_int_equal(rv_incmerge_push_win(m, &iw), 0);
}

/*
 * The blame weighs each channel by the share of its materiality floor it
 * moved at most in a window of the onset: a CPU hog moving a quiet host's
 * loopback softirqs (net, weight 8, 5 % of their floor) far outside their
 * learnt spread does not outweigh the CPU itself (weight 3, material), at
 * open or at close; its top channels are the CPU's first. Without the
 * windows saying, the weights alone decide (net). The onset takes the most
 * a channel moved: a material window of the softirqs (0.05 -> 1) gives
 * them back their weight.
 */
static void test_blame_weighs_materiality(void **state)
{
	(void)state;
	static const char *const names[] = { "net.softnet_processed:cpu1", "cpu.user_pct" };
	const double w[] = { 8, 3 };
	const float small[] = { 0.05f, 1.0f }, both[] = { 1.0f, 1.0f };
	struct rv_incident open;

	for (int known = 0; known <= 1; known++) {
		struct rv_incmerge *m = NULL;
		assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
		enum rv_subsystem want = known ? RV_SUB_CPU : RV_SUB_NET;

		for (size_t k = 0; k < 8; k++) {
			push_matter(m, k, w, known ? small : NULL);
			if (k == 1 || k == 7) {
				assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
				assert_int_equal(open.subsystem, want);
				assert_int_equal(open.top[0], known ? 1 : 0);
			}
		}
		assert_int_equal(rv_incmerge_finish(m), 0);
		assert_int_equal(rv_incmerge_count(m), 1);
		assert_int_equal(rv_incmerge_get(m, 0)->subsystem, want);
		if (known) /* 8 * 0.05 = 0.4 against 3 */
			assert_near(rv_incmerge_get(m, 0)->sub_share[RV_SUB_NET], 0.4 / 3.4, 1e-6);
		rv_incmerge_free(m);
	}
	{
		struct rv_incmerge *m = NULL;

		assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
		push_matter(m, 0, w, small);
		push_matter(m, 1, w, both);
		push_matter(m, 2, w, small);
		assert_int_equal(rv_incmerge_peek_open(m, &open), 1);
		assert_int_equal(open.subsystem, RV_SUB_NET);
		rv_incmerge_free(m);
	}
}

/* A short stretch of other windows inside a long incident is a blip of its
 * own: the incident goes on, its blame unchanged. */
static void test_foreign_blip_inside(void **state)
{
	(void)state;
	static const char *const names[] = { "cpu.a", "net.b" };
	struct rv_incmerge *m = NULL;
	const double cpu[] = { 5, 0 }, net[] = { 0, 5 };
	size_t w;

	assert_int_equal(rv_incmerge_new(2, names, 2, 2, &m, NULL), 0);
	w = push_run(m, 0, 6, 2.0, cpu);
	w = push_run(m, w, 1, 2.0, net);      /* one other window */
	w = push_run(m, w, 6, 2.0, cpu);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	assert_int_equal(rv_incmerge_dropped(m), 1);
	const struct rv_incident *in = rv_incmerge_get(m, 0);
	assert_int_equal(in->first_win, 0);
	assert_int_equal(in->last_win, 12);
	assert_int_equal(in->flagged, 12);
	assert_int_equal(in->phase, 1);
	assert_int_equal(in->subsystem, RV_SUB_CPU);
	(void)w;
	rv_incmerge_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_min_windows),
		cmocka_unit_test(test_order_and_skipped_windows),
		cmocka_unit_test(test_close_timing),
		cmocka_unit_test(test_scores_detectors_finish),
		cmocka_unit_test(test_top_channels),
		cmocka_unit_test(test_peek_forget_next_id),
		cmocka_unit_test(test_subsystem_by_sum),
		cmocka_unit_test(test_top_max),
		cmocka_unit_test(test_close_on_onset_channels),
		cmocka_unit_test(test_same_subsystem_continues),
		cmocka_unit_test(test_minor_onset_channel_cannot_hold),
		cmocka_unit_test(test_new_fault_during_after_effect),
		cmocka_unit_test(test_growth_in_own_channels_stays_one),
		cmocka_unit_test(test_decided),
		cmocka_unit_test(test_startup_burst_dropped),
		cmocka_unit_test(test_open_blame_from_what_lasts),
		cmocka_unit_test(test_open_blame_leaves_what_stopped),
		cmocka_unit_test(test_blame_weighs_materiality),
		cmocka_unit_test(test_open_blame_after_startup),
		cmocka_unit_test(test_foreign_blip_inside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
