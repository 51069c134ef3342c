/*
 * facts.c - the host's facts as the agent knows them (collect/facts.h):
 * read at start and again every collect.facts_interval, so that a change at
 * run time (an MTU set, a huge page pool reserved, a link renegotiated, a
 * GPU driver or its clocks changed) is seen: logged once per change,
 * counted on /metrics (reveal_fact_changes_total), kept with the time it
 * was seen (each fact's `since`, for remote_write's reveal_fact_info and
 * so for `reveal fleet` drift, which keeps a fact's newest value), and the
 * last changes listed on /api/v1/facts.
 *
 * The main thread reads and compares them (a few milliseconds of file
 * reads, every facts_interval: not on the sampling path's budget); the
 * HTTP handlers and remote.c read them with a->mu held. A replay reads
 * them at start only (those of collect.root: the fleet tests give each
 * replayed node a fixture host's).
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

static struct rv_collect_cfg facts_cfg(const struct agent *a)
{
	return (struct rv_collect_cfg){
		.root = a->cfg.collect.root,
		.nvml_lib = a->cfg.collect.nvml[0] ? a->cfg.collect.nvml : NULL,
	};
}

/* The fact of key in f, or NULL. */
static const struct rv_fact *find(const struct rv_facts *f, const char *key)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].key, key) == 0)
			return &f->v[i];
	return NULL;
}

int rv_agent_facts_open(struct agent *a, double now_wall, struct rv_err *err)
{
	struct agent_facts *af = &a->facts;
	struct rv_collect_cfg cfg;
	int rc;

	memset(af, 0, sizeof(*af));
	cfg = facts_cfg(a);
	if ((rc = rv_facts_collect(&cfg, &af->cur, err)) != 0)
		return rc;
	af->since = calloc(af->cur.n ? af->cur.n : 1, sizeof(*af->since));
	if (!af->since)
		return rv_err_set(err, -ENOMEM, "agent: facts: out of memory");
	for (size_t i = 0; i < af->cur.n; i++)
		af->since[i] = now_wall;
	/* a replay reads them once: the host it replays does not change */
	af->next = a->cfg.collect.facts_s > 0 && !a->rd ? now_wall + a->cfg.collect.facts_s : 0;
	return 0;
}

void rv_agent_facts_close(struct agent *a)
{
	rv_facts_fini(&a->facts.cur);
	free(a->facts.since);
	a->facts.since = NULL;
}

/* Keeps one change for the API (a ring of AGENT_FACT_CHANGES). */
static void note_change(struct agent_facts *af, const char *key, const char *from,
			const char *to, double ts)
{
	struct agent_fact_change *c = &af->recent[af->recent_next];

	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->from, sizeof(c->from), "%s", from ? from : "");
	snprintf(c->to, sizeof(c->to), "%s", to ? to : "");
	c->ts = ts;
	af->recent_next = (af->recent_next + 1) % AGENT_FACT_CHANGES;
	if (af->nrecent < AGENT_FACT_CHANGES)
		af->nrecent++;
	af->changes++;
	if (!from)
		rv_warn("agent: fact %s appeared: %s", key, to);
	else if (!to)
		rv_warn("agent: fact %s is gone (was %s)", key, from);
	else
		rv_warn("agent: fact %s changed: %s -> %s", key, from, to);
}

/* The changes from af->cur to f, logged and noted; since[] for f (the old
 * time of an unchanged fact, now for a new value) into *since. */
static size_t compare(struct agent_facts *af, const struct rv_facts *f, double now,
		      double *since)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct rv_fact *old = find(&af->cur, f->v[i].key);

		since[i] = now;
		if (old && strcmp(old->value, f->v[i].value) == 0) {
			since[i] = af->since[old - af->cur.v];
			continue;
		}
		note_change(af, f->v[i].key, old ? old->value : NULL, f->v[i].value, now);
		n++;
	}
	for (size_t i = 0; i < af->cur.n; i++)
		if (!find(f, af->cur.v[i].key)) {
			note_change(af, af->cur.v[i].key, af->cur.v[i].value, NULL, now);
			n++;
		}
	return n;
}

int rv_agent_facts_tick(struct agent *a, double now_wall)
{
	struct agent_facts *af = &a->facts;
	struct rv_collect_cfg cfg = facts_cfg(a);
	struct rv_facts f = { 0 };
	struct rv_err err = { 0 };
	double *since;
	size_t changed;

	if (a->rd || !af->next || now_wall < af->next)
		return 0;
	af->next = now_wall + a->cfg.collect.facts_s;
	if (rv_facts_collect(&cfg, &f, &err) != 0 ||
	    !(since = calloc(f.n ? f.n : 1, sizeof(*since)))) {
		if (af->failures++ == 0)
			rv_warn("agent: reading the facts again: %s", err.msg[0] ? err.msg
							  : "out of memory");
		rv_facts_fini(&f);
		return 0;
	}
	af->failures = 0;
	pthread_mutex_lock(&a->mu);
	changed = compare(af, &f, now_wall, since);
	rv_facts_fini(&af->cur);
	free(af->since);
	af->cur = f;
	af->since = since;
	pthread_mutex_unlock(&a->mu);
	return (int)changed;
}
