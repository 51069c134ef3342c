/*
 * fuzz_softnet.c - libFuzzer target of /proc/net/softnet_stat (source
 * proc.softnet, collect/proc_softnet.c): one line of hex columns per CPU.
 * The input is split at its first 0xff byte (else in the middle): the first
 * part is the file open() parses, the second what the second sample()
 * rereads (fuzz_tree.h). Build and run: tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/sources.h"

static const struct rv_source *const srcs[] = { &rv_src_proc_softnet };
static const char *const rels[] = { "/proc/net/softnet_stat" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_files(srcs, FUZZ_N(srcs), rels, FUZZ_N(rels), data, size);
	return 0;
}
