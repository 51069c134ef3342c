/*
 * read.c - the agents' summaries through the Prometheus HTTP API (read.h).
 */
#include "fleet/read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/parallel.h"
#include "base/strparse.h"
#include "remote/promapi.h"

enum {
	QUERY_MAX = 16384,
	CHANNEL_BATCH = 32,    /* nodes whose channels one query asks for */
	FACT_BATCH = 256,      /* nodes whose facts one query asks for */
	STEP_PROBE_S = 600,    /* raw samples of one node looked at for the step */
};

/* ------------------------------------------------------------ queries */

/* "NAME{SEL}" or "NAME{SEL,EXTRA}" into buf; extra may be NULL. */
static int selector(const struct rv_fleet_src *s, const char *name, const char *extra, char *buf,
		    size_t n)
{
	int len = snprintf(buf, n, "%s{%s%s%s}", name, s->sel, s->sel[0] && extra ? "," : "",
			   extra ? extra : "");

	return len > 0 && (size_t)len < n ? 0 : -ENAMETOOLONG;
}

/* name="value" with value escaped for a PromQL string. */
static int matcher(const char *name, const char *value, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "%s=\"", name);

	for (const char *p = value; *p && o + 4 < n; p++) {
		if (*p == '"' || *p == '\\')
			buf[o++] = '\\';
		buf[o++] = *p;
	}
	if (o + 2 >= n)
		return -ENAMETOOLONG;
	buf[o++] = '"';
	buf[o] = '\0';
	return 0;
}

static void count(struct rv_fleet_src *s, struct rv_prom *p, const struct rv_prom_stats *before)
{
	struct rv_prom_stats st;

	rv_prom_stats(p, &st);
	s->requests += st.requests - before->requests;
	s->bytes += st.body_bytes - before->body_bytes;
}

/* An instant query at the range's end on the first connection. */
static int instant(struct rv_fleet_src *s, const char *q, struct rv_prom_result *res,
		   struct rv_err *err)
{
	struct rv_prom_stats before;
	int rc;

	rv_prom_stats(s->conn[0], &before);
	rc = rv_prom_query(s->conn[0], q, s->o->until, res, err);
	count(s, s->conn[0], &before);
	return rc;
}

/* "last_over_time(NAME{SEL,EXTRA}[Ns])"; extra may be NULL. */
static int last_over_range(const struct rv_fleet_src *s, const char *name, const char *extra,
			   char *buf, size_t n)
{
	char sel[QUERY_MAX];
	double range = ceil(s->o->until - s->o->since);
	int len;

	if (selector(s, name, extra, sel, sizeof(sel)))
		return -ENAMETOOLONG;
	len = snprintf(buf, n, "last_over_time(%s[%.0fs])", sel, range < 1 ? 1 : range);
	return len > 0 && (size_t)len < n ? 0 : -ENAMETOOLONG;
}

/* ------------------------------------------------------------ discovery */

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

long rv_fleet_src_node(const struct rv_fleet_src *s, const char *name)
{
	const char **hit = s->nnodes ? bsearch(&name, s->node, s->nnodes, sizeof(*s->node), by_str)
				     : NULL;

	return hit ? (long)(hit - s->node) : -1;
}

struct node_group {
	const char *node, *group;
};

static int by_node(const void *a, const void *b)
{
	return strcmp(((const struct node_group *)a)->node, ((const struct node_group *)b)->node);
}

static int find_nodes(struct rv_fleet_src *s, struct rv_err *err)
{
	struct rv_prom_result res = { 0 };
	struct node_group *ng;
	char q[QUERY_MAX];
	size_t n = 0;
	int rc;

	if (last_over_range(s, "reveal_node_learning", NULL, q, sizeof(q)))
		return rv_err_set(err, -ENAMETOOLONG, "selector too long");
	if ((rc = instant(s, q, &res, err)) != 0)
		return rc;
	ng = rv_pool_zalloc(&s->pool, res.nseries, sizeof(*ng));
	for (size_t i = 0; ng && i < res.nseries; i++) {
		const char *node = rv_prom_label(&res.series[i], "node");
		const char *group = rv_prom_label(&res.series[i], s->o->group_by);

		if (!node)
			continue;
		ng[n].node = rv_pool_str(&s->pool, node);
		ng[n++].group = rv_pool_str(&s->pool, group ? group : "");
	}
	rv_prom_result_fini(&res);
	if (!ng || s->pool.oom)
		return rv_err_set(err, -ENOMEM, "out of memory");
	if (n == 0)
		return rv_err_set(err, -ENODATA,
				  "no node sent reveal_node_learning{%s} between the range's start "
				  "and end: is remote_write on in the agents, and the selector right?",
				  s->sel);
	qsort(ng, n, sizeof(*ng), by_node);
	s->node = rv_pool_zalloc(&s->pool, n, sizeof(*s->node));
	s->group = rv_pool_zalloc(&s->pool, n, sizeof(*s->group));
	if (!s->node || !s->group)
		return rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (s->nnodes && !strcmp(s->node[s->nnodes - 1], ng[i].node))
			continue;   /* its group label changed in the range: the first one */
		s->node[s->nnodes] = ng[i].node;
		s->group[s->nnodes++] = ng[i].group;
	}
	return 0;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median distance between one node's raw samples. */
static int find_step(struct rv_fleet_src *s, struct rv_err *err)
{
	struct rv_prom_result res = { 0 };
	char m[512], sel[QUERY_MAX], q[QUERY_MAX];
	double w = s->o->until - s->o->since, *d;
	size_t n;
	int rc;

	if (s->o->step > 0) {
		s->step = s->o->step;
		return 0;
	}
	if (w > STEP_PROBE_S)
		w = STEP_PROBE_S;
	if (matcher("node", s->node[0], m, sizeof(m)) ||
	    selector(s, "reveal_node_learning", m, sel, sizeof(sel)) ||
	    snprintf(q, sizeof(q), "%s[%.0fs]", sel, ceil(w < 1 ? 1 : w)) >= (int)sizeof(q))
		return rv_err_set(err, -ENAMETOOLONG, "selector too long");
	if ((rc = instant(s, q, &res, err)) != 0)
		return rc;
	n = res.nseries ? res.series[0].npoints : 0;
	if (n < 2) {
		rv_prom_result_fini(&res);
		return rv_err_set(err, -ENODATA,
				  "node %s has %zu sample(s) in the last %.0f s of the range: the "
				  "summary interval cannot be told; give --step", s->node[0], n, w);
	}
	d = rv_pool_zalloc(&s->pool, n - 1, sizeof(*d));
	for (size_t i = 0; d && i + 1 < n; i++)
		d[i] = res.series[0].t[i + 1] - res.series[0].t[i];
	rv_prom_result_fini(&res);
	if (!d)
		return rv_err_set(err, -ENOMEM, "out of memory");
	qsort(d, n - 1, sizeof(*d), by_double);
	s->step = round(d[(n - 1) / 2] * 1e3) / 1e3;
	if (!(s->step > 0))
		return rv_err_set(err, -ENODATA, "node %s: samples without a step between them",
				  s->node[0]);
	return 0;
}

/* ------------------------------------------------------- node batches */

/* Queries that would match every series of a large fleet at once are what
 * engines refuse first (VictoriaMetrics: more than 300,000 series for a
 * label-values search by default), so channels and facts are asked for a
 * batch of nodes at a time, named in one regex matcher. */

/* name as one alternative of an RE2 regex inside a PromQL string into out:
 * its length, or 0 when it does not fit. */
static size_t re_quote(const char *name, char *out, size_t cap)
{
	size_t o = 0;

	for (const char *p = name; *p; p++) {
		if (o + 4 >= cap)
			return 0;
		if (strchr("\\.+*?()|[]{}^$", *p))
			out[o++] = '\\', out[o++] = '\\';   /* the regex's \, written \\ */
		else if (*p == '"')
			out[o++] = '\\';
		out[o++] = *p;
	}
	return o;
}

/* node=~"a|b|..." of nodes idx[*pos..n) into m: at most max of them, as
 * many as fit in cap; *pos moves past them. 0, or -ENAMETOOLONG. */
static int node_batch(const struct rv_fleet_src *s, const size_t *idx, size_t n, size_t max,
		      size_t *pos, char *m, size_t cap)
{
	size_t o = (size_t)snprintf(m, cap, "node=~\""), first = *pos;
	char one[1024];

	while (*pos < n && *pos - first < max) {
		size_t k = re_quote(s->node[idx[*pos]], one, sizeof(one));

		if (!k || o + k + 3 >= cap)
			break;
		if (*pos > first)
			m[o++] = '|';
		memcpy(m + o, one, k);
		o += k;
		(*pos)++;
	}
	if (*pos == first)
		return -ENAMETOOLONG;
	m[o++] = '"';
	m[o] = '\0';
	return 0;
}

static int by_group_node(const void *a, const void *b, void *ctx)
{
	const struct rv_fleet_src *s = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(s->group[x], s->group[y]);

	return c ? c : strcmp(s->node[x], s->node[y]);
}

/* The first, middle and last node of each group into idx: the nodes whose
 * channels are asked for (the nodes of one group run the same work on the
 * same kind of host; a channel that only a few of them have cannot get a
 * verdict anyway). The count. */
static size_t sample_nodes(const struct rv_fleet_src *s, size_t *ord, size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nnodes; i++)
		ord[i] = i;
	qsort_r(ord, s->nnodes, sizeof(*ord), by_group_node, (void *)s);
	for (size_t i = 0, j; i < s->nnodes; i = j) {
		for (j = i; j < s->nnodes && !strcmp(s->group[ord[j]], s->group[ord[i]]); j++)
			;
		idx[n++] = ord[i];
		if (j - i > 2)
			idx[n++] = ord[i + (j - i) / 2];
		if (j - i > 1)
			idx[n++] = ord[j - 1];
	}
	return n;
}

/* Label values of channel for the nodes of one batch, appended to s->chan
 * (grown in *cap). */
static int channels_of(struct rv_fleet_src *s, const char *m, size_t *cap, struct rv_err *err)
{
	struct rv_prom_result res = { 0 };
	struct rv_prom_stats before;
	char sel[QUERY_MAX];
	int rc;

	if (selector(s, "reveal_channel_mean", m, sel, sizeof(sel)))
		return rv_err_set(err, -ENAMETOOLONG, "selector too long");
	rv_prom_stats(s->conn[0], &before);
	rc = rv_prom_label_values(s->conn[0], "channel", sel, s->o->since, s->o->until, &res, err);
	count(s, s->conn[0], &before);
	for (size_t i = 0; !rc && i < res.nvalues; i++) {
		if (s->nchan == *cap) {
			const char **grown = realloc(s->chan, (*cap = *cap * 2 + 64) * sizeof(*grown));

			if (!grown) {
				rc = rv_err_set(err, -ENOMEM, "out of memory");
				break;
			}
			s->chan = grown;
		}
		s->chan[s->nchan++] = rv_pool_str(&s->pool, res.values[i]);
	}
	rv_prom_result_fini(&res);
	return rc;
}

static int find_channels(struct rv_fleet_src *s, struct rv_err *err)
{
	size_t *ord = rv_pool_zalloc(&s->pool, s->nnodes, sizeof(*ord));
	size_t *idx = rv_pool_zalloc(&s->pool, 3 * s->nnodes, sizeof(*idx));
	size_t n, pos = 0, cap = 0, kept = 0;
	char m[QUERY_MAX / 2];
	int rc = 0;

	if (!ord || !idx)
		return rv_err_set(err, -ENOMEM, "out of memory");
	n = sample_nodes(s, ord, idx);
	while (!rc && pos < n) {
		rc = node_batch(s, idx, n, CHANNEL_BATCH, &pos, m, sizeof(m));
		rc = rc ? rv_err_set(err, rc, "a node name too long for a query") :
			  channels_of(s, m, &cap, err);
	}
	if (!rc && s->pool.oom)
		rc = rv_err_set(err, -ENOMEM, "out of memory");
	if (!rc && s->nchan) {
		qsort(s->chan, s->nchan, sizeof(*s->chan), by_str);
		for (size_t i = 0; i < s->nchan; i++)
			if (!kept || strcmp(s->chan[kept - 1], s->chan[i]))
				s->chan[kept++] = s->chan[i];
		s->nchan = kept;
	}
	if (s->chan && !rv_pool_keep(&s->pool, s->chan))
		rc = rv_err_set(err, -ENOMEM, "out of memory");
	return rc;
}

/* By key; a key given more than once (it changed in the range), the
 * newest value first (the largest since), then by value. */
static int by_key(const void *a, const void *b)
{
	const struct rv_fleet_fact *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if (x->since != y->since)
		return x->since > y->since ? -1 : 1;
	return strcmp(x->value, y->value);
}

/* The since label of a fact series: unix seconds, 0 when absent or bad. */
static double since_of(const struct rv_prom_series *se)
{
	const char *t = rv_prom_label(se, "since");
	const char *p = t;
	double v = 0;

	if (!t || rv_str_double(&p, t + strlen(t), &v) != 0 || *p || !isfinite(v))
		return 0;
	return v;
}

/* One fact of one node while the batches come in. */
struct node_fact {
	size_t node;
	struct rv_fleet_fact f;
};

struct fact_list {
	struct node_fact *v;
	size_t n, cap;
};

/* The fact series of res appended to l. */
static int collect_facts(struct rv_fleet_src *s, const struct rv_prom_result *res,
			 struct fact_list *l)
{
	for (size_t i = 0; i < res->nseries; i++) {
		const struct rv_prom_series *se = &res->series[i];
		const char *node = rv_prom_label(se, "node"), *key = rv_prom_label(se, "fact");
		const char *value = rv_prom_label(se, "value");
		long k = node && key ? rv_fleet_src_node(s, node) : -1;

		if (k < 0)
			continue;
		if (l->n == l->cap) {
			struct node_fact *grown = realloc(l->v, (l->cap = l->cap * 2 + 256) *
								  sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			l->v = grown;
		}
		l->v[l->n++] = (struct node_fact){ (size_t)k, { rv_pool_str(&s->pool, key),
				rv_pool_str(&s->pool, value ? value : ""), since_of(se) } };
	}
	return s->pool.oom ? -ENOMEM : 0;
}

/* Each node's facts from l, sorted by key; a key given twice (it changed
 * in the range) keeps its newest value (the largest since; of equals, the
 * smallest value). */
static int sort_facts(struct rv_fleet_src *s, const struct fact_list *l)
{
	size_t *fill = rv_pool_zalloc(&s->pool, s->nnodes, sizeof(*fill));

	s->facts = rv_pool_zalloc(&s->pool, s->nnodes, sizeof(*s->facts));
	s->nfacts = rv_pool_zalloc(&s->pool, s->nnodes, sizeof(*s->nfacts));
	if (!fill || !s->facts || !s->nfacts)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		s->nfacts[l->v[i].node]++;
	for (size_t k = 0; k < s->nnodes; k++)
		if (!(s->facts[k] = rv_pool_zalloc(&s->pool, s->nfacts[k] + 1, sizeof(**s->facts))))
			return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		s->facts[l->v[i].node][fill[l->v[i].node]++] = l->v[i].f;
	for (size_t k = 0; k < s->nnodes; k++)
		s->nfacts[k] = rv_fleet_facts_newest(s->facts[k], s->nfacts[k]);
	return 0;
}

size_t rv_fleet_facts_newest(struct rv_fleet_fact *f, size_t n)
{
	size_t k = 0;

	qsort(f, n, sizeof(*f), by_key);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(f[k - 1].key, f[i].key))
			f[k++] = f[i];
	return k;
}

static int find_facts(struct rv_fleet_src *s, struct rv_err *err)
{
	struct rv_prom_result res = { 0 };
	struct fact_list l = { 0 };
	size_t *all = rv_pool_zalloc(&s->pool, s->nnodes, sizeof(*all)), pos = 0;
	char m[QUERY_MAX / 2], q[QUERY_MAX];
	int rc = all ? 0 : -ENOMEM;

	for (size_t i = 0; all && i < s->nnodes; i++)
		all[i] = i;
	while (!rc && pos < s->nnodes) {
		if (node_batch(s, all, s->nnodes, FACT_BATCH, &pos, m, sizeof(m)) ||
		    last_over_range(s, "reveal_fact_info", m, q, sizeof(q))) {
			rc = rv_err_set(err, -ENAMETOOLONG, "selector too long");
			break;
		}
		if ((rc = instant(s, q, &res, err)) == 0 && collect_facts(s, &res, &l))
			rc = -ENOMEM;
		rv_prom_result_fini(&res);
	}
	if (!rc && sort_facts(s, &l))
		rc = -ENOMEM;
	free(l.v);
	return rc == -ENOMEM ? rv_err_set(err, rc, "out of memory") : rc;
}

/* The matchers of sel without blanks around them or braces. */
static int inner_selector(struct rv_fleet_src *s, const char *sel)
{
	size_t len;
	const char *p = sel ? sel : "";

	while (*p == ' ' || *p == '\t')
		p++;
	len = strlen(p);
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	if (len >= 2 && p[0] == '{' && p[len - 1] == '}')
		p++, len -= 2;
	if (!(s->sel = malloc(len + 1)))
		return -ENOMEM;
	memcpy(s->sel, p, len);
	s->sel[len] = '\0';
	return 0;
}

int rv_fleet_src_open(const struct rv_fleet_src_opts *o, struct rv_fleet_src *s,
		      struct rv_err *err)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->o = o;
	if (!(o->since < o->until))
		return rv_err_set(err, -EINVAL, "the range's start is not before its end");
	if (inner_selector(s, o->selector))
		return rv_err_set(err, -ENOMEM, "out of memory");
	s->nconn = o->threads < 1 ? 1 : o->threads > RV_FLEET_THREADS_MAX ? RV_FLEET_THREADS_MAX
									  : o->threads;
	for (unsigned i = 0; i < s->nconn; i++)
		if ((rc = rv_prom_new(&o->http, NULL, &s->conn[i], err)) != 0)
			return rc;
	rv_ns t0 = rv_clock_ns();

	rc = find_nodes(s, err);
	if (!rc && !(rc = find_step(s, err)) && !(rc = find_channels(s, err)))
		rc = find_facts(s, err);
	if (!rc && s->nchan == 0)
		rc = rv_err_set(err, -ENODATA,
				"the %zu nodes sent no reveal_channel_mean{%s} in the range: is "
				"remote_write.channels leaving every channel out?", s->nnodes, s->sel);
	s->read_s += rv_clock_since_s(t0);
	if (rc)
		return rc;
	s->t0 = ceil(o->since / s->step - 1e-9) * s->step;
	s->nwin = o->until + 1e-9 >= s->t0 ? (size_t)floor((o->until - s->t0) / s->step + 1e-9) + 1
					   : 0;
	if (s->nwin == 0)
		return rv_err_set(err, -ENODATA, "the range is shorter than one step (%g s)",
				  s->step);
	return 0;
}

/* ------------------------------------------------------------ values */

struct chunk {
	struct rv_fleet_src *s;
	size_t w0, nw;
	float *vals;
	size_t stride_w, stride_node, chan_at;  /* where (w, node, chan) lands */
	int one_chan;                            /* vals for channel chan_at only */
	struct rv_err errs[RV_FLEET_THREADS_MAX];
	struct rv_prom_stats before[RV_FLEET_THREADS_MAX];
};

/* One channel's query over the chunk's windows into its values. */
static int read_one(struct chunk *c, size_t ch, unsigned slot)
{
	struct rv_fleet_src *s = c->s;
	struct rv_prom_result res = { 0 };
	char m[512], q[QUERY_MAX];
	double start = s->t0 + (double)c->w0 * s->step;
	int rc;

	if (matcher("channel", s->chan[ch], m, sizeof(m)) ||
	    selector(s, "reveal_channel_mean", m, q, sizeof(q)))
		return rv_err_set(&c->errs[slot], -ENAMETOOLONG, "selector too long");
	rc = rv_prom_query_range(s->conn[slot], q, start, start + (double)(c->nw - 1) * s->step,
				 s->step, &res, &c->errs[slot]);
	if (rc)
		return rc;
	for (size_t i = 0; i < res.nseries; i++) {
		const struct rv_prom_series *se = &res.series[i];
		const char *node = rv_prom_label(se, "node");
		long k = node ? rv_fleet_src_node(s, node) : -1;

		for (size_t j = 0; k >= 0 && j < se->npoints; j++) {
			double w = round((se->t[j] - start) / s->step);

			if (w < 0 || w >= (double)c->nw)
				continue;
			c->vals[(size_t)w * c->stride_w + (size_t)k * c->stride_node +
				(c->one_chan ? 0 : ch)] = (float)se->v[j];
		}
	}
	rv_prom_result_fini(&res);
	return 0;
}

static int read_slice(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct chunk *c = ctx;

	for (size_t ch = begin; ch < end; ch++) {
		int rc = read_one(c, c->one_chan ? c->chan_at : ch, slot);

		if (rc)
			return rc;
	}
	return 0;
}

static int run_chunk(struct chunk *c, size_t nitems, struct rv_err *err)
{
	struct rv_fleet_src *s = c->s;
	size_t nvals = c->nw * c->stride_w;
	unsigned threads = nitems < s->nconn ? (unsigned)(nitems ? nitems : 1) : s->nconn;
	int rc;

	for (size_t i = 0; i < nvals; i++)
		c->vals[i] = NAN;
	rv_ns t0 = rv_clock_ns();

	for (unsigned i = 0; i < s->nconn; i++)
		rv_prom_stats(s->conn[i], &c->before[i]);
	rc = rv_parallel_for(nitems, threads, read_slice, c);
	s->read_s += rv_clock_since_s(t0);
	for (unsigned i = 0; i < s->nconn; i++)
		count(s, s->conn[i], &c->before[i]);
	if (rc) {
		for (unsigned i = 0; i < s->nconn; i++)
			if (c->errs[i].code) {
				rv_err_set(err, c->errs[i].code, "%s", c->errs[i].msg);
				break;
			}
	}
	return rc;
}

int rv_fleet_src_read(struct rv_fleet_src *s, size_t w0, size_t nw, float *vals,
		      struct rv_err *err)
{
	struct chunk c = { .s = s, .w0 = w0, .nw = nw, .vals = vals,
			   .stride_w = s->nnodes * s->nchan, .stride_node = s->nchan };

	if (w0 + nw > s->nwin || nw == 0)
		return rv_err_set(err, -EINVAL, "windows %zu..%zu are outside 0..%zu", w0,
				  w0 + nw, s->nwin);
	return run_chunk(&c, s->nchan, err);
}

int rv_fleet_src_read_chan(struct rv_fleet_src *s, size_t chan, size_t w0, size_t nw,
			   float *vals, struct rv_err *err)
{
	struct chunk c = { .s = s, .w0 = w0, .nw = nw, .vals = vals, .stride_w = s->nnodes,
			   .stride_node = 1, .chan_at = chan, .one_chan = 1 };

	if (w0 + nw > s->nwin || nw == 0 || chan >= s->nchan)
		return rv_err_set(err, -EINVAL, "channel %zu, windows %zu..%zu: out of range", chan,
				  w0, w0 + nw);
	return run_chunk(&c, 1, err);
}

void rv_fleet_src_close(struct rv_fleet_src *s)
{
	for (unsigned i = 0; i < s->nconn; i++)
		rv_prom_free(s->conn[i]);
	free(s->sel);
	rv_pool_free(&s->pool);
	memset(s, 0, sizeof(*s));
}
