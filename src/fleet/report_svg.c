/*
 * report_svg.c - the pictures of the fleet report's HTML page, inline SVG
 * without scripts or references (report_int.h):
 *
 *  - per straggler and signal, the node against its peers over the whole
 *    range (x: the windows t0 + k * step): the peers' band (25th..75th
 *    percentile, or min..max in small groups) shaded, their median dashed,
 *    the node's line on top, the stretches it was out of step shaded
 *    behind; a NaN breaks a line and the band;
 *  - per group, a heat map of the persistent scores: one row per node, one
 *    column per window, colours in two ramps that meet at the threshold
 *    (greys and blues below it, oranges and reds above), the threshold
 *    marked on the legend, flagged nodes' names in red.
 *
 * Ranges wider than the picture are cut into buckets: a plot keeps each
 * bucket's min and max of the node (in time order: spikes survive), the
 * mean of the median and the outer edges of the band; a heat map keeps
 * each bucket's max, at most HEAT_COLS columns, and writes a row as runs
 * of equal colour, so a quiet row is one rectangle. A coordinate is always
 * a number: values map through clamped fractions, NaN onto the edge, and
 * nothing not finite is ever printed.
 */
#include "fleet/report_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "base/utf8.h"

enum {
	PLOT_W = 720, PLOT_H = 250,
	PLOT_L = 76, PLOT_R = 704, PLOT_T = 44, PLOT_B = 206,
	TITLE_Y = 16, KEY_Y = 34,
	KEY_SWATCH = 14, KEY_GAP = 18,
	TICK = 4, TICKS_WANTED = 5, TICKS_MAX = 12,
	HEAT_COLS = 600,                 /* most columns of a heat map */
	HEAT_L = 160, HEAT_T = 64,       /* left: node names; top: title and legend */
	HEAT_W = HEAT_L + HEAT_COLS + 20,
	HEAT_AXIS_H = 34,
	ROW_PX_MAX = 14, ROW_PX_LABEL = 9, ROWS_PX = 560,
	LABEL_CHARS = 22,                /* of a node name beside its row */
	LEVELS_HALF = 4,                 /* colours below and above the threshold */
	SWATCH = 30,
};
static const double PAD_FRAC = 0.05;   /* of the y range, above and below */
static const double FLAT_PAD = 0.1;    /* a flat series: +-10 % of its value */
static const double DOT_PX = 2;        /* a lone point is a dash this long */
static const double SPAN_MIN_PX = 2;   /* a stretch of one window still shows */
static const double ROW_PX_MIN = 1;
static const double CHAR_PX = 6.2;     /* the width of a character of the key's text */

/* Colours of the heat map: LEVELS_HALF below the threshold, as many above. */
static const char *const level_fill[2 * LEVELS_HALF] = {
	"#f1f3f5", "#d0ebff", "#a5d8ff", "#74c0fc",
	"#ffd8a8", "#ffa94d", "#f76707", "#c92a2a",
};
static const char NODATA_FILL[] = "#ced4da";

/* Data [lo, hi] onto pixels [p0, p1] (p1 < p0 for a y axis). */
struct axis {
	double lo, hi, p0, p1;
};

static double at(const struct axis *a, double v)
{
	double t = (v / 2 - a->lo / 2) / (a->hi / 2 - a->lo / 2);
	t = t >= 0 ? t : 0;  /* NaN too */
	t = t <= 1 ? t : 1;
	return a->p0 + t * (a->p1 - a->p0);
}

/* A step of 1, 2 or 5 times a power of ten near span / TICKS_WANTED. */
static double round_step(double span)
{
	double raw = span / TICKS_WANTED;
	if (!(raw > 0) || !isfinite(raw))
		return 0;
	double mag = pow(10, floor(log10(raw))), m = raw / mag;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * mag;
}

/* Tick spacing for a span of seconds: clock-friendly steps. */
static double clock_step(double span)
{
	static const double secs[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
				       3600, 7200, 10800, 21600, 43200, 86400 };
	double want = span / TICKS_WANTED;
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		if (want <= secs[i])
			return want < 1 ? round_step(span) : secs[i];
	}
	return round_step(span / 86400) * 86400;
}

/* The ticks in [lo, hi] step apart, at multiples of step; their count. */
static size_t tick_values(double lo, double hi, double step, double *v)
{
	size_t n = 0;
	if (!(step > 0) || !isfinite(lo) || !isfinite(hi))
		return 0;
	for (double t = ceil(lo / step) * step; t <= hi && n < TICKS_MAX; t += step) {
		if (n && t == v[n - 1])
			break;  /* step lost in t's precision */
		v[n++] = fabs(t) < step * 1e-9 ? 0 : t;
	}
	return n;
}

static void clock_label(double ts, double step, int days, char *buf, size_t n)
{
	struct tm tm;
	time_t t = (time_t)floor(ts);
	const char *fmt = step < 60 ? "%H:%M:%S" : step >= 86400 ? "%m-%d" : days ? "%m-%d %H:%M"
									       : "%H:%M";
	if (!isfinite(ts) || !gmtime_r(&t, &tm) || strftime(buf, n, fmt, &tm) == 0)
		snprintf(buf, n, "?");
}

/* <text> at x, y anchored as said, holding s escaped. */
static void wrapped_text(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	rv_fleet_rep_html_text(f, s);
	fputs("</text>", f);
}

/* The time axis under a picture whose bottom edge is at y. */
static void time_axis(FILE *f, const struct axis *x, double y, const char *name)
{
	double v[TICKS_MAX], step = clock_step(x->hi - x->lo);
	size_t n = tick_values(x->lo, x->hi, step, v);
	int days = floor(x->lo / 86400) != floor(x->hi / 86400);
	fputs("<g class=\"xaxis\">", f);
	for (size_t i = 0; i < n; i++) {
		char label[RV_FLEET_REP_CELL];
		double px = at(x, v[i]);
		clock_label(v[i], step, days, label, sizeof(label));
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", px, px, y,
			y + TICK);
		wrapped_text(f, px, y + TICK + 12, "middle", label);
	}
	fprintf(f, "<text class=\"axisname\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s"
		"</text></g>\n", (x->p0 + x->p1) / 2, y + TICK + 26, name);
}

/* ------------------------------------------------------------ plots */

/* One signal's plot: its axes and the buckets of windows. */
struct plot {
	const struct rv_fleet_result *r;
	const struct rv_fleet_signal *sig;
	struct axis x, y;
	size_t nb;            /* buckets: at most one per pixel column */
};

static void bucket(const struct plot *p, size_t k, size_t *a, size_t *b)
{
	*a = k * p->r->nwin / p->nb;
	*b = (k + 1) * p->r->nwin / p->nb;
}

static double win_x(const struct plot *p, size_t w)
{
	return at(&p->x, p->r->t0 + (double)w * p->r->step);
}

static void extent(const float *v, size_t n, double *lo, double *hi)
{
	for (size_t i = 0; v && i < n; i++) {
		if (isfinite(v[i])) {
			*lo = v[i] < *lo ? v[i] : *lo;
			*hi = v[i] > *hi ? v[i] : *hi;
		}
	}
}

static void plot_axes(struct plot *p)
{
	const struct rv_fleet_signal *s = p->sig;
	size_t n = p->r->nwin;
	double lo = INFINITY, hi = -INFINITY, t1 = p->r->t0 + (double)(n - 1) * p->r->step;
	p->nb = n < (size_t)(PLOT_R - PLOT_L) ? n : (size_t)(PLOT_R - PLOT_L);
	p->x = (struct axis){ p->r->t0, t1, PLOT_L, PLOT_R };
	if (!(t1 > p->r->t0))
		p->x = (struct axis){ p->r->t0 - 30, p->r->t0 + 30, PLOT_L, PLOT_R };
	extent(s->node_v, n, &lo, &hi);
	extent(s->median_v, n, &lo, &hi);
	extent(s->lo_v, n, &lo, &hi);
	extent(s->hi_v, n, &lo, &hi);
	if (lo > hi) {
		lo = 0;
		hi = 1;
	} else if (lo == hi) {
		double pad = fabs(lo) * FLAT_PAD;
		lo -= pad > 0 ? pad : 1;
		hi += pad > 0 ? pad : 1;
	}
	double m = (hi - lo) * PAD_FRAC;
	p->y = (struct axis){ lo - m, hi + m, PLOT_B, PLOT_T };
}

/* A path being written: its points so far in the current subpath. */
struct pen {
	FILE *f;
	size_t seg;
	double x, y;
};

static void pen_to(struct pen *p, double x, double y)
{
	fprintf(p->f, "%c%.1f,%.1f", p->seg ? 'L' : 'M', x, y);
	p->seg++;
	p->x = x;
	p->y = y;
}

static void pen_up(struct pen *p)
{
	if (p->seg == 1)  /* a lone point: a short dash, so that it shows */
		fprintf(p->f, "L%.1f,%.1f", p->x + DOT_PX, p->y);
	p->seg = 0;
}

/* The node: each bucket's min and max in time order; an empty bucket
 * lifts the pen. */
static void node_path(FILE *f, const struct plot *p)
{
	const float *v = p->sig->node_v;
	struct pen pen = { .f = f };
	for (size_t k = 0; k < p->nb; k++) {
		size_t a, b, lo = SIZE_MAX, hi = SIZE_MAX;
		bucket(p, k, &a, &b);
		for (size_t i = a; i < b; i++) {
			if (!isfinite(v[i]))
				continue;
			lo = lo == SIZE_MAX || v[i] < v[lo] ? i : lo;
			hi = hi == SIZE_MAX || v[i] > v[hi] ? i : hi;
		}
		if (lo == SIZE_MAX) {
			pen_up(&pen);
			continue;
		}
		size_t first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
		pen_to(&pen, win_x(p, first), at(&p->y, v[first]));
		if (second != first)
			pen_to(&pen, win_x(p, second), at(&p->y, v[second]));
	}
	pen_up(&pen);
}

/* A bucket's mean (how 0), min (how < 0) or max (how > 0) of v; NaN when
 * it has no finite value. */
static double reduce(const float *v, size_t a, size_t b, int how)
{
	double acc = how ? NAN : 0;
	size_t n = 0;
	for (size_t i = a; v && i < b; i++) {
		if (!isfinite(v[i]))
			continue;
		if (how == 0)
			acc += v[i];
		else if (n == 0 || (how < 0 ? v[i] < acc : v[i] > acc))
			acc = v[i];
		n++;
	}
	return n == 0 ? NAN : how ? acc : acc / (double)n;
}

static double mid_x(const struct plot *p, size_t k)
{
	size_t a, b;
	bucket(p, k, &a, &b);
	return win_x(p, a + (b - a - 1) / 2);
}

static void median_path(FILE *f, const struct plot *p)
{
	struct pen pen = { .f = f };
	for (size_t k = 0; k < p->nb; k++) {
		size_t a, b;
		bucket(p, k, &a, &b);
		double m = reduce(p->sig->median_v, a, b, 0);
		if (isnan(m))
			pen_up(&pen);
		else
			pen_to(&pen, mid_x(p, k), at(&p->y, m));
	}
	pen_up(&pen);
}

/* Bucket k's band edges; 0 when either is missing. */
static int band_at(const struct plot *p, size_t k, double *lo, double *hi)
{
	size_t a, b;
	bucket(p, k, &a, &b);
	*lo = reduce(p->sig->lo_v, a, b, -1);
	*hi = reduce(p->sig->hi_v, a, b, 1);
	return !isnan(*lo) && !isnan(*hi);
}

/* Each run of buckets with a band is one closed shape: along the lower
 * edge forwards, back along the upper; a run of one bucket gets a width. */
static void band_path(FILE *f, const struct plot *p)
{
	double lo, hi;
	for (size_t k = 0; k < p->nb;) {
		if (!band_at(p, k, &lo, &hi)) {
			k++;
			continue;
		}
		size_t end = k + 1;
		while (end < p->nb && band_at(p, end, &lo, &hi))
			end++;
		double w = end - k == 1 ? DOT_PX / 2 : 0;
		for (size_t i = k; i < end; i++) {
			band_at(p, i, &lo, &hi);
			fprintf(f, "%c%.1f,%.1f", i == k ? 'M' : 'L', mid_x(p, i) - w, at(&p->y, lo));
		}
		for (size_t i = end; i-- > k;) {
			band_at(p, i, &lo, &hi);
			fprintf(f, "L%.1f,%.1f", mid_x(p, i) + w, at(&p->y, hi));
		}
		fputs("Z", f);
		k = end;
	}
}

static void stretch_rects(FILE *f, const struct plot *p, const struct rv_fleet_straggler *s)
{
	for (size_t i = 0; s->stretch && i < s->nstretch; i++) {
		const struct rv_fleet_stretch *st = &s->stretch[i];
		char span[2 * RV_FLEET_REP_CELL];
		double x0 = at(&p->x, st->start), x1 = at(&p->x, st->end);
		if (x1 - x0 < SPAN_MIN_PX)
			x1 = x0 + SPAN_MIN_PX;
		rv_fleet_rep_span(p->r, st, span, sizeof(span));
		fprintf(f, "<rect class=\"out\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
			"<title>out of step %s</title></rect>\n", x0, PLOT_T, x1 - x0,
			PLOT_B - PLOT_T, span);
	}
}

/* The value ticks: their grid lines as one path, then their labels. */
static void value_axis(FILE *f, const struct plot *p)
{
	double v[TICKS_MAX], step = round_step(p->y.hi - p->y.lo);
	size_t n = tick_values(p->y.lo, p->y.hi, step, v);
	fputs("<g class=\"yaxis\"><path class=\"grid\" d=\"", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "M%d,%.1fH%d", PLOT_L, at(&p->y, v[i]), PLOT_R);
	fputs("\"/>", f);
	for (size_t i = 0; i < n; i++) {
		char label[RV_FLEET_REP_CELL];
		rv_fleet_rep_qty(v[i], p->sig->channel, step, label, sizeof(label));
		wrapped_text(f, PLOT_L - TICK - 2, at(&p->y, v[i]) + 4, "end", label);
	}
	fputs("</g>\n", f);
}

/* A key entry at x: a swatch of class cls and its words; returns where
 * the next entry starts. */
static double key_entry(FILE *f, double x, const char *cls, const char *words)
{
	fprintf(f, "<rect class=\"%s\" x=\"%.0f\" y=\"%d\" width=\"%d\" height=\"8\"/>", cls, x,
		KEY_Y - 8, KEY_SWATCH);
	wrapped_text(f, x + KEY_SWATCH + 4, KEY_Y, "start", words);
	return x + KEY_SWATCH + 4 + CHAR_PX * (double)strlen(words) + KEY_GAP;
}

static void plot_key(FILE *f)
{
	double x = PLOT_L;
	fputs("<g class=\"key\">", f);
	x = key_entry(f, x, "k-node", "node");
	x = key_entry(f, x, "k-median", "peers' median");
	x = key_entry(f, x, "k-band", "peers' band");
	key_entry(f, x, "k-out", "out of step");
	fputs("</g>\n", f);
}

/* The title line: the channel and the node against its peers. */
static void plot_title(FILE *f, const struct plot *p, const struct rv_fleet_straggler *s)
{
	const struct rv_fleet_signal *g = p->sig;
	char v[RV_FLEET_REP_CELL], m[RV_FLEET_REP_CELL], d[RV_FLEET_REP_CELL];
	rv_fleet_rep_qty(g->value, g->channel, 0, v, sizeof(v));
	rv_fleet_rep_qty(g->median, g->channel, 0, m, sizeof(m));
	rv_fleet_rep_diff(g->value, g->median, g->channel, d, sizeof(d));
	fprintf(f, "<text class=\"ptitle\" x=\"%d\" y=\"%d\">", PLOT_L, TITLE_Y);
	rv_fleet_rep_html_text(f, g->channel);
	fputs("<tspan class=\"sub\"> ", f);
	rv_fleet_rep_html_text(f, s->node);
	fprintf(f, " %s, peers %s (%s)</tspan></text>\n", v, m, d);
}

void rv_fleet_rep_svg_signal(FILE *f, const struct rv_fleet_result *r,
			     const struct rv_fleet_straggler *s, const struct rv_fleet_signal *sig)
{
	struct plot p = { .r = r, .sig = sig };
	if (!sig->node_v || r->nwin == 0)
		return;
	plot_axes(&p);
	fprintf(f, "<svg class=\"plot\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", PLOT_W,
		PLOT_H);
	rv_fleet_rep_html_text(f, sig->channel);
	fprintf(f, "\">\n<rect class=\"bg\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		PLOT_L, PLOT_T, PLOT_R - PLOT_L, PLOT_B - PLOT_T);
	stretch_rects(f, &p, s);
	fputs("<path class=\"band\" d=\"", f);
	band_path(f, &p);
	fputs("\"><title>the peers' band</title></path>\n", f);
	value_axis(f, &p);
	time_axis(f, &p.x, PLOT_B, "time (UTC)");
	fputs("<path class=\"median\" d=\"", f);
	median_path(f, &p);
	fputs("\"><title>the peers' median</title></path>\n<path class=\"node\" d=\"", f);
	node_path(f, &p);
	fputs("\"><title>the node</title></path>\n", f);
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		PLOT_L, PLOT_T, PLOT_R - PLOT_L, PLOT_B - PLOT_T);
	plot_title(f, &p, s);
	plot_key(f);
	fputs("</svg>\n", f);
}

/* -------------------------------------------------------- heat maps */

struct heat {
	const struct rv_fleet_result *r;
	const struct rv_fleet_group *g;
	size_t ncol;
	double thr, top;      /* the threshold and the top of the colour scale */
	double row_px;
};

/* Colour level of a score: -1 no data, 0.. below the threshold, from
 * LEVELS_HALF at and above it. */
static int level(const struct heat *h, double v)
{
	if (isnan(v))
		return -1;
	if (!(v > 0))
		return 0;
	if (v < h->thr) {
		int l = (int)floor(v / h->thr * LEVELS_HALF);
		return l < 0 ? 0 : l < LEVELS_HALF ? l : LEVELS_HALF - 1;
	}
	double t = (v - h->thr) / (h->top - h->thr) * LEVELS_HALF;
	int l = LEVELS_HALF + (t < LEVELS_HALF ? (int)floor(t) : LEVELS_HALF - 1);
	return l;
}

/* The max of column c of row n; NaN when it has no score. */
static double cell(const struct heat *h, size_t n, size_t c)
{
	size_t nwin = h->r->nwin, a = c * nwin / h->ncol, b = (c + 1) * nwin / h->ncol;
	return reduce(h->g->score + n * nwin, a, b, 1);
}

static void heat_scale(struct heat *h)
{
	double gmax = reduce(h->g->score, 0, h->g->nnodes * h->r->nwin, 1);
	h->thr = h->r->threshold;
	if (!(h->thr > 0) || !isfinite(h->thr)) {
		h->top = isfinite(gmax) && gmax > 0 ? gmax : 1;
		h->thr = h->top / 2;
	} else {
		h->top = isfinite(gmax) && gmax > 2 * h->thr ? gmax : 2 * h->thr;
	}
	h->ncol = h->r->nwin < HEAT_COLS ? h->r->nwin : HEAT_COLS;
	double px = (double)ROWS_PX / (double)(h->g->nnodes ? h->g->nnodes : 1);
	h->row_px = px > ROW_PX_MAX ? ROW_PX_MAX : px < ROW_PX_MIN ? ROW_PX_MIN : px;
}

/* A node's name beside its row, cut to LABEL_CHARS code points; the
 * whole name and its peak in the tooltip. */
static void row_label(FILE *f, const struct heat *h, size_t n, double y)
{
	const char *node = rv_fleet_rep_str(h->g->node ? h->g->node[n] : NULL);
	int flag = rv_fleet_rep_flagged(h->r, h->g->name, node);
	char peak[RV_FLEET_REP_CELL];
	rv_fleet_rep_score(reduce(h->g->score + n * h->r->nwin, 0, h->r->nwin, 1), peak,
			   sizeof(peak));
	fprintf(f, "<text class=\"%s\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\"><title>",
		flag ? "row flag" : "row", HEAT_L - 6, y + h->row_px - 3);
	rv_fleet_rep_html_text(f, node);
	fprintf(f, ": peak score %s%s</title>", peak, flag ? ", straggler" : "");
	size_t off = 0;
	for (size_t cp = 0; node[off] && cp < LABEL_CHARS; cp++) {
		size_t len = rv_utf8_len((const unsigned char *)node + off);
		off += len ? len : 1;
	}
	char cut[4 * LABEL_CHARS + 1];
	memcpy(cut, node, off);
	cut[off] = '\0';
	rv_fleet_rep_html_text(f, cut);
	fputs(node[off] ? "\xE2\x80\xA6</text>\n" : "</text>\n", f);  /* an ellipsis */
}

/* Row n at y: one rectangle of the lowest colour, then each run of
 * columns of another level. */
static void heat_row(FILE *f, const struct heat *h, size_t n, double y)
{
	double cw = (double)HEAT_COLS / (double)h->ncol;
	fprintf(f, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"/>", HEAT_L,
		y, HEAT_COLS, h->row_px, level_fill[0]);
	for (size_t c = 0; c < h->ncol;) {
		int l = level(h, cell(h, n, c));
		size_t end = c + 1;
		while (end < h->ncol && level(h, cell(h, n, end)) == l)
			end++;
		if (l != 0)
			fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				"fill=\"%s\"/>", HEAT_L + (double)c * cw, y,
				(double)(end - c) * cw, h->row_px, l < 0 ? NODATA_FILL : level_fill[l]);
		c = end;
	}
	fputc('\n', f);
	if (h->row_px >= ROW_PX_LABEL)
		row_label(f, h, n, y);
}

/* The colour scale: the ramps' swatches, 0, the threshold (marked) and
 * the top under them, and the no-data swatch. */
static void heat_legend(FILE *f, const struct heat *h)
{
	double x0 = HEAT_L, y = 26;
	char a[RV_FLEET_REP_CELL], b[RV_FLEET_REP_CELL];
	fputs("<g class=\"legend\">", f);
	for (int l = 0; l < 2 * LEVELS_HALF; l++)
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"10\" fill=\"%s\"/>",
			x0 + l * SWATCH, y, SWATCH, level_fill[l]);
	double xt = x0 + LEVELS_HALF * SWATCH, xe = x0 + 2 * LEVELS_HALF * SWATCH;
	rv_fleet_rep_score(h->thr, a, sizeof(a));
	rv_fleet_rep_score(h->top, b, sizeof(b));
	fprintf(f, "<path class=\"thr\" d=\"M%.0f,%.0fL%.0f,%.0f\"><title>the threshold</title></path>"
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">0</text>"
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">threshold %s</text>"
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>", xt, y - 4, xt,
		y + 14, x0, y + 24, xt, y + 24, a, xe, y + 24, b);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"10\" fill=\"%s\"/>"
		"<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">no data</text></g>\n",
		xe + SWATCH, y, SWATCH, NODATA_FILL, xe + 1.5 * SWATCH, y + 24);
}

void rv_fleet_rep_svg_heat(FILE *f, const struct rv_fleet_result *r, const struct rv_fleet_group *g)
{
	struct heat h = { .r = r, .g = g };
	if (!g->score || g->nnodes == 0 || r->nwin == 0)
		return;
	heat_scale(&h);
	double rows_h = (double)g->nnodes * h.row_px, height = HEAT_T + rows_h + HEAT_AXIS_H;
	size_t per = (r->nwin + h.ncol - 1) / h.ncol;
	fprintf(f, "<svg class=\"heat\" viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"persistent "
		"scores\">\n<text class=\"ptitle\" x=\"%d\" y=\"%d\">persistent score per node and "
		"window%s</text>\n", HEAT_W, ceil(height), HEAT_L, TITLE_Y,
		per > 1 ? " (each column the max of its windows)" : "");
	heat_legend(f, &h);
	for (size_t n = 0; n < g->nnodes; n++)
		heat_row(f, &h, n, HEAT_T + (double)n * h.row_px);
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%.2f\"/>\n",
		HEAT_L, HEAT_T, HEAT_COLS, rows_h);
	struct axis x = { r->t0, r->t0 + (double)r->nwin * r->step, HEAT_L, HEAT_L + HEAT_COLS };
	if (!(x.hi > x.lo))
		x.hi = x.lo + 1;
	time_axis(f, &x, HEAT_T + rows_h, "time (UTC)");
	fputs("</svg>\n", f);
}
