/*
 * incident.c - merging flagged windows into incidents (incident.h).
 *
 * The merger sees one window at a time and keeps stretches of flagged
 * windows: up to RV_INCMERGE_OPEN_MAX open incidents and one candidate of
 * the windows they do not explain (or of a new onset inside them). Each
 * keeps its running sums and per-channel weights (onset, recent profile),
 * so the live agent and the offline path share it. The onset's heaviest
 * channels decide what continues an incident (CONTINUE_LEVEL of their
 * onset weight: strong enough to open, a quarter of that to go on).
 */
#include "explain/incident.h"
#include "explain/incident_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The onset channels: the heaviest ones, until they hold this much of the
 * onset's weight. */
static const double ONSET_COVER = 0.8;

/*
 * A new onset inside open incidents: a flagged window whose score is at
 * least SPLIT_SCORE times their recent score (and above 1), in which the
 * channels that grew to at least SPLIT_GROW times their recent weight
 * carry their excess mostly (SPLIT_SHARE) outside the incidents' onset
 * channels. It goes to the candidate too, with those channels' excess as
 * its weights. Growth, not weight, decides: a channel whose attribution
 * scales with the whole window (an event counter never seen while
 * learning) grows like the score, a new fault's channels by far more.
 * RECENT_ALPHA: the weight of each new window in the recent score and
 * profile (exponential averages).
 */
static const double SPLIT_SCORE = 2.0;
static const double SPLIT_GROW = 4.0;
static const double SPLIT_SHARE = 0.5;
static const double RECENT_ALPHA = 0.2;

static int stretch_init(struct stretch *s, size_t n)
{
	s->acc = calloc(n, sizeof(*s->acc));
	s->onset = calloc(n, sizeof(*s->onset));
	s->recent = calloc(n, sizeof(*s->recent));
	s->hist = calloc(n * ONSET_MAX, sizeof(*s->hist));
	s->persist = calloc(n, 1);
	s->matter = calloc(n, sizeof(*s->matter));
	return s->acc && s->onset && s->recent && s->hist && s->persist && s->matter ? 0 : -ENOMEM;
}

static void stretch_fini(struct stretch *s)
{
	free(s->acc);
	free(s->onset);
	free(s->recent);
	free(s->hist);
	free(s->persist);
	free(s->matter);
}

int rv_incmerge_new(size_t nchan, const char *const *names, size_t max_gap, size_t min_windows,
		    struct rv_incmerge **out, struct rv_err *err)
{
	*out = NULL;
	if ((nchan > 0 && !names) || nchan > UINT32_MAX)
		return rv_err_set(err, -EINVAL, "incident merger: %zu channels %s", nchan,
				  names ? "are more than it counts" : "without names");
	struct rv_incmerge *m = calloc(1, sizeof(*m));
	if (!m)
		return rv_err_set(err, -ENOMEM, "out of memory");
	/* one element at least, so nchan == 0 does not look like a failure */
	size_t alloc = nchan ? nchan : 1;
	int rc = 0;

	m->chan_sub = calloc(alloc, sizeof(*m->chan_sub));
	m->effect = calloc(alloc, sizeof(*m->effect));
	m->cause = calloc(alloc, sizeof(*m->cause));
	m->sub_eff = calloc(alloc, sizeof(*m->sub_eff));
	m->kept = calloc(alloc, sizeof(*m->kept));
	m->split = calloc(alloc, sizeof(*m->split));
	m->sumw = calloc(alloc, sizeof(*m->sumw));
	m->stock = calloc(alloc, sizeof(*m->stock));
	m->mw = calloc(alloc, sizeof(*m->mw));
	for (size_t i = 0; i < RV_INCMERGE_OPEN_MAX; i++)
		rc |= stretch_init(&m->open[i], alloc);
	rc |= stretch_init(&m->cand, alloc);
	if (!m->chan_sub || !m->effect || !m->cause || !m->sub_eff || !m->kept || !m->split ||
	    !m->sumw || !m->stock || !m->mw || rc) {
		rv_incmerge_free(m);
		return rv_err_set(err, -ENOMEM, "out of memory");
	}
	m->nchan = nchan;
	m->names = names;
	m->max_gap = max_gap;
	m->min_windows = min_windows;
	m->next_id = 1;
	for (size_t c = 0; c < nchan; c++) {
		enum rv_subsystem es = RV_SUB_OTHER;
		int k = rv_catalog_effect(names[c], &es);

		m->chan_sub[c] = (unsigned char)rv_catalog_subsystem(names[c]);
		m->effect[c] = (signed char)k;
		if (k >= 0)
			m->effect_sub[k] = (unsigned char)es;
		for (int j = 0; j < RV_CATALOG_EFFECTS; j++)
			m->cause[c] |= (unsigned char)(rv_catalog_effect_cause(names[c], j) << j);
		m->kept[c] = (unsigned char)rv_catalog_kept(names[c]);
		m->stock[c] = (unsigned char)rv_catalog_stock(names[c]);
	}
	*out = m;
	return 0;
}

void rv_incmerge_free(struct rv_incmerge *m)
{
	if (!m)
		return;
	free(m->chan_sub);
	free(m->effect);
	free(m->cause);
	free(m->sub_eff);
	free(m->kept);
	free(m->split);
	free(m->sumw);
	free(m->stock);
	free(m->mw);
	for (size_t i = 0; i < RV_INCMERGE_OPEN_MAX; i++)
		stretch_fini(&m->open[i]);
	stretch_fini(&m->cand);
	free(m->closed);
	free(m->closed_at);
	free(m);
}

static void stretch_open(const struct rv_incmerge *m, struct stretch *s, size_t win, double ts)
{
	double *acc = s->acc, *onset = s->onset, *recent = s->recent, *hist = s->hist;
	uint8_t *persist = s->persist;
	float *matter = s->matter;

	memset(s, 0, sizeof(*s));
	s->persist = persist;
	s->matter = matter;
	memset(matter, 0, m->nchan * sizeof(*matter));
	s->acc = acc;
	s->onset = onset;
	s->recent = recent;
	s->hist = hist;
	memset(acc, 0, m->nchan * sizeof(*acc));
	memset(onset, 0, m->nchan * sizeof(*onset));
	memset(recent, 0, m->nchan * sizeof(*recent));
	s->in.first_win = win;
	s->in.start_ts = ts;
	s->in.phase = 1;
	s->open = 1;
}

/*
 * Channels of the onset that do not last are its start-up or bursts beside
 * it, not what the incident is about: a noisy neighbour's binary paged in
 * from disk before it takes the CPU, the writes of whoever reacts to the
 * incident. A channel lasts when it carries CONTINUE_LEVEL of its onset
 * weight per window in one of the onset's last two windows and in at
 * least half of its windows. Two windows, not one: weights are shares of
 * each window, so one window that another subsystem leads (the job's
 * traffic catching up while a CPU hog lasts) pushes the hog's channels
 * below their level without them being gone. The others leave the onset,
 * unless nothing would stay.
 */
static int onset_lasts(const struct rv_incmerge *m, const struct stretch *s, size_t c)
{
	const double level = CONTINUE_LEVEL * s->onset[c] / (double)s->onset_n;
	size_t present = 0, recent = 0;

	for (size_t k = 0; k < s->nhist; k++) {
		double v = s->hist[k * m->nchan + c];

		if (v >= level) {
			present++;
			recent += k + 2 >= s->nhist;
		}
	}
	return recent > 0 && 2 * present >= s->nhist;
}

static void drop_transients(const struct rv_incmerge *m, struct stretch *s)
{
	double kept = 0;

	if (!s->have_last || !s->onset_n || !s->nhist)
		return;
	for (size_t c = 0; c < m->nchan; c++) {
		m->sumw[c] = s->onset[c] > 0 && onset_lasts(m, s, c);
		if (m->sumw[c] > 0)
			kept += s->onset[c];
	}
	for (size_t c = 0; kept > 0 && c < m->nchan; c++)
		if (!(m->sumw[c] > 0))
			s->onset[c] = 0;
}

/* Freezes the onset at its last window: its lasting channels, and of them
 * those that hold ONSET_COVER of its weight. The onset level, what later
 * windows must carry to continue the incident (belongs), leaves out the
 * kept-memory channels: their weight says that memory was taken at the
 * onset (pipeline/kept.h), and fades once the rise is older than the
 * lookback however long the program that took it runs; the incident goes
 * on with its other onset channels. */
static void onset_freeze(const struct rv_incmerge *m, struct stretch *s)
{
	uint32_t top[ONSET_CHANNELS];
	size_t n;
	double total = 0, sum = 0, level = 0;

	drop_transients(m, s);
	n = rv_incmerge_heaviest(s->onset, m->nchan, top, ONSET_CHANNELS);
	for (size_t c = 0; c < m->nchan; c++)
		total += s->onset[c];
	s->noset = 0;
	for (size_t i = 0; i < n && sum < ONSET_COVER * total; i++) {
		s->oset[s->noset++] = top[i];
		sum += s->onset[top[i]];
		if (!m->kept[top[i]])
			level += s->onset[top[i]];
	}
	s->onset_level = s->onset_n ? level / (double)s->onset_n : 0;
	s->onset_done = 1;
	for (size_t c = 0; c < m->nchan; c++)
		s->recent[c] = s->onset_n ? s->onset[c] / (double)s->onset_n : 0;
	s->recent_score = s->score_sum / (double)s->in.flagged;
}

/* The recent profile after the onset: an exponential average of the
 * windows it takes. */
static void recent_add(const struct rv_incmerge *m, struct stretch *s, double score,
		       const double *w)
{
	s->recent_score += RECENT_ALPHA * (score - s->recent_score);
	for (size_t c = 0; w && c < m->nchan; c++) {
		double v = isfinite(w[c]) && w[c] > 0 ? w[c] : 0;

		s->recent[c] += RECENT_ALPHA * (v - s->recent[c]);
	}
}

/*
 * With a gate, an incident begins at its first material window: flagged
 * windows before it whose channels moved less than could matter (the
 * detectors' view of a quiet host's noise, a file read back) are no part
 * of its onset, and would put their channels in its blame. A stretch that
 * has had none starts afresh there, keeping its place (a follow-on phase
 * stays one), its length so far (min_windows counts every flagged
 * window of it: one that lasted is no blip) and its lasting windows (the
 * burst rule judges the whole stretch). So does a stretch not
 * reported yet, all of whose windows were weak (at or below the gate's
 * peak), at its first strong material window: a fault that begins within
 * a few windows of a weak stretch of something else (pages read back,
 * the background's swings) is blamed on what it moves, not on what
 * lingered in those weak windows at a level of its own.
 */
static void stretch_restart(const struct rv_incmerge *m, struct stretch *s,
			    const struct rv_incwin *p)
{
	struct stretch keep = *s;

	stretch_open(m, s, p->win, p->ts);
	s->in.phase = keep.in.phase;
	s->in.follows = keep.in.follows;
	s->cause_peak = keep.cause_peak;
	s->alone = keep.alone;
	s->split = keep.split;
	s->prefix = keep.prefix + keep.in.flagged;
	s->lasting = keep.lasting;
}

/* Whether p begins s afresh (stretch_restart): with a gate, in a stretch
 * not reported yet, its first material window, and its first strong one
 * (above the gate's peak) after nothing but weak ones. */
static int restarts(const struct rv_incmerge *m, const struct stretch *s,
		    const struct rv_incwin *p)
{
	if (!(m->gate_peak > 0) || p->immaterial || s->id || s->in.flagged == 0)
		return 0;
	return s->material == 0 || (p->score > m->gate_peak && s->in.peak_score <= m->gate_peak);
}

static void stretch_add(const struct rv_incmerge *m, struct stretch *s, const struct rv_incwin *p,
			const double *chan_weight)
{
	struct rv_incident *in = &s->in;
	double score = p->score;
	int peak;

	if (restarts(m, s, p))
		stretch_restart(m, s, p);
	peak = in->flagged == 0 || score > in->peak_score;

	if (peak)
		in->peak_score = score;
	/* an after-effect is not stronger than its cause: a follow-on phase
	 * that outgrows the incident it follows is an incident of its own */
	if (in->follows && in->peak_score > s->cause_peak) {
		in->follows = 0;
		in->phase = 1;
	}
	in->flagged++;
	in->last_win = p->win;
	in->end_ts = p->ts;
	in->detectors |= p->detectors;
	s->score_sum += score;
	s->lasting += p->lasting != 0;
	if (!p->immaterial) {
		double strong = p->strength > score ? p->strength : score;

		if (s->material++ == 0 || strong > s->mat_peak)
			s->mat_peak = strong;
		/* a sustained anomaly is one whose evidence lasts: a page-in
		 * of a second flags the few windows that hold it, each a burst */
		if (p->lasting) {
			s->mat_lasting++;
			if (strong > 1)
				s->mat_excess += strong - 1;
		}
	}
	if (s->onset_done) {
		recent_add(m, s, score, chan_weight);
		return;
	}
	/* attribution is a magnitude: a negative or broken value carries
	 * nothing. The onset has fewer than ONSET_MAX windows until here, so
	 * there is room for this one. */
	s->have_last = chan_weight != NULL;
	s->have_persist = chan_weight && p->persist;
	if (s->have_persist)
		memcpy(s->persist, p->persist, m->nchan);
	if (chan_weight && p->matter) {
		s->have_matter = 1;
		for (size_t c = 0; c < m->nchan; c++)
			if (p->matter[c] > s->matter[c])
				s->matter[c] = p->matter[c];
	}
	if (chan_weight) {
		double *row = s->hist + s->nhist++ * m->nchan;

		for (size_t c = 0; c < m->nchan; c++) {
			double v = isfinite(chan_weight[c]) && chan_weight[c] > 0 ? chan_weight[c] : 0;

			s->acc[c] += v;
			row[c] = v;
		}
	}
	if (in->flagged <= ONSET_MIN || peak) {
		memcpy(s->onset, s->acc, m->nchan * sizeof(*s->onset));
		s->onset_n = in->flagged;
	}
	if (in->flagged >= ONSET_MAX)
		onset_freeze(m, s);
}

/*
 * Whether a flagged window continues the open incident: always during the
 * onset, and after it while the onset channels carry CONTINUE_LEVEL of
 * their onset weight per window, each channel counted up to its own onset
 * weight per window, kept-memory channels left out (onset_freeze). A
 * window without attribution cannot be judged and continues it.
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

		if (m->kept[s->oset[i]])
			continue;       /* not in the onset level either (onset_freeze) */
		if (isfinite(v) && v > 0)
			sum += v < cap ? v : cap;
	}
	return sum >= CONTINUE_LEVEL * s->onset_level;
}

/*
 * Room for the incidents one push or finish may close (every open one, the
 * candidate retired or promoted after each, and the candidate at the end),
 * taken before anything changes, so -ENOMEM leaves the merger as it was.
 */
enum { CLOSES_PER_PUSH = 2 * RV_INCMERGE_OPEN_MAX + 2 };

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
	size_t *at = realloc(m->closed_at, cap * sizeof(*at));
	if (!at)
		return -ENOMEM;     /* closed grew: harmless, cap stays */
	m->closed_at = at;
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

void rv_incmerge_set_bursts(struct rv_incmerge *m, size_t windows)
{
	if (m)
		m->burst_windows = windows;
}

void rv_incmerge_set_sustained(struct rv_incmerge *m, size_t windows)
{
	if (m)
		m->sustained_windows = windows;
}

/* Long enough, and strong enough or sustained enough, to be reported; with
 * a gate, on the strength and length of its material windows alone. */
static int qualifies(const struct rv_incmerge *m, const struct stretch *s)
{
	const struct rv_incident *in = &s->in;

	if (in->flagged == 0 || in->flagged + s->prefix < m->min_windows)
		return 0;
	if (m->gate_peak <= 0)
		return 1;
	if (s->material == 0)
		return 0;
	if (m->burst_windows > 0 && s->lasting == 0)
		return in->flagged >= m->burst_windows;
	if (s->mat_peak > m->gate_peak)
		return 1;
	if (m->sustained_windows > 0 && s->mat_lasting >= m->sustained_windows &&
	    s->mat_excess >= m->gate_peak - 1)
		return 1;
	return m->gate_windows > 0 && s->material >= m->gate_windows;
}

/* Keeps s as a closed incident (its id, or the next one) when it
 * qualifies, else counts it as a dropped blip; s is closed either way. */
static int close_stretch(struct rv_incmerge *m, struct stretch *s, size_t win)
{
	if (!s->open)
		return 0;
	m->last_closed_id = 0;
	if (!qualifies(m, s)) {
		/* a new onset that never qualified lay inside incidents: no blip */
		m->dropped += s->alone > 0;
		s->open = 0;
		return 0;
	}
	struct rv_incident *in = &m->closed[m->nclosed];
	*in = s->in;
	rv_incmerge_summarise(m, s, in);
	in->id = s->id ? s->id : m->next_id++;
	m->closed_at[m->nclosed] = win;
	m->last_closed_id = in->id;
	m->last_closed_phase = in->phase;
	m->last_closed_peak = in->peak_score;
	m->nclosed++;
	s->open = 0;
	return 0;
}

/* A candidate that stopped more than max_gap windows before win: an
 * episode of its own beside the open incidents, kept or dropped as any. */
static int retire_stale_candidate(struct rv_incmerge *m, size_t win)
{
	if (!m->cand.open || win - m->cand.in.last_win - 1 <= m->max_gap)
		return 0;
	uint64_t id = m->last_closed_id;
	unsigned phase = m->last_closed_phase;
	double peak = m->last_closed_peak;
	int rc = close_stretch(m, &m->cand, win);

	m->last_closed_id = id;
	m->last_closed_phase = phase;
	m->last_closed_peak = peak;
	return rc;
}

/* s is the follow-on phase of the incident id (phase, peak) when that one
 * was kept and s is not the stronger: an after-effect is not stronger
 * than its cause (a new fault that began while a weak incident lasted is
 * an incident of its own, also when it outgrows that one later:
 * stretch_add). */
static void follow_on(struct stretch *s, uint64_t id, unsigned phase, double peak)
{
	if (id && s->in.peak_score <= peak) {
		s->in.follows = id;
		s->in.phase = phase + 1;
		s->cause_peak = peak;
	}
}

/* The candidate becomes the newest open incident (a free slot exists). */
static void cand_to_open(struct rv_incmerge *m)
{
	struct stretch t = m->open[m->nopen];

	m->open[m->nopen++] = m->cand;
	m->cand = t;
	m->cand.open = 0;
}

/* Removes open incident i (closed already), keeping the others in order. */
static void drop_open(struct rv_incmerge *m, size_t i)
{
	struct stretch t = m->open[i];

	memmove(&m->open[i], &m->open[i + 1], (m->nopen - 1 - i) * sizeof(m->open[0]));
	m->open[--m->nopen] = t;
}

/*
 * After an open incident closed: a candidate still going becomes an open
 * incident, the follow-on phase of the one that closed (when that one was
 * kept, not dropped as a blip).
 */
static int promote_candidate(struct rv_incmerge *m, size_t win)
{
	int rc = retire_stale_candidate(m, win);

	if (rc < 0 || !m->cand.open || m->nopen == RV_INCMERGE_OPEN_MAX)
		return rc;
	cand_to_open(m);
	follow_on(&m->open[m->nopen - 1], m->last_closed_id, m->last_closed_phase,
		  m->last_closed_peak);
	return 0;
}

/* A flagged window (or its split part, weights w) the open incidents do
 * not explain. */
static int add_candidate(struct rv_incmerge *m, const struct rv_incwin *p, const double *w,
			 int alone)
{
	int rc = retire_stale_candidate(m, p->win);

	if (rc < 0)
		return rc;
	if (!m->cand.open)
		stretch_open(m, &m->cand, p->win, p->ts);
	stretch_add(m, &m->cand, p, w);
	m->cand.alone += (size_t)alone;
	m->cand.split += (size_t)!alone;
	return 0;
}

/*
 * Closes each open incident once more than max_gap windows passed without
 * one of its own (this one included when it is not), and lets the
 * candidate go on in its place; an incident promoted so is judged the same
 * way, as it may have stopped too.
 */
static int close_stale(struct rv_incmerge *m, size_t win, int flagged, const double *w)
{
	for (size_t i = 0; i < m->nopen;) {
		struct stretch *s = &m->open[i];
		/* windows never pushed count as unflagged, like pushed ones */
		size_t between = win - s->in.last_win - 1;
		int own = flagged && belongs(m, s, w);
		int rc;

		if (between < m->max_gap || (own && between == m->max_gap)) {
			i++;
			continue;
		}
		if ((rc = close_stretch(m, s, win)) < 0)
			return rc;
		drop_open(m, i);
		if ((rc = promote_candidate(m, win)) < 0)
			return rc;
	}
	return 0;
}

/*
 * Whether a window the open incidents own[] take holds a new onset as
 * well (see SPLIT_SCORE): fills m->split with the excess of the channels
 * that grew SPLIT_GROW-fold outside their onset channels and returns 1,
 * else 0.
 */
static int split_window(struct rv_incmerge *m, const int *own, double score, const double *w)
{
	double recent = 0, outside = 0, inside = 0;

	if (!w || !(score > 1))
		return 0;
	for (size_t i = 0; i < m->nopen; i++) {
		if (!own[i])
			continue;
		if (!m->open[i].onset_done)
			return 0;         /* its onset still gathers: not yet comparable */
		if (m->open[i].recent_score > recent)
			recent = m->open[i].recent_score;
	}
	if (!(score >= SPLIT_SCORE * recent))
		return 0;
	for (size_t c = 0; c < m->nchan; c++) {
		double base = 0, v = isfinite(w[c]) && w[c] > 0 ? w[c] : 0;
		int onset = 0;

		for (size_t i = 0; i < m->nopen; i++) {
			if (!own[i])
				continue;
			base += m->open[i].recent[c];
			for (size_t k = 0; k < m->open[i].noset; k++)
				onset |= m->open[i].oset[k] == c;
		}
		m->split[c] = 0;
		if (!(v > 0) || v < SPLIT_GROW * base)
			continue;
		if (onset) {
			inside += v - base;
		} else {
			m->split[c] = v - base;
			outside += v - base;
		}
	}
	return outside > 0 && outside >= SPLIT_SHARE * (inside + outside);
}

/* Ids for the open incidents that now qualify: in the order they do. */
static void claim_ids(struct rv_incmerge *m)
{
	for (size_t i = 0; i < m->nopen; i++)
		if (!m->open[i].id && qualifies(m, &m->open[i]))
			m->open[i].id = m->next_id++;
}

/* A flagged window: to the open incidents it belongs to, and to the
 * candidate when none takes it or it holds a new onset. */
static int add_flagged(struct rv_incmerge *m, const struct rv_incwin *p)
{
	int own[RV_INCMERGE_OPEN_MAX] = { 0 }, nown = 0, rc = 0;
	const double *w = p->weight;

	if (m->nopen == 0) {
		stretch_open(m, &m->open[0], p->win, p->ts);
		m->nopen = 1;
		stretch_add(m, &m->open[0], p, w);
		m->open[0].alone = 1;
		return 0;
	}
	for (size_t i = 0; i < m->nopen; i++)
		nown += own[i] = belongs(m, &m->open[i], w);
	if (nown == 0)
		rc = add_candidate(m, p, w, 1);
	else if (split_window(m, own, p->score, w))
		rc = add_candidate(m, p, m->split, 0);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < m->nopen; i++)
		if (own[i])
			stretch_add(m, &m->open[i], p, w);
	/* a candidate that qualifies opens beside the open incidents: a new
	 * onset inside them (split windows) as an incident of its own; windows
	 * they stopped taking as the follow-on phase of the newest of them,
	 * unless it is the stronger one */
	if (m->cand.open && m->nopen < RV_INCMERGE_OPEN_MAX && qualifies(m, &m->cand)) {
		const struct stretch *cause = &m->open[m->nopen - 1];
		int split = m->cand.split > 0;

		cand_to_open(m);
		if (!split)
			follow_on(&m->open[m->nopen - 1], cause->id, cause->in.phase,
				  cause->in.peak_score);
	}
	return 0;
}

/*
 * The weights of a window judged immaterial (its heavier channels moved
 * less than could matter), each rate's times the share of its
 * materiality floor it moved in the window (p->matter), scaled back to
 * their total: how the window's anomaly divides among what moved enough
 * to matter. A rate learnt near constant (a quiet host's loopback
 * softirqs, which a CPU hog moves to the other CPU by a few packets a
 * second) lies far outside its spread and takes most of such a window's
 * attribution while it moves a hundredth of what could matter; as a
 * share it would crush the channels the incident is about in each window
 * it lasts, and the onset, what continues the incident and what closes
 * it are judged on shares. A stock is left as it is: its matter is how
 * far it moved within the window, not how far it lies from what was
 * learnt (memory a leak took and holds). A material window's weights, or
 * a window without matter, or one where no rate moved: as they are; the
 * blame weighs every channel by its matter over the onset
 * (incident_blame.c).
 */
static const double *material_weights(struct rv_incmerge *m, const struct rv_incwin *p)
{
	double total = 0, moved = 0;

	if (!p->weight || !p->matter || !p->immaterial)
		return p->weight;
	for (size_t c = 0; c < m->nchan; c++) {
		double v = isfinite(p->weight[c]) && p->weight[c] > 0 ? p->weight[c] : 0;
		double f = m->stock[c] ? 1.0 : p->matter[c];

		f = f > 0 ? (f < 1 ? f : 1) : 0;
		total += v;
		moved += m->mw[c] = v * f;
	}
	if (!(moved > 0))
		return p->weight;
	for (size_t c = 0; c < m->nchan; c++)
		m->mw[c] *= total / moved;
	return m->mw;
}

int rv_incmerge_push_win(struct rv_incmerge *m, const struct rv_incwin *w)
{
	if (!m || !w || (m->have_last && w->win <= m->last_win))
		return -EINVAL;
	int rc = reserve_closed(m);
	struct rv_incwin q = *w;
	const struct rv_incwin *p = &q;

	q.weight = material_weights(m, w);
	if (rc < 0 || (rc = close_stale(m, p->win, p->flagged, p->weight)) < 0)
		return rc;
	if (p->flagged && (rc = add_flagged(m, p)) < 0)
		return rc;
	claim_ids(m);
	m->have_last = 1;
	m->last_win = p->win;
	return 0;
}

int rv_incmerge_push(struct rv_incmerge *m, size_t win, double ts, int flagged, double score,
		     unsigned detectors, const double *chan_weight)
{
	struct rv_incwin p = { .win = win, .ts = ts, .flagged = flagged, .score = score,
			       .detectors = detectors, .weight = chan_weight, .lasting = 1 };

	return rv_incmerge_push_win(m, &p);
}

int rv_incmerge_finish(struct rv_incmerge *m)
{
	if (!m)
		return -EINVAL;
	int rc = reserve_closed(m);
	size_t win = m->last_win;

	/* the oldest first; the candidate follows the last one to close */
	while (rc >= 0 && m->nopen) {
		rc = close_stretch(m, &m->open[0], win);
		drop_open(m, 0);
		if (rc >= 0 && !m->nopen && m->cand.open) {
			rc = promote_candidate(m, win);
		}
	}
	if (rc >= 0)
		rc = close_stretch(m, &m->cand, win);
	return rc;
}
