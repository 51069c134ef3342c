/*
 * incident.c - merging flagged windows into incidents, and writing them out.
 *
 * The merger sees one window at a time and keeps only the open incident's
 * running sums plus one weight per channel, so the live agent and the
 * offline path share it. An incident's top channels and subsystem are
 * decided once, when it closes, from the weights accumulated over all its
 * flagged windows: a single loud window should not name the cause of a long
 * incident. Output is JSON for machines and a fixed-width table for people;
 * both go to a FILE* the caller owns.
 */
#include "explain/incident.h"

#include "base/json.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	CLOSED_INITIAL_CAP = 16,  /* first allocation of the closed-incident array */
	TABLE_TOP_METRICS = 3,    /* metrics named per table row */
	TABLE_DET_WIDTH = 22,     /* detector column: fits "zscore,pca,iforest,spe" */
	ISO_TIME_LEN = 32,        /* "YYYY-MM-DDTHH:MM:SSZ" plus slack */
	PERCENT = 100,
};

struct rv_incmerge {
	size_t nchan;
	const char *const *names;   /* borrowed */
	size_t max_gap, min_windows;
	double gate_peak;           /* peak score reported at once; 0 = no gate */
	size_t gate_windows;        /* flagged windows a weaker one needs; 0 = never */
	unsigned char *chan_sub;    /* enum rv_subsystem per channel, from its name */
	double *acc;                /* per-channel weight of the open incident */

	int open;
	struct rv_incident cur;     /* the open incident, summary fields filled at close */
	double score_sum;

	int have_last;
	size_t last_win;            /* last window pushed, to refuse reordering */

	struct rv_incident *closed;
	size_t nclosed, cap;
	size_t dropped;
	uint64_t next_id;
};

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
	m->acc = calloc(alloc, sizeof(*m->acc));
	if (!m->chan_sub || !m->acc) {
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
	free(m->acc);
	free(m->closed);
	free(m);
}

static void open_incident(struct rv_incmerge *m, size_t win, double ts)
{
	memset(&m->cur, 0, sizeof(m->cur));
	memset(m->acc, 0, m->nchan * sizeof(*m->acc));
	m->cur.first_win = win;
	m->cur.start_ts = ts;
	m->score_sum = 0;
	m->open = 1;
}

static void add_window(struct rv_incmerge *m, size_t win, double ts, double score,
		       unsigned detectors, const double *chan_weight)
{
	struct rv_incident *in = &m->cur;
	if (in->flagged == 0 || score > in->peak_score)
		in->peak_score = score;
	in->flagged++;
	in->last_win = win;
	in->end_ts = ts;
	in->detectors |= detectors;
	m->score_sum += score;
	if (!chan_weight)
		return;
	/* attribution is a magnitude: a negative or broken value carries nothing */
	for (size_t c = 0; c < m->nchan; c++) {
		if (isfinite(chan_weight[c]) && chan_weight[c] > 0)
			m->acc[c] += chan_weight[c];
	}
}

/* Up to RV_INCIDENT_TOP_MAX channels by weight; equal weights keep index order. */
static void pick_top(const struct rv_incmerge *m, struct rv_incident *in, double total)
{
	size_t n = 0;
	for (size_t c = 0; c < m->nchan; c++) {
		if (!(m->acc[c] > 0))
			continue;
		size_t pos = n;
		while (pos > 0 && m->acc[c] > m->acc[in->top[pos - 1]])
			pos--;
		if (pos >= RV_INCIDENT_TOP_MAX)
			continue;
		if (n < RV_INCIDENT_TOP_MAX)
			n++;
		memmove(&in->top[pos + 1], &in->top[pos], (n - 1 - pos) * sizeof(in->top[0]));
		in->top[pos] = (uint32_t)c;
	}
	in->ntop = n;
	for (size_t i = 0; i < n; i++)
		in->top_weight[i] = m->acc[in->top[i]] / total;
}

/*
 * A subsystem's weight is the sum of its SUB_LEADERS heaviest channels, not
 * of all of them: a subsystem with many channels that move together (a
 * family per CPU, the page cache in a dozen gauges) would otherwise
 * outweigh one whose few channels say more. The shares are of the
 * leaders' total.
 */
enum { SUB_LEADERS = 3 };

static void subsystem_weights(const struct rv_incmerge *m, double *sub_sum)
{
	double best[RV_SUB_COUNT][SUB_LEADERS] = { { 0 } };

	for (size_t c = 0; c < m->nchan; c++) {
		double *b = best[m->chan_sub[c]], w = m->acc[c];

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

static void summarise(const struct rv_incmerge *m, struct rv_incident *in)
{
	double sub_sum[RV_SUB_COUNT] = { 0 };
	double total = 0, sub_total = 0;

	for (size_t c = 0; c < m->nchan; c++)
		total += m->acc[c];
	subsystem_weights(m, sub_sum);
	for (int k = 0; k < RV_SUB_COUNT; k++)
		sub_total += sub_sum[k];
	in->mean_score = m->score_sum / (double)in->flagged;
	for (int k = 0; k < RV_SUB_COUNT; k++)
		in->sub_share[k] = sub_total > 0 ? sub_sum[k] / sub_total : 0.0;
	in->subsystem = RV_SUB_OTHER;
	double best = 0;
	for (int s = 0; s < RV_SUB_COUNT; s++) {
		if (sub_sum[s] > best) {
			best = sub_sum[s];
			in->subsystem = (enum rv_subsystem)s;
		}
	}
	in->ntop = 0;
	if (total > 0)
		pick_top(m, in, total);
}

/* Grows before anything changes, so -ENOMEM leaves the merger as it was. */
static int reserve_closed(struct rv_incmerge *m)
{
	if (m->nclosed < m->cap)
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

/* Long enough, and strong enough or sustained enough, to be reported. */
static int qualifies(const struct rv_incmerge *m, const struct rv_incident *in)
{
	if (in->flagged == 0 || in->flagged < m->min_windows)
		return 0;
	if (m->gate_peak <= 0 || in->peak_score > m->gate_peak)
		return 1;
	return m->gate_windows > 0 && in->flagged >= m->gate_windows;
}

static int close_open(struct rv_incmerge *m)
{
	if (!m->open)
		return 0;
	if (!qualifies(m, &m->cur)) {
		m->dropped++;
		m->open = 0;
		return 0;
	}
	int rc = reserve_closed(m);
	if (rc < 0)
		return rc;
	struct rv_incident *in = &m->closed[m->nclosed];
	*in = m->cur;
	summarise(m, in);
	in->id = m->next_id++;
	m->nclosed++;
	m->open = 0;
	return 0;
}

int rv_incmerge_peek_open(const struct rv_incmerge *m, struct rv_incident *out)
{
	if (!m || !m->open || !qualifies(m, &m->cur))
		return 0;
	*out = m->cur;
	summarise(m, out);
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

int rv_incmerge_push(struct rv_incmerge *m, size_t win, double ts, int flagged, double score,
		     unsigned detectors, const double *chan_weight)
{
	if (!m || (m->have_last && win <= m->last_win))
		return -EINVAL;
	if (m->open) {
		/* windows never pushed count as unflagged, like pushed ones */
		size_t between = win - m->cur.last_win - 1;
		if (between > m->max_gap || (!flagged && between >= m->max_gap)) {
			int rc = close_open(m);
			if (rc < 0)
				return rc;
		}
	}
	if (flagged) {
		if (!m->open)
			open_incident(m, win, ts);
		add_window(m, win, ts, score, detectors, chan_weight);
	}
	m->have_last = 1;
	m->last_win = win;
	return 0;
}

int rv_incmerge_finish(struct rv_incmerge *m)
{
	if (!m)
		return -EINVAL;
	return close_open(m);
}

int rv_incmerge_open_state(const struct rv_incmerge *m, size_t *first_win, size_t *last_flagged,
			   size_t *flagged)
{
	if (!m || !m->open)
		return 0;
	if (first_win)
		*first_win = m->cur.first_win;
	if (last_flagged)
		*last_flagged = m->cur.last_win;
	if (flagged)
		*flagged = m->cur.flagged;
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

size_t rv_incmerge_dropped(const struct rv_incmerge *m)
{
	return m ? m->dropped : 0;
}

/* ---- output ---- */

static const char *chan_name(const struct rv_incmerge *m, uint32_t c)
{
	const char *s = c < m->nchan ? m->names[c] : NULL;
	return s ? s : "";
}

/* JSON has no NaN or infinity: such a value is written as null. */
static void json_number(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}

/* Name of detector bit `bit`, or NULL when it has none (written "bit<n>"). */
static const char *det_name(unsigned bit, const char *const *det_names, size_t ndet)
{
	return det_names && bit < ndet ? det_names[bit] : NULL;
}

static void json_detectors(FILE *f, unsigned detectors, const char *const *det_names,
			   size_t ndet)
{
	int first = 1;
	fputc('[', f);
	for (unsigned b = 0; b < sizeof(detectors) * CHAR_BIT; b++) {
		if (!(detectors >> b & 1u))
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		const char *name = det_name(b, det_names, ndet);
		if (name)
			rv_json_fput_str(f, name);
		else
			fprintf(f, "\"bit%u\"", b);
	}
	fputc(']', f);
}

static void json_incident(FILE *f, const struct rv_incmerge *m, const struct rv_incident *in,
			  const char *const *det_names, size_t ndet)
{
	fprintf(f, "{\"id\":%" PRIu64 ",\"start\":", in->id);
	json_number(f, "%.3f", in->start_ts);
	fputs(",\"end\":", f);
	json_number(f, "%.3f", in->end_ts);
	fputs(",\"duration_s\":", f);
	json_number(f, "%.3f", in->end_ts - in->start_ts);
	fprintf(f, ",\"windows\":%zu,\"peak_score\":", in->flagged);
	json_number(f, "%.17g", in->peak_score);
	fputs(",\"mean_score\":", f);
	json_number(f, "%.17g", in->mean_score);
	fputs(",\"detectors\":", f);
	json_detectors(f, in->detectors, det_names, ndet);
	fputs(",\"subsystem\":", f);
	rv_json_fput_str(f, rv_subsystem_name(in->subsystem));
	fputs(",\"top_metrics\":[", f);
	for (size_t i = 0; i < in->ntop; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		rv_json_fput_str(f, chan_name(m, in->top[i]));
		fputs(",\"share\":", f);
		json_number(f, "%.6f", in->top_weight[i]);
		fputc('}', f);
	}
	fputs("]}", f);
}

int rv_incident_write_json(FILE *f, const struct rv_incmerge *m, const char *const *det_names,
			   size_t ndet, size_t window)
{
	if (!f || !m)
		return -EINVAL;
	if (window)
		fprintf(f, "{\"window\":%zu,\"incidents\":[", window);
	else
		fputs("{\"incidents\":[", f);
	for (size_t i = 0; i < m->nclosed; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_incident(f, m, &m->closed[i], det_names, ndet);
	}
	fputs(m->nclosed ? "\n]}\n" : "]}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* "cpu:0.712,mem:0.204": subsystems with at least 1 % of the weight,
 * largest first. */
void rv_incident_rank_subsystems(const struct rv_incident *in, char *buf, size_t cap)
{
	int order[RV_SUB_COUNT], n = 0;
	size_t len = 0;

	for (int k = 0; k < RV_SUB_COUNT; k++) {
		int j = n++;

		for (; j > 0 && in->sub_share[order[j - 1]] < in->sub_share[k]; j--)
			order[j] = order[j - 1];
		order[j] = k;
	}
	buf[0] = '\0';
	for (int i = 0; i < n && len < cap; i++) {
		if (in->sub_share[order[i]] < 0.01)
			break;
		len += (size_t)snprintf(buf + len, cap - len, "%s%s:%.3f", i ? "," : "",
					rv_subsystem_name((enum rv_subsystem)order[i]),
					in->sub_share[order[i]]);
	}
	if (len >= cap)
		buf[0] = '\0';
}

const char *rv_incident_severity(double peak)
{
	return !(peak > RV_SEVERITY_MAJOR) ? "minor" : peak <= RV_SEVERITY_CRITICAL ? "major"
									  : "critical";
}

/*
 * Civil date from days since 1970-01-01 in the proleptic Gregorian calendar
 * (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms"): shift the
 * epoch to 0000-03-01 so leap days fall at the end of the year, then split
 * into 400-year eras of 146097 days.
 */
enum {
	DAYS_0000_03_01_TO_EPOCH = 719468,
	DAYS_PER_ERA = 146097,
	YEARS_PER_ERA = 400,
	SECS_PER_DAY = 86400,
	SECS_PER_HOUR = 3600,
	SECS_PER_MIN = 60,
};
static const double ISO_MIN_TS = -62135596800.0;  /* 0001-01-01T00:00:00Z */
static const double ISO_MAX_TS = 253402300799.0;  /* 9999-12-31T23:59:59Z */

static void civil_from_days(int64_t days, int64_t *y, unsigned *mon, unsigned *d)
{
	int64_t z = days + DAYS_0000_03_01_TO_EPOCH;
	int64_t era = (z >= 0 ? z : z - (DAYS_PER_ERA - 1)) / DAYS_PER_ERA;
	int64_t doe = z - era * DAYS_PER_ERA;                                   /* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;    /* [0, 399] */
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                  /* [0, 365] */
	int64_t mp = (5 * doy + 2) / 153;                                       /* [0, 11], 0 = March */
	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*mon = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * YEARS_PER_ERA + (*mon <= 2);
}

/* "2023-11-14T22:13:20Z" (seconds truncated towards the past), or the raw
 * number when ts is outside years 1..9999. */
static void format_iso_utc(double ts, char *buf, size_t len)
{
	if (!(ts >= ISO_MIN_TS && ts <= ISO_MAX_TS)) {
		snprintf(buf, len, "%.3f", ts);
		return;
	}
	int64_t secs = (int64_t)floor(ts);
	int64_t days = secs / SECS_PER_DAY;
	int64_t sod = secs % SECS_PER_DAY;
	if (sod < 0) {
		sod += SECS_PER_DAY;
		days--;
	}
	int64_t y;
	unsigned mon, d;
	civil_from_days(days, &y, &mon, &d);
	snprintf(buf, len, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02uZ", y, mon, d,
		 (unsigned)(sod / SECS_PER_HOUR), (unsigned)(sod % SECS_PER_HOUR / SECS_PER_MIN),
		 (unsigned)(sod % SECS_PER_MIN));
}

static void table_detectors(FILE *f, unsigned detectors, const char *const *det_names,
			    size_t ndet)
{
	int width = 0;
	for (unsigned b = 0; b < sizeof(detectors) * CHAR_BIT; b++) {
		if (!(detectors >> b & 1u))
			continue;
		if (width > 0)
			width += fprintf(f, ",");
		const char *name = det_name(b, det_names, ndet);
		int n = name ? fprintf(f, "%s", name) : fprintf(f, "bit%u", b);
		width += n > 0 ? n : 0;
	}
	if (width == 0)
		width = fprintf(f, "-");
	fprintf(f, "%*s", width < TABLE_DET_WIDTH ? TABLE_DET_WIDTH - width : 0, "");
}

static void table_row(FILE *f, const struct rv_incmerge *m, const struct rv_incident *in,
		      const char *const *det_names, size_t ndet)
{
	char start[ISO_TIME_LEN];
	format_iso_utc(in->start_ts, start, sizeof(start));
	fprintf(f, "%-4" PRIu64 " %-20s %9.1fs %7zu %10.3f  ", in->id, start,
		in->end_ts - in->start_ts, in->flagged, in->peak_score);
	table_detectors(f, in->detectors, det_names, ndet);
	fprintf(f, "  %-9s ", rv_subsystem_name(in->subsystem));
	size_t n = in->ntop < TABLE_TOP_METRICS ? in->ntop : TABLE_TOP_METRICS;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s (%.0f%%)", i ? ", " : "", chan_name(m, in->top[i]),
			in->top_weight[i] * PERCENT);
	fputs(n ? "\n" : "-\n", f);
}

int rv_incident_write_table(FILE *f, const struct rv_incmerge *m, const char *const *det_names,
			    size_t ndet)
{
	if (!f || !m)
		return -EINVAL;
	if (m->nclosed == 0) {
		fputs("no incidents\n", f);
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, "%-4s %-20s %10s %7s %10s  %-*s  %-9s %s\n", "id", "start", "duration",
		"windows", "peak", TABLE_DET_WIDTH, "detectors", "subsystem", "top metrics");
	for (size_t i = 0; i < m->nclosed; i++)
		table_row(f, m, &m->closed[i], det_names, ndet);
	return ferror(f) ? -EIO : 0;
}
