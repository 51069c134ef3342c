/*
 * fuzz_diskstats.c - libFuzzer target of /proc/diskstats (source
 * proc.diskstats, collect/proc_diskstats.c): "major minor name 11..20
 * numbers" lines; the device names also become paths
 * /sys/class/block/NAME/partition (absent in the tree: every device reads
 * as a whole disk). The input is split at its first 0xff byte (else in the
 * middle): the first part is the file open() parses, the second what the
 * second sample() rereads (fuzz_tree.h). Build and run:
 * tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/sources.h"

static const struct rv_source *const srcs[] = { &rv_src_proc_diskstats };
static const char *const rels[] = { "/proc/diskstats" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_files(srcs, FUZZ_N(srcs), rels, FUZZ_N(rels), data, size);
	return 0;
}
