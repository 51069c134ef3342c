/*
 * corr.h - Pearson correlation of every pair of channels of one input
 * (one workload's recording), for `reveal prune` (select/prune.h).
 *
 * Input: nchan channels of nrows samples, column-major float32 as in
 * struct rv_table (values[c * nrows + r]); a gap is NaN or +-Inf.
 *
 * Constant channels are reported apart and never correlated: a channel
 * with fewer than 2 values, or whose values are all equal (max == min
 * over its values), gets no slot and rv_corr_r() gives NaN for it.
 *
 * One pass through BLAS: the varying channels, standardized with their
 * own mean and standard deviation (computed in double) and 0 in a gap,
 * are fed to ssyrk in blocks of rows whose float results are summed in
 * double. Without gaps r = sum(z_i z_j) / N is exact Pearson. Gaps:
 *  - RV_CORR_FILL (mean-filling with the count correction): a gap counts
 *    as the channel's mean (z = 0) and the sum is divided by n_ij, the
 *    samples both have (one more ssyrk over the 0/1 masks of the gapped
 *    channels only). Each channel keeps its own mean and spread, so r is
 *    approximate where the gaps fall in unusual stretches. Measured
 *    against pairwise-complete r with every channel missing 1 % of its
 *    samples: within 0.005 when gaps fall at random or in runs
 *    (select_corr_test.c checks 0.02), up to 0.03 when the missing 1 % are
 *    each channel's highest values.
 *  - RV_CORR_EXACT (pairwise-complete): per pair, mean and spread over
 *    the shared samples only, from three more sums (z_i over j's samples,
 *    z_i^2 over j's samples, n_ij: two sgemm and one ssyrk whose size
 *    grows with the number of gapped channels). Matches a direct two-loop
 *    computation within float rounding (1e-4).
 *  - RV_CORR_AUTO (the default): EXACT when a channel misses more than
 *    RV_CORR_FILL_MAX_GAP of its samples, else FILL.
 * A pair with fewer than RV_CORR_MIN_PAIR shared samples, or one of them
 * constant over the shared samples (EXACT), has r = NaN: not measured.
 *
 * Memory, V varying channels of which G have gaps, B = RV_CORR_BLOCK_ROWS:
 * 12 V^2 + 12 G^2 bytes for the sums and r (+ 24 V G with EXACT), and
 * 4 B (V + G) bytes of block buffers (+ 4 B V with EXACT); the input is
 * borrowed. bench/prune_bench.c, 700 x 18000 with a gap in every channel:
 * a peak of 74 MiB (FILL) or 88 MiB (EXACT), the 48 MiB input included.
 * Threads: those of OpenBLAS (OPENBLAS_NUM_THREADS). No file access.
 */
#ifndef RV_SELECT_CORR_H
#define RV_SELECT_CORR_H

#include <stddef.h>

#include "base/err.h"

enum rv_corr_gaps { RV_CORR_AUTO, RV_CORR_FILL, RV_CORR_EXACT };

#define RV_CORR_FILL_MAX_GAP 0.01  /* AUTO: FILL while every channel misses <= 1 % */

enum {
	RV_CORR_MIN_PAIR = 10,           /* shared samples below which r is NaN */
	RV_CORR_BLOCK_ROWS = 2048,       /* rows per BLAS call */
	RV_CORR_MAX_CHANNELS = 16384,    /* larger inputs are refused (-E2BIG) */
};

struct rv_corr;

/*
 * Correlates the nchan x nrows values (borrowed for the call only) with
 * gaps handled as gaps says. 0 and *out (free with rv_corr_free), or
 * -EINVAL (no channel, more than RV_CORR_MAX_CHANNELS), -ENOMEM; err says
 * which. name (may be NULL) starts the messages.
 */
int rv_corr_compute(const float *values, size_t nchan, size_t nrows, enum rv_corr_gaps gaps,
		    const char *name, struct rv_corr **out, struct rv_err *err);

void rv_corr_free(struct rv_corr *c);

/* Channels of the input, and how many vary (the rest are constant). */
size_t rv_corr_nchan(const struct rv_corr *c);
size_t rv_corr_nvarying(const struct rv_corr *c);

/* 1 when channel i is constant (or i is out of range), else 0. */
int rv_corr_constant(const struct rv_corr *c, size_t i);

/* r of channels i and j in [-1, 1] (1 for i == j when it varies); NaN
 * when either is constant, out of range, or the pair was not measured. */
float rv_corr_r(const struct rv_corr *c, size_t i, size_t j);

/* Samples of channel i that are values (not gaps). */
size_t rv_corr_valid(const struct rv_corr *c, size_t i);

/*
 * Variance of channel i scaled to [0, 1] by its min and max: a unit-free
 * spread in (0, 0.25] (a channel that sits still and spikes rarely scores
 * low, one that moves across its range high); 0 when constant.
 */
double rv_corr_spread(const struct rv_corr *c, size_t i);

/* 1 when gaps were handled pairwise-complete (EXACT), 0 when by FILL or
 * when there was no gap. */
int rv_corr_exact(const struct rv_corr *c);

/* Share of the varying channels' cells that were gaps. */
double rv_corr_gap_share(const struct rv_corr *c);

#endif
