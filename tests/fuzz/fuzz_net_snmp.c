/*
 * fuzz_net_snmp.c - libFuzzer target of /proc/net/snmp and
 * /proc/net/netstat (sources proc.net_snmp and proc.netstat,
 * collect/pairs.c): "Proto: names" header lines each followed by a "Proto:
 * values" line; each part is written to both files and both sources run.
 * The input is split at its first 0xff byte (else in the middle): the first
 * part is the file open() parses, the second what the second sample()
 * rereads (fuzz_tree.h). Build and run: tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/sources.h"

static const struct rv_source *const srcs[] = {
	&rv_src_proc_net_snmp, &rv_src_proc_netstat,
};
static const char *const rels[] = { "/proc/net/snmp", "/proc/net/netstat" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_run_files(srcs, FUZZ_N(srcs), rels, FUZZ_N(rels), data, size);
	return 0;
}
