/*
 * report_say.c - the verdict of a fleet report in words, said once for
 * every format (report_int.h): what the SRE reads first.
 *
 *   2 findings: 1 straggler, 1 configuration drift
 *   node node-3 is a straggler in group rack-a (out of step
 *     15:03:10–15:03:40 UTC, 31 s); gpu.sm_clock_mhz 1.2 k where its
 *     peers have 1.8 k
 *   node node-7's mem.hugepages_2048kb is 0 where 4 of 5 nodes of group
 *     rack-a have 1024
 *   group rack-b is split on gpu.driver: 535.1 on 2 nodes, 550.0 on 2,
 *     absent on 1
 *   1 group too small to judge for stragglers (fewer than 3 nodes): rack-z
 *
 * Names from the storage go through the sink's name(), the words around
 * them through text(), so each format quotes and escapes the names its
 * own way. Lists of names stop after RV_FLEET_REP_NAMES with "and N
 * more": the sections after the verdict list them all.
 */
#include "fleet/report_int.h"

#include <stdio.h>

static void say(const struct rv_fleet_rep_sink *k, const char *s)
{
	k->text(k->ctx, s);
}

static void name(const struct rv_fleet_rep_sink *k, const char *s)
{
	k->name(k->ctx, rv_fleet_rep_str(s));
}

static void unit(const struct rv_fleet_rep_sink *k, const char *s)
{
	if (k->unit)
		k->unit(k->ctx, s);
	else
		k->text(k->ctx, s);
}

/* ", and 3 more" after a list cut at RV_FLEET_REP_NAMES of n items. */
static void more(const struct rv_fleet_rep_sink *k, size_t n, const char *what)
{
	char buf[RV_FLEET_REP_CELL];
	if (n <= RV_FLEET_REP_NAMES)
		return;
	snprintf(buf, sizeof(buf), ", and %zu more%s", n - RV_FLEET_REP_NAMES, what);
	say(k, buf);
}

void rv_fleet_rep_say_head(const struct rv_fleet_result *r, const struct rv_fleet_rep_sink *k)
{
	size_t ns = r->strag ? r->nstrag : 0, nd = r->drift ? r->ndrift : 0;
	char buf[RV_FLEET_REP_LINE];
	if (ns + nd == 0) {
		say(k, "no straggler, no configuration drift");
		return;
	}
	char a[RV_FLEET_REP_CELL], b[RV_FLEET_REP_CELL];
	snprintf(a, sizeof(a), ns ? "%zu straggler%s" : "no straggler", ns, ns == 1 ? "" : "s");
	snprintf(b, sizeof(b), nd ? "%zu configuration drift%s" : "no configuration drift", nd,
		 nd == 1 ? "" : "s");
	snprintf(buf, sizeof(buf), "%zu finding%s: %s, %s", ns + nd, ns + nd == 1 ? "" : "s", a,
		 b);
	say(k, buf);
}

/* "15:03:10–15:03:40 UTC, 31 s" */
static void stretch(const struct rv_fleet_result *r, const struct rv_fleet_stretch *st,
		    const struct rv_fleet_rep_sink *k)
{
	char span[2 * RV_FLEET_REP_CELL], d[RV_FLEET_REP_CELL];
	rv_fleet_rep_span(r, st, span, sizeof(span));
	rv_fleet_rep_duration(rv_fleet_rep_stretch_s(r, st), d, sizeof(d));
	unit(k, span);
	say(k, ", ");
	unit(k, d);
}

/* "(out of step ...)": each stretch when there are two at most, else
 * how often, how long in all and the longest. */
static void stretches(const struct rv_fleet_result *r, const struct rv_fleet_straggler *s,
		      const struct rv_fleet_rep_sink *k)
{
	size_t n = s->stretch ? s->nstretch : 0, longest = 0;
	char buf[2 * RV_FLEET_REP_CELL], d[RV_FLEET_REP_CELL];
	if (n == 0) {
		rv_fleet_rep_score(s->peak, d, sizeof(d));
		snprintf(buf, sizeof(buf), " (peak score %s)", d);
		say(k, buf);
		return;
	}
	say(k, " (out of step ");
	if (n <= 2) {
		for (size_t i = 0; i < n; i++) {
			say(k, i ? " and " : "");
			stretch(r, &s->stretch[i], k);
		}
		say(k, ")");
		return;
	}
	double all = 0;
	for (size_t i = 0; i < n; i++) {
		double len = rv_fleet_rep_stretch_s(r, &s->stretch[i]);
		all += len;
		longest = len > rv_fleet_rep_stretch_s(r, &s->stretch[longest]) ? i : longest;
	}
	rv_fleet_rep_duration(all, d, sizeof(d));
	snprintf(buf, sizeof(buf), "%zu times, %s in all; the longest ", n, d);
	say(k, buf);
	stretch(r, &s->stretch[longest], k);
	say(k, ")");
}

void rv_fleet_rep_say_strag(const struct rv_fleet_result *r, const struct rv_fleet_straggler *s,
			    const struct rv_fleet_rep_sink *k)
{
	say(k, "node ");
	name(k, s->node);
	say(k, " is a straggler in group ");
	name(k, rv_fleet_rep_group(s->group));
	stretches(r, s, k);
	if (!s->sig || s->nsig == 0)
		return;
	const struct rv_fleet_signal *g = &s->sig[0];
	char v[RV_FLEET_REP_CELL], m[RV_FLEET_REP_CELL];
	rv_fleet_rep_qty(g->value, g->channel, 0, v, sizeof(v));
	rv_fleet_rep_qty(g->median, g->channel, 0, m, sizeof(m));
	say(k, "; ");
	name(k, g->channel);
	say(k, " ");
	unit(k, v);
	say(k, " where its peers have ");
	unit(k, m);
}

/* " where 4 of 5 nodes of group G have V" */
static void majority(const struct rv_fleet_drift *d, const struct rv_fleet_rep_sink *k)
{
	char buf[RV_FLEET_REP_CELL];
	snprintf(buf, sizeof(buf), " where %zu of %zu nodes of group ", d->nmajority, d->nnodes);
	say(k, buf);
	name(k, rv_fleet_rep_group(d->group));
	say(k, d->nmajority == 1 ? " has " : " have ");
	name(k, d->majority);
}

/* The value of odd node i: a name, or the word "absent". */
static void odd_value(const struct rv_fleet_drift *d, size_t i, const struct rv_fleet_rep_sink *k)
{
	const char *v = rv_fleet_rep_str(d->odd[i].value);
	if (*v)
		name(k, v);
	else
		say(k, "absent");
}

static void split(const struct rv_fleet_drift *d, const struct rv_fleet_rep_sink *k)
{
	char buf[RV_FLEET_REP_CELL];
	size_t shown = 0, values = 0;
	say(k, "group ");
	name(k, rv_fleet_rep_group(d->group));
	say(k, " is split on ");
	name(k, d->key);
	for (size_t i = 0; d->odd && i < d->nodd; i++) {
		if (!rv_fleet_rep_first_holder(d, i))
			continue;
		if (values++ >= RV_FLEET_REP_NAMES)
			continue;
		say(k, shown++ ? ", " : ": ");
		odd_value(d, i, k);
		size_t h = rv_fleet_rep_holders(d, d->odd[i].value);
		snprintf(buf, sizeof(buf), shown == 1 ? " on %zu node%s" : " on %zu", h,
			 h == 1 ? "" : "s");
		say(k, buf);
	}
	more(k, values, " values");
}

void rv_fleet_rep_say_drift(const struct rv_fleet_drift *d, const struct rv_fleet_rep_sink *k)
{
	size_t n = d->odd ? d->nodd : 0;
	if (!d->majority) {
		split(d, k);
		return;
	}
	if (n == 1) {
		say(k, "node ");
		name(k, d->odd[0].node);
		say(k, *rv_fleet_rep_str(d->odd[0].value) ? "'s " : " lacks ");
		name(k, d->key);
		if (*rv_fleet_rep_str(d->odd[0].value)) {
			say(k, " is ");
			name(k, d->odd[0].value);
		}
		majority(d, k);
		return;
	}
	say(k, n ? "nodes " : "");
	for (size_t i = 0; i < n && i < RV_FLEET_REP_NAMES; i++) {
		say(k, i ? ", " : "");
		name(k, d->odd[i].node);
		say(k, " (");
		odd_value(d, i, k);
		say(k, ")");
	}
	more(k, n, "");
	say(k, n ? " differ in " : "");
	name(k, d->key);
	majority(d, k);
}

int rv_fleet_rep_say_small(const struct rv_fleet_result *r, const struct rv_fleet_rep_sink *k)
{
	char buf[RV_FLEET_REP_LINE];
	size_t listed = 0, n = r->group ? r->ngroup : 0;
	if (r->nsmall == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%zu group%s too small to judge for stragglers (fewer than %d "
		 "nodes)", r->nsmall, r->nsmall == 1 ? "" : "s", RV_STRAG_MIN_NODES);
	say(k, buf);
	for (size_t i = 0; i < n; i++) {
		if (!rv_fleet_rep_small(&r->group[i]))
			continue;
		if (listed++ < RV_FLEET_REP_NAMES) {
			say(k, listed == 1 ? ": " : ", ");
			name(k, rv_fleet_rep_group(r->group[i].name));
		}
	}
	more(k, listed, "");
	return 1;
}

static void mark(void (*fn)(void *, const char *), void *ctx, const char *anchor)
{
	if (fn)
		fn(ctx, anchor);
}

void rv_fleet_rep_say_list(const struct rv_fleet_result *r, const struct rv_fleet_rep_sink *k)
{
	char anchor[RV_FLEET_REP_CELL];
	for (size_t i = 0; r->strag && i < r->nstrag; i++) {
		snprintf(anchor, sizeof(anchor), "straggler-%zu", i + 1);
		mark(k->begin, k->ctx, anchor);
		rv_fleet_rep_say_strag(r, &r->strag[i], k);
		mark(k->end, k->ctx, anchor);
	}
	for (size_t i = 0; r->drift && i < r->ndrift; i++) {
		snprintf(anchor, sizeof(anchor), "drift-%zu", i + 1);
		mark(k->begin, k->ctx, anchor);
		rv_fleet_rep_say_drift(&r->drift[i], k);
		mark(k->end, k->ctx, anchor);
	}
	if (r->nsmall == 0)
		return;
	mark(k->begin, k->ctx, NULL);
	rv_fleet_rep_say_small(r, k);
	mark(k->end, k->ctx, NULL);
}
