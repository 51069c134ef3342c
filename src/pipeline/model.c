/*
 * model.c - the model: fitting it on a table and running it over another.
 * See model.h. The feature matrix of a whole table is built at once: this
 * is the offline path, where a table fits in memory by construction.
 */
#include "pipeline/model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/clock.h"
#include "base/rng.h"
#include "features/features.h"
#include "features/window.h"

/* The paper's window: 3 s with a 1 s step at sub-second sampling; for data
 * sampled every second or slower, 5 samples with a step of 1. */
#define DEFAULT_WINDOW_S 3.0
#define DEFAULT_STEP_S 1.0
#define SLOW_SAMPLING_S 1.0
enum { SLOW_WINDOW = 5, SLOW_STEP = 1, MIN_WINDOW = 3 };

/* Default PCA caps: 256 components keep scoring a 7000-feature window well
 * under 1 ms and allow the randomized fit; 10 training windows per
 * component keep every kept eigenvalue estimated from enough data. Neither
 * binds on the labelled data sets (95 % of variance takes ~100 of 380). */
enum { RV_DEFAULT_MAX_COMPONENTS = 256, RV_DEFAULT_ROWS_PER_COMPONENT = 10 };

/* Training windows calibrating the thresholds at most (sample_calibration). */
enum { RV_DEFAULT_MAX_TRAIN_WINDOWS = 8192 };
/* Separates the sampling stream from the forest's, which shares the seed. */
#define TRAIN_SAMPLE_SALT 0x7261696e73616d70ULL

void rv_detect_opts_paper(struct rv_detect_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->adf = RV_ADF_OFF;
	o->events = 0;
	o->novelty = 0;
	o->level = 0;
	o->ens.enabled = RV_DET_BIT(RV_DET_ZSCORE) | RV_DET_BIT(RV_DET_PCA) |
			 RV_DET_BIT(RV_DET_IFOREST);
	o->ens.quantile = 0.99;
	o->ens.contamination = 0.01;
	o->ens.var_keep = 0.95;
	o->ens.spe_var_keep = 0.95;
	o->ens.pca_max_comp = 0;
	o->ens.iforest.trees = 100;
	o->ens.iforest.samples = 256;
	o->ens.iforest.seed = 0;
	o->ens.fusion = RV_FUSE_VOTE;
	o->ens.vote_k = 2;
	o->ens.fuse_quantile = 0.99;
	o->ens.zscore_top = 1.0;
	o->incident_gap = 0;
	o->incident_min = 1;
}

void rv_detect_opts_default(struct rv_detect_opts *o)
{
	rv_detect_opts_paper(o);
	o->adf = RV_ADF_AUTO;
	o->events = 1;
	o->novelty = 1;
	o->level = 1;
	o->ens.enabled |= RV_DET_BIT(RV_DET_SPE);
	o->ens.fusion = RV_FUSE_SCORE;
	o->ens.zscore_top = 0.1;
	o->ens.pca_max_comp = RV_DEFAULT_MAX_COMPONENTS;
	o->max_train_windows = RV_DEFAULT_MAX_TRAIN_WINDOWS;
	o->ens.pca_rows_per_comp = RV_DEFAULT_ROWS_PER_COMPONENT;
	o->ens.fuse_geometric = 1;
	o->incident_gap = 2;
}

void rv_model_free(struct rv_model *m)
{
	if (!m)
		return;
	for (size_t c = 0; c < m->nchan && m->names; c++)
		free(m->names[c]);
	free(m->names);
	free(m->masks);
	free(m->chan_mean);
	free(m->flat_below);
	rv_novelty_fini(&m->nov);
	rv_level_fini(&m->lvl);
	rv_ens_free(m->ens);
	free(m);
}

static size_t span_samples(const struct rv_span *s, double interval_s, double def_s,
			   size_t slow_def)
{
	double v;

	if (s->value <= 0.0)
		v = interval_s <= 0.0 || interval_s >= SLOW_SAMPLING_S ? (double)slow_def
									: def_s / interval_s;
	else
		v = s->seconds ? s->value / interval_s : s->value;
	return v < 1.0 ? 1 : (size_t)llround(v);
}

static int resolve_windowing(const struct rv_detect_opts *o, struct rv_model *m,
			     const struct rv_table *t, struct rv_err *err)
{
	m->interval_s = rv_table_median_step(t);
	if ((o->window.seconds && o->window.value > 0) || (o->step.seconds && o->step.value > 0)) {
		if (!(m->interval_s > 0.0))
			return rv_err_set(err, -EINVAL,
					  "%s: --window/--step in seconds need a timestamp column",
					  t->path);
	}
	m->window = span_samples(&o->window, m->interval_s, DEFAULT_WINDOW_S, SLOW_WINDOW);
	m->step = span_samples(&o->step, m->interval_s, DEFAULT_STEP_S, SLOW_STEP);
	if (o->window.value <= 0.0 && m->window < MIN_WINDOW)
		m->window = MIN_WINDOW;
	if (m->window < 2)
		return rv_err_set(err, -EINVAL, "window of %zu sample: at least 2 are needed",
				  m->window);
	if (t->nrows < m->window)
		return rv_err_set(err, -EINVAL,
				  "%s: %zu rows, fewer than one window of %zu samples", t->path,
				  t->nrows, m->window);
	return 0;
}

static void resolve_raw_positions(struct rv_model *m, int spe)
{
	size_t p = m->window < RV_SPE_MAX_POINTS ? m->window : RV_SPE_MAX_POINTS;

	m->nraw_pts = spe ? p : 0;
	for (size_t i = 0; i < m->nraw_pts; i++)
		m->raw_pos[i] = p == 1 ? m->window - 1
				       : (size_t)llround((double)i * (double)(m->window - 1) /
							 (double)(p - 1));
}

static int copy_channels(struct rv_model *m, const struct rv_table *t, const struct rv_detect_opts *o)
{
	int adf = o->adf == RV_ADF_ON || (o->adf == RV_ADF_AUTO && m->window >= RV_ADF_AUTO_MIN_WINDOW);

	m->nchan = t->ncols;
	m->names = calloc(t->ncols, sizeof(*m->names));
	m->masks = calloc(t->ncols, sizeof(*m->masks));
	m->chan_mean = calloc(t->ncols, sizeof(*m->chan_mean));
	if (!m->names || !m->masks || !m->chan_mean)
		return -ENOMEM;
	for (size_t c = 0; c < t->ncols; c++) {
		const float *col = t->values + c * t->nrows;
		double sum = 0.0;

		for (size_t r = 0; r < t->nrows; r++)
			sum += col[r];
		m->chan_mean[c] = t->nrows ? sum / (double)t->nrows : 0.0;
		m->names[c] = strdup(t->names[c]);
		if (!m->names[c])
			return -ENOMEM;
		if (o->events && rv_catalog_smoothed(t->names[c]))
			m->masks[c] = 0;   /* recorded and reported, not scored */
		else if (o->events && rv_catalog_kind_by_name(t->names[c]) == RV_KIND_EVENT)
			m->masks[c] = RV_FEAT_EVENT_MASK;
		else if (o->events && rv_catalog_stock(t->names[c]))
			m->masks[c] = RV_FEAT_STOCK_MASK | (adf ? RV_FEAT_BIT(RV_F_ADF) : 0u);
		else
			m->masks[c] = RV_FEAT_GAUGE_MASK | (adf ? RV_FEAT_BIT(RV_F_ADF) : 0u);
	}
	return 0;
}

/* A gauge without level features is a stock (copy_channels): it enters
 * the SPE detector as its change since the window's first sample, for the
 * same reason. Decided by the mask, so a model keeps its meaning in its
 * file. */
static int chan_relative(const struct rv_model *m, size_t c)
{
	return !(m->masks[c] & (RV_FEAT_LEVEL_MASK | RV_FEAT_EVENT_MASK));
}

void rv_model_raw_row(const struct rv_model *m, const struct rv_table *t, size_t end_row, float *out)
{
	size_t first = end_row + 1 - m->window;

	for (size_t c = 0; c < m->nchan; c++) {
		const float *col = t->values + c * t->nrows;
		const float base = chan_relative(m, c) ? col[first] : 0.0f;

		for (size_t p = 0; p < m->nraw_pts; p++)
			out[c * m->nraw_pts + p] = col[first + m->raw_pos[p]] - base;
	}
}

static int build_raw(const struct rv_model *m, const struct rv_table *t,
		     const struct rv_featmat *fm, float **raw, uint32_t **raw_chan)
{
	size_t nraw = m->nchan * m->nraw_pts;

	*raw = NULL;
	*raw_chan = NULL;
	if (!nraw)
		return 0;
	*raw = rv_big_array(fm->nwin * nraw, sizeof(**raw));
	*raw_chan = malloc(nraw * sizeof(**raw_chan));
	if (!*raw || !*raw_chan)
		return -ENOMEM;
	for (size_t j = 0; j < nraw; j++)
		(*raw_chan)[j] = (uint32_t)(j / m->nraw_pts);
	for (size_t w = 0; w < fm->nwin; w++)
		rv_model_raw_row(m, t, fm->end_row[w], *raw + w * nraw);
	return 0;
}

/*
 * The calibration sample: at most max_train_windows training windows,
 * drawn at random (seeded) and kept in time order, whose scores set the
 * thresholds. Scoring every training window is most of what a fit costs,
 * and neighbouring windows overlap almost entirely, so a sample of a long
 * training set loses little; the detectors themselves are fitted on every
 * window (measured: fitting on the sample as well raised false alarms).
 * A random draw, not a fixed stride: a stride can alias with a periodic
 * signal and see one phase of it (a stride of 2 doubled the false alarms on
 * one labelled entity). Fills cal with the ascending window indices; NULL
 * when every window is used.
 */
static int sample_calibration(const struct rv_detect_opts *o, const struct rv_featmat *fm,
			      uint32_t **cal, size_t *cal_n)
{
	size_t cap = o->max_train_windows, k = 0;
	struct rv_rng rng;
	uint8_t *pick;

	*cal = NULL;
	*cal_n = 0;
	if (cap == 0 || fm->nwin <= cap)
		return 0;
	pick = calloc(fm->nwin, 1);
	*cal = malloc(cap * sizeof(**cal));
	if (!pick || !*cal) {
		free(pick);
		return -ENOMEM;
	}
	rv_rng_seed(&rng, o->ens.iforest.seed ^ TRAIN_SAMPLE_SALT);
	/* Floyd's algorithm: cap distinct indices in cap draws. */
	for (size_t j = fm->nwin - cap; j < fm->nwin; j++) {
		size_t t = (size_t)rv_rng_below(&rng, j + 1);
		pick[pick[t] ? j : t] = 1;
	}
	for (size_t w = 0; w < fm->nwin; w++)
		if (pick[w])
			(*cal)[k++] = (uint32_t)w;
	*cal_n = k;
	free(pick);
	return 0;
}

/* Features that carry the channel's unit (the rest are ratios: skew,
 * kurtosis, autocorrelation, ADF's p-value). */
#define UNIT_FEATURES                                                            \
	(RV_FEAT_LEVEL_MASK | RV_FEAT_BIT(RV_F_STD) | RV_FEAT_BIT(RV_F_SLOPE) |   \
	 RV_FEAT_BIT(RV_F_SUM))

/*
 * Each channel's floor, with the catalog's knowledge of the channels
 * (o->events): the larger of its resolution (rv_catalog_resolution) and
 * sd_floor_rel of its mean level, into m->flat_below: a window spanning
 * less has no shape (rv_featmat_build_mt), and the level features'
 * floors follow from it (build_floors). Nothing without the catalog.
 */
static int chan_floors(const struct rv_detect_opts *o, struct rv_model *m)
{
	if (!o->events)
		return 0;
	m->flat_below = calloc(m->nchan ? m->nchan : 1, sizeof(*m->flat_below));
	if (!m->flat_below)
		return -ENOMEM;
	for (size_t c = 0; c < m->nchan; c++)
		m->flat_below[c] = fmax(rv_catalog_resolution(m->names[c]),
					o->ens.sd_floor_rel * fabs(m->chan_mean[c]));
	return 0;
}

/*
 * The smallest sd of each feature column and raw column (rv_ens_train),
 * from the channels' floors (chan_floors): for a feature in the channel's
 * unit, the channel's floor; per sample for the slope, as a move of one
 * floor across the window. An event channel's sum and max (of per-second
 * rates over the window's samples) count in one event a second sustained
 * over the window: so one that stayed 0 while learning is watched, and a
 * sustained error rate stands out, but a single stray event does not open
 * an incident. Nothing for ratios, and NULL arrays without the catalog.
 */
static int build_floors(const struct rv_model *m, const struct rv_featmat *fm,
			const uint32_t *raw_chan, size_t nraw, double **feat_floor,
			double **raw_floor)
{
	const double *chan = m->flat_below;

	*feat_floor = *raw_floor = NULL;
	if (!chan)
		return 0;
	*feat_floor = calloc(fm->nfeat ? fm->nfeat : 1, sizeof(**feat_floor));
	*raw_floor = calloc(nraw ? nraw : 1, sizeof(**raw_floor));
	if (!*feat_floor || !*raw_floor) {
		free(*feat_floor);
		free(*raw_floor);
		*feat_floor = *raw_floor = NULL;
		return -ENOMEM;
	}
	for (size_t j = 0; j < fm->nfeat; j++) {
		const unsigned f = fm->feat[j];
		const uint32_t c = fm->chan[j];

		if (!(RV_FEAT_BIT(f) & UNIT_FEATURES))
			continue;
		if (m->masks[c] & RV_FEAT_BIT(RV_F_SUM))   /* events: per window */
			(*feat_floor)[j] = chan[c] * (double)m->window;
		else
			(*feat_floor)[j] = chan[c] / (f == RV_F_SLOPE ? (double)m->window : 1.0);
	}
	for (size_t j = 0; j < nraw; j++)
		(*raw_floor)[j] = chan[raw_chan[j]];
	return 0;
}

int rv_model_fit(const struct rv_detect_opts *o, const struct rv_table *train,
		 struct rv_model **out, struct rv_detect_stats *st, struct rv_err *err)
{
	struct rv_model *m = calloc(1, sizeof(*m));
	struct rv_featmat fm;
	float *raw = NULL;
	double *feat_floor = NULL, *raw_floor = NULL;
	uint32_t *raw_chan = NULL, *cal = NULL;
	size_t cal_n = 0;
	rv_ns t0;
	int rc;

	*out = NULL;
	memset(&fm, 0, sizeof(fm));
	if (!m)
		return -ENOMEM;
	rc = resolve_windowing(o, m, train, err);
	if (!rc)
		rc = copy_channels(m, train, o);
	if (!rc && o->novelty && o->events)
		rc = rv_novelty_fit(&m->nov, m, train);
	if (!rc && o->level)
		rc = rv_level_fit(&m->lvl, m, train);
	if (!rc)
		rc = chan_floors(o, m);
	resolve_raw_positions(m, (o->ens.enabled & rv_det_input_mask(RV_DET_IN_RAW)) != 0);
	t0 = rv_clock_ns();
	if (!rc)
		rc = rv_featmat_build_mt(train->values, train->nrows, train->ncols, m->masks,
					 m->flat_below, m->window, m->step, o->threads, &fm, err);

	if (!rc)
		rc = build_raw(m, train, &fm, &raw, &raw_chan);
	if (!rc)
		rc = build_floors(m, &fm, raw_chan, m->nchan * m->nraw_pts, &feat_floor,
				  &raw_floor);
	if (!rc)
		rc = sample_calibration(o, &fm, &cal, &cal_n);
	if (st)
		st->features_s += rv_clock_since_s(t0);
	t0 = rv_clock_ns();
	if (!rc) {
		struct rv_ens_train tr = {
			.feat = fm.x, .nfeat = fm.nfeat, .feat_chan = fm.chan,
			.raw = raw, .nraw = m->nchan * m->nraw_pts, .raw_chan = raw_chan,
			.feat_floor = feat_floor, .raw_floor = raw_floor,
			.n = fm.nwin, .nchan = m->nchan, .threads = o->threads,
			.cal_idx = cal, .cal_n = cal_n,
			.overwrite = 1,     /* fm and raw are freed below */
		};
		m->train_windows = fm.nwin;
		rc = rv_ens_fit(&o->ens, &tr, &m->ens, err);
	}
	if (st)
		st->fit_s += rv_clock_since_s(t0);
	rv_big_free(raw);
	free(raw_chan);
	free(feat_floor);
	free(raw_floor);
	free(cal);
	rv_featmat_fini(&fm);
	if (rc) {
		rv_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int rv_model_check_table(const struct rv_model *m, const struct rv_table *t, struct rv_err *err)
{
	size_t n = t->ncols < m->nchan ? t->ncols : m->nchan;

	for (size_t c = 0; c < n; c++)
		if (strcmp(t->names[c], m->names[c]) != 0)
			return rv_err_set(err, -EINVAL,
					  "%s:1:%zu: channel column '%s' where the model has '%s' "
					  "(test columns must match the training columns in order)",
					  t->path, rv_table_field(t, c), t->names[c], m->names[c]);
	if (t->ncols > m->nchan)
		return rv_err_set(err, -EINVAL,
				  "%s:1:%zu: extra channel column '%s': the model has %zu channels",
				  t->path, rv_table_field(t, m->nchan), t->names[m->nchan], m->nchan);
	if (t->ncols < m->nchan)
		return rv_err_set(err, -EINVAL,
				  "%s:1:%zu: missing channel column '%s': the model has %zu channels, "
				  "this file %zu",
				  t->path, rv_table_field(t, t->ncols), m->names[t->ncols], m->nchan,
				  t->ncols);
	if (t->nrows < m->window)
		return rv_err_set(err, -EINVAL, "%s: %zu rows, fewer than one window of %zu samples",
				  t->path, t->nrows, m->window);
	return 0;
}

static size_t find_column(const struct rv_table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->names[c], name) == 0)
			return c;
	return SIZE_MAX;
}

int rv_model_align_table(const struct rv_model *m, struct rv_table **t, size_t *added,
			 size_t *dropped, struct rv_err *err)
{
	const struct rv_table *in = *t;
	struct rv_table *out;
	size_t n_added = 0, n_kept = 0;
	int same = in->ncols == m->nchan;

	for (size_t c = 0; same && c < m->nchan; c++)
		same = strcmp(in->names[c], m->names[c]) == 0;
	if (added)
		*added = 0;
	if (dropped)
		*dropped = 0;
	if (same)
		return 0;
	if (rv_table_new(in->nrows, m->nchan, in->ts != NULL, in->path, &out) != 0)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", in->path);
	if (in->ts)
		memcpy(out->ts, in->ts, in->nrows * sizeof(*out->ts));
	out->stats = in->stats;
	for (size_t c = 0; c < m->nchan; c++) {
		size_t k = find_column(in, m->names[c]);
		float *col = out->values + c * in->nrows;

		if (!(out->names[c] = strdup(m->names[c]))) {
			rv_table_free(out);
			return rv_err_set(err, -ENOMEM, "%s: out of memory", in->path);
		}
		if (k == SIZE_MAX) {
			float v = m->chan_mean ? (float)m->chan_mean[c] : 0.0f;

			for (size_t r = 0; r < in->nrows; r++)
				col[r] = v;
			n_added++;
		} else {
			memcpy(col, in->values + k * in->nrows, in->nrows * sizeof(*col));
			n_kept++;
		}
	}
	if (added)
		*added = n_added;
	if (dropped)
		*dropped = in->ncols - n_kept;
	rv_table_free(*t);
	*t = out;
	return 0;
}
