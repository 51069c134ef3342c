/*
 * demo.c - the guided run of `reveal demo` (demo.h).
 *
 * Timeline: the job starts, the agent (a child running `reveal agent` at
 * 200 ms) learns for learn_s; once its model file exists it detects. A few
 * quiet seconds (and until no incident is open, at most CLOSE_WAIT_S), then
 * fault 1 (CPU contention) for fault_s; the demo waits for the incident to
 * close (at most CLOSE_WAIT_S), then fault 2 (packet
 * loss, or a disk write storm without a network namespace), the same wait,
 * and the report. The incidents are read from the agent's JSON lines as
 * they are written.
 */
#include "demo/demo.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/json.h"
#include "base/log.h"
#include "demo/spawn.h"
#include "demo/workload.h"

enum {
	PATH_LEN = 4096,
	LINE_MAX_LEN = 1 << 20,   /* an event line longer than this is skipped */
	MAX_TRACKED = 64,         /* incidents attributed to faults */
};

static const double TICK_S = 0.2;
static const double QUIET_S = 6.0;        /* detecting before fault 1 */
static const double CLOSE_WAIT_S = 25.0;  /* longest wait for an incident to close */
static const double MIN_GAP_S = 6.0;
static const double ATTRIBUTE_S = 15.0;   /* an incident opening this soon after a fault is its */
static const double FIT_WAIT_S = 60.0;

enum fault_kind { FAULT_STRESS, FAULT_NFT_DROP };

struct fault {
	enum fault_kind kind;
	const char *title, *how, *expect;
	char *argv[16];
	const char *nft_rules;
	pid_t pid;
	double t0, t1;                   /* wall clock */
	long incident;                   /* its first incident; -1 = none yet */
	double best_dur;                 /* longest of its closed incidents, s */
	double step_sum[2];              /* the job's step time: before, during */
	double reduce_sum[2];            /* its all-reduce time */
	unsigned step_n[2];
};

struct demo {
	const struct rv_demo_opts *o;
	struct rv_demo_result *res;
	char dir[PATH_LEN];
	char events[PATH_LEN], store[PATH_LEN], model[PATH_LEN], report[PATH_LEN];
	char tmp[PATH_LEN];
	double t_start;                  /* wall clock at the start */
	pid_t workload, agent;
	struct rv_workload_stats *stats; /* shared with the job */
	uint64_t last_steps;
	struct fault f[RV_DEMO_FAULTS];
	int active;                      /* fault being injected, -1 none */
	FILE *ev;
	char *line;
	size_t line_len;
	int open;                        /* incidents open now */
	long inc_id[MAX_TRACKED];        /* incidents opened during a fault ... */
	int inc_fault[MAX_TRACKED];      /* ... and that fault's index */
	int ntracked;
	int status_shown;                /* a status line is on the terminal */
};

static int path_in(char *buf, const char *dir, const char *name, struct rv_err *err);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void rv_demo_defaults(struct rv_demo_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->out_dir = "reveal-demo";
	o->self = "/proc/self/exe";
	o->learn_s = 45.0;
	o->fault_s = 25.0;
	o->out = stdout;
}

/* ------------------------------------------------------------ output */

static void clear_status(struct demo *d)
{
	if (d->status_shown) {
		fputs("\r\033[K", d->o->out);
		d->status_shown = 0;
	}
}

static void say(struct demo *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct demo *d, const char *fmt, ...)
{
	va_list ap;

	clear_status(d);
	fprintf(d->o->out, "[%3.0fs] ", now_s() - d->t_start);
	va_start(ap, fmt);
	vfprintf(d->o->out, fmt, ap);
	va_end(ap);
	fputc('\n', d->o->out);
	fflush(d->o->out);
}

static void status(struct demo *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void status(struct demo *d, const char *fmt, ...)
{
	va_list ap;

	if (!d->o->tty)
		return;
	fprintf(d->o->out, "\r\033[K[%3.0fs] ", now_s() - d->t_start);
	va_start(ap, fmt);
	vfprintf(d->o->out, fmt, ap);
	va_end(ap);
	fflush(d->o->out);
	d->status_shown = 1;
}

/* ------------------------------------------------------------ events */

/* The fault an incident was attributed to when it opened, or NULL. */
static struct fault *fault_of(struct demo *d, long id)
{
	for (int i = 0; i < d->ntracked; i++)
		if (d->inc_id[i] == id)
			return &d->f[d->inc_fault[i]];
	return NULL;
}

static void copy_str(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

static void track(struct demo *d, long id, int fault)
{
	if (d->ntracked < MAX_TRACKED) {
		d->inc_id[d->ntracked] = id;
		d->inc_fault[d->ntracked++] = fault;
	}
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
			track(d, id, (int)(pf - d->f));
		say(d, ">>> incident %ld opened: a follow-on phase of incident %ld (subsystem %s, "
		       "top signal %s)", id, prev, sub, top);
		if (pf)
			return;
	}
	for (int i = RV_DEMO_FAULTS; i-- > 0;) {
		struct fault *f = &d->f[i];
		struct rv_demo_fault_result *r = &d->res->fault[i];

		if (f->t0 <= 0 || t < f->t0 || (f->t1 > 0 && t > f->t1 + ATTRIBUTE_S))
			continue;
		track(d, id, i);
		r->close_s = NAN;   /* until this one closes */
		if (f->incident >= 0) {
			say(d, ">>> incident %ld opened during fault %d (subsystem %s, top signal %s)",
			    id, i + 1, sub, top);
			return;
		}
		f->incident = id;
		r->detected = 1;
		r->ttd_s = t - f->t0;
		copy_str(r->subsystem, sizeof(r->subsystem), sub);
		say(d, ">>> incident %ld opened %.1f s after the fault began (so far: subsystem "
		       "%s, top signal %s)", id, r->ttd_s, sub, top);
		return;
	}
	if (prev)
		return;   /* the false alarm it follows was counted */
	d->res->other_incidents++;
	say(d, ">>> incident %ld opened outside the faults (a false alarm): subsystem %s, "
	       "top signal %s", id, sub, top);
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
		double tc = f->t1 > 0 ? now_s() - f->t1 : 0;

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
		say(d, "    incident %ld closed after %.0f s: subsystem %s; likely cause: %s "
		       "(confidence %.0f %%)", id, dur, sub, title, 100.0 * conf);
	else
		say(d, "    incident %ld closed after %.0f s: subsystem %s; no rule matched, "
		       "see the report's top signals", id, dur, sub);
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
			on_open(d, (long)id, ev, now_s());
		else if (strcmp(kind, "close") == 0)
			on_close(d, (long)id, ev);
	}
	rv_json_doc_free(doc);
}

/* Reads the complete lines the agent appended since the last call. */
static void poll_events(struct demo *d)
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

/* -------------------------------------------------------------- time */

/* The job's step time, folded into the fault being injected (index 1) or
 * the one about to be (index 0, the seconds before it). */
static void sample_job(struct demo *d, int next)
{
	const uint64_t steps = d->stats->steps;
	struct fault *f;
	int k;

	if (steps == d->last_steps)
		return;
	d->last_steps = steps;
	k = d->active >= 0 ? 1 : 0;
	if (k == 0 && (next < 0 || next >= RV_DEMO_FAULTS))
		return;
	f = &d->f[k ? d->active : next];
	f->step_sum[k] += d->stats->step_s;
	f->reduce_sum[k] += d->stats->reduce_s;
	f->step_n[k]++;
}

static int child_died(struct demo *d, struct rv_err *err)
{
	int status;

	if (rv_wait_child(d->agent, 0, &status)) {
		d->agent = 0;
		return rv_err_set(err, -ECHILD, "the agent stopped unexpectedly; see %s/agent.log",
				  d->dir);
	}
	if (rv_wait_child(d->workload, 0, &status)) {
		d->workload = 0;
		return rv_err_set(err, -ECHILD, "the training-like job stopped unexpectedly; see "
				  "%s/workload.log", d->dir);
	}
	return 0;
}

/* Waits seconds (or until done(d) says so, checked every tick), reading
 * events and the job's figures. */
static int wait_for(struct demo *d, double seconds, int next, int (*done)(struct demo *),
		    const char *what, struct rv_err *err)
{
	const double t_end = now_s() + seconds;
	const struct timespec nap = { 0, (long)(TICK_S * 1e9) };

	while (now_s() < t_end) {
		int rc;

		if (*d->o->stop)
			return -EINTR;
		if ((rc = child_died(d, err)) != 0)
			return rc;
		poll_events(d);
		sample_job(d, next);
		if (done && done(d))
			return 0;
		if (what)
			status(d, "%s (%.0f s left)", what, fmax(0.0, t_end - now_s()));
		nanosleep(&nap, NULL);
	}
	return 0;
}

static int none_open(struct demo *d)
{
	return d->open == 0;
}

static int model_exists(struct demo *d)
{
	return access(d->model, F_OK) == 0;
}

/* ------------------------------------------------------------ faults */

static int inject(struct demo *d, int i, struct rv_err *err)
{
	struct fault *f = &d->f[i];
	int rc;

	say(d, "fault %d/%d: %s -- %s, for %.0f s", i + 1, RV_DEMO_FAULTS, f->title, f->how,
	    d->o->fault_s);
	f->t0 = now_s();
	if (f->kind == FAULT_STRESS) {
		char log[PATH_LEN];

		path_in(log, d->dir, "stress-ng.log", NULL);
		rc = rv_spawn(f->argv, log, &f->pid, err);
	} else {
		char path[PATH_LEN], log[PATH_LEN];
		char *argv[] = { (char *)"nft", (char *)"-f", path, NULL };
		FILE *fp;
		pid_t pid;
		int status = 0;

		path_in(path, d->dir, "demo.nft", NULL);
		path_in(log, d->dir, "nft.log", NULL);
		fp = fopen(path, "w");
		if (!fp)
			return rv_err_set(err, -errno, "%s: %s", path, rv_strerror(errno));
		fputs(f->nft_rules, fp);
		if (fclose(fp) != 0)
			return rv_err_set(err, -EIO, "%s: write error", path);
		rc = rv_spawn(argv, log, &pid, err);
		if (!rc && (!rv_wait_child(pid, 10.0, &status) || status != 0))
			rc = rv_err_set(err, -EIO, "nft refused the packet-loss rule; see %s", log);
		unlink(path);
	}
	if (rc)
		return rc;
	d->active = i;
	rc = wait_for(d, d->o->fault_s, i, NULL, "injecting", err);
	return rc;
}

static void uninject(struct demo *d, int i)
{
	struct fault *f = &d->f[i];

	if (f->t0 <= 0 || f->t1 > 0)
		return;
	if (f->kind == FAULT_STRESS) {
		rv_stop_child(f->pid, 5.0);
		f->pid = 0;
	} else {
		char *argv[] = { (char *)"nft", (char *)"delete", (char *)"table", (char *)"inet",
				 (char *)"reveal_demo", NULL };
		pid_t pid;
		int status;

		if (rv_spawn(argv, NULL, &pid, NULL) == 0)
			rv_wait_child(pid, 10.0, &status);
	}
	f->t1 = now_s();
	d->active = -1;
}

static const char NFT_RULES[] =
	"table inet reveal_demo {\n"
	"\tchain out {\n"
	"\t\ttype filter hook output priority 0; policy accept;\n"
	"\t\tmeta l4proto tcp numgen random mod 100 < 10 drop\n"
	"\t}\n"
	"}\n";

static void plan_faults(struct demo *d, int netns)
{
	static char ncpu[24];
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	struct fault *f = d->f;

	snprintf(ncpu, sizeof(ncpu), "%ld", n > 0 ? n : 1);
	memset(d->f, 0, sizeof(d->f));
	f[0] = (struct fault){ .kind = FAULT_STRESS, .title = "CPU contention",
			       .how = "stress-ng busy on every core, a noisy neighbour",
			       .expect = "cpu", .incident = -1 };
	f[0].argv[0] = (char *)"stress-ng";
	f[0].argv[1] = (char *)"--cpu";
	f[0].argv[2] = ncpu;
	f[0].argv[3] = (char *)"--timeout";
	f[0].argv[4] = (char *)"0";
	if (netns) {
		f[1] = (struct fault){ .kind = FAULT_NFT_DROP, .title = "packet loss",
				       .how = "an nftables rule dropping 10 % of the job's TCP "
					      "packets (in the demo's own network namespace)",
				       .expect = "net", .nft_rules = NFT_RULES, .incident = -1 };
		return;
	}
	f[1] = (struct fault){ .kind = FAULT_STRESS, .title = "disk write storm",
			       .how = "stress-ng writing files in the output folder",
			       .expect = "storage", .incident = -1 };
	f[1].argv[0] = (char *)"stress-ng";
	f[1].argv[1] = (char *)"--hdd";
	f[1].argv[2] = (char *)"2";
	f[1].argv[3] = (char *)"--hdd-bytes";
	f[1].argv[4] = (char *)"256M";
	f[1].argv[5] = (char *)"--temp-path";
	f[1].argv[6] = d->tmp;
	f[1].argv[7] = (char *)"--timeout";
	f[1].argv[8] = (char *)"0";
}

/* ------------------------------------------------------------- setup */

static int job_main(void *arg)
{
	static volatile sig_atomic_t never;
	struct demo *d = arg;
	struct rv_workload_cfg c;
	struct rv_err err = { 0 };
	int rc;

	rv_workload_defaults(&c);
	c.report_s = 10.0;
	/* SIGTERM from rv_stop_child ends the process; the peer follows */
	rc = rv_workload_run(&c, &never, d->stats, stderr, &err);
	if (rc)
		rv_error("demo: job: %s", rv_err_text(&err, rc));
	return rc;
}

static int path_in(char *buf, const char *dir, const char *name, struct rv_err *err)
{
	if ((size_t)snprintf(buf, PATH_LEN, "%s/%s", dir, name) >= PATH_LEN)
		return rv_err_set(err, -ENAMETOOLONG, "%s: path too long", dir);
	return 0;
}

/* The output folder, emptied of what an earlier demo left there. */
static int prepare_dir(struct demo *d, struct rv_err *err)
{
	static const char *const old[] = { "demo.db", "demo.db-wal", "demo.db-shm", "events.jsonl",
					   "agent.log", "workload.log", "stress-ng.log", "nft.log",
					   "report.log", "report.html", "summary.json",
					   "state/reveal.model" };
	char p[PATH_LEN];
	int rc;

	if (mkdir(d->o->out_dir, 0777) != 0 && errno != EEXIST)
		return rv_err_set(err, -errno, "%s: %s", d->o->out_dir, rv_strerror(errno));
	snprintf(d->dir, sizeof(d->dir), "%s", d->o->out_dir);
	for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++)
		if (path_in(p, d->dir, old[i], NULL) == 0)
			unlink(p);
	if ((rc = path_in(d->events, d->dir, "events.jsonl", err)) ||
	    (rc = path_in(d->store, d->dir, "demo.db", err)) ||
	    (rc = path_in(d->model, d->dir, "state/reveal.model", err)) ||
	    (rc = path_in(d->report, d->dir, "report.html", err)) ||
	    (rc = path_in(d->tmp, d->dir, "stress-tmp", err)))
		return rc;
	if (mkdir(d->tmp, 0777) != 0 && errno != EEXIST)
		return rv_err_set(err, -errno, "%s: %s", d->tmp, rv_strerror(errno));
	return 0;
}

static int start_agent(struct demo *d, struct rv_err *err)
{
	char learn[32], state[PATH_LEN], log[PATH_LEN];
	char *argv[] = { (char *)d->o->self, (char *)"agent", (char *)"--interval", (char *)"200ms",
			 (char *)"--learn", learn, (char *)"--listen", (char *)"", (char *)"--store",
			 d->store, (char *)"--events", d->events, (char *)"--state-dir", state,
			 (char *)"--set", (char *)"refit=0", NULL };

	snprintf(learn, sizeof(learn), "%.0fs", d->o->learn_s);
	path_in(state, d->dir, "state", NULL);
	path_in(log, d->dir, "agent.log", NULL);
	return rv_spawn(argv, log, &d->agent, err);
}

static int write_report(struct demo *d)
{
	char log[PATH_LEN];
	char *argv[] = { (char *)d->o->self, (char *)"report", (char *)"--store", d->store,
			 (char *)"-o", d->report, NULL };
	pid_t pid;
	int status = -1;

	path_in(log, d->dir, "report.log", NULL);
	if (rv_spawn(argv, log, &pid, NULL) != 0)
		return -1;
	if (!rv_wait_child(pid, 60.0, &status)) {
		rv_stop_child(pid, 1.0);
		return -1;
	}
	return status == 0 ? 0 : -1;
}

/* ----------------------------------------------------------- summary */

static void write_summary(struct demo *d)
{
	char path[PATH_LEN];
	FILE *f;

	if (path_in(path, d->dir, "summary.json", NULL) != 0 || !(f = fopen(path, "w")))
		return;
	fprintf(f, "{\"elapsed_s\":%.1f,\"other_incidents\":%d,\"report\":", d->res->elapsed_s,
		d->res->other_incidents);
	rv_json_fput_str(f, d->res->report);
	fputs(",\"faults\":[", f);
	for (int i = 0; i < RV_DEMO_FAULTS; i++) {
		const struct rv_demo_fault_result *r = &d->res->fault[i];

		fprintf(f, "%s{\"title\":", i ? "," : "");
		rv_json_fput_str(f, r->title);
		fputs(",\"expect\":", f);
		rv_json_fput_str(f, r->expect);
		fprintf(f, ",\"detected\":%s", r->detected ? "true" : "false");
		if (r->detected) {
			fprintf(f, ",\"ttd_s\":%.2f,\"subsystem\":", r->ttd_s);
			rv_json_fput_str(f, r->subsystem);
			fputs(",\"cause\":", f);
			rv_json_fput_str(f, r->cause);
			fprintf(f, ",\"confidence\":%.2f,\"close_s\":", r->confidence);
			if (isfinite(r->close_s))
				fprintf(f, "%.2f", r->close_s);
			else
				fputs("null", f);
		}
		fprintf(f, ",\"step_before_ms\":%.2f,\"step_during_ms\":%.2f,"
			   "\"allreduce_before_ms\":%.2f,\"allreduce_during_ms\":%.2f}",
			r->step_before_ms, r->step_during_ms, r->reduce_before_ms, r->reduce_during_ms);
	}
	fputs("]}\n", f);
	fclose(f);
}

static void print_summary(struct demo *d)
{
	FILE *out = d->o->out;

	clear_status(d);
	fprintf(out, "\nWhat the agent found (%.0f s):\n", d->res->elapsed_s);
	for (int i = 0; i < RV_DEMO_FAULTS; i++) {
		const struct rv_demo_fault_result *r = &d->res->fault[i];

		if (!r->detected) {
			fprintf(out, "  %d. %-18s NOT detected\n", i + 1, r->title);
		} else {
			fprintf(out, "  %d. %-18s detected %.1f s after it began; subsystem %s (%s",
				i + 1, r->title, r->ttd_s, r->subsystem,
				strcmp(r->subsystem, r->expect) == 0 ? "right" : "expected ");
			if (strcmp(r->subsystem, r->expect) != 0)
				fputs(r->expect, out);
			fputs(")\n", out);
			if (isfinite(r->close_s))
				fprintf(out, "     its incident closed %.1f s after the fault ended\n",
					r->close_s);
			else
				fputs("     its incident was still open at the end\n", out);
			if (r->cause[0])
				fprintf(out, "     likely cause: %s (confidence %.0f %%)\n", r->cause,
					100.0 * r->confidence);
		}
		if (r->step_before_ms > 0 && r->step_during_ms > 0)
			fprintf(out, "     the job itself: a step took %.1f ms before, %.1f ms during; "
				     "an all-reduce %.1f ms, then %.1f ms\n",
				r->step_before_ms, r->step_during_ms, r->reduce_before_ms,
				r->reduce_during_ms);
	}
	if (d->res->other_incidents == 0)
		fprintf(out, "  False alarms: none.\n");
	else
		fprintf(out, "  False alarms: %d incident%s outside the faults.\n",
			d->res->other_incidents, d->res->other_incidents == 1 ? "" : "s");
	if (d->res->report[0])
		fprintf(out, "\nReport: %s (open it in a browser)\n", d->res->report);
	else
		fprintf(out, "\nThe report could not be written; see %s/report.log\n", d->dir);
	fprintf(out, "The incidents stay in %s: reveal report --store %s\n"
		     "Everything the demo started has been stopped.\n", d->store, d->store);
}

/* ------------------------------------------------------------- run */

static int run_timeline(struct demo *d, struct rv_err *err)
{
	int rc;

	say(d, "the agent learns what normal looks like on this host for %.0f s, sampling "
	       "every 200 ms", d->o->learn_s);
	rc = wait_for(d, d->o->learn_s + FIT_WAIT_S, 0, model_exists, "learning", err);
	if (rc)
		return rc;
	if (!model_exists(d))
		return rv_err_set(err, -ETIMEDOUT, "the agent did not finish learning; see "
				  "%s/agent.log", d->dir);
	say(d, "learned; the agent is detecting. Now the faults, one after the other.");
	rc = wait_for(d, QUIET_S, 0, NULL, "detecting", err);
	for (int i = 0; !rc && i < RV_DEMO_FAULTS; i++) {
		/* a fault that begins inside an open incident only extends it (the
		 * wait after fault 1 is the one before fault 2) */
		if (i == 0 && !none_open(d)) {
			say(d, "an incident is open; waiting up to %.0f s for it to close before "
			       "fault %d", CLOSE_WAIT_S, i + 1);
			rc = wait_for(d, CLOSE_WAIT_S, i, none_open, "waiting", err);
			if (rc)
				break;
		}
		rc = inject(d, i, err);
		uninject(d, i);
		if (rc)
			break;
		say(d, "fault %d stopped; waiting for the incident to close", i + 1);
		rc = wait_for(d, MIN_GAP_S, i + 1, NULL, "recovering", err);
		if (!rc)
			rc = wait_for(d, CLOSE_WAIT_S - MIN_GAP_S, i + 1, none_open, "recovering",
				      err);
	}
	return rc;
}

static void finish(struct demo *d)
{
	for (int i = 0; i < RV_DEMO_FAULTS; i++)
		uninject(d, i);
	if (d->agent) {
		rv_stop_child(d->agent, 10.0);   /* closes what is still open */
		d->agent = 0;
	}
	if (d->workload) {
		rv_stop_child(d->workload, 5.0);
		d->workload = 0;
	}
	poll_events(d);
	if (d->ev)
		fclose(d->ev);
	d->ev = NULL;
	rmdir(d->tmp);
}

int rv_demo_run(const struct rv_demo_opts *o, struct rv_demo_result *res, struct rv_err *err)
{
	struct demo d = { .o = o, .res = res, .active = -1 };
	int netns = 0, rc;

	memset(res, 0, sizeof(*res));
	d.t_start = now_s();
	if (!rv_have_program("stress-ng"))
		return rv_err_set(err, -ENOENT, "stress-ng is not installed: `make deps` or "
				  "`apt-get install stress-ng` installs it");
	rc = prepare_dir(&d, err);
	if (rc)
		return rc;
	if (!o->no_netns) {
		struct rv_err why = { 0 };

		if (!rv_have_program("nft"))
			say(&d, "note: nft (nftables) is not installed, so no packet loss: a disk "
				"write storm instead");
		else if ((rc = rv_netns_private(&why)) != 0)
			say(&d, "note: %s; so no packet loss: a disk write storm instead",
			    rv_err_text(&why, rc));
		else
			netns = 1;
	}
	plan_faults(&d, netns);
	for (int i = 0; i < RV_DEMO_FAULTS; i++) {
		copy_str(res->fault[i].title, sizeof(res->fault[i].title), d.f[i].title);
		copy_str(res->fault[i].expect, sizeof(res->fault[i].expect), d.f[i].expect);
	}
	d.line = malloc(LINE_MAX_LEN);
	d.stats = mmap(NULL, sizeof(*d.stats), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (!d.line || d.stats == MAP_FAILED) {
		free(d.line);
		return rv_err_set(err, -ENOMEM, "out of memory");
	}
	memset(d.stats, 0, sizeof(*d.stats));
	{
		char log[PATH_LEN];

		path_in(log, d.dir, "workload.log", NULL);
		rc = rv_spawn_fn(job_main, &d, log, &d.workload, err);
	}
	if (!rc) {
		say(&d, "started the training-like job: 2 processes doing matrix steps and a "
			"loopback all-reduce%s", netns ? " in a private network namespace" : "");
		rc = start_agent(&d, err);
	}
	if (!rc)
		rc = run_timeline(&d, err);
	finish(&d);
	for (int i = 0; i < RV_DEMO_FAULTS; i++) {
		struct rv_demo_fault_result *r = &res->fault[i];

		if (d.f[i].step_n[0]) {
			r->step_before_ms = 1e3 * d.f[i].step_sum[0] / d.f[i].step_n[0];
			r->reduce_before_ms = 1e3 * d.f[i].reduce_sum[0] / d.f[i].step_n[0];
		}
		if (d.f[i].step_n[1]) {
			r->step_during_ms = 1e3 * d.f[i].step_sum[1] / d.f[i].step_n[1];
			r->reduce_during_ms = 1e3 * d.f[i].reduce_sum[1] / d.f[i].step_n[1];
		}
	}
	if (!rc) {
		say(&d, "writing the report");
		if (write_report(&d) == 0)
			copy_str(res->report, sizeof(res->report), d.report);
	}
	res->elapsed_s = now_s() - d.t_start;
	if (!rc || rc == -EINTR)
		write_summary(&d);
	if (!rc)
		print_summary(&d);
	munmap(d.stats, sizeof(*d.stats));
	free(d.line);
	if (rc == -EINTR)
		return rv_err_set(err, rc, "interrupted; everything the demo started has been "
				  "stopped");
	return rc;
}
