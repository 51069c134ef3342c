/*
 * report.c - rv_fleet_report (fleet.h): `reveal fleet`'s findings for the
 * SRE who decides which node to drain or fix, in the formats of `reveal
 * report`; and what all four formats share (report_int.h): formatting,
 * the order of the sections, the showing of untrusted text. The verdict's
 * sentences are report_say.c; the formats report_text.c, report_md.c,
 * report_json.c and report_html.c with report_svg.c.
 *
 * Every format says the same, in the same order: a header (the range,
 * the storage and selector, the grouping, the windows, the straggler
 * rule), the verdict first (report_say.c), the stragglers (their stretches
 * and the signals that set them apart, the node's value beside its peers'
 * median), the configuration drift (the odd nodes against the majority,
 * or every value of a split), and the groups. Numbers are written for
 * people: three significant digits, SI prefixes, binary ones for byte
 * channels, "n/a" rather than a made-up value; JSON keeps them as numbers.
 *
 * The JSON document (report_json.c), keys always in this order; times
 * come as unix seconds (`*_ts`) and as ISO-8601 text beside them; a number
 * that is not finite, and a string that is missing, is null:
 *
 * {"fleet": {"url", "selector", "group_by", "since_ts", "since",
 *            "until_ts", "until", "duration_s", "t0_ts", "t0", "step_s",
 *            "windows", "nodes", "channels", "groups", "threshold",
 *            "persist_windows", "persist_s", "small_groups", "requests",
 *            "bytes", "read_s", "analyse_s"},
 *  "verdict": {"findings", "stragglers", "drift", "headline",
 *              "sentences": [one per finding, then the small groups']},
 *  "stragglers": [{"group", "node", "peak",
 *                  "stretches": [{"start_ts", "start", "end_ts", "end",
 *                                 "duration_s", "peak"}],
 *                  "signals": [{"channel", "value", "median", "diff",
 *                               "ratio", "diff_text", "z", "plotted"}]}],
 *  "drift": [{"group", "key", "split", "majority", "majority_nodes",
 *             "nodes", "tolerance",
 *             "odd": [{"node", "value"}]}],
 *  "groups": [{"name", "nodes", "flagged", "small",
 *              "members": [{"node", "straggler"}]}]}
 *
 * "diff" is value - median; "ratio" value / median (null when the median
 * is 0); "diff_text" what the other formats show. A drift finding's
 * "majority" is null for a split (no value on a majority of the nodes),
 * and "odd" then lists every node; an odd node's "value" is null when it
 * lacks the fact. "tolerance" is 0 when values must match exactly. The
 * plots' series and the heat maps' scores are in the HTML only.
 */
#include "fleet/report_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "base/utf8.h"

enum {
	SECS_MIN = 60,
	SECS_HOUR = 3600,
	SECS_DAY = 86400,
	NPREFIX = 7,             /* "", k, M, G, T, P, E */
	TICK_DECIMALS_MAX = 9,
	PERCENT = 100,
	ASCII_DEL = 0x7f,
};
static const char REPLACEMENT[] = "\xEF\xBF\xBD";  /* U+FFFD */
static const double ISO_FIRST = -62135596800.0;  /* 0001-01-01T00:00:00Z */
static const double ISO_LAST = 253402300799.0;   /* 9999-12-31T23:59:59Z */
static const double LONG_S = 1e9;                /* durations beyond: plain seconds */
static const double RATIO_SHOWN = 2;             /* from here a ratio reads better than % */

static const char *const si_names[NPREFIX] = { "", " k", " M", " G", " T", " P", " E" };
static const char *const iec_names[NPREFIX] = { " B", " KiB", " MiB", " GiB", " TiB", " PiB",
						" EiB" };

typedef int (*fleet_writer)(FILE *f, const struct rv_fleet_result *r);

static const fleet_writer writers[] = {
	[RV_FLEET_TEXT] = rv_fleet_rep_text,
	[RV_FLEET_MARKDOWN] = rv_fleet_rep_markdown,
	[RV_FLEET_JSON] = rv_fleet_rep_json,
	[RV_FLEET_HTML] = rv_fleet_rep_html,
};
enum { NWRITERS = sizeof(writers) / sizeof(writers[0]) };
_Static_assert(NWRITERS == RV_FLEET_HTML + 1, "a writer per format");

int rv_fleet_report(FILE *f, const struct rv_fleet_result *r, enum rv_fleet_format fmt)
{
	if (!f || !r || (unsigned)fmt >= NWRITERS)
		return -EINVAL;
	int rc = writers[fmt](f, r);
	if (rc < 0)
		return rc;
	return ferror(f) ? -EIO : 0;
}

const char *rv_fleet_rep_str(const char *s)
{
	return s ? s : "";
}

const char *rv_fleet_rep_group(const char *name)
{
	return name && *name ? name : "(unlabelled)";
}

const char *rv_fleet_rep_value(const char *v)
{
	return v && *v ? v : "absent";
}

static int utc(double ts, struct tm *tm)
{
	if (!isfinite(ts) || ts < ISO_FIRST || ts > ISO_LAST)
		return 0;
	time_t t = (time_t)floor(ts);
	return gmtime_r(&t, tm) != NULL;
}

void rv_fleet_rep_iso(double ts, char *buf, size_t n)
{
	struct tm tm;
	if (!utc(ts, &tm) || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, n, "?");
}

/* 1 when the report's range lies within one UTC day. */
static int one_day(const struct rv_fleet_result *r)
{
	double a = r->since, b = r->until;
	if (!isfinite(a) || !isfinite(b) || b < a) {
		a = r->t0;
		b = r->t0 + (double)(r->nwin ? r->nwin - 1 : 0) * r->step;
	}
	if (!isfinite(a) || !isfinite(b))
		return 0;
	return floor(a / SECS_DAY) == floor((b > a ? b - 1e-6 : a) / SECS_DAY);
}

void rv_fleet_rep_clock(const struct rv_fleet_result *r, double ts, char *buf, size_t n)
{
	struct tm tm;
	const char *fmt = one_day(r) ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S";
	if (!utc(ts, &tm) || strftime(buf, n, fmt, &tm) == 0)
		snprintf(buf, n, "?");
}

/* Lengths of a minute and more: the two largest units that fit. */
static const struct {
	long secs, small;
	const char *fmt;
} spans[] = {
	{ SECS_DAY, SECS_HOUR, "%ldd %02ldh" },
	{ SECS_HOUR, SECS_MIN, "%ldh %02ldm" },
	{ SECS_MIN, 1, "%ldm %02lds" },
};

void rv_fleet_rep_duration(double secs, char *buf, size_t n)
{
	if (!(secs >= 0) || !isfinite(secs) || secs >= LONG_S) {
		snprintf(buf, n, secs >= 0 && isfinite(secs) ? "%.3g s" : "?", secs);
		return;
	}
	long whole = lround(secs);
	for (size_t i = 0; whole >= SECS_MIN && i < sizeof(spans) / sizeof(spans[0]); i++) {
		if (whole >= spans[i].secs) {
			snprintf(buf, n, spans[i].fmt, whole / spans[i].secs,
				 whole % spans[i].secs / spans[i].small);
			return;
		}
	}
	/* under a minute: tenths only while they matter */
	snprintf(buf, n, secs < 10 && secs != floor(secs) ? "%.1f s" : "%.0f s", secs);
}

double rv_fleet_rep_stretch_s(const struct rv_fleet_result *r, const struct rv_fleet_stretch *st)
{
	double len = st->end - st->start;
	return isfinite(r->step) && r->step > 0 ? len + r->step : len;
}

void rv_fleet_rep_span(const struct rv_fleet_result *r, const struct rv_fleet_stretch *st,
		       char *buf, size_t n)
{
	char a[RV_FLEET_REP_CELL], b[RV_FLEET_REP_CELL];
	rv_fleet_rep_clock(r, st->start, a, sizeof(a));
	rv_fleet_rep_clock(r, st->end, b, sizeof(b));
	if (strcmp(a, b) == 0)
		snprintf(buf, n, "%s UTC", a);
	else
		snprintf(buf, n, "%s\xE2\x80\x93%s UTC", a, b);  /* an en dash */
}

/* Whether the metric type of channel s ends with tail: the part before a
 * ":instance" suffix ("cpu.busy_pct:cpu1" is a cpu.busy_pct). */
static int ends_with(const char *s, const char *tail)
{
	const char *colon = strchr(s, ':');
	size_t a = colon ? (size_t)(colon - s) : strlen(s), b = strlen(tail);

	return a >= b && strncmp(s + a - b, tail, b) == 0;
}

/* "3.4" from "3.400", "2" from "2.0": the zeros after the point go. */
static void drop_zeros(char *s)
{
	char *dot = strchr(s, '.');
	if (!dot || strchr(s, 'e'))
		return;
	size_t end = strlen(s);
	while (end > (size_t)(dot - s) + 1 && s[end - 1] == '0')
		end--;
	if (s[end - 1] == '.')
		end--;
	s[end] = '\0';
}

/* |m| (already scaled) with three significant digits, or with the
 * decimals that step (scaled alike) needs. */
static void digits(double m, double step, char *buf, size_t n)
{
	if (step > 0) {
		int d = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
		snprintf(buf, n, "%.*f", d < TICK_DECIMALS_MAX ? d : TICK_DECIMALS_MAX, m);
	} else if (m >= 99.95 || m == 0) {
		snprintf(buf, n, "%.0f", m);
	} else if (m >= 9.995) {
		snprintf(buf, n, "%.1f", m);
	} else if (m >= 0.9995) {
		snprintf(buf, n, "%.2f", m);
	} else {
		snprintf(buf, n, "%.3g", m);
	}
	drop_zeros(buf);
}

void rv_fleet_rep_qty(double v, const char *ch, double step, char *buf, size_t n)
{
	ch = rv_fleet_rep_str(ch);
	if (!isfinite(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	int bytes = ends_with(ch, "_bytes"), pct = !bytes && ends_with(ch, "_pct");
	double base = bytes ? 1024 : 1000, a = fabs(v);
	size_t e = 0;
	while (!pct && a >= base - 0.5 && e + 1 < NPREFIX) {
		a /= base;
		step /= base;
		e++;
	}
	char num[RV_FLEET_REP_CELL];
	digits(a, step, num, sizeof(num));
	const char *unit = pct ? " %" : bytes ? iec_names[e] : si_names[e];
	snprintf(buf, n, "%s%s%s", v < 0 && strcmp(num, "0") != 0 ? "-" : "", num, unit);
}

void rv_fleet_rep_diff(double value, double median, const char *ch, char *buf, size_t n)
{
	if (!isfinite(value) || !isfinite(median)) {
		snprintf(buf, n, "?");
		return;
	}
	double ratio = value / median, pct = (value / 2 - median / 2) / fabs(median) * 2 * PERCENT;
	if (value == median)
		snprintf(buf, n, "same");
	else if (ends_with(rv_fleet_rep_str(ch), "_pct"))
		snprintf(buf, n, "%+.1f pts", value - median);
	else if (median == 0 || !isfinite(ratio))
		snprintf(buf, n, "from 0");
	else if (ratio >= RATIO_SHOWN)
		snprintf(buf, n, ratio < 10 ? "%.1fx" : "%.0fx", ratio);
	else if (ratio > 0 && ratio <= 1 / RATIO_SHOWN)
		snprintf(buf, n, "%.2gx", ratio);
	else
		snprintf(buf, n, fabs(pct) >= 9.95 ? "%+.0f %%" : "%+.1f %%", pct);
}

void rv_fleet_rep_score(double v, char *buf, size_t n)
{
	snprintf(buf, n, isfinite(v) ? "%.1f" : "n/a", v);
}

void rv_fleet_rep_signal_cells(const struct rv_fleet_signal *g, struct rv_fleet_rep_cells *c)
{
	rv_fleet_rep_qty(g->value, g->channel, 0, c->value, sizeof(c->value));
	rv_fleet_rep_qty(g->median, g->channel, 0, c->median, sizeof(c->median));
	rv_fleet_rep_diff(g->value, g->median, g->channel, c->diff, sizeof(c->diff));
	rv_fleet_rep_score(g->z, c->z, sizeof(c->z));
}

size_t rv_fleet_rep_cp(const char *p, const char **show, size_t *n)
{
	size_t len = rv_utf8_len((const unsigned char *)p);
	unsigned char c = (unsigned char)*p;
	*show = p;
	*n = len;
	if (len == 0) {
		*show = REPLACEMENT;
		*n = sizeof(REPLACEMENT) - 1;
		return 1;
	}
	if (len == 1 && (c < ' ' || c == ASCII_DEL)) {
		*show = " ";
		*n = 1;
	}
	return len;
}

const char *rv_fleet_rep_entity(char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	default: return NULL;
	}
}

void rv_fleet_rep_sections(const struct rv_fleet_result *r, const struct rv_fleet_rep_parts *p)
{
	size_t ns = r->strag ? r->nstrag : 0, nd = r->drift ? r->ndrift : 0;
	if (ns)
		p->heading(p->ctx, RV_FLEET_REP_STRAGGLERS);
	for (size_t i = 0; i < ns; i++)
		p->strag(p->ctx, r, i);
	if (nd)
		p->heading(p->ctx, RV_FLEET_REP_DRIFT);
	for (size_t i = 0; i < nd; i++) {
		char what[RV_FLEET_REP_LINE];
		rv_fleet_rep_drift_line(&r->drift[i], what, sizeof(what));
		p->drift(p->ctx, &r->drift[i], what, i);
	}
	p->heading(p->ctx, RV_FLEET_REP_GROUPS);
	for (size_t i = 0; r->group && i < r->ngroup; i++)
		p->group(p->ctx, r, i);
}

size_t rv_fleet_rep_findings(const struct rv_fleet_result *r)
{
	return (r->strag ? r->nstrag : 0) + (r->drift ? r->ndrift : 0);
}

int rv_fleet_rep_flagged(const struct rv_fleet_result *r, const char *group, const char *node)
{
	for (size_t i = 0; r->strag && i < r->nstrag; i++) {
		const struct rv_fleet_straggler *s = &r->strag[i];
		if (strcmp(rv_fleet_rep_str(s->node), rv_fleet_rep_str(node)) == 0 &&
		    strcmp(rv_fleet_rep_str(s->group), rv_fleet_rep_str(group)) == 0)
			return 1;
	}
	return 0;
}

int rv_fleet_rep_small(const struct rv_fleet_group *g)
{
	return g->nnodes < RV_STRAG_MIN_NODES;
}

size_t rv_fleet_rep_holders(const struct rv_fleet_drift *d, const char *v)
{
	size_t n = 0;
	for (size_t i = 0; d->odd && i < d->nodd; i++)
		n += strcmp(rv_fleet_rep_str(d->odd[i].value), rv_fleet_rep_str(v)) == 0;
	return n;
}

int rv_fleet_rep_first_holder(const struct rv_fleet_drift *d, size_t i)
{
	const char *v = rv_fleet_rep_str(d->odd[i].value);
	for (size_t j = 0; j < i; j++) {
		if (strcmp(rv_fleet_rep_str(d->odd[j].value), v) == 0)
			return 0;
	}
	return 1;
}

static void range_line(const struct rv_fleet_result *r, char *buf, size_t n)
{
	char a[RV_FLEET_REP_CELL], b[RV_FLEET_REP_CELL], d[RV_FLEET_REP_CELL];
	rv_fleet_rep_iso(r->since, a, sizeof(a));
	rv_fleet_rep_iso(r->until, b, sizeof(b));
	rv_fleet_rep_duration(r->until - r->since, d, sizeof(d));
	snprintf(buf, n, "%s to %s (%s)", a, b, d);
}

static void groups_line(const struct rv_fleet_result *r, char *buf, size_t n)
{
	size_t ng = r->group ? r->ngroup : 0;
	snprintf(buf, n, "%zu group%s, %zu node%s, %zu channel%s read", ng, ng == 1 ? "" : "s",
		 r->nnodes, r->nnodes == 1 ? "" : "s", r->nchan, r->nchan == 1 ? "" : "s");
}

static void windows_line(const struct rv_fleet_result *r, char *buf, size_t n)
{
	char s[RV_FLEET_REP_CELL], t[RV_FLEET_REP_CELL];
	rv_fleet_rep_duration(r->step, s, sizeof(s));
	rv_fleet_rep_iso(r->t0, t, sizeof(t));
	snprintf(buf, n, "%zu window%s of %s, the first at %s", r->nwin, r->nwin == 1 ? "" : "s",
		 s, t);
}

static void rule_line(const struct rv_fleet_result *r, char *buf, size_t n)
{
	char d[RV_FLEET_REP_CELL];
	rv_fleet_rep_duration((double)r->persist * r->step, d, sizeof(d));
	snprintf(buf, n, "persistent score above %.3g for %zu window%s (%s) in a row", r->threshold,
		 r->persist, r->persist == 1 ? "" : "s", d);
}

static void read_line(const struct rv_fleet_result *r, char *buf, size_t n)
{
	char b[RV_FLEET_REP_CELL], rs[RV_FLEET_REP_CELL], as[RV_FLEET_REP_CELL];
	rv_fleet_rep_qty((double)r->bytes, "read_bytes", 0, b, sizeof(b));
	rv_fleet_rep_duration(r->read_s, rs, sizeof(rs));
	rv_fleet_rep_duration(r->analyse_s, as, sizeof(as));
	snprintf(buf, n, "%llu API request%s, %s in %s; analysis %s",
		 (unsigned long long)r->requests, r->requests == 1 ? "" : "s", b, rs, as);
}

void rv_fleet_rep_head(const struct rv_fleet_result *r,
		       void (*row)(void *ctx, const char *label, const char *value, int name),
		       void *ctx)
{
	static const struct {
		const char *label;
		void (*line)(const struct rv_fleet_result *r, char *buf, size_t n);
	} after[] = {
		{ "Groups", groups_line }, { "Windows", windows_line },
		{ "Straggler", rule_line }, { "Read", read_line },
	};
	char buf[RV_FLEET_REP_LINE];
	int sel = *rv_fleet_rep_str(r->selector) != '\0';
	range_line(r, buf, sizeof(buf));
	row(ctx, "Range", buf, 0);
	row(ctx, "Storage", *rv_fleet_rep_str(r->url) ? r->url : "n/a", 1);
	row(ctx, "Selector", sel ? r->selector : "every node", sel);
	row(ctx, "Grouped by", rv_fleet_rep_str(r->group_by), 1);
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
		after[i].line(r, buf, sizeof(buf));
		row(ctx, after[i].label, buf, 0);
	}
}

void rv_fleet_rep_drift_line(const struct rv_fleet_drift *d, char *buf, size_t n)
{
	char tol[RV_FLEET_REP_CELL] = "";
	if (d->tolerance > 0)
		snprintf(tol, sizeof(tol), " (numbers within %.3g %% count as equal)",
			 d->tolerance * PERCENT);
	if (d->majority)
		snprintf(buf, n, " on %zu of %zu nodes%s", d->nmajority, d->nnodes, tol);
	else
		snprintf(buf, n, "no value on a majority of its %zu nodes%s", d->nnodes, tol);
}

void rv_fleet_rep_each_value(const struct rv_fleet_drift *d, const struct rv_fleet_rep_values *cb)
{
	for (size_t i = 0; d->odd && i < d->nodd; i++) {
		if (!rv_fleet_rep_first_holder(d, i))
			continue;
		const char *v = rv_fleet_rep_str(d->odd[i].value);
		cb->value(cb->ctx, v);
		for (size_t j = i, k = 0; j < d->nodd; j++) {
			if (strcmp(rv_fleet_rep_str(d->odd[j].value), v) == 0)
				cb->node(cb->ctx, rv_fleet_rep_str(d->odd[j].node), k++);
		}
		cb->done(cb->ctx);
	}
}
