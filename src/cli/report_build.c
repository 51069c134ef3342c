/*
 * report_build.c - where the incidents of `reveal report` come from: the
 * agent's store (read here: the rows, and the evidence and series the
 * agent stored, turned into explain's types) or an incidents file with its
 * data (read here, explained by pipeline/report_offline.c). Putting a
 * report incident together, the filters and the links between phases are
 * explain/report_build.h's. See report_cmd.c.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/report_int.h"
#include "detect/detector.h"
#include "explain/details.h"
#include "explain/report_build.h"
#include "pipeline/report_offline.h"

_Static_assert((int)RV_STORE_SIG_MAX <= (int)RV_REPORT_TOP_MAX,
	       "a stored incident's signals fit");

/* ------------------------------------------------------------ the store */

/* The filters of a: explain/report_build.h's. */
static struct rv_report_filter report_filter(const struct report_args *a)
{
	return (struct rv_report_filter){ .since = a->since, .until = a->until, .id = a->id,
					  .min_sev = a->min_sev, .subsystem = a->subsystem };
}

struct store_list {
	struct rv_store_incident *inc;
	size_t n, cap;
	int oom;
};

static int keep_incident(void *ctx, const struct rv_store_incident *inc)
{
	struct store_list *l = ctx;

	if (l->n == RV_REPORT_INCIDENTS_MAX)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct rv_store_incident *p = realloc(l->inc, cap * sizeof(*p));
		if (!p) {
			l->oom = 1;
			return -ENOMEM;
		}
		l->inc = p;
		l->cap = cap;
	}
	l->inc[l->n++] = *inc;
	return 0;
}

static void store_in(const struct rv_store_incident *s, struct rv_report_in *in)
{
	memset(in, 0, sizeof(*in));
	in->id = s->id;
	in->host = s->host;
	in->start_ts = s->start_ts;
	in->end_ts = s->end_ts;
	in->open = s->open;
	in->windows = s->windows;
	in->peak = s->peak_score;
	in->mean = s->mean_score;
	/* the stored bits named by the detector table (explain/ knows none) */
	for (int d = 0; d < rv_det_count() && in->ndet_names < RV_REPORT_DET_MAX; d++)
		if (s->detectors & RV_DET_BIT(d))
			in->det_name[in->ndet_names++] = rv_det_name(d);
	in->phase = s->phase ? s->phase : 1;
	in->follows = s->follows;
	rv_report_parse_subsystems(s->subsystems, in);
	if (in->nsub == 0 && s->subsystem[0]) {
		in->sub[0].name = rv_subsystem_name((enum rv_subsystem)rv_report_sub_index(s->subsystem));
		in->sub[0].share = 1;
		in->nsub = 1;
	}
	for (size_t i = 0; i < s->nsig && i < RV_STORE_SIG_MAX; i++) {
		in->top[i] = s->sig[i].name;
		in->top_share[i] = s->sig[i].share;
		in->top_base[i] = s->sig[i].baseline;
		in->top_value[i] = s->sig[i].value;
		in->ntop++;
	}
}

/* The evidence kept in the store (struct rv_store_ev rows, the fields of
 * struct rv_evidence_sig) as explain's struct rv_evidence. 0 or -ENOMEM. */
static int evidence_of_stored(const struct rv_store_details *d, struct rv_evidence *ev)
{
	struct rv_evidence_sig *sig = calloc(d->nev ? d->nev : 1, sizeof(*sig));
	int rc;

	if (!sig)
		return -ENOMEM;
	for (size_t i = 0; i < d->nev; i++) {
		const struct rv_store_ev *e = &d->ev[i];
		sig[i] = (struct rv_evidence_sig){ .name = e->name, .skew = e->skew,
						   .base_n = e->base_n, .inc_n = e->inc_n,
						   .base_mean = e->base_mean, .base_sd = e->base_sd,
						   .value = e->value, .inc_sd = e->inc_sd,
						   .peak = e->peak, .z = e->z, .change = e->change,
						   .dir = e->dir, .onset_ts = e->onset_ts };
	}
	rc = rv_evidence_from(sig, d->nev, d->start_ts, d->end_ts, ev);
	free(sig);
	return rc;
}

/* The stored consumers of incident id into r (pool copies); a read error
 * leaves the incident without them and says so in the note. */
static void consumers_of(struct rv_pool *pl, struct rv_store *st, uint64_t id,
			 struct rv_report_incident *r)
{
	struct rv_store_consumer c[RV_STORE_CONS_MAX];
	struct rv_report_consumer *out;
	struct rv_err err;
	size_t n = 0;

	rv_err_clear(&err);
	if (rv_store_get_consumers(st, id, c, RV_STORE_CONS_MAX, &n, &err) < 0) {
		rv_cli_error("report", "%s (the report goes on without them)", err.msg);
		n = 0;
	}
	out = n ? rv_pool_zalloc(pl, n, sizeof(*out)) : NULL;
	for (size_t i = 0; out && i < n; i++)
		out[i] = (struct rv_report_consumer){
			.text = rv_pool_str(pl, c[i].text), .is_cgroup = c[i].is_cgroup,
			.pid = c[i].pid, .comm = rv_pool_str(pl, c[i].comm),
			.cmd = rv_pool_str(pl, c[i].cmd), .cgroup = rv_pool_str(pl, c[i].cgroup),
			.label = rv_pool_str(pl, c[i].label),
			.runtime = rv_pool_str(pl, c[i].runtime),
			.container = rv_pool_str(pl, c[i].container),
			.pod_uid = rv_pool_str(pl, c[i].pod_uid), .qos = rv_pool_str(pl, c[i].qos),
			.slurm_job = rv_pool_str(pl, c[i].slurm_job),
			.unit = rv_pool_str(pl, c[i].unit),
			.resource = rv_pool_str(pl, c[i].resource), .amount = c[i].amount,
			.before = c[i].before, .share = c[i].share, .pressure = c[i].pressure,
			.measured_ts = c[i].measured_ts };
	rv_report_set_consumers(pl, r, out, out ? n : 0);
}

static int explain_stored(struct rv_pool *pl, struct rv_store *st, const struct rv_kb *kb,
			  const struct rv_report_in *in, struct rv_report_incident *r)
{
	struct rv_store_details d;
	struct rv_evidence ev = { 0 };
	struct rv_kb_match match[RV_KB_MATCH_MAX];
	size_t nmatch = 0;
	struct rv_err err;
	int rc;

	rv_report_fill_head(pl, r, in);
	rv_err_clear(&err);
	rc = rv_store_get_details(st, in->id, &d, &err);
	if (rc == -ENOENT) {
		rv_report_fill_signals(pl, r, in, NULL, NULL, 0);
		consumers_of(pl, st, in->id, r);
		r->note = in->open ? "The incident is still open and its evidence was not stored yet:"
				     " signals show the agent's baseline and value; no causes,"
				     " no plots."
				   : "No evidence was stored with this incident (written by an"
				     " older reveal): signals show the agent's baseline and value;"
				     " no causes, no plots.";
		return 0;
	}
	if (rc < 0) {
		rv_cli_error("report", "%s", rv_err_text(&err, rc));
		return rc;
	}
	rc = evidence_of_stored(&d, &ev);
	if (rc == 0) {
		struct rv_report_onset onset[RV_STORE_CAUSE_MAX];
		size_t nonset = 0;

		/* the causes the agent decided on the onset stay first */
		for (size_t i = 0; i < d.ncauses; i++)
			if (d.causes[i].role == RV_STORE_ROLE_ONSET)
				onset[nonset++] = (struct rv_report_onset){
					.id = rv_pool_printf(pl, "%.*s",
							     (int)sizeof(d.causes[i].rule_id),
							     d.causes[i].rule_id),
					.confidence = d.causes[i].confidence };
		ev.base_from = d.base_from;
		ev.base_to = d.base_to;
		nmatch = rv_kb_match(kb, &ev, rv_details_defaults(0).min_confidence, match,
				     RV_KB_MATCH_MAX);
		rv_report_fill_explained(pl, r, in, &ev, kb, match, nmatch, onset, nonset);
		struct rv_report_series *ser = rv_pool_zalloc(pl, d.nseries, sizeof(*ser));
		for (size_t i = 0; ser && i < d.nseries; i++)
			rv_report_add_series(pl, &ser[i], d.series[i].name, d.series[i].n, d.series[i].ts,
				   d.series[i].v, &ev);
		r->nseries = ser ? d.nseries : 0;
		r->series = ser;
		if (in->open)
			r->note = "The incident was still open when this report was made: the"
				  " evidence is from the agent's last update.";
		consumers_of(pl, st, in->id, r);
	}
	rv_evidence_free(&ev);
	rv_store_details_free(&d);
	return rc;
}

static int by_start(const void *a, const void *b)
{
	const struct rv_store_incident *x = a, *y = b;

	if (x->start_ts != y->start_ts)
		return x->start_ts < y->start_ts ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int rv_cli_report_from_store(struct rv_pool *pl, const struct report_args *a, const struct rv_kb *kb,
		      struct rv_report *rep)
{
	struct store_list l = { 0 };
	struct rv_store *st = NULL;
	struct rv_report_incident *r;
	struct rv_report_row *rows = NULL;
	struct rv_report_filter f = report_filter(a);
	struct rv_err err;
	int rc;

	/* read-only: an operator who may only read the store gets the report,
	 * and an older store is upgraded in memory, not in the file */
	rv_err_clear(&err);
	rc = rv_store_open_ro(a->store, &st, &err);
	if (rc == 0)  /* all of them: `passes` applies --since */
		rc = rv_store_list_incidents(st, -INFINITY, 0, keep_incident, &l, &err);
	if (rc < 0) {
		rv_cli_error("report", "%s", l.oom ? "out of memory" : rv_err_text(&err, rc));
		goto out;
	}
	if (l.n)   /* an empty store lists none: l.inc is NULL */
		qsort(l.inc, l.n, sizeof(*l.inc), by_start);
	r = rv_pool_zalloc(pl, l.n, sizeof(*r));
	rows = malloc((l.n ? l.n : 1) * sizeof(*rows));
	if (!r || !rows) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		struct rv_report_in in;
		store_in(&l.inc[i], &in);
		rows[i] = rv_report_row_of(&in);
		if (!rv_report_passes(&f, &in))
			continue;
		rc = explain_stored(pl, st, kb, &in, &r[rep->nincidents]);
		if (rc == 0)
			rep->nincidents++;
	}
	if (rc == 0)
		rc = rv_report_link(pl, rows, l.n, r, rep->nincidents);
	rep->incidents = r;
	rep->source = rv_pool_printf(pl, "store %s", a->store);
out:
	free(rows);
	free(l.inc);
	rv_store_close(st);
	return rc;
}

/* --------------------------------------------------- offline: JSON + data */

void rv_cli_offline_free(struct offline_data *od)
{
	free(od->text);
	rv_report_offline_free(&od->built);
	memset(od, 0, sizeof(*od));
}

int rv_cli_report_from_offline(struct rv_pool *pl, const struct report_args *a, const struct rv_kb *kb,
			struct rv_report *rep, struct offline_data *od)
{
	struct rv_report_filter f = report_filter(a);
	size_t len = 0;
	struct rv_err err;
	int rc = rv_cli_report_read_file(a->incidents, INCIDENTS_FILE_MAX_BYTES, &od->text, &len);

	if (rc)
		return rc;
	rv_err_clear(&err);
	rc = rv_report_offline_build(pl, &f, kb, a->incidents, od->text, len, a->data, a->window_s,
				     a->window_n, rep, &od->built, &err);
	if (rc && (rc != -ENOMEM || err.msg[0]))
		rv_cli_error("report", "%s", rv_err_text(&err, rc));
	return rc;
}
