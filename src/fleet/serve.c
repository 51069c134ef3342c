/*
 * serve.c - `reveal fleet --serve` (serve.h).
 */
#include "fleet/serve.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "serve/http.h"
#include "serve/promtext.h"

struct fserve {
	pthread_mutex_t mu;
	struct rv_fleet_result *last;      /* the newest good result; NULL none */
	uint64_t runs, errors;
	double last_s, last_ok_wall;
	int up;                            /* the last analysis succeeded */
};

/* ------------------------------------------------------------- /metrics */

static void gauge(struct rv_promtext *p, const char *name, const char *help, double v)
{
	rv_prom_family(p, name, "gauge", help);
	rv_prom_sample(p, name, NULL, v);
}

/* Whether the node is out of step now: its last stretch is still open at
 * the newest window its group had data for (a storage that hides its
 * newest samples, as VictoriaMetrics does for 30 s, leaves the windows
 * after it empty: they are not analysed). */
static int out_now(const struct rv_fleet_straggler *s)
{
	return s->nstretch && s->stretch[s->nstretch - 1].open;
}

static void straggler_metrics(struct rv_promtext *p, const struct rv_fleet_result *r)
{
	rv_prom_family(p, "reveal_fleet_straggler_score", "gauge",
		       "Persistent straggler score of each node at the newest window analysed "
		       "(how far it sits from its group's peers)");
	for (size_t g = 0; g < r->ngroup; g++) {
		const struct rv_fleet_group *gr = &r->group[g];

		for (size_t n = 0; gr->score && n < gr->nnodes; n++) {
			const char *l[] = { "group", gr->name, "node", gr->node[n], NULL };
			double v = NAN;

			for (size_t w = r->nwin; w-- > 0 && !isfinite(v);)
				v = gr->score[n * r->nwin + w];
			if (isfinite(v))
				rv_prom_sample(p, "reveal_fleet_straggler_score", l, v);
		}
	}
	rv_prom_family(p, "reveal_fleet_straggler", "gauge",
		       "1 while the node is out of step with its group (a straggler now)");
	for (size_t i = 0; i < r->nstrag; i++) {
		const struct rv_fleet_straggler *s = &r->strag[i];
		const char *l[] = { "group", s->group, "node", s->node, NULL };

		rv_prom_sample(p, "reveal_fleet_straggler", l, out_now(s));
	}
}

static void drift_metrics(struct rv_promtext *p, const struct rv_fleet_result *r)
{
	rv_prom_family(p, "reveal_fleet_drift", "gauge",
		       "1 per node whose static fact differs from its group's majority "
		       "(majority \"\" when no value has one)");
	for (size_t i = 0; i < r->ndrift; i++) {
		const struct rv_fleet_drift *d = &r->drift[i];

		for (size_t k = 0; k < d->nodd; k++) {
			const char *l[] = { "group", d->group, "node", d->odd[k].node, "fact", d->key,
					    "value", d->odd[k].value, "majority",
					    d->majority ? d->majority : "", NULL };

			rv_prom_sample(p, "reveal_fleet_drift", l, 1.0);
		}
	}
	rv_prom_family(p, "reveal_fleet_nodes", "gauge", "Nodes of each group in the range");
	for (size_t g = 0; g < r->ngroup; g++) {
		const char *l[] = { "group", r->group[g].name, NULL };

		rv_prom_sample(p, "reveal_fleet_nodes", l, (double)r->group[g].nnodes);
	}
}

static void run_metrics(struct rv_promtext *p, const struct fserve *s)
{
	gauge(p, "reveal_fleet_up", "1 when the last analysis succeeded", s->up);
	rv_prom_family(p, "reveal_fleet_analyses_total", "counter", "Analyses run");
	rv_prom_sample(p, "reveal_fleet_analyses_total", NULL, (double)s->runs);
	rv_prom_family(p, "reveal_fleet_analysis_errors_total", "counter",
		       "Analyses that failed (storage unreachable, bad answer)");
	rv_prom_sample(p, "reveal_fleet_analysis_errors_total", NULL, (double)s->errors);
	gauge(p, "reveal_fleet_analysis_seconds", "Time the last analysis took (read and analyse)",
	      s->last_s);
	if (s->last_ok_wall > 0)
		gauge(p, "reveal_fleet_last_success_timestamp_seconds",
		      "When an analysis last succeeded", s->last_ok_wall);
	if (s->last) {
		gauge(p, "reveal_fleet_read_bytes", "Bytes of API answers the last analysis read",
		      (double)s->last->bytes);
		gauge(p, "reveal_fleet_channels", "Channels compared in the last analysis",
		      (double)s->last->nchan);
	}
}

static int h_metrics(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	struct fserve *s = ctx;
	struct rv_promtext p;
	size_t len;
	int rc = 0;

	(void)req;
	rv_prom_init(&p);
	pthread_mutex_lock(&s->mu);
	run_metrics(&p, s);
	if (s->last) {
		straggler_metrics(&p, s->last);
		drift_metrics(&p, s->last);
	}
	pthread_mutex_unlock(&s->mu);
	if (rv_prom_failed(&p)) {
		resp->status = 500;
		rc = rv_http_resp_text(resp, "out of memory\n");
	} else {
		const char *text = rv_prom_text(&p, &len);

		resp->content_type = RV_PROM_CONTENT_TYPE;
		rc = rv_http_resp_body(resp, text, len);
	}
	rv_prom_fini(&p);
	return rc;
}

/* ------------------------------------------------------------- /report */

static int report(struct fserve *s, struct rv_http_resp *resp, enum rv_fleet_format fmt,
		  const char *type)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc = 0;

	pthread_mutex_lock(&s->mu);
	if (!s->last) {
		pthread_mutex_unlock(&s->mu);
		resp->status = 503;
		return rv_http_resp_text(resp, "no analysis has succeeded yet\n");
	}
	if ((f = open_memstream(&buf, &len)) != NULL) {
		rc = rv_fleet_report(f, s->last, fmt);
		rc = fclose(f) ? -EIO : rc;
	}
	pthread_mutex_unlock(&s->mu);
	if (!f || rc) {
		free(buf);
		resp->status = 500;
		return rv_http_resp_text(resp, "the report could not be written\n");
	}
	resp->content_type = type;
	rv_http_resp_take(resp, buf, len);
	return 0;
}

static int h_report_html(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	(void)req;
	return report(ctx, resp, RV_FLEET_HTML, "text/html; charset=utf-8");
}

static int h_report_json(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	(void)req;
	return report(ctx, resp, RV_FLEET_JSON, "application/json");
}

static int h_report_text(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	(void)req;
	return report(ctx, resp, RV_FLEET_TEXT, "text/plain; charset=utf-8");
}

static int h_health(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	struct fserve *s = ctx;
	int up;

	(void)req;
	pthread_mutex_lock(&s->mu);
	up = s->up;
	pthread_mutex_unlock(&s->mu);
	resp->status = up ? 200 : 503;
	return rv_http_resp_text(resp, up ? "ok\n" : "no good analysis\n");
}

/* -------------------------------------------------------------- the loop */

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void analyse_once(const struct rv_fleet_serve_opts *o, struct fserve *s)
{
	struct rv_fleet_opts fo = o->analysis;
	struct rv_fleet_result *res = NULL, *old = NULL;
	struct rv_err err = { 0 };
	rv_ns t0 = rv_clock_ns();
	double now = wall_s();
	int rc;

	fo.src.until = now;
	fo.src.since = now - o->lookback_s;
	rc = rv_fleet_analyse(&fo, &res, &err);
	pthread_mutex_lock(&s->mu);
	s->runs++;
	s->last_s = rv_clock_since_s(t0);
	if (rc == 0) {
		if (!s->up && s->errors)
			rv_info("fleet: analyses succeed again");
		old = s->last;
		s->last = res;
		s->up = 1;
		s->last_ok_wall = now;
	} else {
		if (s->up || !s->errors)
			rv_warn("fleet: analysis failed: %s; serving the last good one",
				rv_err_text(&err, rc));
		s->errors++;
		s->up = 0;
	}
	pthread_mutex_unlock(&s->mu);
	rv_fleet_result_free(old);
}

int rv_fleet_serve(const struct rv_fleet_serve_opts *o, struct rv_err *err)
{
	struct fserve s = { .up = 0 };
	const struct rv_http_route routes[] = {
		{ "/metrics", h_metrics, &s },       { "/report", h_report_html, &s },
		{ "/report.json", h_report_json, &s }, { "/report.txt", h_report_text, &s },
		{ "/healthz", h_health, &s },
	};
	struct rv_http *http = NULL;
	int rc;

	pthread_mutex_init(&s.mu, NULL);
	rc = rv_http_start(o->listen, routes, sizeof(routes) / sizeof(routes[0]), NULL, &http, err);
	if (rc) {
		pthread_mutex_destroy(&s.mu);
		return rc;
	}
	if (o->listening)
		o->listening(o->ctx, rv_http_port(http));
	while (!*o->stop) {
		rv_ns next = rv_clock_ns() + (rv_ns)(o->every_s * 1e9);

		analyse_once(o, &s);
		while (!*o->stop && rv_clock_ns() < next) {
			struct timespec nap = { 0, 100 * 1000 * 1000 };

			nanosleep(&nap, NULL);
		}
	}
	rv_http_stop(http);
	rv_fleet_result_free(s.last);
	pthread_mutex_destroy(&s.mu);
	return 0;
}
