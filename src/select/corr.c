/*
 * corr.c - Pearson correlation of all channel pairs through BLAS. See
 * corr.h for the rules (constant channels, gaps, memory).
 *
 * Three steps: per-channel statistics in double (count, mean, spread,
 * min, max: two passes over each channel); the sums, block of rows by
 * block of rows (standardized values and 0/1 masks of the gapped channels
 * into float buffers, ssyrk/sgemm into float results added to double
 * sums); then r per pair from the sums, written over the float block
 * result, which is no longer needed.
 */
#include "select/corr.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

/* Below this share of its variance left over the shared samples a channel
 * counts as constant there (EXACT). */
#define SHARED_VAR_MIN 1e-6

struct rv_corr {
	size_t nchan, nrows, nvar, ngap;
	size_t *slot;          /* [nchan] slot among the varying, SIZE_MAX if constant */
	size_t *valid;         /* [nchan] values (not gaps) */
	double *spread;        /* [nchan] variance scaled to [0, 1] */
	float *r;              /* [nvar * nvar], both triangles */
	int exact;
	double gap_share;
};

/* The working state of one computation. */
struct work {
	const float *x;        /* the input */
	size_t N, V, G;        /* rows, varying channels, gapped ones among them */
	size_t *chan;          /* [V] input channel of each slot */
	size_t *gslot;         /* [V] index among the gapped, SIZE_MAX if none */
	size_t *gchan;         /* [G] slot of each gapped channel */
	double *mean, *inv;    /* [V] mean and 1 / sd (population) */
	double *P, *Nn, *Q, *W;   /* sums: V x V, G x G, V x G, V x G */
	float *Pf, *Nf, *Qf, *Wf; /* one block's results */
	float *Z, *Z2, *M;     /* one block: V x B, V x B (EXACT), G x B */
	int exact;
};

/* Count, mean, min and max (pass 1), spread (pass 2) of channel c. */
static void channel_stats(const float *x, size_t N, size_t *n, double *mean, double *var,
			  float *lo, float *hi)
{
	double sum = 0.0, ss = 0.0;
	size_t k = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t t = 0; t < N; t++) {
		if (!isfinite(x[t]))
			continue;
		sum += x[t];
		k++;
		*lo = x[t] < *lo ? x[t] : *lo;
		*hi = x[t] > *hi ? x[t] : *hi;
	}
	*n = k;
	*mean = k ? sum / (double)k : 0.0;
	for (size_t t = 0; t < N; t++)
		if (isfinite(x[t]))
			ss += ((double)x[t] - *mean) * ((double)x[t] - *mean);
	*var = k ? ss / (double)k : 0.0;
}

/* Statistics of every channel; fills the slots of the varying ones. */
static void all_stats(struct rv_corr *c, struct work *w)
{
	size_t gaps = 0;

	for (size_t i = 0; i < c->nchan; i++) {
		double mean, var;
		float lo, hi;

		channel_stats(w->x + i * w->N, w->N, &c->valid[i], &mean, &var, &lo, &hi);
		c->slot[i] = SIZE_MAX;
		c->spread[i] = 0.0;
		if (c->valid[i] < 2 || !(hi > lo) || !(var > 0.0))
			continue;
		c->spread[i] = var / (((double)hi - lo) * ((double)hi - lo));
		c->slot[i] = w->V;
		w->chan[w->V] = i;
		w->mean[w->V] = mean;
		w->inv[w->V] = 1.0 / sqrt(var);
		w->gslot[w->V] = SIZE_MAX;
		if (c->valid[i] < w->N) {
			w->gslot[w->V] = w->G;
			w->gchan[w->G++] = w->V;
			gaps += w->N - c->valid[i];
		}
		w->V++;
	}
	c->nvar = w->V;
	c->ngap = w->G;
	c->gap_share = w->V ? (double)gaps / ((double)w->V * (double)w->N) : 0.0;
}

/* AUTO: EXACT when a varying channel misses more than the FILL limit. */
static int choose_exact(const struct rv_corr *c, const struct work *w, enum rv_corr_gaps gaps)
{
	if (w->G == 0 || gaps == RV_CORR_FILL)
		return 0;
	if (gaps == RV_CORR_EXACT)
		return 1;
	for (size_t g = 0; g < w->G; g++) {
		size_t i = w->chan[w->gchan[g]];

		if ((double)(w->N - c->valid[i]) > RV_CORR_FILL_MAX_GAP * (double)w->N)
			return 1;
	}
	return 0;
}

static void work_free(struct work *w)
{
	free(w->chan);
	free(w->gslot);
	free(w->gchan);
	free(w->mean);
	free(w->inv);
	free(w->P);
	free(w->Nn);
	free(w->Q);
	free(w->W);
	free(w->Pf);
	free(w->Nf);
	free(w->Qf);
	free(w->Wf);
	free(w->Z);
	free(w->Z2);
	free(w->M);
}

/* calloc of a x b items of size s, NULL on overflow (or a, b zero: 1 item). */
static void *alloc2(size_t a, size_t b, size_t s)
{
	if (a && b && a > SIZE_MAX / b / s)
		return NULL;
	return calloc(a && b ? a * b : 1, s);
}

/* The sums and block buffers once V and G are known. */
static int work_buffers(struct work *w)
{
	size_t V = w->V, G = w->G, B = RV_CORR_BLOCK_ROWS;

	w->P = alloc2(V, V, sizeof(double));
	w->Pf = alloc2(V, V, sizeof(float));
	w->Z = alloc2(V, B, sizeof(float));
	w->Nn = alloc2(G, G, sizeof(double));
	w->Nf = alloc2(G, G, sizeof(float));
	w->M = alloc2(G, B, sizeof(float));
	if (!w->P || !w->Pf || !w->Z || !w->Nn || !w->Nf || !w->M)
		return -ENOMEM;
	if (!w->exact)
		return 0;
	w->Q = alloc2(V, G, sizeof(double));
	w->W = alloc2(V, G, sizeof(double));
	w->Qf = alloc2(V, G, sizeof(float));
	w->Wf = alloc2(V, G, sizeof(float));
	w->Z2 = alloc2(V, B, sizeof(float));
	return w->Q && w->W && w->Qf && w->Wf && w->Z2 ? 0 : -ENOMEM;
}

/* Rows [r0, r0 + b) into Z (standardized, 0 in a gap), Z2 and M. */
static void fill_block(struct work *w, size_t r0, size_t b)
{
	for (size_t v = 0; v < w->V; v++) {
		const float *x = w->x + w->chan[v] * w->N + r0;
		float *z = w->Z + v * b, *m = NULL;
		double mean = w->mean[v], inv = w->inv[v];

		if (w->gslot[v] != SIZE_MAX)
			m = w->M + w->gslot[v] * b;
		for (size_t t = 0; t < b; t++) {
			int ok = isfinite(x[t]);

			z[t] = ok ? (float)(((double)x[t] - mean) * inv) : 0.0f;
			if (m)
				m[t] = ok ? 1.0f : 0.0f;
		}
		if (w->exact)
			for (size_t t = 0; t < b; t++)
				w->Z2[v * b + t] = z[t] * z[t];
	}
}

/* sum += the upper triangle (or all, full) of a float n x m block. */
static void add_block(double *sum, const float *blk, size_t n, size_t m, int upper)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = upper ? i : 0; j < m; j++)
			sum[i * m + j] += blk[i * m + j];
}

/* One block of rows through BLAS into the sums. */
static void sum_block(struct work *w, size_t r0, size_t b)
{
	int V = (int)w->V, G = (int)w->G, k = (int)b;

	fill_block(w, r0, b);
	cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, V, k, 1.0f, w->Z, k, 0.0f, w->Pf, V);
	add_block(w->P, w->Pf, w->V, w->V, 1);
	if (G == 0)
		return;
	cblas_ssyrk(CblasRowMajor, CblasUpper, CblasNoTrans, G, k, 1.0f, w->M, k, 0.0f, w->Nf, G);
	add_block(w->Nn, w->Nf, w->G, w->G, 1);
	if (!w->exact)
		return;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, V, G, k, 1.0f, w->Z, k, w->M, k,
		    0.0f, w->Qf, G);
	add_block(w->Q, w->Qf, w->V, w->G, 0);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, V, G, k, 1.0f, w->Z2, k, w->M, k,
		    0.0f, w->Wf, G);
	add_block(w->W, w->Wf, w->V, w->G, 0);
}

/* Samples slots a and b (a <= b) share. */
static double pair_count(const struct rv_corr *c, const struct work *w, size_t a, size_t b)
{
	size_t ga = w->gslot[a], gb = w->gslot[b];

	if (ga != SIZE_MAX && gb != SIZE_MAX)
		return ga <= gb ? w->Nn[ga * w->G + gb] : w->Nn[gb * w->G + ga];
	if (ga != SIZE_MAX)
		return (double)c->valid[w->chan[a]];
	if (gb != SIZE_MAX)
		return (double)c->valid[w->chan[b]];
	return (double)w->N;
}

/* Pairwise-complete r of slots a and b over n shared samples. */
static double exact_r(const struct rv_corr *c, const struct work *w, size_t a, size_t b,
		      double p, double n)
{
	size_t ga = w->gslot[a], gb = w->gslot[b];
	/* sums of z_a over b's samples and of z_a^2; without gaps in b, all of a's */
	double qa = gb != SIZE_MAX ? w->Q[a * w->G + gb] : 0.0;
	double qb = ga != SIZE_MAX ? w->Q[b * w->G + ga] : 0.0;
	double wa = gb != SIZE_MAX ? w->W[a * w->G + gb] : (double)c->valid[w->chan[a]];
	double wb = ga != SIZE_MAX ? w->W[b * w->G + ga] : (double)c->valid[w->chan[b]];
	double va = wa - qa * qa / n, vb = wb - qb * qb / n;

	if (va <= SHARED_VAR_MIN * n || vb <= SHARED_VAR_MIN * n)
		return NAN;
	return (p - qa * qb / n) / sqrt(va * vb);
}

/* r of every pair from the sums, into w->Pf (becomes c->r). */
static void finish_r(struct rv_corr *c, struct work *w)
{
	size_t V = w->V;

	for (size_t a = 0; a < V; a++) {
		w->Pf[a * V + a] = 1.0f;
		for (size_t b = a + 1; b < V; b++) {
			double n = pair_count(c, w, a, b), p = w->P[a * V + b], r;
			int gapped = w->gslot[a] != SIZE_MAX || w->gslot[b] != SIZE_MAX;

			if (n < RV_CORR_MIN_PAIR)
				r = NAN;
			else if (w->exact && gapped)
				r = exact_r(c, w, a, b, p, n);
			else
				r = p / n;
			if (r > 1.0)
				r = 1.0;
			else if (r < -1.0)
				r = -1.0;
			w->Pf[a * V + b] = w->Pf[b * V + a] = (float)r;
		}
	}
	c->r = w->Pf;
	w->Pf = NULL;
}

static int corr_new(struct rv_corr **out, struct work *w, size_t nchan, size_t nrows)
{
	struct rv_corr *c = calloc(1, sizeof(*c));

	*out = c;
	if (!c)
		return -ENOMEM;
	c->nchan = nchan;
	c->nrows = nrows;
	c->slot = calloc(nchan, sizeof(*c->slot));
	c->valid = calloc(nchan, sizeof(*c->valid));
	c->spread = calloc(nchan, sizeof(*c->spread));
	w->chan = calloc(nchan, sizeof(*w->chan));
	w->gslot = calloc(nchan, sizeof(*w->gslot));
	w->gchan = calloc(nchan, sizeof(*w->gchan));
	w->mean = calloc(nchan, sizeof(*w->mean));
	w->inv = calloc(nchan, sizeof(*w->inv));
	if (!c->slot || !c->valid || !c->spread || !w->chan || !w->gslot || !w->gchan ||
	    !w->mean || !w->inv)
		return -ENOMEM;
	return 0;
}

int rv_corr_compute(const float *values, size_t nchan, size_t nrows, enum rv_corr_gaps gaps,
		    const char *name, struct rv_corr **out, struct rv_err *err)
{
	struct work w = { .x = values, .N = nrows };
	struct rv_corr *c = NULL;
	int rc;

	*out = NULL;
	name = name ? name : "correlation";
	if (nchan == 0 || nrows == 0)
		return rv_err_set(err, -EINVAL, "%s: no channel or no sample to correlate", name);
	if (nchan > RV_CORR_MAX_CHANNELS || nrows > (size_t)INT32_MAX)
		return rv_err_set(err, -EINVAL, "%s: %zu channels x %zu samples: more than %d "
				  "channels or %d samples", name, nchan, nrows,
				  RV_CORR_MAX_CHANNELS, INT32_MAX);
	rc = corr_new(&c, &w, nchan, nrows);
	if (rc == 0) {
		all_stats(c, &w);
		w.exact = c->exact = choose_exact(c, &w, gaps);
		rc = work_buffers(&w);
	}
	if (rc == 0) {
		for (size_t r0 = 0; w.V && r0 < nrows; r0 += RV_CORR_BLOCK_ROWS)
			sum_block(&w, r0, nrows - r0 < RV_CORR_BLOCK_ROWS ? nrows - r0
									: RV_CORR_BLOCK_ROWS);
		finish_r(c, &w);
	}
	work_free(&w);
	if (rc) {
		rv_corr_free(c);
		return rv_err_set(err, rc, "%s: out of memory correlating %zu channels", name,
				  nchan);
	}
	*out = c;
	return 0;
}

void rv_corr_free(struct rv_corr *c)
{
	if (!c)
		return;
	free(c->slot);
	free(c->valid);
	free(c->spread);
	free(c->r);
	free(c);
}

size_t rv_corr_nchan(const struct rv_corr *c)
{
	return c->nchan;
}

size_t rv_corr_nvarying(const struct rv_corr *c)
{
	return c->nvar;
}

int rv_corr_constant(const struct rv_corr *c, size_t i)
{
	return i >= c->nchan || c->slot[i] == SIZE_MAX;
}

float rv_corr_r(const struct rv_corr *c, size_t i, size_t j)
{
	if (rv_corr_constant(c, i) || rv_corr_constant(c, j))
		return NAN;
	return c->r[c->slot[i] * c->nvar + c->slot[j]];
}

size_t rv_corr_valid(const struct rv_corr *c, size_t i)
{
	return i < c->nchan ? c->valid[i] : 0;
}

double rv_corr_spread(const struct rv_corr *c, size_t i)
{
	return i < c->nchan ? c->spread[i] : 0.0;
}

int rv_corr_exact(const struct rv_corr *c)
{
	return c->exact;
}

double rv_corr_gap_share(const struct rv_corr *c)
{
	return c->gap_share;
}
