/*
 * store_consumers.c - whose workload: the consumers of an incident's
 * resource (schema version 4; see store.h), written apart from the details
 * because the agent measures them after the incident opened.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/store_sql.h"

#define BIND_TEXT(st, i, f) rv_store_bind_field((st), (i), (f), sizeof(f))

static int bind_real(sqlite3_stmt *st, int idx, double v)
{
	return isnan(v) ? sqlite3_bind_null(st, idx) : sqlite3_bind_double(st, idx, v);
}

static int bind_consumer(sqlite3_stmt *st, uint64_t id, size_t pos,
			 const struct rv_store_consumer *c)
{
	int brc = sqlite3_bind_int64(st, 1, (sqlite3_int64)id);

	brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 2, (sqlite3_int64)pos));
	brc = rv_store_bind_ok(brc, bind_real(st, 3, c->measured_ts));
	brc = rv_store_bind_ok(brc, sqlite3_bind_text(st, 4, c->is_cgroup ? "cgroup" : "process",
						      -1, SQLITE_STATIC));
	brc = rv_store_bind_ok(brc, sqlite3_bind_int(st, 5, c->pid));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 6, c->comm));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 7, c->cmd));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 8, c->cgroup));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 9, c->label));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 10, c->runtime));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 11, c->container));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 12, c->pod_uid));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 13, c->qos));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 14, c->slurm_job));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 15, c->unit));
	brc = rv_store_bind_ok(brc, BIND_TEXT(st, 16, c->resource));
	brc = rv_store_bind_ok(brc, bind_real(st, 17, c->amount));
	brc = rv_store_bind_ok(brc, bind_real(st, 18, c->before));
	brc = rv_store_bind_ok(brc, bind_real(st, 19, c->share));
	brc = rv_store_bind_ok(brc, bind_real(st, 20, c->pressure));
	return rv_store_bind_ok(brc, BIND_TEXT(st, 21, c->text));
}

int rv_store_put_consumers(struct rv_store *s, uint64_t id, const struct rv_store_consumer *c,
			   size_t n, struct rv_err *err)
{
	char what[64];
	int rc = rv_store_enter_write(s, "writing consumers", err);

	if (rc < 0)
		return rc;
	if (id == 0 || id > (uint64_t)INT64_MAX || n > RV_STORE_CONS_MAX || (n && !c))
		return rv_err_set(err, -EINVAL, "store %s: incident %llu: %zu consumers (at most %d)",
				  s->path, (unsigned long long)id, n, RV_STORE_CONS_MAX);
	snprintf(what, sizeof(what), "writing consumers of incident %llu", (unsigned long long)id);
	rc = rv_store_tx_begin(s, what, err);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s->st[ST_CONS_DELETE], 1, (sqlite3_int64)id);
	rc = rv_store_step_done(s, ST_CONS_DELETE, what, err);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		int brc = bind_consumer(s->st[ST_CONS_INSERT], id, i, &c[i]);

		rc = brc != SQLITE_OK ? rv_store_fail_sqlite(s, brc, what, err)
				      : rv_store_step_done(s, ST_CONS_INSERT, what, err);
	}
	return rv_store_tx_end(s, rc, what, err);
}

#define COL_TEXT(st, i, f) rv_store_column_field((st), (i), (f), sizeof(f))

static void read_consumer(sqlite3_stmt *st, struct rv_store_consumer *c)
{
	const unsigned char *kind = sqlite3_column_text(st, 1);

	memset(c, 0, sizeof(*c));
	c->measured_ts = rv_store_column_real(st, 0);
	c->is_cgroup = kind && strcmp((const char *)kind, "cgroup") == 0;
	c->pid = sqlite3_column_int(st, 2);
	COL_TEXT(st, 3, c->comm);
	COL_TEXT(st, 4, c->cmd);
	COL_TEXT(st, 5, c->cgroup);
	COL_TEXT(st, 6, c->label);
	COL_TEXT(st, 7, c->runtime);
	COL_TEXT(st, 8, c->container);
	COL_TEXT(st, 9, c->pod_uid);
	COL_TEXT(st, 10, c->qos);
	COL_TEXT(st, 11, c->slurm_job);
	COL_TEXT(st, 12, c->unit);
	COL_TEXT(st, 13, c->resource);
	c->amount = rv_store_column_real(st, 14);
	c->before = rv_store_column_real(st, 15);
	c->share = rv_store_column_real(st, 16);
	c->pressure = rv_store_column_real(st, 17);
	COL_TEXT(st, 18, c->text);
}

int rv_store_get_consumers(struct rv_store *s, uint64_t id, struct rv_store_consumer *out,
			   size_t max, size_t *n, struct rv_err *err)
{
	sqlite3_stmt *st;
	int rc = rv_store_enter(s, err), src;

	*n = 0;
	if (rc < 0)
		return rc;
	st = s->st[ST_CONS_LIST];
	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	while ((src = sqlite3_step(st)) == SQLITE_ROW && *n < max)
		read_consumer(st, &out[(*n)++]);
	if (src != SQLITE_ROW && src != SQLITE_DONE)
		rc = rv_store_fail_sqlite(s, src, "reading consumers", err);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}
