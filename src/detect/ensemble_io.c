/*
 * ensemble_io.c - the detector section of a model file (rv_ens_save,
 * rv_ens_load): configuration, channel maps, thresholds, then the scaler
 * and each enabled detector's own section (its descriptor's save/load,
 * detector.h). Loading validates every size and value before use; bad
 * input is refused with a message, never a crash.
 *
 * Layout (version 1): tag, version, config (enabled: bit d is detector d
 * of the table), nfeat, nraw, nchan, the channel maps, the thresholds of
 * the RV_DET_FIXED detectors with fixed indices (zscore, pca, iforest,
 * spe), the fused threshold; then, for each enabled detector after them
 * (bit >= RV_DET_FIXED, ascending), its name and threshold; then the
 * feature scaler and each enabled detector's section in bit order, the
 * raw scaler just before the first one reading the raw windows. A model
 * of the fixed four only has no name records: its bytes are those of the
 * files written before the table.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/ensemble.h"
#include "detect/ensemble_int.h"

enum { ENS_TAG = 0x534e4552u /* "RENS" */, ENS_VERSION = 1 };
/* Longest detector name a model file may hold. */
enum { ENS_NAME_MAX = 64 };

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
	if (b->bad || !(c->zscore_top >= 0.0 && c->zscore_top <= 1.0) || c->enabled == 0 ||
	    c->enabled >= (1u << RV_DET_MAX) || c->fusion >= RV_FUSE_COUNT)
		return -EINVAL;
	return 0;
}

static void save_detectors(const struct rv_ensemble *e, struct rv_wbuf *b)
{
	int raw_done = 0;

	rv_scaler_save(&e->fs, b);
	for (int d = 0; d < e->ndet; d++) {
		const struct rv_detector_ops *o = rv_det_ops(d);

		if (!rv_ens_enabled(e, d))
			continue;
		if (o->input == RV_DET_IN_RAW && !raw_done) {
			rv_scaler_save(&e->rs, b);
			raw_done = 1;
		}
		if (o->save)
			o->save(e->state[d], b);
	}
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
	rv_wbuf_f64s(b, e->thr, RV_DET_FIXED);
	rv_wbuf_f64(b, e->fuse_thr);
	for (int d = RV_DET_FIXED; d < e->ndet; d++) {
		if (!rv_ens_enabled(e, d))
			continue;
		rv_wbuf_str(b, rv_det_name(d));
		rv_wbuf_f64(b, e->thr[d]);
	}
	save_detectors(e, b);
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
	rv_rbuf_f64s(b, e->thr, RV_DET_FIXED);
	e->fuse_thr = rv_rbuf_f64(b);
	for (int d = 0; d < RV_DET_FIXED; d++)
		if (!(e->thr[d] > 0.0) || !isfinite(e->thr[d]))
			return -EINVAL;
	return b->bad || !isfinite(e->fuse_thr) ? -EINVAL : 0;
}

/*
 * The name records of the detectors after the fixed four: the file's bits
 * at and above RV_DET_FIXED become this process's indices of the same
 * names (registration order may differ between processes).
 */
static int load_names(struct rv_ensemble *e, struct rv_rbuf *b, struct rv_err *err)
{
	unsigned file = e->cfg.enabled, mask = file & ((1u << RV_DET_FIXED) - 1);

	for (int bit = RV_DET_FIXED; bit < RV_DET_MAX; bit++) {
		char *name;
		int d;

		if (!(file & RV_DET_BIT(bit)))
			continue;
		if (!(name = rv_rbuf_str(b, ENS_NAME_MAX)))
			return rv_err_set(err, -EINVAL, "model: bad detector name record");
		d = rv_det_parse(name);
		if (d < 0 || (mask & RV_DET_BIT(d))) {
			rv_err_set(err, -EINVAL, "model: detector \"%s\" is %s", name,
				   d < 0 ? "not known to this program (not registered)" : "named twice");
			free(name);
			return -EINVAL;
		}
		free(name);
		mask |= RV_DET_BIT(d);
		e->thr[d] = rv_rbuf_f64(b);
		if (b->bad || !(e->thr[d] > 0.0) || !isfinite(e->thr[d]))
			return rv_err_set(err, -EINVAL, "model: invalid threshold of detector %s",
					  rv_det_name(d));
	}
	e->cfg.enabled = mask;
	return 0;
}

static int load_detectors(struct rv_ensemble *e, struct rv_rbuf *b, struct rv_err *err)
{
	int rc = rv_scaler_load(&e->fs, b, err), raw_done = 0;

	if (!rc && e->fs.nin != e->nfeat)
		rc = rv_err_set(err, -EINVAL, "model: scaler does not match the feature count");
	for (int d = 0; d < e->ndet && !rc; d++) {
		const struct rv_detector_ops *o = rv_det_ops(d);

		if (!rv_ens_enabled(e, d))
			continue;
		if (o->input == RV_DET_IN_RAW && !raw_done) {
			raw_done = 1;
			rc = rv_scaler_load(&e->rs, b, err);
			if (!rc && e->rs.nin != e->nraw)
				rc = rv_err_set(err, -EINVAL, "model: raw scaler mismatch");
		}
		if (!rc && o->load)
			rc = o->load(b, rv_ens_scaler(e, d)->nout, &e->state[d], err);
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
	e->ndet = rv_det_count();
	rc = load_config(&e->cfg, b);
	if (rc)
		rv_err_set(err, rc, "model: invalid detector configuration");
	if (!rc) {
		rc = load_maps(e, b);
		if (rc)
			rv_err_set(err, rc, "model: invalid channel maps or thresholds");
	}
	if (!rc)
		rc = load_names(e, b, err);
	if (!rc)
		rc = load_detectors(e, b, err);
	if (rc) {
		rv_ens_free(e);
		return rc;
	}
	*out = e;
	return 0;
}
