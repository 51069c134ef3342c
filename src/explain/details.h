/*
 * details.h - everything an incident report needs beyond the incident
 * itself, worked out from the raw samples around it: the evidence
 * (evidence.h), the knowledge base's likely causes (kb.h), the samples of
 * its top signals for plots, and the cross-layer chain.
 *
 * Used by the live agent when an incident is written and by `reveal
 * report` over offline data, so both explain an incident the same way.
 *
 * Stretches, from the incident's first and last flagged window ends
 * (start_ts, end_ts) and the detector window window_s:
 *   incident  [start_ts - window_s, end_ts]: the first flagged window
 *             already holds the samples that moved
 *   baseline  the base_s seconds before that, or the caller's
 *             [base_from, base_to] (rv_details_opts)
 *   plots     [start_ts - window_s - pre_s, end_ts + post_s]
 */
#ifndef RV_EXPLAIN_DETAILS_H
#define RV_EXPLAIN_DETAILS_H

#include <stddef.h>

#include "base/err.h"
#include "catalog/catalog.h"
#include "explain/evidence.h"
#include "explain/kb.h"

enum {
	RV_DETAILS_SERIES_MAX = 8,
	RV_DETAILS_CHAIN_MAX = RV_SUB_COUNT,
};

struct rv_details_opts {
	double window_s;     /* detector window, seconds */
	double base_s;       /* baseline length (default 120) */
	double pre_s;        /* plot before the incident (default 60) */
	double post_s;       /* plot after it (default 15) */
	size_t max_points;   /* per series (default 600): longer stretches are averaged */
	double min_confidence; /* of a likely cause (default 0.3) */
	/* The baseline's bounds when both are finite, base_from < base_to and
	 * base_to is at or before the incident's stretch (a caller that knows
	 * of earlier incidents keeps them out of it); otherwise (the default,
	 * NaN) the base_s seconds before the incident. */
	double base_from, base_to;
};

/* The defaults above for a detector window of window_s. */
struct rv_details_opts rv_details_defaults(double window_s);

struct rv_details_series {
	const char *name;    /* borrowed from the source's names */
	size_t n;
	double *ts;          /* owned */
	float *v;            /* owned; NaN: no sample in that bucket */
};

struct rv_chain_step {
	const struct rv_evidence_sig *sig;
	enum rv_subsystem sub;
};

struct rv_details {
	double base_from, base_to, start_ts, end_ts;
	struct rv_evidence ev;
	size_t nmatch;
	struct rv_kb_match match[RV_KB_MATCH_MAX];
	size_t nseries;
	struct rv_details_series series[RV_DETAILS_SERIES_MAX];
};

/*
 * A baseline for an incident whose stretch begins at start (its first
 * window's start) that leaves out the stretches [busy[i][0], busy[i][1]]
 * of other incidents (an open one: its latest end), reading no sample
 * before oldest (the first one held):
 *   - none of them begun before start reaches into the base_s seconds
 *     before it: those base_s seconds (the default baseline);
 *   - else, when at least min_s seconds lie between the latest end of
 *     those and start, less settle_s after that end: that stretch
 *     (shorter than base_s; a fault's after-effects are kept out);
 *   - else the base_s seconds before the first of them began (a follow-on
 *     phase, or an incident soon after another, against the host before
 *     them);
 * each cut to begin no earlier than oldest, and the default when what
 * is left is shorter than min_s. Writes *from and *to.
 */
void rv_details_clean_baseline(double start, const double (*busy)[2], size_t nbusy,
			       double base_s, double min_s, double settle_s, double oldest,
			       double *from, double *to);

/*
 * Works out the details of the incident [start_ts, end_ts] from src. top
 * (ntop names, most responsible first) are the incident's top signals:
 * they get plots first, then the channels of the likeliest cause's
 * evidence, up to RV_DETAILS_SERIES_MAX. kb may be NULL (no causes).
 * Returns 0, -EINVAL or -ENOMEM; free with rv_details_free.
 */
int rv_details_build(const struct rv_ev_source *src, const struct rv_kb *kb, double start_ts,
		     double end_ts, const char *const *top, size_t ntop,
		     const struct rv_details_opts *o, struct rv_details *d, struct rv_err *err);
void rv_details_free(struct rv_details *d);

/*
 * The evidence entries worth keeping, strongest first: every entry that
 * moved (dir != 0) ordered by |z|, with the entries named in top[] first
 * whatever they did. Writes up to max indices into ev->sig to idx and
 * returns how many.
 */
size_t rv_details_keep(const struct rv_evidence *ev, const char *const *top, size_t ntop,
		       size_t *idx, size_t max);

/*
 * The cross-layer chain: among the candidate entries (top signals, the
 * causes' evidence, the 10 strongest movers; skew entries and entries
 * without an onset left out), the first to move of each subsystem, in
 * onset order (ties: larger |z| first). Writes up to max steps and
 * returns how many; fewer than 2 steps is no chain.
 */
size_t rv_chain_build(const struct rv_evidence *ev, const char *const *top, size_t ntop,
		      const struct rv_kb_match *match, size_t nmatch, struct rv_chain_step *out,
		      size_t max);

#endif
