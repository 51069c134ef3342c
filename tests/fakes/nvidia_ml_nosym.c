/*
 * nvidia_ml_nosym.c - a fake NVIDIA management library (built as
 * build/fakes/libnvidia_ml_nosym.so) from an old driver: only the first,
 * unversioned names (nvmlInit, nvmlDeviceGetCount,
 * nvmlDeviceGetHandleByIndex) and only utilization, memory and
 * temperature. collect/nvml_test.c checks that the nvml source falls back
 * to those names and leaves out the channels of what is missing (power,
 * energy, clocks, PCIe, ECC, throttling, P-state, pages, events).
 *
 * Two GPUs with constant values: utilization gpu 30 + i, memory 40 + i
 * (%), memory total 8 GiB, used (i + 1) GiB, temperature 50 + i C.
 */
#include <stddef.h>

enum { NOSYM_GPUS = 2 };
enum { R_OK = 0, R_UNINITIALIZED = 1, R_INVALID = 2 };

struct nvmlDevice_st { unsigned int index; };
struct nosym_util { unsigned int gpu, memory; };
struct nosym_memory { unsigned long long total, free, used; };

static const unsigned long long GIB = 1ULL << 30;
static struct nvmlDevice_st devs[NOSYM_GPUS] = { { 0 }, { 1 } };
static int inited;

int nvmlInit(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int ret);
int nvmlDeviceGetCount(unsigned int *n);
int nvmlDeviceGetHandleByIndex(unsigned int index, struct nvmlDevice_st **dev);
int nvmlDeviceGetUtilizationRates(struct nvmlDevice_st *d, struct nosym_util *u);
int nvmlDeviceGetMemoryInfo(struct nvmlDevice_st *d, struct nosym_memory *m);
int nvmlDeviceGetTemperature(struct nvmlDevice_st *d, int sensor, unsigned int *c);

static int dev_ok(const struct nvmlDevice_st *d)
{
	if (!inited)
		return R_UNINITIALIZED;
	return d >= devs && d < devs + NOSYM_GPUS ? R_OK : R_INVALID;
}

int nvmlInit(void)
{
	inited = 1;
	return R_OK;
}

int nvmlShutdown(void)
{
	int was = inited;

	inited = 0;
	return was ? R_OK : R_UNINITIALIZED;
}

const char *nvmlErrorString(int ret)
{
	return ret == R_OK ? "Success" : "Error";
}

int nvmlDeviceGetCount(unsigned int *n)
{
	if (!inited)
		return R_UNINITIALIZED;
	*n = NOSYM_GPUS;
	return R_OK;
}

int nvmlDeviceGetHandleByIndex(unsigned int index, struct nvmlDevice_st **dev)
{
	if (!inited)
		return R_UNINITIALIZED;
	if (index >= NOSYM_GPUS)
		return R_INVALID;
	*dev = &devs[index];
	return R_OK;
}

int nvmlDeviceGetUtilizationRates(struct nvmlDevice_st *d, struct nosym_util *u)
{
	int ret = dev_ok(d);

	if (ret == R_OK) {
		u->gpu = 30 + d->index;
		u->memory = 40 + d->index;
	}
	return ret;
}

int nvmlDeviceGetMemoryInfo(struct nvmlDevice_st *d, struct nosym_memory *m)
{
	int ret = dev_ok(d);

	if (ret == R_OK) {
		m->total = 8 * GIB;
		m->used = (d->index + 1) * GIB;
		m->free = m->total - m->used;
	}
	return ret;
}

int nvmlDeviceGetTemperature(struct nvmlDevice_st *d, int sensor, unsigned int *c)
{
	int ret = sensor == 0 ? dev_ok(d) : R_INVALID;

	if (ret == R_OK)
		*c = 50 + d->index;
	return ret;
}
