/*
 * actions.c - the agent's incident actions (configuration actions:,
 * docs/AGENT.md "Actions"; the runner is action/action.h): the configured
 * actions are started with the agent (their password and token files
 * read then), every incident's open and close event is handed to them
 * with the events file's JSON line, their counters go on /metrics, and
 * they stop with the agent.
 *
 * The detection thread only queues (rv_actions_submit copies the line
 * and returns); the actions run on threads of their own. Actions are read
 * at start: SIGHUP names a change and keeps the running ones (agent.c).
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "action/action.h"
#include "base/buf.h"
#include "base/log.h"
#include "catalog/catalog.h"
#include "serve/promtext.h"

enum { ACT_SECRET_MAX = 4096, ACT_NAMES_MAX = 512, ACT_WHAT_MAX = 96 };

static const char *const result_label[RV_ACTION_RESULTS] = { "ok", "failed", "timeout" };

/* config/ lists the subsystem names an action may filter on without
 * catalog/; they must be catalog's, or a filter would never match. */
static int subsystems_agree(struct rv_err *err)
{
	for (size_t i = 0; rv_cfg_subsystem_names[i]; i++) {
		int found = 0;

		for (int s = 0; s < RV_SUB_COUNT && !found; s++)
			found = strcmp(rv_cfg_subsystem_names[i],
				       rv_subsystem_name((enum rv_subsystem)s)) == 0;
		if (!found)
			return rv_err_set(err, -EINVAL, "actions: subsystem '%s' of the configuration "
					  "is not one the catalog names", rv_cfg_subsystem_names[i]);
	}
	return 0;
}

static const char *or_null(const char *s)
{
	return s[0] ? s : NULL;
}

/* A webhook's connection settings; its secret files are read now into
 * secret[0] (password) and secret[1] (token). */
static int http_of(const struct rv_cfg_action *c, size_t i, struct rv_httpc_opts *h,
		   char secret[2][ACT_SECRET_MAX], struct rv_err *err)
{
	char what[ACT_WHAT_MAX];
	int rc = 0;

	h->url = c->webhook;
	for (size_t k = 0; k < c->n_headers && k < RV_CFG_ACTION_HEADERS_MAX &&
			   k < RV_HTTPC_HEADERS_MAX; k++)
		h->headers[h->nheaders++] = c->headers[k];
	if (c->username[0]) {
		h->basic_user = c->username;
		h->basic_password = "";
		snprintf(what, sizeof(what), "actions[%zu].password_file", i + 1);
		if (c->password_file[0] &&
		    !(rc = rv_httpc_read_secret(what, c->password_file, secret[0], ACT_SECRET_MAX,
						err)))
			h->basic_password = secret[0];
	}
	snprintf(what, sizeof(what), "actions[%zu].bearer_token_file", i + 1);
	if (!rc && c->bearer_token_file[0] &&
	    !(rc = rv_httpc_read_secret(what, c->bearer_token_file, secret[1], ACT_SECRET_MAX,
					err)))
		h->bearer_token = secret[1];
	h->ca_file = or_null(c->tls_ca_file);
	h->cert_file = or_null(c->tls_cert_file);
	h->key_file = or_null(c->tls_key_file);
	h->insecure = c->tls_insecure;
	h->timeout_s = c->timeout_s;
	return rc;
}

/* The runner's description of configured action i (strings borrowed
 * from the configuration and secret). */
static int spec_of(const struct rv_cfg_action *c, size_t i, struct rv_action_spec *sp,
		   char secret[2][ACT_SECRET_MAX], struct rv_err *err)
{
	memset(sp, 0, sizeof(*sp));
	sp->name = c->name;
	for (size_t k = 0; k < c->n_on && k < sizeof(c->on) / sizeof(c->on[0]); k++)
		sp->events |= 1u << (strcmp(c->on[k], "close") == 0 ? RV_ACTION_CLOSE
								      : RV_ACTION_OPEN);
	sp->min_severity = (enum rv_severity)c->min_severity;
	for (size_t k = 0; k < c->n_subsystems && k < RV_CFG_SUBSYS_MAX &&
			   k < RV_ACTION_SUBSYS_MAX; k++)
		sp->subsystems[sp->nsubsystems++] = c->subsystems[k];
	for (size_t k = 0; k < c->argc && k < RV_CFG_ARGV_MAX && k < RV_ACTION_ARGV_MAX; k++)
		sp->argv[sp->argc++] = c->command[k];
	sp->timeout_s = c->timeout_s;
	return c->webhook[0] ? http_of(c, i, &sp->http, secret, err) : 0;
}

int rv_agent_actions_open(struct agent *a, struct rv_err *err)
{
	size_t n = a->cfg.actions.n, used = 0;
	struct rv_action_spec *spec;
	char (*secret)[2][ACT_SECRET_MAX], names[ACT_NAMES_MAX] = "";
	int rc;

	if (n == 0)
		return 0;
	if ((rc = subsystems_agree(err)) != 0)
		return rc;
	spec = calloc(n, sizeof(*spec));
	secret = calloc(n, sizeof(*secret));
	if (!spec || !secret)
		rc = rv_err_set(err, -ENOMEM, "actions: out of memory");
	for (size_t i = 0; !rc && i < n; i++)
		rc = spec_of(&a->cfg.actions.item[i], i, &spec[i], secret[i], err);
	if (!rc)
		rc = rv_actions_new(&(struct rv_actions_opts){ .spec = spec, .n = n }, &a->actions,
				    err);
	if (secret)
		explicit_bzero(secret, n * sizeof(*secret));
	free(secret);
	free(spec);
	if (rc)
		return rc;
	for (size_t i = 0; i < n && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "",
					 a->cfg.actions.item[i].name);
	rv_info("agent: %zu incident actions: %s", n, names);
	return 0;
}

void rv_agent_actions_incident(struct agent *a, const struct rv_store_incident *in,
			       const char *event)
{
	struct rv_action_incident ai = { .id = in->id, .subsystem = in->subsystem,
					 .host = in->host };
	int sev = rv_severity_parse(rv_agent_severity(in->peak_score));
	struct rv_buf b;

	if (!a->actions)
		return;
	if (strcmp(event, "open") == 0)
		ai.event = RV_ACTION_OPEN;
	else if (strcmp(event, "close") == 0)
		ai.event = RV_ACTION_CLOSE;
	else
		return;
	ai.severity = sev < 0 ? RV_SEV_MINOR : (enum rv_severity)sev;
	rv_buf_init(&b, 0);
	rv_agent_event_line(a, in, event, &b);
	if (rv_buf_failed(&b)) {
		rv_warn("agent: actions: out of memory: incident %llu %s is not acted on",
			(unsigned long long)in->id, event);
	} else {
		ai.json = rv_buf_text(&b, &ai.len);
		rv_actions_submit(a->actions, &ai);
	}
	rv_buf_fini(&b);
}

/* One counter family per action (and per result for the runs). */
static void runs_metrics(struct rv_promtext *p, const char *const *names,
			 const struct rv_action_stats *st, size_t n)
{
	rv_prom_family(p, "reveal_action_runs_total", "counter",
		       "Incident action runs finished, by result: ok, failed (non-zero exit, "
		       "signal, cannot start, HTTP status other than 2xx, transport error), "
		       "timeout");
	for (size_t i = 0; i < n; i++)
		for (int r = 0; r < RV_ACTION_RESULTS; r++) {
			const char *l[] = { "action", names[i], "result", result_label[r], NULL };

			rv_prom_sample(p, "reveal_action_runs_total", l, (double)st[i].runs[r]);
		}
	rv_prom_family(p, "reveal_action_dropped_total", "counter",
		       "Incident events an action did not run: its queue was full (the oldest "
		       "dropped) or the agent stopped");
	for (size_t i = 0; i < n; i++) {
		const char *l[] = { "action", names[i], NULL };

		rv_prom_sample(p, "reveal_action_dropped_total", l, (double)st[i].dropped);
	}
}

void rv_agent_actions_metrics(struct agent *a, struct rv_promtext *p)
{
	struct rv_action_stats st[RV_ACTIONS_MAX];
	const char *names[RV_ACTIONS_MAX];
	size_t n = rv_actions_count(a->actions);

	if (n == 0)
		return;
	for (size_t i = 0; i < n && i < RV_ACTIONS_MAX; i++) {
		names[i] = rv_actions_name(a->actions, i);
		rv_actions_stats(a->actions, i, &st[i]);
	}
	runs_metrics(p, names, st, n);
	rv_prom_family(p, "reveal_action_seconds", "summary",
		       "Time incident action runs took (all results)");
	for (size_t i = 0; i < n; i++) {
		const char *l[] = { "action", names[i], NULL };
		const uint64_t *r = st[i].runs;

		rv_prom_sample(p, "reveal_action_seconds_sum", l, st[i].seconds_total);
		rv_prom_sample(p, "reveal_action_seconds_count", l,
			       (double)(r[RV_ACTION_OK] + r[RV_ACTION_FAILED] + r[RV_ACTION_TIMEOUT]));
	}
	rv_prom_family(p, "reveal_action_queue", "gauge",
		       "Incident events waiting for an action (the run in progress not counted)");
	for (size_t i = 0; i < n; i++) {
		const char *l[] = { "action", names[i], NULL };

		rv_prom_sample(p, "reveal_action_queue", l, (double)st[i].queued);
	}
	rv_prom_family(p, "reveal_action_failing", "gauge",
		       "1 when an action's last run failed or timed out");
	for (size_t i = 0; i < n; i++) {
		const char *l[] = { "action", names[i], NULL };

		rv_prom_sample(p, "reveal_action_failing", l, st[i].failing ? 1.0 : 0.0);
	}
}

void rv_agent_actions_close(struct agent *a)
{
	struct rv_actions *s = a->actions;

	if (!s)
		return;
	pthread_mutex_lock(&a->mu);   /* /metrics reads a->actions */
	a->actions = NULL;
	pthread_mutex_unlock(&a->mu);
	rv_actions_free(s);
}
