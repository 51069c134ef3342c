/*
 * procnet_test.h - test harness shared by proc_net_dev_test.c,
 * proc_net_snmp_test.c, proc_diskstats_test.c and proc_fs_test.c
 * (include after cmocka.h): a source opened on a root, sampled into fixed
 * arrays, its channels looked up by name; and temporary roots whose one
 * file is rewritten in place, so that the descriptor a source keeps open
 * sees each new content.
 * Header-only (static inline) because CMake builds every .c under
 * collect/ into the library.
 */
#ifndef RV_COLLECT_PROCNET_TEST_H
#define RV_COLLECT_PROCNET_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/source.h"

enum { RUN_MAX_CH = 160, RUN_PATH_MAX = 600 };

/* An opened source and the arrays of one sample. */
struct src_run {
	const struct rv_source *src;
	struct rv_chanlist l;
	struct rv_err err;
	void *st;
	double raw[RUN_MAX_CH];
	uint8_t ok[RUN_MAX_CH];
};

static inline int run_open(struct src_run *r, const struct rv_source *src, const char *root)
{
	memset(r, 0, sizeof(*r));
	r->src = src;
	r->l.source = src->name;
	return src->open(&(struct rv_collect_cfg){ .root = root }, &r->st, &r->l, &r->err);
}

static inline void run_sample(struct src_run *r)
{
	assert_true(r->l.n <= RUN_MAX_CH);
	memset(r->ok, 0, sizeof(r->ok));
	r->src->sample(r->st, r->raw, r->ok);
}

static inline void run_close(struct src_run *r)
{
	r->src->close(r->st);
	rv_chanlist_fini(&r->l);
}

static inline long run_find(const struct src_run *r, const char *name)
{
	for (size_t i = 0; i < r->l.n; i++)
		if (strcmp(r->l.v[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* Index of a channel that must exist. */
static inline size_t run_chan(const struct src_run *r, const char *name)
{
	long i = run_find(r, name);

	if (i < 0)
		fail_msg("no channel %s", name);
	return (size_t)i;
}

/* Raw value of a channel that must exist and be valid. */
static inline double run_val(const struct src_run *r, const char *name)
{
	size_t i = run_chan(r, name);

	assert_int_equal(r->ok[i], 1);
	return r->raw[i];
}

static inline int run_ok(const struct src_run *r, const char *name)
{
	return r->ok[run_chan(r, name)];
}

static inline void run_all_valid(const struct src_run *r, int want)
{
	for (size_t i = 0; i < r->l.n; i++)
		assert_int_equal(r->ok[i], want);
}

/* The nethost fixture tree. */
static inline void nethost_root(char *root, size_t cap)
{
	const char *dir = getenv("RV_FIXTURES");

	assert_non_null(dir);
	snprintf(root, cap, "%s/collect/nethost", dir);
}

/* A new empty directory /tmp/rv_procnet_XXXXXX with its proc/ and, when
 * `net`, proc/net/. */
static inline void tmp_root(char *root, size_t cap, int net)
{
	char dir[RUN_PATH_MAX];

	snprintf(root, cap, "/tmp/rv_procnet_XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/proc", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/proc/net", root);
	assert_int_equal(net ? mkdir(dir, 0700) : 0, 0);
}

/* Writes root + rel ("/proc/net/dev") in place. */
static inline void put_file(const char *root, const char *rel, const char *text)
{
	char path[RUN_PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s%s", root, rel);
	FILE *f;

	assert_true(n > 0 && (size_t)n < sizeof(path));
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* Removes what tmp_root and put_file made. */
static inline void rm_root(const char *root, const char *rel)
{
	char path[RUN_PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/net", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/proc", root);
	rmdir(path);
	rmdir(root);
}

#endif
