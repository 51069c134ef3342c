/*
 * iforest.h - Isolation Forest (Liu, Ting, Zhou 2008) as in scikit-learn's
 * IsolationForest: each tree is grown on a subsample of min(samples, n) rows
 * drawn without replacement, splitting on a uniformly chosen feature at a
 * uniform value between that feature's min and max in the node, to the depth
 * limit ceil(log2(samples)); a leaf of size s adds c(s) to the path length.
 * score(x) = 2^(-E[h(x)] / c(samples)) in (0, 1], higher = more anomalous,
 * which equals -IsolationForest.score_samples(x).
 * Deterministic for a given seed (base/rng.h).
 */
#ifndef RV_DETECT_IFOREST_H
#define RV_DETECT_IFOREST_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "base/err.h"

struct rv_iforest_params {
	size_t trees;       /* 100 */
	size_t samples;     /* 256 */
	uint64_t seed;
};

struct rv_iforest;

/* Fits on n rows of F floats (row-major). Returns 0 or -EINVAL/-ENOMEM. */
int rv_iforest_fit(const float *x, size_t n, size_t F, const struct rv_iforest_params *prm,
		   struct rv_iforest **out, struct rv_err *err);
/* The same on rows ld >= F floats apart: the first F columns of a wider
 * matrix (x[i*ld + j]). */
int rv_iforest_fit_ld(const float *x, size_t ld, size_t n, size_t F,
		      const struct rv_iforest_params *prm, struct rv_iforest **out,
		      struct rv_err *err);
void rv_iforest_free(struct rv_iforest *f);

size_t rv_iforest_dim(const struct rv_iforest *f);

/*
 * Score of one row. contrib, when not NULL, receives F non-negative
 * per-feature weights: the features that split on the row's path, each
 * split weighted more the shorter the path (isolation on a short path is
 * the evidence), summed over trees and normalised to sum 1.
 */
double rv_iforest_score(const struct rv_iforest *f, const float *x, double *contrib);

/* Scores of n rows (row i at x + i * ld) into out, as rv_iforest_score
 * without contributions; faster per row for blocks of tens of rows. */
void rv_iforest_score_batch(const struct rv_iforest *f, const float *x, size_t ld, size_t n,
			    double *out);

void rv_iforest_save(const struct rv_iforest *f, struct rv_wbuf *b);
int rv_iforest_load(struct rv_rbuf *b, struct rv_iforest **out, struct rv_err *err);

#endif
