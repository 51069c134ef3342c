/*
 * attrib_bench.c - what the attribution scan costs (attrib/attrib.h): N
 * idle child processes are spawned (blocked in read() on a pipe, so they
 * take no CPU; each dies with the bench through PR_SET_PDEATHSIG), then
 * rv_attrib_scan_procs of this host's /proc is timed RUNS times and
 * rv_attrib_rank (CPU, between consecutive scans) after each; it prints
 * the median and worst milliseconds per scan, microseconds per process,
 * the rank's time and the peak resident memory of the bench itself. Then
 * the cost of rv_attrib_scan_cgroups on this host. The children are
 * killed and reaped at the end, also when a step fails. Not a ctest test.
 *
 *   cmake --build build --target attrib_bench
 *   build/attrib_bench [N [RUNS]]             (2000 10)
 *
 * When fewer than N children can be spawned (ulimit -u, pid_max,
 * memory), it says how many were and measures with those.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attrib/attrib.h"

enum { DEF_CHILDREN = 2000, DEF_RUNS = 10, MAX_RUNS = 1000, SPARE_PROCS = 5000 };

struct kids {
	pid_t *pid;
	size_t n;
	int pipe_w;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v and returns its median; *worst gets the largest. */
static double median(double *v, size_t n, double *worst)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*worst = v[n - 1];
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Forks up to want children blocked on the read end of a pipe. */
static int spawn(struct kids *k, size_t want)
{
	int fd[2];
	pid_t self = getpid();

	k->pid = calloc(want ? want : 1, sizeof(*k->pid));
	if (!k->pid || pipe(fd))
		return -1;
	k->pipe_w = fd[1];
	for (; k->n < want; k->n++) {
		pid_t p = fork();
		char c;

		if (p < 0) {
			fprintf(stderr, "attrib_bench: fork after %zu children: %s\n", k->n,
				strerror(errno));
			break;
		}
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			close(fd[1]);
			while (read(fd[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		k->pid[k->n] = p;
	}
	close(fd[0]);
	return 0;
}

static void reap(struct kids *k)
{
	if (k->pipe_w > 0)
		close(k->pipe_w);
	for (size_t i = 0; i < k->n; i++)
		kill(k->pid[i], SIGKILL);
	for (size_t i = 0; i < k->n; i++)
		while (waitpid(k->pid[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(k->pid);
}

static int bench_procs(struct rv_attrib *a, struct rv_attrib_snap *s[2], size_t runs)
{
	double scan[MAX_RUNS], rank[MAX_RUNS], worst, rworst, med;
	struct rv_consumer top[RV_ATTRIB_TOP_MAX];
	struct rv_err err = { 0 };
	size_t n = 0;

	for (size_t r = 0; r < runs; r++) {
		struct rv_attrib_snap *cur = s[r % 2], *prev = s[(r + 1) % 2];
		double t0 = now_s();

		if (rv_attrib_scan_procs(a, cur, t0, &err)) {
			fprintf(stderr, "attrib_bench: %s\n", err.msg);
			return -1;
		}
		scan[r] = (now_s() - t0) * 1e3;
		n = rv_attrib_snap_count(cur);
		t0 = now_s();
		if (r > 0)
			rv_attrib_rank(a, prev, cur, NULL, NULL, RV_ATTRIB_CPU, top,
				       RV_ATTRIB_TOP_MAX);
		rank[r] = (now_s() - t0) * 1e3;
	}
	med = median(scan, runs, &worst);
	printf("processes: %zu read (%zu skipped, %zu with unknown I/O)\n", n,
	       rv_attrib_snap_skipped(s[0]), rv_attrib_snap_io_unknown(s[0]));
	printf("scan_procs: median %.2f ms, worst %.2f ms over %zu scans; %.2f us per process\n",
	       med, worst, runs, n ? med * 1e3 / (double)n : 0.0);
	med = median(rank + 1, runs - 1, &rworst);
	printf("rank (cpu, top %d): median %.3f ms, worst %.3f ms\n", RV_ATTRIB_TOP_MAX, med,
	       rworst);
	return 0;
}

static int bench_cgroups(struct rv_attrib *a, struct rv_attrib_snap *s, size_t runs)
{
	double scan[MAX_RUNS], worst, med;
	struct rv_err err = { 0 };

	for (size_t r = 0; r < runs; r++) {
		double t0 = now_s();

		if (rv_attrib_scan_cgroups(a, s, t0, &err)) {
			fprintf(stderr, "attrib_bench: %s\n", err.msg);
			return -1;
		}
		scan[r] = (now_s() - t0) * 1e3;
	}
	med = median(scan, runs, &worst);
	printf("scan_cgroups: %zu cgroups (%zu skipped): median %.3f ms, worst %.3f ms\n",
	       rv_attrib_snap_count(s), rv_attrib_snap_skipped(s), med, worst);
	return 0;
}

int main(int argc, char **argv)
{
	size_t want = argc > 1 ? strtoul(argv[1], NULL, 10) : DEF_CHILDREN;
	size_t runs = argc > 2 ? strtoul(argv[2], NULL, 10) : DEF_RUNS;
	struct kids k = { 0 };
	struct rv_attrib *a = NULL;
	struct rv_attrib_snap *s[3] = { NULL, NULL, NULL };
	struct rv_err err = { 0 };
	int rc = 1;

	if (runs < 2 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: attrib_bench [CHILDREN [RUNS (2..%d)]]\n", MAX_RUNS);
		return 2;
	}
	if (spawn(&k, want) == 0) {
		struct rv_attrib_limits lim = { k.n + SPARE_PROCS, 0, 0 };

		printf("children: %zu of %zu spawned\n", k.n, want);
		if (rv_attrib_new("", &lim, &a, &err))
			fprintf(stderr, "attrib_bench: %s\n", err.msg);
		else if (rv_attrib_snap_new(a, &s[0]) || rv_attrib_snap_new(a, &s[1]) ||
			 rv_attrib_snap_new(a, &s[2]))
			fprintf(stderr, "attrib_bench: out of memory\n");
		else if (bench_procs(a, s, runs) == 0 && bench_cgroups(a, s[2], runs) == 0)
			rc = 0;
		printf("peak RSS of the bench: %.1f MiB\n", peak_mib());
	} else {
		fprintf(stderr, "attrib_bench: %s\n", strerror(errno));
	}
	for (int i = 0; i < 3; i++)
		rv_attrib_snap_free(s[i]);
	rv_attrib_free(a);
	reap(&k);
	return rc;
}
