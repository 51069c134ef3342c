/*
 * fleet.c - `reveal fleet`'s analysis (fleet.h): the range read in runs of
 * windows, each window pushed into one straggler detector per group
 * (straggler.h), groups in parallel; then the stretches turned into
 * findings with plot series, and the facts compared (drift.h).
 */
#include "fleet/fleet.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/parallel.h"

enum {
	DEF_MEM = 256 << 20,
	DEF_PLOT_SIGNALS = 3,
	BAND_MIN_PEERS = 8,     /* fewer peers: the band is min..max */
};

void rv_fleet_opts_default(struct rv_fleet_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->src.group_by = "group";
	o->src.selector = "";
	o->src.threads = 4;
	rv_strag_opts_default(&o->strag);
	rv_drift_opts_default(&o->drift);
	o->mem_bytes = DEF_MEM;
	o->plot_signals = DEF_PLOT_SIGNALS;
}

void rv_fleet_result_free(struct rv_fleet_result *r)
{
	if (!r)
		return;
	rv_pool_free(&r->pool);
	free(r);
}

/* ------------------------------------------------------------ groups */

/* One group under analysis. */
struct grp {
	struct rv_fleet_group *out;
	size_t *idx;            /* its nodes' indices in the source */
	struct rv_strag *st;    /* NULL: too small to judge */
	double *x;              /* nnodes x nchan of one window */
	float *score;           /* nnodes x nwin */
	struct rv_err err;
	int rc;
};

struct run {
	const struct rv_fleet_opts *o;
	struct rv_fleet_src *src;
	struct rv_fleet_result *r;
	struct grp *g;
	size_t ng;
	const float *vals;      /* the run of windows read */
	const double *floor;    /* per channel, or NULL (channel_floors) */
	size_t w0, nw;
};

static int by_group(const void *a, const void *b, void *ctx)
{
	const struct rv_fleet_src *s = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(s->group[x], s->group[y]);

	return c ? c : strcmp(s->node[x], s->node[y]);
}

/* Splits the nodes into groups by name and makes a detector for each. */
static int make_groups(struct run *u, struct rv_err *err)
{
	struct rv_fleet_src *s = u->src;
	struct rv_pool *pl = &u->r->pool;
	size_t *ord = rv_pool_zalloc(pl, s->nnodes, sizeof(*ord));
	struct rv_fleet_group *out;

	if (!ord)
		return rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < s->nnodes; i++)
		ord[i] = i;
	qsort_r(ord, s->nnodes, sizeof(*ord), by_group, s);
	for (size_t i = 0; i < s->nnodes; i++)
		u->ng += i == 0 || strcmp(s->group[ord[i]], s->group[ord[i - 1]]) != 0;
	u->g = rv_pool_zalloc(pl, u->ng, sizeof(*u->g));
	out = rv_pool_zalloc(pl, u->ng, sizeof(*out));
	if (!u->g || !out)
		return rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0, k = 0; i < s->nnodes; k++) {
		size_t j = i;
		const char **names;

		while (j < s->nnodes && !strcmp(s->group[ord[j]], s->group[ord[i]]))
			j++;
		u->g[k].out = &out[k];
		u->g[k].idx = &ord[i];
		out[k].name = rv_pool_str(pl, s->group[ord[i]]);
		out[k].nnodes = j - i;
		names = rv_pool_zalloc(pl, j - i, sizeof(*names));
		if (!names)
			return rv_err_set(err, -ENOMEM, "out of memory");
		for (size_t n = i; n < j; n++)
			names[n - i] = rv_pool_str(pl, s->node[ord[n]]);
		out[k].node = names;
		i = j;
	}
	u->r->group = out;
	u->r->ngroup = u->ng;
	return 0;
}

static int make_detectors(struct run *u, struct rv_err *err)
{
	struct rv_pool *pl = &u->r->pool;

	for (size_t k = 0; k < u->ng; k++) {
		struct grp *g = &u->g[k];
		size_t n = g->out->nnodes;
		int rc;

		g->score = rv_pool_zalloc(pl, n * u->src->nwin, sizeof(*g->score));
		if (!g->score)
			return rv_err_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; i < n * u->src->nwin; i++)
			g->score[i] = NAN;
		g->out->score = g->score;
		if (n < RV_STRAG_MIN_NODES) {
			u->r->nsmall++;
			continue;
		}
		g->x = rv_pool_zalloc(pl, n * u->src->nchan, sizeof(*g->x));
		if (!g->x)
			return rv_err_set(err, -ENOMEM, "out of memory");
		rc = rv_strag_new(n, u->src->nchan, &u->o->strag, &g->st, err);
		if (!rc && u->floor)
			rc = rv_strag_set_floors(g->st, u->floor, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Each channel's floor from opts.floor_of (NaN: the default). */
static int channel_floors(struct run *u, struct rv_err *err)
{
	double *f;

	if (!u->o->floor_of)
		return 0;
	if (!(f = rv_pool_zalloc(&u->r->pool, u->src->nchan, sizeof(*f))))
		return rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t c = 0; c < u->src->nchan; c++) {
		double v = u->o->floor_of(u->src->chan[c]);

		f[c] = v > 0 && isfinite(v) ? v : NAN;
	}
	u->floor = f;
	return 0;
}

/* ------------------------------------------------------------ windows */

/* Window w of the run into g->x; the count of nodes with a value. */
static size_t gather(const struct run *u, const struct grp *g, size_t w)
{
	size_t nchan = u->src->nchan, nodes = 0;
	const float *base = u->vals + w * u->src->nnodes * nchan;

	for (size_t n = 0; n < g->out->nnodes; n++) {
		const float *row = base + g->idx[n] * nchan;
		int any = 0;

		for (size_t c = 0; c < nchan; c++) {
			g->x[n * nchan + c] = row[c];
			any |= isfinite(row[c]);
		}
		nodes += any;
	}
	return nodes;
}

static int push_groups(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct run *u = ctx;

	(void)slot;
	for (size_t k = begin; k < end; k++) {
		struct grp *g = &u->g[k];

		for (size_t w = 0; g->st && !g->rc && w < u->nw; w++) {
			size_t win = u->w0 + w;
			double t = u->src->t0 + (double)win * u->src->step;

			if (gather(u, g, w) < RV_STRAG_MIN_NODES)
				continue;   /* the storage holds too little of this window */
			g->rc = rv_strag_push(g->st, t, g->x, &g->err);
			for (size_t n = 0; !g->rc && n < g->out->nnodes; n++)
				g->score[n * u->src->nwin + win] = (float)rv_strag_score(g->st, n);
		}
		if (g->rc)
			return g->rc;
	}
	return 0;
}

/* Reads the range in runs of windows and pushes each into the groups. */
static int analyse_windows(struct run *u, struct rv_err *err)
{
	struct rv_fleet_src *s = u->src;
	size_t per_win = s->nnodes * s->nchan * sizeof(float), run;
	unsigned threads = u->o->threads ? u->o->threads : rv_parallel_cpus();
	float *vals;
	int rc = 0;

	run = (u->o->mem_bytes ? u->o->mem_bytes : DEF_MEM) / (per_win ? per_win : 1);
	run = run < 1 ? 1 : run > s->nwin ? s->nwin : run;
	if (!(vals = malloc(run * per_win)))
		return rv_err_set(err, -ENOMEM, "out of memory (%zu windows of %zu nodes x %zu "
				  "channels)", run, s->nnodes, s->nchan);
	u->vals = vals;
	for (size_t w0 = 0; !rc && w0 < s->nwin; w0 += run) {
		u->w0 = w0;
		u->nw = w0 + run > s->nwin ? s->nwin - w0 : run;
		if ((rc = rv_fleet_src_read(s, w0, u->nw, vals, err)) != 0)
			break;
		rc = rv_parallel_for(u->ng, threads, push_groups, u);
		for (size_t k = 0; rc && k < u->ng; k++)
			if (u->g[k].rc) {
				rv_err_set(err, u->g[k].rc, "group %s: %s", u->g[k].out->name,
					   u->g[k].err.msg);
				break;
			}
		if (u->o->progress)
			u->o->progress(u->o->progress_ctx, w0 + u->nw, s->nwin);
	}
	free(vals);
	return rc;
}

/* ------------------------------------------------------------ findings */

static int by_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of sorted v[0..n), n >= 1 (linear between ranks). */
static float quantile(const float *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	double f = pos - (double)i;

	return i + 1 < n ? (float)(v[i] * (1 - f) + v[i + 1] * f) : v[i];
}

struct plot {
	float *node_v, *med, *lo, *hi;
};

/* One window of one channel (vals: a node per slot) into the plot. */
static void plot_window(const struct grp *g, size_t me, const float *vals, float *scratch,
			struct plot *p, size_t w)
{
	size_t n = 0;

	for (size_t i = 0; i < g->out->nnodes; i++) {
		float v = vals[g->idx[i]];

		if (i != me && isfinite(v))
			scratch[n++] = v;
	}
	p->node_v[w] = vals[g->idx[me]];
	p->med[w] = p->lo[w] = p->hi[w] = NAN;
	if (!n)
		return;
	qsort(scratch, n, sizeof(*scratch), by_float);
	p->med[w] = quantile(scratch, n, 0.5);
	p->lo[w] = n < BAND_MIN_PEERS ? scratch[0] : quantile(scratch, n, 0.25);
	p->hi[w] = n < BAND_MIN_PEERS ? scratch[n - 1] : quantile(scratch, n, 0.75);
}

/* The plot series of channel chan for node me of group g. */
static int plot_signal(struct run *u, const struct grp *g, size_t me, size_t chan,
		       struct rv_fleet_signal *sig, struct rv_err *err)
{
	struct rv_fleet_src *s = u->src;
	struct rv_pool *pl = &u->r->pool;
	size_t run = (u->o->mem_bytes ? u->o->mem_bytes : DEF_MEM) / (s->nnodes * sizeof(float));
	struct plot p = {
		rv_pool_zalloc(pl, s->nwin, sizeof(float)), rv_pool_zalloc(pl, s->nwin, sizeof(float)),
		rv_pool_zalloc(pl, s->nwin, sizeof(float)), rv_pool_zalloc(pl, s->nwin, sizeof(float)),
	};
	float *vals, *scratch = rv_pool_zalloc(pl, g->out->nnodes, sizeof(float));
	int rc = 0;

	run = run < 1 ? 1 : run > s->nwin ? s->nwin : run;
	if (!p.node_v || !p.med || !p.lo || !p.hi || !scratch ||
	    !(vals = malloc(run * s->nnodes * sizeof(float))))
		return rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t w0 = 0; !rc && w0 < s->nwin; w0 += run) {
		size_t nw = w0 + run > s->nwin ? s->nwin - w0 : run;

		rc = rv_fleet_src_read_chan(s, chan, w0, nw, vals, err);
		for (size_t w = 0; !rc && w < nw; w++)
			plot_window(g, me, vals + w * s->nnodes, scratch, &p, w0 + w);
	}
	free(vals);
	if (!rc) {
		sig->node_v = p.node_v;
		sig->median_v = p.med;
		sig->lo_v = p.lo;
		sig->hi_v = p.hi;
	}
	return rc;
}

/* The stragglers of node me from its stretches f[0..n) (in time order). */
static int one_straggler(struct run *u, const struct grp *g, size_t me,
			 const struct rv_strag_finding *f, size_t n, struct rv_fleet_straggler *out,
			 struct rv_err *err)
{
	struct rv_pool *pl = &u->r->pool;
	struct rv_fleet_stretch *st = rv_pool_zalloc(pl, n, sizeof(*st));
	const struct rv_strag_finding *longest = &f[0];
	struct rv_fleet_signal *sig;

	if (!st)
		return rv_err_set(err, -ENOMEM, "out of memory");
	out->group = g->out->name;
	out->node = g->out->node[me];
	for (size_t i = 0; i < n; i++) {
		st[i] = (struct rv_fleet_stretch){ f[i].t_first, f[i].t_last, f[i].peak, f[i].open };
		if (f[i].peak > out->peak)
			out->peak = f[i].peak;
		if (f[i].last - f[i].first > longest->last - longest->first)
			longest = &f[i];
	}
	out->stretch = st;
	out->nstretch = n;
	if (!(sig = rv_pool_zalloc(pl, longest->nsignals + 1, sizeof(*sig))))
		return rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < longest->nsignals; i++) {
		const struct rv_strag_signal *ss = &longest->sig[i];
		int rc;

		sig[i] = (struct rv_fleet_signal){ rv_pool_str(pl, u->src->chan[ss->chan]), ss->value,
						   ss->median,
						   ss->z, NULL, NULL, NULL, NULL };
		if (i < u->o->plot_signals &&
		    (rc = plot_signal(u, g, me, ss->chan, &sig[i], err)) != 0)
			return rc;
	}
	out->sig = sig;
	out->nsig = longest->nsignals;
	return 0;
}

static int collect_stragglers(struct run *u, struct rv_err *err)
{
	struct rv_fleet_result *r = u->r;
	size_t total = 0;

	for (size_t k = 0; k < u->ng; k++)
		total += u->g[k].st ? rv_strag_findings(u->g[k].st, NULL, 0) : 0;
	r->strag = rv_pool_zalloc(&r->pool, total + 1, sizeof(*r->strag));
	if (!r->strag)
		return rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t k = 0; k < u->ng; k++) {
		struct grp *g = &u->g[k];
		size_t n = g->st ? rv_strag_findings(g->st, NULL, 0) : 0;
		struct rv_strag_finding *f = n ? calloc(n, sizeof(*f)) : NULL;
		int rc = 0;

		if (n && !f)
			return rv_err_set(err, -ENOMEM, "out of memory");
		rv_strag_findings(g->st, f, n);
		for (size_t i = 0; !rc && i < n;) {   /* by node, then first window */
			size_t j = i;

			while (j < n && f[j].node == f[i].node)
				j++;
			rc = one_straggler(u, g, f[i].node, &f[i], j - i,
					   (struct rv_fleet_straggler *)&r->strag[r->nstrag++], err);
			g->out->nflagged++;
			i = j;
		}
		free(f);
		if (rc)
			return rc;
	}
	return 0;
}

static int by_group_peak(const void *a, const void *b)
{
	const struct rv_fleet_straggler *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	return c ? c : (x->peak < y->peak) - (x->peak > y->peak);
}

/* ------------------------------------------------------------ drift */

/* Finding f of group g into out, strings copied into the result's pool. */
static int copy_drift(struct rv_pool *pl, const char *group, const struct rv_drift_finding *f,
		      struct rv_fleet_drift *out)
{
	struct rv_fleet_odd *odd = rv_pool_zalloc(pl, f->nodd + 1, sizeof(*odd));

	if (!odd)
		return -ENOMEM;
	*out = (struct rv_fleet_drift){
		.group = group, .key = rv_pool_str(pl, f->key),
		.majority = f->majority ? rv_pool_str(pl, f->majority)
					: f->majority_lacks ? "" : NULL,
		.nmajority = f->nmajority, .nnodes = f->nnodes, .tolerance = f->tolerance,
		.nodd = f->nodd, .odd = odd,
	};
	for (size_t i = 0; i < f->nodd; i++) {
		odd[i].node = rv_pool_str(pl, f->odd[i].node);
		odd[i].value = rv_pool_str(pl, f->odd[i].value ? f->odd[i].value : "");
	}
	return pl->oom ? -ENOMEM : 0;
}

/* The drift findings of group g appended to *all (grown by realloc). */
static int group_drift(struct run *u, const struct grp *g, struct rv_fleet_drift **all,
		       size_t *n, struct rv_err *err)
{
	const struct rv_fleet_src *s = u->src;
	struct rv_drift *d = NULL;
	int rc = rv_drift_new(&u->o->drift, &d, err);

	for (size_t i = 0; !rc && i < g->out->nnodes; i++) {
		size_t k = g->idx[i];

		for (size_t f = 0; !rc && f < s->nfacts[k]; f++)
			rc = rv_drift_add(d, s->node[k], s->facts[k][f].key, s->facts[k][f].value,
					  err);
	}
	if (!rc)
		rc = rv_drift_run(d, err);
	if (!rc) {
		size_t m = rv_drift_count(d);
		struct rv_fleet_drift *grown = m ? realloc(*all, (*n + m) * sizeof(**all)) : *all;

		if (m && !grown)
			rc = rv_err_set(err, -ENOMEM, "out of memory");
		else
			*all = grown;
		for (size_t i = 0; !rc && i < m; i++)
			if (copy_drift(&u->r->pool, g->out->name, rv_drift_get(d, i), &grown[(*n)++]))
				rc = rv_err_set(err, -ENOMEM, "out of memory");
	}
	rv_drift_free(d);
	return rc;
}

static int collect_drift(struct run *u, struct rv_err *err)
{
	struct rv_fleet_drift *all = NULL;
	size_t n = 0;
	int rc = 0;

	for (size_t k = 0; !rc && k < u->ng; k++)
		rc = group_drift(u, &u->g[k], &all, &n, err);
	if (!rc && n) {
		struct rv_fleet_drift *kept = rv_pool_keep(&u->r->pool, all);

		if (!kept)
			return rv_err_set(err, -ENOMEM, "out of memory");
		u->r->drift = kept;
		u->r->ndrift = n;
		return 0;
	}
	free(all);
	return rc;
}

/* ------------------------------------------------------------ the run */

static void describe(struct rv_fleet_result *r, const struct rv_fleet_opts *o,
		     const struct rv_fleet_src *s)
{
	struct rv_pool *pl = &r->pool;

	r->url = rv_pool_str(pl, o->src.http.url);
	r->selector = rv_pool_str(pl, o->src.selector);
	r->group_by = rv_pool_str(pl, o->src.group_by);
	r->since = o->src.since;
	r->until = o->src.until;
	r->t0 = s->t0;
	r->step = s->step;
	r->nwin = s->nwin;
	r->nnodes = s->nnodes;
	r->nchan = s->nchan;
}

static void free_run(struct run *u)
{
	for (size_t k = 0; u->g && k < u->ng; k++)
		rv_strag_free(u->g[k].st);
}

int rv_fleet_analyse(const struct rv_fleet_opts *o, struct rv_fleet_result **out,
		     struct rv_err *err)
{
	struct rv_fleet_result *r = calloc(1, sizeof(*r));
	struct rv_fleet_opts opts = *o;
	struct rv_fleet_src src;
	struct run u = { .o = &opts, .src = &src, .r = r };
	rv_ns t0 = rv_clock_ns();
	int rc;

	*out = NULL;
	if (!r)
		return rv_err_set(err, -ENOMEM, "out of memory");
	rc = rv_fleet_src_open(&o->src, &src, err);
	if (!rc) {
		if (opts.persist_s > 0)
			opts.strag.persist = (size_t)fmax(1.0, round(opts.persist_s / src.step));
		describe(r, &opts, &src);
		r->threshold = opts.strag.threshold;
		r->persist = opts.strag.persist;
		rc = make_groups(&u, err);
	}
	if (!rc)
		rc = channel_floors(&u, err);
	if (!rc)
		rc = make_detectors(&u, err);
	if (!rc)
		rc = analyse_windows(&u, err);
	if (!rc)
		rc = collect_stragglers(&u, err);
	if (!rc)
		rc = collect_drift(&u, err);
	if (!rc)
		qsort((void *)r->strag, r->nstrag, sizeof(*r->strag), by_group_peak);
	r->requests = src.requests;
	r->bytes = src.bytes;
	r->read_s = src.read_s;
	r->analyse_s = rv_clock_since_s(t0) - src.read_s;
	free_run(&u);
	rv_fleet_src_close(&src);
	if (!rc && r->pool.oom)
		rc = rv_err_set(err, -ENOMEM, "out of memory");
	if (rc) {
		rv_fleet_result_free(r);
		return rc;
	}
	*out = r;
	return 0;
}
