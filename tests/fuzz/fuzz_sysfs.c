/*
 * fuzz_sysfs.c - libFuzzer target of the sysfs sources (sources.h):
 * sys.cpufreq, sys.thermal (hwmon and thermal zones), sys.rapl,
 * sys.numa (node meminfo, numastat, hugepages), sys.netclass and sys.infiniband, and
 * under them the one-value parser rv_sysval_parse (collect/sysval.c) and
 * the short-text reader rv_sysval_text (names, labels and types that
 * become channel instances).
 *
 * The input is split at every 0xff byte into parts; part i is the content
 * of files[i] when the sources open, part NFILES + i (or, when the input
 * has fewer parts, part (i + 1) mod nparts) its content for the second
 * sample. A file without a part holds "0\n". Seeds are the files of a
 * fixture host joined with 0xff in this order. Every format of
 * rv_sysval_parse also parses the whole input. Build and run:
 * tests/fuzz/README.md.
 */
#include "fuzz_tree.h"

#include "collect/sources.h"
#include "collect/sysval.h"

static const char *const files[] = {
	"/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
	"/sys/class/hwmon/hwmon0/name",
	"/sys/class/hwmon/hwmon0/temp1_label",
	"/sys/class/hwmon/hwmon0/temp1_input",
	"/sys/class/thermal/thermal_zone0/type",
	"/sys/class/thermal/thermal_zone0/temp",
	"/sys/class/powercap/intel-rapl:0/name",
	"/sys/class/powercap/intel-rapl:0/energy_uj",
	"/sys/class/powercap/intel-rapl:0:0/name",
	"/sys/class/powercap/intel-rapl:0:0/energy_uj",
	"/sys/devices/system/node/node0/meminfo",
	"/sys/devices/system/node/node0/numastat",
	"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages",
	"/sys/class/net/eth0/type",
	"/sys/class/net/eth0/carrier",
	"/sys/class/net/eth0/speed",
	"/sys/class/net/eth0/mtu",
	"/sys/class/net/eth0/carrier_changes",
	"/sys/class/infiniband/mlx5_0/ports/1/state",
	"/sys/class/infiniband/mlx5_0/ports/1/rate",
	"/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data",
	"/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence",
};
enum { NFILES = FUZZ_N(files), MAXPARTS = 2 * NFILES };

static const struct rv_source *const srcs[] = {
	&rv_src_sys_cpufreq, &rv_src_sys_thermal, &rv_src_sys_rapl,
	&rv_src_sys_numa, &rv_src_sys_netclass, &rv_src_sys_infiniband,
};

struct parts {
	struct fuzz_part v[MAXPARTS];
	size_t n;
};

static void write_parts(int phase, void *ctx)
{
	const struct parts *p = ctx;

	for (size_t i = 0; i < NFILES; i++) {
		size_t k = phase == 0 ? i : NFILES + i < p->n ? NFILES + i : (i + 1) % p->n;

		if (k < p->n)
			fuzz_tree_write(files[i], p->v[k].p, p->v[k].n);
		else
			fuzz_tree_write_str(files[i], "0\n");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum rv_sysval_fmt fmts[] = {
		RV_SYSVAL_U64, RV_SYSVAL_I64, RV_SYSVAL_NONNEG, RV_SYSVAL_LEAD, RV_SYSVAL_IBSTATE,
	};
	struct parts p;
	double v;

	for (size_t f = 0; f < FUZZ_N(fmts); f++)
		(void)rv_sysval_parse((const char *)data, size, fmts[f], &v);
	p.n = fuzz_split(data, size, p.v, MAXPARTS);
	for (size_t s = 0; s < FUZZ_N(srcs); s++)
		fuzz_source_run(srcs[s], write_parts, &p);
	return 0;
}
