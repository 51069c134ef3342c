/*
 * novelty.h - sparse events seen at once: a per-channel novelty statistic
 * beside the detector ensemble (internal to pipeline/: the offline run and
 * the live scorer apply it the same way; the model file stores it).
 *
 * Why: an event counter (errors, drops, retransmits, timeouts, ECC, XID:
 * catalog kind event) that stayed quiet while learning and now counts
 * dozens a second is news, but the detectors dilute it. zscore averages
 * the top tenth of about 1800 |z| (one channel adds |z| / 180), the
 * scaler's floors keep that |z| modest, and PCA and the forest cannot see
 * a column that was constant in training: 10 % packet loss took 8 to 15 s
 * to be flagged. This statistic judges each such channel on its own, with
 * its own threshold from the training windows; it is not a fit to a fault.
 *
 * Watched channels: the event channels (catalog kind event: those the
 * model gives the event features, whose names say errors, drops,
 * retransmits, ... (rv_catalog_kind_by_name), and those whose metric type
 * the catalog lists as an event of the live collector, such as
 * net.tcpext_tcp_lost_retransmit or mem.oom_kill) that were quiet in at
 * least RV_NOVELTY_QUIET_SHARE of the training windows, quiet meaning a
 * count below RV_NOVELTY_QUIET_EVENTS. A channel that counts in most
 * windows is a steady rate, and the detectors watch it well.
 *
 * The count: S_c, a window's events on channel c = the sum over the
 * window's samples of rate x sampling interval (the model's median
 * interval_s; 1 s per sample when the training data had no timestamps,
 * so the sum of the values). Negative or non-finite values count 0.
 *
 * Per watched channel, from every training window (windowing of the model):
 *   T_c  the largest count of a training window;
 *   M_c  max(RV_NOVELTY_MIN_MARGIN, RV_NOVELTY_MARGIN_REL x T_c) events.
 * The floor of 3 events means a stray event or two (one retransmit, a
 * single ECC correction) never counts as novel; the share of T_c means a
 * channel that did burst while learning must exceed its worst burst by
 * half again: one burst seen is a poor estimate of how large bursts get.
 * A channel's ratio r_c = (S_c - T_c) / M_c; the window's novelty is the
 * largest r_c (0 when none is positive) and its channel. A window is
 * novelty-flagged when its novelty exceeds 1.
 *
 * A novelty-flagged window (rv_novelty_score, rv_novelty_attribute):
 *   - is anomalous even when the fusion did not fire;
 *   - has fused score max(fused, rv_novelty_fused(novelty, fuse threshold));
 *   - has attribution in which the novelty-flagged channels carry at
 *     least RV_NOVELTY_SHARE of the weight when the novelty is at least
 *     as strong as the detectors' fused score (then the novel channel
 *     ranks first and its subsystem is the window's), and that share
 *     times novelty-fused / fused when the detectors outweigh it
 *     (res->novel_share): a strong CPU anomaly whose start stalls the
 *     disk once stays a CPU anomaly.
 *
 * Memory: the thresholds are allocated at fit or load; scoring allocates
 * nothing (the caller passes nv->n doubles of scratch).
 */
#ifndef RV_PIPELINE_NOVELTY_H
#define RV_PIPELINE_NOVELTY_H

#include <stddef.h>
#include <stdint.h>

struct rv_model;
struct rv_table;
struct rv_ens_result;

/* A channel is watched when at least this share of the training windows
 * were quiet on it. */
#define RV_NOVELTY_QUIET_SHARE 0.9
/* A window counting fewer events than this is quiet (0, up to rounding of
 * rate x interval). */
#define RV_NOVELTY_QUIET_EVENTS 0.5
/* M_c, in events: at least this many past the training maximum ... */
#define RV_NOVELTY_MIN_MARGIN 3.0
/* ... and at least this share of the training maximum. */
#define RV_NOVELTY_MARGIN_REL 0.5
/* The fused score from novelty alone stops here: a count past anything
 * learning saw says that something new happens, not how far the host
 * went; above RV_SEVERITY_MAJOR (2), below RV_SEVERITY_CRITICAL (5). */
#define RV_NOVELTY_SCORE_CAP 4.0
/* Least share of a novelty-flagged window's attribution carried by its
 * novelty-flagged channels: more than half, so that their subsystem wins
 * even when the rest of the weight sits in three channels of another one
 * (a subsystem weighs as its three heaviest channels, rank.c). */
#define RV_NOVELTY_SHARE (2.0 / 3.0)

/* The model's novelty section. n == 0: no channel watched (a model fitted
 * without the catalog, or read from a version 1 or 2 file): windows are
 * scored as without the statistic. */
struct rv_novelty {
	size_t n;                    /* watched channels */
	uint32_t *chan;              /* n channel indices, ascending */
	double *thr;                 /* n: T_c, events */
	double *margin;              /* n: M_c, events, > 0 */
};

/*
 * Fits nv on the training table t (the model's channel order) with m's
 * names, masks and windowing (window, step, interval_s). nv is
 * overwritten; free with rv_novelty_fini. Returns 0 or -ENOMEM. The
 * caller fits it only with the catalog's knowledge on (rv_detect_opts
 * events and novelty).
 */
int rv_novelty_fit(struct rv_novelty *nv, const struct rv_model *m, const struct rv_table *t);
/* Frees the arrays and zeroes nv (a zeroed nv is fine). */
void rv_novelty_fini(struct rv_novelty *nv);

/* Seconds one sample stands for: m->interval_s when known, else 1. */
double rv_novelty_sample_s(const struct rv_model *m);

/* Events in n samples of rates col[0..n): sample_s x the sum of the
 * positive finite values, summed in order (fit and scoring alike). */
double rv_novelty_count(const float *col, size_t n, double sample_s);

/*
 * The fused score a window of novelty r > 1 gets at least:
 * base x (1 + log2 r), capped at max(base, RV_NOVELTY_SCORE_CAP), where
 * base = max(fuse_thr, 1): over the fusion's threshold and at least at
 * the detectors' own thresholds (fused is a mean of score/threshold
 * ratios, and severity reads it on that scale: minor up to 2). So a
 * novelty up to 2 stays minor (a blip unless it lasts), one of 2 to 8
 * climbs through major to the cap. 0 for r <= 1.
 */
double rv_novelty_fused(double r, double fuse_thr);

/*
 * Scores the novelty of the window made of rows [first, first + m->window)
 * of values (channel-major, column c at values + c * ld). Sets
 * res->novelty, res->novel_chan and res->novel, each watched channel's
 * ratio in ratio[0..m->nov.n), and when novelty-flagged res->anomaly = 1
 * and res->fused raised as rv_novelty_fused says. Call after the ensemble
 * scored the window and before its attribution. Allocates nothing.
 */
void rv_novelty_score(const struct rv_model *m, const float *values, size_t ld, size_t first,
		      struct rv_ens_result *res, double *ratio);

/*
 * For a novelty-flagged res: raises the weights (nchan, the window's
 * attribution) of its novelty-flagged channels, in proportion to their
 * ratios, until they carry res->novel_share of the total (unchanged when
 * they already do). ratio as rv_novelty_score left it. Nothing otherwise.
 */
void rv_novelty_attribute(const struct rv_model *m, const double *ratio,
			  const struct rv_ens_result *res, double *weight);

/* What rv_novelty_attribute does, for any flagged channels (the levels of
 * level.h share it): raises weight[chan[i]] (nchan weights) of each of the
 * n channels whose ratio[i] exceeds 1, in proportion to those ratios,
 * until they carry `share` (below 1) of the total; unchanged when they
 * already do. */
void rv_novelty_raise(const uint32_t *chan, const double *ratio, size_t n, double share,
		      double *weight, size_t nchan);

#endif
