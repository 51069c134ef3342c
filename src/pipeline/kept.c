/*
 * kept.c - memory taken and kept, in the blame of a window. See kept.h.
 */
#include "pipeline/kept.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "detect/ensemble.h"
#include "pipeline/model.h"

void rv_kept_fini(struct rv_kept *h)
{
	free(h->chan);
	memset(h, 0, sizeof(*h));
}

int rv_kept_init(struct rv_kept *h, const struct rv_model *m)
{
	double dt = m->interval_s > 0.0 && isfinite(m->interval_s) ? m->interval_s : 1.0;

	memset(h, 0, sizeof(*h));
	for (size_t c = 0; c < m->nchan; c++)
		h->n += (size_t)rv_catalog_kept(m->names[c]);
	if (!h->n)
		return 0;
	h->chan = malloc(h->n * sizeof(*h->chan));
	if (!h->chan) {
		h->n = 0;
		return -ENOMEM;
	}
	h->n = 0;
	for (size_t c = 0; c < m->nchan; c++)
		if (rv_catalog_kept(m->names[c]))
			h->chan[h->n++] = (uint32_t)c;
	h->lookback = (size_t)llround(RV_KEPT_LOOKBACK_S / dt);
	return 0;
}

/* r_c of channel c, 0 when it did not grow or a value is missing. */
static double kept_ratio(const float *col, size_t w, double ref)
{
	double sum = 0.0, x;
	size_t n = 0;

	if (!isfinite(ref) || ref < 0.0)
		return 0.0;
	for (size_t i = 0; i < w; i++)
		if (isfinite(col[i])) {
			sum += col[i];
			n++;
		}
	if (!n)
		return 0.0;
	x = sum / (double)n;
	return x > ref ? (x - ref) / fmax(ref, RV_KEPT_FLOOR_BYTES) : 0.0;
}

/* r_c of the i-th kept channel of the window. */
static double kept_ratio_at(const struct rv_kept *h, const struct rv_model *m, const float *tbl,
			    size_t nrows, size_t first, const float *ref, size_t ref_stride, size_t i)
{
	uint32_t c = h->chan[i];

	return kept_ratio(tbl + (size_t)c * nrows + first, m->window,
			  (double)ref[(size_t)c * ref_stride]);
}

double rv_kept_attribute(const struct rv_kept *h, const struct rv_model *m, const float *tbl,
			 size_t nrows, size_t first, const float *ref, size_t ref_stride,
			 const struct rv_ens_result *res, double *weight)
{
	double best = 0.0, total = 0.0, kept = 0.0, over = 0.0, share, add;

	if (!ref || !h->n || !(res->anomaly || res->flags))
		return 0.0;
	for (size_t i = 0; i < h->n; i++) {
		double r = kept_ratio_at(h, m, tbl, nrows, first, ref, ref_stride, i);
		double v = weight[h->chan[i]];

		if (r > best)
			best = r;
		if (r >= RV_KEPT_MIN_RATIO) {
			kept += v > 0.0 && isfinite(v) ? v : 0.0;
			over += r;
		}
	}
	if (best < RV_KEPT_MIN_RATIO)
		return best;
	for (size_t c = 0; c < m->nchan; c++)
		if (weight[c] > 0.0 && isfinite(weight[c]))
			total += weight[c];
	share = fmin(RV_KEPT_SHARE, best / (1.0 + best));
	/* (kept + add) / (total + add) = share */
	add = total > 0.0 ? (share * total - kept) / (1.0 - share) : over;
	if (!(add > 0.0))
		return best;
	for (size_t i = 0; i < h->n; i++) {
		double r = kept_ratio_at(h, m, tbl, nrows, first, ref, ref_stride, i);
		uint32_t c = h->chan[i];

		if (r >= RV_KEPT_MIN_RATIO)
			weight[c] = (weight[c] > 0.0 && isfinite(weight[c]) ? weight[c] : 0.0) +
				    add * r / over;
	}
	return best;
}
