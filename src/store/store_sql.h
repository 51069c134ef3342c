/*
 * store_sql.h - internal to store/: the SQL text (the statements prepared
 * at open, by id, and the schema), the connection struct, and the helpers
 * store.c gives store_details.c and store_ro.c.
 */
#ifndef RV_STORE_STORE_SQL_H
#define RV_STORE_STORE_SQL_H

#include <sqlite3.h>
#include <stddef.h>

#include "base/err.h"

enum stmt_id {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK,
	ST_INC_UPSERT, ST_SIG_DELETE, ST_SIG_INSERT,
	ST_INC_LIST, ST_SIG_LIST, ST_MAX_ID, ST_CLOSE_OPEN,
	ST_PRUNE_MARK, ST_PRUNE,
	ST_FIT_INSERT, ST_FIT_COUNT,
	ST_KV_SET, ST_KV_GET,
	ST_DET_DELETE, ST_EV_DELETE, ST_SER_DELETE, ST_CAUSE_DELETE,
	ST_DET_INSERT, ST_EV_INSERT, ST_SER_INSERT, ST_CAUSE_INSERT,
	ST_DET_GET, ST_EV_LIST, ST_SER_LIST, ST_CAUSE_LIST,
	ST_CONS_DELETE, ST_CONS_INSERT, ST_CONS_LIST,
	ST_COUNT
};

/* The kv row that keeps the highest incident id ever stored (prune may
 * delete that incident). */
#define STORE_ID_HIGH_KEY "store.incident_id_high"

extern const char *const rv_store_stmt_sql[ST_COUNT];
extern const char rv_store_schema_v1[];
/* Version 1 -> 2: the incident details (evidence, series, causes). */
extern const char rv_store_schema_v2_upgrade[];
/* Version 2 -> 3: an incident's phase and the incident it follows. */
extern const char rv_store_schema_v3_upgrade[];
/* Version 3 -> 4: the consumers of an incident (whose workload). */
extern const char rv_store_schema_v4_upgrade[];
/*
 * The schema as a chain of steps: rv_store_schema_steps[i] takes a store of
 * version i to version i + 1 (step 0 creates version 1 in an empty file).
 * RV_STORE_SCHEMA_VERSION entries; rv_store_upgrade runs the ones a store
 * lacks, on the file (rv_store_open) or on a copy in memory
 * (rv_store_open_ro). A new version is one more step here.
 */
extern const char *const rv_store_schema_steps[];

struct rv_store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *st[ST_COUNT];
	int in_callback;          /* inside rv_store_list_incidents' cb */
	int readonly;             /* rv_store_open_ro: every write is -EROFS */
	long long saved_max_pages; /* 0 until rv_store_test_limit_pages first runs */
};

/* store.c's helpers (see there). */
int rv_store_fail_msg(const struct rv_store *s, int rc, const char *what, const char *detail,
		      struct rv_err *err);
int rv_store_fail_sqlite(const struct rv_store *s, int rc, const char *what, struct rv_err *err);
int rv_store_enter(struct rv_store *s, struct rv_err *err);
int rv_store_enter_write(struct rv_store *s, const char *what, struct rv_err *err);
int rv_store_step_done(struct rv_store *s, enum stmt_id id, const char *what, struct rv_err *err);
int rv_store_tx_begin(struct rv_store *s, const char *what, struct rv_err *err);
int rv_store_tx_end(struct rv_store *s, int rc, const char *what, struct rv_err *err);
int rv_store_bind_field(sqlite3_stmt *st, int idx, const char *field, size_t cap);
void rv_store_column_field(sqlite3_stmt *st, int col, char *field, size_t cap);
double rv_store_column_real(sqlite3_stmt *st, int col);
int rv_store_bind_ok(int rc, int next);
int rv_store_exec_sql(struct rv_store *s, const char *sql, const char *what, struct rv_err *err);
int rv_store_query_int(struct rv_store *s, const char *sql, sqlite3_int64 *out, const char *what,
		       struct rv_err *err);
int rv_store_dir_of(const char *path, char *dir, size_t cap, struct rv_err *err);
int rv_store_check_version(const struct rv_store *s, sqlite3_int64 version, struct rv_err *err);
int rv_store_upgrade(struct rv_store *s, struct rv_err *err);
int rv_store_prepare(struct rv_store *s, struct rv_err *err);

#endif
