/*
 * store_ro.c - the read-only open of the store (rv_store_open_ro), for
 * readers that must leave the file as it is: `reveal report --store`, run
 * by an operator who may only read the store and its folder. See store.h
 * for the contract; the agent keeps rv_store_open (store.c).
 *
 * Why three ways to read. SQLite reads a WAL database through its -shm
 * index. A read-only connection uses an existing -wal and -shm (read-only
 * if it must), and creates them when the folder is writable; with neither
 * file present in a folder it cannot write, every read fails ("attempt to
 * write a readonly database", SQLite 3.40). Only then is the file opened
 * with SQLite's immutable=1: no locks, no -wal, the file as it is, which is
 * every commit, since the agent checkpoints and removes its -wal when it
 * closes the store. An older schema is upgraded in a copy in memory (the
 * backup API), never in the file.
 */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "store/store.h"
#include "store/store_sql.h"

/* Whether PATH followed by suffix exists. When that cannot be told (a name
 * too long, a folder that cannot be searched) it counts as existing: the
 * caller then does not take the immutable way. */
static int beside_exists(const char *path, const char *suffix)
{
	char p[PATH_MAX];
	size_t n = strlen(path), m = strlen(suffix);

	if (n + m >= sizeof(p))
		return 1;
	memcpy(p, path, n);
	memcpy(p + n, suffix, m + 1);
	return access(p, F_OK) == 0 || errno != ENOENT;
}

/* *immutable = the file alone holds the store and nothing may be created
 * beside it: the folder is not writable by this process and there is no
 * -wal, -shm or -journal. *dir_ro = the folder is not writable. */
static int choose_way(const char *path, int *immutable, int *dir_ro, struct rv_err *err)
{
	char dir[PATH_MAX];
	int rc = rv_store_dir_of(path, dir, sizeof(dir), err);

	if (rc < 0)
		return rc;
	*dir_ro = access(dir, W_OK | X_OK) != 0;
	*immutable = *dir_ro && !beside_exists(path, "-wal") && !beside_exists(path, "-shm") &&
		     !beside_exists(path, "-journal");
	return 0;
}

static int uri_keeps(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
}

/* "file:PATH?immutable=1" with PATH percent-encoded (RFC 3986 unreserved
 * characters and '/' kept, so '?', '#' and '%' in a name stay part of it);
 * an absolute path gets the empty authority ("file:///..."), so that a path
 * starting "//" is not read as a host. NULL when out of memory; free it. */
static char *immutable_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	static const char tail[] = "?immutable=1";
	const char *head = path[0] == '/' ? "file://" : "file:";
	char *uri = malloc(strlen(head) + 3 * strlen(path) + sizeof(tail));
	size_t n = strlen(head);

	if (!uri)
		return NULL;
	memcpy(uri, head, n);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (uri_keeps(*p)) {
			uri[n++] = (char)*p;
		} else {
			uri[n++] = '%';
			uri[n++] = hex[*p >> 4];
			uri[n++] = hex[*p & 0xf];
		}
	}
	memcpy(uri + n, tail, sizeof(tail));
	return uri;
}

static int connect_file(struct rv_store *s, int immutable, struct rv_err *err)
{
	char *uri = immutable ? immutable_uri(s->path) : NULL;
	int rc;

	if (immutable && !uri)
		return rv_err_set(err, -ENOMEM, "store %s: out of memory", s->path);
	if (immutable) {
		rv_debug("store %s: folder not writable and no -wal/-shm: reading the file as"
			 " immutable", s->path);
		rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	} else {
		rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL);
	}
	free(uri);
	if (rc != SQLITE_OK)
		return rv_store_fail_sqlite(s, rc, "opening read-only", err);
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, RV_STORE_BUSY_MS);
	return 0;
}

/* The first read, which is where SQLite finds out whether it can read the
 * file; a failure in a folder it cannot write says why it likely failed. */
static int read_version(struct rv_store *s, int dir_ro, sqlite3_int64 *version,
			struct rv_err *err)
{
	struct rv_err e;
	int rc;

	rv_err_clear(&e);
	rc = rv_store_query_int(s, "PRAGMA user_version", version, "reading the schema version",
				&e);
	if (rc == -EACCES && dir_ro)
		return rv_err_set(err, rc,
				  "%s (the folder is not writable, so SQLite cannot add the -wal or"
				  " -shm file that is missing beside the store: read it as a user"
				  " who may write the folder, or while the agent runs)", e.msg);
	return rc < 0 ? rv_err_set(err, rc, "%s", e.msg) : 0;
}

/* Replaces the file's connection by a copy of the database in memory, made
 * in one read transaction (so it is consistent), where the upgrade can run
 * without touching the file. The file's connection is closed. */
static int copy_to_memory(struct rv_store *s, struct rv_err *err)
{
	sqlite3 *file = s->db, *mem = NULL;
	sqlite3_backup *b;
	int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);

	if (rc != SQLITE_OK) {
		sqlite3_close(mem);
		return rv_err_set(err, -ENOMEM, "store %s: opening a database in memory: %s",
				  s->path, sqlite3_errstr(rc));
	}
	sqlite3_extended_result_codes(mem, 1);
	b = sqlite3_backup_init(mem, "main", file, "main");
	if (b) {
		int step = sqlite3_backup_step(b, -1);

		rc = sqlite3_backup_finish(b);
		if (rc == SQLITE_OK && step != SQLITE_DONE)
			rc = step;
	} else {
		rc = sqlite3_errcode(mem);
	}
	s->db = mem;
	if (rc != SQLITE_OK)
		rc = rv_store_fail_msg(s, rc, "copying the store into memory to upgrade it",
				       sqlite3_errcode(mem) == rc ? sqlite3_errmsg(mem) : sqlite3_errstr(rc),
				       err);
	sqlite3_close(file);
	return rc;
}

static int connect_ro(struct rv_store *s, struct rv_err *err)
{
	sqlite3_int64 version = 0;
	int immutable = 0, dir_ro = 0;
	int rc = choose_way(s->path, &immutable, &dir_ro, err);

	if (rc == 0)
		rc = connect_file(s, immutable, err);
	if (rc == 0)
		rc = read_version(s, dir_ro && !immutable, &version, err);
	if (rc == 0)
		rc = rv_store_check_version(s, version, err);
	if (rc == 0 && version < RV_STORE_SCHEMA_VERSION) {
		rc = copy_to_memory(s, err);
		if (rc == 0)
			rc = rv_store_upgrade(s, err);
	}
	if (rc == 0)
		rc = rv_store_prepare(s, err);
	return rc;
}

/* A clear word for a store that is not there (SQLite would say "unable to
 * open database file"). */
static int check_file(const char *path, struct rv_err *err)
{
	struct stat sb;

	if (stat(path, &sb) < 0) {
		int e = errno;
		if (e == ENOENT)
			return rv_err_set(err, -e, "store %s: no such file (a read-only open does"
					  " not create the store)", path);
		return rv_err_set(err, -e, "store %s: %s", path, rv_strerror(e));
	}
	if (S_ISDIR(sb.st_mode))
		return rv_err_set(err, -EISDIR, "store %s: is a directory", path);
	return 0;
}

int rv_store_open_ro(const char *path, struct rv_store **out, struct rv_err *err)
{
	struct rv_store *s;
	int rc;

	if (!path || !*path || !out)
		return rv_err_set(err, -EINVAL, "store: no path");
	rc = check_file(path, err);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return rv_err_set(err, -ENOMEM, "store %s: out of memory", path);
	}
	s->readonly = 1;
	rc = connect_ro(s, err);
	if (rc < 0) {
		rv_store_close(s);
		return rc;
	}
	*out = s;
	return 0;
}
