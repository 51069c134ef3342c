/*
 * kb.c - the knowledge base: the rule set, its override semantics and the
 * matching of rules against an incident's evidence. See kb.h; the file
 * format and the confidence formula are documented in docs/RULES.md.
 *
 * Reading a rule file is kb_yaml.c's; the built-in text is a C array
 * generated at build time from share/reveal/rules.yaml (scripts/
 * embed-text.sh), declared here. Matching is a scan of every condition
 * over every evidence entry: a few dozen conditions times a few thousand
 * channels per incident, cheap next to building the evidence, so there is
 * no index. Nothing here allocates while matching.
 */
#include "explain/kb_int.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* scripts/embed-text.sh writes these from share/reveal/rules.yaml. */
extern const char rv_kb_rules_yaml[];
extern const size_t rv_kb_rules_yaml_len;

/*
 * Confidence of a rule that fires (docs/RULES.md):
 *   CONF_BASE + CONF_REQUIRED * (mean strength of the required items)
 *             + CONF_SUPPORT * (supporting items that hold / supporting items)
 * with the strength of a held condition m / (m + STRENGTH_HALF), m its |z|
 * (bursty: inc_sd / sd_eff): 0.5 at m = 10, 0.9 at m = 90. A rule with a
 * measured: record is calibrated on it: (right + KB_PRIOR_WEIGHT * that) /
 * (first + KB_PRIOR_WEIGHT).
 */
#define CONF_BASE 0.5
#define CONF_REQUIRED 0.2
#define CONF_SUPPORT 0.3
#define STRENGTH_HALF 10.0

const char *rv_kb_builtin_text(size_t *len)
{
	if (len)
		*len = rv_kb_rules_yaml_len;
	return rv_kb_rules_yaml;
}

int rv_kb_new(struct rv_kb **out)
{
	*out = calloc(1, sizeof(struct rv_kb));
	return *out ? 0 : -ENOMEM;
}

void rv_kb_rule_free(struct rv_kb_rule *r)
{
	if (!r)
		return;
	free(r->id);
	free(r->title);
	free(r->subsystem);
	free(r->cause);
	free(r->fix);
	free(r->decided_by);
	for (size_t i = 0; i < r->ncandidates; i++)
		free(r->candidate[i]);
	for (size_t i = 0; i < r->nyields; i++)
		free(r->yields_to[i]);
	for (size_t i = 0; i < r->nconds; i++) {
		free(r->conds[i].glob);
		free(r->conds[i].what);
	}
	for (size_t i = 0; i < r->nchecks; i++) {
		free(r->check[i]);
		free(r->why[i]);
	}
	free(r);
}

void rv_kb_free(struct rv_kb *kb)
{
	if (!kb)
		return;
	for (size_t i = 0; i < kb->n; i++)
		rv_kb_rule_free(kb->rule[i]);
	free(kb->rule);
	free(kb);
}

/* Index of the rule with this id, or kb->n. */
static size_t find_rule(const struct rv_kb *kb, const char *id)
{
	size_t i;

	for (i = 0; i < kb->n; i++)
		if (strcmp(kb->rule[i]->id, id) == 0)
			break;
	return i;
}

/* Refuses a text that would leave more than KB_RULES_MAX rules, and makes
 * room for the ones it adds, so that merging cannot fail half-way. */
static int reserve(struct rv_kb *kb, struct rv_kb_rule **nr, size_t n, const char *name,
		   struct rv_err *err)
{
	size_t count = kb->n, cap;
	struct rv_kb_rule **p;

	for (size_t i = 0; i < n; i++) {
		int known = find_rule(kb, nr[i]->id) < kb->n;

		if (!nr[i]->enabled) {
			count -= known;
			continue;
		}
		if (known)
			continue;
		if (++count > KB_RULES_MAX)
			return rv_err_set(err, -EINVAL, "%s:%zu:%zu: more than %d rules in all",
					  name, nr[i]->line, nr[i]->col, KB_RULES_MAX);
	}
	if (kb->n + n <= kb->cap)
		return 0;
	cap = kb->n + n;
	p = realloc(kb->rule, cap * sizeof(*p));
	if (!p)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", name);
	kb->rule = p;
	kb->cap = cap;
	return 0;
}

/* Takes r into kb: replaces or removes the rule of its id, or appends. */
static void merge_one(struct rv_kb *kb, struct rv_kb_rule *r)
{
	size_t i = find_rule(kb, r->id);

	if (!r->enabled) {
		if (i < kb->n) {
			rv_kb_rule_free(kb->rule[i]);
			memmove(&kb->rule[i], &kb->rule[i + 1], (kb->n - i - 1) * sizeof(*kb->rule));
			kb->n--;
		}
		rv_kb_rule_free(r);
	} else if (i < kb->n) {
		rv_kb_rule_free(kb->rule[i]);
		kb->rule[i] = r;
	} else {
		kb->rule[kb->n++] = r;
	}
}

int rv_kb_load(struct rv_kb *kb, const char *name, const char *text, size_t len,
	       struct rv_err *err)
{
	struct rv_kb_rule **nr;
	size_t n;
	int rc;

	if (!kb)
		return rv_err_set(err, -EINVAL, "rules: no knowledge base");
	name = name ? name : "<rules>";
	rc = rv_kb_parse(name, text, len, &nr, &n, err);
	if (rc == 0)
		rc = reserve(kb, nr, n, name, err);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			rv_kb_rule_free(nr[i]);
		free(nr);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		merge_one(kb, nr[i]);
	free(nr);
	return 0;
}

int rv_kb_new_builtin(struct rv_kb **out, struct rv_err *err)
{
	size_t len;
	const char *text = rv_kb_builtin_text(&len);
	int rc = rv_kb_new(out);

	if (rc == 0)
		rc = rv_kb_load(*out, "rules.yaml (built in)", text, len, err);
	if (rc != 0) {
		rv_kb_free(*out);
		*out = NULL;
		return rc == -ENOMEM ? rv_err_set(err, rc, "out of memory") : rc;
	}
	return 0;
}

size_t rv_kb_count(const struct rv_kb *kb)
{
	return kb ? kb->n : 0;
}

const struct rv_kb_rule *rv_kb_get(const struct rv_kb *kb, size_t i)
{
	return kb && i < kb->n ? kb->rule[i] : NULL;
}

const char *rv_kb_rule_id(const struct rv_kb_rule *r) { return r ? r->id : ""; }
const char *rv_kb_rule_title(const struct rv_kb_rule *r) { return r ? r->title : ""; }
const char *rv_kb_rule_subsystem(const struct rv_kb_rule *r) { return r ? r->subsystem : ""; }
const char *rv_kb_rule_cause(const struct rv_kb_rule *r) { return r ? r->cause : ""; }
const char *rv_kb_rule_fix(const struct rv_kb_rule *r) { return r ? r->fix : ""; }
size_t rv_kb_rule_nchecks(const struct rv_kb_rule *r) { return r ? r->nchecks : 0; }

size_t rv_kb_rule_ncandidates(const struct rv_kb_rule *r) { return r ? r->ncandidates : 0; }

const char *rv_kb_rule_candidate(const struct rv_kb_rule *r, size_t i)
{
	return r && i < r->ncandidates ? r->candidate[i] : NULL;
}

int rv_kb_rule_measured(const struct rv_kb_rule *r, unsigned *first, unsigned *right)
{
	if (!r || !r->has_measured)
		return 0;
	if (first)
		*first = r->measured_first;
	if (right)
		*right = r->measured_right;
	return 1;
}

const char *rv_kb_rule_decided_by(const struct rv_kb_rule *r)
{
	return r && r->decided_by ? r->decided_by : "";
}

const char *rv_kb_rule_check(const struct rv_kb_rule *r, size_t i)
{
	return r && i < r->nchecks ? r->check[i] : NULL;
}

const char *rv_kb_rule_check_why(const struct rv_kb_rule *r, size_t i)
{
	return r && i < r->nchecks ? r->why[i] : NULL;
}

size_t rv_kb_rule_nsignals(const struct rv_kb_rule *r) { return r ? r->nconds : 0; }

const char *rv_kb_rule_signal(const struct rv_kb_rule *r, size_t i, int *skew)
{
	if (!r || i >= r->nconds)
		return NULL;
	if (skew)
		*skew = r->conds[i].skew;
	return r->conds[i].glob;
}

/* ---- matching ---- */

/* A condition that held: the entry that made it hold and its strength. */
struct held {
	const struct rv_evidence_sig *sig;
	const struct kb_cond *c;
	double m;          /* |z|, or the burst ratio */
};

static double burst_ratio(const struct rv_evidence_sig *s)
{
	return s->inc_sd / rv_evidence_sd_eff(s->base_mean, s->base_sd);
}

static int change_ok(const struct kb_cond *c, const struct rv_evidence_sig *s)
{
	if (!(c->has & KB_HAS_MIN_CHANGE))
		return 1;
	if (isnan(s->change))
		return 0;
	if (c->dir == KB_UP)
		return s->change >= c->min_change;
	if (c->dir == KB_DOWN)
		return s->change <= -c->min_change;
	return fabs(s->change) >= c->min_change;
}

/* How far s moved in c's terms (> = 0) when it satisfies c's numbers, else -1. */
static double satisfies(const struct kb_cond *c, const struct rv_evidence_sig *s,
			double span)
{
	int based = s->base_n >= RV_EV_MIN_BASE;
	double m = fabs(s->z);

	if (s->inc_n == 0 || (s->skew && !c->skew) || !change_ok(c, s))
		return -1;
	if (((c->has & KB_HAS_MIN_VALUE) && !(s->value >= c->min_value)) ||
	    ((c->has & KB_HAS_MAX_VALUE) && !(s->value <= c->max_value)) ||
	    ((c->has & KB_HAS_MIN_DELTA) && !(fabs(s->value - s->base_mean) >= c->min_delta)) ||
	    ((c->has & KB_HAS_MIN_PEAK) && !(s->peak >= c->min_peak)) ||
	    ((c->has & KB_HAS_MAX_PEAK) && !(s->peak <= c->max_peak)))
		return -1;
	switch (c->dir) {
	case KB_UP:
		return based && s->dir > 0 && s->z >= c->min_z ? m : -1;
	case KB_DOWN:
		return based && s->dir < 0 && -s->z >= c->min_z ? m : -1;
	case KB_ANY:
		return m >= c->min_z ? m : -1;
	case KB_GROWS:
		/* still rising: its farthest sample well beyond its mean, over an
		 * incident long enough that a one-time step cannot pass for it */
		return based && s->dir > 0 && s->z >= c->min_z && span >= KB_GROWS_MIN_S &&
		       s->peak - s->base_mean >= KB_GROWTH * (s->value - s->base_mean) ? m : -1;
	case KB_BURSTY:
		if (!based || s->inc_n < 2 || ((c->has & KB_HAS_MIN_Z) && m < c->min_z))
			return -1;
		m = burst_ratio(s);
		return m >= c->min_burst ? m : -1;
	}
	return -1;
}

/* The entry of ev that satisfies c with the largest movement (the first of
 * equals); 0 when none does. */
static int cond_holds(const struct kb_cond *c, const struct rv_evidence *ev, struct held *h)
{
	h->sig = NULL;
	h->c = c;
	h->m = -1;
	for (size_t i = 0; i < ev->n; i++) {
		const struct rv_evidence_sig *s = &ev->sig[i];
		double m = satisfies(c, s, ev->end_ts - ev->start_ts);

		if (m > h->m && s->name && fnmatch(c->glob, s->name, 0) == 0) {
			h->sig = s;
			h->m = m;
		}
	}
	return h->sig != NULL;
}

/* An item holds when one of its conditions does; *h is the strongest. */
static int item_holds(const struct rv_kb_rule *r, const struct kb_item *it,
		      const struct rv_evidence *ev, struct held *h)
{
	struct held best = { .m = -1 }, one;

	for (size_t k = it->first; k < (size_t)it->first + it->n; k++)
		if (cond_holds(&r->conds[k], ev, &one) && one.m > best.m)
			best = one;
	*h = best;
	return best.sig != NULL;
}

static double strength(double m)
{
	if (isnan(m) || m <= 0)
		return 0;
	if (isinf(m))
		return 1;
	return m / (m + STRENGTH_HALF);
}

static void add_evidence(struct rv_kb_match *out, const struct held *h, int required)
{
	if (out->nev >= RV_KB_EVIDENCE_MAX)
		return;
	out->ev[out->nev++] = (struct rv_kb_evidence){ .sig = h->sig, .what = h->c->what,
						       .required = required };
}

/* Fills out when rule r fires on ev; returns 1 then, else 0. Required items
 * first, then the supporting ones that hold. */
static int match_rule(const struct rv_kb_rule *r, const struct rv_evidence *ev,
		      struct rv_kb_match *out)
{
	size_t nreq = 0, nsup = 0, held_sup = 0;
	double sum_req = 0;
	struct held h;

	out->rule = r;
	out->nev = 0;
	for (size_t i = 0; i < r->nitems; i++)
		if (r->items[i].section == KB_EXCLUDE && item_holds(r, &r->items[i], ev, &h))
			return 0;
	for (size_t i = 0; i < r->nitems; i++) {
		if (r->items[i].section != KB_REQUIRE)
			continue;
		if (!item_holds(r, &r->items[i], ev, &h))
			return 0;
		nreq++;
		sum_req += strength(h.m);
		add_evidence(out, &h, 1);
	}
	for (size_t i = 0; i < r->nitems; i++) {
		if (r->items[i].section != KB_SUPPORT)
			continue;
		nsup++;
		if (item_holds(r, &r->items[i], ev, &h)) {
			held_sup++;
			add_evidence(out, &h, 0);
		}
	}
	out->confidence = CONF_BASE + CONF_REQUIRED * (nreq ? sum_req / (double)nreq : 0) +
			  CONF_SUPPORT * (nsup ? (double)held_sup / (double)nsup : 0);
	out->confidence = fmin(1.0, fmax(0.0, out->confidence));
	out->fit = out->confidence;
	if (r->has_measured)   /* calibrated: the share it got right, the mechanism as prior */
		out->confidence = ((double)r->measured_right + KB_PRIOR_WEIGHT * out->confidence) /
				  ((double)r->measured_first + KB_PRIOR_WEIGHT);
	return nreq > 0;
}

/* Inserts m into out[0..*n) ordered by fit, after equals (rule
 * order), keeping at most max. */
static void insert_ranked(struct rv_kb_match *out, size_t *n, size_t max,
			  const struct rv_kb_match *m)
{
	size_t pos = *n;

	while (pos > 0 && out[pos - 1].fit < m->fit)
		pos--;
	if (pos >= max)
		return;
	if (*n < max)
		(*n)++;
	memmove(&out[pos + 1], &out[pos], (*n - 1 - pos) * sizeof(*out));
	out[pos] = *m;
}

/* Whether the rule of this id fired (fired[] in kb order). */
static int id_fired(const struct rv_kb *kb, const unsigned char *fired, const char *id)
{
	size_t i = find_rule(kb, id);

	return i < kb->n && fired[i];
}

/* Whether rule r yields to rule o. */
static int yields(const struct rv_kb_rule *r, const struct rv_kb_rule *o)
{
	for (size_t i = 0; i < r->nyields; i++)
		if (strcmp(r->yields_to[i], o->id) == 0)
			return 1;
	return 0;
}

/*
 * Moves each match below the last of the later ones it yields to (a rule
 * whose pattern also follows from those causes: they are the likelier
 * root). A cycle of yields_to cannot loop: at most n * n moves.
 */
static void apply_yields(struct rv_kb_match *out, size_t n)
{
	size_t moves = 0;

	for (size_t i = 0; i < n && moves <= n * n;) {
		size_t last = i;
		struct rv_kb_match m;

		for (size_t j = i + 1; j < n; j++)
			if (yields(out[i].rule, out[j].rule))
				last = j;
		if (last == i) {
			i++;
			continue;
		}
		m = out[i];
		memmove(&out[i], &out[i + 1], (last - i) * sizeof(*out));
		out[last] = m;
		moves++;
	}
}

/* A rule's own subsystem against sub (its candidates aside). */
static int own_cause_of(const struct rv_kb_rule *r, const char *sub)
{
	return !r || !sub || strcmp(sub, "other") == 0 || strcmp(r->subsystem, "other") == 0 ||
	       strcmp(r->subsystem, sub) == 0;
}

int rv_kb_cause_of(const struct rv_kb *kb, const struct rv_kb_rule *r, const char *sub)
{
	if (own_cause_of(r, sub))
		return 1;
	for (size_t i = 0; kb && i < r->ncandidates; i++) {
		size_t k = find_rule(kb, r->candidate[i]);

		if (k < kb->n && own_cause_of(kb->rule[k], sub))
			return 1;
	}
	return 0;
}

size_t rv_kb_split(const struct rv_kb *kb, const struct rv_kb_match *m, size_t n,
		   const char *sub, struct rv_kb_match *cause, struct rv_kb_match *note,
		   size_t *nnote)
{
	size_t nc = 0;

	*nnote = 0;
	for (size_t i = 0; i < n; i++) {
		if (rv_kb_cause_of(kb, m[i].rule, sub))
			cause[nc++] = m[i];
		else
			note[(*nnote)++] = m[i];
	}
	return nc;
}

/* How close rule r came on ev (it did not fire): *out filled; 0 when no
 * required item held and no exclude did (nothing to say). */
static int near_rule(const struct rv_kb_rule *r, const struct rv_evidence *ev,
		     struct rv_kb_near *out)
{
	struct held h;

	memset(out, 0, sizeof(*out));
	out->rule = r;
	for (size_t i = 0; i < r->nitems; i++) {
		const struct kb_item *it = &r->items[i];

		if (it->section == KB_EXCLUDE && !out->excluded_by && item_holds(r, it, ev, &h))
			out->excluded_by = h.c->what;
		if (it->section != KB_REQUIRE)
			continue;
		out->required++;
		if (item_holds(r, it, ev, &h))
			out->held++;
		else if (!out->missing)
			out->missing = r->conds[it->first].what;
	}
	return out->held > 0 || out->excluded_by;
}

/* 1 when a is closer to firing than b: a larger share of its required
 * items held (cross-multiplied: no division). */
static int closer(const struct rv_kb_near *a, const struct rv_kb_near *b)
{
	return a->held * b->required > b->held * a->required;
}

size_t rv_kb_near(const struct rv_kb *kb, const struct rv_evidence *ev, const char *sub,
		  struct rv_kb_near *out, size_t max)
{
	struct rv_kb_match m;
	size_t n = 0;

	if (!kb || !ev || !out || !sub)
		return 0;
	if (max > RV_KB_MATCH_MAX)
		max = RV_KB_MATCH_MAX;
	for (size_t i = 0; i < kb->n; i++) {
		const struct rv_kb_rule *r = kb->rule[i];
		struct rv_kb_near one;
		size_t pos;

		if (strcmp(r->subsystem, sub) != 0 || match_rule(r, ev, &m) ||
		    !near_rule(r, ev, &one))
			continue;
		pos = n;
		while (pos > 0 && closer(&one, &out[pos - 1]))
			pos--;
		if (pos >= max)
			continue;
		if (n < max)
			n++;
		memmove(&out[pos + 1], &out[pos], (n - 1 - pos) * sizeof(*out));
		out[pos] = one;
	}
	return n;
}

/*
 * Decided rules first; then each undecided rule (one with candidates) only
 * when none of its candidates fired: it stands for them while the evidence
 * cannot tell them apart, and gives way as soon as one can be named.
 */
size_t rv_kb_match(const struct rv_kb *kb, const struct rv_evidence *ev, double min_confidence,
		   struct rv_kb_match *out, size_t max)
{
	unsigned char fired[KB_RULES_MAX] = { 0 };
	struct rv_kb_match m;
	size_t n = 0;

	if (!kb || !ev || !out)
		return 0;
	if (max > RV_KB_MATCH_MAX)
		max = RV_KB_MATCH_MAX;
	for (size_t i = 0; i < kb->n && i < KB_RULES_MAX; i++) {
		if (kb->rule[i]->ncandidates || !match_rule(kb->rule[i], ev, &m))
			continue;
		fired[i] = 1;
		if (m.confidence >= min_confidence)
			insert_ranked(out, &n, max, &m);
	}
	for (size_t i = 0; i < kb->n && i < KB_RULES_MAX; i++) {
		const struct rv_kb_rule *r = kb->rule[i];
		size_t k = 0;

		while (k < r->ncandidates && !id_fired(kb, fired, r->candidate[k]))
			k++;
		if (r->ncandidates && k == r->ncandidates && match_rule(r, ev, &m) &&
		    m.confidence >= min_confidence)
			insert_ranked(out, &n, max, &m);
	}
	apply_yields(out, n);
	return n;
}
