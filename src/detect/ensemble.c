/*
 * ensemble.c - scoring, fusion and attribution of the detector ensemble;
 * fitting and thresholds are in ensemble_fit.c. See ensemble.h for the
 * contract.
 *
 * The detectors come from the table (detector.h) and are never named
 * here: each reads the standardized features (scaler fs) or the
 * standardized raw window (scaler rs), as its descriptor says.
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
	double *shares;      /* ndet x nchan per-detector channel shares */
	double *sel;         /* 2 x fs.nout, for the zscore attribution */
	double guess;        /* the last window's zscore cut, a start for the next */
	float *zb, *rzb;     /* RV_ENS_BATCH standardized feature / raw rows */
	void *det[RV_DET_MAX];  /* each enabled detector's own scratch */
};

static const char *const attr_names[RV_ATTR_COUNT] = {
	[RV_ATTR_ZSCORE] = "zscore",
	[RV_ATTR_ENSEMBLE] = "ensemble",
};

static const char *const fusion_names[RV_FUSE_COUNT] = {
	[RV_FUSE_VOTE] = "vote",
	[RV_FUSE_SCORE] = "score",
};

const char *rv_fusion_name(enum rv_fusion f)
{
	return f < RV_FUSE_COUNT ? fusion_names[f] : "?";
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

int rv_ens_enabled(const struct rv_ensemble *e, int d)
{
	return d >= 0 && d < e->ndet && (e->cfg.enabled & RV_DET_BIT(d)) != 0;
}

int rv_ens_uses_raw(const struct rv_ensemble *e)
{
	return (e->cfg.enabled & rv_det_input_mask(RV_DET_IN_RAW)) != 0;
}

const struct rv_scaler *rv_ens_scaler(const struct rv_ensemble *e, int d)
{
	return rv_det_ops(d)->input == RV_DET_IN_RAW ? &e->rs : &e->fs;
}

void rv_ens_free(struct rv_ensemble *e)
{
	if (!e)
		return;
	free(e->feat_chan);
	free(e->raw_chan);
	rv_scaler_fini(&e->fs);
	rv_scaler_fini(&e->rs);
	for (int d = 0; d < e->ndet; d++)
		if (e->state[d] && rv_det_ops(d)->free)
			rv_det_ops(d)->free(e->state[d]);
	free(e);
}

/* Each enabled detector's scratch (detector.h: scratch_len bytes). */
static int det_scratch_new(const struct rv_ensemble *e, struct rv_ens_scratch *s)
{
	for (int d = 0; d < e->ndet; d++) {
		const struct rv_detector_ops *o = rv_det_ops(d);
		size_t len;

		if (!rv_ens_enabled(e, d))
			continue;
		len = o->scratch_len ? o->scratch_len(e->state[d], rv_ens_scaler(e, d)->nout) : 0;
		if (!(s->det[d] = calloc(1, len ? len : 1)))
			return -ENOMEM;
	}
	return 0;
}

int rv_ens_scratch_new(const struct rv_ensemble *e, struct rv_ens_scratch **out)
{
	struct rv_ens_scratch *s = calloc(1, sizeof(*s));
	size_t nc = e->fs.nout > e->rs.nout ? e->fs.nout : e->rs.nout;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->z = calloc(e->fs.nout ? e->fs.nout : 1, sizeof(*s->z));
	s->rz = calloc(e->rs.nout ? e->rs.nout : 1, sizeof(*s->rz));
	s->contrib = calloc(nc ? nc : 1, sizeof(*s->contrib));
	s->shares = calloc((size_t)e->ndet * (e->nchan ? e->nchan : 1), sizeof(*s->shares));
	s->sel = calloc(2 * (e->fs.nout ? e->fs.nout : 1), sizeof(*s->sel));
	s->zb = malloc(RV_ENS_BATCH * (e->fs.nout ? e->fs.nout : 1) * sizeof(*s->zb));
	s->rzb = malloc(RV_ENS_BATCH * (e->rs.nout ? e->rs.nout : 1) * sizeof(*s->rzb));
	if (!s->z || !s->rz || !s->contrib || !s->shares || !s->sel || !s->zb || !s->rzb ||
	    det_scratch_new(e, s) != 0) {
		rv_ens_scratch_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void rv_ens_scratch_free(struct rv_ens_scratch *s)
{
	if (!s)
		return;
	free(s->z);
	free(s->rz);
	free(s->contrib);
	free(s->zb);
	free(s->rzb);
	free(s->shares);
	free(s->sel);
	for (int d = 0; d < RV_DET_MAX; d++)
		free(s->det[d]);
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

/* Per-detector channel shares of every enabled detector into `shares`
 * (ndet x nchan), from its contributions to one window. */
static void detector_shares(const struct rv_ensemble *e, const float *feat, const float *raw,
			    struct rv_ens_scratch *s, double *shares)
{
	int raw_done = 0;

	rv_scaler_apply(&e->fs, feat, s->z);
	for (int d = 0; d < e->ndet; d++) {
		const struct rv_detector_ops *o = rv_det_ops(d);
		double *sh = shares + (size_t)d * e->nchan;
		int in_raw = o->input == RV_DET_IN_RAW;
		const struct rv_scaler *sc = in_raw ? &e->rs : &e->fs;

		if (!rv_ens_enabled(e, d))
			continue;
		if (in_raw && !raw_done) {
			rv_scaler_apply(&e->rs, raw, s->rz);
			raw_done = 1;
		}
		o->contrib(&e->cfg, e->state[d], in_raw ? s->rz : s->z, sc->nout, s->det[d],
			   s->contrib);
		memset(sh, 0, e->nchan * sizeof(*sh));
		add_channel_shares(s->contrib, sc, in_raw ? e->raw_chan : e->feat_chan, 1.0, sh);
	}
}

/*
 * Raw scores of n <= RV_ENS_BATCH rows (row i at score + i * stride): the
 * rows are standardized into a block so that a detector scores them
 * together (PCA and SPE as one matrix product each, the forest tree by
 * tree). With prescaled, the rows are standardized already (the training
 * rows) and used in place.
 */
void rv_ens_score_block(const struct rv_ensemble *e, const float *feat, size_t feat_ld,
			const float *raw, size_t raw_ld, size_t n, int prescaled,
			struct rv_ens_scratch *s, double *score, size_t stride)
{
	size_t fo = e->fs.nout, ro = e->rs.nout;
	const float *z = prescaled ? feat : s->zb, *rz = prescaled ? raw : s->rzb;
	size_t zld = prescaled ? feat_ld : fo, rzld = prescaled ? raw_ld : ro;

	for (size_t i = 0; i < n; i++) {
		if (!prescaled)
			rv_scaler_apply(&e->fs, feat + i * feat_ld, s->zb + i * fo);
		for (size_t d = 0; d < stride; d++)
			score[i * stride + d] = 0.0;
	}
	for (size_t i = 0; i < n && !prescaled && rv_ens_uses_raw(e); i++)
		rv_scaler_apply(&e->rs, raw + i * raw_ld, s->rzb + i * ro);
	for (int d = 0; d < e->ndet; d++) {
		const struct rv_detector_ops *o = rv_det_ops(d);
		int in_raw = o->input == RV_DET_IN_RAW;

		if (rv_ens_enabled(e, d))
			o->score_block(&e->cfg, e->state[d], in_raw ? rz : z, in_raw ? rzld : zld, n,
				       in_raw ? ro : fo, s->det[d], score + d, stride);
	}
}

void rv_ens_fuse(const struct rv_ensemble *e, struct rv_ens_result *res)
{
	unsigned votes = 0, n = 0;
	double sum = 0.0, seen = 0.0;
	int geo = e->cfg.fuse_geometric;

	res->flags = 0;
	for (int d = 0; d < RV_DET_MAX; d++) {
		res->ratio[d] = 0.0;
		if (!rv_ens_enabled(e, d))
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
	double score[RV_ENS_BATCH * RV_DET_MAX];

	for (size_t i0 = 0; i0 < n; i0 += RV_ENS_BATCH) {
		size_t m = n - i0 < RV_ENS_BATCH ? n - i0 : RV_ENS_BATCH;

		rv_ens_score_block(e, feat + i0 * feat_ld, feat_ld, raw ? raw + i0 * raw_ld : NULL, raw_ld,
			    m, 0, s, score, RV_DET_MAX);
		for (size_t i = 0; i < m; i++) {
			memcpy(res[i0 + i].score, score + i * RV_DET_MAX, sizeof(res->score));
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
	unsigned use;

	memset(chan_weight, 0, e->nchan * sizeof(*chan_weight));
	if (!res->flags && !res->anomaly)
		return;
	if (e->cfg.attribution == RV_ATTR_ZSCORE) {
		rv_scaler_apply(&e->fs, feat, s->z);
		explain_z(e, s->z, s, chan_weight);
		return;
	}
	detector_shares(e, feat, raw, s, s->shares);
	use = res->flags ? res->flags : e->cfg.enabled;
	for (int d = 0; d < e->ndet; d++) {
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

double rv_ens_threshold(const struct rv_ensemble *e, int d)
{
	return d >= 0 && d < RV_DET_MAX ? e->thr[d] : 0.0;
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
	/* The pca detector's state is its struct rv_pca (det_pca.c). */
	return rv_ens_enabled(e, RV_DET_PCA) && e->state[RV_DET_PCA]
		? rv_pca_ncomp(e->state[RV_DET_PCA]) : 0;
}

size_t rv_ens_features_kept(const struct rv_ensemble *e)
{
	return e->fs.nout;
}

