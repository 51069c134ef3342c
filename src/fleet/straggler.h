/*
 * straggler.h - the node of a group that is out of step with its peers.
 *
 * `reveal fleet` (issue 16) reads every node's per-window channel means
 * (reveal_channel_mean) and hands them here, one window (one summary time)
 * at a time, as a matrix x[node][channel] for the N nodes of one group,
 * nodes that run the same work. In a synchronous training job one slow
 * node (contention, a throttled GPU, a bad link) slows every other; its
 * telemetry is out of step with its peers' for as long as the cause lasts.
 *
 * Per window and channel: the median m of the nodes' values and a robust
 * spread s, the largest of
 *  - the MAD as a standard deviation (x 1.4826, x the small-sample factor
 *    of Croux and Rousseeuw: the MAD of 3 values is the smaller of two
 *    distances and would make giants of plain noise);
 *  - that spread averaged over the last spread_windows windows: the
 *    spread across the nodes of one job changes slowly, and a lucky
 *    window in which a few nodes agree must not turn the others into
 *    outliers (in small groups it happens often);
 *  - rel_floor x |m| (5 %): nodes doing the same work differ by a few
 *    percent of a level without being out of step; when every node agrees
 *    exactly (a count of CPUs, a rate of 0) the MAD is 0 and any wiggle
 *    would be an infinite z; at 5 % a node must differ by half the level
 *    to reach the cap;
 *  - an absolute floor for levels near 0, where the relative one vanishes:
 *    abs_floor (0.5: half a percentage point, half an event or a task a
 *    second, reveal's common units; byte channels sit far above it and are
 *    ruled by the relative floor), or the channel's own
 *    (rv_strag_set_floors: give catalog/'s resolution when names are
 *    known, it knows a MiB from a percent).
 * The median and the MAD ignore up to half the nodes, so a straggler
 * cannot hide by inflating them. Each node's robust z = (x - m) / s,
 * clipped to +-zcap. A channel with fewer than 3 values in a window gets
 * no verdict there (median and spread NaN); non-finite values are
 * missing. Channels whose column (every node's value) equals an earlier
 * channel's are one quantity under two names (mem.dirty_bytes and
 * mem.nr_dirty_bytes, a NUMA node's copy on a host of one node): they
 * count once in every score and signal list.
 *
 * Per node:
 *  - the window score is the mean of its topk largest |z| (over min(topk,
 *    channels) slots): a node with a handful of strongly shifted channels
 *    stands out, while noise spread thinly over hundreds of correlated
 *    channels does not add up (it would in a sum of squares). A window
 *    with a score above threshold is out of step on its own.
 *  - per channel the exponentially weighted means of z and z^2 (span
 *    smooth windows; a missing value counts as z = 0) give a lower bound
 *    of the node's recent mean z: |mean| less sigmas standard errors of
 *    that mean, at least 0. A steady shift keeps nearly its size; noise,
 *    a noisy node and one-window spikes shrink to about nothing, as their
 *    z changes sign or size from window to window. The persistent score
 *    is the mean of the topk largest bounds.
 *  - a stretch begins when the persistent score rises above threshold
 *    (dated back to the first of the windows out of step in a row just
 *    before), lasts while it stays above (dips of up to gap windows are
 *    ridden out, and their windows do not count) and ends with its last
 *    window out of step. A node is a straggler when a stretch holds at
 *    least persist windows out of step: a burst shorter than that,
 *    however strong, is not a straggler.
 *    Each stretch is reported with its peak persistent score and its
 *    signals: the channels with the largest |mean z| over its windows out
 *    of step, with the node's mean value and the peers' mean median.
 *
 * Memory: everything is allocated by rv_strag_new (8 bytes per node and
 * channel for the weighted means, 32 bytes per channel for each of
 * max_active tracked nodes, a block of 16 columns); rv_strag_push
 * allocates nothing. Stretches are held in a pool of max_stretches;
 * signals are kept for at most max_active nodes out of step at once.
 * What does not fit is counted (rv_strag_stats) and logged once, never
 * dropped silently.
 *
 * Threads: no global state; one object per group, used by one thread at a
 * time (groups may be analysed in parallel). Callers: fleet/ (`reveal
 * fleet`), bench/fleet_bench.c.
 */
#ifndef RV_FLEET_STRAGGLER_H
#define RV_FLEET_STRAGGLER_H

#include <stddef.h>

#include "base/err.h"

enum {
	RV_STRAG_MIN_NODES = 3,          /* fewer values in a channel: no verdict */
	RV_STRAG_MAX_SIGNALS = 16,       /* ceiling of opts.nsignals */
	RV_STRAG_MAX_NODES = 1 << 20,
	RV_STRAG_MAX_CHANNELS = 1 << 20,
	RV_STRAG_MAX_CELLS = 1 << 28,    /* nodes x channels */
};

/* The defaults (rv_strag_opts_default) and why: see the comment above.
 * persist and gap are windows: at the agents' default 10 s summaries a
 * straggler is out of step for 100 s; `reveal fleet --persist` sets it
 * as a duration. */
#define RV_STRAG_DEF_ZCAP       10.0
#define RV_STRAG_DEF_THRESHOLD  3.0
#define RV_STRAG_DEF_SMOOTH     5
#define RV_STRAG_DEF_SIGMAS     2.0
#define RV_STRAG_DEF_PERSIST    10
#define RV_STRAG_DEF_GAP        2
#define RV_STRAG_DEF_TOPK       8
#define RV_STRAG_DEF_NSIGNALS   5
#define RV_STRAG_DEF_REL_FLOOR  0.05
#define RV_STRAG_DEF_ABS_FLOOR  0.5
#define RV_STRAG_DEF_SPREAD_WIN 30
#define RV_STRAG_DEF_MAX_ACTIVE 64
#define RV_STRAG_DEF_MAX_STRETCH 1024

struct rv_strag_opts {
	double zcap;            /* |z| clipped to this; > 0 */
	double threshold;       /* window and persistent score out of step; > 0 */
	size_t smooth;          /* span in windows of the weighted means of z; >= 1 */
	double sigmas;          /* standard errors taken off the mean z; >= 0 */
	size_t persist;         /* windows a straggler is out of step; >= 1 */
	size_t gap;             /* windows a stretch may dip below threshold */
	size_t topk;            /* channels averaged into a score; >= 1 */
	size_t nsignals;        /* signals per stretch, 0..RV_STRAG_MAX_SIGNALS */
	double rel_floor;       /* spread >= rel_floor x |median|; >= 0 */
	double abs_floor;       /* spread >= this (channels without their own floor); >= 0 */
	size_t spread_windows;  /* the averaged spread's span in windows; 0: not used */
	size_t max_active;      /* nodes out of step whose signals are kept at once; >= 1 */
	size_t max_stretches;   /* stretches held in all; >= 1 */
};

/* One channel that set a node apart over a stretch (means over the
 * stretch's windows out of step in which the node had a value, nwin). */
struct rv_strag_signal {
	size_t chan;
	double value;           /* the node's mean value */
	double median;          /* the mean of the peers' median */
	double z;               /* the mean of the node's clipped z */
	size_t nwin;
};

/* One sustained stretch of one node. Windows count from 0, the first
 * rv_strag_push; t_* are the times pushed with them. */
struct rv_strag_finding {
	size_t node;
	size_t first, last;     /* first and last window out of step */
	double t_first, t_last;
	double peak;            /* highest persistent score in the stretch */
	size_t peak_window;
	int open;               /* not ended at the last window */
	int signals_lost;       /* no slot for its sums was free: nsignals is 0 */
	size_t nsignals;
	struct rv_strag_signal sig[RV_STRAG_MAX_SIGNALS];  /* by |mean z|, descending */
};

struct rv_strag_stats {
	size_t windows;         /* windows pushed */
	size_t flagged;         /* nodes with at least one stretch */
	size_t stretches;       /* stragglers' stretches seen, open ones included */
	size_t stretches_lost;  /* closed stretches the pool could not hold */
	size_t signals_lost;    /* stretches begun without a free slot for sums */
};

struct rv_strag;

/* Fills o with the defaults above. */
void rv_strag_opts_default(struct rv_strag_opts *o);

/*
 * A detector for nnodes nodes (>= RV_STRAG_MIN_NODES) and nchan channels
 * (>= 1) with options o (NULL: the defaults; copied). All its memory is
 * taken here. Returns 0, -EINVAL (a size or option out of range, named in
 * err), -E2BIG (past RV_STRAG_MAX_*) or -ENOMEM. Free with rv_strag_free.
 */
int rv_strag_new(size_t nnodes, size_t nchan, const struct rv_strag_opts *o,
		 struct rv_strag **out, struct rv_err *err);

/* Frees s; s may be NULL. */
void rv_strag_free(struct rv_strag *s);

/*
 * Per-channel absolute floors of the spread, floor[0..nchan) (copied): a
 * finite value >= 0 replaces opts.abs_floor for its channel, a NaN keeps
 * it. Call before the first push. 0, or -EINVAL (a negative or infinite
 * floor, or windows already pushed; err names it).
 */
int rv_strag_set_floors(struct rv_strag *s, const double *floor,
			struct rv_err *err);

/*
 * One window: x[node * nchan + chan] (borrowed for the call; NaN or inf:
 * missing), t its time in seconds, later than the previous window's.
 * Computes medians, spreads, z and scores and moves the stretches on.
 * Allocates nothing. 0, or -EINVAL (t not after the previous one, or not
 * finite; err says so; s is then unchanged).
 */
int rv_strag_push(struct rv_strag *s, double t, const double *x,
		  struct rv_err *err);

/* Of the last window: the node's window score and persistent score (NaN
 * for a node out of range, before the first window, or a window score of
 * a node without a single value in it). */
double rv_strag_window_score(const struct rv_strag *s, size_t node);
double rv_strag_score(const struct rv_strag *s, size_t node);

/* 1 when the node has been a straggler (a stretch, open or closed). */
int rv_strag_flagged(const struct rv_strag *s, size_t node);

/* The last window's median and spread per channel, nchan each (NaN: no
 * verdict; a spread is never 0); borrowed from s, valid until the next
 * push. */
const double *rv_strag_median(const struct rv_strag *s);
const double *rv_strag_spread(const struct rv_strag *s);

/* The clipped z the last window gives a value of channel chan (NaN: no
 * verdict, chan out of range or value not finite), e.g. for a plot of a
 * node against its peers. */
double rv_strag_zof(const struct rv_strag *s, size_t chan, double value);

/*
 * Every straggler's stretch so far, closed and open, by node and then by
 * first window:
 * writes the first max into out (out may be NULL when max is 0) and
 * returns how many there are in all. Signals of an open stretch are those
 * of its windows so far. A stretch ends (is closed) gap + 1 windows after
 * the persistent score fell.
 */
size_t rv_strag_findings(const struct rv_strag *s, struct rv_strag_finding *out,
			 size_t max);

/* Counters of the windows, stretches and what did not fit. */
void rv_strag_stats(const struct rv_strag *s, struct rv_strag_stats *st);

/*
 * One window without history (no averaged spread, no persistence), e.g.
 * for a bench or a single summary: median[nchan], spread[nchan],
 * score[nnodes] (window scores) and, when z is not NULL, z[nnodes * nchan]
 * (NaN where missing or without verdict), from x as for rv_strag_push.
 * floor: per-channel absolute floors as in rv_strag_set_floors, or NULL.
 * o: NULL for the defaults. Allocates a block of columns for the call.
 * 0, -EINVAL (sizes or options; err), -E2BIG or -ENOMEM.
 */
int rv_strag_window(const double *x, size_t nnodes, size_t nchan,
		    const struct rv_strag_opts *o, const double *floor,
		    double *median, double *spread, double *score, double *z,
		    struct rv_err *err);

#endif
