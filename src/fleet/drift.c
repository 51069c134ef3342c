/*
 * drift.c - the facts of a group's nodes compared key by key (the rules
 * are in drift.h).
 *
 * Why this shape: facts arrive in whatever order the Prometheus API lists
 * its series (by fact name, then node), so nothing is looked up while
 * adding: each fact is copied as it comes, and rv_drift_run sorts once by
 * node name (to number the nodes) and once by key and node; every key is
 * then a run of consecutive facts, sorted again by value so that equal
 * values (or numbers within the tolerance) are neighbours. That is
 * O(F log F) for F facts, a few hundred thousand for thousands of nodes.
 */
#include "fleet/drift.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "base/strparse.h"

/* Keys that differ between healthy, identical nodes (drift.h says why).
 * The first two take a board's identity under any key that names it, the
 * GPUs' gpu.<i>.uuid and gpu.<i>.serial (collect/nvml_facts.h) among them. */
static const char *const default_exclude[] = {
	"*serial*", "*uuid*",
	"*.mac", "*.mac_*", "*.address", "*.perm_addr",
	"*.ip", "*.ipv4*", "*.ipv6*", "*.inet*",
	"*hostname*", "*machine_id*", "*boot_id*",
	"net.veth*", "net.docker*", "net.br-*", "net.virbr*", "net.cali*",
	"net.flannel*", "net.cni*", "net.tap*", "net.vnet*", "net.tun*",
};

static const char *const default_tolerant[] = { "*total_bytes" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

struct fact {
	const char *node, *key, *value;  /* key NULL: left out, the node counts */
	size_t rank;                     /* the node's number at the last run */
	double num;                      /* value as a number (tolerant keys) */
};

/* One value of a key: a range of the key's facts sorted by value, or the
 * nodes lacking the key. */
struct cls {
	size_t a, len;
	int lacks;
};

struct rv_drift {
	struct rv_drift_opts o;          /* globs copied into in */
	struct rv_pool in, out;          /* facts' text and globs; findings */
	struct fact *f;
	size_t n, cap, bytes, nnodes;
	struct rv_drift_finding *find;
	size_t nfind;
};

/* The working state of one rv_drift_run. */
struct run {
	struct rv_drift *d;
	const char **names;              /* [nnodes] by rank */
	unsigned char *has;              /* [nnodes] the current key's nodes */
	struct cls *cls;                 /* [facts of a key + 1] */
	size_t *ranks;                   /* [nnodes] scratch */
};

void rv_drift_opts_default(struct rv_drift_opts *o)
{
	*o = (struct rv_drift_opts){
		.exclude = default_exclude, .nexclude = NELEM(default_exclude),
		.tolerant = default_tolerant, .ntolerant = NELEM(default_tolerant),
		.rel_tol = RV_DRIFT_DEF_REL_TOL,
	};
}

const char *const *rv_drift_default_exclude(size_t *n)
{
	*n = NELEM(default_exclude);
	return default_exclude;
}

/* ------------------------------------------------------------ object */

static int copy_globs(struct rv_pool *pl, const char *const **globs, size_t n,
		      const char *what, struct rv_err *err)
{
	const char **copy;

	if (n == 0) {
		*globs = NULL;
		return 0;
	}
	if (!(copy = rv_pool_zalloc(pl, n, sizeof(*copy))))
		return rv_err_set(err, -ENOMEM, "drift: out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *g = (*globs)[i];

		if (!g || !*g)
			return rv_err_set(err, -EINVAL, "drift: %s glob %zu is empty",
					  what, i + 1);
		copy[i] = rv_pool_str(pl, g);
	}
	*globs = copy;
	return pl->oom ? rv_err_set(err, -ENOMEM, "drift: out of memory") : 0;
}

int rv_drift_new(const struct rv_drift_opts *o, struct rv_drift **out,
		 struct rv_err *err)
{
	struct rv_drift *d;
	int rc;

	*out = NULL;
	if (!(d = calloc(1, sizeof(*d))))
		return rv_err_set(err, -ENOMEM, "drift: out of memory");
	if (o)
		d->o = *o;
	else
		rv_drift_opts_default(&d->o);
	if (!(d->o.rel_tol >= 0 && d->o.rel_tol < 1))
		rc = rv_err_set(err, -EINVAL, "drift: relative tolerance %g is not in "
				"[0, 1)", d->o.rel_tol);
	else if (!(rc = copy_globs(&d->in, &d->o.include, d->o.ninclude, "include", err)) &&
		 !(rc = copy_globs(&d->in, &d->o.exclude, d->o.nexclude, "exclude", err)))
		rc = copy_globs(&d->in, &d->o.tolerant, d->o.ntolerant, "tolerant", err);
	if (rc) {
		rv_drift_free(d);
		return rc;
	}
	d->o.max_facts = d->o.max_facts ? d->o.max_facts : RV_DRIFT_DEF_MAX_FACTS;
	d->o.max_bytes = d->o.max_bytes ? d->o.max_bytes : RV_DRIFT_DEF_MAX_BYTES;
	*out = d;
	return 0;
}

void rv_drift_free(struct rv_drift *d)
{
	if (!d)
		return;
	rv_pool_free(&d->in);
	rv_pool_free(&d->out);
	free(d->f);
	free(d);
}

static int matches(const char *const *globs, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(globs[i], key, 0) == 0)
			return 1;
	return 0;
}

int rv_drift_wanted(const struct rv_drift *d, const char *key)
{
	return (d->o.ninclude == 0 || matches(d->o.include, d->o.ninclude, key)) &&
	       !matches(d->o.exclude, d->o.nexclude, key);
}

static int check_text(const char *s, const char *what, struct rv_err *err)
{
	if (!s || !*s)
		return rv_err_set(err, -EINVAL, "drift: empty %s", what);
	if (strnlen(s, RV_DRIFT_MAX_TEXT + 1) > RV_DRIFT_MAX_TEXT)
		return rv_err_set(err, -EINVAL, "drift: %s \"%.40s...\" is longer than "
				  "%d bytes", what, s, RV_DRIFT_MAX_TEXT);
	return 0;
}

/* A copy of s in d's pool into *out, counted in d->bytes. */
static int keep_text(struct rv_drift *d, const char *s, const char **out,
		     struct rv_err *err)
{
	*out = rv_pool_str(&d->in, s);
	if (d->in.oom)
		return rv_err_set(err, -ENOMEM, "drift: out of memory");
	d->bytes += strlen(s) + 1;
	return 0;
}

static int grow(struct rv_drift *d, struct rv_err *err)
{
	size_t cap = d->cap ? 2 * d->cap : 64;
	struct fact *f;

	if (d->n >= d->o.max_facts)
		return rv_err_set(err, -E2BIG, "drift: more than %zu facts",
				  d->o.max_facts);
	cap = cap < d->o.max_facts ? cap : d->o.max_facts;
	if (!(f = realloc(d->f, cap * sizeof(*f))))
		return rv_err_set(err, -ENOMEM, "drift: out of memory for %zu facts", cap);
	d->f = f;
	d->cap = cap;
	return 0;
}

int rv_drift_add(struct rv_drift *d, const char *node, const char *key,
		 const char *value, struct rv_err *err)
{
	struct fact f = { 0 };
	int rc;

	if ((rc = check_text(node, "node name", err)) ||
	    (rc = check_text(key, "fact key", err)) ||
	    (rc = check_text(value, "fact value", err)))
		return rc;
	/* all or nothing: room for every copy first */
	if (d->bytes + strlen(node) + strlen(key) + strlen(value) + 3 > d->o.max_bytes)
		return rv_err_set(err, -E2BIG, "drift: facts past the limit of %zu "
				  "bytes", d->o.max_bytes);
	if (d->n == d->cap && (rc = grow(d, err)))
		return rc;
	/* facts of one node usually come together: one copy of its name */
	if (d->n > 0 && strcmp(d->f[d->n - 1].node, node) == 0)
		f.node = d->f[d->n - 1].node;
	else if ((rc = keep_text(d, node, &f.node, err)))
		return rc;
	if (rv_drift_wanted(d, key) &&
	    ((rc = keep_text(d, key, &f.key, err)) ||
	     (rc = keep_text(d, value, &f.value, err))))
		return rc;
	d->f[d->n++] = f;
	return 0;
}

/* ------------------------------------------------------------ sorting */

static int cmp_node(const void *a, const void *b)
{
	const struct fact *x = *(const struct fact *const *)a;
	const struct fact *y = *(const struct fact *const *)b;

	return strcmp(x->node, y->node);
}

static int cmp_key(const void *a, const void *b)
{
	const struct fact *x = *(const struct fact *const *)a;
	const struct fact *y = *(const struct fact *const *)b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_text(const void *a, const void *b)
{
	const struct fact *x = *(const struct fact *const *)a;
	const struct fact *y = *(const struct fact *const *)b;
	int c = strcmp(x->value, y->value);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static int cmp_num(const void *a, const void *b)
{
	const struct fact *x = *(const struct fact *const *)a;
	const struct fact *y = *(const struct fact *const *)b;

	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return cmp_text(a, b);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* ------------------------------------------------------------ one key */

/* 1 when every value of the key's facts p[0..m) is a finite number
 * (stored in num). */
static int all_numbers(struct fact **p, size_t m)
{
	for (size_t i = 0; i < m; i++) {
		const char *s = p[i]->value, *end = s + strlen(s);

		if (rv_str_double(&s, end, &p[i]->num) || s != end || !isfinite(p[i]->num))
			return 0;
	}
	return 1;
}

static int within(double a, double b, double tol)
{
	double big = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= tol * big;
}

/* Classes of consecutive sorted values from a to b: equal text, or
 * numbers within tol of each class's first. Returns the classes added. */
static size_t greedy(struct fact **p, size_t a, size_t b, double tol, struct cls *c)
{
	size_t k = 0;

	while (a < b) {
		size_t e = a + 1;

		while (e < b && (tol > 0 ? within(p[a]->num, p[e]->num, tol) :
				 strcmp(p[a]->value, p[e]->value) == 0))
			e++;
		c[k++] = (struct cls){ .a = a, .len = e - a };
		a = e;
	}
	return k;
}

/* Tolerant classes: the widest run within tol (the lowest of equals),
 * when it is a majority of nnodes, then the rest greedily. */
static size_t tolerant_classes(struct fact **p, size_t m, double tol,
			       size_t nnodes, struct cls *c)
{
	size_t best = 0, bi = 0, k;

	for (size_t i = 0, j = 0; j < m; j++) {
		while (!within(p[i]->num, p[j]->num, tol))
			i++;
		if (j - i + 1 > best) {
			best = j - i + 1;
			bi = i;
		}
	}
	if (2 * best <= nnodes)
		return greedy(p, 0, m, tol, c);
	k = greedy(p, 0, bi, tol, c);
	c[k++] = (struct cls){ .a = bi, .len = best };
	return k + greedy(p, bi + best, m, tol, c + k);
}

/* The most common text in class c (the first of equals); p sorted by
 * number, then text. */
static const char *common_text(struct fact **p, const struct cls *c)
{
	const char *best = p[c->a]->value;
	size_t nbest = 0;

	for (size_t i = c->a; i < c->a + c->len;) {
		size_t e = i + 1;

		while (e < c->a + c->len && strcmp(p[e]->value, p[i]->value) == 0)
			e++;
		if (e - i > nbest) {
			nbest = e - i;
			best = p[i]->value;
		}
		i = e;
	}
	return best;
}

/* Orders classes: the majority first, then by count, then by value, the
 * nodes lacking the key last among equals. */
static int cmp_cls(const void *a, const void *b)
{
	const struct cls *x = a, *y = b;

	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	if (x->lacks != y->lacks)
		return x->lacks - y->lacks;
	return (x->a > y->a) - (x->a < y->a);
}

/* The sorted names of class c's nodes (pool), p the key's facts. */
static const char *const *class_nodes(struct run *r, struct fact **p, size_t m,
				      const struct cls *c)
{
	const char **names = rv_pool_zalloc(&r->d->out, c->len, sizeof(*names));
	size_t k = 0;

	if (!names)
		return NULL;
	if (c->lacks) {
		for (size_t i = 0; i < m; i++)
			r->has[p[i]->rank] = 1;
		for (size_t rank = 0; rank < r->d->nnodes; rank++)
			if (!r->has[rank])
				r->ranks[k++] = rank;
		for (size_t i = 0; i < m; i++)
			r->has[p[i]->rank] = 0;
	} else {
		for (size_t i = c->a; i < c->a + c->len; i++)
			r->ranks[k++] = p[i]->rank;
		qsort(r->ranks, k, sizeof(*r->ranks), cmp_size);
	}
	for (size_t i = 0; i < k; i++)
		names[i] = r->names[r->ranks[i]];
	return names;
}

static void fill_value(struct run *r, struct fact **p, size_t m,
		       const struct cls *c, double tol, struct rv_drift_value *v)
{
	if (c->lacks) {
		*v = (struct rv_drift_value){ .count = c->len };
	} else {
		v->value = tol > 0 ? common_text(p, c) : p[c->a]->value;
		v->lo = tol > 0 ? p[c->a]->value : v->value;
		v->hi = tol > 0 ? p[c->a + c->len - 1]->value : v->value;
		v->count = c->len;
	}
	v->nodes = class_nodes(r, p, m, c);
}

static int cmp_member(const void *a, const void *b)
{
	return strcmp(((const struct rv_drift_member *)a)->node,
		      ((const struct rv_drift_member *)b)->node);
}

/* The odd nodes of f (every node of a split) with their own values. */
static int fill_odd(struct run *r, struct fact **p, size_t m,
		    struct rv_drift_finding *f, const struct cls *cls, size_t k)
{
	size_t first = f->split ? 0 : 1, n = 0;
	struct rv_drift_member *odd;

	for (size_t i = first; i < k; i++)
		n += cls[i].len;
	if (!(odd = rv_pool_zalloc(&r->d->out, n, sizeof(*odd))))
		return -ENOMEM;
	n = 0;
	for (size_t i = first; i < k; i++)
		for (size_t j = 0; j < cls[i].len; j++)
			odd[n++] = cls[i].lacks ?
				(struct rv_drift_member){ .node = f->values[i].nodes[j] } :
				(struct rv_drift_member){ .node = p[cls[i].a + j]->node,
							  .value = p[cls[i].a + j]->value };
	/* a class's facts are in value order: put them in node order */
	qsort(odd, n, sizeof(*odd), cmp_member);
	f->odd = odd;
	f->nodd = n;
	return 0;
}

/* The finding of one key from its classes (majority first when any). */
static int build(struct run *r, struct fact **p, size_t m, struct cls *cls,
		 size_t k, int split, double tol, struct rv_drift_finding *f)
{
	struct rv_drift_value *v = rv_pool_zalloc(&r->d->out, k, sizeof(*v));

	if (!v)
		return -ENOMEM;
	*f = (struct rv_drift_finding){
		.key = p[0]->key, .split = split, .nnodes = r->d->nnodes,
		.tolerance = tol, .nvalues = k, .values = v,
	};
	for (size_t i = 0; i < k; i++) {
		fill_value(r, p, m, &cls[i], tol, &v[i]);
		if (!v[i].nodes)
			return -ENOMEM;
	}
	if (!split) {
		f->majority = v[0].value;
		f->majority_lacks = cls[0].lacks;
		f->nmajority = cls[0].len;
	}
	return fill_odd(r, p, m, f, cls, k);
}

/* Compares one key's facts p[0..m) (one per node); *found is 1 when it
 * drifts (f filled). 0 or -ENOMEM. */
static int one_key(struct run *r, struct fact **p, size_t m,
		   struct rv_drift_finding *f, int *found)
{
	const struct rv_drift_opts *o = &r->d->o;
	size_t nnodes = r->d->nnodes, k, maj = SIZE_MAX;
	double tol = 0;

	*found = 0;
	if (o->rel_tol > 0 && matches(o->tolerant, o->ntolerant, p[0]->key) &&
	    all_numbers(p, m))
		tol = o->rel_tol;
	qsort(p, m, sizeof(*p), tol > 0 ? cmp_num : cmp_text);
	k = tol > 0 ? tolerant_classes(p, m, tol, nnodes, r->cls) :
		      greedy(p, 0, m, 0, r->cls);
	if (m < nnodes)
		r->cls[k++] = (struct cls){ .len = nnodes - m, .lacks = 1 };
	if (k == 1)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (2 * r->cls[i].len > nnodes)
			maj = i;
	if (maj != SIZE_MAX) {
		struct cls t = r->cls[0];

		r->cls[0] = r->cls[maj];
		r->cls[maj] = t;
	}
	qsort(r->cls + (maj != SIZE_MAX), k - (maj != SIZE_MAX), sizeof(*r->cls), cmp_cls);
	*found = 1;
	return build(r, p, m, r->cls, k, maj == SIZE_MAX, tol, f);
}

/* ------------------------------------------------------------ run */

/* Numbers the nodes by name (p sorted by node): ranks and r->names. */
static int number_nodes(struct run *r, struct fact **p, size_t n)
{
	struct rv_drift *d = r->d;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += i == 0 || strcmp(p[i]->node, p[i - 1]->node) != 0;
	if (!(r->names = rv_pool_zalloc(&d->out, k, sizeof(*r->names))))
		return -ENOMEM;
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && strcmp(p[i]->node, p[i - 1]->node) != 0)
			k++;
		p[i]->rank = k;
		r->names[k] = p[i]->node;
	}
	d->nnodes = k + 1;
	return 0;
}

/* Keeps the compared facts of p, sorted by key and node, one per node and
 * key; their count into *w. -EINVAL for a key with two values. */
static int compared(struct fact **p, size_t n, size_t *w, struct rv_err *err)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i]->key)
			p[k++] = p[i];
	qsort(p, k, sizeof(*p), cmp_key);
	*w = 0;
	for (size_t i = 0; i < k; i++) {
		struct fact *prev = *w ? p[*w - 1] : NULL;

		if (prev && prev->rank == p[i]->rank && strcmp(prev->key, p[i]->key) == 0) {
			if (strcmp(prev->value, p[i]->value) != 0)
				return rv_err_set(err, -EINVAL, "drift: node %s gave %s twice: "
						  "\"%s\" and \"%s\"", p[i]->node,
						  p[i]->key, prev->value, p[i]->value);
			continue;
		}
		p[(*w)++] = p[i];
	}
	return 0;
}

/* Every key of p[0..w) (sorted by key) into d->find. */
static int all_keys(struct run *r, struct fact **p, size_t w)
{
	struct rv_drift *d = r->d;
	size_t nkeys = 0;
	int rc = 0;

	for (size_t i = 0; i < w; i++)
		nkeys += i == 0 || strcmp(p[i]->key, p[i - 1]->key) != 0;
	if (nkeys && !(d->find = rv_pool_zalloc(&d->out, nkeys, sizeof(*d->find))))
		return -ENOMEM;
	for (size_t a = 0; a < w && !rc;) {
		size_t b = a + 1;
		int found;

		while (b < w && strcmp(p[b]->key, p[a]->key) == 0)
			b++;
		rc = one_key(r, p + a, b - a, &d->find[d->nfind], &found);
		d->nfind += found;
		a = b;
	}
	return rc;
}

int rv_drift_run(struct rv_drift *d, struct rv_err *err)
{
	struct run r = { .d = d };
	struct fact **p = NULL;
	size_t w = 0;
	int rc;

	rv_pool_free(&d->out);
	d->find = NULL;
	d->nfind = d->nnodes = 0;
	if (d->n == 0)
		return 0;
	if (!(p = malloc(d->n * sizeof(*p))))
		return rv_err_set(err, -ENOMEM, "drift: out of memory for %zu facts", d->n);
	for (size_t i = 0; i < d->n; i++)
		p[i] = &d->f[i];
	qsort(p, d->n, sizeof(*p), cmp_node);
	rc = number_nodes(&r, p, d->n);
	if (!rc && (!(r.has = calloc(d->nnodes, 1)) ||
		    !(r.ranks = malloc(d->nnodes * sizeof(*r.ranks))) ||
		    !(r.cls = malloc((d->nnodes + 1) * sizeof(*r.cls)))))
		rc = -ENOMEM;
	if (!rc)
		rc = compared(p, d->n, &w, err);
	if (!rc)
		rc = all_keys(&r, p, w);
	free(p);
	free(r.has);
	free(r.ranks);
	free(r.cls);
	if (rc) {
		rv_pool_free(&d->out);
		d->find = NULL;
		d->nfind = 0;
		if (rc == -ENOMEM)
			rv_err_set(err, rc, "drift: out of memory comparing %zu facts", d->n);
	}
	return rc;
}

size_t rv_drift_count(const struct rv_drift *d)
{
	return d->nfind;
}

const struct rv_drift_finding *rv_drift_get(const struct rv_drift *d, size_t i)
{
	return i < d->nfind ? &d->find[i] : NULL;
}

size_t rv_drift_nodes(const struct rv_drift *d)
{
	return d->nnodes;
}
