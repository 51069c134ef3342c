/*
 * iforest.c - see iforest.h. Follows scikit-learn's IsolationForest
 * (max_features=1.0, bootstrap=False, ExtraTreeRegressor with
 * max_features=1) so scores are comparable with it in distribution; the
 * random stream is ours (base/rng.h), so single scores differ.
 *
 * Layout: the nodes of all trees live in one flat array in preorder, so a
 * left child is the next node and only the right child needs an index; a
 * node is 16 bytes, and scoring touches one cache line per level. A leaf
 * keeps its precomputed path length depth + c(size) in `value`, so scoring
 * is a compare-and-step loop (over a few trees at once) and one add per tree.
 *
 * Fitting never copies the data: each tree partitions an array of row
 * indices in place and keeps the features already known to be constant in
 * the node at the front of a feature array (as sklearn's splitter does), so
 * a node draws uniformly among the features that are not constant in it.
 * Features constant over the whole training set are put there once.
 *
 * contrib weighting: a split that sends the row from a node of n_p
 * training rows into a child of n_c rows has cut it off from
 * ln(n_p / n_c) of the crowd (nats of isolation); a row near the middle of
 * a feature keeps about half the rows, an extreme one few. Each split adds
 * ln(n_p / n_c) / h to its feature, h = depth + c(leaf size) being the
 * row's path length in that tree, so a tree that isolates the row on a
 * short path speaks loudest. The sum over trees is normalised to 1; a row
 * that meets no split in any tree gets all zeros. (Plain 1/h per split
 * gave a single-feature outlier in 8 dimensions only ~0.2 of the weight;
 * this gives it well over half.)
 *
 * Model section (base/bytes.h, little-endian): tag u32, version u32,
 * F u64, trees u64, samples u64 (rows per tree), node count u64, then per
 * tree its node count u32, then per node feature u32 (IFOREST_LEAF for a
 * leaf), threshold f32 (0 in a leaf), right child u32 relative to the
 * tree's first node (0 in a leaf), size u32 (training rows in the node:
 * the root's is `samples`, a split's is the sum of its children's).
 */
#include "detect/iforest.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

enum {
	IFOREST_TAG = 0x524f4649u /* "IFOR" */,
	IFOREST_VERSION = 1,
	IFOREST_NODE_BYTES = 16,       /* saved size of one node */
	SCORE_LANES = 4,               /* trees descended at once */
	BATCH_LANES = 8,               /* rows descending one tree at once */
};

#define IFOREST_LEAF UINT32_MAX

struct rv_iforest;
static int build_scoring(struct rv_iforest *f);
/* Largest sample size whose node-size logarithms are tabulated: the
 * contributions take one log per split, which dominated explaining. */
#define LN_TABLE_MAX 65536
/* sklearn's FEATURE_THRESHOLD: a smaller spread counts as constant. */
#define IFOREST_CONST_SPREAD 1e-7
#define IFOREST_EULER_GAMMA 0.5772156649015329
/* sklearn's score when c(samples) = 0 (one training row): 2^-1. */
#define IFOREST_DEGENERATE_SCORE 0.5

struct rv_iforest_node {
	uint32_t feature;   /* split feature, or IFOREST_LEAF */
	float value;        /* threshold (go left when x <= it); leaf: depth + c(size) */
	uint32_t right;     /* absolute index of the right child */
	uint32_t size;      /* training rows that reached the node */
};

struct rv_iforest {
	size_t dim;
	size_t trees;
	size_t samples;         /* rows per tree: min(params.samples, n) */
	double c_norm;          /* c(samples) */
	uint32_t *root;         /* trees + 1 entries: first node of each tree, then the end */
	double *ln_size;        /* ln(k) for node sizes k <= samples (NULL past LN_TABLE_MAX) */
	struct snode *sn;       /* the nodes laid out for branch-free scoring */
	size_t depth;           /* longest root-to-leaf path */
	struct rv_iforest_node *nodes;
	size_t n_nodes;
};

/* Fitting state of one forest. */
struct grow {
	const float *x;
	size_t F;
	size_t ld;              /* floats from one row of x to the next */
	size_t *rows;           /* partial Fisher-Yates permutation of 0..n-1 */
	uint32_t *feat;         /* known-constant features first */
	size_t n_global_const;  /* constant over all training rows */
	unsigned max_depth;
	struct rv_rng rng;
	struct rv_iforest *f;
};

/* Average path length of an unsuccessful BST search among s points. */
static double avg_path(size_t s)
{
	double sd = (double)s;

	if (s <= 1)
		return 0.0;
	if (s == 2)
		return 1.0;
	return 2.0 * (log(sd - 1.0) + IFOREST_EULER_GAMMA) - 2.0 * (sd - 1.0) / sd;
}

static unsigned depth_limit(size_t samples)
{
	unsigned d = 0;

	while (d < sizeof(size_t) * CHAR_BIT - 1 && ((size_t)1 << d) < samples)
		d++;
	return d ? d : 1;   /* ceil(log2(max(samples, 2))) */
}

static void feature_range(const struct grow *g, size_t lo, size_t hi, uint32_t feat,
			  float *mn, float *mx)
{
	float a = g->x[g->rows[lo] * g->ld + feat], b = a;

	for (size_t i = lo + 1; i < hi; i++) {
		float v = g->x[g->rows[i] * g->ld + feat];
		a = v < a ? v : a;
		b = v > b ? v : b;
	}
	*mn = a;
	*mx = b;
}

/*
 * Draws a feature uniformly among those not constant over rows[lo, hi),
 * moving the constant ones it meets behind *n_const, and a threshold
 * uniform in [min, max). Returns 0 when every feature is constant.
 */
static int pick_split(struct grow *g, size_t lo, size_t hi, size_t *n_const,
		      uint32_t *feat, float *thr)
{
	while (*n_const < g->F) {
		size_t j = *n_const + (size_t)rv_rng_below(&g->rng, g->F - *n_const);
		uint32_t fj = g->feat[j];
		float mn, mx;

		feature_range(g, lo, hi, fj, &mn, &mx);
		if ((double)mx > (double)mn + IFOREST_CONST_SPREAD) {
			double u = rv_rng_uniform(&g->rng);
			float t = (float)((double)mn + u * ((double)mx - (double)mn));

			*feat = fj;
			*thr = t < mx ? t : mn;   /* both sides stay non-empty */
			return 1;
		}
		g->feat[j] = g->feat[*n_const];
		g->feat[*n_const] = fj;
		(*n_const)++;
	}
	return 0;
}

/* Moves rows with x[feat] <= thr to the front; returns where the rest start. */
static size_t partition(struct grow *g, size_t lo, size_t hi, uint32_t feat, float thr)
{
	size_t i = lo, j = hi;

	while (i < j) {
		if (g->x[g->rows[i] * g->ld + feat] <= thr) {
			i++;
		} else {
			size_t t = g->rows[i];
			g->rows[i] = g->rows[--j];
			g->rows[j] = t;
		}
	}
	return i;
}

/* Grows the subtree of rows[lo, hi) in preorder; n_const as in pick_split. */
static void grow_node(struct grow *g, size_t lo, size_t hi, unsigned depth, size_t n_const)
{
	struct rv_iforest *f = g->f;
	size_t me = f->n_nodes++;
	struct rv_iforest_node *nd = &f->nodes[me];
	uint32_t feat;
	float thr;
	size_t mid;

	nd->size = (uint32_t)(hi - lo);
	nd->right = 0;
	if (depth >= g->max_depth || hi - lo < 2 ||
	    !pick_split(g, lo, hi, &n_const, &feat, &thr)) {
		nd->feature = IFOREST_LEAF;
		nd->value = (float)(depth + avg_path(hi - lo));
		return;
	}
	nd->feature = feat;
	nd->value = thr;
	mid = partition(g, lo, hi, feat, thr);
	grow_node(g, lo, mid, depth + 1, n_const);
	f->nodes[me].right = (uint32_t)f->n_nodes;
	grow_node(g, mid, hi, depth + 1, n_const);
}

static void grow_tree(struct grow *g, size_t n)
{
	size_t s = g->f->samples;

	for (size_t i = 0; i < s; i++) {
		size_t j = i + (size_t)rv_rng_below(&g->rng, n - i);
		size_t t = g->rows[i];
		g->rows[i] = g->rows[j];
		g->rows[j] = t;
	}
	grow_node(g, 0, s, 0, g->n_global_const);
}

/*
 * Checks every value is finite and puts the features constant over all
 * rows at the front of g->feat: they are constant in every node too.
 */
static int scan_features(struct grow *g, size_t n, struct rv_err *err)
{
	const float *x = g->x;
	size_t F = g->F, nc = 0;
	float *mn = malloc(F * sizeof(*mn)), *mx = malloc(F * sizeof(*mx));
	int rc = 0;

	if (!mn || !mx) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(mn, x, F * sizeof(*mn));
	memcpy(mx, x, F * sizeof(*mx));
	for (size_t i = 0; i < n && !rc; i++)
		for (size_t j = 0; j < F; j++) {
			float v = x[i * g->ld + j];
			if (!isfinite(v)) {
				rc = rv_err_set(err, -EINVAL, "isolation forest: row %zu feature %zu is not finite", i, j);
				break;
			}
			mn[j] = v < mn[j] ? v : mn[j];
			mx[j] = v > mx[j] ? v : mx[j];
		}
	for (size_t j = 0, k = F; j < F; j++) {
		if ((double)mx[j] <= (double)mn[j] + IFOREST_CONST_SPREAD)
			g->feat[nc++] = (uint32_t)j;
		else
			g->feat[--k] = (uint32_t)j;
	}
	g->n_global_const = nc;
out:
	free(mn);
	free(mx);
	return rc;
}

static int check_fit_args(const float *x, size_t ld, size_t n, size_t F,
			  const struct rv_iforest_params *prm, struct rv_err *err)
{
	size_t s;

	if (!x || !prm || n == 0 || F == 0)
		return rv_err_set(err, -EINVAL, "isolation forest: no training rows or features");
	if (ld < F)
		return rv_err_set(err, -EINVAL, "isolation forest: rows %zu apart hold fewer than %zu features",
				  ld, F);
	if (F >= IFOREST_LEAF || n > SIZE_MAX / ld)
		return rv_err_set(err, -EINVAL, "isolation forest: %zu x %zu is too large", n, F);
	if (prm->trees == 0 || prm->samples == 0)
		return rv_err_set(err, -EINVAL, "isolation forest: trees and samples must be positive");
	s = prm->samples < n ? prm->samples : n;
	/* a tree on s rows has at most 2 s - 1 nodes */
	if (s > UINT32_MAX / 2 || prm->trees > (UINT32_MAX - 1) / (2 * s - 1))
		return rv_err_set(err, -EINVAL, "isolation forest: %zu trees of %zu rows is too large",
				  prm->trees, s);
	return 0;
}

static struct rv_iforest *forest_alloc(size_t F, size_t trees, size_t samples, size_t cap)
{
	struct rv_iforest *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->dim = F;
	f->trees = trees;
	f->samples = samples;
	f->c_norm = avg_path(samples);
	f->root = calloc(trees + 1, sizeof(*f->root));
	f->nodes = calloc(cap ? cap : 1, sizeof(*f->nodes));
	if (samples <= LN_TABLE_MAX && (f->ln_size = malloc((samples + 1) * sizeof(double))))
		for (size_t k = 1; k <= samples; k++)
			f->ln_size[k] = log((double)k);
	if (!f->root || !f->nodes || (samples <= LN_TABLE_MAX && !f->ln_size)) {
		rv_iforest_free(f);
		return NULL;
	}
	return f;
}

int rv_iforest_fit(const float *x, size_t n, size_t F, const struct rv_iforest_params *prm,
		   struct rv_iforest **out, struct rv_err *err)
{
	return rv_iforest_fit_ld(x, F, n, F, prm, out, err);
}

int rv_iforest_fit_ld(const float *x, size_t ld, size_t n, size_t F,
		      const struct rv_iforest_params *prm, struct rv_iforest **out,
		      struct rv_err *err)
{
	struct grow g = { .x = x, .F = F, .ld = ld };
	size_t s;
	int rc;

	*out = NULL;
	rc = check_fit_args(x, ld, n, F, prm, err);
	if (rc)
		return rc;
	s = prm->samples < n ? prm->samples : n;
	g.f = forest_alloc(F, prm->trees, s, prm->trees * (2 * s - 1));
	g.rows = malloc(n * sizeof(*g.rows));
	g.feat = malloc(F * sizeof(*g.feat));
	if (!g.f || !g.rows || !g.feat) {
		rc = -ENOMEM;
		goto out;
	}
	rc = scan_features(&g, n, err);
	if (rc)
		goto out;
	for (size_t i = 0; i < n; i++)
		g.rows[i] = i;
	g.max_depth = depth_limit(s);
	rv_rng_seed(&g.rng, prm->seed);
	for (size_t t = 0; t < prm->trees; t++) {
		g.f->root[t] = (uint32_t)g.f->n_nodes;
		grow_tree(&g, n);
	}
	g.f->root[prm->trees] = (uint32_t)g.f->n_nodes;
	if (build_scoring(g.f) != 0) {
		rc = -ENOMEM;
		goto out;
	}
	*out = g.f;
	g.f = NULL;
out:
	if (rc == -ENOMEM)
		rv_err_set(err, rc, "isolation forest: out of memory");
	rv_iforest_free(g.f);
	free(g.rows);
	free(g.feat);
	return rc;
}

/*
 * The scoring layout. A leaf turns into a node that sends every row to
 * itself (threshold -inf: "x <= t" is false, go "right" = self), so a row
 * takes exactly `depth` steps from the root and ends on its leaf: no branch
 * depends on the data, and the steps compile to conditional moves. The
 * comparison is the same as descend()'s, so the leaf reached is the same.
 */
struct snode {
	uint32_t feature;
	float value;
	uint32_t right;
	float h;            /* leaf: depth + c(size) */
};

static size_t tree_depth(const struct rv_iforest_node *nodes, size_t i)
{
	size_t l, r;

	if (nodes[i].feature == IFOREST_LEAF)
		return 0;
	l = tree_depth(nodes, i + 1);
	r = tree_depth(nodes, nodes[i].right);
	return 1 + (l > r ? l : r);
}

/* Builds f->sn and f->depth from f->nodes (after fit or load). */
static int build_scoring(struct rv_iforest *f)
{
	f->sn = malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*f->sn));
	if (!f->sn)
		return -ENOMEM;
	f->depth = 0;
	for (size_t t = 0; t < f->trees; t++) {
		size_t d = tree_depth(f->nodes, f->root[t]);
		f->depth = d > f->depth ? d : f->depth;
	}
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct rv_iforest_node *nd = &f->nodes[i];
		int leaf = nd->feature == IFOREST_LEAF;

		f->sn[i].feature = leaf ? 0 : nd->feature;
		f->sn[i].value = leaf ? -INFINITY : nd->value;
		f->sn[i].right = leaf ? (uint32_t)i : nd->right;
		f->sn[i].h = leaf ? nd->value : 0.0f;
	}
	return 0;
}

void rv_iforest_free(struct rv_iforest *f)
{
	if (!f)
		return;
	free(f->root);
	free(f->nodes);
	free(f->ln_size);
	free(f->sn);
	free(f);
}

size_t rv_iforest_dim(const struct rv_iforest *f)
{
	return f->dim;
}

/* Index of the leaf x reaches from node i. */
static size_t descend(const struct rv_iforest_node *nodes, size_t i, const float *x)
{
	while (nodes[i].feature != IFOREST_LEAF)
		i = x[nodes[i].feature] <= nodes[i].value ? i + 1 : nodes[i].right;
	return i;
}

/* Adds w * ln(n_parent / n_child) per split on x's path; returns the sum. */
static double add_contrib(const struct rv_iforest *f, size_t i, const float *x, double w,
			  double *contrib)
{
	const struct rv_iforest_node *nodes = f->nodes;
	double added = 0.0;

	while (nodes[i].feature != IFOREST_LEAF) {
		size_t parent = i;
		double shed;

		i = x[nodes[i].feature] <= nodes[i].value ? i + 1 : nodes[i].right;
		shed = f->ln_size ? w * (f->ln_size[nodes[parent].size] - f->ln_size[nodes[i].size])
				  : w * log((double)nodes[parent].size / (double)nodes[i].size);
		contrib[nodes[parent].feature] += shed;
		added += shed;
	}
	return added;
}

/*
 * Sum of the path lengths of x over all trees. A descent is a chain of
 * dependent loads, so SCORE_LANES trees are walked side by side to keep
 * several chains in flight.
 */
static double path_sum(const struct rv_iforest *f, const float *x)
{
	const struct rv_iforest_node *nodes = f->nodes;
	double sum = 0.0;
	size_t t = 0;

	for (; t + SCORE_LANES <= f->trees; t += SCORE_LANES) {
		size_t at[SCORE_LANES];
		int live;

		for (size_t k = 0; k < SCORE_LANES; k++)
			at[k] = f->root[t + k];
		do {
			live = 0;
			for (size_t k = 0; k < SCORE_LANES; k++) {
				const struct rv_iforest_node *nd = &nodes[at[k]];

				if (nd->feature == IFOREST_LEAF)
					continue;
				at[k] = x[nd->feature] <= nd->value ? at[k] + 1 : nd->right;
				live = 1;
			}
		} while (live);
		for (size_t k = 0; k < SCORE_LANES; k++)
			sum += nodes[at[k]].value;
	}
	for (; t < f->trees; t++)
		sum += nodes[descend(nodes, f->root[t], x)].value;
	return sum;
}

/* Fills contrib (see the top of this file); returns the path length sum. */
static double path_sum_contrib(const struct rv_iforest *f, const float *x, double *contrib)
{
	double sum = 0.0, total = 0.0;

	memset(contrib, 0, f->dim * sizeof(*contrib));
	for (size_t t = 0; t < f->trees; t++) {
		size_t leaf = descend(f->nodes, f->root[t], x);
		double h = f->nodes[leaf].value;

		sum += h;
		if (leaf != f->root[t])     /* h >= 1: one split at least */
			total += add_contrib(f, f->root[t], x, 1.0 / h, contrib);
	}
	if (total > 0.0)
		for (size_t j = 0; j < f->dim; j++)
			contrib[j] /= total;
	return sum;
}

/* A NaN feature never satisfies x <= threshold, so it always goes right. */
void rv_iforest_score_batch(const struct rv_iforest *f, const float *x, size_t ld, size_t n,
			    double *out)
{
	const struct snode *sn = f->sn;

	/* Tree by tree over the block, BATCH_LANES rows in step: one tree's
	 * nodes stay in L1, the lanes' loads overlap, and the step is computed
	 * with masks instead of a branch the data would mispredict half the
	 * time. A short last group repeats its last row in the spare lanes. */
	for (size_t i = 0; i < n; i++)
		out[i] = 0.0;
	for (size_t i0 = 0; i0 < n; i0 += BATCH_LANES) {
		const float *row[BATCH_LANES];
		size_t m = n - i0 < BATCH_LANES ? n - i0 : BATCH_LANES;

		for (size_t k = 0; k < BATCH_LANES; k++)
			row[k] = x + (i0 + (k < m ? k : m - 1)) * ld;
		for (size_t t = 0; t < f->trees; t++) {
			uint32_t at[BATCH_LANES];
			for (size_t k = 0; k < BATCH_LANES; k++)
				at[k] = f->root[t];
			for (size_t d = 0; d < f->depth; d++)
				for (size_t k = 0; k < BATCH_LANES; k++) {
					const struct snode *nd = &sn[at[k]];
					uint32_t left = 0u - (uint32_t)(row[k][nd->feature] <= nd->value);
					at[k] = nd->right ^ (((at[k] + 1) ^ nd->right) & left);
				}
			for (size_t k = 0; k < m; k++)
				out[i0 + k] += sn[at[k]].h;
		}
	}
	for (size_t i = 0; i < n; i++)
		out[i] = f->c_norm <= 0.0 ? IFOREST_DEGENERATE_SCORE
					  : exp2(-(out[i] / (double)f->trees) / f->c_norm);
}

double rv_iforest_score(const struct rv_iforest *f, const float *x, double *contrib)
{
	double sum = contrib ? path_sum_contrib(f, x, contrib) : path_sum(f, x);

	if (f->c_norm <= 0.0)
		return IFOREST_DEGENERATE_SCORE;
	return exp2(-(sum / (double)f->trees) / f->c_norm);
}

void rv_iforest_save(const struct rv_iforest *f, struct rv_wbuf *b)
{
	rv_wbuf_u32(b, IFOREST_TAG);
	rv_wbuf_u32(b, IFOREST_VERSION);
	rv_wbuf_u64(b, f->dim);
	rv_wbuf_u64(b, f->trees);
	rv_wbuf_u64(b, f->samples);
	rv_wbuf_u64(b, f->n_nodes);
	for (size_t t = 0; t < f->trees; t++)
		rv_wbuf_u32(b, f->root[t + 1] - f->root[t]);
	for (size_t t = 0; t < f->trees; t++)
		for (size_t i = f->root[t]; i < f->root[t + 1]; i++) {
			const struct rv_iforest_node *nd = &f->nodes[i];
			int leaf = nd->feature == IFOREST_LEAF;
			float thr = leaf ? 0.0f : nd->value;

			rv_wbuf_u32(b, nd->feature);
			rv_wbuf_f32s(b, &thr, 1);
			rv_wbuf_u32(b, leaf ? 0 : nd->right - f->root[t]);
			rv_wbuf_u32(b, nd->size);
		}
}

/*
 * Validates tree t (nodes already read, right children still relative to
 * the tree), makes them absolute and sets each leaf's path length.
 * Children must point forward inside the tree and every node but the root
 * must have exactly one parent, so it is a tree: no cycle, no shared or
 * unreachable node. Sizes must add up from the leaves to the root's
 * `samples` (contrib takes logs of their ratios). depth is scratch of the
 * tree's size.
 */
static int check_tree(struct rv_iforest *f, size_t t, uint32_t *depth, struct rv_err *err)
{
	size_t start = f->root[t], count = f->root[t + 1] - start;

	memset(depth, 0xff, count * sizeof(*depth));
	depth[0] = 0;
	for (size_t i = 0; i < count; i++) {
		struct rv_iforest_node *nd = &f->nodes[start + i];
		size_t r = nd->right;

		if (depth[i] == UINT32_MAX)
			return rv_err_set(err, -EINVAL, "isolation forest model: tree %zu node %zu is unreachable", t, i);
		if (nd->size == 0 || (i == 0 && nd->size != f->samples))
			return rv_err_set(err, -EINVAL, "isolation forest model: tree %zu node %zu has size %u", t, i,
					  (unsigned)nd->size);
		if (nd->feature == IFOREST_LEAF) {
			nd->value = (float)(depth[i] + avg_path(nd->size));
			continue;
		}
		if (nd->feature >= f->dim || !isfinite(nd->value))
			return rv_err_set(err, -EINVAL, "isolation forest model: tree %zu node %zu has a bad split", t, i);
		if (r <= i + 1 || r >= count || depth[i + 1] != UINT32_MAX || depth[r] != UINT32_MAX ||
		    (uint64_t)nd[1].size + f->nodes[start + r].size != nd->size)
			return rv_err_set(err, -EINVAL, "isolation forest model: tree %zu node %zu has bad children", t, i);
		depth[i + 1] = depth[r] = depth[i] + 1;
		nd->right = (uint32_t)(start + r);
	}
	return 0;
}

/* Reads the per-tree node counts into f->root; they must add up to n_nodes. */
static int read_tree_sizes(struct rv_rbuf *b, struct rv_iforest *f, uint64_t n_nodes,
			   size_t *largest, struct rv_err *err)
{
	uint64_t sum = 0;

	*largest = 0;
	for (size_t t = 0; t < f->trees; t++) {
		uint32_t c = rv_rbuf_u32(b);

		if (c == 0 || c > n_nodes - sum)
			return rv_err_set(err, -EINVAL, "isolation forest model: bad node count of tree %zu", t);
		f->root[t] = (uint32_t)sum;
		sum += c;
		*largest = c > *largest ? c : *largest;
	}
	f->root[f->trees] = (uint32_t)sum;
	if (sum != n_nodes)
		return rv_err_set(err, -EINVAL, "isolation forest model: trees hold %llu of %llu nodes",
				  (unsigned long long)sum, (unsigned long long)n_nodes);
	return 0;
}

static int read_nodes(struct rv_rbuf *b, struct rv_iforest *f, size_t largest, struct rv_err *err)
{
	uint32_t *depth = malloc(largest * sizeof(*depth));
	int rc = 0;

	if (!depth)
		return rv_err_set(err, -ENOMEM, "isolation forest model: out of memory");
	for (size_t t = 0; t < f->trees && !rc; t++) {
		for (size_t i = f->root[t]; i < f->root[t + 1]; i++) {
			struct rv_iforest_node *nd = &f->nodes[i];

			nd->feature = rv_rbuf_u32(b);
			rv_rbuf_f32s(b, &nd->value, 1);
			nd->right = rv_rbuf_u32(b);
			nd->size = rv_rbuf_u32(b);
		}
		rc = b->bad ? rv_err_set(err, -EINVAL, "isolation forest model: truncated nodes")
			    : check_tree(f, t, depth, err);
	}
	free(depth);
	return rc;
}

int rv_iforest_load(struct rv_rbuf *b, struct rv_iforest **out, struct rv_err *err)
{
	uint32_t tag = rv_rbuf_u32(b), version = rv_rbuf_u32(b);
	uint64_t F = rv_rbuf_u64(b), trees = rv_rbuf_u64(b);
	uint64_t samples = rv_rbuf_u64(b), n_nodes = rv_rbuf_u64(b);
	struct rv_iforest *f;
	size_t largest;
	int rc;

	*out = NULL;
	if (b->bad)
		return rv_err_set(err, -EINVAL, "isolation forest model: truncated header");
	if (tag != IFOREST_TAG || version != IFOREST_VERSION)
		return rv_err_set(err, -EINVAL, "isolation forest model: bad tag %#x or version %u",
				  (unsigned)tag, (unsigned)version);
	if (F == 0 || F >= IFOREST_LEAF || trees == 0 || samples == 0 || samples > UINT32_MAX ||
	    n_nodes < trees || n_nodes >= UINT32_MAX)
		return rv_err_set(err, -EINVAL, "isolation forest model: bad sizes");
	if (!rv_rbuf_has(b, trees, sizeof(uint32_t)) ||
	    (b->len - b->pos - trees * sizeof(uint32_t)) / IFOREST_NODE_BYTES < n_nodes)
		return rv_err_set(err, -EINVAL, "isolation forest model: truncated trees");
	f = forest_alloc(F, trees, samples, n_nodes);
	if (!f)
		return rv_err_set(err, -ENOMEM, "isolation forest model: out of memory");
	f->n_nodes = n_nodes;
	rc = read_tree_sizes(b, f, n_nodes, &largest, err);
	if (!rc)
		rc = read_nodes(b, f, largest, err);
	if (!rc && build_scoring(f) != 0)
		rc = rv_err_set(err, -ENOMEM, "isolation forest model: out of memory");
	if (rc) {
		rv_iforest_free(f);
		return rc;
	}
	*out = f;
	return 0;
}
