/*
 * record_prof.c - see record_prof.h. Wall time from CLOCK_MONOTONIC,
 * CPU from CLOCK_THREAD_CPUTIME_ID (a system call: --profile adds about
 * three per sweep, counted in the process CPU it prints), the process CPU
 * from getrusage: the difference between that and the phases is what the
 * kernel spends waking the process and what the phases do not cover.
 */
#include "cli/record_prof.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "collect/readcost.h"

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double process_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

void rv_rec_prof_start(struct rv_rec_prof *p)
{
	if (!p->on)
		return;
	rv_read_cost = (struct rv_read_cost){ .on = 1 };
	p->start = p->mark_wall = rv_clock_ns();
	p->mark_cpu = thread_cpu_ns();
	p->rusage0 = process_cpu_s();
}

void rv_rec_prof_mark(struct rv_rec_prof *p, enum rv_rec_phase ph)
{
	rv_ns w;
	uint64_t c;

	if (!p->on)
		return;
	w = rv_clock_ns();
	c = thread_cpu_ns();
	p->wall[ph] += w - p->mark_wall;
	p->cpu[ph] += c - p->mark_cpu;
	p->mark_wall = w;
	p->mark_cpu = c;
	if (ph == RV_REC_READ)
		p->sweeps++;
}

void rv_rec_prof_woke(struct rv_rec_prof *p, rv_ns deadline)
{
	rv_ns now;

	if (!p->on)
		return;
	now = rv_clock_ns();
	if (now > deadline) {
		p->late_ns += now - deadline;
		if (now - deadline > p->late_max_ns)
			p->late_max_ns = now - deadline;
	}
	p->mark_wall = now;
	p->mark_cpu = thread_cpu_ns();
}

static double per(uint64_t ns, uint64_t n)
{
	return n ? (double)ns / 1e3 / (double)n : 0.0;
}

void rv_rec_prof_print(const struct rv_rec_prof *p, const struct rv_collector *c)
{
	static const char *const phase[RV_REC_PHASES] = {
		"read (all sources)", "write (append, blocks)", "loop (deadlines)",
	};
	double cpu = process_cpu_s() - p->rusage0, acc = 0.0;
	uint64_t n = p->sweeps;

	if (!p->on || n == 0)
		return;
	fprintf(stderr, "reveal record: profile of %llu sweeps (us per sweep; wall from "
		"CLOCK_MONOTONIC, cpu from the thread's clock)\n", (unsigned long long)n);
	for (size_t i = 0; i < rv_collector_nsources(c); i++) {
		const char *name;
		size_t nch;
		uint64_t last, total, calls, rns;

		rv_collector_source_stats(c, i, &name, &nch, &last, &total);
		rv_collector_source_reads(c, i, &calls, &rns);
		fprintf(stderr, "  source %-22s %5zu channels %9.1f wall %7.1f read %6.1f rest%s\n",
			name, nch, per(total, n), per(rns, n), per(total - rns, n),
			rv_collector_source_slow(c, i) ? "  (slow: read at the "
			"--slow-interval sweeps only)" : "");
	}
	for (int ph = 0; ph < RV_REC_PHASES; ph++) {
		fprintf(stderr, "  %-29s %16s %9.1f wall %9.1f cpu\n", phase[ph], "",
			per(p->wall[ph], n), per(p->cpu[ph], n));
		acc += per(p->cpu[ph], n);
		if (ph == RV_REC_READ)
			fprintf(stderr, "    %-27s %5.1f per sweep %9.1f wall (the kernel answering)\n",
				"of which file reads", (double)rv_read_cost.calls / (double)n,
				per(rv_read_cost.ns, n));
	}
	fprintf(stderr, "  %-29s %16s %9.1f mean %9.1f max\n", "wake-up lateness", "",
		per(p->late_ns, n), (double)p->late_max_ns / 1e3);
	fprintf(stderr, "  %-29s %16s %9.1f cpu (getrusage)\n", "process", "", cpu * 1e6 / (double)n);
	fprintf(stderr, "  %-29s %16s %9.1f cpu\n", "outside the phases", "",
		cpu * 1e6 / (double)n - acc);
}
