/*
 * ensemble_io.c - the detector section of a model file (rv_ens_save,
 * rv_ens_load): configuration, channel maps, thresholds, then the scaler
 * and each enabled detector's own section. Loading validates every size
 * and value before use; bad input is refused with a message, never a crash.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/ensemble.h"
#include "detect/ensemble_int.h"
#include "detect/pca.h"

enum { ENS_TAG = 0x534e4552u /* "RENS" */, ENS_VERSION = 1 };

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
	rv_wbuf_f64(b, c->zscore_top);
	rv_wbuf_u32(b, (uint32_t)c->fuse_geometric);
	rv_wbuf_u32(b, c->attribution);
	rv_wbuf_u64(b, c->pca_rows_per_comp);
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
	c->zscore_top = rv_rbuf_f64(b);
	c->fuse_geometric = rv_rbuf_u32(b) != 0;
	c->attribution = rv_rbuf_u32(b);
	c->pca_rows_per_comp = rv_rbuf_u64(b);
	if (c->attribution >= RV_ATTR_COUNT)
		return -EINVAL;
	if (b->bad || !(c->zscore_top >= 0.0 && c->zscore_top <= 1.0) || !(c->enabled & ((1u << RV_DET_COUNT) - 1)) ||
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
	if (rv_ens_enabled(e, RV_DET_PCA))
		rv_pca_save(e->pca, b);
	if (rv_ens_enabled(e, RV_DET_IFOREST))
		rv_iforest_save(e->ifo, b);
	if (rv_ens_enabled(e, RV_DET_SPE)) {
		rv_scaler_save(&e->rs, b);
		rv_pca_save(e->spe, b);
	}
}

static int load_maps(struct rv_ensemble *e, struct rv_rbuf *b)
{
	e->nfeat = rv_rbuf_u64(b);
	e->nraw = rv_rbuf_u64(b);
	e->nchan = rv_rbuf_u64(b);
	/* Each count is checked on its own: their sum could wrap. */
	if (b->bad || e->nchan == 0 || !rv_rbuf_has(b, e->nfeat, 4) || !rv_rbuf_has(b, e->nraw, 4) ||
	    !rv_rbuf_has(b, e->nfeat + e->nraw, 4) || e->nfeat + e->nraw < e->nfeat)
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
	if (!rc && rv_ens_enabled(e, RV_DET_PCA)) {
		rc = rv_pca_load(b, &e->pca, err);
		if (!rc && rv_pca_dim(e->pca) != e->fs.nout)
			rc = rv_err_set(err, -EINVAL, "model: PCA dimension mismatch");
	}
	if (!rc && rv_ens_enabled(e, RV_DET_IFOREST)) {
		rc = rv_iforest_load(b, &e->ifo, err);
		if (!rc && rv_iforest_dim(e->ifo) != e->fs.nout)
			rc = rv_err_set(err, -EINVAL, "model: Isolation Forest dimension mismatch");
	}
	if (!rc && rv_ens_enabled(e, RV_DET_SPE)) {
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
