/*
 * incident.c - merging flagged windows into incidents (incident.h).
 *
 * The merger sees one window at a time and keeps two stretches of flagged
 * windows: the open incident and a candidate of the windows the open
 * incident does not explain. Each keeps its running sums and one weight per
 * channel, so the live agent and the offline path share it.
 *
 * The blame of an incident is that of its onset: the per-channel weights
 * summed from its first window up to its peak (at least ONSET_MIN windows,
 * the peak looked for in the first ONSET_MAX), frozen after ONSET_MAX
 * windows. The channels that carry most of that weight are the onset
 * channels; a later flagged window belongs to the incident while they still
 * carry at least CONTINUE_LEVEL of their onset weight per window (the
 * hysteresis: strong enough to open, a quarter of that to go on). Other
 * flagged windows are the candidate's: when the incident closes while the
 * candidate is still going, the candidate goes on as the incident's
 * follow-on phase (a new incident linked to it), so the after-effects of a
 * fault neither keep it open nor relabel it.
 */
#include "explain/incident.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	CLOSED_INITIAL_CAP = 16,  /* first allocation of the closed-incident array */
	ONSET_MIN = 2,            /* windows the onset has at least */
	ONSET_MAX = 5,            /* the onset's peak is looked for in these windows */
	ONSET_CHANNELS = RV_INCIDENT_TOP_MAX,
};

/* A window belongs to the open incident while its onset channels carry at
 * least this share of their onset weight per window. */
static const double CONTINUE_LEVEL = 0.25;
/* The onset channels: the heaviest ones, until they hold this much of the
 * onset's weight. */
static const double ONSET_COVER = 0.8;

/* A run of flagged windows: the open incident, or the candidate. */
struct stretch {
	int open;
	struct rv_incident in;      /* summary fields filled by summarise() */
	double score_sum;
	double excess;              /* sum of max(0, score - 1) over its windows */
	double *acc;                /* nchan: weight summed while the onset lasts */
	double *onset;              /* nchan: acc at the onset's peak */
	size_t onset_n;             /* windows in that snapshot */
	int onset_done;             /* onset frozen, onset channels chosen */
	uint32_t oset[ONSET_CHANNELS];
	size_t noset;
	double onset_level;         /* the onset channels' weight per window */
};

struct rv_incmerge {
	size_t nchan;
	const char *const *names;   /* borrowed */
	size_t max_gap, min_windows;
	double gate_peak;           /* peak score reported at once; 0 = no gate */
	size_t gate_windows;        /* flagged windows a weaker one needs; 0 = never */
	size_t sustained_windows;   /* a sustained one with enough excess; 0 = off */
	unsigned char *chan_sub;    /* enum rv_subsystem per channel, from its name */

	struct stretch cur, cand;
	uint64_t last_closed_id;    /* id given at the last close, 0: dropped */
	unsigned last_closed_phase;
	double last_closed_peak;

	int have_last;
	size_t last_win;            /* last window pushed, to refuse reordering */

	struct rv_incident *closed;
	size_t nclosed, cap;
	size_t dropped;
	uint64_t next_id;
};

static int stretch_init(struct stretch *s, size_t n)
{
	s->acc = calloc(n, sizeof(*s->acc));
	s->onset = calloc(n, sizeof(*s->onset));
	return s->acc && s->onset ? 0 : -ENOMEM;
}

static void stretch_fini(struct stretch *s)
{
	free(s->acc);
	free(s->onset);
}

struct rv_incmerge *rv_incmerge_new(size_t nchan, const char *const *names, size_t max_gap,
				    size_t min_windows)
{
	if ((nchan > 0 && !names) || nchan > UINT32_MAX)
		return NULL;
	struct rv_incmerge *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	/* one element at least, so nchan == 0 does not look like a failure */
	size_t alloc = nchan ? nchan : 1;
	m->chan_sub = calloc(alloc, sizeof(*m->chan_sub));
	if (!m->chan_sub || stretch_init(&m->cur, alloc) != 0 ||
	    stretch_init(&m->cand, alloc) != 0) {
		rv_incmerge_free(m);
		return NULL;
	}
	m->nchan = nchan;
	m->names = names;
	m->max_gap = max_gap;
	m->min_windows = min_windows;
	m->next_id = 1;
	for (size_t c = 0; c < nchan; c++)
		m->chan_sub[c] = (unsigned char)rv_catalog_subsystem(names[c]);
	return m;
}

void rv_incmerge_free(struct rv_incmerge *m)
{
	if (!m)
		return;
	free(m->chan_sub);
	stretch_fini(&m->cur);
	stretch_fini(&m->cand);
	free(m->closed);
	free(m);
}

static void stretch_open(const struct rv_incmerge *m, struct stretch *s, size_t win, double ts)
{
	double *acc = s->acc, *onset = s->onset;

	memset(s, 0, sizeof(*s));
	s->acc = acc;
	s->onset = onset;
	memset(acc, 0, m->nchan * sizeof(*acc));
	memset(onset, 0, m->nchan * sizeof(*onset));
	s->in.first_win = win;
	s->in.start_ts = ts;
	s->in.phase = 1;
	s->open = 1;
}

/* Up to n channels by weight w, heaviest first; equal weights keep index
 * order. Returns how many have a positive weight. */
static size_t heaviest(const double *w, size_t nchan, uint32_t *top, size_t n)
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

/*
 * Channels of the onset that are gone by its last window (carrying less than
 * CONTINUE_LEVEL of their onset weight per window) are its start-up, not
 * what the incident is about: a noisy neighbour's binary paged in from disk
 * before it takes the CPU. They leave the onset, unless nothing would stay.
 */
static void drop_transients(const struct rv_incmerge *m, struct stretch *s, const double *w)
{
	double kept = 0;

	if (!w || !s->onset_n)
		return;
	for (size_t c = 0; c < m->nchan; c++)
		if (s->onset[c] > 0 && isfinite(w[c]) &&
		    w[c] >= CONTINUE_LEVEL * s->onset[c] / (double)s->onset_n)
			kept += s->onset[c];
	if (!(kept > 0))
		return;
	for (size_t c = 0; c < m->nchan; c++)
		if (s->onset[c] > 0 &&
		    !(isfinite(w[c]) && w[c] >= CONTINUE_LEVEL * s->onset[c] / (double)s->onset_n))
			s->onset[c] = 0;
}

/* Freezes the onset at its last window (weights w): its lasting channels,
 * and of them those that hold ONSET_COVER of its weight. */
static void onset_freeze(const struct rv_incmerge *m, struct stretch *s, const double *w)
{
	uint32_t top[ONSET_CHANNELS];
	size_t n;
	double total = 0, sum = 0;

	drop_transients(m, s, w);
	n = heaviest(s->onset, m->nchan, top, ONSET_CHANNELS);
	for (size_t c = 0; c < m->nchan; c++)
		total += s->onset[c];
	s->noset = 0;
	for (size_t i = 0; i < n && sum < ONSET_COVER * total; i++) {
		s->oset[s->noset++] = top[i];
		sum += s->onset[top[i]];
	}
	s->onset_level = s->onset_n ? sum / (double)s->onset_n : 0;
	s->onset_done = 1;
}

static void stretch_add(const struct rv_incmerge *m, struct stretch *s, size_t win, double ts,
			double score, unsigned detectors, const double *chan_weight)
{
	struct rv_incident *in = &s->in;
	int peak = in->flagged == 0 || score > in->peak_score;

	if (peak)
		in->peak_score = score;
	in->flagged++;
	in->last_win = win;
	in->end_ts = ts;
	in->detectors |= detectors;
	s->score_sum += score;
	if (score > 1)
		s->excess += score - 1;
	if (s->onset_done)
		return;
	/* attribution is a magnitude: a negative or broken value carries nothing */
	for (size_t c = 0; chan_weight && c < m->nchan; c++)
		if (isfinite(chan_weight[c]) && chan_weight[c] > 0)
			s->acc[c] += chan_weight[c];
	if (in->flagged <= ONSET_MIN || peak) {
		memcpy(s->onset, s->acc, m->nchan * sizeof(*s->onset));
		s->onset_n = in->flagged;
	}
	if (in->flagged >= ONSET_MAX)
		onset_freeze(m, s, chan_weight);
}

/*
 * A subsystem's weight is the sum of its SUB_LEADERS heaviest channels, not
 * of all of them: a subsystem with many channels that move together (a
 * family per CPU, the page cache in a dozen gauges) would otherwise
 * outweigh one whose few channels say more. The shares are of the
 * leaders' total.
 */
enum { SUB_LEADERS = 3 };

static void subsystem_weights(const struct rv_incmerge *m, const double *acc, double *sub_sum)
{
	double best[RV_SUB_COUNT][SUB_LEADERS] = { { 0 } };

	for (size_t c = 0; c < m->nchan; c++) {
		double *b = best[m->chan_sub[c]], w = isfinite(acc[c]) ? acc[c] : 0;

		for (int k = 0; k < SUB_LEADERS; k++)
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
 * Whether a flagged window continues the open incident: always during the
 * onset, and after it while the onset channels carry CONTINUE_LEVEL of
 * their onset weight per window, each channel counted up to its own onset
 * weight per window. A window without attribution cannot be judged and
 * continues it.
 */
static int belongs(const struct rv_incmerge *m, const struct stretch *s, const double *w)
{
	double sum = 0, total = 0;

	if (!s->onset_done || !w || !(s->onset_level > 0))
		return 1;
	for (size_t c = 0; c < m->nchan; c++)
		if (isfinite(w[c]) && w[c] > 0)
			total += w[c];
	if (!(total > 0))
		return 1;
	/* each channel counts up to its own onset level: a channel that was a
	 * minor part of the onset (a counter a fault starts and its after-effect
	 * keeps going) cannot carry the incident alone once what led it is gone */
	for (size_t i = 0; i < s->noset; i++) {
		double v = w[s->oset[i]], cap = s->onset[s->oset[i]] / (double)s->onset_n;

		if (isfinite(v) && v > 0)
			sum += v < cap ? v : cap;
	}
	return sum >= CONTINUE_LEVEL * s->onset_level;
}

/* Subsystem, shares and top channels from the onset's weights. */
static void summarise(const struct rv_incmerge *m, const struct stretch *s,
		      struct rv_incident *in)
{
	double sub_sum[RV_SUB_COUNT] = { 0 };
	double total = 0, sub_total = 0, best = 0;

	for (size_t c = 0; c < m->nchan; c++)
		total += s->onset[c];
	subsystem_weights(m, s->onset, sub_sum);
	for (int k = 0; k < RV_SUB_COUNT; k++)
		sub_total += sub_sum[k];
	in->mean_score = s->score_sum / (double)in->flagged;
	in->subsystem = RV_SUB_OTHER;
	for (int k = 0; k < RV_SUB_COUNT; k++) {
		in->sub_share[k] = sub_total > 0 ? sub_sum[k] / sub_total : 0.0;
		if (sub_sum[k] > best) {
			best = sub_sum[k];
			in->subsystem = (enum rv_subsystem)k;
		}
	}
	in->ntop = total > 0 ? heaviest(s->onset, m->nchan, in->top, RV_INCIDENT_TOP_MAX) : 0;
	for (size_t i = 0; i < in->ntop; i++)
		in->top_weight[i] = s->onset[in->top[i]] / total;
}

/*
 * Room for the incidents one push or finish may close (the open one, the
 * candidate promoted after it, then that one too), taken before anything
 * changes, so -ENOMEM leaves the merger as it was.
 */
enum { CLOSES_PER_PUSH = 3 };

static int reserve_closed(struct rv_incmerge *m)
{
	if (m->cap - m->nclosed >= CLOSES_PER_PUSH)
		return 0;
	size_t cap = m->cap ? m->cap * 2 : CLOSED_INITIAL_CAP;
	if (cap < m->cap || cap > SIZE_MAX / sizeof(*m->closed))
		return -ENOMEM;
	struct rv_incident *p = realloc(m->closed, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	m->closed = p;
	m->cap = cap;
	return 0;
}

void rv_incmerge_set_gate(struct rv_incmerge *m, double peak, size_t windows)
{
	if (!m)
		return;
	m->gate_peak = peak > 0 && isfinite(peak) ? peak : 0;
	m->gate_windows = windows;
}

void rv_incmerge_set_sustained(struct rv_incmerge *m, size_t windows)
{
	if (m)
		m->sustained_windows = windows;
}

/* Long enough, and strong enough or sustained enough, to be reported. */
static int qualifies(const struct rv_incmerge *m, const struct stretch *s)
{
	const struct rv_incident *in = &s->in;

	if (in->flagged == 0 || in->flagged < m->min_windows)
		return 0;
	if (m->gate_peak <= 0 || in->peak_score > m->gate_peak)
		return 1;
	if (m->sustained_windows > 0 && in->flagged >= m->sustained_windows &&
	    s->excess >= m->gate_peak - 1)
		return 1;
	return m->gate_windows > 0 && in->flagged >= m->gate_windows;
}

/* Keeps s as a closed incident with the next id when it qualifies, else
 * counts it as a dropped blip; s is closed either way. */
static int close_stretch(struct rv_incmerge *m, struct stretch *s)
{
	if (!s->open)
		return 0;
	m->last_closed_id = 0;
	if (!qualifies(m, s)) {
		m->dropped++;
		s->open = 0;
		return 0;
	}
	struct rv_incident *in = &m->closed[m->nclosed];
	*in = s->in;
	summarise(m, s, in);
	in->id = m->next_id++;
	m->last_closed_id = in->id;
	m->last_closed_phase = in->phase;
	m->last_closed_peak = in->peak_score;
	m->nclosed++;
	s->open = 0;
	return 0;
}

/* A candidate that stopped more than max_gap windows before win: an
 * episode of its own beside the open incident, kept or dropped as any. */
static int retire_stale_candidate(struct rv_incmerge *m, size_t win)
{
	if (!m->cand.open || win - m->cand.in.last_win - 1 <= m->max_gap)
		return 0;
	uint64_t id = m->last_closed_id;
	unsigned phase = m->last_closed_phase;
	double peak = m->last_closed_peak;
	int rc = close_stretch(m, &m->cand);

	m->last_closed_id = id;
	m->last_closed_phase = phase;
	m->last_closed_peak = peak;
	return rc;
}

/*
 * After the open incident closed: a candidate still going becomes the open
 * incident, the follow-on phase of the one that closed (when that one was
 * kept, not dropped as a blip).
 */
static int promote_candidate(struct rv_incmerge *m, size_t win)
{
	struct stretch t;
	int rc = retire_stale_candidate(m, win);

	if (rc < 0 || !m->cand.open)
		return rc;
	t = m->cur;
	m->cur = m->cand;
	m->cand = t;
	m->cand.open = 0;
	/* an after-effect is not stronger than its cause: a candidate that
	 * peaked higher than the incident it outlived is an incident of its
	 * own (a new fault that began while a weak incident lasted) */
	if (m->last_closed_id && m->cur.in.peak_score <= m->last_closed_peak) {
		m->cur.in.follows = m->last_closed_id;
		m->cur.in.phase = m->last_closed_phase + 1;
	}
	return 0;
}

int rv_incmerge_peek_open(const struct rv_incmerge *m, struct rv_incident *out)
{
	if (!m || !m->cur.open || !qualifies(m, &m->cur))
		return 0;
	*out = m->cur.in;
	summarise(m, &m->cur, out);
	out->id = m->next_id;
	return 1;
}

void rv_incmerge_forget_closed(struct rv_incmerge *m)
{
	if (m)
		m->nclosed = 0;
}

void rv_incmerge_set_next_id(struct rv_incmerge *m, uint64_t id)
{
	if (m && id > 0)
		m->next_id = id;
}

/* A flagged window the open incident does not explain. */
static int add_candidate(struct rv_incmerge *m, size_t win, double ts, double score,
			 unsigned detectors, const double *w)
{
	int rc = retire_stale_candidate(m, win);

	if (rc < 0)
		return rc;
	if (!m->cand.open)
		stretch_open(m, &m->cand, win, ts);
	stretch_add(m, &m->cand, win, ts, score, detectors, w);
	return 0;
}

/*
 * Closes the open incident once more than max_gap windows passed without
 * one of its own (this one included when it is not), and lets the
 * candidate go on in its place; the new open incident is judged the same
 * way, as it may have stopped too.
 */
static int close_stale(struct rv_incmerge *m, size_t win, int flagged, const double *w)
{
	while (m->cur.open) {
		/* windows never pushed count as unflagged, like pushed ones */
		size_t between = win - m->cur.in.last_win - 1;
		int own = flagged && belongs(m, &m->cur, w);
		int rc;

		if (between < m->max_gap || (own && between == m->max_gap))
			return 0;
		if ((rc = close_stretch(m, &m->cur)) < 0 || (rc = promote_candidate(m, win)) < 0)
			return rc;
	}
	return 0;
}

int rv_incmerge_push(struct rv_incmerge *m, size_t win, double ts, int flagged, double score,
		     unsigned detectors, const double *chan_weight)
{
	if (!m || (m->have_last && win <= m->last_win))
		return -EINVAL;
	int rc = reserve_closed(m);

	if (rc < 0 || (rc = close_stale(m, win, flagged, chan_weight)) < 0)
		return rc;
	if (flagged && m->cur.open && !belongs(m, &m->cur, chan_weight)) {
		if ((rc = add_candidate(m, win, ts, score, detectors, chan_weight)) < 0)
			return rc;
	} else if (flagged) {
		if (!m->cur.open)
			stretch_open(m, &m->cur, win, ts);
		stretch_add(m, &m->cur, win, ts, score, detectors, chan_weight);
	}
	m->have_last = 1;
	m->last_win = win;
	return 0;
}

int rv_incmerge_finish(struct rv_incmerge *m)
{
	if (!m)
		return -EINVAL;
	int rc = reserve_closed(m);

	if (rc >= 0)
		rc = close_stretch(m, &m->cur);
	if (rc >= 0 && m->cand.open)
		rc = promote_candidate(m, m->last_win);
	if (rc >= 0)
		rc = close_stretch(m, &m->cur);
	return rc;
}

int rv_incmerge_open_state(const struct rv_incmerge *m, size_t *first_win, size_t *last_flagged,
			   size_t *flagged)
{
	if (!m || !m->cur.open)
		return 0;
	if (first_win)
		*first_win = m->cur.in.first_win;
	if (last_flagged)
		*last_flagged = m->cur.in.last_win;
	if (flagged)
		*flagged = m->cur.in.flagged;
	return 1;
}

int rv_incmerge_covers(const struct rv_incmerge *m, size_t win)
{
	for (size_t i = m ? m->nclosed : 0; i-- > 0;) {
		if (m->closed[i].last_win < win)
			return 0;
		if (m->closed[i].first_win <= win)
			return 1;
	}
	return 0;
}

size_t rv_incmerge_max_gap(const struct rv_incmerge *m)
{
	return m ? m->max_gap : 0;
}

size_t rv_incmerge_min_windows(const struct rv_incmerge *m)
{
	return m ? m->min_windows : 1;
}

size_t rv_incmerge_count(const struct rv_incmerge *m)
{
	return m ? m->nclosed : 0;
}

const struct rv_incident *rv_incmerge_get(const struct rv_incmerge *m, size_t i)
{
	if (!m || i >= m->nclosed)
		return NULL;
	return &m->closed[i];
}

const char *rv_incmerge_chan_name(const struct rv_incmerge *m, uint32_t c)
{
	return m && c < m->nchan ? m->names[c] : NULL;
}

size_t rv_incmerge_dropped(const struct rv_incmerge *m)
{
	return m ? m->dropped : 0;
}
