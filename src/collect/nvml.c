/*
 * nvml.c - source "nvml": NVIDIA GPUs through the NVIDIA management library.
 *
 * The library is loaded with dlopen (cfg->nvml_lib, default
 * "libnvidia-ml.so.1") and only the calls reveal makes are declared, with
 * NVML's documented ABI (nvml_int.h): no nvml.h, no link-time dependency,
 * and tests load a fake library instead (tests/fakes/nvidia_ml_fake.c).
 * Symbols are looked up at run time, newest name first (nvmlInit_v2, then
 * nvmlInit). A missing required symbol fails open; a missing optional one
 * only leaves out the channels that need it.
 *
 * Per GPU ("gpu<index>"): the base rows (nvml_rows.c: utilization,
 * memory, power, energy, temperature, clocks, PCIe throughput and
 * replays, volatile ECC counts, clock event reasons, P-state, retired
 * pages, memory temperature (a field of nvmlDeviceGetFieldValues), row
 * remapping, fan) and XID critical errors (an event set drained without
 * waiting at each sample). Then the parts, each for every GPU: GPM and
 * MIG instances (nvml_gpm.c), NVLink (nvml_link.c), compute processes
 * (nvml_proc.c). A call that answers NOT_SUPPORTED at open gets no
 * channel; what a part cannot give is listed among the unavailable with
 * the reason. A call that fails later leaves its channels invalid for
 * that sample. A GPU that falls off the bus (GPU_IS_LOST, NOT_FOUND) is
 * marked lost: its channels stay invalid until the collector reopens, the
 * other GPUs go on. Sampling allocates nothing and never blocks on events.
 */
#include "collect/sources.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "collect/nvml_int.h"

static const char default_lib[] = "libnvidia-ml.so.1";

enum { MAX_EVENTS_PER_SAMPLE = 1024, NAME_LEN_ASKED = 96 };

static const unsigned long long EVENT_XID = 0x8;   /* nvmlEventTypeXidCriticalError */

_Static_assert(sizeof(void *) == sizeof(int (*)(void)),
	       "dlsym results are stored as function pointers");

#define API(f) offsetof(struct nvml_api, f)

static const struct rv_nvml_symdef syms[] = {
	{ { "nvmlInit_v2", "nvmlInit" }, API(init), 1 },
	{ { "nvmlShutdown" }, API(shutdown), 1 },
	{ { "nvmlErrorString" }, API(error_string), 0 },
	{ { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount" }, API(count), 1 },
	{ { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex" }, API(handle), 1 },
	{ { "nvmlDeviceGetName" }, API(name), 0 },
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
	{ { "nvmlDeviceGetFieldValues" }, API(field_values), 0 },
	{ { "nvmlDeviceGetRemappedRows" }, API(remapped_rows), 0 },
	{ { "nvmlDeviceGetFanSpeed" }, API(fan), 0 },
	{ { "nvmlEventSetCreate" }, API(evset_create), 0 },
	{ { "nvmlEventSetFree" }, API(evset_free), 0 },
	{ { "nvmlDeviceRegisterEvents" }, API(register_events), 0 },
	{ { "nvmlEventSetWait_v2", "nvmlEventSetWait" }, API(evset_wait), 0 },
};

/* The parts, in channel order after the base channels (nvml_int.h). */
static const struct nvml_part *const parts[] = {
	&rv_nvml_part_gpm, &rv_nvml_part_link, &rv_nvml_part_proc,
};
enum { NPARTS = sizeof(parts) / sizeof(parts[0]) };
_Static_assert(NPARTS + 1 <= RV_NVML_COSTS, "a cost slot for the base rows and each part");

int rv_nvml_is_lost(int ret)
{
	return ret == RV_NVML_ERROR_GPU_IS_LOST || ret == RV_NVML_ERROR_NOT_FOUND;
}

int rv_nvml_unsupported(int ret)
{
	return ret == RV_NVML_ERROR_NOT_SUPPORTED || ret == RV_NVML_ERROR_FUNCTION_NOT_FOUND ||
	       ret == RV_NVML_ERROR_NO_PERMISSION ||
	       ret == RV_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

void *rv_nvml_sym(void *dl, const char *const *names)
{
	void *p = NULL;

	for (size_t k = 0; names[k] && !p; k++)
		p = dlsym(dl, names[k]);
	return p;
}

const char *rv_nvml_text(const struct nvml_src *st, int ret)
{
	const char *s = st->api.error_string ? st->api.error_string(ret) : NULL;

	return s ? s : "NVML error";
}

const char *rv_nvml_gpu_label(const struct nvml_gpu *g, char *buf, size_t len)
{
	if (g->name[0])
		snprintf(buf, len, "%s (%s)", g->inst, g->name);
	else
		snprintf(buf, len, "%s", g->inst);
	return buf;
}

int rv_nvml_add_chan(struct nvml_src *st, struct rv_chanlist *chans, const char *type,
		     const char *inst, double scale, struct rv_err *err)
{
	int rc = rv_chanlist_add(chans, type, inst, scale, err);

	if (!rc)
		st->nchan++;
	return rc;
}

static int have_fn(const struct nvml_api *a, size_t off)
{
	void *p;

	memcpy(&p, (const char *)a + off, sizeof(p));
	return p != NULL;
}

const char *rv_nvml_resolve(void *dl, const struct rv_nvml_symdef *defs, size_t n, void *api)
{
	for (size_t i = 0; i < n; i++) {
		void *p = rv_nvml_sym(dl, defs[i].names);

		if (!p && defs[i].required)
			return defs[i].names[0];
		memcpy((char *)api + defs[i].off, &p, sizeof(p));
	}
	return NULL;
}

/* Fills st->api from the symbol table; -ENOSYS naming a missing required one. */
static int resolve(struct nvml_src *st, struct rv_err *err)
{
	const char *missing = rv_nvml_resolve(st->dl, syms, sizeof(syms) / sizeof(syms[0]),
					      &st->api);

	if (missing)
		return rv_err_set(err, -ENOSYS, "%s: no symbol %s (nor an older name)", st->lib,
				  missing);
	return 0;
}

/* nvmlInit, the GPU count, the GPU and part arrays and the XID event set. */
static int start(struct nvml_src *st, struct rv_err *err)
{
	const struct nvml_api *a = &st->api;
	unsigned int n = 0;
	int ret = a->init();

	if (ret != RV_NVML_SUCCESS)
		return rv_err_set(err, -ENODEV, "%s: nvmlInit failed: %s (%d)", st->lib,
				  rv_nvml_text(st, ret), ret);
	st->inited = 1;
	ret = a->count(&n);
	if (ret != RV_NVML_SUCCESS)
		return rv_err_set(err, -ENODEV, "%s: nvmlDeviceGetCount failed: %s (%d)",
				  st->lib, rv_nvml_text(st, ret), ret);
	if (n == 0)
		return rv_err_set(err, -ENODEV, "%s: no NVIDIA GPU", st->lib);
	st->ngpu = n < RV_NVML_MAX_GPUS ? n : RV_NVML_MAX_GPUS;
	st->gpu = calloc(st->ngpu, sizeof(*st->gpu));
	st->part = calloc(NPARTS, sizeof(*st->part));
	st->part_first = calloc(NPARTS, sizeof(*st->part_first));
	if (!st->gpu || !st->part || !st->part_first)
		return rv_err_set(err, -ENOMEM, "%s: out of memory for %zu GPUs", st->lib,
				  st->ngpu);
	if (a->evset_create && a->evset_free && a->register_events && a->evset_wait &&
	    a->evset_create(&st->evset) != RV_NVML_SUCCESS)
		st->evset = NULL;
	return 0;
}

/* Which rows GPU g answers at open; a GPU lost while probed gets none. */
static void probe_gpu(struct nvml_src *st, struct nvml_gpu *g)
{
	double v[RV_NVML_ROW_MAXV];

	for (size_t r = 0; r < rv_nvml_nrows; r++) {
		const struct nvml_row *row = &rv_nvml_rows[r];
		int ret;

		if (!have_fn(&st->api, row->fn))
			continue;
		ret = row->read(&st->api, g->dev, row->arg, v);
		if (rv_nvml_is_lost(ret)) {
			g->rows = 0;
			g->lost = 1;
			return;
		}
		if (!rv_nvml_unsupported(ret))
			g->rows |= 1u << r;
	}
	g->xid = st->evset &&
		 st->api.register_events(g->dev, EVENT_XID, st->evset) == RV_NVML_SUCCESS;
}

static int add_gpu(struct nvml_src *st, unsigned int i, struct rv_chanlist *chans,
		   struct rv_err *err)
{
	struct nvml_gpu *g = &st->gpu[i];
	int rc = 0;

	g->first = st->nchan;
	g->index = i;
	snprintf(g->inst, sizeof(g->inst), "gpu%u", i);
	if (st->api.handle(i, &g->dev) != RV_NVML_SUCCESS) {
		g->dev = NULL;
		return 0;
	}
	if (!st->api.name || st->api.name(g->dev, g->name, NAME_LEN_ASKED) != RV_NVML_SUCCESS)
		g->name[0] = '\0';
	g->name[sizeof(g->name) - 1] = '\0';
	probe_gpu(st, g);
	for (size_t r = 0; r < rv_nvml_nrows; r++)
		for (size_t k = 0; !rc && (g->rows & (1u << r)) && k < rv_nvml_rows[r].n; k++)
			rc = rv_nvml_add_chan(st, chans, rv_nvml_rows[r].type[k], g->inst,
					      rv_nvml_rows[r].scale[k], err);
	if (!rc && g->xid)
		rc = rv_nvml_add_chan(st, chans, "gpu.xid_errors", g->inst, 1, err);
	return rc;
}

/* Each part's channels after the base ones; 0, -ENOMEM or -EINVAL. */
static int open_parts(struct nvml_src *st, struct rv_chanlist *chans, struct rv_err *err)
{
	for (size_t p = 0; p < NPARTS; p++) {
		int rc;

		st->part_first[p] = st->nchan;
		rc = parts[p]->open(st, chans, &st->part[p], err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Counts the XID events waiting, without blocking, for the GPUs that have
 * the channel; at most MAX_EVENTS_PER_SAMPLE, the rest wait for the next. */
static void drain_xids(struct nvml_src *st)
{
	struct nvml_event_data ev;

	for (int n = 0; st->evset && n < MAX_EVENTS_PER_SAMPLE; n++) {
		memset(&ev, 0, sizeof(ev));
		if (st->api.evset_wait(st->evset, &ev, 0) != RV_NVML_SUCCESS)
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

static void sample_gpu(struct nvml_src *st, struct nvml_gpu *g, double *raw, uint8_t *valid)
{
	double v[RV_NVML_ROW_MAXV];
	size_t i = 0;

	for (size_t r = 0; r < rv_nvml_nrows; r++) {
		const struct nvml_row *row = &rv_nvml_rows[r];
		int ret;

		if (!(g->rows & (1u << r)))
			continue;
		ret = g->lost ? RV_NVML_ERROR_GPU_IS_LOST : row->read(&st->api, g->dev, row->arg, v);
		if (rv_nvml_is_lost(ret))
			g->lost = 1;
		for (size_t k = 0; ret == RV_NVML_SUCCESS && k < row->n; k++) {
			raw[i + k] = v[k];
			valid[i + k] = 1;
		}
		i += row->n;
	}
	if (g->xid && !g->lost) {
		raw[i] = (double)g->xids;
		valid[i] = 1;
	}
}

static void nvml_sample(void *state, double *raw, uint8_t *valid)
{
	struct nvml_src *st = state;
	rv_ns t0 = rv_clock_ns(), t1;

	drain_xids(st);
	for (size_t i = 0; i < st->ngpu; i++)
		if (st->gpu[i].dev)
			sample_gpu(st, &st->gpu[i], raw + st->gpu[i].first,
				   valid + st->gpu[i].first);
	t1 = rv_clock_ns();
	st->cost_ns[0] += t1 - t0;
	for (size_t p = 0; p < NPARTS; p++) {
		if (!st->part[p])
			continue;
		parts[p]->sample(st->part[p], raw + st->part_first[p], valid + st->part_first[p]);
		t0 = t1;
		t1 = rv_clock_ns();
		st->cost_ns[p + 1] += t1 - t0;
	}
	st->sweeps++;
}

/* The channels of part p (0: the base rows and XIDs, p: parts[p - 1]). */
static size_t part_channels(const struct nvml_src *st, size_t p)
{
	size_t first = p == 0 ? 0 : st->part_first[p - 1];
	size_t end = p < NPARTS ? st->part_first[p] : st->nchan;

	return end - first;
}

size_t rv_nvml_costs(const void *state, struct rv_nvml_cost *out, size_t max)
{
	const struct nvml_src *st = state;
	size_t n = 0;

	for (size_t p = 0; p <= NPARTS && n < max; p++) {
		if (p > 0 && !st->part[p - 1])
			continue;
		out[n] = (struct rv_nvml_cost){
			.name = p == 0 ? "nvml" : parts[p - 1]->name,
			.channels = part_channels(st, p),
			.total_ns = st->cost_ns[p],
			.sweeps = st->sweeps,
		};
		n++;
	}
	return n;
}

static void nvml_close(void *state)
{
	struct nvml_src *st = state;

	if (!st)
		return;
	for (size_t p = 0; st->part && p < NPARTS; p++)
		if (st->part[p])
			parts[p]->close(st->part[p]);
	if (st->evset)
		st->api.evset_free(st->evset);
	if (st->inited)
		st->api.shutdown();
	if (st->dl)
		dlclose(st->dl);
	free(st->gpu);
	free(st->part);
	free(st->part_first);
	free(st);
}

static int nvml_open(const struct rv_collect_cfg *cfg, void **state,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	struct nvml_src *st = calloc(1, sizeof(*st));
	int rc;

	if (!st)
		return rv_err_set(err, -ENOMEM, "nvml: out of memory");
	st->lib = cfg->nvml_lib ? cfg->nvml_lib : default_lib;
	st->dl = dlopen(st->lib, RTLD_NOW | RTLD_LOCAL);
	if (!st->dl) {
		const char *why = dlerror();

		/* dlerror() already starts with the library name. */
		if (why && strstr(why, st->lib))
			rc = rv_err_set(err, -ENOENT, "%s (no NVIDIA driver?)", why);
		else
			rc = rv_err_set(err, -ENOENT, "%s: %s", st->lib, why ? why : "cannot load");
		goto fail;
	}
	rc = resolve(st, err);
	if (!rc)
		rc = start(st, err);
	for (size_t i = 0; !rc && i < st->ngpu; i++)
		rc = add_gpu(st, (unsigned int)i, chans, err);
	if (!rc && st->nchan == 0)
		rc = rv_err_set(err, -ENODEV, "%s: no GPU answers", st->lib);
	if (!rc)
		rc = open_parts(st, chans, err);
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
