/*
 * mset.c - the agent's metric set (collect.metric_set, --metric-set,
 * select/metricset.h): read once at start; the collector's channel filter
 * (or, in a replay, the recording's), and the one line that says what it
 * leaves out. A set changes the channels, so the model saved in state_dir
 * for other channels is not loaded (model.c compares the names).
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "pipeline/chansel.h"
#include "select/metricset.h"

enum { MISSING_TEXT = 512, SOURCES_TEXT = 1024 };

int rv_agent_mset_load(struct agent *a, struct rv_err *err)
{
	const char *path = a->cfg.collect.metric_set;
	long bad;
	int rc;

	if (!path[0])
		return 0;
	rc = rv_metricset_load(path, &a->mset, err);
	if (rc)         /* an unreadable file is bad configuration too */
		return rc == -ENOMEM ? rc : -EINVAL;
	bad = rv_metricset_uncatalogued(a->mset);
	if (bad >= 0)
		return rv_err_set(err, -EINVAL,
				  "%s:%zu: channel '%s': its metric type is not in the catalog "
				  "(`reveal metrics` lists this host's channels)",
				  path, rv_metricset_line(a->mset, (size_t)bad),
				  rv_metricset_name(a->mset, (size_t)bad));
	return 0;
}

int rv_agent_mset_keep(void *set, const char *channel)
{
	return !set || rv_metricset_has(set, channel);
}

/* One line for the sources the set leaves nothing to read of. */
static void log_unread_sources(const struct agent *a)
{
	char text[SOURCES_TEXT];
	size_t len = 0, n = 0;

	text[0] = '\0';
	for (size_t i = 0; a->coll && i < rv_collector_nunavail(a->coll); i++) {
		int w;

		if (strcmp(rv_collector_unavail_reason(a->coll, i), RV_COLLECT_NOT_IN_SET) != 0)
			continue;
		n++;
		if (len + 1 >= sizeof(text))
			continue;
		w = snprintf(text + len, sizeof(text) - len, "%s%s", len ? ", " : "",
			     rv_collector_unavail_source(a->coll, i));
		len = w < 0 || (size_t)w >= sizeof(text) - len ? sizeof(text) - 1 : len + (size_t)w;
	}
	if (n)
		rv_info("agent: metric set %s: %zu sources not read (%s): %s",
			a->cfg.collect.metric_set, n, RV_COLLECT_NOT_IN_SET, text);
}

int rv_agent_mset_check(struct agent *a, size_t nleft, struct rv_err *err)
{
	const char *what = a->rd ? "in the recording" : "on this host";
	size_t n, nmiss = 0;
	const char **want;
	char text[MISSING_TEXT];

	if (!a->mset)
		return 0;
	n = rv_metricset_count(a->mset);
	if (a->nchan == 0)
		return rv_err_set(err, -EINVAL,
				  "metric set %s: none of its %zu channels is %s (first: %s)",
				  a->cfg.collect.metric_set, n, what, rv_metricset_name(a->mset, 0));
	want = malloc(n * sizeof(*want));
	if (!want)
		return rv_err_set(err, -ENOMEM, "agent: out of memory");
	for (size_t i = 0; i < n; i++)
		want[i] = rv_metricset_name(a->mset, i);
	if (rv_chansel_missing(want, n, (const char *const *)a->names, a->nchan, text,
			       sizeof(text), &nmiss) != 0) {
		free(want);
		return rv_err_set(err, -ENOMEM, "agent: out of memory");
	}
	free(want);
	log_unread_sources(a);
	rv_info("agent: metric set %s: watching %zu of its %zu channels; %zu not %s%s%s%s; "
		"it leaves out %zu of the %zu channels %s",
		a->cfg.collect.metric_set, a->nchan, n, nmiss, what, nmiss ? " (" : "", text,
		nmiss ? ")" : "", nleft, a->nchan + nleft, what);
	return 0;
}
