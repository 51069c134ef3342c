/*
 * evidence.c - per-channel statistics of an incident against its baseline,
 * and the per-CPU skew entries. See evidence.h.
 *
 * The rows are in time order, so the baseline, the stretch searched for an
 * onset ([base_to, end_ts]) and the incident are index ranges found once.
 * Each channel's values over those rows are copied into one scratch array
 * (allocated once per build) and summarised from it; a skew family's
 * series is made into the same array from its members. Rows before
 * base_from and after end_ts are never read; the rows between base_to and
 * start_ts are read only for the onset, which the contract places at or
 * after base_to.
 */
#include "explain/evidence.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ONSET_SPAN = 3, ONSET_NEED = 2 };  /* "2 of the 3 samples starting there" */

static const char SKEW_WORD[] = "cpu_skew";

/* The rows of the stretches: baseline [b0, b1), onset search [b1, e),
 * incident [i0, e). */
struct rows {
	size_t b0, b1, i0, e;
};

/* A per-CPU channel: its index and where "cpu<N>" starts in its name. */
struct member {
	size_t chan;
	const char *name;
	size_t cpu_at, cpu_len;
};

/* Members [first, first + n) of the sorted member array share one skew. */
struct family {
	size_t first, n;
	size_t min_chan;   /* the earliest member in input order: entries follow it */
};

double rv_evidence_sd_eff(double base_mean, double base_sd)
{
	double rel = isfinite(base_mean) ? RV_EV_SD_REL * fabs(base_mean) : 0.0;
	double sd = isfinite(base_sd) ? base_sd : 0.0;

	return fmax(fmax(sd, rel), RV_EV_SD_ABS);
}

/* First row from `from` whose time is not below t (ts is non-decreasing). */
static size_t first_at_or_after(const double *ts, size_t from, size_t nrows, double t)
{
	while (from < nrows && ts[from] < t)
		from++;
	return from;
}

static struct rows find_rows(const struct rv_ev_source *src, double base_from, double base_to,
			     double start_ts, double end_ts)
{
	struct rows r;

	r.b0 = first_at_or_after(src->ts, 0, src->nrows, base_from);
	r.b1 = first_at_or_after(src->ts, r.b0, src->nrows, base_to);
	r.i0 = first_at_or_after(src->ts, r.b1, src->nrows, start_ts);
	r.e = r.i0;
	while (r.e < src->nrows && src->ts[r.e] <= end_ts)
		r.e++;
	return r;
}

/* Count, mean and sample standard deviation of the finite values of v. */
static void mean_sd(const double *v, size_t n, size_t *cnt, double *mean, double *sd)
{
	double sum = 0, ss = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			sum += v[i];
			k++;
		}
	*cnt = k;
	*mean = k ? sum / (double)k : NAN;
	*sd = k ? 0.0 : NAN;
	if (k < 2)
		return;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = sqrt(ss / (double)(k - 1));
}

/* The finite value of v farthest from ref (the first of equals); NaN if none. */
static double farthest(const double *v, size_t n, double ref)
{
	double best = NAN, dist = -1;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && fabs(v[i] - ref) > dist) {
			dist = fabs(v[i] - ref);
			best = v[i];
		}
	return best;
}

static int beyond(const struct rv_evidence_sig *s, double sd_eff, double v)
{
	if (!isfinite(v))
		return 0;
	return (double)s->dir * (v - s->base_mean) / sd_eff >= RV_EV_MOVED_Z;
}

/* v[0..n-1] are the onset rows starting at ts[0]. */
static double onset(const struct rv_evidence_sig *s, double sd_eff, const double *v,
		    const double *ts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t hits = 0;

		if (!beyond(s, sd_eff, v[i]))
			continue;
		for (size_t k = i; k < n && k < i + ONSET_SPAN; k++)
			hits += (size_t)beyond(s, sd_eff, v[k]);
		if (hits >= ONSET_NEED)
			return ts[i];
	}
	return NAN;
}

/* v holds the values of the rows [r->b0, r->e). */
static void summarise(struct rv_evidence_sig *s, const double *v, const double *ts,
		      const struct rows *r)
{
	const double *inc = v + (r->i0 - r->b0);
	size_t ninc = r->e - r->i0;
	double sd_eff;

	mean_sd(v, r->b1 - r->b0, &s->base_n, &s->base_mean, &s->base_sd);
	mean_sd(inc, ninc, &s->inc_n, &s->value, &s->inc_sd);
	s->peak = farthest(inc, ninc, s->base_n ? s->base_mean : s->value);
	s->z = 0;
	s->dir = 0;
	s->onset_ts = NAN;
	s->change = NAN;
	if (s->base_n && s->inc_n) {
		double d = s->value - s->base_mean;

		s->change = s->base_mean != 0 ? d / fabs(s->base_mean)
			  : d > 0 ? INFINITY : d < 0 ? -INFINITY : 0.0;
	}
	if (s->base_n < RV_EV_MIN_BASE || s->inc_n == 0)
		return;
	sd_eff = rv_evidence_sd_eff(s->base_mean, s->base_sd);
	s->z = (s->value - s->base_mean) / sd_eff;
	if (fabs(s->z) >= RV_EV_MOVED_Z)
		s->dir = s->z > 0 ? 1 : -1;
	if (s->dir)
		s->onset_ts = onset(s, sd_eff, v + (r->b1 - r->b0), ts + r->b1, r->e - r->b1);
}

static void read_channel(const struct rv_ev_source *src, size_t chan, const struct rows *r,
			 double *v)
{
	for (size_t row = r->b0; row < r->e; row++)
		v[row - r->b0] = src->get(src->ctx, row, chan);
}

/* ---- per-CPU families ---- */

/* Where "cpu<N>" starts in name when the instance, or its last '/' part,
 * is exactly that; 0 with *len = 0 when it is not a per-CPU channel. */
static size_t cpu_part(const char *name, size_t *len)
{
	const char *colon = strchr(name, ':');
	const char *part, *slash, *p;

	*len = 0;
	if (!colon)
		return 0;
	part = colon + 1;
	slash = strrchr(part, '/');
	if (slash)
		part = slash + 1;
	if (strncmp(part, "cpu", 3) != 0 || part[3] == '\0')
		return 0;
	for (p = part + 3; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	*len = (size_t)(p - part);
	return (size_t)(part - name);
}

/* Members compare by the name with "cpu<N>" removed (prefix then rest),
 * then by channel index. */
static int member_cmp(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	int c;

	if (a->cpu_at != b->cpu_at)
		return a->cpu_at < b->cpu_at ? -1 : 1;
	c = strncmp(a->name, b->name, a->cpu_at);
	if (c == 0)
		c = strcmp(a->name + a->cpu_at + a->cpu_len, b->name + b->cpu_at + b->cpu_len);
	if (c == 0 && a->chan != b->chan)
		c = a->chan < b->chan ? -1 : 1;
	return c;
}

static int same_family(const struct member *a, const struct member *b)
{
	return a->cpu_at == b->cpu_at && strncmp(a->name, b->name, a->cpu_at) == 0 &&
	       strcmp(a->name + a->cpu_at + a->cpu_len, b->name + b->cpu_at + b->cpu_len) == 0;
}

static int family_cmp(const void *pa, const void *pb)
{
	const struct family *a = pa, *b = pb;

	return a->min_chan < b->min_chan ? -1 : a->min_chan > b->min_chan;
}

/* The per-CPU members of src, sorted by family; NULL with *n = 0 when none. */
static int collect_members(const struct rv_ev_source *src, struct member **out, size_t *n)
{
	struct member *m;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	m = malloc((src->nchan ? src->nchan : 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (size_t c = 0; c < src->nchan; c++) {
		const char *name = src->names[c] ? src->names[c] : "";
		size_t len, at = cpu_part(name, &len);

		if (len)
			m[k++] = (struct member){ .chan = c, .name = name, .cpu_at = at,
						  .cpu_len = len };
	}
	qsort(m, k, sizeof(*m), member_cmp);
	*out = m;
	*n = k;
	return 0;
}

/* Groups the sorted members into families of two or more, in input order. */
static int group_families(const struct member *m, size_t nm, struct family **out, size_t *nf)
{
	struct family *f = malloc((nm ? nm : 1) * sizeof(*f));
	size_t k = 0;

	*out = f;
	*nf = 0;
	if (!f)
		return -ENOMEM;
	for (size_t i = 0, j; i < nm; i = j) {
		size_t min = m[i].chan;

		for (j = i + 1; j < nm && same_family(&m[i], &m[j]); j++)
			if (m[j].chan < min)
				min = m[j].chan;
		if (j - i >= 2)
			f[k++] = (struct family){ .first = i, .n = j - i, .min_chan = min };
	}
	qsort(f, k, sizeof(*f), family_cmp);
	*nf = k;
	return 0;
}

/* The skew series of a family over the rows [r->b0, r->e) into v. */
static void read_skew(const struct rv_ev_source *src, const struct member *m, size_t n,
		      const struct rows *r, double *v)
{
	for (size_t row = r->b0; row < r->e; row++) {
		double max = -INFINITY, sum = 0, mean;
		size_t cnt = 0;

		for (size_t i = 0; i < n; i++) {
			double x = src->get(src->ctx, row, m[i].chan);

			if (!isfinite(x))
				continue;
			sum += x;
			cnt++;
			if (x > max)
				max = x;
		}
		mean = cnt ? sum / (double)cnt : NAN;
		v[row - r->b0] = !cnt ? NAN : mean > RV_EV_SD_ABS ? max / mean : 1.0;
	}
}

/* Writes "<prefix>cpu_skew<rest>" for member m at p; returns the bytes used. */
static size_t skew_name(const struct member *m, char *p)
{
	size_t rest = strlen(m->name + m->cpu_at + m->cpu_len);

	memcpy(p, m->name, m->cpu_at);
	memcpy(p + m->cpu_at, SKEW_WORD, sizeof(SKEW_WORD) - 1);
	memcpy(p + m->cpu_at + sizeof(SKEW_WORD) - 1, m->name + m->cpu_at + m->cpu_len, rest + 1);
	return m->cpu_at + sizeof(SKEW_WORD) - 1 + rest + 1;
}

static size_t skew_names_size(const struct member *m, const struct family *f, size_t nf)
{
	size_t total = 0;

	for (size_t i = 0; i < nf; i++) {
		const struct member *x = &m[f[i].first];

		total += strlen(x->name) - x->cpu_len + sizeof(SKEW_WORD);
	}
	return total;
}

/* ---- build ---- */

static int check_args(const struct rv_ev_source *src, double base_from, double base_to,
		      double start_ts, double end_ts, const struct rv_evidence *ev)
{
	if (!src || !ev)
		return -EINVAL;
	if ((src->nrows && !src->ts) || (src->nchan && !src->names) ||
	    (src->nrows && src->nchan && !src->get))
		return -EINVAL;
	if (!isfinite(base_from) || !isfinite(base_to) || !isfinite(start_ts) || !isfinite(end_ts))
		return -EINVAL;
	if (start_ts > end_ts || base_from > base_to || base_to > start_ts)
		return -EINVAL;
	return 0;
}

struct build {
	struct member *m;
	size_t nm;
	struct family *f;
	size_t nf;
	double *v;
};

static void build_fini(struct build *b)
{
	free(b->m);
	free(b->f);
	free(b->v);
}

static int build_alloc(const struct rv_ev_source *src, const struct rows *r, struct build *b,
		       struct rv_evidence *ev)
{
	size_t nv = r->e - r->b0;

	if (collect_members(src, &b->m, &b->nm) || group_families(b->m, b->nm, &b->f, &b->nf))
		return -ENOMEM;
	b->v = malloc((nv ? nv : 1) * sizeof(*b->v));
	ev->n = src->nchan + b->nf;
	ev->sig = calloc(ev->n ? ev->n : 1, sizeof(*ev->sig));
	ev->names_buf = malloc(skew_names_size(b->m, b->f, b->nf) + 1);
	if (!b->v || !ev->sig || !ev->names_buf)
		return -ENOMEM;
	return 0;
}

static void fill(const struct rv_ev_source *src, const struct rows *r, struct build *b,
		 struct rv_evidence *ev)
{
	char *p = ev->names_buf;

	for (size_t c = 0; c < src->nchan; c++) {
		ev->sig[c].name = src->names[c];
		read_channel(src, c, r, b->v);
		summarise(&ev->sig[c], b->v, src->ts, r);
	}
	for (size_t i = 0; i < b->nf; i++) {
		struct rv_evidence_sig *s = &ev->sig[src->nchan + i];
		const struct member *first = &b->m[b->f[i].first];

		s->name = p;
		s->skew = 1;
		p += skew_name(first, p);
		read_skew(src, first, b->f[i].n, r, b->v);
		summarise(s, b->v, src->ts, r);
	}
}

int rv_evidence_build(const struct rv_ev_source *src, double base_from, double base_to,
		      double start_ts, double end_ts, struct rv_evidence *ev, struct rv_err *err)
{
	struct build b = { 0 };
	struct rows r;
	int rc = check_args(src, base_from, base_to, start_ts, end_ts, ev);

	if (ev)
		memset(ev, 0, sizeof(*ev));
	if (rc)
		return rv_err_set(err, rc, "evidence: bad arguments (a NULL pointer, or stretches "
				  "[%g, %g) and [%g, %g] out of order or not finite)",
				  base_from, base_to, start_ts, end_ts);
	r = find_rows(src, base_from, base_to, start_ts, end_ts);
	if (build_alloc(src, &r, &b, ev)) {
		build_fini(&b);
		rv_evidence_free(ev);
		return rv_err_set(err, -ENOMEM, "evidence: out of memory for %zu channels",
				  src->nchan);
	}
	ev->base_from = base_from;
	ev->base_to = base_to;
	ev->start_ts = start_ts;
	ev->end_ts = end_ts;
	ev->nchan = src->nchan;
	fill(src, &r, &b, ev);
	build_fini(&b);
	return 0;
}

void rv_evidence_free(struct rv_evidence *ev)
{
	if (!ev)
		return;
	free(ev->sig);
	free(ev->names_buf);
	memset(ev, 0, sizeof(*ev));
}

const struct rv_evidence_sig *rv_evidence_find(const struct rv_evidence *ev, const char *name)
{
	if (!ev || !name)
		return NULL;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->sig[i].name && strcmp(ev->sig[i].name, name) == 0)
			return &ev->sig[i];
	return NULL;
}

int rv_evidence_from(const struct rv_evidence_sig *sig, size_t n, double start_ts, double end_ts,
		     struct rv_evidence *ev)
{
	size_t total = 0;
	char *p;

	if (!ev || (n && !sig))
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < n; i++)
		total += strlen(sig[i].name ? sig[i].name : "") + 1;
	ev->sig = calloc(n ? n : 1, sizeof(*ev->sig));
	ev->names_buf = malloc(total ? total : 1);
	if (!ev->sig || !ev->names_buf) {
		rv_evidence_free(ev);
		return -ENOMEM;
	}
	p = ev->names_buf;
	for (size_t i = 0; i < n; i++) {
		const char *name = sig[i].name ? sig[i].name : "";
		size_t len = strlen(name) + 1;

		ev->sig[i] = sig[i];
		memcpy(p, name, len);
		ev->sig[i].name = p;
		p += len;
	}
	ev->n = ev->nchan = n;
	ev->base_from = ev->base_to = NAN;
	ev->start_ts = start_ts;
	ev->end_ts = end_ts;
	return 0;
}
