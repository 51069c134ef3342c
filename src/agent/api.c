/*
 * api.c - the agent's HTTP side: /metrics (Prometheus text format),
 * /api/v1/status, /api/v1/incidents, /api/v1/facts and the dashboard page
 * at /.
 *
 * Handlers run on libmicrohttpd's thread and read only the agent's shared
 * fields, under its mutex; the page is built outside the lock where it can
 * be (incidents are copied first).
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/log.h"
#include "serve/dashboard.h"
#include "remote/send.h"
#include "serve/promtext.h"

static const char *const sink_label[SINK_COUNT] = { "store", "events", "record", "model" };

static double now_mono(void)
{
	return (double)rv_clock_ns() * 1e-9;
}

/* ------------------------------------------------------------- /metrics */

static void gauge(struct rv_promtext *p, const char *name, const char *help, double v)
{
	rv_prom_family(p, name, "gauge", help);
	rv_prom_sample(p, name, NULL, v);
}

static void counter(struct rv_promtext *p, const char *name, const char *help, double v)
{
	rv_prom_family(p, name, "counter", help);
	rv_prom_sample(p, name, NULL, v);
}

/* The remote write's sender (remote.c, remote/send.h), when it is on. */
static void remote_write_metrics(struct agent *a, struct rv_promtext *p)
{
	struct rv_rsend_stats st;

	if (!rv_agent_rw_stats(a, &st))
		return;
	const struct {
		const char *name, *help;
		int counter;
		double v;
	} rows[] = {
		{ "reveal_remote_write_samples_total", "Samples delivered to the receiver", 1,
		  (double)st.sent_samples },
		{ "reveal_remote_write_requests_total", "Requests delivered to the receiver", 1,
		  (double)st.sent_requests },
		{ "reveal_remote_write_bytes_total", "Bytes delivered (compressed bodies)", 1,
		  (double)st.sent_bytes },
		{ "reveal_remote_write_dropped_samples_total",
		  "Samples dropped because the queue was full (the receiver away too long)", 1,
		  (double)st.dropped_samples },
		{ "reveal_remote_write_rejected_samples_total",
		  "Samples the receiver refused (HTTP 4xx other than 429): not retried", 1,
		  (double)st.rejected_samples },
		{ "reveal_remote_write_retries_total", "Failed attempts that were retried", 1,
		  (double)st.retries },
		{ "reveal_remote_write_queue_requests", "Requests waiting to be delivered", 0,
		  (double)st.queued_requests },
		{ "reveal_remote_write_queue_bytes", "Bytes waiting to be delivered", 0,
		  (double)st.queued_bytes },
		{ "reveal_remote_write_up", "1 when the last attempt delivered, 0 when it failed", 0,
		  st.up > 0 ? 1.0 : 0.0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		(rows[i].counter ? counter : gauge)(p, rows[i].name, rows[i].help, rows[i].v);
	if (st.last_success_wall > 0)
		gauge(p, "reveal_remote_write_last_success_timestamp_seconds",
		      "When a request was last delivered", st.last_success_wall);
}

void rv_agent_metrics_detectors(const struct agent *a, struct rv_promtext *p)
{
	rv_prom_family(p, "reveal_detector_score", "gauge",
		       "Each detector's score of the last window");
	for (int d = 0; d < rv_det_count(); d++)
		if ((a->det_enabled >> d) & 1u) {
			const char *l[] = { "detector", rv_det_name(d), NULL };
			rv_prom_sample(p, "reveal_detector_score", l, a->det_score[d]);
		}
	rv_prom_family(p, "reveal_detector_threshold", "gauge",
		       "Each detector's threshold (a score above it fires)");
	for (int d = 0; d < rv_det_count(); d++)
		if ((a->det_enabled >> d) & 1u) {
			const char *l[] = { "detector", rv_det_name(d), NULL };
			rv_prom_sample(p, "reveal_detector_threshold", l, a->det_threshold[d]);
		}
}

static void metrics_page(struct agent *a, struct rv_promtext *p)
{
	const char *lab[5] = { NULL };
	char ver[32];

	snprintf(ver, sizeof(ver), "%s", REVEAL_VERSION);
	rv_prom_family(p, "reveal_build_info", "gauge", "reveal's version (value 1)");
	lab[0] = "version";
	lab[1] = ver;
	lab[2] = "host";
	lab[3] = a->host;
	lab[4] = NULL;
	rv_prom_sample(p, "reveal_build_info", lab, 1.0);
	gauge(p, "reveal_uptime_seconds", "Seconds since the agent started",
	      now_mono() - a->started_mono);
	counter(p, "reveal_cpu_seconds_total", "CPU time used by the agent (user + system)",
		a->cpu_s);
	gauge(p, "reveal_channels", "Channels collected", (double)a->nchan);
	gauge(p, "reveal_interval_seconds", "Sampling interval", a->interval_s);
	counter(p, "reveal_samples_total", "Samples taken", (double)a->samples);
	counter(p, "reveal_samples_missed_total",
		"Sampling deadlines missed (the sweep ran late; samples dropped, never made up)",
		(double)a->missed);
	rv_prom_family(p, "reveal_source_channels", "gauge", "Channels per source");
	for (size_t i = 0; i < a->nsrc; i++) {
		const char *l[] = { "source", a->src[i].name, NULL };
		rv_prom_sample(p, "reveal_source_channels", l, (double)a->src[i].nchan);
	}
	rv_prom_family(p, "reveal_source_collect_seconds", "gauge",
		       "Time the last sweep spent reading each source");
	for (size_t i = 0; i < a->nsrc; i++) {
		const char *l[] = { "source", a->src[i].name, NULL };
		rv_prom_sample(p, "reveal_source_collect_seconds", l, a->src[i].last_s);
	}
	rv_prom_family(p, "reveal_source_collect_seconds_total", "counter",
		       "Time spent reading each source since the start");
	for (size_t i = 0; i < a->nsrc; i++) {
		const char *l[] = { "source", a->src[i].name, NULL };
		rv_prom_sample(p, "reveal_source_collect_seconds_total", l, a->src[i].total_s);
	}
	gauge(p, "reveal_learning", "1 while the agent learns the host's normal behaviour",
	      a->state == AGENT_LEARNING ? 1.0 : 0.0);
	gauge(p, "reveal_learning_progress_ratio", "Share of the learning period done",
	      a->learn_progress);
	counter(p, "reveal_model_fits_total", "Models fitted (learning and refits)",
		(double)a->fits);
	if (a->state == AGENT_DETECTING) {
		gauge(p, "reveal_model_fitted_timestamp_seconds", "When the model in use was fitted",
		      a->model_fitted_at);
		gauge(p, "reveal_model_train_windows", "Windows the model in use was fitted on",
		      (double)a->model_train_windows);
		rv_agent_metrics_detectors(a, p);
		gauge(p, "reveal_fused_score",
		      "Fused score of the last window (the detectors' score/threshold ratios combined)",
		      a->last_fused);
		gauge(p, "reveal_fused_threshold", "A fused score above this flags the window",
		      a->fused_threshold);
		gauge(p, "reveal_novelty_score",
		      "Novelty of the last window: how many margins its most novel event count "
		      "went past the largest of learning (above 1 flags the window; 0 when none)",
		      a->last_novelty);
		gauge(p, "reveal_level_score",
		      "Level score of the last window: how many margins its level furthest out of "
		      "its learned range lies beyond it (above 1 flags the window; 0 when none)",
		      a->last_level);
		gauge(p, "reveal_anomaly", "1 when the last window was flagged", a->last_anomaly);
		gauge(p, "reveal_window_score_seconds", "Time scoring the last window took",
		      a->last_score_s);
	}
	counter(p, "reveal_windows_scored_total", "Windows scored", (double)a->windows_scored);
	gauge(p, "reveal_facts", "Facts of the host the agent knows (collect.facts_interval)",
	      (double)a->facts.cur.n);
	counter(p, "reveal_fact_changes_total",
		"Facts that changed, appeared or went since the start (/api/v1/facts lists the last)",
		(double)a->facts.changes);
	counter(p, "reveal_windows_flagged_total", "Windows flagged", (double)a->windows_flagged);
	counter(p, "reveal_incident_blips_total",
		"Flagged stretches too short or too weak to report as incidents "
		"(detect.incident_min, report_severity, minor_min, sustained_min, burst_min)",
		(double)a->blips);
	rv_prom_family(p, "reveal_incidents_open", "gauge", "Open incidents by subsystem");
	for (int s = 0; s < RV_SUB_COUNT; s++) {
		const char *l[] = { "subsystem", rv_subsystem_name((enum rv_subsystem)s), NULL };
		size_t open = 0;

		for (size_t i = 0; i < a->nopen; i++)
			open += strcmp(a->open[i].inc.subsystem,
				       rv_subsystem_name((enum rv_subsystem)s)) == 0;
		rv_prom_sample(p, "reveal_incidents_open", l, (double)open);
	}
	rv_prom_family(p, "reveal_incidents_total", "counter",
		       "Incidents opened since the start, by subsystem");
	for (int s = 0; s < RV_SUB_COUNT; s++) {
		const char *l[] = { "subsystem", rv_subsystem_name((enum rv_subsystem)s), NULL };
		rv_prom_sample(p, "reveal_incidents_total", l, (double)a->incidents_total[s]);
	}
	rv_prom_family(p, "reveal_sink_errors_total", "counter",
		       "Failed writes per sink (store, events, record, model)");
	for (int s = 0; s < SINK_COUNT; s++) {
		const char *l[] = { "sink", sink_label[s], NULL };
		rv_prom_sample(p, "reveal_sink_errors_total", l, (double)a->sink_errors[s]);
	}
	remote_write_metrics((struct agent *)a, p);
	rv_agent_whose_metrics((struct agent *)a, p);
	rv_agent_actions_metrics((struct agent *)a, p);
	if (a->cfg.http.raw_channels) {
		rv_prom_family(p, "reveal_channel_value", "gauge",
			       "Last value of each channel (gauges as read, counters as rates per "
			       "second); absent when the last sample had none");
		for (size_t c = 0; c < a->nchan; c++)
			if (a->shown_ok[c]) {
				const char *l[] = { "channel", a->names[c], NULL };
				rv_prom_sample(p, "reveal_channel_value", l, a->shown[c]);
			}
	}
}

static int h_metrics(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	struct agent *a = ctx;
	struct rv_promtext p;
	const char *text;
	size_t len;
	int rc;

	(void)req;
	rv_prom_init(&p);
	pthread_mutex_lock(&a->mu);
	metrics_page(a, &p);
	pthread_mutex_unlock(&a->mu);
	if (rv_prom_failed(&p)) {
		rv_prom_fini(&p);
		return -ENOMEM;
	}
	text = rv_prom_text(&p, &len);
	resp->status = 200;
	resp->content_type = RV_PROM_CONTENT_TYPE;
	rc = rv_http_resp_body(resp, text, len);
	rv_prom_fini(&p);
	return rc;
}

/* ---------------------------------------------------------- /api/v1 */

/* Sends b's JSON (b is left empty, its text freed or handed over). */
static int send_buf(struct rv_http_resp *resp, struct rv_buf *b)
{
	size_t len;
	char *buf = rv_buf_take(b, &len);

	if (!buf)
		return -ENOMEM;
	resp->status = 200;
	resp->content_type = "application/json";
	rv_http_resp_take(resp, buf, len);
	return 0;
}

static int h_status(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	struct agent *a = ctx;
	struct rv_buf b;

	(void)req;
	rv_buf_init(&b, 0);
	pthread_mutex_lock(&a->mu);
	rv_buf_printf(&b, "{\"host\":");
	rv_json_buf_str(&b, a->host);
	rv_buf_printf(&b, ",\"version\":");
	rv_json_buf_str(&b, REVEAL_VERSION);
	rv_buf_printf(&b, ",\"state\":\"%s\",\"learn_progress\":",
		     a->state == AGENT_LEARNING ? "learning" : "detecting");
	rv_json_buf_num(&b, a->learn_progress);
	rv_buf_printf(&b, ",\"learn_remaining_s\":");
	rv_json_buf_num(&b, a->learn_remaining_s);
	rv_buf_printf(&b, ",\"uptime_s\":");
	rv_json_buf_num(&b, now_mono() - a->started_mono);
	rv_buf_printf(&b, ",\"interval_s\":");
	rv_json_buf_num(&b, a->interval_s);
	rv_buf_printf(&b, ",\"channels\":%zu,\"samples\":%llu,\"samples_missed\":%llu", a->nchan,
		     (unsigned long long)a->samples, (unsigned long long)a->missed);
	rv_buf_printf(&b, ",\"windows_scored\":%llu,\"windows_flagged\":%llu",
		     (unsigned long long)a->windows_scored, (unsigned long long)a->windows_flagged);
	rv_buf_printf(&b, ",\"fused_score\":");
	rv_json_buf_num(&b, a->state == AGENT_DETECTING && a->windows_scored ? a->last_fused : NAN);
	rv_buf_printf(&b, ",\"fused_threshold\":");
	rv_json_buf_num(&b, a->state == AGENT_DETECTING ? a->fused_threshold : NAN);
	rv_buf_printf(&b, ",\"anomaly\":%s,\"judging\":%s,\"detectors\":[",
		     a->last_anomaly ? "true" : "false",
		     a->state == AGENT_DETECTING && a->judging ? "true" : "false");
	for (int d = 0, k = 0; a->state == AGENT_DETECTING && d < rv_det_count(); d++) {
		if (!((a->det_enabled >> d) & 1u))
			continue;
		rv_buf_printf(&b, "%s{\"name\":", k++ ? "," : "");
		rv_json_buf_str(&b, rv_det_name(d));
		rv_buf_printf(&b, ",\"score\":");
		rv_json_buf_num(&b, a->windows_scored ? a->det_score[d] : NAN);
		rv_buf_printf(&b, ",\"threshold\":");
		rv_json_buf_num(&b, a->det_threshold[d]);
		rv_buf_printf(&b, ",\"fired\":%s}", a->det_fired[d] ? "true" : "false");
	}
	rv_buf_printf(&b, "],\"model\":");
	if (a->state == AGENT_DETECTING) {
		rv_buf_printf(&b, "{\"fitted_at\":");
		rv_json_buf_num(&b, a->model_fitted_at);
		rv_buf_printf(&b, ",\"fit_s\":");
		rv_json_buf_num(&b, a->model_fit_s);
		rv_buf_printf(&b, ",\"train_windows\":%zu,\"features\":%zu,\"fits\":%llu}",
			     a->model_train_windows, a->model_features, (unsigned long long)a->fits);
	} else {
		rv_buf_printf(&b, "null");
	}
	{
		unsigned long long total = 0;
		for (int s = 0; s < RV_SUB_COUNT; s++)
			total += a->incidents_total[s];
		rv_buf_printf(&b, ",\"open_incidents\":%zu,\"incidents_total\":%llu", a->nopen,
			     total);
	}
	rv_buf_printf(&b, ",\"sink_errors\":{");
	for (int s = 0; s < SINK_COUNT; s++)
		rv_buf_printf(&b, "%s\"%s\":%llu", s ? "," : "", sink_label[s],
			     (unsigned long long)a->sink_errors[s]);
	rv_buf_printf(&b, "},\"sources\":[");
	for (size_t i = 0; i < a->nsrc; i++) {
		rv_buf_printf(&b, "%s{\"name\":", i ? "," : "");
		rv_json_buf_str(&b, a->src[i].name);
		rv_buf_printf(&b, ",\"channels\":%zu,\"last_us\":", a->src[i].nchan);
		rv_json_buf_num(&b, a->src[i].last_s * 1e6);
		rv_buf_printf(&b, "}");
	}
	rv_buf_printf(&b, "],\"unavailable\":[");
	for (size_t i = 0; a->coll && i < rv_collector_nunavail(a->coll); i++) {
		rv_buf_printf(&b, "%s{\"source\":", i ? "," : "");
		rv_json_buf_str(&b, rv_collector_unavail_source(a->coll, i));
		rv_buf_printf(&b, ",\"reason\":");
		rv_json_buf_str(&b, rv_collector_unavail_reason(a->coll, i));
		rv_buf_printf(&b, "}");
	}
	rv_buf_printf(&b, "]}\n");
	pthread_mutex_unlock(&a->mu);
	return send_buf(resp, &b);
}

/*
 * Incidents: the open ones, then the closed ones, newest first. From the
 * store when there is one (everything it keeps, `limit` at most, default
 * 100), else from the last AGENT_RECENT_MAX kept in memory.
 */
struct list_ctx {
	struct rv_buf *b;
	struct agent *a;
	struct rv_store *st;                      /* the store being listed, or NULL */
	size_t n;
	uint64_t skip_id[RV_INCMERGE_OPEN_MAX];   /* the open ones, listed first */
	size_t nskip;
};

static int list_one(void *ctx, const struct rv_store_incident *in)
{
	struct list_ctx *l = ctx;
	struct rv_store_consumer cons[RV_STORE_CONS_MAX];
	size_t ncons;

	for (size_t i = 0; i < l->nskip; i++)
		if (in->id == l->skip_id[i])
			return 0;
	ncons = rv_agent_whose_get(l->a, in->id, cons, RV_STORE_CONS_MAX);
	if (!ncons && l->st) {
		struct rv_err err = { 0 };

		if (rv_store_get_consumers(l->st, in->id, cons, RV_STORE_CONS_MAX, &ncons, &err))
			ncons = 0;
	}
	rv_buf_printf(l->b, "%s", l->n++ ? ",\n" : "\n");
	rv_agent_incident_json(l->b, in, cons, ncons);
	return 0;
}

static int h_incidents(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	struct agent *a = ctx;
	const char *q = rv_http_query(req, "limit");
	size_t limit = 100;
	struct rv_store_incident open[RV_INCMERGE_OPEN_MAX], *recent = NULL;
	size_t nrecent = 0, nopen;
	int rc = 0;
	struct rv_buf b;
	struct list_ctx l = { .b = &b, .a = a };

	if (q) {
		char *end;
		unsigned long v = strtoul(q, &end, 10);

		if (*q == '\0' || *end != '\0' || v == 0 || v > 100000) {
			resp->status = 400;
			resp->content_type = "text/plain; charset=utf-8";
			return rv_http_resp_text(resp, "limit: want 1 to 100000\n");
		}
		limit = v;
	}
	recent = calloc(AGENT_RECENT_MAX, sizeof(*recent));
	if (!recent)
		return -ENOMEM;
	pthread_mutex_lock(&a->mu);
	nopen = a->nopen;
	for (size_t i = 0; i < nopen; i++)
		open[i] = a->open[i].inc;
	for (size_t i = 0; i < a->nrecent; i++)
		recent[nrecent++] =
			a->recent[(a->recent_next + AGENT_RECENT_MAX - 1 - i) % AGENT_RECENT_MAX];
	pthread_mutex_unlock(&a->mu);

	rv_buf_init(&b, 0);
	rv_buf_printf(&b, "{\"incidents\":[");
	/* the open ones, newest first */
	for (size_t i = nopen; i-- > 0;) {
		list_one(&l, &open[i]);
		l.skip_id[l.nskip++] = open[i].id;
	}
	if (a->cfg.store.path[0]) {
		/* a connection of this thread's own: the agent's is not shared */
		struct rv_store *st = NULL;
		struct rv_err err = { 0 };

		rc = rv_store_open(a->cfg.store.path, &st, &err);
		l.st = st;
		if (!rc)
			rc = rv_store_list_incidents(st, -INFINITY, limit, list_one, &l, &err);
		l.st = NULL;
		rv_store_close(st);
		if (rc)
			rv_warn("agent: /api/v1/incidents: %s", rv_err_text(&err, rc));
	}
	if (!a->cfg.store.path[0] || rc)
		for (size_t i = 0; i < nrecent && l.n < limit; i++)
			list_one(&l, &recent[i]);
	rv_buf_printf(&b, "\n]}\n");
	free(recent);
	return send_buf(resp, &b);
}

/* /api/v1/facts: the host's facts with the time each value was first
 * seen, and the last changes, newest first. */
static int h_facts(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	struct agent *a = ctx;
	const struct agent_facts *af = &a->facts;
	struct rv_buf b;

	(void)req;
	rv_buf_init(&b, 0);
	pthread_mutex_lock(&a->mu);
	rv_buf_printf(&b, "{\"facts\":[");
	for (size_t i = 0; i < af->cur.n; i++) {
		rv_buf_printf(&b, "%s{\"fact\":", i ? "," : "");
		rv_json_buf_str(&b, af->cur.v[i].key);
		rv_buf_printf(&b, ",\"value\":");
		rv_json_buf_str(&b, af->cur.v[i].value);
		rv_buf_printf(&b, ",\"since\":");
		rv_json_buf_num(&b, af->since[i]);
		rv_buf_printf(&b, "}");
	}
	rv_buf_printf(&b, "],\"changes\":[");
	for (size_t i = 0; i < af->nrecent; i++) {
		const struct agent_fact_change *c =
			&af->recent[(af->recent_next + AGENT_FACT_CHANGES - 1 - i) % AGENT_FACT_CHANGES];

		rv_buf_printf(&b, "%s{\"fact\":", i ? "," : "");
		rv_json_buf_str(&b, c->key);
		rv_buf_printf(&b, ",\"from\":");
		if (c->from[0])
			rv_json_buf_str(&b, c->from);
		else
			rv_buf_printf(&b, "null");
		rv_buf_printf(&b, ",\"to\":");
		if (c->to[0])
			rv_json_buf_str(&b, c->to);
		else
			rv_buf_printf(&b, "null");
		rv_buf_printf(&b, ",\"time\":");
		rv_json_buf_num(&b, c->ts);
		rv_buf_printf(&b, "}");
	}
	rv_buf_printf(&b, "],\"changes_total\":%llu}\n", (unsigned long long)af->changes);
	pthread_mutex_unlock(&a->mu);
	return send_buf(resp, &b);
}

static int h_dashboard(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	(void)ctx;
	(void)req;
	resp->status = 200;
	resp->content_type = "text/html; charset=utf-8";
	return rv_http_resp_text(resp, rv_dashboard_html);
}

int rv_agent_http_start(struct agent *a, struct rv_err *err)
{
	const struct rv_http_route routes[] = {
		{ "/metrics", h_metrics, a },
		{ "/api/v1/status", h_status, a },
		{ "/api/v1/incidents", h_incidents, a },
		{ "/api/v1/facts", h_facts, a },
		{ "/", h_dashboard, a },
	};
	struct rv_http_limits lim = { .max_connections = a->cfg.http.max_connections,
				      .per_client = a->cfg.http.per_client_connections,
				      .timeout_s = (unsigned)a->cfg.http.idle_timeout_s,
				      .threads = 1 };
	int rc;

	if (!a->cfg.http.listen[0])
		return 0;
	rc = rv_http_start(a->cfg.http.listen, routes, sizeof(routes) / sizeof(routes[0]), &lim,
			   &a->http, err);
	if (!rc)
		rv_info("agent: serving http://%s/ (metrics at /metrics)", a->cfg.http.listen);
	return rc;
}

void rv_agent_http_stop(struct agent *a)
{
	rv_http_stop(a->http);
	a->http = NULL;
}
