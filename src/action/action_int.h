/*
 * action_int.h - what the files of action/ share: one run of a command
 * (action_exec.c) or of a webhook (action_http.c), called by the worker
 * threads of action.c. Not API; include action.h instead.
 */
#ifndef RV_ACTION_ACTION_INT_H
#define RV_ACTION_ACTION_INT_H

#include "action/action.h"

enum {
	RV_ACTION_SHOWN = 200,         /* bytes of stderr or an answer quoted in a reason */
	RV_ACTION_ENV_MAX = 8,         /* REVEAL_* variables of a command */
};

/* How one run ended: the result and, unless it succeeded, why
 * ("exit status 3: no such node", "HTTP 500: busy", "timed out after
 * 10 s"). */
struct rv_action_outcome {
	enum rv_action_result result;
	char reason[RV_ACTION_ERROR_MAX];
};

/*
 * Runs the command argv (argc items, argv[0] a path or a name looked up
 * in PATH) with in[0..len) on its standard input and the agent's
 * environment plus env (nenv "NAME=value" entries, which replace
 * variables of those names); at timeout_s its process group gets
 * SIGTERM, and SIGKILL grace_s later. Returns when the command has exited
 * and was reaped. The calling thread must block SIGPIPE (a command that
 * does not read its input closes the pipe). Never fails otherwise: every
 * problem is the outcome's.
 */
void rv_action_exec(const char *const *argv, size_t argc, const char *const *env, size_t nenv,
		    const char *in, size_t len, double timeout_s, double grace_s,
		    struct rv_action_outcome *out);

/*
 * POSTs body[0..len) to http->url with Content-Type: application/json and
 * the settings of http (headers, credentials, TLS), within timeout_s.
 * Returns when the request is done or cut.
 */
void rv_action_post(const struct rv_httpc_opts *http, const char *body, size_t len,
		    double timeout_s, struct rv_action_outcome *out);

/* s[0..len) as a reason quotes it: its first line, at most
 * RV_ACTION_SHOWN bytes, control bytes as '?', into buf (n bytes). */
const char *rv_action_first_line(const char *s, size_t len, char *buf, size_t n);

#endif
