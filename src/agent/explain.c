/*
 * explain.c - the agent's explanation of an incident: evidence, likely
 * causes and plot series worked out from the ring (explain/details.c,
 * the code `reveal report` runs over offline data) and shaped for the
 * store.
 *
 * It runs on the main thread when an incident opens, every
 * EXPLAIN_UPDATE_S while it lasts, and when it closes. Cost: one pass over
 * the baseline and incident rows of every channel (a few milliseconds for
 * 400 channels and a few minutes of samples).
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "explain/details.h"

/* A baseline cut short by an earlier incident: at least this long, and
 * beginning this long after that incident's end (its after-effects). */
#define BASE_MIN_S 30.0
#define BASE_SETTLE_S 5.0

/* An open incident's explanation (evidence, causes, plots) is redone this often. */
#define EXPLAIN_UPDATE_S 30.0

/* Row `row` (0: the oldest held) of the ring. */
static float ring_get(const void *ctx, size_t row, size_t chan)
{
	const struct rv_ring *r = ctx;
	return rv_ring_row(r, r->len - 1 - row)[chan];
}

/* An evidence entry as the store keeps it (the same fields). */
static struct rv_store_ev store_ev(const struct rv_evidence_sig *e)
{
	return (struct rv_store_ev){ .name = e->name, .skew = e->skew, .base_n = e->base_n,
				     .inc_n = e->inc_n, .base_mean = e->base_mean,
				     .base_sd = e->base_sd, .value = e->value, .inc_sd = e->inc_sd,
				     .peak = e->peak, .z = e->z, .change = e->change, .dir = e->dir,
				     .onset_ts = e->onset_ts };
}

int rv_agent_explain_alloc(struct agent *a)
{
	a->ex_ts = malloc((a->ring.cap ? a->ring.cap : 1) * sizeof(*a->ex_ts));
	a->ex_ev = calloc(RV_STORE_EV_MAX, sizeof(*a->ex_ev));
	a->ex_idx = malloc(RV_STORE_EV_MAX * sizeof(*a->ex_idx));
	return a->ex_ts && a->ex_ev && a->ex_idx ? 0 : -ENOMEM;
}

void rv_agent_explain_free(struct agent *a)
{
	free(a->ex_ts);
	free(a->ex_ev);
	free(a->ex_idx);
	a->ex_ts = NULL;
	a->ex_ev = NULL;
	a->ex_idx = NULL;
}

/*
 * The baseline of inc's evidence leaves out the other incidents the agent
 * knows of (open, and the latest closed ones): a fault 100 s after the
 * same fault was measured against the first one and showed no change. It
 * leaves out the agent's own last model fit too (from its first sample to
 * the end of the quiet after it): the fit's CPU burst made the host's
 * tasks wait, and an incident right after learning measured against it
 * showed no CPU pressure where there was.
 */
static void clean_baseline(const struct agent *a, const struct rv_store_incident *inc,
			   struct rv_details_opts *o)
{
	double busy[RV_INCMERGE_OPEN_MAX + AGENT_RECENT_MAX + 1][2];
	size_t n = 0;

	if (a->last_fit_wall > 0 && a->fit_from > 0) {
		busy[n][0] = a->fit_from;
		busy[n++][1] = fmax(a->quiet_until, a->last_fit_wall);
	}

	for (size_t i = 0; i < a->nopen; i++) {
		const struct rv_store_incident *x = &a->open[i].inc;

		if (x->id != inc->id) {
			busy[n][0] = x->start_ts - o->window_s;
			busy[n++][1] = INFINITY;        /* still going */
		}
	}
	for (size_t i = 0; i < a->nrecent; i++) {
		const struct rv_store_incident *x = &a->recent[i];

		if (x->id != inc->id) {
			busy[n][0] = x->start_ts - o->window_s;
			busy[n++][1] = x->end_ts;
		}
	}
	rv_details_clean_baseline(inc->start_ts - o->window_s, (const double (*)[2])busy, n,
				  o->base_s, BASE_MIN_S, BASE_SETTLE_S, a->ex_ts[0], &o->base_from,
				  &o->base_to);
}

static int has_rule(const struct rv_store_cause *c, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].rule_id, id) == 0)
			return 1;
	return 0;
}

static void put_cause(struct rv_store_cause *c, const struct rv_kb_match *m,
		      enum rv_store_role role)
{
	snprintf(c->rule_id, sizeof(c->rule_id), "%s", rv_kb_rule_id(m->rule));
	snprintf(c->title, sizeof(c->title), "%s", rv_kb_rule_title(m->rule));
	c->confidence = m->confidence;
	c->role = role;
}

size_t rv_agent_rank_causes(const struct rv_kb *kb, const struct agent_onset *onset,
			    const struct rv_kb_match *cur, size_t ncur, const char *sub, int decide,
			    struct rv_store_cause *out)
{
	int decided = onset && onset->decided;
	size_t n = 0;

	for (size_t i = 0; decided && i < onset->n && n < RV_STORE_CAUSE_MAX; i++) {
		out[n] = onset->cause[i];
		out[n++].role = RV_STORE_ROLE_ONSET;
	}
	for (size_t m = 0; m < ncur && n < RV_STORE_CAUSE_MAX; m++)
		if (rv_kb_cause_of(kb, cur[m].rule, sub) && !has_rule(out, n, rv_kb_rule_id(cur[m].rule)))
			put_cause(&out[n++], &cur[m],
				  !decided && decide ? RV_STORE_ROLE_ONSET : RV_STORE_ROLE_CAUSE);
	for (size_t m = 0; m < ncur && n < RV_STORE_CAUSE_MAX; m++)
		if (!rv_kb_cause_of(kb, cur[m].rule, sub))
			put_cause(&out[n++], &cur[m], RV_STORE_ROLE_NOTE);
	return n;
}

/* Keeps the onset's causes (those of role onset) once it is decided. */
static void decide_onset(struct agent_onset *onset, const struct rv_store_details *det)
{
	if (onset->decided)
		return;
	onset->decided = 1;
	onset->n = 0;
	for (size_t i = 0; i < det->ncauses; i++)
		if (det->causes[i].role == RV_STORE_ROLE_ONSET)
			onset->cause[onset->n++] = det->causes[i];
}

/* The evidence, plots and stretches of d into det (the store's shape). */
static void fill_details(struct agent *a, const struct rv_store_incident *inc,
			 const struct rv_details *d, struct rv_store_details *det)
{
	const char *top[RV_STORE_SIG_MAX];
	size_t nkeep;

	for (size_t i = 0; i < inc->nsig; i++)
		top[i] = inc->sig[i].name;
	det->base_from = d->base_from;
	det->base_to = d->base_to;
	det->start_ts = d->start_ts;
	det->end_ts = d->end_ts;
	nkeep = rv_details_keep(&d->ev, top, inc->nsig, a->ex_idx, RV_STORE_EV_MAX);
	for (size_t i = 0; i < nkeep; i++)
		a->ex_ev[i] = store_ev(&d->ev.sig[a->ex_idx[i]]);
	det->nev = nkeep;
	det->ev = a->ex_ev;
	for (size_t i = 0; i < d->nseries && i < RV_STORE_SERIES_MAX; i++) {
		struct rv_store_series *s = &det->series[det->nseries++];
		snprintf(s->name, sizeof(s->name), "%s", d->series[i].name);
		s->n = d->series[i].n < RV_STORE_SERIES_POINTS ? d->series[i].n
							       : RV_STORE_SERIES_POINTS;
		s->ts = d->series[i].ts;
		s->v = d->series[i].v;
	}
}

int rv_agent_explain(struct agent *a, struct rv_store_incident *inc, struct rv_details *d,
		     struct rv_store_details *det, struct agent_onset *onset, int decide)
{
	const char *top[RV_STORE_SIG_MAX];
	struct rv_ev_source src;
	struct rv_details_opts o;
	struct rv_err err;
	int rc;

	memset(det, 0, sizeof(*det));
	memset(d, 0, sizeof(*d));
	if (!a->kb && (rc = rv_kb_new_builtin(&a->kb, NULL)) != 0)
		return rc;
	if (!a->model || a->ring.len == 0 || !a->ex_ts)
		return -ENODATA;
	for (size_t i = 0; i < a->ring.len; i++)
		a->ex_ts[i] = rv_ring_ts(&a->ring, a->ring.len - 1 - i);
	src.nrows = a->ring.len;
	src.nchan = a->nchan;
	src.ts = a->ex_ts;
	src.names = (const char *const *)a->names;
	src.get = ring_get;
	src.ctx = &a->ring;
	for (size_t i = 0; i < inc->nsig; i++)
		top[i] = inc->sig[i].name;
	o = rv_details_defaults((double)a->model->window * a->interval_s);
	clean_baseline(a, inc, &o);
	rv_err_clear(&err);
	rc = rv_details_build(&src, a->kb, inc->start_ts, inc->end_ts, top, inc->nsig, &o, d, &err);
	if (rc < 0) {
		rv_warn("agent: incident %llu: explaining: %s", (unsigned long long)inc->id,
			rv_err_text(&err, rc));
		return rc;
	}
	fill_details(a, inc, d, det);
	det->ncauses = rv_agent_rank_causes(a->kb, onset, d->match, d->nmatch, inc->subsystem,
					    !onset || decide, det->causes);
	if (onset && decide)
		decide_onset(onset, det);
	inc->cause[0] = inc->cause_title[0] = '\0';
	inc->cause_confidence = NAN;
	if (det->ncauses && det->causes[0].role != RV_STORE_ROLE_NOTE) {
		memcpy(inc->cause, det->causes[0].rule_id, sizeof(inc->cause));
		memcpy(inc->cause_title, det->causes[0].title, sizeof(inc->cause_title));
		inc->cause_confidence = det->causes[0].confidence;
	}
	return 0;
}

int rv_agent_explain_open(struct agent *a, struct agent_open *cur, double ts,
			  const struct agent_open *prev, int onset_done, struct rv_details *d,
			  struct rv_store_details *det)
{
	int decide = onset_done && !cur->onset.decided;

	memset(d, 0, sizeof(*d));
	if (!prev || decide || ts - prev->explained_ts >= EXPLAIN_UPDATE_S) {
		cur->explained_ts = ts;
		return rv_agent_explain(a, &cur->inc, d, det, &cur->onset, decide) == 0;
	}
	rv_agent_carry_cause(&cur->inc, &prev->inc);
	return 0;
}
void rv_agent_carry_cause(struct rv_store_incident *inc, const struct rv_store_incident *from)
{
	memcpy(inc->cause, from->cause, sizeof(inc->cause));
	memcpy(inc->cause_title, from->cause_title, sizeof(inc->cause_title));
	inc->cause_confidence = from->cause_confidence;
}
