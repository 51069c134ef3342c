/*
 * store_details.c - an incident's details in the store: evidence, series
 * of its top signals, likely causes (schema version 2; see store.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "store/store.h"
#include "store/store_sql.h"

enum { POINT_BYTES = 8 + 4 };  /* f64 time, f32 value */

static int check_details(const struct rv_store *s, uint64_t id, const struct rv_store_details *d,
			 struct rv_err *err)
{
	if (!d)
		return rv_err_set(err, -EINVAL, "store %s: no details", s->path);
	if (id == 0 || id > (uint64_t)INT64_MAX)
		return rv_err_set(err, -EINVAL, "store %s: incident id %llu out of range", s->path,
				  (unsigned long long)id);
	if (d->nev > RV_STORE_EV_MAX || d->nseries > RV_STORE_SERIES_MAX ||
	    d->ncauses > RV_STORE_CAUSE_MAX)
		return rv_err_set(err, -EINVAL,
				  "store %s: incident %llu: %zu evidence entries, %zu series, %zu"
				  " causes; at most %d, %d, %d", s->path, (unsigned long long)id,
				  d->nev, d->nseries, d->ncauses, RV_STORE_EV_MAX,
				  RV_STORE_SERIES_MAX, RV_STORE_CAUSE_MAX);
	if (d->nev && !d->ev)
		return rv_err_set(err, -EINVAL, "store %s: incident %llu: no evidence array",
				  s->path, (unsigned long long)id);
	for (size_t i = 0; i < d->nev; i++)
		if (!d->ev[i].name)
			return rv_err_set(err, -EINVAL,
					  "store %s: incident %llu: evidence entry %zu has no name",
					  s->path, (unsigned long long)id, i);
	for (size_t i = 0; i < d->nseries; i++) {
		const struct rv_store_series *r = &d->series[i];
		if (r->n > RV_STORE_SERIES_POINTS || (r->n && (!r->ts || !r->v)))
			return rv_err_set(err, -EINVAL,
					  "store %s: incident %llu: series %zu: %zu points (at most"
					  " %d) or no data", s->path, (unsigned long long)id, i, r->n,
					  RV_STORE_SERIES_POINTS);
	}
	return 0;
}

static int delete_details(struct rv_store *s, uint64_t id, const char *what, struct rv_err *err)
{
	static const enum stmt_id del[] = { ST_DET_DELETE, ST_EV_DELETE, ST_SER_DELETE,
					    ST_CAUSE_DELETE };
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof(del) / sizeof(del[0]); i++) {
		sqlite3_bind_int64(s->st[del[i]], 1, (sqlite3_int64)id);
		rc = rv_store_step_done(s, del[i], what, err);
	}
	return rc;
}

static int bind_real(sqlite3_stmt *st, int idx, double v)
{
	return isnan(v) ? sqlite3_bind_null(st, idx) : sqlite3_bind_double(st, idx, v);
}

static int put_evidence(struct rv_store *s, uint64_t id, const struct rv_store_details *d,
			const char *what, struct rv_err *err)
{
	sqlite3_stmt *st = s->st[ST_EV_INSERT];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < d->nev; i++) {
		const struct rv_store_ev *e = &d->ev[i];
		int brc = sqlite3_bind_int64(st, 1, (sqlite3_int64)id);

		brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 2, (sqlite3_int64)i));
		brc = rv_store_bind_ok(brc, sqlite3_bind_text(st, 3, e->name, -1, SQLITE_STATIC));
		brc = rv_store_bind_ok(brc, sqlite3_bind_int(st, 4, e->skew != 0));
		brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 5, (sqlite3_int64)e->base_n));
		brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 6, (sqlite3_int64)e->inc_n));
		brc = rv_store_bind_ok(brc, bind_real(st, 7, e->base_mean));
		brc = rv_store_bind_ok(brc, bind_real(st, 8, e->base_sd));
		brc = rv_store_bind_ok(brc, bind_real(st, 9, e->value));
		brc = rv_store_bind_ok(brc, bind_real(st, 10, e->inc_sd));
		brc = rv_store_bind_ok(brc, bind_real(st, 11, e->peak));
		brc = rv_store_bind_ok(brc, bind_real(st, 12, e->z));
		/* change is +-INFINITY from a zero baseline: SQLite keeps infinities */
		brc = rv_store_bind_ok(brc, bind_real(st, 13, e->change));
		brc = rv_store_bind_ok(brc, sqlite3_bind_int(st, 14, e->dir));
		brc = rv_store_bind_ok(brc, bind_real(st, 15, e->onset_ts));
		rc = brc != SQLITE_OK ? rv_store_fail_sqlite(s, brc, what, err)
				      : rv_store_step_done(s, ST_EV_INSERT, what, err);
	}
	return rc;
}

static int put_series(struct rv_store *s, uint64_t id, const struct rv_store_details *d,
		      const char *what, struct rv_err *err)
{
	sqlite3_stmt *st = s->st[ST_SER_INSERT];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < d->nseries; i++) {
		const struct rv_store_series *r = &d->series[i];
		struct rv_wbuf b;
		int brc;

		rv_wbuf_init(&b);
		for (size_t p = 0; p < r->n; p++) {
			rv_wbuf_f64(&b, r->ts[p]);
			rv_wbuf_f32s(&b, &r->v[p], 1);
		}
		if (b.oom) {
			rv_wbuf_fini(&b);
			return rv_err_set(err, -ENOMEM, "store %s: %s: out of memory", s->path, what);
		}
		brc = sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
		brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 2, (sqlite3_int64)i));
		brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 3, r->name, sizeof(r->name)));
		brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 4, (sqlite3_int64)r->n));
		brc = rv_store_bind_ok(brc, sqlite3_bind_blob(st, 5, b.len ? (const void *)b.data : (const void *)"", (int)b.len,
							   SQLITE_TRANSIENT));
		rv_wbuf_fini(&b);
		rc = brc != SQLITE_OK ? rv_store_fail_sqlite(s, brc, what, err)
				      : rv_store_step_done(s, ST_SER_INSERT, what, err);
	}
	return rc;
}

const char *rv_store_role_name(enum rv_store_role r)
{
	return r == RV_STORE_ROLE_ONSET ? "onset" : r == RV_STORE_ROLE_NOTE ? "note" : "cause";
}

enum rv_store_role rv_store_role_of(const char *text)
{
	if (text && strcmp(text, "onset") == 0)
		return RV_STORE_ROLE_ONSET;
	if (text && strcmp(text, "note") == 0)
		return RV_STORE_ROLE_NOTE;
	return RV_STORE_ROLE_CAUSE;
}

static int put_causes(struct rv_store *s, uint64_t id, const struct rv_store_details *d,
		      const char *what, struct rv_err *err)
{
	sqlite3_stmt *st = s->st[ST_CAUSE_INSERT];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < d->ncauses; i++) {
		const struct rv_store_cause *c = &d->causes[i];
		int brc = sqlite3_bind_int64(st, 1, (sqlite3_int64)id);

		brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 2, (sqlite3_int64)i));
		brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 3, c->rule_id,
								sizeof(c->rule_id)));
		brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 4, c->title, sizeof(c->title)));
		brc = rv_store_bind_ok(brc, bind_real(st, 5, c->confidence));
		brc = rv_store_bind_ok(brc, sqlite3_bind_text(st, 6, rv_store_role_name(c->role), -1,
							      SQLITE_STATIC));
		rc = brc != SQLITE_OK ? rv_store_fail_sqlite(s, brc, what, err)
				      : rv_store_step_done(s, ST_CAUSE_INSERT, what, err);
	}
	return rc;
}

int rv_store_put_details(struct rv_store *s, uint64_t id, const struct rv_store_details *d,
			 struct rv_err *err)
{
	sqlite3_stmt *st;
	char what[64];
	int brc, rc = rv_store_enter_write(s, "writing details", err);

	if (rc == 0)
		rc = check_details(s, id, d, err);
	if (rc < 0)
		return rc;
	snprintf(what, sizeof(what), "writing details of incident %llu", (unsigned long long)id);
	rc = rv_store_tx_begin(s, what, err);
	if (rc < 0)
		return rc;
	rc = delete_details(s, id, what, err);
	if (rc == 0) {
		st = s->st[ST_DET_INSERT];
		brc = sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
		brc = rv_store_bind_ok(brc, bind_real(st, 2, d->base_from));
		brc = rv_store_bind_ok(brc, bind_real(st, 3, d->base_to));
		brc = rv_store_bind_ok(brc, bind_real(st, 4, d->start_ts));
		brc = rv_store_bind_ok(brc, bind_real(st, 5, d->end_ts));
		rc = brc != SQLITE_OK ? rv_store_fail_sqlite(s, brc, what, err)
				      : rv_store_step_done(s, ST_DET_INSERT, what, err);
	}
	if (rc == 0)
		rc = put_evidence(s, id, d, what, err);
	if (rc == 0)
		rc = put_series(s, id, d, what, err);
	if (rc == 0)
		rc = put_causes(s, id, d, what, err);
	return rv_store_tx_end(s, rc, what, err);
}

void rv_store_details_free(struct rv_store_details *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->ev && i < d->nev; i++)
		free((char *)d->ev[i].name);
	free(d->ev);
	free(d->cons);
	for (size_t i = 0; i < d->nseries; i++) {
		free(d->series[i].ts);
		free(d->series[i].v);
	}
	memset(d, 0, sizeof(*d));
}

/* Steps statement id over its rows; row(ctx, st) reads one. Resets it. */
static int each_row(struct rv_store *s, enum stmt_id id, uint64_t inc, int limit,
		    int (*row)(struct rv_store *s, sqlite3_stmt *st, struct rv_store_details *d,
			       uint64_t inc, struct rv_err *err),
		    struct rv_store_details *d, const char *what, struct rv_err *err)
{
	sqlite3_stmt *st = s->st[id];
	int rc = 0, src;

	sqlite3_bind_int64(st, 1, (sqlite3_int64)inc);
	if (limit >= 0)
		sqlite3_bind_int(st, 2, limit);
	while (rc == 0 && (src = sqlite3_step(st)) == SQLITE_ROW)
		rc = row(s, st, d, inc, err);
	if (rc == 0 && src != SQLITE_DONE)
		rc = rv_store_fail_sqlite(s, src, what, err);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

static int ev_row(struct rv_store *s, sqlite3_stmt *st, struct rv_store_details *d, uint64_t inc,
		  struct rv_err *err)
{
	struct rv_store_ev *e = &d->ev[d->nev];
	const unsigned char *name = sqlite3_column_text(st, 0);
	sqlite3_int64 bn = sqlite3_column_int64(st, 2), in = sqlite3_column_int64(st, 3);

	memset(e, 0, sizeof(*e));
	if (!(e->name = strdup(name ? (const char *)name : "")))
		return rv_err_set(err, -ENOMEM, "store %s: reading evidence: out of memory",
				  s->path);
	d->nev++;
	e->skew = sqlite3_column_int(st, 1) != 0;
	e->base_n = bn > 0 ? (size_t)bn : 0;
	e->inc_n = in > 0 ? (size_t)in : 0;
	e->base_mean = rv_store_column_real(st, 4);
	e->base_sd = rv_store_column_real(st, 5);
	e->value = rv_store_column_real(st, 6);
	e->inc_sd = rv_store_column_real(st, 7);
	e->peak = rv_store_column_real(st, 8);
	e->z = rv_store_column_real(st, 9);
	e->change = rv_store_column_real(st, 10);
	e->dir = sqlite3_column_int(st, 11);
	e->dir = e->dir > 0 ? 1 : e->dir < 0 ? -1 : 0;
	e->onset_ts = rv_store_column_real(st, 12);
	(void)inc;
	return 0;
}

static int ser_row(struct rv_store *s, sqlite3_stmt *st, struct rv_store_details *d,
		   uint64_t inc, struct rv_err *err)
{
	struct rv_store_series *r = &d->series[d->nseries];
	sqlite3_int64 n = sqlite3_column_int64(st, 1);
	const void *blob = sqlite3_column_blob(st, 2);
	size_t len = (size_t)sqlite3_column_bytes(st, 2);
	struct rv_rbuf b;

	memset(r, 0, sizeof(*r));
	rv_store_column_field(st, 0, r->name, sizeof(r->name));
	if (n < 0 || n > RV_STORE_SERIES_POINTS || len != (size_t)n * POINT_BYTES)
		return rv_err_set(err, -EILSEQ,
				  "store %s: incident %llu: series %s: %lld points in %zu bytes"
				  " (damaged or edited)", s->path, (unsigned long long)inc,
				  r->name, (long long)n, len);
	d->nseries++;
	if (n == 0)
		return 0;
	r->ts = malloc((size_t)n * sizeof(*r->ts));
	r->v = malloc((size_t)n * sizeof(*r->v));
	if (!r->ts || !r->v)
		return rv_err_set(err, -ENOMEM, "store %s: reading series: out of memory",
				  s->path);
	rv_rbuf_init(&b, blob, len);
	for (size_t p = 0; p < (size_t)n; p++) {
		r->ts[p] = rv_rbuf_f64(&b);
		rv_rbuf_f32s(&b, &r->v[p], 1);
	}
	r->n = (size_t)n;
	return 0;
}

static int cause_row(struct rv_store *s, sqlite3_stmt *st, struct rv_store_details *d,
		     uint64_t inc, struct rv_err *err)
{
	struct rv_store_cause *c = &d->causes[d->ncauses++];

	rv_store_column_field(st, 0, c->rule_id, sizeof(c->rule_id));
	rv_store_column_field(st, 1, c->title, sizeof(c->title));
	c->confidence = rv_store_column_real(st, 2);
	c->role = rv_store_role_of((const char *)sqlite3_column_text(st, 3));
	(void)s;
	(void)inc;
	(void)err;
	return 0;
}

int rv_store_get_details(struct rv_store *s, uint64_t id, struct rv_store_details *d,
			 struct rv_err *err)
{
	sqlite3_stmt *st;
	int rc = rv_store_enter(s, err), src;

	if (rc == 0 && !d)
		rc = rv_err_set(err, -EINVAL, "store %s: no details", s->path);
	if (rc < 0)
		return rc;
	memset(d, 0, sizeof(*d));
	st = s->st[ST_DET_GET];
	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	src = sqlite3_step(st);
	if (src == SQLITE_ROW) {
		d->base_from = rv_store_column_real(st, 0);
		d->base_to = rv_store_column_real(st, 1);
		d->start_ts = rv_store_column_real(st, 2);
		d->end_ts = rv_store_column_real(st, 3);
	} else if (src == SQLITE_DONE) {
		rc = rv_err_set(err, -ENOENT, "store %s: no details of incident %llu", s->path,
				(unsigned long long)id);
	} else {
		rc = rv_store_fail_sqlite(s, src, "reading details", err);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == 0 && !(d->ev = calloc(RV_STORE_EV_MAX, sizeof(*d->ev))))
		rc = rv_err_set(err, -ENOMEM, "store %s: reading details: out of memory", s->path);
	if (rc == 0)
		rc = each_row(s, ST_EV_LIST, id, RV_STORE_EV_MAX, ev_row, d, "reading evidence", err);
	if (rc == 0)
		rc = each_row(s, ST_SER_LIST, id, RV_STORE_SERIES_MAX, ser_row, d, "reading series",
			      err);
	if (rc == 0)
		rc = each_row(s, ST_CAUSE_LIST, id, RV_STORE_CAUSE_MAX, cause_row, d,
			      "reading causes", err);
	if (rc == 0 && !(d->cons = calloc(RV_STORE_CONS_MAX, sizeof(*d->cons))))
		rc = rv_err_set(err, -ENOMEM, "store %s: reading details: out of memory", s->path);
	if (rc == 0)
		rc = rv_store_get_consumers(s, id, d->cons, RV_STORE_CONS_MAX, &d->ncons, err);
	if (rc < 0)
		rv_store_details_free(d);
	return rc;
}
