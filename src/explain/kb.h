/*
 * kb.h - the root-cause knowledge base: signal patterns -> likely cause ->
 * checks -> fix.
 *
 * Rules are data, not code: a YAML file (share/reveal/rules.yaml, embedded
 * into the binary at build time; docs/RULES.md describes the format) of
 * `- id:` entries. An operator's own files are loaded after it: an entry
 * with the id of a loaded rule replaces that rule, `enabled: false`
 * removes it, a new id adds a rule.
 *
 * A rule is matched against an incident's evidence (evidence.h). It fires
 * when all its required conditions hold and none of its excluding ones
 * does; its confidence (0..1) then grows with the supporting conditions
 * that hold and with how far the signals moved. Each match carries the
 * evidence behind it: for every condition that held, the entry that made
 * it hold. Matches are ranked by how well the evidence fits each rule's
 * pattern (its confidence before calibration), then a rule moves below the
 * matches it `yields_to` (causes its pattern also follows from); no match
 * is an answer too ("no rule matched": the report says so instead of
 * guessing). An undecided rule (`candidates`, `decided_by`) stands for
 * causes this host's signals cannot tell apart: it fires only when none of
 * its candidates does, and the report names the causes that remain and
 * what would decide.
 *
 * Errors in a rule file are refused whole, with "FILE:LINE:COL: reason".
 * Pure computation apart from the embedded text: no files are read here
 * (the caller reads them and passes the text).
 */
#ifndef RV_EXPLAIN_KB_H
#define RV_EXPLAIN_KB_H

#include <stddef.h>

#include "base/err.h"
#include "explain/evidence.h"

enum {
	RV_KB_EVIDENCE_MAX = 16,   /* evidence entries kept per match */
	RV_KB_MATCH_MAX = 8,       /* matches returned per incident at most */
};

/* What the reports and the agent's log say of an incident that no rule
 * matched: one text, so that readers and scripts can look for it. */
#define RV_KB_NO_MATCH "no rule matched"

struct rv_kb;
struct rv_kb_rule;

/* Text of share/reveal/rules.yaml as built into this binary, and its size. */
const char *rv_kb_builtin_text(size_t *len);

/* An empty knowledge base (no rules) in *out: 0, or -ENOMEM (*out NULL). */
int rv_kb_new(struct rv_kb **out);
void rv_kb_free(struct rv_kb *kb);

/*
 * Loads rules from text (len bytes, need not be NUL-terminated) read from
 * a file named name (for messages). Rules whose id is already loaded
 * replace them; `enabled: false` removes them. The whole text is refused
 * (kb unchanged) on any error: -EINVAL with "NAME:LINE:COL: reason" in err
 * (YAML syntax, unknown key, missing id/title/cause/require, a bad
 * direction or number, a duplicate id within the file, an empty glob...),
 * -ENOMEM.
 */
int rv_kb_load(struct rv_kb *kb, const char *name, const char *text, size_t len,
	       struct rv_err *err);

/* Convenience: a new kb with the built-in rules in *out: 0, -ENOMEM, or
 * rv_kb_load's error with its message in err (the built-in text is tested
 * to load); *out is NULL on failure. */
int rv_kb_new_builtin(struct rv_kb **out, struct rv_err *err);

size_t rv_kb_count(const struct rv_kb *kb);
const struct rv_kb_rule *rv_kb_get(const struct rv_kb *kb, size_t i);

/* Accessors of a rule (strings owned by the kb). */
const char *rv_kb_rule_id(const struct rv_kb_rule *r);
const char *rv_kb_rule_title(const struct rv_kb_rule *r);      /* one line */
const char *rv_kb_rule_subsystem(const struct rv_kb_rule *r);  /* cpu, gpu, mem, net, storage */
const char *rv_kb_rule_cause(const struct rv_kb_rule *r);      /* a paragraph */
const char *rv_kb_rule_fix(const struct rv_kb_rule *r);        /* a paragraph */
size_t rv_kb_rule_nchecks(const struct rv_kb_rule *r);
const char *rv_kb_rule_check(const struct rv_kb_rule *r, size_t i);  /* a command to run */
/* An undecided rule stands for several causes the evidence cannot tell
 * apart here: its candidates (rule ids, 0 for a decided rule) and what
 * would decide between them ("" for a decided rule). */
size_t rv_kb_rule_ncandidates(const struct rv_kb_rule *r);
const char *rv_kb_rule_candidate(const struct rv_kb_rule *r, size_t i);
const char *rv_kb_rule_decided_by(const struct rv_kb_rule *r);
/* A rule measured on labelled live incidents (`measured:`): 1 with the
 * incidents where it came first and, of those, the ones it named rightly;
 * 0 when the rule has no measurement (its confidence is the mechanism's
 * alone). */
int rv_kb_rule_measured(const struct rv_kb_rule *r, unsigned *first, unsigned *right);
const char *rv_kb_rule_check_why(const struct rv_kb_rule *r, size_t i); /* what it shows, or "" */
/* The signal patterns of the rule's conditions (require, support and
 * exclude, in file order): fnmatch globs over evidence names; *skew (when
 * not NULL) is 1 for a pattern of per-CPU skew entries ("...:cpu_skew"),
 * computed from the per-CPU channels. NULL past the end. */
size_t rv_kb_rule_nsignals(const struct rv_kb_rule *r);
const char *rv_kb_rule_signal(const struct rv_kb_rule *r, size_t i, int *skew);

struct rv_kb_evidence {
	const struct rv_evidence_sig *sig; /* the entry (points into the evidence) */
	const char *what;                  /* the condition as text: "net.tcp_retrans_segs up" */
	int required;                      /* 1: a required condition, 0: a supporting one */
};

struct rv_kb_match {
	const struct rv_kb_rule *rule;
	double confidence;                 /* 0..1: the mechanism's, calibrated by the
					      rule's measured record when it has one */
	double fit;                        /* 0..1: the mechanism's alone (how well the
					      evidence fits the pattern): matches rank
					      by it, so a rule's record never moves
					      another rule's verdict */
	size_t nev;
	struct rv_kb_evidence ev[RV_KB_EVIDENCE_MAX];
};

/*
 * Matches every rule against ev; writes up to max matches (at most
 * RV_KB_MATCH_MAX) to out, best fit first (ties: rule order), and
 * returns how many. The matches point into kb and ev: valid while both
 * live. Rules whose confidence is below min_confidence are left out.
 */
size_t rv_kb_match(const struct rv_kb *kb, const struct rv_evidence *ev, double min_confidence,
		   struct rv_kb_match *out, size_t max);

/*
 * A rule's mechanism lives in one subsystem (its `subsystem:`); an incident
 * is blamed on one at its onset (incident.h). A rule of another subsystem
 * that fires on the incident's evidence says what happened as well (the
 * CPUs busy beside a disk storm), not why this incident happened: it is a
 * cross-layer note, never its likely cause. A rule of subsystem "other"
 * (none given) and an incident of subsystem "other" take no side. An
 * undecided rule stands for its candidates: it may be the cause when one
 * of them may (cpu-bound-undecided, a cpu rule, of a memory incident
 * through memory-bandwidth-saturation).
 *
 * rv_kb_cause_of: 1 when rule r (of kb, which resolves an undecided
 * rule's candidates; NULL: they are not looked at) may be the likely
 * cause of an incident of subsystem sub ("cpu", "gpu", "mem", "net",
 * "storage" or "other").
 * rv_kb_split: the matches m[0..n) (ranked, as rv_kb_match wrote them)
 * into those that may be the cause (cause[], returned count) and the
 * notes (note[], *nnote), each in the order given; cause and note have
 * room for n each.
 */
int rv_kb_cause_of(const struct rv_kb *kb, const struct rv_kb_rule *r, const char *sub);
size_t rv_kb_split(const struct rv_kb *kb, const struct rv_kb_match *m, size_t n,
		   const char *sub, struct rv_kb_match *cause, struct rv_kb_match *note,
		   size_t *nnote);

/* A rule that did not fire, and how close it came. */
struct rv_kb_near {
	const struct rv_kb_rule *rule;
	size_t held, required;       /* required items that held, of all */
	const char *missing;         /* the first required condition that did not
					hold (its text, "storage.busy_pct* up, value
					>= 60"), NULL when all held */
	const char *excluded_by;     /* the first excluding condition that held,
					NULL when none did */
};

/*
 * When no rule of an incident's subsystem fired, what remains: the rules
 * of subsystem sub that did not fire on ev and of which at least one
 * required item held or an excluding one did, closest first (the larger
 * share of their required items held, then rule order). Undecided rules
 * count as any other. Writes up to max (at most RV_KB_MATCH_MAX) to out
 * and returns how many; pointers into kb, valid while it lives.
 */
size_t rv_kb_near(const struct rv_kb *kb, const struct rv_evidence *ev, const char *sub,
		  struct rv_kb_near *out, size_t max);

#endif
