/*
 * live.c - see live.h. The window is copied channel-major into a small
 * table (window x nchan floats), so the feature code and the spe detector's
 * raw row read it exactly as they read an offline table.
 */
#include "pipeline/live.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "features/window.h"
#include "pipeline/kept.h"
#include "pipeline/level.h"
#include "pipeline/novelty.h"
#include "pipeline/rank.h"

struct rv_live {
	const struct rv_model *m;
	size_t nfeat, nraw;
	float *tbl;                      /* nchan x window, channel-major */
	float *feat, *raw;
	double *fscratch, *weight, *mean;
	const uint8_t *hold;             /* borrowed: samples each reading is held, or NULL */
	double *nratio;                  /* the novelty's per-channel ratios */
	double *lratio;                  /* the levels' per-channel ratios */
	uint32_t *rank;
	struct rv_ranked *rk;
	uint8_t *chan_sub;
	double *material;                /* each channel's materiality floor (catalog.h) */
	uint8_t *stock;                  /* 1: a stock (rv_catalog_stock) */
	uint8_t *kept_ch;                /* 1: memory taken and kept (rv_catalog_kept) */
	uint8_t *lasts;                  /* 1: judged by material_lasts */
	uint8_t *persist;                /* out->persist */
	float *matter;                   /* out->matter */
	double *spread;                  /* training sd of each channel's window mean, or 0 */
	struct rv_ens_scratch *scratch;
	struct rv_kept kept;             /* the kept-memory channels (kept.h) */
	const float *ref;                /* borrowed: their reference sample, or NULL */
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
	free(l->lratio);
	free(l->rank);
	free(l->rk);
	free(l->chan_sub);
	free(l->material);
	free(l->stock);
	free(l->kept_ch);
	free(l->lasts);
	free(l->persist);
	free(l->matter);
	free(l->spread);
	rv_ens_scratch_free(l->scratch);
	rv_kept_fini(&l->kept);
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
	l->lratio = calloc(m->lvl.n ? m->lvl.n : 1, sizeof(*l->lratio));
	l->rank = calloc(n, sizeof(*l->rank));
	l->rk = calloc(n, sizeof(*l->rk));
	l->chan_sub = calloc(n, 1);
	l->material = calloc(n, sizeof(*l->material));
	l->stock = calloc(n, 1);
	l->kept_ch = calloc(n, 1);
	l->lasts = calloc(n, 1);
	l->persist = calloc(n, 1);
	l->matter = calloc(n, sizeof(*l->matter));
	l->spread = calloc(n, sizeof(*l->spread));
	if (!l->tbl || !l->feat || !l->raw || !l->fscratch || !l->weight || !l->mean ||
	    !l->nratio || !l->lratio || !l->rank || !l->rk || !l->chan_sub || !l->material || !l->stock || !l->kept_ch || !l->lasts || !l->persist || !l->matter || !l->spread ||
	    rv_ens_scratch_new(m->ens, &l->scratch) != 0 || rv_kept_init(&l->kept, m) != 0) {
		rv_live_free(l);
		return -ENOMEM;
	}
	for (size_t c = 0, off = 0; c < m->nchan; c++) {
		l->chan_sub[c] = (uint8_t)rv_catalog_subsystem(m->names[c]);
		l->material[c] = rv_catalog_material(m->names[c]);
		l->stock[c] = (uint8_t)rv_catalog_stock(m->names[c]);
		l->kept_ch[c] = (uint8_t)rv_catalog_kept(m->names[c]);
		l->lasts[c] = l->material[c] > rv_catalog_resolution(m->names[c]);
		if (m->masks[c] & RV_FEAT_BIT(RV_F_MEAN))   /* its first feature */
			l->spread[c] = rv_ens_feature_sd(m->ens, off);
		off += rv_featmat_width(1, &m->masks[c]);
	}
	*out = l;
	return 0;
}

/* The lasting rule of live.h: its share of the heavier half, its steps,
 * the readings of a held channel, the distance a sample must lie out. */
static const double LASTING_SHARE = 1.0 / 3.0;
static const double LASTING_HEAVY = 0.5;
enum { LASTING_STEPS = 2, LASTING_READINGS = 3, MATERIAL_TOP = 8 };
/* The fused score above which a window whose top channels include one
 * that moved materially in each of its newest steps lasts: where the
 * agent's gate reports at once (report_severity major). */
static const double MATERIAL_STRONG = 2.0;
/* ... and whose move lies this many times the spread of the channel's
 * window mean while learning beyond its training mean: not a swing the
 * host makes anyway. */
static const double MATERIAL_SPREAD = 3.0;
static const double LASTING_LEVEL = 0.5;
/* The share of the heavier half's weight that must have moved by its
 * materiality floor for a window to be material (material()). */
static const double MATERIAL_SHARE = 1.0 / 3.0;

void rv_live_set_hold(struct rv_live *l, const uint8_t *hold)
{
	l->hold = hold;
}

size_t rv_live_kept_lookback(const struct rv_live *l)
{
	return l->kept.n ? l->kept.lookback : 0;
}

void rv_live_set_reference(struct rv_live *l, const float *row)
{
	l->ref = row;
}

/* Whether a channel (training mean mu, its window at x, w samples, each
 * reading held `hold` samples) moved lately: for most of the newest n
 * samples, or when held, at all of its newest LASTING_READINGS readings. */
static int moved_lately(double mu, const float *x, size_t w, size_t n, size_t hold)
{
	double dist = 0.0;
	size_t k = 0;

	for (size_t i = 0; i < w; i++)
		dist += fabs(x[i] - mu);
	dist *= LASTING_LEVEL / (double)w;
	if (!(dist > 0.0))
		return 0;
	if (hold > 1) {
		n = LASTING_READINGS * hold;
		if (n > w)
			n = w;
		for (size_t i = w - n; i < w; i++)
			if (fabs(x[i] - mu) < dist)
				return 0;
		return 1;
	}
	for (size_t i = w - n; i < w; i++)
		k += fabs(x[i] - mu) >= dist;
	return 2 * k > n;
}

/* Whether the novel channel c counted above its training mean in each of
 * the window's newest LASTING_STEPS steps (of one reading at least,
 * counted back from the newest sample), as a lasting channel moves in
 * each of them (material_lasts): events that go on come in every step,
 * however few each time; a burst of events at one instant lies in one
 * step, and two bursts seconds apart (the retransmissions of a job's
 * connection that overflowed a socket buffer twice) in two steps with a
 * quiet one between or after them. */
static int novel_lasts(const struct rv_live *l, uint32_t c)
{
	const struct rv_model *m = l->m;
	size_t w = m->window, step = m->step, hold = l->hold ? l->hold[c] : 1, end = w;
	const float *x = l->tbl + (size_t)c * w;
	double mu = m->chan_mean ? m->chan_mean[c] : 0.0;

	if (hold > step)
		step = hold;
	for (size_t k = 0; k < LASTING_STEPS; k++) {
		int counted = 0;

		if (end == 0)
			return 0;
		for (size_t i = end > step ? end - step : 0; i < end && !counted; i++)
			counted = x[i] > mu;
		if (!counted)
			return 0;
		end = end > step ? end - step : 0;
	}
	return 1;
}

/* The share of the heavier half of the attribution (ranked in l->rank)
 * held by channels that moved lately. */
static double lasting_share(const struct rv_live *l)
{
	const struct rv_model *m = l->m;
	size_t w = m->window, n = LASTING_STEPS * m->step;
	double total = 0.0, heavy = 0.0, moved = 0.0;

	if (n > w)
		n = w;
	for (size_t c = 0; c < m->nchan; c++)
		if (l->weight[c] > 0.0)
			total += l->weight[c];
	for (size_t k = 0; k < m->nchan && heavy < LASTING_HEAVY * total; k++) {
		size_t c = l->rank[k];
		double mu = m->chan_mean ? m->chan_mean[c] : 0.0;

		if (!(l->weight[c] > 0.0))
			break;
		heavy += l->weight[c];
		if (moved_lately(mu, l->tbl + c * w, w, n, l->hold ? l->hold[c] : 1))
			moved += l->weight[c];
	}
	return heavy > 0.0 ? moved / heavy : 1.0;
}

/* How far channel c moved over the n samples before sample `end` of the
 * window: their mean against the channel's training mean; for a stock
 * against the mean of the window's oldest n samples (stocks are judged by
 * how they move), for memory taken and kept against the reference sample
 * (pipeline/kept.h). */
static double moved_by(const struct rv_live *l, size_t c, size_t end, size_t n)
{
	const struct rv_model *m = l->m;
	const float *x = l->tbl + c * m->window;
	double ref = m->chan_mean ? m->chan_mean[c] : 0.0, sum = 0.0;

	for (size_t i = end - n; i < end; i++)
		sum += x[i];
	if (l->kept_ch[c] && l->ref) {
		ref = l->ref[c];
	} else if (l->stock[c]) {
		ref = 0.0;
		for (size_t i = 0; i < n; i++)
			ref += x[i];
		ref /= (double)n;
	}
	return fabs(sum / (double)n - ref);
}

/* Samples of channel c that make one step of it: the window's step, or
 * one reading when it is held longer; never more than the window. */
static size_t step_of(const struct rv_live *l, size_t c)
{
	size_t n = l->m->step, hold = l->hold ? l->hold[c] : 1;

	if (hold > n)
		n = hold;
	return n > l->m->window || n == 0 ? l->m->window : n;
}

/* How far channel c moved over the window's newest step as a share of its
 * materiality floor, up to 1 (a channel without a floor: 1). */
static double matter_of(const struct rv_live *l, size_t c)
{
	double d = moved_by(l, c, l->m->window, step_of(l, c));

	if (!(l->material[c] > 0.0))
		return 1.0;
	return d >= l->material[c] ? 1.0 : d / l->material[c];
}

/* Whether one of the window's MATERIAL_TOP most responsible channels moved
 * by its materiality floor, and by MATERIAL_SPREAD times the spread of its
 * window mean while learning, in each of the newest LASTING_STEPS steps (a
 * held channel: LASTING_READINGS readings); channels whose floor is their
 * resolution (sparse error counts, where one is news: the novelty judges
 * them) or that have none aside. A fault that takes a resource moves it
 * in every step; its start-up (the pages of the program that begins it,
 * read in and faulted) may outweigh it for seconds, and does not hide
 * that it lasts. */
static int material_lasts(const struct rv_live *l)
{
	const struct rv_model *m = l->m;

	for (size_t k = 0; k < m->nchan && k < MATERIAL_TOP; k++) {
		size_t c = l->rank[k], n = step_of(l, c), steps = LASTING_STEPS, i;

		if (!(l->weight[c] > 0.0))
			break;
		if (!l->lasts[c])
			continue;
		if (l->hold && l->hold[c] > 1)
			steps = LASTING_READINGS;
		for (i = 0; i < steps && (i + 1) * n <= m->window; i++) {
			double d = moved_by(l, c, m->window - i * n, n);

			if (d < l->material[c] || d < MATERIAL_SPREAD * l->spread[c])
				break;
		}
		if (i == steps)
			return 1;
	}
	return 0;
}

/* Whether the heavier half of the attribution (ranked in l->rank) moved
 * materially: one of its channels by its materiality floor at least over
 * the window's newest step (a channel without a floor: at all), and its
 * channels, each weighed by the share of its floor it moved (l->matter,
 * filled before; without a floor: 0 or 1), by MATERIAL_SHARE of the
 * half's weight. One channel at its floor is not enough when those that
 * carry the score moved a small part of theirs: a discard of a second on
 * the disk beside the few loopback packets a second a CPU hog moves
 * between the CPUs' softirqs. */
static int material(const struct rv_live *l)
{
	const struct rv_model *m = l->m;
	double total = 0.0, heavy = 0.0, moved = 0.0;
	int at_floor = 0;

	for (size_t c = 0; c < m->nchan; c++)
		if (l->weight[c] > 0.0)
			total += l->weight[c];
	for (size_t k = 0; k < m->nchan && k < MATERIAL_TOP && heavy < LASTING_HEAVY * total; k++) {
		size_t c = l->rank[k];
		double share;

		if (!(l->weight[c] > 0.0))
			break;
		if (l->material[c] > 0.0)
			share = l->matter[c];   /* matter_of, rv_live_score */
		else
			share = moved_by(l, c, m->window, step_of(l, c)) > 0.0;
		heavy += l->weight[c];
		moved += l->weight[c] * share;
		at_floor |= share >= 1.0;
	}
	return at_floor && moved >= MATERIAL_SHARE * heavy;
}

/* Whether channel c is still moving at the window's newest step (live.h,
 * out->persist). */
static int persists(const struct rv_live *l, size_t c)
{
	const struct rv_model *m = l->m;
	size_t w = m->window, n = step_of(l, c);
	const float *x = l->tbl + c * w;
	double mu = m->chan_mean ? m->chan_mean[c] : 0.0, dist = 0.0;

	if (l->stock[c])
		return 1;
	if (!l->lasts[c]) {
		size_t steps = 0;

		for (size_t end = w; end > 0; end = end > n ? end - n : 0) {
			int counted = 0;

			for (size_t i = end > n ? end - n : 0; i < end && !counted; i++)
				counted = x[i] > mu;
			if (counted && end == w)
				return 1;
			steps += (size_t)counted;
		}
		return steps >= LASTING_STEPS;
	}
	for (size_t i = 0; i < w; i++)
		dist += fabs(x[i] - mu);
	dist *= LASTING_LEVEL / (double)w;
	if (!(dist > 0.0))
		return 1;
	if (l->hold && l->hold[c] > 1) {
		/* its newest reading, when it came in the newest step: a held
		 * value older than that is what moved before */
		size_t i = w - 1, lo = w - n > 0 ? w - n : 1;

		if (w < 2)
			return 1;
		while (i > lo && x[i] == x[i - 1])
			i--;
		return x[i] != x[i - 1] && fabs(x[w - 1] - mu) >= dist;
	}
	for (size_t i = w - n; i < w; i++)
		if (fabs(x[i] - mu) >= dist)
			return 1;
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
	rv_level_score(m, l->tbl, w, 0, &out->res, l->lratio);
	rv_ens_explain(m->ens, l->feat, l->nraw ? l->raw : NULL, l->scratch, &out->res, l->weight);
	rv_kept_attribute(&l->kept, m, l->tbl, w, 0, l->ref, 1, &out->res, l->weight);
	rv_novelty_attribute(m, l->nratio, &out->res, l->weight);
	rv_level_attribute(m, l->lratio, &out->res, l->weight);
	out->flagged = out->res.anomaly || out->res.flags;
	out->weight = l->weight;
	out->rank = l->rank;
	out->mean = l->mean;
	out->nrank = 0;
	out->subsystem = RV_SUB_OTHER;
	out->lasting_share = 1.0;
	out->material = 1;
	out->persist = l->persist;
	out->matter = l->matter;
	memset(l->persist, 0, m->nchan);
	memset(l->matter, 0, m->nchan * sizeof(*l->matter));
	if (out->flagged) {
		for (size_t c = 0; c < m->nchan; c++) {
			/* a level out of its range is where it is now: it persists
			 * and matters in full (level.h) */
			int out_of_range = out->res.leveled && rv_level_out(m, l->lratio, (uint32_t)c);

			l->persist[c] = l->weight[c] > 0.0 && (out_of_range || persists(l, c));
			l->matter[c] = out_of_range ? 1.0f
				       : l->weight[c] > 0.0 ? (float)matter_of(l, c) : 0.0f;
		}
		out->subsystem = rv_rank_channels(m->nchan, l->chan_sub, l->weight, l->rk, l->rank);
		out->nrank = m->nchan;
		if (!out->res.leveled &&
		    (!out->res.novel || !novel_lasts(l, out->res.novel_chan)))
			out->lasting_share = lasting_share(l);
		out->material = out->res.novel || out->res.leveled || material(l);
	}
	out->lasting = out->lasting_share >= LASTING_SHARE ||
		       (out->res.fused > MATERIAL_STRONG && material_lasts(l));
}
