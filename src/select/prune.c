/*
 * prune.c - greedy correlation pruning across inputs. See prune.h for the
 * priority, the rule of a kept channel standing for another, and what is
 * constant.
 *
 * The channels of all inputs are merged by name (one sort of every
 * (name, input, column)), each with its column in every input; the varying
 * ones are sorted by priority and visited once, each checked against the
 * channels kept so far.
 */
#include "select/prune.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A column of one input. */
struct ref {
	const char *name;
	size_t input, col;
};

/* One channel name across the inputs. */
struct chan {
	const char *name;      /* borrowed from an input */
	size_t *col;           /* [nin] its column there, SIZE_MAX when absent */
	int interp, general, varies, protect;
	double spread;         /* mean over the inputs where it varies */
	size_t kept_at;        /* index in the kept list, SIZE_MAX if not kept */
};

struct run {
	const struct rv_prune_input *in;
	size_t nin, nchan;
	struct chan *ch;
	size_t *cols;          /* [nchan * nin] behind ch[].col */
	struct chan **order;   /* the varying channels by priority */
	size_t nvary;
	struct chan **kept;    /* kept so far, in priority order */
	size_t nkept;
	size_t npartial;       /* channels absent from some input */
	size_t nprotected;     /* varying channels kept only because protected */
	double threshold;
	const struct rv_prune_protect *protect;  /* or NULL */
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* Priority order of prune.h: interpretability, generality, spread, name. */
static int priority_cmp(const void *a, const void *b)
{
	const struct chan *x = *(const struct chan *const *)a, *y = *(const struct chan *const *)b;

	if (x->interp != y->interp)
		return x->interp < y->interp ? -1 : 1;
	if (x->general != y->general)
		return x->general < y->general ? -1 : 1;
	if (x->spread != y->spread)
		return x->spread > y->spread ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int check_inputs(const struct rv_prune_input *in, size_t nin, double threshold,
			size_t *total, struct rv_err *err)
{
	if (nin == 0)
		return rv_err_set(err, -EINVAL, "prune: no input");
	if (!(threshold > 0.0 && threshold < 1.0))
		return rv_err_set(err, -EINVAL, "prune: threshold %g is not between 0 and 1",
				  threshold);
	*total = 0;
	for (size_t k = 0; k < nin; k++) {
		if (!in[k].corr || rv_corr_nchan(in[k].corr) != in[k].nchan)
			return rv_err_set(err, -EINVAL, "%s: %zu channel names for %zu correlated",
					  in[k].name, in[k].nchan,
					  in[k].corr ? rv_corr_nchan(in[k].corr) : 0);
		*total += in[k].nchan;
	}
	return 0;
}

/* Every column of every input, sorted by name. */
static int sorted_refs(const struct rv_prune_input *in, size_t nin, size_t total,
		       struct ref **out, struct rv_err *err)
{
	struct ref *v = malloc((total ? total : 1) * sizeof(*v));
	size_t n = 0;

	*out = v;
	if (!v)
		return rv_err_set(err, -ENOMEM, "prune: out of memory");
	for (size_t k = 0; k < nin; k++)
		for (size_t i = 0; i < in[k].nchan; i++)
			v[n++] = (struct ref){ in[k].names[i], k, i };
	qsort(v, total, sizeof(*v), ref_cmp);
	for (size_t i = 1; i < total; i++)
		if (v[i].input == v[i - 1].input && strcmp(v[i].name, v[i - 1].name) == 0)
			return rv_err_set(err, -EINVAL, "%s: channel '%s' appears twice (columns "
					  "%zu and %zu)", in[v[i].input].name, v[i].name,
					  v[i - 1].col + 1, v[i].col + 1);
	return 0;
}

/* Statistics of channel c across the inputs. */
static void describe(struct run *ru, struct chan *c)
{
	size_t n = 0;
	double sum = 0.0;

	for (size_t k = 0; k < ru->nin; k++) {
		const struct rv_corr *cr = ru->in[k].corr;

		if (c->col[k] == SIZE_MAX || rv_corr_constant(cr, c->col[k]))
			continue;
		sum += rv_corr_spread(cr, c->col[k]);
		n++;
	}
	for (size_t k = 0; k < ru->nin; k++)
		if (c->col[k] == SIZE_MAX) {
			ru->npartial++;
			break;
		}
	c->varies = n > 0;
	c->spread = n ? sum / (double)n : 0.0;
	c->interp = rv_catalog_interpretability(c->name);
	c->general = rv_catalog_generality(c->name);
	c->kept_at = SIZE_MAX;
	c->protect = 0;
	for (size_t i = 0; ru->protect && i < ru->protect->n && !c->protect; i++)
		c->protect = fnmatch(ru->protect->globs[i], c->name, 0) == 0;
}

/* The channels of the sorted refs, their columns, statistics, order. */
static int merge(struct run *ru, const struct ref *v, size_t total, struct rv_err *err)
{
	size_t u = 0;

	for (size_t i = 0; i < total; i++)
		u += i == 0 || strcmp(v[i].name, v[i - 1].name) != 0;
	ru->ch = calloc(u ? u : 1, sizeof(*ru->ch));
	ru->order = calloc(u ? u : 1, sizeof(*ru->order));
	ru->kept = calloc(u ? u : 1, sizeof(*ru->kept));
	if (u > SIZE_MAX / ru->nin / sizeof(size_t))
		return rv_err_set(err, -ENOMEM, "prune: out of memory");
	ru->cols = malloc((u ? u : 1) * ru->nin * sizeof(*ru->cols));
	if (!ru->ch || !ru->order || !ru->kept || !ru->cols)
		return rv_err_set(err, -ENOMEM, "prune: out of memory");
	for (size_t i = 0; i < u * ru->nin; i++)
		ru->cols[i] = SIZE_MAX;
	ru->nchan = 0;
	for (size_t i = 0; i < total; i++) {
		struct chan *c;

		if (i == 0 || strcmp(v[i].name, v[i - 1].name) != 0) {
			c = &ru->ch[ru->nchan];
			c->name = v[i].name;
			c->col = ru->cols + ru->nchan++ * ru->nin;
		}
		ru->ch[ru->nchan - 1].col[v[i].input] = v[i].col;
	}
	ru->nvary = 0;
	for (size_t i = 0; i < ru->nchan; i++) {
		describe(ru, &ru->ch[i]);
		if (ru->ch[i].varies)
			ru->order[ru->nvary++] = &ru->ch[i];
	}
	qsort(ru->order, ru->nvary, sizeof(*ru->order), priority_cmp);
	return 0;
}

/* 1 unless input i has the correlation of changes and there c's changes
 * vary while k's do not, or theirs correlate at or below the threshold. */
static int changes_agree(const struct run *ru, size_t i, size_t c, size_t k)
{
	const struct rv_corr *d = ru->in[i].dcorr;

	if (!d || rv_corr_constant(d, c))
		return 1;
	return !rv_corr_constant(d, k) && fabs(rv_corr_r(d, c, k)) > ru->threshold;
}

/* 1 when kept channel k stands for c (prune.h), with the weakest r in *weak. */
static int stands_for(const struct run *ru, const struct chan *c, const struct chan *k,
		      double *weak)
{
	double w = NAN;

	for (size_t i = 0; i < ru->nin; i++) {
		const struct rv_corr *cr = ru->in[i].corr;
		double r;

		if (c->col[i] == SIZE_MAX || rv_corr_constant(cr, c->col[i]))
			continue;
		if (k->col[i] == SIZE_MAX || rv_corr_constant(cr, k->col[i]))
			return 0;
		r = rv_corr_r(cr, c->col[i], k->col[i]);
		if (!(fabs(r) > ru->threshold) || !changes_agree(ru, i, c->col[i], k->col[i]))
			return 0;
		if (isnan(w) || fabs(r) < fabs(w))
			w = r;
	}
	*weak = w;
	return !isnan(w);
}

/* The greedy visit: kept channels in ru->kept, each dropped one's
 * representative in best[] (index into ru->order) and r in rs[]. */
static void greedy(struct run *ru, size_t *best, double *rs)
{
	for (size_t o = 0; o < ru->nvary; o++) {
		struct chan *c = ru->order[o];
		double top = 0.0, w;

		best[o] = SIZE_MAX;
		for (size_t j = 0; j < ru->nkept; j++)
			if (stands_for(ru, c, ru->kept[j], &w) && fabs(w) > top) {
				top = fabs(w);
				best[o] = j;
				rs[o] = w;
			}
		if (best[o] != SIZE_MAX && c->protect) {
			best[o] = SIZE_MAX;
			ru->nprotected++;
		}
		if (best[o] == SIZE_MAX) {
			c->kept_at = ru->nkept;
			ru->kept[ru->nkept++] = c;
		}
	}
}

/* The result's own copy of every name, own[i] for ru->ch[i]. */
static int copy_names(const struct run *ru, struct rv_prune_result *res, const char **own)
{
	size_t len = 0, off = 0;

	for (size_t i = 0; i < ru->nchan; i++)
		len += strlen(ru->ch[i].name) + 1;
	if (!(res->text = malloc(len ? len : 1)))
		return -ENOMEM;
	for (size_t i = 0; i < ru->nchan; i++) {
		size_t n = strlen(ru->ch[i].name) + 1;

		memcpy(res->text + off, ru->ch[i].name, n);
		own[i] = res->text + off;
		off += n;
	}
	return 0;
}

/* The lists and counts of the result from the greedy visit. */
static int fill_result(const struct run *ru, const size_t *best, const double *rs,
		       struct rv_prune_result *res)
{
	size_t n = ru->nchan ? ru->nchan : 1;
	const char **own = calloc(n, sizeof(*own));
	int rc = -ENOMEM;

	res->kept = calloc(n, sizeof(*res->kept));
	res->dropped = calloc(n, sizeof(*res->dropped));
	res->constant = calloc(n, sizeof(*res->constant));
	if (own && res->kept && res->dropped && res->constant && copy_names(ru, res, own) == 0) {
		for (size_t j = 0; j < ru->nkept; j++) {
			res->kept[res->nkept++] = own[ru->kept[j] - ru->ch];
			res->kept_by[rv_catalog_subsystem(ru->kept[j]->name)]++;
		}
		for (size_t o = 0; o < ru->nvary; o++) {
			if (best[o] == SIZE_MAX)
				continue;
			res->dropped[res->ndropped++] = (struct rv_metricset_drop){
				own[ru->order[o] - ru->ch], own[ru->kept[best[o]] - ru->ch], rs[o] };
			res->dropped_by[rv_catalog_subsystem(ru->order[o]->name)]++;
		}
		res->nprotected = ru->nprotected;
		for (size_t i = 0; i < ru->nchan; i++) {
			if (ru->ch[i].varies)
				continue;
			if (ru->ch[i].protect) {
				res->kept[res->nkept++] = own[i];
				res->kept_by[rv_catalog_subsystem(ru->ch[i].name)]++;
				res->nkept_constant++;
				res->nprotected_constant++;
				continue;
			}
			res->constant[res->nconstant++] = own[i];
			res->constant_by[rv_catalog_subsystem(ru->ch[i].name)]++;
		}
		res->npartial = ru->npartial;
		rc = 0;
	}
	free(own);
	return rc;
}

void rv_prune_keep_constant(struct rv_prune_result *r)
{
	for (size_t i = 0; i < r->nconstant; i++)
		r->kept[r->nkept++] = r->constant[i];
	for (int s = 0; s < RV_SUB_COUNT; s++) {
		r->kept_by[s] += r->constant_by[s];
		r->constant_by[s] = 0;
	}
	r->nkept_constant += r->nconstant;
	r->nconstant = 0;
}

static void run_free(struct run *ru)
{
	free(ru->ch);
	free(ru->cols);
	free(ru->order);
	free(ru->kept);
}

/* Merge, greedy visit, result. */
static int prune(struct run *ru, const struct ref *v, size_t total,
		 struct rv_prune_result *res, struct rv_err *err)
{
	size_t *best;
	double *rs;
	int rc = merge(ru, v, total, err);

	if (rc)
		return rc;
	best = calloc(ru->nvary ? ru->nvary : 1, sizeof(*best));
	rs = calloc(ru->nvary ? ru->nvary : 1, sizeof(*rs));
	if (best && rs) {
		greedy(ru, best, rs);
		rc = fill_result(ru, best, rs, res);
	} else {
		rc = -ENOMEM;
	}
	free(best);
	free(rs);
	return rc ? rv_err_set(err, rc, "prune: out of memory") : 0;
}

int rv_prune_run(const struct rv_prune_input *in, size_t nin, double threshold,
		 struct rv_prune_result **out, struct rv_err *err)
{
	return rv_prune_run_protect(in, nin, threshold, NULL, out, err);
}

int rv_prune_run_protect(const struct rv_prune_input *in, size_t nin, double threshold,
			 const struct rv_prune_protect *p, struct rv_prune_result **out,
			 struct rv_err *err)
{
	struct run ru = { .in = in, .nin = nin, .threshold = threshold, .protect = p };
	struct rv_prune_result *res;
	struct ref *v = NULL;
	size_t total = 0;
	int rc;

	*out = NULL;
	if ((rc = check_inputs(in, nin, threshold, &total, err)))
		return rc;
	if (!(res = calloc(1, sizeof(*res))))
		return rv_err_set(err, -ENOMEM, "prune: out of memory");
	rc = sorted_refs(in, nin, total, &v, err);
	if (rc == 0)
		rc = prune(&ru, v, total, res, err);
	free(v);
	run_free(&ru);
	if (rc) {
		rv_prune_free(res);
		return rc;
	}
	*out = res;
	return 0;
}

void rv_prune_free(struct rv_prune_result *r)
{
	if (!r)
		return;
	free(r->kept);
	free(r->dropped);
	free(r->constant);
	free(r->text);
	free(r);
}

void rv_prune_spec(const struct rv_prune_result *r, double threshold,
		   const char *const *inputs, size_t ninputs, struct rv_metricset_spec *s)
{
	*s = (struct rv_metricset_spec){
		.threshold = threshold, .inputs = inputs, .ninputs = ninputs,
		.keep = r->kept, .nkeep = r->nkept, .drop = r->dropped, .ndrop = r->ndropped,
		.constant = r->constant, .nconstant = r->nconstant,
	};
}
