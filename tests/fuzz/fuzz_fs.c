/*
 * fuzz_fs.c - libFuzzer target of /proc/sys/fs/{dentry-state,inode-nr,
 * file-nr} (source proc.fs, collect/proc_fs.c), the same text in all
 * three. The input is split at its first 0xff byte (else in the middle):
 * the first part is the files open() reads, the second what the second
 * sample() rereads (fuzz_tree.h). Build and run: tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/sources.h"

static const struct rv_source *const srcs[] = { &rv_src_proc_fs };
static const char *const rels[] = {
	"/proc/sys/fs/dentry-state", "/proc/sys/fs/inode-nr", "/proc/sys/fs/file-nr",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_files(srcs, FUZZ_N(srcs), rels, FUZZ_N(rels), data, size);
	return 0;
}
