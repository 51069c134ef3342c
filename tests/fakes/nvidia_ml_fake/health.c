/*
 * health.c - the health calls of the fake NVIDIA management library (part
 * of libnvidia_ml_fake.so, fake.h) that the base rows of collect/nvml.c
 * read: fan speed, remapped rows, the memory temperature field, and the
 * clock event reasons under their current name.
 *
 * Values for GPU i after k earlier successful calls of the same function
 * on that GPU (k = 0 is the source's probe at open):
 *
 *                                basic    h100             a100
 *   nvmlDeviceGetFanSpeed        n/s      n/s (SXM: none)  30 + i + k (%)
 *   nvmlDeviceGetRemappedRows    n/s      corrected 2 i + k, uncorrected i,
 *                                         pending k % 2, failed 1 on GPU 1
 *   memory temperature field     n/s      60 + i + k (C), unsigned int
 *   (NVML_FI_DEV_MEMORY_TEMP, 82, through nvmlDeviceGetFieldValues in
 *   link.c; there k counts the calls that asked for the field)
 *   nvmlDeviceGetCurrentClocks-  {0x1, 0x4, 0x28, 0x48}[k % 4] in every
 *   EventReasons                 model: the values of the deprecated
 *                                nvmlDeviceGetCurrentClocksThrottleReasons
 *                                (nvidia_ml_fake.c), so both names give
 *                                the same channels; absent from the old
 *                                driver (libnvidia_ml_old.so), which has
 *                                only the deprecated name
 *
 * n/s: NOT_SUPPORTED (3). The basic model answers none of the health
 * calls so that its GPUs keep the channels they had before them.
 * FAKE_NVML_NOT_SUPPORTED / FAKE_NVML_FAIL name these calls as the others.
 *
 * Call numbers live in this file and start at 0 when the library is
 * loaded; the nvml source loads it at open and unloads it at close, so
 * each open of a test starts over.
 */
#include <string.h>

#include "fake.h"

enum { F_FAN, F_REMAP, F_REASONS, F_HEALTH_COUNT, FAILED_GPU = 1, REASON_CYCLE = 4 };

static unsigned long long ncalls[F_HEALTH_COUNT][FAKE_MAX_GPUS];

int nvmlDeviceGetFanSpeed(struct nvmlDevice_st *d, unsigned int *pct);
int nvmlDeviceGetRemappedRows(struct nvmlDevice_st *d, unsigned int *corr, unsigned int *unc,
			      unsigned int *pending, unsigned int *failed);
int fake_mem_temp(const struct nvmlDevice_st *d, unsigned long long k, unsigned int *c);

/* The prologue of a health call: its code, and on success the call number
 * of (f, GPU) in *k. `models` is the mask of the models that answer. */
static int health_enter(const char *fn, const struct nvmlDevice_st *d, int f, unsigned models,
			unsigned long long *k)
{
	int ret = fake_gpu_check(fn, d);

	if (ret != R_OK)
		return ret;
	if (!(models & (1u << fk.model)))
		return R_NOT_SUPPORTED;
	*k = ncalls[f][d->index]++;
	return R_OK;
}

int nvmlDeviceGetFanSpeed(struct nvmlDevice_st *d, unsigned int *pct)
{
	unsigned long long k;
	int ret = health_enter(__func__, d, F_FAN, 1u << FAKE_A100, &k);

	if (ret == R_OK)
		*pct = (unsigned int)(30 + d->index + k);
	return ret;
}

int nvmlDeviceGetRemappedRows(struct nvmlDevice_st *d, unsigned int *corr, unsigned int *unc,
			      unsigned int *pending, unsigned int *failed)
{
	unsigned long long k;
	int ret = health_enter(__func__, d, F_REMAP, (1u << FAKE_H100) | (1u << FAKE_A100), &k);

	if (ret != R_OK)
		return ret;
	*corr = (unsigned int)(2 * d->index + k);
	*unc = d->index;
	*pending = (unsigned int)(k % 2);
	*failed = d->index == FAILED_GPU;
	return R_OK;
}

/* For nvmlDeviceGetFieldValues (link.c): the memory temperature of GPU d
 * at its k-th read; R_NOT_SUPPORTED on the basic model. */
int fake_mem_temp(const struct nvmlDevice_st *d, unsigned long long k, unsigned int *c)
{
	if (fk.model == FAKE_BASIC)
		return R_NOT_SUPPORTED;
	*c = (unsigned int)(60 + d->index + k);
	return R_OK;
}

#ifndef FAKE_NVML_OLD_DRIVER
/* The deprecated call's cycle (nvidia_ml_fake.c), repeated here. */
static const unsigned long long reason_cycle[REASON_CYCLE] = { 0x1, 0x4, 0x28, 0x48 };

int nvmlDeviceGetCurrentClocksEventReasons(struct nvmlDevice_st *d, unsigned long long *r);

int nvmlDeviceGetCurrentClocksEventReasons(struct nvmlDevice_st *d, unsigned long long *r)
{
	unsigned long long k;
	int ret = health_enter(__func__, d, F_REASONS, ~0u, &k);

	if (ret == R_OK)
		*r = reason_cycle[k % REASON_CYCLE];
	return ret;
}
#endif

void fake_health_reset(void)
{
	memset(ncalls, 0, sizeof(ncalls));
}
