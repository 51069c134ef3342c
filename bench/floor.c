/*
 * floor.c - the cheapest possible collector, the floor reveal's is compared
 * with (bench/collect_bench.py): keeps the procfs files open, rereads each
 * with pread every interval and scans every number in it, nothing else.
 *
 *   floor INTERVAL_MS DURATION_S [FILE[@N]...]
 *
 * With FILEs it reads those instead of the nine procfs files (the bench
 * passes the files a running `reveal record` has open: "the same files");
 * FILE@N is read at one sweep in N only (the first included), as reveal
 * reads its slow sources. INTERVAL_MS may have a fraction (100.1): the
 * bench gives each contender its own so that their wake-ups drift through
 * each other instead of keeping whatever phase their start gave them.
 * Prints "floor: sweeps N cpu_s X" (its own user + system time from
 * /proc/self/stat) at the end. Sleeps to absolute deadlines, as reveal does.
 * Each file's buffer is sized as reveal sizes it (4 KiB, doubled until the
 * file fills at most half): the length asked for is part of the kernel's
 * cost (a /proc/sys file allocates and zeroes a buffer of that length on
 * every read: 36 us for 1 MiB against 2 us for 4 KiB on this VM).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const default_files[] = {
	"/proc/stat", "/proc/meminfo", "/proc/vmstat", "/proc/diskstats", "/proc/net/dev",
	"/proc/net/snmp", "/proc/net/netstat", "/proc/interrupts", "/proc/softirqs",
};
enum { NDEFAULT = sizeof(default_files) / sizeof(default_files[0]), BUF = 1 << 20 };

static uint64_t scan_numbers(const char *p, size_t n)
{
	uint64_t sum = 0, v = 0;
	int in = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(p[i] - '0');

		if (d < 10) {
			v = v * 10 + d;
			in = 1;
		} else if (in) {
			sum += v;
			v = 0;
			in = 0;
		}
	}
	return sum + v;
}

static double self_cpu_s(void)
{
	char buf[4096], *p;
	unsigned long ut = 0, st = 0;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;

	if (!f)
		return -1.0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1.0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* FILE@N: N (the path cut at the '@'), else 1. */
static long every_of(char *arg)
{
	char *at = strrchr(arg, '@'), *end;
	long n;

	if (!at)
		return 1;
	n = strtol(at + 1, &end, 10);
	if (end == at + 1 || *end || n < 1)
		return 1;
	*at = '\0';
	return n;
}

int main(int argc, char **argv)
{
	const char *const *files = default_files;
	int nfiles = NDEFAULT, *fd;
	size_t *cap;
	long *every;
	char *buf = malloc(BUF);
	long interval_ns, sweeps = 0;
	double duration_s;
	struct timespec next, end;
	volatile uint64_t sink = 0;

	if (argc < 3 || !buf) {
		fprintf(stderr, "usage: floor INTERVAL_MS DURATION_S [FILE[@N]...]\n");
		return 2;
	}
	interval_ns = (long)(strtod(argv[1], NULL) * 1e6);
	duration_s = strtod(argv[2], NULL);
	if (interval_ns <= 0 || interval_ns >= 1000000000L) {
		fprintf(stderr, "floor: INTERVAL_MS must be above 0 and below 1000\n");
		return 2;
	}
	if (argc > 3) {
		files = (const char *const *)argv + 3;
		nfiles = argc - 3;
	}
	fd = malloc((size_t)nfiles * sizeof(*fd));
	cap = malloc((size_t)nfiles * sizeof(*cap));
	every = malloc((size_t)nfiles * sizeof(*every));
	if (!fd || !cap || !every)
		return 1;
	for (int i = 0; i < nfiles; i++) {
		every[i] = argc > 3 ? every_of(argv[3 + i]) : 1;
		fd[i] = open(files[i], O_RDONLY | O_CLOEXEC);
		cap[i] = 4096;
		while (fd[i] >= 0 && cap[i] < BUF) {
			ssize_t got = pread(fd[i], buf, cap[i], 0);

			if (got < 0 || (size_t)got * 2 <= cap[i])
				break;
			cap[i] *= 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	end = next;
	end.tv_sec += (time_t)duration_s;
	for (;;) {
		for (int i = 0; i < nfiles; i++) {
			ssize_t got = fd[i] >= 0 && sweeps % every[i] == 0 ?
				      pread(fd[i], buf, cap[i], 0) : -1;

			if (got > 0)
				sink += scan_numbers(buf, (size_t)got);
		}
		sweeps++;
		next.tv_nsec += interval_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		if (next.tv_sec > end.tv_sec || (next.tv_sec == end.tv_sec && next.tv_nsec >= end.tv_nsec))
			break;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	printf("floor: sweeps %ld cpu_s %.3f\n", sweeps, self_cpu_s());
	(void)sink;
	return 0;
}
