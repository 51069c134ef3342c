/*
 * fuzz_meminfo.c - libFuzzer target of the meminfo shapes: /proc/meminfo
 * ("Key:  N kB", source proc.meminfo, collect/proc_meminfo.c and the
 * key-value reader rv_kvsrc_*) and the per-node files of sys.numa
 * (collect/sys_numa.c): /sys/devices/system/node/node0/meminfo ("Node 0
 * Key:  N kB") and .../numastat ("key N"). Each part of the input is
 * written to all three files, and both sources run on it.
 * The input is split at its first 0xff byte (else in the middle): the
 * first part is what open() parses, the second what the second sample()
 * rereads (fuzz_tree.h). Build and run: tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/kvsrc.h"
#include "collect/sources.h"

static const struct rv_source *const srcs[] = { &rv_src_proc_meminfo, &rv_src_sys_numa };
static const char *const rels[] = {
	"/proc/meminfo",
	"/sys/devices/system/node/node0/meminfo",
	"/sys/devices/system/node/node0/numastat",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_files(srcs, FUZZ_N(srcs), rels, FUZZ_N(rels), data, size);
	return 0;
}
