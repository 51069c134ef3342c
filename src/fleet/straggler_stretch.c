/*
 * straggler_stretch.c - from scores to stragglers: each node's streak of
 * windows out of step, its run while the persistent score is above the
 * threshold, the stretch a run becomes when it holds persist windows out
 * of step, and the signals summed over it (the rules are in straggler.h).
 *
 * Why slots: summing every channel for every node over a stretch would be
 * 32 bytes per node and channel; only nodes out of step need it, so a
 * node takes a slot of per-channel sums when a streak begins and gives it
 * back when the streak ends without a run, or when its run ends. Slots
 * and the pool of stretches are allocated by rv_strag_new.
 */
#include "fleet/straggler_int.h"

#include <math.h>
#include <string.h>

#include "base/log.h"

static int same_acc(const struct strag_acc *a, const struct strag_acc *b)
{
	return a->n == b->n && a->sx == b->sx && a->sm == b->sm && a->sz == b->sz;
}

/*
 * The top signals of a node's run from its slot's sums into f. Channels
 * with the same sums over the whole run are one number under several
 * names (straggler.h): the first by index stands for them.
 */
static void fill_signals(const struct rv_strag *s, size_t slot,
			 struct rv_strag_finding *f)
{
	double v[RV_STRAG_SIG_CANDIDATES];
	size_t idx[RV_STRAG_SIG_CANDIDATES];
	struct strag_topk t = { .k = RV_STRAG_SIG_CANDIDATES, .v = v, .idx = idx };
	const struct strag_acc *a = s->acc + slot * s->c;

	f->nsignals = 0;
	if (s->o.nsignals == 0)
		return;
	/* ranked by |sum of z|: a channel valid in few windows of the run
	 * counts its missing ones as 0 */
	for (size_t ch = 0; ch < s->c; ch++)
		if (a[ch].n > 0)
			rv_strag_top_add(&t, fabs(a[ch].sz), ch);
	for (size_t j = 0; j < t.n && f->nsignals < s->o.nsignals; j++) {
		const struct strag_acc *e = &a[idx[j]];
		double n = (double)e->n;
		int dup = 0;

		for (size_t k = 0; k < f->nsignals && !dup; k++)
			dup = same_acc(e, &a[f->sig[k].chan]);
		if (!dup)
			f->sig[f->nsignals++] = (struct rv_strag_signal){
				.chan = idx[j], .value = e->sx / n, .median = e->sm / n,
				.z = e->sz / n, .nwin = e->n };
	}
}

/* The node's current run as a finding (open: still above threshold). */
static void run_finding(const struct rv_strag *s, size_t i, int open,
			struct rv_strag_finding *f)
{
	const struct strag_node *nd = &s->node[i];

	*f = (struct rv_strag_finding){
		.node = i, .first = nd->run_first,
		.last = nd->run_last,
		.t_first = nd->t_first, .t_last = nd->t_last,
		.peak = nd->peak, .peak_window = nd->peak_window,
		.open = open, .signals_lost = nd->slot == RV_STRAG_NONE,
	};
	if (nd->slot != RV_STRAG_NONE)
		fill_signals(s, nd->slot, f);
}

/* Gives node nd a cleared slot for its sums when one is free. */
static void take_slot(struct rv_strag *s, struct strag_node *nd)
{
	if (nd->slot != RV_STRAG_NONE || s->nfree == 0)
		return;
	nd->slot = s->free_slot[--s->nfree];
	memset(s->acc + nd->slot * s->c, 0, s->c * sizeof(*s->acc));
}

static void give_slot(struct rv_strag *s, struct strag_node *nd)
{
	if (nd->slot != RV_STRAG_NONE)
		s->free_slot[s->nfree++] = nd->slot;
	nd->slot = RV_STRAG_NONE;
}

static void run_begin(struct rv_strag *s, struct strag_node *nd, double t)
{
	nd->run_first = s->win;
	nd->t_first = t;
	nd->run_out = 0;
	if (nd->streak_len > 0) {
		/* it was out of step before the persistent score caught up */
		nd->run_first = nd->streak_first;
		nd->t_first = nd->t_streak;
		nd->run_out = nd->streak_len - 1;   /* this window is added later */
	}
	nd->peak = -INFINITY;
	nd->confirmed = 0;
	take_slot(s, nd);
	if (nd->slot == RV_STRAG_NONE) {
		s->st.signals_lost++;
		if (!s->warned_slots++)
			rv_warn("straggler: more than %zu nodes out of step at once; "
				"stretches of the others have no signals",
				s->o.max_active);
	}
}

/* Ends node i's run; a sustained one becomes a stretch in the pool. */
static void run_end(struct rv_strag *s, size_t i)
{
	struct strag_node *nd = &s->node[i];

	if (nd->confirmed) {
		if (s->npool < s->o.max_stretches) {
			struct strag_stretch *st = &s->pool[s->npool];

			run_finding(s, i, 0, &st->f);
			st->next = RV_STRAG_NONE;
			if (nd->tail != RV_STRAG_NONE)
				s->pool[nd->tail].next = s->npool;
			else
				nd->head = s->npool;
			nd->tail = s->npool++;
		} else {
			s->st.stretches_lost++;
			if (!s->warned_pool++)
				rv_warn("straggler: more than %zu stretches; later ones "
					"are counted, not kept", s->o.max_stretches);
		}
	}
	give_slot(s, nd);
	nd->streak_len = 0;     /* the next run looks back no further than here */
	nd->run_len = nd->run_out = nd->below = 0;
	nd->confirmed = 0;
}

/* Adds this window's values of node i to its slot's sums. */
static void accumulate(struct rv_strag *s, size_t slot, const double *row)
{
	struct strag_acc *a = s->acc + slot * s->c;

	for (size_t ch = 0; ch < s->c; ch++) {
		double m = s->med[ch];

		if (isnan(m) || !isfinite(row[ch]))
			continue;
		a[ch].sx += row[ch];
		a[ch].sm += m;
		a[ch].sz += rv_strag_clipped(row[ch], m, s->inv[ch], s->o.zcap);
		a[ch].n++;
	}
}

/*
 * Moves node nd's streak of windows out of step on: a streak takes a slot
 * for its sums (so a stretch's signals cover it from its first window),
 * which it gives back when it ends without a run.
 */
static void streak_step(struct rv_strag *s, struct strag_node *nd, int out, double t)
{
	if (!out) {
		nd->streak_len = 0;
		if (nd->run_len == 0)
			give_slot(s, nd);
		return;
	}
	if (nd->streak_len++ == 0) {
		nd->streak_first = s->win;
		nd->t_streak = t;
	}
	if (nd->run_len == 0)
		take_slot(s, nd);
}

/* Moves node i's streak and run on after its scores of this window; sums
 * the windows out of step that count. */
void rv_strag_advance(struct rv_strag *s, size_t i, const double *row, double t)
{
	struct strag_node *nd = &s->node[i];
	int out = nd->wscore > s->o.threshold;

	streak_step(s, nd, out, t);
	if (!(nd->pscore > s->o.threshold)) {
		/* a run rides out a dip of up to gap windows; they do not count */
		if (nd->run_len > 0 && ++nd->below > s->o.gap)
			run_end(s, i);
		if (nd->run_len > 0)
			return;
	} else {
		nd->below = 0;
		if (nd->run_len++ == 0)
			run_begin(s, nd, t);
		if (nd->pscore > nd->peak) {
			nd->peak = nd->pscore;
			nd->peak_window = s->win;
		}
	}
	if (out && nd->run_len > 0) {
		nd->run_out++;
		nd->run_last = s->win;
		nd->t_last = t;
	}
	if (nd->run_len > 0 && !nd->confirmed && nd->run_out >= s->o.persist) {
		nd->confirmed = 1;
		s->st.stretches++;
		s->st.flagged += !nd->flagged;
		nd->flagged = 1;
	}
	/* the windows that count, and a streak's before its run */
	if (out && nd->slot != RV_STRAG_NONE)
		accumulate(s, nd->slot, row);
}

int rv_strag_flagged(const struct rv_strag *s, size_t node)
{
	return node < s->n && s->node[node].flagged;
}

size_t rv_strag_findings(const struct rv_strag *s, struct rv_strag_finding *out,
			 size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct strag_node *nd = &s->node[i];

		for (size_t j = nd->head; j != RV_STRAG_NONE; j = s->pool[j].next, k++)
			if (k < max)
				out[k] = s->pool[j].f;
		if (nd->run_len > 0 && nd->confirmed) {
			if (k < max)
				run_finding(s, i, 1, &out[k]);
			k++;
		}
	}
	return k;
}

void rv_strag_stats(const struct rv_strag *s, struct rv_strag_stats *st)
{
	*st = s->st;
}
