/*
 * window.c - the feature matrix over sliding windows (window.h).
 *
 * Sizes 700 channels x 3600 windows and 38 channels x 24k windows: the loop
 * runs window by window so that each output row is written once and in
 * order, while each channel's window is read as w contiguous floats of the
 * column-major input (stride 1). Percentiles come from a sorted copy of each
 * channel's window that slides with it (a removal and an insertion per step
 * row), which beats sorting every window once w reaches tens of samples.
 * All memory is taken before the loop: the matrix, its column labels and one
 * scratch buffer (w doubles, plus w per channel that asks for percentiles).
 */
#include "features/window.h"

#include "base/bigmem.h"
#include "base/parallel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Smallest window with a spread, a slope and a lag-1 pair. */
enum { FEATMAT_MIN_W = 2 };
static const double FEATMAT_Q25 = 0.25;
static const double FEATMAT_Q75 = 0.75;
#define PCTL_MASK (RV_FEAT_BIT(RV_F_P25) | RV_FEAT_BIT(RV_F_P75))
/* Features of a window's shape, undefined for a flat window. */
#define SHAPE_MASK                                                              \
	(RV_FEAT_BIT(RV_F_SKEW) | RV_FEAT_BIT(RV_F_KURT) | RV_FEAT_BIT(RV_F_AC1) | \
	 RV_FEAT_BIT(RV_F_ADF))

static int check_args(const float *values, size_t nrows, size_t ncols,
		      const unsigned *masks, size_t w, size_t step,
		      struct rv_err *err)
{
	if (!values || !masks || ncols == 0)
		return rv_err_set(err, -EINVAL, "feature matrix: no channels");
	if (ncols > UINT32_MAX)
		return rv_err_set(err, -EINVAL, "feature matrix: %zu channels is too many", ncols);
	if (w < FEATMAT_MIN_W)
		return rv_err_set(err, -EINVAL, "feature matrix: window of %zu rows, need at least %d",
				  w, FEATMAT_MIN_W);
	if (step < 1)
		return rv_err_set(err, -EINVAL, "feature matrix: step must be at least 1");
	if (nrows < w)
		return rv_err_set(err, -EINVAL, "feature matrix: %zu rows, fewer than the window of %zu",
				  nrows, w);
	for (size_t c = 0; c < ncols; c++)
		if (masks[c] & ~RV_FEAT_ALL_MASK)
			return rv_err_set(err, -EINVAL, "feature matrix: channel %zu: unknown feature bits 0x%x",
					  c, masks[c] & ~RV_FEAT_ALL_MASK);
	return 0;
}

static int alloc_matrix(struct rv_featmat *m, size_t nwin, size_t nfeat)
{
	size_t cells;

	if (__builtin_mul_overflow(nwin, nfeat, &cells) ||
	    cells > SIZE_MAX / sizeof(float))
		return -ENOMEM;
	m->nwin = nwin;
	m->nfeat = nfeat;
	m->x = rv_big_array(cells, sizeof(float));
	m->chan = malloc(nfeat * sizeof(uint32_t));
	m->feat = malloc(nfeat * sizeof(uint8_t));
	m->end_row = malloc(nwin * sizeof(size_t));
	if (!m->x || !m->chan || !m->feat || !m->end_row)
		return -ENOMEM;
	return 0;
}

static void label_columns(struct rv_featmat *m, size_t ncols, const unsigned *masks)
{
	size_t j = 0;

	for (size_t c = 0; c < ncols; c++)
		for (unsigned f = 0; f < RV_F_COUNT; f++)
			if (masks[c] & RV_FEAT_BIT(f)) {
				m->chan[j] = (uint32_t)c;
				m->feat[j] = (uint8_t)f;
				j++;
			}
}

/* First index of the n sorted values a whose value is not below x. */
static size_t lower_bound(const double *a, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keeps a[0..n] ascending after adding x to the n sorted values a[0..n-1]. */
static void sorted_insert(double *a, size_t n, double x)
{
	size_t at = lower_bound(a, n, x);

	memmove(a + at + 1, a + at, (n - at) * sizeof(double));
	a[at] = x;
}

/* Drops one value equal to x (present) from the n sorted values a. */
static void sorted_remove(double *a, size_t n, double x)
{
	size_t at = lower_bound(a, n - 1, x);

	memmove(a + at, a + at + 1, (n - at - 1) * sizeof(double));
}

/*
 * Brings the sorted copy of a channel's window from the rows starting at
 * first - step to those starting at first: O(step * w) moves instead of a
 * sort per window. Windows that do not overlap (k == 0, step >= w) are
 * rebuilt by insertion.
 */
static void slide_sorted(double *sorted, const float *col, size_t w,
			 size_t first, size_t step, int fresh)
{
	if (fresh || step >= w) {
		for (size_t i = 0; i < w; i++)
			sorted_insert(sorted, i, col[first + i]);
		return;
	}
	for (size_t i = 0; i < step; i++) {
		sorted_remove(sorted, w, col[first - step + i]);
		sorted_insert(sorted, w - 1, col[first + w - step + i]);
	}
}

/* Writes a channel's features in enum order: p25/p75 from the sorted
 * window, the rest from rv_feat_window's output (in enum order too). */
static float *emit(float *row, unsigned mask, const double *rest,
		   const double *sorted, size_t w)
{
	for (unsigned f = 0; f < RV_F_COUNT; f++) {
		if (!(mask & RV_FEAT_BIT(f)))
			continue;
		if (f == RV_F_P25)
			*row++ = (float)rv_feat_quantile_sorted(sorted, w, FEATMAT_Q25);
		else if (f == RV_F_P75)
			*row++ = (float)rv_feat_quantile_sorted(sorted, w, FEATMAT_Q75);
		else
			*row++ = (float)*rest++;
	}
	return row;
}

/* Features of one channel for windows k0..k1-1 written at column j of
 * their rows (row of k0 first, nfeat apart), one window at a time. The
 * channel's sorted window (when it asks for percentiles) slides on from
 * window k0 - 1 unless fresh. scratch: w doubles for rv_feat_window. */
static void channel_windows(float *x, size_t nfeat, size_t j, const float *col, unsigned mask,
			    size_t w, size_t step, double *sorted, int fresh, double *scratch,
			    size_t k0, size_t k1)
{
	double rest[RV_F_COUNT];

	for (size_t k = k0; k < k1; k++) {
		size_t first = k * step;
		float *row = x + (k - k0) * nfeat + j;

		if (mask & PCTL_MASK) {
			slide_sorted(sorted, col, w, first, step, fresh && k == k0);
			rv_feat_window(col + first, w, 1, mask & ~PCTL_MASK, rest, scratch);
			emit(row, mask, rest, sorted, w);
		} else {
			rv_feat_window(col + first, w, 1, mask, rest, scratch);
			for (size_t f = 0; f < rv_feat_count(mask); f++)
				row[f] = (float)rest[f];
		}
	}
}

/*
 * A window whose values span less than flat_below (the channel's floor:
 * its resolution, or a share of its level) has no shape to speak of: skewness, kurtosis and
 * autocorrelation of such wiggles are noise, and one quiet window among
 * noisy ones would score like a fault. Its shape features become those of
 * a flat window (0, and ADF's p-value 1), for windows k0..k1-1 of the
 * channel written at column j of their rows.
 */
static void flatten_shape(float *x, size_t nfeat, size_t j, const float *col, unsigned mask,
			  size_t w, size_t step, double flat_below, size_t k0, size_t k1)
{
	const unsigned both = RV_FEAT_BIT(RV_F_MIN) | RV_FEAT_BIT(RV_F_MAX);
	/* min and max written already (their place in the channel's columns) */
	const size_t at_min = rv_feat_count(mask & (RV_FEAT_BIT(RV_F_MIN) - 1u));
	const size_t at_max = rv_feat_count(mask & (RV_FEAT_BIT(RV_F_MAX) - 1u));

	for (size_t k = k0; k < k1; k++) {
		const float *v = col + k * step;
		float *out = x + (k - k0) * nfeat + j;
		float lo = v[0], hi = v[0];

		if ((mask & both) == both) {
			lo = out[at_min];
			hi = out[at_max];
		} else {
			for (size_t i = 1; i < w; i++) {
				lo = v[i] < lo ? v[i] : lo;
				hi = v[i] > hi ? v[i] : hi;
			}
		}
		if (!((double)hi - (double)lo < flat_below))
			continue;
		for (unsigned f = 0; f < RV_F_COUNT; f++) {
			if (!(mask & RV_FEAT_BIT(f)))
				continue;
			if (SHAPE_MASK & RV_FEAT_BIT(f))
				*out = f == RV_F_ADF ? 1.0f : 0.0f;
			out++;
		}
	}
}

/*
 * Rows of windows k0..k1-1 into x (row of k0 first, nfeat apart), in blocks
 * of RV_FEAT_BLOCK windows, channel by channel within a block: gauge
 * channels with short windows go through rv_feat_gauge_block when the
 * block has at least RV_FEAT_BLOCK_MIN windows, the others window by
 * window (same values, bit for bit: features_test.c). A block always
 * computes RV_FEAT_BLOCK lanes, so for the one window a live agent scores
 * per second it did 64 windows' work. scratch: w doubles, then w sorted doubles per channel
 * with percentiles (rv_featmat_scratch_len).
 */
static void fill_range(float *x, size_t nfeat, const float *values, size_t nrows, size_t ncols,
		       const unsigned *masks, const double *flat_below, size_t w, size_t step,
		       double *scratch, size_t k0, size_t k1)
{
	for (size_t b0 = k0; b0 < k1; b0 += RV_FEAT_BLOCK) {
		size_t b1 = k1 - b0 < RV_FEAT_BLOCK ? k1 : b0 + RV_FEAT_BLOCK;
		float *rows = x + (b0 - k0) * nfeat;
		double *sorted = scratch + w;
		size_t j = 0;
		int fast = w <= RV_FEAT_GAUGE_FAST_MAX && b1 - b0 >= RV_FEAT_BLOCK_MIN;

		for (size_t c = 0; c < ncols; c++) {
			const float *col = values + c * nrows;
			unsigned mask = masks[c];

			if (fast && mask == RV_FEAT_GAUGE_MASK)
				rv_feat_gauge_block(col + b0 * step, w, step, b1 - b0, rows + j, nfeat);
			else if (mask)
				channel_windows(rows, nfeat, j, col, mask, w, step, sorted, b0 == k0,
						scratch, b0, b1);
			if (flat_below && flat_below[c] > 0 && (mask & SHAPE_MASK))
				flatten_shape(rows, nfeat, j, col, mask, w, step, flat_below[c], b0,
					      b1);
			if (mask & PCTL_MASK)
				sorted += w;
			j += rv_feat_count(mask);
		}
	}
}

static void fill_rows(struct rv_featmat *m, const float *values, size_t nrows,
		      size_t ncols, const unsigned *masks, const double *flat_below, size_t w,
		      size_t step, double *scratch, size_t k0, size_t k1)
{
	for (size_t k = k0; k < k1; k++)
		m->end_row[k] = k * step + w - 1;
	fill_range(m->x + k0 * m->nfeat, m->nfeat, values, nrows, ncols, masks, flat_below, w,
		   step, scratch, k0, k1);
}

size_t rv_featmat_width(size_t ncols, const unsigned *masks)
{
	size_t nfeat = 0;

	for (size_t c = 0; c < ncols; c++)
		nfeat += rv_feat_count(masks[c]);
	return nfeat;
}

size_t rv_featmat_scratch_len(size_t ncols, const unsigned *masks, size_t w)
{
	size_t nsorted = 0;

	for (size_t c = 0; c < ncols; c++)
		nsorted += (masks[c] & PCTL_MASK) != 0;
	return (nsorted + 1) * w;
}

void rv_featmat_rows(const float *values, size_t nrows, size_t ncols, const unsigned *masks,
		     const double *flat_below, size_t w, size_t step, size_t k0, size_t k1,
		     float *rows, double *scratch)
{
	fill_range(rows, rv_featmat_width(ncols, masks), values, nrows, ncols, masks, flat_below,
		   w, step, scratch, k0, k1);
}

/* One thread's share of the windows: its own scratch, its own sorted
 * windows started afresh at its first window. */
struct fill_job {
	struct rv_featmat *m;
	const float *values;
	size_t nrows, ncols, w, step, nscratch;
	const unsigned *masks;
	const double *flat_below;
	double *scratch;              /* nscratch doubles per thread */
};

static int fill_slice(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct fill_job *j = ctx;

	fill_rows(j->m, j->values, j->nrows, j->ncols, j->masks, j->flat_below, j->w, j->step,
		  j->scratch + (size_t)slot * j->nscratch, begin, end);
	return 0;
}

int rv_featmat_build(const float *values, size_t nrows, size_t ncols,
		     const unsigned *masks, size_t w, size_t step,
		     struct rv_featmat *out, struct rv_err *err)
{
	return rv_featmat_build_mt(values, nrows, ncols, masks, NULL, w, step, 1, out, err);
}

int rv_featmat_build_mt(const float *values, size_t nrows, size_t ncols,
			const unsigned *masks, const double *flat_below, size_t w, size_t step,
			unsigned threads, struct rv_featmat *out, struct rv_err *err)
{
	memset(out, 0, sizeof(*out));
	int rc = check_args(values, nrows, ncols, masks, w, step, err);

	if (rc)
		return rc;
	size_t nfeat = 0, nsorted = 0, nscratch;

	for (size_t c = 0; c < ncols; c++) {
		nfeat += rv_feat_count(masks[c]);
		nsorted += (masks[c] & PCTL_MASK) != 0;
	}
	if (nfeat == 0)
		return rv_err_set(err, -EINVAL, "feature matrix: no channel selects a feature");
	size_t nwin = (nrows - w) / step + 1;
	double *scratch = NULL;

	threads = threads < 1 ? 1 : threads > RV_PARALLEL_MAX ? RV_PARALLEL_MAX : threads;
	if (!__builtin_mul_overflow(nsorted + 1, w, &nscratch) &&
	    nscratch <= SIZE_MAX / sizeof(double) / threads)
		scratch = malloc(nscratch * threads * sizeof(double));
	if (!scratch || alloc_matrix(out, nwin, nfeat)) {
		free(scratch);
		rv_featmat_fini(out);
		return rv_err_set(err, -ENOMEM, "feature matrix: out of memory for %zu x %zu",
				  nwin, nfeat);
	}
	label_columns(out, ncols, masks);
	struct fill_job job = { out, values, nrows, ncols, w, step, nscratch, masks, flat_below,
				scratch };
	rc = rv_parallel_for(nwin, threads, fill_slice, &job);
	free(scratch);
	return rc;
}

void rv_featmat_fini(struct rv_featmat *m)
{
	if (!m)
		return;
	rv_big_free(m->x);
	free(m->chan);
	free(m->feat);
	free(m->end_row);
	memset(m, 0, sizeof(*m));
}

const char *rv_featmat_colname(const struct rv_featmat *m,
			       const char *const *chan_names, size_t j,
			       char *buf, size_t len)
{
	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (!m || j >= m->nfeat)
		return buf;
	const char *fname = rv_feat_name((enum rv_feat)m->feat[j]);

	if (chan_names)
		snprintf(buf, len, "%s/%s", chan_names[m->chan[j]], fname);
	else
		snprintf(buf, len, "ch%u/%s", (unsigned)m->chan[j], fname);
	return buf;
}
