/*
 * pairs.c - header/value pair files and the column scanner (pairs.h).
 *
 * Columns are located once, from the header lines at open. The kernel
 * never reorders them while running, but a fixture, a container's
 * procfs or a module load can hand us a different header; comparing the
 * whole header text at each sample is cheap (a few hundred bytes) and
 * turns such a change into invalid values instead of wrong ones.
 */
#include "collect/pairs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "collect/pfile.h"

enum { PROTO_NAME_MAX = 32, PAIRS_MAX_PROTOS = 32, PAIRS_MAX_COLS = 4096 };

/* Header line seen so far in this sample: none, header, values read. */
enum { SEEN_NONE, SEEN_HEADER, SEEN_VALUES };

struct pairs_proto {
	char name[PROTO_NAME_MAX];      /* "Tcp", without the ':' */
	size_t name_len;
	char *header;                   /* the header text after "Tcp:" */
	size_t header_len;
	int32_t *chan_of;               /* column -> channel index, -1 none */
	size_t ncols;
	int seen;                       /* SEEN_*, reset at each sample */
	int header_ok;                  /* this sample's header matched */
};

struct pairs_src {
	struct rv_pfile f;
	struct pairs_proto protos[PAIRS_MAX_PROTOS];
	size_t nproto;
};

const char *rv_pairs_next_line(const char **p, const char *end, const char **line_end)
{
	const char *s = *p, *e = memchr(s, '\n', (size_t)(end - s));

	*line_end = e ? e : end;
	*p = e ? e + 1 : end;
	return s;
}

int rv_pairs_col_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s;

	rv_str_skip_blank(p, end);
	if (*p >= end)
		return -ENODATA;
	s = *p;
	if (rv_str_u64(p, end, v) == 0 && (*p == end || **p == ' ' || **p == '\t'))
		return 0;
	*p = s;
	while (*p < end && **p != ' ' && **p != '\t')
		(*p)++;
	return -EINVAL;
}

/* The next n columns of [p, end) into raw[0..n), valid[0..n). */
static void put_cols(const char *p, const char *end, size_t n, double *raw, uint8_t *valid)
{
	uint64_t v;
	int rc;

	for (size_t k = 0; k < n; k++) {
		rc = rv_pairs_col_u64(&p, end, &v);
		if (rc == -ENODATA)
			return;
		if (rc == 0) {
			raw[k] = (double)v;
			valid[k] = 1;
		}
	}
}

long rv_pairs_find_rec(const struct rv_pairs_rec *recs, size_t n, const char *s,
		       const char *e, size_t hint)
{
	size_t len = (size_t)(e - s);

	for (size_t k = 0; k < n; k++) {
		size_t i = (hint + k) % n;

		if (strnlen(recs[i].name, RV_PAIRS_NAME_MAX) == len &&
		    memcmp(recs[i].name, s, len) == 0)
			return (long)i;
	}
	return -1;
}

void rv_pairs_sample_recs(struct rv_pfile *f,
			  const char *(*name_of)(const char *s, const char *e,
						 const char **ns, const char **ne),
			  const struct rv_pairs_rec *recs, size_t n, double *raw,
			  uint8_t *valid)
{
	const char *p, *end, *s, *e, *ns, *ne, *q;
	size_t hint = 0;
	long i;

	if (n == 0 || rv_pfile_read(f) < 0)
		return;                 /* every channel stays invalid */
	p = f->buf;
	end = p + f->len;
	while (p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		q = name_of(s, e, &ns, &ne);
		i = q ? rv_pairs_find_rec(recs, n, ns, ne, hint) : -1;
		if (i < 0)
			continue;
		hint = (size_t)i + 1;
		put_cols(q, e, recs[i].ncols, raw + recs[i].first, valid + recs[i].first);
	}
}

/* Protocol of a line: [s, colon) when the line has "Name:" first. */
static const char *line_proto(const char *s, const char *e)
{
	const char *c = memchr(s, ':', (size_t)(e - s));

	return c && c > s && memchr(s, ' ', (size_t)(c - s)) == NULL ? c : NULL;
}

static struct pairs_proto *find_proto(struct pairs_src *ps, const char *s, size_t len)
{
	for (size_t i = 0; i < ps->nproto; i++)
		if (ps->protos[i].name_len == len && memcmp(ps->protos[i].name, s, len) == 0)
			return &ps->protos[i];
	return NULL;
}

/* Column of `field` in the header text, or -1. */
static long header_col(const struct pairs_proto *pp, const char *field)
{
	const char *p = pp->header, *end = p + pp->header_len;
	long col = 0;

	while (rv_str_skip_blank(&p, end), p < end) {
		const char *t = p;

		while (p < end && *p != ' ' && *p != '\t')
			p++;
		if (rv_str_eq(t, p, field))
			return col;
		col++;
	}
	return -1;
}

static size_t count_cols(const char *p, const char *end)
{
	size_t n = 0;

	while (rv_str_skip_blank(&p, end), p < end) {
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		n++;
	}
	return n;
}

/* Records the header of a protocol some row wants; ignores the rest. */
static int add_proto(struct pairs_src *ps, const struct rv_pairs_row *rows,
		     const char *s, const char *colon, const char *e, struct rv_err *err)
{
	size_t len = (size_t)(colon - s);
	struct pairs_proto *pp;
	int wanted = 0;

	for (const struct rv_pairs_row *r = rows; r->proto && !wanted; r++)
		wanted = strlen(r->proto) == len && memcmp(r->proto, s, len) == 0;
	if (!wanted || find_proto(ps, s, len) || len >= PROTO_NAME_MAX ||
	    ps->nproto == PAIRS_MAX_PROTOS)
		return 0;
	pp = &ps->protos[ps->nproto];
	memcpy(pp->name, s, len);
	pp->name[len] = '\0';
	pp->name_len = len;
	pp->header_len = (size_t)(e - colon - 1);
	pp->ncols = count_cols(colon + 1, e);
	if (pp->ncols > PAIRS_MAX_COLS)
		pp->ncols = PAIRS_MAX_COLS;
	pp->header = malloc(pp->header_len + 1);
	pp->chan_of = malloc((pp->ncols ? pp->ncols : 1) * sizeof(*pp->chan_of));
	if (!pp->header || !pp->chan_of) {
		free(pp->header);
		free(pp->chan_of);
		return rv_err_set(err, -ENOMEM, "%s: out of memory", ps->f.path);
	}
	memcpy(pp->header, colon + 1, pp->header_len);
	pp->header[pp->header_len] = '\0';
	for (size_t k = 0; k < pp->ncols; k++)
		pp->chan_of[k] = -1;
	ps->nproto++;
	return 0;
}

/* The first line of each protocol is its header. */
static int scan_headers(struct pairs_src *ps, const struct rv_pairs_row *rows,
			struct rv_err *err)
{
	const char *p = ps->f.buf, *end = p + ps->f.len, *s, *e, *colon;
	int rc = 0;

	while (!rc && p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		colon = line_proto(s, e);
		if (colon)
			rc = add_proto(ps, rows, s, colon, e, err);
	}
	return rc;
}

static int add_chans(struct pairs_src *ps, const struct rv_pairs_row *rows,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	size_t first = chans->n;

	for (const struct rv_pairs_row *r = rows; r->proto; r++) {
		struct pairs_proto *pp = find_proto(ps, r->proto, strlen(r->proto));
		long col = pp ? header_col(pp, r->field) : -1;
		int rc;

		if (col < 0 || (size_t)col >= pp->ncols || pp->chan_of[col] >= 0)
			continue;
		pp->chan_of[col] = (int32_t)(chans->n - first);
		rc = rv_chanlist_add(chans, r->type, NULL, 1.0, err);
		if (rc)
			return rc;
	}
	return 0;
}

int rv_pairs_open(const char *root, const char *rel, const char *what,
		  const struct rv_pairs_row *rows, void **out, struct rv_chanlist *chans,
		  struct rv_err *err)
{
	struct pairs_src *ps = calloc(1, sizeof(*ps));
	size_t first = chans->n;
	int rc;

	if (!ps)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", what);
	rc = rv_pfile_open(&ps->f, root, rel, err);
	if (!rc)
		rc = scan_headers(ps, rows, err);
	if (!rc)
		rc = add_chans(ps, rows, chans, err);
	if (!rc && chans->n == first)
		rc = rv_err_set(err, -ENODATA, "%s: %s has none of the known fields", what,
				ps->f.path);
	if (rc) {
		rv_pairs_close(ps);
		return rc;
	}
	*out = ps;
	return 0;
}

static void put_values(const struct pairs_proto *pp, const char *p, const char *e,
		       double *raw, uint8_t *valid)
{
	uint64_t v;
	int rc;

	for (size_t k = 0; k < pp->ncols; k++) {
		rc = rv_pairs_col_u64(&p, e, &v);
		if (rc == -ENODATA)
			return;
		if (rc == 0 && pp->chan_of[k] >= 0) {
			raw[pp->chan_of[k]] = (double)v;
			valid[pp->chan_of[k]] = 1;
		}
	}
}

void rv_pairs_sample(void *state, double *raw, uint8_t *valid)
{
	struct pairs_src *ps = state;
	const char *p, *end, *s, *e, *colon;

	for (size_t i = 0; i < ps->nproto; i++)
		ps->protos[i].seen = SEEN_NONE;
	if (rv_pfile_read(&ps->f) < 0)
		return;                 /* every channel stays invalid */
	p = ps->f.buf;
	end = p + ps->f.len;
	while (p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		colon = line_proto(s, e);
		struct pairs_proto *pp = colon ? find_proto(ps, s, (size_t)(colon - s)) : NULL;

		if (!pp || pp->seen == SEEN_VALUES)
			continue;
		if (pp->seen == SEEN_NONE) {
			pp->header_ok = (size_t)(e - colon - 1) == pp->header_len &&
					memcmp(colon + 1, pp->header, pp->header_len) == 0;
			pp->seen = SEEN_HEADER;
			continue;
		}
		pp->seen = SEEN_VALUES;
		if (pp->header_ok)
			put_values(pp, colon + 1, e, raw, valid);
	}
}

void rv_pairs_close(void *state)
{
	struct pairs_src *ps = state;

	if (!ps)
		return;
	for (size_t i = 0; i < ps->nproto; i++) {
		free(ps->protos[i].header);
		free(ps->protos[i].chan_of);
	}
	rv_pfile_close(&ps->f);
	free(ps);
}
