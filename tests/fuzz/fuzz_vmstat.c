/*
 * fuzz_vmstat.c - libFuzzer target of /proc/vmstat (source proc.vmstat,
 * collect/proc_vmstat.c and the key-value reader rv_kvsrc_* it shares with
 * proc.meminfo). The input is split at its first 0xff byte (else in the
 * middle): the first part is the file open() parses, the second what the
 * second sample() rereads (fuzz_tree.h). Build and run:
 * tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/sources.h"
#include "collect/kvsrc.h"

static const struct rv_source *const srcs[] = { &rv_src_proc_vmstat };
static const char *const rels[] = { "/proc/vmstat" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_files(srcs, FUZZ_N(srcs), rels, FUZZ_N(rels), data, size);
	return 0;
}
