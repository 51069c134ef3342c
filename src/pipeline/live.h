/*
 * live.h - scoring one window at a time, for the live agent.
 *
 * The offline path (rv_model_run) scores a whole table in parallel blocks;
 * the agent has one new window per step and wants its verdict at once. This
 * is the same chain for a single window: the window's rows -> features
 * (features/window.h) -> the ensemble (rv_ens_score) -> the novelty of its
 * sparse event counts (novelty.h) and the levels (level.h), each of which
 * may flag the window and raise its fused score -> attribution ->
 * channels ranked. It computes what rv_model_run
 * computes for the same rows (up to the last float bits: sgemv here, sgemm
 * in batches; the novelty is the same sum either way).
 *
 * All memory is taken at rv_live_new; rv_live_score allocates nothing. Not
 * thread safe: one rv_live per scoring thread. The model is borrowed and
 * must outlive the scorer.
 */
#ifndef RV_PIPELINE_LIVE_H
#define RV_PIPELINE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline/model.h"

struct rv_live;

/* Everything about the last scored window; pointers owned by the scorer,
 * valid until the next rv_live_score. */
struct rv_live_out {
	struct rv_ens_result res;    /* with the novelty (res.novelty, novel_chan, novel) */
	int flagged;                 /* a detector, the fusion or the novelty fired */
	const double *weight;        /* nchan attribution weights (zeros when not flagged) */
	const uint32_t *rank;        /* nchan channels, most responsible first, when flagged */
	size_t nrank;                /* nchan when flagged, else 0 */
	enum rv_subsystem subsystem; /* RV_SUB_OTHER when not flagged */
	const double *mean;          /* nchan: each channel's mean over the window */
	/* A flagged window's evidence lasts (1) or is a short burst (0); 1
	 * when not flagged, and when the novelty flagged it and its novel
	 * channel counted in two of its steps (events at one instant are a
	 * burst too); else it lasts when
	 * the channels holding the heavier half of the attribution moved for
	 * most of the window's newest two steps, or those that did carry at
	 * least a third of that half. A channel moved at a sample lying at
	 * least half its mean distance over the window from its training
	 * mean, and for most of a stretch when more than half of its samples
	 * there did (a held channel: rv_live_set_hold). One sample appears in window / step windows, so without
	 * this a page-in of a second (a program starting, a file read back
	 * after reclaim) flags three windows at once with every sign of a
	 * fault; a sustained fault moves its channels in every step. A
	 * strong window (fused score above 2, where the agent reports at
	 * once) lasts too when one of its 8 most responsible channels moved
	 * by its materiality floor (below), and by three times the spread
	 * of its window mean while learning, in each of its newest two steps
	 * (a held channel: three readings; sparse error counts aside): the
	 * start-up of the program that begins a fault (its pages faulted in
	 * and read) outweighs the fault for seconds, and must not hide that
	 * the fault lasts. A window a level flagged (level.h) lasts: a level
	 * is judged on the window's newest step. */
	int lasting;
	double lasting_share;        /* that share of the heavier half, 0..1 */
	/* A flagged window's evidence is material (1): the novelty or a
	 * level (its move is past its margin, level.h) flagged it, or the heavier half of the attribution (its 8 most responsible
	 * channels at most) moved materially: one of its channels by at least its materiality floor
	 * (rv_catalog_material: the mean of its newest step against its
	 * training mean; a memory stock's against the mean of the window's
	 * oldest step, memory taken and kept against its reference sample),
	 * and its channels, each weighed by the share of its floor it moved
	 * (`matter`), by a third of the half's weight at least (a discard of
	 * a second at its floor beside the loopback softirqs a CPU hog
	 * shifts, which carry the score, is not); 1 when not flagged. Else
	 * (0) the window is real but small: a quiet host learns a spread far
	 * below what matters, and 26 page-ins a second on an idle disk score
	 * like a fault. The agent reports no incident that has no material
	 * window (explain/incident.h). */
	int material;
	/* Per channel (nchan, zeros when not flagged): 1 where the channel
	 * has weight and is still moving at the window's newest step, so
	 * that an incident's blame at open leaves out what only moved
	 * before it (explain/incident.h, struct rv_incwin): the pages a
	 * program faults in and reads as it starts, a discard of a second.
	 * A channel persists when it moved (as in the lasting rule) at most
	 * samples of the newest step; a held one at its newest reading; a
	 * stock (rv_catalog_stock) while its newest step differs from the
	 * one before by a quarter of its move since the window's oldest step
	 * (memory taken at a start and kept does not go on moving, a leak
	 * does); sparse counts and channels without a materiality floor when
	 * they counted above their training mean in two of the window's
	 * steps; a level out of its range (level.h) always. */
	const uint8_t *persist;
	/* Per channel (nchan, zeros when not flagged): of a channel with
	 * weight, how far it moved over the window's newest step (as for
	 * `material`) as a share of its materiality floor, up to 1 (a
	 * channel without a floor: 1), so that an incident's blame weighs
	 * moves by what they could matter to a workload, not only by the
	 * spread learnt (explain/incident.h); a level out of its range: 1. */
	const float *matter;
};

int rv_live_new(const struct rv_model *m, struct rv_live **out);

/*
 * How many samples each channel's reading is held (nchan values, borrowed
 * until the next call; NULL, the default: every channel is read at every
 * sample): a source read at a slower sub-interval (perf events every
 * second at 200 ms) repeats its value in between. The lasting rule judges
 * such a channel on its readings: it moved lately when its newest three
 * readings all did, since a burst of a fraction of a second shows in the
 * two readings around it.
 */
void rv_live_set_hold(struct rv_live *l, const uint8_t *hold);

/*
 * Memory taken and kept (kept.h): rv_live_kept_lookback says how many
 * samples before a window's newest one its reference sample lies (0 when
 * the model has no kept-memory channel); rv_live_set_reference gives that
 * sample (nchan values in the model's order, borrowed until the next
 * score; the oldest one the caller has when it has fewer, NULL for none)
 * before each rv_live_score.
 */
size_t rv_live_kept_lookback(const struct rv_live *l);
void rv_live_set_reference(struct rv_live *l, const float *row);
void rv_live_free(struct rv_live *l);

/*
 * Scores the window made of m->window rows: rows[i] points at the nchan
 * values of the i-th sample, oldest first (the caller's ring buffer; no
 * copy is kept). Values must be finite (the caller carries the last valid
 * value over gaps, as the offline table reader does).
 */
void rv_live_score(struct rv_live *l, const float *const *rows, struct rv_live_out *out);

#endif
