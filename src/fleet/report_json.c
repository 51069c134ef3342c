/*
 * report_json.c - the JSON format of a fleet report: one object whose
 * schema is documented at the top of report.c, for scripts, alerting and
 * other tools.
 *
 * Strings go through base/json.h's one string writer (RFC 8259 escapes,
 * invalid UTF-8 as U+FFFD, NULL as null); numbers through base/fmtnum.h
 * (%.15g: a double read back is the double written), null when not
 * finite. Counts are integers. The verdict's sentences are those of the
 * other formats, built in a buffer and written as strings. One straggler,
 * finding or group per line, so line tools still work.
 */
#include "fleet/report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/buf.h"
#include "base/fmtnum.h"
#include "base/json.h"

/* A writer of members and items: the comma before all but the first. */
struct jw {
	FILE *f;
	int first;         /* nothing written yet in the open object or array */
	int newline;       /* the next member or item starts a line */
	int failed;        /* -ENOMEM once a sentence did not fit */
	struct rv_buf say; /* a verdict sentence */
};

static void sep(struct jw *w)
{
	if (!w->first)
		fputc(',', w->f);
	if (w->newline)
		fputc('\n', w->f);
	w->first = 0;
	w->newline = 0;
}

static void key(struct jw *w, const char *k)
{
	sep(w);
	fprintf(w->f, "\"%s\":", k);
}

/* Opens an object or array, as member k (k NULL: as an item). */
static void open_(struct jw *w, const char *k, char c)
{
	if (k)
		key(w, k);
	else
		sep(w);
	fputc(c, w->f);
	w->first = 1;
}

static void close_(struct jw *w, char c)
{
	fputc(c, w->f);
	w->first = 0;
}

static void num(struct jw *w, const char *k, double v)
{
	char buf[RV_FMT_MAX];
	key(w, k);
	if (isfinite(v))
		fwrite(buf, 1, rv_fmt_g15(v, buf), w->f);
	else
		fputs("null", w->f);
}

static void count(struct jw *w, const char *k, uint64_t v)
{
	key(w, k);
	fprintf(w->f, "%" PRIu64, v);
}

static void str(struct jw *w, const char *k, const char *s)
{
	key(w, k);
	rv_json_fput_str(w->f, s);
}

static void boolean(struct jw *w, const char *k, int v)
{
	key(w, k);
	fputs(v ? "true" : "false", w->f);
}

/* "<k>_ts": unix seconds, "<k>": ISO-8601 (both null when unknown). */
static void when(struct jw *w, const char *k, double ts)
{
	char name[RV_FLEET_REP_CELL], iso[RV_FLEET_REP_CELL];
	snprintf(name, sizeof(name), "%s_ts", k);
	num(w, name, ts);
	rv_fleet_rep_iso(ts, iso, sizeof(iso));
	str(w, k, isfinite(ts) && strcmp(iso, "?") != 0 ? iso : NULL);
}

static void fleet(struct jw *w, const struct rv_fleet_result *r)
{
	open_(w, "fleet", '{');
	str(w, "url", r->url);
	str(w, "selector", r->selector);
	str(w, "group_by", r->group_by);
	when(w, "since", r->since);
	when(w, "until", r->until);
	num(w, "duration_s", r->until - r->since);
	when(w, "t0", r->t0);
	num(w, "step_s", r->step);
	count(w, "windows", r->nwin);
	count(w, "nodes", r->nnodes);
	count(w, "channels", r->nchan);
	count(w, "groups", r->group ? r->ngroup : 0);
	num(w, "threshold", r->threshold);
	count(w, "persist_windows", r->persist);
	num(w, "persist_s", (double)r->persist * r->step);
	count(w, "small_groups", r->nsmall);
	count(w, "requests", r->requests);
	count(w, "bytes", r->bytes);
	num(w, "read_s", r->read_s);
	num(w, "analyse_s", r->analyse_s);
	close_(w, '}');
}

static void buf_add(void *ctx, const char *s)
{
	struct jw *w = ctx;
	rv_buf_puts(&w->say, s);
}

/* The sentence in w->say as member k (NULL: an item). */
static void said(struct jw *w, const char *k)
{
	int failed = rv_buf_failed(&w->say);
	if (k)
		key(w, k);
	else
		sep(w);
	rv_json_fput_str(w->f, failed ? NULL : rv_buf_text(&w->say, NULL));
	w->failed = failed ? -ENOMEM : w->failed;
	rv_buf_reset(&w->say);
}

static void item_end(void *ctx, const char *anchor)
{
	(void)anchor;
	said(ctx, NULL);
}

static void verdict(struct jw *w, const struct rv_fleet_result *r)
{
	const struct rv_fleet_rep_sink k = { .text = buf_add, .name = buf_add, .end = item_end,
					     .ctx = w };
	w->newline = 1;
	open_(w, "verdict", '{');
	count(w, "findings", rv_fleet_rep_findings(r));
	count(w, "stragglers", r->strag ? r->nstrag : 0);
	count(w, "drift", r->drift ? r->ndrift : 0);
	rv_fleet_rep_say_head(r, &k);
	said(w, "headline");
	open_(w, "sentences", '[');
	rv_fleet_rep_say_list(r, &k);
	close_(w, ']');
	close_(w, '}');
}

static void sig_item(struct jw *w, const struct rv_fleet_signal *g)
{
	char d[RV_FLEET_REP_CELL];
	rv_fleet_rep_diff(g->value, g->median, g->channel, d, sizeof(d));
	open_(w, NULL, '{');
	str(w, "channel", g->channel);
	num(w, "value", g->value);
	num(w, "median", g->median);
	num(w, "diff", g->value - g->median);
	num(w, "ratio", g->median != 0 ? g->value / g->median : NAN);
	str(w, "diff_text", d);
	num(w, "z", g->z);
	boolean(w, "plotted", g->node_v != NULL);
	close_(w, '}');
}

static void straggler(struct jw *w, const struct rv_fleet_result *r,
		      const struct rv_fleet_straggler *s)
{
	w->newline = 1;
	open_(w, NULL, '{');
	str(w, "group", s->group);
	str(w, "node", s->node);
	num(w, "peak", s->peak);
	open_(w, "stretches", '[');
	for (size_t i = 0; s->stretch && i < s->nstretch; i++) {
		open_(w, NULL, '{');
		when(w, "start", s->stretch[i].start);
		when(w, "end", s->stretch[i].end);
		num(w, "duration_s", rv_fleet_rep_stretch_s(r, &s->stretch[i]));
		num(w, "peak", s->stretch[i].peak);
		close_(w, '}');
	}
	close_(w, ']');
	open_(w, "signals", '[');
	for (size_t i = 0; s->sig && i < s->nsig; i++)
		sig_item(w, &s->sig[i]);
	close_(w, ']');
	close_(w, '}');
}

static void drift(struct jw *w, const struct rv_fleet_drift *d)
{
	w->newline = 1;
	open_(w, NULL, '{');
	str(w, "group", d->group);
	str(w, "key", d->key);
	boolean(w, "split", d->majority == NULL);
	str(w, "majority", d->majority);
	count(w, "majority_nodes", d->nmajority);
	count(w, "nodes", d->nnodes);
	num(w, "tolerance", d->tolerance > 0 ? d->tolerance : 0);
	open_(w, "odd", '[');
	for (size_t i = 0; d->odd && i < d->nodd; i++) {
		const char *v = d->odd[i].value;
		open_(w, NULL, '{');
		str(w, "node", d->odd[i].node);
		str(w, "value", v && *v ? v : NULL);
		close_(w, '}');
	}
	close_(w, ']');
	close_(w, '}');
}

static void group(struct jw *w, const struct rv_fleet_result *r, const struct rv_fleet_group *g)
{
	w->newline = 1;
	open_(w, NULL, '{');
	str(w, "name", rv_fleet_rep_str(g->name));
	count(w, "nodes", g->nnodes);
	count(w, "flagged", g->nflagged);
	boolean(w, "small", rv_fleet_rep_small(g));
	open_(w, "members", '[');
	for (size_t i = 0; g->node && i < g->nnodes; i++) {
		open_(w, NULL, '{');
		str(w, "node", g->node[i]);
		boolean(w, "straggler", rv_fleet_rep_flagged(r, g->name, g->node[i]));
		close_(w, '}');
	}
	close_(w, ']');
	close_(w, '}');
}

int rv_fleet_rep_json(FILE *f, const struct rv_fleet_result *r)
{
	struct jw w = { .f = f, .first = 1 };
	rv_buf_init(&w.say, 0);
	open_(&w, NULL, '{');
	fleet(&w, r);
	verdict(&w, r);
	w.newline = 1;
	open_(&w, "stragglers", '[');
	for (size_t i = 0; r->strag && i < r->nstrag; i++)
		straggler(&w, r, &r->strag[i]);
	close_(&w, ']');
	w.newline = 1;
	open_(&w, "drift", '[');
	for (size_t i = 0; r->drift && i < r->ndrift; i++)
		drift(&w, &r->drift[i]);
	close_(&w, ']');
	w.newline = 1;
	open_(&w, "groups", '[');
	for (size_t i = 0; r->group && i < r->ngroup; i++)
		group(&w, r, &r->group[i]);
	close_(&w, ']');
	close_(&w, '}');
	fputc('\n', f);
	rv_buf_fini(&w.say);
	return w.failed;
}
