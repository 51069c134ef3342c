/*
 * features.h - per-window statistical and temporal features of one channel.
 *
 * Computing stage: no I/O, no allocation (the caller passes scratch space).
 * Definitions match shared/eval/reference_pipeline.py exactly, with x the W
 * values of a window, c = x - mean(x), i = 0..W-1, ibar = (W-1)/2:
 *   mean; std = sqrt(mean(c^2)) (population);
 *   min; max; p25/p75 = linear interpolation at (W-1)*q of the sorted values;
 *   skew = mean(c^3)/mean(c^2)^1.5, kurt = mean(c^4)/mean(c^2)^2 - 3
 *          (biased; 0 when the window is flat);
 *   slope = sum((i-ibar)*c)/sum((i-ibar)^2) (per sample);
 *   ac1 = sum(c[t]*c[t+1])/sum(c^2) (0 when flat);
 *   adf = p-value of the augmented Dickey-Fuller test with constant and no
 *         lagged differences (statsmodels adfuller(x, maxlag=0,
 *         autolag=None)), MacKinnon (1994/2010) approximate p-value;
 *         1 when undefined (flat, or too short: W < 4);
 *   sum, max of event channels (sparse counts).
 * "flat": mean(c^2) <= (1e-9*|mean|)^2.
 * Sums are accumulated in double even though inputs are float32.
 */
#ifndef RV_FEATURES_FEATURES_H
#define RV_FEATURES_FEATURES_H

#include <stddef.h>

enum rv_feat {
	RV_F_MEAN, RV_F_STD, RV_F_MIN, RV_F_MAX, RV_F_P25, RV_F_P75,
	RV_F_SKEW, RV_F_KURT, RV_F_SLOPE, RV_F_AC1, RV_F_ADF, RV_F_SUM,
	RV_F_COUNT
};

/* Bit masks over enum rv_feat. */
#define RV_FEAT_BIT(f) (1u << (f))
/* Every feature; bits above it are ignored. */
#define RV_FEAT_ALL_MASK (RV_FEAT_BIT(RV_F_COUNT) - 1u)
/* The paper's ten features of a gauge channel (ADF is opt-in). */
#define RV_FEAT_GAUGE_MASK                                                     \
	(RV_FEAT_BIT(RV_F_MEAN) | RV_FEAT_BIT(RV_F_STD) | RV_FEAT_BIT(RV_F_MIN) |  \
	 RV_FEAT_BIT(RV_F_MAX) | RV_FEAT_BIT(RV_F_P25) | RV_FEAT_BIT(RV_F_P75) |  \
	 RV_FEAT_BIT(RV_F_SKEW) | RV_FEAT_BIT(RV_F_KURT) |                        \
	 RV_FEAT_BIT(RV_F_SLOPE) | RV_FEAT_BIT(RV_F_AC1))
/* Stock channels (amounts of memory, rv_catalog_stock): how the window
 * moves, not where it sits: the gauge features less mean, min, max and the
 * quartiles. */
#define RV_FEAT_LEVEL_MASK                                                     \
	(RV_FEAT_BIT(RV_F_MEAN) | RV_FEAT_BIT(RV_F_MIN) | RV_FEAT_BIT(RV_F_MAX) |  \
	 RV_FEAT_BIT(RV_F_P25) | RV_FEAT_BIT(RV_F_P75))
#define RV_FEAT_STOCK_MASK (RV_FEAT_GAUGE_MASK & ~RV_FEAT_LEVEL_MASK)
/* Event channels (sparse error/retransmit counts): sum and max. */
#define RV_FEAT_EVENT_MASK (RV_FEAT_BIT(RV_F_SUM) | RV_FEAT_BIT(RV_F_MAX))

/* Short name ("mean", "std", ..., "adf", "sum"). */
const char *rv_feat_name(enum rv_feat f);

/* Number of bits set in mask (features produced per window). */
size_t rv_feat_count(unsigned mask);

/*
 * Computes the features selected by mask for the w values x[0], x[stride],
 * ..., in enum order, into out (rv_feat_count(mask) doubles). scratch must
 * hold w doubles (used for sorting). x holds no NaN (the caller fills gaps).
 * Bits of mask above RV_FEAT_ALL_MASK are ignored. w == 0 gives 0 for every
 * feature but adf (1).
 */
void rv_feat_window(const float *x, size_t w, size_t stride, unsigned mask,
		    double *out, double *scratch);

/*
 * q-quantile (0 <= q <= 1) of n >= 1 ascending values with numpy's default
 * linear interpolation: p25/p75 above, and a window's quantiles kept sorted
 * incrementally by the caller.
 */
double rv_feat_quantile_sorted(const double *sorted, size_t n, double q);

/*
 * The ten features of RV_FEAT_GAUGE_MASK, as floats in enum order, of
 * n <= RV_FEAT_BLOCK windows of w <= RV_FEAT_GAUGE_FAST_MAX values: window
 * b is x[b * step .. b * step + w - 1] and its features go to out + b * ld.
 * The windows are computed side by side (one value position at a time
 * across the block, percentiles by a sorting network), so that every loop
 * runs over windows and vectorizes; per window the arithmetic is
 * rv_feat_window's, with identical results. For the feature matrix.
 */
/* RV_FEAT_BLOCK_MIN: fewer windows than this go window by window, which
 * costs less than a block's 64 lanes (features/window.c). */
enum { RV_FEAT_GAUGE_FAST_MAX = 32, RV_FEAT_BLOCK = 64, RV_FEAT_BLOCK_MIN = 8 };
void rv_feat_gauge_block(const float *x, size_t w, size_t step, size_t n, float *out, size_t ld);

/* ADF p-value as above, for n values (scratch: n doubles). */
double rv_feat_adf_pvalue(const float *x, size_t n, size_t stride, double *scratch);

/* MacKinnon approximate p-value of an ADF t-statistic, constant only, N=1. */
double rv_feat_mackinnon_p(double tstat);

#endif
