/*
 * evidence.h - how every channel moved during an incident.
 *
 * The detectors say *that* a stretch of windows is anomalous and which
 * channels carried the score; an operator also wants to know, for each
 * signal, where it usually sits, where it went, in which direction and
 * when it started to move. That is the evidence: one entry per channel,
 * computed from the raw samples of a baseline stretch just before the
 * incident and of the incident itself. The knowledge base (kb.h) matches
 * its rules against it; reports (report.h) show it and order the first
 * movers of each subsystem into a cross-layer chain.
 *
 * Per channel, over the samples that are finite (NaN means missing):
 *   base_mean, base_sd  mean and standard deviation over the baseline
 *   value, inc_sd       mean and standard deviation over the incident
 *                       (inc_sd / sd_eff well above 1: the signal turned
 *                       bursty)
 *   peak                the incident sample farthest from base_mean
 *   z                   (value - base_mean) / sd_eff, where
 *                       sd_eff = max(base_sd, RV_EV_SD_REL * |base_mean|,
 *                       RV_EV_SD_ABS): a flat baseline does not turn the
 *                       smallest wobble into an infinite z
 *   change              (value - base_mean) / |base_mean|; +INFINITY or
 *                       -INFINITY when base_mean is 0 and value is not, 0
 *                       when both are 0
 *   dir                 +1 (up) or -1 (down) when |z| >= RV_EV_MOVED_Z,
 *                       else 0
 *   onset_ts            the first sample time at or after the end of the
 *                       baseline from which the channel stays beyond
 *                       RV_EV_MOVED_Z sd_eff on the side of dir for at
 *                       least 2 of the 3 samples starting there; NaN when
 *                       dir is 0 or that never happens
 * A channel with fewer than RV_EV_MIN_BASE finite baseline samples, or no
 * finite incident sample, has base_n or inc_n telling so, z 0 and dir 0.
 *
 * Per-CPU skew. For every family of per-CPU channels (the instance, or its
 * last '/'-separated part, is "cpu<N>": "cpu.softirq_pct:cpu3",
 * "net.irqs_cpu:virtio2-input.0/cpu1") with at least two members, one more
 * entry is added whose name replaces "cpu<N>" by "cpu_skew"
 * ("cpu.softirq_pct:cpu_skew", "net.irqs_cpu:virtio2-input.0/cpu_skew").
 * Its series is, per sample, max over the members / mean over the members
 * (1 when the mean is not above RV_EV_SD_ABS: nothing to be skewed), and
 * its statistics are computed from that series as for a channel. IRQ
 * imbalance shows as a rise of a skew.
 *
 * Pure computation: no files, no clock. Allocation: at rv_evidence_build
 * only.
 */
#ifndef RV_EXPLAIN_EVIDENCE_H
#define RV_EXPLAIN_EVIDENCE_H

#include <stddef.h>

#include "base/err.h"

#define RV_EV_SD_REL 0.02    /* sd floor relative to |base_mean| */
#define RV_EV_SD_ABS 1e-6    /* absolute sd floor */
#define RV_EV_MOVED_Z 3.0    /* |z| from which a channel counts as moved */
enum { RV_EV_MIN_BASE = 5 }; /* fewer finite baseline samples: no statistics */

struct rv_evidence_sig {
	const char *name;      /* the channel's name (borrowed from the caller) or
				  a skew entry's name (owned by the evidence) */
	int skew;              /* 1 for a per-CPU skew entry */
	size_t base_n, inc_n;  /* finite samples in the baseline and the incident */
	double base_mean, base_sd;
	double value, inc_sd, peak;
	double z, change;
	int dir;               /* +1, -1 or 0 */
	double onset_ts;       /* NaN when unknown */
};

struct rv_evidence {
	double base_from, base_to;  /* the baseline stretch [from, to) */
	double start_ts, end_ts;    /* the incident stretch [start, end] */
	size_t n;                   /* entries: the nchan channels in input
				       order, then the skew entries */
	size_t nchan;
	struct rv_evidence_sig *sig;
	char *names_buf;            /* owned storage of the skew names */
};

/*
 * The samples to read, a time series of nrows rows in time order
 * (timestamps ts[0..nrows-1], unix seconds, non-decreasing) of nchan
 * channels named names[] (borrowed; they must outlive the evidence).
 * get(ctx, row, chan) returns one value (NaN: missing). A callback, so the
 * agent's ring (row-major, wrapping) and an offline table (column-major)
 * are read in place.
 */
struct rv_ev_source {
	size_t nrows, nchan;
	const double *ts;
	const char *const *names;
	float (*get)(const void *ctx, size_t row, size_t chan);
	const void *ctx;
};

/*
 * Builds the evidence of the incident [start_ts, end_ts] with the baseline
 * the rows whose time is in [base_from, base_to) (base_to <= start_ts;
 * rows outside both stretches are not read). Fills *ev (the caller's
 * struct; free its contents with rv_evidence_free). Returns 0, -EINVAL
 * (a NULL pointer, start_ts > end_ts, base_from > base_to, base_to >
 * start_ts, non-finite bounds) or -ENOMEM.
 */
int rv_evidence_build(const struct rv_ev_source *src, double base_from, double base_to,
		      double start_ts, double end_ts, struct rv_evidence *ev, struct rv_err *err);

/* Frees what ev owns and zeroes it; a zeroed ev is a no-op. */
void rv_evidence_free(struct rv_evidence *ev);

/* The entry named name (exact match), or NULL. Linear. */
const struct rv_evidence_sig *rv_evidence_find(const struct rv_evidence *ev, const char *name);

/*
 * Evidence restored from a summary (the store keeps only the entries that
 * moved): n entries copied from sig[] (names copied too), nchan = n.
 * Returns 0 or -ENOMEM.
 */
int rv_evidence_from(const struct rv_evidence_sig *sig, size_t n, double start_ts, double end_ts,
		     struct rv_evidence *ev);

/* Fills sd_eff's definition for callers (reports show the band). */
double rv_evidence_sd_eff(double base_mean, double base_sd);

#endif
