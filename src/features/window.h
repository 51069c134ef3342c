/*
 * window.h - the feature matrix of a recorded series: one row per sliding
 * window, one column per (channel, feature).
 *
 * Computing stage: no I/O. rv_featmat_build allocates the matrix once and
 * one scratch buffer; nothing per window. Callers: pipeline/ (training and
 * offline scoring). Column order is channel by channel, within a channel in
 * enum rv_feat order, so that a column's position follows from the masks.
 */
#ifndef RV_FEATURES_WINDOW_H
#define RV_FEATURES_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "features/features.h"

struct rv_featmat {
	size_t nwin;        /* windows */
	size_t nfeat;       /* feature columns */
	float *x;           /* nwin * nfeat, row-major: x[w*nfeat + j] */
	uint32_t *chan;     /* nfeat: channel index of column j */
	uint8_t *feat;      /* nfeat: enum rv_feat of column j */
	size_t *end_row;    /* nwin: input row index of each window's last sample */
};

/*
 * values: ncols channels of nrows floats, column-major (values[c*nrows + r]),
 * no NaN. masks[c]: feature mask of channel c (0 = channel unused). Windows of
 * w rows ending at rows w-1, w-1+step, ... <= nrows-1. Fills *out, which the
 * caller releases with rv_featmat_fini. Fails with -EINVAL (and err) when
 * nrows < w or w < 2 or step < 1, when a mask has bits beyond
 * RV_FEAT_ALL_MASK or no channel selects a feature; -ENOMEM. On failure *out
 * is empty (safe to fini).
 */
int rv_featmat_build(const float *values, size_t nrows, size_t ncols,
		     const unsigned *masks, size_t w, size_t step,
		     struct rv_featmat *out, struct rv_err *err);

/* The same on up to `threads` threads (windows split between them); the
 * result does not depend on the thread count. flat_below (NULL: none):
 * per channel, the span (max - min) under which a window counts as flat
 * for its shape features: skewness, kurtosis and lag-1 autocorrelation 0,
 * the ADF p-value 1, as for a constant window (a wiggle below the channel's
 * resolution has no shape worth scoring). */
int rv_featmat_build_mt(const float *values, size_t nrows, size_t ncols,
			const unsigned *masks, const double *flat_below, size_t w, size_t step,
			unsigned threads, struct rv_featmat *out, struct rv_err *err);

/*
 * Streaming use: the features of windows k0..k1-1 (numbered as by
 * rv_featmat_build; the caller checked they fit in nrows) into rows,
 * (k1 - k0) x rv_featmat_width() floats, with scratch of
 * rv_featmat_scratch_len() doubles. Same values as the matrix builder.
 */
size_t rv_featmat_width(size_t ncols, const unsigned *masks);
size_t rv_featmat_scratch_len(size_t ncols, const unsigned *masks, size_t w);
void rv_featmat_rows(const float *values, size_t nrows, size_t ncols, const unsigned *masks,
		     const double *flat_below, size_t w, size_t step, size_t k0, size_t k1,
		     float *rows, double *scratch);

/* Frees the arrays of m and empties it; m == NULL is a no-op, and so is a
 * second call. */
void rv_featmat_fini(struct rv_featmat *m);

/* Column name "channel/feature", e.g. "cpu.util/mean", written into buf
 * (truncated to len); returns buf. chan_names is indexed by channel; NULL
 * gives "ch<index>/feature". j >= nfeat gives "". */
const char *rv_featmat_colname(const struct rv_featmat *m,
			       const char *const *chan_names, size_t j,
			       char *buf, size_t len);

#endif
