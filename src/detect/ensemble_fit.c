/*
 * ensemble_fit.c - fitting the detector ensemble (ensemble.h): scalers,
 * standardized training rows, the three model fits side by side, and the
 * thresholds from the scores of the calibration rows (out of fold for
 * wide inputs).
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
#include "detect/pca.h"
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

static int pca_fit(const struct rv_ens_config *cfg, const float *z, size_t ld, size_t n,
		   size_t F, double keep, unsigned threads, struct rv_pca **out,
		   struct rv_err *err);

static double threshold_of(const struct rv_ensemble *e, enum rv_det d, double *v, size_t n)
{
	double q = d == RV_DET_IFOREST ? 1.0 - e->cfg.contamination : e->cfg.quantile;
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
	const struct zview *zf, *zr;   /* features; raw windows (z NULL: no spe) */
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
		rv_ens_score_block(ts->e, feat, fld, raw, rld, n, 1, ts->s[slot], ts->v + i * RV_DET_COUNT);
	}
	return 0;
}

/* Number of calibration rows (see rv_ens_train). */
static size_t cal_rows(const struct rv_ens_train *tr)
{
	return tr->cal_idx ? tr->cal_n : tr->n;
}

/* Raw scores of every calibration row into v (cal_rows x RV_DET_COUNT),
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
		ts.s[t] = rv_ens_scratch_new(e);
		ts.gf[t] = malloc(RV_ENS_BATCH * (e->fs.nout ? e->fs.nout : 1) * sizeof(float));
		ts.gr[t] = malloc(RV_ENS_BATCH * (e->rs.nout ? e->rs.nout : 1) * sizeof(float));
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
		    const struct zview *zv, double *v)
{
	const struct rv_scaler *sc = d == RV_DET_SPE ? &e->rs : &e->fs;
	size_t half = tr->n / 2, dims = sc->nout, ld = zv->ld;
	const float *z = zv->z;
	double *scratch = NULL;
	int rc = 0;
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

		rc = pca_fit(&fold_cfg, z + f0 * ld, ld, fn, dims, 1.0, tr->threads, &p, NULL);
		if (!rc && !(scratch = realloc(scratch, rv_pca_scratch_len(p) * sizeof(double))))
			rc = -ENOMEM;
		for (size_t i = t0; i < t0 + tn && !rc; i++) {
			const float *row = z + i * ld;
			v[i * RV_DET_COUNT + (size_t)d] = d == RV_DET_SPE
				? rv_pca_spe(p, row, NULL, scratch) : rv_pca_t2(p, row, NULL, scratch);
		}
		rv_pca_free(p);
	}
	free(scratch);
	return rc;
}

static int out_of_fold(const struct rv_ensemble *e, const struct rv_ens_train *tr,
		       const struct zview *zf, const struct zview *zr, double *v)
{
	static const enum rv_det subspace[] = { RV_DET_PCA, RV_DET_SPE };
	int rc = 0;

	if (tr->n < 2 * ENS_MIN_ROWS)
		return 0;
	for (size_t i = 0; i < sizeof(subspace) / sizeof(subspace[0]) && !rc; i++) {
		enum rv_det d = subspace[i];
		size_t dims = d == RV_DET_SPE ? e->rs.nout : e->fs.nout;
		if (rv_ens_enabled(e, d) && is_wide(e, tr->n, dims))
			rc = crossfit(e, d, tr, d == RV_DET_SPE ? zr : zf, v);
	}
	return rc;
}

static int fit_thresholds(struct rv_ensemble *e, const struct rv_ens_train *tr,
			  const struct zview *zf, const struct zview *zr)
{
	size_t n = cal_rows(tr);
	double *v = malloc(n * RV_DET_COUNT * sizeof(*v));
	double *tmp = malloc(n * sizeof(*tmp));
	struct rv_ens_result res;
	int rc = v && tmp ? score_training(e, tr, zf, zr, v) : -ENOMEM;

	if (!rc && !tr->cal_idx)
		rc = out_of_fold(e, tr, zf, zr, v);
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
 * PCA fit with BLAS threads only for large problems: below BLAS_THREAD_MIN
 * rows or columns the threads' spin-waiting after each call costs more CPU
 * than the parallel speed-up saves, and it steals the cores from our own
 * scoring threads.
 */
static int is_big(size_t n, size_t F)
{
	return (n < F ? n : F) >= BLAS_THREAD_MIN;
}

static int pca_fit(const struct rv_ens_config *cfg, const float *z, size_t ld, size_t n,
		   size_t F, double keep, unsigned threads, struct rv_pca **out,
		   struct rv_err *err)
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
	int rc = rv_pca_fit_ld(z, ld, n, F, keep, max_comp, out, err);

	rv_ens_blas_threads(before);
	return rc;
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

/* The three model fits are independent: they run side by side. */
enum { TASK_PCA, TASK_IFOREST, TASK_SPE, TASK_COUNT };

struct fit_tasks {
	struct rv_ensemble *e;
	const struct rv_ens_train *tr;
	const struct zview *zf, *zr;    /* standardized features, raw windows */
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
			ft->rc[t] = pca_fit(&e->cfg, ft->zf->z, ft->zf->ld, tr->n, e->fs.nout,
					    e->cfg.var_keep, tr->threads, &e->pca, err);
		else if (t == TASK_IFOREST && rv_ens_enabled(e, RV_DET_IFOREST))
			ft->rc[t] = rv_iforest_fit_ld(ft->zf->z, ft->zf->ld, tr->n, e->fs.nout,
						      &e->cfg.iforest, &e->ifo, err);
		else if (t == TASK_SPE && rv_ens_enabled(e, RV_DET_SPE))
			ft->rc[t] = pca_fit(&e->cfg, ft->zr->z, ft->zr->ld, tr->n, e->rs.nout,
					    e->cfg.spe_var_keep, tr->threads, &e->spe, err);
	}
	return 0;
}

/* The scalers, then the standardized rows (zf, zr; the caller finishes
 * them with zview_fini). */
static int standardize_inputs(struct rv_ensemble *e, const struct rv_ens_train *tr,
			      struct zview *zf, struct zview *zr, struct rv_err *err)
{
	int spe = rv_ens_enabled(e, RV_DET_SPE), rc;

	if (spe && (!tr->raw || !tr->raw_chan || tr->nraw == 0))
		return rv_err_set(err, -EINVAL, "the spe detector needs the raw windows");
	/* A feature that stood still in training and has a floor is kept (the
	 * error count of a healthy link); a raw value is not: spe would put
	 * every later move of it into the residual, unweighed by any
	 * component. */
	rc = rv_scaler_fit_floor(&e->fs, tr->feat, tr->n, tr->nfeat, tr->threads, tr->feat_floor,
				 1, err);
	if (!rc && spe)
		rc = rv_scaler_fit_floor(&e->rs, tr->raw, tr->n, tr->nraw, tr->threads, tr->raw_floor,
					 0, err);
	if (!rc) {
		rv_scaler_floor(&e->fs, e->cfg.sd_floor_rel);
		rv_scaler_floor(&e->rs, e->cfg.sd_floor_rel);
	}
	if (!rc)
		rc = zview_make(&e->fs, tr->feat, tr->n, tr->overwrite, tr->threads, zf);
	if (!rc && spe)
		rc = zview_make(&e->rs, tr->raw, tr->n, tr->overwrite, tr->threads, zr);
	return rc;
}

static int fit_detectors(struct rv_ensemble *e, const struct rv_ens_train *tr,
			 const struct zview *zf, const struct zview *zr, struct rv_err *err)
{
	struct fit_tasks ft = { .e = e, .tr = tr, .zf = zf, .zr = zr };
	unsigned threads = tr->threads < TASK_COUNT ? tr->threads : TASK_COUNT;

	/* A large PCA fit sets the process-wide BLAS thread count: two of them
	 * side by side would race for it, and a matrix product split over a
	 * varying number of threads rounds differently from run to run. Large
	 * fits therefore run one after the other, each with every core. */
	if (is_big(tr->n, tr->nfeat) || (rv_ens_enabled(e, RV_DET_SPE) && is_big(tr->n, tr->nraw)))
		threads = 1;
	rv_parallel_for(TASK_COUNT, threads ? threads : 1, fit_task, &ft);
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
	struct zview zf = { 0 }, zr = { 0 };
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
