/*
 * synth.c - the synthetic training-job telemetry of synth.h.
 *
 * Each channel is a baseline that depends on the job's phase (compute or
 * all-reduce), plus Gaussian noise, plus the effect of whichever planted
 * fault is active. The model is crude on purpose: it only needs to look like
 * a periodic workload whose faults move several related signals at once,
 * the way real ones do (a noisy neighbour slows the GPU as well as loading
 * the CPU).
 */
#include "record/synth.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

enum {
	CH_CPU_BUSY, CH_CPU_RUNQ, CH_CPU_STEAL, CH_CPU_SOFTIRQ, CH_MEM_USED, CH_MEM_DIRTY,
	CH_NET_RX, CH_NET_TX, CH_NET_RETRANS, CH_DISK_WRITE, CH_DISK_AWAIT, CH_GPU_UTIL,
	CH_GPU_POWER, CH_GPU_MEM_UTIL, CH_COUNT
};

static const char *const channel_names[CH_COUNT] = {
	[CH_CPU_BUSY] = "cpu.busy_pct",
	[CH_CPU_RUNQ] = "cpu.procs_running",
	[CH_CPU_STEAL] = "cpu.steal_pct",
	[CH_CPU_SOFTIRQ] = "cpu.softirq_pct",
	[CH_MEM_USED] = "mem.used_bytes",
	[CH_MEM_DIRTY] = "mem.dirty_bytes",
	[CH_NET_RX] = "net.rx_bytes:eth0",
	[CH_NET_TX] = "net.tx_bytes:eth0",
	[CH_NET_RETRANS] = "net.tcp_retrans_segs",
	[CH_DISK_WRITE] = "storage.write_bytes:nvme0n1",
	[CH_DISK_AWAIT] = "storage.await_ms:nvme0n1",
	[CH_GPU_UTIL] = "gpu.util_pct:gpu0",
	[CH_GPU_POWER] = "gpu.power_w:gpu0",
	[CH_GPU_MEM_UTIL] = "gpu.mem_util_pct:gpu0",
};

enum { FAULT_NONE = -1, FAULT_CPU, FAULT_LOSS, FAULT_DISK, FAULT_COUNT };

static const struct rv_synth_fault faults[FAULT_COUNT] = {
	[FAULT_CPU] = { "cpu contention", "cpu", 60.0, 90.0 },
	[FAULT_LOSS] = { "packet loss", "net", 150.0, 180.0 },
	[FAULT_DISK] = { "disk write storm", "storage", 230.0, 260.0 },
};

/* The job: a 2 s step, the last 20 % of it an all-reduce. */
#define STEP_S 2.0
#define ALLREDUCE_SHARE 0.2

void rv_synth_defaults(struct rv_synth_params *p)
{
	p->interval_s = 0.2;
	p->train_s = 600.0;
	p->test_s = 300.0;
	p->seed = 1;
	p->start_unix = 1700000000.0;
	p->replicas = 1;
}

size_t rv_synth_channels(void)
{
	return CH_COUNT;
}

size_t rv_synth_faults(const struct rv_synth_fault **out)
{
	*out = faults;
	return FAULT_COUNT;
}

static double gauss(struct rv_rng *r)
{
	double u = rv_rng_uniform(r), v = rv_rng_uniform(r);

	return sqrt(-2.0 * log(u > 0.0 ? u : 1e-300)) * cos(2.0 * M_PI * v);
}

static double poisson(struct rv_rng *r, double lambda)
{
	double l = exp(-lambda), p = 1.0;
	int k = 0;

	do {
		k++;
		p *= rv_rng_uniform(r);
	} while (p > l);
	return k - 1;
}

/* One sample of every channel at job time t_s with the given fault active. */
static void sample(struct rv_rng *r, double t_s, int fault, double slow, float *v)
{
	double phase = fmod(t_s / slow, STEP_S) / STEP_S;
	int allreduce = phase >= 1.0 - ALLREDUCE_SHARE;
	double gpu = allreduce ? 35.0 : 96.0, net = allreduce ? 1.2e9 : 4e7;
	double busy = 22.0 + (allreduce ? 8.0 : 0.0), runq = 3.0, steal = 0.3, soft = 1.5;
	double retrans_rate = 0.05, write = 4e6, await = 0.4, dirty = 6e7;

	if (fault == FAULT_CPU) {
		busy += 55.0, runq += 9.0, steal += 6.0, gpu *= 0.8;
	} else if (fault == FAULT_LOSS) {
		retrans_rate = 12.0, net *= 0.55, soft += 4.0, gpu *= allreduce ? 0.6 : 0.95;
	} else if (fault == FAULT_DISK) {
		write = 6e8, await = 18.0, dirty = 2.5e9, busy += 6.0;
	}
	v[CH_CPU_BUSY] = (float)(busy + 2.0 * gauss(r));
	v[CH_CPU_RUNQ] = (float)fmax(0.0, round(runq + 1.0 * gauss(r)));
	v[CH_CPU_STEAL] = (float)fmax(0.0, steal + 0.1 * gauss(r));
	v[CH_CPU_SOFTIRQ] = (float)fmax(0.0, soft + 0.3 * gauss(r));
	v[CH_MEM_USED] = (float)(4.1e10 + 2e7 * gauss(r));
	v[CH_MEM_DIRTY] = (float)fmax(0.0, dirty * (1.0 + 0.1 * gauss(r)));
	v[CH_NET_RX] = (float)fmax(0.0, net * (1.0 + 0.05 * gauss(r)));
	v[CH_NET_TX] = (float)fmax(0.0, net * (1.0 + 0.05 * gauss(r)));
	v[CH_NET_RETRANS] = (float)poisson(r, retrans_rate);
	v[CH_DISK_WRITE] = (float)fmax(0.0, write * (1.0 + 0.2 * gauss(r)));
	v[CH_DISK_AWAIT] = (float)fmax(0.05, await * (1.0 + 0.15 * gauss(r)));
	v[CH_GPU_UTIL] = (float)fmin(100.0, fmax(0.0, gpu + 2.0 * gauss(r)));
	v[CH_GPU_POWER] = (float)(90.0 + 5.2 * v[CH_GPU_UTIL] + 6.0 * gauss(r));
	v[CH_GPU_MEM_UTIL] = (float)fmin(100.0, fmax(0.0, 0.6 * v[CH_GPU_UTIL] + 2.0 * gauss(r)));
}

static int active_fault(double t_s)
{
	for (int f = 0; f < FAULT_COUNT; f++)
		if (t_s >= faults[f].start_s && t_s < faults[f].end_s)
			return f;
	return FAULT_NONE;
}

static int name_channels(struct rv_table *t, size_t replicas)
{
	for (size_t k = 0; k < replicas; k++)
		for (size_t c = 0; c < CH_COUNT; c++) {
			const char *n = channel_names[c];
			char **out = &t->names[k * CH_COUNT + c];
			int rc = k == 0 ? ((*out = strdup(n)) ? 0 : -1)
				 : strchr(n, ':') ? asprintf(out, "%s-%zu", n, k)
						  : asprintf(out, "%s:r%zu", n, k);
			if (rc < 0) {
				*out = NULL;
				return -ENOMEM;
			}
		}
	return 0;
}

static int fill(struct rv_table *t, struct rv_rng *r, const struct rv_synth_params *p,
		double t0_s, int with_faults, uint8_t *labels)
{
	float v[CH_COUNT];

	if (name_channels(t, p->replicas) != 0)
		return -ENOMEM;
	for (size_t i = 0; i < t->nrows; i++) {
		double rel = (double)i * p->interval_s;
		int fault = with_faults ? active_fault(rel) : FAULT_NONE;
		/* A noisy neighbour also stretches the training step. */
		double slow = fault == FAULT_CPU ? 1.3 : 1.0;

		t->ts[i] = p->start_unix + t0_s + rel;
		for (size_t k = 0; k < p->replicas; k++) {
			sample(r, t0_s + rel, fault, slow, v);
			for (size_t c = 0; c < CH_COUNT; c++)
				t->values[(k * CH_COUNT + c) * t->nrows + i] = v[c];
		}
		if (labels)
			labels[i] = fault != FAULT_NONE;
	}
	return 0;
}

int rv_synth_generate(const struct rv_synth_params *p, struct rv_table **train,
		      struct rv_table **test, uint8_t **labels)
{
	size_t ntrain, ntest;
	struct rv_rng r;
	int rc;

	*train = *test = NULL;
	*labels = NULL;
	if (!(p->interval_s > 0.0) || p->train_s < p->interval_s || p->test_s < p->interval_s ||
	    p->replicas < 1)
		return -EINVAL;
	ntrain = (size_t)(p->train_s / p->interval_s);
	ntest = (size_t)(p->test_s / p->interval_s);
	rv_rng_seed(&r, p->seed);
	rc = rv_table_new(ntrain, CH_COUNT * p->replicas, 1, "synthetic-train", train);
	if (!rc)
		rc = rv_table_new(ntest, CH_COUNT * p->replicas, 1, "synthetic-test", test);
	if (!rc && !(*labels = calloc(ntest, 1)))
		rc = -ENOMEM;
	if (!rc)
		rc = fill(*train, &r, p, 0.0, 0, NULL);
	if (!rc)
		rc = fill(*test, &r, p, p->train_s, 1, *labels);
	if (rc) {
		rv_table_free(*train);
		rv_table_free(*test);
		free(*labels);
		*train = *test = NULL;
		*labels = NULL;
	}
	return rc;
}
