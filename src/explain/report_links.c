/*
 * report_links.c - the phases of a cascade in `reveal report`: a
 * follow-on incident names the incident it follows, and that incident the
 * ones that follow it (explain/incident.h: phase, follows). The links come
 * from all the incidents of the report's data, so that a filter that
 * leaves one side out (--incident, --subsystem, --since) still lets the
 * other name it; `shown` says whether the report holds it (a link in
 * markdown and HTML). See report_build.h.
 *
 * Cost: two sorts of the data's rows and a binary search per report
 * incident, so a store of many incidents stays cheap.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "explain/report_build.h"

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int row_by_id(const void *a, const void *b)
{
	return cmp_u64(((const struct rv_report_row *)a)->id, ((const struct rv_report_row *)b)->id);
}

/* By the incident followed, then start, then id. */
static int row_by_follows(const void *a, const void *b)
{
	const struct rv_report_row *x = a, *y = b;

	if (x->follows != y->follows)
		return cmp_u64(x->follows, y->follows);
	if (x->start_ts != y->start_ts)
		return x->start_ts < y->start_ts ? -1 : 1;
	return cmp_u64(x->id, y->id);
}

static int by_u64(const void *a, const void *b)
{
	return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* The row of incident id in rows sorted by id, NULL when none. */
static const struct rv_report_row *find_row(const struct rv_report_row *rows, size_t n, uint64_t id)
{
	struct rv_report_row key = { .id = id };

	return n ? bsearch(&key, rows, n, sizeof(*rows), row_by_id) : NULL;
}

/* The first row following incident id in rows sorted by row_by_follows
 * (n when none). */
static size_t first_follower(const struct rv_report_row *rows, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid].follows < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int shown(const uint64_t *ids, size_t n, uint64_t id)
{
	return n && bsearch(&id, ids, n, sizeof(*ids), by_u64) != NULL;
}

/* The followers of r: rows[k..] while they follow r->id. */
static int fill_followers(struct rv_pool *pl, struct rv_report_incident *r,
			  const struct rv_report_row *rows, size_t nrows, const uint64_t *ids,
			  size_t nids)
{
	size_t k = first_follower(rows, nrows, r->id), m = 0;
	struct rv_report_link *out;

	while (k + m < nrows && rows[k + m].follows == r->id)
		m++;
	if (m == 0)
		return 0;
	out = rv_pool_zalloc(pl, m, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++) {
		const struct rv_report_row *w = &rows[k + i];
		out[i].id = w->id;
		out[i].subsystem = w->subsystem;
		out[i].offset_s = w->start_ts - r->start_ts;
		out[i].shown = shown(ids, nids, w->id);
	}
	r->nfollowers = m;
	r->followers = out;
	return 0;
}

int rv_report_link(struct rv_pool *pl, struct rv_report_row *rows, size_t nrows,
		   struct rv_report_incident *r, size_t n)
{
	uint64_t *ids = malloc((n ? n : 1) * sizeof(*ids));
	int rc = 0;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ids[i] = r[i].id;
	qsort(ids, n, sizeof(*ids), by_u64);
	qsort(rows, nrows, sizeof(*rows), row_by_id);
	for (size_t i = 0; i < n; i++) {
		const struct rv_report_row *p = r[i].follows ? find_row(rows, nrows, r[i].follows) : NULL;
		r[i].follows_subsystem = p ? p->subsystem : "";
		r[i].follows_shown = r[i].follows && shown(ids, n, r[i].follows);
	}
	qsort(rows, nrows, sizeof(*rows), row_by_follows);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = fill_followers(pl, &r[i], rows, nrows, ids, n);
	free(ids);
	return rc;
}
