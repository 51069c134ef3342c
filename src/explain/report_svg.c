/*
 * report_svg.c - one inline <svg> plot per series for the HTML report:
 * the signal around the incident against its baseline.
 *
 * Back to front: the incident span shaded, the baseline band (mean -+
 * 3 sd) shaded, grid and ticks, the baseline mean dashed, the value line,
 * the frame, title and legend. Times on the x axis are seconds from the
 * incident start; values are scaled for people with the unit. Every
 * element carries a <title>, which browsers show as a tooltip.
 *
 * Degenerate data must still draw: the y range always holds the data, the
 * band and the mean, and is widened when they are all equal; a sample that
 * is NaN breaks the line (the next one starts a new subpath with M); a
 * lone sample between gaps becomes a dash of a few pixels; a series
 * without a finite sample writes "no data" instead of a path. Ranges
 * are computed from halves so that values near DBL_MAX do not overflow.
 * Series longer than a few samples per pixel are cut to the min and max of
 * each bucket, in time order, which keeps spikes visible.
 */
#include "explain/report_int.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Geometry in user units of the viewBox. */
enum {
	SVG_W = 720, SVG_H = 260,
	PLOT_X0 = 84, PLOT_X1 = 704,  /* left: room for value labels */
	PLOT_Y0 = 46, PLOT_Y1 = 214,  /* top: title and legend; bottom: ticks, axis name */
	TITLE_Y = 16, LEGEND_Y = 36,  /* text baselines */
	TICK_LEN = 4,
	TARGET_TICKS = 5, MAX_TICKS = 12,
	MIN_SPAN_PX = 2,               /* an incident of one instant stays visible */
	TICK_UNIT_MAX = 2,             /* "%", "W", "C": longer units only in the title */
	DECIMATE_PER_PX = 2,           /* more samples than this per pixel: min/max buckets */
};
static const double MARGIN = 0.05;   /* of the y range, above and below */
static const double PAD_REL = 0.1;   /* widening of an empty y range, relative */
static const double PAD_TIME_S = 30; /* widening of a plot of one instant */
static const double LONE_PX = 1.5;   /* half the length of the dash of a lone sample */

struct range {
	double lo, hi;
};

/* Maps [lo, hi] to [0, 1] without overflow; hi > lo. */
static double frac(const struct range *r, double v)
{
	double f = (v / 2 - r->lo / 2) / (r->hi / 2 - r->lo / 2);
	return !(f > 0) ? 0 : f > 1 ? 1 : f;  /* NaN too: a coordinate must be a number */
}

static double px_x(const struct range *r, double t)
{
	return PLOT_X0 + frac(r, t) * (PLOT_X1 - PLOT_X0);
}

static double px_y(const struct range *r, double v)
{
	return PLOT_Y1 - frac(r, v) * (PLOT_Y1 - PLOT_Y0);
}

static void widen(struct range *r, double v)
{
	if (!isfinite(v))
		return;
	r->lo = v < r->lo ? v : r->lo;
	r->hi = v > r->hi ? v : r->hi;
}

/* An empty or single-valued range becomes a usable one: +-rel of the
 * value, or +-pad_abs when that is nothing (or PAD_REL when pad_abs is
 * below the value's precision), clipped at the largest double. */
static void fix_range(struct range *r, double rel, double pad_abs)
{
	if (r->lo > r->hi) {
		r->lo = 0;
		r->hi = 1;
		return;
	}
	if (r->hi / 2 - r->lo / 2 > 0)
		return;
	double mid = r->lo, d = fabs(mid) * rel;
	if (!(d > 0) || mid + d == mid || mid - d == mid)
		d = pad_abs;
	if (mid + d == mid || mid - d == mid)  /* pad_abs is lost in a huge value */
		d = fabs(mid) * PAD_REL;
	r->hi = isfinite(mid + d) ? mid + d : DBL_MAX;
	r->lo = isfinite(mid - d) ? mid - d : -DBL_MAX;
}

static void y_range(const struct rv_report_series *s, struct range *r)
{
	r->lo = INFINITY;
	r->hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		if (isfinite(s->ts[i]))
			widen(r, s->v[i]);
	}
	widen(r, s->band_lo);
	widen(r, s->band_hi);
	widen(r, s->base_mean);
	fix_range(r, PAD_REL, 1);
	double m = (r->hi / 2 - r->lo / 2) * 2 * MARGIN;
	if (isfinite(r->lo - m) && isfinite(r->hi + m)) {
		r->lo -= m;
		r->hi += m;
	}
}

static void x_range(const struct rv_report_incident *in, const struct rv_report_series *s,
		    struct range *r)
{
	r->lo = INFINITY;
	r->hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++)
		widen(r, s->ts[i]);
	widen(r, in->start_ts);
	widen(r, in->end_ts);
	fix_range(r, 0, PAD_TIME_S);
}

/* A 1-2-5 step near span / TARGET_TICKS; 0 when there is none. */
static double nice_step(double lo, double hi)
{
	double raw = (hi / 2 - lo / 2) / (TARGET_TICKS / 2.0);
	if (!(raw > 0) || !isfinite(raw))
		return 0;
	double p = pow(10, floor(log10(raw))), m = raw / p;
	double step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
	return step > 0 && isfinite(step) ? step : 0;
}

/* Steps for seconds: 1-2-5 below a minute, then whole minutes, hours, days. */
static double time_step(double span)
{
	static const double steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
					3600, 7200, 10800, 21600, 43200, 86400 };
	double want = span / TARGET_TICKS;
	if (want < 1)
		return nice_step(0, span);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (steps[i] >= want)
			return steps[i];
	}
	return nice_step(0, span);
}

/* Values of the ticks in [lo, hi] (at most MAX_TICKS); returns the count. */
static size_t ticks(double lo, double hi, double step, double *out)
{
	size_t n = 0;
	if (!(step > 0))
		return 0;
	double first = ceil(lo / step) * step, prev = NAN;
	for (size_t i = 0; n < MAX_TICKS && i < MAX_TICKS * 2; i++) {
		double v = first + (double)i * step;
		if (v > hi || v == prev || !isfinite(v))
			break;
		out[n++] = fabs(v) < step * 1e-9 ? 0 : v;  /* no "-0" or 1e-17 labels */
		prev = v;
	}
	return n;
}

static void time_label(double rel, double step, char *buf, size_t n)
{
	static const struct { double secs; const char *unit; } units[] = {
		{ 86400, "d" }, { 3600, "h" }, { 60, "min" },
	};
	for (size_t i = 0; rel != 0 && i < sizeof(units) / sizeof(units[0]); i++) {
		if (step >= units[i].secs && fmod(step, units[i].secs) == 0) {
			snprintf(buf, n, "%+g %s", rel / units[i].secs, units[i].unit);
			return;
		}
	}
	int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	if (rel == 0)
		snprintf(buf, n, "0");
	else
		snprintf(buf, n, "%+.*f s", dec, rel);
}

/* The unit on tick labels: the title has it in full; bytes keep theirs
 * (the prefix is binary), short units stay, long ones are left out. */
static const char *tick_unit(const char *unit)
{
	unit = rv_report_str(unit);
	if (strncmp(unit, "bytes", strlen("bytes")) == 0)
		return "bytes";
	return strlen(unit) <= TICK_UNIT_MAX ? unit : "";
}

static void y_axis(FILE *f, const struct range *y, const char *unit)
{
	double tv[MAX_TICKS], step = nice_step(y->lo, y->hi);
	size_t n = ticks(y->lo, y->hi, step, tv);
	fputs("<g class=\"yaxis\">", f);
	for (size_t i = 0; i < n; i++) {
		char label[RV_REPORT_CELL];
		double py = px_y(y, tv[i]);
		rv_report_qty(tv[i], tick_unit(unit), step, label, sizeof(label));
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", PLOT_X0, PLOT_X1, py, py,
			PLOT_X0 - TICK_LEN - 2, py + 4);
		rv_report_html_text(f, label);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

static void x_axis(FILE *f, const struct range *x, double ref)
{
	double tv[MAX_TICKS], step = time_step((x->hi / 2 - x->lo / 2) * 2);
	size_t n = ticks(x->lo - ref, x->hi - ref, step, tv);
	fputs("<g class=\"xaxis\">", f);
	for (size_t i = 0; i < n; i++) {
		char label[RV_REPORT_CELL];
		double px = px_x(x, tv[i] + ref);
		time_label(tv[i], step, label, sizeof(label));
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", px, px, PLOT_Y1,
			PLOT_Y1 + TICK_LEN, px, PLOT_Y1 + TICK_LEN + 12, label);
	}
	fprintf(f, "<text class=\"axisname\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time "
		"from the incident start</text></g>\n", (PLOT_X0 + PLOT_X1) / 2, SVG_H - 6);
}

/* The value line as it is written: subpaths, and the one being drawn. */
struct pen {
	FILE *f;
	size_t seg;       /* points of the current subpath */
	double lx, ly;    /* its last point */
	size_t points;    /* written in all */
};

static void pen_point(struct pen *p, double x, double y)
{
	fprintf(p->f, "%s%.1f %.1f", p->seg ? "L" : "M", x, y);
	p->seg++;
	p->points++;
	p->lx = x;
	p->ly = y;
}

/* Ends the subpath; a lone point becomes a short dash across it, so that
 * it shows (the round caps make it a dot of a few pixels). */
static void pen_lift(struct pen *p)
{
	if (p->seg == 1) {
		fprintf(p->f, "M%.1f %.1fL%.1f %.1f", p->lx - LONE_PX, p->ly, p->lx + LONE_PX, p->ly);
		p->points += 2;
	}
	p->seg = 0;
}

static int usable(const struct rv_report_series *s, size_t i)
{
	return isfinite(s->ts[i]) && isfinite(s->v[i]);
}

/* Samples [from, to) as their minimum and maximum in time order; a bucket
 * with a gap ends the subpath after it. */
static void bucket(struct pen *p, const struct rv_report_series *s, size_t from, size_t to,
		   const struct range *x, const struct range *y)
{
	size_t imin = to, imax = to;
	int gap = 0;
	for (size_t i = from; i < to; i++) {
		if (!usable(s, i)) {
			gap = 1;
			continue;
		}
		if (imin == to || s->v[i] < s->v[imin])
			imin = i;
		if (imax == to || s->v[i] > s->v[imax])
			imax = i;
	}
	if (imin != to) {
		size_t a = imin < imax ? imin : imax, b = imin < imax ? imax : imin;
		pen_point(p, px_x(x, s->ts[a]), px_y(y, s->v[a]));
		if (b != a)
			pen_point(p, px_x(x, s->ts[b]), px_y(y, s->v[b]));
	}
	if (gap)
		pen_lift(p);
}

static void value_path(FILE *f, const struct rv_report_series *s, const struct range *x,
		       const struct range *y)
{
	struct pen p = { .f = f };
	size_t per = s->n / ((size_t)(PLOT_X1 - PLOT_X0) * DECIMATE_PER_PX) + 1;
	fputs("<path class=\"value\" fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"1.8\" "
	      "stroke-linejoin=\"round\" stroke-linecap=\"round\" d=\"", f);
	for (size_t i = 0; i < s->n; i += per) {
		if (per > 1) {
			bucket(&p, s, i, i + per < s->n ? i + per : s->n, x, y);
		} else if (usable(s, i)) {
			pen_point(&p, px_x(x, s->ts[i]), px_y(y, s->v[i]));
		} else {
			pen_lift(&p);
		}
	}
	pen_lift(&p);
	fputs("\">", f);
}

/* The smallest and largest finite sample; 0 when there is none. */
static int data_extent(const struct rv_report_series *s, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < s->n; i++) {
		if (usable(s, i)) {
			*lo = s->v[i] < *lo ? s->v[i] : *lo;
			*hi = s->v[i] > *hi ? s->v[i] : *hi;
		}
	}
	return *lo <= *hi;
}

static void title_el(FILE *f, const char *a, const char *b, const char *c)
{
	fputs("<title>", f);
	rv_report_html_text(f, a);
	rv_report_html_text(f, b);
	rv_report_html_text(f, c);
	fputs("</title>", f);
}

static void incident_span(FILE *f, const struct rv_report_incident *in, const struct range *x)
{
	if (!isfinite(in->start_ts))
		return;
	char a[RV_REPORT_CELL], b[RV_REPORT_CELL], buf[3 * RV_REPORT_CELL];
	double end = isfinite(in->end_ts) ? in->end_ts : in->start_ts;
	double x0 = px_x(x, in->start_ts), x1 = px_x(x, end);
	if (x1 - x0 < MIN_SPAN_PX)
		x1 = x0 + MIN_SPAN_PX;
	rv_report_iso(in->start_ts, a, sizeof(a));
	rv_report_iso(end, b, sizeof(b));
	snprintf(buf, sizeof(buf), "the incident: %s to %s", a, b);
	fprintf(f, "<rect class=\"span\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">", x0,
		PLOT_Y0, x1 - x0, PLOT_Y1 - PLOT_Y0);
	title_el(f, buf, "", "");
	fputs("</rect>\n", f);
}

static void band(FILE *f, const struct rv_report_series *s, const struct range *y)
{
	char lo[RV_REPORT_CELL], hi[RV_REPORT_CELL], buf[3 * RV_REPORT_CELL];
	if (isfinite(s->band_lo) && isfinite(s->band_hi) && s->band_lo <= s->band_hi) {
		double top = px_y(y, s->band_hi), bottom = px_y(y, s->band_lo);
		rv_report_qty(s->band_lo, s->unit, 0, lo, sizeof(lo));
		rv_report_qty(s->band_hi, s->unit, 0, hi, sizeof(hi));
		snprintf(buf, sizeof(buf), "baseline band: %s to %s", lo, hi);
		fprintf(f, "<rect class=\"band\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\">",
			PLOT_X0, top, PLOT_X1 - PLOT_X0, bottom - top > 1 ? bottom - top : 1);
		title_el(f, buf, "", "");
		fputs("</rect>\n", f);
	}
	if (isfinite(s->base_mean)) {
		double py = px_y(y, s->base_mean);
		rv_report_qty(s->base_mean, s->unit, 0, lo, sizeof(lo));
		fprintf(f, "<line class=\"mean\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\">",
			PLOT_X0, PLOT_X1, py, py);
		title_el(f, "baseline mean: ", lo, "");
		fputs("</line>\n", f);
	}
}

static void legend(FILE *f)
{
	static const struct { const char *cls, *text; } items[] = {
		{ "lg-value", "value" }, { "lg-mean", "baseline mean" },
		{ "lg-band", "baseline band" }, { "lg-span", "incident" },
	};
	static const int item_w[] = { 70, 120, 120, 80 };
	int x = PLOT_X0;
	fputs("<g class=\"legend\">", f);
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		fprintf(f, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"14\" height=\"8\"/>"
			"<text x=\"%d\" y=\"%d\">%s</text>", items[i].cls, x, LEGEND_Y - 8, x + 18,
			LEGEND_Y, items[i].text);
		x += item_w[i];
	}
	fputs("</g>\n", f);
}

static void heading(FILE *f, const struct rv_report_series *s)
{
	const char *unit = rv_report_str(s->unit);
	fprintf(f, "<text class=\"ptitle\" x=\"%d\" y=\"%d\">", PLOT_X0, TITLE_Y);
	rv_report_html_text(f, s->name);
	if (*unit) {
		fputs(" (", f);
		rv_report_html_text(f, unit);
		fputc(')', f);
	}
	fputs("</text>\n", f);
}

void rv_report_svg(FILE *f, const struct rv_report_incident *in, const struct rv_report_series *s)
{
	struct rv_report_series none = *s;
	if (!s->ts || !s->v)
		none.n = 0;
	s = &none;
	struct range x, y;
	double lo, hi;
	int have = data_extent(s, &lo, &hi);
	x_range(in, s, &x);
	y_range(s, &y);
	fprintf(f, "<svg class=\"plot%s\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		have ? "" : " nodata", SVG_W, SVG_H);
	rv_report_html_text(f, s->name);
	fputs("\">\n", f);
	title_el(f, s->name, have ? "" : ": no data", "");
	fprintf(f, "\n<rect class=\"bg\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", PLOT_X0,
		PLOT_Y0, PLOT_X1 - PLOT_X0, PLOT_Y1 - PLOT_Y0);
	incident_span(f, in, &x);
	band(f, s, &y);
	y_axis(f, &y, s->unit);
	x_axis(f, &x, isfinite(in->start_ts) ? in->start_ts : x.lo);
	if (have) {
		char a[RV_REPORT_CELL], b[RV_REPORT_CELL], buf[3 * RV_REPORT_CELL];
		rv_report_qty(lo, s->unit, 0, a, sizeof(a));
		rv_report_qty(hi, s->unit, 0, b, sizeof(b));
		snprintf(buf, sizeof(buf), ": %zu samples, %s to %s", s->n, a, b);
		value_path(f, s, &x, &y);
		title_el(f, s->name, buf, "");
		fputs("</path>\n", f);
	} else {
		fprintf(f, "<text class=\"nodata\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">no data"
			"</text>\n", (PLOT_X0 + PLOT_X1) / 2, (PLOT_Y0 + PLOT_Y1) / 2);
	}
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		PLOT_X0, PLOT_Y0, PLOT_X1 - PLOT_X0, PLOT_Y1 - PLOT_Y0);
	heading(f, s);
	legend(f);
	fputs("</svg>\n", f);
}
