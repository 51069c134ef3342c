/*
 * store_test.c - the agent's SQLite store: incidents (round trip with
 * phase and follows, upsert, order and filters, prune, close), model fits,
 * key/value state, reopening, refusals (newer schema, not a database,
 * someone else's database, missing directory, bad incidents) and a full
 * disk simulated with max_page_count.
 *
 * Every test works in its own directory made with mkdtemp under $TMPDIR (or
 * /tmp) and removed afterwards. Where the store's own API cannot show a
 * row (stale signal rows, the view, the journal mode) the test reads the
 * file with a second, plain SQLite connection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_sql.h"
#include "store/store_testutil.h"

enum { LIST_MAX = 64, DISK_FULL_TRIES = 2000 };

static void put_ok(struct rv_store *s, const struct rv_store_incident *inc)
{
	struct rv_err err;

	rv_err_clear(&err);
	must(rv_store_put_incident(s, inc, &err), &err);
}

/* Collects listed incidents; stops with stop_rc after stop_after of them. */
struct collect {
	struct rv_store_incident inc[LIST_MAX];
	size_t n;
	size_t stop_after;  /* 0: never */
	int stop_rc;
	struct rv_store *reenter;  /* when set, the callback calls the store */
	int reenter_rc;
};

static int collect_cb(void *ctx, const struct rv_store_incident *inc)
{
	struct collect *c = ctx;

	if (c->n >= LIST_MAX)
		return -1;
	c->inc[c->n++] = *inc;
	if (c->reenter)
		c->reenter_rc = rv_store_put_incident(c->reenter, inc, NULL);
	if (c->stop_after && c->n == c->stop_after)
		return c->stop_rc;
	return 0;
}

static void list_ok(struct rv_store *s, double since, size_t limit, struct collect *c)
{
	struct rv_err err;

	rv_err_clear(&err);
	c->n = 0;
	must(rv_store_list_incidents(s, since, limit, collect_cb, c, &err), &err);
}

static void assert_same_double(double got, double want)
{
	if (isnan(want) ? !isnan(got) : got != want)
		fail_msg("got %.17g, want %.17g", got, want);
}

static void assert_same_incident(const struct rv_store_incident *got,
				 const struct rv_store_incident *want)
{
	assert_int_equal(got->id, want->id);
	assert_same_double(got->start_ts, want->start_ts);
	assert_same_double(got->end_ts, want->end_ts);
	assert_int_equal(got->open, want->open != 0);
	assert_int_equal(got->windows, want->windows);
	assert_same_double(got->peak_score, want->peak_score);
	assert_same_double(got->mean_score, want->mean_score);
	assert_int_equal(got->detectors, want->detectors);
	assert_string_equal(got->subsystem, want->subsystem);
	assert_string_equal(got->host, want->host);
	assert_int_equal(got->phase, want->phase ? want->phase : 1);
	assert_int_equal(got->follows, want->follows);
	assert_int_equal(got->nsig, want->nsig);
	for (size_t i = 0; i < want->nsig; i++) {
		assert_string_equal(got->sig[i].name, want->sig[i].name);
		assert_same_double(got->sig[i].share, want->sig[i].share);
		assert_same_double(got->sig[i].baseline, want->sig[i].baseline);
		assert_same_double(got->sig[i].value, want->sig[i].value);
	}
}

/* Column 0 of the first row of sql as text into buf. */
static void raw_text(const char *path, const char *sql, char *buf, size_t cap)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	buf[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
}


/* ------------------------------------------------------------- incidents */

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_store_incident a = make_inc(1, 1000, 1010, 0, 3, "gpu.power:");
	struct rv_store_incident b = make_inc(2, 2000, 2005, 1, 0, "x");
	struct collect c = { 0 };
	char mode[16];

	a.sig[1].baseline = NAN;  /* missing stays missing */
	a.peak_score = NAN;
	b.detectors = 0x80000001u;
	b.phase = 2;              /* a follow-on phase of a (a: phase 0, read as 1) */
	b.follows = 1;
	put_ok(s, &a);
	put_ok(s, &b);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 2);
	assert_same_incident(&c.inc[0], &b);
	assert_same_incident(&c.inc[1], &a);
	assert_int_equal(c.inc[1].phase, 1);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents WHERE id = 1"
					   " AND phase = 1 AND follows IS NULL"), 1);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents_view WHERE id = 2"
					   " AND phase = 2 AND follows = 1"), 1);
	raw_text(fx->path, "PRAGMA journal_mode", mode, sizeof(mode));
	assert_string_equal(mode, "wal");
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), RV_STORE_SCHEMA_VERSION);
}

/* An incident written when it opens, rewritten as it grows (other top
 * signals) and when it closes: one row, only the last signals. */
static void test_upsert_grow_close(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_store_incident inc = make_inc(7, 5000, 5002, 1, 5, "cpu.util:");
	struct collect c = { 0 };
	char text[256];

	put_ok(s, &inc);
	inc = make_inc(7, 5000, 5030, 1, 2, "mem.used");
	put_ok(s, &inc);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 1);
	assert_same_incident(&c.inc[0], &inc);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_signals"), 2);

	inc = make_inc(7, 5000, 5060, 0, 1, "net.rx");
	inc.windows = 61;
	put_ok(s, &inc);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 1);
	assert_same_incident(&c.inc[0], &inc);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents"), 1);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_signals"), 1);

	/* The view people read: UTC dates, state, signals in rank order. */
	inc = make_inc(8, 1700000000, 1700000060, 1, 3, "gpu.temp:");
	put_ok(s, &inc);
	raw_text(fx->path,
		 "SELECT start_utc || '|' || end_utc || '|' || state || '|' || signals"
		 " FROM incidents_view WHERE id = 8",
		 text, sizeof(text));
	assert_string_equal(text, "2023-11-14 22:13:20|2023-11-14 22:14:20|open|"
				  "gpu.temp:0 (50%), gpu.temp:1 (25%), gpu.temp:2 (17%)");
	raw_text(fx->path, "SELECT group_concat(id) FROM incidents_view", text, sizeof(text));
	assert_string_equal(text, "8,7");
}

static void test_list_order_since_limit_stop(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	static const struct { uint64_t id; double start, end; int open; } rows[] = {
		{ 1, 100, 110, 0 }, { 2, 300, 310, 0 }, { 3, 200, 250, 0 },
		{ 4, 300, 305, 0 }, { 5, 50, 60, 1 },  /* open, ended long ago */
	};
	struct collect c = { 0 };
	struct rv_err err;
	struct rv_store_incident inc;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		inc = make_inc(rows[i].id, rows[i].start, rows[i].end, rows[i].open, 1, "s");
		put_ok(s, &inc);
	}
	/* start desc, then id desc (2 and 4 both start at 300) */
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 5);
	assert_int_equal(c.inc[0].id, 4);
	assert_int_equal(c.inc[1].id, 2);
	assert_int_equal(c.inc[2].id, 3);
	assert_int_equal(c.inc[3].id, 1);
	assert_int_equal(c.inc[4].id, 5);

	/* since 250: ends at or after it (3 ends exactly at 250) or open */
	list_ok(s, 250, 0, &c);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.inc[2].id, 3);
	assert_int_equal(c.inc[3].id, 5);
	list_ok(s, 1e9, 0, &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.inc[0].id, 5);

	list_ok(s, -INFINITY, 2, &c);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.inc[1].id, 2);

	c.n = 0;
	c.stop_after = 3;
	c.stop_rc = 42;
	assert_int_equal(rv_store_list_incidents(s, -INFINITY, 0, collect_cb, &c, NULL), 42);
	assert_int_equal(c.n, 3);

	/* the callback may not write through the same store */
	c.n = 0;
	c.stop_after = 1;
	c.stop_rc = 9;
	c.reenter = s;
	assert_int_equal(rv_store_list_incidents(s, -INFINITY, 0, collect_cb, &c, NULL), 9);
	assert_int_equal(c.reenter_rc, -EBUSY);
	rv_err_clear(&err);
	must(rv_store_list_incidents(s, -INFINITY, 1, collect_cb, &(struct collect){ 0 }, &err),
	     &err);
	assert_int_equal(rv_store_list_incidents(s, 0, 0, NULL, NULL, NULL), -EINVAL);
}

static void test_max_id_and_close_open(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_store_incident inc;
	struct collect c = { 0 };
	struct rv_err err;
	uint64_t id = 99;

	rv_err_clear(&err);
	must(rv_store_max_incident_id(s, &id, &err), &err);
	assert_int_equal(id, 0);
	inc = make_inc(3, 100, 110, 1, 1, "a");   /* open, closes at the stop time */
	put_ok(s, &inc);
	inc = make_inc(9, 120, 200, 1, 1, "b");   /* open, ends after the stop time */
	put_ok(s, &inc);
	inc = make_inc(5, 10, 20, 0, 1, "c");     /* closed: untouched */
	put_ok(s, &inc);
	must(rv_store_max_incident_id(s, &id, &err), &err);
	assert_int_equal(id, 9);

	must(rv_store_close_open_incidents(s, 150, &err), &err);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.inc[0].id, 9);
	assert_false(c.inc[0].open);
	assert_same_double(c.inc[0].end_ts, 200);
	assert_int_equal(c.inc[1].id, 3);
	assert_false(c.inc[1].open);
	assert_same_double(c.inc[1].end_ts, 150);
	assert_same_double(c.inc[2].end_ts, 20);

	/* NaN keeps the stored end */
	inc = make_inc(11, 300, 310, 1, 0, "d");
	put_ok(s, &inc);
	must(rv_store_close_open_incidents(s, NAN, &err), &err);
	list_ok(s, -INFINITY, 1, &c);
	assert_int_equal(c.inc[0].id, 11);
	assert_false(c.inc[0].open);
	assert_same_double(c.inc[0].end_ts, 310);
}

static void test_prune(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_store_incident inc;
	struct collect c = { 0 };
	struct rv_err err;
	uint64_t id = 0;

	/* ids 1..6 start at 100, 200, ... 600 and last 10 s; 2 is still open */
	for (uint64_t i = 1; i <= 6; i++) {
		inc = make_inc(i, 100.0 * (double)i, 100.0 * (double)i + 10, i == 2, 2, "p");
		put_ok(s, &inc);
	}
	rv_err_clear(&err);
	/* by age: closed ones that ended before 350 (1; 2 is open; 3 ends at 310) */
	must(rv_store_prune(s, 350, 0, &err), &err);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.inc[3].id, 2);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_signals"), 8);

	/* by count: keep the newest 2 (6, 5); 4 and 3 go, 2 stays open */
	must(rv_store_prune(s, -INFINITY, 2, &err), &err);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.inc[0].id, 6);
	assert_int_equal(c.inc[1].id, 5);
	assert_int_equal(c.inc[2].id, 2);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_signals"), 6);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_signals"
					   " WHERE incident_id IN (3, 4)"), 0);

	/* nothing to do: no age limit, no count limit */
	must(rv_store_prune(s, NAN, 0, &err), &err);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 3);

	/* pruning everything closed keeps the id sequence going */
	must(rv_store_close_open_incidents(s, 1000, &err), &err);
	must(rv_store_prune(s, 1e12, 0, &err), &err);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 0);
	must(rv_store_max_incident_id(s, &id, &err), &err);
	assert_int_equal(id, 6);
	reopen(fx);
	must(rv_store_max_incident_id(fx->s, &id, &err), &err);
	assert_int_equal(id, 6);
	inc = make_inc(8, 900, 910, 0, 0, "q");
	put_ok(fx->s, &inc);
	must(rv_store_max_incident_id(fx->s, &id, &err), &err);
	assert_int_equal(id, 8);
}

static void test_bad_incident(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_store_incident inc = make_inc(1, 10, 20, 0, 1, "a");
	struct rv_err err;

	inc.nsig = RV_STORE_SIG_MAX + 1;
	rv_err_clear(&err);
	assert_int_equal(rv_store_put_incident(s, &inc, &err), -EINVAL);
	assert_contains(err.msg, fx->path);
	assert_contains(err.msg, "signals");
	inc = make_inc(0, 10, 20, 0, 1, "a");
	assert_int_equal(rv_store_put_incident(s, &inc, NULL), -EINVAL);
	inc = make_inc(1, NAN, 20, 0, 1, "a");
	assert_int_equal(rv_store_put_incident(s, &inc, NULL), -EINVAL);
	inc = make_inc(1, 30, 20, 0, 1, "a");
	assert_int_equal(rv_store_put_incident(s, &inc, NULL), -EINVAL);
	assert_int_equal(rv_store_put_incident(s, NULL, NULL), -EINVAL);
	assert_int_equal(rv_store_put_incident(NULL, &inc, NULL), -EINVAL);
	inc = make_inc(1, 10, 20, 0, 1, "a");
	inc.follows = 1;  /* itself */
	rv_err_clear(&err);
	assert_int_equal(rv_store_put_incident(s, &inc, &err), -EINVAL);
	assert_contains(err.msg, "incident 1 cannot follow incident 1");
	inc.follows = (uint64_t)INT64_MAX + 1;
	assert_int_equal(rv_store_put_incident(s, &inc, NULL), -EINVAL);

	/* full text fields without a NUL are stored whole, not overrun */
	inc = make_inc(2, 10, 20, 0, 1, "a");
	memset(inc.subsystem, 'x', sizeof(inc.subsystem));
	memset(inc.sig[0].name, 'n', sizeof(inc.sig[0].name));
	put_ok(s, &inc);
	assert_int_equal(raw_int(fx->path, "SELECT length(subsystem) FROM incidents"),
			 RV_STORE_SUBSYS_LEN);
	assert_int_equal(raw_int(fx->path, "SELECT length(name) FROM incident_signals"),
			 RV_STORE_SIG_NAME_LEN);
	{
		struct collect c = { 0 };
		list_ok(s, -INFINITY, 0, &c);
		assert_int_equal(strlen(c.inc[0].subsystem), RV_STORE_SUBSYS_LEN - 1);
		assert_int_equal(strlen(c.inc[0].sig[0].name), RV_STORE_SIG_NAME_LEN - 1);
	}
}

/* ------------------------------------------------------------ kv and fits */

static void test_kv(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_err err;
	char buf[8];

	rv_err_clear(&err);
	assert_int_equal(rv_store_get_kv(s, "model", buf, sizeof(buf), &err), -ENOENT);
	assert_contains(err.msg, "model");
	must(rv_store_set_kv(s, "model", "a.rvm", &err), &err);
	must(rv_store_get_kv(s, "model", buf, sizeof(buf), &err), &err);
	assert_string_equal(buf, "a.rvm");
	must(rv_store_set_kv(s, "model", "b.rvm", &err), &err);
	must(rv_store_get_kv(s, "model", buf, sizeof(buf), &err), &err);
	assert_string_equal(buf, "b.rvm");

	must(rv_store_set_kv(s, "k", "1234567", &err), &err);  /* 7 + NUL fits in 8 */
	must(rv_store_get_kv(s, "k", buf, sizeof(buf), &err), &err);
	assert_string_equal(buf, "1234567");
	must(rv_store_set_kv(s, "k", "12345678", &err), &err);
	assert_int_equal(rv_store_get_kv(s, "k", buf, sizeof(buf), &err), -ERANGE);
	assert_contains(err.msg, "k");
	assert_string_equal(buf, "");
	must(rv_store_set_kv(s, "empty", "", &err), &err);
	memcpy(buf, "junk", 5);
	must(rv_store_get_kv(s, "empty", buf, sizeof(buf), &err), &err);
	assert_string_equal(buf, "");
	assert_int_equal(rv_store_set_kv(s, "k", NULL, NULL), -EINVAL);
	assert_int_equal(rv_store_get_kv(s, NULL, buf, sizeof(buf), NULL), -EINVAL);

	reopen(fx);
	must(rv_store_get_kv(fx->s, "model", buf, sizeof(buf), &err), &err);
	assert_string_equal(buf, "b.rvm");
}

static void test_fits(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_store_fit f = { .ts = 1700000000, .channels = 120, .features = 1100,
				  .train_windows = 3600, .fit_seconds = 2.5 };
	struct rv_err err;
	size_t n = 99;
	char text[300];

	rv_err_clear(&err);
	must(rv_store_count_fits(s, &n, &err), &err);
	assert_int_equal(n, 0);
	snprintf(f.reason, sizeof(f.reason), "learn");
	snprintf(f.model_path, sizeof(f.model_path), "/var/lib/reveal/model.rvm");
	must(rv_store_put_fit(s, &f, &err), &err);
	snprintf(f.reason, sizeof(f.reason), "refit");
	f.ts += 86400;
	must(rv_store_put_fit(s, &f, &err), &err);
	must(rv_store_count_fits(s, &n, &err), &err);
	assert_int_equal(n, 2);
	raw_text(fx->path,
		 "SELECT reason || ' ' || channels || ' ' || features || ' ' || train_windows"
		 " || ' ' || fit_seconds || ' ' || model_path FROM fits ORDER BY ts DESC",
		 text, sizeof(text));
	assert_string_equal(text, "refit 120 1100 3600 2.5 /var/lib/reveal/model.rvm");
	f.ts = NAN;
	assert_int_equal(rv_store_put_fit(s, &f, NULL), -EINVAL);
	must(rv_store_count_fits(s, &n, &err), &err);
	assert_int_equal(n, 2);
}

/* -------------------------------------------------------- open and reopen */

static void test_reopen_persists(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_incident a = make_inc(4, 40, 44, 0, 2, "net.tx:");
	struct collect c = { 0 };
	struct rv_err err;
	size_t n = 0;

	open_ok(fx);
	put_ok(fx->s, &a);
	rv_err_clear(&err);
	must(rv_store_put_fit(fx->s, &(struct rv_store_fit){ .ts = 1, .reason = "loaded" }, &err),
	     &err);
	reopen(fx);
	list_ok(fx->s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 1);
	assert_same_incident(&c.inc[0], &a);
	must(rv_store_count_fits(fx->s, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_string_equal(rv_store_path(fx->s), fx->path);
}

static void test_newer_version_refused(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = (struct rv_store *)&s;  /* must stay untouched */
	char sql[64], newer[32], known[32];
	struct rv_err err;

	open_ok(fx);
	rv_store_close(fx->s);
	fx->s = NULL;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", RV_STORE_SCHEMA_VERSION + 1);
	snprintf(newer, sizeof(newer), "version %d,", RV_STORE_SCHEMA_VERSION + 1);
	snprintf(known, sizeof(known), "knows version %d", RV_STORE_SCHEMA_VERSION);
	raw_exec(fx->path, sql);
	rv_err_clear(&err);
	assert_int_equal(rv_store_open(fx->path, &s, &err), -ENOTSUP);
	assert_ptr_equal(s, (struct rv_store *)&s);
	assert_contains(err.msg, fx->path);
	assert_contains(err.msg, newer);
	assert_contains(err.msg, known);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), RV_STORE_SCHEMA_VERSION + 1);
}

static void test_not_a_database(void **state)
{
	struct fixture *fx = *state;
	static const char garbage[] = "this is a text file, not a database\n";
	struct rv_store *s = NULL;
	struct rv_err err;
	char back[sizeof(garbage)] = "";
	FILE *f = fopen(fx->path, "w");

	assert_non_null(f);
	fputs(garbage, f);
	fclose(f);
	rv_err_clear(&err);
	assert_int_equal(rv_store_open(fx->path, &s, &err), -EILSEQ);
	assert_null(s);
	assert_contains(err.msg, fx->path);
	assert_contains(err.msg, "not a SQLite database");
	f = fopen(fx->path, "r");
	assert_non_null(f);
	assert_non_null(fgets(back, sizeof(back), f));
	fclose(f);
	assert_string_equal(back, garbage);  /* left as it was */
}

static void test_foreign_database(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = NULL;
	struct rv_err err;

	raw_exec(fx->path, "CREATE TABLE songs (title TEXT)");
	rv_err_clear(&err);
	assert_int_equal(rv_store_open(fx->path, &s, &err), -EILSEQ);
	assert_null(s);
	assert_contains(err.msg, fx->path);
	assert_contains(err.msg, "not a reveal store");
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM sqlite_master"), 1);
}

static void test_missing_directory(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = NULL;
	struct rv_err err;
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/no/such/dir/agent.db", fx->dir);
	rv_err_clear(&err);
	assert_int_equal(rv_store_open(path, &s, &err), -ENOENT);
	assert_null(s);
	assert_contains(err.msg, path);
	assert_contains(err.msg, "does not exist");

	/* a file where the directory should be */
	snprintf(path, sizeof(path), "%s/agent.db/x.db", fx->dir);
	open_ok(fx);
	rv_err_clear(&err);
	assert_int_equal(rv_store_open(path, &s, &err), -ENOTDIR);
	assert_contains(err.msg, path);
	assert_int_equal(rv_store_open(NULL, &s, NULL), -EINVAL);
	assert_int_equal(rv_store_open("", &s, NULL), -EINVAL);
}

/* A write that fails after the incident row went in (a trigger, added for
 * the test, aborts the insert of one signal: SQLite undoes only that
 * statement) is rolled back whole, and the store goes on working. */
static void test_failed_write_rolls_back(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_store_incident ok = make_inc(1, 10, 20, 1, 2, "ok"), bad;
	struct collect c = { 0 };
	struct rv_err err;

	put_ok(s, &ok);
	raw_exec(fx->path, "CREATE TRIGGER test_boom BEFORE INSERT ON incident_signals"
			   " WHEN new.name = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END");
	bad = make_inc(1, 10, 40, 0, 3, "new");  /* would replace incident 1 */
	snprintf(bad.sig[2].name, sizeof(bad.sig[2].name), "boom");
	rv_err_clear(&err);
	assert_int_equal(rv_store_put_incident(s, &bad, &err), -EINVAL);
	assert_contains(err.msg, fx->path);
	assert_contains(err.msg, "boom");
	bad.id = 2;
	assert_int_equal(rv_store_put_incident(s, &bad, NULL), -EINVAL);

	/* still incident 1 as first written, with its two signals; no 2 */
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 1);
	assert_same_incident(&c.inc[0], &ok);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_signals"), 2);

	/* usable: the next writes go through */
	snprintf(bad.sig[2].name, sizeof(bad.sig[2].name), "fine");
	put_ok(s, &bad);
	rv_err_clear(&err);
	must(rv_store_set_kv(s, "after", "yes", &err), &err);
	list_ok(s, -INFINITY, 0, &c);
	assert_int_equal(c.n, 2);
	assert_same_incident(&c.inc[0], &bad);
}

/* ------------------------------------------------------------- disk full */

/* With the file capped at its current size, incidents are written until one
 * no longer fits: that write fails as on a full disk, leaves nothing behind
 * (not its row, not some of its signals), and once there is room again the
 * same write succeeds and everything written before is intact. */
static void test_disk_full(void **state)
{
	struct fixture *fx = *state;
	struct rv_store *s = open_ok(fx);
	struct rv_store_incident inc, first = make_inc(1, 10, 20, 0, 8, "before.full:");
	struct collect c = { 0 };
	struct rv_err err;
	uint64_t id, max_id = 0;
	int rc = 0;

	put_ok(s, &first);
	rv_err_clear(&err);
	must(rv_store_test_limit_pages(s, 1, &err), &err);
	for (id = 2; id < DISK_FULL_TRIES; id++) {
		inc = make_inc(id, 10.0 * (double)id, 10.0 * (double)id + 5, 1, 8,
			       "a.rather.long.channel.name.so.pages.fill.up:");
		rv_err_clear(&err);
		rc = rv_store_put_incident(s, &inc, &err);
		if (rc != 0)
			break;
	}
	assert_int_equal(rc, -ENOSPC);
	assert_true(id > 2);  /* the first few still fit in the pages there were */
	assert_contains(err.msg, "disk full");
	assert_contains(err.msg, fx->path);

	assert_true(id < LIST_MAX);

	/* atomic: the failed incident left neither its row nor signals */
	must(rv_store_max_incident_id(s, &max_id, &err), &err);
	assert_int_equal(max_id, id - 1);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_signals"),
			 (long long)(id - 1) * 8);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents"), (long long)id - 1);

	/* room again: the same write succeeds, the earlier data is intact */
	rv_err_clear(&err);
	must(rv_store_test_limit_pages(s, 0, &err), &err);
	must(rv_store_put_incident(s, &inc, &err), &err);
	must(rv_store_max_incident_id(s, &max_id, &err), &err);
	assert_int_equal(max_id, id);
	reopen(fx);
	c.n = 0;
	must(rv_store_list_incidents(fx->s, -INFINITY, 0, collect_cb, &c, &err), &err);
	assert_int_equal(c.inc[0].id, id);
	assert_same_incident(&c.inc[0], &inc);
	assert_same_incident(&c.inc[c.n - 1], &first);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upsert_grow_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_order_since_limit_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_id_and_close_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_incident, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_persists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_version_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disk_full, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
