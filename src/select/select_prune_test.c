/*
 * select_prune_test.c - select/prune.h on synthetic inputs with a known
 * correlation structure: the kept set is exactly the expected one (groups
 * of one latent series, a chain A~B~C where A and C are independent, a
 * pair just under the threshold); each priority key and the final name
 * rule decide the ties they are documented to decide; the order of inputs
 * and columns does not matter; across two inputs a pair redundant in one
 * only keeps both, a channel constant in one input is judged on the
 * other, a kept channel constant where the other varies cannot stand for
 * it; constant channels, gaps, per-subsystem counts; the result written
 * as a metric set reads back; protected channels kept; the refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/prune.h"
#include "select/select_testutil.h"

enum { N = 4000, MAXC = 16, MAXLAT = 4 };

/* One synthetic input: channel c = a[c] * latent[lat[c]] + noise s[c];
 * lat[c] < 0: constant. */
struct spec {
	const char *name;
	int lat;
	double a, s;
};

struct input {
	const char *names[MAXC];
	float *x;
	size_t n;
	struct rv_corr *corr;
};

static void build(struct input *in, const struct spec *sp, size_t n, uint64_t seed)
{
	double *lat = malloc(sizeof(double) * MAXLAT * N);
	struct rv_rng g;

	assert_non_null(lat);
	assert_true(n <= MAXC);
	in->x = malloc(sizeof(float) * n * N);
	assert_non_null(in->x);
	in->n = n;
	rv_rng_seed(&g, seed);
	for (size_t k = 0; k < MAXLAT; k++)
		st_latent(lat + k * N, N, &g);
	for (size_t c = 0; c < n; c++) {
		in->names[c] = sp[c].name;
		if (sp[c].lat < 0)
			for (size_t t = 0; t < N; t++)
				in->x[c * N + t] = (float)sp[c].a;
		else
			st_mix(in->x + c * N, lat + (size_t)sp[c].lat * N, N, sp[c].a, sp[c].s,
			       10.0, &g);
	}
	free(lat);
	assert_int_equal(rv_corr_compute(in->x, n, N, RV_CORR_AUTO, "in", &in->corr, NULL), 0);
}

static void drop_input(struct input *in)
{
	rv_corr_free(in->corr);
	free(in->x);
}

static struct rv_prune_result *run(struct input *in, size_t nin)
{
	struct rv_prune_input pi[4];
	struct rv_prune_result *r = NULL;
	struct rv_err err;

	for (size_t k = 0; k < nin; k++)
		pi[k] = (struct rv_prune_input){ "in", in[k].names, in[k].n, in[k].corr, NULL };
	rv_err_clear(&err);
	if (rv_prune_run(pi, nin, RV_PRUNE_THRESHOLD, &r, &err) != 0)
		fail_msg("%s", err.msg);
	return r;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The kept names, space-separated, in order or (sorted) in name order. */
static const char *kept_text(const struct rv_prune_result *r, int sorted)
{
	static char buf[1024];
	const char *v[MAXC];

	assert_true(r->nkept <= MAXC);
	memcpy(v, r->kept, r->nkept * sizeof(*v));
	if (sorted)
		qsort(v, r->nkept, sizeof(*v), str_cmp);
	buf[0] = '\0';
	for (size_t i = 0; i < r->nkept; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "", v[i]);
	return buf;
}

static const struct rv_metricset_drop *find_drop(const struct rv_prune_result *r,
						 const char *name)
{
	for (size_t i = 0; i < r->ndropped; i++)
		if (strcmp(r->dropped[i].channel, name) == 0)
			return &r->dropped[i];
	fail_msg("%s not dropped", name);
	return NULL;
}

/* Groups, a chain, a pair under the threshold, constant and gaps. */
static const struct spec structure[] = {
	{ "cpu.softirq_rcu", 0, 1.0, 0.3 },      /* group 0: r about 0.9 */
	{ "cpu.user_pct", 0, 2.0, 0.5 },
	{ "cpu.busy_pct", 0, 3.0, 0.9 },
	{ "cpu.system_pct", 0, 1.0, 0.2 },
	{ "net.rx_packets", 1, 1.0, 0.1 },       /* group 1 */
	{ "net.rx_bytes:eth0", 1, 1.0, 0.1 },
	{ "net.rx_bytes", 1, 1.0, 0.1 },
	{ "mem.numa_hit", 2, 1.0, 2.0 },         /* r with pgfault about 0.2 */
	{ "mem.pgfault", 2, 1.0, 1.0 },
	{ "storage.read_bytes", 3, 1.0, 0.0 },   /* alone */
	{ "mem.mem_total_bytes", -1, 64e9, 0 },  /* constant */
	{ "gpu.util_pct", -1, 0, 0 },            /* constant 0 */
};

static void test_structure(void **state)
{
	struct input in;
	struct rv_prune_result *r;

	(void)state;
	build(&in, structure, sizeof(structure) / sizeof(structure[0]), 11);
	for (size_t t = 100; t < 120; t++)      /* 0.5 % gaps in one channel */
		in.x[1 * N + t] = NAN;
	rv_corr_free(in.corr);
	assert_int_equal(rv_corr_compute(in.x, in.n, N, RV_CORR_AUTO, "in", &in.corr, NULL), 0);
	r = run(&in, 1);
	assert_string_equal(kept_text(r, 0), "cpu.busy_pct net.rx_bytes storage.read_bytes "
			    "mem.pgfault mem.numa_hit");
	assert_int_equal(r->ndropped, 5);
	assert_string_equal(find_drop(r, "cpu.user_pct")->kept, "cpu.busy_pct");
	assert_string_equal(find_drop(r, "cpu.softirq_rcu")->kept, "cpu.busy_pct");
	assert_string_equal(find_drop(r, "net.rx_bytes:eth0")->kept, "net.rx_bytes");
	assert_string_equal(find_drop(r, "net.rx_packets")->kept, "net.rx_bytes");
	assert_true(fabs(find_drop(r, "cpu.system_pct")->r - rv_corr_r(in.corr, 3, 2)) < 1e-6);
	assert_int_equal(r->nconstant, 2);
	assert_string_equal(r->constant[0], "gpu.util_pct");
	assert_string_equal(r->constant[1], "mem.mem_total_bytes");
	assert_int_equal(r->kept_by[RV_SUB_CPU], 1);
	assert_int_equal(r->dropped_by[RV_SUB_CPU], 3);
	assert_int_equal(r->kept_by[RV_SUB_MEM], 2);
	assert_int_equal(r->constant_by[RV_SUB_MEM], 1);
	assert_int_equal(r->constant_by[RV_SUB_GPU], 1);
	assert_int_equal(r->kept_by[RV_SUB_NET] + r->dropped_by[RV_SUB_NET], 3);
	rv_prune_free(r);
	drop_input(&in);
}

/* Protected channels (the knowledge base's signals): one a kept channel
 * stands for stays, in its priority place, and may stand for later ones;
 * a protected constant one is kept; a pattern matching nothing is harmless. */
static void test_protect(void **state)
{
	static const char *const globs[] = { "cpu.user_pct", "net.rx_bytes:*", "gpu.util*",
					     "no.such_*" };
	struct rv_prune_protect p = { globs, 4 };
	struct rv_prune_input pi;
	struct rv_prune_result *r = NULL;
	struct input in;

	(void)state;
	build(&in, structure, sizeof(structure) / sizeof(structure[0]), 11);
	pi = (struct rv_prune_input){ "in", in.names, in.n, in.corr, NULL };
	assert_int_equal(rv_prune_run_protect(&pi, 1, RV_PRUNE_THRESHOLD, &p, &r, NULL), 0);
	/* cpu.user_pct (rank 2) and net.rx_bytes:eth0 (rank 1, an instance)
	 * now kept, each in its priority place; cpu.softirq_rcu,
	 * cpu.system_pct and net.rx_packets still dropped; gpu.util_pct kept
	 * though constant, after the varying ones */
	assert_string_equal(kept_text(r, 0), "cpu.busy_pct net.rx_bytes storage.read_bytes "
			    "net.rx_bytes:eth0 cpu.user_pct mem.pgfault mem.numa_hit "
			    "gpu.util_pct");
	assert_int_equal(r->nprotected, 2);
	assert_int_equal(r->nprotected_constant, 1);
	assert_int_equal(r->nkept_constant, 1);
	assert_int_equal(r->ndropped, 3);
	assert_int_equal(r->nconstant, 1);
	assert_string_equal(r->constant[0], "mem.mem_total_bytes");
	assert_int_equal(r->kept_by[RV_SUB_GPU], 1);
	assert_int_equal(r->constant_by[RV_SUB_GPU], 0);
	rv_prune_keep_constant(r);   /* the rest of the constant ones join after */
	assert_int_equal(r->nkept, 9);
	assert_string_equal(r->kept[8], "mem.mem_total_bytes");
	assert_int_equal(r->nkept_constant, 2);
	rv_prune_free(r);

	/* the protected cpu.user_pct stands for a later channel like any kept
	 * one: cpu.softirq_rcu (rank 3, visited after it) names whichever of
	 * it and cpu.busy_pct it correlates with more (columns 0, 1, 2) */
	p = (struct rv_prune_protect){ globs, 1 };
	assert_int_equal(rv_prune_run_protect(&pi, 1, RV_PRUNE_THRESHOLD, &p, &r, NULL), 0);
	assert_int_equal(r->nprotected, 1);
	assert_true(fabs(rv_corr_r(in.corr, 0, 1)) > fabs(rv_corr_r(in.corr, 0, 2)));
	assert_string_equal(find_drop(r, "cpu.softirq_rcu")->kept, "cpu.user_pct");
	rv_prune_free(r);
	/* without patterns: as rv_prune_run */
	p = (struct rv_prune_protect){ NULL, 0 };
	assert_int_equal(rv_prune_run_protect(&pi, 1, RV_PRUNE_THRESHOLD, &p, &r, NULL), 0);
	assert_string_equal(kept_text(r, 0), "cpu.busy_pct net.rx_bytes storage.read_bytes "
			    "mem.pgfault mem.numa_hit");
	assert_int_equal(r->nprotected + r->nprotected_constant, 0);
	rv_prune_free(r);
	drop_input(&in);
}

/* A ~ B and B ~ C at r 0.7, A and C independent: B goes (for A), C stays. */
static void test_chain(void **state)
{
	static const struct spec sp[] = { { "cpu.busy_pct", 0, 1.0, 0.01 },
					   { "cpu.user_pct", 0, 1.0, 0.01 },
					   { "cpu.softirq_rcu", 1, 1.0, 0.01 } };
	struct input in;
	struct rv_prune_result *r;

	(void)state;
	build(&in, sp, 3, 12);
	for (size_t t = 0; t < N; t++)   /* user = busy + rcu */
		in.x[1 * N + t] = in.x[0 * N + t] + in.x[2 * N + t];
	rv_corr_free(in.corr);
	assert_int_equal(rv_corr_compute(in.x, 3, N, RV_CORR_AUTO, "in", &in.corr, NULL), 0);
	assert_true(fabs(rv_corr_r(in.corr, 0, 1) - M_SQRT1_2) < 0.05);
	assert_true(fabs(rv_corr_r(in.corr, 0, 2)) < 0.1);
	r = run(&in, 1);
	assert_string_equal(kept_text(r, 0), "cpu.busy_pct cpu.softirq_rcu");
	assert_string_equal(find_drop(r, "cpu.user_pct")->kept, "cpu.busy_pct");
	rv_prune_free(r);
	drop_input(&in);
}

/* Ties: spread decides between equal ranks, the host-wide channel beats
 * its instance, and between exact copies the name decides, whatever the
 * order of the columns. */
static void test_ties(void **state)
{
	static const struct spec sp[] = {
		{ "x.b", 0, 1.0, 0.05 }, { "x.a", 0, 1.0, 0.05 },
		{ "x.m_spiky", 1, 1.0, 0.05 }, { "x.z_levels", 1, 1.0, 0.05 },
		{ "cpu.busy_pct:cpu0", 2, 1.0, 0.05 }, { "cpu.busy_pct", 2, 1.0, 0.05 },
	};
	struct input in[2];
	struct rv_prune_result *r[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct spec rev[6];

		for (size_t c = 0; c < 6; c++)
			rev[c] = sp[k ? 5 - c : c];
		build(&in[k], rev, 6, 13);
		for (size_t c = 0; c < 6; c++) {
			float *x = in[k].x + c * N;

			if (!strcmp(rev[c].name, "x.b"))   /* an exact copy of x.a */
				memcpy(x, in[k].x + (size_t)(k ? 4 : 1) * N, sizeof(float) * N);
			if (!strcmp(rev[c].name, "x.z_levels"))   /* two levels: spread 0.25 */
				for (size_t t = 0; t < N; t++)
					x[t] = x[t] > 10.0f ? 1.0f : 0.0f;
		}
		rv_corr_free(in[k].corr);
		assert_int_equal(rv_corr_compute(in[k].x, 6, N, RV_CORR_AUTO, "in", &in[k].corr,
						 NULL), 0);
		r[k] = run(&in[k], 1);
	}
	assert_string_equal(kept_text(r[0], 0), "cpu.busy_pct x.z_levels x.a");
	assert_string_equal(kept_text(r[1], 0), kept_text(r[0], 0));
	assert_string_equal(find_drop(r[0], "x.b")->kept, "x.a");
	assert_true(find_drop(r[0], "x.b")->r == 1.0);
	assert_string_equal(find_drop(r[1], "x.m_spiky")->kept, "x.z_levels");
	assert_string_equal(find_drop(r[1], "cpu.busy_pct:cpu0")->kept, "cpu.busy_pct");
	for (int k = 0; k < 2; k++) {
		rv_prune_free(r[k]);
		drop_input(&in[k]);
	}
}

/* Two workloads. busy~user in the first only: both kept. busy~rcu in
 * both: dropped with the weaker r. system varies in the first only (with
 * busy) and is constant in the second: judged on the first, dropped.
 * iowait is redundant with load1 in the first, but load1 is constant in
 * the second where iowait varies: kept. steal exists in the first only and is
 * judged there; nice is constant in both. */
static void test_two_inputs(void **state)
{
	static const struct spec a[] = {
		{ "cpu.busy_pct", 0, 1.0, 0.1 }, { "cpu.user_pct", 0, 1.0, 0.1 },
		{ "cpu.softirq_rcu", 0, 1.0, 0.3 }, { "cpu.system_pct", 0, 1.0, 0.1 },
		{ "cpu.load1", 1, 1.0, 0.1 }, { "cpu.iowait_pct", 1, 1.0, 0.1 },
		{ "cpu.steal_pct", 0, 1.0, 0.1 }, { "cpu.nice_pct", -1, 1.0, 0 },
	};
	static const struct spec b[] = {
		{ "cpu.nice_pct", -1, 2.0, 0 }, { "cpu.iowait_pct", 3, 1.0, 0.1 },
		{ "cpu.load1", -1, 5.0, 0 }, { "cpu.system_pct", -1, 3.0, 0 },
		{ "cpu.softirq_rcu", 0, 1.0, 0.6 }, { "cpu.user_pct", 2, 1.0, 0.1 },
		{ "cpu.busy_pct", 0, 1.0, 0.1 },
	};
	struct input in[2];
	struct rv_prune_result *r;
	const struct rv_metricset_drop *d;
	double r0, r1;

	(void)state;
	build(&in[0], a, 8, 21);
	build(&in[1], b, 7, 22);
	r = run(in, 2);
	assert_string_equal(kept_text(r, 1), "cpu.busy_pct cpu.iowait_pct cpu.load1 cpu.user_pct");
	d = find_drop(r, "cpu.softirq_rcu");
	assert_string_equal(d->kept, "cpu.busy_pct");
	r0 = rv_corr_r(in[0].corr, 2, 0);
	r1 = rv_corr_r(in[1].corr, 4, 6);
	assert_true(r1 < r0);
	assert_true(d->r == (float)r1);
	assert_string_equal(find_drop(r, "cpu.system_pct")->kept, "cpu.busy_pct");
	assert_string_equal(find_drop(r, "cpu.steal_pct")->kept, "cpu.busy_pct");
	assert_int_equal(r->ndropped, 3);
	assert_int_equal(r->nconstant, 1);
	assert_string_equal(r->constant[0], "cpu.nice_pct");
	rv_prune_free(r);
	/* the order of the inputs does not matter */
	{
		struct input swapped[2] = { in[1], in[0] };

		r = run(swapped, 2);
		assert_string_equal(kept_text(r, 1), "cpu.busy_pct cpu.iowait_pct cpu.load1 "
				    "cpu.user_pct");
		rv_prune_free(r);
	}
	drop_input(&in[0]);
	drop_input(&in[1]);
}

/* The result as a metric set, read back. */
static void test_metricset(void **state)
{
	static const char *const inputs[] = { "a.rvl" };
	struct input in;
	struct rv_prune_result *r;
	struct rv_metricset_spec s;
	struct rv_metricset *m = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	build(&in, structure, sizeof(structure) / sizeof(structure[0]), 31);
	r = run(&in, 1);
	rv_prune_spec(r, RV_PRUNE_THRESHOLD, inputs, 1, &s);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(rv_metricset_write(f, &s, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rv_metricset_parse(text, len, "w", &m, NULL), 0);
	assert_int_equal(rv_metricset_count(m), r->nkept);
	assert_int_equal(rv_metricset_ndropped(m), r->ndropped);
	assert_int_equal(rv_metricset_nconstant(m), r->nconstant);
	assert_int_equal(rv_metricset_has(m, "cpu.busy_pct"), 1);
	assert_int_equal(rv_metricset_has(m, "cpu.user_pct"), 0);
	assert_string_equal(rv_metricset_input(m, 0), "a.rvl");
	rv_metricset_free(m);
	free(text);
	rv_prune_free(r);
	drop_input(&in);
}

static void test_refusals(void **state)
{
	static const struct spec sp[] = { { "cpu.busy_pct", 0, 1, 0.1 }, { "cpu.busy_pct", 0, 1, 1 } };
	struct input in;
	struct rv_prune_input pi;
	struct rv_prune_result *r = NULL;
	struct rv_err err;

	(void)state;
	build(&in, sp, 2, 41);
	pi = (struct rv_prune_input){ "w.csv", in.names, 2, in.corr, NULL };
	rv_err_clear(&err);
	assert_int_equal(rv_prune_run(&pi, 1, 0.5, &r, &err), -EINVAL);
	assert_string_equal(err.msg, "w.csv: channel 'cpu.busy_pct' appears twice (columns 1 and 2)");
	assert_null(r);
	pi.nchan = 1;
	rv_err_clear(&err);
	assert_int_equal(rv_prune_run(&pi, 1, 0.5, &r, &err), -EINVAL);
	assert_string_equal(err.msg, "w.csv: 1 channel names for 2 correlated");
	pi.nchan = 2;
	assert_int_equal(rv_prune_run(&pi, 0, 0.5, &r, NULL), -EINVAL);
	assert_int_equal(rv_prune_run(&pi, 1, 0.0, &r, NULL), -EINVAL);
	assert_int_equal(rv_prune_run(&pi, 1, 1.0, &r, NULL), -EINVAL);
	assert_int_equal(rv_prune_run(&pi, 1, NAN, &r, NULL), -EINVAL);
	rv_prune_free(NULL);
	drop_input(&in);
}

/* Two channels that share a slow trend but move apart from sample to
 * sample: their levels correlate far above 0.5, their changes hardly.
 * Levels only (dcorr NULL, the paper's rule), one stands for the other;
 * with the correlation of changes both are kept. */
static void test_changes(void **state)
{
	enum { M = 4000 };
	float *x = malloc(sizeof(float) * 2 * M), *d = malloc(sizeof(float) * 2 * (M - 1));
	const char *names[2] = { "cpu.busy_pct", "cpu.user_pct" };
	struct rv_corr *corr = NULL, *dcorr = NULL;
	struct rv_prune_result *r = NULL;
	struct rv_prune_input pi;
	struct rv_rng g;

	(void)state;
	assert_non_null(x);
	assert_non_null(d);
	rv_rng_seed(&g, 7);
	for (size_t t = 0; t < M; t++) {
		double trend = 10.0 * sin(2.0 * M_PI * (double)t / M);

		x[t] = (float)(trend + rv_rng_uniform(&g) - 0.5);
		x[M + t] = (float)(trend + rv_rng_uniform(&g) - 0.5);
	}
	for (size_t c = 0; c < 2; c++)
		for (size_t t = 0; t + 1 < M; t++)
			d[c * (M - 1) + t] = x[c * M + t + 1] - x[c * M + t];
	assert_int_equal(rv_corr_compute(x, 2, M, RV_CORR_AUTO, "in", &corr, NULL), 0);
	assert_int_equal(rv_corr_compute(d, 2, M - 1, RV_CORR_AUTO, "in", &dcorr, NULL), 0);
	assert_true(fabs(rv_corr_r(corr, 0, 1)) > 0.9);
	assert_true(fabs(rv_corr_r(dcorr, 0, 1)) < 0.2);
	pi = (struct rv_prune_input){ "in", names, 2, corr, NULL };
	assert_int_equal(rv_prune_run(&pi, 1, 0.5, &r, NULL), 0);
	assert_int_equal(r->nkept, 1);
	assert_int_equal(r->ndropped, 1);
	rv_prune_free(r);
	pi.dcorr = dcorr;
	assert_int_equal(rv_prune_run(&pi, 1, 0.5, &r, NULL), 0);
	assert_int_equal(r->nkept, 2);
	assert_int_equal(r->ndropped, 0);
	rv_prune_free(r);
	rv_corr_free(corr);
	rv_corr_free(dcorr);
	free(x);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_protect),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_two_inputs),
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_metricset),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
