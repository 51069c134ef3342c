/*
 * action.h - incident actions: what an operator has run when an incident
 * opens or closes (docs/AGENT.md, "Actions"). An action is a command (an
 * argument vector, no shell) fed the incident as a JSON line on its
 * standard input, or a webhook the same line is POSTed to.
 *
 * The caller, the agent's detection loop, never waits on an action:
 * rv_actions_submit filters the event against each action (its events,
 * least severity, subsystems) and copies it into that action's bounded
 * queue; a full queue drops its oldest entry (counted). Every action has
 * one worker thread of its own that runs its queue in order: an action's
 * close never overtakes its open, and a hanging command holds up only
 * itself.
 *
 * A run succeeds, fails or times out:
 *  - a command succeeds when it exits 0. A non-zero exit, a signal, or a
 *    program that cannot be started (exec: No such file or directory) is
 *    a failure; at its timeout its process group gets SIGTERM, and
 *    SIGKILL grace_s later, and it is reaped: a timeout. The command runs
 *    in a process group of its own, with the signals' default handling
 *    and an empty signal mask, the agent's other descriptors closed,
 *    stdout on /dev/null and stderr in a pipe whose first bytes the log
 *    line of a failure quotes (the rest is read and discarded, so a
 *    chatty command never blocks). Its environment is the agent's plus
 *    REVEAL_EVENT (open, close), REVEAL_INCIDENT_ID, REVEAL_SEVERITY,
 *    REVEAL_SUBSYSTEM, REVEAL_HOST and REVEAL_ACTION.
 *  - a webhook succeeds on a 2xx answer; any other status or a transport
 *    error fails, the timeout (the whole request, connecting included)
 *    times out. The POST carries Content-Type: application/json, the
 *    configured headers and credentials (remote/httpc.h); redirects are
 *    not followed.
 * Nothing is retried: an action that fails is counted and logged, and the
 * next event runs it again. Logging: a warning when an action starts
 * failing, with the reason ("exit status 3: <first line of stderr>",
 * "HTTP 500: <first bytes of the answer>", "timed out after 10 s",
 * "exec /x: No such file or directory"), then silence while it keeps
 * failing (counted), and an info line when it succeeds again.
 *
 * Threads: submit, stats and count may be called from any thread; new and
 * free by the owner only. free stops the workers: each finishes the run in
 * progress (bounded by its timeout plus grace_s) and the runs still queued
 * are dropped, counted and logged.
 *
 * Non-goals: retries, a queue on disk, a shell.
 */
#ifndef RV_ACTION_ACTION_H
#define RV_ACTION_ACTION_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/severity.h"
#include "remote/httpc.h"

enum rv_action_event { RV_ACTION_OPEN, RV_ACTION_CLOSE, RV_ACTION_EVENTS };
enum rv_action_result { RV_ACTION_OK, RV_ACTION_FAILED, RV_ACTION_TIMEOUT, RV_ACTION_RESULTS };

enum {
	RV_ACTIONS_MAX = 16,           /* actions of one set */
	RV_ACTION_ARGV_MAX = 32,       /* items of a command */
	RV_ACTION_SUBSYS_MAX = 8,      /* subsystems of a filter */
	RV_ACTION_QUEUE_DEF = 64,      /* events waiting per action */
	RV_ACTION_ERROR_MAX = 256,     /* last_error, NUL included */
};
#define RV_ACTION_DEF_TIMEOUT_S 10.0
#define RV_ACTION_DEF_GRACE_S 2.0   /* SIGTERM, then SIGKILL this much later */

/* One action. Strings are borrowed for rv_actions_new, which copies them. */
struct rv_action_spec {
	const char *name;              /* for logs and metrics */
	unsigned events;               /* bits 1u << enum rv_action_event; 0: open only */
	enum rv_severity min_severity; /* incidents less severe are left out */
	const char *subsystems[RV_ACTION_SUBSYS_MAX];   /* only these; none: any */
	size_t nsubsystems;
	const char *argv[RV_ACTION_ARGV_MAX];  /* a command: argv[0] a path, or a name
						* looked up in PATH; or */
	size_t argc;
	struct rv_httpc_opts http;     /* a webhook: http.url set (argc 0) */
	double timeout_s;              /* one run; 0: 10 s */
};

struct rv_actions_opts {
	const struct rv_action_spec *spec;
	size_t n;                      /* at most RV_ACTIONS_MAX */
	size_t queue_max;              /* per action; 0: RV_ACTION_QUEUE_DEF */
	double grace_s;                /* 0: RV_ACTION_DEF_GRACE_S */
};

/* One incident event; strings borrowed for the call. */
struct rv_action_incident {
	enum rv_action_event event;
	uint64_t id;
	enum rv_severity severity;
	const char *subsystem;         /* "cpu", ... */
	const char *host;
	const char *json;              /* what the command reads and the webhook posts */
	size_t len;
};

struct rv_action_stats {
	uint64_t runs[RV_ACTION_RESULTS];  /* finished runs by result */
	uint64_t dropped;              /* queue full (the oldest), or queued at stop */
	size_t queued;                 /* waiting, the run in progress not included */
	double seconds_total;          /* time of every finished run, summed */
	double last_seconds;           /* the last run's; 0 before one */
	int failing;                   /* the last run failed or timed out */
	char last_error[RV_ACTION_ERROR_MAX];  /* its reason; kept after a success */
};

struct rv_actions;

/*
 * Checks o (names set and unique, exactly one of a command and a webhook
 * each, rv_httpc_check, the bounds), copies it and starts one thread per
 * action. Returns 0 with *out (free with rv_actions_free), or -EINVAL
 * (err names the action and the field), -ENOMEM, -EIO (libcurl) or a
 * pthread error.
 */
int rv_actions_new(const struct rv_actions_opts *o, struct rv_actions **out,
		   struct rv_err *err);

/* 1 when action spec runs for in (event, severity, subsystem). */
int rv_action_matches(const struct rv_action_spec *spec, const struct rv_action_incident *in);

/*
 * Queues a copy of in for every action it matches; a full queue drops
 * its oldest entry first (counted, and logged once until the queue
 * drains). Never waits on an action. Returns how many actions were
 * queued; an entry that cannot be allocated is counted as dropped. s may
 * be NULL (returns 0).
 */
size_t rv_actions_submit(struct rv_actions *s, const struct rv_action_incident *in);

/* How many actions s has, and the name of action i (< that count). */
size_t rv_actions_count(const struct rv_actions *s);
const char *rv_actions_name(const struct rv_actions *s, size_t i);

/* A consistent copy of action i's counters. */
void rv_actions_stats(struct rv_actions *s, size_t i, struct rv_action_stats *out);

/*
 * Stops every worker after the run it has in progress (bounded by that
 * action's timeout plus grace_s), drops what is still queued (counted and
 * logged with the number), logs a summary line per action that ran or
 * dropped anything ("action NAME: 5 runs: 4 ok, 1 failed, 0 timed out; 2
 * dropped"), and frees s. s may be NULL.
 */
void rv_actions_free(struct rv_actions *s);

#endif
