/*
 * store_ro_test.c - the store opened read-only (rv_store_open_ro, what
 * `reveal report --store` uses): a current store reads back whole; a
 * version 1 or 2 store comes out upgraded (a version 2 incident as phase
 * 1) while its file keeps its bytes, its mtime and its version; writes are -EROFS; a missing file, a directory, a
 * newer schema and a file that is not a store are refused, naming the path.
 *
 * Then as an operator who may only read: the file and its folder made
 * read-only, the store read by a child process as nobody (the tests run as
 * root, which ignores permission bits; as another user, by that user):
 * a cleanly closed store (no -wal, -shm: the immutable way), a version 1
 * store, a store an agent is writing (its commits still in the -wal) and
 * one a crashed agent left with its -wal and -shm. The folder gains no file.
 *
 * Every test works in its own directory made with mkdtemp under $TMPDIR (or
 * /tmp) and removed afterwards (store_testutil.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_sql.h"
#include "store/store_testutil.h"

enum {
	NOBODY_ID = 65534,  /* nobody and nogroup on Debian */
	EXIT_SKIP = 77,     /* the reader child cannot reach the test folder */
	LISTING_MAX = 4096,
};

/* ------------------------------------------------------------- helpers */

/* The store file as it was: its bytes and its mtime. */
struct snap {
	char *bytes;
	size_t len;
	struct timespec mtime;
};

static struct snap snap_take(const char *path)
{
	struct snap sn = { 0 };
	struct stat sb;
	FILE *f = fopen(path, "rb");

	if (!f || stat(path, &sb) != 0)
		fail_msg("%s: %s", path, strerror(errno));
	sn.len = (size_t)sb.st_size;
	sn.mtime = sb.st_mtim;
	sn.bytes = malloc(sn.len ? sn.len : 1);
	assert_non_null(sn.bytes);
	assert_int_equal(fread(sn.bytes, 1, sn.len, f), sn.len);
	fclose(f);
	return sn;
}

/* The file still has the bytes and the mtime of sn; frees sn. */
static void snap_same(const char *path, struct snap *sn)
{
	struct snap now = snap_take(path);

	assert_int_equal(now.len, sn->len);
	assert_memory_equal(now.bytes, sn->bytes, sn->len);
	assert_int_equal(now.mtime.tv_sec, sn->mtime.tv_sec);
	assert_int_equal(now.mtime.tv_nsec, sn->mtime.tv_nsec);
	free(now.bytes);
	free(sn->bytes);
	sn->bytes = NULL;
}

/* The names in dir, sorted, one a line. */
static void listing(const char *dir, char *buf, size_t cap)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	size_t len = 0;

	if (n < 0)
		fail_msg("%s: %s", dir, strerror(errno));
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		int w = snprintf(buf + len, cap - len, "%s\n", names[i]->d_name);
		if (w > 0 && (size_t)w < cap - len)
			len += (size_t)w;
		free(names[i]);
	}
	free(names);
}

static struct rv_store *open_ro_ok(const char *path)
{
	struct rv_store *s = NULL;
	struct rv_err err;

	rv_err_clear(&err);
	must(rv_store_open_ro(path, &s, &err), &err);
	return s;
}

struct seen {
	size_t n;
	struct rv_store_incident last;
};

static int seen_cb(void *ctx, const struct rv_store_incident *inc)
{
	struct seen *sn = ctx;

	sn->n++;
	sn->last = *inc;
	return 0;
}

static struct seen list_all(struct rv_store *s)
{
	struct seen sn = { 0 };
	struct rv_err err;

	rv_err_clear(&err);
	must(rv_store_list_incidents(s, -INFINITY, 0, seen_cb, &sn, &err), &err);
	return sn;
}

/* Details with one evidence entry and one cause, for incident id. */
static void put_details_ok(struct rv_store *s, uint64_t id)
{
	struct rv_store_ev ev;
	struct rv_store_details d;
	struct rv_err err;

	memset(&ev, 0, sizeof(ev));
	ev.name = "net.tcp_retrans_segs";
	ev.base_n = 600;
	ev.inc_n = 40;
	ev.value = 212;
	ev.dir = 1;
	memset(&d, 0, sizeof(d));
	d.base_from = 870;
	d.base_to = 990;
	d.start_ts = 997;
	d.end_ts = 1030;
	d.nev = 1;
	d.ev = &ev;
	d.ncauses = 1;
	snprintf(d.causes[0].rule_id, sizeof(d.causes[0].rule_id), "packet-loss");
	snprintf(d.causes[0].title, sizeof(d.causes[0].title), "Packet loss");
	d.causes[0].confidence = 0.82;
	rv_err_clear(&err);
	must(rv_store_put_details(s, id, &d, &err), &err);
}

/* A store of n closed incidents (ids 1..n), details for the last; closed
 * cleanly, so nothing is left beside the file. */
static void make_store(struct fixture *fx, size_t n)
{
	struct rv_err err;

	open_ok(fx);
	rv_err_clear(&err);
	for (size_t i = 1; i <= n; i++) {
		struct rv_store_incident inc = make_inc(i, 100.0 * (double)i,
							100.0 * (double)i + 30, 0, 2, "sig");
		must(rv_store_put_incident(fx->s, &inc, &err), &err);
	}
	put_details_ok(fx->s, n);
	rv_store_close(fx->s);
	fx->s = NULL;
}

/* ------------------------------------------ reading as a read-only user */

/* What a reader child checks: the store at path opens read-only with
 * want_rc; on success it lists want_n incidents and, when details_id is
 * set, reads that incident's details; on failure err names want_msg. */
struct reader {
	const char *path;
	int want_rc;
	size_t want_n;
	uint64_t details_id;
	const char *want_msg;
};

static int count_cb(void *ctx, const struct rv_store_incident *inc)
{
	(void)inc;
	(*(size_t *)ctx)++;
	return 0;
}

/* Runs in the child: 0 when the store reads as r says, else 1 (and why on
 * stderr). No cmocka asserts here: they belong to the parent. */
static int read_as_told(const struct reader *r)
{
	struct rv_store *s = NULL;
	struct rv_store_details d;
	struct rv_err err;
	size_t n = 0;
	int rc;

	rv_err_clear(&err);
	rc = rv_store_open_ro(r->path, &s, &err);
	if (rc == 0)
		rc = rv_store_list_incidents(s, -INFINITY, 0, count_cb, &n, &err);
	if (rc == 0 && r->details_id) {
		rc = rv_store_get_details(s, r->details_id, &d, &err);
		if (rc == 0 && (d.nev != 1 || d.ncauses != 1))
			rc = rv_err_set(&err, -EINVAL, "details: %zu evidence, %zu causes", d.nev,
					d.ncauses);
		rv_store_details_free(&d);
	}
	rv_store_close(s);
	if (rc != r->want_rc || (rc == 0 && n != r->want_n) ||
	    (rc != 0 && r->want_msg && !strstr(err.msg, r->want_msg))) {
		print_error("reader of %s: rc %d (want %d), %zu incidents (want %zu): %s\n",
			    r->path, rc, r->want_rc, n, r->want_n, err.msg);
		return 1;
	}
	return 0;
}

/* Runs read_as_told in a child process that cannot write dir: as nobody
 * when the tests run as root, else as this user. Skips the test when
 * nobody cannot reach dir (a private $TMPDIR). Returns the child's
 * status: 0 when it read as told. */
static int read_as_reader(const char *dir, const struct reader *r)
{
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fail_msg("fork: %s", strerror(errno));
	if (pid == 0) {
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) != 0 || setgid(NOBODY_ID) != 0 || setuid(NOBODY_ID) != 0))
			_exit(2);
		if (access(dir, R_OK | X_OK) != 0)
			_exit(EXIT_SKIP);
		if (access(dir, W_OK) == 0) {
			print_error("reader: %s is writable: the test would prove nothing\n", dir);
			_exit(3);
		}
		_exit(read_as_told(r));
	}
	if (waitpid(pid, &status, 0) != pid)
		fail_msg("waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SKIP)
		skip();
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void chmod_ok(const char *path, mode_t mode)
{
	if (chmod(path, mode) != 0)
		fail_msg("chmod %s: %s", path, strerror(errno));
}

/* Makes dir and every file in it read-only for all (as an operator finds
 * /var/lib/reveal), or gives dir and its files back to their owner. */
static void make_readonly(const char *dir, int readonly)
{
	char p[PATH_MAX + 256];
	struct dirent *de;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		chmod_ok(p, readonly ? 0444 : 0644);
	}
	closedir(d);
	chmod_ok(dir, readonly ? 0555 : 0700);
}

/* teardown, after giving the folder back (a non-root user could not empty
 * it otherwise). */
static int teardown_ro(void **state)
{
	struct fixture *fx = *state;

	chmod(fx->dir, 0700);
	return teardown(state);
}

/* ----------------------------------------------------------------- tests */

static void test_ro_reads_current_store(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_details d;
	struct rv_store *s;
	struct snap sn;
	struct seen seen;
	struct rv_err err;

	make_store(fx, 3);
	sn = snap_take(fx->path);
	s = open_ro_ok(fx->path);
	assert_string_equal(rv_store_path(s), fx->path);
	seen = list_all(s);
	assert_int_equal(seen.n, 3);
	/* newest first: the last one listed is incident 1 */
	assert_int_equal(seen.last.id, 1);
	assert_int_equal(seen.last.nsig, 2);
	assert_string_equal(seen.last.sig[0].name, "sig0");
	assert_string_equal(seen.last.host, "node1");
	rv_err_clear(&err);
	must(rv_store_get_details(s, 3, &d, &err), &err);
	assert_int_equal(d.nev, 1);
	assert_string_equal(d.ev[0].name, "net.tcp_retrans_segs");
	assert_string_equal(d.causes[0].rule_id, "packet-loss");
	rv_store_details_free(&d);
	rv_store_close(s);
	snap_same(fx->path, &sn);
}

/* A version 1 store, in both journal modes: the read-only store has the
 * current schema (the statements that read the details tables prepare and
 * run), the file keeps version 1, its bytes and its mtime. */
static void test_ro_upgrades_v1_in_memory(void **state)
{
	struct fixture *fx = *state;
	char path[PATH_MAX + 32], before[LISTING_MAX], after[LISTING_MAX];

	for (int wal = 0; wal <= 1; wal++) {
		struct rv_store_details d;
		struct rv_store *s;
		struct snap sn;
		struct seen seen;
		struct rv_err err;

		snprintf(path, sizeof(path), "%s/v1%s.db", fx->dir, wal ? "wal" : "");
		make_v1_store(path, wal);
		sn = snap_take(path);
		listing(fx->dir, before, sizeof(before));
		s = open_ro_ok(path);
		seen = list_all(s);
		assert_int_equal(seen.n, 1);
		assert_int_equal(seen.last.id, 3);
		assert_int_equal(seen.last.nsig, 2);
		assert_string_equal(seen.last.sig[1].name, "cpu.iowait_pct");
		assert_string_equal(seen.last.subsystems, "cpu:1.000");
		assert_string_equal(seen.last.cause, "");
		rv_err_clear(&err);
		assert_int_equal(rv_store_get_details(s, 3, &d, &err), -ENOENT);
		assert_contains(err.msg, "no details of incident 3");
		rv_store_close(s);
		snap_same(path, &sn);
		if (!wal) {
			/* a rollback-mode file is read without a file beside it */
			listing(fx->dir, after, sizeof(after));
			assert_string_equal(after, before);
		}
		assert_int_equal(raw_int(path, "PRAGMA user_version"), 1);
		assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master"
					       " WHERE name = 'incident_details'"), 0);
	}
}

/* A version 2 store (before phases): read-only, its incident keeps its
 * signals, cause and details and reads as a first incident (phase 1,
 * follows none); the file keeps version 2, its bytes, its mtime, and gains
 * no phase column. */
static void test_ro_upgrades_v2_in_memory(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_details d;
	struct rv_store *s;
	struct snap sn;
	struct seen seen;
	struct rv_err err;

	make_v2_store(fx->path, 1);
	sn = snap_take(fx->path);
	s = open_ro_ok(fx->path);
	seen = list_all(s);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.last.id, 3);
	assert_int_equal(seen.last.phase, 1);
	assert_int_equal(seen.last.follows, 0);
	assert_int_equal(seen.last.nsig, 2);
	assert_string_equal(seen.last.cause, "cpu-contention");
	rv_err_clear(&err);
	must(rv_store_get_details(s, 3, &d, &err), &err);
	assert_int_equal(d.nev, 1);
	assert_int_equal(d.ncauses, 1);
	rv_store_details_free(&d);
	rv_err_clear(&err);
	assert_int_equal(rv_store_put_incident(s, &seen.last, &err), -EROFS);
	rv_store_close(s);
	snap_same(fx->path, &sn);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), 2);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM pragma_table_info('incidents')"
					   " WHERE name IN ('phase', 'follows')"), 0);
}

static void test_ro_refuses_writes(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_incident inc = make_inc(9, 1, 2, 0, 1, "w");
	struct rv_store_details d;
	struct rv_store_fit fit;
	struct rv_store *s;
	struct rv_err err;
	struct snap sn;
	char value[16];
	int rc[6];

	make_store(fx, 1);
	sn = snap_take(fx->path);
	s = open_ro_ok(fx->path);
	memset(&d, 0, sizeof(d));
	memset(&fit, 0, sizeof(fit));
	fit.ts = 5;
	rc[0] = rv_store_put_incident(s, &inc, NULL);
	rc[1] = rv_store_close_open_incidents(s, 10, NULL);
	rc[2] = rv_store_prune(s, INFINITY, 0, NULL);
	rc[3] = rv_store_put_details(s, 1, &d, NULL);
	rc[4] = rv_store_put_fit(s, &fit, NULL);
	rv_err_clear(&err);
	rc[5] = rv_store_set_kv(s, "k", "v", &err);
	for (size_t i = 0; i < sizeof(rc) / sizeof(rc[0]); i++)
		if (rc[i] != -EROFS)
			fail_msg("write call %zu: %d, want -EROFS", i, rc[i]);
	assert_contains(err.msg, fx->path);
	assert_contains(err.msg, "writing a key: the store was opened read-only");
	/* reads still work, and nothing was written */
	assert_int_equal(list_all(s).n, 1);
	rv_err_clear(&err);
	assert_int_equal(rv_store_get_kv(s, "k", value, sizeof(value), &err), -ENOENT);
	rv_store_close(s);
	snap_same(fx->path, &sn);
}

static void test_ro_refusals(void **state)
{
	struct fixture *fx = *state;
	char other[PATH_MAX + 32], sql[64];
	struct rv_store *s = NULL;
	struct rv_err err;
	FILE *f;

	rv_err_clear(&err);
	assert_int_equal(rv_store_open_ro(fx->path, &s, &err), -ENOENT);
	assert_contains(err.msg, fx->path);
	assert_contains(err.msg, "no such file");
	assert_null(s);
	assert_int_equal(access(fx->path, F_OK), -1);   /* not created */
	rv_err_clear(&err);
	assert_int_equal(rv_store_open_ro(fx->dir, &s, &err), -EISDIR);
	assert_contains(err.msg, fx->dir);
	assert_int_equal(rv_store_open_ro(NULL, &s, NULL), -EINVAL);
	assert_int_equal(rv_store_open_ro("", &s, NULL), -EINVAL);

	/* a newer schema, as rv_store_open refuses it */
	make_store(fx, 1);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", RV_STORE_SCHEMA_VERSION + 1);
	raw_exec(fx->path, sql);
	rv_err_clear(&err);
	assert_int_equal(rv_store_open_ro(fx->path, &s, &err), -ENOTSUP);
	snprintf(sql, sizeof(sql), "schema version %d,", RV_STORE_SCHEMA_VERSION + 1);
	assert_contains(err.msg, sql);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), RV_STORE_SCHEMA_VERSION + 1);

	/* someone else's database, and not a database */
	snprintf(other, sizeof(other), "%s/foreign.db", fx->dir);
	raw_exec(other, "CREATE TABLE t (x)");
	rv_err_clear(&err);
	assert_int_equal(rv_store_open_ro(other, &s, &err), -EILSEQ);
	assert_contains(err.msg, "not a reveal store");
	assert_int_equal(raw_int(other, "SELECT count(*) FROM sqlite_master"), 1);
	snprintf(other, sizeof(other), "%s/text.db", fx->dir);
	f = fopen(other, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fputs("this is not a database\n", f);
	fclose(f);
	rv_err_clear(&err);
	assert_int_equal(rv_store_open_ro(other, &s, &err), -EILSEQ);
	assert_contains(err.msg, other);
	assert_null(s);
}

/* A folder and files nobody may write, no agent running: a current store
 * (the immutable way) and a version 1 store (upgraded in memory) read
 * whole, and the folder gains no file. */
static void test_ro_unwritable_folder(void **state)
{
	struct fixture *fx = *state;
	char old[PATH_MAX + 32], before[LISTING_MAX], after[LISTING_MAX];
	struct reader cur = { .path = fx->path, .want_n = 4, .details_id = 4 };
	struct reader v1 = { .path = old, .want_n = 1 };
	struct snap sn_cur, sn_v1;

	make_store(fx, 4);
	snprintf(old, sizeof(old), "%s/old.db", fx->dir);
	make_v1_store(old, 1);
	make_readonly(fx->dir, 1);
	sn_cur = snap_take(fx->path);
	sn_v1 = snap_take(old);
	listing(fx->dir, before, sizeof(before));
	assert_int_equal(read_as_reader(fx->dir, &cur), 0);
	assert_int_equal(read_as_reader(fx->dir, &v1), 0);
	listing(fx->dir, after, sizeof(after));
	assert_string_equal(after, before);
	snap_same(fx->path, &sn_cur);
	snap_same(old, &sn_v1);
	make_readonly(fx->dir, 0);
}

/* Parent and writer child: one byte on a pipe each way per step. */
static void pipe_say(int fd)
{
	assert_int_equal(write(fd, "x", 1), 1);
}

static void pipe_wait(int fd)
{
	char c;

	assert_int_equal(read(fd, &c, 1), 1);
}

/* The writer child: an agent writing the store; crash: leaves without
 * closing it (its -wal and -shm stay). Never returns. */
static void writer(const char *path, int to_parent, int from_parent, int crash)
{
	struct rv_store *s = NULL;
	struct rv_err err;
	int ok = rv_store_open(path, &s, &err) == 0;

	for (uint64_t id = 1; ok && id <= 2; id++) {
		struct rv_store_incident inc = make_inc(id, 10.0 * (double)id, 10.0 * (double)id + 5,
							0, 1, "w");
		ok = rv_store_put_incident(s, &inc, &err) == 0;
	}
	if (ok && write(to_parent, "x", 1) == 1 && !crash) {
		struct rv_store_incident inc = make_inc(3, 50, 55, 1, 1, "w");
		char c;
		ok = read(from_parent, &c, 1) == 1 && rv_store_put_incident(s, &inc, &err) == 0 &&
		     write(to_parent, "x", 1) == 1 && read(from_parent, &c, 1) == 1;
		rv_store_close(s);
	}
	_exit(ok ? 0 : 1);
}

static pid_t start_writer(const char *path, int *to_writer, int *from_writer, int crash)
{
	int up[2], down[2];
	pid_t pid;

	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		writer(path, up[1], down[0], crash);
	}
	close(up[1]);
	close(down[0]);
	*from_writer = up[0];
	*to_writer = down[1];
	return pid;
}

static void writer_done(pid_t pid, int to_writer, int from_writer)
{
	int status = 0;

	close(to_writer);
	close(from_writer);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* An agent writes while the reader may not write the folder: the reader
 * sees its commits (they are still in the -wal), the next one too, and,
 * once the agent has closed the store, all of them. */
static void test_ro_beside_a_writing_agent(void **state)
{
	struct fixture *fx = *state;
	struct reader r = { .path = fx->path };
	int to_w, from_w;
	pid_t pid = start_writer(fx->path, &to_w, &from_w, 0);

	pipe_wait(from_w);
	make_readonly(fx->dir, 1);
	r.want_n = 2;
	assert_int_equal(read_as_reader(fx->dir, &r), 0);
	pipe_say(to_w);
	pipe_wait(from_w);
	r.want_n = 3;
	assert_int_equal(read_as_reader(fx->dir, &r), 0);
	pipe_say(to_w);
	writer_done(pid, to_w, from_w);
	assert_int_equal(read_as_reader(fx->dir, &r), 0);
	make_readonly(fx->dir, 0);
}

/* An agent that crashed left its -wal and -shm: the reader reads the -wal
 * through the -shm it may not write. Without the -shm, which it could not
 * create, it fails and says why. */
static void test_ro_after_a_crash(void **state)
{
	struct fixture *fx = *state;
	char shm[PATH_MAX + 32];
	struct reader r = { .path = fx->path, .want_n = 2 };
	int to_w, from_w;
	pid_t pid = start_writer(fx->path, &to_w, &from_w, 1);

	pipe_wait(from_w);
	writer_done(pid, to_w, from_w);
	snprintf(shm, sizeof(shm), "%s-shm", fx->path);
	assert_int_equal(access(shm, F_OK), 0);
	make_readonly(fx->dir, 1);
	assert_int_equal(read_as_reader(fx->dir, &r), 0);
	make_readonly(fx->dir, 0);
	assert_int_equal(unlink(shm), 0);
	make_readonly(fx->dir, 1);
	r.want_rc = -EACCES;
	r.want_msg = "cannot add the -wal or -shm file";
	assert_int_equal(read_as_reader(fx->dir, &r), 0);
	make_readonly(fx->dir, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ro_reads_current_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ro_upgrades_v1_in_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ro_upgrades_v2_in_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ro_refuses_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ro_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ro_unwritable_folder, setup, teardown_ro),
		cmocka_unit_test_setup_teardown(test_ro_beside_a_writing_agent, setup, teardown_ro),
		cmocka_unit_test_setup_teardown(test_ro_after_a_crash, setup, teardown_ro),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
