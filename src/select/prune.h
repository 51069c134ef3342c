/*
 * prune.h - greedy correlation pruning across several inputs (workloads):
 * which channels `reveal prune` keeps, which it drops and for which kept
 * channel, which are constant. The paper's rule: where two channels are
 * correlated above |r| = threshold, keep one, by a priority of
 * interpretability, then generality, then variance.
 *
 * Priority (most wanted first), each key breaking the ties of the one
 * before:
 *  1. interpretability rank of the catalog, lower first
 *     (rv_catalog_interpretability: 1 read directly .. 3 internal counter;
 *     names outside the catalog, such as offline CSV columns, rank 4);
 *  2. generality, a host-wide channel before a per-instance one
 *     (rv_catalog_generality: cpu.busy_pct before cpu.busy_pct:cpu3);
 *  3. spread, larger first: the variance scaled to [0, 1] by the
 *     channel's range (rv_corr_spread), averaged over the inputs where it
 *     varies;
 *  4. name, in strcmp order: the final tie rule, so the result never
 *     depends on the order of the inputs or of their columns.
 *
 * Greedy: the varying channels are visited in priority order; a channel
 * is kept unless a kept channel already stands for it, and then dropped
 * with that channel and their r. Kept channel k stands for channel c when
 * in every input where c varies, k varies too and |r(c, k)| > threshold.
 * An input where c is constant or absent tells nothing about c and is
 * not asked (c carries nothing there to lose); an input where c varies
 * but k is constant, absent, or the pair shares too few samples to be
 * measured (rv_corr_r NaN) keeps c: k cannot stand for it there. So a pair
 * redundant in one workload and not in another keeps both. When several
 * kept channels stand for c, the one with the largest weakest |r| is
 * named (the earlier kept one on a tie); its r is the weakest |r| over
 * c's inputs, with its sign.
 *
 * Constant: a channel constant (or without values) in every input that
 * has it: reported apart, neither kept nor dropped.
 *
 * Cost: channels x kept x inputs lookups, no allocation per pair. No
 * file access (the metric-set writer is select/metricset.h).
 */
#ifndef RV_SELECT_PRUNE_H
#define RV_SELECT_PRUNE_H

#include <stddef.h>

#include "base/err.h"
#include "catalog/catalog.h"
#include "select/corr.h"
#include "select/metricset.h"

#define RV_PRUNE_THRESHOLD 0.5  /* the paper's |r| */

/* One input (workload): its channel names and their correlation; both
 * borrowed for the call. names[i] is channel i of corr. */
struct rv_prune_input {
	const char *name;              /* the file, for messages */
	const char *const *names;
	size_t nchan;
	const struct rv_corr *corr;
	/* The correlation of the same channels' first differences (sample to
	 * sample changes), or NULL. When given, a kept channel stands for
	 * another only where both their levels and their changes correlate
	 * above the threshold: channels that share a trend but move apart
	 * from one sample to the next (where an anomaly shows) stay apart. */
	const struct rv_corr *dcorr;
};

/* The result; every string is owned by it. */
struct rv_prune_result {
	const char **kept;                    /* in priority order */
	size_t nkept;
	struct rv_metricset_drop *dropped;    /* in priority order */
	size_t ndropped;
	const char **constant;                /* in name order */
	size_t nconstant;
	/* per subsystem (rv_catalog_subsystem) */
	size_t kept_by[RV_SUB_COUNT], dropped_by[RV_SUB_COUNT], constant_by[RV_SUB_COUNT];
	size_t npartial;                      /* channels absent from some input */
	size_t nkept_constant;                /* of the kept, constant ones (rv_prune_keep_constant,
						 and protected ones) */
	size_t nprotected;                    /* varying channels kept only because protected
						 (a kept channel stands for them) */
	size_t nprotected_constant;           /* constant channels kept because protected */
	char *text;                           /* the names */
};

/*
 * Prunes the channels of the nin inputs at threshold (0 < threshold < 1).
 * 0 and *out (free with rv_prune_free), or -EINVAL (no input, a bad
 * threshold, a channel named twice in one input: "NAME: channel 'X'
 * appears twice", an input whose corr does not have nchan channels) or
 * -ENOMEM, with err set.
 */
int rv_prune_run(const struct rv_prune_input *in, size_t nin, double threshold,
		 struct rv_prune_result **out, struct rv_err *err);

/*
 * Channels that are always watched: fnmatch(3) patterns over channel names
 * (the signals the knowledge base's rules read, which `reveal prune` passes
 * unless --kb-signals prune). A protected channel takes its place in the
 * priority order like any other and may stand for channels after it; one
 * that a kept channel would stand for is kept anyway, and a protected
 * constant one is kept (among the constant kept, first) whatever
 * rv_prune_keep_constant does: counted in nprotected and
 * nprotected_constant.
 */
struct rv_prune_protect {
	const char *const *globs;
	size_t n;
};

/* rv_prune_run with protected channels; p NULL or empty protects none. */
int rv_prune_run_protect(const struct rv_prune_input *in, size_t nin, double threshold,
			 const struct rv_prune_protect *p, struct rv_prune_result **out,
			 struct rv_err *err);

void rv_prune_free(struct rv_prune_result *r);

/*
 * Moves the constant channels to the end of the kept list (counted as
 * kept): a channel that never moved while the set was computed is the one
 * that moves when something breaks (an error or drop count, swap in use,
 * an OOM kill), and the agent's novelty of event counts watches exactly
 * those. `reveal prune` does this unless --drop-constant.
 */
void rv_prune_keep_constant(struct rv_prune_result *r);

/* s for rv_metricset_write: r's lists, threshold, and inputs (borrowed;
 * r and inputs must outlive s). */
void rv_prune_spec(const struct rv_prune_result *r, double threshold,
		   const char *const *inputs, size_t ninputs, struct rv_metricset_spec *s);

#endif
