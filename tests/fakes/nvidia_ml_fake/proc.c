/*
 * proc.c - the process calls of the fake NVIDIA management library (part
 * of libnvidia_ml_fake.so, fake.h): which compute processes run on each
 * GPU and how much of it they use, for the nvml source's gpu.processes
 * (collect/nvml_proc.c) and the lister of whose workload
 * (collect/nvml_who.c).
 *
 *   FAKE_NVML_PROCS="gpu:pid:memMiB:smPct,..."
 *       the compute processes, e.g. "0:4242:40960:87,0:4243:1024:3,1:777:2048:50"
 *       (GPU 0 runs pids 4242 and 4243, GPU 1 runs 777); read at every
 *       call, so a test may change it while the library is loaded. Entries
 *       for a GPU the fake does not have, and malformed ones, are skipped;
 *       at most FAKE_PROCS_MAX. memMiB -1 reports the memory as not
 *       available (NVML_VALUE_NOT_AVAILABLE, as under WDDM). The pids may
 *       be real processes of the test, so that whose workload finds them
 *       in /proc.
 *
 * nvmlDeviceGetComputeRunningProcesses_v3 (absent from the old driver,
 * libnvidia_ml_old.so) and _v2 fill NVML's nvmlProcessInfo_t (v2 layout:
 * pid, usedGpuMemory, gpuInstanceId, computeInstanceId; the instance ids
 * 0xFFFFFFFF, no MIG) in the order of the list. A count of 0 asks for the
 * count alone: INSUFFICIENT_SIZE with the count, or SUCCESS and 0 when no
 * process runs; any buffer too small is INSUFFICIENT_SIZE too.
 *
 * nvmlDeviceGetProcessUtilization: every call on GPU i is a tick of that
 * GPU's clock; tick k (0 for the first call since the library was
 * loaded) has one sample per process of the GPU whose smPct is not 0
 * (NVML reports only processes that used the GPU), at timeStamp
 * (k + 1) * 1,000,000 us, with smUtil = smPct + k (at most 100),
 * memUtil = half of that, encUtil = decUtil = 0. The driver's buffer
 * keeps the last FAKE_UTIL_TICKS ticks; the call returns those samples
 * newer than lastSeenTimeStamp, newest tick first, or NOT_FOUND (6) when
 * there are none. A NULL buffer asks for the count (INSUFFICIENT_SIZE,
 * or NOT_FOUND when there are none).
 *
 * The basic model answers NOT_SUPPORTED (3) to all three calls, so that
 * its GPUs keep the channels they had before them; h100 and a100 answer.
 * FAKE_NVML_NOT_SUPPORTED / FAKE_NVML_FAIL name these calls as the others.
 */
#include <stdlib.h>
#include <string.h>

#include "fake.h"

enum { FAKE_PROCS_MAX = 256, FAKE_UTIL_TICKS = 4, FAKE_PCT_MAX = 100 };

static const unsigned long long MIB = 1ULL << 20, US_PER_TICK = 1000000ULL;
static const unsigned long long NOT_AVAILABLE = ~0ULL;     /* NVML_VALUE_NOT_AVAILABLE */
static const unsigned int NO_INSTANCE = 0xFFFFFFFFu;

/* NVML's nvmlProcessInfo_t (and nvmlProcessInfo_v2_t). */
struct fake_proc_info {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id, compute_instance_id;
};

/* NVML's nvmlProcessUtilizationSample_t. */
struct fake_util_sample {
	unsigned int pid;
	unsigned long long time_stamp;
	unsigned int sm_util, mem_util, enc_util, dec_util;
};

struct fake_proc {
	unsigned int gpu, pid;
	long long mem_mib;              /* -1: not available */
	unsigned int sm_pct;
};

static unsigned long long ticks[FAKE_MAX_GPUS];

#ifndef FAKE_NVML_OLD_DRIVER
int nvmlDeviceGetComputeRunningProcesses_v3(struct nvmlDevice_st *d, unsigned int *n,
					    struct fake_proc_info *infos);
#endif
int nvmlDeviceGetComputeRunningProcesses_v2(struct nvmlDevice_st *d, unsigned int *n,
					    struct fake_proc_info *infos);
int nvmlDeviceGetProcessUtilization(struct nvmlDevice_st *d, struct fake_util_sample *s,
				    unsigned int *n, unsigned long long last_seen);

/* One "gpu:pid:memMiB:smPct" entry at *p (moved past it and its comma):
 * 1 when it parsed. */
static int parse_entry(const char **p, struct fake_proc *out)
{
	const char *s = *p, *next = strchr(s, ',');
	const char *stop = next ? next : s + strlen(s);
	long long v[4];
	char *end;

	*p = next ? next + 1 : stop;
	for (int k = 0; k < 4; k++) {
		v[k] = strtoll(s, &end, 10);
		if (end == s || (k < 3 ? *end != ':' : end != stop))
			return 0;
		s = end + 1;
	}
	if (v[0] < 0 || v[1] <= 0 || v[1] > 0x7fffffff || v[2] < -1 || v[3] < 0 ||
	    v[3] > FAKE_PCT_MAX)
		return 0;
	*out = (struct fake_proc){ (unsigned int)v[0], (unsigned int)v[1], v[2],
				   (unsigned int)v[3] };
	return 1;
}

/* The processes of GPU gpu from FAKE_NVML_PROCS into out: how many. */
static unsigned int procs_of(unsigned int gpu, struct fake_proc *out)
{
	const char *p = getenv("FAKE_NVML_PROCS");
	unsigned int n = 0;
	struct fake_proc e;

	while (p && *p && n < FAKE_PROCS_MAX)
		if (parse_entry(&p, &e) && e.gpu == gpu && e.gpu < fk.ngpu)
			out[n++] = e;
	return n;
}

/* The prologue of the three calls: fake_gpu_check, then the model. */
static int proc_enter(const char *fn, const struct nvmlDevice_st *d)
{
	int ret = fake_gpu_check(fn, d);

	if (ret == R_OK && fk.model == FAKE_BASIC)
		ret = R_NOT_SUPPORTED;
	return ret;
}

static int running(const char *fn, struct nvmlDevice_st *d, unsigned int *n,
		   struct fake_proc_info *infos)
{
	struct fake_proc p[FAKE_PROCS_MAX];
	unsigned int have;
	int ret = proc_enter(fn, d);

	if (ret != R_OK)
		return ret;
	if (!n || (*n > 0 && !infos))
		return R_INVALID;
	have = procs_of(d->index, p);
	if (*n < have) {
		*n = have;
		return R_INSUFFICIENT_SIZE;
	}
	for (unsigned int i = 0; i < have; i++)
		infos[i] = (struct fake_proc_info){
			.pid = p[i].pid,
			.used_gpu_memory = p[i].mem_mib < 0 ? NOT_AVAILABLE :
				(unsigned long long)p[i].mem_mib * MIB,
			.gpu_instance_id = NO_INSTANCE,
			.compute_instance_id = NO_INSTANCE,
		};
	*n = have;
	return R_OK;
}

#ifndef FAKE_NVML_OLD_DRIVER
int nvmlDeviceGetComputeRunningProcesses_v3(struct nvmlDevice_st *d, unsigned int *n,
					    struct fake_proc_info *infos)
{
	return running(__func__, d, n, infos);
}
#endif

int nvmlDeviceGetComputeRunningProcesses_v2(struct nvmlDevice_st *d, unsigned int *n,
					    struct fake_proc_info *infos)
{
	return running(__func__, d, n, infos);
}

/* The samples of tick t for the processes p[0..np) into s (NULL: only
 * counted) from index at, at most cap in all: the new index. */
static unsigned int tick_samples(const struct fake_proc *p, unsigned int np, unsigned long long t,
				 struct fake_util_sample *s, unsigned int at, unsigned int cap)
{
	for (unsigned int i = 0; i < np; i++) {
		unsigned long long sm = p[i].sm_pct + t;

		if (p[i].sm_pct == 0)
			continue;
		if (sm > FAKE_PCT_MAX)
			sm = FAKE_PCT_MAX;
		if (s && at < cap)
			s[at] = (struct fake_util_sample){
				.pid = p[i].pid, .time_stamp = (t + 1) * US_PER_TICK,
				.sm_util = (unsigned int)sm, .mem_util = (unsigned int)sm / 2,
			};
		at++;
	}
	return at;
}

int nvmlDeviceGetProcessUtilization(struct nvmlDevice_st *d, struct fake_util_sample *s,
				    unsigned int *n, unsigned long long last_seen)
{
	struct fake_proc p[FAKE_PROCS_MAX];
	unsigned long long now;
	unsigned int np, have = 0;
	int ret = proc_enter(__func__, d);

	if (ret != R_OK)
		return ret;
	if (!n)
		return R_INVALID;
	now = ticks[d->index]++;
	np = procs_of(d->index, p);
	for (unsigned long long t = now + 1; t-- > 0 && now - t < FAKE_UTIL_TICKS;)
		if ((t + 1) * US_PER_TICK > last_seen)
			have = tick_samples(p, np, t, s, have, *n);
	if (have == 0)
		return R_NOT_FOUND;
	if (!s || *n < have) {
		*n = have;
		return R_INSUFFICIENT_SIZE;
	}
	*n = have;
	return R_OK;
}

void fake_proc_reset(void)
{
	memset(ticks, 0, sizeof(ticks));
}
