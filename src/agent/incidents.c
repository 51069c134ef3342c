/*
 * incidents.c - the agent's incidents: what the merger closed and what it
 * holds open, reported to the sinks (open, update every OPEN_UPDATE_S,
 * close), kept for the API, and absorbed as the new normal after
 * detect.absorb.
 */
#include "agent/agent_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "explain/details.h"

#define OPEN_UPDATE_S 5.0

/* Channel c's mean over the samples of an incident's windows (its first
 * window's samples to its last window's), from the history; NAN when the
 * history no longer holds them. */
static double incident_mean(const struct agent *a, uint32_t c, double start_ts, double end_ts)
{
	double from = start_ts - (a->model ? (double)a->model->window : 1.0) * a->interval_s;
	double sum = 0;
	size_t n = 0;

	for (size_t b = 0; b < a->ring.len; b++) {
		double t = rv_ring_ts(&a->ring, b);

		if (t > end_ts)
			continue;
		if (t <= from)
			break;
		sum += rv_ring_row(&a->ring, b)[c];
		n++;
	}
	return n ? sum / (double)n : NAN;
}

static void fill_incident(struct agent *a, const struct rv_incident *in, int open,
			  struct rv_store_incident *out)
{
	memset(out, 0, sizeof(*out));
	out->id = in->id;
	out->start_ts = in->start_ts;
	out->end_ts = in->end_ts;
	out->open = open;
	out->windows = in->flagged;
	out->peak_score = in->peak_score;
	out->mean_score = in->mean_score;
	out->cause_confidence = NAN;
	out->detectors = in->detectors;
	snprintf(out->subsystem, sizeof(out->subsystem), "%s", rv_subsystem_name(in->subsystem));
	rv_incident_rank_subsystems(in, out->subsystems, sizeof(out->subsystems));
	out->phase = in->phase;
	out->follows = in->follows;
	snprintf(out->host, sizeof(out->host), "%s", a->host);
	out->nsig = in->ntop < RV_STORE_SIG_MAX ? in->ntop : RV_STORE_SIG_MAX;
	for (size_t i = 0; i < out->nsig; i++) {
		uint32_t c = in->top[i];
		struct rv_store_signal *s = &out->sig[i];

		snprintf(s->name, sizeof(s->name), "%s", a->names[c]);
		s->share = in->top_weight[i];
		s->baseline = a->model && a->model->chan_mean ? a->model->chan_mean[c] : NAN;
		s->value = incident_mean(a, c, in->start_ts, in->end_ts);
	}
}

/* The reported open incident with this id, NULL when none. */
static struct agent_open *find_open(struct agent *a, uint64_t id)
{
	for (size_t i = 0; i < a->nopen; i++)
		if (a->open[i].inc.id == id)
			return &a->open[i];
	return NULL;
}

/* Drops the open incident id from the reported ones (mu held); 1 when it
 * was there. */
static int forget_open(struct agent *a, uint64_t id)
{
	struct agent_open *o = find_open(a, id);

	if (!o)
		return 0;
	memmove(o, o + 1, (size_t)(a->open + a->nopen - (o + 1)) * sizeof(*o));
	a->nopen--;
	return 1;
}

static void remember_closed(struct agent *a, const struct rv_store_incident *inc,
			    enum rv_subsystem sub)
{
	pthread_mutex_lock(&a->mu);
	a->recent[a->recent_next] = *inc;
	a->recent_next = (a->recent_next + 1) % AGENT_RECENT_MAX;
	if (a->nrecent < AGENT_RECENT_MAX)
		a->nrecent++;
	if (!forget_open(a, inc->id))
		a->incidents_total[sub]++;   /* closed without ever being reported open */
	pthread_mutex_unlock(&a->mu);
}


/*
 * An incident open for detect.absorb: whatever changed is the host's new
 * normal (a page cache that grew, a job with another profile). It is
 * closed, and the model is refitted on the newest normal samples and the
 * incident's own (from its first window on); the flagged samples of the
 * incidents before it stay out. Until that fit is in, windows are scored
 * but flag nothing.
 */
static void absorb(struct agent *a, const struct rv_incident *open)
{
	rv_warn("agent: incident %llu open for %.0f s (detect.absorb): taken as the new normal; "
		"refitting on its samples and the newest normal ones",
		(unsigned long long)open->id, open->end_ts - open->start_ts);
	if (rv_incmerge_finish(a->mg) != 0)
		return;
	a->absorbing = 1;
	/* the rows of the incident's first window on */
	a->absorb_since = open->start_ts - (double)a->model->window * a->interval_s;
	rv_agent_incidents_after_push(a, a->data_ts);
	rv_agent_start_fit(a, "absorb", a->rd != NULL);
}

/* One open incident after a push: reported when new, written again every
 * OPEN_UPDATE_S, its cause carried over between explanations. Returns 1
 * when it has been open for detect.absorb. */
static int report_open(struct agent *a, const struct rv_incident *open, double ts)
{
	struct agent_open *prev = find_open(a, open->id), cur;
	struct rv_details d;
	struct rv_store_details det;
	int write = !prev || ts - prev->written_ts >= OPEN_UPDATE_S;
	int have = 0;

	fill_incident(a, open, 1, &cur.inc);
	cur.whose_ts = prev ? prev->whose_ts : ts;
	if (!prev || ts - prev->whose_ts >= rv_agent_whose_every(a)) {
		rv_agent_whose_request(a, &cur.inc);
		cur.whose_ts = ts;
	}
	cur.written_ts = prev ? prev->written_ts : ts;
	cur.explained_ts = prev ? prev->explained_ts : ts;
	memset(&cur.onset, 0, sizeof(cur.onset));
	if (prev)
		cur.onset = prev->onset;
	/* the onset's causes are decided as soon as the onset ends */
	write |= open->onset_done && !cur.onset.decided;
	if (write) {
		have = rv_agent_explain_open(a, &cur, ts, prev, open->onset_done, &d, &det);
		cur.written_ts = ts;
	} else {
		rv_agent_carry_cause(&cur.inc, &prev->inc);
	}
	pthread_mutex_lock(&a->mu);
	if (prev) {
		*prev = cur;
	} else if (a->nopen < RV_INCMERGE_OPEN_MAX) {
		a->open[a->nopen++] = cur;
		a->incidents_total[open->subsystem]++;
	}
	pthread_mutex_unlock(&a->mu);
	if (write)
		rv_agent_report_incident(a, &cur.inc, prev ? "update" : "open", have ? &det : NULL);
	if (have)
		rv_details_free(&d);
	return a->cfg.detect.absorb_s > 0 && open->end_ts - open->start_ts >= a->cfg.detect.absorb_s;
}

/* After a window went into the merger: report what closed, what opened
 * and (every OPEN_UPDATE_S) how each open incident grew. */
void rv_agent_incidents_after_push(struct agent *a, double ts)
{
	struct rv_incident open[RV_INCMERGE_OPEN_MAX];
	size_t n;
	int absorb_at = -1;

	rv_agent_whose_poll(a);
	for (size_t i = 0; i < rv_incmerge_count(a->mg); i++) {
		const struct rv_incident *in = rv_incmerge_get(a->mg, i);
		struct rv_store_incident s;

		struct rv_details d;
		struct rv_store_details det;
		int have;

		struct agent_open *was = find_open(a, in->id);

		fill_incident(a, in, 0, &s);
		/* an onset not decided yet is decided now, on the whole incident */
		have = rv_agent_explain(a, &s, &d, &det, was ? &was->onset : NULL,
					was && !was->onset.decided) == 0;
		remember_closed(a, &s, in->subsystem);
		rv_agent_report_incident(a, &s, "close", have ? &det : NULL);
		rv_details_free(&d);
	}
	if (rv_incmerge_count(a->mg))
		rv_incmerge_forget_closed(a->mg);
	n = rv_incmerge_peek_all(a->mg, open, RV_INCMERGE_OPEN_MAX);
	for (size_t i = 0; i < n; i++)
		if (report_open(a, &open[i], ts) && absorb_at < 0)
			absorb_at = (int)i;
	if (absorb_at >= 0 && !a->fitting)
		absorb(a, &open[absorb_at]);
}

void rv_agent_close_all(struct agent *a)
{
	if (!a->mg)
		return;
	rv_incmerge_finish(a->mg);
	rv_agent_incidents_after_push(a, a->data_ts);
}
