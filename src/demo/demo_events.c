/*
 * demo_events.c - the demo follows the agent's incidents from its JSON
 * lines (demo_int.h): which fault each belongs to, when it was detected,
 * what it was blamed on.
 */
#include "demo/demo_int.h"

#include <math.h>
#include <string.h>

#include "base/json.h"

/* An incident opening this soon after a fault is its. */
static const double ATTRIBUTE_S = 15.0;

/* The fault an incident was attributed to when it opened, or NULL. */
static struct fault *fault_of(struct demo *d, long id)
{
	for (int i = 0; i < d->ntracked; i++)
		if (d->tracked[i].id == id)
			return &d->f[d->tracked[i].fault];
	return NULL;
}

static void track(struct demo *d, long id, int fault, double t, int linked)
{
	if (d->ntracked < MAX_TRACKED)
		d->tracked[d->ntracked++] = (struct tracked){ id, fault, t, linked };
}

/* The incident a follow-on phase follows (its "follows" id), 0: none. */
static long follows_of(const struct rv_json *ev)
{
	int64_t id;

	return rv_json_i64(rv_json_get(ev, "follows"), &id) == 0 && id > 0 ? (long)id : 0;
}

/*
 * An incident that opens while a fault is injected (or up to ATTRIBUTE_S
 * after it) belongs to that fault: the first one gives the time to detect,
 * and the fault's subsystem is that of its longest incident (on_close). A
 * follow-on phase belongs to the fault of the incident it follows and never
 * takes its blame. Any other incident is a false alarm.
 */
static void on_open(struct demo *d, long id, const struct rv_json *ev, double t)
{
	const char *sub = rv_json_str(rv_json_get(ev, "subsystem"), "?");
	const char *top = rv_json_str(rv_json_get(rv_json_at(rv_json_get(ev, "top_metrics"), 0),
						  "name"), "-");
	long prev = follows_of(ev);
	struct fault *pf = prev ? fault_of(d, prev) : NULL;

	d->open++;
	if (prev) {
		if (pf)
			track(d, id, (int)(pf - d->f), t, 1);
		rv_demo_say(d, ">>> incident %ld opened: a follow-on phase of incident %ld (subsystem %s, "
		       "top signal %s)", id, prev, sub, top);
		if (pf)
			return;
	}
	for (int i = RV_DEMO_FAULTS; i-- > 0;) {
		struct fault *f = &d->f[i];
		struct rv_demo_fault_result *r = &d->res->fault[i];

		if (f->t0 <= 0 || t < f->t0 || (f->t1 > 0 && t > f->t1 + ATTRIBUTE_S))
			continue;
		track(d, id, i, t, 0);
		r->close_s = NAN;   /* until this one closes */
		if (f->incident >= 0) {
			rv_demo_say(d, ">>> incident %ld opened during fault %d (subsystem %s, top signal %s)",
			    id, i + 1, sub, top);
			return;
		}
		f->incident = id;
		r->detected = 1;
		r->ttd_s = t - f->t0;
		copy_str(r->subsystem, sizeof(r->subsystem), sub);
		rv_demo_say(d, ">>> incident %ld opened %.1f s after the fault began (so far: subsystem "
		       "%s, top signal %s)", id, r->ttd_s, sub, top);
		return;
	}
	if (prev)
		return;   /* the false alarm it follows was counted */
	d->res->other_incidents++;
	rv_demo_say(d, ">>> incident %ld opened outside the faults (a false alarm): subsystem %s, "
	       "top signal %s", id, sub, top);
}

/*
 * A follow-on phase the agent no longer links to its cause (it grew
 * stronger than that incident: a new fault) is judged as if it had opened
 * on its own when it opened.
 */
static void on_unlinked(struct demo *d, long id, const struct rv_json *ev)
{
	for (int i = 0; i < d->ntracked; i++) {
		if (d->tracked[i].id != id || !d->tracked[i].linked || follows_of(ev))
			continue;
		double t = d->tracked[i].t;

		d->ntracked--;
		memmove(&d->tracked[i], &d->tracked[i + 1],
			(size_t)(d->ntracked - i) * sizeof(d->tracked[0]));
		rv_demo_say(d, "    incident %ld is no follow-on phase after all: it grew stronger than "
			    "the incident it followed", id);
		d->open--;
		on_open(d, id, ev, t);
		return;
	}
}

static void on_close(struct demo *d, long id, const struct rv_json *ev)
{
	const char *sub = rv_json_str(rv_json_get(ev, "subsystem"), "?");
	const struct rv_json *cause = rv_json_get(ev, "cause");
	const char *title = rv_json_str(rv_json_get(cause, "title"), NULL);
	const double conf = rv_json_num(rv_json_get(cause, "confidence"), 0.0);
	const double dur = rv_json_num(rv_json_get(ev, "duration_s"), 0.0);
	struct fault *f = fault_of(d, id);
	int first_phase = follows_of(ev) == 0;

	d->open -= d->open > 0;
	if (f && first_phase) {
		double tc = f->t1 > 0 ? rv_demo_now_s() - f->t1 : 0;

		d->res->fault[f - d->f].close_s = tc > 0 ? tc : 0;
	}
	if (f && first_phase && dur >= f->best_dur) {
		struct rv_demo_fault_result *r = &d->res->fault[f - d->f];

		f->best_dur = dur;
		copy_str(r->subsystem, sizeof(r->subsystem), sub);
		copy_str(r->cause, sizeof(r->cause), rv_json_str(rv_json_get(cause, "id"), ""));
		r->confidence = conf;
	}
	if (title)
		rv_demo_say(d, "    incident %ld closed after %.0f s: subsystem %s;"
			    " likely cause: %s (confidence %.0f %%)", id, dur, sub, title, 100.0 * conf);
	else
		rv_demo_say(d, "    incident %ld closed after %.0f s: subsystem %s;"
			    " no rule matched, see the report's top signals", id, dur, sub);
}

static void handle_line(struct demo *d, const char *text, size_t len)
{
	struct rv_json_doc *doc = NULL;
	const struct rv_json *ev;
	const char *kind;
	int64_t id;

	if (rv_json_parse(text, len, d->events, &doc, NULL) != 0)
		return;
	ev = rv_json_root(doc);
	kind = rv_json_str(rv_json_get(ev, "event"), "");
	if (rv_json_i64(rv_json_get(ev, "id"), &id) == 0) {
		if (strcmp(kind, "open") == 0)
			on_open(d, (long)id, ev, rv_demo_now_s());
		else
			on_unlinked(d, (long)id, ev);
		if (strcmp(kind, "close") == 0)
			on_close(d, (long)id, ev);
	}
	rv_json_doc_free(doc);
}

/* Reads the complete lines the agent appended since the last call. */
void rv_demo_poll_events(struct demo *d)
{
	char buf[8192];
	size_t n;

	if (!d->ev && !(d->ev = fopen(d->events, "r")))
		return;
	clearerr(d->ev);
	while ((n = fread(buf, 1, sizeof(buf), d->ev)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				if (d->line_len <= LINE_MAX_LEN)
					handle_line(d, d->line, d->line_len);
				d->line_len = 0;
				continue;
			}
			if (d->line_len < LINE_MAX_LEN)
				d->line[d->line_len] = buf[i];
			d->line_len++;
		}
	}
}

