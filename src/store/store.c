/*
 * store.c - the agent's SQLite store. See store.h for the schema and the
 * contract.
 *
 * Every statement is prepared once at open from the rv_store_stmt_sql[] table and
 * reset right after use, so no statement is left pending when a transaction
 * ends. Writes take the write lock up front (BEGIN IMMEDIATE) so that the
 * busy timeout, not a failed upgrade halfway, decides a race with another
 * writer. A failed write is rolled back unless SQLite already did so (it
 * may, on SQLITE_FULL or SQLITE_IOERR); the connection stays open and the
 * next call starts afresh.
 */
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "store/store_sql.h"

/* How a SQLite primary result code reads as an errno and as words. */
static const struct {
	int sqlite_code;
	int errnum;
	const char *kind;
} error_map[] = {
	{ SQLITE_FULL, -ENOSPC, "disk full" },
	{ SQLITE_IOERR, -EIO, "I/O error" },
	{ SQLITE_READONLY, -EACCES, "read-only" },
	{ SQLITE_CANTOPEN, -EACCES, "cannot open" },
	{ SQLITE_PERM, -EACCES, "permission denied" },
	{ SQLITE_AUTH, -EACCES, "permission denied" },
	{ SQLITE_BUSY, -EBUSY, "locked by another process" },
	{ SQLITE_LOCKED, -EBUSY, "locked" },
	{ SQLITE_NOTADB, -EILSEQ, "not a SQLite database" },
	{ SQLITE_CORRUPT, -EILSEQ, "database damaged" },
	{ SQLITE_NOMEM, -ENOMEM, "out of memory" },
	{ SQLITE_CONSTRAINT, -EINVAL, "constraint failed" },
	{ SQLITE_TOOBIG, -E2BIG, "value too big" },
};

/* Fills err for a failed SQLite call (rc: its result code; detail: SQLite's
 * words for it) and returns the negative errno. */
int rv_store_fail_msg(const struct rv_store *s, int rc, const char *what, const char *detail,
		      struct rv_err *err)
{
	int errnum = -EIO;
	const char *kind = "SQLite error";

	for (size_t i = 0; i < sizeof(error_map) / sizeof(error_map[0]); i++) {
		if (error_map[i].sqlite_code == (rc & 0xff)) {
			errnum = error_map[i].errnum;
			kind = error_map[i].kind;
			break;
		}
	}
	return rv_err_set(err, errnum, "store %s: %s: %s: %s", s->path, kind, what, detail);
}

/* rv_store_fail_msg with the connection's message. Reads sqlite3_errmsg, so
 * call it before anything else touches the connection. */
int rv_store_fail_sqlite(const struct rv_store *s, int rc, const char *what, struct rv_err *err)
{
	return rv_store_fail_msg(s, rc, what, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc),
				 err);
}

/* Every public call but close starts here. */
int rv_store_enter(struct rv_store *s, struct rv_err *err)
{
	if (!s)
		return rv_err_set(err, -EINVAL, "store: no store");
	if (s->in_callback)
		return rv_err_set(err, -EBUSY,
				  "store %s: called from inside an rv_store_list_incidents callback",
				  s->path);
	return 0;
}

/* Every public call that writes starts here: rv_store_enter, and -EROFS on a
 * store opened with rv_store_open_ro. what: the write, for the message. */
int rv_store_enter_write(struct rv_store *s, const char *what, struct rv_err *err)
{
	int rc = rv_store_enter(s, err);

	if (rc == 0 && s->readonly)
		rc = rv_err_set(err, -EROFS, "store %s: %s: the store was opened read-only",
				s->path, what);
	return rc;
}

/* Steps statement id to its end (SQLITE_DONE, rows ignored) and resets it. */
int rv_store_step_done(struct rv_store *s, enum stmt_id id, const char *what, struct rv_err *err)
{
	sqlite3_stmt *st = s->st[id];
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		rc = rv_store_fail_sqlite(s, rc, what, err);
	else
		rc = 0;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

/* Steps statement id for its one row and reads column 0 as an integer
 * (0 when there is no row); resets it. */
static int step_int(struct rv_store *s, enum stmt_id id, sqlite3_int64 *out, const char *what,
		    struct rv_err *err)
{
	sqlite3_stmt *st = s->st[id];
	int rc = sqlite3_step(st);

	*out = 0;
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = rv_store_fail_sqlite(s, rc, what, err);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

int rv_store_tx_begin(struct rv_store *s, const char *what, struct rv_err *err)
{
	return rv_store_step_done(s, ST_BEGIN, what, err);
}

/* Rolls back the open transaction, if SQLite has not already. Cannot fail in
 * a way the caller could act on; a failure is logged. */
static void tx_abort(struct rv_store *s)
{
	struct rv_err e;

	if (sqlite3_get_autocommit(s->db))
		return;
	rv_err_clear(&e);
	if (rv_store_step_done(s, ST_ROLLBACK, "rolling back", &e) < 0)
		rv_warn("%s", e.msg);
}

/* Commits, or rolls back when rc < 0 or the commit fails; returns rc or the
 * commit's error. */
int rv_store_tx_end(struct rv_store *s, int rc, const char *what, struct rv_err *err)
{
	if (rc == 0)
		rc = rv_store_step_done(s, ST_COMMIT, what, err);
	if (rc < 0)
		tx_abort(s);
	return rc;
}

/* Binds n bytes of text from a fixed field that may lack its NUL. */
int rv_store_bind_field(sqlite3_stmt *st, int idx, const char *field, size_t cap)
{
	return sqlite3_bind_text(st, idx, field, (int)strnlen(field, cap), SQLITE_STATIC);
}

/* Copies column col (text, or "" for NULL) into a fixed field with its NUL,
 * cut to fit. */
void rv_store_column_field(sqlite3_stmt *st, int col, char *field, size_t cap)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	size_t n = t ? (size_t)sqlite3_column_bytes(st, col) : 0;

	if (n >= cap)
		n = cap - 1;
	if (n)
		memcpy(field, t, n);
	field[n] = '\0';
}

/* A REAL column, NaN for NULL (SQLite stores NaN as NULL). */
double rv_store_column_real(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, col);
}

/* sqlite3_bind_* return a SQLite code; the first failure wins. */
int rv_store_bind_ok(int rc, int next)
{
	return rc != SQLITE_OK ? rc : next;
}

/* ------------------------------------------------------------ open, close */

/* Copies the directory part of path ("." when none) into dir (cap bytes). */
int rv_store_dir_of(const char *path, char *dir, size_t cap, struct rv_err *err)
{
	const char *slash = strrchr(path, '/');

	if (cap < 2)
		return rv_err_set(err, -ENAMETOOLONG, "store %s: path too long", path);
	if (!slash) {
		memcpy(dir, ".", 2);
	} else if (slash == path) {
		memcpy(dir, "/", 2);
	} else {
		if ((size_t)(slash - path) >= cap)
			return rv_err_set(err, -ENAMETOOLONG, "store %s: path too long", path);
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	return 0;
}

/* Refuses a path whose directory is missing or not writable (SQLite would
 * only say "unable to open database file", and WAL needs to create PATH-wal
 * and PATH-shm beside it). */
static int check_dir(const char *path, struct rv_err *err)
{
	char dir[PATH_MAX];
	struct stat sb;
	int rc = rv_store_dir_of(path, dir, sizeof(dir), err);

	if (rc < 0)
		return rc;
	if (stat(dir, &sb) < 0) {
		int e = errno;
		if (e == ENOENT)
			return rv_err_set(err, -e, "store %s: directory %s does not exist", path,
					  dir);
		return rv_err_set(err, -e, "store %s: directory %s: %s", path, dir,
				  rv_strerror(e));
	}
	if (!S_ISDIR(sb.st_mode))
		return rv_err_set(err, -ENOTDIR, "store %s: %s is not a directory", path, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return rv_err_set(err, -EACCES, "store %s: directory %s is not writable", path, dir);
	return 0;
}

/* Runs a one-off statement (at open, or for tests) and reads column 0 of its
 * first row as an integer into *out (may be NULL). */
int rv_store_query_int(struct rv_store *s, const char *sql, sqlite3_int64 *out, const char *what,
		       struct rv_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rv_store_fail_sqlite(s, rc, what, err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && out)
		*out = sqlite3_column_int64(st, 0);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = 0;
	else
		rc = rv_store_fail_sqlite(s, rc, what, err);
	sqlite3_finalize(st);
	return rc;
}

int rv_store_exec_sql(struct rv_store *s, const char *sql, const char *what, struct rv_err *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : rv_store_fail_sqlite(s, rc, what, err);
}

/* Refuses a schema version this build does not know (a newer reveal's). */
int rv_store_check_version(const struct rv_store *s, sqlite3_int64 version, struct rv_err *err)
{
	if (version > RV_STORE_SCHEMA_VERSION || version < 0)
		return rv_err_set(err, -ENOTSUP,
				  "store %s: schema version %lld, this reveal knows version %d"
				  " (written by a newer reveal?)",
				  s->path, (long long)version, RV_STORE_SCHEMA_VERSION);
	return 0;
}

/* Refuses a file with tables but no schema version (someone else's). */
static int check_reveal_store(struct rv_store *s, sqlite3_int64 version, struct rv_err *err)
{
	sqlite3_int64 objects = 0;
	int rc = version == 0 ? rv_store_query_int(s, "SELECT count(*) FROM sqlite_master",
						   &objects, "reading the schema", err)
			      : 0;

	if (rc == 0 && objects > 0)
		rc = rv_err_set(err, -EILSEQ,
				"store %s: not a reveal store (a SQLite database with tables but"
				" no schema version)", s->path);
	return rc;
}

/* Brings the schema to RV_STORE_SCHEMA_VERSION by running the steps of
 * rv_store_schema_steps the store lacks (all of them in an empty file), in
 * one transaction under the write lock, so that two agents starting at once
 * do not both do it. */
int rv_store_upgrade(struct rv_store *s, struct rv_err *err)
{
	sqlite3_int64 version = 0, from;
	char what[64];
	int rc = rv_store_exec_sql(s, "BEGIN IMMEDIATE", "creating the schema", err);

	if (rc < 0)
		return rc;
	rc = rv_store_query_int(s, "PRAGMA user_version", &version, "reading the schema version",
				err);
	if (rc == 0)
		rc = rv_store_check_version(s, version, err);
	if (rc == 0)
		rc = check_reveal_store(s, version, err);
	for (from = version; rc == 0 && version < RV_STORE_SCHEMA_VERSION; version++) {
		if (version == 0)
			snprintf(what, sizeof(what), "creating the schema");
		else
			snprintf(what, sizeof(what), "upgrading the schema to version %lld",
				 (long long)version + 1);
		rc = rv_store_exec_sql(s, rv_store_schema_steps[version], what, err);
	}
	if (rc == 0 && version != from) {
		snprintf(what, sizeof(what), "PRAGMA user_version = %d", RV_STORE_SCHEMA_VERSION);
		rc = rv_store_exec_sql(s, what, "writing the schema version", err);
	}
	if (rc == 0)
		rc = rv_store_exec_sql(s, "COMMIT", "creating the schema", err);
	if (rc < 0 && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* WAL, synchronous=NORMAL. A file system without shared memory keeps the
 * old journal mode; that is worth a warning, not a refusal. */
static int set_journal(struct rv_store *s, struct rv_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rv_store_fail_sqlite(s, rc, "setting WAL mode", err);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *mode = (const char *)sqlite3_column_text(st, 0);
		if (!mode || strcmp(mode, "wal") != 0)
			rv_warn("store %s: journal mode stays %s, not WAL", s->path,
				mode ? mode : "unknown");
		rc = 0;
	} else {
		rc = rv_store_fail_sqlite(s, rc, "setting WAL mode", err);
	}
	sqlite3_finalize(st);
	if (rc == 0)
		rc = rv_store_exec_sql(s, "PRAGMA synchronous = NORMAL", "setting synchronous",
				       err);
	return rc;
}

/* Connection, then version check before anything is written: a newer store
 * or someone else's file is left as it was. */
static int store_connect(struct rv_store *s, struct rv_err *err)
{
	sqlite3_int64 version = 0;
	int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);

	if (rc != SQLITE_OK)
		return rv_store_fail_sqlite(s, rc, "opening", err);
	if (sqlite3_db_readonly(s->db, "main") == 1)
		return rv_err_set(err, -EACCES, "store %s: the file is not writable", s->path);
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, RV_STORE_BUSY_MS);
	rc = rv_store_query_int(s, "PRAGMA user_version", &version, "reading the schema version",
				err);
	if (rc == 0)
		rc = rv_store_check_version(s, version, err);
	if (rc == 0)
		rc = set_journal(s, err);
	if (rc == 0)
		rc = rv_store_upgrade(s, err);
	if (rc == 0)
		rc = rv_store_prepare(s, err);
	return rc;
}

/* Prepares every statement of rv_store_stmt_sql once, for the store's life. */
int rv_store_prepare(struct rv_store *s, struct rv_err *err)
{
	int rc = 0;

	for (int i = 0; rc == 0 && i < ST_COUNT; i++) {
		int prc = sqlite3_prepare_v3(s->db, rv_store_stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					     &s->st[i], NULL);
		if (prc != SQLITE_OK)
			rc = rv_store_fail_sqlite(s, prc, "preparing statements", err);
	}
	return rc;
}

int rv_store_open(const char *path, struct rv_store **out, struct rv_err *err)
{
	struct rv_store *s;
	int rc;

	if (!path || !*path || !out)
		return rv_err_set(err, -EINVAL, "store: no path");
	rc = check_dir(path, err);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return rv_err_set(err, -ENOMEM, "store %s: out of memory", path);
	}
	rc = store_connect(s, err);
	if (rc < 0) {
		rv_store_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void rv_store_close(struct rv_store *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK)
		rv_warn("store %s: closing: %s", s->path, sqlite3_errmsg(s->db));
	free(s->path);
	free(s);
}

const char *rv_store_path(const struct rv_store *s)
{
	return s ? s->path : "";
}

/* -------------------------------------------------------------- incidents */

static int check_incident(const struct rv_store *s, const struct rv_store_incident *inc,
			  struct rv_err *err)
{
	if (!inc)
		return rv_err_set(err, -EINVAL, "store %s: no incident", s->path);
	if (inc->id == 0 || inc->id > (uint64_t)INT64_MAX)
		return rv_err_set(err, -EINVAL, "store %s: incident id %llu out of range", s->path,
				  (unsigned long long)inc->id);
	if (inc->nsig > RV_STORE_SIG_MAX)
		return rv_err_set(err, -EINVAL, "store %s: incident %llu has %zu signals, at most %d",
				  s->path, (unsigned long long)inc->id, inc->nsig,
				  RV_STORE_SIG_MAX);
	if (!isfinite(inc->start_ts) || !isfinite(inc->end_ts) || inc->end_ts < inc->start_ts)
		return rv_err_set(err, -EINVAL, "store %s: incident %llu: bad times %g .. %g",
				  s->path, (unsigned long long)inc->id, inc->start_ts,
				  inc->end_ts);
	if (inc->windows > (size_t)INT64_MAX)
		return rv_err_set(err, -EINVAL, "store %s: incident %llu: %zu windows", s->path,
				  (unsigned long long)inc->id, inc->windows);
	if (inc->follows > (uint64_t)INT64_MAX || inc->follows == inc->id)
		return rv_err_set(err, -EINVAL, "store %s: incident %llu cannot follow incident %llu",
				  s->path, (unsigned long long)inc->id,
				  (unsigned long long)inc->follows);
	return 0;
}

static int write_signals(struct rv_store *s, const struct rv_store_incident *inc,
			 const char *what, struct rv_err *err)
{
	sqlite3_stmt *st = s->st[ST_SIG_INSERT];
	int rc;

	sqlite3_bind_int64(s->st[ST_SIG_DELETE], 1, (sqlite3_int64)inc->id);
	rc = rv_store_step_done(s, ST_SIG_DELETE, what, err);
	for (size_t i = 0; rc == 0 && i < inc->nsig; i++) {
		const struct rv_store_signal *g = &inc->sig[i];
		int brc = sqlite3_bind_int64(st, 1, (sqlite3_int64)inc->id);

		brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 2, (sqlite3_int64)i));
		brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 3, g->name, sizeof(g->name)));
		brc = rv_store_bind_ok(brc, sqlite3_bind_double(st, 4, g->share));
		brc = rv_store_bind_ok(brc, sqlite3_bind_double(st, 5, g->baseline));
		brc = rv_store_bind_ok(brc, sqlite3_bind_double(st, 6, g->value));
		rc = brc != SQLITE_OK ? rv_store_fail_sqlite(s, brc, what, err)
				      : rv_store_step_done(s, ST_SIG_INSERT, what, err);
	}
	return rc;
}

static int write_incident_row(struct rv_store *s, const struct rv_store_incident *inc,
			      const char *what, struct rv_err *err)
{
	sqlite3_stmt *st = s->st[ST_INC_UPSERT];
	int brc = sqlite3_bind_int64(st, 1, (sqlite3_int64)inc->id);

	brc = rv_store_bind_ok(brc, sqlite3_bind_double(st, 2, inc->start_ts));
	brc = rv_store_bind_ok(brc, sqlite3_bind_double(st, 3, inc->end_ts));
	brc = rv_store_bind_ok(brc, sqlite3_bind_int(st, 4, inc->open != 0));
	brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 5, (sqlite3_int64)inc->windows));
	brc = rv_store_bind_ok(brc, sqlite3_bind_double(st, 6, inc->peak_score));
	brc = rv_store_bind_ok(brc, sqlite3_bind_double(st, 7, inc->mean_score));
	brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 8, (sqlite3_int64)inc->detectors));
	brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 9, inc->subsystem,
							sizeof(inc->subsystem)));
	brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 10, inc->host, sizeof(inc->host)));
	brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 11, inc->subsystems, sizeof(inc->subsystems)));
	brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 12, inc->phase ? inc->phase : 1));
	brc = rv_store_bind_ok(brc, inc->follows ? sqlite3_bind_int64(st, 13, (sqlite3_int64)inc->follows)
					      : sqlite3_bind_null(st, 13));
	if (brc != SQLITE_OK) {
		sqlite3_clear_bindings(st);
		return rv_store_fail_sqlite(s, brc, what, err);
	}
	return rv_store_step_done(s, ST_INC_UPSERT, what, err);
}

int rv_store_put_incident(struct rv_store *s, const struct rv_store_incident *inc,
			  struct rv_err *err)
{
	char what[64];
	int rc = rv_store_enter_write(s, "writing an incident", err);

	if (rc == 0)
		rc = check_incident(s, inc, err);
	if (rc < 0)
		return rc;
	snprintf(what, sizeof(what), "writing incident %llu", (unsigned long long)inc->id);
	rc = rv_store_tx_begin(s, what, err);
	if (rc < 0)
		return rc;
	rc = write_incident_row(s, inc, what, err);
	if (rc == 0)
		rc = write_signals(s, inc, what, err);
	return rv_store_tx_end(s, rc, what, err);
}

/* phase (column col) and follows (col + 1): a phase that is NULL, below 1
 * or too large (an operator's edit) reads as 1, a follows that is NULL or
 * not a positive id as none. */
static void read_phase(sqlite3_stmt *st, int col, struct rv_store_incident *inc)
{
	sqlite3_int64 phase = sqlite3_column_int64(st, col);
	sqlite3_int64 follows = sqlite3_column_int64(st, col + 1);

	inc->phase = phase >= 1 && phase <= UINT_MAX ? (unsigned)phase : 1;
	inc->follows = follows > 0 ? (uint64_t)follows : 0;
}

/* Fills inc from the current row of ST_INC_LIST and its signals. */
static int read_incident(struct rv_store *s, struct rv_store_incident *inc, struct rv_err *err)
{
	sqlite3_stmt *st = s->st[ST_INC_LIST], *sg = s->st[ST_SIG_LIST];
	sqlite3_int64 windows = sqlite3_column_int64(st, 4);
	int rc;

	memset(inc, 0, sizeof(*inc));
	inc->id = (uint64_t)sqlite3_column_int64(st, 0);
	inc->start_ts = rv_store_column_real(st, 1);
	inc->end_ts = rv_store_column_real(st, 2);
	inc->open = sqlite3_column_int(st, 3) != 0;
	inc->windows = windows > 0 ? (size_t)windows : 0;
	inc->peak_score = rv_store_column_real(st, 5);
	inc->mean_score = rv_store_column_real(st, 6);
	inc->detectors = (unsigned)sqlite3_column_int64(st, 7);
	rv_store_column_field(st, 8, inc->subsystem, sizeof(inc->subsystem));
	rv_store_column_field(st, 9, inc->host, sizeof(inc->host));
	rv_store_column_field(st, 10, inc->subsystems, sizeof(inc->subsystems));
	read_phase(st, 11, inc);
	rv_store_column_field(st, 13, inc->cause, sizeof(inc->cause));
	rv_store_column_field(st, 14, inc->cause_title, sizeof(inc->cause_title));
	inc->cause_confidence = rv_store_column_real(st, 15);
	sqlite3_bind_int64(sg, 1, (sqlite3_int64)inc->id);
	sqlite3_bind_int(sg, 2, RV_STORE_SIG_MAX);
	while ((rc = sqlite3_step(sg)) == SQLITE_ROW) {
		struct rv_store_signal *g = &inc->sig[inc->nsig++];
		rv_store_column_field(sg, 0, g->name, sizeof(g->name));
		g->share = rv_store_column_real(sg, 1);
		g->baseline = rv_store_column_real(sg, 2);
		g->value = rv_store_column_real(sg, 3);
	}
	rc = rc == SQLITE_DONE ? 0 : rv_store_fail_sqlite(s, rc, "reading signals", err);
	sqlite3_reset(sg);
	return rc;
}

int rv_store_list_incidents(struct rv_store *s, double since_ts, size_t limit,
			    int (*cb)(void *ctx, const struct rv_store_incident *inc), void *ctx,
			    struct rv_err *err)
{
	struct rv_store_incident inc;
	sqlite3_stmt *st;
	int rc = rv_store_enter(s, err);

	if (rc < 0)
		return rc;
	if (!cb)
		return rv_err_set(err, -EINVAL, "store %s: no callback", s->path);
	st = s->st[ST_INC_LIST];
	sqlite3_bind_double(st, 1, isnan(since_ts) ? -INFINITY : since_ts);
	sqlite3_bind_int64(st, 2, limit == 0 || limit > (size_t)INT64_MAX ? -1
									  : (sqlite3_int64)limit);
	while (rc == 0) {
		int src = sqlite3_step(st);
		if (src == SQLITE_DONE)
			break;
		if (src != SQLITE_ROW) {
			rc = rv_store_fail_sqlite(s, src, "listing incidents", err);
			break;
		}
		rc = read_incident(s, &inc, err);
		if (rc < 0)
			break;
		s->in_callback = 1;
		rc = cb(ctx, &inc);
		s->in_callback = 0;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

int rv_store_max_incident_id(struct rv_store *s, uint64_t *out, struct rv_err *err)
{
	sqlite3_int64 v = 0;
	int rc = rv_store_enter(s, err);

	if (rc == 0 && !out)
		rc = rv_err_set(err, -EINVAL, "store %s: no output", s->path);
	if (rc == 0)
		rc = step_int(s, ST_MAX_ID, &v, "reading the largest incident id", err);
	if (rc == 0)
		*out = v > 0 ? (uint64_t)v : 0;
	return rc;
}

int rv_store_close_open_incidents(struct rv_store *s, double end_ts, struct rv_err *err)
{
	int rc = rv_store_enter_write(s, "closing open incidents", err);

	if (rc < 0)
		return rc;
	sqlite3_bind_double(s->st[ST_CLOSE_OPEN], 1, end_ts);
	return rv_store_step_done(s, ST_CLOSE_OPEN, "closing open incidents", err);
}

int rv_store_prune(struct rv_store *s, double older_than_ts, size_t keep_max, struct rv_err *err)
{
	sqlite3_stmt *st;
	int rc = rv_store_enter_write(s, "pruning incidents", err);

	if (rc < 0)
		return rc;
	rc = rv_store_tx_begin(s, "pruning incidents", err);
	if (rc < 0)
		return rc;
	rc = rv_store_step_done(s, ST_PRUNE_MARK, "pruning incidents", err);
	if (rc == 0) {
		st = s->st[ST_PRUNE];
		sqlite3_bind_double(st, 1, isnan(older_than_ts) ? -INFINITY : older_than_ts);
		sqlite3_bind_int64(st, 2, keep_max > (size_t)INT64_MAX ? INT64_MAX
									: (sqlite3_int64)keep_max);
		rc = rv_store_step_done(s, ST_PRUNE, "pruning incidents", err);
	}
	return rv_store_tx_end(s, rc, "pruning incidents", err);
}

/* ------------------------------------------------------------ fits and kv */

int rv_store_put_fit(struct rv_store *s, const struct rv_store_fit *f, struct rv_err *err)
{
	sqlite3_stmt *st;
	int brc, rc = rv_store_enter_write(s, "writing a fit", err);

	if (rc < 0)
		return rc;
	if (!f || !isfinite(f->ts))
		return rv_err_set(err, -EINVAL, "store %s: fit without a time", s->path);
	st = s->st[ST_FIT_INSERT];
	brc = sqlite3_bind_double(st, 1, f->ts);
	brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 2, (sqlite3_int64)f->channels));
	brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 3, (sqlite3_int64)f->features));
	brc = rv_store_bind_ok(brc, sqlite3_bind_int64(st, 4, (sqlite3_int64)f->train_windows));
	brc = rv_store_bind_ok(brc, sqlite3_bind_double(st, 5, f->fit_seconds));
	brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 6, f->reason, sizeof(f->reason)));
	brc = rv_store_bind_ok(brc, rv_store_bind_field(st, 7, f->model_path,
							sizeof(f->model_path)));
	if (brc != SQLITE_OK) {
		sqlite3_clear_bindings(st);
		return rv_store_fail_sqlite(s, brc, "writing a fit", err);
	}
	return rv_store_step_done(s, ST_FIT_INSERT, "writing a fit", err);
}

int rv_store_count_fits(struct rv_store *s, size_t *out, struct rv_err *err)
{
	sqlite3_int64 n = 0;
	int rc = rv_store_enter(s, err);

	if (rc == 0 && !out)
		rc = rv_err_set(err, -EINVAL, "store %s: no output", s->path);
	if (rc == 0)
		rc = step_int(s, ST_FIT_COUNT, &n, "counting fits", err);
	if (rc == 0)
		*out = n > 0 ? (size_t)n : 0;
	return rc;
}

int rv_store_set_kv(struct rv_store *s, const char *key, const char *value, struct rv_err *err)
{
	sqlite3_stmt *st;
	int brc, rc = rv_store_enter_write(s, "writing a key", err);

	if (rc < 0)
		return rc;
	if (!key || !value)
		return rv_err_set(err, -EINVAL, "store %s: key or value missing", s->path);
	st = s->st[ST_KV_SET];
	brc = sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	brc = rv_store_bind_ok(brc, sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC));
	if (brc != SQLITE_OK) {
		sqlite3_clear_bindings(st);
		return rv_store_fail_sqlite(s, brc, "writing a key", err);
	}
	return rv_store_step_done(s, ST_KV_SET, key, err);
}

int rv_store_get_kv(struct rv_store *s, const char *key, char *buf, size_t cap,
		    struct rv_err *err)
{
	sqlite3_stmt *st;
	int rc = rv_store_enter(s, err);

	if (rc < 0)
		return rc;
	if (!key || (!buf && cap))
		return rv_err_set(err, -EINVAL, "store %s: key or buffer missing", s->path);
	if (cap)
		buf[0] = '\0';
	st = s->st[ST_KV_GET];
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		size_t n = t ? (size_t)sqlite3_column_bytes(st, 0) : 0;
		if (n >= cap)
			rc = rv_err_set(err, -ERANGE, "store %s: value of %s has %zu bytes,"
					" more than the %zu that fit", s->path, key, n,
					cap ? cap - 1 : 0);
		else {
			memcpy(buf, t ? (const char *)t : "", n + 1);
			rc = 0;
		}
	} else if (rc == SQLITE_DONE) {
		rc = rv_err_set(err, -ENOENT, "store %s: no key %s", s->path, key);
	} else {
		rc = rv_store_fail_sqlite(s, rc, "reading a key", err);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

/* ------------------------------------------------------------------ tests */

int rv_store_test_limit_pages(struct rv_store *s, unsigned pages, struct rv_err *err)
{
	char sql[64];
	int rc = rv_store_enter(s, err);

	if (rc < 0)
		return rc;
	if (s->saved_max_pages == 0) {
		rc = rv_store_query_int(s, "PRAGMA max_page_count", &s->saved_max_pages,
			       "reading max_page_count", err);
		if (rc < 0)
			return rc;
	}
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %lld",
		 pages ? (long long)pages : s->saved_max_pages);
	return rv_store_query_int(s, sql, NULL, "setting max_page_count", err);
}
