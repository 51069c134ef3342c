/*
 * nvml.c - source "nvml": NVIDIA GPUs through the NVIDIA management library.
 *
 * The library is loaded with dlopen (cfg->nvml_lib, default
 * "libnvidia-ml.so.1") and only the calls below are declared, with NVML's
 * documented ABI: no nvml.h, no link-time dependency, and tests load a
 * fake library instead (tests/fakes/nvidia_ml_fake.c). Symbols come from
 * one table; each row tries the newest name first (nvmlInit_v2, then
 * nvmlInit). A missing required symbol fails open; a missing optional one
 * only leaves out the channels that need it.
 *
 * Per GPU ("gpu<index>"): utilization, memory, power, energy, temperature,
 * clocks, PCIe throughput and replays, volatile ECC counts, throttle
 * reasons, P-state, retired pages and XID critical errors (an event set
 * drained without waiting at each sample). A call that answers
 * NOT_SUPPORTED at open gets no channel; one that fails later leaves its
 * channels invalid for that sample. A GPU that falls off the bus
 * (GPU_IS_LOST, NOT_FOUND) is marked lost: its channels stay invalid
 * until the collector reopens, the other GPUs go on. Sampling allocates
 * nothing and never blocks on events.
 *
 * Not read: NVLink counters, per-process accounting, MIG instances.
 */
#include "collect/sources.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char default_lib[] = "libnvidia-ml.so.1";

enum { MAX_GPUS = 256, MAX_EVENTS_PER_SAMPLE = 1024, ROW_MAXV = 4, SYM_NAMES = 3 };

/* nvmlReturn_t values used here; RD_NO_VALUE is ours: the call worked but
 * gave nothing to report (P-state unknown). */
enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_GPU_IS_LOST = 15,
	RD_NO_VALUE = -1,
};

/* Enum arguments of the calls (int-sized in the ABI). */
enum {
	NVML_TEMPERATURE_GPU = 0,
	NVML_CLOCK_SM = 1,
	NVML_CLOCK_MEM = 2,
	NVML_PCIE_UTIL_TX_BYTES = 0,
	NVML_PCIE_UTIL_RX_BYTES = 1,
	NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
	NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
	NVML_VOLATILE_ECC = 0,
	NVML_PAGE_RETIREMENT_CAUSE_COUNT = 2,   /* multiple single-bit, double-bit */
	NVML_PSTATE_MAX = 15,                   /* P0..P15; 32 is "unknown" */
};

/* nvmlClocksThrottleReason* bits and nvmlEventTypeXidCriticalError. */
static const unsigned long long THR_SW_POWER_CAP = 0x4, THR_HW_SLOWDOWN = 0x8,
	THR_SW_THERMAL = 0x20, THR_HW_THERMAL = 0x40, THR_HW_POWER_BRAKE = 0x80;
static const unsigned long long EVENT_XID = 0x8;

struct nvml_dev;                        /* nvmlDevice_t is a pointer to it */
struct nvml_evset;                      /* nvmlEventSet_t */

struct nvml_utilization { unsigned int gpu, memory; };
struct nvml_memory { unsigned long long total, free, used; };
struct nvml_event_data {
	struct nvml_dev *device;
	unsigned long long type, data;
	unsigned int gpu_instance, compute_instance;
};

struct nvml_api {
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*error_string)(int ret);
	int (*count)(unsigned int *n);
	int (*handle)(unsigned int index, struct nvml_dev **dev);
	int (*utilization)(struct nvml_dev *d, struct nvml_utilization *u);
	int (*memory)(struct nvml_dev *d, struct nvml_memory *m);
	int (*power)(struct nvml_dev *d, unsigned int *mw);
	int (*energy)(struct nvml_dev *d, unsigned long long *mj);
	int (*temperature)(struct nvml_dev *d, int sensor, unsigned int *c);
	int (*clock)(struct nvml_dev *d, int type, unsigned int *mhz);
	int (*pcie)(struct nvml_dev *d, int counter, unsigned int *kbs);
	int (*replays)(struct nvml_dev *d, unsigned int *n);
	int (*ecc)(struct nvml_dev *d, int type, int counter, unsigned long long *n);
	int (*throttle)(struct nvml_dev *d, unsigned long long *reasons);
	int (*pstate)(struct nvml_dev *d, int *p);
	int (*retired)(struct nvml_dev *d, int cause, unsigned int *n, unsigned long long *addr);
	int (*evset_create)(struct nvml_evset **set);
	int (*evset_free)(struct nvml_evset *set);
	int (*register_events)(struct nvml_dev *d, unsigned long long types, struct nvml_evset *set);
	int (*evset_wait)(struct nvml_evset *set, struct nvml_event_data *ev, unsigned int ms);
};

_Static_assert(sizeof(void *) == sizeof(int (*)(void)),
	       "dlsym results are stored as function pointers");

#define API(f) offsetof(struct nvml_api, f)

struct sym {
	const char *names[SYM_NAMES];   /* newest first; NULL ends */
	size_t off;
	int required;
};

static const struct sym syms[] = {
	{ { "nvmlInit_v2", "nvmlInit" }, API(init), 1 },
	{ { "nvmlShutdown" }, API(shutdown), 1 },
	{ { "nvmlErrorString" }, API(error_string), 0 },
	{ { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount" }, API(count), 1 },
	{ { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex" }, API(handle), 1 },
	{ { "nvmlDeviceGetUtilizationRates" }, API(utilization), 0 },
	{ { "nvmlDeviceGetMemoryInfo" }, API(memory), 0 },
	{ { "nvmlDeviceGetPowerUsage" }, API(power), 0 },
	{ { "nvmlDeviceGetTotalEnergyConsumption" }, API(energy), 0 },
	{ { "nvmlDeviceGetTemperature" }, API(temperature), 0 },
	{ { "nvmlDeviceGetClockInfo" }, API(clock), 0 },
	{ { "nvmlDeviceGetPcieThroughput" }, API(pcie), 0 },
	{ { "nvmlDeviceGetPcieReplayCounter" }, API(replays), 0 },
	{ { "nvmlDeviceGetTotalEccErrors" }, API(ecc), 0 },
	{ { "nvmlDeviceGetCurrentClocksEventReasons",
	    "nvmlDeviceGetCurrentClocksThrottleReasons" }, API(throttle), 0 },
	{ { "nvmlDeviceGetPerformanceState" }, API(pstate), 0 },
	{ { "nvmlDeviceGetRetiredPages" }, API(retired), 0 },
	{ { "nvmlEventSetCreate" }, API(evset_create), 0 },
	{ { "nvmlEventSetFree" }, API(evset_free), 0 },
	{ { "nvmlDeviceRegisterEvents" }, API(register_events), 0 },
	{ { "nvmlEventSetWait_v2", "nvmlEventSetWait" }, API(evset_wait), 0 },
};

/* One NVML call and the channels it fills, v[0..n) in the order of type[];
 * `arg` is the call's argument where it takes one (clock type, PCIe
 * counter, ECC error type) or, for rd_uint, the api member to call. */
struct row {
	size_t fn;                      /* the api member it needs */
	int (*read)(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v);
	int arg;
	size_t n;
	const char *type[ROW_MAXV];
	double scale[ROW_MAXV];
};

static int rd_util(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	struct nvml_utilization u = { 0 };
	int ret = a->utilization(d, &u);

	v[0] = u.gpu;
	v[1] = u.memory;
	return ret;
}

static int rd_memory(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	struct nvml_memory m = { 0 };
	int ret = a->memory(d, &m);

	v[0] = (double)m.used;
	v[1] = (double)m.total;
	return ret;
}

/* A call of the shape f(device, unsigned int *): power, PCIe replays; `off`
 * says which api member. */
static int rd_uint(const struct nvml_api *a, struct nvml_dev *d, int off, double *v)
{
	int (*fn)(struct nvml_dev *dev, unsigned int *x);
	unsigned int x = 0;
	int ret;

	memcpy(&fn, (const char *)a + off, sizeof(fn));
	ret = fn(d, &x);
	v[0] = x;
	return ret;
}

static int rd_temp(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	unsigned int c = 0;
	int ret = a->temperature(d, NVML_TEMPERATURE_GPU, &c);

	v[0] = c;
	return ret;
}

static int rd_energy(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	unsigned long long mj = 0;
	int ret = a->energy(d, &mj);

	v[0] = (double)mj;
	return ret;
}

static int rd_clock(const struct nvml_api *a, struct nvml_dev *d, int type, double *v)
{
	unsigned int mhz = 0;
	int ret = a->clock(d, type, &mhz);

	v[0] = mhz;
	return ret;
}

static int rd_pcie(const struct nvml_api *a, struct nvml_dev *d, int counter, double *v)
{
	unsigned int kbs = 0;
	int ret = a->pcie(d, counter, &kbs);

	v[0] = kbs;
	return ret;
}

static int rd_ecc(const struct nvml_api *a, struct nvml_dev *d, int type, double *v)
{
	unsigned long long n = 0;
	int ret = a->ecc(d, type, NVML_VOLATILE_ECC, &n);

	v[0] = (double)n;
	return ret;
}

/* The mask, then three 0/1 summaries of it. */
static int rd_throttle(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	unsigned long long r = 0;
	int ret = a->throttle(d, &r);

	v[0] = (double)r;
	v[1] = (r & (THR_SW_POWER_CAP | THR_HW_POWER_BRAKE)) != 0;
	v[2] = (r & (THR_SW_THERMAL | THR_HW_THERMAL)) != 0;
	v[3] = (r & THR_HW_SLOWDOWN) != 0;
	return ret;
}

static int rd_pstate(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	int p = 0;
	int ret = a->pstate(d, &p);

	if (ret != NVML_SUCCESS)
		return ret;
	v[0] = p;
	return p >= 0 && p <= NVML_PSTATE_MAX ? NVML_SUCCESS : RD_NO_VALUE;
}

/* Pages of both causes; a count of 0 asks for the number alone, which NVML
 * answers with INSUFFICIENT_SIZE when there are pages. */
static int rd_retired(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	double sum = 0;

	for (int cause = 0; cause < NVML_PAGE_RETIREMENT_CAUSE_COUNT; cause++) {
		unsigned int n = 0;
		int ret = a->retired(d, cause, &n, NULL);

		if (ret != NVML_SUCCESS && ret != NVML_ERROR_INSUFFICIENT_SIZE)
			return ret;
		sum += n;
	}
	v[0] = sum;
	return NVML_SUCCESS;
}

/* Channel order of a GPU: these rows (those it has), then gpu.xid_errors. */
static const struct row rows[] = {
	{ API(utilization), rd_util, 0, 2, { "gpu.util_pct", "gpu.mem_util_pct" }, { 1, 1 } },
	{ API(memory), rd_memory, 0, 2, { "gpu.mem_used_bytes", "gpu.mem_total_bytes" }, { 1, 1 } },
	{ API(power), rd_uint, (int)API(power), 1, { "gpu.power_w" }, { 1e-3 } },
	{ API(energy), rd_energy, 0, 1, { "gpu.energy" }, { 1e-3 } },
	{ API(temperature), rd_temp, 0, 1, { "gpu.temp_c" }, { 1 } },
	{ API(clock), rd_clock, NVML_CLOCK_SM, 1, { "gpu.sm_clock_mhz" }, { 1 } },
	{ API(clock), rd_clock, NVML_CLOCK_MEM, 1, { "gpu.mem_clock_mhz" }, { 1 } },
	{ API(pcie), rd_pcie, NVML_PCIE_UTIL_TX_BYTES, 1, { "gpu.pcie_tx_bytes" }, { 1024 } },
	{ API(pcie), rd_pcie, NVML_PCIE_UTIL_RX_BYTES, 1, { "gpu.pcie_rx_bytes" }, { 1024 } },
	{ API(replays), rd_uint, (int)API(replays), 1, { "gpu.pcie_replays" }, { 1 } },
	{ API(ecc), rd_ecc, NVML_MEMORY_ERROR_TYPE_CORRECTED, 1, { "gpu.ecc_corrected" }, { 1 } },
	{ API(ecc), rd_ecc, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, 1, { "gpu.ecc_uncorrected" }, { 1 } },
	{ API(throttle), rd_throttle, 0, 4,
	  { "gpu.throttle_reasons", "gpu.throttle_power", "gpu.throttle_thermal",
	    "gpu.throttle_hw_slowdown" }, { 1, 1, 1, 1 } },
	{ API(pstate), rd_pstate, 0, 1, { "gpu.pstate" }, { 1 } },
	{ API(retired), rd_retired, 0, 1, { "gpu.retired_pages" }, { 1 } },
};
enum { NROWS = sizeof(rows) / sizeof(rows[0]) };
_Static_assert(NROWS <= 32, "a GPU's rows are a 32-bit mask");

struct gpu {
	struct nvml_dev *dev;           /* NULL: no handle at open, no channels */
	uint32_t rows;                  /* bit r: rows[r] has channels here */
	int xid;                        /* has the gpu.xid_errors channel */
	int lost;                       /* fell off the bus: invalid from now on */
	uint64_t xids;                  /* XID events counted so far */
	size_t first;                   /* its first channel in this source */
};

struct nvml_src {
	void *dl;
	int inited;                     /* nvmlInit worked: shut down at close */
	struct nvml_api api;
	struct nvml_evset *evset;       /* NULL: no XID channels */
	struct gpu *gpu;
	size_t ngpu, nchan;
};

static int is_lost(int ret)
{
	return ret == NVML_ERROR_GPU_IS_LOST || ret == NVML_ERROR_NOT_FOUND;
}

static int have_fn(const struct nvml_api *a, size_t off)
{
	void *p;

	memcpy(&p, (const char *)a + off, sizeof(p));
	return p != NULL;
}

static const char *nvml_text(const struct nvml_src *st, int ret)
{
	const char *s = st->api.error_string ? st->api.error_string(ret) : NULL;

	return s ? s : "NVML error";
}

/* Fills st->api from the symbol table; -ENOSYS naming a missing required one. */
static int resolve(struct nvml_src *st, const char *lib, struct rv_err *err)
{
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *p = NULL;

		for (size_t k = 0; k < SYM_NAMES && syms[i].names[k] && !p; k++)
			p = dlsym(st->dl, syms[i].names[k]);
		if (!p && syms[i].required)
			return rv_err_set(err, -ENOSYS, "%s: no symbol %s (nor an older name)",
					  lib, syms[i].names[0]);
		memcpy((char *)&st->api + syms[i].off, &p, sizeof(p));
	}
	return 0;
}

/* nvmlInit, the GPU count, the GPU array and the XID event set. */
static int start(struct nvml_src *st, const char *lib, struct rv_err *err)
{
	const struct nvml_api *a = &st->api;
	unsigned int n = 0;
	int ret = a->init();

	if (ret != NVML_SUCCESS)
		return rv_err_set(err, -ENODEV, "%s: nvmlInit failed: %s (%d)", lib,
				  nvml_text(st, ret), ret);
	st->inited = 1;
	ret = a->count(&n);
	if (ret != NVML_SUCCESS)
		return rv_err_set(err, -ENODEV, "%s: nvmlDeviceGetCount failed: %s (%d)", lib,
				  nvml_text(st, ret), ret);
	if (n == 0)
		return rv_err_set(err, -ENODEV, "%s: no NVIDIA GPU", lib);
	st->ngpu = n < MAX_GPUS ? n : MAX_GPUS;
	st->gpu = calloc(st->ngpu, sizeof(*st->gpu));
	if (!st->gpu)
		return rv_err_set(err, -ENOMEM, "%s: out of memory for %zu GPUs", lib, st->ngpu);
	if (a->evset_create && a->evset_free && a->register_events && a->evset_wait &&
	    a->evset_create(&st->evset) != NVML_SUCCESS)
		st->evset = NULL;
	return 0;
}

/* Which rows GPU g answers at open; a GPU lost while probed gets none. */
static void probe_gpu(struct nvml_src *st, struct gpu *g)
{
	double v[ROW_MAXV];

	for (size_t r = 0; r < NROWS; r++) {
		int ret;

		if (!have_fn(&st->api, rows[r].fn))
			continue;
		ret = rows[r].read(&st->api, g->dev, rows[r].arg, v);
		if (is_lost(ret)) {
			g->rows = 0;
			g->lost = 1;
			return;
		}
		if (ret != NVML_ERROR_NOT_SUPPORTED && ret != NVML_ERROR_FUNCTION_NOT_FOUND)
			g->rows |= 1u << r;
	}
	g->xid = st->evset &&
		 st->api.register_events(g->dev, EVENT_XID, st->evset) == NVML_SUCCESS;
}

static int add_chan(struct nvml_src *st, struct rv_chanlist *chans, const char *type,
		    const char *inst, double scale, struct rv_err *err)
{
	int rc = rv_chanlist_add(chans, type, inst, scale, err);

	if (!rc)
		st->nchan++;
	return rc;
}

static int add_gpu(struct nvml_src *st, unsigned int i, struct rv_chanlist *chans,
		   struct rv_err *err)
{
	struct gpu *g = &st->gpu[i];
	char inst[32];
	int rc = 0;

	g->first = st->nchan;
	if (st->api.handle(i, &g->dev) != NVML_SUCCESS) {
		g->dev = NULL;
		return 0;
	}
	probe_gpu(st, g);
	snprintf(inst, sizeof(inst), "gpu%u", i);
	for (size_t r = 0; r < NROWS; r++)
		for (size_t k = 0; !rc && (g->rows & (1u << r)) && k < rows[r].n; k++)
			rc = add_chan(st, chans, rows[r].type[k], inst, rows[r].scale[k], err);
	if (!rc && g->xid)
		rc = add_chan(st, chans, "gpu.xid_errors", inst, 1, err);
	return rc;
}

/* Counts the XID events waiting, without blocking, for the GPUs that have
 * the channel; at most MAX_EVENTS_PER_SAMPLE, the rest wait for the next. */
static void drain_xids(struct nvml_src *st)
{
	struct nvml_event_data ev;

	for (int n = 0; st->evset && n < MAX_EVENTS_PER_SAMPLE; n++) {
		memset(&ev, 0, sizeof(ev));
		if (st->api.evset_wait(st->evset, &ev, 0) != NVML_SUCCESS)
			return;
		if (!(ev.type & EVENT_XID))
			continue;
		for (size_t i = 0; i < st->ngpu; i++)
			if (st->gpu[i].dev == ev.device && st->gpu[i].xid) {
				st->gpu[i].xids++;
				break;
			}
	}
}

static void sample_gpu(struct nvml_src *st, struct gpu *g, double *raw, uint8_t *valid)
{
	double v[ROW_MAXV];
	size_t i = 0;

	for (size_t r = 0; r < NROWS; r++) {
		int ret;

		if (!(g->rows & (1u << r)))
			continue;
		ret = g->lost ? NVML_ERROR_GPU_IS_LOST : rows[r].read(&st->api, g->dev, rows[r].arg, v);
		if (is_lost(ret))
			g->lost = 1;
		for (size_t k = 0; ret == NVML_SUCCESS && k < rows[r].n; k++) {
			raw[i + k] = v[k];
			valid[i + k] = 1;
		}
		i += rows[r].n;
	}
	if (g->xid && !g->lost) {
		raw[i] = (double)g->xids;
		valid[i] = 1;
	}
}

static void nvml_sample(void *state, double *raw, uint8_t *valid)
{
	struct nvml_src *st = state;

	drain_xids(st);
	for (size_t i = 0; i < st->ngpu; i++)
		if (st->gpu[i].dev)
			sample_gpu(st, &st->gpu[i], raw + st->gpu[i].first,
				   valid + st->gpu[i].first);
}

static void nvml_close(void *state)
{
	struct nvml_src *st = state;

	if (!st)
		return;
	if (st->evset)
		st->api.evset_free(st->evset);
	if (st->inited)
		st->api.shutdown();
	if (st->dl)
		dlclose(st->dl);
	free(st->gpu);
	free(st);
}

static int nvml_open(const struct rv_collect_cfg *cfg, void **state,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	const char *lib = cfg->nvml_lib ? cfg->nvml_lib : default_lib;
	struct nvml_src *st = calloc(1, sizeof(*st));
	int rc;

	if (!st)
		return rv_err_set(err, -ENOMEM, "nvml: out of memory");
	st->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!st->dl) {
		const char *why = dlerror();

		/* dlerror() already starts with the library name. */
		if (why && strstr(why, lib))
			rc = rv_err_set(err, -ENOENT, "%s (no NVIDIA driver?)", why);
		else
			rc = rv_err_set(err, -ENOENT, "%s: %s", lib, why ? why : "cannot load");
		goto fail;
	}
	rc = resolve(st, lib, err);
	if (!rc)
		rc = start(st, lib, err);
	for (size_t i = 0; !rc && i < st->ngpu; i++)
		rc = add_gpu(st, (unsigned int)i, chans, err);
	if (!rc && st->nchan == 0)
		rc = rv_err_set(err, -ENODEV, "%s: no GPU answers", lib);
	if (rc)
		goto fail;
	*state = st;
	return 0;
fail:
	nvml_close(st);
	return rc;
}

const struct rv_source rv_src_nvml = {
	.name = "nvml",
	.open = nvml_open,
	.sample = nvml_sample,
	.close = nvml_close,
};
