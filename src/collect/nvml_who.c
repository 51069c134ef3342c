/*
 * nvml_who.c - who uses each NVIDIA GPU (nvml_who.h): the compute
 * processes of every GPU and their utilization, for whose workload.
 *
 * The library is loaded apart from the nvml source (as nvml_facts.c
 * does): whose workload runs on its own thread and keeps the lister for
 * the agent's life, while the source may close and reopen. The calls are
 * declared here with NVML's documented ABI (nvml.h of R525 and later):
 *
 *   nvmlProcessInfo_t (what _v3 and _v2 fill; v1, of the unversioned
 *   call, lacks the two instance ids and is not used):
 *       unsigned int pid; unsigned long long usedGpuMemory;
 *       unsigned int gpuInstanceId, computeInstanceId;
 *   nvmlProcessUtilizationSample_t:
 *       unsigned int pid; unsigned long long timeStamp (CPU time, us);
 *       unsigned int smUtil, memUtil, encUtil, decUtil (%);
 *
 * declared with the same member types in the same order, so the compiler
 * lays them out as it lays out nvml.h's (24 and 32 bytes on x86-64).
 *
 * nvmlDeviceGetProcessUtilization returns the samples newer than the
 * timestamp it is given; each GPU keeps the newest it has seen, so a list
 * covers the time since the previous one. NOT_FOUND from it means "no
 * process used the GPU since" (not a lost GPU, as elsewhere).
 */
#include "collect/nvml_who.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_int.h"

static const char default_lib[] = "libnvidia-ml.so.1";
static const unsigned long long NOT_AVAILABLE = ~0ULL;   /* NVML_VALUE_NOT_AVAILABLE */

struct proc_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id, compute_instance_id;
};

struct util_sample {
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm_util, mem_util, enc_util, dec_util;
};

struct who_api {
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned int *n);
	int (*handle)(unsigned int index, struct nvml_dev **dev);
	int (*procs)(struct nvml_dev *d, unsigned int *n, struct proc_info *infos);
	int (*util)(struct nvml_dev *d, struct util_sample *s, unsigned int *n,
		    unsigned long long last_seen);
};

struct who_gpu {
	struct nvml_dev *dev;           /* NULL: no handle */
	int lost;
	unsigned long long seen;        /* newest sample timestamp read, us */
};

struct rv_nvml_who {
	void *dl;
	const char *lib;
	int inited;
	struct who_api api;
	struct who_gpu *gpu;
	size_t ngpu;
	struct proc_info *info;         /* RV_NVML_WHO_PROCS */
	struct util_sample *samp;       /* RV_NVML_WHO_SAMPLES */
};

#define WHO_API(f) offsetof(struct who_api, f)

static const struct rv_nvml_symdef syms[] = {
	{ { "nvmlInit_v2", "nvmlInit" }, WHO_API(init), 1 },
	{ { "nvmlShutdown" }, WHO_API(shutdown), 1 },
	{ { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount" }, WHO_API(count), 1 },
	{ { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex" }, WHO_API(handle), 1 },
	{ { "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2" },
	  WHO_API(procs), 1 },
	{ { "nvmlDeviceGetProcessUtilization" }, WHO_API(util), 0 },
};

static int resolve(struct rv_nvml_who *w, struct rv_err *err)
{
	const char *missing = rv_nvml_resolve(w->dl, syms, sizeof(syms) / sizeof(syms[0]),
					      &w->api);

	if (missing)
		return rv_err_set(err, -ENOSYS, "%s: no symbol %s (nor an older name)", w->lib,
				  missing);
	return 0;
}

/* nvmlInit, the GPUs' handles and the buffers. */
static int start(struct rv_nvml_who *w, struct rv_err *err)
{
	unsigned int n = 0;
	int ret = w->api.init();

	if (ret != RV_NVML_SUCCESS)
		return rv_err_set(err, -ENODEV, "%s: nvmlInit failed (%d)", w->lib, ret);
	w->inited = 1;
	ret = w->api.count(&n);
	if (ret != RV_NVML_SUCCESS || n == 0)
		return rv_err_set(err, -ENODEV, "%s: no NVIDIA GPU (%d)", w->lib, ret);
	w->ngpu = n < RV_NVML_MAX_GPUS ? n : RV_NVML_MAX_GPUS;
	w->gpu = calloc(w->ngpu, sizeof(*w->gpu));
	w->info = calloc(RV_NVML_WHO_PROCS, sizeof(*w->info));
	w->samp = w->api.util ? calloc(RV_NVML_WHO_SAMPLES, sizeof(*w->samp)) : NULL;
	if (!w->gpu || !w->info || (w->api.util && !w->samp))
		return rv_err_set(err, -ENOMEM, "%s: out of memory", w->lib);
	for (size_t i = 0; i < w->ngpu; i++)
		if (w->api.handle((unsigned int)i, &w->gpu[i].dev) != RV_NVML_SUCCESS)
			w->gpu[i].dev = NULL;
	return 0;
}

void rv_nvml_who_close(struct rv_nvml_who *w)
{
	if (!w)
		return;
	if (w->inited)
		w->api.shutdown();
	if (w->dl)
		dlclose(w->dl);
	free(w->gpu);
	free(w->info);
	free(w->samp);
	free(w);
}

int rv_nvml_who_open(const char *lib, struct rv_nvml_who **out, struct rv_err *err)
{
	struct rv_nvml_who *w = calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	if (!w)
		return rv_err_set(err, -ENOMEM, "nvml: out of memory");
	w->lib = lib ? lib : default_lib;
	w->dl = dlopen(w->lib, RTLD_NOW | RTLD_LOCAL);
	if (!w->dl) {
		const char *why = dlerror();

		rc = rv_err_set(err, -ENOENT, "%s", why ? why : w->lib);
	} else {
		rc = resolve(w, err);
		if (!rc)
			rc = start(w, err);
	}
	if (rc) {
		rv_nvml_who_close(w);
		return rc;
	}
	*out = w;
	return 0;
}

size_t rv_nvml_who_gpus(const struct rv_nvml_who *w)
{
	return w ? w->ngpu : 0;
}

/* The mean SM and memory use of pid over the samples s[0..m). 0 for both
 * when it has none. */
static void mean_use(const struct util_sample *s, unsigned int m, unsigned int pid,
		     struct rv_gpu_proc *o)
{
	double sm = 0.0, mem = 0.0;
	unsigned int k = 0;

	for (unsigned int i = 0; i < m; i++)
		if (s[i].pid == pid) {
			sm += s[i].sm_util;
			mem += s[i].mem_util;
			k++;
		}
	o->sm_pct = k ? sm / k : 0.0;
	o->mem_pct = k ? mem / k : 0.0;
}

/* The samples of GPU g since its last list into w->samp: how many, or -1
 * when its utilization cannot be read now. */
static long read_util(struct rv_nvml_who *w, struct who_gpu *g)
{
	unsigned int m = RV_NVML_WHO_SAMPLES;
	int ret;

	if (!w->api.util)
		return -1;
	ret = w->api.util(g->dev, w->samp, &m, g->seen);
	if (ret == RV_NVML_ERROR_NOT_FOUND)
		return 0;
	if (ret == RV_NVML_ERROR_GPU_IS_LOST)
		g->lost = 1;
	if (ret != RV_NVML_SUCCESS)
		return -1;
	if (m > RV_NVML_WHO_SAMPLES)
		m = RV_NVML_WHO_SAMPLES;
	for (unsigned int i = 0; i < m; i++)
		if (w->samp[i].time_stamp > g->seen)
			g->seen = w->samp[i].time_stamp;
	return m;
}

/* GPU i's processes into out[0..max): how many. */
static size_t list_gpu(struct rv_nvml_who *w, size_t i, struct rv_gpu_proc *out, size_t max)
{
	struct who_gpu *g = &w->gpu[i];
	unsigned int n = RV_NVML_WHO_PROCS;
	long m;
	int ret = w->api.procs(g->dev, &n, w->info);

	if (rv_nvml_is_lost(ret))
		g->lost = 1;
	if (ret != RV_NVML_SUCCESS)
		return 0;
	m = read_util(w, g);
	if (n > max)
		n = (unsigned int)max;
	for (unsigned int k = 0; k < n; k++) {
		const struct proc_info *p = &w->info[k];
		struct rv_gpu_proc *o = &out[k];

		o->gpu = (unsigned int)i;
		o->pid = (int)p->pid;
		o->mem_bytes = p->used_gpu_memory == NOT_AVAILABLE ? NAN :
			       (double)p->used_gpu_memory;
		if (m >= 0)
			mean_use(w->samp, (unsigned int)m, p->pid, o);
		else
			o->sm_pct = o->mem_pct = NAN;
	}
	return n;
}

size_t rv_nvml_who_list(struct rv_nvml_who *w, struct rv_gpu_proc *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; w && i < w->ngpu && n < max; i++)
		if (w->gpu[i].dev && !w->gpu[i].lost)
			n += list_gpu(w, i, out + n, max - n);
	return n;
}
