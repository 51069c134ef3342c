/*
 * run.c - scoring a test table with a fitted model (rv_model_run).
 *
 * Windows are scored in blocks: inside a block every window is independent
 * (features -> ensemble score -> attribution -> ranking), so the block is
 * split over the cores; then the block's windows go, in order, through the
 * incident merger and the delay line to the sink. Buffers are sized once per
 * run (a block of RUN_BLOCK windows), so memory does not grow with the
 * length of the input, and the output is the same for any thread count.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/parallel.h"
#include "features/window.h"
#include "pipeline/delay.h"
#include "pipeline/detect.h"

/* Windows per block: a multiple of RV_ENS_BATCH. */
enum { RUN_BLOCK = 16 * RV_ENS_BATCH };
/* Channel counts ranked by insertion sort rather than qsort. */
enum { RANK_INSERTION_MAX = 64 };

struct ranked {
	double w;
	uint32_t c;
};

/* Per-thread scratch. */
struct worker {
	float *raw;
	struct ranked *rk;
	struct rv_ens_scratch *scratch;
};

struct block {
	const struct rv_model *m;
	const struct rv_table *test;
	const struct rv_featmat *fm;
	size_t first;                    /* window index of the block's slot 0 */
	size_t n;                        /* windows in the block */
	struct rv_ens_result *res;       /* RUN_BLOCK */
	double *weight;                  /* RUN_BLOCK x nchan */
	uint32_t *rank;                  /* RUN_BLOCK x nchan */
	enum rv_subsystem *subsystem;    /* RUN_BLOCK */
	struct worker w[RV_PARALLEL_MAX];
	unsigned threads;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return (x->c > y->c) - (x->c < y->c);
}

/* Ranks channels by weight (ties by index) into rank; returns the subsystem
 * carrying the largest summed weight. */
static enum rv_subsystem rank_channels(const struct rv_model *m, const double *weight,
				       struct ranked *rk, uint32_t *rank)
{
	double sub_w[RV_SUB_COUNT] = { 0 };
	enum rv_subsystem best = RV_SUB_OTHER;

	for (size_t c = 0; c < m->nchan; c++) {
		rk[c].w = weight[c];
		rk[c].c = (uint32_t)c;
		sub_w[rv_catalog_subsystem(m->names[c])] += weight[c];
	}
	if (m->nchan <= RANK_INSERTION_MAX) {
		/* Few channels: an insertion sort beats qsort's indirect calls. */
		for (size_t i = 1; i < m->nchan; i++) {
			struct ranked v = rk[i];
			size_t j = i;
			for (; j > 0 && cmp_ranked(&rk[j - 1], &v) > 0; j--)
				rk[j] = rk[j - 1];
			rk[j] = v;
		}
	} else {
		qsort(rk, m->nchan, sizeof(*rk), cmp_ranked);
	}
	for (size_t c = 0; c < m->nchan; c++)
		rank[c] = rk[c].c;
	for (int s = 0; s < RV_SUB_COUNT; s++)
		if (sub_w[s] > sub_w[best])
			best = (enum rv_subsystem)s;
	return best;
}

/* Scores the batches [begin, end) of the block. Work is split by whole
 * batches so that a window always shares its batch with the same others:
 * the matrix products then round alike for any thread count. */
static int score_slice(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct block *b = ctx;
	const struct rv_model *m = b->m;
	struct worker *wk = &b->w[slot];
	size_t nraw = m->nchan * m->nraw_pts;

	for (size_t i0 = begin * RV_ENS_BATCH; i0 < end * RV_ENS_BATCH && i0 < b->n;
	     i0 += RV_ENS_BATCH) {
		size_t n = b->n - i0 < RV_ENS_BATCH ? b->n - i0 : RV_ENS_BATCH;
		size_t w0 = b->first + i0;

		for (size_t i = 0; nraw && i < n; i++)
			rv_model_raw_row(m, b->test, b->fm->end_row[w0 + i], wk->raw + i * nraw);
		rv_ens_score_batch(m->ens, b->fm->x + w0 * b->fm->nfeat, b->fm->nfeat, wk->raw, nraw,
				   n, wk->scratch, &b->res[i0]);
		for (size_t i = i0; i < i0 + n; i++) {
			double *weight = b->weight + i * m->nchan;
			size_t w = b->first + i;

			rv_ens_explain(m->ens, b->fm->x + w * b->fm->nfeat, wk->raw + (i - i0) * nraw,
				       wk->scratch, &b->res[i], weight);
			if (b->res[i].anomaly || b->res[i].flags)
				b->subsystem[i] = rank_channels(m, weight, wk->rk,
								b->rank + i * m->nchan);
		}
	}
	return 0;
}

static void block_free(struct block *b)
{
	for (unsigned t = 0; t < RV_PARALLEL_MAX; t++) {
		free(b->w[t].raw);
		free(b->w[t].rk);
		rv_ens_scratch_free(b->w[t].scratch);
	}
	free(b->res);
	free(b->weight);
	free(b->rank);
	free(b->subsystem);
	memset(b, 0, sizeof(*b));
}

static int block_alloc(struct block *b, const struct rv_model *m, unsigned threads)
{
	size_t nraw = m->nchan * m->nraw_pts;

	memset(b, 0, sizeof(*b));
	b->m = m;
	b->threads = threads;
	b->res = calloc(RUN_BLOCK, sizeof(*b->res));
	b->weight = calloc((size_t)RUN_BLOCK * m->nchan, sizeof(*b->weight));
	b->rank = calloc((size_t)RUN_BLOCK * m->nchan, sizeof(*b->rank));
	b->subsystem = calloc(RUN_BLOCK, sizeof(*b->subsystem));
	if (!b->res || !b->weight || !b->rank || !b->subsystem)
		return -ENOMEM;
	for (unsigned t = 0; t < threads; t++) {
		b->w[t].raw = malloc(RV_ENS_BATCH * (nraw ? nraw : 1) * sizeof(float));
		b->w[t].rk = malloc(m->nchan * sizeof(struct ranked));
		b->w[t].scratch = rv_ens_scratch_new(m->ens);
		if (!b->w[t].raw || !b->w[t].rk || !b->w[t].scratch)
			return -ENOMEM;
	}
	return 0;
}

static void count_window(struct rv_detect_stats *st, const struct rv_ens_result *res)
{
	if (!st)
		return;
	st->windows++;
	for (int d = 0; d < RV_DET_COUNT; d++)
		st->det_flagged[d] += (res->flags >> d) & 1u;
}

/* Hands the scored windows of a block, in order, to merger and delay line. */
static int drain_block(struct block *b, size_t n, const struct rv_sink *sink,
		       struct rv_incmerge *mg, struct rv_delay *dl, struct rv_detect_stats *st)
{
	const struct rv_model *m = b->m;
	size_t min = rv_incmerge_min_windows(mg);

	for (size_t i = 0; i < n; i++) {
		const struct rv_ens_result *res = &b->res[i];
		size_t w = b->first + i;
		struct rv_window_out out = { .index = w, .res = res, .rank = b->rank + i * m->nchan };
		int flagged = res->anomaly || res->flags, rc;

		out.ts = b->test->ts ? b->test->ts[b->fm->end_row[w]] : (double)b->fm->end_row[w];
		out.nrank = flagged ? m->nchan : 0;
		out.subsystem = flagged ? b->subsystem[i] : RV_SUB_OTHER;
		count_window(st, res);
		rc = rv_incmerge_push(mg, w, out.ts, res->anomaly, res->fused, res->flags,
				      b->weight + i * m->nchan);
		if (rc)
			return rc;
		rv_delay_push(dl, &out, m->nchan);
		if ((rc = rv_delay_flush(dl, mg, min, sink, 0)) != 0)
			return rc;
	}
	return 0;
}

static int score_windows(struct block *b, const struct rv_sink *sink, struct rv_incmerge *mg,
			 struct rv_delay *dl, struct rv_detect_stats *st)
{
	int rc = 0;

	for (b->first = 0; b->first < b->fm->nwin && !rc; b->first += RUN_BLOCK) {
		size_t n = b->fm->nwin - b->first < RUN_BLOCK ? b->fm->nwin - b->first : RUN_BLOCK;

		b->n = n;
		rc = rv_parallel_for((n + RV_ENS_BATCH - 1) / RV_ENS_BATCH, b->threads, score_slice, b);
		if (!rc)
			rc = drain_block(b, n, sink, mg, dl, st);
	}
	if (rc)
		return rc;
	if (rv_incmerge_finish(mg) != 0)
		return -ENOMEM;
	return rv_delay_flush(dl, mg, rv_incmerge_min_windows(mg), sink, 1);
}

static void count_incidents(const struct rv_incmerge *mg, struct rv_detect_stats *st)
{
	for (size_t i = 0; st && i < rv_incmerge_count(mg); i++) {
		const struct rv_incident *inc = rv_incmerge_get(mg, i);
		st->flagged += inc->last_win - inc->first_win + 1;
	}
}

int rv_model_run(const struct rv_model *m, const struct rv_table *test, const struct rv_sink *sink,
		 struct rv_incmerge *mg, unsigned threads, struct rv_detect_stats *st,
		 struct rv_err *err)
{
	struct rv_delay dl = { 0 };
	struct rv_featmat fm;
	struct block b;
	rv_ns t0;
	int rc, blas;

	if ((rc = rv_model_check_table(m, test, err)) != 0)
		return rc;
	t0 = rv_clock_ns();
	rc = rv_featmat_build_mt(test->values, test->nrows, test->ncols, m->masks, m->window,
				 m->step, threads, &fm, err);
	if (st)
		st->features_s += rv_clock_since_s(t0);
	if (rc)
		return rc;
	threads = threads < 1 ? 1 : threads > RV_PARALLEL_MAX ? RV_PARALLEL_MAX : threads;
	rc = block_alloc(&b, m, threads);
	if (!rc)
		rc = rv_delay_init(&dl, m, rv_incmerge_max_gap(mg), rv_incmerge_min_windows(mg));
	if (!rc) {
		b.test = test;
		b.fm = &fm;
		blas = rv_ens_blas_threads(1);
		t0 = rv_clock_ns();
		rc = score_windows(&b, sink, mg, &dl, st);
		if (st)
			st->score_s += rv_clock_since_s(t0);
		rv_ens_blas_threads(blas);
	}
	count_incidents(mg, st);
	rv_delay_fini(&dl);
	block_free(&b);
	rv_featmat_fini(&fm);
	return rc;
}
