/*
 * incident_blame.c - the blame of an incident from its onset's weights
 * (incident.h): its subsystem, their shares and its top channels.
 */
#include "explain/incident.h"
#include "explain/incident_int.h"

#include <math.h>
#include <string.h>

/* incident_int.h */
size_t rv_incmerge_heaviest(const double *w, size_t nchan, uint32_t *top, size_t n)
{
	size_t k = 0;

	for (size_t c = 0; c < nchan; c++) {
		if (!(w[c] > 0))
			continue;
		size_t pos = k;
		while (pos > 0 && w[c] > w[top[pos - 1]])
			pos--;
		if (pos >= n)
			continue;
		if (k < n)
			k++;
		memmove(&top[pos + 1], &top[pos], (k - 1 - pos) * sizeof(top[0]));
		top[pos] = (uint32_t)c;
	}
	return k;
}

/* Channel c lasts in the window of weights w: it carries CONTINUE_LEVEL of
 * its weight per window in the onset (onset_n windows) at least, and is
 * still moving at that window's end (persist, when known). */
static int lasts(const double *onset, size_t onset_n, const double *w, const uint8_t *persist,
		 size_t c)
{
	return isfinite(w[c]) && w[c] >= CONTINUE_LEVEL * onset[c] / (double)onset_n &&
	       (!persist || persist[c]);
}

/* The onset weights (of onset_n windows) of the channels that last in the
 * window of weights w, into out (onset itself is fine); all of them when
 * none would stay. */
static void keep_lasting(const struct rv_incmerge *m, const double *onset, size_t onset_n,
			 const double *w, const uint8_t *persist, double *out)
{
	double kept = 0;

	for (size_t c = 0; c < m->nchan; c++)
		if (onset[c] > 0 && lasts(onset, onset_n, w, persist, c))
			kept += onset[c];
	for (size_t c = 0; c < m->nchan; c++)
		out[c] = kept > 0 && onset[c] > 0 && !lasts(onset, onset_n, w, persist, c) ?
				 0 : onset[c];
}

/* The weights w, each times the share of its materiality floor the
 * channel moved at most in a window of the onset (matter), into out (w
 * itself is fine). */
static const double *keep_material(const struct rv_incmerge *m, const float *matter,
				   const double *w, double *out)
{
	for (size_t c = 0; c < m->nchan; c++)
		out[c] = w[c] * (matter[c] > 0 ? matter[c] : 0);
	return out;
}

/*
 * A subsystem's weight is the sum of its SUB_LEADERS heaviest channels, not
 * of all of them: a subsystem with many channels that move together (a
 * family per CPU, the page cache in a dozen gauges) would otherwise
 * outweigh one whose few channels say more. A channel whose weight lies
 * within SUB_SAME of a leader's is the same signal under another name (a
 * node's counter on a host of one node, the minor faults where there are
 * no major ones, the NUMA hits that are all local) and counts once, so
 * that the kernel's bookkeeping of one event in several places does not
 * outweigh another subsystem's distinct signals. The shares are of the
 * leaders' total.
 */
enum { SUB_LEADERS = 3 };
static const double SUB_SAME = 0.005;

static int same_signal(double a, double b)
{
	return fabs(a - b) <= SUB_SAME * (a > b ? a : b);
}

static void subsystem_weights(const struct rv_incmerge *m, const double *acc,
			      const unsigned char *sub, double *sub_sum)
{
	double best[RV_SUB_COUNT][SUB_LEADERS] = { { 0 } };

	for (size_t c = 0; c < m->nchan; c++) {
		double *b = best[sub[c]], w = isfinite(acc[c]) ? acc[c] : 0;
		int k, dup = -1;

		if (!(w > 0))
			continue;
		for (k = 0; k < SUB_LEADERS && dup < 0; k++)
			if (same_signal(w, b[k]))
				dup = k;
		if (dup >= 0) {
			/* the larger of the two stands for it; leaders stay sorted */
			if (w > b[dup])
				b[dup] = w;
			for (k = dup; k > 0 && b[k] > b[k - 1]; k--) {
				double t = b[k - 1];

				b[k - 1] = b[k];
				b[k] = t;
			}
			continue;
		}
		for (k = 0; k < SUB_LEADERS; k++)
			if (w > b[k]) {
				double t = b[k];

				b[k] = w;
				w = t;
			}
	}
	for (int s = 0; s < RV_SUB_COUNT; s++) {
		sub_sum[s] = 0.0;
		for (int k = 0; k < SUB_LEADERS; k++)
			sub_sum[s] += best[s][k];
	}
}

/*
 * Side effects (catalog.h rv_catalog_effect): each channel's subsystem for
 * the blame of the weights w, into m->sub_eff. An effect counts for its
 * activity's subsystem when the activity moved too: one of its channels
 * moved by its materiality floor in a window of the onset (matter, when
 * the windows said: NULL otherwise), or its channels carry at least
 * EFFECT_CAUSE_SHARE of the weight its effects carry (in w, the weights
 * by materiality). A CPU hog that moves the few packets of a quiet
 * loopback from one CPU's softirqs to another's has no traffic that
 * matters, and its softirq time stays the CPU's; the forks of a fork
 * storm weigh little beside the page faults they cause, and matter.
 */
static const double EFFECT_CAUSE_SHARE = 0.1;

static const unsigned char *effect_subsystems(const struct rv_incmerge *m, const double *w,
					      const float *matter)
{
	double eff[RV_CATALOG_EFFECTS] = { 0 }, cause[RV_CATALOG_EFFECTS] = { 0 };
	int active[RV_CATALOG_EFFECTS], moved[RV_CATALOG_EFFECTS] = { 0 };

	for (size_t c = 0; c < m->nchan; c++) {
		double x = isfinite(w[c]) && w[c] > 0 ? w[c] : 0;

		if (m->effect[c] >= 0)
			eff[m->effect[c]] += x;
		for (int k = 0; k < RV_CATALOG_EFFECTS; k++)
			if ((m->cause[c] >> k) & 1u) {
				cause[k] += x;
				moved[k] |= matter && matter[c] >= 1.0f;
			}
	}
	for (int k = 0; k < RV_CATALOG_EFFECTS; k++)
		active[k] = moved[k] || (cause[k] > 0 && cause[k] >= EFFECT_CAUSE_SHARE * eff[k]);
	for (size_t c = 0; c < m->nchan; c++)
		m->sub_eff[c] = m->effect[c] >= 0 && active[m->effect[c]] ? m->effect_sub[m->effect[c]]
									 : m->chan_sub[c];
	return m->sub_eff;
}

/*
 * Subsystem, shares and top channels from the onset's weights; while the
 * onset still gathers (an incident reported open, or one that closed
 * before its onset was over), from those of its channels that last in its
 * last window, as at the onset's end (drop_transients): a noisy
 * neighbour's binary read from disk does not blame the disk even at open.
 * One window here, where the onset's end looks at two: at open the window
 * before the last is often the start-up itself. A channel lasts there when
 * it keeps its level and, where the window says so (struct rv_incwin), is
 * still moving at its end: a window covers several steps, so a burst at
 * the start (the pages a program reads and faults in as it begins, the
 * memory it takes once, a discard of a second) keeps its weight in every
 * window that holds it, and would outweigh the fault at open though it is
 * over; this also judges an onset of one window, and there the blame is
 * of all the windows so far, not only of those up to the onset's peak: a
 * program's start-up (its pages allocated and faulted) may outscore the
 * fault it begins and be over by the window that reports it. At open and at close,
 * each channel weighs by the share of its materiality floor it moved at
 * most in a window of the onset, up to 1 (where the windows say, struct
 * rv_incwin): attribution is in units of the spread learnt, so a CPU hog
 * that moves the few packets of a quiet host's loopback from one CPU's
 * softirqs to the other's, far outside their spread and far below what
 * matters to any workload, would otherwise share the blame with the CPU.
 */
void rv_incmerge_summarise(const struct rv_incmerge *m, const struct stretch *s,
			   struct rv_incident *in)
{
	double sub_sum[RV_SUB_COUNT] = { 0 };
	double total = 0, sub_total = 0, best = 0;
	const double *onset = s->onset;

	if (!s->onset_done && s->have_last && s->have_persist && s->nhist > 0) {
		/* every window so far, not only those up to the peak: a start-up
		 * that outscores the fault is over by the latest window */
		keep_lasting(m, s->acc, s->nhist, s->hist + (s->nhist - 1) * m->nchan, s->persist,
			     m->sumw);
		onset = m->sumw;
	} else if (!s->onset_done && s->have_last && s->onset_n > 1) {
		keep_lasting(m, s->onset, s->onset_n, s->hist + (s->nhist - 1) * m->nchan, NULL,
			     m->sumw);
		onset = m->sumw;
	}
	if (s->have_matter)
		onset = keep_material(m, s->matter, onset, m->sumw);
	for (size_t c = 0; c < m->nchan; c++)
		total += onset[c];
	subsystem_weights(m, onset, effect_subsystems(m, onset, s->have_matter ? s->matter : NULL),
			  sub_sum);
	for (int k = 0; k < RV_SUB_COUNT; k++)
		sub_total += sub_sum[k];
	in->mean_score = s->score_sum / (double)in->flagged;
	in->onset_done = s->onset_done;
	in->subsystem = RV_SUB_OTHER;
	for (int k = 0; k < RV_SUB_COUNT; k++) {
		in->sub_share[k] = sub_total > 0 ? sub_sum[k] / sub_total : 0.0;
		if (sub_sum[k] > best) {
			best = sub_sum[k];
			in->subsystem = (enum rv_subsystem)k;
		}
	}
	in->ntop = total > 0 ? rv_incmerge_heaviest(onset, m->nchan, in->top, RV_INCIDENT_TOP_MAX) : 0;
	for (size_t i = 0; i < in->ntop; i++)
		in->top_weight[i] = onset[in->top[i]] / total;
}
