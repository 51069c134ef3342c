/*
 * features.c - the per-window features of one channel (features.h).
 *
 * The definitions are those of shared/eval/reference_pipeline.py, so that the
 * C pipeline and the Python reference see the same feature values: two-pass
 * moments about the mean, accumulated in double; numpy's linear percentile;
 * the ADF t-statistic of an OLS fit with MacKinnon's approximate p-value as
 * statsmodels computes it. Called once per channel and window (millions of
 * times per training run), hence no allocation: the caller's scratch holds
 * the window as doubles, and percentiles use selection rather than a full
 * sort once the window is long enough for that to pay.
 */
#include "features/features.h"

#include <math.h>

#include "base/stats.h"

/* Insertion sort up to this length; quickselect above it. */
enum { FEAT_SORT_MAX = 32 };
/* The ADF regression of dx on [1, x_{t-1}] needs a residual degree of freedom
 * and statsmodels refuses maxlag=0 below 4 values. */
enum { ADF_MIN_N = 4 };

/* Relative spread below which a window counts as flat (reference_pipeline.py). */
static const double FLAT_REL = 1e-9;
static const double EXCESS_KURT = 3.0;
static const double Q25 = 0.25;
static const double Q75 = 0.75;

/*
 * MacKinnon (1994) response-surface coefficients for the Dickey-Fuller tau
 * statistic, regression with a constant, one I(1) series (N = 1); the values
 * of statsmodels.tsa.adfvalues (tau_max_c, tau_min_c, tau_star_c,
 * tau_c_smallp, tau_c_largep), scaled the way it scales them.
 */
static const double TAU_MAX = 2.74;
static const double TAU_MIN = -18.83;
static const double TAU_STAR = -1.61;
static const double TAU_SMALLP[] = { 2.1659, 1.4412, 3.8269 * 1e-2 };
static const double TAU_LARGEP[] = { 1.7339, 9.3202 * 1e-1, -1.2745 * 1e-1,
				     -1.0368 * 1e-2 };

static const char *const feat_names[] = {
	[RV_F_MEAN] = "mean", [RV_F_STD] = "std",   [RV_F_MIN] = "min",
	[RV_F_MAX] = "max",   [RV_F_P25] = "p25",   [RV_F_P75] = "p75",
	[RV_F_SKEW] = "skew", [RV_F_KURT] = "kurt", [RV_F_SLOPE] = "slope",
	[RV_F_AC1] = "ac1",   [RV_F_ADF] = "adf",   [RV_F_SUM] = "sum",
};
_Static_assert(sizeof feat_names / sizeof feat_names[0] == RV_F_COUNT,
	       "one name per enum rv_feat");

/* Features that need the second pass over the centred values. */
#define MOMENT_MASK                                                            \
	(RV_FEAT_BIT(RV_F_STD) | RV_FEAT_BIT(RV_F_SKEW) |                      \
	 RV_FEAT_BIT(RV_F_KURT) | RV_FEAT_BIT(RV_F_SLOPE) |                    \
	 RV_FEAT_BIT(RV_F_AC1))
#define PCTL_MASK (RV_FEAT_BIT(RV_F_P25) | RV_FEAT_BIT(RV_F_P75))

const char *rv_feat_name(enum rv_feat f)
{
	return (unsigned)f < RV_F_COUNT ? feat_names[f] : "?";
}

size_t rv_feat_count(unsigned mask)
{
	return (size_t)__builtin_popcount(mask & RV_FEAT_ALL_MASK);
}

static double normal_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Horner, coefficients in increasing powers. */
static double poly(const double *c, size_t n, double x)
{
	double y = 0.0;

	for (size_t k = n; k-- > 0;)
		y = y * x + c[k];
	return y;
}

double rv_feat_mackinnon_p(double tstat)
{
	if (isnan(tstat))
		return 1.0;
	if (tstat > TAU_MAX)
		return 1.0;
	if (tstat < TAU_MIN)
		return 0.0;
	if (tstat <= TAU_STAR)
		return normal_cdf(poly(TAU_SMALLP, sizeof TAU_SMALLP / sizeof TAU_SMALLP[0], tstat));
	return normal_cdf(poly(TAU_LARGEP, sizeof TAU_LARGEP / sizeof TAU_LARGEP[0], tstat));
}

static int is_flat(double mean, double m2)
{
	double tol = FLAT_REL * fabs(mean);

	return m2 <= tol * tol;
}

/*
 * ADF p-value of the n values v (n >= ADF_MIN_N): OLS of dx_t on
 * [1, x_{t-1}], t = 1..n-1, in centred form so that the slope's standard
 * error is sqrt(s^2 / Sxx). A regressor without spread (x_0..x_{n-2} equal)
 * makes the regression singular: 1, as for a flat window.
 */
static double adf_pvalue_d(const double *v, size_t n)
{
	size_t m = n - 1;
	double zsum = 0.0, ysum = 0.0;

	for (size_t t = 1; t < n; t++) {
		zsum += v[t - 1];
		ysum += v[t] - v[t - 1];
	}
	double zbar = zsum / (double)m, ybar = ysum / (double)m;
	double sxx = 0.0, sxy = 0.0;

	for (size_t t = 1; t < n; t++) {
		double dz = v[t - 1] - zbar;

		sxx += dz * dz;
		sxy += dz * ((v[t] - v[t - 1]) - ybar);
	}
	if (!(sxx > 0.0) || is_flat(zbar, sxx / (double)m))
		return 1.0;
	double b = sxy / sxx, ssr = 0.0;

	for (size_t t = 1; t < n; t++) {
		double e = ((v[t] - v[t - 1]) - ybar) - b * (v[t - 1] - zbar);

		ssr += e * e;
	}
	double se = sqrt(ssr / (double)(m - 2) / sxx);
	double p = rv_feat_mackinnon_p(b / se);

	return isfinite(p) ? p : 1.0;
}

static void load(const float *x, size_t n, size_t stride, double *v)
{
	if (stride == 1) {
		for (size_t i = 0; i < n; i++)
			v[i] = x[i];
		return;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = x[i * stride];
}

static double mean_of(const double *v, size_t n)
{
	double s = 0.0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double rv_feat_adf_pvalue(const float *x, size_t n, size_t stride, double *scratch)
{
	if (n < ADF_MIN_N)
		return 1.0;
	load(x, n, stride, scratch);
	double mean = mean_of(scratch, n), s2 = 0.0;

	for (size_t i = 0; i < n; i++)
		s2 += (scratch[i] - mean) * (scratch[i] - mean);
	if (is_flat(mean, s2 / (double)n))
		return 1.0;
	return adf_pvalue_d(scratch, n);
}

/* Statistics of one window, all features before percentiles and ADF. */
struct win_stats {
	double mean, m2, min, max, sum;
	double skew, kurt, slope, ac1;
	int flat;
};

static void first_pass(const double *v, size_t n, struct win_stats *s)
{
	double sum = 0.0, lo = v[0], hi = v[0];

	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	s->sum = sum;
	s->mean = sum / (double)n;
	s->min = lo;
	s->max = hi;
}

/* Centred moments, slope and lag-1 autocorrelation (reference formulas). */
static void second_pass(const double *v, size_t n, struct win_stats *s)
{
	double s2 = 0.0, s3 = 0.0, s4 = 0.0, sic = 0.0, sac = 0.0;
	double ibar = (double)(n - 1) / 2.0, prev = 0.0;

	for (size_t i = 0; i < n; i++) {
		double c = v[i] - s->mean, c2 = c * c;

		s2 += c2;
		s3 += c2 * c;
		s4 += c2 * c2;
		sic += ((double)i - ibar) * c;
		if (i > 0)
			sac += prev * c;
		prev = c;
	}
	double nd = (double)n, m2 = s2 / nd;
	/* sum((i - ibar)^2) = n(n^2 - 1)/12, exact in double for any window. */
	double sii = nd * (nd * nd - 1.0) / 12.0;

	s->m2 = m2;
	s->flat = is_flat(s->mean, m2);
	s->slope = sii > 0.0 ? sic / sii : 0.0;
	if (s->flat) {
		s->skew = s->kurt = s->ac1 = 0.0;
		return;
	}
	/* One division for the three ratios (this runs per window and channel;
	 * the result differs from dividing each by a few ulps at most).
	 * m2^1.5 as m2*sqrt(m2): within an ulp of numpy's pow. */
	double inv = 1.0 / s2;      /* 1 / (n m2) */
	s->skew = s3 * inv / sqrt(m2);
	s->kurt = s4 * inv / m2 - EXCESS_KURT;
	s->ac1 = sac * inv;
}

static void insertion_sort(double *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = a[i];
		size_t j = i;

		for (; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static double min_of(const double *a, size_t n)
{
	double lo = a[0];

	for (size_t i = 1; i < n; i++)
		lo = a[i] < lo ? a[i] : lo;
	return lo;
}

/* numpy's _lerp: the upper half interpolates down from b for symmetry. */
static double lerp(double a, double b, double t)
{
	double d = b - a;

	return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

double rv_feat_quantile_sorted(const double *sorted, size_t n, double q)
{
	double pos = (double)(n - 1) * q;
	size_t k = (size_t)pos;

	return lerp(sorted[k], sorted[k + 1 < n ? k + 1 : k], pos - (double)k);
}

/*
 * p25 and p75 of the n values a (reordered). With a[] partitioned at the
 * lower index k, the upper neighbour is the minimum of a[k+1..]; the second
 * selection works inside a[k..] since p75's index is not below p25's.
 */
static void percentiles(double *a, size_t n, double *p25, double *p75)
{
	if (n <= FEAT_SORT_MAX) {
		insertion_sort(a, n);
		*p25 = rv_feat_quantile_sorted(a, n, Q25);
		*p75 = rv_feat_quantile_sorted(a, n, Q75);
		return;
	}
	double pos25 = (double)(n - 1) * Q25, pos75 = (double)(n - 1) * Q75;
	size_t k25 = (size_t)pos25, k75 = (size_t)pos75;

	rv_select_kth(a, n, k25);
	double lo25 = a[k25];
	double hi25 = k25 + 1 < n ? min_of(a + k25 + 1, n - k25 - 1) : lo25;

	rv_select_kth(a + k25, n - k25, k75 - k25);
	double lo75 = a[k75];
	double hi75 = k75 + 1 < n ? min_of(a + k75 + 1, n - k75 - 1) : lo75;

	*p25 = lerp(lo25, hi25, pos25 - (double)k25);
	*p75 = lerp(lo75, hi75, pos75 - (double)k75);
}

/* All selected features into all[] (indexed by enum rv_feat); v is
 * reordered by the percentiles, which therefore come last. */
static void compute_all(double *v, size_t w, unsigned mask, double *all)
{
	struct win_stats s = { 0 };

	first_pass(v, w, &s);
	if (mask & (MOMENT_MASK | RV_FEAT_BIT(RV_F_ADF)))
		second_pass(v, w, &s);
	all[RV_F_MEAN] = s.mean;
	all[RV_F_STD] = sqrt(s.m2);
	all[RV_F_MIN] = s.min;
	all[RV_F_MAX] = s.max;
	all[RV_F_SKEW] = s.skew;
	all[RV_F_KURT] = s.kurt;
	all[RV_F_SLOPE] = s.slope;
	all[RV_F_AC1] = s.ac1;
	all[RV_F_SUM] = s.sum;
	all[RV_F_ADF] = 1.0;
	if ((mask & RV_FEAT_BIT(RV_F_ADF)) && w >= ADF_MIN_N && !s.flat)
		all[RV_F_ADF] = adf_pvalue_d(v, w);
	if (mask & PCTL_MASK)
		percentiles(v, w, &all[RV_F_P25], &all[RV_F_P75]);
}

void rv_feat_window(const float *x, size_t w, size_t stride, unsigned mask,
		    double *out, double *scratch)
{
	double all[RV_F_COUNT] = { 0 };

	all[RV_F_ADF] = 1.0;
	if (w > 0) {
		load(x, w, stride, scratch);
		compute_all(scratch, w, mask, all);
	}
	for (unsigned f = 0; f < RV_F_COUNT; f++)
		if (mask & RV_FEAT_BIT(f))
			*out++ = all[f];
}

/*
 * Comparators (pairs of positions, lower first) of Batcher's odd-even merge
 * sort for n values, any n (Knuth, TAOCP 5.3.4, exercise 32's iterative
 * form): applied in order, they sort. Returns the count.
 */
static size_t batcher_pairs(size_t n, unsigned char (*pair)[2], size_t cap)
{
	size_t np = 0;

	for (size_t p = 1; p < n; p <<= 1)
		for (size_t k = p; k >= 1; k >>= 1)
			for (size_t j = k % p; j + k < n; j += 2 * k)
				for (size_t i = 0; i < k && i + j + k < n; i++)
					if ((i + j) / (2 * p) == (i + j + k) / (2 * p) && np < cap) {
						pair[np][0] = (unsigned char)(i + j);
						pair[np][1] = (unsigned char)(i + j + k);
						np++;
					}
	return np;
}

/* Comparators of a 32-value network: 191 (Knuth's table); room to spare. */
enum { BATCHER_MAX_PAIRS = 256 };
/* Features of RV_FEAT_GAUGE_MASK. */
enum { GAUGE_FEATURES = 10 };

/*
 * Lane arrays of a block: element i of every window side by side
 * (v[i][b]), and the per-window sums. Each loop below runs over the
 * RV_FEAT_BLOCK lanes with a fixed trip count, which the compiler turns
 * into vector instructions; per lane the arithmetic is first_pass and
 * second_pass's, operation for operation.
 */
struct gauge_lanes {
	double v[RV_FEAT_GAUGE_FAST_MAX][RV_FEAT_BLOCK];
	double sum[RV_FEAT_BLOCK], lo[RV_FEAT_BLOCK], hi[RV_FEAT_BLOCK];
	double mean[RV_FEAT_BLOCK], s2[RV_FEAT_BLOCK], s3[RV_FEAT_BLOCK];
	double s4[RV_FEAT_BLOCK], sic[RV_FEAT_BLOCK], sac[RV_FEAT_BLOCK];
};

static void lanes_moments(struct gauge_lanes *L, size_t w)
{
	double ibar = (double)(w - 1) / 2.0;

	for (size_t b = 0; b < RV_FEAT_BLOCK; b++) {
		L->sum[b] = 0.0;
		L->lo[b] = L->hi[b] = L->v[0][b];
		L->s2[b] = L->s3[b] = L->s4[b] = L->sic[b] = L->sac[b] = 0.0;
	}
	for (size_t i = 0; i < w; i++)
		for (size_t b = 0; b < RV_FEAT_BLOCK; b++) {
			double x = L->v[i][b];

			L->sum[b] += x;
			L->lo[b] = x < L->lo[b] ? x : L->lo[b];
			L->hi[b] = x > L->hi[b] ? x : L->hi[b];
		}
	for (size_t b = 0; b < RV_FEAT_BLOCK; b++)
		L->mean[b] = L->sum[b] / (double)w;
	for (size_t i = 0; i < w; i++) {
		double di = (double)i - ibar;

		for (size_t b = 0; b < RV_FEAT_BLOCK; b++) {
			double c = L->v[i][b] - L->mean[b], c2 = c * c;

			L->s2[b] += c2;
			L->s3[b] += c2 * c;
			L->s4[b] += c2 * c2;
			L->sic[b] += di * c;
		}
		if (i == 0)
			continue;
		for (size_t b = 0; b < RV_FEAT_BLOCK; b++)
			L->sac[b] += (L->v[i - 1][b] - L->mean[b]) * (L->v[i][b] - L->mean[b]);
	}
}

/* a[b], c[b] = min, max of the two (no NaN here: tables are gap-filled). */
static void compare_exchange(double *restrict a, double *restrict c)
{
	for (size_t b = 0; b < RV_FEAT_BLOCK; b++) {
		double x = a[b], y = c[b];
		double lo = y < x ? y : x;
		double hi = y < x ? x : y;

		a[b] = lo;
		c[b] = hi;
	}
}

static void lanes_sort(struct gauge_lanes *L, size_t w)
{
	unsigned char pair[BATCHER_MAX_PAIRS][2];
	size_t np = batcher_pairs(w, pair, BATCHER_MAX_PAIRS);

	for (size_t q = 0; q < np; q++)
		compare_exchange(L->v[pair[q][0]], L->v[pair[q][1]]);
}

/* numpy's linear quantile at q of the sorted lanes (rv_feat_quantile_sorted
 * per lane) into q_out. */
static void lanes_quantile(const struct gauge_lanes *L, size_t w, double q, double *q_out)
{
	double pos = (double)(w - 1) * q, t;
	size_t k = (size_t)pos, k1 = k + 1 < w ? k + 1 : k;
	const double *a = L->v[k], *c = L->v[k1];

	t = pos - (double)k;
	for (size_t b = 0; b < RV_FEAT_BLOCK; b++)
		q_out[b] = lerp(a[b], c[b], t);
}

/*
 * The ten features per lane, in enum order (out[f][b]), from the sums and
 * the sorted lanes: second_pass's closing arithmetic, with the flat-window
 * case selected per lane instead of branched on.
 */
static void lanes_finish(const struct gauge_lanes *L, size_t w, double (*out)[RV_FEAT_BLOCK])
{
	double nd = (double)w, sii = nd * (nd * nd - 1.0) / 12.0;

	lanes_quantile(L, w, Q25, out[4]);
	lanes_quantile(L, w, Q75, out[5]);
	for (size_t b = 0; b < RV_FEAT_BLOCK; b++)
		out[1][b] = sqrt(L->s2[b] / nd);
	/* Every lane divides (a flat one maybe by zero: a value, not a trap),
	 * so that the loop has no branch; flat lanes are zeroed after. */
	for (size_t b = 0; b < RV_FEAT_BLOCK; b++) {
		double m2 = L->s2[b] / nd, inv = 1.0 / L->s2[b];

		out[0][b] = L->mean[b];
		out[2][b] = L->lo[b];
		out[3][b] = L->hi[b];
		out[6][b] = L->s3[b] * inv / out[1][b];
		out[7][b] = L->s4[b] * inv / m2 - EXCESS_KURT;
		out[9][b] = L->sac[b] * inv;
	}
	for (size_t b = 0; b < RV_FEAT_BLOCK; b++)
		if (is_flat(L->mean[b], L->s2[b] / nd))
			out[6][b] = out[7][b] = out[9][b] = 0.0;
	for (size_t b = 0; b < RV_FEAT_BLOCK; b++)
		out[8][b] = sii > 0.0 ? L->sic[b] / sii : 0.0;
}

void rv_feat_gauge_block(const float *x, size_t w, size_t step, size_t n, float *out, size_t ld)
{
	struct gauge_lanes L;
	double feat[GAUGE_FEATURES][RV_FEAT_BLOCK];

	if (n == 0 || w == 0 || w > RV_FEAT_GAUGE_FAST_MAX)
		return;
	n = n < RV_FEAT_BLOCK ? n : RV_FEAT_BLOCK;
	/* Spare lanes repeat the last window: the loops keep their fixed trip
	 * count and nothing reads an uninitialized value. */
	if (step == 1 && n == RV_FEAT_BLOCK) {
		for (size_t i = 0; i < w; i++)
			for (size_t b = 0; b < RV_FEAT_BLOCK; b++)
				L.v[i][b] = x[b + i];
	} else {
		for (size_t i = 0; i < w; i++)
			for (size_t b = 0; b < RV_FEAT_BLOCK; b++)
				L.v[i][b] = x[(b < n ? b : n - 1) * step + i];
	}
	lanes_moments(&L, w);
	lanes_sort(&L, w);
	lanes_finish(&L, w, feat);
	for (size_t b = 0; b < n; b++) {
		float *o = out + b * ld;

		for (size_t f = 0; f < GAUGE_FEATURES; f++)
			o[f] = (float)feat[f][b];
	}
}
