/*
 * live.c - see live.h. The window is copied channel-major into a small
 * table (window x nchan floats), so the feature code and the spe detector's
 * raw row read it exactly as they read an offline table.
 */
#include "pipeline/live.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "features/window.h"
#include "pipeline/novelty.h"
#include "pipeline/rank.h"

struct rv_live {
	const struct rv_model *m;
	size_t nfeat, nraw;
	float *tbl;                      /* nchan x window, channel-major */
	float *feat, *raw;
	double *fscratch, *weight, *mean;
	double *nratio;                  /* the novelty's per-channel ratios */
	uint32_t *rank;
	struct rv_ranked *rk;
	uint8_t *chan_sub;
	struct rv_ens_scratch *scratch;
};

void rv_live_free(struct rv_live *l)
{
	if (!l)
		return;
	free(l->tbl);
	free(l->feat);
	free(l->raw);
	free(l->fscratch);
	free(l->weight);
	free(l->mean);
	free(l->nratio);
	free(l->rank);
	free(l->rk);
	free(l->chan_sub);
	rv_ens_scratch_free(l->scratch);
	free(l);
}

int rv_live_new(const struct rv_model *m, struct rv_live **out)
{
	struct rv_live *l = calloc(1, sizeof(*l));
	size_t n = m->nchan ? m->nchan : 1;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	l->m = m;
	l->nfeat = rv_featmat_width(m->nchan, m->masks);
	l->nraw = m->nchan * m->nraw_pts;
	l->tbl = malloc(n * m->window * sizeof(*l->tbl));
	l->feat = malloc((l->nfeat ? l->nfeat : 1) * sizeof(*l->feat));
	l->raw = malloc((l->nraw ? l->nraw : 1) * sizeof(*l->raw));
	l->fscratch = malloc((rv_featmat_scratch_len(m->nchan, m->masks, m->window) + 1) *
			     sizeof(*l->fscratch));
	l->weight = calloc(n, sizeof(*l->weight));
	l->mean = calloc(n, sizeof(*l->mean));
	l->nratio = calloc(m->nov.n ? m->nov.n : 1, sizeof(*l->nratio));
	l->rank = calloc(n, sizeof(*l->rank));
	l->rk = calloc(n, sizeof(*l->rk));
	l->chan_sub = calloc(n, 1);
	l->scratch = rv_ens_scratch_new(m->ens);
	if (!l->tbl || !l->feat || !l->raw || !l->fscratch || !l->weight || !l->mean ||
	    !l->nratio || !l->rank || !l->rk || !l->chan_sub || !l->scratch) {
		rv_live_free(l);
		return -ENOMEM;
	}
	for (size_t c = 0; c < m->nchan; c++)
		l->chan_sub[c] = (uint8_t)rv_catalog_subsystem(m->names[c]);
	*out = l;
	return 0;
}

void rv_live_score(struct rv_live *l, const float *const *rows, struct rv_live_out *out)
{
	const struct rv_model *m = l->m;
	size_t w = m->window;

	for (size_t c = 0; c < m->nchan; c++) {
		float *col = l->tbl + c * w;
		double sum = 0.0;

		for (size_t r = 0; r < w; r++) {
			col[r] = rows[r][c];
			sum += col[r];
		}
		l->mean[c] = sum / (double)w;
	}
	rv_featmat_rows(l->tbl, w, m->nchan, m->masks, m->flat_below, w, m->step, 0, 1, l->feat,
			l->fscratch);
	if (l->nraw) {
		struct rv_table t = { .nrows = w, .ncols = m->nchan, .values = l->tbl };
		rv_model_raw_row(m, &t, w - 1, l->raw);
	}
	rv_ens_score(m->ens, l->feat, l->nraw ? l->raw : NULL, l->scratch, &out->res, NULL);
	rv_novelty_score(m, l->tbl, w, 0, &out->res, l->nratio);
	rv_ens_explain(m->ens, l->feat, l->nraw ? l->raw : NULL, l->scratch, &out->res, l->weight);
	rv_novelty_attribute(m, l->nratio, &out->res, l->weight);
	out->flagged = out->res.anomaly || out->res.flags;
	out->weight = l->weight;
	out->rank = l->rank;
	out->mean = l->mean;
	out->nrank = 0;
	out->subsystem = RV_SUB_OTHER;
	if (out->flagged) {
		out->subsystem = rv_rank_channels(m->nchan, l->chan_sub, l->weight, l->rk, l->rank);
		out->nrank = m->nchan;
	}
}
