/*
 * fuzz_interrupts.c - libFuzzer target of /proc/interrupts (source
 * proc.interrupts, collect/proc_interrupts.c and the per-CPU column reader
 * cpucols.c): a CPU header line, then "IRQ: per-CPU counts  description".
 * The input is split at its first 0xff byte (else in the middle): the first
 * part is the file open() parses, the second what the second sample()
 * rereads (fuzz_tree.h). Build and run: tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/sources.h"

static const struct rv_source *const srcs[] = { &rv_src_proc_interrupts };
static const char *const rels[] = { "/proc/interrupts" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_files(srcs, FUZZ_N(srcs), rels, FUZZ_N(rels), data, size);
	return 0;
}
