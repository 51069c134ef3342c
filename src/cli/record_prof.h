/*
 * record_prof.h - `reveal record --profile`: where a sweep's time goes,
 * phase by phase (record_cmd.c marks the phases; the collector times each
 * source). Printed at the end as microseconds per sweep.
 */
#ifndef RV_CLI_RECORD_PROF_H
#define RV_CLI_RECORD_PROF_H

#include <stdint.h>

#include "base/clock.h"
#include "collect/collector.h"

enum rv_rec_phase {
	RV_REC_READ,    /* rv_collector_read: every source read and parsed */
	RV_REC_WRITE,   /* the sample appended, and every block encoded and written */
	RV_REC_LOOP,    /* deadlines, progress, the loop itself */
	RV_REC_PHASES,
};

struct rv_rec_prof {
	int on;
	uint64_t sweeps;
	uint64_t wall[RV_REC_PHASES], cpu[RV_REC_PHASES];   /* ns, all sweeps */
	uint64_t late_ns;             /* deadline to running again, all sweeps */
	uint64_t late_max_ns;
	rv_ns mark_wall;
	uint64_t mark_cpu;
	double rusage0;               /* process CPU (s) when the loop began */
	rv_ns start;
};

/* The loop begins (no-op unless on). */
void rv_rec_prof_start(struct rv_rec_prof *p);

/* The time since the last mark goes to phase ph (no-op unless on). */
void rv_rec_prof_mark(struct rv_rec_prof *p, enum rv_rec_phase ph);

/* Woke at `now` for a deadline `deadline` (both CLOCK_MONOTONIC): the
 * lateness is counted and the next phase starts at now. */
void rv_rec_prof_woke(struct rv_rec_prof *p, rv_ns deadline);

/* The table, on stderr: the sources one by one (the collector's wall
 * time), the phases (wall and thread CPU), the wake-up lateness, and the
 * process's CPU per sweep against what the phases account for. */
void rv_rec_prof_print(const struct rv_rec_prof *p, const struct rv_collector *c);

#endif
