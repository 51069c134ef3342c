/*
 * demo.c - the guided run of `reveal demo` (demo.h).
 *
 * Timeline: the job starts, the agent (a child running `reveal agent` at
 * 200 ms) learns for learn_s; once its model file exists it detects. A few
 * quiet seconds (and until no incident is open, at most CLOSE_WAIT_S), then
 * fault 1 (CPU contention) for fault_s; the demo waits for the incident to
 * close (at most CLOSE_WAIT_S) and until QUIET_S pass without one (at most
 * CLOSE_WAIT_S more), then fault 2 (packet
 * loss, or a disk write storm without a network namespace), the same wait,
 * and the report. The incidents are read from the agent's JSON lines as
 * they are written.
 */
#include "demo/demo.h"
#include "demo/demo_int.h"

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

static const double TICK_S = 0.2;
static const double QUIET_S = 6.0;        /* detecting before fault 1 */
static const double CLOSE_WAIT_S = 25.0;  /* longest wait for an incident to close */
static const double MIN_GAP_S = 6.0;
static const double FIT_WAIT_S = 60.0;

static int path_in(char *buf, const char *dir, const char *name, struct rv_err *err);

double rv_demo_now_s(void)
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

void rv_demo_say(struct demo *d, const char *fmt, ...)
{
	va_list ap;

	clear_status(d);
	fprintf(d->o->out, "[%3.0fs] ", rv_demo_now_s() - d->t_start);
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
	fprintf(d->o->out, "\r\033[K[%3.0fs] ", rv_demo_now_s() - d->t_start);
	va_start(ap, fmt);
	vfprintf(d->o->out, fmt, ap);
	va_end(ap);
	fflush(d->o->out);
	d->status_shown = 1;
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
	const double t_end = rv_demo_now_s() + seconds;
	const struct timespec nap = { 0, (long)(TICK_S * 1e9) };

	while (rv_demo_now_s() < t_end) {
		int rc;

		if (*d->o->stop)
			return -EINTR;
		if ((rc = child_died(d, err)) != 0)
			return rc;
		rv_demo_poll_events(d);
		sample_job(d, next);
		if (done && done(d))
			return 0;
		if (what)
			status(d, "%s (%.0f s left)", what, fmax(0.0, t_end - rv_demo_now_s()));
		nanosleep(&nap, NULL);
	}
	return 0;
}

static int none_open(struct demo *d)
{
	return d->open == 0;
}

/* No incident open, and none for QUIET_S (d->busy_t: when one last was). */
static int quiet(struct demo *d)
{
	double now = rv_demo_now_s();

	if (d->open)
		d->busy_t = now;
	return now - d->busy_t >= QUIET_S;
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

	rv_demo_say(d, "fault %d/%d: %s -- %s, for %.0f s", i + 1, RV_DEMO_FAULTS, f->title, f->how,
	    d->o->fault_s);
	f->t0 = rv_demo_now_s();
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
	f->t1 = rv_demo_now_s();
	d->active = -1;
}

/* Dropped as they arrive, as a lossy link loses them: the sender learns of
 * the loss from missing ACKs and retransmits. (On the output hook each
 * send would fail locally instead, which TCP does not count as a loss.) */
static const char NFT_RULES[] =
	"table inet reveal_demo {\n"
	"\tchain lossy {\n"
	"\t\ttype filter hook input priority 0; policy accept;\n"
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
			       .expect = "cpu", .expect_cause = "cpu-contention",
			       .incident = -1 };
	f[0].argv[0] = (char *)"stress-ng";
	f[0].argv[1] = (char *)"--cpu";
	f[0].argv[2] = ncpu;
	f[0].argv[3] = (char *)"--timeout";
	f[0].argv[4] = (char *)"0";
	if (netns) {
		f[1] = (struct fault){ .kind = FAULT_NFT_DROP, .title = "packet loss",
				       .how = "an nftables rule dropping 10 % of the job's TCP "
					      "packets (in the demo's own network namespace)",
				       .expect = "net", .expect_cause = "packet-loss",
				       .nft_rules = NFT_RULES, .incident = -1 };
		return;
	}
	f[1] = (struct fault){ .kind = FAULT_STRESS, .title = "disk write storm",
			       .how = "stress-ng writing files in the output folder",
			       .expect = "storage", .expect_cause = "disk-saturation-writeback",
			       .incident = -1 };
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
		fputs(",\"expect_cause\":", f);
		rv_json_fput_str(f, r->expect_cause);
		fprintf(f, ",\"detected\":%s", r->detected ? "true" : "false");
		if (r->detected) {
			fprintf(f, ",\"ttd_s\":%.2f,\"subsystem\":", r->ttd_s);
			rv_json_fput_str(f, r->subsystem);
			fputs(",\"cause\":", f);
			rv_json_fput_str(f, r->cause);
			fprintf(f, ",\"cause_right\":%s",
				strcmp(r->cause, r->expect_cause) == 0 ? "true" : "false");
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
			if (!r->cause[0])
				fprintf(out, "     likely cause: no rule matched (%s expected)\n",
					r->expect_cause);
			else if (strcmp(r->cause, r->expect_cause) == 0)
				fprintf(out, "     likely cause: %s (confidence %.0f %%; right)\n",
					r->cause, 100.0 * r->confidence);
			else
				fprintf(out, "     likely cause: %s (confidence %.0f %%; expected %s)\n",
					r->cause, 100.0 * r->confidence, r->expect_cause);
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

	rv_demo_say(d, "the agent learns what normal looks like on this host for %.0f s, sampling "
	       "every 200 ms", d->o->learn_s);
	rc = wait_for(d, d->o->learn_s + FIT_WAIT_S, 0, model_exists, "learning", err);
	if (rc)
		return rc;
	if (!model_exists(d))
		return rv_err_set(err, -ETIMEDOUT, "the agent did not finish learning; see "
				  "%s/agent.log", d->dir);
	rv_demo_say(d, "learned; the agent is detecting. Now the faults, one after the other.");
	rc = wait_for(d, QUIET_S, 0, NULL, "detecting", err);
	for (int i = 0; !rc && i < RV_DEMO_FAULTS; i++) {
		/* a fault that begins inside an open incident only extends it (the
		 * wait after fault 1 is the one before fault 2) */
		if (i == 0 && !none_open(d)) {
			rv_demo_say(d, "an incident is open; waiting up to %.0f s for it to close before "
			       "fault %d", CLOSE_WAIT_S, i + 1);
			rc = wait_for(d, CLOSE_WAIT_S, i, none_open, "waiting", err);
			if (rc)
				break;
		}
		rc = inject(d, i, err);
		uninject(d, i);
		if (rc)
			break;
		rv_demo_say(d, "fault %d stopped; waiting for the incident to close", i + 1);
		rc = wait_for(d, MIN_GAP_S, i + 1, NULL, "recovering", err);
		if (!rc)
			rc = wait_for(d, CLOSE_WAIT_S - MIN_GAP_S, i + 1, none_open, "recovering",
				      err);
		/* and QUIET_S without an incident (at most CLOSE_WAIT_S): a fault
		 * that began in an after-effect of the last one would be taken
		 * for that, or be its follow-on phase */
		if (!rc && i + 1 < RV_DEMO_FAULTS) {
			d->busy_t = rv_demo_now_s();
			rc = wait_for(d, CLOSE_WAIT_S, i + 1, quiet, "recovering", err);
		}
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
	rv_demo_poll_events(d);
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
	d.t_start = rv_demo_now_s();
	if (!rv_have_program("stress-ng"))
		return rv_err_set(err, -ENOENT, "stress-ng is not installed: `make deps` or "
				  "`apt-get install stress-ng` installs it");
	rc = prepare_dir(&d, err);
	if (rc)
		return rc;
	if (!o->no_netns) {
		struct rv_err why = { 0 };

		if (!rv_have_program("nft"))
			rv_demo_say(&d, "note: nft (nftables) is not installed, so no packet loss: a disk "
				"write storm instead");
		else if ((rc = rv_netns_private(&why)) != 0)
			rv_demo_say(&d, "note: %s; so no packet loss: a disk write storm instead",
			    rv_err_text(&why, rc));
		else
			netns = 1;
	}
	plan_faults(&d, netns);
	for (int i = 0; i < RV_DEMO_FAULTS; i++) {
		copy_str(res->fault[i].title, sizeof(res->fault[i].title), d.f[i].title);
		copy_str(res->fault[i].expect, sizeof(res->fault[i].expect), d.f[i].expect);
		copy_str(res->fault[i].expect_cause, sizeof(res->fault[i].expect_cause),
			 d.f[i].expect_cause);
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
		rv_demo_say(&d, "started the training-like job: 2 processes doing matrix steps"
			" and a loopback all-reduce%s",
			netns ? " in a private network namespace" : "");
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
		rv_demo_say(&d, "writing the report");
		if (write_report(&d) == 0)
			copy_str(res->report, sizeof(res->report), d.report);
	}
	res->elapsed_s = rv_demo_now_s() - d.t_start;
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
