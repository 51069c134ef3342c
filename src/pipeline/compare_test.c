/*
 * compare_test.c - the measures of `reveal compare` (compare.h) on crafted
 * runs, written as strings: '.' an unflagged window, 'X' an anomalous
 * one; each maximal stretch of X is one incident (a test's own shorthand:
 * compare_read_test.c forms incidents with the merger).
 *   - identical runs: IoU exactly 1, hit rates 1, each incident matched;
 *   - disjoint runs: IoU 0, hit rates 0, every incident unmatched;
 *   - partial overlaps: IoU = windows in both / windows in either;
 *   - different steps and timestamps that do not line up: IoU in time;
 *   - empty runs: IoU 1 without an anomalous window, hit rates NaN;
 *   - the range: runs that share no time are refused naming both,
 *     --since/--until clip windows and incidents (counted as left out);
 *   - stores (incidents only) and a CSV with a store;
 *   - matching: the longest overlap wins, the earlier on a tie.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/compare.h"

#define EPS 1e-9

/* A CSV-kind run of strlen(pat) windows at t0 + step, t0 + 2 step, ...;
 * its incidents are the stretches of 'X' (subsystem cpu). */
static void run_of(struct rv_compare_run *r, const char *name, const char *pat, double t0,
		   double step)
{
	size_t n = strlen(pat);

	rv_compare_run_init(r, name, "csv", step);
	r->nwin = n;
	r->ts = malloc(n * sizeof(*r->ts));
	r->anomaly = malloc(n);
	assert_non_null(r->ts);
	assert_non_null(r->anomaly);
	for (size_t i = 0; i < n; i++) {
		r->ts[i] = t0 + (double)(i + 1) * step;
		r->anomaly[i] = pat[i] == 'X';
	}
	for (size_t i = 0; i < n; i++) {
		if (pat[i] != 'X' || (i && pat[i - 1] == 'X'))
			continue;
		size_t j = i;
		while (j + 1 < n && pat[j + 1] == 'X')
			j++;
		struct rv_compare_incident in = { .id = r->ninc + 1, .start_ts = r->ts[i],
						   .end_ts = r->ts[j], .windows = j - i + 1,
						   .subsystem = RV_SUB_CPU, .attributed = 1,
						   .phase = 1 };
		assert_int_equal(rv_compare_run_add(r, &in, NULL), 0);
	}
}

/* A store-kind run: incidents only, given as start, end pairs. */
static void store_of(struct rv_compare_run *r, const char *name, double step, const double *se,
		     size_t n)
{
	rv_compare_run_init(r, name, "store", step);
	for (size_t i = 0; i < n; i++) {
		struct rv_compare_incident in = { .id = i + 1, .start_ts = se[2 * i],
						   .end_ts = se[2 * i + 1], .subsystem = RV_SUB_NET,
						   .attributed = 1, .phase = 1 };
		assert_int_equal(rv_compare_run_add(r, &in, NULL), 0);
	}
}

static void compare(const struct rv_compare_run *a, const struct rv_compare_run *b,
		    struct rv_compare_result *res)
{
	struct rv_err err;

	rv_err_clear(&err);
	assert_int_equal(rv_compare_runs(a, b, -INFINITY, INFINITY, res, &err), 0);
}

/* Runs a and b of the patterns pa and pb (as run_of), compared into r. */
static void compare_pats(struct rv_compare_run *a, const char *pa, double t0a, double stepa,
			 struct rv_compare_run *b, const char *pb, double t0b, double stepb,
			 struct rv_compare_result *r)
{
	run_of(a, "a", pa, t0a, stepa);
	run_of(b, "b", pb, t0b, stepb);
	compare(a, b, r);
}

/* Stores a and b of na and nb incidents (as store_of, 1 s windows),
 * compared into r. */
static void compare_stores(struct rv_compare_run *a, const double *sa, size_t na,
			   struct rv_compare_run *b, const double *sb, size_t nb,
			   struct rv_compare_result *r)
{
	store_of(a, "a.db", 1.0, sa, na);
	store_of(b, "b.db", 1.0, sb, nb);
	compare(a, b, r);
}

static void free3(struct rv_compare_run *a, struct rv_compare_run *b, struct rv_compare_result *r)
{
	rv_compare_result_fini(r);
	rv_compare_run_fini(a);
	rv_compare_run_fini(b);
}

static void test_identical(void **state)
{
	struct rv_compare_run a, b;
	struct rv_compare_result r;

	(void)state;
	compare_pats(&a, "..XXX...XX..X.", 1700000000.8, 1.0, &b, "..XXX...XX..X.", 1700000000.8,
		     1.0, &r);
	assert_true(r.iou == 1.0);   /* exactly */
	assert_true(fabs(r.both_s - 6.0) < EPS);
	assert_int_equal(r.a.flagged, 6);
	assert_int_equal(r.b.windows, 14);
	assert_int_equal(r.a.incidents, 3);
	assert_int_equal(r.a.hit, 3);
	assert_true(r.a.hit_rate == 1.0 && r.b.hit_rate == 1.0);
	assert_int_equal(r.npair, 3);
	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(r.pair[k].a, k);
		assert_int_equal(r.pair[k].b, k);
	}
	assert_true(fabs(r.pair[0].overlap_s - 3.0) < EPS);
	assert_true(fabs(r.from - (1700000000.8)) < EPS);
	assert_true(fabs(r.to - (1700000000.8 + 14)) < EPS);
	free3(&a, &b, &r);
}

/* Two runs as patterns (A at t0a every stepa, B likewise) and what they
 * must measure; pair0_b, overlap0: the first line of the table. */
struct pat_case {
	const char *what, *pa;
	double t0a, stepa;
	const char *pb;
	double t0b, stepb;
	double iou, hit_a, hit_b;   /* NaN: no hit rate */
	size_t npair, pair0_b;
	double overlap0;
};

#define NONE RV_COMPARE_NONE
static const struct pat_case pat_cases[] = {
	{ "disjoint: nothing shared, every incident unmatched", "XX........XX", 0, 1,
	  "....XXX.....", 0, 1, 0, 0, 0, 3, NONE, 0 },
	{ "adjacent windows (k-1, k] and (k, k+1] do not overlap", "XXX...", 0, 1,
	  "...XXX", 0, 1, 0, 0, 0, 2, NONE, 0 },
	{ "partial: windows 3, 4 in both, 1..6 and 9 in either", "XXXX....X.", 0, 1,
	  "..XXXX....", 0, 1, 2.0 / 7.0, 0.5, 1, 2, 0, 2 },
	{ "other step, same time: (3, 7] both", "...XXXX...", 0, 1,
	  "......XXXXXXXX......", 0, 0.5, 1, 1, 1, 1, 0, 4 },
	{ "other step: (3, 7] and (4, 8] share 3 s of 5", "...XXXX...", 0, 1,
	  "........XXXXXXXX....", 0, 0.5, 0.6, 1, 1, 1, 0, 3 },
	{ "half a step apart: (3, 7] and (3.5, 7.5]", "...XXXX...", 0, 1,
	  "...XXXX...", 0.5, 1, 3.5 / 4.5, 1, 1, 1, 0, 3.5 },
	{ "two quiet runs agree: IoU 1, no hit rate", "..........", 0, 1,
	  "..........", 0, 1, 1, NAN, NAN, 0, NONE, 0 },
	{ "a quiet run against one incident", "..........", 0, 1,
	  "....XX....", 0, 1, 0, NAN, 0, 1, 0, 0 },
};

/* a == b, or both NaN */
static int same(double a, double b)
{
	return isnan(a) ? isnan(b) : fabs(a - b) < EPS;
}

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pat_cases) / sizeof(pat_cases[0]); i++) {
		const struct pat_case *c = &pat_cases[i];
		struct rv_compare_run a, b;
		struct rv_compare_result r;

		compare_pats(&a, c->pa, c->t0a, c->stepa, &b, c->pb, c->t0b, c->stepb, &r);
		if (!same(r.iou, c->iou) || !same(r.a.hit_rate, c->hit_a) ||
		    !same(r.b.hit_rate, c->hit_b) || r.npair != c->npair)
			fail_msg("%s: IoU %g hit %g/%g pairs %zu, want %g %g/%g %zu", c->what, r.iou,
				 r.a.hit_rate, r.b.hit_rate, r.npair, c->iou, c->hit_a, c->hit_b,
				 c->npair);
		if (r.npair && (r.pair[0].b != c->pair0_b || !same(r.pair[0].overlap_s, c->overlap0)))
			fail_msg("%s: first pair b %zu overlap %g, want %zu %g", c->what, r.pair[0].b,
				 r.pair[0].overlap_s, c->pair0_b, c->overlap0);
		free3(&a, &b, &r);
	}
}

/* The details of three of them: unmatched incidents in order, counts of
 * windows, the range cut to the time both cover. */
static void test_details(void **state)
{
	struct rv_compare_run a, b;
	struct rv_compare_result r;

	(void)state;
	compare_pats(&a, "XX........XX", 0, 1.0, &b, "....XXX.....", 0, 1.0, &r);
	assert_true(fabs(r.either_s - 7.0) < EPS);
	assert_int_equal(r.pair[0].a, 0);   /* A's two unmatched, then B's one */
	assert_int_equal(r.pair[1].a, 1);
	assert_int_equal(r.pair[1].b, RV_COMPARE_NONE);
	assert_int_equal(r.pair[2].a, RV_COMPARE_NONE);
	assert_int_equal(r.pair[2].b, 0);
	free3(&a, &b, &r);

	compare_pats(&a, "...XXXX...", 0, 1.0, &b, "......XXXXXXXX......", 0, 0.5, &r);
	assert_int_equal(r.a.flagged, 4);
	assert_int_equal(r.b.flagged, 8);
	free3(&a, &b, &r);

	/* half a step apart: the range is (0.5, 10], so A's first window
	 * (0, 1] is cut to (0.5, 1] and B's last (9.5, 10.5] left out */
	compare_pats(&a, "...XXXX...", 0, 1.0, &b, "...XXXX...", 0.5, 1.0, &r);
	assert_true(fabs(r.from - 0.5) < EPS && fabs(r.to - 10.0) < EPS);
	assert_int_equal(r.a.windows, 10);
	assert_int_equal(r.b.windows, 9);
	assert_int_equal(r.b.windows_out, 1);
	free3(&a, &b, &r);
}

static void test_range(void **state)
{
	struct rv_compare_run a, b;
	struct rv_compare_result r;
	struct rv_err err;

	(void)state;
	run_of(&a, "first.csv", "..XX..", 0, 1.0);
	run_of(&b, "second.csv", "..XX..", 100, 1.0);
	rv_err_clear(&err);
	assert_int_equal(rv_compare_runs(&a, &b, -INFINITY, INFINITY, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "first.csv covers"));
	assert_non_null(strstr(err.msg, "second.csv covers"));
	assert_non_null(strstr(err.msg, "do not overlap"));
	assert_null(r.pair);
	rv_compare_run_fini(&b);

	/* since/until outside both runs */
	run_of(&b, "second.csv", "..XX..", 0, 1.0);
	rv_err_clear(&err);
	assert_int_equal(rv_compare_runs(&a, &b, 50, 60, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "range asked"));

	/* (3.5, 6]: windows 4, 5, 6 inside; the incident (2, 4] overlaps it */
	rv_err_clear(&err);
	assert_int_equal(rv_compare_runs(&a, &b, 3.5, INFINITY, &r, &err), 0);
	assert_int_equal(r.a.windows, 3);
	assert_int_equal(r.a.windows_out, 3);
	assert_int_equal(r.a.incidents, 1);
	assert_true(fabs(r.a.anomalous_s - 0.5) < EPS);
	assert_true(r.iou == 1.0);
	rv_compare_result_fini(&r);
	/* (4, 6]: the incident lies outside */
	assert_int_equal(rv_compare_runs(&a, &b, 4, INFINITY, &r, &err), 0);
	assert_int_equal(r.a.incidents, 0);
	assert_int_equal(r.a.incidents_out, 1);
	assert_int_equal(r.a.flagged, 0);
	free3(&a, &b, &r);
}

static void test_stores(void **state)
{
	static const double sa[] = { 10, 12, 20, 25 }, sb[] = { 11, 11, 30, 31 };
	struct rv_compare_run a, b;
	struct rv_compare_result r;

	(void)state;
	/* A covers (9, 12] and (19, 25], B (10, 11] and (29, 31] */
	compare_stores(&a, sa, 2, &b, sb, 2, &r);
	assert_true(fabs(r.from - 9) < EPS && fabs(r.to - 31) < EPS);
	assert_true(fabs(r.both_s - 1) < EPS);
	assert_true(fabs(r.iou - 1.0 / 11.0) < EPS);   /* 1 s of 9 + 3 - 1 */
	assert_int_equal(r.a.flagged, 9);
	assert_int_equal(r.b.flagged, 3);
	assert_int_equal(r.a.windows, 0);
	assert_true(fabs(r.a.hit_rate - 0.5) < EPS && fabs(r.b.hit_rate - 0.5) < EPS);
	assert_int_equal(r.npair, 3);
	assert_int_equal(r.pair[0].b, 0);
	assert_int_equal(r.pair[1].b, RV_COMPARE_NONE);
	assert_int_equal(r.pair[2].a, RV_COMPARE_NONE);
	assert_int_equal(r.pair[2].b, 1);
	rv_compare_result_fini(&r);
	/* two stores with no incident at all: nothing to compare */
	rv_compare_run_fini(&a);
	rv_compare_run_fini(&b);
	store_of(&a, "a.db", 1.0, NULL, 0);
	store_of(&b, "b.db", 1.0, NULL, 0);
	compare(&a, &b, &r);
	assert_true(isnan(r.from));
	assert_true(r.iou == 1.0);
	assert_true(isnan(r.a.hit_rate));
	free3(&a, &b, &r);
}

/* A store beside a CSV: the CSV's span is the range, the store's incidents
 * are its anomalous time; those outside the CSV are left out. */
static void test_csv_with_store(void **state)
{
	static const double sb[] = { 3, 5, 40, 42 };
	struct rv_compare_run a, b;
	struct rv_compare_result r;

	(void)state;
	run_of(&a, "a.csv", "..XXXX....", 0, 1.0);   /* (2, 6] */
	store_of(&b, "b.db", 1.0, sb, 2);           /* (2, 5], (39, 42] */
	compare(&a, &b, &r);
	assert_true(fabs(r.iou - 0.75) < EPS);
	assert_int_equal(r.b.incidents, 1);
	assert_int_equal(r.b.incidents_out, 1);
	assert_int_equal(r.b.flagged, 3);
	assert_true(r.a.hit_rate == 1.0 && r.b.hit_rate == 1.0);
	free3(&a, &b, &r);
}

static void test_matching(void **state)
{
	/* B: (4, 6], (7, 12] and (8, 9] inside the last; A: (0, 10] */
	static const double sb[] = { 5, 6, 8, 12, 9, 9 }, sa[] = { 1, 10 };
	static const double tie[] = { 2, 3, 5, 6 };
	struct rv_compare_run a, b;
	struct rv_compare_result r;

	(void)state;
	compare_stores(&a, sa, 1, &b, sb, 3, &r);
	assert_int_equal(r.npair, 1);      /* every B overlaps A's one */
	assert_int_equal(r.pair[0].b, 1);  /* (7, 12] shares 3 s */
	assert_true(fabs(r.pair[0].overlap_s - 3) < EPS);
	assert_int_equal(r.b.hit, 3);
	rv_compare_result_fini(&r);
	rv_compare_run_fini(&b);
	/* a tie, 2 s each: the earlier */
	store_of(&b, "b.db", 1.0, tie, 2);
	compare(&a, &b, &r);
	assert_int_equal(r.pair[0].b, 0);
	free3(&a, &b, &r);
}

static void test_add_refuses(void **state)
{
	struct rv_compare_run a;
	struct rv_compare_incident in = { .id = 7, .start_ts = 10, .end_ts = 9 };
	struct rv_err err;

	(void)state;
	rv_compare_run_init(&a, "a.db", "store", 1.0);
	rv_err_clear(&err);
	assert_int_equal(rv_compare_run_add(&a, &in, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "a.db: incident 7"));
	in.end_ts = NAN;
	assert_int_equal(rv_compare_run_add(&a, &in, NULL), -EINVAL);
	assert_int_equal(a.ninc, 0);
	rv_compare_run_fini(&a);
	rv_compare_run_fini(NULL);
	rv_compare_result_fini(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_details),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_stores),
		cmocka_unit_test(test_csv_with_store),
		cmocka_unit_test(test_matching),
		cmocka_unit_test(test_add_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
