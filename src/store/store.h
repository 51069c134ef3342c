/*
 * store.h - the embedded SQLite store of the live agent (`reveal agent`).
 *
 * What it keeps: incidents with their top signals (written when an incident
 * opens, rewritten as it grows and when it closes), one row per model fit,
 * and a small key/value table for agent state. What it is not: a telemetry
 * archive (samples go to .rvl recordings) or a queue; the store is bounded
 * by rv_store_prune, which the agent calls on a timer.
 *
 * The file is a SQLite database in WAL mode (readers such as the sqlite3
 * CLI or a second store opened on the same path do not block the writer),
 * synchronous=NORMAL (a power cut may lose the last commits, never the
 * file), busy timeout RV_STORE_BUSY_MS. The schema version is kept in
 * `PRAGMA user_version`; a file with a newer version is refused. The agent
 * opens it with rv_store_open (read-write); `reveal report` with
 * rv_store_open_ro, which never writes the file.
 *
 * Schema, version 5 (timestamps are REAL unix seconds, UTC; an older store
 * is upgraded in place by rv_store_open, in a copy in memory by
 * rv_store_open_ro):
 *
 *   incidents(id INTEGER PRIMARY KEY, start_ts REAL, end_ts REAL,
 *             open INTEGER 0|1, windows INTEGER, peak_score REAL,
 *             mean_score REAL, detectors INTEGER (bit i = detector i, named
 *             by the agent's configuration), subsystem TEXT, host TEXT,
 *             subsystems TEXT ("cpu:0.712,mem:0.204": every subsystem's
 *             share of the attribution, largest first), phase INTEGER
 *             (1, or 2, 3, ... for a follow-on phase of a cascade; version
 *             3, older rows read 1), follows INTEGER (the id of the
 *             incident this one follows, NULL: none; version 3))
 *   incident_signals(incident_id INTEGER, pos INTEGER (0 = most
 *             responsible), name TEXT, share REAL (0..1), baseline REAL,
 *             value REAL; PRIMARY KEY (incident_id, pos))
 *   fits(id INTEGER PRIMARY KEY, ts REAL, channels INTEGER, features INTEGER,
 *        train_windows INTEGER, fit_seconds REAL, reason TEXT, model_path TEXT)
 *   incident_details(incident_id INTEGER PRIMARY KEY, base_from REAL,
 *             base_to REAL, start_ts REAL, end_ts REAL): the baseline and
 *             incident stretches the evidence was computed over
 *   incident_evidence(incident_id, pos, name, skew, base_n, inc_n,
 *             base_mean, base_sd, value, inc_sd, peak, z, change, dir,
 *             onset_ts; PRIMARY KEY (incident_id, pos)): the channels that
 *             moved, strongest first (struct rv_store_ev)
 *   incident_series(incident_id, pos, name, points INTEGER, data BLOB:
 *             points x (f64 time, f32 value), little-endian; PRIMARY KEY
 *             (incident_id, pos)): the top signals' samples around the
 *             incident, for plots
 *   incident_causes(incident_id, rank, rule_id, title, confidence, role):
 *             the knowledge base's likely causes when the incident was
 *             written; role (version 5, older rows read 'cause'): 'onset'
 *             a cause decided on the incident's onset, 'cause' one matched
 *             later, 'note' a rule of another subsystem that fired too (a
 *             cross-layer note, not a cause: explain/kb.h rv_kb_split);
 *             causes first, then notes
 *   incident_consumers(incident_id, pos, measured_ts, kind ('process' or
 *             'cgroup'), pid, comm, cmd, cgroup, label, runtime, container,
 *             pod_uid, qos, slurm_job, unit, resource ('cpu', 'memory',
 *             'io', 'gpu'), amount, before, share, pressure, text; PRIMARY KEY
 *             (incident_id, pos); version 4): whose workload took the
 *             resource that moved, largest first (struct rv_store_consumer)
 *   kv(name TEXT PRIMARY KEY, value TEXT); names starting "store." are the
 *        store's own (store.incident_id_high: the largest id ever pruned)
 *   incidents_view: one line per incident for people, newest first:
 *        id, start_utc, end_utc (datetime text), seconds, state ('open' or
 *        'closed'), windows, peak_score, mean_score, detectors, subsystem,
 *        phase, follows, host, signals ("gpu.power:0 (41%), mem.used
 *        (20%)"), likely_cause ("Packet loss on the network path (82%)")
 *
 * A missing number (NaN score, baseline or value) is stored as NULL and
 * read back as NaN. Deleting an incident row deletes its signals,
 * details and consumers (triggers).
 * Operator queries, e.g.:
 *   sqlite3 -box /var/lib/reveal/agent.db 'SELECT * FROM incidents_view LIMIT 20'
 *
 * Errors: every function returns 0 or a negative errno and fills err with
 * "store PATH: <kind>: <what>: <sqlite message>". SQLite's codes map to
 * -ENOSPC (disk full), -EIO, -EACCES (read-only, cannot open, permission),
 * -EBUSY (locked by another process past the busy timeout), -EILSEQ (not a
 * SQLite database, or damaged), -ENOMEM, -EINVAL (constraint); a write on a
 * store opened with rv_store_open_ro is -EROFS, before any SQL. A failed
 * write is rolled back whole and the store stays usable: the caller may
 * retry the same call later (e.g. when the disk has room again).
 *
 * Threads: a struct rv_store is used by one thread at a time (its prepared
 * statements are shared state). A reader thread opens its own store on the
 * same path. Allocation: at open only (the statements are prepared once);
 * later calls allocate nothing themselves beyond what SQLite does inside.
 */
#ifndef RV_STORE_STORE_H
#define RV_STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum {
	RV_STORE_SCHEMA_VERSION = 5,  /* PRAGMA user_version this code writes and reads */
	RV_STORE_BUSY_MS = 2000,      /* wait this long for another writer's lock */
	RV_STORE_SIG_MAX = 8,         /* signals kept per incident */
	RV_STORE_SIG_NAME_LEN = 96,   /* channel name, with its NUL */
	RV_STORE_SUBSYS_LEN = 16,
	RV_STORE_SUBSYS_RANK_LEN = 96,
	RV_STORE_HOST_LEN = 64,
	RV_STORE_REASON_LEN = 32,
	RV_STORE_PATH_LEN = 256,
	RV_STORE_EV_MAX = 256,        /* evidence entries kept per incident */
	RV_STORE_SERIES_MAX = 8,      /* series kept per incident */
	RV_STORE_SERIES_POINTS = 4096,/* points per series at most */
	RV_STORE_CAUSE_MAX = 8,       /* causes and notes kept per incident */
	RV_STORE_RULE_ID_LEN = 64,
	RV_STORE_TITLE_LEN = 160,
	RV_STORE_CONS_MAX = 8,        /* consumers kept per incident */
};

struct rv_store;

struct rv_store_signal {
	char name[RV_STORE_SIG_NAME_LEN];
	double share;     /* of the incident's attribution weight, 0..1 */
	double baseline;  /* training mean of the channel, NaN when unknown */
	double value;     /* its value during the incident, NaN when unknown */
};

/* Text fields need not be NUL-terminated when full; longer text read back
 * from the file (an operator's edit) is cut to fit. */
struct rv_store_incident {
	uint64_t id;            /* 1..INT64_MAX, chosen by the agent */
	double start_ts, end_ts;
	int open;               /* nonzero while the incident may still grow */
	size_t windows;         /* flagged windows inside */
	double peak_score, mean_score;
	unsigned detectors;     /* bit i = detector i */
	char subsystem[RV_STORE_SUBSYS_LEN];
	/* every subsystem with its share of the attribution, largest first:
	 * "cpu:0.712,mem:0.204" ("" when unknown) */
	char subsystems[RV_STORE_SUBSYS_RANK_LEN];
	unsigned phase;         /* 1, or 2, 3, ... for a follow-on phase (0 read as 1) */
	uint64_t follows;       /* id of the incident this one follows, 0: none */
	size_t nsig;            /* 0..RV_STORE_SIG_MAX valid entries of sig */
	struct rv_store_signal sig[RV_STORE_SIG_MAX];
	char host[RV_STORE_HOST_LEN];
	/* the likeliest cause (rank 0 of the details' causes): read back by
	 * rv_store_list_incidents, written by rv_store_put_details, ignored by
	 * rv_store_put_incident; "" and NaN when none */
	char cause[RV_STORE_RULE_ID_LEN];
	char cause_title[RV_STORE_TITLE_LEN];
	double cause_confidence;
};

struct rv_store_fit {
	double ts;              /* when the fit finished */
	size_t channels, features, train_windows;
	double fit_seconds;
	char reason[RV_STORE_REASON_LEN];    /* "learn", "refit", "loaded" */
	char model_path[RV_STORE_PATH_LEN];
};

/* The samples of one signal around an incident. */
struct rv_store_series {
	char name[RV_STORE_SIG_NAME_LEN];
	size_t n;               /* 0..RV_STORE_SERIES_POINTS */
	double *ts;             /* n times (put: the caller's; get: owned by the details) */
	float *v;               /* n values, NaN: a gap */
};

/* What a cause is to its incident (incident_causes.role). */
enum rv_store_role {
	RV_STORE_ROLE_CAUSE,    /* matched after the onset ('cause'; older rows) */
	RV_STORE_ROLE_ONSET,    /* decided on the onset ('onset') */
	RV_STORE_ROLE_NOTE,     /* another subsystem's rule: a cross-layer note ('note') */
};

struct rv_store_cause {
	char rule_id[RV_STORE_RULE_ID_LEN];
	char title[RV_STORE_TITLE_LEN];
	double confidence;      /* 0..1 */
	enum rv_store_role role;
};

/* 'cause', 'onset', 'note'; and back (an unknown text reads as a cause). */
const char *rv_store_role_name(enum rv_store_role r);
enum rv_store_role rv_store_role_of(const char *text);

/*
 * One evidence entry as stored: how a channel moved during the incident.
 * The fields, and their meaning, are those of explain/evidence.h's struct
 * rv_evidence_sig (the agent copies its entries in, `reveal report` copies
 * them back out): the store keeps its own row type so that it depends on
 * catalog/ and base/ only (docs/ARCHITECTURE.md).
 */
struct rv_store_ev {
	const char *name;
	int skew;              /* 1 for a per-CPU skew entry */
	size_t base_n, inc_n;  /* finite samples in the baseline and the incident */
	double base_mean, base_sd;
	double value, inc_sd, peak;
	double z, change;
	int dir;               /* +1, -1 or 0 */
	double onset_ts;       /* NaN when unknown */
};

/*
 * One consumer of an incident's resource (the agent's attribution,
 * attrib/attrib.h's struct rv_consumer as stored): a process (pid > 0) or
 * a cgroup, what its cgroup path says (label, runtime, container, pod,
 * Slurm job, systemd unit; "" when nothing), and how much it took.
 */
struct rv_store_consumer {
	double measured_ts;           /* when the scan ended */
	int is_cgroup;
	int pid;                      /* a process's, else 0 */
	char comm[64];
	char cmd[256];
	char cgroup[512];
	char label[160];
	char runtime[16];
	char container[72];
	char pod_uid[40];
	char qos[16];
	char slurm_job[24];
	char unit[128];
	char resource[16];            /* "cpu", "memory", "io", "gpu" */
	/* cores, bytes of growth, bytes/s; gpu: the process's SM use, % of its
	 * GPU (NaN: unknown), the GPU and its memory in the text only */
	double amount;
	double before;                /* the cgroup's rate in the baseline, NaN when unknown */
	double share;                 /* of the whole, 0..1 */
	double pressure;              /* the cgroup's PSI some avg10 %, NaN when unknown */
	char text[384];               /* "pid 4242 stress-ng in ... took 1.90 cores (61 %)" */
};

/*
 * What a report needs of an incident beyond its row: the evidence (the
 * entries that moved, strongest first; names are the caller's on put and
 * owned by the details on get), the series of its top signals, and the
 * likely causes found when it was written.
 */
struct rv_store_details {
	double base_from, base_to;   /* the baseline stretch */
	double start_ts, end_ts;     /* the incident stretch of the evidence */
	size_t nev;                  /* 0..RV_STORE_EV_MAX */
	struct rv_store_ev *ev;
	size_t nseries;
	struct rv_store_series series[RV_STORE_SERIES_MAX];
	size_t ncauses;
	struct rv_store_cause causes[RV_STORE_CAUSE_MAX];
	size_t ncons;                /* read by rv_store_get_details; put apart */
	struct rv_store_consumer *cons;
};

/*
 * Opens (creating it if absent) the store at path. Fails with a message
 * naming path when its directory does not exist or is not writable
 * (-ENOENT, -ENOTDIR, -EACCES), when the file is not a SQLite database
 * (-EILSEQ) or not a reveal store (-EILSEQ), and when its schema version is
 * newer than RV_STORE_SCHEMA_VERSION (-ENOTSUP). *out is set only on
 * success; free with rv_store_close. path is copied.
 */
int rv_store_open(const char *path, struct rv_store **out, struct rv_err *err);

/*
 * Opens the existing store at path for reading only (`reveal report`): a
 * user who may only read the file and its folder gets the store, and the
 * file is never written. Never creates it: a missing file is -ENOENT
 * naming path. *out is set only on success; free with rv_store_close.
 *
 * How it reads depends on what lies beside the file:
 *  - the folder is writable by this process, or PATH-wal, PATH-shm or
 *    PATH-journal exists: a plain read-only SQLite connection, with
 *    SQLite's locks. It sees a running agent's commits, each call one
 *    consistent snapshot. In a writable folder SQLite may create an empty
 *    PATH-wal and a PATH-shm (mode of the store file) and leave them, as
 *    any reader of a WAL database does; the agent uses them as its own.
 *    A -wal without its -shm in a folder that is not writable cannot be
 *    read: -EACCES, saying so.
 *  - the folder is not writable and none of those files exists (the agent
 *    is stopped, or has not written since it closed the store cleanly):
 *    SQLite could not create the -shm a WAL read needs, so the file is
 *    opened immutable (SQLite's immutable=1): no locks, no change
 *    detection, nothing created. The trade-off: an agent that starts
 *    writing while this store is open is not seen, and a checkpoint it
 *    makes meanwhile may make a read fail (-EILSEQ, "damaged") or mix old
 *    and new rows; open again for a fresh view.
 * A store of an older schema is copied into memory with SQLite's backup
 * API (one consistent snapshot; the whole file, so its size in memory) and
 * upgraded there step by step as rv_store_open upgrades a file; the file
 * keeps its version and bytes, and later commits to it are not seen. A
 * newer schema is -ENOTSUP, a file that is not a reveal store -EILSEQ, as
 * for rv_store_open. The write calls (put_incident, close_open_incidents,
 * prune, put_details, put_fit, set_kv) return -EROFS naming the store.
 */
int rv_store_open_ro(const char *path, struct rv_store **out, struct rv_err *err);

/* Closes the database and frees s. NULL is a no-op. Cannot fail. */
void rv_store_close(struct rv_store *s);

/* The path given to rv_store_open or rv_store_open_ro (owned by s). */
const char *rv_store_path(const struct rv_store *s);

/*
 * Inserts the incident, or replaces the one with the same id, together with
 * its signals (the previous signal rows of that id are replaced), in one
 * transaction. -EINVAL for nsig > RV_STORE_SIG_MAX, id 0 or above
 * INT64_MAX, non-finite start_ts/end_ts or end_ts < start_ts, follows
 * equal to id or above INT64_MAX. phase 0 is written as 1.
 */
int rv_store_put_incident(struct rv_store *s, const struct rv_store_incident *inc,
			  struct rv_err *err);

/*
 * Calls cb for each incident that is open or ended at or after since_ts
 * (-INFINITY: all), newest first (start_ts descending, then id descending),
 * at most limit of them (0: no limit). inc is valid during the call only.
 * cb returning nonzero stops the walk and that value is returned. cb must
 * not call other rv_store functions on s (they return -EBUSY) nor close it.
 */
int rv_store_list_incidents(struct rv_store *s, double since_ts, size_t limit,
			    int (*cb)(void *ctx, const struct rv_store_incident *inc), void *ctx,
			    struct rv_err *err);

/* *out = the largest incident id stored or ever pruned (0 when none), so ids
 * continue after a restart. */
int rv_store_max_incident_id(struct rv_store *s, uint64_t *out, struct rv_err *err);

/*
 * Marks every incident still open as closed (at a clean stop, or at start
 * for those a crash left open). end_ts is when they ended at the latest:
 * an incident whose stored end_ts is later keeps it; NaN keeps every stored
 * end_ts.
 */
int rv_store_close_open_incidents(struct rv_store *s, double end_ts, struct rv_err *err);

/*
 * Deletes closed incidents (and their signals) that ended before
 * older_than_ts (-INFINITY or NaN: no age limit) or that are not among the
 * newest keep_max incidents, open ones counted (0: no count limit). Open
 * incidents are never deleted. The largest deleted id is remembered for
 * rv_store_max_incident_id. One transaction.
 */
int rv_store_prune(struct rv_store *s, double older_than_ts, size_t keep_max, struct rv_err *err);

/*
 * Replaces the details of incident id (which need not be stored yet: the
 * rows go when the incident is pruned or replaced) in one transaction.
 * -EINVAL for more entries than the limits above, id 0 or above INT64_MAX,
 * a series without ts/v while n > 0, or an entry without a name.
 */
int rv_store_put_details(struct rv_store *s, uint64_t id, const struct rv_store_details *d,
			 struct rv_err *err);

/*
 * Reads the details of incident id into *d (zeroed first; free with
 * rv_store_details_free). -ENOENT (err set) when none were written, e.g.
 * for an incident of a version 1 store or one still open. A series blob
 * whose size does not match its point count (an operator's edit) is
 * -EILSEQ naming the incident and series.
 */
int rv_store_get_details(struct rv_store *s, uint64_t id, struct rv_store_details *d,
			 struct rv_err *err);

/*
 * Replaces the consumers of incident id (rows go with the incident, as its
 * details do) in one transaction: n <= RV_STORE_CONS_MAX (else -EINVAL).
 * They are written apart from the details because the agent measures them
 * after the incident opened, on another thread's schedule.
 */
int rv_store_put_consumers(struct rv_store *s, uint64_t id, const struct rv_store_consumer *c,
			   size_t n, struct rv_err *err);

/* Reads the consumers of incident id into out (at most max), *n of them;
 * 0 with *n = 0 when none were written. */
int rv_store_get_consumers(struct rv_store *s, uint64_t id, struct rv_store_consumer *out,
			   size_t max, size_t *n, struct rv_err *err);

/* Frees what rv_store_get_details allocated and zeroes d. NULL: no-op. */
void rv_store_details_free(struct rv_store_details *d);

/* Appends one model fit row. -EINVAL for a non-finite ts. */
int rv_store_put_fit(struct rv_store *s, const struct rv_store_fit *f, struct rv_err *err);

/* *out = the number of fit rows. */
int rv_store_count_fits(struct rv_store *s, size_t *out, struct rv_err *err);

/* Sets key to value (both NUL-terminated text, copied; NULL is -EINVAL). */
int rv_store_set_kv(struct rv_store *s, const char *key, const char *value, struct rv_err *err);

/*
 * Copies key's value with its NUL into buf (cap bytes). -ENOENT when the key
 * is absent, -ERANGE when the value and its NUL do not fit in cap (buf is
 * then "" when cap > 0).
 */
int rv_store_get_kv(struct rv_store *s, const char *key, char *buf, size_t cap,
		    struct rv_err *err);

/*
 * For tests only: caps the database at pages pages (SQLite's
 * max_page_count; never below the pages already used), so that writes past
 * it fail as on a full disk (SQLITE_FULL, -ENOSPC). pages 0 restores the
 * limit the store had before the first call. Prepares a statement per call.
 */
int rv_store_test_limit_pages(struct rv_store *s, unsigned pages, struct rv_err *err);

#endif
