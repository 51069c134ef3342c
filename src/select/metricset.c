/*
 * metricset.c - the metric-set file reader. See metricset.h.
 *
 * Like config/config_load.c it walks libyaml's event stream
 * (yaml/yamlread.h), one function per level of a small grammar: a mapping
 * of seven keys, three of them lists of names, one a list of small
 * mappings. Names are copied into one growing text buffer (offsets while
 * reading, pointers once complete) with their place in the file, so that
 * the checks that need the whole file (duplicates, a drop's kept channel)
 * still name FILE:LINE:COL.
 * The only file access of select/ besides the writer's FILE *.
 */
#include "select/metricset.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "catalog/catalog.h"
#include "yaml/yamlread.h"

enum {
	FILE_MAX_BYTES = 16 << 20,  /* a larger file is refused: not a metric set */
	WHERE_MAX = 256,            /* "FILE:LINE:COL: " */
	SHOW_MAX = 64,              /* bytes of a bad name quoted in a message */
};

/* A name in the text buffer and where the file has it (1-based). */
struct ent {
	size_t off, line, col;
};

/* One list of the file; kept[] and r[] only for `drop`. */
struct list {
	struct ent *v, *kept;
	double *r;
	size_t n, cap;
	const char **names;          /* n pointers into text, once complete */
};

enum { L_KEEP, L_DROP, L_CONST, L_INPUTS, NLISTS };

struct rv_metricset {
	char *text;                  /* every name, NUL-terminated */
	size_t tlen, tcap;
	struct list l[NLISTS];
	const char **sorted;         /* keep's names sorted, for lookups */
	struct rv_metricset_drop *drops;
	double threshold;
};

enum { K_VERSION, K_THRESHOLD, K_INPUTS, K_KEEP, K_DROP, K_CONSTANT, NKEYS };
static const char *const key_names[NKEYS] = {
	"version", "threshold", "inputs", "keep", "drop", "constant",
};
static const char *const list_role[NLISTS] = { "kept", "dropped", "constant", "an input" };

struct loader {
	struct rv_yaml y;
	struct rv_metricset *m;
	size_t total;                /* names read, all lists */
	int seen[NKEYS];
	yaml_mark_t first[NKEYS];
};

static const char *at(const struct loader *ld, yaml_mark_t m, char *buf)
{
	return rv_yaml_at(&ld->y, m, buf, WHERE_MAX);
}

static int fail(struct loader *ld, yaml_mark_t m, const char *what)
{
	char where[WHERE_MAX];

	return rv_err_set(ld->y.err, -EINVAL, "%s%s", at(ld, m, where), what);
}

static int nomem(struct loader *ld)
{
	return rv_err_set(ld->y.err, -ENOMEM, "%s: out of memory", ld->y.name);
}

/* Quotes at most SHOW_MAX bytes of s into buf, control bytes as '?'. */
static const char *show(const char *s, char *buf)
{
	size_t i = 0;

	for (; s[i] && i < SHOW_MAX; i++)
		buf[i] = (unsigned char)s[i] < ' ' || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	if (s[i])
		memcpy(buf + i, "...", sizeof("..."));
	return buf;
}

int rv_metricset_valid_name(const char *name)
{
	const char *p = name;

	if (!name || !((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
		return 0;
	for (; *p && *p != ':'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '.' || *p == '-'))
			return 0;
	if (*p == '\0')
		return 1;
	if (p[1] == '\0')
		return 0;
	for (p++; *p; p++)
		if (*p <= ' ' || *p > '~')
			return 0;
	return 1;
}

/* Copies the current scalar into the text buffer; its offset in *off. */
static int copy_text(struct loader *ld, size_t *off)
{
	struct rv_metricset *m = ld->m;
	size_t len = ld->y.ev.data.scalar.length;

	if (m->tcap - m->tlen < len + 1) {
		size_t cap = m->tcap ? m->tcap : 4096;
		char *t;

		while (cap - m->tlen < len + 1)
			cap *= 2;
		t = realloc(m->text, cap);
		if (!t)
			return nomem(ld);
		m->text = t;
		m->tcap = cap;
	}
	memcpy(m->text + m->tlen, ld->y.ev.data.scalar.value, len);
	m->text[m->tlen + len] = '\0';
	*off = m->tlen;
	m->tlen += len + 1;
	return 0;
}

/* One more slot in list l (kept[] and r[] too when drop). */
static int grow(struct loader *ld, struct list *l, int drop)
{
	size_t cap = l->cap ? 2 * l->cap : 64;
	void *p;

	if (++ld->total > RV_METRICSET_MAX_CHANNELS)
		return rv_err_set(ld->y.err, -EINVAL, "%s: more than %d names; not a metric set",
				  ld->y.name, RV_METRICSET_MAX_CHANNELS);
	if (l->n < l->cap)
		return 0;
	if (!(p = realloc(l->v, cap * sizeof(*l->v))))
		return nomem(ld);
	l->v = p;
	if (drop) {
		if (!(p = realloc(l->kept, cap * sizeof(*l->kept))))
			return nomem(ld);
		l->kept = p;
		if (!(p = realloc(l->r, cap * sizeof(*l->r))))
			return nomem(ld);
		l->r = p;
	}
	l->cap = cap;
	return 0;
}

/* The current event as a name (what says which list, for messages). */
static int read_name(struct loader *ld, struct ent *e, int check, const char *what)
{
	const yaml_event_t *ev = &ld->y.ev;
	char msg[RV_ERR_MSG_MAX], shown[SHOW_MAX + 4];
	int rc;

	if (ev->type != YAML_SCALAR_EVENT) {
		snprintf(msg, sizeof(msg), "%s: expected a channel name, not %s", what,
			 rv_yaml_node_kind(ev));
		return fail(ld, ev->start_mark, msg);
	}
	if ((rc = copy_text(ld, &e->off)))
		return rc;
	e->line = ev->start_mark.line + 1;
	e->col = ev->start_mark.column + 1;
	if (strlen(ld->m->text + e->off) != ev->data.scalar.length)
		return fail(ld, ev->start_mark, "a name must not hold a NUL character");
	if (check && !rv_metricset_valid_name(ld->m->text + e->off)) {
		snprintf(msg, sizeof(msg), "%s: '%s' is not a channel name (a metric type of "
			 "[a-z0-9_.-], then ':' and an instance)", what,
			 show(ld->m->text + e->off, shown));
		return fail(ld, ev->start_mark, msg);
	}
	return 0;
}

/* The current event is the value of list key k: a sequence of names, or null. */
static int read_names(struct loader *ld, int li, int check, const char *key)
{
	struct list *l = &ld->m->l[li];
	char msg[RV_ERR_MSG_MAX];
	int rc;

	if (rv_yaml_is_null(&ld->y.ev))
		return 0;
	if (ld->y.ev.type != YAML_SEQUENCE_START_EVENT) {
		snprintf(msg, sizeof(msg), "%s: expected a list, not %s", key,
			 rv_yaml_node_kind(&ld->y.ev));
		return fail(ld, ld->y.ev.start_mark, msg);
	}
	while ((rc = rv_yaml_next(&ld->y)) == 0 && ld->y.ev.type != YAML_SEQUENCE_END_EVENT) {
		if ((rc = grow(ld, l, 0)) || (rc = read_name(ld, &l->v[l->n], check, key)))
			return rc;
		l->n++;
	}
	return rc;
}

/* The current scalar as a number in [lo, hi]. */
static int read_number(struct loader *ld, const char *key, double lo, double hi, double *out)
{
	const yaml_event_t *ev = &ld->y.ev;
	const char *p = (const char *)ev->data.scalar.value;
	const char *end = p + (ev->type == YAML_SCALAR_EVENT ? ev->data.scalar.length : 0);
	char msg[RV_ERR_MSG_MAX];

	if (ev->type == YAML_SCALAR_EVENT && rv_str_double(&p, end, out) == 0 && p == end &&
	    *out >= lo && *out <= hi)
		return 0;
	snprintf(msg, sizeof(msg), "%s: expected a number from %g to %g", key, lo, hi);
	return fail(ld, ev->start_mark, msg);
}

/* The current scalar is version's value: 1. */
static int read_version(struct loader *ld)
{
	const yaml_event_t *ev = &ld->y.ev;

	if (ev->type == YAML_SCALAR_EVENT && strcmp((const char *)ev->data.scalar.value, "1") == 0)
		return 0;
	return fail(ld, ev->start_mark, "version: expected 1 (the only metric-set format "
		    "this reveal reads)");
}

/* Inside one drop mapping: the key event is current. */
static int read_drop_entry(struct loader *ld, size_t i, int seen[3])
{
	static const char *const dk[3] = { "channel", "kept", "r" };
	struct list *l = &ld->m->l[L_DROP];
	const yaml_event_t *ev = &ld->y.ev;
	char msg[RV_ERR_MSG_MAX], shown[SHOW_MAX + 4];
	int k, rc;

	if (ev->type != YAML_SCALAR_EVENT)
		return fail(ld, ev->start_mark, "drop: a key must be a name (channel, kept, r)");
	for (k = 0; k < 3 && strcmp((const char *)ev->data.scalar.value, dk[k]); k++)
		;
	if (k == 3 || seen[k]) {
		snprintf(msg, sizeof(msg), "drop: %s key '%s' (known: channel, kept, r)",
			 k == 3 ? "unknown" : "duplicate",
			 show((const char *)ev->data.scalar.value, shown));
		return fail(ld, ev->start_mark, msg);
	}
	seen[k] = 1;
	if ((rc = rv_yaml_next(&ld->y)))
		return rc;
	if (k == 2)
		return read_number(ld, "drop: r", -1.0, 1.0, &l->r[i]);
	return read_name(ld, k == 0 ? &l->v[i] : &l->kept[i], 1,
			 k == 0 ? "drop: channel" : "drop: kept");
}

/* One item of `drop`: its MAPPING_START is current. */
static int read_drop(struct loader *ld)
{
	struct list *l = &ld->m->l[L_DROP];
	yaml_mark_t start = ld->y.ev.start_mark;
	int seen[3] = { 0 }, rc;

	if (ld->y.ev.type != YAML_MAPPING_START_EVENT)
		return fail(ld, start, "drop: expected a mapping {channel: ..., kept: ..., r: ...}");
	if ((rc = grow(ld, l, 1)))
		return rc;
	while ((rc = rv_yaml_next(&ld->y)) == 0 && ld->y.ev.type != YAML_MAPPING_END_EVENT)
		if ((rc = read_drop_entry(ld, l->n, seen)))
			return rc;
	if (rc)
		return rc;
	if (!seen[0] || !seen[1] || !seen[2])
		return fail(ld, start, !seen[0] ? "drop: no 'channel'" :
				       !seen[1] ? "drop: no 'kept'" : "drop: no 'r'");
	l->n++;
	return 0;
}

static int read_drops(struct loader *ld)
{
	int rc;

	if (rv_yaml_is_null(&ld->y.ev))
		return 0;
	if (ld->y.ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(ld, ld->y.ev.start_mark, "drop: expected a list");
	while ((rc = rv_yaml_next(&ld->y)) == 0 && ld->y.ev.type != YAML_SEQUENCE_END_EVENT)
		if ((rc = read_drop(ld)))
			return rc;
	return rc;
}

/* The value of key k is current. */
static int read_value(struct loader *ld, int k)
{
	switch (k) {
	case K_VERSION:
		return read_version(ld);
	case K_THRESHOLD:
		return read_number(ld, "threshold", 0.0, 1.0, &ld->m->threshold);
	case K_INPUTS:
		return read_names(ld, L_INPUTS, 0, "inputs");
	case K_KEEP:
		return read_names(ld, L_KEEP, 1, "keep");
	case K_DROP:
		return read_drops(ld);
	default:
		return read_names(ld, L_CONST, 1, "constant");
	}
}

/* The key event of a top-level entry is current. */
static int read_entry(struct loader *ld)
{
	const yaml_event_t *ev = &ld->y.ev;
	char msg[RV_ERR_MSG_MAX], shown[SHOW_MAX + 4];
	int k = 0, rc;

	if (ev->type != YAML_SCALAR_EVENT)
		return fail(ld, ev->start_mark, "a key must be a name, not a list or mapping");
	while (k < NKEYS && strcmp((const char *)ev->data.scalar.value, key_names[k]))
		k++;
	if (k == NKEYS) {
		snprintf(msg, sizeof(msg), "unknown key '%s' (known: version, threshold, inputs, "
			 "keep, drop, constant)",
			 show((const char *)ev->data.scalar.value, shown));
		return fail(ld, ev->start_mark, msg);
	}
	if (ld->seen[k]) {
		snprintf(msg, sizeof(msg), "duplicate key '%s' (first at %zu:%zu)", key_names[k],
			 ld->first[k].line + 1, ld->first[k].column + 1);
		return fail(ld, ev->start_mark, msg);
	}
	ld->seen[k] = 1;
	ld->first[k] = ev->start_mark;
	if ((rc = rv_yaml_next(&ld->y)))
		return rc;
	return read_value(ld, k);
}

static int read_stream(struct loader *ld)
{
	yaml_mark_t root;
	int rc = rv_yaml_root(&ld->y);

	if (rc)
		return rc;
	root = ld->y.ev.start_mark;
	if (ld->y.ev.type != YAML_MAPPING_START_EVENT)
		return fail(ld, root, "a metric set must be a mapping (version, keep, drop, ...)");
	while ((rc = rv_yaml_next(&ld->y)) == 0 && ld->y.ev.type != YAML_MAPPING_END_EVENT)
		if ((rc = read_entry(ld)))
			return rc;
	if (rc || (rc = rv_yaml_end(&ld->y)))
		return rc;
	if (!ld->seen[K_VERSION])
		return fail(ld, root, "no 'version' (version: 1)");
	if (ld->m->l[L_KEEP].n == 0)
		return fail(ld, ld->seen[K_KEEP] ? ld->first[K_KEEP] : root,
			    "'keep' lists no channel");
	return 0;
}

/* Turns offsets into pointers once the text buffer is complete. */
static int finish_names(struct loader *ld)
{
	struct rv_metricset *m = ld->m;
	struct list *d = &m->l[L_DROP];

	for (int li = 0; li < NLISTS; li++) {
		struct list *l = &m->l[li];

		if (!(l->names = calloc(l->n ? l->n : 1, sizeof(*l->names))))
			return nomem(ld);
		for (size_t i = 0; i < l->n; i++)
			l->names[i] = m->text + l->v[i].off;
	}
	if (!(m->drops = calloc(d->n ? d->n : 1, sizeof(*m->drops))))
		return nomem(ld);
	for (size_t i = 0; i < d->n; i++)
		m->drops[i] = (struct rv_metricset_drop){ .channel = d->names[i],
							  .kept = m->text + d->kept[i].off,
							  .r = d->r[i] };
	return 0;
}

/* A name of the file with its place, for the checks across lists. */
struct ref {
	const char *name;
	const struct ent *e;
	int list;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->e->line != y->e->line ? (x->e->line < y->e->line ? -1 : 1)
					: (x->e->col < y->e->col ? -1 : x->e->col > y->e->col);
}

static int error_at(struct loader *ld, const struct ent *e, const char *msg)
{
	return rv_err_set(ld->y.err, -EINVAL, "%s:%zu:%zu: %s", ld->y.name, e->line, e->col, msg);
}

/* Every name of keep, drop and constant into refs (caller frees). */
static int collect_refs(struct loader *ld, struct ref **out, size_t *n)
{
	static const int lists[] = { L_KEEP, L_DROP, L_CONST };
	struct rv_metricset *m = ld->m;
	size_t k = 0;

	*n = m->l[L_KEEP].n + m->l[L_DROP].n + m->l[L_CONST].n;
	if (!(*out = malloc(*n * sizeof(**out))))
		return nomem(ld);
	for (size_t j = 0; j < sizeof(lists) / sizeof(lists[0]); j++)
		for (size_t i = 0; i < m->l[lists[j]].n; i++)
			(*out)[k++] = (struct ref){ m->l[lists[j]].names[i], &m->l[lists[j]].v[i],
						    lists[j] };
	return 0;
}

/* No name twice among keep, drop and constant. */
static int check_duplicates(struct loader *ld, struct ref *refs, size_t n)
{
	char msg[RV_ERR_MSG_MAX], shown[SHOW_MAX + 4];

	qsort(refs, n, sizeof(*refs), ref_cmp);
	for (size_t i = 1; i < n; i++) {
		if (strcmp(refs[i - 1].name, refs[i].name))
			continue;
		snprintf(msg, sizeof(msg), "channel '%s' is listed as %s here and as %s at %zu:%zu",
			 show(refs[i].name, shown), list_role[refs[i].list],
			 list_role[refs[i - 1].list], refs[i - 1].e->line, refs[i - 1].e->col);
		return error_at(ld, refs[i].e, msg);
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 when channel is in keep (m->sorted ready). */
static int kept(const struct rv_metricset *m, const char *channel)
{
	return m->l[L_KEEP].n &&
	       bsearch(&channel, m->sorted, m->l[L_KEEP].n, sizeof(*m->sorted), name_cmp) != NULL;
}

/* Each drop's kept channel is one of keep. */
static int check_kept(struct loader *ld)
{
	const struct rv_metricset *m = ld->m;
	char msg[RV_ERR_MSG_MAX], shown[SHOW_MAX + 4];

	for (size_t i = 0; i < m->l[L_DROP].n; i++) {
		if (kept(m, m->drops[i].kept))
			continue;
		snprintf(msg, sizeof(msg), "drop: kept channel '%s' is not in 'keep'",
			 show(m->drops[i].kept, shown));
		return error_at(ld, &m->l[L_DROP].kept[i], msg);
	}
	return 0;
}

/* The checks that need the whole file. */
static int finish(struct loader *ld)
{
	struct rv_metricset *m = ld->m;
	struct ref *refs = NULL;
	size_t n = 0;
	int rc;

	if ((rc = finish_names(ld)))
		return rc;
	if (!(m->sorted = malloc(m->l[L_KEEP].n * sizeof(*m->sorted))))
		return nomem(ld);
	memcpy(m->sorted, m->l[L_KEEP].names, m->l[L_KEEP].n * sizeof(*m->sorted));
	qsort(m->sorted, m->l[L_KEEP].n, sizeof(*m->sorted), name_cmp);
	if ((rc = collect_refs(ld, &refs, &n)) == 0 && (rc = check_duplicates(ld, refs, n)) == 0)
		rc = check_kept(ld);
	free(refs);
	return rc;
}

void rv_metricset_free(struct rv_metricset *m)
{
	if (!m)
		return;
	for (int li = 0; li < NLISTS; li++) {
		free(m->l[li].v);
		free(m->l[li].kept);
		free(m->l[li].r);
		free(m->l[li].names);
	}
	free(m->sorted);
	free(m->drops);
	free(m->text);
	free(m);
}

int rv_metricset_parse(const char *text, size_t len, const char *name,
		       struct rv_metricset **out, struct rv_err *err)
{
	struct loader *ld;
	int rc;

	*out = NULL;
	name = name ? name : "<metric set>";
	if (!(ld = calloc(1, sizeof(*ld))) || !(ld->m = calloc(1, sizeof(*ld->m)))) {
		free(ld);
		return rv_err_set(err, -ENOMEM, "%s: out of memory", name);
	}
	ld->m->threshold = NAN;
	rc = rv_yaml_init(&ld->y, name, text ? text : "", text ? len : 0, SHOW_MAX, err);
	if (rc == 0) {
		rc = read_stream(ld);
		if (rc == 0)
			rc = finish(ld);
		rv_yaml_fini(&ld->y);
	}
	if (rc)
		rv_metricset_free(ld->m);
	else
		*out = ld->m;
	free(ld);
	return rc;
}

int rv_metricset_load(const char *path, struct rv_metricset **out, struct rv_err *err)
{
	FILE *f;
	char *buf;
	size_t n;
	int rc, e;

	*out = NULL;
	if (!(f = fopen(path, "rb"))) {
		e = errno;
		return rv_err_set(err, -e, "%s: %s", path, strerror(e));
	}
	if (!(buf = malloc((size_t)FILE_MAX_BYTES + 1))) {
		fclose(f);
		return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	errno = 0;
	n = fread(buf, 1, (size_t)FILE_MAX_BYTES + 1, f);
	e = errno ? errno : EIO;
	if (ferror(f))
		rc = rv_err_set(err, -e, "%s: %s", path, strerror(e));
	else if (n > FILE_MAX_BYTES)
		rc = rv_err_set(err, -EFBIG, "%s: larger than %d bytes; not a metric set", path,
				FILE_MAX_BYTES);
	else
		rc = rv_metricset_parse(buf, n, path, out, err);
	fclose(f);
	free(buf);
	return rc;
}

size_t rv_metricset_count(const struct rv_metricset *m)
{
	return m->l[L_KEEP].n;
}

const char *rv_metricset_name(const struct rv_metricset *m, size_t i)
{
	return i < m->l[L_KEEP].n ? m->l[L_KEEP].names[i] : NULL;
}

size_t rv_metricset_line(const struct rv_metricset *m, size_t i)
{
	return i < m->l[L_KEEP].n ? m->l[L_KEEP].v[i].line : 0;
}

int rv_metricset_has(const struct rv_metricset *m, const char *channel)
{
	return channel && kept(m, channel);
}

size_t rv_metricset_ndropped(const struct rv_metricset *m)
{
	return m->l[L_DROP].n;
}

const struct rv_metricset_drop *rv_metricset_dropped(const struct rv_metricset *m, size_t i)
{
	return i < m->l[L_DROP].n ? &m->drops[i] : NULL;
}

size_t rv_metricset_nconstant(const struct rv_metricset *m)
{
	return m->l[L_CONST].n;
}

const char *rv_metricset_constant(const struct rv_metricset *m, size_t i)
{
	return i < m->l[L_CONST].n ? m->l[L_CONST].names[i] : NULL;
}

double rv_metricset_threshold(const struct rv_metricset *m)
{
	return m->threshold;
}

size_t rv_metricset_ninputs(const struct rv_metricset *m)
{
	return m->l[L_INPUTS].n;
}

const char *rv_metricset_input(const struct rv_metricset *m, size_t i)
{
	return i < m->l[L_INPUTS].n ? m->l[L_INPUTS].names[i] : NULL;
}

long rv_metricset_uncatalogued(const struct rv_metricset *m)
{
	for (size_t i = 0; i < m->l[L_KEEP].n; i++)
		if (!rv_catalog_metric_of(m->l[L_KEEP].names[i]))
			return (long)i;
	return -1;
}
