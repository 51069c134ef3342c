/*
 * ensemble.c - fitting, thresholds, fusion and attribution of the detector
 * ensemble. See ensemble.h for the contract.
 *
 * The zscore detector has no state beyond the feature scaler; pca and
 * iforest work on the standardized features; spe works on the standardized
 * raw window with its own scaler and PCA.
 */
#include "detect/ensemble.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "detect/pca.h"
#include "detect/scaler.h"

enum { ENS_TAG = 0x534e4552u /* "RENS" */, ENS_VERSION = 1, ENS_MIN_ROWS = 8 };

/* A threshold never below this, so a detector whose training scores are all
 * 0 (possible for spe on perfectly reconstructible data) still divides. */
#define ENS_MIN_THRESHOLD 1e-12

struct rv_ensemble {
	struct rv_ens_config cfg;
	size_t nfeat, nraw, nchan;
	uint32_t *feat_chan, *raw_chan;
	struct rv_scaler fs, rs;
	struct rv_pca *pca, *spe;
	struct rv_iforest *ifo;
	double thr[RV_DET_COUNT];
	double fuse_thr;
};

struct rv_ens_scratch {
	float *z, *rz;
	double *contrib;     /* max(fs.nout, rs.nout) */
	double *pscratch;    /* PCA scratch, the larger of both */
	double *shares;      /* RV_DET_COUNT x nchan per-detector channel shares */
};

static const char *const det_names[RV_DET_COUNT] = {
	[RV_DET_ZSCORE] = "zscore",
	[RV_DET_PCA] = "pca",
	[RV_DET_IFOREST] = "iforest",
	[RV_DET_SPE] = "spe",
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

int rv_fusion_parse(const char *name)
{
	for (int f = 0; f < RV_FUSE_COUNT; f++)
		if (strcmp(name, fusion_names[f]) == 0)
			return f;
	return -1;
}

static int enabled(const struct rv_ensemble *e, enum rv_det d)
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
	if (!s->z || !s->rz || !s->contrib || !s->pscratch || !s->shares) {
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
	free(s->shares);
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

static double zscore_score(const float *z, size_t n, double *contrib)
{
	double sum = 0.0;

	for (size_t j = 0; j < n; j++) {
		double a = fabs((double)z[j]);
		sum += a;
		if (contrib)
			contrib[j] = a;
	}
	return n ? sum / (double)n : 0.0;
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
		if (!enabled(e, (enum rv_det)d))
			continue;
		switch (d) {
		case RV_DET_ZSCORE:
			score[d] = zscore_score(s->z, e->fs.nout, c);
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

static void fuse(const struct rv_ensemble *e, struct rv_ens_result *res)
{
	unsigned votes = 0, n = 0;
	double sum = 0.0;

	res->flags = 0;
	for (int d = 0; d < RV_DET_COUNT; d++) {
		res->ratio[d] = 0.0;
		if (!enabled(e, (enum rv_det)d))
			continue;
		res->ratio[d] = res->score[d] / e->thr[d];
		if (res->score[d] > e->thr[d]) {
			res->flags |= RV_DET_BIT(d);
			votes++;
		}
		sum += res->ratio[d];
		n++;
	}
	res->fused = n ? sum / n : 0.0;
	if (e->cfg.fusion == RV_FUSE_VOTE)
		res->anomaly = votes >= e->cfg.vote_k;
	else
		res->anomaly = res->fused > e->fuse_thr;
}

void rv_ens_score(const struct rv_ensemble *e, const float *feat, const float *raw,
		  struct rv_ens_scratch *s, struct rv_ens_result *res, double *chan_weight)
{
	unsigned use;

	score_raw(e, feat, raw, s, res->score, chan_weight ? s->shares : NULL);
	fuse(e, res);
	if (!chan_weight)
		return;
	memset(chan_weight, 0, e->nchan * sizeof(*chan_weight));
	use = res->flags ? res->flags : e->cfg.enabled;
	for (int d = 0; d < RV_DET_COUNT; d++) {
		const double *sh = s->shares + (size_t)d * e->nchan;
		if (!(use & RV_DET_BIT(d)))
			continue;
		for (size_t c = 0; c < e->nchan; c++)
			chan_weight[c] += res->ratio[d] * sh[c];
	}
}

/* Threshold of detector d from its training scores (sorted in place). */
static double threshold_of(const struct rv_ensemble *e, enum rv_det d, double *v, size_t n)
{
	double q = d == RV_DET_IFOREST ? 1.0 - e->cfg.contamination : e->cfg.quantile;
	double t = rv_quantile_inplace(v, n, q);

	return t > ENS_MIN_THRESHOLD ? t : ENS_MIN_THRESHOLD;
}

static int fit_thresholds(struct rv_ensemble *e, const struct rv_ens_train *tr)
{
	struct rv_ens_scratch *s = rv_ens_scratch_new(e);
	double *v = malloc(tr->n * RV_DET_COUNT * sizeof(*v));
	double *tmp = malloc(tr->n * sizeof(*tmp));
	struct rv_ens_result res;
	int rc = 0;

	if (!s || !v || !tmp) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < tr->n; i++) {
		const float *raw = tr->raw ? tr->raw + i * tr->nraw : NULL;
		score_raw(e, tr->feat + i * tr->nfeat, raw, s, res.score, NULL);
		for (int d = 0; d < RV_DET_COUNT; d++)
			v[i * RV_DET_COUNT + (size_t)d] = res.score[d];
	}
	for (int d = 0; d < RV_DET_COUNT; d++) {
		e->thr[d] = 1.0;
		if (!enabled(e, (enum rv_det)d))
			continue;
		for (size_t i = 0; i < tr->n; i++)
			tmp[i] = v[i * RV_DET_COUNT + (size_t)d];
		e->thr[d] = threshold_of(e, (enum rv_det)d, tmp, tr->n);
	}
	/* The fused score needs the thresholds; its own threshold is a quantile
	 * of the training windows' fused scores. */
	for (size_t i = 0; i < tr->n; i++) {
		memcpy(res.score, v + i * RV_DET_COUNT, sizeof(res.score));
		fuse(e, &res);
		tmp[i] = res.fused;
	}
	e->fuse_thr = rv_quantile_inplace(tmp, tr->n, e->cfg.fuse_quantile);
out:
	free(v);
	free(tmp);
	rv_ens_scratch_free(s);
	return rc;
}

/* Standardizes n rows of x with sc into a new n x sc->nout matrix. */
static float *standardize(const struct rv_scaler *sc, const float *x, size_t n)
{
	float *z = malloc(n * sc->nout * sizeof(*z));

	if (!z)
		return NULL;
	for (size_t i = 0; i < n; i++)
		rv_scaler_apply(sc, x + i * sc->nin, z + i * sc->nout);
	return z;
}

static int fit_feature_detectors(struct rv_ensemble *e, const struct rv_ens_train *tr,
				 struct rv_err *err)
{
	float *z;
	int rc;

	rc = rv_scaler_fit(&e->fs, tr->feat, tr->n, tr->nfeat, err);
	if (rc)
		return rc;
	if (!(e->cfg.enabled & (RV_DET_BIT(RV_DET_PCA) | RV_DET_BIT(RV_DET_IFOREST))))
		return 0;
	z = standardize(&e->fs, tr->feat, tr->n);
	if (!z)
		return -ENOMEM;
	if (enabled(e, RV_DET_PCA))
		rc = rv_pca_fit(z, tr->n, e->fs.nout, e->cfg.var_keep, e->cfg.pca_max_comp,
				&e->pca, err);
	if (!rc && enabled(e, RV_DET_IFOREST))
		rc = rv_iforest_fit(z, tr->n, e->fs.nout, &e->cfg.iforest, &e->ifo, err);
	free(z);
	return rc;
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
	z = standardize(&e->rs, tr->raw, tr->n);
	if (!z)
		return -ENOMEM;
	rc = rv_pca_fit(z, tr->n, e->rs.nout, e->cfg.spe_var_keep, e->cfg.pca_max_comp, &e->spe,
			err);
	free(z);
	return rc;
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
		rc = fit_feature_detectors(e, tr, err);
	if (!rc && enabled(e, RV_DET_SPE))
		rc = fit_spe(e, tr, err);
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

static void save_config(const struct rv_ens_config *c, struct rv_wbuf *b)
{
	rv_wbuf_u32(b, c->enabled);
	rv_wbuf_f64(b, c->quantile);
	rv_wbuf_f64(b, c->contamination);
	rv_wbuf_f64(b, c->var_keep);
	rv_wbuf_f64(b, c->spe_var_keep);
	rv_wbuf_u64(b, c->pca_max_comp);
	rv_wbuf_u64(b, c->iforest.trees);
	rv_wbuf_u64(b, c->iforest.samples);
	rv_wbuf_u64(b, c->iforest.seed);
	rv_wbuf_u32(b, c->fusion);
	rv_wbuf_u32(b, c->vote_k);
	rv_wbuf_f64(b, c->fuse_quantile);
}

static int load_config(struct rv_ens_config *c, struct rv_rbuf *b)
{
	c->enabled = rv_rbuf_u32(b);
	c->quantile = rv_rbuf_f64(b);
	c->contamination = rv_rbuf_f64(b);
	c->var_keep = rv_rbuf_f64(b);
	c->spe_var_keep = rv_rbuf_f64(b);
	c->pca_max_comp = rv_rbuf_u64(b);
	c->iforest.trees = rv_rbuf_u64(b);
	c->iforest.samples = rv_rbuf_u64(b);
	c->iforest.seed = rv_rbuf_u64(b);
	c->fusion = rv_rbuf_u32(b);
	c->vote_k = rv_rbuf_u32(b);
	c->fuse_quantile = rv_rbuf_f64(b);
	if (b->bad || !(c->enabled & ((1u << RV_DET_COUNT) - 1)) ||
	    c->enabled >= (1u << RV_DET_COUNT) || c->fusion >= RV_FUSE_COUNT)
		return -EINVAL;
	return 0;
}

void rv_ens_save(const struct rv_ensemble *e, struct rv_wbuf *b)
{
	rv_wbuf_u32(b, ENS_TAG);
	rv_wbuf_u32(b, ENS_VERSION);
	save_config(&e->cfg, b);
	rv_wbuf_u64(b, e->nfeat);
	rv_wbuf_u64(b, e->nraw);
	rv_wbuf_u64(b, e->nchan);
	for (size_t j = 0; j < e->nfeat; j++)
		rv_wbuf_u32(b, e->feat_chan[j]);
	for (size_t j = 0; j < e->nraw; j++)
		rv_wbuf_u32(b, e->raw_chan[j]);
	rv_wbuf_f64s(b, e->thr, RV_DET_COUNT);
	rv_wbuf_f64(b, e->fuse_thr);
	rv_scaler_save(&e->fs, b);
	if (enabled(e, RV_DET_PCA))
		rv_pca_save(e->pca, b);
	if (enabled(e, RV_DET_IFOREST))
		rv_iforest_save(e->ifo, b);
	if (enabled(e, RV_DET_SPE)) {
		rv_scaler_save(&e->rs, b);
		rv_pca_save(e->spe, b);
	}
}

static int load_maps(struct rv_ensemble *e, struct rv_rbuf *b)
{
	e->nfeat = rv_rbuf_u64(b);
	e->nraw = rv_rbuf_u64(b);
	e->nchan = rv_rbuf_u64(b);
	if (b->bad || e->nchan == 0 || !rv_rbuf_has(b, e->nfeat + e->nraw, 4))
		return -EINVAL;
	e->feat_chan = malloc((e->nfeat ? e->nfeat : 1) * sizeof(uint32_t));
	e->raw_chan = malloc((e->nraw ? e->nraw : 1) * sizeof(uint32_t));
	if (!e->feat_chan || !e->raw_chan)
		return -ENOMEM;
	for (size_t j = 0; j < e->nfeat; j++)
		if ((e->feat_chan[j] = rv_rbuf_u32(b)) >= e->nchan)
			return -EINVAL;
	for (size_t j = 0; j < e->nraw; j++)
		if ((e->raw_chan[j] = rv_rbuf_u32(b)) >= e->nchan)
			return -EINVAL;
	rv_rbuf_f64s(b, e->thr, RV_DET_COUNT);
	e->fuse_thr = rv_rbuf_f64(b);
	for (int d = 0; d < RV_DET_COUNT; d++)
		if (!(e->thr[d] > 0.0) || !isfinite(e->thr[d]))
			return -EINVAL;
	return b->bad || !isfinite(e->fuse_thr) ? -EINVAL : 0;
}

static int load_detectors(struct rv_ensemble *e, struct rv_rbuf *b, struct rv_err *err)
{
	int rc = rv_scaler_load(&e->fs, b, err);

	if (!rc && e->fs.nin != e->nfeat)
		rc = rv_err_set(err, -EINVAL, "model: scaler does not match the feature count");
	if (!rc && enabled(e, RV_DET_PCA)) {
		rc = rv_pca_load(b, &e->pca, err);
		if (!rc && rv_pca_dim(e->pca) != e->fs.nout)
			rc = rv_err_set(err, -EINVAL, "model: PCA dimension mismatch");
	}
	if (!rc && enabled(e, RV_DET_IFOREST)) {
		rc = rv_iforest_load(b, &e->ifo, err);
		if (!rc && rv_iforest_dim(e->ifo) != e->fs.nout)
			rc = rv_err_set(err, -EINVAL, "model: Isolation Forest dimension mismatch");
	}
	if (!rc && enabled(e, RV_DET_SPE)) {
		rc = rv_scaler_load(&e->rs, b, err);
		if (!rc && e->rs.nin != e->nraw)
			rc = rv_err_set(err, -EINVAL, "model: raw scaler mismatch");
		if (!rc)
			rc = rv_pca_load(b, &e->spe, err);
		if (!rc && rv_pca_dim(e->spe) != e->rs.nout)
			rc = rv_err_set(err, -EINVAL, "model: raw PCA dimension mismatch");
	}
	return rc;
}

int rv_ens_load(struct rv_rbuf *b, struct rv_ensemble **out, struct rv_err *err)
{
	struct rv_ensemble *e;
	int rc;

	*out = NULL;
	if (rv_rbuf_u32(b) != ENS_TAG || rv_rbuf_u32(b) != ENS_VERSION)
		return rv_err_set(err, -EINVAL, "model: detector section has a bad tag or version");
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	rc = load_config(&e->cfg, b);
	if (rc)
		rv_err_set(err, rc, "model: invalid detector configuration");
	if (!rc) {
		rc = load_maps(e, b);
		if (rc)
			rv_err_set(err, rc, "model: invalid channel maps or thresholds");
	}
	if (!rc)
		rc = load_detectors(e, b, err);
	if (rc) {
		rv_ens_free(e);
		return rc;
	}
	*out = e;
	return 0;
}
