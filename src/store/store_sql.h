/*
 * store_sql.h - the store's SQL text (internal to store/): the statements
 * prepared at open, by id, and the schema of version 1.
 */
#ifndef RV_STORE_STORE_SQL_H
#define RV_STORE_STORE_SQL_H

enum stmt_id {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK,
	ST_INC_UPSERT, ST_SIG_DELETE, ST_SIG_INSERT,
	ST_INC_LIST, ST_SIG_LIST, ST_MAX_ID, ST_CLOSE_OPEN,
	ST_PRUNE_MARK, ST_PRUNE,
	ST_FIT_INSERT, ST_FIT_COUNT,
	ST_KV_SET, ST_KV_GET,
	ST_COUNT
};

/* The kv row that keeps the highest incident id ever stored (prune may
 * delete that incident). */
#define STORE_ID_HIGH_KEY "store.incident_id_high"

extern const char *const rv_store_stmt_sql[ST_COUNT];
extern const char rv_store_schema_v1[];

#endif
