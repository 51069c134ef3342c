/*
 * compare.c - the measures of `reveal compare` (compare.h): the range both
 * runs cover, IoU of their anomalous time, incident hit rates both ways
 * and the table matching incidents. Everything is intervals of time, so
 * runs with different steps compare; sorted sweeps keep it O(n log n) in
 * windows and incidents.
 */
#include "pipeline/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/compare_int.h"

/* An interval (s, e] of time; idx: the window or incident it came from. */
struct ivl {
	double s, e;
	size_t idx;
};

void rv_compare_run_init(struct rv_compare_run *r, const char *name, const char *kind,
			 double step)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->kind = kind;
	r->step = step;
}

void rv_compare_run_fini(struct rv_compare_run *r)
{
	if (!r)
		return;
	free(r->ts);
	free(r->anomaly);
	free(r->inc);
	r->ts = NULL;
	r->anomaly = NULL;
	r->inc = NULL;
	r->nwin = r->ninc = r->capinc = 0;
}

int rv_compare_run_add(struct rv_compare_run *r, const struct rv_compare_incident *in,
		       struct rv_err *err)
{
	if (!isfinite(in->start_ts) || !isfinite(in->end_ts) || in->end_ts < in->start_ts)
		return rv_err_set(err, -EINVAL, "%s: incident %llu ends (%.3f) before it starts"
				  " (%.3f) or has no time", r->name, (unsigned long long)in->id,
				  in->end_ts, in->start_ts);
	if (r->ninc == RV_COMPARE_INCIDENTS_MAX)
		return rv_err_set(err, -E2BIG, "%s: more than %d incidents", r->name,
				  RV_COMPARE_INCIDENTS_MAX);
	if (r->ninc == r->capinc) {
		size_t cap = r->capinc ? r->capinc * 2 : 64;
		struct rv_compare_incident *p = realloc(r->inc, cap * sizeof(*p));
		if (!p)
			return rv_err_set(err, -ENOMEM, "%s: out of memory", r->name);
		r->inc = p;
		r->capinc = cap;
	}
	r->inc[r->ninc++] = *in;
	return 0;
}

void rv_compare_result_fini(struct rv_compare_result *r)
{
	if (!r)
		return;
	free(r->pair);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------ the range */

/* The time a run's windows cover, (from, to]; a run without windows (a
 * store) bounds nothing. */
static void run_span(const struct rv_compare_run *r, double *from, double *to)
{
	*from = r->nwin ? r->ts[0] - r->step : -INFINITY;
	*to = r->nwin ? r->ts[r->nwin - 1] : INFINITY;
}

/* Widens [*lo, *hi] to the time r's incidents cover. */
static void incident_extent(const struct rv_compare_run *r, double *lo, double *hi)
{
	for (size_t i = 0; i < r->ninc; i++) {
		*lo = fmin(*lo, r->inc[i].start_ts - r->step);
		*hi = fmax(*hi, r->inc[i].end_ts);
	}
}

static void span_text(const struct rv_compare_run *r, char *buf, size_t n)
{
	char f[RV_COMPARE_ISO_MAX], t[RV_COMPARE_ISO_MAX];
	double from, to;

	run_span(r, &from, &to);
	if (!r->nwin) {
		snprintf(buf, n, "%s (a store: any time)", r->name);
		return;
	}
	rv_compare_iso(from, f, sizeof(f));
	rv_compare_iso(to, t, sizeof(t));
	snprintf(buf, n, "%s covers %s .. %s", r->name, f, t);
}

/*
 * The range compared: the time both runs cover inside [since, until]. An
 * end neither run nor the caller bounds is that of the incidents of
 * either; NaN when there are none. -EINVAL when a run with windows shares
 * no time with the other and the bounds.
 */
static int resolve_range(const struct rv_compare_run *a, const struct rv_compare_run *b,
			 double since, double until, double *from, double *to, struct rv_err *err)
{
	double fa, ta, fb, tb, lo = INFINITY, hi = -INFINITY;

	run_span(a, &fa, &ta);
	run_span(b, &fb, &tb);
	*from = fmax(fmax(fa, fb), since);
	*to = fmin(fmin(ta, tb), until);
	incident_extent(a, &lo, &hi);
	incident_extent(b, &lo, &hi);
	if (*from == -INFINITY)
		*from = lo <= hi ? lo : *to;
	if (*to == INFINITY)
		*to = lo <= hi ? hi : *from;
	if (!isfinite(*from) || !isfinite(*to)) {
		*from = *to = NAN;   /* two stores without incidents or bounds */
		return 0;
	}
	if (*to > *from || (!a->nwin && !b->nwin)) {
		*to = fmax(*to, *from);
		return 0;
	}
	char sa[RV_ERR_MSG_MAX / 2], sb[RV_ERR_MSG_MAX / 2];
	char f[RV_COMPARE_ISO_MAX], t[RV_COMPARE_ISO_MAX];
	span_text(a, sa, sizeof(sa));
	span_text(b, sb, sizeof(sb));
	rv_compare_iso(since, f, sizeof(f));
	rv_compare_iso(until, t, sizeof(t));
	if (isfinite(since) || isfinite(until))
		return rv_err_set(err, -EINVAL, "%s and %s: the runs share no time inside the"
				  " range asked (%s .. %s)", sa, sb, f, t);
	return rv_err_set(err, -EINVAL, "%s and %s: the runs do not overlap in time", sa, sb);
}

/* ------------------------------------------------------ anomalous time */

static void add_clipped(struct ivl *v, size_t *k, double s, double e, double from, double to,
			size_t idx)
{
	s = fmax(s, from);
	e = fmin(e, to);
	if (e > s)
		v[(*k)++] = (struct ivl){ s, e, idx };
}

static int by_start(const void *x, const void *y)
{
	const struct ivl *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Joins overlapping or touching intervals of v (sorted by start); returns
 * how many are left. */
static size_t merge_ivl(struct ivl *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && v[i].s <= v[k - 1].e)
			v[k - 1].e = fmax(v[k - 1].e, v[i].e);
		else
			v[k++] = v[i];
	}
	return k;
}

/* The run's anomalous time inside (from, to] as disjoint intervals in
 * order (*out, the caller frees): its anomalous windows, or (a store) the
 * time its incidents cover. 0 or -ENOMEM. */
static int anomalous_time(const struct rv_compare_run *r, double from, double to,
			  struct ivl **out, size_t *n)
{
	size_t cap = r->nwin ? r->nwin : r->ninc, k = 0;
	struct ivl *v = malloc((cap ? cap : 1) * sizeof(*v));

	*out = v;
	*n = 0;
	if (!v)
		return -ENOMEM;
	if (r->nwin) {
		for (size_t i = 0; i < r->nwin; i++)
			if (r->anomaly[i])
				add_clipped(v, &k, r->ts[i] - r->step, r->ts[i], from, to, i);
	} else {
		for (size_t i = 0; i < r->ninc; i++)
			add_clipped(v, &k, r->inc[i].start_ts - r->step, r->inc[i].end_ts, from, to,
				    i);
		qsort(v, k, sizeof(*v), by_start);
	}
	*n = merge_ivl(v, k);
	return 0;
}

static double total(const struct ivl *v, size_t n)
{
	double t = 0;

	for (size_t i = 0; i < n; i++)
		t += v[i].e - v[i].s;
	return t;
}

/* The time two lists of disjoint sorted intervals have in common. */
static double common(const struct ivl *a, size_t na, const struct ivl *b, size_t nb)
{
	double t = 0;
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		double s = fmax(a[i].s, b[j].s), e = fmin(a[i].e, b[j].e);
		if (e > s)
			t += e - s;
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	return t;
}

static void count_windows(const struct rv_compare_run *r, double from, double to,
			  struct rv_compare_side *s)
{
	for (size_t i = 0; i < r->nwin; i++) {
		if (r->ts[i] > from && r->ts[i] <= to) {
			s->windows++;
			s->flagged += r->anomaly[i];
		} else {
			s->windows_out++;
		}
	}
}

/* IoU of the anomalous time and each side's share of it. */
static int measure_time(const struct rv_compare_run *a, const struct rv_compare_run *b,
			struct rv_compare_result *out)
{
	struct ivl *va = NULL, *vb = NULL;
	size_t na = 0, nb = 0;
	int rc = anomalous_time(a, out->from, out->to, &va, &na);

	if (rc == 0)
		rc = anomalous_time(b, out->from, out->to, &vb, &nb);
	if (rc == 0) {
		out->a.anomalous_s = total(va, na);
		out->b.anomalous_s = total(vb, nb);
		out->both_s = common(va, na, vb, nb);
		out->either_s = out->a.anomalous_s + out->b.anomalous_s - out->both_s;
		out->iou = out->either_s > 0 ? out->both_s / out->either_s : 1.0;
		count_windows(a, out->from, out->to, &out->a);
		count_windows(b, out->from, out->to, &out->b);
		if (!a->nwin)
			out->a.flagged = (size_t)llround(out->a.anomalous_s / a->step);
		if (!b->nwin)
			out->b.flagged = (size_t)llround(out->b.anomalous_s / b->step);
	}
	free(va);
	free(vb);
	return rc;
}

/* ---------------------------------------------------------- incidents */

/* The run's incidents that overlap (from, to], as the time each covers
 * there, sorted by start (*out), with pmax[j] the latest end of
 * out[0..j]; the others counted in s->incidents_out. 0 or -ENOMEM. */
static int incident_view(const struct rv_compare_run *r, double from, double to,
			 struct ivl **out, double **pmax, size_t *n, struct rv_compare_side *s)
{
	size_t k = 0;
	struct ivl *v = malloc((r->ninc ? r->ninc : 1) * sizeof(*v));
	double *p = malloc((r->ninc ? r->ninc : 1) * sizeof(*p));

	*out = v;
	*pmax = p;
	*n = 0;
	if (!v || !p)
		return -ENOMEM;
	for (size_t i = 0; i < r->ninc; i++)
		add_clipped(v, &k, r->inc[i].start_ts - r->step, r->inc[i].end_ts, from, to, i);
	qsort(v, k, sizeof(*v), by_start);
	for (size_t j = 0; j < k; j++)
		p[j] = j ? fmax(p[j - 1], v[j].e) : v[j].e;
	*n = k;
	s->incidents = k;
	s->incidents_out = r->ninc - k;
	return 0;
}

/*
 * The incident of v (n of them, sorted by start, pmax as above) that
 * overlaps (s, e] longest, the earlier on a tie: its position in v, or
 * RV_COMPARE_NONE; *overlap gets the time in common.
 */
static size_t best_match(const struct ivl *v, const double *pmax, size_t n, double s, double e,
			 double *overlap)
{
	size_t lo = 0, hi = n, best = RV_COMPARE_NONE;
	double most = 0;

	while (lo < hi) {   /* the first that starts at or after e */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].s < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j-- > 0 && pmax[j] > s;) {
		double o = fmin(e, v[j].e) - fmax(s, v[j].s);
		if (o > 0 && o >= most) {   /* walking back: a tie goes to the earlier */
			most = o;
			best = j;
		}
	}
	*overlap = most;
	return best;
}

static void hit_rate(struct rv_compare_side *s)
{
	s->hit_rate = s->incidents ? (double)s->hit / (double)s->incidents : NAN;
}

/* Hit rates both ways and the table: A's incidents with their match, then
 * B's that match none. */
static int match_incidents(const struct rv_compare_run *a, const struct rv_compare_run *b,
			   struct rv_compare_result *out)
{
	struct ivl *va = NULL, *vb = NULL;
	double *pa = NULL, *pb = NULL, o;
	size_t na = 0, nb = 0;
	int rc = incident_view(a, out->from, out->to, &va, &pa, &na, &out->a);

	if (rc == 0)
		rc = incident_view(b, out->from, out->to, &vb, &pb, &nb, &out->b);
	if (rc == 0 && !(out->pair = malloc((na + nb ? na + nb : 1) * sizeof(*out->pair))))
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < na; i++) {
		size_t j = best_match(vb, pb, nb, va[i].s, va[i].e, &o);
		out->a.hit += j != RV_COMPARE_NONE;
		out->pair[out->npair++] = (struct rv_compare_pair){
			va[i].idx, j == RV_COMPARE_NONE ? j : vb[j].idx, o };
	}
	for (size_t j = 0; rc == 0 && j < nb; j++) {
		if (best_match(va, pa, na, vb[j].s, vb[j].e, &o) != RV_COMPARE_NONE)
			out->b.hit++;
		else
			out->pair[out->npair++] = (struct rv_compare_pair){ RV_COMPARE_NONE,
									     vb[j].idx, 0 };
	}
	hit_rate(&out->a);
	hit_rate(&out->b);
	free(va);
	free(vb);
	free(pa);
	free(pb);
	return rc;
}

int rv_compare_runs(const struct rv_compare_run *a, const struct rv_compare_run *b,
		    double since, double until, struct rv_compare_result *out,
		    struct rv_err *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = resolve_range(a, b, since, until, &out->from, &out->to, err);
	if (rc == 0 && isnan(out->from)) {   /* nothing to compare: full agreement */
		out->iou = 1.0;
		out->a.incidents_out = a->ninc;
		out->b.incidents_out = b->ninc;
		hit_rate(&out->a);
		hit_rate(&out->b);
		return 0;
	}
	if (rc == 0)
		rc = measure_time(a, b, out);
	if (rc == 0)
		rc = match_incidents(a, b, out);
	if (rc == -ENOMEM)
		rv_err_set(err, rc, "comparing %s with %s: out of memory", a->name, b->name);
	if (rc != 0)
		rv_compare_result_fini(out);
	return rc;
}
