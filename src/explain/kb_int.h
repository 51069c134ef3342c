/*
 * kb_int.h - the knowledge base's insides, shared by kb.c (the rule set,
 * merging, matching) and kb_yaml.c (the rule file reader). Not API: callers
 * use kb.h.
 *
 * A rule is one allocation with its conditions inline; its strings are
 * separate allocations it owns. The limits below bound what a hostile
 * file can make the reader allocate: about KB_RULES_MAX rules of a few
 * KiB plus their strings, from at most KB_FILE_MAX bytes of text.
 */
#ifndef RV_EXPLAIN_KB_INT_H
#define RV_EXPLAIN_KB_INT_H

#include <stddef.h>

#include "base/err.h"
#include "explain/kb.h"

enum {
	KB_FILE_MAX = 1 << 20,   /* bytes of one rules text */
	KB_RULES_MAX = 256,      /* rules in one text and in the whole kb */
	KB_ITEMS_MAX = 24,       /* require + support + exclude items of a rule */
	KB_CONDS_MAX = 48,       /* conditions of a rule, counting those in any: */
	KB_ANY_MAX = 8,          /* conditions in one any: */
	KB_CHECKS_MAX = 16,      /* checks of a rule */
	KB_ID_MAX = 64,          /* bytes of an id */
	KB_TITLE_MAX = 160,      /* bytes of a title */
	KB_GLOB_MAX = 160,       /* bytes of a signal pattern */
	KB_TEXT_MAX = 4096,      /* bytes of a cause or a fix */
	KB_CMD_MAX = 512,        /* bytes of a check's command */
	KB_WHY_MAX = 512,        /* bytes of a check's why */
	KB_WHAT_MAX = 320,       /* bytes of a condition's text ("glob up, z >= 5") */
	KB_CANDIDATES_MAX = 8,   /* causes an undecided rule stands for */
	KB_YIELDS_MAX = 8,       /* rules a rule ranks below when they fire too */
	KB_MEASURED_MAX = 1000000, /* incidents a rule's measured: counts */
};

#define KB_MIN_Z_DEFAULT 3.0      /* |z| a condition needs unless it says min_z */
#define KB_MIN_BURST_DEFAULT 3.0  /* inc_sd / sd_eff of a bursty signal */
#define KB_GROWTH 1.5             /* grows: peak excess / mean excess at least this, */
#define KB_GROWS_MIN_S 10.0       /* ... over an incident of at least this many seconds */
#define KB_PRIOR_WEIGHT 4.0       /* measured: the mechanism's own confidence counts as
				     this many incidents */

enum kb_dir { KB_UP, KB_DOWN, KB_ANY, KB_BURSTY, KB_GROWS };
enum kb_section { KB_REQUIRE, KB_SUPPORT, KB_EXCLUDE, KB_NSECTIONS };

/* Which optional thresholds a condition sets. */
enum {
	KB_HAS_MIN_Z = 1u << 0,
	KB_HAS_MIN_CHANGE = 1u << 1,
	KB_HAS_MIN_VALUE = 1u << 2,
	KB_HAS_MAX_VALUE = 1u << 3,
	KB_HAS_MIN_BURST = 1u << 4,
	KB_HAS_MIN_DELTA = 1u << 5,
	KB_HAS_MIN_PEAK = 1u << 6,
	KB_HAS_MAX_PEAK = 1u << 7,
};

struct kb_cond {
	char *glob;          /* fnmatch pattern over evidence names */
	char *what;          /* the condition as text, for matches */
	enum kb_dir dir;
	int skew;            /* the pattern names skew entries ("cpu_skew" in it) */
	unsigned has;        /* KB_HAS_* */
	double min_z, min_change, min_value, max_value, min_burst, min_delta;
	double min_peak, max_peak;
};

/* One entry of require/support/exclude: conds [first, first + n) of the
 * rule; n > 1 only for an any: group (it holds when one of them does). */
struct kb_item {
	unsigned char section;   /* enum kb_section */
	unsigned char first, n;
};

struct rv_kb_rule {
	char *id, *title, *subsystem, *cause, *fix;
	char *decided_by;            /* an undecided rule: what would decide; else NULL */
	char *candidate[KB_CANDIDATES_MAX]; /* ... and the rule ids it stands for */
	size_t ncandidates;
	char *yields_to[KB_YIELDS_MAX];  /* rule ids this one ranks below when they fire */
	size_t nyields;
	int has_measured;            /* measured: given: first, right below */
	unsigned measured_first, measured_right;
	int enabled;                 /* 0: the rule removes the loaded one of its id */
	size_t line, col;            /* where it starts in its file (1-based) */
	size_t nitems, nconds, nchecks;
	struct kb_item items[KB_ITEMS_MAX];
	struct kb_cond conds[KB_CONDS_MAX];
	char *check[KB_CHECKS_MAX], *why[KB_CHECKS_MAX];
};

struct rv_kb {
	struct rv_kb_rule **rule;    /* in load order; replaced rules keep their place */
	size_t n, cap;
};

/* Frees a rule and its strings; NULL is a no-op. */
void rv_kb_rule_free(struct rv_kb_rule *r);

/*
 * Reads a rules text (see rv_kb_load) into a new array of *n rules (the
 * caller frees each with rv_kb_rule_free and the array with free). Ids are
 * unique within the text. Returns 0, -EINVAL with "NAME:LINE:COL: reason"
 * in err, or -ENOMEM.
 */
int rv_kb_parse(const char *name, const char *text, size_t len, struct rv_kb_rule ***rules,
		size_t *n, struct rv_err *err);

#endif
