/*
 * incident_query.c - what the merger holds (incident.h): the open
 * incidents as they would close now, the closed ones, and which windows
 * are decided.
 */
#include "explain/incident.h"
#include "explain/incident_int.h"

static int peek(const struct rv_incmerge *m, const struct stretch *s, struct rv_incident *out)
{
	if (!s->open || !s->id)
		return 0;
	*out = s->in;
	rv_incmerge_summarise(m, s, out);
	out->id = s->id;
	return 1;
}

int rv_incmerge_peek_open(const struct rv_incmerge *m, struct rv_incident *out)
{
	for (size_t i = 0; m && i < m->nopen; i++)
		if (peek(m, &m->open[i], out))
			return 1;
	return 0;
}

size_t rv_incmerge_peek_all(const struct rv_incmerge *m, struct rv_incident *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; m && i < m->nopen && n < max; i++)
		n += (size_t)peek(m, &m->open[i], &out[n]);
	return n;
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

int rv_incmerge_decided(const struct rv_incmerge *m, size_t win, size_t min, int *anomaly)
{
	int covered = rv_incmerge_covers(m, win);

	for (size_t i = 0; m && i < m->nopen; i++) {
		const struct rv_incident *in = &m->open[i].in;

		if (win < in->first_win)
			continue;
		if (in->flagged < min || win > in->last_win)
			return 0;
		covered = 1;
	}
	*anomaly = covered;
	return 1;
}

int rv_incmerge_covers(const struct rv_incmerge *m, size_t win)
{
	/* closed in order of the window that closed them, which is past each
	 * one's last window: once that is before win, no older one covers it */
	for (size_t i = m ? m->nclosed : 0; i-- > 0;) {
		if (m->closed_at[i] < win && m->closed[i].last_win < win)
			return 0;
		if (m->closed[i].first_win <= win && win <= m->closed[i].last_win)
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
