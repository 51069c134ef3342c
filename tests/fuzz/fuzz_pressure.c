/*
 * fuzz_pressure.c - libFuzzer target of /proc/pressure/{cpu,memory,io}
 * (source proc.pressure, collect/proc_pressure.c): "some|full avg10=..
 * total=.." lines; each part is written to all three files. The input is
 * split at its first 0xff byte (else in the middle): the first part is the
 * file open() parses, the second what the second sample() rereads
 * (fuzz_tree.h). Build and run: tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/sources.h"

static const struct rv_source *const srcs[] = { &rv_src_proc_pressure };
static const char *const rels[] = {
	"/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_files(srcs, FUZZ_N(srcs), rels, FUZZ_N(rels), data, size);
	return 0;
}
