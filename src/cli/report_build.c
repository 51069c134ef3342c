/*
 * report_build.c - the incidents of `reveal report` and their
 * explanations: from the agent's store (the evidence and series it stored)
 * or from an incidents file with its data (evidence and series worked out
 * here with explain/details.c, as the agent does), with the phase and
 * the incident each follows; report_links.c links the phases. See
 * report_cmd.c.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/report_int.h"
#include "explain/details.h"
#include "explain/incident.h"
#include "record/csv.h"
#include "record/rvl_table.h"

static const char *const sev_names[] = { "minor", "major", "critical" };
static const char *const det_names[] = { "zscore", "pca", "iforest", "spe" };

static int parse_enum(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* ------------------------------------------------- one incident, explained */


static const char *unit_of(const char *name)
{
	char type[RV_STORE_SIG_NAME_LEN];
	const char *colon = strchr(name, ':');
	size_t n = colon ? (size_t)(colon - name) : strlen(name);
	const struct rv_metric *m;

	if (n >= sizeof(type))
		return "";
	memcpy(type, name, n);
	type[n] = '\0';
	m = rv_catalog_metric(type);
	return m && m->unit ? m->unit : "";
}

static void fill_signal(struct pool *pl, struct rv_report_signal *s, const char *name,
			const struct rv_evidence_sig *e, double share, double base, double value)
{
	memset(s, 0, sizeof(*s));
	s->name = pool_str(pl, name);
	s->unit = unit_of(name);
	s->share = share;
	s->baseline = e ? e->base_mean : base;
	s->base_sd = e ? e->base_sd : NAN;
	s->value = e ? e->value : value;
	s->peak = e ? e->peak : NAN;
	s->z = e && e->base_n >= RV_EV_MIN_BASE ? e->z : NAN;
	s->dir = e ? e->dir : 0;
	s->onset_ts = e ? e->onset_ts : NAN;
	if (e)
		s->change = e->change;
	else if (isfinite(base) && isfinite(value))
		s->change = base != 0 ? (value - base) / fabs(base)
				      : value == 0 ? 0 : value > 0 ? INFINITY : -INFINITY;
	else
		s->change = NAN;
}

static const char *num_text(struct pool *pl, double v)
{
	if (!isfinite(v))
		return "?";
	if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
		return pool_printf(pl, "%.3g", v);
	return pool_printf(pl, "%.4g", v);
}

/* An undecided rule's candidates as "a, b, c"; "" for a decided rule. */
static const char *candidates_text(struct pool *pl, const struct rv_kb_rule *rule)
{
	const char *t = "";

	for (size_t i = 0; t && i < rv_kb_rule_ncandidates(rule); i++)
		t = pool_printf(pl, "%s%s%s", t, i ? ", " : "", rv_kb_rule_candidate(rule, i));
	return t ? t : "";
}

static void fill_causes(struct pool *pl, struct rv_report_incident *r,
			const struct rv_kb_match *match, size_t nmatch)
{
	struct rv_report_cause *c = pool_zalloc(pl, nmatch, sizeof(*c));

	if (!c)
		return;
	for (size_t m = 0; m < nmatch; m++) {
		const struct rv_kb_rule *rule = match[m].rule;
		const char **ev = pool_zalloc(pl, match[m].nev, sizeof(*ev));
		size_t nchk = rv_kb_rule_nchecks(rule);
		struct rv_report_check *chk = pool_zalloc(pl, nchk, sizeof(*chk));

		if (!ev || !chk)
			return;
		c[m].id = rv_kb_rule_id(rule);
		c[m].title = rv_kb_rule_title(rule);
		c[m].subsystem = rv_kb_rule_subsystem(rule);
		c[m].confidence = match[m].confidence;
		c[m].cause = rv_kb_rule_cause(rule);
		c[m].fix = rv_kb_rule_fix(rule);
		c[m].undecided = candidates_text(pl, rule);
		c[m].decided_by = rv_kb_rule_decided_by(rule);
		c[m].measured = rv_kb_rule_measured(rule, &c[m].measured_first,
						    &c[m].measured_right);
		for (size_t e = 0; e < match[m].nev; e++) {
			const struct rv_kb_evidence *x = &match[m].ev[e];
			const struct rv_evidence_sig *s = x->sig;
			const char *unit = unit_of(s->name);
			ev[e] = pool_printf(pl, "%s: %s -> %s%s%s (z %s)%s", x->what,
					    num_text(pl, s->base_mean), num_text(pl, s->value),
					    *unit ? " " : "", unit, num_text(pl, s->z),
					    x->required ? "" : " (supporting)");
		}
		c[m].nevidence = match[m].nev;
		c[m].evidence = ev;
		for (size_t k = 0; k < nchk; k++) {
			chk[k].cmd = rv_kb_rule_check(rule, k);
			chk[k].why = rv_kb_rule_check_why(rule, k);
		}
		c[m].nchecks = nchk;
		c[m].checks = chk;
	}
	r->ncauses = nmatch;
	r->causes = c;
}

/* Key signals: the incident's top signals, then the likeliest cause's
 * evidence not among them. */
static void fill_signals(struct pool *pl, struct rv_report_incident *r, const struct inc_in *in,
			 const struct rv_evidence *ev, const struct rv_kb_match *match,
			 size_t nmatch)
{
	struct rv_report_signal *s = pool_zalloc(pl, KEY_SIGNALS_MAX, sizeof(*s));
	size_t n = 0;

	if (!s)
		return;
	for (size_t i = 0; i < in->ntop; i++) {
		const struct rv_evidence_sig *e = ev ? rv_evidence_find(ev, in->top[i]) : NULL;
		fill_signal(pl, &s[n++], in->top[i], e, in->top_share[i], in->top_base[i],
			    in->top_value[i]);
	}
	for (size_t k = 0; nmatch && k < match[0].nev && n < KEY_SIGNALS_MAX; k++) {
		const struct rv_evidence_sig *e = match[0].ev[k].sig;
		int dup = 0;
		for (size_t j = 0; j < n; j++)
			dup |= strcmp(s[j].name, e->name) == 0;
		if (!dup)
			fill_signal(pl, &s[n++], e->name, e, NAN, NAN, NAN);
	}
	r->nsignals = n;
	r->signals = s;
}

static void fill_chain(struct pool *pl, struct rv_report_incident *r, const struct inc_in *in,
		       const struct rv_evidence *ev, const struct rv_kb_match *match,
		       size_t nmatch)
{
	struct rv_chain_step steps[RV_DETAILS_CHAIN_MAX];
	size_t n = rv_chain_build(ev, in->top, in->ntop, match, nmatch, steps,
				  RV_DETAILS_CHAIN_MAX);
	struct rv_report_step *out;

	if (n < 2)
		return;
	out = pool_zalloc(pl, n, sizeof(*out));
	if (!out)
		return;
	for (size_t i = 0; i < n; i++) {
		out[i].name = pool_str(pl, steps[i].sig->name);
		out[i].subsystem = rv_subsystem_name(steps[i].sub);
		out[i].dir = steps[i].sig->dir;
		out[i].onset_ts = steps[i].sig->onset_ts;
	}
	r->nchain = n;
	r->chain = out;
}

/* A plot series from samples (ts, v as float) with the band of its
 * evidence entry. */
static void add_series(struct pool *pl, struct rv_report_series *out, const char *name,
		       size_t n, const double *ts, const float *v, const struct rv_evidence *ev)
{
	const struct rv_evidence_sig *e = ev ? rv_evidence_find(ev, name) : NULL;
	double *t = pool_zalloc(pl, n, sizeof(*t)), *y = pool_zalloc(pl, n, sizeof(*y));

	memset(out, 0, sizeof(*out));
	out->name = pool_str(pl, name);
	out->unit = unit_of(name);
	out->band_lo = out->band_hi = out->base_mean = NAN;
	if (e && e->base_n >= RV_EV_MIN_BASE && isfinite(e->base_mean)) {
		double sd = rv_evidence_sd_eff(e->base_mean, e->base_sd);
		out->base_mean = e->base_mean;
		out->band_lo = e->base_mean - RV_EV_MOVED_Z * sd;
		out->band_hi = e->base_mean + RV_EV_MOVED_Z * sd;
	}
	if (!t || !y)
		return;
	for (size_t i = 0; i < n; i++) {
		t[i] = ts[i];
		y[i] = v[i];
	}
	out->n = n;
	out->ts = t;
	out->v = y;
}

/* The parts every input shares: row fields, detectors, subsystems. */
static void fill_head(struct pool *pl, struct rv_report_incident *r, const struct inc_in *in)
{
	const char **det = pool_zalloc(pl, 8, sizeof(*det));
	struct rv_report_subsys *sub = pool_zalloc(pl, RV_SUB_COUNT, sizeof(*sub));

	memset(r, 0, sizeof(*r));
	r->id = in->id;
	r->host = pool_str(pl, in->host);
	r->start_ts = in->start_ts;
	r->end_ts = in->end_ts;
	r->open = in->open;
	r->windows = in->windows;
	r->peak_score = in->peak;
	r->mean_score = in->mean;
	r->severity = rv_incident_severity(in->peak);
	r->note = "";
	r->phase = in->phase;
	r->follows = in->follows;
	if (det) {
		if (in->ndet_names) {
			for (size_t i = 0; i < in->ndet_names && i < 8; i++)
				det[r->ndetectors++] = pool_str(pl, in->det_name[i]);
		} else {
			for (size_t b = 0; b < sizeof(det_names) / sizeof(det_names[0]); b++)
				if (in->detectors & (1u << b))
					det[r->ndetectors++] = det_names[b];
		}
		r->detectors = det;
	}
	if (sub) {
		for (size_t i = 0; i < in->nsub; i++)
			sub[i] = in->sub[i];
		r->nsubsys = in->nsub;
		r->subsys = sub;
	}
}

/* ------------------------------------------------------------ the store */

/* "cpu:0.712,mem:0.204" -> ranked subsystems; bad entries are skipped. */
static void parse_subsystems(const char *text, struct inc_in *in)
{
	static const char *const names[] = { "cpu", "gpu", "mem", "net", "storage", "other" };
	const char *p = text;

	while (*p && in->nsub < RV_SUB_COUNT) {
		const char *colon = strchr(p, ':'), *comma = strchr(p, ',');
		char *end;
		if (!colon || (comma && comma < colon))
			break;
		double share = strtod(colon + 1, &end);
		for (int s = 0; s < RV_SUB_COUNT; s++)
			if ((size_t)(colon - p) == strlen(names[s]) &&
			    strncmp(p, names[s], (size_t)(colon - p)) == 0 && end != colon + 1 &&
			    isfinite(share)) {
				in->sub[in->nsub].name = names[s];
				in->sub[in->nsub].share = share;
				in->nsub++;
			}
		p = comma ? comma + 1 : p + strlen(p);
	}
}

struct store_list {
	struct rv_store_incident *inc;
	size_t n, cap;
	int oom;
};

static int keep_incident(void *ctx, const struct rv_store_incident *inc)
{
	struct store_list *l = ctx;

	if (l->n == INCIDENTS_MAX)
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

static int sub_index(const char *name)
{
	for (int s = 0; s < RV_SUB_COUNT; s++)
		if (strcmp(name, rv_subsystem_name((enum rv_subsystem)s)) == 0)
			return s;
	return RV_SUB_OTHER;
}

/* The filters other than time (the store and the JSON reader apply those). */
static int passes(const struct report_args *a, const struct inc_in *in)
{
	int sev = parse_enum(rv_incident_severity(in->peak), sev_names, 3);

	if (in->end_ts < a->since || in->start_ts > a->until)
		return 0;
	if (a->id && in->id != a->id)
		return 0;
	if (sev < a->min_sev)
		return 0;
	if (a->subsystem >= 0) {
		int hit = 0;
		for (size_t i = 0; i < in->nsub; i++)
			hit |= sub_index(in->sub[i].name) == a->subsystem &&
			       (i == 0 || in->sub[i].share >= 0.25);
		if (!hit)
			return 0;
	}
	return 1;
}

static void store_in(const struct rv_store_incident *s, struct inc_in *in)
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
	in->detectors = s->detectors;
	in->phase = s->phase ? s->phase : 1;
	in->follows = s->follows;
	parse_subsystems(s->subsystems, in);
	if (in->nsub == 0 && s->subsystem[0]) {
		in->sub[0].name = rv_subsystem_name((enum rv_subsystem)sub_index(s->subsystem));
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

/* The row of in for report_link. */
static struct report_row row_of(const struct inc_in *in)
{
	return (struct report_row){ .id = in->id, .follows = in->follows,
				    .subsystem = in->nsub ? in->sub[0].name : "",
				    .start_ts = in->start_ts };
}

static int explain_stored(struct pool *pl, struct rv_store *st, const struct rv_kb *kb,
			  const struct inc_in *in, struct rv_report_incident *r)
{
	struct rv_store_details d;
	struct rv_evidence ev = { 0 };
	struct rv_kb_match match[RV_KB_MATCH_MAX];
	size_t nmatch = 0;
	struct rv_err err;
	int rc;

	fill_head(pl, r, in);
	rv_err_clear(&err);
	rc = rv_store_get_details(st, in->id, &d, &err);
	if (rc == -ENOENT) {
		fill_signals(pl, r, in, NULL, NULL, 0);
		r->note = in->open ? "The incident is still open and its evidence was not stored yet:"
				     " signals show the agent's baseline and value; no causes,"
				     " no plots."
				   : "No evidence was stored with this incident (written by an"
				     " older reveal): signals show the agent's baseline and value;"
				     " no causes, no plots.";
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "reveal report: %s\n", rv_err_text(&err, rc));
		return rc;
	}
	rc = rv_evidence_from(d.ev, d.nev, d.start_ts, d.end_ts, &ev);
	if (rc == 0) {
		ev.base_from = d.base_from;
		ev.base_to = d.base_to;
		nmatch = rv_kb_match(kb, &ev, rv_details_defaults(0).min_confidence, match,
				     RV_KB_MATCH_MAX);
		fill_signals(pl, r, in, &ev, match, nmatch);
		fill_causes(pl, r, match, nmatch);
		fill_chain(pl, r, in, &ev, match, nmatch);
		struct rv_report_series *ser = pool_zalloc(pl, d.nseries, sizeof(*ser));
		for (size_t i = 0; ser && i < d.nseries; i++)
			add_series(pl, &ser[i], d.series[i].name, d.series[i].n, d.series[i].ts,
				   d.series[i].v, &ev);
		r->nseries = ser ? d.nseries : 0;
		r->series = ser;
		if (in->open)
			r->note = "The incident was still open when this report was made: the"
				  " evidence is from the agent's last update.";
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

int report_from_store(struct pool *pl, const struct report_args *a, const struct rv_kb *kb,
		      struct rv_report *rep)
{
	struct store_list l = { 0 };
	struct rv_store *st = NULL;
	struct rv_report_incident *r;
	struct report_row *rows = NULL;
	struct rv_err err;
	int rc;

	/* read-only: an operator who may only read the store gets the report,
	 * and an older store is upgraded in memory, not in the file */
	rv_err_clear(&err);
	rc = rv_store_open_ro(a->store, &st, &err);
	if (rc == 0)  /* all of them: `passes` applies --since */
		rc = rv_store_list_incidents(st, -INFINITY, 0, keep_incident, &l, &err);
	if (rc < 0) {
		fprintf(stderr, "reveal report: %s\n", l.oom ? "out of memory" : rv_err_text(&err, rc));
		goto out;
	}
	if (l.n)   /* an empty store lists none: l.inc is NULL */
		qsort(l.inc, l.n, sizeof(*l.inc), by_start);
	r = pool_zalloc(pl, l.n, sizeof(*r));
	rows = malloc((l.n ? l.n : 1) * sizeof(*rows));
	if (!r || !rows) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		struct inc_in in;
		store_in(&l.inc[i], &in);
		rows[i] = row_of(&in);
		if (!passes(a, &in))
			continue;
		rc = explain_stored(pl, st, kb, &in, &r[rep->nincidents]);
		if (rc == 0)
			rep->nincidents++;
	}
	if (rc == 0)
		rc = report_link(pl, rows, l.n, r, rep->nincidents);
	rep->incidents = r;
	rep->source = pool_printf(pl, "store %s", a->store);
out:
	free(rows);
	free(l.inc);
	rv_store_close(st);
	return rc;
}

/* --------------------------------------------------- offline: JSON + data */

static float table_get(const void *ctx, size_t row, size_t chan)
{
	const struct rv_table *t = ctx;
	return rv_table_at(t, chan, row);
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median time between rows (1 when there are too few rows). */
static double median_step(const double *ts, size_t n)
{
	size_t m = n > 1 ? n - 1 : 0, k = 0;
	double *d, med = 1;

	if (m == 0 || !(d = malloc(m * sizeof(*d))))
		return 1;
	for (size_t i = 0; i < m; i++)
		if (ts[i + 1] > ts[i])
			d[k++] = ts[i + 1] - ts[i];
	if (k) {
		qsort(d, k, sizeof(*d), by_double);
		med = d[k / 2];
	}
	free(d);
	return med;
}

static int read_data(const char *path, struct rv_table **t)
{
	struct rv_err err;
	size_t n = strlen(path);
	int rc;

	rv_err_clear(&err);
	rc = n > 4 && strcmp(path + n - 4, ".rvl") == 0 ? rv_rvl_read_table(path, t, NULL, &err)
							: rv_csv_read(path, t, &err);
	if (rc)
		fprintf(stderr, "reveal report: %s\n", rv_err_text(&err, rc));
	return rc;
}

/* "phase" and "follows" of incident object o into in; a file of an older
 * reveal has neither (phase 1, following none). */
static int json_phase(const struct rv_json *o, const char *file, struct inc_in *in)
{
	const struct rv_json *ph = rv_json_get(o, "phase"), *fo = rv_json_get(o, "follows");
	int64_t v = 1;

	in->phase = 1;
	in->follows = 0;
	if (ph && (rv_json_i64(ph, &v) != 0 || v < 1 || v > UINT_MAX)) {
		fprintf(stderr, "reveal report: %s:%zu: incident %llu: \"phase\" must be a whole"
			" number, 1 or more\n", file, rv_json_line(ph), (unsigned long long)in->id);
		return -EINVAL;
	}
	in->phase = (unsigned)v;
	if (fo && rv_json_type(fo) != RV_JSON_NULL &&
	    (rv_json_i64(fo, &v) != 0 || v < 1 || (uint64_t)v == in->id)) {
		fprintf(stderr, "reveal report: %s:%zu: incident %llu: \"follows\" must be null or"
			" the id of another incident\n", file, rv_json_line(fo),
			(unsigned long long)in->id);
		return -EINVAL;
	}
	in->follows = fo && rv_json_type(fo) != RV_JSON_NULL ? (uint64_t)v : 0;
	return 0;
}

/* One incident object of the JSON into in (names point into the doc). */
static int json_in(const struct rv_json *o, const char *file, struct inc_in *in)
{
	const struct rv_json *det = rv_json_get(o, "detectors"), *top = rv_json_get(o, "top_metrics");
	const char *sub = rv_json_str(rv_json_get(o, "subsystem"), "other");
	double id = rv_json_num(rv_json_get(o, "id"), NAN);
	double share_sum[RV_SUB_COUNT] = { 0 }, total = 0;

	memset(in, 0, sizeof(*in));
	in->host = "";
	in->start_ts = rv_json_num(rv_json_get(o, "start"), NAN);
	in->end_ts = rv_json_num(rv_json_get(o, "end"), NAN);
	if (rv_json_type(o) != RV_JSON_OBJECT || !(id >= 1 && id < 9e15) ||
	    !isfinite(in->start_ts) || !isfinite(in->end_ts) || in->end_ts < in->start_ts) {
		fprintf(stderr, "reveal report: %s:%zu: an incident needs an id and finite start <="
			" end\n", file, rv_json_line(o));
		return -EINVAL;
	}
	in->id = (uint64_t)id;
	in->windows = (size_t)fmax(0, rv_json_num(rv_json_get(o, "windows"), 0));
	in->peak = rv_json_num(rv_json_get(o, "peak_score"), NAN);
	in->mean = rv_json_num(rv_json_get(o, "mean_score"), NAN);
	for (size_t i = 0; det && i < rv_json_len(det) && in->ndet_names < 8; i++) {
		const char *d = rv_json_str(rv_json_at(det, i), NULL);
		if (d)
			in->det_name[in->ndet_names++] = d;
	}
	for (size_t i = 0; top && i < rv_json_len(top) && in->ntop < RV_STORE_SIG_MAX; i++) {
		const struct rv_json *t = rv_json_at(top, i);
		const char *name = rv_json_str(rv_json_get(t, "name"), NULL);
		double share = rv_json_num(rv_json_get(t, "share"), NAN);
		if (!name)
			continue;
		in->top[in->ntop] = name;
		in->top_share[in->ntop] = share;
		in->top_base[in->ntop] = in->top_value[in->ntop] = NAN;
		in->ntop++;
		if (isfinite(share) && share > 0) {
			share_sum[rv_catalog_subsystem(name)] += share;
			total += share;
		}
	}
	/* subsystems: the top metrics' shares per subsystem (the file keeps
	 * only the top ones), the named subsystem first */
	in->sub[0].name = rv_subsystem_name((enum rv_subsystem)sub_index(sub));
	in->sub[0].share = total > 0 ? share_sum[sub_index(sub)] / total : 1;
	in->nsub = 1;
	for (int s = 0; s < RV_SUB_COUNT; s++) {
		if (s == sub_index(sub) || !(share_sum[s] > 0))
			continue;
		in->sub[in->nsub].name = rv_subsystem_name((enum rv_subsystem)s);
		in->sub[in->nsub].share = share_sum[s] / total;
		in->nsub++;
	}
	return json_phase(o, file, in);
}

static int explain_offline(struct pool *pl, const struct rv_ev_source *src,
			   const struct rv_kb *kb, const struct rv_details_opts *o,
			   const struct inc_in *in, struct rv_report_incident *r)
{
	struct rv_details d;
	struct rv_err err;
	int rc;

	fill_head(pl, r, in);
	if (src->nrows == 0 || in->end_ts < src->ts[0] || in->start_ts > src->ts[src->nrows - 1]) {
		fill_signals(pl, r, in, NULL, NULL, 0);
		r->note = "The data given does not cover this incident: no evidence, causes or plots.";
		return 0;
	}
	rv_err_clear(&err);
	rc = rv_details_build(src, kb, in->start_ts, in->end_ts, in->top, in->ntop, o, &d, &err);
	if (rc < 0) {
		fprintf(stderr, "reveal report: incident %llu: %s\n", (unsigned long long)in->id,
			rv_err_text(&err, rc));
		return rc;
	}
	fill_signals(pl, r, in, &d.ev, d.match, d.nmatch);
	fill_causes(pl, r, d.match, d.nmatch);
	fill_chain(pl, r, in, &d.ev, d.match, d.nmatch);
	struct rv_report_series *ser = pool_zalloc(pl, d.nseries, sizeof(*ser));
	for (size_t i = 0; ser && i < d.nseries; i++)
		add_series(pl, &ser[i], d.series[i].name, d.series[i].n, d.series[i].ts, d.series[i].v,
			   &d.ev);
	r->nseries = ser ? d.nseries : 0;
	r->series = ser;
	if (d.ev.n && src->ts[0] > d.base_from)
		r->note = pool_printf(pl, "The data starts %.0f s before the incident: the baseline"
				      " is shorter than the %.0f s wanted.",
				      d.start_ts - src->ts[0], o->base_s);
	rv_details_free(&d);
	return 0;
}

/* The incidents of arr that pass a's filters, explained into rep, their
 * phases linked over all of arr. */
static int offline_incidents(struct pool *pl, const struct report_args *a,
			     const struct rv_kb *kb, const struct rv_ev_source *src,
			     const struct rv_details_opts *o, const struct rv_json *arr,
			     struct rv_report *rep)
{
	size_t n = rv_json_len(arr), nrows = 0;
	struct rv_report_incident *r = pool_zalloc(pl, n, sizeof(*r));
	struct report_row *rows = malloc((n ? n : 1) * sizeof(*rows));
	int rc = 0;

	if (!r || !rows) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && rc == 0 && rep->nincidents < INCIDENTS_MAX; i++) {
		struct inc_in in;
		rc = json_in(rv_json_at(arr, i), a->incidents, &in);
		if (rc == 0)
			rows[nrows++] = row_of(&in);
		if (rc == 0 && passes(a, &in)) {
			rc = explain_offline(pl, src, kb, o, &in, &r[rep->nincidents]);
			if (rc == 0)
				rep->nincidents++;
		}
	}
	if (rc == 0)
		rc = report_link(pl, rows, nrows, r, rep->nincidents);
	rep->incidents = r;
	free(rows);
	return rc;
}

void offline_free(struct offline_data *od)
{
	free(od->text);
	rv_json_doc_free(od->doc);
	rv_table_free(od->t);
	free(od->rowts);
	memset(od, 0, sizeof(*od));
}

int report_from_offline(struct pool *pl, const struct report_args *a, const struct rv_kb *kb,
			struct rv_report *rep, struct offline_data *od)
{
	struct rv_json_doc *doc = NULL;
	struct rv_table *t = NULL;
	const struct rv_json *root, *arr;
	struct rv_ev_source src = { 0 };
	double *rowts = NULL;
	char *text = NULL;
	size_t len = 0;
	struct rv_err err;
	int rc = report_read_file(a->incidents, (size_t)256 << 20, &text, &len);

	rv_err_clear(&err);
	if (rc == 0 && (rc = rv_json_parse(text, len, a->incidents, &doc, &err)) != 0)
		fprintf(stderr, "reveal report: %s\n", rv_err_text(&err, rc));
	if (rc)
		goto out;
	root = rv_json_root(doc);
	arr = rv_json_get(root, "incidents");
	if (!arr || rv_json_type(arr) != RV_JSON_ARRAY) {
		fprintf(stderr, "reveal report: %s: not an incidents file of `reveal detect"
			" --incidents` (no \"incidents\" array)\n", a->incidents);
		rc = -EINVAL;
		goto out;
	}
	rc = read_data(a->data, &t);
	if (rc)
		goto out;
	if (!t->ts) {  /* no timestamp column: detect numbers the rows */
		rowts = malloc((t->nrows ? t->nrows : 1) * sizeof(*rowts));
		if (!rowts) {
			rc = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < t->nrows; i++)
			rowts[i] = (double)i;
	}
	src.nrows = t->nrows;
	src.nchan = t->ncols;
	src.ts = t->ts ? t->ts : rowts;
	src.names = (const char *const *)t->names;
	src.get = table_get;
	src.ctx = t;
	double step = median_step(src.ts, src.nrows);
	size_t window = a->window_n ? a->window_n
				    : (size_t)rv_json_num(rv_json_get(root, "window"), DEFAULT_WINDOW);
	struct rv_details_opts o = rv_details_defaults(
		isfinite(a->window_s) && a->window_s > 0 ? a->window_s : (double)window * step);
	/* a baseline and plot margin of as many samples as 2 minutes and 1
	 * minute at 1 s, whatever the data's pace */
	if (step > 1) {
		o.base_s = 120 * step;
		o.pre_s = 60 * step;
		o.post_s = 15 * step;
	}
	rc = offline_incidents(pl, a, kb, &src, &o, arr, rep);
	rep->source = pool_printf(pl, "incidents %s with data %s", a->incidents, a->data);
out:
	od->text = text;
	od->doc = doc;
	od->t = t;
	od->rowts = rowts;
	return rc;
}

