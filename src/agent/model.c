/*
 * model.c - the agent's models: loading the saved one, fitting on the
 * history (in a thread live, inline in a replay), installing a fit for
 * scoring and saving it. See agent.h for when each happens.
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/rng.h"

void rv_agent_drop_model(struct agent *a)
{
	rv_live_free(a->live);
	a->live = NULL;
	rv_model_free(a->model);
	a->model = NULL;
	free(a->wrows);
	a->wrows = NULL;
}

static int model_matches(const struct agent *a, const struct rv_model *m)
{
	if (m->nchan != a->nchan)
		return 0;
	for (size_t c = 0; c < m->nchan; c++)
		if (strcmp(m->names[c], a->names[c]) != 0)
			return 0;
	return 1;
}

static void publish_model(struct agent *a, double fitted_at, double fit_s)
{
	const struct rv_ens_config *ec = rv_ens_config(a->model->ens);

	pthread_mutex_lock(&a->mu);
	a->state = AGENT_DETECTING;
	a->learn_progress = 1.0;
	a->learn_remaining_s = 0.0;
	a->model_fitted_at = fitted_at;
	a->model_fit_s = fit_s;
	a->model_features = 0;
	for (size_t c = 0; c < a->model->nchan; c++)
		a->model_features += (size_t)__builtin_popcount(a->model->masks[c]);
	a->model_train_windows = a->model->train_windows;
	a->det_enabled = ec->enabled;
	for (int d = 0; d < RV_DET_MAX; d++)
		a->det_threshold[d] = rv_ens_threshold(a->model->ens, d);
	a->fused_threshold = 1.0;
	pthread_mutex_unlock(&a->mu);
}

/* Makes m the scoring model (taking it). */
static int install_model(struct agent *a, struct rv_model *m, double fitted_at, double fit_s)
{
	struct rv_live *l;
	const float **rows = calloc(m->window, sizeof(*rows));

	if (!rows || rv_live_new(m, &l) != 0) {
		free(rows);
		rv_model_free(m);
		return -ENOMEM;
	}
	rv_agent_drop_model(a);
	a->model = m;
	a->live = l;
	a->wrows = rows;
	publish_model(a, fitted_at, fit_s);
	return 0;
}

/* The saved model, when it was fitted on these channels. */
void rv_agent_try_load_model(struct agent *a)
{
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };
	int rc;

	if (access(a->model_path, F_OK) != 0)
		return;
	rc = rv_model_load(a->model_path, &m, &err);
	if (rc) {
		rv_warn("agent: %s; learning again", rv_err_text(&err, rc));
		return;
	}
	if (!model_matches(a, m)) {
		rv_warn("agent: %s was fitted on other channels (%zu, this host has %zu); "
			"learning again",
			a->model_path, m->nchan, a->nchan);
		rv_model_free(m);
		return;
	}
	if (install_model(a, m, rv_agent_wall_s(), 0.0) == 0) {
		rv_info("agent: model %s loaded (%zu channels, %zu training windows): detecting",
			a->model_path, a->nchan, a->model->train_windows);
		rv_agent_store_fit(a, "loaded");
	}
}

/* ---------------------------------------------------------------- fits */

static void *fit_thread(void *arg)
{
	struct agent *a = arg;
	rv_ns t0 = rv_clock_ns();

	a->fit_rc = rv_model_fit(&a->dopts, a->fit_table, &a->fit_model, NULL, &a->fit_err);
	a->fit_secs = rv_clock_since_s(t0);
	atomic_store(&a->fit_done, 1);
	return NULL;
}

/* Starts a fit on the history: every row while learning, the newest
 * reservoir_rows normal ones at a refit. Inline when `inline_fit`. */
void rv_agent_start_fit(struct agent *a, const char *reason, int inline_fit)
{
	int learn = strcmp(reason, "learn") == 0, refit = strcmp(reason, "refit") == 0;
	/* learn: every row; refit: the newest normal rows; absorb: the newest
	 * normal rows and the flagged ones of the incident absorbed (its
	 * state is the new normal; the faults before it are not) */
	double flagged_since = learn ? -INFINITY : refit ? INFINITY : a->absorb_since;
	int rc = rv_ring_table(&a->ring, (const char *const *)a->names,
			       learn ? 0 : a->reservoir_rows, flagged_since, &a->fit_table);

	if (rc) {
		rv_warn("agent: %s: no history to fit on (%s)", reason, rv_strerror(rc));
		return;
	}
	a->fit_reason = reason;
	a->fit_model = NULL;
	a->fit_rc = 0;
	rv_err_clear(&a->fit_err);
	atomic_store(&a->fit_done, 0);
	a->fitting = 1;
	a->fit_from = a->data_ts;
	rv_info("agent: %s: fitting on %zu samples of %zu channels", reason, a->fit_table->nrows,
		a->nchan);
	if (inline_fit || pthread_create(&a->fit_tid, NULL, fit_thread, a) != 0) {
		fit_thread(a);
		a->fit_tid = pthread_self();
	}
}

enum { FIT_QUIET_WINDOWS = 2 };

void rv_agent_finish_fit(struct agent *a, double now_data)
{
	if (!pthread_equal(a->fit_tid, pthread_self()))
		pthread_join(a->fit_tid, NULL);
	a->fitting = 0;
	a->absorbing = 0;
	rv_table_free(a->fit_table);
	a->fit_table = NULL;
	if (a->fit_rc) {
		rv_warn("agent: %s failed: %s", a->fit_reason, rv_err_text(&a->fit_err, a->fit_rc));
		/* try again after another learning period's worth of data */
		a->next_refit = now_data + (a->cfg.learn_s > 0 ? a->cfg.learn_s : 60.0);
		return;
	}
	if (install_model(a, a->fit_model, rv_agent_wall_s(), a->fit_secs) != 0) {
		rv_warn("agent: %s: out of memory installing the model", a->fit_reason);
		return;
	}
	a->fit_model = NULL;
	/* The fit's own memory and CPU are in the samples taken while it ran,
	 * and installing and saving the model move them once more: windows
	 * that can hold those samples are scored but flag nothing. Counted
	 * from the fit's start, not from the install, where a fit takes less
	 * than a window: a replay fits inline and installs at the sample the
	 * live fit started at, and flags from the same window as the live
	 * run did (sh.agent_replay); a longer fit keeps a window of quiet
	 * after its install. */
	{
		double win = (double)a->model->window * a->cfg.interval_s;

		a->quiet_until = fmax(a->fit_from + FIT_QUIET_WINDOWS * win, now_data + win);
	}
	a->last_fit_wall = now_data;
	a->next_refit = a->cfg.refit_s > 0 ? now_data + a->cfg.refit_s : INFINITY;
	pthread_mutex_lock(&a->mu);
	a->fits++;
	a->judging = 0;
	pthread_mutex_unlock(&a->mu);
	rv_info("agent: %s done in %.1f s: %zu training windows (window %zu samples, step %zu): "
		"detecting",
		a->fit_reason, a->fit_secs, a->model->train_windows, a->model->window,
		a->model->step);
	{
		struct rv_err err = { 0 };
		int rc = rv_model_save(a->model, a->model_path, &err);

		rv_agent_sink_result(a, SINK_MODEL, rc, &err);
	}
	rv_agent_store_fit(a, a->fit_reason);
}


/*
 * Warm-up: a fit of a small random table in a thread of its own and one
 * window scored in this thread, before the first real sample. The first
 * BLAS call of a thread takes OpenBLAS's buffers (tens of MiB of committed
 * memory, never returned); taken during learning they would be part of
 * the baseline, taken after it they would be the first "anomaly" in
 * mem.committed_as_bytes: the agent must not see itself change.
 */
enum { WARM_CHANNELS = 8, WARM_ROWS = 400 };

struct warm {
	const struct rv_detect_opts *o;
	struct rv_table *t;
	struct rv_model *m;
};

static void *warm_fit(void *arg)
{
	struct warm *w = arg;

	if (rv_model_fit(w->o, w->t, &w->m, NULL, NULL) != 0)
		w->m = NULL;
	return NULL;
}

void rv_agent_warm_up(struct agent *a)
{
	struct rv_detect_opts o = a->dopts;
	struct warm w = { &o, NULL, NULL };
	struct rv_rng rng;
	pthread_t tid;

	if (rv_table_new(WARM_ROWS, WARM_CHANNELS, 1, "warm-up", &w.t) != 0)
		return;
	rv_rng_seed(&rng, 1);
	for (size_t c = 0; c < WARM_CHANNELS; c++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu.warm%zu", c);
		w.t->names[c] = strdup(name);
		for (size_t r = 0; r < WARM_ROWS; r++)
			w.t->values[c * WARM_ROWS + r] = (float)rv_rng_uniform(&rng);
	}
	for (size_t r = 0; r < WARM_ROWS; r++)
		w.t->ts[r] = (double)r * 0.1;
	for (size_t c = 0; c < WARM_CHANNELS; c++)
		if (!w.t->names[c])
			goto out;
	if (pthread_create(&tid, NULL, warm_fit, &w) == 0)
		pthread_join(tid, NULL);
	if (w.m) {
		struct rv_live *l = NULL;
		const float **rows = calloc(w.m->window, sizeof(*rows));
		float *vals = malloc(WARM_CHANNELS * w.m->window * sizeof(*vals));

		if (rows && vals && rv_live_new(w.m, &l) == 0) {
			struct rv_live_out out;

			for (size_t i = 0; i < w.m->window; i++) {
				for (size_t c = 0; c < WARM_CHANNELS; c++)
					vals[i * WARM_CHANNELS + c] = w.t->values[c * WARM_ROWS + i];
				rows[i] = vals + i * WARM_CHANNELS;
			}
			rv_live_score(l, rows, &out);
		}
		rv_live_free(l);
		free(rows);
		free(vals);
	}
out:
	rv_model_free(w.m);
	rv_table_free(w.t);
}
