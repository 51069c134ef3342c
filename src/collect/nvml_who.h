/*
 * nvml_who.h - who uses each NVIDIA GPU: the compute processes of every
 * GPU with the GPU memory each holds and its SM and memory-controller
 * utilization since the previous list, for whose workload (agent/whose.c).
 *
 * The lister loads the NVIDIA management library on its own (dlopen,
 * nvmlInit; NVML counts inits, so it may run beside the nvml source in the
 * same process) and keeps it loaded until closed. A list costs two NVML
 * calls per GPU (nvmlDeviceGetComputeRunningProcesses_v3 or _v2, and
 * nvmlDeviceGetProcessUtilization): meant for the attribution thread,
 * never the sampling loop. One thread at a time per lister.
 */
#ifndef RV_COLLECT_NVML_WHO_H
#define RV_COLLECT_NVML_WHO_H

#include <stddef.h>

#include "base/err.h"

enum {
	RV_NVML_WHO_PROCS = 1024,     /* processes of one GPU a list can read */
	RV_NVML_WHO_SAMPLES = 4096,   /* utilization samples of one GPU it can read */
};

/* One compute process on one GPU. */
struct rv_gpu_proc {
	unsigned int gpu;     /* NVML's index: the instance "gpu<gpu>" of its channels */
	int pid;              /* as NVML sees it: the host's pid namespace */
	double mem_bytes;     /* GPU memory it holds; NaN: the driver does not say */
	/* Mean SM (and memory-controller) use, %, over the samples NVML took
	 * since the previous list (the first list: those the driver still
	 * keeps, its last seconds); 0 when the process had none (NVML samples
	 * only processes that used the GPU); NaN when the GPU's utilization
	 * could not be read. */
	double sm_pct, mem_pct;
};

struct rv_nvml_who;

/*
 * Loads lib (NULL: "libnvidia-ml.so.1"), initializes NVML and takes the
 * GPUs' handles and the read buffers (about 150 KiB): 0 and *out, or
 * -ENOENT (no such library), -ENOSYS (a call it needs is missing: the
 * error names it), -ENODEV (nvmlInit failed, or no GPU), -ENOMEM. Close
 * with rv_nvml_who_close.
 */
int rv_nvml_who_open(const char *lib, struct rv_nvml_who **out, struct rv_err *err);

/* Shuts NVML down (for this user) and unloads it; NULL is a no-op. */
void rv_nvml_who_close(struct rv_nvml_who *w);

/* The GPUs NVML counted at open (those without a handle included). */
size_t rv_nvml_who_gpus(const struct rv_nvml_who *w);

/*
 * The compute processes of every GPU into out[0..max), GPU by GPU in
 * NVML's order: how many were written. A GPU whose list cannot be read
 * this time (a failure, more than RV_NVML_WHO_PROCS processes) is left
 * out; one that fell off the bus is left out from then on. Allocates
 * nothing; starts the next utilization interval.
 */
size_t rv_nvml_who_list(struct rv_nvml_who *w, struct rv_gpu_proc *out, size_t max);

#endif
