/*
 * collect_sweep.c - the cost of one collector sweep, without the recorder
 * (bench/collect_bench.py): opens the collector on ROOT ("" = this host)
 * and calls rv_collector_sample back to back, N times.
 *
 *   collect_sweep ROOT NVML_LIB|- N
 *
 * Prints "sweep: channels C valid V sweeps N cpu_us_per_sweep X
 * wall_us_per_sweep Y derive_us_per_sweep D" (D: rates, ratios and the
 * frame, what `reveal record` no longer does) (CPU from getrusage of this process, the open
 * excluded; one warm-up sweep first).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/clock.h"
#include "base/err.h"
#include "collect/collector.h"

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
	struct rv_collector *c = NULL;
	struct rv_err err = {0};
	double *v, c0, c1;
	uint8_t *ok;
	size_t n, valid = 0;
	long sweeps;
	rv_ns t0, t1;
	uint64_t d0;

	if (argc != 4) {
		fprintf(stderr, "usage: collect_sweep ROOT NVML_LIB|- N\n");
		return 2;
	}
	sweeps = strtol(argv[3], NULL, 10);
	if (rv_collector_open(&(struct rv_collect_cfg){ .root = argv[1], .nvml_lib = strcmp(argv[2], "-") ? argv[2] : NULL },
			      &c, &err) < 0) {
		fprintf(stderr, "collect_sweep: %s\n", err.msg);
		return 1;
	}
	n = rv_collector_nchan(c);
	v = calloc(n ? n : 1, sizeof(*v));
	ok = calloc(n ? n : 1, 1);
	if (!v || !ok)
		return 1;
	rv_collector_sample(c, rv_clock_ns(), v, ok);
	d0 = rv_collector_derive_ns(c);
	c0 = cpu_s();
	t0 = rv_clock_ns();
	for (long i = 0; i < sweeps; i++)
		valid = rv_collector_sample(c, rv_clock_ns(), v, ok);
	t1 = rv_clock_ns();
	c1 = cpu_s();
	printf("sweep: channels %zu valid %zu sweeps %ld cpu_us_per_sweep %.1f wall_us_per_sweep %.1f "
	       "derive_us_per_sweep %.1f\n", n, valid, sweeps, 1e6 * (c1 - c0) / (double)sweeps,
	       (double)(t1 - t0) / 1e3 / (double)sweeps,
	       (double)(rv_collector_derive_ns(c) - d0) / 1e3 / (double)sweeps);
	free(v);
	free(ok);
	rv_collector_close(c);
	return 0;
}
