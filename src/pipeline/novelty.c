/*
 * novelty.c - the per-channel novelty statistic. See novelty.h.
 */
#include "pipeline/novelty.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "features/features.h"
#include "pipeline/model.h"

void rv_novelty_fini(struct rv_novelty *nv)
{
	free(nv->chan);
	free(nv->thr);
	free(nv->margin);
	memset(nv, 0, sizeof(*nv));
}

double rv_novelty_sample_s(const struct rv_model *m)
{
	return m->interval_s > 0.0 && isfinite(m->interval_s) ? m->interval_s : 1.0;
}

double rv_novelty_count(const float *col, size_t n, double sample_s)
{
	double sum = 0.0;

	for (size_t r = 0; r < n; r++)
		if (col[r] > 0.0f && isfinite(col[r]))
			sum += col[r];
	return sum * sample_s;
}

/* Watches channel c when quiet in enough training windows: appends its
 * T_c and M_c to nv. */
static void fit_channel(struct rv_novelty *nv, const struct rv_model *m, const struct rv_table *t,
			size_t c)
{
	const float *col = t->values + c * t->nrows;
	const double sample_s = rv_novelty_sample_s(m);
	const size_t nwin = (t->nrows - m->window) / m->step + 1;
	size_t quiet = 0;
	double max = 0.0;

	for (size_t w = 0; w < nwin; w++) {
		double s = rv_novelty_count(col + w * m->step, m->window, sample_s);

		quiet += s < RV_NOVELTY_QUIET_EVENTS;
		max = fmax(max, s);
	}
	if ((double)quiet < RV_NOVELTY_QUIET_SHARE * (double)nwin)
		return;
	nv->chan[nv->n] = (uint32_t)c;
	nv->thr[nv->n] = max;
	nv->margin[nv->n] = fmax(RV_NOVELTY_MIN_MARGIN, RV_NOVELTY_MARGIN_REL * max);
	nv->n++;
}

/* Metric type names are short (catalog/metrics_*.c); a longer name is not
 * in the catalog. */
enum { TYPE_MAX = 128 };

/* 1 when channel c is an event channel: the model treats it as one (its
 * name says so, rv_catalog_kind_by_name), or its metric type is one of the
 * live collector's event metrics (net.tcpext_tcp_lost_retransmit,
 * mem.oom_kill, ...). */
static int is_event(const struct rv_model *m, size_t c)
{
	char type[TYPE_MAX];
	size_t n = strcspn(m->names[c], ":");
	const struct rv_metric *mt;

	if (m->masks[c] & RV_FEAT_BIT(RV_F_SUM))
		return 1;
	if (n >= sizeof(type))
		return 0;
	memcpy(type, m->names[c], n);
	type[n] = '\0';
	mt = rv_catalog_metric(type);
	return mt && mt->kind == RV_KIND_EVENT;
}

int rv_novelty_fit(struct rv_novelty *nv, const struct rv_model *m, const struct rv_table *t)
{
	size_t events = 0;

	memset(nv, 0, sizeof(*nv));
	for (size_t c = 0; c < m->nchan; c++)
		events += is_event(m, c);
	if (!events || t->nrows < m->window || m->step < 1)
		return 0;
	nv->chan = malloc(events * sizeof(*nv->chan));
	nv->thr = malloc(events * sizeof(*nv->thr));
	nv->margin = malloc(events * sizeof(*nv->margin));
	if (!nv->chan || !nv->thr || !nv->margin) {
		rv_novelty_fini(nv);
		return -ENOMEM;
	}
	for (size_t c = 0; c < m->nchan; c++)
		if (is_event(m, c))
			fit_channel(nv, m, t, c);
	if (!nv->n)
		rv_novelty_fini(nv);
	return 0;
}

double rv_novelty_fused(double r, double fuse_thr)
{
	double base = isfinite(fuse_thr) && fuse_thr > 1.0 ? fuse_thr : 1.0;

	if (!(r > 1.0))
		return 0.0;
	return fmin(base * (1.0 + log2(r)), fmax(base, RV_NOVELTY_SCORE_CAP));
}

void rv_novelty_score(const struct rv_model *m, const float *values, size_t ld, size_t first,
		      struct rv_ens_result *res, double *ratio)
{
	const struct rv_novelty *nv = &m->nov;
	const double sample_s = rv_novelty_sample_s(m);
	double best = 0.0;
	uint32_t chan = RV_NOVEL_NONE;

	for (size_t i = 0; i < nv->n; i++) {
		const float *col = values + (size_t)nv->chan[i] * ld + first;
		double s = rv_novelty_count(col, m->window, sample_s);

		ratio[i] = (s - nv->thr[i]) / nv->margin[i];
		if (ratio[i] > best) {
			best = ratio[i];
			chan = nv->chan[i];
		}
	}
	res->novelty = best;
	res->novel_chan = chan;
	res->novel = best > 1.0;
	res->novel_share = 0.0;
	if (res->novel) {
		double nf = rv_novelty_fused(best, rv_ens_fuse_threshold(m->ens));

		/* the blame is the novelty's as far as the novelty is why the
		 * window is flagged: all of RV_NOVELTY_SHARE when it is at least
		 * as strong as the detectors, less as they outweigh it (a CPU hog
		 * whose start stalls the disk once is still a CPU hog) */
		res->novel_share = RV_NOVELTY_SHARE * (res->fused > nf ? nf / res->fused : 1.0);
		res->anomaly = 1;
		res->fused = fmax(res->fused, nf);
	}
}

void rv_novelty_raise(const uint32_t *chan, const double *ratio, size_t n, double share,
		      double *weight, size_t nchan)
{
	double total = 0.0, held = 0.0, over = 0.0, want, add;

	for (size_t c = 0; c < nchan; c++)
		total += weight[c];
	for (size_t i = 0; i < n; i++)
		if (ratio[i] > 1.0) {
			held += weight[chan[i]];
			over += ratio[i];
		}
	/* held / (held + add + other) >= share, with other = total - held */
	want = (total - held) * share / (1.0 - share);
	if (!(want > 0.0))
		want = over;        /* no other weight: the ratios themselves */
	add = want - held;
	if (!(add > 0.0))
		return;
	for (size_t i = 0; i < n; i++)
		if (ratio[i] > 1.0)
			weight[chan[i]] += add * ratio[i] / over;
}

void rv_novelty_attribute(const struct rv_model *m, const double *ratio,
			  const struct rv_ens_result *res, double *weight)
{
	if (res->novel)
		rv_novelty_raise(m->nov.chan, ratio, m->nov.n, res->novel_share, weight, m->nchan);
}
