/*
 * report_json.c - the JSON format of report.h: one document
 * {"report": {...}, "incidents": [...]} with every field of the structs,
 * for scripts and for other tools to render.
 *
 * Strings go through base/json.h's one string writer (RFC 8259 escapes;
 * invalid UTF-8 bytes become U+FFFD so the document stays valid UTF-8).
 * A NULL string is null, a non-finite number is null (JSON has neither
 * NaN nor infinity). Times come as unix seconds and, for people reading
 * the JSON, as ISO-8601 text beside them. One incident per line, so
 * `grep` and line-oriented tools still work.
 */
#include "explain/report_int.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/fmtnum.h"
#include "base/json.h"

static void json_num(FILE *f, double v)
{
	char buf[RV_FMT_MAX];
	if (!isfinite(v)) {
		fputs("null", f);
		return;
	}
	fwrite(buf, 1, rv_fmt_g15(v, buf), f);
}

/* `,"key":` (no comma for the first member). */
static void key(FILE *f, const char *k, int first)
{
	fprintf(f, "%s\"%s\":", first ? "" : ",", k);
}

static void kv_str(FILE *f, const char *k, const char *v)
{
	key(f, k, 0);
	rv_json_fput_str(f, v);
}

static void kv_num(FILE *f, const char *k, double v)
{
	key(f, k, 0);
	json_num(f, v);
}

/* A time as "<k>_ts": seconds and "<k>": ISO-8601 (null when unknown). */
static void kv_time(FILE *f, const char *k, double ts)
{
	char iso[RV_REPORT_CELL];
	fprintf(f, ",\"%s_ts\":", k);
	json_num(f, ts);
	rv_report_iso(ts, iso, sizeof(iso));
	key(f, k, 0);
	rv_json_fput_str(f, isfinite(ts) ? iso : NULL);
}

static void str_array(FILE *f, const char *k, const char *const *v, size_t n)
{
	key(f, k, 0);
	fputc('[', f);
	for (size_t i = 0; v && i < n; i++) {
		fputs(i ? "," : "", f);
		rv_json_fput_str(f, v[i]);
	}
	fputc(']', f);
}

static void num_array(FILE *f, const char *k, const double *v, size_t n)
{
	key(f, k, 0);
	fputc('[', f);
	for (size_t i = 0; v && i < n; i++) {
		fputs(i ? "," : "", f);
		json_num(f, v[i]);
	}
	fputc(']', f);
}

static void json_signal(FILE *f, const void *item)
{
	const struct rv_report_signal *s = item;
	char change[RV_REPORT_CELL];
	rv_report_change_text(s->baseline, s->value, change, sizeof(change));
	key(f, "name", 1);
	rv_json_fput_str(f, s->name);
	kv_str(f, "unit", s->unit);
	kv_num(f, "share", s->share);
	kv_num(f, "baseline", s->baseline);
	kv_num(f, "base_sd", s->base_sd);
	kv_num(f, "value", s->value);
	kv_num(f, "peak", s->peak);
	kv_num(f, "change", s->change);
	kv_str(f, "change_text", change);
	kv_num(f, "z", s->z);
	fprintf(f, ",\"dir\":%d", s->dir);
	kv_num(f, "onset_ts", s->onset_ts);
}

static void json_series(FILE *f, const void *item)
{
	const struct rv_report_series *s = item;
	key(f, "name", 1);
	rv_json_fput_str(f, s->name);
	kv_str(f, "unit", s->unit);
	kv_num(f, "band_lo", s->band_lo);
	kv_num(f, "band_hi", s->band_hi);
	kv_num(f, "base_mean", s->base_mean);
	fprintf(f, ",\"n\":%zu", s->ts && s->v ? s->n : 0);
	num_array(f, "ts", s->ts && s->v ? s->ts : NULL, s->n);
	num_array(f, "v", s->ts && s->v ? s->v : NULL, s->n);
}

static void json_cause(FILE *f, const void *item)
{
	const struct rv_report_cause *c = item;
	key(f, "id", 1);
	rv_json_fput_str(f, c->id);
	kv_str(f, "title", c->title);
	kv_str(f, "subsystem", c->subsystem);
	kv_num(f, "confidence", c->confidence);
	fprintf(f, ",\"onset\":%s", c->onset ? "true" : "false");
	if (c->onset_only)
		fputs(",\"onset_only\":true", f);
	kv_str(f, "cause", c->cause);
	if (c->measured)
		fprintf(f, ",\"measured\":{\"first\":%u,\"right\":%u}", c->measured_first,
			c->measured_right);
	if (*rv_report_str(c->undecided)) {
		kv_str(f, "undecided", c->undecided);
		kv_str(f, "decided_by", c->decided_by);
	}
	str_array(f, "evidence", c->evidence, c->nevidence);
	key(f, "checks", 0);
	fputc('[', f);
	for (size_t i = 0; c->checks && i < c->nchecks; i++) {
		fputs(i ? ",{" : "{", f);
		key(f, "cmd", 1);
		rv_json_fput_str(f, c->checks[i].cmd);
		kv_str(f, "why", c->checks[i].why);
		fputc('}', f);
	}
	fputc(']', f);
	kv_str(f, "fix", c->fix);
}

static void json_note(FILE *f, const void *item)
{
	const struct rv_report_note *n = item;
	key(f, "id", 1);
	rv_json_fput_str(f, n->id);
	kv_str(f, "title", n->title);
	kv_str(f, "subsystem", n->subsystem);
	kv_num(f, "confidence", n->confidence);
}

static void json_near(FILE *f, const void *item)
{
	const struct rv_report_near *n = item;
	key(f, "id", 1);
	rv_json_fput_str(f, n->id);
	kv_str(f, "title", n->title);
	fprintf(f, ",\"held\":%zu,\"required\":%zu", n->held, n->required);
	kv_str(f, "missing", n->missing);
	kv_str(f, "excluded_by", n->excluded_by);
}

static void json_step(FILE *f, const void *item)
{
	const struct rv_report_step *s = item;
	key(f, "name", 1);
	rv_json_fput_str(f, s->name);
	kv_str(f, "subsystem", s->subsystem);
	fprintf(f, ",\"dir\":%d", s->dir);
	kv_num(f, "onset_ts", s->onset_ts);
}

typedef void (*json_item)(FILE *f, const void *item);

/* "k":[{...},...]: n items of `size` bytes from items, each written by one. */
static void list(FILE *f, const char *k, const void *items, size_t n, size_t size, json_item one)
{
	key(f, k, 0);
	fputc('[', f);
	for (size_t i = 0; items && i < n; i++) {
		fputs(i ? ",{" : "{", f);
		one(f, (const char *)items + i * size);
		fputc('}', f);
	}
	fputc(']', f);
}

/* NULL for an empty text: JSON null rather than "". */
static const char *opt(const char *s)
{
	return s && *s ? s : NULL;
}

static void json_consumer(FILE *f, const void *item)
{
	const struct rv_report_consumer *c = item;

	fprintf(f, "\"kind\":\"%s\"", c->is_cgroup ? "cgroup" : "process");
	kv_num(f, "pid", c->pid > 0 ? (double)c->pid : NAN);
	kv_str(f, "comm", opt(c->comm));
	kv_str(f, "cmd", opt(c->cmd));
	kv_str(f, "cgroup", opt(c->cgroup));
	kv_str(f, "label", opt(c->label));
	kv_str(f, "runtime", opt(c->runtime));
	kv_str(f, "container", opt(c->container));
	kv_str(f, "pod_uid", opt(c->pod_uid));
	kv_str(f, "qos", opt(c->qos));
	kv_str(f, "slurm_job", opt(c->slurm_job));
	kv_str(f, "unit", opt(c->unit));
	kv_str(f, "resource", opt(c->resource));
	kv_num(f, "amount", c->amount);
	kv_num(f, "before", c->before);
	kv_num(f, "share", c->share);
	kv_num(f, "pressure", c->pressure);
	kv_time(f, "measured", c->measured_ts);
	kv_str(f, "text", c->text);
}

static void json_subsys(FILE *f, const void *item)
{
	const struct rv_report_subsys *s = item;
	key(f, "name", 1);
	rv_json_fput_str(f, s->name);
	kv_num(f, "share", s->share);
}

/* ,"phase":2,"follows":12|null,"followed_by":[13] */
static void json_phases(FILE *f, const struct rv_report_incident *in)
{
	fprintf(f, ",\"phase\":%u,\"follows\":", rv_report_phase(in));
	if (in->follows)
		fprintf(f, "%" PRIu64, in->follows);
	else
		fputs("null", f);
	fputs(",\"followed_by\":[", f);
	for (size_t i = 0; in->followers && i < in->nfollowers; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", in->followers[i].id);
	fputc(']', f);
}

static void json_incident(FILE *f, const struct rv_report_incident *in, int summary)
{
	fprintf(f, "{\"id\":%" PRIu64, in->id);
	kv_str(f, "host", in->host);
	kv_time(f, "start", in->start_ts);
	kv_time(f, "end", in->end_ts);
	kv_num(f, "duration_s", in->end_ts - in->start_ts);
	fprintf(f, ",\"open\":%s,\"windows\":%zu", in->open ? "true" : "false", in->windows);
	kv_num(f, "peak_score", in->peak_score);
	kv_num(f, "mean_score", in->mean_score);
	kv_str(f, "severity", in->severity);
	str_array(f, "detectors", in->detectors, in->ndetectors);
	list(f, "subsystems", in->subsys, in->nsubsys, sizeof(*in->subsys), json_subsys);
	json_phases(f, in);
	if (summary) {
		/* the gist: the top signal and the first cause, by name */
		kv_str(f, "top_signal", in->signals && in->nsignals ? in->signals[0].name : NULL);
		kv_str(f, "cause", in->causes && in->ncauses ? in->causes[0].title : NULL);
		kv_num(f, "confidence", in->causes && in->ncauses ? in->causes[0].confidence : NAN);
	} else {
		list(f, "signals", in->signals, in->nsignals, sizeof(*in->signals), json_signal);
		list(f, "series", in->series, in->nseries, sizeof(*in->series), json_series);
		list(f, "causes", in->causes, in->ncauses, sizeof(*in->causes), json_cause);
		list(f, "notes", in->notes, in->nnotes, sizeof(*in->notes), json_note);
		list(f, "near", in->near, in->nnear, sizeof(*in->near), json_near);
		list(f, "chain", in->chain, in->nchain, sizeof(*in->chain), json_step);
		list(f, "consumers", in->consumers, in->nconsumers, sizeof(*in->consumers),
		     json_consumer);
	}
	kv_str(f, "note", in->note);
	fputc('}', f);
}

void rv_report_json(FILE *f, const struct rv_report *r, int summary)
{
	size_t n = r->incidents ? r->nincidents : 0;
	fputs("{\"report\":{", f);
	key(f, "title", 1);
	rv_json_fput_str(f, r->title);
	kv_str(f, "source", r->source);
	kv_str(f, "filters", r->filters);
	kv_time(f, "generated", r->generated_ts);
	fprintf(f, ",\"nincidents\":%zu,\"nrules\":%zu,\"summary\":%s},\n\"incidents\":[", n,
		r->nrules, summary ? "true" : "false");
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_incident(f, &r->incidents[i], summary);
	}
	fputs(n ? "\n]}\n" : "]}\n", f);
}
