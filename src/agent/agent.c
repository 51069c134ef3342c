/*
 * agent.c - the agent's loop (see agent.h): input, history, learning and
 * refits, scoring one window per step, incidents.
 *
 * Time: the loop sleeps to absolute CLOCK_MONOTONIC deadlines (next +=
 * interval); a sweep that ends after the next deadline skips the deadlines
 * it missed and counts them (`missed`), so the agent never runs behind.
 * Windows are stamped with wall-clock sample times (CLOCK_REALTIME), the
 * same stamps a recording keeps.
 *
 * Gaps: a channel without a valid value this sweep keeps its last valid
 * one (0 before the first), as the offline reader fills gaps. The first
 * sweep only primes the counters and is not kept.
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "select/metricset.h"

/* History kept at most, whatever the configuration asks: a refit on more
 * rows costs more than it brings, and the ring stays under this budget. */
#define HISTORY_BUDGET_BYTES ((size_t)256 << 20)
/* An open incident is written again to the store at most this often. */
#define MODEL_FILE "reveal.model"
/* Feature standard deviations are at least this share of |mean|. */
#define AGENT_SD_FLOOR 0.01

static void host_name(struct agent *a);

double rv_agent_wall_s(void)
{
	return (double)rv_clock_wall_ns() * 1e-9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* ------------------------------------------------------------ options */

static struct rv_span to_span(struct rv_cfg_span s)
{
	return (struct rv_span){ .value = s.value, .seconds = s.seconds };
}

static void detect_options(struct agent *a)
{
	if (a->cfg.detect.preset == RV_CFG_PRESET_PAPER)
		rv_detect_opts_paper(&a->dopts);
	else
		rv_detect_opts_default(&a->dopts);
	a->dopts.window = to_span(a->cfg.detect.window);
	a->dopts.step = to_span(a->cfg.detect.step);
	a->dopts.incident_gap = a->cfg.detect.incident_gap;
	a->dopts.incident_min = a->cfg.detect.incident_min;
	a->dopts.threads = 1;   /* a fit must not take the jobs' cores */
	/* a floor for gauges that barely moved while learning; no spe, whose
	 * raw-window model needs far more windows than learning gives (AGENT.md) */
	a->dopts.ens.sd_floor_rel = AGENT_SD_FLOOR;
	a->dopts.ens.enabled &= ~RV_DET_BIT(RV_DET_SPE);
}

/* ------------------------------------------------------------ input */

static int names_from_collector(struct agent *a)
{
	a->nchan = rv_collector_nchan(a->coll);
	a->names = calloc(a->nchan ? a->nchan : 1, sizeof(*a->names));
	if (!a->names)
		return -ENOMEM;
	for (size_t i = 0; i < a->nchan; i++)
		if (!(a->names[i] = strdup(rv_collector_chan(a->coll, i)->name)))
			return -ENOMEM;
	return 0;
}

/* The recording's channels the metric set keeps (all without one). */
static int names_from_replay(struct agent *a)
{
	size_t m = a->rv.m;

	a->nchan = 0;
	a->names = calloc(m ? m : 1, sizeof(*a->names));
	a->sel = calloc(m ? m : 1, sizeof(*a->sel));
	if (!a->names || !a->sel)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++) {
		const char *name = rv_rvl_values_name(&a->rv, i);

		if (!rv_agent_mset_keep(a->mset, name))
			continue;
		a->sel[a->nchan] = i;
		if (!(a->names[a->nchan++] = strdup(name)))
			return -ENOMEM;
	}
	return 0;
}

static void free_names(struct agent *a)
{
	for (size_t i = 0; a->names && i < a->nchan; i++)
		free(a->names[i]);
	free(a->names);
	a->names = NULL;
}

static void copy_source_stats(struct agent *a)
{
	size_t n = a->coll ? rv_collector_nsources(a->coll) : 0;

	if (n > AGENT_SOURCES_MAX)
		n = AGENT_SOURCES_MAX;
	for (size_t i = 0; i < n; i++) {
		uint64_t last, total;

		rv_collector_source_stats(a->coll, i, &a->src[i].name, &a->src[i].nchan, &last,
					  &total);
		a->src[i].last_s = (double)last * 1e-9;
		a->src[i].total_s = (double)total * 1e-9;
	}
	a->nsrc = n;
}

/* --------------------------------------------------------- channel set */

/* Buffers sized by the channel count: the ring, the carried values, the
 * merger. Called at start and when the channels change. */
static void free_channel_buffers(struct agent *a)
{
	free(a->vals);
	free(a->ok);
	free(a->last);
	free(a->reads);
	free(a->hold);
	free(a->shown);
	free(a->shown_ok);
	a->vals = NULL;
	a->ok = a->shown_ok = NULL;
	a->last = NULL;
	a->reads = NULL;
	a->hold = NULL;
	a->hold_samples = 0;
	a->shown = NULL;
	a->blips_base += rv_incmerge_dropped(a->mg);
	rv_incmerge_free(a->mg);
	a->mg = NULL;
	rv_ring_fini(&a->ring);
	rv_agent_explain_free(a);
}

/* The peak score an incident of this severity passes (incident.h). */
static double severity_score(enum rv_cfg_severity s)
{
	return s == RV_CFG_SEV_CRITICAL ? RV_SEVERITY_CRITICAL
	     : s == RV_CFG_SEV_MAJOR	? RV_SEVERITY_MAJOR
					: 0.0;
}

static int size_for_channels(struct agent *a)
{
	size_t n = a->nchan ? a->nchan : 1, cap;
	double step = a->interval_s > 0 ? a->interval_s : 0.1;

	free_channel_buffers(a);
	a->vals = calloc(n, sizeof(*a->vals));
	a->ok = calloc(n, 1);
	a->last = calloc(n, sizeof(*a->last));
	a->reads = calloc(n, sizeof(*a->reads));
	a->hold = malloc(n);
	a->shown = calloc(n, sizeof(*a->shown));
	a->shown_ok = calloc(n, 1);
	if (!a->vals || !a->ok || !a->last || !a->reads || !a->hold || !a->shown || !a->shown_ok ||
	    rv_incmerge_new(a->nchan, (const char *const *)a->names, a->cfg.detect.incident_gap,
			    a->cfg.detect.incident_min, &a->mg, NULL) != 0)
		return -ENOMEM;
	memset(a->hold, 1, n);
	rv_incmerge_set_gate(a->mg, severity_score(a->cfg.detect.report_severity),
			     a->cfg.detect.minor_min);
	rv_incmerge_set_sustained(a->mg, a->cfg.detect.sustained_min);
	rv_incmerge_set_bursts(a->mg, a->cfg.detect.burst_min);
	a->learn_rows = (size_t)ceil(a->cfg.learn_s / step);
	a->reservoir_rows = (size_t)ceil(a->cfg.reservoir_s / step);
	cap = a->learn_rows > a->reservoir_rows ? a->learn_rows : a->reservoir_rows;
	if (cap < 64)
		cap = 64;
	if (cap > HISTORY_BUDGET_BYTES / (n * sizeof(float))) {
		cap = HISTORY_BUDGET_BYTES / (n * sizeof(float));
		rv_warn("agent: %zu channels: history capped at %zu samples (%.0f s) to stay "
			"under %zu MiB",
			a->nchan, cap, (double)cap * step, HISTORY_BUDGET_BYTES >> 20);
		if (a->learn_rows > cap)
			a->learn_rows = cap;
		if (a->reservoir_rows > cap)
			a->reservoir_rows = cap;
	}
	if (rv_ring_init(&a->ring, cap, n) != 0)
		return -ENOMEM;
	return rv_agent_explain_alloc(a);
}

/* ------------------------------------------------------------- scoring */

static void score_window(struct agent *a, double ts)
{
	const struct rv_model *m = a->model;
	struct rv_live_out out;
	rv_ns t0 = rv_clock_ns();

	for (size_t i = 0; i < m->window; i++)
		a->wrows[i] = rv_ring_row(&a->ring, m->window - 1 - i);
	rv_live_set_hold(a->live, a->hold);
	{
		size_t back = rv_live_kept_lookback(a->live);

		if (back >= a->ring.len)
			back = a->ring.len - 1;
		rv_live_set_reference(a->live, rv_ring_row(&a->ring, back));
	}
	rv_live_score(a->live, a->wrows, &out);
	/* no verdicts while a fit runs and just after one (rv_agent_finish_fit) */
	int judging = !(a->absorbing || a->fitting || ts < a->quiet_until);

	if (!judging) {
		out.res.anomaly = 0;
		out.res.flags = 0;
	}
	if (out.res.anomaly)
		rv_ring_mark_flagged(&a->ring, m->window);
	struct rv_incwin iw = { .win = a->win, .ts = ts, .flagged = out.res.anomaly,
				.score = out.res.fused, .detectors = out.res.flags,
				.weight = out.weight, .lasting = out.lasting,
				.immaterial = !out.material, .persist = out.persist,
				.matter = out.matter,
				.strength = out.res.strength };

	rv_agent_rw_window(a, out.res.fused, out.res.score, out.res.anomaly);
	if (rv_incmerge_push_win(a->mg, &iw) != 0)
		rv_warn("agent: incident merger: out of memory; window %zu lost", a->win);
	a->win++;
	pthread_mutex_lock(&a->mu);
	a->windows_scored++;
	a->windows_flagged += out.res.anomaly != 0;
	a->blips = a->blips_base + rv_incmerge_dropped(a->mg);
	a->last_fused = out.res.fused;
	a->last_novelty = out.res.novelty;
	a->last_level = out.res.level;
	a->last_anomaly = out.res.anomaly;
	a->judging = judging;
	for (int d = 0; d < RV_DET_MAX; d++) {
		a->det_score[d] = out.res.score[d];
		a->det_fired[d] = (out.res.flags >> d) & 1u;
	}
	a->last_score_s = rv_clock_since_s(t0);
	pthread_mutex_unlock(&a->mu);
	rv_agent_incidents_after_push(a, ts);
}

/* ----------------------------------------------------------- one sample */

/* Samples between updates of the channels' hold (live.h); readings are
 * counted anew after HOLD_RESET samples, so a source whose sub-interval
 * changes is followed. */
enum { HOLD_EVERY = 64, HOLD_RESET = 1u << 20 };

/* After take_sample counted this sample's readings: every HOLD_EVERY
 * samples, each channel's hold becomes the samples per reading, rounded
 * (1 for one never read: it has no value to judge). */
static void update_holds(struct agent *a)
{
	if (++a->hold_samples % HOLD_EVERY)
		return;
	for (size_t c = 0; c < a->nchan; c++) {
		uint32_t r = a->reads[c], h = r ? (a->hold_samples + r / 2) / r : 1;

		a->hold[c] = (uint8_t)(h < 1 ? 1 : h > UINT8_MAX ? UINT8_MAX : h);
	}
}

static void take_sample(struct agent *a, double ts, int64_t t_ns)
{
	float *row = rv_ring_push(&a->ring, ts);
	double learned;

	if (a->hold_samples >= HOLD_RESET) {
		memset(a->reads, 0, a->nchan * sizeof(*a->reads));
		a->hold_samples = 0;
	}
	for (size_t c = 0; c < a->nchan; c++) {
		if (a->ok[c] && isfinite(a->vals[c]))
			a->last[c] = (float)a->vals[c];
		row[c] = a->last[c];
		a->reads[c] += a->ok[c] != 0;
	}
	update_holds(a);
	rv_agent_rw_sample(a, ts);
	if (a->coll)
		rv_agent_record_sample(a, t_ns);
	pthread_mutex_lock(&a->mu);
	a->samples++;
	a->data_ts = ts;
	if (a->cfg.http.raw_channels) {
		memcpy(a->shown, a->vals, a->nchan * sizeof(*a->shown));
		memcpy(a->shown_ok, a->ok, a->nchan);
	}
	if (!a->model) {
		learned = (double)a->ring.pushed / (double)(a->learn_rows ? a->learn_rows : 1);
		a->learn_progress = learned < 1.0 ? learned : 1.0;
		a->learn_remaining_s = a->learn_rows > a->ring.pushed
					       ? (double)(a->learn_rows - a->ring.pushed) * a->interval_s
					       : 0.0;
	}
	pthread_mutex_unlock(&a->mu);

	if (a->fitting && atomic_load(&a->fit_done))
		rv_agent_finish_fit(a, ts);
	if (!a->model && !a->fitting && a->ring.pushed >= a->learn_rows && a->ring.pushed >= 2 &&
	    (isinf(a->next_refit) || ts >= a->next_refit))
		rv_agent_start_fit(a, "learn", a->rd != NULL);
	else if (a->model && !a->fitting && ts >= a->next_refit)
		rv_agent_start_fit(a, "refit", a->rd != NULL);
	if (a->fitting && atomic_load(&a->fit_done))
		rv_agent_finish_fit(a, ts);

	if (!a->model || a->ring.len < a->model->window)
		return;
	/* windows end every step samples counted from the history's first,
	 * not from when the model came: a fit on its own thread installs it
	 * a sample or two later than a replay's fit inline, and the replay
	 * scores the same windows as the live run */
	if (a->ring.pushed % a->model->step)
		return;
	score_window(a, ts);
}

/* ------------------------------------------------------------ learning UI */

static void progress(struct agent *a, int final)
{
	double p, rem;

	if (!a->o->progress)
		return;
	pthread_mutex_lock(&a->mu);
	p = a->learn_progress;
	rem = a->learn_remaining_s;
	pthread_mutex_unlock(&a->mu);
	a->o->progress(a->o->progress_ctx, p, rem, final);
}

/* --------------------------------------------------------------- reload */

/* SIGHUP: the keys that can change while running are applied; the others
 * are named and keep their value until a restart. */
static void reload_config(struct agent *a)
{
	struct rv_config c;
	struct rv_err err = { 0 };
	int rc;

	if (!a->o->config_path) {
		rv_info("agent: SIGHUP: no configuration file to reload");
		return;
	}
	rv_config_defaults(&c);
	rc = rv_config_load(a->o->config_path, &c, &err);
	for (size_t i = 0; !rc && i < a->o->nset; i++)
		rc = rv_config_set(&c, a->o->set_keys[i], a->o->set_vals[i], &err);
	if (!rc)
		rc = rv_config_check(&c, &err);
	if (rc) {
		rv_error("agent: SIGHUP: %s; keeping the running configuration",
			 rv_err_text(&err, rc));
		return;
	}
#define RESTART_ONLY(field, key)                                                          \
	do {                                                                              \
		if (memcmp(&c.field, &a->cfg.field, sizeof(c.field)) != 0)                \
			rv_warn("agent: SIGHUP: %s changes at the next restart", key);    \
	} while (0)
	RESTART_ONLY(interval_s, "interval");
	RESTART_ONLY(collect, "collect");
	RESTART_ONLY(detect, "detect");
	RESTART_ONLY(http.listen, "http.listen");
	RESTART_ONLY(http.max_connections, "http.max_connections");
	RESTART_ONLY(http.per_client_connections, "http.per_client_connections");
	RESTART_ONLY(http.idle_timeout_s, "http.idle_timeout");
	RESTART_ONLY(store.path, "store.path");
	RESTART_ONLY(record, "record");
	RESTART_ONLY(state_dir, "state_dir");
	RESTART_ONLY(learn_s, "learn");
	RESTART_ONLY(reservoir_s, "reservoir");
	RESTART_ONLY(remote_write, "remote_write");
	RESTART_ONLY(actions, "actions");
	RESTART_ONLY(attrib, "attrib");
#undef RESTART_ONLY
	rv_log_set_level(c.log_level);
	a->cfg.log_level = c.log_level;
	a->cfg.store.retention_s = c.store.retention_s;
	if (c.refit_s != a->cfg.refit_s) {
		a->cfg.refit_s = c.refit_s;
		a->next_refit = c.refit_s > 0 ? a->data_ts + c.refit_s : INFINITY;
	}
	pthread_mutex_lock(&a->mu);
	a->cfg.http.raw_channels = c.http.raw_channels;
	pthread_mutex_unlock(&a->mu);
	if (strcmp(c.events.path, a->cfg.events.path) != 0 || strcmp(c.host, a->cfg.host) != 0) {
		rv_agent_sinks_close(a);
		a->cfg.events = c.events;
		memcpy(a->cfg.host, c.host, sizeof(a->cfg.host));
		host_name(a);
		if ((rc = rv_agent_sinks_open(a, &err)) != 0)
			rv_error("agent: SIGHUP: %s", rv_err_text(&err, rc));
	}
	rv_info("agent: configuration %s reloaded", a->o->config_path);
}

/* ----------------------------------------------------------- main loop */

static int rediscover(struct agent *a)
{
	struct rv_err err = { 0 };
	int rc = rv_collector_rediscover(a->coll, &err);

	if (rc <= 0)
		return rc;
	rv_warn("agent: the channels changed (%zu -> %zu): learning again", a->nchan,
		rv_collector_nchan(a->coll));
	rv_agent_close_all(a);
	if (a->fitting) {
		if (!pthread_equal(a->fit_tid, pthread_self()))
			pthread_join(a->fit_tid, NULL);
		a->fitting = 0;
		rv_table_free(a->fit_table);
		a->fit_table = NULL;
		rv_model_free(a->fit_model);
		a->fit_model = NULL;
	}
	rv_agent_rw_channels_go(a);
	pthread_mutex_lock(&a->mu);
	rv_agent_drop_model(a);
	free_names(a);
	a->state = AGENT_LEARNING;
	a->learn_progress = 0.0;
	a->nopen = 0;
	rc = names_from_collector(a);
	if (!rc)
		rc = size_for_channels(a);
	pthread_mutex_unlock(&a->mu);
	if (!rc && rv_agent_rw_channels(a) != 0)
		rv_warn("agent: remote write: out of memory; no channels sent any more");
	if (!rc) {
		rv_rvl_writer_close(a->rec, 0, NULL);   /* a new header: a new segment */
		a->rec = NULL;
	}
	return rc;
}

static void sleep_until(rv_ns t)
{
	struct timespec ts = { (time_t)(t / 1000000000), (long)(t % 1000000000) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int run_live(struct agent *a)
{
	rv_ns step = (rv_ns)llround(a->cfg.interval_s * 1e9), next = rv_clock_ns();
	rv_ns next_rediscover = a->cfg.collect.rediscover_s > 0
					? next + (rv_ns)(a->cfg.collect.rediscover_s * 1e9)
					: 0;
	rv_ns next_status = next;
	struct rv_sample_clock clk = { 0 };
	int primed = 0, rc = 0;

	while (!*a->o->stop) {
		rv_ns now;
		int64_t t_ns;
		double ts;

		sleep_until(next);
		if (*a->o->stop)
			break;
		if (*a->o->reload) {
			*a->o->reload = 0;
			reload_config(a);
		}
		now = rv_clock_ns();
		t_ns = rv_sample_clock_ns(&clk, now, rv_clock_wall_ns());
		ts = (double)t_ns * 1e-9;
		rv_collector_sample(a->coll, now, a->vals, a->ok);
		/* the first collection only primes the counters' rates; it is
		 * recorded all the same, so that a replay, which skips a
		 * recording's first sample for the same reason, takes the
		 * samples this loop took, from the first */
		if (primed)
			take_sample(a, ts, t_ns);
		else
			rv_agent_record_sample(a, t_ns);
		primed = 1;
		if (now >= next_status) {
			pthread_mutex_lock(&a->mu);
			copy_source_stats(a);
			a->cpu_s = cpu_s();
			pthread_mutex_unlock(&a->mu);
			if (!a->model)
				progress(a, 0);
			next_status = now + 1000000000;
		}
		if (next_rediscover && now >= next_rediscover) {
			if ((rc = rediscover(a)) < 0)
				break;
			if (rc > 0)
				primed = 0;
			rc = 0;
			next_rediscover = rv_clock_ns() + (rv_ns)(a->cfg.collect.rediscover_s * 1e9);
		}
		rv_agent_facts_tick(a, rv_agent_wall_s());
		next += step;
		now = rv_clock_ns();
		if (now > next) {
			rv_ns behind = (now - next) / step + 1;

			pthread_mutex_lock(&a->mu);
			a->missed += (uint64_t)behind;
			pthread_mutex_unlock(&a->mu);
			next += behind * step;
		}
	}
	progress(a, 1);
	return rc;
}

static int run_replay(struct agent *a, struct rv_err *err)
{
	rv_ns start = rv_clock_ns();
	int64_t first_t = 0;
	int rc;

	while (!*a->o->stop && (rc = rv_rvl_values_next(&a->rv, err)) == 1) {
		double ts = (double)a->rv.t * 1e-9;

		if (a->rv.count == 1)
			first_t = a->rv.t;
		if (a->o->speed > 0 && a->rv.count > 1) {
			rv_ns due = start + (rv_ns)((double)(a->rv.t - first_t) / a->o->speed);
			sleep_until(due);
		}
		if (*a->o->reload) {
			*a->o->reload = 0;
			reload_config(a);
		}
		for (size_t k = 0; k < a->nchan; k++) {
			a->vals[k] = a->rv.out[a->sel[k]];
			a->ok[k] = a->rv.out_ok[a->sel[k]];
		}
		if (a->rv.count > 1)
			take_sample(a, ts, a->rv.t);
	}
	if (rc < 0)
		return rc;
	if (a->fitting)
		rv_agent_finish_fit(a, a->data_ts);
	if (!a->model)
		rv_warn("agent: the recording ended while still learning (%llu samples, %zu "
			"needed): nothing was scored",
			(unsigned long long)a->ring.pushed, a->learn_rows);
	return 0;
}

/* ------------------------------------------------------------ set up */

static int open_input(struct agent *a, struct rv_err *err)
{
	int rc;

	if (a->o->replay) {
		rc = rv_rvl_reader_open(a->o->replay, &a->rd, err);
		if (!rc)
			rc = rv_rvl_values_init(&a->rv, a->rd);
		if (!rc)
			rc = names_from_replay(a);
		a->interval_s = a->cfg.interval_s;
		if (rc == -ENOMEM)
			rv_err_set(err, rc, "agent: out of memory");
		return rc ? rc : rv_agent_mset_check(a, a->rv.m - a->nchan, err);
	}
	{
		const char *excl[RV_CFG_EXCLUDE_MAX];   /* the collector copies it */
		struct rv_collect_cfg cc = {
			.root = a->cfg.collect.root,
			.nvml_lib = a->cfg.collect.nvml[0] ? a->cfg.collect.nvml : NULL,
			.exclude = excl,
			.nexclude = a->cfg.collect.n_exclude,
			.keep = a->mset ? rv_agent_mset_keep : NULL,
			.keep_ctx = a->mset,
			.slow_every = rv_collect_slow_every(a->cfg.interval_s,
							    a->cfg.collect.slow_s),
			.perf_software = a->cfg.collect.perf_software,
		};

		for (size_t i = 0; i < a->cfg.collect.n_exclude; i++)
			excl[i] = a->cfg.collect.exclude[i];
		rc = rv_collector_open(&cc, &a->coll, err);
	}
	if (rc)
		return rc;
	for (size_t i = 0; i < rv_collector_nunavail(a->coll); i++)     /* the set's: mset.c */
		if (strcmp(rv_collector_unavail_reason(a->coll, i), RV_COLLECT_NOT_IN_SET) != 0)
			rv_info("agent: source %s unavailable: %s",
				rv_collector_unavail_source(a->coll, i),
				rv_collector_unavail_reason(a->coll, i));
	if (rv_collector_nchan(a->coll) == 0 && !a->mset)
		return rv_err_set(err, -ENODEV, "no source could be read: nothing to watch");
	a->interval_s = a->cfg.interval_s;
	if ((rc = names_from_collector(a)) != 0)
		return rv_err_set(err, rc, "agent: out of memory");
	return rv_agent_mset_check(a, rv_collector_nleft(a->coll), err);
}

static int state_dir(struct agent *a, struct rv_err *err)
{
	const char *d = a->cfg.state_dir[0] ? a->cfg.state_dir : ".";

	if (mkdir(d, 0755) != 0 && errno != EEXIST)
		return rv_err_set(err, -errno, "state_dir %s: %s", d, rv_strerror(errno));
	if (access(d, W_OK) != 0)
		return rv_err_set(err, -errno, "state_dir %s: not writable: %s", d,
				  rv_strerror(errno));
	if ((size_t)snprintf(a->model_path, sizeof(a->model_path), "%s/%s", d, MODEL_FILE) >=
	    sizeof(a->model_path))
		return rv_err_set(err, -ENAMETOOLONG, "state_dir %s: path too long", d);
	return 0;
}

static void host_name(struct agent *a)
{
	if (a->cfg.host[0]) {
		snprintf(a->host, sizeof(a->host), "%.*s", (int)sizeof(a->host) - 1, a->cfg.host);
	} else if (gethostname(a->host, sizeof(a->host)) != 0) {
		snprintf(a->host, sizeof(a->host), "localhost");
	}
	a->host[sizeof(a->host) - 1] = '\0';
}

static void agent_free(struct agent *a)
{
	if (a->fitting) {
		if (!pthread_equal(a->fit_tid, pthread_self()))
			pthread_join(a->fit_tid, NULL);
		rv_model_free(a->fit_model);
		rv_table_free(a->fit_table);
	}
	rv_agent_http_stop(a);
	rv_agent_whose_stop(a);
	rv_agent_actions_close(a);
	rv_agent_rw_close(a, 0);
	rv_agent_facts_close(a);
	rv_agent_sinks_close(a);
	rv_agent_store_close(a);
	rv_agent_drop_model(a);
	free_channel_buffers(a);
	rv_kb_free(a->kb);
	free_names(a);
	rv_collector_close(a->coll);
	free(a->sel);
	rv_metricset_free(a->mset);
	if (a->rd) {
		rv_rvl_values_fini(&a->rv);
		rv_rvl_reader_close(a->rd);
	}
	pthread_mutex_destroy(&a->mu);
}

int rv_agent_run(const struct rv_agent_opts *o, struct rv_err *err)
{
	struct agent a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.o = o;
	a.cfg = *o->cfg;
	pthread_mutex_init(&a.mu, NULL);
	a.started_mono = (double)rv_clock_ns() * 1e-9;
	a.started_wall = rv_agent_wall_s();
	a.next_refit = INFINITY;
	host_name(&a);
	detect_options(&a);
	rc = state_dir(&a, err);
	if (!rc)
		rc = rv_agent_mset_load(&a, err);
	if (!rc)
		rc = open_input(&a, err);
	if (!rc && (rc = size_for_channels(&a)) == -ENOMEM)
		rv_err_set(err, rc, "agent: out of memory");
	if (!rc)
		rv_agent_warm_up(&a);
	if (!rc)
		rc = rv_agent_sinks_open(&a, err);
	if (!rc)
		rc = rv_agent_facts_open(&a, rv_agent_wall_s(), err);
	if (!rc)
		rc = rv_agent_rw_open(&a, err);
	if (!rc)
		rc = rv_agent_whose_start(&a, err);
	if (!rc)
		rc = rv_agent_actions_open(&a, err);
	if (!rc)
		rv_agent_try_load_model(&a);
	if (!rc && !a.model && a.cfg.learn_s <= 0)
		rc = rv_err_set(err, -EINVAL,
				"learn 0 needs a model fitted on these %zu channels in %s", a.nchan,
				a.model_path);
	if (!rc)
		rc = rv_agent_http_start(&a, err);
	if (rc) {
		agent_free(&a);
		return rc;
	}
	if (!a.model)
		rv_info("agent: %zu channels; learning for %.0f s before the first alert", a.nchan,
			a.cfg.learn_s);
	else if (a.cfg.refit_s > 0)
		a.next_refit = rv_agent_wall_s() + a.cfg.refit_s;
	rc = a.rd ? run_replay(&a, err) : run_live(&a);
	rv_agent_close_all(&a);
	rv_agent_rw_close(&a, rc >= 0);
	if (rc < 0 && err && !err->code)
		rv_err_set(err, rc, "agent: %s", rv_strerror(rc));
	agent_free(&a);
	return rc < 0 ? rc : 0;
}
