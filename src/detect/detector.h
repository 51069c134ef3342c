/*
 * detector.h - the one private interface every anomaly detector implements,
 * and the one table of them. ensemble.c, ensemble_fit.c and ensemble_io.c
 * loop over the table and never name a detector; names, window-CSV
 * columns, /metrics labels and model sections follow from it.
 *
 * Adding a detector: write detect/det_<name>.c defining a
 * `const struct rv_detector_ops rv_det_<name>` and append its name to the
 * built-in list in detect/detectors.c (one line; the table's order is the
 * column order and the bit order of rv_ens_config.enabled, so append:
 * model files store the bits, and any detector past the fixed four is
 * stored under its name). A detector outside the library (a test) calls
 * rv_detector_register at start-up instead.
 *
 * The contract, seen from the ensemble (who calls what):
 *   fit          once per model, from the standardized training rows of the
 *                detector's input; produces an opaque state (may be NULL
 *                for a stateless detector). Fits of different detectors
 *                run side by side on threads: fit touches only its own
 *                state and must not change process-wide settings, except
 *                through rv_ens_blas_threads as PCA does (a large fit runs
 *                alone).
 *   fold_scores  optional (subspace detectors): out-of-fold calibration
 *                scores for wide inputs (ensemble_fit.c says when).
 *   score_block  n <= RV_ENS_BATCH standardized rows (row i at z + i * ld)
 *                into score[i * stride]; the hot path: allocates nothing.
 *   contrib      one standardized row: returns its score (the same value
 *                score_block gives) and fills contrib[0..dim-1] with each
 *                input column's non-negative share of it (the ensemble
 *                turns columns into channels); for attribution.
 *   save / load  the detector's own tagged, versioned section of the model
 *                file (base/bytes.h); load validates everything it reads
 *                and checks the dimension it is given; save may be NULL
 *                (nothing to store; load is then NULL too).
 *   free         the state (NULL: nothing owned).
 * scratch_len gives the bytes of per-thread scratch score_block and contrib
 * may use (aligned for doubles, kept between calls by one thread: a
 * detector may keep hints there, never anything that changes a result);
 * it is called after fit or load.
 *
 * Threshold: the `threshold` rule of the descriptor applied to the scores
 * of the calibration rows (ensemble.h). The descriptors are const data and
 * live for the whole process; rv_detector_register keeps the pointer.
 * Computing stage: no I/O.
 */
#ifndef RV_DETECT_DETECTOR_H
#define RV_DETECT_DETECTOR_H

#include <stddef.h>

#include "base/bytes.h"
#include "base/err.h"

struct rv_ens_config;

/* Room in the table: bits of rv_ens_config.enabled, columns of results. */
enum { RV_DET_MAX = 8 };

/* What a detector reads: the standardized features of the window, or the
 * standardized raw samples of the window (model's nraw_pts per channel). */
enum rv_det_input { RV_DET_IN_FEAT, RV_DET_IN_RAW };

/* How its threshold comes from the calibration scores: the config's
 * `quantile` quantile, or the 1 - contamination quantile (scikit-learn's
 * offset_ for the Isolation Forest). */
enum rv_det_rule { RV_DET_THR_QUANTILE, RV_DET_THR_CONTAMINATION };

/* The standardized rows a detector is fitted on. */
struct rv_det_rows {
	const float *z;          /* row i at z + i * ld, dim values */
	size_t ld, n, dim;
	unsigned threads;        /* the fit's thread budget (0: 1) */
};

struct rv_detector_ops {
	const char *name;              /* lower case, [a-z0-9_]; CSV, JSON, labels */
	enum rv_det_input input;
	enum rv_det_rule threshold;
	/* 1: one of the paper's detectors, whose flag column of the window CSV
	 * comes before top_metrics (the paper's layout); 0: after subsystem. */
	int paper;
	int (*fit)(const struct rv_ens_config *cfg, const struct rv_det_rows *rows, void **state,
		   struct rv_err *err);
	int (*fold_scores)(const struct rv_ens_config *cfg, const void *state,
			   const struct rv_det_rows *rows, double *score, size_t stride);
	size_t (*scratch_len)(const void *state, size_t dim);
	void (*score_block)(const struct rv_ens_config *cfg, const void *state, const float *z,
			    size_t ld, size_t n, size_t dim, void *scratch, double *score,
			    size_t stride);
	double (*contrib)(const struct rv_ens_config *cfg, const void *state, const float *z,
			  size_t dim, void *scratch, double *contrib);
	void (*save)(const void *state, struct rv_wbuf *b);
	int (*load)(struct rv_rbuf *b, size_t dim, void **state, struct rv_err *err);
	void (*free)(void *state);
};

/* The first four built-in detectors, the first entries of the table in
 * this order, have fixed indices: the model file keeps their thresholds in
 * a fixed block (ensemble_io.c), and the presets and the agent name them.
 * Every detector after them is found by name. */
enum rv_det { RV_DET_ZSCORE, RV_DET_PCA, RV_DET_IFOREST, RV_DET_SPE, RV_DET_FIXED };

#define RV_DET_BIT(d) (1u << (d))

/*
 * Appends a detector to the table (after the built-ins, in call order);
 * call before fitting or loading a model, from one thread. Returns its
 * index, -EEXIST when the name is taken, -ENOSPC past RV_DET_MAX, -EINVAL
 * for a descriptor without name, score_block or contrib.
 */
int rv_detector_register(const struct rv_detector_ops *ops);

/* Detectors in the table (built-ins and registered ones). */
int rv_det_count(void);
/* Descriptor of detector d, or NULL past rv_det_count(). */
const struct rv_detector_ops *rv_det_ops(int d);
/* Name of detector d ("?" past the table). */
const char *rv_det_name(int d);
/* Index of a detector name, or -1. */
int rv_det_parse(const char *name);
/* Every detector's name, in table order (rv_det_count() of them): for
 * writers that take a name array (explain/incident.h). */
const char *const *rv_det_names(void);
/* RV_DET_BIT mask of the detectors reading `in`. */
unsigned rv_det_input_mask(enum rv_det_input in);

#endif
