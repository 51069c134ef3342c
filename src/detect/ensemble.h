/*
 * ensemble.h - the detectors fitted together, their thresholds and fusion.
 *
 * Input per window: a row of feature values (nfeat, from features/) and,
 * for the SPE detector, a row of the window's raw samples (nraw). Each
 * input column belongs to a channel (feat_chan[], raw_chan[]), so every
 * detector's per-column contributions become per-channel weights.
 *
 * Detectors (bit i of the masks is detector i of the table, detector.h;
 * the ensemble loops over it and names none). The built-in ones:
 *   zscore  : mean |z| over standardized features (the paper's), or over
 *             the largest zscore_top share of them;
 *   pca     : Mahalanobis distance in the PCA subspace keeping var_keep of
 *             the variance (the paper's);
 *   iforest : Isolation Forest score (the paper's, contamination 1 %);
 *   spe     : squared reconstruction error of the standardized raw window
 *             outside its own PCA subspace (reveal's addition).
 * Thresholds come from the training rows' own scores: the `quantile`
 * quantile for zscore, pca and spe, 1 - contamination for iforest (as
 * scikit-learn's offset_): the descriptor's threshold rule.
 * ratio = score / threshold (> 1: over threshold).
 * Fusion: RV_FUSE_VOTE flags a window when at least vote_k detectors are
 * over their thresholds (the paper: 2 of 3); RV_FUSE_SCORE flags it when the
 * fused score (the arithmetic or, with fuse_geometric, geometric mean of
 * the ratios of the enabled detectors) exceeds the
 * fuse_quantile quantile of the training windows' fused scores.
 * Computing stage: no I/O. Scoring allocates nothing (scratch at _new).
 */
#ifndef RV_DETECT_ENSEMBLE_H
#define RV_DETECT_ENSEMBLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/err.h"
#include "detect/detector.h"
#include "detect/iforest.h"

enum rv_fusion { RV_FUSE_VOTE, RV_FUSE_SCORE, RV_FUSE_COUNT };

/*
 * How a flagged window's channels are ranked:
 *   RV_ATTR_ZSCORE   : |z| of every feature, summed per channel (how far each
 *                      signal moved from its baseline);
 *   RV_ATTR_ENSEMBLE : each firing detector's per-channel shares (zscore |z|,
 *                      pca share of T2, iforest isolating splits, spe
 *                      residual), summed with equal weight.
 * docs/EVALUATION.md compares them; zscore ranked labelled culprits better.
 */
enum rv_attribution { RV_ATTR_ZSCORE, RV_ATTR_ENSEMBLE, RV_ATTR_COUNT };

struct rv_ens_config {
	unsigned enabled;           /* RV_DET_BIT mask */
	double quantile;            /* per-detector threshold quantile, 0.99 */
	double contamination;       /* Isolation Forest, 0.01 */
	double var_keep;            /* PCA variance kept, 0.95 */
	double spe_var_keep;        /* raw-window PCA variance kept */
	size_t pca_max_comp;        /* 0 = no cap */
	size_t pca_rows_per_comp;   /* at most n / this components (0 = no cap) */
	struct rv_iforest_params iforest;
	enum rv_fusion fusion;
	unsigned vote_k;            /* RV_FUSE_VOTE: detectors needed */
	double fuse_quantile;       /* RV_FUSE_SCORE: threshold quantile */
	double zscore_top;          /* zscore averages the top share of |z| (0 or 1: all) */
	int fuse_geometric;         /* fused score: geometric (1) or arithmetic (0) mean */
	double sd_floor_rel;        /* scaler sd at least this share of |mean| (0: off);
				       used by the fit only (rv_scaler_floor) */
	enum rv_attribution attribution;
};

/* Detector names: rv_det_name, rv_det_parse (detector.h). */
const char *rv_fusion_name(enum rv_fusion f);
/* Parses a fusion or attribution name; returns its index or -1. */
int rv_fusion_parse(const char *name);
int rv_attribution_parse(const char *name);

struct rv_ensemble;

struct rv_ens_train {
	float *feat;                /* n x nfeat rows (read only unless overwrite) */
	size_t nfeat;
	const uint32_t *feat_chan;  /* nfeat channel indices */
	float *raw;                 /* n x nraw rows, or NULL when spe is off */
	size_t nraw;
	const uint32_t *raw_chan;   /* nraw channel indices */
	/* Smallest sd of each feature and raw column (rv_scaler_fit_floor),
	 * or NULL: none. */
	const double *feat_floor;
	const double *raw_floor;
	size_t n;
	size_t nchan;
	unsigned threads;           /* for scoring the training rows (0: 1) */
	/* The training rows whose scores set the thresholds: cal_n ascending
	 * row indices, or NULL for all rows. Scoring is what a fit mostly
	 * costs, so a long training set may calibrate on a sample. */
	const uint32_t *cal_idx;
	size_t cal_n;
	/* 1: the fit may standardize feat and raw in place (their contents
	 * are unspecified afterwards), instead of working on standardized
	 * copies of the same size: for a caller that frees them next. */
	int overwrite;
};

/* Fits every enabled detector and its threshold. *out is freed with
 * rv_ens_free. Returns 0, -EINVAL (too few rows, nothing varies), -ENOMEM. */
int rv_ens_fit(const struct rv_ens_config *cfg, const struct rv_ens_train *tr,
	       struct rv_ensemble **out, struct rv_err *err);
void rv_ens_free(struct rv_ensemble *e);

struct rv_ens_result {
	double score[RV_DET_MAX];    /* raw detector scores (0 when disabled) */
	double ratio[RV_DET_MAX];    /* score / threshold */
	unsigned flags;              /* RV_DET_BIT of detectors over threshold */
	double fused;                /* mean ratio of enabled detectors */
	double strength;             /* the same mean with each ratio at least 1:
					how strongly the detectors that see the
					window see it; one below its threshold
					(blind to what moved) does not weaken it */
	int anomaly;                 /* after fusion */
	/* Set by pipeline/ after the ensemble (pipeline/novelty.h), never by
	 * rv_ens_*: the window's novelty (the largest ratio of a sparse event
	 * count past its training maximum, 0 when none is past it), its
	 * channel (RV_NOVEL_NONE when the novelty is 0), and novel = 1 when
	 * the novelty exceeds 1: the novelty flagged the window, which then
	 * has anomaly = 1 and fused raised, with or without the detectors. */
	double novelty;
	uint32_t novel_chan;
	int novel;
	double novel_share;          /* the share of the attribution its novel channels get */
	/* Set by pipeline/ likewise (pipeline/level.h): the window's level
	 * score (the largest ratio of a level out of its training range, 0
	 * when none is out), its channel (RV_NOVEL_NONE when 0), leveled = 1
	 * when it exceeds 1, and the share of the attribution its
	 * level-flagged channels get. */
	double level;
	uint32_t level_chan;
	int leveled;
	double level_share;
};

/* rv_ens_result.novel_chan of a window without novelty. */
#define RV_NOVEL_NONE UINT32_MAX

/* Rows scored together by rv_ens_score_batch (bounds its scratch). */
enum { RV_ENS_BATCH = 64 };

/* Per-window scratch, sized at creation; one per scoring thread.
 * Returns 0 and *out, or -ENOMEM (*out NULL). */
struct rv_ens_scratch;
int rv_ens_scratch_new(const struct rv_ensemble *e, struct rv_ens_scratch **out);
void rv_ens_scratch_free(struct rv_ens_scratch *s);

/*
 * Scores one window. chan_weight (nchan doubles, may be NULL) receives the
 * attribution (enum rv_attribution; with ensemble, over the detectors that
 * fired, all enabled ones when only the fusion did) when a detector or the
 * fusion flagged the window, zeros otherwise. Allocates nothing.
 */
void rv_ens_score(const struct rv_ensemble *e, const float *feat, const float *raw,
		  struct rv_ens_scratch *s, struct rv_ens_result *res, double *chan_weight);

/*
 * Sets the BLAS threads for what follows (a process-wide OpenBLAS setting)
 * and returns the previous count, to restore it. Fitting wants every core;
 * per-window scoring wants 1, because threading one small matrix-vector
 * product costs more in wake-ups than it saves.
 */
int rv_ens_blas_threads(int n);

/*
 * Stops the BLAS worker threads now. OpenBLAS starts them when the library
 * loads and each spins for about 0.1 s before it sleeps: most of a core
 * taken from a short run's own threads. They start again on the next
 * threaded BLAS call (large PCA fits).
 */
void rv_ens_blas_quiesce(void);

/*
 * Scores n windows at once (feature row i at feat + i * feat_ld, raw row
 * at raw + i * raw_ld; raw may be NULL when spe is off) into res[0..n-1],
 * with the same results as rv_ens_score but several times faster per
 * window: blocks of RV_ENS_BATCH rows share matrix products. No attribution.
 */
void rv_ens_score_batch(const struct rv_ensemble *e, const float *feat, size_t feat_ld,
			const float *raw, size_t raw_ld, size_t n, struct rv_ens_scratch *s,
			struct rv_ens_result *res);

/* Attribution of one scored window (res from rv_ens_score_batch): fills
 * chan_weight as rv_ens_score does. */
void rv_ens_explain(const struct rv_ensemble *e, const float *feat, const float *raw,
		    struct rv_ens_scratch *s, const struct rv_ens_result *res, double *chan_weight);

/* rv_ens_explain for row i (< RV_ENS_BATCH) of the last rv_ens_score_batch
 * call on s, which scored at most RV_ENS_BATCH rows: reuses the rows it
 * standardized instead of standardizing again. Same result. */
void rv_ens_explain_batch_row(const struct rv_ensemble *e, const float *feat, const float *raw,
			      struct rv_ens_scratch *s, size_t i, const struct rv_ens_result *res,
			      double *chan_weight);

const struct rv_ens_config *rv_ens_config(const struct rv_ensemble *e);
double rv_ens_threshold(const struct rv_ensemble *e, int d);
double rv_ens_fuse_threshold(const struct rv_ensemble *e);
size_t rv_ens_pca_ncomp(const struct rv_ensemble *e);
size_t rv_ens_features_kept(const struct rv_ensemble *e);
/* The spread (standard deviation, after its floor) of feature column j over
 * the training windows, as the scaler standardizes it; 0 when the column
 * was dropped (constant while learning) or j is out of range. */
double rv_ens_feature_sd(const struct rv_ensemble *e, size_t j);

void rv_ens_save(const struct rv_ensemble *e, struct rv_wbuf *b);
/* Loads a section written by rv_ens_save; the channel maps are stored too.
 * A detector after the fixed four (detector.h) is stored under its name:
 * loading a model that names a detector this process does not have fails
 * with -EINVAL and a message naming it. */
int rv_ens_load(struct rv_rbuf *b, struct rv_ensemble **out, struct rv_err *err);

#endif
