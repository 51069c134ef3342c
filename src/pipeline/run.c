/*
 * run.c - scoring a test table with a fitted model (rv_model_run).
 *
 * Windows are scored in blocks: inside a block every window is independent
 * (features -> ensemble score -> novelty -> attribution -> ranking), so the
 * block is split over the cores; then the block's windows go, in order,
 * through the incident merger and the delay line to the sink. Buffers are
 * sized once per run (a block of RUN_BLOCK windows), so memory does not grow
 * with the length of the input, and the output is the same for any thread
 * count.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/parallel.h"
#include "features/window.h"
#include "pipeline/delay.h"
#include "pipeline/model.h"
#include "pipeline/kept.h"
#include "pipeline/level.h"
#include "pipeline/novelty.h"
#include "pipeline/rank.h"

/* Windows per block: a multiple of RV_ENS_BATCH. */
enum { RUN_BLOCK = 16 * RV_ENS_BATCH };


/* Per-thread scratch. */
struct worker {
	float *feat;                     /* RV_ENS_BATCH feature rows */
	double *fscratch;                /* for rv_featmat_rows */
	float *raw;
	double *nratio;                  /* the novelty's per-channel ratios */
	double *lratio;                  /* the levels' per-channel ratios */
	struct rv_ranked *rk;
	struct rv_ens_scratch *scratch;
};

/* A scored block of windows. */
struct results {
	size_t first;                    /* window index of slot 0 */
	size_t n;                        /* windows in the block */
	struct rv_ens_result *res;       /* RUN_BLOCK */
	double *weight;                  /* RUN_BLOCK x nchan */
	uint32_t *rank;                  /* RUN_BLOCK x nchan */
	enum rv_subsystem *subsystem;    /* RUN_BLOCK */
};

/*
 * Two result buffers: while the workers score block k into one, the
 * drainer thread hands block k - 1 from the other to the merger, the delay
 * line and the sink (the serial part of a run) in order.
 */
struct block {
	const struct rv_model *m;
	const struct rv_table *test;
	size_t nwin, nfeat;              /* test windows, features per window */
	uint8_t *chan_sub;               /* enum rv_subsystem of each channel */
	struct rv_kept kept;             /* the kept-memory channels (kept.h) */
	struct results buf[2];
	struct results *cur;             /* the buffer being scored */
	struct worker w[RV_PARALLEL_MAX];
	unsigned threads;
};

/* Scores the batches [begin, end) of the block. Work is split by whole
 * batches so that a window always shares its batch with the same others:
 * the matrix products then round alike for any thread count. */
/* Input row of the last sample of window w. */
static size_t end_row(const struct rv_model *m, size_t w)
{
	return w * m->step + m->window - 1;
}

static int score_slice(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct block *b = ctx;
	const struct rv_model *m = b->m;
	struct worker *wk = &b->w[slot];
	struct results *r = b->cur;
	size_t nraw = m->nchan * m->nraw_pts;

	for (size_t i0 = begin * RV_ENS_BATCH; i0 < end * RV_ENS_BATCH && i0 < r->n;
	     i0 += RV_ENS_BATCH) {
		size_t n = r->n - i0 < RV_ENS_BATCH ? r->n - i0 : RV_ENS_BATCH;
		size_t w0 = r->first + i0;

		/* Features are computed here, a batch at a time, not as a matrix
		 * of the whole input: they stay in cache for the scoring. */
		rv_featmat_rows(b->test->values, b->test->nrows, m->nchan, m->masks, m->flat_below,
				m->window, m->step, w0, w0 + n, wk->feat, wk->fscratch);
		for (size_t i = 0; nraw && i < n; i++)
			rv_model_raw_row(m, b->test, end_row(m, w0 + i), wk->raw + i * nraw);
		rv_ens_score_batch(m->ens, wk->feat, b->nfeat, wk->raw, nraw, n, wk->scratch,
				   &r->res[i0]);
		for (size_t i = i0; i < i0 + n; i++) {
			double *weight = r->weight + i * m->nchan;

			rv_novelty_score(m, b->test->values, b->test->nrows,
					 (r->first + i) * m->step, &r->res[i], wk->nratio);
			rv_level_score(m, b->test->values, b->test->nrows, (r->first + i) * m->step,
				       &r->res[i], wk->lratio);
			rv_ens_explain_batch_row(m->ens, wk->feat + (i - i0) * b->nfeat,
						 wk->raw + (i - i0) * nraw, wk->scratch, i - i0,
						 &r->res[i], weight);
			{
				/* the reference sample of kept memory, as the agent's ring
				 * gives it: lookback samples before the window's newest */
				size_t last = end_row(m, r->first + i);
				size_t ref = last > b->kept.lookback ? last - b->kept.lookback : 0;

				rv_kept_attribute(&b->kept, m, b->test->values, b->test->nrows,
						  (r->first + i) * m->step, b->test->values + ref,
						  b->test->nrows, &r->res[i], weight);
			}
			rv_novelty_attribute(m, wk->nratio, &r->res[i], weight);
			rv_level_attribute(m, wk->lratio, &r->res[i], weight);
			if (r->res[i].anomaly || r->res[i].flags)
				r->subsystem[i] = rv_rank_channels(m->nchan, b->chan_sub, weight,
								   wk->rk, r->rank + i * m->nchan);
		}
	}
	return 0;
}

static void results_free(struct results *r)
{
	free(r->res);
	free(r->weight);
	free(r->rank);
	free(r->subsystem);
}

static int results_alloc(struct results *r, size_t nchan)
{
	r->res = calloc(RUN_BLOCK, sizeof(*r->res));
	r->weight = calloc((size_t)RUN_BLOCK * nchan, sizeof(*r->weight));
	r->rank = calloc((size_t)RUN_BLOCK * nchan, sizeof(*r->rank));
	r->subsystem = calloc(RUN_BLOCK, sizeof(*r->subsystem));
	return r->res && r->weight && r->rank && r->subsystem ? 0 : -ENOMEM;
}

static void block_free(struct block *b)
{
	for (unsigned t = 0; t < RV_PARALLEL_MAX; t++) {
		free(b->w[t].feat);
		free(b->w[t].fscratch);
		free(b->w[t].raw);
		free(b->w[t].nratio);
		free(b->w[t].lratio);
		free(b->w[t].rk);
		rv_ens_scratch_free(b->w[t].scratch);
	}
	results_free(&b->buf[0]);
	results_free(&b->buf[1]);
	free(b->chan_sub);
	rv_kept_fini(&b->kept);
	memset(b, 0, sizeof(*b));
}

static int block_alloc(struct block *b, const struct rv_model *m, unsigned threads)
{
	size_t nraw = m->nchan * m->nraw_pts;

	memset(b, 0, sizeof(*b));
	b->m = m;
	b->threads = threads;
	if (results_alloc(&b->buf[0], m->nchan) || results_alloc(&b->buf[1], m->nchan))
		return -ENOMEM;
	/* Channel names are parsed once here, not per flagged window. */
	if (!(b->chan_sub = malloc(m->nchan)))
		return -ENOMEM;
	for (size_t c = 0; c < m->nchan; c++)
		b->chan_sub[c] = (uint8_t)rv_catalog_subsystem(m->names[c]);
	if (rv_kept_init(&b->kept, m) != 0)
		return -ENOMEM;
	b->nfeat = rv_featmat_width(m->nchan, m->masks);
	for (unsigned t = 0; t < threads; t++) {
		b->w[t].feat = malloc(RV_ENS_BATCH * b->nfeat * sizeof(float));
		b->w[t].fscratch = malloc(rv_featmat_scratch_len(m->nchan, m->masks, m->window) *
					  sizeof(double));
		if (!b->w[t].feat || !b->w[t].fscratch)
			return -ENOMEM;
		b->w[t].raw = malloc(RV_ENS_BATCH * (nraw ? nraw : 1) * sizeof(float));
		b->w[t].nratio = malloc((m->nov.n ? m->nov.n : 1) * sizeof(double));
		b->w[t].lratio = malloc((m->lvl.n ? m->lvl.n : 1) * sizeof(double));
		b->w[t].rk = malloc(m->nchan * sizeof(struct rv_ranked));
		if (rv_ens_scratch_new(m->ens, &b->w[t].scratch) != 0)
			return -ENOMEM;
		if (!b->w[t].raw || !b->w[t].nratio || !b->w[t].lratio || !b->w[t].rk ||
		    !b->w[t].scratch)
			return -ENOMEM;
	}
	return 0;
}

static void count_window(struct rv_detect_stats *st, const struct rv_ens_result *res)
{
	if (!st)
		return;
	st->windows++;
	st->novel_flagged += res->novel != 0;
	st->level_flagged += res->leveled != 0;
	for (int d = 0; d < RV_DET_MAX; d++)
		st->det_flagged[d] += (res->flags >> d) & 1u;
}

/* The serial stage: the scored windows of one block, in order, to the
 * merger and the delay line (and through it to the sink). */
struct drain {
	const struct block *b;
	const struct results *r;
	const struct rv_sink *sink;
	struct rv_incmerge *mg;
	struct rv_delay *dl;
	struct rv_detect_stats *st;
	int rc;
	pthread_t tid;
	int running;
};

static void drain_results(struct drain *d)
{
	const struct rv_model *m = d->b->m;
	const struct results *r = d->r;
	size_t min = rv_incmerge_min_windows(d->mg);

	for (size_t i = 0; i < r->n && !d->rc; i++) {
		const struct rv_ens_result *res = &r->res[i];
		size_t w = r->first + i, end = end_row(m, w);
		struct rv_window_out out = { .index = w, .res = res, .rank = r->rank + i * m->nchan };
		int flagged = res->anomaly || res->flags;

		out.ts = d->b->test->ts ? d->b->test->ts[end] : (double)end;
		out.nrank = flagged ? m->nchan : 0;
		out.subsystem = flagged ? r->subsystem[i] : RV_SUB_OTHER;
		count_window(d->st, res);
		d->rc = rv_incmerge_push(d->mg, w, out.ts, res->anomaly, res->fused, res->flags,
					 r->weight + i * m->nchan);
		if (d->rc)
			break;
		rv_delay_push(d->dl, &out, m->nchan);
		d->rc = rv_delay_flush(d->dl, d->mg, min, d->sink, 0);
	}
}

static void *drain_thread(void *arg)
{
	drain_results(arg);
	return NULL;
}

/* Waits for the drainer; returns its result. */
static int drain_wait(struct drain *d)
{
	if (d->running)
		pthread_join(d->tid, NULL);
	d->running = 0;
	return d->rc;
}

/* Drains r on the drainer thread (in this thread if none can start). */
static void drain_start(struct drain *d, const struct results *r)
{
	d->r = r;
	d->running = pthread_create(&d->tid, NULL, drain_thread, d) == 0;
	if (!d->running)
		drain_results(d);
}

static int score_windows(struct block *b, const struct rv_sink *sink, struct rv_incmerge *mg,
			 struct rv_delay *dl, struct rv_detect_stats *st)
{
	struct drain d = { .b = b, .sink = sink, .mg = mg, .dl = dl, .st = st };
	size_t k = 0;
	int rc = 0;

	for (size_t first = 0; first < b->nwin && !rc; first += RUN_BLOCK, k++) {
		size_t n = b->nwin - first < RUN_BLOCK ? b->nwin - first : RUN_BLOCK;

		b->cur = &b->buf[k % 2];
		b->cur->first = first;
		b->cur->n = n;
		rc = rv_parallel_for((n + RV_ENS_BATCH - 1) / RV_ENS_BATCH, b->threads, score_slice, b);
		if (drain_wait(&d) != 0 && !rc)
			rc = d.rc;
		if (!rc)
			drain_start(&d, b->cur);
	}
	if (drain_wait(&d) != 0 && !rc)
		rc = d.rc;
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
	struct block b;
	rv_ns t0;
	int rc, blas;

	if ((rc = rv_model_check_table(m, test, err)) != 0)
		return rc;
	threads = threads < 1 ? 1 : threads > RV_PARALLEL_MAX ? RV_PARALLEL_MAX : threads;
	rc = block_alloc(&b, m, threads);
	if (!rc)
		rc = rv_delay_init(&dl, m, rv_incmerge_max_gap(mg), rv_incmerge_min_windows(mg));
	if (!rc) {
		b.test = test;
		b.nwin = (test->nrows - m->window) / m->step + 1;
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
	return rc;
}
