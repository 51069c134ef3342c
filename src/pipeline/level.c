/*
 * level.c - levels that moved and stay. See level.h.
 */
#include "pipeline/level.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "detect/ensemble.h"
#include "pipeline/model.h"
#include "pipeline/novelty.h"

void rv_level_fini(struct rv_level *lv)
{
	free(lv->chan);
	free(lv->lo);
	free(lv->hi);
	free(lv->margin);
	memset(lv, 0, sizeof(*lv));
}

/* Watches channel c (a level of the catalog) when training gave it a
 * finite value: appends its range and margin to lv. */
static void fit_channel(struct rv_level *lv, const struct rv_table *t, size_t c, double floor,
			double rel)
{
	const float *col = t->values + c * t->nrows;
	double lo = INFINITY, hi = -INFINITY, sum = 0.0;
	size_t n = 0;

	for (size_t r = 0; r < t->nrows; r++) {
		if (!isfinite(col[r]))
			continue;
		lo = fmin(lo, col[r]);
		hi = fmax(hi, col[r]);
		sum += col[r];
		n++;
	}
	if (!n)
		return;
	lv->chan[lv->n] = (uint32_t)c;
	lv->lo[lv->n] = lo;
	lv->hi[lv->n] = hi;
	lv->margin[lv->n] = fmax(floor, rel * fabs(sum / (double)n));
	lv->n++;
}

int rv_level_fit(struct rv_level *lv, const struct rv_model *m, const struct rv_table *t)
{
	size_t levels = 0;
	double floor, rel;

	memset(lv, 0, sizeof(*lv));
	for (size_t c = 0; c < m->nchan; c++)
		levels += rv_catalog_level(m->names[c], &floor, &rel);
	if (!levels || !t->nrows)
		return 0;
	lv->chan = malloc(levels * sizeof(*lv->chan));
	lv->lo = malloc(levels * sizeof(*lv->lo));
	lv->hi = malloc(levels * sizeof(*lv->hi));
	lv->margin = malloc(levels * sizeof(*lv->margin));
	if (!lv->chan || !lv->lo || !lv->hi || !lv->margin) {
		rv_level_fini(lv);
		return -ENOMEM;
	}
	for (size_t c = 0; c < m->nchan; c++)
		if (rv_catalog_level(m->names[c], &floor, &rel))
			fit_channel(lv, t, c, floor, rel);
	if (!lv->n)
		rv_level_fini(lv);
	return 0;
}

/* The mean of the window's newest step of the column (first sample at col). */
static double newest_step(const struct rv_model *m, const float *col)
{
	size_t w = m->window, step = m->step < w ? m->step : w;
	double sum = 0.0;

	for (size_t i = w - step; i < w; i++)
		sum += col[i];
	return sum / (double)step;
}

void rv_level_score(const struct rv_model *m, const float *values, size_t ld, size_t first,
		    struct rv_ens_result *res, double *ratio)
{
	const struct rv_level *lv = &m->lvl;
	double best = 0.0;
	uint32_t chan = RV_NOVEL_NONE;

	for (size_t i = 0; i < lv->n; i++) {
		double v = newest_step(m, values + (size_t)lv->chan[i] * ld + first);
		double out = fmax(lv->lo[i] - v, v - lv->hi[i]);

		ratio[i] = isfinite(out) ? out / lv->margin[i] : 0.0;
		if (ratio[i] > best) {
			best = ratio[i];
			chan = lv->chan[i];
		}
	}
	res->level = best;
	res->level_chan = chan;
	res->leveled = best > 1.0;
	res->level_share = 0.0;
	if (res->leveled) {
		double lf = rv_novelty_fused(best, rv_ens_fuse_threshold(m->ens));

		res->level_share = RV_LEVEL_SHARE * (res->fused > lf ? lf / res->fused : 1.0);
		res->anomaly = 1;
		res->fused = fmax(res->fused, lf);
	}
}

void rv_level_attribute(const struct rv_model *m, const double *ratio,
			const struct rv_ens_result *res, double *weight)
{
	if (res->leveled)
		rv_novelty_raise(m->lvl.chan, ratio, m->lvl.n, res->level_share, weight, m->nchan);
}

int rv_level_out(const struct rv_model *m, const double *ratio, uint32_t c)
{
	const struct rv_level *lv = &m->lvl;
	size_t lo = 0, hi = lv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lv->chan[mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < lv->n && lv->chan[lo] == c && ratio[lo] > 1.0;
}
