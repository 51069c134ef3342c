/*
 * synth.h - a synthetic telemetry data set with planted anomalies, for the
 * demo job (`make run`), tests and benchmarks when no real recording is at
 * hand. It imitates a data-parallel training job sampled every 200 ms:
 * compute phases with the GPU busy alternate with all-reduce phases with the
 * network busy, over CPU, memory, network and storage channels.
 *
 * The test part carries three faults, each labelled:
 *   cpu contention     (noisy neighbour: CPU busy, run queue, steal up,
 *                       GPU utilisation down)
 *   packet loss        (retransmits up, network throughput down)
 *   disk write storm   (write bytes, await and dirty memory up)
 */
#ifndef RV_RECORD_SYNTH_H
#define RV_RECORD_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "record/table.h"

struct rv_synth_params {
	double interval_s;        /* 0.2 */
	double train_s, test_s;   /* 600, 300 */
	uint64_t seed;
	double start_unix;        /* timestamp of the first training sample */
	size_t replicas;          /* copies of the channel set (1); copy k > 0 of a
				   * channel gets instance suffix "-k", e.g.
				   * cpu.busy_pct:r3 or gpu.util_pct:gpu0-3, and its own
				   * noise: a bigger host for benchmarks */
};

struct rv_synth_fault {
	const char *name;
	const char *subsystem;
	double start_s, end_s;    /* offsets into the test part */
};

void rv_synth_defaults(struct rv_synth_params *p);

/* Channels per replica. */
size_t rv_synth_channels(void);

/* Number and description of the planted faults. */
size_t rv_synth_faults(const struct rv_synth_fault **out);

/*
 * Generates the training table, the test table and the test labels (one
 * 0/1 byte per test row, caller frees). Returns 0 or -ENOMEM / -EINVAL.
 */
int rv_synth_generate(const struct rv_synth_params *p, struct rv_table **train,
		      struct rv_table **test, uint8_t **labels);

#endif
