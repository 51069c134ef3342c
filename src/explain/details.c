/*
 * details.c - evidence, likely causes, plot series and chain of one
 * incident. See details.h.
 */
#include "explain/details.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { CHAIN_STRONGEST = 10 };

struct rv_details_opts rv_details_defaults(double window_s)
{
	struct rv_details_opts o = {
		.window_s = window_s > 0 && isfinite(window_s) ? window_s : 0,
		.base_s = 120,
		.pre_s = 60,
		.post_s = 15,
		.max_points = 600,
		.min_confidence = 0.3,
		.base_from = NAN,
		.base_to = NAN,
	};
	return o;
}

void rv_details_free(struct rv_details *d)
{
	if (!d)
		return;
	rv_evidence_free(&d->ev);
	for (size_t i = 0; i < d->nseries; i++) {
		free(d->series[i].ts);
		free(d->series[i].v);
	}
	memset(d, 0, sizeof(*d));
}

/* First row whose time is >= t (nrows when none). */
static size_t first_row_at(const struct rv_ev_source *src, double t)
{
	size_t lo = 0, hi = src->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (src->ts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static ptrdiff_t channel_of(const struct rv_ev_source *src, const char *name)
{
	for (size_t c = 0; c < src->nchan; c++)
		if (strcmp(src->names[c], name) == 0)
			return (ptrdiff_t)c;
	return -1;
}

/* The samples of channel c over [t0, t1], averaged into at most max
 * buckets of equal time. */
static int make_series(const struct rv_ev_source *src, size_t c, double t0, double t1,
		       size_t max, struct rv_details_series *out)
{
	size_t r0 = first_row_at(src, t0), r1 = first_row_at(src, nextafter(t1, INFINITY));
	size_t rows = r1 > r0 ? r1 - r0 : 0;
	size_t n = rows <= max ? rows : max;

	out->name = src->names[c];
	out->n = 0;
	if (n == 0)
		return 0;
	out->ts = malloc(n * sizeof(*out->ts));
	out->v = malloc(n * sizeof(*out->v));
	if (!out->ts || !out->v)
		return -ENOMEM;
	if (rows <= max) {
		for (size_t i = 0; i < n; i++) {
			out->ts[i] = src->ts[r0 + i];
			out->v[i] = src->get(src->ctx, r0 + i, c);
		}
		out->n = n;
		return 0;
	}
	double width = (t1 - t0) / (double)n;
	size_t r = r0;
	for (size_t b = 0; b < n; b++) {
		double hi = b + 1 == n ? INFINITY : t0 + width * (double)(b + 1);
		double sum = 0;
		size_t k = 0;
		for (; r < r1 && src->ts[r] < hi; r++) {
			float v = src->get(src->ctx, r, c);
			if (isfinite(v)) {
				sum += v;
				k++;
			}
		}
		out->ts[b] = t0 + width * ((double)b + 0.5);
		out->v[b] = k ? (float)(sum / (double)k) : NAN;
	}
	out->n = n;
	return 0;
}

static int have_series(const struct rv_details *d, const char *name)
{
	for (size_t i = 0; i < d->nseries; i++)
		if (strcmp(d->series[i].name, name) == 0)
			return 1;
	return 0;
}

static int add_series(struct rv_details *d, const struct rv_ev_source *src, const char *name,
		      double t0, double t1, size_t max)
{
	ptrdiff_t c;
	int rc;

	if (d->nseries >= RV_DETAILS_SERIES_MAX || !name || have_series(d, name))
		return 0;
	c = channel_of(src, name);
	if (c < 0)
		return 0;  /* a skew entry, or a channel the source lacks */
	rc = make_series(src, (size_t)c, t0, t1, max, &d->series[d->nseries]);
	d->nseries++;  /* counted even on failure, so free releases it */
	return rc;
}

void rv_details_clean_baseline(double start, const double (*busy)[2], size_t nbusy,
			       double base_s, double min_s, double settle_s, double oldest,
			       double *from, double *to)
{
	double lo = start - base_s, last_end = -INFINITY, first = start;

	*from = lo > oldest ? lo : oldest;
	*to = start;
	for (size_t i = 0; i < nbusy; i++) {
		if (!(busy[i][0] < start) || !(busy[i][1] > lo))
			continue;       /* begun after it, or ended before its baseline */
		if (busy[i][1] > last_end)
			last_end = busy[i][1];
		if (busy[i][0] < first)
			first = busy[i][0];
	}
	if (last_end == -INFINITY)
		return;
	if (start - (last_end + settle_s) >= min_s) {
		*from = last_end + settle_s;
		return;
	}
	if (first - oldest >= min_s) {
		*to = first;
		*from = first - base_s > oldest ? first - base_s : oldest;
	}
}

int rv_details_build(const struct rv_ev_source *src, const struct rv_kb *kb, double start_ts,
		     double end_ts, const char *const *top, size_t ntop,
		     const struct rv_details_opts *o, struct rv_details *d, struct rv_err *err)
{
	int rc;

	if (!src || !o || !d || (ntop && !top))
		return rv_err_set(err, -EINVAL, "details: missing argument");
	memset(d, 0, sizeof(*d));
	d->start_ts = start_ts - o->window_s;
	d->end_ts = end_ts;
	d->base_to = d->start_ts;
	d->base_from = d->base_to - o->base_s;
	if (isfinite(o->base_from) && isfinite(o->base_to) && o->base_from < o->base_to &&
	    o->base_to <= d->start_ts) {
		d->base_from = o->base_from;
		d->base_to = o->base_to;
	}
	rc = rv_evidence_build(src, d->base_from, d->base_to, d->start_ts, d->end_ts, &d->ev, err);
	if (rc < 0)
		return rc;
	if (kb)
		d->nmatch = rv_kb_match(kb, &d->ev, o->min_confidence, d->match, RV_KB_MATCH_MAX);
	double t0 = d->start_ts - o->pre_s, t1 = end_ts + o->post_s;
	size_t max = o->max_points ? o->max_points : 600;
	for (size_t i = 0; rc == 0 && i < ntop; i++)
		rc = add_series(d, src, top[i], t0, t1, max);
	for (size_t i = 0; rc == 0 && d->nmatch && i < d->match[0].nev; i++)
		rc = add_series(d, src, d->match[0].ev[i].sig->name, t0, t1, max);
	if (rc < 0) {
		rv_details_free(d);
		return rv_err_set(err, rc, "details: out of memory");
	}
	return 0;
}

static int named_in(const char *name, const char *const *top, size_t ntop)
{
	for (size_t i = 0; i < ntop; i++)
		if (top[i] && strcmp(top[i], name) == 0)
			return 1;
	return 0;
}

static int by_abs_z(const void *a, const void *b, void *ctx)
{
	const struct rv_evidence *ev = ctx;
	double za = fabs(ev->sig[*(const size_t *)a].z);
	double zb = fabs(ev->sig[*(const size_t *)b].z);

	if (za != zb)
		return za > zb ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Indices of the moved entries (skew ones too when with_skew), strongest
 * first; caller frees. */
static size_t *movers(const struct rv_evidence *ev, int with_skew, size_t *n)
{
	size_t *idx = malloc((ev->n ? ev->n : 1) * sizeof(*idx));

	*n = 0;
	if (!idx)
		return NULL;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->sig[i].dir != 0 && isfinite(ev->sig[i].z) && (with_skew || !ev->sig[i].skew))
			idx[(*n)++] = i;
	qsort_r(idx, *n, sizeof(*idx), by_abs_z, (void *)ev);
	return idx;
}

size_t rv_details_keep(const struct rv_evidence *ev, const char *const *top, size_t ntop,
		       size_t *idx, size_t max)
{
	size_t nmov, k = 0;
	size_t *mov;

	if (!ev || !idx)
		return 0;
	for (size_t t = 0; t < ntop && k < max; t++) {
		for (size_t i = 0; i < ev->n; i++) {
			if (top[t] && strcmp(ev->sig[i].name, top[t]) == 0) {
				idx[k++] = i;
				break;
			}
		}
	}
	mov = movers(ev, 1, &nmov);
	for (size_t m = 0; mov && m < nmov && k < max; m++)
		if (!named_in(ev->sig[mov[m]].name, top, ntop))
			idx[k++] = mov[m];
	free(mov);
	return k;
}

static int candidate(const struct rv_evidence_sig *s, const char *const *top, size_t ntop,
		     const struct rv_kb_match *match, size_t nmatch, int strong)
{
	if (s->skew || s->dir == 0 || !isfinite(s->onset_ts))
		return 0;
	if (strong || named_in(s->name, top, ntop))
		return 1;
	for (size_t m = 0; m < nmatch; m++)
		for (size_t e = 0; e < match[m].nev; e++)
			if (match[m].ev[e].sig == s)
				return 1;
	return 0;
}

size_t rv_chain_build(const struct rv_evidence *ev, const char *const *top, size_t ntop,
		      const struct rv_kb_match *match, size_t nmatch, struct rv_chain_step *out,
		      size_t max)
{
	const struct rv_evidence_sig *first[RV_SUB_COUNT] = { 0 };
	size_t nmov, n = 0;
	size_t *mov;

	if (!ev || !out)
		return 0;
	mov = movers(ev, 0, &nmov);
	for (size_t i = 0; i < ev->n; i++) {
		const struct rv_evidence_sig *s = &ev->sig[i];
		int strong = 0;
		for (size_t m = 0; mov && m < nmov && m < CHAIN_STRONGEST; m++)
			strong |= mov[m] == i;
		if (!candidate(s, top, ntop, match, nmatch, strong))
			continue;
		enum rv_subsystem sub = rv_catalog_subsystem(s->name);
		const struct rv_evidence_sig *f = first[sub];
		if (!f || s->onset_ts < f->onset_ts ||
		    (s->onset_ts == f->onset_ts && fabs(s->z) > fabs(f->z)))
			first[sub] = s;
	}
	free(mov);
	for (int sub = 0; sub < RV_SUB_COUNT; sub++) {
		if (!first[sub])
			continue;
		/* insertion in onset order */
		size_t at = n;
		while (at > 0 && out[at - 1].sig->onset_ts > first[sub]->onset_ts)
			at--;
		if (at >= max)
			continue;
		if (n == max)
			n--;
		memmove(&out[at + 1], &out[at], (n - at) * sizeof(*out));
		out[at].sig = first[sub];
		out[at].sub = (enum rv_subsystem)sub;
		n++;
	}
	return n;
}
