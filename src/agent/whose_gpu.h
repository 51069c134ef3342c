/*
 * whose_gpu.h - the GPUs in whose workload (whose.c): which processes use
 * the GPUs, ranked (those on the GPUs the incident names first, then by
 * SM use, then by GPU memory) and named through the process scan, as
 * consumers of resource "gpu" (whose_gpu.c). Internal to agent/; used by
 * the attribution thread only.
 */
#ifndef RV_AGENT_WHOSE_GPU_H
#define RV_AGENT_WHOSE_GPU_H

#include <stddef.h>

#include "attrib/attrib.h"
#include "collect/nvml_who.h"
#include "store/store.h"

enum {
	RV_AGENT_GPU_NAMED = 8,       /* GPUs of an incident's signals kept */
	RV_AGENT_GPU_LIST = 1024,     /* processes one list reads over every GPU */
};

/* The GPUs an incident names: the "gpu<N>" instances of its top signals
 * ("gpu.util_pct:gpu3"), in signal order, each once. */
struct agent_gpus {
	unsigned int idx[RV_AGENT_GPU_NAMED];
	size_t n;
};

/* The lister and its list; who NULL: no NVML on this host. */
struct agent_gpu {
	struct rv_nvml_who *who;
	struct rv_gpu_proc *list;     /* RV_AGENT_GPU_LIST */
};

/* Opens the lister on lib (NULL: NVML's default name) into *g: 0, with
 * g->who NULL when the library, a call or a GPU is missing (logged at
 * debug level: such a host attributes as if it had no GPU); -ENOMEM. */
int rv_agent_gpu_open(struct agent_gpu *g, const char *lib);
/* Frees what open took; a zeroed g is a no-op. */
void rv_agent_gpu_close(struct agent_gpu *g);

/* The GPUs incident in names (in->sig). */
void rv_agent_gpu_named(const struct rv_store_incident *in, struct agent_gpus *out);

/* The indices into p[0..n) of the max first processes by rank into top:
 * how many (n at most). A process on a GPU the incident names comes
 * before one that is not (when it names any); then higher SM use (unknown
 * last), more GPU memory (unknown last), the lower pid, the lower GPU. */
size_t rv_agent_gpu_rank(const struct rv_gpu_proc *p, size_t n, const struct agent_gpus *named,
			 size_t *top, size_t max);

/* "pid 4242 python3 (pod 6f1c...) on gpu3: 87 % SM, 40.0 GiB": who (NULL
 * or a process not found: "pid 4242 on gpu3: ..."), its container, pod,
 * Slurm job or systemd unit when its cgroup names one, "SM unknown" and
 * "memory unknown" for NaN. snprintf's count. */
int rv_agent_gpu_text(const struct rv_gpu_proc *p, const struct rv_consumer *who, char *buf,
		      size_t cap);

/*
 * Lists the GPUs' processes (g), ranks them and writes the first max as
 * consumers to out: resource "gpu", amount the SM use (%, NaN unknown),
 * share its part of the SM use summed over every process listed, the
 * process's name and cgroup from the process snapshot procs (at; a pid not
 * in it keeps only its pid), measured_ts ts, the text above. How many;
 * 0 without NVML or when no GPU runs a compute process.
 */
size_t rv_agent_gpu_consumers(struct agent_gpu *g, struct rv_attrib *at,
			      const struct rv_attrib_snap *procs, const struct agent_gpus *named,
			      double ts, struct rv_store_consumer *out, size_t max);

/* whose.c: a ranked consumer as stored (text by rv_consumer_text). */
void rv_agent_whose_to_store(const struct rv_consumer *c, double ts, struct rv_store_consumer *o);

#endif
