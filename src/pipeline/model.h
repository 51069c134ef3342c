/*
 * model.h - the model of the offline detection pipeline: tables in,
 * per-window verdicts and incidents out. This is the same chain the live
 * agent runs (windows -> features -> detectors -> fusion -> incidents ->
 * sinks), fed from files.
 *
 *   rv_model_fit      training table -> fitted model (channels, windowing,
 *                     feature masks, detector ensemble)
 *   rv_model_run      model + test table -> one rv_window_out per window to
 *                     the sink, incidents into a merger
 *   rv_model_save/load  the versioned, checksummed model file
 */
#ifndef RV_PIPELINE_MODEL_H
#define RV_PIPELINE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "catalog/catalog.h"
#include "detect/ensemble.h"
#include "explain/incident.h"
#include "pipeline/level.h"
#include "pipeline/novelty.h"
#include "record/table.h"

/* A window or step length: in samples, or in seconds when `seconds` is set;
 * value 0 means "the default". */
struct rv_span {
	double value;
	int seconds;
};

enum rv_adf_mode { RV_ADF_AUTO, RV_ADF_ON, RV_ADF_OFF };

/* Windows shorter than this get no ADF feature under RV_ADF_AUTO: the
 * Dickey-Fuller regression on a handful of points is noise. */
#define RV_ADF_AUTO_MIN_WINDOW 20

/* Window positions fed to the spe detector: at most this many samples of
 * each window (evenly spaced, always including the last), so the raw row
 * stays small on 700-channel hosts sampled at 100 ms. */
#define RV_SPE_MAX_POINTS 8

struct rv_detect_opts {
	struct rv_span window, step;
	enum rv_adf_mode adf;
	int events;                  /* sum/max features for event channels */
	int novelty;                 /* watch quiet event channels (novelty.h; with events) */
	int level;                   /* watch the catalog's levels (level.h) */
	struct rv_ens_config ens;
	size_t incident_gap;         /* unflagged windows bridged inside an incident */
	size_t incident_min;         /* flagged windows an incident needs */
	unsigned threads;            /* worker threads for fitting and scoring (0: 1) */
	size_t max_train_windows;    /* training windows that set thresholds at most (0: all) */
};

/* The paper's exact configuration and reveal's measured default. */
void rv_detect_opts_paper(struct rv_detect_opts *o);
void rv_detect_opts_default(struct rv_detect_opts *o);

struct rv_model {
	size_t nchan;
	char **names;                /* nchan owned channel names */
	unsigned *masks;             /* nchan feature masks */
	size_t window, step;         /* in samples */
	double interval_s;           /* median sampling interval of training, 0 if unknown */
	size_t nraw_pts;             /* positions per window fed to spe (0: spe off) */
	size_t raw_pos[RV_SPE_MAX_POINTS];
	size_t train_windows;
	double *chan_mean;           /* nchan training means (the baseline a report
					compares with), NULL in version 1 model files */
	struct rv_novelty nov;       /* watched event channels (n 0 in version 1, 2 files) */
	struct rv_level lvl;         /* watched levels (n 0 in version 1 to 4 files) */
	double *flat_below;          /* nchan: span under which a window's shape is flat
					(rv_featmat_build_mt); NULL without the catalog
					and in version 1 to 3 files */
	struct rv_ensemble *ens;
};

/* Run statistics for the summary line. */
struct rv_detect_stats {
	size_t windows, flagged;
	size_t det_flagged[RV_DET_MAX];  /* per detector of the table (detector.h) */
	size_t novel_flagged;        /* windows the novelty flagged (novelty.h) */
	size_t level_flagged;        /* windows a level flagged (level.h) */
	double read_s, features_s, fit_s, score_s;
};

/* One scored test window, handed to the sink. */
struct rv_window_out {
	size_t index;
	double ts;                   /* timestamp of the window's last sample */
	const struct rv_ens_result *res;
	const uint32_t *rank;        /* channels, most responsible first */
	size_t nrank;                /* 0 when no detector fired */
	enum rv_subsystem subsystem;
};

struct rv_sink {
	void *ctx;
	int (*window)(void *ctx, const struct rv_window_out *w);
};

/*
 * Fits a model on the training table (gaps already filled), with the
 * novelty statistic's thresholds (novelty.h) when o->novelty is set.
 * Returns 0 and *out (free with rv_model_free), or -EINVAL with err naming
 * what is wrong (too few rows for one window, nothing varies), -ENOMEM.
 */
int rv_model_fit(const struct rv_detect_opts *o, const struct rv_table *train,
		 struct rv_model **out, struct rv_detect_stats *st, struct rv_err *err);
void rv_model_free(struct rv_model *m);

/*
 * Puts a table read from a recording into the model's channel order. A
 * recording keeps only the channels that had a value (a ratio over a
 * counter that never moved has none), so two recordings of one host can
 * differ by a few channels: a channel of the model missing from *t becomes
 * a constant column at its training mean (0 in a version 1 model), and a
 * channel the model does not know is left out. *t is replaced (the old
 * table freed) only when something changed; *added and *dropped count the
 * columns (either may be NULL). Returns 0 or -ENOMEM.
 */
int rv_model_align_table(const struct rv_model *m, struct rv_table **t, size_t *added,
			 size_t *dropped, struct rv_err *err);

/* 0 when the test table has the model's channels in the same order; else
 * -EINVAL with the first difference in err. */
int rv_model_check_table(const struct rv_model *m, const struct rv_table *t, struct rv_err *err);

/*
 * Scores every window of the test table, in order (the ensemble, then the
 * novelty statistic of novelty.h, then the attribution, as rv_live_score
 * does), pushing each into the incident merger and handing it to sink (may
 * be NULL) once the merger has decided it: a window's `anomaly` is 1
 * exactly when it lies inside an incident (bridged gaps included, blips
 * below incident_min excluded), so the per-window output and the incidents
 * agree. rv_incmerge_finish is called at the end. Windows are scored on
 * `threads` threads (0 or 1: the calling thread only); the output does not
 * depend on the count. Returns 0 or the first error of the sink, -ENOMEM.
 */
int rv_model_run(const struct rv_model *m, const struct rv_table *test, const struct rv_sink *sink,
		 struct rv_incmerge *merger, unsigned threads, struct rv_detect_stats *st,
		 struct rv_err *err);

/* The spe detector's input for the window ending at end_row: nraw_pts
 * samples per channel, channel-major (nchan * nraw_pts floats into out). */
void rv_model_raw_row(const struct rv_model *m, const struct rv_table *t, size_t end_row,
		      float *out);

/* Model file: "RVLMODEL", format version, payload length, payload, CRC-32C. */
/* Version 2 added the channel means, version 3 the novelty thresholds,
 * version 4 the channel floors, version 5 the level ranges; older files
 * still load (and score without what they lack). */
#define RV_MODEL_FORMAT_VERSION 5
int rv_model_save(const struct rv_model *m, const char *path, struct rv_err *err);
int rv_model_load(const char *path, struct rv_model **out, struct rv_err *err);

#endif
