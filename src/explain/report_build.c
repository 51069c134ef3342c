/*
 * report_build.c - the incidents of a report put together from what an
 * input says of each, the evidence and the knowledge base's matches; the
 * filters; an incidents file's objects; the offline explanation of an
 * incident from data. See report_build.h. (Moved from cli/report_build.c,
 * which now reads the store and the files and calls these.)
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/severity.h"
#include "explain/incident.h"
#include "explain/report_build.h"

enum { TYPE_NAME_MAX = 96 };   /* bytes of a metric type, with its NUL */


static const char *unit_of(const char *name)
{
	char type[TYPE_NAME_MAX];
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

static void fill_signal(struct rv_pool *pl, struct rv_report_signal *s, const char *name,
			const struct rv_evidence_sig *e, double share, double base, double value)
{
	memset(s, 0, sizeof(*s));
	s->name = rv_pool_str(pl, name);
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

static const char *num_text(struct rv_pool *pl, double v)
{
	if (!isfinite(v))
		return "?";
	if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
		return rv_pool_printf(pl, "%.3g", v);
	return rv_pool_printf(pl, "%.4g", v);
}

/* An undecided rule's candidates as "a, b, c"; "" for a decided rule. */
static const char *candidates_text(struct rv_pool *pl, const struct rv_kb_rule *rule)
{
	const char *t = "";

	for (size_t i = 0; t && i < rv_kb_rule_ncandidates(rule); i++)
		t = rv_pool_printf(pl, "%s%s%s", t, i ? ", " : "", rv_kb_rule_candidate(rule, i));
	return t ? t : "";
}

/* The onset's causes first (those not matched now from the rule alone,
 * onset_only), then the other matches; onset[k].id of a rule the kb lacks
 * (an operator removed it) is left out. */
static size_t order_causes(const struct rv_kb *kb, const struct rv_kb_match *match, size_t n,
			   const struct rv_report_onset *onset, size_t nonset,
			   struct rv_kb_match *out, unsigned char *flag)
{
	size_t k = 0;

	for (size_t i = 0; i < nonset && k < RV_KB_MATCH_MAX; i++) {
		size_t m = 0;

		if (!onset[i].id)
			continue;
		while (m < n && strcmp(rv_kb_rule_id(match[m].rule), onset[i].id) != 0)
			m++;
		if (m < n) {
			out[k] = match[m];
			flag[k++] = 1;
			continue;
		}
		for (size_t j = 0; kb && j < rv_kb_count(kb); j++)
			if (strcmp(rv_kb_rule_id(rv_kb_get(kb, j)), onset[i].id) == 0) {
				out[k] = (struct rv_kb_match){ .rule = rv_kb_get(kb, j),
							       .confidence = onset[i].confidence };
				flag[k++] = 2;
				break;
			}
	}
	for (size_t m = 0; m < n && k < RV_KB_MATCH_MAX; m++) {
		int dup = 0;

		for (size_t i = 0; i < k; i++)
			dup |= out[i].rule == match[m].rule;
		if (!dup) {
			out[k] = match[m];
			flag[k++] = 0;
		}
	}
	return k;
}

/* flag[m]: 0 a cause matched now, 1 decided on the onset and matched now,
 * 2 decided on the onset and not matched now (flag may be NULL: all 0). */
static void fill_causes(struct rv_pool *pl, struct rv_report_incident *r,
			const struct rv_kb_match *match, size_t nmatch, const unsigned char *flag)
{
	struct rv_report_cause *c = rv_pool_zalloc(pl, nmatch, sizeof(*c));

	if (!c)
		return;
	for (size_t m = 0; m < nmatch; m++) {
		const struct rv_kb_rule *rule = match[m].rule;
		const char **ev = rv_pool_zalloc(pl, match[m].nev, sizeof(*ev));
		size_t nchk = rv_kb_rule_nchecks(rule);
		struct rv_report_check *chk = rv_pool_zalloc(pl, nchk, sizeof(*chk));

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
		c[m].onset = flag && flag[m] != 0;
		c[m].onset_only = flag && flag[m] == 2;
		for (size_t e = 0; e < match[m].nev; e++) {
			const struct rv_kb_evidence *x = &match[m].ev[e];
			const struct rv_evidence_sig *s = x->sig;
			const char *unit = unit_of(s->name);
			ev[e] = rv_pool_printf(pl, "%s: %s -> %s%s%s (z %s)%s", x->what,
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
void rv_report_fill_signals(struct rv_pool *pl, struct rv_report_incident *r,
			    const struct rv_report_in *in, const struct rv_evidence *ev,
			    const struct rv_kb_match *match, size_t nmatch)
{
	struct rv_report_signal *s = rv_pool_zalloc(pl, RV_REPORT_KEY_SIGNALS_MAX, sizeof(*s));
	size_t n = 0;

	if (!s)
		return;
	for (size_t i = 0; i < in->ntop; i++) {
		const struct rv_evidence_sig *e = ev ? rv_evidence_find(ev, in->top[i]) : NULL;
		fill_signal(pl, &s[n++], in->top[i], e, in->top_share[i], in->top_base[i],
			    in->top_value[i]);
	}
	for (size_t k = 0; nmatch && k < match[0].nev && n < RV_REPORT_KEY_SIGNALS_MAX; k++) {
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

static void fill_chain(struct rv_pool *pl, struct rv_report_incident *r,
		       const struct rv_report_in *in,
		       const struct rv_evidence *ev, const struct rv_kb_match *match,
		       size_t nmatch)
{
	struct rv_chain_step steps[RV_DETAILS_CHAIN_MAX];
	size_t n = rv_chain_build(ev, in->top, in->ntop, match, nmatch, steps,
				  RV_DETAILS_CHAIN_MAX);
	struct rv_report_step *out;

	if (n < 2)
		return;
	out = rv_pool_zalloc(pl, n, sizeof(*out));
	if (!out)
		return;
	for (size_t i = 0; i < n; i++) {
		out[i].name = rv_pool_str(pl, steps[i].sig->name);
		out[i].subsystem = rv_subsystem_name(steps[i].sub);
		out[i].dir = steps[i].sig->dir;
		out[i].onset_ts = steps[i].sig->onset_ts;
	}
	r->nchain = n;
	r->chain = out;
}

static void fill_notes(struct rv_pool *pl, struct rv_report_incident *r,
		       const struct rv_kb_match *note, size_t n)
{
	struct rv_report_note *o = n ? rv_pool_zalloc(pl, n, sizeof(*o)) : NULL;

	if (!o)
		return;
	for (size_t i = 0; i < n; i++)
		o[i] = (struct rv_report_note){ .id = rv_kb_rule_id(note[i].rule),
						.title = rv_kb_rule_title(note[i].rule),
						.subsystem = rv_kb_rule_subsystem(note[i].rule),
						.confidence = note[i].confidence };
	r->nnotes = n;
	r->notes = o;
}

static void fill_near(struct rv_pool *pl, struct rv_report_incident *r, const struct rv_kb *kb,
		      const struct rv_evidence *ev, const char *sub)
{
	struct rv_kb_near near[RV_KB_MATCH_MAX];
	size_t n = rv_kb_near(kb, ev, sub, near, RV_KB_MATCH_MAX);
	struct rv_report_near *o = n ? rv_pool_zalloc(pl, n, sizeof(*o)) : NULL;

	if (!o)
		return;
	for (size_t i = 0; i < n; i++)
		o[i] = (struct rv_report_near){ .id = rv_kb_rule_id(near[i].rule),
						.title = rv_kb_rule_title(near[i].rule),
						.held = near[i].held, .required = near[i].required,
						.missing = near[i].missing,
						.excluded_by = near[i].excluded_by };
	r->nnear = n;
	r->near = o;
}

void rv_report_fill_explained(struct rv_pool *pl, struct rv_report_incident *r,
			      const struct rv_report_in *in, const struct rv_evidence *ev,
			      const struct rv_kb *kb, const struct rv_kb_match *match,
			      size_t nmatch, const struct rv_report_onset *onset, size_t nonset)
{
	const char *sub = in->nsub && in->sub[0].name ? in->sub[0].name : "other";
	struct rv_kb_match cause[RV_KB_MATCH_MAX], note[RV_KB_MATCH_MAX], ranked[RV_KB_MATCH_MAX];
	unsigned char flag[RV_KB_MATCH_MAX];
	size_t nn, nc, nr;

	if (nmatch > RV_KB_MATCH_MAX)
		nmatch = RV_KB_MATCH_MAX;
	nc = rv_kb_split(kb, match, nmatch, sub, cause, note, &nn);
	nr = order_causes(kb, cause, nc, onset, nonset, ranked, flag);
	rv_report_fill_signals(pl, r, in, ev, ranked, nr);
	fill_causes(pl, r, ranked, nr, flag);
	fill_notes(pl, r, note, nn);
	if (nr == 0 && kb && ev)
		fill_near(pl, r, kb, ev, sub);
	fill_chain(pl, r, in, ev, match, nmatch);
}

/* A plot series from samples (ts, v as float) with the band of its
 * evidence entry. */
void rv_report_add_series(struct rv_pool *pl, struct rv_report_series *out, const char *name,
		       size_t n, const double *ts, const float *v, const struct rv_evidence *ev)
{
	const struct rv_evidence_sig *e = ev ? rv_evidence_find(ev, name) : NULL;
	double *t = rv_pool_zalloc(pl, n, sizeof(*t)), *y = rv_pool_zalloc(pl, n, sizeof(*y));

	memset(out, 0, sizeof(*out));
	out->name = rv_pool_str(pl, name);
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
void rv_report_fill_head(struct rv_pool *pl, struct rv_report_incident *r,
			 const struct rv_report_in *in)
{
	const char **det = rv_pool_zalloc(pl, RV_REPORT_DET_MAX, sizeof(*det));
	struct rv_report_subsys *sub = rv_pool_zalloc(pl, RV_SUB_COUNT, sizeof(*sub));

	memset(r, 0, sizeof(*r));
	r->id = in->id;
	r->host = rv_pool_str(pl, in->host);
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
		for (size_t i = 0; i < in->ndet_names && i < RV_REPORT_DET_MAX; i++)
			det[r->ndetectors++] = rv_pool_str(pl, in->det_name[i]);
		r->detectors = det;
	}
	if (sub) {
		for (size_t i = 0; i < in->nsub; i++)
			sub[i] = in->sub[i];
		r->nsubsys = in->nsub;
		r->subsys = sub;
	}
}

/* "cpu:0.712,mem:0.204" -> ranked subsystems; bad entries are skipped. */
void rv_report_parse_subsystems(const char *text, struct rv_report_in *in)
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

int rv_report_sub_index(const char *name)
{
	for (int s = 0; s < RV_SUB_COUNT; s++)
		if (strcmp(name, rv_subsystem_name((enum rv_subsystem)s)) == 0)
			return s;
	return RV_SUB_OTHER;
}

int rv_report_passes(const struct rv_report_filter *a, const struct rv_report_in *in)
{
	int sev = (int)rv_incident_severity_of(in->peak);

	if (in->end_ts < a->since || in->start_ts > a->until)
		return 0;
	if (a->id && in->id != a->id)
		return 0;
	if (sev < a->min_sev)
		return 0;
	if (a->subsystem >= 0) {
		int hit = 0;
		for (size_t i = 0; i < in->nsub; i++)
			hit |= rv_report_sub_index(in->sub[i].name) == a->subsystem &&
			       (i == 0 || in->sub[i].share >= 0.25);
		if (!hit)
			return 0;
	}
	return 1;
}

struct rv_report_row rv_report_row_of(const struct rv_report_in *in)
{
	return (struct rv_report_row){ .id = in->id, .follows = in->follows,
				       .subsystem = in->nsub ? in->sub[0].name : "",
				       .start_ts = in->start_ts };
}

/* "phase" and "follows" of incident object o into in; a file of an older
 * reveal has neither (phase 1, following none). */
static int json_phase(const struct rv_json *o, const char *file, struct rv_report_in *in,
		      struct rv_err *err)
{
	const struct rv_json *ph = rv_json_get(o, "phase"), *fo = rv_json_get(o, "follows");
	int64_t v = 1;

	in->phase = 1;
	in->follows = 0;
	if (ph && (rv_json_i64(ph, &v) != 0 || v < 1 || v > UINT_MAX)) {
		return rv_err_set(err, -EINVAL, "%s:%zu: incident %llu: \"phase\" must be a whole"
				  " number, 1 or more", file, rv_json_line(ph),
				  (unsigned long long)in->id);
	}
	in->phase = (unsigned)v;
	if (fo && rv_json_type(fo) != RV_JSON_NULL &&
	    (rv_json_i64(fo, &v) != 0 || v < 1 || (uint64_t)v == in->id)) {
		return rv_err_set(err, -EINVAL, "%s:%zu: incident %llu: \"follows\" must be null"
				  " or the id of another incident", file, rv_json_line(fo),
				  (unsigned long long)in->id);
	}
	in->follows = fo && rv_json_type(fo) != RV_JSON_NULL ? (uint64_t)v : 0;
	return 0;
}

int rv_report_in_from_json(const struct rv_json *o, const char *file, struct rv_report_in *in,
			   struct rv_err *err)
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
		return rv_err_set(err, -EINVAL, "%s:%zu: an incident needs an id and finite start"
				  " <= end", file, rv_json_line(o));
	}
	in->id = (uint64_t)id;
	in->windows = (size_t)fmax(0, rv_json_num(rv_json_get(o, "windows"), 0));
	in->peak = rv_json_num(rv_json_get(o, "peak_score"), NAN);
	in->mean = rv_json_num(rv_json_get(o, "mean_score"), NAN);
	for (size_t i = 0; det && i < rv_json_len(det) && in->ndet_names < RV_REPORT_DET_MAX; i++) {
		const char *d = rv_json_str(rv_json_at(det, i), NULL);
		if (d)
			in->det_name[in->ndet_names++] = d;
	}
	for (size_t i = 0; top && i < rv_json_len(top) && in->ntop < RV_REPORT_TOP_MAX; i++) {
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
	in->sub[0].name = rv_subsystem_name((enum rv_subsystem)rv_report_sub_index(sub));
	in->sub[0].share = total > 0 ? share_sum[rv_report_sub_index(sub)] / total : 1;
	in->nsub = 1;
	for (int s = 0; s < RV_SUB_COUNT; s++) {
		if (s == rv_report_sub_index(sub) || !(share_sum[s] > 0))
			continue;
		in->sub[in->nsub].name = rv_subsystem_name((enum rv_subsystem)s);
		in->sub[in->nsub].share = share_sum[s] / total;
		in->nsub++;
	}
	return json_phase(o, file, in, err);
}

static int explain_offline(struct rv_pool *pl, const struct rv_ev_source *src,
			   const struct rv_kb *kb, const struct rv_details_opts *o,
			   const struct rv_report_in *in, struct rv_report_incident *r,
			   struct rv_err *err)
{
	struct rv_details d;
	struct rv_err derr;
	int rc;

	rv_report_fill_head(pl, r, in);
	if (src->nrows == 0 || in->end_ts < src->ts[0] || in->start_ts > src->ts[src->nrows - 1]) {
		rv_report_fill_signals(pl, r, in, NULL, NULL, 0);
		r->note = "The data given does not cover this incident: no evidence, causes or plots.";
		return 0;
	}
	rv_err_clear(&derr);
	rc = rv_details_build(src, kb, in->start_ts, in->end_ts, in->top, in->ntop, o, &d, &derr);
	if (rc < 0)
		return rv_err_set(err, rc, "incident %llu: %s", (unsigned long long)in->id,
				  rv_err_text(&derr, rc));
	rv_report_fill_explained(pl, r, in, &d.ev, kb, d.match, d.nmatch, NULL, 0);
	rv_report_set_consumers(pl, r, NULL, 0);   /* offline data: no process was measured */
	struct rv_report_series *ser = rv_pool_zalloc(pl, d.nseries, sizeof(*ser));
	for (size_t i = 0; ser && i < d.nseries; i++)
		rv_report_add_series(pl, &ser[i], d.series[i].name, d.series[i].n, d.series[i].ts, d.series[i].v,
			   &d.ev);
	r->nseries = ser ? d.nseries : 0;
	r->series = ser;
	if (d.ev.n && src->ts[0] > d.base_from)
		r->note = rv_pool_printf(pl, "The data starts %.0f s before the incident: the baseline"
				      " is shorter than the %.0f s wanted.",
				      d.start_ts - src->ts[0], o->base_s);
	rv_details_free(&d);
	return 0;
}

int rv_report_offline_incidents(struct rv_pool *pl, const struct rv_report_filter *f,
				const char *file, const struct rv_kb *kb,
				const struct rv_ev_source *src, const struct rv_details_opts *o,
				const struct rv_json *arr, struct rv_report *rep, struct rv_err *err)
{
	size_t n = rv_json_len(arr), nrows = 0;
	struct rv_report_incident *r = rv_pool_zalloc(pl, n, sizeof(*r));
	struct rv_report_row *rows = malloc((n ? n : 1) * sizeof(*rows));
	int rc = 0;

	if (!r || !rows) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && rc == 0 && rep->nincidents < RV_REPORT_INCIDENTS_MAX; i++) {
		struct rv_report_in in;
		rc = rv_report_in_from_json(rv_json_at(arr, i), file, &in, err);
		if (rc == 0)
			rows[nrows++] = rv_report_row_of(&in);
		if (rc == 0 && rv_report_passes(f, &in)) {
			rc = explain_offline(pl, src, kb, o, &in, &r[rep->nincidents], err);
			if (rc == 0)
				rep->nincidents++;
		}
	}
	if (rc == 0)
		rc = rv_report_link(pl, rows, nrows, r, rep->nincidents);
	rep->incidents = r;
	free(rows);
	return rc;
}

/* text with every "{consumer}" replaced by who (pool), or text itself. */
static const char *with_consumer(struct rv_pool *pl, const char *text, const char *who)
{
	static const char key[] = "{consumer}";
	const char *at = text ? strstr(text, key) : NULL;
	const char *rest;

	if (!at)
		return text;
	rest = with_consumer(pl, at + sizeof(key) - 1, who);
	return rv_pool_printf(pl, "%.*s%s%s", (int)(at - text), text, who, rest ? rest : "");
}

void rv_report_set_consumers(struct rv_pool *pl, struct rv_report_incident *r,
			     const struct rv_report_consumer *c, size_t n)
{
	const char *who = n && c ? c[0].text : "no consumer was measured";
	struct rv_report_cause *causes = (struct rv_report_cause *)r->causes;

	r->consumers = c;
	r->nconsumers = c ? n : 0;
	for (size_t i = 0; causes && i < r->ncauses; i++) {
		causes[i].cause = with_consumer(pl, causes[i].cause, who);
		causes[i].fix = with_consumer(pl, causes[i].fix, who);
	}
}
