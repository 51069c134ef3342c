/*
 * workload.h - a small training-like load for `reveal demo` and the
 * fault-injection evaluation (eval/): two ranks (this process and a forked
 * peer) each run dense matrix steps at a fixed pace and, every few steps,
 * an "all-reduce" of a gradient buffer over a loopback TCP connection
 * (reduce-scatter then all-gather, as a two-rank ring does), with the
 * pack/unpack memory copies around it. The traffic is real TCP on lo, so
 * nftables drops and tbf shaping on lo slow it as they would NCCL.
 */
#ifndef RV_DEMO_WORKLOAD_H
#define RV_DEMO_WORKLOAD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rv_err;

struct rv_workload_cfg {
	unsigned dim;           /* side of the square matrices */
	double step_s;          /* pace: one step starts every step_s */
	size_t grad_bytes;      /* gradient buffer per rank, exchanged in halves */
	unsigned reduce_every;  /* steps between two all-reduces */
	double duration_s;      /* run this long; 0 = until *stop is set */
	double report_s;        /* progress line every report_s on the FILE; 0 = none */
};

/* Live figures of rank 0; readable by another process when placed in
 * shared memory (the demo shows the job's own view of a fault). */
struct rv_workload_stats {
	uint64_t steps;          /* steps done */
	uint64_t reduces;        /* all-reduces done */
	uint64_t bytes;          /* bytes sent to the peer */
	double step_s;           /* duration of the last step, compute and exchange */
	double compute_s;        /* compute part of the last step */
	double reduce_s;         /* duration of the last all-reduce */
};

/* Defaults: 224x224 doubles, a step every 100 ms, 4 MiB gradient, an
 * all-reduce every 5 steps, no time limit, a progress line every 10 s. */
void rv_workload_defaults(struct rv_workload_cfg *c);

/* Checks the ranges (dim 16..2048, step 1 ms..10 s, gradient 64 KiB..1 GiB,
 * reduce_every 1..1000, durations >= 0); -EINVAL with the field named. */
int rv_workload_check(const struct rv_workload_cfg *c, struct rv_err *err);

/* Runs both ranks until duration_s has passed or *stop becomes nonzero,
 * then stops the peer and returns 0. stats, when not NULL, is updated after
 * every step. Fails with -errno and a message when the socket, the peer or
 * the memory cannot be had, or when the peer dies. */
int rv_workload_run(const struct rv_workload_cfg *c, const volatile sig_atomic_t *stop,
		    struct rv_workload_stats *stats, FILE *progress, struct rv_err *err);

#endif
