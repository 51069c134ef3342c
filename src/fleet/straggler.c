/*
 * straggler.c - robust z of each node against its peers, per window and
 * channel, and the persistence that turns it into stragglers (the
 * statistics and their reasons are in straggler.h).
 *
 * Why this shape: a window of 1,000 nodes x 400 channels must take
 * milliseconds, every window, for hours. The matrix comes row per node,
 * but medians are per channel; columns are gathered COL_BLOCK at a time
 * (one pass over the rows reads two cache lines of each) into a scratch
 * block allocated once, and the median and the MAD come from two
 * selections (base/stats.h rv_select_kth, linear on average), not sorts.
 * The per-node pass then walks each row once: z, the weighted means, and
 * the two top-k sums in small sorted arrays on the stack. Sums over a
 * stretch are kept only for nodes out of step (a slot each), so the
 * memory that grows with nodes x channels is two floats per cell.
 */
#include "fleet/straggler.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "fleet/straggler_int.h"

/* The MAD of a normal sample times this estimates its standard deviation
 * (1 / the normal quantile at 3/4). */
#define MAD_TO_SD 1.4826

enum {
	COL_BLOCK = 16,          /* channels gathered per pass over the rows */
	TOPK_MAX = 256,          /* ceiling of opts.topk (two stack arrays) */
};

/* FNV-1a's 64-bit offset basis and prime: the hash of a column. */
#define HASH_BASIS UINT64_C(0xcbf29ce484222325)
#define HASH_PRIME UINT64_C(0x100000001b3)

/* What the per-node pass reads: sizes, options, the window's statistics. */
struct pass {
	size_t c, k, keff;
	double cap, alpha;
	double margin;               /* sigmas x the weighted mean's standard error per sd */
	const double *med, *inv;
	const unsigned char *alias;
};

void rv_strag_opts_default(struct rv_strag_opts *o)
{
	*o = (struct rv_strag_opts){
		.zcap = RV_STRAG_DEF_ZCAP,
		.threshold = RV_STRAG_DEF_THRESHOLD,
		.smooth = RV_STRAG_DEF_SMOOTH,
		.sigmas = RV_STRAG_DEF_SIGMAS,
		.persist = RV_STRAG_DEF_PERSIST,
		.gap = RV_STRAG_DEF_GAP,
		.topk = RV_STRAG_DEF_TOPK,
		.nsignals = RV_STRAG_DEF_NSIGNALS,
		.rel_floor = RV_STRAG_DEF_REL_FLOOR,
		.abs_floor = RV_STRAG_DEF_ABS_FLOOR,
		.spread_windows = RV_STRAG_DEF_SPREAD_WIN,
		.max_active = RV_STRAG_DEF_MAX_ACTIVE,
		.max_stretches = RV_STRAG_DEF_MAX_STRETCH,
	};
}

/* ------------------------------------------------------------ checks */

static int bad_pos(double v)
{
	return !(isfinite(v) && v > 0);
}

static int bad_nonneg(double v)
{
	return !(isfinite(v) && v >= 0);
}

static int check_opts(const struct rv_strag_opts *o, struct rv_err *err)
{
	const char *what = bad_pos(o->zcap) ? "zcap" :
			   bad_pos(o->threshold) ? "threshold" :
			   o->smooth < 1 ? "smooth" :
			   bad_nonneg(o->sigmas) ? "sigmas" :
			   o->persist < 1 ? "persist" :
			   o->topk < 1 || o->topk > TOPK_MAX ? "topk" :
			   o->nsignals > RV_STRAG_MAX_SIGNALS ? "nsignals" :
			   bad_nonneg(o->rel_floor) ? "rel_floor" :
			   bad_nonneg(o->abs_floor) ? "abs_floor" :
			   o->max_active < 1 ? "max_active" :
			   o->max_stretches < 1 ? "max_stretches" : NULL;

	if (what)
		return rv_err_set(err, -EINVAL, "straggler: option %s is out of range",
				  what);
	return 0;
}

/* Copies o (NULL: the defaults) into *op and checks it and the sizes. */
static int checked(size_t nnodes, size_t nchan, const struct rv_strag_opts *o,
		   struct rv_strag_opts *op, struct rv_err *err);

static int check_sizes(size_t nnodes, size_t nchan, struct rv_err *err)
{
	if (nnodes < RV_STRAG_MIN_NODES || nchan < 1)
		return rv_err_set(err, -EINVAL, "straggler: %zu nodes and %zu channels "
				  "(at least %d nodes and 1 channel)", nnodes, nchan,
				  RV_STRAG_MIN_NODES);
	if (nnodes > RV_STRAG_MAX_NODES || nchan > RV_STRAG_MAX_CHANNELS ||
	    nnodes * nchan > RV_STRAG_MAX_CELLS)
		return rv_err_set(err, -E2BIG, "straggler: %zu nodes x %zu channels is "
				  "past the ceiling of %d cells", nnodes, nchan,
				  RV_STRAG_MAX_CELLS);
	return 0;
}

static int checked(size_t nnodes, size_t nchan, const struct rv_strag_opts *o,
		   struct rv_strag_opts *op, struct rv_err *err)
{
	int rc = check_sizes(nnodes, nchan, err);

	if (o)
		*op = *o;
	else
		rv_strag_opts_default(op);
	return rc ? rc : check_opts(op, err);
}

/* ------------------------------------------------------------ statistics */

/* Median of v[0..n), n >= 1; reorders v. */
static double median_of(double *v, size_t n)
{
	size_t k = n / 2;
	double lo;

	rv_select_kth(v, n, k);
	if (n % 2)
		return v[k];
	/* rv_select_kth left the k smaller values below v[k] */
	lo = v[0];
	for (size_t i = 1; i < k; i++)
		lo = v[i] > lo ? v[i] : lo;
	return (lo + v[k]) / 2;
}

/*
 * The small-sample factor that makes 1.4826 x MAD of n normal values an
 * unbiased standard deviation (Croux and Rousseeuw 1992; checked by
 * simulation): of 3 values the MAD is the smaller of two distances, and
 * without it a group of 3 would see giants in plain noise.
 */
static double small_n(size_t n)
{
	static const double b[] = { 1, 1, 1.196, 1.495, 1.363, 1.206, 1.200,
				    1.140, 1.129, 1.107 };

	return n < sizeof(b) / sizeof(b[0]) ? b[n] : (double)n / ((double)n - 0.8);
}

/* Median and raw spread (MAD as a standard deviation) of v[0..n), n >= 1;
 * reorders v. */
static void median_mad(double *v, size_t n, double *med, double *raw)
{
	double m = median_of(v, n);

	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - m);
	*med = m;
	*raw = MAD_TO_SD * small_n(n) * median_of(v, n);
}

/* The spread used: the raw one raised to the floors; never 0. */
static double floored(double raw, double med, double rel, double abs_floor)
{
	double s = raw, r = rel * fabs(med);

	s = r > s ? r : s;
	s = abs_floor > s ? abs_floor : s;
	return s > DBL_MIN ? s : DBL_MIN;
}

/* A value's bits for the column hash: every missing value alike, and
 * -0 as 0. */
static uint64_t value_bits(double v)
{
	uint64_t b = 0;

	if (isfinite(v)) {
		v += 0.0;
		memcpy(&b, &v, sizeof b);
	} else {
		b = HASH_PRIME;
	}
	return b;
}

/*
 * Median and spread of channels [c0, c0 + nb) into med and spread (NaN: no
 * verdict), from x (n rows of c), and each column's hash. When pooled is
 * not NULL the raw spread is also averaged over the windows (span
 * spread_windows) and that average is a floor.
 */
static void column_block(const double *x, size_t n, size_t c, size_t c0, size_t nb,
			 struct strag_cols *w, const struct rv_strag_opts *o,
			 const double *floor, double *pooled, size_t *seen,
			 double *med, double *spread)
{
	size_t cnt[COL_BLOCK] = { 0 };
	uint64_t h[COL_BLOCK];

	for (size_t b = 0; b < nb; b++)
		h[b] = HASH_BASIS;
	for (size_t i = 0; i < n; i++) {
		const double *row = x + i * c + c0;

		for (size_t b = 0; b < nb; b++) {
			h[b] = (h[b] ^ value_bits(row[b])) * HASH_PRIME;
			if (isfinite(row[b]))
				w->col[b * n + cnt[b]++] = row[b];
		}
	}
	for (size_t b = 0; b < nb; b++) {
		size_t ch = c0 + b;
		double m, raw;

		w->hx[ch] = (struct strag_hidx){ .h = h[b], .ch = ch };
		if (cnt[b] < RV_STRAG_MIN_NODES) {
			med[ch] = spread[ch] = NAN;
			continue;
		}
		median_mad(w->col + b * n, cnt[b], &m, &raw);
		if (pooled && o->spread_windows > 0) {
			double span = 1.0 / (double)o->spread_windows;
			double a = 1.0 / (double)++seen[ch];

			pooled[ch] += (a > span ? a : span) * (raw - pooled[ch]);
			raw = pooled[ch] > raw ? pooled[ch] : raw;
		}
		med[ch] = m;
		spread[ch] = floored(raw, m, o->rel_floor,
				     floor && !isnan(floor[ch]) ? floor[ch] : o->abs_floor);
	}
}

static int cmp_hidx(const void *a, const void *b)
{
	const struct strag_hidx *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return (x->ch > y->ch) - (x->ch < y->ch);
}

/* 1 when channels a and b hold the same values (missing alike). */
static int same_column(const double *x, size_t n, size_t c, size_t a, size_t b)
{
	for (size_t i = 0; i < n; i++) {
		double u = x[i * c + a], v = x[i * c + b];

		if (isfinite(u) != isfinite(v) || (isfinite(u) && u != v))
			return 0;
	}
	return 1;
}

/*
 * Marks the channels whose column (every node's value) is that of an
 * earlier channel: the same number under two names (mem.dirty_bytes and
 * mem.nr_dirty_bytes; a NUMA node's copy on a host of one node) must not
 * count twice in a score. Columns are compared whole, hashes only find
 * the candidates.
 */
static void mark_aliases(const double *x, size_t n, size_t c, struct strag_cols *w)
{
	qsort(w->hx, c, sizeof(*w->hx), cmp_hidx);
	memset(w->alias, 0, c);
	for (size_t a = 0; a < c;) {
		size_t b = a + 1;

		while (b < c && w->hx[b].h == w->hx[a].h) {
			w->alias[w->hx[b].ch] = same_column(x, n, c, w->hx[a].ch, w->hx[b].ch);
			b++;
		}
		a = b;
	}
}

static void columns(const double *x, size_t n, size_t c, struct strag_cols *w,
		    const struct rv_strag_opts *o, const double *floor,
		    double *pooled, size_t *seen, double *med, double *spread,
		    double *inv)
{
	for (size_t c0 = 0; c0 < c; c0 += COL_BLOCK) {
		size_t nb = c - c0 < COL_BLOCK ? c - c0 : COL_BLOCK;

		column_block(x, n, c, c0, nb, w, o, floor, pooled, seen, med, spread);
	}
	mark_aliases(x, n, c, w);
	for (size_t ch = 0; ch < c; ch++)
		inv[ch] = isnan(spread[ch]) ? NAN : 1.0 / spread[ch];
}


/* Keeps v (index i) when it is among the k largest so far. */
void rv_strag_top_add(struct strag_topk *t, double v, size_t i)
{
	size_t j;

	if (t->n == t->k && !(v > t->v[t->k - 1]))
		return;
	j = t->n < t->k ? t->n++ : t->k - 1;
	for (; j > 0 && v > t->v[j - 1]; j--) {
		t->v[j] = t->v[j - 1];
		if (t->idx)
			t->idx[j] = t->idx[j - 1];
	}
	t->v[j] = v;
	if (t->idx)
		t->idx[j] = i;
}

static double top_sum(const struct strag_topk *t)
{
	double sum = 0;

	for (size_t j = 0; j < t->n; j++)
		sum += t->v[j];
	return sum;
}

/*
 * How far a node's weighted mean z (mu, of z^2: sq) is from 0 beyond its
 * own recent variability: |mu| less margin standard deviations, at least
 * 0. A steady shift keeps its size, noise and spikes shrink to nothing.
 */
static double lower_bound(float mu, float sq, double margin)
{
	double var = (double)sq - (double)mu * mu;
	double b = fabs(mu) - margin * sqrt(var > 0 ? var : 0);

	return b > 0 ? b : 0;
}

/*
 * One node's row: its window score into *wscore (NaN without a value) and
 * z into zout when not NULL; when mu is not NULL, the weighted means
 * (mu, sq) moved on and the persistent score into *pscore.
 */
static void node_pass(const struct pass *p, const double *row, float *mu,
		      float *sq, double *zout, double *wscore, double *pscore)
{
	double wv[TOPK_MAX], pv[TOPK_MAX];
	struct strag_topk wt = { .k = p->k, .v = wv }, pt = { .k = p->k, .v = pv };
	double a = p->alpha;
	size_t nval = 0;

	for (size_t ch = 0; ch < p->c; ch++) {
		double z = NAN, zu;

		if (!isnan(p->med[ch]) && isfinite(row[ch])) {
			z = rv_strag_clipped(row[ch], p->med[ch], p->inv[ch], p->cap);
			if (!p->alias[ch])
				rv_strag_top_add(&wt, fabs(z), ch);
			nval++;
		}
		if (zout)
			zout[ch] = z;
		if (!mu)
			continue;
		zu = isnan(z) ? 0 : z;      /* a missing value is no deviation */
		mu[ch] = (float)(mu[ch] + a * (zu - mu[ch]));
		sq[ch] = (float)(sq[ch] + a * (zu * zu - sq[ch]));
		if (!p->alias[ch])
			rv_strag_top_add(&pt, lower_bound(mu[ch], sq[ch], p->margin), ch);
	}
	*wscore = nval ? top_sum(&wt) / (double)p->keff : NAN;
	if (mu)
		*pscore = top_sum(&pt) / (double)p->keff;
}

/* ------------------------------------------------------------ one window */

/* The column scratch for n nodes and c channels (one allocation). */
static int cols_alloc(struct strag_cols *w, size_t n, size_t c)
{
	size_t bytes = COL_BLOCK * n * sizeof(*w->col) + c * (sizeof(*w->hx) + 1);

	if (!(w->col = malloc(bytes)))
		return -ENOMEM;
	w->hx = (struct strag_hidx *)(w->col + COL_BLOCK * n);
	w->alias = (unsigned char *)(w->hx + c);
	return 0;
}

int rv_strag_window(const double *x, size_t nnodes, size_t nchan,
		    const struct rv_strag_opts *o, const double *floor,
		    double *median, double *spread, double *score, double *z,
		    struct rv_err *err)
{
	struct rv_strag_opts op;
	struct strag_cols w;
	struct pass p;
	double *inv;
	int rc = checked(nnodes, nchan, o, &op, err);

	if (rc)
		return rc;
	o = &op;
	inv = malloc(nchan * sizeof(*inv));
	if (!inv || cols_alloc(&w, nnodes, nchan)) {
		free(inv);
		return rv_err_set(err, -ENOMEM, "straggler: out of memory for a window "
				  "of %zu nodes", nnodes);
	}
	columns(x, nnodes, nchan, &w, o, floor, NULL, NULL, median, spread, inv);
	p = (struct pass){ .c = nchan, .k = o->topk, .cap = o->zcap,
			   .keff = o->topk < nchan ? o->topk : nchan,
			   .med = median, .inv = inv, .alias = w.alias };
	for (size_t i = 0; i < nnodes; i++)
		node_pass(&p, x + i * nchan, NULL, NULL, z ? z + i * nchan : NULL,
			  &score[i], NULL);
	free(w.col);
	free(inv);
	return 0;
}

/* ------------------------------------------------------------ object */

static int alloc_all(struct rv_strag *s)
{
	size_t n = s->n, c = s->c, a = s->o.max_active;

	s->mu = calloc(2 * n * c, sizeof(*s->mu));
	s->med = calloc(5 * c, sizeof(*s->med));
	s->seen = calloc(c, sizeof(*s->seen));
	s->node = calloc(n, sizeof(*s->node));
	s->acc = a <= SIZE_MAX / sizeof(*s->acc) / c ? malloc(a * c * sizeof(*s->acc)) : NULL;
	s->free_slot = malloc(a * sizeof(*s->free_slot));
	s->pool = malloc(s->o.max_stretches * sizeof(*s->pool));
	if (!s->mu || !s->med || !s->seen || !s->node || !s->acc ||
	    !s->free_slot || !s->pool || cols_alloc(&s->w, n, c))
		return -ENOMEM;
	s->sq = s->mu + n * c;
	s->spread = s->med + c;
	s->inv = s->med + 2 * c;
	s->floor = s->med + 3 * c;
	s->pooled = s->med + 4 * c;
	for (size_t ch = 0; ch < c; ch++) {
		s->med[ch] = s->spread[ch] = s->inv[ch] = NAN;
		s->floor[ch] = s->o.abs_floor;
	}
	for (size_t i = 0; i < n; i++)
		s->node[i] = (struct strag_node){ .wscore = NAN, .pscore = NAN,
						  .slot = RV_STRAG_NONE,
						  .head = RV_STRAG_NONE,
						  .tail = RV_STRAG_NONE };
	for (size_t k = 0; k < a; k++)
		s->free_slot[k] = a - 1 - k;
	s->nfree = a;
	return 0;
}

int rv_strag_new(size_t nnodes, size_t nchan, const struct rv_strag_opts *o,
		 struct rv_strag **out, struct rv_err *err)
{
	struct rv_strag_opts op;
	struct rv_strag *s;
	int rc = checked(nnodes, nchan, o, &op, err);

	*out = NULL;
	if (rc)
		return rc;
	if (!(s = calloc(1, sizeof(*s))))
		return rv_err_set(err, -ENOMEM, "straggler: out of memory");
	s->o = op;
	if (s->o.max_active > nnodes)
		s->o.max_active = nnodes;
	s->n = nnodes;
	s->c = nchan;
	s->alpha = 2.0 / ((double)s->o.smooth + 1.0);
	/* the standard error of a weighted mean of weight a is
	 * sqrt(a / (2 - a)) standard deviations */
	s->margin = s->o.sigmas * sqrt(s->alpha / (2.0 - s->alpha));
	s->t_prev = -INFINITY;
	if (alloc_all(s)) {
		rv_strag_free(s);
		return rv_err_set(err, -ENOMEM, "straggler: out of memory for %zu "
				  "nodes x %zu channels", nnodes, nchan);
	}
	*out = s;
	return 0;
}

void rv_strag_free(struct rv_strag *s)
{
	if (!s)
		return;
	free(s->mu);
	free(s->med);
	free(s->seen);
	free(s->w.col);
	free(s->node);
	free(s->acc);
	free(s->free_slot);
	free(s->pool);
	free(s);
}

int rv_strag_set_floors(struct rv_strag *s, const double *floor,
			struct rv_err *err)
{
	if (s->win > 0)
		return rv_err_set(err, -EINVAL, "straggler: floors set after %zu "
				  "windows (set them before the first)", s->win);
	for (size_t ch = 0; ch < s->c; ch++)
		if (!isnan(floor[ch]) && bad_nonneg(floor[ch]))
			return rv_err_set(err, -EINVAL, "straggler: channel %zu: floor "
					  "%g is not a finite value >= 0", ch, floor[ch]);
	for (size_t ch = 0; ch < s->c; ch++)
		s->floor[ch] = isnan(floor[ch]) ? s->o.abs_floor : floor[ch];
	return 0;
}

/* ------------------------------------------------------------ stretches */

int rv_strag_push(struct rv_strag *s, double t, const double *x,
		  struct rv_err *err)
{
	struct pass p;

	if (!isfinite(t) || !(t > s->t_prev))
		return rv_err_set(err, -EINVAL, "straggler: window time %.3f is not "
				  "after the previous one (%.3f)", t, s->t_prev);
	columns(x, s->n, s->c, &s->w, &s->o, s->floor, s->pooled, s->seen,
		s->med, s->spread, s->inv);
	p = (struct pass){ .c = s->c, .k = s->o.topk, .cap = s->o.zcap,
			   .keff = s->o.topk < s->c ? s->o.topk : s->c,
			   .alpha = s->alpha, .margin = s->margin, .med = s->med,
			   .inv = s->inv, .alias = s->w.alias };
	for (size_t i = 0; i < s->n; i++) {
		const double *row = x + i * s->c;
		struct strag_node *nd = &s->node[i];

		node_pass(&p, row, s->mu + i * s->c, s->sq + i * s->c, NULL,
			  &nd->wscore, &nd->pscore);
		rv_strag_advance(s, i, row, t);
	}
	s->t_prev = t;
	s->win++;
	s->st.windows = s->win;
	return 0;
}

/* ------------------------------------------------------------ queries */

double rv_strag_window_score(const struct rv_strag *s, size_t node)
{
	return node < s->n ? s->node[node].wscore : NAN;
}

double rv_strag_score(const struct rv_strag *s, size_t node)
{
	return node < s->n ? s->node[node].pscore : NAN;
}


const double *rv_strag_median(const struct rv_strag *s)
{
	return s->med;
}

const double *rv_strag_spread(const struct rv_strag *s)
{
	return s->spread;
}

double rv_strag_zof(const struct rv_strag *s, size_t chan, double value)
{
	if (chan >= s->c || isnan(s->med[chan]) || !isfinite(value))
		return NAN;
	return rv_strag_clipped(value, s->med[chan], s->inv[chan], s->o.zcap);
}


