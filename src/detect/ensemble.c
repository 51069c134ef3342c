/*
 * ensemble.c - scoring, fusion and attribution of the detector ensemble;
 * fitting and thresholds are in ensemble_fit.c. See ensemble.h for the
 * contract.
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

#include "detect/pca.h"
#include "detect/scaler.h"
#include "detect/zscore.h"

/* Floor of a ratio inside the geometric mean: one detector scoring 0 must
 * not veto the others. */
#define ENS_MIN_RATIO 1e-3

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
 * product each and the forest is walked tree by tree. With prescaled, the
 * rows are standardized already (the training rows) and used in place.
 */
void rv_ens_score_block(const struct rv_ensemble *e, const float *feat, size_t feat_ld,
			const float *raw, size_t raw_ld, size_t n, int prescaled,
			struct rv_ens_scratch *s, double *score)
{
	size_t fo = e->fs.nout, ro = e->rs.nout;
	const float *z = prescaled ? feat : s->zb, *rz = prescaled ? raw : s->rzb;
	size_t zld = prescaled ? feat_ld : fo, rzld = prescaled ? raw_ld : ro;

	for (size_t i = 0; i < n; i++) {
		if (!prescaled)
			rv_scaler_apply(&e->fs, feat + i * feat_ld, s->zb + i * fo);
		for (int d = 0; d < RV_DET_COUNT; d++)
			score[i * RV_DET_COUNT + (size_t)d] = 0.0;
		if (rv_ens_enabled(e, RV_DET_ZSCORE))
			score[i * RV_DET_COUNT + RV_DET_ZSCORE] =
				rv_zscore_score(z + i * zld, fo, e->cfg.zscore_top, NULL, s->sel,
					     &s->guess);
	}
	if (rv_ens_enabled(e, RV_DET_PCA)) {
		rv_pca_score_batch(e->pca, z, zld, n, s->col, NULL, s->pb);
		for (size_t i = 0; i < n; i++)
			score[i * RV_DET_COUNT + RV_DET_PCA] = s->col[i];
	}
	if (rv_ens_enabled(e, RV_DET_IFOREST)) {
		rv_iforest_score_batch(e->ifo, z, zld, n, s->col);
		for (size_t i = 0; i < n; i++)
			score[i * RV_DET_COUNT + RV_DET_IFOREST] = s->col[i];
	}
	if (rv_ens_enabled(e, RV_DET_SPE)) {
		for (size_t i = 0; i < n && !prescaled; i++)
			rv_scaler_apply(&e->rs, raw + i * raw_ld, s->rzb + i * ro);
		rv_pca_score_batch(e->spe, rz, rzld, n, NULL, s->col, s->pb);
		for (size_t i = 0; i < n; i++)
			score[i * RV_DET_COUNT + RV_DET_SPE] = s->col[i];
	}
}

void rv_ens_fuse(const struct rv_ensemble *e, struct rv_ens_result *res)
{
	unsigned votes = 0, n = 0;
	double sum = 0.0, seen = 0.0;
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
		seen += geo ? log(fmax(res->ratio[d], 1.0)) : fmax(res->ratio[d], 1.0);
		n++;
	}
	res->fused = n ? sum / n : 0.0;
	res->strength = n ? seen / n : 0.0;
	if (geo) {
		res->fused = exp(res->fused);
		res->strength = exp(res->strength);
	}
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

		rv_ens_score_block(e, feat + i0 * feat_ld, feat_ld, raw ? raw + i0 * raw_ld : NULL, raw_ld,
			    m, 0, s, score);
		for (size_t i = 0; i < m; i++) {
			memcpy(res[i0 + i].score, score + i * RV_DET_COUNT, sizeof(res->score));
			rv_ens_fuse(e, &res[i0 + i]);
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

double rv_ens_feature_sd(const struct rv_ensemble *e, size_t j)
{
	size_t lo = 0, hi = e->fs.nout;

	while (lo < hi) {   /* keep[] is ascending */
		size_t mid = lo + (hi - lo) / 2;

		if (e->fs.keep[mid] < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->fs.nout && e->fs.keep[lo] == j ? e->fs.sd[lo] : 0.0;
}

size_t rv_ens_pca_ncomp(const struct rv_ensemble *e)
{
	return e->pca ? rv_pca_ncomp(e->pca) : 0;
}

size_t rv_ens_features_kept(const struct rv_ensemble *e)
{
	return e->fs.nout;
}

