/*
 * ensemble.c - fitting, thresholds, fusion and attribution of the detector
 * ensemble. See ensemble.h for the contract.
 *
 * The zscore detector has no state beyond the feature scaler; pca and
 * iforest work on the standardized features; spe works on the standardized
 * raw window with its own scaler and PCA.
 */
#include "detect/ensemble.h"
#include "detect/ensemble_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "base/bigmem.h"
#include "base/parallel.h"
#include "base/stats.h"
#include "detect/pca.h"
#include "detect/scaler.h"
#include "detect/zscore.h"

enum { ENS_MIN_ROWS = 8 };

/* A threshold never below this, so a detector whose training scores are all
 * 0 (possible for spe on perfectly reconstructible data) still divides. */
#define ENS_MIN_THRESHOLD 1e-12

/* Floor of a ratio inside the geometric mean: one detector scoring 0 must
 * not veto the others. */
#define ENS_MIN_RATIO 1e-3
/* Without a component cap, a subspace detector counts as wide when it has
 * more than n / this many dimensions. */
#define CROSSFIT_ROWS_PER_DIM 10
/* Matrix size from which a PCA fit uses BLAS threads. */
#define BLAS_THREAD_MIN 1024



static int pca_fit(const struct rv_ens_config *cfg, const float *z, size_t n, size_t F,
		   double keep, unsigned threads, struct rv_pca **out, struct rv_err *err);
static float *standardize(const struct rv_scaler *sc, const float *x, size_t n, unsigned threads);

struct rv_ens_scratch {
	float *z, *rz;
	double *contrib;     /* max(fs.nout, rs.nout) */
	double *pscratch;    /* PCA scratch, the larger of both */
	double *shares;      /* RV_DET_COUNT x nchan per-detector channel shares */
	double *sel;         /* 2 x fs.nout, for the zscore top-share selection */
	double guess;        /* the last window's zscore cut, a start for the next */
	float *zb, *rzb;     /* RV_ENS_BATCH standardized feature / raw rows */
	float *pb;           /* PCA batch scratch, the larger of both */
	double *col;         /* RV_ENS_BATCH scores of one detector */
};

static const char *const det_names[RV_DET_COUNT] = {
	[RV_DET_ZSCORE] = "zscore",
	[RV_DET_PCA] = "pca",
	[RV_DET_IFOREST] = "iforest",
	[RV_DET_SPE] = "spe",
};

static const char *const attr_names[RV_ATTR_COUNT] = {
	[RV_ATTR_ZSCORE] = "zscore",
	[RV_ATTR_ENSEMBLE] = "ensemble",
};

static const char *const fusion_names[RV_FUSE_COUNT] = {
	[RV_FUSE_VOTE] = "vote",
	[RV_FUSE_SCORE] = "score",
};

const char *rv_det_name(enum rv_det d)
{
	return d < RV_DET_COUNT ? det_names[d] : "?";
}

const char *rv_fusion_name(enum rv_fusion f)
{
	return f < RV_FUSE_COUNT ? fusion_names[f] : "?";
}

int rv_det_parse(const char *name)
{
	for (int d = 0; d < RV_DET_COUNT; d++)
		if (strcmp(name, det_names[d]) == 0)
			return d;
	return -1;
}

int rv_attribution_parse(const char *name)
{
	for (int a = 0; a < RV_ATTR_COUNT; a++)
		if (strcmp(name, attr_names[a]) == 0)
			return a;
	return -1;
}

int rv_fusion_parse(const char *name)
{
	for (int f = 0; f < RV_FUSE_COUNT; f++)
		if (strcmp(name, fusion_names[f]) == 0)
			return f;
	return -1;
}

int rv_ens_enabled(const struct rv_ensemble *e, enum rv_det d)
{
	return (e->cfg.enabled & RV_DET_BIT(d)) != 0;
}

void rv_ens_free(struct rv_ensemble *e)
{
	if (!e)
		return;
	free(e->feat_chan);
	free(e->raw_chan);
	rv_scaler_fini(&e->fs);
	rv_scaler_fini(&e->rs);
	rv_pca_free(e->pca);
	rv_pca_free(e->spe);
	rv_iforest_free(e->ifo);
	free(e);
}

static size_t batch_scratch_len(const struct rv_ensemble *e)
{
	size_t a = e->pca ? rv_pca_batch_scratch_len(e->pca, RV_ENS_BATCH) : 1;
	size_t b = e->spe ? rv_pca_batch_scratch_len(e->spe, RV_ENS_BATCH) : 1;

	return a > b ? a : b;
}

struct rv_ens_scratch *rv_ens_scratch_new(const struct rv_ensemble *e)
{
	struct rv_ens_scratch *s = calloc(1, sizeof(*s));
	size_t nc = e->fs.nout > e->rs.nout ? e->fs.nout : e->rs.nout;
	size_t np = 1;

	if (!s)
		return NULL;
	if (e->pca && rv_pca_scratch_len(e->pca) > np)
		np = rv_pca_scratch_len(e->pca);
	if (e->spe && rv_pca_scratch_len(e->spe) > np)
		np = rv_pca_scratch_len(e->spe);
	s->z = calloc(e->fs.nout ? e->fs.nout : 1, sizeof(*s->z));
	s->rz = calloc(e->rs.nout ? e->rs.nout : 1, sizeof(*s->rz));
	s->contrib = calloc(nc ? nc : 1, sizeof(*s->contrib));
	s->pscratch = calloc(np, sizeof(*s->pscratch));
	s->shares = calloc(RV_DET_COUNT * (e->nchan ? e->nchan : 1), sizeof(*s->shares));
	s->sel = calloc(2 * (e->fs.nout ? e->fs.nout : 1), sizeof(*s->sel));
	s->zb = malloc(RV_ENS_BATCH * (e->fs.nout ? e->fs.nout : 1) * sizeof(*s->zb));
	s->rzb = malloc(RV_ENS_BATCH * (e->rs.nout ? e->rs.nout : 1) * sizeof(*s->rzb));
	s->pb = malloc(batch_scratch_len(e) * sizeof(*s->pb));
	s->col = malloc(RV_ENS_BATCH * sizeof(*s->col));
	if (!s->z || !s->rz || !s->contrib || !s->pscratch || !s->shares || !s->sel || !s->zb ||
	    !s->rzb || !s->pb || !s->col) {
		rv_ens_scratch_free(s);
		return NULL;
	}
	return s;
}

void rv_ens_scratch_free(struct rv_ens_scratch *s)
{
	if (!s)
		return;
	free(s->z);
	free(s->rz);
	free(s->contrib);
	free(s->pscratch);
	free(s->zb);
	free(s->rzb);
	free(s->pb);
	free(s->col);
	free(s->shares);
	free(s->sel);
	free(s);
}

/* Adds weight * (contrib normalised to sum 1) to the channels of the kept
 * columns. */
static void add_channel_shares(const double *contrib, const struct rv_scaler *sc,
			       const uint32_t *chan, double weight, double *chan_weight)
{
	double total = 0.0;

	for (size_t o = 0; o < sc->nout; o++)
		total += contrib[o];
	if (!(total > 0.0) || !isfinite(total))
		return;
	for (size_t o = 0; o < sc->nout; o++)
		chan_weight[chan[sc->keep[o]]] += weight * contrib[o] / total;
}

/* Raw scores of every enabled detector; contributions go to per-detector
 * channel shares in `shares` (RV_DET_COUNT x nchan) when it is not NULL. */
static void score_raw(const struct rv_ensemble *e, const float *feat, const float *raw,
		      struct rv_ens_scratch *s, double *score, double *shares)
{
	double *c = shares ? s->contrib : NULL;

	rv_scaler_apply(&e->fs, feat, s->z);
	for (int d = 0; d < RV_DET_COUNT; d++) {
		double *sh = shares ? shares + (size_t)d * e->nchan : NULL;

		score[d] = 0.0;
		if (!rv_ens_enabled(e, (enum rv_det)d))
			continue;
		switch (d) {
		case RV_DET_ZSCORE:
			score[d] = rv_zscore_score(s->z, e->fs.nout, e->cfg.zscore_top, c, s->sel, &s->guess);
			break;
		case RV_DET_PCA:
			score[d] = rv_pca_t2(e->pca, s->z, c, s->pscratch);
			break;
		case RV_DET_IFOREST:
			score[d] = rv_iforest_score(e->ifo, s->z, c);
			break;
		case RV_DET_SPE:
			rv_scaler_apply(&e->rs, raw, s->rz);
			score[d] = rv_pca_spe(e->spe, s->rz, c, s->pscratch);
			break;
		}
		if (sh) {
			memset(sh, 0, e->nchan * sizeof(*sh));
			if (d == RV_DET_SPE)
				add_channel_shares(c, &e->rs, e->raw_chan, 1.0, sh);
			else
				add_channel_shares(c, &e->fs, e->feat_chan, 1.0, sh);
		}
	}
}

/*
 * Raw scores of n <= RV_ENS_BATCH rows (n x RV_DET_COUNT into score): the
 * rows are standardized into a block so that PCA and SPE are one matrix
 * product each and the forest is walked tree by tree.
 */
static void score_block(const struct rv_ensemble *e, const float *feat, size_t feat_ld,
			const float *raw, size_t raw_ld, size_t n, struct rv_ens_scratch *s,
			double *score)
{
	size_t fo = e->fs.nout, ro = e->rs.nout;

	for (size_t i = 0; i < n; i++) {
		rv_scaler_apply(&e->fs, feat + i * feat_ld, s->zb + i * fo);
		for (int d = 0; d < RV_DET_COUNT; d++)
			score[i * RV_DET_COUNT + (size_t)d] = 0.0;
		if (rv_ens_enabled(e, RV_DET_ZSCORE))
			score[i * RV_DET_COUNT + RV_DET_ZSCORE] =
				rv_zscore_score(s->zb + i * fo, fo, e->cfg.zscore_top, NULL, s->sel,
					     &s->guess);
	}
	if (rv_ens_enabled(e, RV_DET_PCA)) {
		rv_pca_score_batch(e->pca, s->zb, fo, n, s->col, NULL, s->pb);
		for (size_t i = 0; i < n; i++)
			score[i * RV_DET_COUNT + RV_DET_PCA] = s->col[i];
	}
	if (rv_ens_enabled(e, RV_DET_IFOREST)) {
		rv_iforest_score_batch(e->ifo, s->zb, fo, n, s->col);
		for (size_t i = 0; i < n; i++)
			score[i * RV_DET_COUNT + RV_DET_IFOREST] = s->col[i];
	}
	if (rv_ens_enabled(e, RV_DET_SPE)) {
		for (size_t i = 0; i < n; i++)
			rv_scaler_apply(&e->rs, raw + i * raw_ld, s->rzb + i * ro);
		rv_pca_score_batch(e->spe, s->rzb, ro, n, NULL, s->col, s->pb);
		for (size_t i = 0; i < n; i++)
			score[i * RV_DET_COUNT + RV_DET_SPE] = s->col[i];
	}
}

static void fuse(const struct rv_ensemble *e, struct rv_ens_result *res)
{
	unsigned votes = 0, n = 0;
	double sum = 0.0;
	int geo = e->cfg.fuse_geometric;

	res->flags = 0;
	for (int d = 0; d < RV_DET_COUNT; d++) {
		res->ratio[d] = 0.0;
		if (!rv_ens_enabled(e, (enum rv_det)d))
			continue;
		res->ratio[d] = res->score[d] / e->thr[d];
		if (res->score[d] > e->thr[d]) {
			res->flags |= RV_DET_BIT(d);
			votes++;
		}
		sum += geo ? log(fmax(res->ratio[d], ENS_MIN_RATIO)) : res->ratio[d];
		n++;
	}
	res->fused = n ? sum / n : 0.0;
	if (geo)
		res->fused = exp(res->fused);
	if (e->cfg.fusion == RV_FUSE_VOTE)
		res->anomaly = votes >= e->cfg.vote_k;
	else
		res->anomaly = res->fused > e->fuse_thr;
}

void rv_ens_score_batch(const struct rv_ensemble *e, const float *feat, size_t feat_ld,
			const float *raw, size_t raw_ld, size_t n, struct rv_ens_scratch *s,
			struct rv_ens_result *res)
{
	double score[RV_ENS_BATCH * RV_DET_COUNT];

	for (size_t i0 = 0; i0 < n; i0 += RV_ENS_BATCH) {
		size_t m = n - i0 < RV_ENS_BATCH ? n - i0 : RV_ENS_BATCH;

		score_block(e, feat + i0 * feat_ld, feat_ld, raw ? raw + i0 * raw_ld : NULL, raw_ld,
			    m, s, score);
		for (size_t i = 0; i < m; i++) {
			memcpy(res[i0 + i].score, score + i * RV_DET_COUNT, sizeof(res->score));
			fuse(e, &res[i0 + i]);
		}
	}
}

/* zscore attribution of one standardized row. */
static void explain_z(const struct rv_ensemble *e, const float *z, struct rv_ens_scratch *s,
		      double *chan_weight)
{
	rv_zscore_score(z, e->fs.nout, 1.0, s->contrib, s->sel, &s->guess);
	add_channel_shares(s->contrib, &e->fs, e->feat_chan, 1.0, chan_weight);
}

void rv_ens_explain_batch_row(const struct rv_ensemble *e, const float *feat, const float *raw,
			      struct rv_ens_scratch *s, size_t i, const struct rv_ens_result *res,
			      double *chan_weight)
{
	if (e->cfg.attribution != RV_ATTR_ZSCORE || i >= RV_ENS_BATCH) {
		rv_ens_explain(e, feat, raw, s, res, chan_weight);
		return;
	}
	memset(chan_weight, 0, e->nchan * sizeof(*chan_weight));
	if (res->flags || res->anomaly)
		explain_z(e, s->zb + i * e->fs.nout, s, chan_weight);
}

void rv_ens_explain(const struct rv_ensemble *e, const float *feat, const float *raw,
		    struct rv_ens_scratch *s, const struct rv_ens_result *res, double *chan_weight)
{
	double score[RV_DET_COUNT];
	unsigned use;

	memset(chan_weight, 0, e->nchan * sizeof(*chan_weight));
	if (!res->flags && !res->anomaly)
		return;
	if (e->cfg.attribution == RV_ATTR_ZSCORE) {
		rv_scaler_apply(&e->fs, feat, s->z);
		explain_z(e, s->z, s, chan_weight);
		return;
	}
	score_raw(e, feat, raw, s, score, s->shares);
	use = res->flags ? res->flags : e->cfg.enabled;
	for (int d = 0; d < RV_DET_COUNT; d++) {
		const double *sh = s->shares + (size_t)d * e->nchan;
		if (!(use & RV_DET_BIT(d)))
			continue;
		for (size_t c = 0; c < e->nchan; c++)
			chan_weight[c] += sh[c];
	}
}

void rv_ens_score(const struct rv_ensemble *e, const float *feat, const float *raw,
		  struct rv_ens_scratch *s, struct rv_ens_result *res, double *chan_weight)
{
	rv_ens_score_batch(e, feat, 0, raw, 0, 1, s, res);
	if (chan_weight)
		rv_ens_explain(e, feat, raw, s, res, chan_weight);
}

/* OpenBLAS's own entry point for stopping its pool (it is what its fork
 * handler calls); the pool starts again on the next threaded call. */
int blas_thread_shutdown_(void);

void rv_ens_blas_quiesce(void)
{
	blas_thread_shutdown_();
}

int rv_ens_blas_threads(int n)
{
	int before = openblas_get_num_threads();

	if (n != before)
		openblas_set_num_threads(n);
	return before;
}

/* Threshold of detector d from its training scores (sorted in place). */
static double threshold_of(const struct rv_ensemble *e, enum rv_det d, double *v, size_t n)
{
	double q = d == RV_DET_IFOREST ? 1.0 - e->cfg.contamination : e->cfg.quantile;
	double t = rv_quantile_inplace(v, n, q);

	return t > ENS_MIN_THRESHOLD ? t : ENS_MIN_THRESHOLD;
}

struct train_scoring {
	const struct rv_ensemble *e;
	const struct rv_ens_train *tr;
	struct rv_ens_scratch *s[RV_PARALLEL_MAX];
	float *gf[RV_PARALLEL_MAX];    /* a batch of gathered calibration rows */
	float *gr[RV_PARALLEL_MAX];
	size_t n;                      /* rows scored */
	double *v;                     /* n x RV_DET_COUNT raw scores */
};

static int score_train_slice(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct train_scoring *ts = ctx;
	const struct rv_ens_train *tr = ts->tr;

	for (size_t i = begin * RV_ENS_BATCH; i < end * RV_ENS_BATCH && i < ts->n;
	     i += RV_ENS_BATCH) {
		size_t n = ts->n - i < RV_ENS_BATCH ? ts->n - i : RV_ENS_BATCH;
		const float *feat = tr->feat + i * tr->nfeat;
		const float *raw = tr->raw ? tr->raw + i * tr->nraw : NULL;

		if (tr->cal_idx) {
			for (size_t k = 0; k < n; k++) {
				size_t r = tr->cal_idx[i + k];
				memcpy(ts->gf[slot] + k * tr->nfeat, tr->feat + r * tr->nfeat,
				       tr->nfeat * sizeof(float));
				if (tr->raw)
					memcpy(ts->gr[slot] + k * tr->nraw, tr->raw + r * tr->nraw,
					       tr->nraw * sizeof(float));
			}
			feat = ts->gf[slot];
			raw = tr->raw ? ts->gr[slot] : NULL;
		}
		score_block(ts->e, feat, tr->nfeat, raw, tr->nraw, n, ts->s[slot],
			    ts->v + i * RV_DET_COUNT);
	}
	return 0;
}

/* Number of calibration rows (see rv_ens_train). */
static size_t cal_rows(const struct rv_ens_train *tr)
{
	return tr->cal_idx ? tr->cal_n : tr->n;
}

/* Raw scores of every calibration row into v (cal_rows x RV_DET_COUNT),
 * in parallel. */
static int score_training(const struct rv_ensemble *e, const struct rv_ens_train *tr, double *v)
{
	unsigned threads = tr->threads ? tr->threads : 1;
	struct train_scoring ts = { .e = e, .tr = tr, .v = v, .n = cal_rows(tr) };
	int rc = 0, blas;

	if (threads > RV_PARALLEL_MAX)
		threads = RV_PARALLEL_MAX;
	for (unsigned t = 0; t < threads && !rc; t++) {
		ts.s[t] = rv_ens_scratch_new(e);
		ts.gf[t] = malloc(RV_ENS_BATCH * (tr->nfeat ? tr->nfeat : 1) * sizeof(float));
		ts.gr[t] = malloc(RV_ENS_BATCH * (tr->nraw ? tr->nraw : 1) * sizeof(float));
		if (!ts.s[t] || !ts.gf[t] || !ts.gr[t])
			rc = -ENOMEM;
	}
	if (!rc) {
		blas = rv_ens_blas_threads(1);
		/* Whole batches per thread: results then do not depend on the count. */
		rc = rv_parallel_for((ts.n + RV_ENS_BATCH - 1) / RV_ENS_BATCH, threads,
				     score_train_slice, &ts);
		rv_ens_blas_threads(blas);
	}
	for (unsigned t = 0; t < threads; t++) {
		rv_ens_scratch_free(ts.s[t]);
		free(ts.gf[t]);
		free(ts.gr[t]);
	}
	return rc;
}

/*
 * In-sample scores of a subspace detector understate what unseen windows
 * score when the input is wide (many dimensions per training row): the
 * fitted subspace has absorbed the training rows' own noise, so a
 * threshold from them flags nearly every new window. For such inputs the
 * threshold scores are replaced by out-of-fold ones: fit on the first half
 * of the training windows, score the second, and the other way round
 * (contiguous halves, so overlapping windows do not leak across).
 */
static int is_wide(const struct rv_ensemble *e, size_t n, size_t dims)
{
	size_t rows = e->cfg.pca_rows_per_comp ? e->cfg.pca_rows_per_comp : CROSSFIT_ROWS_PER_DIM;

	return dims * rows > n;
}

static int crossfit(const struct rv_ensemble *e, enum rv_det d, const struct rv_ens_train *tr,
		    double *v)
{
	const struct rv_scaler *sc = d == RV_DET_SPE ? &e->rs : &e->fs;
	const float *x = d == RV_DET_SPE ? tr->raw : tr->feat;
	size_t half = tr->n / 2, dims = sc->nout;
	float *z = standardize(sc, x, tr->n, tr->threads);
	double *scratch = NULL;
	int rc = z ? 0 : -ENOMEM;
	/* The fold models keep exactly the final model's component count: T2
	 * grows with the number of components and SPE shrinks with it, so a
	 * fold with fewer (the row cap halves with the rows) would set a
	 * threshold on another scale. */
	struct rv_ens_config fold_cfg = e->cfg;

	fold_cfg.pca_max_comp = rv_pca_ncomp(d == RV_DET_SPE ? e->spe : e->pca);
	fold_cfg.pca_rows_per_comp = 0;

	for (int fold = 0; fold < 2 && !rc; fold++) {
		size_t f0 = fold ? half : 0, fn = fold ? tr->n - half : half;
		size_t t0 = fold ? 0 : half, tn = fold ? half : tr->n - half;
		struct rv_pca *p = NULL;

		rc = pca_fit(&fold_cfg, z + f0 * dims, fn, dims, 1.0, tr->threads, &p, NULL);
		if (!rc && !(scratch = realloc(scratch, rv_pca_scratch_len(p) * sizeof(double))))
			rc = -ENOMEM;
		for (size_t i = t0; i < t0 + tn && !rc; i++) {
			const float *row = z + i * dims;
			v[i * RV_DET_COUNT + (size_t)d] = d == RV_DET_SPE
				? rv_pca_spe(p, row, NULL, scratch) : rv_pca_t2(p, row, NULL, scratch);
		}
		rv_pca_free(p);
	}
	free(scratch);
	rv_big_free(z);
	return rc;
}

static int out_of_fold(const struct rv_ensemble *e, const struct rv_ens_train *tr, double *v)
{
	static const enum rv_det subspace[] = { RV_DET_PCA, RV_DET_SPE };
	int rc = 0;

	if (tr->n < 2 * ENS_MIN_ROWS)
		return 0;
	for (size_t i = 0; i < sizeof(subspace) / sizeof(subspace[0]) && !rc; i++) {
		enum rv_det d = subspace[i];
		size_t dims = d == RV_DET_SPE ? e->rs.nout : e->fs.nout;
		if (rv_ens_enabled(e, d) && is_wide(e, tr->n, dims))
			rc = crossfit(e, d, tr, v);
	}
	return rc;
}

static int fit_thresholds(struct rv_ensemble *e, const struct rv_ens_train *tr)
{
	size_t n = cal_rows(tr);
	double *v = malloc(n * RV_DET_COUNT * sizeof(*v));
	double *tmp = malloc(n * sizeof(*tmp));
	struct rv_ens_result res;
	int rc = v && tmp ? score_training(e, tr, v) : -ENOMEM;

	if (!rc && !tr->cal_idx)
		rc = out_of_fold(e, tr, v);
	for (int d = 0; d < RV_DET_COUNT && !rc; d++) {
		e->thr[d] = 1.0;
		if (!rv_ens_enabled(e, (enum rv_det)d))
			continue;
		for (size_t i = 0; i < n; i++)
			tmp[i] = v[i * RV_DET_COUNT + (size_t)d];
		e->thr[d] = threshold_of(e, (enum rv_det)d, tmp, n);
	}
	/* The fused score needs the thresholds; its own threshold is a quantile
	 * of the calibration windows' fused scores. */
	for (size_t i = 0; i < n && !rc; i++) {
		memcpy(res.score, v + i * RV_DET_COUNT, sizeof(res.score));
		fuse(e, &res);
		tmp[i] = res.fused;
	}
	if (!rc)
		e->fuse_thr = rv_quantile_inplace(tmp, n, e->cfg.fuse_quantile);
	free(v);
	free(tmp);
	return rc;
}

/*
 * PCA fit with BLAS threads only for large problems: below BLAS_THREAD_MIN
 * rows or columns the threads' spin-waiting after each call costs more CPU
 * than the parallel speed-up saves, and it steals the cores from our own
 * scoring threads.
 */
static int is_big(size_t n, size_t F)
{
	return (n < F ? n : F) >= BLAS_THREAD_MIN;
}

static int pca_fit(const struct rv_ens_config *cfg, const float *z, size_t n, size_t F,
		   double keep, unsigned threads, struct rv_pca **out, struct rv_err *err)
{
	int big = is_big(n, F);
	size_t max_comp = cfg->pca_max_comp;

	/* A component estimated from too few rows is noise with a tiny
	 * eigenvalue, and 1 / lambda turns it into false alarms. */
	if (cfg->pca_rows_per_comp > 0) {
		size_t by_rows = n / cfg->pca_rows_per_comp > 0 ? n / cfg->pca_rows_per_comp : 1;
		if (max_comp == 0 || by_rows < max_comp)
			max_comp = by_rows;
	}
	int before = rv_ens_blas_threads(big && threads > 1 ? (int)threads : 1);
	int rc = rv_pca_fit(z, n, F, keep, max_comp, out, err);

	rv_ens_blas_threads(before);
	return rc;
}

struct standardizing {
	const struct rv_scaler *sc;
	const float *x;
	float *z;
};

static int standardize_slice(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct standardizing *st = ctx;

	(void)slot;
	for (size_t i = begin; i < end; i++)
		rv_scaler_apply(st->sc, st->x + i * st->sc->nin, st->z + i * st->sc->nout);
	return 0;
}

/* Standardizes n rows of x with sc into a new n x sc->nout matrix. */
static float *standardize(const struct rv_scaler *sc, const float *x, size_t n, unsigned threads)
{
	struct standardizing st = { sc, x, rv_big_array(n * sc->nout, sizeof(float)) };

	if (st.z)
		rv_parallel_for(n, threads, standardize_slice, &st);
	return st.z;
}

static int fit_spe(struct rv_ensemble *e, const struct rv_ens_train *tr, struct rv_err *err)
{
	float *z;
	int rc;

	if (!tr->raw || !tr->raw_chan || tr->nraw == 0)
		return rv_err_set(err, -EINVAL, "the spe detector needs the raw windows");
	rc = rv_scaler_fit(&e->rs, tr->raw, tr->n, tr->nraw, err);
	if (rc)
		return rc;
	z = standardize(&e->rs, tr->raw, tr->n, 1);
	if (!z)
		return -ENOMEM;
	rc = pca_fit(&e->cfg, z, tr->n, e->rs.nout, e->cfg.spe_var_keep, tr->threads, &e->spe, err);
	rv_big_free(z);
	return rc;
}

/* The three model fits are independent: they run side by side. */
enum { TASK_PCA, TASK_IFOREST, TASK_SPE, TASK_COUNT };

struct fit_tasks {
	struct rv_ensemble *e;
	const struct rv_ens_train *tr;
	const float *z;                 /* standardized features */
	struct rv_err err[TASK_COUNT];
	int rc[TASK_COUNT];
};

static int fit_task(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct fit_tasks *ft = ctx;
	struct rv_ensemble *e = ft->e;
	const struct rv_ens_train *tr = ft->tr;

	(void)slot;
	for (size_t t = begin; t < end; t++) {
		struct rv_err *err = &ft->err[t];
		if (t == TASK_PCA && rv_ens_enabled(e, RV_DET_PCA))
			ft->rc[t] = pca_fit(&e->cfg, ft->z, tr->n, e->fs.nout, e->cfg.var_keep,
					    tr->threads, &e->pca, err);
		else if (t == TASK_IFOREST && rv_ens_enabled(e, RV_DET_IFOREST))
			ft->rc[t] = rv_iforest_fit(ft->z, tr->n, e->fs.nout, &e->cfg.iforest,
						   &e->ifo, err);
		else if (t == TASK_SPE && rv_ens_enabled(e, RV_DET_SPE))
			ft->rc[t] = fit_spe(e, tr, err);
	}
	return 0;
}

static int fit_detectors(struct rv_ensemble *e, const struct rv_ens_train *tr, struct rv_err *err)
{
	struct fit_tasks ft = { .e = e, .tr = tr };
	unsigned threads = tr->threads < TASK_COUNT ? tr->threads : TASK_COUNT;
	/* A large PCA fit sets the process-wide BLAS thread count: two of them
	 * side by side would race for it, and a matrix product split over a
	 * varying number of threads rounds differently from run to run. Large
	 * fits therefore run one after the other, each with every core. */
	if (is_big(tr->n, tr->nfeat) || (rv_ens_enabled(e, RV_DET_SPE) && is_big(tr->n, tr->nraw)))
		threads = 1;
	float *z;
	int rc;

	rc = rv_scaler_fit_mt(&e->fs, tr->feat, tr->n, tr->nfeat, tr->threads, err);
	if (rc)
		return rc;
	z = standardize(&e->fs, tr->feat, tr->n, tr->threads);
	if (!z)
		return -ENOMEM;
	ft.z = z;
	rv_parallel_for(TASK_COUNT, threads, fit_task, &ft);
	rv_big_free(z);
	for (int t = 0; t < TASK_COUNT; t++) {
		if (ft.rc[t]) {
			rv_err_set(err, ft.rc[t], "%s", rv_err_text(&ft.err[t], ft.rc[t]));
			return ft.rc[t];
		}
	}
	return 0;
}

static uint32_t *copy_u32(const uint32_t *v, size_t n)
{
	uint32_t *c = malloc((n ? n : 1) * sizeof(*c));

	if (c && n)
		memcpy(c, v, n * sizeof(*c));
	return c;
}

int rv_ens_fit(const struct rv_ens_config *cfg, const struct rv_ens_train *tr,
	       struct rv_ensemble **out, struct rv_err *err)
{
	struct rv_ensemble *e;
	int rc;

	*out = NULL;
	if (!(cfg->enabled & ((1u << RV_DET_COUNT) - 1)))
		return rv_err_set(err, -EINVAL, "no detector enabled");
	if (tr->n < ENS_MIN_ROWS)
		return rv_err_set(err, -EINVAL,
				  "%zu training windows; at least %d are needed to fit the detectors",
				  tr->n, ENS_MIN_ROWS);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->cfg = *cfg;
	e->nfeat = tr->nfeat;
	e->nraw = tr->raw ? tr->nraw : 0;
	e->nchan = tr->nchan;
	e->feat_chan = copy_u32(tr->feat_chan, tr->nfeat);
	e->raw_chan = copy_u32(tr->raw_chan ? tr->raw_chan : tr->feat_chan,
			       tr->raw_chan ? e->nraw : 0);
	rc = e->feat_chan && e->raw_chan ? 0 : -ENOMEM;
	if (!rc)
		rc = fit_detectors(e, tr, err);
	if (!rc)
		rc = fit_thresholds(e, tr);
	if (rc) {
		rv_ens_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

const struct rv_ens_config *rv_ens_config(const struct rv_ensemble *e)
{
	return &e->cfg;
}

double rv_ens_threshold(const struct rv_ensemble *e, enum rv_det d)
{
	return e->thr[d];
}

double rv_ens_fuse_threshold(const struct rv_ensemble *e)
{
	return e->fuse_thr;
}

size_t rv_ens_pca_ncomp(const struct rv_ensemble *e)
{
	return e->pca ? rv_pca_ncomp(e->pca) : 0;
}

size_t rv_ens_features_kept(const struct rv_ensemble *e)
{
	return e->fs.nout;
}

