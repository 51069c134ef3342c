/*
 * nvidia_ml_fake.c - a fake NVIDIA management library (built as
 * build/fakes/libnvidia_ml_fake.so) for collect/nvml_test.c: the NVML
 * calls reveal's nvml source makes, with NVML's ABI, for N made-up GPUs
 * whose values follow from the GPU index i and the call number k (0 for
 * the first call of that function, argument and GPU, counting only calls
 * that succeed), so a test can predict every number:
 *
 *   utilization          gpu = 10 + i + k, memory = 20 + i + k (%)
 *   memory               total = (16 + i) GiB, used = (1 + k) GiB + i MiB
 *   power                100000 + 1000 i + 10 k mW
 *   energy               1000000 (i + 1) + 5000 k mJ
 *   temperature (GPU)    40 + i + k C
 *   clock SM / MEM       1000 + 10 i + k / 5000 + i MHz (graphics = SM)
 *   PCIe TX / RX         100 (i + 1) + k / 200 (i + 1) + k KB/s
 *   PCIe replays         i + k
 *   ECC volatile         corrected 10 i + k, uncorrected i (aggregate +1000)
 *   throttle reasons     {0x1, 0x4, 0x28, 0x48}[k % 4] (only the older name
 *                        nvmlDeviceGetCurrentClocksThrottleReasons)
 *   P-state              (i + k) % 3
 *   retired pages        cause 0: i + k, cause 1: i
 *
 * Environment, read at the first nvmlInit_v2 (NVML counts inits: the
 * state is reset when the count goes from 0 to 1):
 *   FAKE_NVML_MODEL=basic|h100|a100
 *                                 basic (default): the calls above only;
 *                                 h100: also GPM, NVLink, MIG, processes
 *                                 and the health calls (nvidia_ml_fake/);
 *                                 a100: as h100 without GPM
 *   FAKE_NVML_GPUS=n              GPUs (default 2, at most 64)
 *   FAKE_NVML_INIT_ERROR=code     nvmlInit_v2 returns this nvmlReturn_t
 *   FAKE_NVML_NOT_SUPPORTED=a,b   these functions return NOT_SUPPORTED (3)
 *   FAKE_NVML_FAIL=a,b            these functions return UNKNOWN (999)
 *   FAKE_NVML_LOST_AFTER=k        GPU 1 is lost (GPU_IS_LOST, 15, from
 *                                 every call on it) after k successful
 *                                 nvmlDeviceGetUtilizationRates calls
 *   FAKE_NVML_XIDS=n              n XID critical errors (XID 79) pending
 *                                 on GPU 0, one per nvmlEventSetWait_v2
 *
 * The calls of the newer parts live in nvidia_ml_fake/ (one file per part), built into the
 * same library; built with FAKE_NVML_OLD_DRIVER (libnvidia_ml_old.so) the
 * library lacks the calls a driver before R525 lacks (fake.h).
 *
 * A test double: global state and plain C, no project headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvidia_ml_fake/fake.h"

enum { XID_GPU = 0, XID_CODE = 79, EVENT_XID = 8, PSTATES = 3 };
enum {
	F_UTIL, F_MEM, F_POWER, F_ENERGY, F_TEMP, F_CLOCK, F_PCIE, F_REPLAY, F_ECC,
	F_THROTTLE, F_PSTATE, F_RETIRED, F_COUNT,
};

static const unsigned long long GIB = 1ULL << 30, MIB = 1ULL << 20;
static const unsigned long long throttle_cycle[4] = { 0x1, 0x4, 0x28, 0x48 };

struct nvmlEventSet_st { unsigned long long mask[FAKE_MAX_GPUS]; };
struct fake_util { unsigned int gpu, memory; };
struct fake_memory { unsigned long long total, free, used; };
struct fake_event {
	struct nvmlDevice_st *device;
	unsigned long long type, data;
	unsigned int gpu_instance, compute_instance;
};

struct fake_state fk;

static unsigned long long ncalls[F_COUNT][FAKE_VARIANTS][FAKE_MAX_GPUS];
static struct nvmlEventSet_st event_set;

int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int ret);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetName(struct nvmlDevice_st *d, char *name, unsigned int len);
int nvmlSystemGetDriverVersion(char *version, unsigned int len);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, struct nvmlDevice_st **dev);
int nvmlDeviceGetUtilizationRates(struct nvmlDevice_st *d, struct fake_util *u);
int nvmlDeviceGetMemoryInfo(struct nvmlDevice_st *d, struct fake_memory *m);
int nvmlDeviceGetPowerUsage(struct nvmlDevice_st *d, unsigned int *mw);
int nvmlDeviceGetTotalEnergyConsumption(struct nvmlDevice_st *d, unsigned long long *mj);
int nvmlDeviceGetTemperature(struct nvmlDevice_st *d, int sensor, unsigned int *c);
int nvmlDeviceGetClockInfo(struct nvmlDevice_st *d, int type, unsigned int *mhz);
int nvmlDeviceGetPcieThroughput(struct nvmlDevice_st *d, int counter, unsigned int *kbs);
int nvmlDeviceGetPcieReplayCounter(struct nvmlDevice_st *d, unsigned int *n);
int nvmlDeviceGetTotalEccErrors(struct nvmlDevice_st *d, int type, int counter,
				unsigned long long *n);
int nvmlDeviceGetCurrentClocksThrottleReasons(struct nvmlDevice_st *d, unsigned long long *r);
int nvmlDeviceGetPerformanceState(struct nvmlDevice_st *d, int *p);
int nvmlDeviceGetRetiredPages(struct nvmlDevice_st *d, int cause, unsigned int *n,
			      unsigned long long *addr);
int nvmlEventSetCreate(struct nvmlEventSet_st **set);
int nvmlEventSetFree(struct nvmlEventSet_st *set);
int nvmlDeviceRegisterEvents(struct nvmlDevice_st *d, unsigned long long types,
			     struct nvmlEventSet_st *set);
int nvmlEventSetWait_v2(struct nvmlEventSet_st *set, struct fake_event *ev, unsigned int ms);

int fake_listed(const char *list, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == len && memcmp(p, name, len) == 0)
			return 1;
		p += n + (e ? 1 : 0);
	}
	return 0;
}

static void env_copy(char *dst, const char *var)
{
	const char *v = getenv(var);

	dst[0] = '\0';
	if (v)
		strncat(dst, v, FAKE_LIST_MAX - 1);
}

long long fake_env_num(const char *var, long long dflt)
{
	const char *v = getenv(var);

	return v && *v ? strtoll(v, NULL, 10) : dflt;
}

int fake_check(const char *fn)
{
	if (!fk.inited)
		return R_UNINITIALIZED;
	if (fake_listed(fk.not_supported, fn))
		return R_NOT_SUPPORTED;
	if (fake_listed(fk.fail, fn))
		return R_UNKNOWN;
	return R_OK;
}

int fake_gpu_check(const char *fn, const struct nvmlDevice_st *d)
{
	if (!fk.inited)
		return R_UNINITIALIZED;
	if (!d || d < fk.dev || d >= fk.dev + fk.ngpu)
		return R_INVALID;
	if (d->index == LOST_GPU && fk.lost)
		return R_GPU_IS_LOST;
	return fake_check(fn);
}

/* The common prologue of a per-GPU call: its return code, and on success
 * the call number k of (f, variant, GPU) in *k. */
static int enter(const char *fn, const struct nvmlDevice_st *d, int f, int variant,
		 unsigned long long *k)
{
	int ret = fake_check(fn);
	unsigned long long *calls;

	if (!fk.inited)
		return R_UNINITIALIZED;
	if (!d || d < fk.dev || d >= fk.dev + fk.ngpu || variant < 0 || variant >= FAKE_VARIANTS)
		return R_INVALID;
	if (f == F_UTIL && d->index == LOST_GPU && fk.lost_after >= 0 &&
	    ncalls[F_UTIL][0][LOST_GPU] >= (unsigned long long)fk.lost_after)
		fk.lost = 1;
	if (d->index == LOST_GPU && fk.lost)
		return R_GPU_IS_LOST;
	if (ret != R_OK)
		return ret;
	calls = &ncalls[f][variant][d->index];
	*k = (*calls)++;
	return R_OK;
}

static enum fake_model model_of(const char *name)
{
	if (name && strcmp(name, "h100") == 0)
		return FAKE_H100;
	if (name && strcmp(name, "a100") == 0)
		return FAKE_A100;
	return FAKE_BASIC;
}

int nvmlInit_v2(void)
{
	long long n = fake_env_num("FAKE_NVML_GPUS", FAKE_DEFAULT_GPUS);
	int ret = (int)fake_env_num("FAKE_NVML_INIT_ERROR", R_OK);

	if (ret != R_OK)
		return ret;
	if (fk.inited > 0) {
		fk.inited++;
		return R_OK;
	}
	memset(&fk, 0, sizeof(fk));
	memset(ncalls, 0, sizeof(ncalls));
	memset(&event_set, 0, sizeof(event_set));
	fake_gpm_reset();
	fake_link_reset();
	fake_health_reset();
	fake_proc_reset();
	fk.model = model_of(getenv("FAKE_NVML_MODEL"));
	fk.ngpu = n < 0 ? 0 : n > FAKE_MAX_GPUS ? FAKE_MAX_GPUS : (unsigned int)n;
	for (unsigned int i = 0; i < fk.ngpu; i++)
		fk.dev[i].index = i;
	env_copy(fk.not_supported, "FAKE_NVML_NOT_SUPPORTED");
	env_copy(fk.fail, "FAKE_NVML_FAIL");
	fk.lost_after = fake_env_num("FAKE_NVML_LOST_AFTER", -1);
	fk.xids = (unsigned long long)fake_env_num("FAKE_NVML_XIDS", 0);
	fk.inited = 1;
	return R_OK;
}

int nvmlShutdown(void)
{
	if (fk.inited <= 0)
		return R_UNINITIALIZED;
	fk.inited--;
	return R_OK;
}

const char *nvmlErrorString(int ret)
{
	switch (ret) {
	case R_OK: return "Success";
	case R_UNINITIALIZED: return "Uninitialized";
	case R_INVALID: return "Invalid Argument";
	case R_NOT_SUPPORTED: return "Not Supported";
	case R_INSUFFICIENT_SIZE: return "Insufficient Size";
	case R_TIMEOUT: return "Timeout";
	case R_GPU_IS_LOST: return "GPU is lost";
	default: return "Unknown Error";
	}
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	int ret = fake_check(__func__);

	if (ret == R_OK)
		*n = fk.ngpu;
	return ret;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, struct nvmlDevice_st **dev)
{
	int ret = fake_check(__func__);

	if (ret != R_OK)
		return ret;
	if (index >= fk.ngpu)
		return R_INVALID;
	if (index == LOST_GPU && fk.lost)
		return R_GPU_IS_LOST;
	*dev = &fk.dev[index];
	return R_OK;
}

/* "NVIDIA T4 (fake N)" (basic), "NVIDIA H100 80GB HBM3 (fake N)" (h100),
 * "NVIDIA A100-SXM4-80GB (fake N)" (a100); the driver "999.99-fake". */
int nvmlDeviceGetName(struct nvmlDevice_st *d, char *name, unsigned int len)
{
	int ret = fake_check(__func__);

	if (ret != R_OK)
		return ret;
	static const char *const model_name[] = {
		[FAKE_BASIC] = "NVIDIA T4", [FAKE_H100] = "NVIDIA H100 80GB HBM3",
		[FAKE_A100] = "NVIDIA A100-SXM4-80GB",
	};

	if (snprintf(name, len, "%s (fake %u)", model_name[fk.model], d->index) >= (int)len)
		return R_INSUFFICIENT_SIZE;
	return R_OK;
}

int nvmlSystemGetDriverVersion(char *version, unsigned int len)
{
	int ret = fake_check(__func__);

	if (ret != R_OK)
		return ret;
	if (snprintf(version, len, "999.99-fake") >= (int)len)
		return R_INSUFFICIENT_SIZE;
	return R_OK;
}

int nvmlDeviceGetUtilizationRates(struct nvmlDevice_st *d, struct fake_util *u)
{
	unsigned long long k;
	int ret = enter(__func__, d, F_UTIL, 0, &k);

	if (ret == R_OK) {
		u->gpu = (unsigned int)(10 + d->index + k);
		u->memory = (unsigned int)(20 + d->index + k);
	}
	return ret;
}

int nvmlDeviceGetMemoryInfo(struct nvmlDevice_st *d, struct fake_memory *m)
{
	unsigned long long k;
	int ret = enter(__func__, d, F_MEM, 0, &k);

	if (ret == R_OK) {
		m->total = (16 + d->index) * GIB;
		m->used = (1 + k) * GIB + d->index * MIB;
		m->free = m->total - m->used;
	}
	return ret;
}

int nvmlDeviceGetPowerUsage(struct nvmlDevice_st *d, unsigned int *mw)
{
	unsigned long long k;
	int ret = enter(__func__, d, F_POWER, 0, &k);

	if (ret == R_OK)
		*mw = (unsigned int)(100000 + 1000 * d->index + 10 * k);
	return ret;
}

int nvmlDeviceGetTotalEnergyConsumption(struct nvmlDevice_st *d, unsigned long long *mj)
{
	unsigned long long k;
	int ret = enter(__func__, d, F_ENERGY, 0, &k);

	if (ret == R_OK)
		*mj = 1000000ULL * (d->index + 1) + 5000 * k;
	return ret;
}

int nvmlDeviceGetTemperature(struct nvmlDevice_st *d, int sensor, unsigned int *c)
{
	unsigned long long k;
	int ret = sensor == 0 ? enter(__func__, d, F_TEMP, 0, &k) : R_INVALID;

	if (ret == R_OK)
		*c = (unsigned int)(40 + d->index + k);
	return ret;
}

int nvmlDeviceGetClockInfo(struct nvmlDevice_st *d, int type, unsigned int *mhz)
{
	unsigned long long k;
	int ret = enter(__func__, d, F_CLOCK, type, &k);

	if (ret == R_OK)
		*mhz = (unsigned int)(type == 2 ? 5000 + d->index :
				      type == 3 ? 900 : 1000 + 10 * d->index + k);
	return ret;
}

int nvmlDeviceGetPcieThroughput(struct nvmlDevice_st *d, int counter, unsigned int *kbs)
{
	unsigned long long k;
	int ret = counter == 0 || counter == 1 ? enter(__func__, d, F_PCIE, counter, &k) : R_INVALID;

	if (ret == R_OK)
		*kbs = (unsigned int)((counter == 0 ? 100 : 200) * (d->index + 1) + k);
	return ret;
}

int nvmlDeviceGetPcieReplayCounter(struct nvmlDevice_st *d, unsigned int *n)
{
	unsigned long long k;
	int ret = enter(__func__, d, F_REPLAY, 0, &k);

	if (ret == R_OK)
		*n = (unsigned int)(d->index + k);
	return ret;
}

int nvmlDeviceGetTotalEccErrors(struct nvmlDevice_st *d, int type, int counter,
				unsigned long long *n)
{
	unsigned long long k;
	int ret = (type == 0 || type == 1) && (counter == 0 || counter == 1) ?
		  enter(__func__, d, F_ECC, 2 * type + counter, &k) : R_INVALID;

	if (ret == R_OK)
		*n = (type == 0 ? 10ULL * d->index + k : d->index) + (counter == 1 ? 1000 : 0);
	return ret;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(struct nvmlDevice_st *d, unsigned long long *r)
{
	unsigned long long k;
	int ret = enter(__func__, d, F_THROTTLE, 0, &k);

	if (ret == R_OK)
		*r = throttle_cycle[k % 4];
	return ret;
}

int nvmlDeviceGetPerformanceState(struct nvmlDevice_st *d, int *p)
{
	unsigned long long k;
	int ret = enter(__func__, d, F_PSTATE, 0, &k);

	if (ret == R_OK)
		*p = (int)((d->index + k) % PSTATES);
	return ret;
}

int nvmlDeviceGetRetiredPages(struct nvmlDevice_st *d, int cause, unsigned int *n,
			      unsigned long long *addr)
{
	unsigned long long k, have;
	int ret = cause == 0 || cause == 1 ? enter(__func__, d, F_RETIRED, cause, &k) : R_INVALID;

	if (ret != R_OK)
		return ret;
	if (*n > 0 && !addr)
		return R_INVALID;
	have = cause == 0 ? d->index + k : d->index;
	for (unsigned long long p = 0; p < have && p < *n; p++)
		addr[p] = (p + 1) * 0x10000;
	ret = have > *n ? R_INSUFFICIENT_SIZE : R_OK;
	*n = (unsigned int)have;
	return ret;
}

int nvmlEventSetCreate(struct nvmlEventSet_st **set)
{
	int ret = fake_check(__func__);

	if (ret == R_OK) {
		memset(&event_set, 0, sizeof(event_set));
		*set = &event_set;
	}
	return ret;
}

int nvmlEventSetFree(struct nvmlEventSet_st *set)
{
	return set == &event_set ? fake_check(__func__) : R_INVALID;
}

int nvmlDeviceRegisterEvents(struct nvmlDevice_st *d, unsigned long long types,
			     struct nvmlEventSet_st *set)
{
	int ret = fake_check(__func__);

	if (ret != R_OK)
		return ret;
	if (!d || d < fk.dev || d >= fk.dev + fk.ngpu || set != &event_set)
		return R_INVALID;
	if (d->index == LOST_GPU && fk.lost)
		return R_GPU_IS_LOST;
	set->mask[d->index] |= types;
	return R_OK;
}

int nvmlEventSetWait_v2(struct nvmlEventSet_st *set, struct fake_event *ev, unsigned int ms)
{
	int ret = fake_check(__func__);

	if (ret != R_OK)
		return ret;
	if (set != &event_set || !ev)
		return R_INVALID;
	if (fk.xids == 0 || !(set->mask[XID_GPU] & EVENT_XID) || XID_GPU >= fk.ngpu)
		return R_TIMEOUT;
	fk.xids--;
	memset(ev, 0, sizeof(*ev));
	ev->device = &fk.dev[XID_GPU];
	ev->type = EVENT_XID;
	ev->data = XID_CODE;
	return R_OK;
}
