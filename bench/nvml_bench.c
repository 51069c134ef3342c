/*
 * nvml_bench.c - the sampling cost of the nvml source per GPU, by part
 * (base rows, GPM, NVLink, processes): opens the source on LIB (a fake
 * library from build/fakes, or the real libnvidia-ml.so.1 on a GPU host)
 * and samples it N times, INTERVAL_MS apart (0: back to back).
 *
 *   nvml_bench LIB N [INTERVAL_MS]
 *
 * Prints the GPUs and channels, then one line per part: channels,
 * microseconds per sweep and per GPU (wall time inside the source's
 * sample, from the source's own accounting, collect/nvml_int.h), and the
 * process's CPU per sweep (getrusage, the open excluded). The open's wall
 * time is printed apart: the first calls of a real driver are slow.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/clock.h"
#include "base/err.h"
#include "collect/nvml_int.h"
#include "collect/sources.h"

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* GPUs: the base channels named gpu.util_pct or gpu.mem_total_bytes with
 * an instance "gpu<N>" (not a MIG instance or link). */
static size_t count_gpus(const struct rv_chanlist *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *c = strchr(l->v[i].name, ':');

		if (c && strncmp(l->v[i].name, "gpu.mem_total_bytes:", 20) == 0 &&
		    !strchr(c, '-'))
			n++;
	}
	return n;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (ms > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void report(void *st, size_t ngpu, size_t nchan, long sweeps, double cpu, double wall)
{
	struct rv_nvml_cost cost[RV_NVML_COSTS];
	size_t n = rv_nvml_costs(st, cost, RV_NVML_COSTS);
	double g = ngpu ? (double)ngpu : 1.0;

	printf("nvml: %zu GPUs, %zu channels, %ld sweeps\n", ngpu, nchan, sweeps);
	printf("%-16s %8s %14s %14s\n", "part", "channels", "us_per_sweep", "us_per_gpu");
	for (size_t i = 0; i < n; i++) {
		double us = cost[i].sweeps ? (double)cost[i].total_ns / 1e3 / (double)cost[i].sweeps : 0;

		printf("%-16s %8zu %14.2f %14.2f\n", cost[i].name, cost[i].channels, us, us / g);
	}
	printf("total: cpu_us_per_sweep %.2f wall_us_per_sweep %.2f cpu_us_per_gpu %.2f\n",
	       cpu * 1e6 / (double)sweeps, wall * 1e6 / (double)sweeps, cpu * 1e6 / (double)sweeps / g);
}

int main(int argc, char **argv)
{
	struct rv_chanlist l = { .source = "nvml" };
	struct rv_err err = { 0 };
	void *st = NULL;
	double *raw, c0, wall;
	uint8_t *ok;
	long sweeps, interval = 0;
	rv_ns t0;
	int rc;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: nvml_bench LIB N [INTERVAL_MS]\n");
		return 2;
	}
	sweeps = strtol(argv[2], NULL, 10);
	if (argc == 4)
		interval = strtol(argv[3], NULL, 10);
	if (sweeps < 1 || interval < 0) {
		fprintf(stderr, "nvml_bench: N must be >= 1, INTERVAL_MS >= 0\n");
		return 2;
	}
	t0 = rv_clock_ns();
	rc = rv_src_nvml.open(&(struct rv_collect_cfg){ .root = "", .nvml_lib = argv[1] }, &st, &l, &err);
	if (rc) {
		fprintf(stderr, "nvml_bench: %s\n", rv_err_text(&err, rc));
		return 1;
	}
	printf("open: %.1f ms\n", rv_clock_since_s(t0) * 1e3);
	for (size_t i = 0; i < l.nnotes; i++)
		printf("unavailable: %s: %s\n", l.notes[i].part, l.notes[i].reason);
	raw = calloc(l.n ? l.n : 1, sizeof(*raw));
	ok = calloc(l.n ? l.n : 1, 1);
	if (!raw || !ok)
		return 1;
	c0 = cpu_s();
	t0 = rv_clock_ns();
	for (long i = 0; i < sweeps; i++) {
		memset(ok, 0, l.n);
		rv_src_nvml.sample(st, raw, ok);
		nap_ms(interval);
	}
	wall = rv_clock_since_s(t0) - (double)interval * (double)sweeps / 1e3;
	report(st, count_gpus(&l), l.n, sweeps, cpu_s() - c0, wall);
	rv_src_nvml.close(st);
	rv_chanlist_fini(&l);
	free(raw);
	free(ok);
	return 0;
}
