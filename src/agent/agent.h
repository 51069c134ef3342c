/*
 * agent.h - `reveal agent`: the whole pipeline, live, on this host.
 *
 *   collector (or a recording, --replay) -> ring of samples -> one window
 *   per step -> features -> detectors -> fusion -> incident merger ->
 *   sinks (SQLite store, JSON lines, log) and the HTTP side (/metrics,
 *   /api/v1/status, /api/v1/incidents, the dashboard page).
 *
 * The window scoring is pipeline/live.h, the same chain `reveal detect`
 * runs over files. Learning: samples are collected for cfg->learn_s, then
 * a model is fitted (in a background thread live, inline during a replay)
 * and saved as STATE_DIR/reveal.model; a restart with the same channels
 * loads it and needs no learning. Refits every cfg->refit_s run on the
 * normal rows of the bounded history (at most cfg->reservoir_s of it) in
 * the background, while the old model keeps scoring.
 *
 * Library code: nothing here prints to stdout except incident events when
 * cfg->events.path is "-" (on the stream the caller passes). Diagnostics go
 * through rv_log.
 */
#ifndef RV_AGENT_AGENT_H
#define RV_AGENT_AGENT_H

#include <signal.h>
#include <stdio.h>

#include "base/err.h"
#include "config/config.h"

struct rv_agent_opts {
	const struct rv_config *cfg;   /* checked (rv_config_check) */
	const char *config_path;       /* reloaded on SIGHUP; NULL: none */
	/* Flags given as keys (rv_config_set), applied again over the file
	 * at every reload, as they were at start. */
	const char *const *set_keys, *const *set_vals;
	size_t nset;
	const char *replay;            /* a .rvl recording to replay instead of the host */
	double speed;                  /* replay speed: 1 real time, 0 as fast as possible */
	FILE *out;                     /* the stream for events path "-" (stdout) */
	/* Called about once a second while learning (share done 0..1, seconds
	 * left) and once with final set when learning ends or the agent stops;
	 * NULL: none. The CLI draws a progress line on a terminal. */
	void (*progress)(void *ctx, double done, double remaining_s, int final);
	void *progress_ctx;
	/* Set from signal handlers: stop cleanly; reload the config file. */
	volatile sig_atomic_t *stop, *reload;
};

/*
 * Runs until *stop is set (or a replay ends). Returns 0 after a clean stop,
 * -EINVAL for bad input (a replay file, learn 0 without a model, a metric
 * set that cannot be read, is malformed or keeps no channel here), or
 * another negative errno when it cannot start (address in use, state
 * directory not writable, ...), with err saying what.
 */
int rv_agent_run(const struct rv_agent_opts *o, struct rv_err *err);

#endif
