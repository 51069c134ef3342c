/*
 * serve.h - `reveal fleet --serve`: the fleet analysis run again and again
 * over a sliding range, its findings on an HTTP server for Prometheus to
 * scrape and alert on (deploy/prometheus/reveal-fleet-rules.yml) and for
 * people to read:
 *
 *   /metrics       reveal_fleet_straggler_score{group,node}  persistent
 *                  score at the newest window analysed
 *                  reveal_fleet_straggler{group,node}  1 while the node is
 *                  out of step (a stretch reaching the newest windows)
 *                  reveal_fleet_drift{group,node,fact,value,majority}  1 per
 *                  odd node of a drift finding
 *                  reveal_fleet_nodes{group}, analysis time, counts, errors
 *   /report        the last analysis as the HTML report (report.json,
 *                  report.txt: the other formats)
 *   /healthz       "ok" once an analysis succeeded, 503 before or while the
 *                  last one failed
 *
 * rv_fleet_serve blocks: every `every_s` it analyses [now - lookback_s,
 * now] (rv_fleet_analyse) on the calling thread, keeps the result, and
 * answers requests from the server's thread with the newest one (a mutex
 * guards the swap). A failed analysis keeps the last good result, counts
 * the error, sets reveal_fleet_up 0 and is logged (once until it
 * recovers). Returns when *stop is set (within a second).
 */
#ifndef RV_FLEET_SERVE_H
#define RV_FLEET_SERVE_H

#include <signal.h>

#include "base/err.h"
#include "fleet/fleet.h"

struct rv_fleet_serve_opts {
	struct rv_fleet_opts analysis;     /* since/until are set on each run */
	const char *listen;                /* HOST:PORT */
	double every_s;                    /* between the starts of two analyses */
	double lookback_s;                 /* the range each analysis reads */
	volatile sig_atomic_t *stop;
	/* Called once the server listens, with its port (0 chose one). */
	void (*listening)(void *ctx, int port);
	void *ctx;
};

/* Runs until *stop (above). 0, or a negative errno when the server could
 * not start (err). */
int rv_fleet_serve(const struct rv_fleet_serve_opts *o, struct rv_err *err);

#endif
