/*
 * store_testutil.h - what the store's tests share: a fixture with its own
 * temporary directory (setup, teardown), opening and reopening the store in
 * it, a made-up incident, version 1 and 2 stores as older agents wrote
 * them, and a second, plain SQLite connection to read or change the file
 * behind the store's back. Include after <cmocka.h>.
 */
#ifndef RV_STORE_TESTUTIL_H
#define RV_STORE_TESTUTIL_H

#include <dirent.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_sql.h"

struct fixture {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
	struct rv_store *s;
};

static inline int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	const char *tmp = getenv("TMPDIR");

	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "%s/rv_store_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fx->dir)) {
		free(fx);
		return -1;
	}
	snprintf(fx->path, sizeof(fx->path), "%s/agent.db", fx->dir);
	*state = fx;
	return 0;
}

/* Removes the files in the test directory (the store, -wal, -shm, garbage)
 * and the directory. */
static inline int teardown(void **state)
{
	struct fixture *fx = *state;
	char p[PATH_MAX + 256];
	struct dirent *de;
	DIR *d;

	rv_store_close(fx->s);
	d = opendir(fx->dir);
	while (d && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", fx->dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static inline struct rv_store *open_ok(struct fixture *fx)
{
	struct rv_err err;
	int rc;

	rv_err_clear(&err);
	rc = rv_store_open(fx->path, &fx->s, &err);
	if (rc != 0)
		fail_msg("open %s: %d %s", fx->path, rc, err.msg);
	return fx->s;
}

static inline void reopen(struct fixture *fx)
{
	rv_store_close(fx->s);
	fx->s = NULL;
	open_ok(fx);
}

static inline void must(int rc, const struct rv_err *err)
{
	if (rc != 0)
		fail_msg("rc %d: %s", rc, err->msg);
}

static inline void assert_contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' does not contain '%s'", hay, needle);
}

/* An incident with nsig signals named "<prefix>0", "<prefix>1", ... */
static inline struct rv_store_incident make_inc(uint64_t id, double start, double end,
							int open, size_t nsig, const char *prefix)
{
	struct rv_store_incident inc;

	memset(&inc, 0, sizeof(inc));
	inc.id = id;
	inc.start_ts = start;
	inc.end_ts = end;
	inc.open = open;
	inc.windows = (size_t)(end - start) + 1;
	inc.peak_score = 3.5 + (double)id;
	inc.mean_score = 2.25;
	inc.detectors = 0x5u;
	snprintf(inc.subsystem, sizeof(inc.subsystem), "gpu");
	snprintf(inc.host, sizeof(inc.host), "node%llu", (unsigned long long)id);
	inc.nsig = nsig;
	for (size_t i = 0; i < nsig; i++) {
		snprintf(inc.sig[i].name, sizeof(inc.sig[i].name), "%s%zu", prefix, i);
		inc.sig[i].share = 0.5 / (double)(i + 1);
		inc.sig[i].baseline = 100.0 + (double)i;
		inc.sig[i].value = 200.0 + (double)i;
	}
	return inc;
}

/* Column 0 of the first row of sql, run on a separate plain connection. */
static inline long long raw_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long v = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static inline void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
					 NULL),
			 SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* A version 1 store at path (in WAL mode when wal, as the agent kept it;
 * else in SQLite's default rollback mode) holding incident 3 with two
 * signals: what a reveal of schema 1 left behind. */
static inline void make_v1_store(const char *path, int wal)
{
	if (wal)
		raw_exec(path, "PRAGMA journal_mode = WAL");
	raw_exec(path, rv_store_schema_v1);
	raw_exec(path, "PRAGMA user_version = 1");
	raw_exec(path, "INSERT INTO incidents (id, start_ts, end_ts, open, windows,"
		       " peak_score, mean_score, detectors, subsystem, host, subsystems)"
		       " VALUES (3, 10, 20, 0, 5, 2.5, 1.5, 3, 'cpu', 'h', 'cpu:1.000');"
		       "INSERT INTO incident_signals (incident_id, pos, name, share, baseline,"
		       " value) VALUES (3, 0, 'cpu.busy_pct', 0.75, 10, 90),"
		       " (3, 1, 'cpu.iowait_pct', 0.25, 1, 4)");
}

/* A version 2 store at path (the schema of version 1 and the step to 2,
 * frozen as they shipped; WAL when wal) holding incident 3 as make_v1_store
 * does, with its details: one evidence entry, one cause. What a reveal of
 * schema 2 left behind, before incidents had phases. */
static inline void make_v2_store(const char *path, int wal)
{
	make_v1_store(path, wal);
	raw_exec(path, rv_store_schema_v2_upgrade);
	raw_exec(path, "PRAGMA user_version = 2");
	raw_exec(path, "INSERT INTO incident_details (incident_id, base_from, base_to, start_ts,"
		       " end_ts) VALUES (3, 1, 9, 10, 20);"
		       "INSERT INTO incident_evidence (incident_id, pos, name, skew, base_n, inc_n,"
		       " base_mean, base_sd, value, inc_sd, peak, z, change, dir, onset_ts)"
		       " VALUES (3, 0, 'cpu.busy_pct', 0, 600, 40, 10, 1, 90, 2, 99, 80, 8, 1, 11);"
		       "INSERT INTO incident_causes (incident_id, rank, rule_id, title, confidence)"
		       " VALUES (3, 0, 'cpu-contention', 'CPU contention', 0.75)");
}

#endif
