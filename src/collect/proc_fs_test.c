/*
 * proc_fs_test.c - unit tests of proc.fs: the memhost fixture's
 * /proc/sys/fs files (this 2-vCPU VM's, with a nonzero free inode count),
 * fields malformed, missing, negative or too large, files empty at open or
 * rewritten in place between samples, and trees with some or none of the
 * three files. The harness (opened source, temporary roots) is
 * procnet_test.h's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>

#include "collect/sources.h"
#include "collect/procnet_test.h"

enum { FS_CHANS = 6 };

enum { DENTRY, INODE, FILENR, FS_FILES };

static const char *const rels[FS_FILES] = {
	[DENTRY] = "/proc/sys/fs/dentry-state",
	[INODE] = "/proc/sys/fs/inode-nr",
	[FILENR] = "/proc/sys/fs/file-nr",
};
/* The channels of each file when all three are there: [lo, hi). */
static const size_t chan_lo[FS_FILES] = { 0, 3, 5 }, chan_hi[FS_FILES] = { 3, 5, 6 };

static const char *const fs_names[FS_CHANS] = {
	"storage.dentries", "storage.dentries_unused", "storage.dentries_negative",
	"storage.inodes", "storage.inodes_unused", "storage.files_open",
};

/* A temporary root with proc/sys/fs/ and the files whose text is not NULL. */
static void fs_root(char *root, size_t cap, const char *dentry, const char *inode,
		    const char *file)
{
	char dir[RUN_PATH_MAX];

	tmp_root(root, cap, 0);
	snprintf(dir, sizeof(dir), "%s/proc/sys", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/proc/sys/fs", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	if (dentry)
		put_file(root, rels[DENTRY], dentry);
	if (inode)
		put_file(root, rels[INODE], inode);
	if (file)
		put_file(root, rels[FILENR], file);
}

/* Removes what fs_root made. */
static void fs_root_rm(const char *root)
{
	static const char *const dirs[] = { "/proc/sys/fs", "/proc/sys", "/proc", "" };
	char path[RUN_PATH_MAX];

	for (size_t i = 0; i < FS_FILES; i++) {
		snprintf(path, sizeof(path), "%s%s", root, rels[i]);
		unlink(path);
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		assert_int_equal(rmdir(path), 0);
	}
}

static void test_fixture(void **unused)
{
	static const double want[FS_CHANS] = { 219621, 218348, 144538, 74573, 1207, 418 };
	static const char *const units[FS_CHANS] = {
		"dentries", "dentries", "dentries", "inodes", "inodes", "files",
	};
	char root[RUN_PATH_MAX];
	struct src_run r;

	(void)unused;
	snprintf(root, sizeof(root), "%s/collect/memhost", getenv("RV_FIXTURES"));
	assert_int_equal(run_open(&r, &rv_src_proc_fs, root), 0);
	assert_int_equal(r.l.n, FS_CHANS);
	run_sample(&r);
	for (size_t i = 0; i < FS_CHANS; i++) {
		assert_string_equal(r.l.v[i].name, fs_names[i]);
		assert_string_equal(r.l.v[i].metric->unit, units[i]);
		assert_int_equal(r.l.v[i].metric->kind, RV_KIND_GAUGE);
		assert_int_equal(rv_catalog_subsystem(r.l.v[i].name), RV_SUB_STORAGE);
		assert_true(r.l.v[i].scale == 1.0);
		assert_int_equal(r.ok[i], 1);
		assert_true(r.raw[i] == want[i]);
	}
	run_close(&r);
}

/* One text of one file and what its channels read (v[i] when ok[i]). */
struct fs_case {
	int file;
	const char *text;
	uint8_t ok[FS_CHANS];
	double v[FS_CHANS];
};

static const struct fs_case fs_cases[] = {
	/* dentry-state: channels 0-2 (fields 1, 2, 5) */
	{ DENTRY, "1 2 45 0 5 0\n", { 1, 1, 1 }, { 1, 2, 5 } },
	{ DENTRY, "7\t8\t45\t0\t9", { 1, 1, 1 }, { 7, 8, 9 } },
	{ DENTRY, "1 2 45 0 18446744073709551615 0 extra\n", { 1, 1, 1 },
	  { 1, 2, 18446744073709551615.0 } },
	{ DENTRY, "1 2 x 0 5 0\n", { 1, 1, 0 }, { 1, 2 } },  /* ignored, bad */
	{ DENTRY, "1 -2 45 0 5 0\n", { 1, 0, 0 }, { 1 } },
	{ DENTRY, "1 2 45 0\n", { 1, 1, 0 }, { 1, 2 } },      /* truncated */
	{ DENTRY, "1 2\n45 0 5 0\n", { 1, 1, 0 }, { 1, 2 } },
	{ DENTRY, "1 2 45 0 18446744073709551616 0\n", { 1, 1, 0 }, { 1, 2 } },
	{ DENTRY, "1.5 2 45 0 5 0\n", { 0 }, { 0 } },
	{ DENTRY, "", { 0 }, { 0 } },                          /* emptied */
	/* inode-nr: channels 3-4 */
	{ INODE, "300 20\n", { [3] = 1, [4] = 1 }, { [3] = 300, [4] = 20 } },
	{ INODE, "300\n", { [3] = 1 }, { [3] = 300 } },
	{ INODE, "300 2x\n", { [3] = 1 }, { [3] = 300 } },
	{ INODE, "\n", { 0 }, { 0 } },
	/* file-nr: channel 5, the first field only */
	{ FILENR, "1024 0 9223372036854775807\n", { [5] = 1 }, { [5] = 1024 } },
	{ FILENR, "1025 x\n", { [5] = 1 }, { [5] = 1025 } },
	{ FILENR, "abc 0 100\n", { 0 }, { 0 } },
};

/* Each case rewrites its file in place and leaves the others valid. */
static void test_malformed_and_rewritten(void **unused)
{
	static const char *const good[] = {
		"10 20 45 0 30 0\n", "40 50\n", "60 0 1000\n",
	};
	static const double good_v[FS_CHANS] = { 10, 20, 30, 40, 50, 60 };
	char root[RUN_PATH_MAX];
	struct src_run r;

	(void)unused;
	fs_root(root, sizeof(root), good[0], good[1], good[2]);
	assert_int_equal(run_open(&r, &rv_src_proc_fs, root), 0);
	assert_int_equal(r.l.n, FS_CHANS);
	for (size_t c = 0; c < sizeof(fs_cases) / sizeof(fs_cases[0]); c++) {
		const struct fs_case *k = &fs_cases[c];

		for (int f = 0; f < FS_FILES; f++)
			put_file(root, rels[f], f == k->file ? k->text : good[f]);
		run_sample(&r);
		for (size_t i = 0; i < FS_CHANS; i++) {
			int in = i >= chan_lo[k->file] && i < chan_hi[k->file];
			int want = in ? k->ok[i] : 1;

			if (r.ok[i] != want)
				fail_msg("case %zu (%s): %s valid %d, want %d", c, k->text,
					 fs_names[i], r.ok[i], want);
			if (want && r.raw[i] != (in ? k->v[i] : good_v[i]))
				fail_msg("case %zu: %s = %.17g", c, fs_names[i], r.raw[i]);
		}
	}
	run_close(&r);
	fs_root_rm(root);
}

/* Files empty when the source opens still have their channels: they are
 * invalid until the kernel's text is there. */
static void test_empty_at_open(void **unused)
{
	char root[RUN_PATH_MAX];
	struct src_run r;

	(void)unused;
	fs_root(root, sizeof(root), "", "", "");
	assert_int_equal(run_open(&r, &rv_src_proc_fs, root), 0);
	assert_int_equal(r.l.n, FS_CHANS);
	run_sample(&r);
	run_all_valid(&r, 0);
	put_file(root, rels[INODE], "5 6\n");
	run_sample(&r);
	assert_true(run_val(&r, "storage.inodes") == 5.0);
	assert_true(run_val(&r, "storage.inodes_unused") == 6.0);
	assert_int_equal(run_ok(&r, "storage.dentries"), 0);
	assert_int_equal(run_ok(&r, "storage.files_open"), 0);
	run_close(&r);
	fs_root_rm(root);
}

/* A missing file has no channels; the others keep their slots in order.
 * With none of them the source fails, naming the paths under the root. */
static void test_missing_files(void **unused)
{
	char root[RUN_PATH_MAX];
	struct src_run r;

	(void)unused;
	fs_root(root, sizeof(root), NULL, "3 4\n", "7 0 100\n");
	assert_int_equal(run_open(&r, &rv_src_proc_fs, root), 0);
	assert_int_equal(r.l.n, 3);
	assert_int_equal(run_find(&r, "storage.dentries"), -1);
	assert_int_equal(run_find(&r, "storage.dentries_negative"), -1);
	run_sample(&r);
	assert_string_equal(r.l.v[0].name, "storage.inodes");
	assert_true(run_val(&r, "storage.inodes") == 3.0);
	assert_true(run_val(&r, "storage.inodes_unused") == 4.0);
	assert_true(run_val(&r, "storage.files_open") == 7.0);
	run_close(&r);
	fs_root_rm(root);

	fs_root(root, sizeof(root), "1 2 45 0 3 0\n", NULL, NULL);
	assert_int_equal(run_open(&r, &rv_src_proc_fs, root), 0);
	assert_int_equal(r.l.n, 3);
	run_sample(&r);
	assert_true(run_val(&r, "storage.dentries_negative") == 3.0);
	run_close(&r);
	fs_root_rm(root);

	fs_root(root, sizeof(root), NULL, NULL, NULL);
	assert_int_equal(run_open(&r, &rv_src_proc_fs, root), -ENOENT);
	assert_int_equal(r.l.n, 0);
	assert_non_null(strstr(r.err.msg, root));
	assert_non_null(strstr(r.err.msg, "/proc/sys/fs/"));
	assert_non_null(strstr(r.err.msg, "dentry-state"));
	rv_chanlist_fini(&r.l);
	fs_root_rm(root);
	rv_src_proc_fs.close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_malformed_and_rewritten),
		cmocka_unit_test(test_empty_at_open),
		cmocka_unit_test(test_missing_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
