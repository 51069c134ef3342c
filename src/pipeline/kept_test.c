/*
 * kept_test.c - memory taken and kept in the blame of a window (kept.h):
 *   - which channels count, and the lookback in samples;
 *   - the share the kept channels get, split by their growth, and when
 *     they get none (too little growth, page cache, a window not flagged,
 *     no reference sample);
 *   - in the offline run, a program that takes 400 MiB and keeps one core
 *     busy for 50 s (longer than the lookback) is one incident blamed on
 *     memory, not a memory incident followed by a CPU phase, and memory
 *     leads the windows that the rise has left; when the same rise is the
 *     page cache's, those windows are the CPU's. One thread or two alike.
 */
#include "pipeline/pipeline_testutil.h"

#include <math.h>

#include "pipeline/kept.h"
#include "pipeline/novelty_testdata.h"

#define MIB 1048576.0

static void near(double a, double b, double tol)
{
	if (!(fabs(a - b) <= tol * (1.0 + fabs(b))))
		fail_msg("%.12g, expected %.12g", a, b);
}

/* A model of four channels as the kept code reads it: names, window,
 * sampling interval. */
static char *names4[] = { "cpu.busy_pct", "mem.anon_pages_bytes", "mem.node_anon_pages_bytes:node0",
			  "mem.cached_bytes" };
enum { W4 = 5 };

static struct rv_model model4(void)
{
	struct rv_model m;

	memset(&m, 0, sizeof(m));
	m.nchan = 4;
	m.names = names4;
	m.window = W4;
	m.interval_s = 0.2;
	return m;
}

static void test_init(void **state)
{
	struct rv_model m = model4();
	struct rv_kept k;

	(void)state;
	assert_int_equal(rv_kept_init(&k, &m), 0);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.chan[0], 1);
	assert_int_equal(k.chan[1], 2);
	assert_int_equal(k.lookback, 150);      /* 30 s at 200 ms */
	rv_kept_fini(&k);
	m.interval_s = 0.0;                     /* unknown: a sample a second */
	assert_int_equal(rv_kept_init(&k, &m), 0);
	assert_int_equal(k.lookback, 30);
	rv_kept_fini(&k);
	m.nchan = 1;                            /* cpu only */
	assert_int_equal(rv_kept_init(&k, &m), 0);
	assert_int_equal(k.n, 0);
	assert_null(k.chan);
	rv_kept_fini(&k);
}

/* A window table (channel-major, W4 rows) with each channel constant at v. */
static void fill(float *tbl, const double *v)
{
	for (size_t c = 0; c < 4; c++)
		for (size_t r = 0; r < W4; r++)
			tbl[c * W4 + r] = (float)v[c];
}

static void test_share(void **state)
{
	struct rv_model m = model4();
	struct rv_ens_result res = { .anomaly = 1 };
	struct rv_kept k;
	float tbl[4 * W4];
	/* reference: 512 MiB held; now 1536 MiB (r = 2) on the host, 1024 MiB
	 * (r = 1) on the node; the page cache grew too */
	const float ref[4] = { 10.0f, (float)(512 * MIB), (float)(512 * MIB), (float)(100 * MIB) };
	const double now[4] = { 90.0, 1536 * MIB, 1024 * MIB, 4096 * MIB };
	double w[4] = { 3.0, 0.0, 0.0, 0.5 };

	(void)state;
	assert_int_equal(rv_kept_init(&k, &m), 0);
	fill(tbl, now);
	near(rv_kept_attribute(&k, &m, tbl, W4, 0, ref, 1, &res, w), 2.0, 1e-12);
	/* the cap, 2/3 of the total, r = 2 -> 2/3: split 2:1 by growth */
	near((w[1] + w[2]) / (w[0] + w[1] + w[2] + w[3]), 2.0 / 3.0, 1e-12);
	near(w[1], 2.0 * w[2], 1e-12);
	near(w[0], 3.0, 0.0);
	near(w[3], 0.5, 0.0);      /* the page cache gets nothing */
	rv_kept_fini(&k);
}

/* Half again as much as the floor (r = 0.5) gives a third; less gives
 * nothing; nor does a window that is not flagged, a missing reference, or
 * a drop. */
static void test_thresholds(void **state)
{
	struct rv_model m = model4();
	struct rv_ens_result res = { .anomaly = 1 }, quiet = { 0 }, flag = { .flags = 1 };
	struct rv_kept k;
	float tbl[4 * W4];
	const float ref[4] = { 10.0f, (float)(64 * MIB), (float)(64 * MIB), 0.0f };
	double half[4] = { 90.0, 64 * MIB + 128 * MIB, 64 * MIB, 0.0 };
	double w[4] = { 2.0, 0.0, 0.0, 0.0 };

	(void)state;
	assert_int_equal(rv_kept_init(&k, &m), 0);
	fill(tbl, half);           /* +128 MiB over 64: judged against 256 */
	near(rv_kept_attribute(&k, &m, tbl, W4, 0, ref, 1, &res, w), 0.5, 1e-12);
	near(w[1] / (w[0] + w[1]), 1.0 / 3.0, 1e-12);
	near(w[2], 0.0, 0.0);      /* the node did not grow */

	half[1] = 64 * MIB + 120 * MIB;
	fill(tbl, half);
	w[0] = 2.0, w[1] = 0.0;
	assert_true(rv_kept_attribute(&k, &m, tbl, W4, 0, ref, 1, &res, w) < RV_KEPT_MIN_RATIO);
	near(w[1], 0.0, 0.0);

	half[1] = 64 * MIB + 1024 * MIB;
	fill(tbl, half);
	near(rv_kept_attribute(&k, &m, tbl, W4, 0, ref, 1, &quiet, w), 0.0, 0.0);
	near(rv_kept_attribute(&k, &m, tbl, W4, 0, NULL, 1, &res, w), 0.0, 0.0);
	near(w[1], 0.0, 0.0);
	/* a detector's flag alone is a flagged window */
	assert_true(rv_kept_attribute(&k, &m, tbl, W4, 0, ref, 1, &flag, w) > 1.0);
	assert_true(w[1] > 0.0);

	/* memory given back is not memory taken */
	{
		const float big[4] = { 10.0f, (float)(4096 * MIB), (float)(4096 * MIB), 0.0f };

		w[0] = 2.0, w[1] = 0.0;
		near(rv_kept_attribute(&k, &m, tbl, W4, 0, big, 1, &res, w), 0.0, 0.0);
		near(w[1], 0.0, 0.0);
	}
	/* no other weight: the ratios themselves */
	{
		double z[4] = { 0.0, 0.0, 0.0, 0.0 };

		rv_kept_attribute(&k, &m, tbl, W4, 0, ref, 1, &res, z);
		near(z[1], 1024.0 / 256.0, 1e-12);
	}
	rv_kept_fini(&k);
}

/* ------------------------------------------------------ the offline run */

enum { TRAIN_ROWS = 2400, TEST_ROWS = 720, FAULT_R0 = 80, FAULT_R1 = 480 };
/* gauge 1 of quiet_table is mem.pgscan:0: it becomes the kept channel */
enum { ANON = 1, CPU = 0 };

/* The quiet host with channel ANON renamed (name) and holding 100 MiB
 * (+-1 MiB of noise from the table's own), and, over [FAULT_R0, FAULT_R1)
 * when fault is set, 400 MiB more and cpu0 at 100 %. */
static struct rv_table *host(size_t nrows, size_t first, uint64_t seed, const char *name,
			     int fault)
{
	struct rv_table *t = quiet_table(nrows, first, seed);
	float *anon = t->values + (size_t)ANON * nrows;

	free(t->names[ANON]);
	t->names[ANON] = strdup(name);
	assert_non_null(t->names[ANON]);
	for (size_t r = 0; r < nrows; r++) {
		anon[r] = (float)(100 * MIB + (anon[r] - 1000.0f) / 100.0f * MIB);
		if (fault && r >= FAULT_R0 && r < FAULT_R1)
			anon[r] += (float)(400 * MIB);
	}
	if (fault)
		qt_plant(t, CPU, FAULT_R0, FAULT_R1, 100.0f);
	return t;
}

/* Runs a model fitted on the quiet host over the fault, with channel ANON
 * named name; *mg_out and *cap_out hold the result (caller frees them
 * with run_free), *m_out the model. */
static void run_fault(const char *name, struct rv_model **m_out, struct rv_incmerge **mg_out,
		      struct capture *cap_out)
{
	struct rv_table *train = host(TRAIN_ROWS, 0, 1, name, 0);
	struct rv_table *t = host(TEST_ROWS, TRAIN_ROWS, 2, name, 1);
	struct rv_detect_opts o;
	struct rv_incmerge *mg1;
	struct capture cap1;

	rv_detect_opts_default(&o);
	o.ens.iforest.trees = 50;
	assert_int_equal(rv_model_fit(&o, train, m_out, NULL, NULL), 0);
	*mg_out = run(*m_out, t, cap_out, 2, 2, 2);
	/* the same on one thread as on two */
	mg1 = run(*m_out, t, &cap1, 2, 2, 1);
	same_output(cap_out, &cap1);
	same_incidents(*mg_out, mg1);
	run_free(mg1, &cap1);
	rv_table_free(train);
	rv_table_free(t);
}

/* The flagged windows that lie wholly inside the fault after its first
 * second and within the lookback: the rise is no longer in them. How many
 * rank channel ANON first. */
static size_t kept_first(const struct rv_model *m, const struct capture *cap, size_t *flagged)
{
	size_t n = 0;

	*flagged = 0;
	for (size_t i = 0; i < cap->n; i++) {
		const struct seen *s = &cap->w[i];
		size_t a = s->index * m->step, b = a + m->window;

		if (a < FAULT_R0 + m->step || b > FAULT_R0 + 200 || !s->nrank)
			continue;
		(*flagged)++;
		n += s->rank[0] == ANON;
	}
	return n;
}

static void test_run_blames_kept_memory(void **state)
{
	struct rv_model *m;
	struct rv_incmerge *mg;
	struct capture cap;
	size_t found = 0, flagged, first;

	(void)state;
	run_fault("mem.anon_pages_bytes", &m, &mg, &cap);
	/* one incident over the fault, memory's, no CPU phase after the
	 * lookback: it opens within 2 s and ends after the fault */
	for (size_t i = 0; i < rv_incmerge_count(mg); i++) {
		const struct rv_incident *x = rv_incmerge_get(mg, i);
		size_t a = x->first_win * m->step, b = x->last_win * m->step + m->window;

		if (b <= FAULT_R0 || a >= FAULT_R1)
			continue;
		found++;
		assert_int_equal(x->phase, 1);
		assert_int_equal(x->subsystem, RV_SUB_MEM);
		assert_true(a <= FAULT_R0 + 16);
		assert_true(b >= FAULT_R1);
	}
	assert_int_equal(found, 1);
	/* the memory leads the windows the rise has left */
	first = kept_first(m, &cap, &flagged);
	assert_int_equal(first, flagged);
	assert_true(flagged >= 10);
	run_free(mg, &cap);
	rv_model_free(m);
}

/* The same rise of a stock that processes do not hold (the page cache):
 * once it has left the windows, they are the CPU's. */
static void test_page_cache_is_not_kept(void **state)
{
	struct rv_model *m;
	struct rv_incmerge *mg;
	struct capture cap;
	size_t flagged;

	(void)state;
	run_fault("mem.cached_bytes", &m, &mg, &cap);
	assert_int_equal(kept_first(m, &cap, &flagged), 0);
	assert_true(flagged >= 10);
	run_free(mg, &cap);
	rv_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_run_blames_kept_memory),
		cmocka_unit_test(test_page_cache_is_not_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
