/*
 * report.c - the report API (report.h) and the formatting all four formats
 * share: times, durations, quantities scaled for people, change texts and
 * widths (UTF-8 stepping is base/utf8.h). The formats themselves live in report_text.c,
 * report_md.c, report_json.c, report_html.c and report_svg.c
 * (report_int.h).
 *
 * Numbers are written for an operator in the middle of an outage: three
 * significant digits at most, SI prefixes (1.2 k, 3.4 M), binary ones for
 * byte quantities (1.5 MiB/s), and "n/a" rather than a made-up value.
 */
#include "explain/report_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

enum {
	PREFIXES = 7,            /* "", k, M, G, T, P, E */
	SECS_PER_MIN = 60,
	SECS_PER_HOUR = 3600,
	SECS_PER_DAY = 86400,
	MAX_DECIMALS = 12,       /* tick labels: more would be noise */
	TICK_G = -2,             /* decimals(): ticks too fine for decimals, %g */
};
static const double ISO_MIN_TS = -62135596800.0;  /* 0001-01-01T00:00:00Z */
static const double ISO_MAX_TS = 253402300799.0;  /* 9999-12-31T23:59:59Z */
static const double DURATION_MAX_S = 1e9;         /* beyond: plain seconds */
static const double OFFSET_WHOLE_S = 1000;        /* from here offsets drop the tenths */
static const double SMALL_SHARE = 0.005;          /* shown as "<1 %" */
static const double PLAIN_MAX = 1e6;              /* larger changes in %g */
static const double SMALL_ABS = 1e-3;             /* below: %g notation */

static const char *const format_names[] = {
	[RV_REPORT_TEXT] = "text",
	[RV_REPORT_MARKDOWN] = "markdown",
	[RV_REPORT_JSON] = "json",
	[RV_REPORT_HTML] = "html",
};
enum { FORMAT_COUNT = sizeof(format_names) / sizeof(format_names[0]) };

typedef void (*report_writer)(FILE *f, const struct rv_report *r, int summary);
static const report_writer writers[] = {
	[RV_REPORT_TEXT] = rv_report_text,
	[RV_REPORT_MARKDOWN] = rv_report_markdown,
	[RV_REPORT_JSON] = rv_report_json,
	[RV_REPORT_HTML] = rv_report_html,
};
_Static_assert(sizeof(writers) / sizeof(writers[0]) == FORMAT_COUNT, "a writer per format");

static const char *const si_prefix[PREFIXES] = { "", "k", "M", "G", "T", "P", "E" };
static const char *const iec_prefix[PREFIXES] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };

int rv_report_write(FILE *f, const struct rv_report *r, enum rv_report_format fmt, int summary)
{
	if (!f || !r || (unsigned)fmt >= FORMAT_COUNT)
		return -EINVAL;
	writers[fmt](f, r, summary);
	return ferror(f) ? -EIO : 0;
}

const char *rv_report_format_name(enum rv_report_format fmt)
{
	return (unsigned)fmt < FORMAT_COUNT ? format_names[fmt] : "unknown";
}

int rv_report_format_parse(const char *name)
{
	for (size_t i = 0; name && i < FORMAT_COUNT; i++) {
		if (strcmp(name, format_names[i]) == 0)
			return (int)i;
	}
	return -1;
}

/* A relative change given in percent. */
static void pct_text(double pct, char *buf, size_t n)
{
	double a = fabs(pct);
	if (pct == 0)
		snprintf(buf, n, "no change");
	else if (isinf(pct))  /* the baseline is nothing next to the value */
		snprintf(buf, n, "from ~0");
	else if (!(a < PLAIN_MAX))
		snprintf(buf, n, "%+.2g %%", pct);
	else if (a >= 9.95)
		snprintf(buf, n, "%+.0f %%", pct);
	else if (a >= 0.05)
		snprintf(buf, n, "%+.1f %%", pct);
	else
		snprintf(buf, n, "%+.1g %%", pct);
}

void rv_report_change_text(double baseline, double value, char *buf, size_t n)
{
	if (!buf || n == 0)
		return;
	if (!isfinite(baseline) || !isfinite(value))
		snprintf(buf, n, "?");
	else if (value == baseline)
		snprintf(buf, n, "no change");
	else if (baseline == 0)
		snprintf(buf, n, "from 0");
	else  /* halves: the difference of two huge values must not overflow */
		pct_text((value / 2 - baseline / 2) / fabs(baseline) * 2 * RV_REPORT_PERCENT, buf,
			 n);
}

const char *rv_report_str(const char *s)
{
	return s ? s : "";
}

void rv_report_iso(double ts, char *buf, size_t n)
{
	if (!isfinite(ts)) {
		snprintf(buf, n, "?");
		return;
	}
	struct tm tm;
	time_t t = (time_t)floor(ts);
	if (ts < ISO_MIN_TS || ts > ISO_MAX_TS || !gmtime_r(&t, &tm) ||
	    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, n, "%.6g", ts);
}

void rv_report_duration(double secs, char *buf, size_t n)
{
	if (!(secs >= 0) || !isfinite(secs)) {
		snprintf(buf, n, "?");
		return;
	}
	if (secs < SECS_PER_MIN || secs >= DURATION_MAX_S) {
		snprintf(buf, n, secs < SECS_PER_MIN ? "%.1f s" : "%.3g s", secs);
		return;
	}
	long s = (long)secs;
	if (s < SECS_PER_HOUR)
		snprintf(buf, n, "%ldm %02lds", s / SECS_PER_MIN, s % SECS_PER_MIN);
	else if (s < SECS_PER_DAY)
		snprintf(buf, n, "%ldh %02ldm", s / SECS_PER_HOUR, s % SECS_PER_HOUR / SECS_PER_MIN);
	else
		snprintf(buf, n, "%ldd %02ldh", s / SECS_PER_DAY, s % SECS_PER_DAY / SECS_PER_HOUR);
}

void rv_report_offset(double ts, double ref, char *buf, size_t n)
{
	double d = ts - ref;
	if (!isfinite(d))
		snprintf(buf, n, "%s", "");
	else if (fabs(d) < OFFSET_WHOLE_S)
		snprintf(buf, n, "%+.1f s", d);
	else if (fabs(d) < DURATION_MAX_S)
		snprintf(buf, n, "%+.0f s", d);
	else
		snprintf(buf, n, "%+.3g s", d);
}

/* Drops trailing zeros of the fraction in place: "3.40" -> "3.4", "2.0" -> "2". */
static void trim_zeros(char *s)
{
	char *dot = strchr(s, '.');
	if (!dot || strpbrk(s, "eE"))
		return;
	char *end = s + strlen(s);
	while (end > dot + 1 && end[-1] == '0')
		end--;
	if (end == dot + 1)
		end = dot;
	*end = '\0';
}

/* Decimals for mantissa m (already scaled), or for ticks `step` apart;
 * -1: two significant digits, TICK_G: three. */
static int decimals(double m, int scaled, double step)
{
	if (step > 0) {
		int d = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
		return d <= MAX_DECIMALS ? d : TICK_G;
	}
	if (m >= 99.95)
		return 0;
	return scaled || m >= 0.995 ? 1 : -1;  /* -1: two significant digits */
}

/* The mantissa and prefix of |v|: scaled below base where a prefix exists. */
static size_t scale(double *a, double *step, double base)
{
	size_t idx = 0;
	while (*a >= base - 0.5 && idx + 1 < PREFIXES) {
		*a /= base;
		*step /= base;
		idx++;
	}
	return idx;
}

/* The digits of magnitude a (scaled already), trailing zeros dropped. */
static void mantissa(double a, int scaled, double step, char *num, size_t n)
{
	int d = decimals(a, scaled, step);
	if (isinf(a) || a == 0)
		snprintf(num, n, "%s", a == 0 ? "0" : "inf");
	else if (d == TICK_G)
		snprintf(num, n, "%.3g", a);
	else if (d < 0 || a >= PLAIN_MAX || (step <= 0 && a < SMALL_ABS))
		snprintf(num, n, "%.2g", a);
	else
		snprintf(num, n, "%.*f", d, a);
	trim_zeros(num);
}

/* "1.5 MiB/s", "1.2 k packets/s", "45.2 %", "1.2 k", "3". */
static void join(char *buf, size_t n, int neg, const char *num, const char *prefix, int bytes,
		 const char *rest)
{
	const char *sep = *prefix || *rest || bytes ? " " : "";
	const char *sep2 = !bytes && *prefix && *rest ? " " : "";
	neg = neg && strcmp(num, "0") != 0;
	snprintf(buf, n, "%s%s%s%s%s%s%s", neg ? "-" : "", num, sep, prefix, sep2,
		 bytes ? "B" : "", rest);
}

void rv_report_qty(double v, const char *unit, double step, char *buf, size_t n)
{
	unit = rv_report_str(unit);
	if (isnan(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	int bytes = strncmp(unit, "bytes", strlen("bytes")) == 0;
	double a = fabs(v);
	size_t idx = isinf(a) ? 0 : scale(&a, &step, bytes ? 1024 : 1000);
	if (a >= PLAIN_MAX && idx + 1 == PREFIXES) {  /* beyond the prefixes: plain %g */
		a = fabs(v);
		idx = 0;
	}
	char num[RV_REPORT_CELL];
	mantissa(a, idx > 0, step, num, sizeof(num));
	join(buf, n, v < 0, num, bytes ? iec_prefix[idx] : si_prefix[idx], bytes,
	     bytes ? unit + strlen("bytes") : unit);
}

void rv_report_share(double share, char *buf, size_t n)
{
	if (!isfinite(share))
		snprintf(buf, n, "%s", "");
	else if (share > 0 && share < SMALL_SHARE)
		snprintf(buf, n, "<1 %%");
	else
		snprintf(buf, n, "%.0f %%", share * RV_REPORT_PERCENT);
}

size_t rv_report_no_cause_text(const struct rv_report *r, const struct rv_report_incident *in,
			       char *buf, size_t n)
{
	const char *sub = in->nsubsys && in->subsys ? rv_report_str(in->subsys[0].name) : "";
	int named = *sub && strcmp(sub, "other") != 0;
	int k = snprintf(buf, n, "No %s%srule of the knowledge base (%zu rules) matched this "
			 "incident. ", named ? sub : "", named ? " " : "", r->nrules);

	if (k < 0 || n == 0)
		return 0;
	return (size_t)k < n ? (size_t)k : n - 1;
}

void rv_report_near_text(const struct rv_report_near *x, char *buf, size_t n)
{
	snprintf(buf, n, "%s [%s]: %zu of %zu required signals held%s%s%s%s", rv_report_str(x->title),
		 rv_report_str(x->id), x->held, x->required, x->missing ? "; lacks " : "",
		 x->missing ? x->missing : "", x->excluded_by ? "; excluded by " : "",
		 x->excluded_by ? x->excluded_by : "");
}

void rv_report_note_text(const struct rv_report_note *x, char *buf, size_t n)
{
	char conf[RV_REPORT_CELL];

	rv_report_share(x->confidence, conf, sizeof(conf));
	snprintf(buf, n, "%s [%s, %s]%s%s", rv_report_str(x->title), rv_report_str(x->id),
		 rv_report_str(x->subsystem), *conf ? ", confidence " : "", conf);
}

const char *rv_report_dir_word(int dir)
{
	return dir > 0 ? "up" : dir < 0 ? "down" : "within its noise";
}

static void signal_change(const struct rv_report_signal *s, char *buf, size_t n)
{
	if (isfinite(s->baseline) && isfinite(s->value))
		rv_report_change_text(s->baseline, s->value, buf, n);
	else if (isinf(s->change))
		snprintf(buf, n, "from 0");
	else if (isfinite(s->change))
		pct_text(s->change * RV_REPORT_PERCENT, buf, n);
	else
		snprintf(buf, n, "?");
}

void rv_report_signal_cells(const struct rv_report_incident *in,
			    const struct rv_report_signal *s, struct rv_report_cells *c)
{
	rv_report_share(s->share, c->share, sizeof(c->share));
	rv_report_qty(s->baseline, s->unit, 0, c->baseline, sizeof(c->baseline));
	rv_report_qty(s->value, s->unit, 0, c->value, sizeof(c->value));
	rv_report_qty(s->peak, s->unit, 0, c->peak, sizeof(c->peak));
	signal_change(s, c->change, sizeof(c->change));
	if (isfinite(s->z))
		snprintf(c->z, sizeof(c->z), fabs(s->z) < PLAIN_MAX ? "%.1f" : "%.2g", s->z);
	else
		snprintf(c->z, sizeof(c->z), "n/a");
	rv_report_offset(s->onset_ts, in->start_ts, c->onset, sizeof(c->onset));
}

unsigned rv_report_phase(const struct rv_report_incident *in)
{
	return in->phase ? in->phase : 1;
}

int rv_report_linked(const struct rv_report_incident *in)
{
	return in->follows != 0 || (in->followers && in->nfollowers > 0);
}

void rv_report_link_note(const struct rv_report_link *l, char *buf, size_t n)
{
	char d[RV_REPORT_CELL] = "";
	const char *sub = rv_report_str(l->subsystem);
	const char *when = "";

	if (isfinite(l->offset_s)) {
		rv_report_duration(fabs(l->offset_s), d, sizeof(d));
		when = l->offset_s >= 0 ? " after it began" : " before it began";
	}
	snprintf(buf, n, "%s%s%s%s", sub, *sub && *d ? ", " : "", d, when);
}

size_t rv_report_width(const char *s)
{
	size_t w = 0;
	for (const unsigned char *p = (const unsigned char *)rv_report_str(s); *p; w++) {
		size_t len = rv_utf8_len(p);
		p += len ? len : 1;
	}
	return w;
}
