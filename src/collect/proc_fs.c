/*
 * proc_fs.c - source "proc.fs": the kernel's file-system caches, from
 * /proc/sys/fs/{dentry-state,inode-nr,file-nr}.
 *
 * A metadata storm (files created, looked up and unlinked by the thousand)
 * moves few bytes and little device time, but it churns the dentry and
 * inode caches and the open file handles: these counts are where it shows.
 * All are gauges, the kernel's sums of its per-CPU counters, for the host:
 *
 *   dentry-state  "219621 218348 45 0 144538 0": nr_dentry, nr_unused,
 *                 age_limit, want_pages, nr_negative, a dummy. Kept:
 *                 storage.dentries, storage.dentries_unused and
 *                 storage.dentries_negative (fields 1, 2 and 5);
 *                 age_limit (a constant 45) and want_pages (always 0)
 *                 are not signals. Kernels before 5.0 print a dummy 0
 *                 as the fifth field, which reads as no negative dentries:
 *                 the text does not tell the two apart.
 *   inode-nr      "74573 0": nr_inodes and nr_free_inodes (the inodes
 *                 cached unused, the kernel's nr_unused) -> storage.inodes,
 *                 storage.inodes_unused.
 *   file-nr       "418 0 2466248": handles allocated, free (0 since 2.6),
 *                 the maximum (a setting) -> storage.files_open.
 *
 * Within a file fields are read left to right, as in proc_loadavg.c: a
 * malformed or missing one invalidates its channel and every later one of
 * the file, since nothing after it can be trusted to be in its place.
 * A file that cannot be opened has no channels; the source fails only
 * when none of the three opens.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdlib.h>

#include "base/strparse.h"
#include "collect/pfile.h"

enum { FS_FILES = 3, FS_KEPT_MAX = 3 };

/* One kept field of a file: its column (0: the first) and metric type. */
struct fs_field {
	unsigned col;
	const char *type;
};

/* A file and its kept fields, in column order. */
static const struct fs_file {
	const char *rel;
	size_t n;
	struct fs_field kept[FS_KEPT_MAX];
} fs_files[FS_FILES] = {
	{ "/proc/sys/fs/dentry-state", 3,
	  { { 0, "storage.dentries" }, { 1, "storage.dentries_unused" },
	    { 4, "storage.dentries_negative" } } },
	{ "/proc/sys/fs/inode-nr", 2, { { 0, "storage.inodes" }, { 1, "storage.inodes_unused" } } },
	{ "/proc/sys/fs/file-nr", 1, { { 0, "storage.files_open" } } },
};

struct fs_src {
	struct rv_pfile f[FS_FILES];
	int open[FS_FILES];
	size_t first[FS_FILES];         /* the file's first channel, in our slice */
};

/* A field ends at a blank, a newline or the end of the text. */
static int field_end(const char *p, const char *end)
{
	return p == end || *p == ' ' || *p == '\t' || *p == '\n';
}

/* The kept fields of one file's text into raw[0..d->n), valid likewise. */
static void parse_file(const struct fs_file *d, const char *p, const char *end, double *raw,
		       uint8_t *valid)
{
	uint64_t v;

	for (unsigned col = 0, k = 0; k < d->n; col++) {
		rv_str_skip_blank(&p, end);
		if (rv_str_u64(&p, end, &v) || !field_end(p, end))
			return;
		if (col == d->kept[k].col) {
			raw[k] = (double)v;
			valid[k++] = 1;
		}
	}
}

static void fs_sample(void *state, double *raw, uint8_t *valid)
{
	struct fs_src *st = state;

	for (int i = 0; i < FS_FILES; i++) {
		struct rv_pfile *f = &st->f[i];

		if (!st->open[i] || rv_pfile_read(f) < 0)
			continue;
		parse_file(&fs_files[i], f->buf, f->buf + f->len, raw + st->first[i],
			   valid + st->first[i]);
	}
}

static void fs_close(void *state)
{
	struct fs_src *st = state;

	if (!st)
		return;
	for (int i = 0; i < FS_FILES; i++)
		if (st->open[i])
			rv_pfile_close(&st->f[i]);
	free(st);
}

/*
 * Opens each file that can be, with its channels; one that cannot is left
 * out, its reason kept in `why` (the first one only) for when none opens.
 * Out of memory is no reason to go on.
 */
static int open_files(struct fs_src *st, const char *root, struct rv_chanlist *chans,
		      struct rv_err *why, struct rv_err *err)
{
	size_t base = chans->n;
	int rc = 0;

	for (int i = 0; !rc && i < FS_FILES; i++) {
		rc = rv_pfile_open(&st->f[i], root, fs_files[i].rel, why);
		if (rc == -ENOMEM)
			return rv_err_set(err, rc, "%s", why->msg);
		if (rc) {
			rc = 0;
			continue;
		}
		st->open[i] = 1;
		st->first[i] = chans->n - base;
		for (size_t k = 0; !rc && k < fs_files[i].n; k++)
			rc = rv_chanlist_add(chans, fs_files[i].kept[k].type, NULL, 1.0, err);
	}
	return rc;
}

static int fs_open(const struct rv_collect_cfg *cfg, void **state, struct rv_chanlist *chans,
		   struct rv_err *err)
{
	struct fs_src *st = calloc(1, sizeof(*st));
	struct rv_err why = { 0 };
	int rc, any = 0;

	if (!st)
		return rv_err_set(err, -ENOMEM, "proc.fs: out of memory");
	rc = open_files(st, cfg->root, chans, &why, err);
	for (int i = 0; i < FS_FILES; i++)
		any |= st->open[i];
	if (!rc && !any)
		rc = rv_err_set(err, why.code, "%s/proc/sys/fs/{dentry-state,inode-nr,file-nr}: "
				"none can be read (%s)", cfg->root, why.msg);
	if (rc) {
		fs_close(st);
		return rc;
	}
	*state = st;
	return 0;
}

const struct rv_source rv_src_proc_fs = {
	.name = "proc.fs",
	.open = fs_open,
	.sample = fs_sample,
	.close = fs_close,
	.slow = 1,
};
