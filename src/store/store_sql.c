/*
 * store_sql.c - the SQL of the store: every prepared statement, and the
 * schema (see store.h for what each table holds).
 */
#include "store/store_sql.h"

#include <stddef.h>

#include "store/store.h"

const char *const rv_store_stmt_sql[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_INC_UPSERT] =
		"INSERT INTO incidents (id, start_ts, end_ts, open, windows, peak_score,"
		" mean_score, detectors, subsystem, host, subsystems, phase, follows)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
		" ON CONFLICT (id) DO UPDATE SET start_ts = excluded.start_ts,"
		" end_ts = excluded.end_ts, open = excluded.open, windows = excluded.windows,"
		" peak_score = excluded.peak_score, mean_score = excluded.mean_score,"
		" detectors = excluded.detectors, subsystem = excluded.subsystem,"
		" host = excluded.host, subsystems = excluded.subsystems,"
		" phase = excluded.phase, follows = excluded.follows",
	[ST_SIG_DELETE] = "DELETE FROM incident_signals WHERE incident_id = ?1",
	[ST_SIG_INSERT] =
		"INSERT INTO incident_signals (incident_id, pos, name, share, baseline, value)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_INC_LIST] =
		"SELECT id, start_ts, end_ts, open, windows, peak_score, mean_score,"
		" detectors, subsystem, host, subsystems, phase, follows,"
		" c.rule_id, c.title, c.confidence"
		" FROM incidents LEFT JOIN incident_causes c ON c.incident_id = id AND c.rank = 0"
		" AND c.role <> 'note'"
		" WHERE open <> 0 OR end_ts >= ?1"
		" ORDER BY start_ts DESC, id DESC LIMIT ?2",
	[ST_SIG_LIST] =
		"SELECT name, share, baseline, value FROM incident_signals"
		" WHERE incident_id = ?1 ORDER BY pos LIMIT ?2",
	[ST_MAX_ID] =
		"SELECT max(coalesce((SELECT max(id) FROM incidents), 0),"
		" coalesce((SELECT CAST(value AS INTEGER) FROM kv"
		" WHERE name = '" STORE_ID_HIGH_KEY "'), 0))",
	[ST_CLOSE_OPEN] =
		"UPDATE incidents SET open = 0, end_ts = coalesce(max(end_ts, ?1), end_ts)"
		" WHERE open <> 0",
	[ST_PRUNE_MARK] =
		"INSERT INTO kv (name, value) SELECT '" STORE_ID_HIGH_KEY "', id"
		" FROM incidents WHERE true ORDER BY id DESC LIMIT 1"
		" ON CONFLICT (name) DO UPDATE SET value = max(CAST(value AS INTEGER),"
		" CAST(excluded.value AS INTEGER))",
	[ST_PRUNE] =
		"DELETE FROM incidents WHERE open = 0 AND (end_ts < ?1 OR (?2 > 0 AND id IN"
		" (SELECT id FROM incidents ORDER BY start_ts DESC, id DESC LIMIT -1 OFFSET ?2)))",
	[ST_FIT_INSERT] =
		"INSERT INTO fits (ts, channels, features, train_windows, fit_seconds, reason,"
		" model_path) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_FIT_COUNT] = "SELECT count(*) FROM fits",
	[ST_KV_SET] =
		"INSERT INTO kv (name, value) VALUES (?1, ?2)"
		" ON CONFLICT (name) DO UPDATE SET value = excluded.value",
	[ST_KV_GET] = "SELECT value FROM kv WHERE name = ?1",
	[ST_DET_DELETE] = "DELETE FROM incident_details WHERE incident_id = ?1",
	[ST_EV_DELETE] = "DELETE FROM incident_evidence WHERE incident_id = ?1",
	[ST_SER_DELETE] = "DELETE FROM incident_series WHERE incident_id = ?1",
	[ST_CAUSE_DELETE] = "DELETE FROM incident_causes WHERE incident_id = ?1",
	[ST_DET_INSERT] =
		"INSERT INTO incident_details (incident_id, base_from, base_to, start_ts, end_ts)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_EV_INSERT] =
		"INSERT INTO incident_evidence (incident_id, pos, name, skew, base_n, inc_n,"
		" base_mean, base_sd, value, inc_sd, peak, z, change, dir, onset_ts)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	[ST_SER_INSERT] =
		"INSERT INTO incident_series (incident_id, pos, name, points, data)"
		" VALUES (?1, ?2, ?3, ?4, ?5)",
	[ST_CAUSE_INSERT] =
		"INSERT INTO incident_causes (incident_id, rank, rule_id, title, confidence, role)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_DET_GET] =
		"SELECT base_from, base_to, start_ts, end_ts FROM incident_details"
		" WHERE incident_id = ?1",
	[ST_EV_LIST] =
		"SELECT name, skew, base_n, inc_n, base_mean, base_sd, value, inc_sd, peak, z,"
		" change, dir, onset_ts FROM incident_evidence WHERE incident_id = ?1"
		" ORDER BY pos LIMIT ?2",
	[ST_SER_LIST] =
		"SELECT name, points, data FROM incident_series WHERE incident_id = ?1"
		" ORDER BY pos LIMIT ?2",
	[ST_CAUSE_LIST] =
		"SELECT rule_id, title, confidence, role FROM incident_causes WHERE incident_id = ?1"
		" ORDER BY rank LIMIT ?2",
	[ST_CONS_DELETE] = "DELETE FROM incident_consumers WHERE incident_id = ?1",
	[ST_CONS_INSERT] =
		"INSERT INTO incident_consumers (incident_id, pos, measured_ts, kind, pid, comm,"
		" cmd, cgroup, label, runtime, container, pod_uid, qos, slurm_job, unit, resource,"
		" amount, before, share, pressure, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		" ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
	[ST_CONS_LIST] =
		"SELECT measured_ts, kind, pid, comm, cmd, cgroup, label, runtime, container,"
		" pod_uid, qos, slurm_job, unit, resource, amount, before, share, pressure, text"
		" FROM incident_consumers WHERE incident_id = ?1 ORDER BY pos LIMIT ?2",
};

/*
 * The incidents_view, written once: its columns up to the detectors, the
 * top signals and the likeliest cause, and its order. Each schema step
 * that changed the view puts them together as that version had it (the
 * steps stay as they shipped: old stores are upgraded through them).
 */
#define VIEW_CREATE_HEAD \
	"CREATE VIEW incidents_view AS SELECT i.id AS id," \
	" datetime(i.start_ts, 'unixepoch') AS start_utc," \
	" datetime(i.end_ts, 'unixepoch') AS end_utc," \
	" round(i.end_ts - i.start_ts, 1) AS seconds," \
	" CASE WHEN i.open <> 0 THEN 'open' ELSE 'closed' END AS state," \
	" i.windows AS windows, round(i.peak_score, 3) AS peak_score," \
	" round(i.mean_score, 3) AS mean_score, i.detectors AS detectors,"
#define VIEW_SIGNALS \
	" (SELECT group_concat(label, ', ') FROM (SELECT s.name || ' ('" \
	" || CAST(round(s.share * 100) AS INTEGER) || '%)' AS label" \
	" FROM incident_signals s WHERE s.incident_id = i.id ORDER BY s.pos)) AS signals"
#define VIEW_CAUSE \
	" (SELECT c.title || ' (' || CAST(round(c.confidence * 100) AS INTEGER) || '%)'" \
	" FROM incident_causes c WHERE c.incident_id = i.id ORDER BY c.rank LIMIT 1)" \
	" AS likely_cause"
#define VIEW_CAUSE_V5 \
	" (SELECT c.title || ' (' || CAST(round(c.confidence * 100) AS INTEGER) || '%)'" \
	" FROM incident_causes c WHERE c.incident_id = i.id AND c.role <> 'note'" \
	" ORDER BY c.rank LIMIT 1) AS likely_cause"
#define VIEW_ORDER " FROM incidents i ORDER BY i.start_ts DESC, i.id DESC;"

/* Version 1. Created in one transaction with PRAGMA user_version. */
const char rv_store_schema_v1[] =
	"CREATE TABLE incidents ("
	" id INTEGER PRIMARY KEY, start_ts REAL NOT NULL, end_ts REAL NOT NULL,"
	" open INTEGER NOT NULL, windows INTEGER NOT NULL, peak_score REAL,"
	" mean_score REAL, detectors INTEGER NOT NULL, subsystem TEXT NOT NULL,"
	" host TEXT NOT NULL, subsystems TEXT NOT NULL DEFAULT '');"
	"CREATE INDEX incidents_by_start ON incidents (start_ts, id);"
	"CREATE INDEX incidents_by_end ON incidents (end_ts);"
	"CREATE TABLE incident_signals ("
	" incident_id INTEGER NOT NULL, pos INTEGER NOT NULL, name TEXT NOT NULL,"
	" share REAL, baseline REAL, value REAL,"
	" PRIMARY KEY (incident_id, pos)) WITHOUT ROWID;"
	"CREATE TRIGGER incidents_delete_signals AFTER DELETE ON incidents BEGIN"
	" DELETE FROM incident_signals WHERE incident_id = old.id; END;"
	"CREATE TABLE fits ("
	" id INTEGER PRIMARY KEY, ts REAL NOT NULL, channels INTEGER NOT NULL,"
	" features INTEGER NOT NULL, train_windows INTEGER NOT NULL, fit_seconds REAL,"
	" reason TEXT NOT NULL, model_path TEXT NOT NULL);"
	"CREATE TABLE kv (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
	VIEW_CREATE_HEAD
	" i.subsystem AS subsystem, i.host AS host,"
	VIEW_SIGNALS
	VIEW_ORDER;

/*
 * Version 2 adds what a report needs beyond the top signals: the evidence
 * (how each channel that moved did so), the samples of the top signals
 * around the incident, and the knowledge base's likely causes. The view
 * gains the likeliest cause. Applied to a version 1 store in place.
 */
const char rv_store_schema_v2_upgrade[] =
	"CREATE TABLE incident_details ("
	" incident_id INTEGER PRIMARY KEY, base_from REAL, base_to REAL,"
	" start_ts REAL, end_ts REAL);"
	"CREATE TABLE incident_evidence ("
	" incident_id INTEGER NOT NULL, pos INTEGER NOT NULL, name TEXT NOT NULL,"
	" skew INTEGER NOT NULL, base_n INTEGER NOT NULL, inc_n INTEGER NOT NULL,"
	" base_mean REAL, base_sd REAL, value REAL, inc_sd REAL, peak REAL, z REAL,"
	" change REAL, dir INTEGER NOT NULL, onset_ts REAL,"
	" PRIMARY KEY (incident_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE incident_series ("
	" incident_id INTEGER NOT NULL, pos INTEGER NOT NULL, name TEXT NOT NULL,"
	" points INTEGER NOT NULL, data BLOB,"
	" PRIMARY KEY (incident_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE incident_causes ("
	" incident_id INTEGER NOT NULL, rank INTEGER NOT NULL, rule_id TEXT NOT NULL,"
	" title TEXT NOT NULL, confidence REAL,"
	" PRIMARY KEY (incident_id, rank)) WITHOUT ROWID;"
	"CREATE TRIGGER incidents_delete_details AFTER DELETE ON incidents BEGIN"
	" DELETE FROM incident_details WHERE incident_id = old.id;"
	" DELETE FROM incident_evidence WHERE incident_id = old.id;"
	" DELETE FROM incident_series WHERE incident_id = old.id;"
	" DELETE FROM incident_causes WHERE incident_id = old.id; END;"
	"DROP VIEW incidents_view;"
	VIEW_CREATE_HEAD
	" i.subsystem AS subsystem, i.host AS host,"
	VIEW_SIGNALS ","
	VIEW_CAUSE
	VIEW_ORDER;

/*
 * Version 3 links the phases of a cascade: `phase` (1 for a first
 * incident, 2, 3, ... for a follow-on phase) and `follows` (the id of the
 * incident it follows, NULL: none). Rows of an older store read as first
 * incidents. The view shows both after the subsystem.
 */
const char rv_store_schema_v3_upgrade[] =
	"ALTER TABLE incidents ADD COLUMN phase INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE incidents ADD COLUMN follows INTEGER;"
	"DROP VIEW incidents_view;"
	VIEW_CREATE_HEAD
	" i.subsystem AS subsystem, i.phase AS phase, i.follows AS follows, i.host AS host,"
	VIEW_SIGNALS ","
	VIEW_CAUSE
	VIEW_ORDER;

/*
 * Version 4 adds whose workload took the resources that moved: the
 * processes and cgroups the agent measured after the incident opened. The
 * view gains the first one's text after the likely cause.
 */
const char rv_store_schema_v4_upgrade[] =
	"CREATE TABLE incident_consumers ("
	" incident_id INTEGER NOT NULL, pos INTEGER NOT NULL, measured_ts REAL,"
	" kind TEXT NOT NULL, pid INTEGER, comm TEXT, cmd TEXT, cgroup TEXT, label TEXT,"
	" runtime TEXT, container TEXT, pod_uid TEXT, qos TEXT, slurm_job TEXT, unit TEXT,"
	" resource TEXT NOT NULL, amount REAL, before REAL, share REAL, pressure REAL,"
	" text TEXT, PRIMARY KEY (incident_id, pos)) WITHOUT ROWID;"
	"CREATE TRIGGER incidents_delete_consumers AFTER DELETE ON incidents BEGIN"
	" DELETE FROM incident_consumers WHERE incident_id = old.id; END;"
	"DROP VIEW incidents_view;"
	VIEW_CREATE_HEAD
	" i.subsystem AS subsystem, i.phase AS phase, i.follows AS follows, i.host AS host,"
	VIEW_SIGNALS ","
	VIEW_CAUSE ","
	" (SELECT u.text FROM incident_consumers u WHERE u.incident_id = i.id"
	" ORDER BY u.pos LIMIT 1) AS top_consumer"
	VIEW_ORDER;

/*
 * Version 5 says what each cause is to its incident: `role` 'onset' (a
 * rule of the incident's subsystem decided on its onset, first), 'cause'
 * (one of that subsystem matched later, or by an older reveal) or 'note'
 * (a rule of another subsystem that fired on the same evidence: a
 * cross-layer note, never the likely cause). Rows of an older store read
 * 'cause'. The view's likely cause leaves the notes out.
 */
const char rv_store_schema_v5_upgrade[] =
	"ALTER TABLE incident_causes ADD COLUMN role TEXT NOT NULL DEFAULT 'cause';"
	"DROP VIEW incidents_view;"
	VIEW_CREATE_HEAD
	" i.subsystem AS subsystem, i.phase AS phase, i.follows AS follows, i.host AS host,"
	VIEW_SIGNALS ","
	VIEW_CAUSE_V5 ","
	" (SELECT u.text FROM incident_consumers u WHERE u.incident_id = i.id"
	" ORDER BY u.pos LIMIT 1) AS top_consumer"
	VIEW_ORDER;

const char *const rv_store_schema_steps[] = {
	rv_store_schema_v1,           /* 0 -> 1: create */
	rv_store_schema_v2_upgrade,   /* 1 -> 2 */
	rv_store_schema_v3_upgrade,   /* 2 -> 3 */
	rv_store_schema_v4_upgrade,   /* 3 -> 4 */
	rv_store_schema_v5_upgrade,   /* 4 -> 5 */
};

_Static_assert(sizeof(rv_store_schema_steps) / sizeof(rv_store_schema_steps[0]) ==
		       RV_STORE_SCHEMA_VERSION,
	       "one schema step per version: add the step that makes the new version");
