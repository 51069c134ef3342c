/*
 * action.c - the set of incident actions (the contract is in action.h):
 * a bounded queue and a worker thread per action, the filter at submit,
 * the counters and the log lines.
 *
 * Why a thread per action rather than one for all: an action's runs must
 * keep their order (a taint's removal after its setting), and one action
 * that hangs until its timeout must not hold up the others (the page
 * after the taint). Sixteen actions at most, each thread asleep on its
 * condition unless an incident opens or closes.
 *
 * Locking: one mutex for the set guards every queue and counter; the
 * worker drops it while an action runs, and log lines are written outside
 * it. The workers start with every signal blocked: the agent's signals
 * go to its main thread, and a write to a command that stopped reading
 * returns EPIPE instead of raising SIGPIPE.
 */
#include "action/action_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/pool.h"

enum {
	ACTION_SECRET_MAX = 4096,      /* a password or a token, NUL included */
	ACTION_HOST_MAX = 256,
	ACTION_SUBSYS_MAX = 32,
	ACTION_NOTE_MAX = 768,         /* one log line */
	ACTION_ENV_ITEM_MAX = 320,     /* "REVEAL_HOST=..." */
};
#define ACTION_TIMEOUT_MAX_S 3600.0
#define ACTION_GRACE_MAX_S 60.0

static const char *const event_names[RV_ACTION_EVENTS] = { "open", "close" };

/* One event waiting for an action; its JSON follows. */
struct job {
	struct job *next;
	enum rv_action_event event;
	uint64_t id;
	enum rv_severity severity;
	char subsystem[ACTION_SUBSYS_MAX];
	char host[ACTION_HOST_MAX];
	size_t len;
	char json[];
};

struct runner {
	struct rv_actions *set;
	struct rv_action_spec spec;        /* strings in the set's pool, secrets below */
	char secret[2][ACTION_SECRET_MAX]; /* password, token: wiped at free */
	pthread_t thread;
	int started;
	pthread_cond_t wake;
	/* under the set's mutex */
	struct job *head, *tail;
	size_t nqueued;
	int overflowing;                   /* dropped since the queue last drained */
	uint64_t fails_since_ok;
	struct rv_action_stats st;
};

struct rv_actions {
	pthread_mutex_t mu;
	int stopping;
	size_t queue_max;
	double grace_s;
	struct rv_pool pool;
	size_t n;
	struct runner r[RV_ACTIONS_MAX];
};

/* A log line made under the lock and written after it. */
struct note {
	enum rv_log_level level;
	char text[ACTION_NOTE_MAX];
};

__attribute__((format(printf, 3, 4)))
static void note_set(struct note *n, enum rv_log_level level, const char *fmt, ...)
{
	va_list ap;

	n->level = level;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

/* --------------------------------------------------------- the filter */

int rv_action_matches(const struct rv_action_spec *spec, const struct rv_action_incident *in)
{
	unsigned events = spec->events ? spec->events : 1u << RV_ACTION_OPEN;

	if ((unsigned)in->event >= RV_ACTION_EVENTS || !(events & (1u << in->event)))
		return 0;
	if (in->severity < spec->min_severity)
		return 0;
	if (spec->nsubsystems == 0)
		return 1;
	for (size_t i = 0; i < spec->nsubsystems; i++)
		if (in->subsystem && strcmp(in->subsystem, spec->subsystems[i]) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------- running */

/* The command's REVEAL_* variables into vars (RV_ACTION_ENV_MAX). */
static size_t job_env(const struct runner *r, const struct job *j,
		      char vars[][ACTION_ENV_ITEM_MAX], const char **env)
{
	const char *sev = rv_severity_name(j->severity);
	size_t n = 0;

	snprintf(vars[n++], ACTION_ENV_ITEM_MAX, "REVEAL_EVENT=%s", event_names[j->event]);
	snprintf(vars[n++], ACTION_ENV_ITEM_MAX, "REVEAL_INCIDENT_ID=%" PRIu64, j->id);
	snprintf(vars[n++], ACTION_ENV_ITEM_MAX, "REVEAL_SEVERITY=%s", sev ? sev : "");
	snprintf(vars[n++], ACTION_ENV_ITEM_MAX, "REVEAL_SUBSYSTEM=%s", j->subsystem);
	snprintf(vars[n++], ACTION_ENV_ITEM_MAX, "REVEAL_HOST=%s", j->host);
	snprintf(vars[n++], ACTION_ENV_ITEM_MAX, "REVEAL_ACTION=%s", r->spec.name);
	for (size_t i = 0; i < n; i++)
		env[i] = vars[i];
	return n;
}

static void run_job(const struct runner *r, const struct job *j, double grace_s,
		    struct rv_action_outcome *out)
{
	char vars[RV_ACTION_ENV_MAX][ACTION_ENV_ITEM_MAX];
	const char *env[RV_ACTION_ENV_MAX];
	size_t nenv;

	if (r->spec.argc == 0) {
		rv_action_post(&r->spec.http, j->json, j->len, r->spec.timeout_s, out);
		return;
	}
	nenv = job_env(r, j, vars, env);
	rv_action_exec(r->spec.argv, r->spec.argc, env, nenv, j->json, j->len, r->spec.timeout_s,
		       grace_s, out);
}

/* A finished run in the counters, and what the log says of it (under mu). */
static void settle(struct runner *r, const struct job *j, const struct rv_action_outcome *oc,
		   double secs, struct note *n)
{
	const char *name = r->spec.name, *ev = event_names[j->event];
	unsigned long long id = (unsigned long long)j->id;

	n->text[0] = '\0';
	r->st.runs[oc->result]++;
	r->st.seconds_total += secs;
	r->st.last_seconds = secs;
	if (oc->result == RV_ACTION_OK) {
		if (r->st.failing)
			note_set(n, RV_LOG_INFO, "action %s: succeeds again (incident %llu %s, "
				 "%.1f s) after %llu failed runs", name, id, ev, secs,
				 (unsigned long long)r->fails_since_ok);
		else
			note_set(n, RV_LOG_DEBUG, "action %s: incident %llu %s: ok in %.3f s",
				 name, id, ev, secs);
		r->st.failing = 0;
		r->fails_since_ok = 0;
		return;
	}
	snprintf(r->st.last_error, sizeof(r->st.last_error), "%s", oc->reason);
	if (!r->st.failing)
		note_set(n, RV_LOG_WARN, "action %s: incident %llu %s: %s (counted in "
			 "reveal_action_runs_total{action=\"%s\"}; logged again when it "
			 "succeeds)", name, id, ev, oc->reason, name);
	r->st.failing = 1;
	r->fails_since_ok++;
}

static struct job *take_head(struct runner *r)
{
	struct job *j = r->head;

	r->head = j->next;
	if (!r->head)
		r->tail = NULL;
	r->nqueued--;
	return j;
}

static void *worker(void *arg)
{
	struct runner *r = arg;
	struct rv_actions *s = r->set;
	struct rv_action_outcome oc;
	struct note n;
	struct job *j;
	rv_ns t0;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!r->head && !s->stopping)
			pthread_cond_wait(&r->wake, &s->mu);
		if (s->stopping)
			break;   /* what is queued is dropped by free */
		j = take_head(r);
		if (!r->head)
			r->overflowing = 0;
		pthread_mutex_unlock(&s->mu);
		t0 = rv_clock_ns();
		run_job(r, j, s->grace_s, &oc);
		pthread_mutex_lock(&s->mu);
		settle(r, j, &oc, rv_clock_since_s(t0), &n);
		free(j);
		if (n.text[0]) {
			pthread_mutex_unlock(&s->mu);
			rv_log(n.level, "%s", n.text);
			pthread_mutex_lock(&s->mu);
		}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* ------------------------------------------------------------ submitting */

static struct job *new_job(const struct rv_action_incident *in)
{
	struct job *j = malloc(sizeof(*j) + in->len);

	if (!j)
		return NULL;
	j->next = NULL;
	j->event = in->event;
	j->id = in->id;
	j->severity = in->severity;
	snprintf(j->subsystem, sizeof(j->subsystem), "%s", in->subsystem ? in->subsystem : "");
	snprintf(j->host, sizeof(j->host), "%s", in->host ? in->host : "");
	j->len = in->len;
	memcpy(j->json, in->json, in->len);
	return j;
}

/* Appends j (NULL: out of memory, counted) to r's queue, dropping the
 * oldest when full; 1 when that started an overflow to log. Under mu. */
static int enqueue(struct rv_actions *s, struct runner *r, struct job *j)
{
	int first = 0;

	if (!j) {
		r->st.dropped++;
		return 0;
	}
	if (r->nqueued >= s->queue_max) {
		free(take_head(r));
		r->st.dropped++;
		first = !r->overflowing;
		r->overflowing = 1;
	}
	if (r->tail)
		r->tail->next = j;
	else
		r->head = j;
	r->tail = j;
	r->nqueued++;
	pthread_cond_signal(&r->wake);
	return first;
}

size_t rv_actions_submit(struct rv_actions *s, const struct rv_action_incident *in)
{
	size_t queued = 0;

	if (!s || !in || (!in->json && in->len))
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		struct runner *r = &s->r[i];
		struct job *j;
		int overflow;

		if (!rv_action_matches(&r->spec, in))
			continue;
		j = new_job(in);
		pthread_mutex_lock(&s->mu);
		overflow = enqueue(s, r, j);
		pthread_mutex_unlock(&s->mu);
		queued += j != NULL;
		if (overflow)
			rv_warn("action %s: %zu runs queued: dropping the oldest (counted in "
				"reveal_action_dropped_total; logged again when the queue drains "
				"and fills)", r->spec.name, s->queue_max);
	}
	return queued;
}

/* ---------------------------------------------------------------- stats */

size_t rv_actions_count(const struct rv_actions *s)
{
	return s ? s->n : 0;
}

const char *rv_actions_name(const struct rv_actions *s, size_t i)
{
	return i < s->n ? s->r[i].spec.name : NULL;
}

void rv_actions_stats(struct rv_actions *s, size_t i, struct rv_action_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!s || i >= s->n)
		return;
	pthread_mutex_lock(&s->mu);
	*out = s->r[i].st;
	out->queued = s->r[i].nqueued;
	pthread_mutex_unlock(&s->mu);
}

/* ------------------------------------------------------- set-up, checks */

/* Why spec i cannot run, or 0. */
static int check_spec(const struct rv_actions_opts *o, size_t i, struct rv_err *err)
{
	const struct rv_action_spec *sp = &o->spec[i];
	const char *name = sp->name && sp->name[0] ? sp->name : NULL;

	if (!name)
		return rv_err_set(err, -EINVAL, "action %zu: no name", i + 1);
	for (size_t k = 0; k < i; k++)
		if (o->spec[k].name && strcmp(o->spec[k].name, name) == 0)
			return rv_err_set(err, -EINVAL, "action %s: named twice", name);
	if ((sp->argc > 0) == (sp->http.url && sp->http.url[0]))
		return rv_err_set(err, -EINVAL, "action %s: needs exactly one of a command and a "
				  "webhook", name);
	if (sp->argc > RV_ACTION_ARGV_MAX || sp->nsubsystems > RV_ACTION_SUBSYS_MAX)
		return rv_err_set(err, -EINVAL, "action %s: more than %d arguments or %d "
				  "subsystems", name, RV_ACTION_ARGV_MAX, RV_ACTION_SUBSYS_MAX);
	for (size_t k = 0; k < sp->argc; k++)
		if (!sp->argv[k] || (k == 0 && !sp->argv[0][0]))
			return rv_err_set(err, -EINVAL, "action %s: argument %zu is %s", name, k + 1,
					  sp->argv[k] ? "empty" : "NULL");
	for (size_t k = 0; k < sp->nsubsystems; k++)
		if (!sp->subsystems[k])
			return rv_err_set(err, -EINVAL, "action %s: subsystem %zu is NULL", name, k + 1);
	if (!(sp->timeout_s >= 0 && sp->timeout_s <= ACTION_TIMEOUT_MAX_S))
		return rv_err_set(err, -EINVAL, "action %s: timeout %g s is outside 0..%g", name,
				  sp->timeout_s, ACTION_TIMEOUT_MAX_S);
	if (sp->argc == 0 && rv_httpc_check(&sp->http, err) != 0)
		return -EINVAL;
	return 0;
}

/* A copy of secret (NULL stays NULL) in buf, wiped at free. */
static const char *keep_secret(const char *secret, char *buf, struct rv_err *err, int *rc)
{
	if (!secret)
		return NULL;
	if (strlen(secret) >= ACTION_SECRET_MAX)
		*rc = rv_err_set(err, -EINVAL, "a password or token longer than %d bytes",
				 ACTION_SECRET_MAX - 1);
	snprintf(buf, ACTION_SECRET_MAX, "%s", secret);
	return buf;
}

/* The http settings of a webhook, strings copied (secrets apart). */
static int copy_http(struct rv_actions *s, struct runner *r, const struct rv_httpc_opts *h,
		     struct rv_err *err)
{
	struct rv_httpc_opts *c = &r->spec.http;
	struct rv_pool *pl = &s->pool;
	int rc = 0;

	*c = *h;
	c->url = h->url ? rv_pool_str(pl, h->url) : NULL;
	for (size_t k = 0; k < h->nheaders && k < RV_HTTPC_HEADERS_MAX; k++)
		c->headers[k] = rv_pool_str(pl, h->headers[k]);
	c->basic_user = h->basic_user ? rv_pool_str(pl, h->basic_user) : NULL;
	c->basic_password = keep_secret(h->basic_password, r->secret[0], err, &rc);
	c->bearer_token = keep_secret(h->bearer_token, r->secret[1], err, &rc);
	c->ca_file = h->ca_file ? rv_pool_str(pl, h->ca_file) : NULL;
	c->cert_file = h->cert_file ? rv_pool_str(pl, h->cert_file) : NULL;
	c->key_file = h->key_file ? rv_pool_str(pl, h->key_file) : NULL;
	return rc;
}

/* spec copied into r: every string in the set's pool. */
static int copy_spec(struct rv_actions *s, struct runner *r, const struct rv_action_spec *sp,
		     struct rv_err *err)
{
	struct rv_pool *pl = &s->pool;

	r->spec = *sp;
	r->spec.name = rv_pool_str(pl, sp->name);
	for (size_t k = 0; k < sp->nsubsystems; k++)
		r->spec.subsystems[k] = rv_pool_str(pl, sp->subsystems[k]);
	for (size_t k = 0; k < sp->argc; k++)
		r->spec.argv[k] = rv_pool_str(pl, sp->argv[k]);
	if (r->spec.timeout_s == 0)
		r->spec.timeout_s = RV_ACTION_DEF_TIMEOUT_S;
	if (sp->argc == 0 && copy_http(s, r, &sp->http, err) != 0)
		return -EINVAL;
	return pl->oom ? rv_err_set(err, -ENOMEM, "actions: out of memory") : 0;
}

/* The workers, started with every signal blocked (see the top). */
static int start_workers(struct rv_actions *s, struct rv_err *err)
{
	sigset_t all, old;
	int rc = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (size_t i = 0; i < s->n && rc == 0; i++) {
		rc = -pthread_create(&s->r[i].thread, NULL, worker, &s->r[i]);
		s->r[i].started = rc == 0;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		rv_err_set(err, rc, "actions: cannot start a thread: %s", rv_strerror(rc));
	return rc;
}

static int take_opts(struct rv_actions *s, const struct rv_actions_opts *o, struct rv_err *err)
{
	s->queue_max = o->queue_max ? o->queue_max : RV_ACTION_QUEUE_DEF;
	s->grace_s = o->grace_s ? o->grace_s : RV_ACTION_DEF_GRACE_S;
	if (o->n > RV_ACTIONS_MAX)
		return rv_err_set(err, -EINVAL, "actions: %zu, more than %d", o->n, RV_ACTIONS_MAX);
	if (!(s->grace_s > 0 && s->grace_s <= ACTION_GRACE_MAX_S))
		return rv_err_set(err, -EINVAL, "actions: grace %g s is outside 0..%g", s->grace_s,
				  ACTION_GRACE_MAX_S);
	for (size_t i = 0; i < o->n; i++) {
		int rc = check_spec(o, i, err);

		if (!rc)
			rc = copy_spec(s, &s->r[i], &o->spec[i], err);
		if (rc)
			return rc;
		s->r[i].set = s;
		pthread_cond_init(&s->r[i].wake, NULL);
		s->n = i + 1;
	}
	return 0;
}

int rv_actions_new(const struct rv_actions_opts *o, struct rv_actions **out,
		   struct rv_err *err)
{
	struct rv_actions *s;
	int rc = 0;

	*out = NULL;
	for (size_t i = 0; i < o->n && rc == 0; i++)
		if (o->spec[i].argc == 0)
			rc = rv_httpc_global_init(err);
	if (rc)
		return rc;
	if (!(s = calloc(1, sizeof(*s))))
		return rv_err_set(err, -ENOMEM, "actions: out of memory");
	pthread_mutex_init(&s->mu, NULL);
	rc = take_opts(s, o, err);
	if (!rc)
		rc = start_workers(s, err);
	if (rc) {
		rv_actions_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* ------------------------------------------------------------- stopping */

/* Drops what r still has queued (counted); returns how many. */
static size_t drop_queue(struct runner *r)
{
	size_t n = 0;

	while (r->head) {
		free(take_head(r));
		n++;
	}
	r->st.dropped += n;
	return n;
}

static void summary(const struct runner *r, size_t dropped_now)
{
	const struct rv_action_stats *st = &r->st;
	uint64_t runs = st->runs[RV_ACTION_OK] + st->runs[RV_ACTION_FAILED] +
			st->runs[RV_ACTION_TIMEOUT];

	if (dropped_now)
		rv_warn("action %s: stopping: %zu queued runs dropped", r->spec.name, dropped_now);
	if (runs || st->dropped)
		rv_info("action %s: %llu runs: %llu ok, %llu failed, %llu timed out; %llu dropped",
			r->spec.name, (unsigned long long)runs,
			(unsigned long long)st->runs[RV_ACTION_OK],
			(unsigned long long)st->runs[RV_ACTION_FAILED],
			(unsigned long long)st->runs[RV_ACTION_TIMEOUT],
			(unsigned long long)st->dropped);
}

void rv_actions_free(struct rv_actions *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stopping = 1;
	for (size_t i = 0; i < s->n; i++)
		pthread_cond_signal(&s->r[i].wake);
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].started)
			pthread_join(s->r[i].thread, NULL);
	for (size_t i = 0; i < s->n; i++) {
		struct runner *r = &s->r[i];

		summary(r, drop_queue(r));
		pthread_cond_destroy(&r->wake);
		explicit_bzero(r->secret, sizeof(r->secret));
	}
	rv_pool_free(&s->pool);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
