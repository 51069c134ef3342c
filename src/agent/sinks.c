/*
 * sinks.c - where the agent's results go: the SQLite store, JSON lines of
 * incident events, the log, and the optional continuous recording.
 *
 * A sink that fails (disk full, a removed directory) never stops
 * detection: each failure is counted (reveal_sink_errors_total on
 * /metrics), reported once when the sink starts failing and once when it
 * recovers, and the next write is tried as usual.
 */
#include "agent/agent_int.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/json.h"
#include "base/log.h"

static const char *const sink_names[SINK_COUNT] = { "store", "events", "record", "model" };

void rv_agent_sink_result(struct agent *a, enum agent_sink s, int rc, const struct rv_err *err)
{
	if (rc == 0) {
		if (a->sink_failing[s])
			rv_info("agent: %s: writing again", sink_names[s]);
		a->sink_failing[s] = 0;
		return;
	}
	pthread_mutex_lock(&a->mu);
	a->sink_errors[s]++;
	pthread_mutex_unlock(&a->mu);
	if (!a->sink_failing[s])
		rv_error("agent: %s: %s (detection goes on; counted in "
			 "reveal_sink_errors_total{sink=\"%s\"}, reported again when it recovers)",
			 sink_names[s], rv_err_text(err, rc), sink_names[s]);
	a->sink_failing[s] = 1;
}

/* ----------------------------------------------------------- events */

/* Severity from the peak fused score (1 is the threshold): a window at
 * twice its threshold or less is minor, up to five times major, above that
 * critical. */
const char *rv_agent_severity(double peak)
{
	return rv_incident_severity(peak);
}

/* ,"subsystems":[{"name":"cpu","share":0.712},...] from "cpu:0.712,...";
 * an entry that is not a name and a number (a store edited by hand) is
 * left out. */
static void subsystems_json(struct rv_buf *b, const char *text)
{
	const char *p = text;
	int k = 0;

	rv_buf_printf(b, ",\"subsystems\":[");
	while (*p) {
		char name[RV_STORE_SUBSYS_LEN];
		size_t n = strcspn(p, ":,");
		char *end;
		double share;

		if (p[n] != ':' || n == 0 || n >= sizeof(name))
			break;
		memcpy(name, p, n);
		name[n] = '\0';
		share = strtod(p + n + 1, &end);
		if (end != p + n + 1 && (*end == ',' || *end == '\0')) {
			rv_buf_printf(b, "%s{\"name\":", k++ ? "," : "");
			rv_json_buf_str(b, name);
			rv_buf_printf(b, ",\"share\":");
			rv_json_buf_num(b, share);
			rv_buf_printf(b, "}");
		}
		p = strchr(p + n + 1, ',');
		if (!p)
			break;
		p++;
	}
	rv_buf_printf(b, "]");
}

static void json_str_field(struct rv_buf *b, const char *key, const char *v)
{
	rv_buf_printf(b, ",\"%s\":", key);
	if (v[0])
		rv_json_buf_str(b, v);
	else
		rv_buf_printf(b, "null");
}

/* ,"consumers":[{...}, ...]: whose workload took the resource (whose.c). */
static void consumers_json(struct rv_buf *b, const struct rv_store_consumer *c, size_t n)
{
	rv_buf_printf(b, ",\"consumers\":[");
	for (size_t i = 0; i < n; i++) {
		rv_buf_printf(b, "%s{\"kind\":\"%s\",\"pid\":", i ? "," : "",
			      c[i].is_cgroup ? "cgroup" : "process");
		if (c[i].pid > 0)
			rv_buf_printf(b, "%d", c[i].pid);
		else
			rv_buf_printf(b, "null");
		json_str_field(b, "comm", c[i].comm);
		json_str_field(b, "cmd", c[i].cmd);
		json_str_field(b, "cgroup", c[i].cgroup);
		json_str_field(b, "label", c[i].label);
		json_str_field(b, "runtime", c[i].runtime);
		json_str_field(b, "container", c[i].container);
		json_str_field(b, "pod_uid", c[i].pod_uid);
		json_str_field(b, "qos", c[i].qos);
		json_str_field(b, "slurm_job", c[i].slurm_job);
		json_str_field(b, "unit", c[i].unit);
		json_str_field(b, "resource", c[i].resource);
		rv_buf_printf(b, ",\"amount\":");
		rv_json_buf_num(b, c[i].amount);
		rv_buf_printf(b, ",\"before\":");
		rv_json_buf_num(b, c[i].before);
		rv_buf_printf(b, ",\"share\":");
		rv_json_buf_num(b, c[i].share);
		rv_buf_printf(b, ",\"pressure\":");
		rv_json_buf_num(b, c[i].pressure);
		rv_buf_printf(b, ",\"measured\":");
		rv_json_buf_num(b, c[i].measured_ts);
		json_str_field(b, "text", c[i].text);
		rv_buf_printf(b, "}");
	}
	rv_buf_printf(b, "]");
}

/* event: "open" or "close" for an events line, which also carries time,
 * the timestamp of the sample that decided it; NULL for the API. cons: its
 * consumers as measured so far (n may be 0). */
static void incident_json(struct rv_buf *b, const struct rv_store_incident *in, const char *event,
			  double time, const struct rv_store_consumer *cons, size_t ncons)
{
	rv_buf_printf(b, "{");
	if (event) {
		rv_buf_printf(b, "\"event\":");
		rv_json_buf_str(b, event);
		rv_buf_printf(b, ",\"time\":");
		rv_json_buf_num(b, time);
		rv_buf_printf(b, ",\"host\":");
		rv_json_buf_str(b, in->host);
		rv_buf_printf(b, ",");
	}
	rv_buf_printf(b, "\"id\":%llu,\"start\":", (unsigned long long)in->id);
	rv_json_buf_num(b, in->start_ts);
	rv_buf_printf(b, ",\"end\":");
	if (in->open)
		rv_buf_printf(b, "null");
	else
		rv_json_buf_num(b, in->end_ts);
	rv_buf_printf(b, ",\"open\":%s,\"duration_s\":", in->open ? "true" : "false");
	rv_json_buf_num(b, in->end_ts - in->start_ts);
	rv_buf_printf(b, ",\"windows\":%zu,\"peak_score\":", in->windows);
	rv_json_buf_num(b, in->peak_score);
	rv_buf_printf(b, ",\"mean_score\":");
	rv_json_buf_num(b, in->mean_score);
	rv_buf_printf(b, ",\"severity\":");
	rv_json_buf_str(b, rv_agent_severity(in->peak_score));
	rv_buf_printf(b, ",\"subsystem\":");
	rv_json_buf_str(b, in->subsystem);
	subsystems_json(b, in->subsystems);
	rv_buf_printf(b, ",\"phase\":%u,\"follows\":", in->phase ? in->phase : 1);
	if (in->follows)
		rv_buf_printf(b, "%llu", (unsigned long long)in->follows);
	else
		rv_buf_printf(b, "null");
	rv_buf_printf(b, ",\"cause\":");
	if (in->cause[0]) {
		rv_buf_printf(b, "{\"id\":");
		rv_json_buf_str(b, in->cause);
		rv_buf_printf(b, ",\"title\":");
		rv_json_buf_str(b, in->cause_title);
		rv_buf_printf(b, ",\"confidence\":");
		rv_json_buf_num(b, in->cause_confidence);
		rv_buf_printf(b, "}");
	} else {
		rv_buf_printf(b, "null");
	}
	rv_buf_printf(b, ",\"detectors\":[");
	for (int d = 0, k = 0; d < rv_det_count(); d++)
		if ((in->detectors >> d) & 1u) {
			rv_buf_printf(b, "%s", k++ ? "," : "");
			rv_json_buf_str(b, rv_det_name(d));
		}
	rv_buf_printf(b, "],\"top_metrics\":[");
	for (size_t i = 0; i < in->nsig; i++) {
		rv_buf_printf(b, "%s{\"name\":", i ? "," : "");
		rv_json_buf_str(b, in->sig[i].name);
		rv_buf_printf(b, ",\"share\":");
		rv_json_buf_num(b, in->sig[i].share);
		rv_buf_printf(b, ",\"baseline\":");
		rv_json_buf_num(b, in->sig[i].baseline);
		rv_buf_printf(b, ",\"value\":");
		rv_json_buf_num(b, in->sig[i].value);
		rv_buf_printf(b, "}");
	}
	rv_buf_printf(b, "]");
	consumers_json(b, cons, ncons);
	rv_buf_printf(b, "}");
}

void rv_agent_incident_json(struct rv_buf *b, const struct rv_store_incident *in,
			    const struct rv_store_consumer *cons, size_t ncons)
{
	incident_json(b, in, NULL, 0.0, cons, ncons);
}

void rv_agent_event_line(struct agent *a, const struct rv_store_incident *in, const char *event,
			 struct rv_buf *b)
{
	struct rv_store_consumer cons[RV_STORE_CONS_MAX];
	size_t ncons = rv_agent_whose_get(a, in->id, cons, RV_STORE_CONS_MAX);

	incident_json(b, in, event, a->data_ts, cons, ncons);
	rv_buf_printf(b, "\n");
}

static void write_event(struct agent *a, const struct rv_store_incident *in, const char *event)
{
	struct rv_buf b;
	struct rv_err err = { 0 };
	int rc = 0;

	if (!a->events)
		return;
	rv_buf_init(&b, 0);
	rv_agent_event_line(a, in, event, &b);
	if (rv_buf_failed(&b))
		rc = rv_err_set(&err, -ENOMEM, "out of memory");
	else if (fwrite(b.data, 1, b.len, a->events) != b.len || fflush(a->events) != 0)
		rc = rv_err_set(&err, -errno ? -errno : -EIO, "%s: %s", a->cfg.events.path,
				rv_strerror(errno ? errno : EIO));
	clearerr(a->events);
	rv_agent_sink_result(a, SINK_EVENTS, rc, &err);
	rv_buf_fini(&b);
}

void rv_agent_report_incident(struct agent *a, const struct rv_store_incident *in,
			      const char *event, const struct rv_store_details *det)
{
	if (strcmp(event, "update") != 0) {
		if (in->open && in->follows)
			rv_warn("agent: incident %llu opened: %s, top %s (phase %u, follows incident "
				"%llu)", (unsigned long long)in->id, in->subsystem,
				in->nsig ? in->sig[0].name : "-", in->phase,
				(unsigned long long)in->follows);
		else if (in->open)
			rv_warn("agent: incident %llu opened: %s, top %s", (unsigned long long)in->id,
				in->subsystem, in->nsig ? in->sig[0].name : "-");
		else
			rv_warn("agent: incident %llu closed: %s, %.0f s, %zu windows, peak %.2f, "
				"top %s, likely cause: %s",
				(unsigned long long)in->id, in->subsystem, in->end_ts - in->start_ts,
				in->windows, in->peak_score, in->nsig ? in->sig[0].name : "-",
				in->cause[0] ? in->cause_title : RV_KB_NO_MATCH);
	}
	if (a->store) {
		struct rv_err err = { 0 };
		int rc = rv_store_put_incident(a->store, in, &err);

		if (!rc && det)
			rc = rv_store_put_details(a->store, in->id, det, &err);
		rv_agent_sink_result(a, SINK_STORE, rc, &err);
		if (!rc && !in->open && a->cfg.store.retention_s > 0) {
			rc = rv_store_prune(a->store, in->end_ts - a->cfg.store.retention_s, 0, &err);
			rv_agent_sink_result(a, SINK_STORE, rc, &err);
		}
	}
	if (strcmp(event, "update") != 0)
		write_event(a, in, event);
	rv_agent_actions_incident(a, in, event);   /* open and close only */
}

void rv_agent_store_fit(struct agent *a, const char *reason)
{
	struct rv_store_fit f = { 0 };
	struct rv_err err = { 0 };

	if (!a->store || !a->model)
		return;
	pthread_mutex_lock(&a->mu);
	f.ts = a->model_fitted_at;
	f.features = a->model_features;
	f.fit_seconds = a->model_fit_s;
	pthread_mutex_unlock(&a->mu);
	f.channels = a->model->nchan;
	f.train_windows = a->model->train_windows;
	snprintf(f.reason, sizeof(f.reason), "%s", reason);
	snprintf(f.model_path, sizeof(f.model_path), "%.*s", (int)sizeof(f.model_path) - 1,
		 a->model_path);
	rv_agent_sink_result(a, SINK_STORE, rv_store_put_fit(a->store, &f, &err), &err);
}

/* -------------------------------------------------------- recording */

/*
 * Segments: the configured path less ".rvl", then ".<unix seconds>.rvl".
 * A new segment starts when the open one holds an eighth of max_size or
 * max_age (so retention removes at most an eighth at a time) or when the
 * channels change; the oldest segments go while the total is over
 * max_size or they ended more than max_age ago.
 */
static void segment_base(const struct agent *a, char *base, size_t cap)
{
	size_t n = strlen(a->cfg.record.path);

	if (n > 4 && strcmp(a->cfg.record.path + n - 4, ".rvl") == 0)
		n -= 4;
	snprintf(base, cap, "%.*s", (int)n, a->cfg.record.path);
}

struct seg {
	char path[4096 + 256 + 2];     /* dir, "/", a directory entry name */
	double mtime;
	uint64_t size;
};

static int cmp_seg(const void *x, const void *y)
{
	const struct seg *p = x, *q = y;

	return strcmp(p->path, q->path);
}

static void enforce_retention(struct agent *a)
{
	char base[4096], dir[4096];
	const char *slash, *stem;
	struct seg *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *e;
	DIR *d;

	segment_base(a, base, sizeof(base));
	slash = strrchr(base, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - base) : 1, slash ? base : ".");
	if (slash && slash == base)
		snprintf(dir, sizeof(dir), "/");
	stem = slash ? slash + 1 : base;
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		size_t sl = strlen(stem), el = strlen(e->d_name);
		struct stat st;

		if (strncmp(e->d_name, stem, sl) != 0 || e->d_name[sl] != '.' || el < sl + 6 ||
		    strcmp(e->d_name + el - 4, ".rvl") != 0)
			continue;
		if (n == cap) {
			struct seg *p = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
			if (!p)
				break;
			v = p;
		}
		snprintf(v[n].path, sizeof(v[n].path), "%s/%s", dir, e->d_name);
		if (stat(v[n].path, &st) != 0)
			continue;
		v[n].mtime = (double)st.st_mtime;
		v[n].size = (uint64_t)st.st_size;
		total += v[n].size;
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_seg);
	for (size_t i = 0; i + 1 < n; i++) {    /* never the open (newest) segment */
		int too_big = a->cfg.record.max_size_bytes && total > a->cfg.record.max_size_bytes;
		int too_old = a->cfg.record.max_age_s > 0 &&
			      v[i].mtime < a->data_ts - a->cfg.record.max_age_s;

		if (!too_big && !too_old)
			break;
		if (unlink(v[i].path) == 0) {
			total -= v[i].size;
			rv_info("agent: recording: removed %s (retention)", v[i].path);
		}
	}
	free(v);
}

static int open_segment(struct agent *a, double ts, struct rv_err *err)
{
	char base[4096];
	size_t n = a->coll ? rv_collector_nraw(a->coll) : 0;
	int rc;

	segment_base(a, base, sizeof(base));
	snprintf(a->rec_path, sizeof(a->rec_path), "%s.%.0f.rvl", base, floor(ts));
	free(a->rec_ch);
	a->rec_ch = calloc(n ? n : 1, sizeof(*a->rec_ch));
	if (!a->rec_ch)
		return rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct rv_chan *c = rv_collector_raw_chan(a->coll, i);

		a->rec_ch[i] = (struct rv_rvl_chan){ c->name, c->metric->unit, c->metric->kind,
						     c->scale };
	}
	rc = rv_rvl_writer_open(a->rec_path, a->rec_ch, n, 0, &a->rec, err);
	a->rec_opened = ts;
	a->rec_buffered = 0;
	if (!rc)
		rv_info("agent: recording to %s", a->rec_path);
	return rc;
}

void rv_agent_record_sample(struct agent *a, int64_t t_ns)
{
	const double *raw;
	const uint8_t *ok;
	struct rv_err err = { 0 };
	double ts = (double)t_ns * 1e-9;
	int rc = 0;

	if (!a->cfg.record.path[0] || !a->coll)
		return;
	if (a->rec) {
		struct stat st;
		int rotate = 0;

		if (a->cfg.record.max_age_s > 0 && ts - a->rec_opened >= a->cfg.record.max_age_s / 8)
			rotate = 1;
		/* the size changes only when a block is written: look then */
		if (a->cfg.record.max_size_bytes && a->rec_buffered == 0 &&
		    stat(a->rec_path, &st) == 0 &&
		    (uint64_t)st.st_size >= a->cfg.record.max_size_bytes / 8)
			rotate = 1;
		if (rotate) {
			rc = rv_rvl_writer_close(a->rec, 0, &err);
			a->rec = NULL;
			rv_agent_sink_result(a, SINK_RECORD, rc, &err);
		}
	}
	if (!a->rec) {
		rc = open_segment(a, ts, &err);
		if (rc) {
			a->rec = NULL;
			rv_agent_sink_result(a, SINK_RECORD, rc, &err);
			return;
		}
		enforce_retention(a);   /* the new segment is the one it keeps */
	}
	rv_collector_raw(a->coll, &raw, &ok);
	rc = rv_rvl_writer_append(a->rec, t_ns, raw, ok, &err);
	/* a sample that only went into the open block says nothing about the
	 * disk: only a block written (or failed) is a result */
	if (!rc && ++a->rec_buffered < rv_rvl_writer_block_samples(a->rec))
		return;
	a->rec_buffered = 0;
	rv_agent_sink_result(a, SINK_RECORD, rc, &err);
}

/* ---------------------------------------------------------- open/close */

int rv_agent_sinks_open(struct agent *a, struct rv_err *err)
{
	int rc;

	if (a->cfg.store.path[0] && !a->store) {
		uint64_t max_id = 0;

		rc = rv_store_open(a->cfg.store.path, &a->store, err);
		if (rc)
			return rc;
		/* what was open when the agent last stopped is over */
		rv_store_close_open_incidents(a->store, NAN, NULL);   /* keep their last end */
		if (rv_store_max_incident_id(a->store, &max_id, NULL) == 0 && a->mg)
			rv_incmerge_set_next_id(a->mg, max_id + 1);
	}
	if (a->cfg.events.path[0] && !a->events) {
		if (strcmp(a->cfg.events.path, "-") == 0) {
			a->events = a->o->out ? a->o->out : stdout;
			a->events_owned = 0;
		} else {
			a->events = fopen(a->cfg.events.path, "a");
			if (!a->events)
				return rv_err_set(err, -errno, "events %s: %s", a->cfg.events.path,
						  rv_strerror(errno));
			a->events_owned = 1;
		}
	}
	return 0;
}

void rv_agent_sinks_close(struct agent *a)
{
	struct rv_err err = { 0 };

	if (a->events && a->events_owned)
		fclose(a->events);
	else if (a->events)
		fflush(a->events);
	a->events = NULL;
	if (a->rec) {
		int rc = rv_rvl_writer_close(a->rec, 1, &err);

		rv_agent_sink_result(a, SINK_RECORD, rc, &err);
		a->rec = NULL;
	}
	free(a->rec_ch);
	a->rec_ch = NULL;
}

void rv_agent_store_close(struct agent *a)
{
	rv_store_close(a->store);
	a->store = NULL;
}
