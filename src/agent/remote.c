/*
 * remote.c - the agent's remote write (configuration remote_write): every
 * summary interval, one sample per series to a Prometheus remote-write
 * receiver, for `reveal fleet` and dashboards across nodes.
 *
 * Series (each with node, instance and the configured labels):
 *   reveal_channel_mean{channel, subsystem}  mean of the channel's valid
 *                                            values over the interval
 *   reveal_channel_max{channel, subsystem}   their maximum, event channels
 *   reveal_score_max{detector}               highest score of the windows
 *                                            scored in the interval
 *                                            ("fused" and each detector)
 *   reveal_score_threshold{detector="fused"} the fused score's threshold
 *   reveal_windows_flagged                   flagged windows in the interval
 *   reveal_node_incidents_open               open incidents at its end
 *   reveal_node_learning                     1 while learning
 *   reveal_fact_info{fact, value, since}     1 per fact of the host (facts.h,
 *                                            agent/facts.c): since is the unix
 *                                            time this agent first saw that
 *                                            value, so a fact that changed
 *                                            has its newest value first; the
 *                                            old value's series gets a stale
 *                                            marker
 * An interval ends at a multiple of remote_write.interval since the epoch
 * (data time; plus remote_write.time_offset), so every node's samples
 * fall on the same timestamps; a sample covers (end - interval, end].
 * A channel with no valid value in an interval has no sample there.
 *
 * The main thread builds and encodes each request (rwrite.h) and hands it
 * to the sender's queue (send.h), which delivers it on its own thread:
 * a slow or absent receiver never holds up sampling. On a clean stop the
 * open interval is sent, then a stale marker for every series, and the
 * sender gets a few seconds to deliver what it holds.
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "catalog/catalog.h"
#include "collect/facts.h"
#include "detect/detector.h"
#include "remote/rwrite.h"
#include "remote/send.h"

enum {
	RW_LABELS_MAX = RV_CFG_LIST_MAX + 7,   /* configured + name, node, instance, 3 own */
	RW_SINCE_MAX = 24,                     /* a fact's since label: unix seconds */
	RW_FACTS_SLACK = 16,                   /* facts sized for beyond those at start */
	RW_SECRET_MAX = 4096,
	RW_FLUSH_S = 5,                        /* delivery time given at a clean stop */
};

struct agent_rw {
	struct rv_rw *req;
	struct rv_rsend *snd;
	void *body;
	size_t body_cap;
	double interval;                   /* seconds */
	int64_t offset_ms;
	double bucket_end;                 /* data time the open interval ends; 0: none */
	int64_t last_ms;                   /* timestamp of the last interval sent; 0: none */

	/* the channels sent, indices into a->names */
	size_t nsel, *sel;
	uint8_t *event;
	const char **sub;                  /* subsystem names (static strings) */
	double *sum, *max;
	uint32_t *cnt;

	/* windows of the open interval */
	size_t scored, flagged;
	double score_max[RV_DET_MAX + 1];  /* [0] fused, [1 + d] detector d */

	size_t nfacts;                     /* facts a request is sized for */
	struct rv_facts sent;              /* the facts of the last interval sent, */
	double *sent_since;                /* and their since (sent.n of them) */
	struct rv_rw_label base[RW_LABELS_MAX];   /* node, instance, configured */
	size_t nbase;
	char cfg_labels[RV_CFG_LIST_MAX][RV_CFG_ITEM_MAX];
	char secret[2][RW_SECRET_MAX];     /* password, bearer token */
	uint64_t encode_errors;
};

/* ------------------------------------------------------------ set up */

static const char *or_null(const char *s)
{
	return s && s[0] ? s : NULL;
}

static int http_opts(struct agent *a, struct agent_rw *r, struct rv_httpc_opts *h,
		     struct rv_err *err)
{
	const struct rv_cfg_remote_write *c = &a->cfg.remote_write;
	int rc = 0;

	memset(h, 0, sizeof(*h));
	h->url = c->url;
	for (size_t i = 0; i < c->headers.n && i < RV_HTTPC_HEADERS_MAX; i++)
		h->headers[h->nheaders++] = c->headers.item[i];
	if (c->username[0]) {
		h->basic_user = c->username;
		h->basic_password = "";
		if (c->password_file[0] &&
		    !(rc = rv_httpc_read_secret("remote_write.password_file", c->password_file,
						r->secret[0], RW_SECRET_MAX, err)))
			h->basic_password = r->secret[0];
	}
	if (!rc && c->bearer_token_file[0] &&
	    !(rc = rv_httpc_read_secret("remote_write.bearer_token_file", c->bearer_token_file,
					r->secret[1], RW_SECRET_MAX, err)))
		h->bearer_token = r->secret[1];
	h->ca_file = or_null(c->tls_ca_file);
	h->cert_file = or_null(c->tls_cert_file);
	h->key_file = or_null(c->tls_key_file);
	h->insecure = c->tls_insecure;
	h->timeout_s = c->timeout_s;
	return rc;
}

/* node, instance (the node unless configured) and the configured labels. */
static void base_labels(struct agent *a, struct agent_rw *r)
{
	const struct rv_cfg_list *l = &a->cfg.remote_write.labels;
	int instance = 0;

	r->base[r->nbase++] = (struct rv_rw_label){ "node", a->host };
	for (size_t i = 0; i < l->n && i < RV_CFG_LIST_MAX; i++) {
		char *eq;

		memcpy(r->cfg_labels[i], l->item[i], RV_CFG_ITEM_MAX);
		if (!(eq = strchr(r->cfg_labels[i], '=')))
			continue;
		*eq = '\0';
		instance |= !strcmp(r->cfg_labels[i], "instance");
		r->base[r->nbase++] = (struct rv_rw_label){ r->cfg_labels[i], eq + 1 };
	}
	if (!instance)
		r->base[r->nbase++] = (struct rv_rw_label){ "instance", a->host };
}

static int channel_selected(const struct rv_cfg_list *globs, const char *name)
{
	if (globs->n == 0)
		return 1;
	for (size_t i = 0; i < globs->n; i++)
		if (fnmatch(globs->item[i], name, 0) == 0)
			return 1;
	return 0;
}

static void free_channels(struct agent_rw *r)
{
	free(r->sel);
	free(r->event);
	free(r->sub);
	r->sub = NULL;
	free(r->sum);
	free(r->max);
	free(r->cnt);
	r->sel = NULL;
	r->event = NULL;
	r->sum = r->max = NULL;
	r->cnt = NULL;
	r->nsel = 0;
}

static void reset_interval(struct agent_rw *r);

int rv_agent_rw_channels(struct agent *a)
{
	struct agent_rw *r = a->rw;
	size_t n = a->nchan ? a->nchan : 1;

	if (!r)
		return 0;
	free_channels(r);
	r->sel = calloc(n, sizeof(*r->sel));
	r->event = calloc(n, 1);
	r->sub = calloc(n, sizeof(*r->sub));
	r->sum = calloc(n, sizeof(*r->sum));
	r->max = calloc(n, sizeof(*r->max));
	r->cnt = calloc(n, sizeof(*r->cnt));
	if (!r->sel || !r->event || !r->sub || !r->sum || !r->max || !r->cnt)
		return -ENOMEM;
	for (size_t c = 0; c < a->nchan; c++)
		if (channel_selected(&a->cfg.remote_write.channels, a->names[c])) {
			r->event[r->nsel] = rv_catalog_kind_by_name(a->names[c]) == RV_KIND_EVENT;
			r->sub[r->nsel] = rv_subsystem_name(rv_catalog_subsystem(a->names[c]));
			r->sel[r->nsel++] = c;
		}
	reset_interval(r);
	return 0;
}

static int new_request(struct agent_rw *r, size_t nlabels)
{
	size_t series = 2 * r->nsel + 2 * r->nfacts + 2 * RV_DET_MAX + 16;
	struct rv_rw_limits lim = {
		.max_series = series,
		.max_samples = series,
		.max_labels = series * (nlabels + 3),
		.max_label_bytes = series * 512,
	};

	if (lim.max_series > RV_RW_MAX_SERIES)
		lim.max_series = lim.max_samples = RV_RW_MAX_SERIES;
	if (lim.max_labels > RV_RW_MAX_LABELS)
		lim.max_labels = RV_RW_MAX_LABELS;
	if (lim.max_label_bytes > RV_RW_MAX_LABEL_BYTES)
		lim.max_label_bytes = RV_RW_MAX_LABEL_BYTES;
	if (rv_rw_new(&lim, &r->req, NULL) != 0)
		return -ENOMEM;
	r->body_cap = rv_rw_out_max(r->req);
	r->body = malloc(r->body_cap);
	return r->body ? 0 : -ENOMEM;
}

static void rw_free(struct agent_rw *r)
{
	free_channels(r);
	rv_rw_free(r->req);
	free(r->body);
	rv_facts_fini(&r->sent);
	free(r->sent_since);
	memset(r->secret, 0, sizeof(r->secret));
	free(r);
}

int rv_agent_rw_open(struct agent *a, struct rv_err *err)
{
	const struct rv_cfg_remote_write *c = &a->cfg.remote_write;
	struct rv_rsend_opts so = { .queue_bytes = (size_t)c->queue_size_bytes };
	struct agent_rw *r;
	int rc;

	if (!c->url[0])
		return 0;
	if (!(r = calloc(1, sizeof(*r))))
		return rv_err_set(err, -ENOMEM, "remote_write: out of memory");
	r->interval = c->interval_s;
	r->offset_ms = llround(c->time_offset_s * 1e3);
	base_labels(a, r);
	a->rw = r;
	/* room for the facts of now and as many that change before a flush */
	r->nfacts = a->facts.cur.n + RW_FACTS_SLACK;
	rc = rv_agent_rw_channels(a);
	if (!rc)
		rc = new_request(r, r->nbase + 4);
	if (rc == -ENOMEM)
		rv_err_set(err, rc, "remote_write: out of memory");
	if (!rc)
		rc = http_opts(a, r, &so.http, err);
	if (!rc)
		rc = rv_rsend_new(&so, &r->snd, err);
	if (rc) {
		a->rw = NULL;
		rw_free(r);
		return rc;
	}
	rv_info("agent: remote write to %s every %.0f s: %zu of %zu channels, %zu facts", c->url,
		r->interval, r->nsel, a->nchan, a->facts.cur.n);
	return 0;
}

/* ------------------------------------------------------------ one series */

/* Encodes what the request holds and queues it; empties the request. */
static void ship(struct agent_rw *r)
{
	struct rv_err err = { 0 };
	size_t len = 0, ns = rv_rw_nsamples(r->req);

	if (!ns)
		return;
	if (rv_rw_encode(r->req, r->body, r->body_cap, &len, &err) == 0)
		rv_rsend_push(r->snd, r->body, len, ns);
	else if (r->encode_errors++ == 0)
		rv_warn("agent: remote write: %s; %zu samples lost", err.msg, ns);
	rv_rw_reset(r->req);
}

/* One series of name with the base labels, the nextra label pairs extra
 * (at most 3) and one sample, or a stale marker when stale. */
static void add_labels(struct agent_rw *r, const char *name, const struct rv_rw_label *extra,
		       size_t nextra, double v, int64_t ts, int stale)
{
	struct rv_rw_label lab[RW_LABELS_MAX + 1];
	struct rv_rw_sample s = { v, ts };
	struct rv_err err = { 0 };
	size_t n = r->nbase;
	int rc;

	memcpy(lab, r->base, n * sizeof(*lab));
	lab[n++] = (struct rv_rw_label){ RV_RW_METRIC_LABEL, name };
	for (size_t i = 0; i < nextra && i < 3; i++)
		lab[n++] = extra[i];
	for (int tries = 0; tries < 2; tries++) {
		rc = stale ? rv_rw_add_stale(r->req, lab, n, ts, &err)
			   : rv_rw_add(r->req, lab, n, &s, 1, &err);
		if (rc != -E2BIG)
			break;
		ship(r);
	}
	if (rc && r->encode_errors++ == 0)
		rv_warn("agent: remote write: %s; the series is left out", err.msg);
}

/* add_labels with up to two label pairs (NULL names end them). */
static void add(struct agent_rw *r, const char *name, const char *l1, const char *v1,
		const char *l2, const char *v2, double v, int64_t ts, int stale)
{
	struct rv_rw_label extra[2] = { { l1, v1 }, { l2, v2 } };

	add_labels(r, name, extra, !l1 ? 0 : !l2 ? 1 : 2, v, ts, stale);
}

/* One reveal_fact_info series. */
static void fact_series(struct agent_rw *r, const struct rv_fact *f, double since, int64_t ts,
			int stale)
{
	char buf[RW_SINCE_MAX];
	struct rv_rw_label extra[3] = { { "fact", f->key }, { "value", f->value },
					{ "since", buf } };

	snprintf(buf, sizeof(buf), "%.0f", since);
	add_labels(r, "reveal_fact_info", extra, 3, 1.0, ts, stale);
}

static int same_fact(const struct rv_fact *f, double since, const struct rv_facts *l,
		     const double *l_since)
{
	for (size_t i = 0; i < l->n; i++)
		if (l_since[i] == since && !strcmp(l->v[i].key, f->key) &&
		    !strcmp(l->v[i].value, f->value))
			return 1;
	return 0;
}

/*
 * The facts of now (a->facts, read under a->mu), and a stale marker for
 * every series sent before that is not one of them (a value that changed);
 * all of them stale when stale is set. Remembers what it sent.
 */
static void facts_series(struct agent *a, struct agent_rw *r, int64_t ts, int stale)
{
	const struct agent_facts *af = &a->facts;
	size_t n;

	for (size_t i = 0; i < r->sent.n; i++)
		if (stale || !same_fact(&r->sent.v[i], r->sent_since[i], &af->cur, af->since))
			fact_series(r, &r->sent.v[i], r->sent_since[i], ts, 1);
	rv_facts_fini(&r->sent);
	free(r->sent_since);
	r->sent_since = NULL;
	if (stale)
		return;
	n = af->cur.n;
	r->sent_since = malloc((n ? n : 1) * sizeof(*r->sent_since));
	for (size_t i = 0; r->sent_since && i < n; i++) {
		fact_series(r, &af->cur.v[i], af->since[i], ts, 0);
		if (rv_facts_add(&r->sent, af->cur.v[i].key, af->cur.v[i].value) != 0)
			break;
		r->sent_since[r->sent.n - 1] = af->since[i];
	}
}

/* ----------------------------------------------------------- intervals */

static void channel_series(struct agent *a, struct agent_rw *r, int64_t ts, int stale)
{
	for (size_t i = 0; i < r->nsel; i++) {
		const char *name = a->names[r->sel[i]], *sub = r->sub[i];

		if (!stale && !r->cnt[i])
			continue;
		add(r, "reveal_channel_mean", "channel", name, "subsystem", sub,
		    stale ? 0.0 : r->sum[i] / r->cnt[i], ts, stale);
		if (r->event[i])
			add(r, "reveal_channel_max", "channel", name, "subsystem", sub,
			    stale ? 0.0 : r->max[i], ts, stale);
	}
}

static void score_series(struct agent *a, struct agent_rw *r, int64_t ts, int stale)
{
	double thr;
	size_t nopen;
	unsigned enabled;
	int learning;

	pthread_mutex_lock(&a->mu);
	thr = a->fused_threshold;
	nopen = a->nopen;
	enabled = a->det_enabled;
	learning = a->state == AGENT_LEARNING;
	pthread_mutex_unlock(&a->mu);
	if (stale || r->scored) {
		add(r, "reveal_score_max", "detector", "fused", NULL, NULL, r->score_max[0], ts,
		    stale);
		for (int d = 0; d < rv_det_count(); d++)
			if ((enabled >> d) & 1u)
				add(r, "reveal_score_max", "detector", rv_det_name(d), NULL, NULL,
				    r->score_max[1 + d], ts, stale);
		if (isfinite(thr))
			add(r, "reveal_score_threshold", "detector", "fused", NULL, NULL, thr, ts,
			    stale);
		add(r, "reveal_windows_flagged", NULL, NULL, NULL, NULL, (double)r->flagged, ts,
		    stale);
	}
	add(r, "reveal_node_incidents_open", NULL, NULL, NULL, NULL, (double)nopen, ts, stale);
	add(r, "reveal_node_learning", NULL, NULL, NULL, NULL, learning, ts, stale);
	pthread_mutex_lock(&a->mu);
	facts_series(a, r, ts, stale);
	pthread_mutex_unlock(&a->mu);
}

static void reset_interval(struct agent_rw *r)
{
	memset(r->sum, 0, r->nsel * sizeof(*r->sum));
	memset(r->cnt, 0, r->nsel * sizeof(*r->cnt));
	for (size_t i = 0; i < r->nsel; i++)
		r->max[i] = -INFINITY;
	r->scored = r->flagged = 0;
	for (int d = 0; d <= RV_DET_MAX; d++)
		r->score_max[d] = -INFINITY;
}

/* Sends the open interval (ending at r->bucket_end) and empties it. */
static void flush(struct agent *a, struct agent_rw *r)
{
	int64_t ts = llround(r->bucket_end * 1e3) + r->offset_ms;

	if (r->bucket_end > 0 && ts > r->last_ms) {
		channel_series(a, r, ts, 0);
		score_series(a, r, ts, 0);
		ship(r);
		r->last_ms = ts;
	}
	reset_interval(r);
}

void rv_agent_rw_sample(struct agent *a, double ts)
{
	struct agent_rw *r = a->rw;

	if (!r)
		return;
	if (ts > r->bucket_end) {
		flush(a, r);
		r->bucket_end = ceil(ts / r->interval) * r->interval;
	}
	for (size_t i = 0; i < r->nsel; i++) {
		size_t c = r->sel[i];
		double v = a->vals[c];

		if (!a->ok[c] || !isfinite(v))
			continue;
		r->sum[i] += v;
		r->cnt[i]++;
		if (v > r->max[i])
			r->max[i] = v;
	}
}

void rv_agent_rw_window(struct agent *a, double fused, const double *det, int flagged)
{
	struct agent_rw *r = a->rw;

	if (!r)
		return;
	r->scored++;
	r->flagged += flagged != 0;
	if (fused > r->score_max[0] || !isfinite(r->score_max[0]))
		r->score_max[0] = fused;
	for (int d = 0; d < RV_DET_MAX; d++)
		if (isfinite(det[d]) && (det[d] > r->score_max[1 + d] ||
					 !isfinite(r->score_max[1 + d])))
			r->score_max[1 + d] = det[d];
}

void rv_agent_rw_channels_go(struct agent *a)
{
	struct agent_rw *r = a->rw;

	if (!r)
		return;
	flush(a, r);
	r->bucket_end = 0;
	free_channels(r);
}

void rv_agent_rw_close(struct agent *a, int clean)
{
	struct agent_rw *r = a->rw;

	if (!r)
		return;
	if (clean && r->sel) {
		flush(a, r);
		if (r->last_ms) {
			channel_series(a, r, r->last_ms + 1, 1);
			score_series(a, r, r->last_ms + 1, 1);
			ship(r);
		}
	}
	pthread_mutex_lock(&a->mu);   /* /metrics reads a->rw */
	a->rw = NULL;
	pthread_mutex_unlock(&a->mu);
	rv_rsend_free(r->snd, clean ? RW_FLUSH_S : 0);
	rw_free(r);
}

/* The caller holds a->mu. */
int rv_agent_rw_stats(struct agent *a, struct rv_rsend_stats *out)
{
	if (!a->rw)
		return 0;
	rv_rsend_stats(a->rw->snd, out);
	return 1;
}
