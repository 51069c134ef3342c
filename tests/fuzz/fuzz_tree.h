/*
 * fuzz_tree.h - what the file-format fuzz targets share (header-only,
 * static inline, like collect/procnet_test.h): a private root tree made
 * once per process, files written into it, the input split in two, and one
 * source driven through its whole contract (source.h).
 *
 * The sources read files under a root prefix, so a target writes the fuzz
 * input to ROOT/proc/stat (say), opens the source on ROOT, samples it,
 * rewrites the same file in place (same inode: the source keeps its
 * descriptor and rereads it with pread) with other content, samples again
 * and closes it. Open-time parsing (which lines, which columns, which
 * channels) and sample-time parsing thus see different text, as on a host
 * whose CPUs or devices change. Not for the live host: only the private
 * tree is written; it is removed at exit.
 */
#ifndef RV_FUZZ_TREE_H
#define RV_FUZZ_TREE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/source.h"

enum { FUZZ_PATH_MAX = 1024, FUZZ_MAX_CH = 1 << 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_root_buf[FUZZ_PATH_MAX];

static inline int fuzz_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static inline void fuzz_tree_cleanup(void)
{
	if (fuzz_root_buf[0])
		nftw(fuzz_root_buf, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The private tree, made at the first call (TMPDIR or /tmp); aborts when it
 * cannot be made: a harness failure, not a finding. */
static inline const char *fuzz_tree_root(void)
{
	if (!fuzz_root_buf[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(fuzz_root_buf, sizeof(fuzz_root_buf), "%s/rv_fuzz_XXXXXX",
			 tmp && tmp[0] ? tmp : "/tmp");
		if (!mkdtemp(fuzz_root_buf)) {
			perror("fuzz_tree: mkdtemp");
			abort();
		}
		atexit(fuzz_tree_cleanup);
	}
	return fuzz_root_buf;
}

/* mkdir -p of the folders of ROOT/rel (rel starts with '/'). */
static inline void fuzz_tree_mkdirs(const char *rel)
{
	char path[FUZZ_PATH_MAX];
	size_t rootlen;

	snprintf(path, sizeof(path), "%s%s", fuzz_tree_root(), rel);
	rootlen = strlen(fuzz_root_buf);
	for (char *p = path + rootlen + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			perror(path);
			abort();
		}
		*p = '/';
	}
}

/* Writes ROOT/rel (made with its folders if absent) to hold exactly
 * [data, data + len): truncated in place, so an open descriptor sees it. */
static inline void fuzz_tree_write(const char *rel, const void *data, size_t len)
{
	char path[FUZZ_PATH_MAX];
	const char *p = data;
	int fd;

	snprintf(path, sizeof(path), "%s%s", fuzz_tree_root(), rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 && errno == ENOENT) {
		fuzz_tree_mkdirs(rel);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	}
	if (fd < 0) {
		perror(path);
		abort();
	}
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			perror(path);
			abort();
		}
		p += w;
		len -= (size_t)w;
	}
	close(fd);
}

static inline void fuzz_tree_write_str(const char *rel, const char *s)
{
	fuzz_tree_write(rel, s, strlen(s));
}

/* A part of the input. */
struct fuzz_part {
	const uint8_t *p;
	size_t n;
};

/*
 * Splits the input at its first 0xff byte (which belongs to neither half)
 * or, without one, in the middle: a is what open() parses, b what the
 * second sample() parses. Seeds are "fileA \xff fileB".
 */
static inline void fuzz_split2(const uint8_t *data, size_t size, struct fuzz_part *a,
			       struct fuzz_part *b)
{
	const uint8_t *ff = memchr(data, 0xff, size);

	if (ff) {
		*a = (struct fuzz_part){ data, (size_t)(ff - data) };
		*b = (struct fuzz_part){ ff + 1, size - (size_t)(ff - data) - 1 };
	} else {
		*a = (struct fuzz_part){ data, size / 2 };
		*b = (struct fuzz_part){ data + size / 2, size - size / 2 };
	}
}

/*
 * Splits the input at every 0xff byte into at most max parts; returns
 * their count (at least 1: an input without 0xff is one part).
 */
static inline size_t fuzz_split(const uint8_t *data, size_t size, struct fuzz_part *parts,
				size_t max)
{
	size_t n = 0;

	while (n + 1 < max) {
		const uint8_t *ff = memchr(data, 0xff, size);

		if (!ff)
			break;
		parts[n++] = (struct fuzz_part){ data, (size_t)(ff - data) };
		size -= (size_t)(ff - data) + 1;
		data = ff + 1;
	}
	parts[n++] = (struct fuzz_part){ data, size };
	return n;
}

/* Rewrites the files of a source between two steps of fuzz_source_run. */
typedef void (*fuzz_write_fn)(int phase, void *ctx);

/*
 * One source through its contract on the private tree: write(0), open;
 * when open fails, return (the source must not leak nor crash doing so).
 * Else sample, write(1), sample, write(0), sample, close. Values and
 * validity flags are not checked (unit tests do); a read out of bounds,
 * a leak, undefined behaviour or a hang is what the fuzzer finds. The
 * arrays hold exactly as many slots as open() added channels, so ASan
 * catches a sample() that writes past them; a validity flag other than
 * 0 or 1 aborts.
 */
static inline void fuzz_source_run(const struct rv_source *src, fuzz_write_fn write_fn,
				   void *ctx)
{
	struct rv_collect_cfg cfg = { .root = fuzz_tree_root() };
	struct rv_chanlist chans = { 0 };
	struct rv_err err = { 0 };
	void *state = NULL;
	double *raw;
	uint8_t *valid;
	size_t n;

	write_fn(0, ctx);
	chans.source = src->name;
	if (src->open(&cfg, &state, &chans, &err) != 0) {
		if (getenv("FUZZ_VERBOSE"))
			fprintf(stderr, "%s: open refused: %s\n", src->name, err.msg);
		rv_chanlist_fini(&chans);
		return;
	}
	n = chans.n;
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "%s: open: %zu channels\n", src->name, n);
	if (n > FUZZ_MAX_CH) {
		fprintf(stderr, "%s: %zu channels from one input\n", src->name, n);
		abort();
	}
	raw = malloc((n ? n : 1) * sizeof(*raw));
	valid = malloc(n ? n : 1);
	if (!raw || !valid)
		abort();
	for (int round = 0; round < 3; round++) {
		memset(valid, 0, n ? n : 1);
		if (round > 0)
			write_fn(round == 1 ? 1 : 0, ctx);
		src->sample(state, raw, valid);
		for (size_t i = 0; i < n; i++)
			if (valid[i] > 1) {
				fprintf(stderr, "%s: valid[%zu] = %u\n", src->name, i, valid[i]);
				abort();
			}
	}
	free(raw);
	free(valid);
	src->close(state);
	rv_chanlist_fini(&chans);
}

/* The common case: the same part written to each of `rels`. */
struct fuzz_files {
	const char *const *rels;
	size_t nrels;
	struct fuzz_part part[2];       /* phase 0 and phase 1 */
};

static inline void fuzz_files_write(int phase, void *ctx)
{
	struct fuzz_files *f = ctx;

	for (size_t i = 0; i < f->nrels; i++)
		fuzz_tree_write(f->rels[i], f->part[phase].p, f->part[phase].n);
}

/* Splits the input in two (fuzz_split2) and runs each source on it with
 * both halves written to every file of rels. */
static inline void fuzz_run_files(const struct rv_source *const *srcs, size_t nsrcs,
				  const char *const *rels, size_t nrels, const uint8_t *data,
				  size_t size)
{
	struct fuzz_files f = { rels, nrels, { { 0 } } };

	fuzz_split2(data, size, &f.part[0], &f.part[1]);
	for (size_t s = 0; s < nsrcs; s++)
		fuzz_source_run(srcs[s], fuzz_files_write, &f);
}

#define FUZZ_N(a) (sizeof(a) / sizeof((a)[0]))

#endif
