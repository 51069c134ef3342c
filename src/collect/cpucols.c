/*
 * cpucols.c - see cpucols.h.
 */
#include "collect/cpucols.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "collect/pairs.h"

/* CPU numbers and header columns beyond this are not followed (as in
 * proc_stat.c). */
enum { CPUCOLS_MAX = 8192 };

/* Next "CPU<n>" of a header line: 0 with *id; -ENODATA at the end of the
 * line; -EINVAL for anything else. */
static int cpu_token(const char **p, const char *end, uint64_t *id)
{
	const char *s;

	rv_str_skip_blank(p, end);
	if (*p >= end)
		return -ENODATA;
	s = *p + 3;
	if (end - *p <= 3 || memcmp(*p, "CPU", 3) != 0 || rv_str_u64(&s, end, id) != 0 ||
	    (s < end && *s != ' ' && *s != '\t'))
		return -EINVAL;
	*p = s;
	return 0;
}

static int alloc_slots(struct rv_cpucols *c, uint32_t max)
{
	c->nslot = (size_t)max + 1;
	c->slot_of = malloc(c->nslot * sizeof(*c->slot_of));
	c->col_slot = malloc(CPUCOLS_MAX * sizeof(*c->col_slot));
	c->present = calloc(c->n, sizeof(*c->present));
	c->vals = calloc(c->n, sizeof(*c->vals));
	c->ok = calloc(c->n, sizeof(*c->ok));
	if (!c->slot_of || !c->col_slot || !c->present || !c->vals || !c->ok)
		return -ENOMEM;
	for (size_t i = 0; i < c->nslot; i++)
		c->slot_of[i] = -1;
	return 0;
}

/* The CPUs of the header line at *p into c->ids; advances *p past it. */
static int read_ids(struct rv_cpucols *c, const char **p, const char *end, const char *path,
		    uint32_t *max, struct rv_err *err)
{
	const char *e, *s = rv_pairs_next_line(p, end, &e);
	uint64_t id;
	int rc;

	c->ids = malloc(CPUCOLS_MAX * sizeof(*c->ids));
	if (!c->ids)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	*max = 0;
	while ((rc = cpu_token(&s, e, &id)) == 0) {
		if (id >= CPUCOLS_MAX || c->n == CPUCOLS_MAX)
			return rv_err_set(err, -EINVAL, "%s: CPU%llu is beyond %d CPUs", path,
					  (unsigned long long)id, CPUCOLS_MAX);
		c->ids[c->n++] = (uint32_t)id;
		*max = (uint32_t)id > *max ? (uint32_t)id : *max;
	}
	if (rc != -ENODATA || c->n == 0)
		return rv_err_set(err, -EINVAL, "%s:1: header does not name the CPU columns", path);
	return 0;
}

int rv_cpucols_open(struct rv_cpucols *c, struct rv_pfile *f, const char *root, const char *rel,
		    const char **rows, const char **end, struct rv_err *err)
{
	uint32_t max = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = rv_pfile_open(f, root, rel, err);
	if (rc)
		return rc;
	*rows = f->buf;
	*end = f->buf + f->len;
	rc = read_ids(c, rows, *end, f->path, &max, err);
	if (rc)
		return rc;
	if (alloc_slots(c, max))
		return rv_err_set(err, -ENOMEM, "%s: out of memory", f->path);
	for (size_t k = 0; k < c->n; k++) {
		if (c->slot_of[c->ids[k]] >= 0)
			return rv_err_set(err, -EINVAL, "%s:1: CPU%u twice in the header",
					  f->path, c->ids[k]);
		c->slot_of[c->ids[k]] = (int32_t)k;
	}
	*rows = f->buf;
	return rv_cpucols_header(c, rows, *end);
}

int rv_cpucols_header(struct rv_cpucols *c, const char **p, const char *end)
{
	const char *e, *s = rv_pairs_next_line(p, end, &e);
	uint64_t id;
	int rc;

	memset(c->present, 0, c->n);
	c->ncols = 0;
	while ((rc = cpu_token(&s, e, &id)) == 0 && c->ncols < CPUCOLS_MAX) {
		int32_t slot = id < c->nslot ? c->slot_of[id] : -1;

		if (slot >= 0 && c->present[slot])
			slot = -1;      /* a CPU twice: the first column counts */
		if (slot >= 0)
			c->present[slot] = 1;
		c->col_slot[c->ncols++] = slot;
	}
	if (rc == -ENODATA && c->ncols > 0)
		return 0;
	memset(c->present, 0, c->n);
	c->ncols = 0;
	return -EINVAL;
}

int rv_cpucols_label(const char **p, const char *end, const char **ls, size_t *llen)
{
	const char *s = *p, *q;

	rv_str_skip_blank(&s, end);
	for (q = s; q < end && *q != ':' && *q != ' ' && *q != '\t'; q++)
		;
	if (q == s || q == end || *q != ':')
		return -EINVAL;
	*ls = s;
	*llen = (size_t)(q - s);
	*p = q + 1;
	return 0;
}

int rv_cpucols_row(struct rv_cpucols *c, const char **p, const char *end, uint64_t *sum)
{
	int rc = c->ncols ? 0 : -EINVAL;
	uint64_t v;

	memset(c->ok, 0, c->n);
	*sum = 0;
	for (size_t k = 0; k < c->ncols; k++) {
		int r = rv_pairs_col_u64(p, end, &v);
		int32_t slot = c->col_slot[k];

		if (r == -ENODATA)
			return -EINVAL;         /* the row stops short */
		if (r) {
			rc = -EINVAL;
			continue;
		}
		if (__builtin_add_overflow(*sum, v, sum))
			rc = -EINVAL;
		if (slot >= 0) {
			c->vals[slot] = v;
			c->ok[slot] = 1;
		}
	}
	return rc;
}

int rv_cpucols_reread(struct rv_cpucols *c, struct rv_pfile *f, const char **p,
		      const char **end)
{
	long got = rv_pfile_read(f);

	if (got < 0)
		return (int)got;
	*p = f->buf;
	*end = f->buf + f->len;
	return rv_cpucols_header(c, p, *end);
}

void rv_cpucols_put(const struct rv_cpucols *c, double *raw, uint8_t *valid)
{
	for (size_t k = 0; k < c->n; k++)
		if (c->ok[k] && !valid[k]) {
			raw[k] = (double)c->vals[k];
			valid[k] = 1;
		}
}

int rv_cpucols_add(const struct rv_cpucols *c, struct rv_chanlist *chans, const char *type,
		   const char *prefix, struct rv_err *err)
{
	char inst[RV_CHAN_NAME_MAX];
	int rc = 0;

	for (size_t k = 0; !rc && k < c->n; k++) {
		if (prefix)
			snprintf(inst, sizeof(inst), "%s/cpu%u", prefix, c->ids[k]);
		else
			snprintf(inst, sizeof(inst), "cpu%u", c->ids[k]);
		rc = rv_chanlist_add(chans, type, inst, 1.0, err);
	}
	return rc;
}

void rv_cpucols_fini(struct rv_cpucols *c)
{
	free(c->ids);
	free(c->slot_of);
	free(c->col_slot);
	free(c->present);
	free(c->vals);
	free(c->ok);
	memset(c, 0, sizeof(*c));
}
