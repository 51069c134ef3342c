/*
 * evidence_test.c - every rule of evidence.h on small hand-made series.
 *
 * The series are column-major tables read through a get() callback, as an
 * offline table is. Expected statistics are worked out in the comments
 * (means and sample standard deviations of a few integers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "explain/evidence.h"

enum { MAXROWS = 64, MAXCHAN = 16 };
static const double EPS = 1e-9;

struct table {
	size_t nrows, nchan;
	double ts[MAXROWS];
	const char *names[MAXCHAN];
	float v[MAXCHAN][MAXROWS];
	unsigned long reads_outside;  /* get() calls on rows outside [lo, hi] */
	double lo, hi;
};

static float get(const void *ctx, size_t row, size_t chan)
{
	struct table *t = (struct table *)(uintptr_t)ctx;

	if (t->ts[row] < t->lo || t->ts[row] > t->hi)
		t->reads_outside++;
	return t->v[chan][row];
}

static struct rv_ev_source source(struct table *t)
{
	return (struct rv_ev_source){ .nrows = t->nrows, .nchan = t->nchan, .ts = t->ts,
				      .names = t->names, .get = get, .ctx = t };
}

/* Rows at t = 0, 1, 2, ...; channel c named names[c], values from vals[c]. */
static void init(struct table *t, size_t nrows, size_t nchan, const char *const *names)
{
	memset(t, 0, sizeof(*t));
	t->nrows = nrows;
	t->nchan = nchan;
	t->lo = -INFINITY;
	t->hi = INFINITY;
	for (size_t r = 0; r < nrows; r++)
		t->ts[r] = (double)r;
	for (size_t c = 0; c < nchan; c++)
		t->names[c] = names[c];
}

static void set(struct table *t, size_t chan, const double *v)
{
	for (size_t r = 0; r < t->nrows; r++)
		t->v[chan][r] = (float)v[r];
}

static void assert_near(double got, double want, double eps)
{
	if (!(fabs(got - want) <= eps))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* Baseline rows 0..5, incident rows 6..9: a step from 10 (sd 1) to 20. */
static void test_stats_step(void **state)
{
	static const char *const names[] = { "cpu.busy_pct" };
	/* baseline 9 11 9 11 9 11: mean 10, sd sqrt(6/5); incident 20 22 20 22 */
	static const double v[] = { 9, 11, 9, 11, 9, 11, 20, 22, 20, 22 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;
	const struct rv_evidence_sig *s;
	double sd = sqrt(6.0 / 5.0);

	(void)state;
	init(&t, 10, 1, names);
	set(&t, 0, v);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 6, 6, 9, &ev, NULL), 0);
	assert_int_equal(ev.n, 1);
	assert_int_equal(ev.nchan, 1);
	s = &ev.sig[0];
	assert_ptr_equal(s->name, names[0]);
	assert_int_equal(s->skew, 0);
	assert_int_equal(s->base_n, 6);
	assert_int_equal(s->inc_n, 4);
	assert_near(s->base_mean, 10, EPS);
	assert_near(s->base_sd, sd, EPS);
	assert_near(s->value, 21, EPS);
	assert_near(s->inc_sd, sqrt(4.0 / 3.0), EPS);
	assert_near(s->peak, 22, EPS);
	assert_near(s->z, 11 / sd, EPS);
	assert_near(s->change, 1.1, EPS);
	assert_int_equal(s->dir, 1);
	assert_near(s->onset_ts, 6, EPS);
	assert_ptr_equal(rv_evidence_find(&ev, "cpu.busy_pct"), s);
	assert_null(rv_evidence_find(&ev, "cpu.busy"));
	assert_null(rv_evidence_find(&ev, NULL));
	rv_evidence_free(&ev);
	assert_int_equal(ev.n, 0);
	assert_null(ev.sig);
	rv_evidence_free(&ev);  /* a zeroed evidence is a no-op */
}

/* A flat baseline: sd_eff is the relative floor, and the absolute one at 0. */
static void test_flat_baseline(void **state)
{
	static const char *const names[] = { "a", "zero", "tiny" };
	static const double a[] = { 100, 100, 100, 100, 100, 100, 101, 101, 101, 101 };
	static const double zero[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const double tiny[] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 10, 3, names);
	set(&t, 0, a);
	set(&t, 1, zero);
	set(&t, 2, tiny);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 6, 6, 9, &ev, NULL), 0);
	/* 100 -> 101: sd_eff = 0.02 * 100 = 2, z 0.5: not moved */
	assert_near(ev.sig[0].base_sd, 0, EPS);
	assert_near(ev.sig[0].z, 0.5, EPS);
	assert_int_equal(ev.sig[0].dir, 0);
	assert_true(isnan(ev.sig[0].onset_ts));
	assert_near(ev.sig[0].change, 0.01, EPS);
	/* 0 -> 0: z 0, change 0 */
	assert_near(ev.sig[1].z, 0, EPS);
	assert_near(ev.sig[1].change, 0, EPS);
	assert_int_equal(ev.sig[1].dir, 0);
	/* 0 -> 1: sd_eff = RV_EV_SD_ABS, change +inf */
	assert_near(ev.sig[2].z, 1 / RV_EV_SD_ABS, 1e-3);
	assert_true(isinf(ev.sig[2].change) && ev.sig[2].change > 0);
	assert_int_equal(ev.sig[2].dir, 1);
	rv_evidence_free(&ev);

	assert_near(rv_evidence_sd_eff(100, 0.5), 2, EPS);
	assert_near(rv_evidence_sd_eff(-100, 3), 3, EPS);
	assert_near(rv_evidence_sd_eff(0, 0), RV_EV_SD_ABS, 0);
	assert_near(rv_evidence_sd_eff(NAN, NAN), RV_EV_SD_ABS, 0);
}

/* A drop to 0: change -1; a drop from 0: change -inf; dir -1. */
static void test_down(void **state)
{
	static const char *const names[] = { "gpu.util_pct:gpu0", "x" };
	static const double g[] = { 90, 90, 90, 90, 90, 90, 0, 0, 0, 0 };
	static const double x[] = { 0, 0, 0, 0, 0, 0, -5, -5, -5, -5 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 10, 2, names);
	set(&t, 0, g);
	set(&t, 1, x);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 6, 6, 9, &ev, NULL), 0);
	assert_int_equal(ev.sig[0].dir, -1);
	assert_near(ev.sig[0].change, -1, EPS);
	assert_near(ev.sig[0].z, -90 / 1.8, EPS);
	assert_near(ev.sig[0].peak, 0, EPS);
	assert_int_equal(ev.sig[1].dir, -1);
	assert_true(isinf(ev.sig[1].change) && ev.sig[1].change < 0);
	rv_evidence_free(&ev);
}

/* NaN samples are left out of every statistic; the peak skips them. */
static void test_nans(void **state)
{
	static const char *const names[] = { "a", "gone" };
	static const double a[] = { 9, NAN, 11, 9, 11, 9, 11, NAN, 30, NAN, 40, NAN };
	static const double gone[] = { 1, 1, 1, 1, 1, 1, 1, NAN, NAN, NAN, NAN, NAN };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 12, 2, names);
	set(&t, 0, a);
	set(&t, 1, gone);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 7, 7, 11, &ev, NULL), 0);
	/* baseline 9 11 9 11 9 11 (one NaN), incident 30 40 */
	assert_int_equal(ev.sig[0].base_n, 6);
	assert_int_equal(ev.sig[0].inc_n, 2);
	assert_near(ev.sig[0].base_mean, 10, EPS);
	assert_near(ev.sig[0].value, 35, EPS);
	assert_near(ev.sig[0].peak, 40, EPS);
	assert_int_equal(ev.sig[0].dir, 1);
	/* onset: row 8 (30) beyond, row 9 NaN, row 10 (40) beyond: 2 of 3 */
	assert_near(ev.sig[0].onset_ts, 8, EPS);
	/* no finite incident sample */
	assert_int_equal(ev.sig[1].inc_n, 0);
	assert_true(isnan(ev.sig[1].value));
	assert_true(isnan(ev.sig[1].peak));
	assert_near(ev.sig[1].z, 0, 0);
	assert_int_equal(ev.sig[1].dir, 0);
	assert_true(isnan(ev.sig[1].onset_ts));
	rv_evidence_free(&ev);
}

/* Fewer than RV_EV_MIN_BASE finite baseline samples: z 0, dir 0. */
static void test_short_baseline(void **state)
{
	static const char *const names[] = { "a", "b" };
	static const double a[] = { 1, 1, 1, 1, 100, 100, 100 };
	static const double b[] = { NAN, 1, 1, 1, 1, 1, 100 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 7, 2, names);
	set(&t, 0, a);
	set(&t, 1, b);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 4, 4, 6, &ev, NULL), 0);
	assert_int_equal(ev.sig[0].base_n, 4);
	assert_near(ev.sig[0].base_mean, 1, EPS);
	assert_near(ev.sig[0].z, 0, 0);
	assert_int_equal(ev.sig[0].dir, 0);
	assert_true(isnan(ev.sig[0].onset_ts));
	rv_evidence_free(&ev);
	/* b: baseline [0, 6) has 5 finite samples: enough */
	assert_int_equal(rv_evidence_build(&src, 0, 6, 6, 6, &ev, NULL), 0);
	assert_int_equal(ev.sig[1].base_n, RV_EV_MIN_BASE);
	assert_int_equal(ev.sig[1].dir, 1);
	rv_evidence_free(&ev);
}

/* Onset: the first sample beyond 3 sd_eff with 2 of the 3 from there beyond,
 * searched from base_to (before start_ts); a lone spike is no onset. */
static void test_onset(void **state)
{
	static const char *const names[] = { "early", "spike", "late", "lastpair" };
	/* baseline rows 0..5 = 10 (sd_eff 0.2), gap rows 6..7, incident 8..13 */
	static const double early[] = { 10, 10, 10, 10, 10, 10, 10, 20, 20, 20, 20, 20, 20, 20 };
	static const double spike[] = { 10, 10, 10, 10, 10, 10, 20, 10, 10, 20, 10, 20, 20, 20 };
	static const double late[] = { 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 99, 99 };
	static const double lastpair[] = { 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 99 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 14, 4, names);
	set(&t, 0, early);
	set(&t, 1, spike);
	set(&t, 2, late);
	set(&t, 3, lastpair);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 6, 8, 13, &ev, NULL), 0);
	assert_near(ev.sig[0].onset_ts, 7, EPS);   /* in the gap, after base_to */
	/* spike: 6 beyond, 7 and 8 not (1 of 3); 9 beyond, 10 not, 11 beyond: 9 */
	assert_int_equal(ev.sig[1].dir, 1);
	assert_near(ev.sig[1].onset_ts, 9, EPS);
	/* late: rows 12, 13 beyond: 2 of the (only) 2 left */
	assert_int_equal(ev.sig[2].dir, 1);
	assert_near(ev.sig[2].onset_ts, 12, EPS);
	/* lastpair: one sample beyond at the very end: moved, but no onset */
	assert_int_equal(ev.sig[3].dir, 1);
	assert_true(isnan(ev.sig[3].onset_ts));
	rv_evidence_free(&ev);
}

/* A fall: the onset looks below the baseline. */
static void test_onset_down(void **state)
{
	static const char *const names[] = { "g" };
	static const double g[] = { 50, 50, 50, 50, 50, 50, 50, 49, 10, 10, 10, 10 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 12, 1, names);
	set(&t, 0, g);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 6, 6, 11, &ev, NULL), 0);
	assert_int_equal(ev.sig[0].dir, -1);
	assert_near(ev.sig[0].onset_ts, 8, EPS);
	rv_evidence_free(&ev);
}

/* Rows before base_from and after end_ts are never read. */
static void test_rows_read(void **state)
{
	static const char *const names[] = { "a", "a:cpu0", "a:cpu1" };
	static const double a[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 14, 3, names);
	for (size_t c = 0; c < 3; c++)
		set(&t, c, a);
	t.lo = 2;
	t.hi = 11;
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 2, 8, 8, 11, &ev, NULL), 0);
	assert_int_equal(t.reads_outside, 0);
	assert_int_equal(ev.sig[0].base_n, 6);
	assert_int_equal(ev.sig[0].inc_n, 4);
	rv_evidence_free(&ev);
}

/* Skew entries: one per family of >= 2 per-CPU members, named with
 * cpu_skew, after the channels, in the order of their first member. */
static void test_skew_names(void **state)
{
	static const char *const names[] = {
		"cpu.softirq_pct",
		"net.irqs_cpu:virtio2-input.0/cpu1",
		"cpu.softirq_pct:cpu0",
		"cpu.softirq_pct:cpu1",
		"net.irqs_cpu:virtio2-input.0/cpu0",
		"net.irqs_cpu:virtio2-output.0/cpu0",  /* a family of one: no skew */
		"cpu.softirq_pct:cpu12",
		"cpu.softirq_pct:cpux",                /* not cpu<N> */
		"storage.busy_pct:vda",
		"cpu.steal_pct:cpu3",                  /* alone */
		"odd:cpu",                             /* no number */
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	static const double one[] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 8, N, names);
	for (size_t c = 0; c < N; c++)
		set(&t, c, one);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 5, 5, 7, &ev, NULL), 0);
	assert_int_equal(ev.nchan, N);
	assert_int_equal(ev.n, N + 2);
	assert_string_equal(ev.sig[N].name, "net.irqs_cpu:virtio2-input.0/cpu_skew");
	assert_string_equal(ev.sig[N + 1].name, "cpu.softirq_pct:cpu_skew");
	assert_int_equal(ev.sig[N].skew, 1);
	assert_int_equal(ev.sig[N + 1].skew, 1);
	for (size_t c = 0; c < N; c++)
		assert_int_equal(ev.sig[c].skew, 0);
	/* all members equal: skew 1 */
	assert_near(ev.sig[N + 1].base_mean, 1, EPS);
	assert_near(ev.sig[N + 1].value, 1, EPS);
	assert_ptr_equal(rv_evidence_find(&ev, "cpu.softirq_pct:cpu_skew"), &ev.sig[N + 1]);
	rv_evidence_free(&ev);
}

/* The skew series is max / mean over the members; 1 when the mean is ~0. */
static void test_skew_values(void **state)
{
	static const char *const names[] = { "s:cpu0", "s:cpu1", "s:cpu2", "s:cpu3",
					     "z:cpu0", "z:cpu1" };
	/* baseline rows 0..5 all 10: skew 1; incident rows 6..9: cpu0 at 40,
	 * others 10 (one NaN row of cpu3): max 40 / mean 17.5 and 40 / 20 */
	static const double hot[] = { 10, 10, 10, 10, 10, 10, 40, 40, 40, 40 };
	static const double cold[] = { 10, 10, 10, 10, 10, 10, 10, 10, 10, 10 };
	static const double gap[] = { 10, 10, 10, 10, 10, 10, 10, 10, 10, NAN };
	static const double zero[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;
	const struct rv_evidence_sig *s, *z;
	double want = (3 * (40 / 17.5) + 40 / 20.0) / 4;

	(void)state;
	init(&t, 10, 6, names);
	set(&t, 0, hot);
	set(&t, 1, cold);
	set(&t, 2, cold);
	set(&t, 3, gap);
	set(&t, 4, zero);
	set(&t, 5, zero);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 0, 6, 6, 9, &ev, NULL), 0);
	s = rv_evidence_find(&ev, "s:cpu_skew");
	z = rv_evidence_find(&ev, "z:cpu_skew");
	assert_non_null(s);
	assert_non_null(z);
	assert_near(s->base_mean, 1, EPS);
	assert_near(s->value, want, 1e-6);
	assert_int_equal(s->dir, 1);
	assert_near(s->peak, 40 / 17.5, 1e-6);
	assert_near(s->onset_ts, 6, EPS);
	assert_near(z->value, 1, EPS);
	assert_int_equal(z->dir, 0);
	rv_evidence_free(&ev);
}

static void test_einval(void **state)
{
	static const char *const names[] = { "a" };
	static const double a[] = { 1, 1, 1, 1 };
	struct table t;
	struct rv_ev_source src, bad;
	struct rv_evidence ev;
	struct rv_err err = { 0 };

	(void)state;
	init(&t, 4, 1, names);
	set(&t, 0, a);
	src = source(&t);
	assert_int_equal(rv_evidence_build(NULL, 0, 1, 1, 2, &ev, NULL), -EINVAL);
	assert_int_equal(rv_evidence_build(&src, 0, 1, 1, 2, NULL, NULL), -EINVAL);
	assert_int_equal(rv_evidence_build(&src, 0, 1, 3, 2, &ev, NULL), -EINVAL);  /* start > end */
	assert_int_equal(rv_evidence_build(&src, 2, 1, 2, 3, &ev, NULL), -EINVAL);  /* from > to */
	assert_int_equal(rv_evidence_build(&src, 0, 3, 2, 3, &ev, NULL), -EINVAL);  /* to > start */
	assert_int_equal(rv_evidence_build(&src, NAN, 1, 1, 2, &ev, NULL), -EINVAL);
	assert_int_equal(rv_evidence_build(&src, 0, 1, 1, INFINITY, &ev, &err), -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	assert_true(strlen(err.msg) > 0);
	assert_null(ev.sig);  /* zeroed on failure: freeing it is harmless */
	rv_evidence_free(&ev);
	bad = src;
	bad.get = NULL;
	assert_int_equal(rv_evidence_build(&bad, 0, 1, 1, 2, &ev, NULL), -EINVAL);
	bad = src;
	bad.names = NULL;
	assert_int_equal(rv_evidence_build(&bad, 0, 1, 1, 2, &ev, NULL), -EINVAL);
	bad = src;
	bad.ts = NULL;
	assert_int_equal(rv_evidence_build(&bad, 0, 1, 1, 2, &ev, NULL), -EINVAL);
	/* no rows, no channels: valid, empty */
	bad = (struct rv_ev_source){ .nrows = 0 };
	assert_int_equal(rv_evidence_build(&bad, 0, 1, 1, 2, &ev, NULL), 0);
	assert_int_equal(ev.n, 0);
	rv_evidence_free(&ev);
}

/* Stretches with no rows: nothing counted, nothing moved. */
static void test_empty_stretches(void **state)
{
	static const char *const names[] = { "a" };
	static const double a[] = { 1, 2, 3, 4 };
	struct table t;
	struct rv_ev_source src;
	struct rv_evidence ev;

	(void)state;
	init(&t, 4, 1, names);
	set(&t, 0, a);
	src = source(&t);
	assert_int_equal(rv_evidence_build(&src, 10, 20, 20, 30, &ev, NULL), 0);
	assert_int_equal(ev.sig[0].base_n, 0);
	assert_int_equal(ev.sig[0].inc_n, 0);
	assert_true(isnan(ev.sig[0].base_mean));
	assert_true(isnan(ev.sig[0].change));
	assert_int_equal(ev.sig[0].dir, 0);
	rv_evidence_free(&ev);
}

/* rv_evidence_from copies entries and names. */
static void test_from(void **state)
{
	char n0[] = "net.tcp_retrans_segs", n1[] = "cpu.softirq_pct:cpu_skew";
	struct rv_evidence_sig in[2] = {
		{ .name = n0, .base_n = 60, .inc_n = 30, .base_mean = 2, .value = 40, .z = 50,
		  .dir = 1, .change = 19, .onset_ts = 100.5 },
		{ .name = n1, .skew = 1, .base_n = 60, .inc_n = 30, .base_mean = 1, .value = 5,
		  .z = 200, .dir = 1 },
	};
	struct rv_evidence ev;

	(void)state;
	assert_int_equal(rv_evidence_from(in, 2, 100, 106, &ev), 0);
	n0[0] = 'X';
	n1[0] = 'X';
	assert_int_equal(ev.n, 2);
	assert_int_equal(ev.nchan, 2);
	assert_near(ev.start_ts, 100, 0);
	assert_near(ev.end_ts, 106, 0);
	assert_true(isnan(ev.base_from));
	assert_string_equal(ev.sig[0].name, "net.tcp_retrans_segs");
	assert_string_equal(ev.sig[1].name, "cpu.softirq_pct:cpu_skew");
	assert_int_equal(ev.sig[1].skew, 1);
	assert_near(ev.sig[0].onset_ts, 100.5, 0);
	assert_near(ev.sig[1].z, 200, 0);
	assert_non_null(rv_evidence_find(&ev, "net.tcp_retrans_segs"));
	rv_evidence_free(&ev);
	assert_int_equal(rv_evidence_from(NULL, 0, 0, 1, &ev), 0);
	assert_int_equal(ev.n, 0);
	rv_evidence_free(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_step),
		cmocka_unit_test(test_flat_baseline),
		cmocka_unit_test(test_down),
		cmocka_unit_test(test_nans),
		cmocka_unit_test(test_short_baseline),
		cmocka_unit_test(test_onset),
		cmocka_unit_test(test_onset_down),
		cmocka_unit_test(test_rows_read),
		cmocka_unit_test(test_skew_names),
		cmocka_unit_test(test_skew_values),
		cmocka_unit_test(test_einval),
		cmocka_unit_test(test_empty_stretches),
		cmocka_unit_test(test_from),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
