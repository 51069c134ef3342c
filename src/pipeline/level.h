/*
 * level.h - levels that moved and stay: a per-channel range statistic
 * beside the detector ensemble and the novelty (internal to pipeline/: the
 * offline run and the live scorer apply it the same way; the model file
 * stores it).
 *
 * Why: the detectors judge memory stocks by how they move, never by where
 * they sit (catalog.h, rv_catalog_stock): a write storm leaves the page
 * cache grown for hours, and judging the level would keep an incident
 * open until the next fit. But some levels say how much of a resource the
 * host has or has set aside, and a move of those that stays is a state
 * change an operator wants to hear of for as long as it lasts: a huge page
 * pool reserved and unused, memory taken and kept, swap turned on, memory
 * hot-unplugged or ballooned away, a link gone down. The detectors see
 * the second of the step and nothing after; this statistic sees the level
 * for as long as it stays away from where it was while learning.
 *
 * Watched channels: those the catalog names levels (rv_catalog_level),
 * with their smallest move that counts: floor (in the channel's unit) and
 * rel (a share of the level's training mean).
 *
 * Per watched channel, from every training sample (finite values):
 *   lo_c, hi_c  the lowest and the highest value;
 *   M_c         max(floor, rel x |training mean|), > 0.
 * A window's level of channel c, v_c, is the mean of its newest step (the
 * samples since the previous window), so a move is judged where the level
 * is now, not diluted by the samples before it. Its ratio
 * r_c = max(lo_c - v_c, v_c - hi_c) / M_c (negative inside the range); the
 * window's level score is the largest r_c (0 when none is positive) and
 * its channel. A window is level-flagged when its level score exceeds 1:
 * then, as with the novelty (novelty.h), it is anomalous even when the
 * fusion did not fire, its fused score is at least
 * rv_novelty_fused(score, fuse threshold), and its level-flagged channels
 * carry at least RV_LEVEL_SHARE of its attribution. A level that stays
 * out flags every window for as long as it stays (the live scorer counts
 * such a window as lasting and material: pipeline/live.h), so its
 * incident stays open, and closes once the level is back inside its
 * range; whatever the learning time, since only the range is learnt.
 *
 * Memory: the ranges are allocated at fit or load; scoring allocates
 * nothing (the caller passes lv->n doubles of scratch).
 */
#ifndef RV_PIPELINE_LEVEL_H
#define RV_PIPELINE_LEVEL_H

#include <stddef.h>
#include <stdint.h>

struct rv_model;
struct rv_table;
struct rv_ens_result;

/* Least share of a level-flagged window's attribution carried by its
 * level-flagged channels (as RV_NOVELTY_SHARE, and for the same reason). */
#define RV_LEVEL_SHARE (2.0 / 3.0)

/* The model's level section. n == 0: no channel watched (a model fitted
 * without the catalog, or read from a file of version 4 or older). */
struct rv_level {
	size_t n;                    /* watched channels */
	uint32_t *chan;              /* n channel indices, ascending */
	double *lo, *hi;             /* n: the training range */
	double *margin;              /* n: M_c, > 0 */
};

/*
 * Fits lv on the training table t (the model's channel order) with m's
 * names. lv is overwritten; free with rv_level_fini. Returns 0 or -ENOMEM.
 * The caller fits it only with the catalog's knowledge on (rv_detect_opts
 * level).
 */
int rv_level_fit(struct rv_level *lv, const struct rv_model *m, const struct rv_table *t);
/* Frees the arrays and zeroes lv (a zeroed lv is fine). */
void rv_level_fini(struct rv_level *lv);

/*
 * Scores the levels of the window made of rows [first, first + m->window)
 * of values (channel-major, column c at values + c * ld). Sets res->level,
 * res->level_chan and res->leveled, each watched channel's ratio in
 * ratio[0..m->lvl.n), and when level-flagged res->anomaly = 1 and
 * res->fused raised as level.h says. Call after the ensemble (and the
 * novelty) scored the window and before its attribution. Allocates
 * nothing.
 */
void rv_level_score(const struct rv_model *m, const float *values, size_t ld, size_t first,
		    struct rv_ens_result *res, double *ratio);

/*
 * For a level-flagged res: raises the weights (nchan, the window's
 * attribution) of its level-flagged channels, in proportion to their
 * ratios, until they carry res->level_share of the total. Nothing
 * otherwise.
 */
void rv_level_attribute(const struct rv_model *m, const double *ratio,
			const struct rv_ens_result *res, double *weight);

/* 1 when channel c of the model is watched and out of its range by more
 * than its margin in ratio (as rv_level_score left it). */
int rv_level_out(const struct rv_model *m, const double *ratio, uint32_t c);

#endif
