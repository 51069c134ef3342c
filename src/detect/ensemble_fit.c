/*
 * ensemble_fit.c - fitting the detector ensemble (ensemble.h): scalers,
 * standardized training rows, the detectors' fits side by side (each
 * through its descriptor, detector.h), and the thresholds from the scores
 * of the calibration rows (out of fold for wide inputs).
 */
#include "detect/ensemble.h"
#include "detect/ensemble_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/parallel.h"
#include "base/stats.h"
#include "detect/scaler.h"

enum { ENS_MIN_ROWS = 8 };

/* A threshold never below this, so a detector whose training scores are all
 * 0 (possible for spe on perfectly reconstructible data) still divides. */
#define ENS_MIN_THRESHOLD 1e-12
/* Without a component cap, a subspace detector counts as wide when it has
 * more than n / this many dimensions. */
#define CROSSFIT_ROWS_PER_DIM 10
/* Matrix size from which a PCA fit uses BLAS threads. */
#define BLAS_THREAD_MIN 1024

static double threshold_of(const struct rv_ensemble *e, int d, double *v, size_t n)
{
	double q = rv_det_ops(d)->threshold == RV_DET_THR_CONTAMINATION
		? 1.0 - e->cfg.contamination : e->cfg.quantile;
	double t = rv_quantile_inplace(v, n, q);

	return t > ENS_MIN_THRESHOLD ? t : ENS_MIN_THRESHOLD;
}

/* Standardized training rows: row i at z + i * ld, the scaler's nout
 * values; a copy of the input (owned) or the input standardized in place. */
struct zview {
	float *z;
	size_t ld;
	int owned;
};

struct train_scoring {
	const struct rv_ensemble *e;
	const struct rv_ens_train *tr;
	const struct zview *zf, *zr;   /* features; raw windows (z NULL: none reads them) */
	struct rv_ens_scratch *s[RV_PARALLEL_MAX];
	float *gf[RV_PARALLEL_MAX];    /* a batch of gathered calibration rows */
	float *gr[RV_PARALLEL_MAX];
	size_t n;                      /* rows scored */
	double *v;                     /* n x e->ndet raw scores */
};

static int score_train_slice(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct train_scoring *ts = ctx;
	const struct rv_ens_train *tr = ts->tr;
	const struct zview *zf = ts->zf, *zr = ts->zr;
	size_t fo = ts->e->fs.nout, ro = ts->e->rs.nout;

	for (size_t i = begin * RV_ENS_BATCH; i < end * RV_ENS_BATCH && i < ts->n;
	     i += RV_ENS_BATCH) {
		size_t n = ts->n - i < RV_ENS_BATCH ? ts->n - i : RV_ENS_BATCH;
		const float *feat = zf->z + i * zf->ld;
		const float *raw = zr->z ? zr->z + i * zr->ld : NULL;
		size_t fld = zf->ld, rld = zr->ld;

		if (tr->cal_idx) {
			for (size_t k = 0; k < n; k++) {
				size_t r = tr->cal_idx[i + k];

				memcpy(ts->gf[slot] + k * fo, zf->z + r * zf->ld, fo * sizeof(float));
				if (zr->z)
					memcpy(ts->gr[slot] + k * ro, zr->z + r * zr->ld,
					       ro * sizeof(float));
			}
			feat = ts->gf[slot];
			raw = zr->z ? ts->gr[slot] : NULL;
			fld = fo;
			rld = ro;
		}
		rv_ens_score_block(ts->e, feat, fld, raw, rld, n, 1, ts->s[slot],
				   ts->v + i * (size_t)ts->e->ndet, (size_t)ts->e->ndet);
	}
	return 0;
}

/* Number of calibration rows (see rv_ens_train). */
static size_t cal_rows(const struct rv_ens_train *tr)
{
	return tr->cal_idx ? tr->cal_n : tr->n;
}

/* Raw scores of every calibration row into v (cal_rows x e->ndet),
 * in parallel, from the standardized training rows. */
static int score_training(const struct rv_ensemble *e, const struct rv_ens_train *tr,
			  const struct zview *zf, const struct zview *zr, double *v)
{
	unsigned threads = tr->threads ? tr->threads : 1;
	struct train_scoring ts = { .e = e, .tr = tr, .zf = zf, .zr = zr, .v = v,
				    .n = cal_rows(tr) };
	int rc = 0, blas;

	if (threads > RV_PARALLEL_MAX)
		threads = RV_PARALLEL_MAX;
	for (unsigned t = 0; t < threads && !rc; t++) {
		rc = rv_ens_scratch_new(e, &ts.s[t]);
		ts.gf[t] = malloc(RV_ENS_BATCH * (e->fs.nout ? e->fs.nout : 1) * sizeof(float));
		ts.gr[t] = malloc(RV_ENS_BATCH * (e->rs.nout ? e->rs.nout : 1) * sizeof(float));
		if (!rc && (!ts.gf[t] || !ts.gr[t]))
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

static int out_of_fold(const struct rv_ensemble *e, const struct rv_ens_train *tr,
		       const struct zview *zf, const struct zview *zr, double *v)
{
	int rc = 0;

	if (tr->n < 2 * ENS_MIN_ROWS)
		return 0;
	for (int d = 0; d < e->ndet && !rc; d++) {
		const struct rv_detector_ops *o = rv_det_ops(d);
		int in_raw = o->input == RV_DET_IN_RAW;
		const struct zview *zv = in_raw ? zr : zf;
		struct rv_det_rows rows = { zv->z, zv->ld, tr->n, rv_ens_scaler(e, d)->nout,
					    tr->threads };

		if (rv_ens_enabled(e, d) && o->fold_scores && is_wide(e, tr->n, rows.dim))
			rc = o->fold_scores(&e->cfg, e->state[d], &rows, v + d, (size_t)e->ndet);
	}
	return rc;
}

static int fit_thresholds(struct rv_ensemble *e, const struct rv_ens_train *tr,
			  const struct zview *zf, const struct zview *zr)
{
	size_t n = cal_rows(tr), nd = (size_t)e->ndet;
	double *v = malloc(n * nd * sizeof(*v));
	double *tmp = malloc(n * sizeof(*tmp));
	struct rv_ens_result res;
	int rc = v && tmp ? score_training(e, tr, zf, zr, v) : -ENOMEM;

	if (!rc && !tr->cal_idx)
		rc = out_of_fold(e, tr, zf, zr, v);
	for (int d = 0; d < RV_DET_MAX && !rc; d++) {
		e->thr[d] = 1.0;
		if (!rv_ens_enabled(e, d))
			continue;
		for (size_t i = 0; i < n; i++)
			tmp[i] = v[i * nd + (size_t)d];
		e->thr[d] = threshold_of(e, d, tmp, n);
	}
	/* The fused score needs the thresholds; its own threshold is a quantile
	 * of the calibration windows' fused scores. */
	memset(&res, 0, sizeof(res));
	for (size_t i = 0; i < n && !rc; i++) {
		memcpy(res.score, v + i * nd, nd * sizeof(*v));
		rv_ens_fuse(e, &res);
		tmp[i] = res.fused;
	}
	if (!rc)
		e->fuse_thr = rv_quantile_inplace(tmp, n, e->cfg.fuse_quantile);
	free(v);
	free(tmp);
	return rc;
}

/*
 * A PCA fit uses BLAS threads only for large problems (det_pca.c): below
 * BLAS_THREAD_MIN rows or columns the threads' spin-waiting after each
 * call costs more CPU than the parallel speed-up saves, and it steals the
 * cores from our own scoring threads.
 */
int rv_ens_big(size_t n, size_t F)
{
	return (n < F ? n : F) >= BLAS_THREAD_MIN;
}

struct standardizing {
	const struct rv_scaler *sc;
	const float *x;         /* rows sc->nin apart */
	float *z;               /* rows ld apart; may be x */
	size_t ld;
};

static int standardize_slice(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct standardizing *st = ctx;

	(void)slot;
	/* In place (z == x, ld == nin) each row is rewritten front to back:
	 * kept column o comes from input column keep[o] >= o, and keep rises,
	 * so no value is overwritten before it is read. */
	for (size_t i = begin; i < end; i++)
		rv_scaler_apply(st->sc, st->x + i * st->sc->nin, st->z + i * st->ld);
	return 0;
}

/* Standardizes the n rows of x with sc: in place (the rows keep their
 * stride), or into a new n x sc->nout matrix. */
static int zview_make(const struct rv_scaler *sc, float *x, size_t n, int in_place,
		      unsigned threads, struct zview *v)
{
	struct standardizing st = { sc, x, x, sc->nin };

	if (!in_place) {
		st.z = rv_big_array(n * sc->nout, sizeof(float));
		st.ld = sc->nout;
		if (!st.z)
			return -ENOMEM;
	}
	rv_parallel_for(n, threads ? threads : 1, standardize_slice, &st);
	v->z = st.z;
	v->ld = st.ld;
	v->owned = !in_place;
	return 0;
}

static void zview_fini(struct zview *v)
{
	if (v->owned)
		rv_big_free(v->z);
	memset(v, 0, sizeof(*v));
}

/* The detectors' fits are independent: they run side by side, one task
 * per detector of the table. */
struct fit_tasks {
	struct rv_ensemble *e;
	const struct rv_ens_train *tr;
	const struct zview *zf, *zr;    /* standardized features, raw windows */
	struct rv_err err[RV_DET_MAX];
	int rc[RV_DET_MAX];
};

static int fit_task(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct fit_tasks *ft = ctx;
	struct rv_ensemble *e = ft->e;

	(void)slot;
	for (size_t t = begin; t < end; t++) {
		int d = (int)t;
		const struct rv_detector_ops *o = rv_det_ops(d);
		const struct zview *zv = o->input == RV_DET_IN_RAW ? ft->zr : ft->zf;
		struct rv_det_rows rows = { zv->z, zv->ld, ft->tr->n, rv_ens_scaler(e, d)->nout,
					    ft->tr->threads };

		if (rv_ens_enabled(e, d) && o->fit)
			ft->rc[t] = o->fit(&e->cfg, &rows, &e->state[d], &ft->err[t]);
	}
	return 0;
}

/* The scalers, then the standardized rows (zf, zr; the caller finishes
 * them with zview_fini). */
static int standardize_inputs(struct rv_ensemble *e, const struct rv_ens_train *tr,
			      struct zview *zf, struct zview *zr, struct rv_err *err)
{
	int raw = rv_ens_uses_raw(e), rc;

	for (int d = 0; d < e->ndet && raw; d++)
		if (rv_ens_enabled(e, d) && rv_det_ops(d)->input == RV_DET_IN_RAW &&
		    (!tr->raw || !tr->raw_chan || tr->nraw == 0))
			return rv_err_set(err, -EINVAL, "the %s detector needs the raw windows",
					  rv_det_name(d));
	/* A feature that stood still in training and has a floor is kept (the
	 * error count of a healthy link); a raw value is not: spe would put
	 * every later move of it into the residual, unweighed by any
	 * component. */
	rc = rv_scaler_fit_floor(&e->fs, tr->feat, tr->n, tr->nfeat, tr->threads, tr->feat_floor,
				 1, err);
	if (!rc && raw)
		rc = rv_scaler_fit_floor(&e->rs, tr->raw, tr->n, tr->nraw, tr->threads, tr->raw_floor,
					 0, err);
	if (!rc) {
		rv_scaler_floor(&e->fs, e->cfg.sd_floor_rel);
		rv_scaler_floor(&e->rs, e->cfg.sd_floor_rel);
	}
	if (!rc)
		rc = zview_make(&e->fs, tr->feat, tr->n, tr->overwrite, tr->threads, zf);
	if (!rc && raw)
		rc = zview_make(&e->rs, tr->raw, tr->n, tr->overwrite, tr->threads, zr);
	return rc;
}

static int fit_detectors(struct rv_ensemble *e, const struct rv_ens_train *tr,
			 const struct zview *zf, const struct zview *zr, struct rv_err *err)
{
	struct fit_tasks ft = { .e = e, .tr = tr, .zf = zf, .zr = zr };
	unsigned ntask = (unsigned)e->ndet;
	unsigned threads = tr->threads < ntask ? tr->threads : ntask;

	/* A large PCA fit sets the process-wide BLAS thread count: two of them
	 * side by side would race for it, and a matrix product split over a
	 * varying number of threads rounds differently from run to run. Large
	 * fits therefore run one after the other, each with every core. */
	if (rv_ens_big(tr->n, tr->nfeat) || (rv_ens_uses_raw(e) && rv_ens_big(tr->n, tr->nraw)))
		threads = 1;
	rv_parallel_for(ntask, threads ? threads : 1, fit_task, &ft);
	for (unsigned t = 0; t < ntask; t++) {
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
	struct zview zf = { 0 }, zr = { 0 };
	int rc;

	*out = NULL;
	if (!(cfg->enabled & ((1u << rv_det_count()) - 1)))
		return rv_err_set(err, -EINVAL, "no detector enabled");
	if (tr->n < ENS_MIN_ROWS)
		return rv_err_set(err, -EINVAL,
				  "%zu training windows; at least %d are needed to fit the detectors",
				  tr->n, ENS_MIN_ROWS);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->cfg = *cfg;
	e->ndet = rv_det_count();
	e->cfg.enabled &= (1u << e->ndet) - 1;
	e->nfeat = tr->nfeat;
	e->nraw = tr->raw ? tr->nraw : 0;
	e->nchan = tr->nchan;
	e->feat_chan = copy_u32(tr->feat_chan, tr->nfeat);
	e->raw_chan = copy_u32(tr->raw_chan ? tr->raw_chan : tr->feat_chan,
			       tr->raw_chan ? e->nraw : 0);
	rc = e->feat_chan && e->raw_chan ? 0 : -ENOMEM;
	if (!rc)
		rc = standardize_inputs(e, tr, &zf, &zr, err);
	if (!rc)
		rc = fit_detectors(e, tr, &zf, &zr, err);
	if (!rc)
		rc = fit_thresholds(e, tr, &zf, &zr);
	zview_fini(&zf);
	zview_fini(&zr);
	if (rc) {
		rv_ens_free(e);
		return rc;
	}
	*out = e;
	return 0;
}
