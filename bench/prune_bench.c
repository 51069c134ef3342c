/*
 * prune_bench.c - what `reveal prune` costs on one input (issue 17,
 * acceptance 4): the correlation of 700 channels x 18,000 samples (30
 * minutes at 100 ms) through select/corr.h, timed run by run, with the
 * process's peak resident memory; then the same with gaps handled
 * pairwise-complete (EXACT), and the greedy pruning of the result.
 * Goal: <= 2 s and <= 256 MiB on a 2-core machine.
 *
 *   cmake --build build --target prune_bench
 *   build/prune_bench [CHANNELS [SAMPLES [RUNS]]]      (700 18000 5)
 *
 * The data look like a host's, not white noise: channels in groups that
 * follow one of 60 latent phases (slow AR(1) series: the job's steps)
 * with a weight and noise of their own, levels and scales spread over
 * nine decades (bytes next to percentages), 8 % constant (sizes, idle
 * error counters), a tenth missing 0.5 % of their samples at random, and
 * every channel missing the same 2 s (20 samples: the collector stalled).
 * The peak RSS includes the input itself (CHANNELS x SAMPLES float32,
 * 48 MiB by default), as `reveal prune` holds one input at a time.
 * Exits 1 when the result is wrong: a channel constant by construction
 * not reported so, or two channels built as exact copies not at r = 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>

#include "base/rng.h"
#include "select/corr.h"
#include "select/prune.h"
#include "select/select_testutil.h"

enum { LATENT = 60, NAME_MAX_LEN = 48, HOLE = 20, MAX_RUNS = 100 };

#define AR_KEEP 0.995      /* latent phases: AR(1), slow */
#define CONST_SHARE 0.08
#define GAPPY_SHARE 0.10
#define GAP_SHARE 0.005

struct data {
	size_t C, N;
	float *x;
	char (*names)[NAME_MAX_LEN];
	int *constant;      /* by construction */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

/* Slow latent series of unit variance. */
static void phases(double *lat, size_t N, struct rv_rng *g)
{
	double sd = sqrt(1.0 - AR_KEEP * AR_KEEP);

	for (size_t k = 0; k < LATENT; k++) {
		double v = st_gauss(g);

		for (size_t t = 0; t < N; t++) {
			v = AR_KEEP * v + sd * st_gauss(g);
			lat[k * N + t] = v;
		}
	}
}

/* One channel c: constant, a copy of channel 0, or a phase with noise. */
static void channel(struct data *d, size_t c, const double *lat, struct rv_rng *g)
{
	float *x = d->x + c * d->N;
	double scale = pow(10.0, (double)rv_rng_below(g, 9));
	double a = 0.3 + rv_rng_uniform(g), s = 0.05 + 0.6 * rv_rng_uniform(g);

	snprintf(d->names[c], NAME_MAX_LEN, "x.ch%04zu", c);
	if (rv_rng_uniform(g) < CONST_SHARE) {
		d->constant[c] = 1;
		for (size_t t = 0; t < d->N; t++)
			x[t] = (float)scale;
		return;
	}
	if (c == 1 && !d->constant[0]) {
		memcpy(x, d->x, sizeof(float) * d->N);
		return;
	}
	st_mix(x, lat + rv_rng_below(g, LATENT) * d->N, d->N, a * scale, s * scale,
	       3.0 * scale, g);
	if (rv_rng_uniform(g) < GAPPY_SHARE)
		for (size_t k = 0; k < (size_t)(GAP_SHARE * (double)d->N); k++)
			x[rv_rng_below(g, d->N)] = NAN;
}

static int make_data(struct data *d)
{
	double *lat = malloc(sizeof(double) * LATENT * d->N);
	struct rv_rng g;

	d->x = malloc(sizeof(float) * d->C * d->N);
	d->names = calloc(d->C, sizeof(*d->names));
	d->constant = calloc(d->C, sizeof(*d->constant));
	if (!lat || !d->x || !d->names || !d->constant) {
		free(lat);
		return -1;
	}
	rv_rng_seed(&g, 17);
	phases(lat, d->N, &g);
	for (size_t c = 0; c < d->C; c++)
		channel(d, c, lat, &g);
	for (size_t c = 0; c < d->C && d->N > 2 * HOLE; c++)
		if (!d->constant[c])
			for (size_t t = d->N / 2; t < d->N / 2 + HOLE; t++)
				d->x[c * d->N + t] = NAN;
	free(lat);
	return 0;
}

/* Times runs of one gap mode; 0, or -1 when the result is wrong. */
static int time_mode(const struct data *d, enum rv_corr_gaps mode, const char *what, int runs,
		     struct rv_corr **keep, double *worst)
{
	double best = INFINITY, sum = 0.0;

	*worst = 0.0;
	for (int i = 0; i < runs; i++) {
		struct rv_corr *c = NULL;
		struct rv_err err;
		double t0 = now_s(), dt;

		if (rv_corr_compute(d->x, d->C, d->N, mode, "bench", &c, &err) != 0) {
			fprintf(stderr, "prune_bench: %s\n", err.msg);
			return -1;
		}
		dt = now_s() - t0;
		printf("  %s run %d: %.3f s (%s, %zu of %zu channels vary, gaps %.2f %%)\n", what,
		       i + 1, dt, rv_corr_exact(c) ? "pairwise-complete" : "mean-filled",
		       rv_corr_nvarying(c), d->C, 100.0 * rv_corr_gap_share(c));
		best = dt < best ? dt : best;
		*worst = dt > *worst ? dt : *worst;
		sum += dt;
		for (size_t k = 0; k < d->C; k++)
			if (rv_corr_constant(c, k) != d->constant[k]) {
				fprintf(stderr, "prune_bench: channel %zu: constant %d, built %d\n", k,
					rv_corr_constant(c, k), d->constant[k]);
				return -1;
			}
		if (!d->constant[0] && fabsf(rv_corr_r(c, 0, 1) - 1.0f) > 1e-4f) {
			fprintf(stderr, "prune_bench: a copy has r %g\n", rv_corr_r(c, 0, 1));
			return -1;
		}
		if (i == runs - 1 && keep)
			*keep = c;
		else
			rv_corr_free(c);
	}
	printf("%s: best %.3f s, mean %.3f s over %d runs; peak RSS so far %.0f MiB\n", what,
	       best, sum / runs, runs, peak_mib());
	return 0;
}

/* The greedy pruning of one input's correlation, timed. */
static int time_prune(const struct data *d, const struct rv_corr *c)
{
	const char **names = malloc(sizeof(*names) * d->C);
	struct rv_prune_input in = { "bench", names, d->C, c };
	struct rv_prune_result *r = NULL;
	struct rv_err err;
	double t0;

	if (!names)
		return -1;
	for (size_t k = 0; k < d->C; k++)
		names[k] = d->names[k];
	t0 = now_s();
	if (rv_prune_run(&in, 1, RV_PRUNE_THRESHOLD, &r, &err) != 0) {
		fprintf(stderr, "prune_bench: %s\n", err.msg);
		free(names);
		return -1;
	}
	printf("prune at |r| > %g: %.3f s: %zu kept, %zu dropped, %zu constant\n",
	       RV_PRUNE_THRESHOLD, now_s() - t0, r->nkept, r->ndropped, r->nconstant);
	rv_prune_free(r);
	free(names);
	return 0;
}

int main(int argc, char **argv)
{
	struct data d = { .C = 700, .N = 18000 };
	struct rv_corr *c = NULL;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int runs = 5, rc = 0;
	double auto_peak, auto_worst = 0.0, exact_worst = 0.0;

	if (argc > 1)
		d.C = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		d.N = strtoul(argv[2], NULL, 10);
	if (argc > 3)
		runs = atoi(argv[3]);
	if (d.C < 2 || d.N < 100 || runs < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: prune_bench [CHANNELS>=2 [SAMPLES>=100 [RUNS 1..%d]]]\n",
			MAX_RUNS);
		return 2;
	}
	openblas_set_num_threads(cpus > 0 ? (int)cpus : 1);
	if (make_data(&d) != 0) {
		fprintf(stderr, "prune_bench: out of memory\n");
		return 1;
	}
	printf("prune_bench: %zu channels x %zu samples, %ld CPUs; input %.0f MiB, peak RSS "
	       "after building it %.0f MiB\n", d.C, d.N, cpus,
	       (double)(d.C * d.N * sizeof(float)) / 1048576.0, peak_mib());
	if (time_mode(&d, RV_CORR_AUTO, "auto", runs, NULL, &auto_worst) != 0)
		rc = 1;
	auto_peak = peak_mib();
	if (rc == 0 && time_mode(&d, RV_CORR_EXACT, "exact", runs, &c, &exact_worst) != 0)
		rc = 1;
	if (rc == 0 && time_prune(&d, c) != 0)
		rc = 1;
	if (rc == 0)
		printf("goal <= 2 s and <= 256 MiB: auto worst %.3f s, peak %.0f MiB: %s; "
		       "exact worst %.3f s, peak %.0f MiB: %s\n", auto_worst, auto_peak,
		       auto_worst <= 2.0 && auto_peak <= 256.0 ? "met" : "MISSED", exact_worst,
		       peak_mib(), exact_worst <= 2.0 && peak_mib() <= 256.0 ? "met" : "MISSED");
	rv_corr_free(c);
	free(d.x);
	free(d.names);
	free(d.constant);
	return rc;
}
