/*
 * fleet_bench.c - what one window of `reveal fleet`'s straggler analysis
 * costs (issue 16, acceptance 4): a group of simulated nodes, by default
 * 1,000 nodes x 400 channels, pushed window after window into one
 * struct rv_strag (fleet/straggler.h), each push timed; then the same
 * windows through the one-shot rv_strag_window. Prints the milliseconds
 * per window (median, 95th percentile, worst) and whether the analysis
 * keeps up with 1-second windows, and which nodes were found (the planted
 * stragglers, and nothing else, is the check that the work was real).
 *
 *   cmake --build build --target fleet_bench
 *   build/fleet_bench [NODES [CHANNELS [WINDOWS]]]     (1000 400 200)
 *
 * The simulated telemetry is built to look like a job's, not like white
 * noise: channel levels spread over nine decades (bytes next to
 * percentages), a tenth of the channels constant 0 on every node (error
 * counters) and a twentieth constant elsewhere (sizes), a twentieth exact
 * copies of others (one quantity under two names), moves shared by all
 * nodes that drift from window to window (the job's phases), a load
 * factor per node and window shared by a block of 40 channels (correlated
 * channels), own noise, 0.1 % missing values, and three stragglers out of
 * step on ten channels each from the 50th window on. Exits 1 when the
 * stragglers found are not exactly those three.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/rng.h"
#include "base/stats.h"
#include "fleet/straggler.h"

enum { NSTRAG = 3, STRAG_CHANS = 10, ONSET = 50, BLOCK = 40, MIN_NODES = 10 };

struct group {
	size_t n, c;
	size_t strag[NSTRAG];        /* the planted stragglers */
	double *x, *level, *phase;   /* [n * c], [c], [c] */
	int *kind;                   /* [c]: 0 varies, 1 zero, 2 constant, 3 copy */
	struct rv_rng rng;
};

static double gauss(struct rv_rng *r)
{
	double u = rv_rng_uniform(r), v = rv_rng_uniform(r);

	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int group_init(struct group *g, size_t n, size_t c)
{
	*g = (struct group){ .n = n, .c = c,
			     .strag = { n / 7, n / 2, n - 1 - n / 11 } };
	rv_rng_seed(&g->rng, 42);
	g->x = malloc(n * c * sizeof(*g->x));
	g->level = malloc(c * sizeof(*g->level));
	g->phase = calloc(c, sizeof(*g->phase));
	g->kind = malloc(c * sizeof(*g->kind));
	if (!g->x || !g->level || !g->phase || !g->kind)
		return -1;
	for (size_t ch = 0; ch < c; ch++) {
		double u = rv_rng_uniform(&g->rng);

		g->level[ch] = pow(10.0, 9.0 * rv_rng_uniform(&g->rng));
		g->kind[ch] = u < 0.10 ? 1 : u < 0.15 ? 2 : (u < 0.20 && ch > 0) ? 3 : 0;
	}
	return 0;
}

static void group_fini(struct group *g)
{
	free(g->x);
	free(g->level);
	free(g->phase);
	free(g->kind);
}

/* One node's row of window w. */
static void node_row(struct group *g, size_t i, size_t w)
{
	double *row = g->x + i * g->c, load = 0;
	int strag = 0;

	for (size_t k = 0; k < NSTRAG; k++)
		strag |= g->strag[k] == i && w >= ONSET;
	for (size_t ch = 0; ch < g->c; ch++) {
		if (ch % BLOCK == 0)
			load = 0.05 * gauss(&g->rng);
		switch (g->kind[ch]) {
		case 1: row[ch] = 0; break;
		case 2: row[ch] = g->level[ch]; break;
		case 3: row[ch] = row[ch - 1]; break;
		default:
			row[ch] = g->level[ch] * (1.0 + g->phase[ch] + load +
						  0.05 * gauss(&g->rng));
		}
		if (strag && ch % (g->c / STRAG_CHANS) == 1)
			row[ch] *= 1.6;
		if (rv_rng_uniform(&g->rng) < 0.001)
			row[ch] = NAN;
	}
}

static void group_window(struct group *g, size_t w)
{
	for (size_t ch = 0; ch < g->c; ch++)
		g->phase[ch] = 0.9 * g->phase[ch] + 0.05 * gauss(&g->rng);
	for (size_t i = 0; i < g->n; i++)
		node_row(g, i, w);
}

static void report(const char *what, double *ms, size_t n)
{
	double med = rv_quantile_inplace(ms, n, 0.5);
	double p95 = rv_quantile_inplace(ms, n, 0.95);
	double worst = rv_quantile_inplace(ms, n, 1.0);

	printf("%-28s median %7.2f ms  p95 %7.2f ms  worst %7.2f ms  %s 1 s windows\n",
	       what, med, p95, worst, p95 < 1000.0 ? "keeps up with" : "FALLS BEHIND");
}

/* The nodes found; 0 when they are exactly the planted stragglers. */
static int check_found(const struct rv_strag *s, const struct group *g)
{
	struct rv_strag_finding f[16];
	size_t nf = rv_strag_findings(s, f, 16), ok = 0;

	printf("stragglers found:");
	for (size_t k = 0; k < nf && k < 16; k++) {
		printf(" node %zu (windows %zu..%zu, peak %.1f)", f[k].node, f[k].first,
		       f[k].last, f[k].peak);
		for (size_t j = 0; j < NSTRAG; j++)
			ok += f[k].node == g->strag[j];
	}
	printf("\n");
	return nf == NSTRAG && ok == NSTRAG ? 0 : 1;
}

static size_t arg(int argc, char **argv, int i, size_t def)
{
	return argc > i ? strtoul(argv[i], NULL, 10) : def;
}

static int run(size_t n, size_t c, size_t nw)
{
	struct group g = { 0 };
	struct rv_strag *s = NULL;
	struct rv_err err = { 0 };
	double *ms = malloc(2 * nw * sizeof(*ms)), *med = malloc(c * sizeof(*med));
	double *sp = malloc(c * sizeof(*sp)), *score = malloc(n * sizeof(*score));
	int rc = 2;

	if (!ms || !med || !sp || !score || group_init(&g, n, c) ||
	    rv_strag_new(n, c, NULL, &s, &err)) {
		fprintf(stderr, "fleet_bench: %s\n", err.code ? rv_err_text(&err, err.code) :
			"out of memory");
		goto out;
	}
	printf("fleet_bench: %zu nodes x %zu channels, %zu windows\n", n, c, nw);
	for (size_t w = 0; w < nw; w++) {
		double t0;

		group_window(&g, w);
		t0 = now_ms();
		rv_strag_push(s, (double)w, g.x, NULL);
		ms[w] = now_ms() - t0;
		t0 = now_ms();
		rv_strag_window(g.x, n, c, NULL, NULL, med, sp, score, NULL, NULL);
		ms[nw + w] = now_ms() - t0;
	}
	report("rv_strag_push (per window)", ms, nw);
	report("rv_strag_window (one-shot)", ms + nw, nw);
	rc = check_found(s, &g);
out:
	rv_strag_free(s);
	group_fini(&g);
	free(ms);
	free(med);
	free(sp);
	free(score);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n = arg(argc, argv, 1, 1000), c = arg(argc, argv, 2, 400);
	size_t nw = arg(argc, argv, 3, 200);

	if (n < MIN_NODES || c < STRAG_CHANS * 2 || nw < ONSET + 20) {
		fprintf(stderr, "fleet_bench: want NODES >= %d, CHANNELS >= %d, "
			"WINDOWS >= %d\n", MIN_NODES, STRAG_CHANS * 2, ONSET + 20);
		return 2;
	}
	return run(n, c, nw);
}
