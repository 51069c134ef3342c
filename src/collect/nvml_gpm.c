/*
 * nvml_gpm.c - part "nvml.gpm" of the nvml source (nvml_int.h): GPM
 * metrics of each GPU (GPU performance monitoring, Hopper and later) and
 * the MIG instances of a GPU in MIG mode.
 *
 * GPM tells what the utilization counters cannot: how busy the SMs, the
 * tensor cores, each FP pipe and device memory were, and PCIe and NVLink
 * throughput, as averages over the interval between two samples of the
 * GPU's performance monitors. Each GPU (and GPU instance) gets two sample
 * buffers at open and its first sample; every sweep takes the next sample
 * into the other buffer, asks nvmlGpmMetricsGet for the twelve metrics
 * between the two, and the new sample becomes the reference. NVML wants
 * more than 100 ms between two samples; the collector's interval is 1 s
 * or more.
 *
 * MIG: a GPU in MIG mode lists its MIG devices (one per compute
 * instance). Each GPU instance becomes the instance "gpu<i>-mig<GPU
 * instance id>" with its memory (nvmlDeviceGetMemoryInfo_v2 on one of its
 * MIG devices) and, where nvmlGpmMigSampleGet works, its own GPM metrics.
 * The whole GPU keeps its GPM channels when its samples work in MIG mode.
 *
 * What a GPU or driver cannot give is noted (rv_chanlist_note), never a
 * failure of the source: GPM or MIG calls missing from the library, a GPU
 * before Hopper, GPM of a GPU instance not supported. A GPU without MIG
 * (nvmlDeviceGetMigMode NOT_SUPPORTED) is not noted: nothing is missing.
 */
#include "collect/nvml_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values of nvml.h (R520 and later). */
enum {
	GPM_SUPPORT_VERSION = 1,        /* NVML_GPM_SUPPORT_VERSION */
	GPM_METRICS_GET_VERSION = 1,    /* NVML_GPM_METRICS_GET_VERSION */
	MIG_ENABLE = 1,                 /* NVML_DEVICE_MIG_ENABLE */
};

enum {
	GPM_NMETRICS = 12,              /* the metrics asked for: gpm_metrics[] */
	MEM_CHANS = 2,                  /* a GPU instance's used and total memory */
	/* nvmlDeviceGetMaxMigDeviceCount says 7 on A100 and H100; a larger
	 * count than this is not believed. */
	MIG_DEVICES_MAX = 64,
	LABEL_LEN = RV_NVML_NAME_MAX + 32,
	NOTE_LEN = RV_CHAN_NOTE_MAX,
};

static const char PART[] = "nvml.gpm";
static const double MIB = 1048576.0;    /* NVML's throughputs are MiB/s */

struct nvml_gpm_sample;                 /* nvmlGpmSample_t is a pointer to it */

/* nvmlGpmSupport_t. */
struct gpm_support {
	unsigned int version;
	unsigned int supported;         /* isSupportedDevice */
};

/* nvmlGpmMetric_t: metricId in; nvmlReturn and value out, the value only
 * valid when nvmlReturn is 0; metricInfo's three names, unused. */
struct gpm_metric {
	unsigned int id;
	int ret;
	double value;
	const char *short_name, *long_name, *unit;
};

/* nvmlGpmMetricsGet_t with metrics[] cut to the entries asked for. nvml.h
 * sizes it NVML_GPM_METRIC_MAX, which grew from 98 (R520) to 333 (CUDA 13)
 * while NVML_GPM_METRICS_GET_VERSION stayed 1: the library cannot know how
 * long the caller's array is beyond numMetrics ("IN: How many metrics to
 * retrieve in metrics[]"), so it reads and writes metrics[0, numMetrics)
 * only, and an array of GPM_NMETRICS is enough. */
struct gpm_get {
	unsigned int version;
	unsigned int n;                 /* numMetrics */
	struct nvml_gpm_sample *s1, *s2;        /* earlier, later */
	struct gpm_metric m[GPM_NMETRICS];
};

/* nvmlMemory_v2_t; its version nvmlMemory_v2 is NVML_STRUCT_VERSION(Memory,
 * 2): the struct's size with 2 in the top byte. */
struct nvml_memory_v2 {
	unsigned int version;
	unsigned long long total, reserved, free, used;
};

static const unsigned int MEMORY_V2 = (unsigned int)sizeof(struct nvml_memory_v2) | (2u << 24);

_Static_assert(offsetof(struct gpm_metric, value) == 8, "nvmlGpmMetric_t layout");
_Static_assert(offsetof(struct gpm_get, m) == 8 + 2 * sizeof(void *), "nvmlGpmMetricsGet_t layout");
_Static_assert(offsetof(struct nvml_memory_v2, total) == 8, "nvmlMemory_v2_t layout");

/* nvmlGpmMetricId_t values (nvml.h) and the channel each fills. */
static const struct {
	unsigned int id;
	const char *type;
	double scale;
} gpm_metrics[GPM_NMETRICS] = {
	{ 1, "gpu.gr_active_pct", 1 },          /* NVML_GPM_METRIC_GRAPHICS_UTIL */
	{ 2, "gpu.sm_active_pct", 1 },          /* NVML_GPM_METRIC_SM_UTIL */
	{ 3, "gpu.sm_occupancy_pct", 1 },       /* NVML_GPM_METRIC_SM_OCCUPANCY */
	{ 5, "gpu.tensor_active_pct", 1 },      /* NVML_GPM_METRIC_ANY_TENSOR_UTIL */
	{ 11, "gpu.fp64_active_pct", 1 },       /* NVML_GPM_METRIC_FP64_UTIL */
	{ 12, "gpu.fp32_active_pct", 1 },       /* NVML_GPM_METRIC_FP32_UTIL */
	{ 13, "gpu.fp16_active_pct", 1 },       /* NVML_GPM_METRIC_FP16_UTIL */
	{ 10, "gpu.dram_active_pct", 1 },       /* NVML_GPM_METRIC_DRAM_BW_UTIL */
	{ 20, "gpu.gpm_pcie_tx_bytes", MIB },   /* NVML_GPM_METRIC_PCIE_TX_PER_SEC */
	{ 21, "gpu.gpm_pcie_rx_bytes", MIB },   /* NVML_GPM_METRIC_PCIE_RX_PER_SEC */
	{ 61, "gpu.nvlink_tx_bytes", MIB },     /* NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC */
	{ 60, "gpu.nvlink_rx_bytes", MIB },     /* NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC */
};

struct gpm_api {
	int (*support)(struct nvml_dev *d, struct gpm_support *s);
	int (*alloc)(struct nvml_gpm_sample **s);
	int (*free)(struct nvml_gpm_sample *s);
	int (*get)(struct nvml_dev *d, struct nvml_gpm_sample *s);
	int (*metrics)(struct gpm_get *q);
	int (*mig_get)(struct nvml_dev *d, unsigned int gi, struct nvml_gpm_sample *s);
	int (*mig_mode)(struct nvml_dev *d, unsigned int *current, unsigned int *pending);
	int (*mig_count)(struct nvml_dev *d, unsigned int *n);
	int (*mig_handle)(struct nvml_dev *d, unsigned int index, struct nvml_dev **mig);
	int (*gi_id)(struct nvml_dev *mig, unsigned int *id);
	int (*mig_memory)(struct nvml_dev *mig, struct nvml_memory_v2 *m);
};

/* The calls that go together: GPM, GPM of a GPU instance, MIG. */
enum sym_set { SET_GPM, SET_GPM_MIG, SET_MIG, NSETS };

#define API(f) offsetof(struct gpm_api, f)

static const struct gpm_sym {
	const char *name;
	size_t off;
	enum sym_set set;
	const char *since;              /* the first driver branch with it */
} syms[] = {
	{ "nvmlGpmQueryDeviceSupport", API(support), SET_GPM, "R520" },
	{ "nvmlGpmSampleAlloc", API(alloc), SET_GPM, "R520" },
	{ "nvmlGpmSampleFree", API(free), SET_GPM, "R520" },
	{ "nvmlGpmSampleGet", API(get), SET_GPM, "R520" },
	{ "nvmlGpmMetricsGet", API(metrics), SET_GPM, "R520" },
	{ "nvmlGpmMigSampleGet", API(mig_get), SET_GPM_MIG, "R520" },
	{ "nvmlDeviceGetMigMode", API(mig_mode), SET_MIG, "R450" },
	{ "nvmlDeviceGetMaxMigDeviceCount", API(mig_count), SET_MIG, "R450" },
	{ "nvmlDeviceGetMigDeviceHandleByIndex", API(mig_handle), SET_MIG, "R450" },
	{ "nvmlDeviceGetGpuInstanceId", API(gi_id), SET_MIG, "R450" },
	{ "nvmlDeviceGetMemoryInfo_v2", API(mig_memory), SET_MIG, "R510" },
};

/* Two sample buffers: s[last] is the reference the next sample is
 * measured against, -1 when there is none yet. */
struct gpm_pair {
	struct nvml_gpm_sample *s[2];
	int last;
};

/* One block of channels: the whole GPU (GPM only) or a GPU instance (its
 * memory, then GPM where it has it), in this order. */
struct gpm_unit {
	struct nvml_gpu *g;             /* the GPU, or the GPU instance's parent */
	struct nvml_dev *mig;           /* a MIG device of the GPU instance; NULL: whole GPU */
	unsigned int gi;                /* GPU instance id */
	int mem, gpm;                   /* has the memory / the GPM channels */
	struct gpm_pair p;
	size_t first;                   /* its first channel in this part */
};

struct gpm_state {
	const struct nvml_src *st;
	struct gpm_api a;
	const struct gpm_sym *missing[NSETS];   /* first missing call of each set */
	size_t base;                    /* st->nchan when this part began */
	struct gpm_unit *unit;
	size_t n, cap;
	struct gpm_get req;             /* the one request, reused every call */
};

static void gpm_close(void *state);

static int note(struct rv_chanlist *chans, struct rv_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Notes what this part cannot give; 0, or -ENOMEM with err set. */
static int note(struct rv_chanlist *chans, struct rv_err *err, const char *fmt, ...)
{
	char why[NOTE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (rv_chanlist_note(chans, PART, "%s", why))
		return rv_err_set(err, -ENOMEM, "%s: out of memory for a note", PART);
	return 0;
}

/* Whether `ret` from a call on unit u says its GPU fell off the bus. A
 * GPU instance that is NOT_FOUND was destroyed, which says nothing of the
 * GPU; only GPU_IS_LOST does. */
static int unit_lost(const struct gpm_unit *u, int ret)
{
	return u->mig ? ret == RV_NVML_ERROR_GPU_IS_LOST : rv_nvml_is_lost(ret);
}

/* The calls; the first missing one of each set, noted for GPM and MIG. */
static int resolve(struct gpm_state *s, void *dl, struct rv_chanlist *chans,
		   struct rv_err *err)
{
	static const enum sym_set noted[] = { SET_GPM, SET_MIG };
	int rc = 0;

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		const char *const names[] = { syms[i].name, NULL };
		void *p = rv_nvml_sym(dl, names);

		memcpy((char *)&s->a + syms[i].off, &p, sizeof(p));
		if (!p && !s->missing[syms[i].set])
			s->missing[syms[i].set] = &syms[i];
	}
	/* GPM of GPU instances alone is noted per instance (open_mig). */
	for (size_t k = 0; !rc && k < sizeof(noted) / sizeof(noted[0]); k++)
		if (s->missing[noted[k]])
			rc = note(chans, err, "%s missing (driver older than %s)",
				  s->missing[noted[k]]->name, s->missing[noted[k]]->since);
	return rc;
}

static void pair_free(const struct gpm_state *s, struct gpm_pair *p)
{
	for (int k = 0; k < 2; k++)
		if (p->s[k])
			s->a.free(p->s[k]);
	p->s[0] = p->s[1] = NULL;
}

/* Both buffers, or none (NVML's code of the failure). */
static int pair_alloc(const struct gpm_state *s, struct gpm_pair *p)
{
	int ret = RV_NVML_SUCCESS;

	p->last = -1;
	for (int k = 0; k < 2 && ret == RV_NVML_SUCCESS; k++)
		ret = s->a.alloc(&p->s[k]);
	if (ret != RV_NVML_SUCCESS)
		pair_free(s, p);
	return ret;
}

/* A sample of unit u into its buffer k. */
static int take(const struct gpm_state *s, const struct gpm_unit *u, int k)
{
	if (u->mig)
		return s->a.mig_get(u->g->dev, u->gi, u->p.s[k]);
	return s->a.get(u->g->dev, u->p.s[k]);
}

/*
 * The sample buffers of unit u and its first sample: u->gpm says whether
 * it gets the GPM channels. A sample that fails for another reason than
 * "not supported" or a lost GPU keeps the channels (a passing failure: the
 * first good sample becomes the reference). `what` names the GPM in the
 * note ("GPM per MIG instance").
 */
static int open_pair(struct gpm_state *s, struct gpm_unit *u, const char *who,
		     const char *what, struct rv_chanlist *chans, struct rv_err *err)
{
	const char *fn = u->mig ? "nvmlGpmMigSampleGet" : "nvmlGpmSampleGet";
	int ret = pair_alloc(s, &u->p);

	if (ret != RV_NVML_SUCCESS)
		return note(chans, err, "%s: %s not available (nvmlGpmSampleAlloc: %s)", who,
			    what, rv_nvml_text(s->st, ret));
	ret = take(s, u, 0);
	if (unit_lost(u, ret)) {
		u->g->lost = 1;
	} else if (!rv_nvml_unsupported(ret)) {
		u->gpm = 1;
		u->p.last = ret == RV_NVML_SUCCESS ? 0 : -1;
		return 0;
	}
	pair_free(s, &u->p);
	if (u->g->lost)
		return 0;
	return note(chans, err, "%s: %s not supported (%s: %s)", who, what, fn,
		    rv_nvml_text(s->st, ret));
}

/* Appends unit u and its channels (instance `inst`). */
static int unit_add(struct gpm_state *s, struct nvml_src *st, struct gpm_unit *u,
		    const char *inst, struct rv_chanlist *chans, struct rv_err *err)
{
	static const char *const mem_types[MEM_CHANS] = { "gpu.mem_used_bytes",
							  "gpu.mem_total_bytes" };
	int rc = 0;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct gpm_unit *v = realloc(s->unit, cap * sizeof(*v));

		if (!v) {
			pair_free(s, &u->p);
			return rv_err_set(err, -ENOMEM, "%s: out of memory for %zu units", PART, cap);
		}
		s->unit = v;
		s->cap = cap;
	}
	u->first = st->nchan - s->base;
	s->unit[s->n++] = *u;
	for (size_t k = 0; !rc && u->mem && k < MEM_CHANS; k++)
		rc = rv_nvml_add_chan(st, chans, mem_types[k], inst, 1, err);
	for (size_t k = 0; !rc && u->gpm && k < GPM_NMETRICS; k++)
		rc = rv_nvml_add_chan(st, chans, gpm_metrics[k].type, inst, gpm_metrics[k].scale,
				      err);
	return rc;
}

/* The whole GPU's GPM channels; *supported: the GPU has GPM at all. */
static int open_whole(struct gpm_state *s, struct nvml_src *st, struct nvml_gpu *g, int in_mig,
		      int *supported, struct rv_chanlist *chans, struct rv_err *err)
{
	struct gpm_support sup = { .version = GPM_SUPPORT_VERSION, .supported = 0 };
	struct gpm_unit u = { .g = g };
	char who[LABEL_LEN];
	int ret = s->a.support(g->dev, &sup), rc;

	rv_nvml_gpu_label(g, who, sizeof(who));
	if (rv_nvml_is_lost(ret)) {
		g->lost = 1;
		return 0;
	}
	if (rv_nvml_unsupported(ret) || (ret == RV_NVML_SUCCESS && !sup.supported))
		return note(chans, err, "%s: GPM not supported (needs Hopper or later)", who);
	if (ret != RV_NVML_SUCCESS)
		return note(chans, err, "%s: GPM not available (nvmlGpmQueryDeviceSupport: %s)",
			    who, rv_nvml_text(s->st, ret));
	*supported = 1;
	rc = open_pair(s, &u, who, in_mig ? "GPM of the whole GPU in MIG mode" : "GPM", chans,
		       err);
	if (rc || !u.gpm)
		return rc;
	return unit_add(s, st, &u, g->inst, chans, err);
}

/* GPU instance gi of GPU g, through its MIG device m: memory, and GPM
 * where the GPU has it (gpm). */
static int open_mig(struct gpm_state *s, struct nvml_src *st, struct nvml_gpu *g,
		    struct nvml_dev *m, unsigned int gi, int gpm, struct rv_chanlist *chans,
		    struct rv_err *err)
{
	struct nvml_memory_v2 mem = { .version = MEMORY_V2 };
	struct gpm_unit u = { .g = g, .mig = m, .gi = gi, .p = { .last = -1 } };
	char inst[sizeof(g->inst) + 16];
	int ret = s->a.mig_memory(m, &mem), rc = 0;

	snprintf(inst, sizeof(inst), "%s-mig%u", g->inst, gi);
	if (unit_lost(&u, ret)) {
		g->lost = 1;
		return 0;
	}
	u.mem = ret == RV_NVML_SUCCESS;
	if (!u.mem)
		rc = note(chans, err, "%s: memory not available (nvmlDeviceGetMemoryInfo_v2: %s)",
			  inst, rv_nvml_text(s->st, ret));
	if (!rc && gpm && !s->a.mig_get)
		rc = note(chans, err, "%s: GPM per MIG instance not supported "
			  "(nvmlGpmMigSampleGet missing)", inst);
	else if (!rc && gpm)
		rc = open_pair(s, &u, inst, "GPM per MIG instance", chans, err);
	if (rc || g->lost || (!u.mem && !u.gpm)) {
		pair_free(s, &u.p);
		return rc;
	}
	return unit_add(s, st, &u, inst, chans, err);
}

/* The GPU instances of GPU g, each through the first of its MIG devices
 * (one per compute instance, several per GPU instance). An index without
 * a MIG device answers NOT_FOUND: the indices may have gaps. */
static int open_migs(struct gpm_state *s, struct nvml_src *st, struct nvml_gpu *g, int gpm,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	unsigned int seen[MIG_DEVICES_MAX], nseen = 0, n = 0;
	int ret = s->a.mig_count(g->dev, &n), rc = 0;
	char who[LABEL_LEN];

	if (rv_nvml_is_lost(ret))
		g->lost = 1;
	if (ret != RV_NVML_SUCCESS)
		return g->lost ? 0 : note(chans, err, "%s: MIG instances not listed "
					  "(nvmlDeviceGetMaxMigDeviceCount: %s)",
					  rv_nvml_gpu_label(g, who, sizeof(who)),
					  rv_nvml_text(s->st, ret));
	n = n < MIG_DEVICES_MAX ? n : MIG_DEVICES_MAX;
	for (unsigned int j = 0; !rc && !g->lost && j < n; j++) {
		struct nvml_dev *m = NULL;
		unsigned int gi = 0, k = 0;

		ret = s->a.mig_handle(g->dev, j, &m);
		if (ret == RV_NVML_SUCCESS)
			ret = s->a.gi_id(m, &gi);
		if (ret == RV_NVML_ERROR_GPU_IS_LOST)
			g->lost = 1;
		while (k < nseen && seen[k] != gi)
			k++;
		if (ret != RV_NVML_SUCCESS || k < nseen)
			continue;
		seen[nseen++] = gi;
		rc = open_mig(s, st, g, m, gi, gpm, chans, err);
	}
	return rc;
}

/* Whether GPU g runs in MIG mode now (*on). */
static int mig_mode(struct gpm_state *s, struct nvml_gpu *g, int *on, struct rv_chanlist *chans,
		    struct rv_err *err)
{
	unsigned int current = 0, pending = 0;
	char who[LABEL_LEN];
	int ret;

	*on = 0;
	if (s->missing[SET_MIG])
		return 0;
	ret = s->a.mig_mode(g->dev, &current, &pending);
	if (rv_nvml_is_lost(ret))
		g->lost = 1;
	if (ret == RV_NVML_SUCCESS)
		*on = current == MIG_ENABLE;
	if (ret == RV_NVML_SUCCESS || g->lost || rv_nvml_unsupported(ret))
		return 0;
	return note(chans, err, "%s: MIG instances not listed (nvmlDeviceGetMigMode: %s)",
		    rv_nvml_gpu_label(g, who, sizeof(who)), rv_nvml_text(s->st, ret));
}

static int open_gpu(struct gpm_state *s, struct nvml_src *st, struct nvml_gpu *g,
		    struct rv_chanlist *chans, struct rv_err *err)
{
	int in_mig = 0, gpm = 0;
	int rc = mig_mode(s, g, &in_mig, chans, err);

	if (!rc && !g->lost && !s->missing[SET_GPM])
		rc = open_whole(s, st, g, in_mig, &gpm, chans, err);
	if (!rc && !g->lost && in_mig)
		rc = open_migs(s, st, g, gpm, chans, err);
	return rc;
}

static int gpm_open(struct nvml_src *st, struct rv_chanlist *chans, void **state,
		    struct rv_err *err)
{
	struct gpm_state *s = calloc(1, sizeof(*s));
	int rc;

	*state = NULL;
	if (!s)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", PART);
	s->st = st;
	s->base = st->nchan;
	rc = resolve(s, st->dl, chans, err);
	for (size_t i = 0; !rc && i < st->ngpu; i++)
		if (st->gpu[i].dev && !st->gpu[i].lost)
			rc = open_gpu(s, st, &st->gpu[i], chans, err);
	if (rc || s->n == 0) {
		gpm_close(s);
		return rc;
	}
	*state = s;
	return 0;
}

/* The twelve metrics between the pair's reference and buffer k. */
static void metrics(struct gpm_state *s, struct gpm_unit *u, int k, double *raw, uint8_t *valid)
{
	struct gpm_get *q = &s->req;
	int ret;

	q->version = GPM_METRICS_GET_VERSION;
	q->n = GPM_NMETRICS;
	q->s1 = u->p.s[u->p.last];
	q->s2 = u->p.s[k];
	for (size_t i = 0; i < GPM_NMETRICS; i++) {
		q->m[i].id = gpm_metrics[i].id;
		q->m[i].ret = RV_NVML_NO_VALUE;
	}
	ret = s->a.metrics(q);
	if (unit_lost(u, ret))
		u->g->lost = 1;
	for (size_t i = 0; ret == RV_NVML_SUCCESS && i < GPM_NMETRICS; i++)
		if (q->m[i].ret == RV_NVML_SUCCESS && isfinite(q->m[i].value)) {
			raw[i] = q->m[i].value;
			valid[i] = 1;
		}
}

/*
 * The next sample of unit u into the buffer that is not the reference,
 * and the metrics since the reference. When the sample fails, the
 * reference stays: the next sweep's values then cover the interval since
 * the last good sample, two sweeps or more, rather than a pair of which
 * one sample is stale or missing.
 */
static void sample_gpm(struct gpm_state *s, struct gpm_unit *u, double *raw, uint8_t *valid)
{
	int k = u->p.last == 0 ? 1 : 0;
	int ret = take(s, u, k);

	if (unit_lost(u, ret))
		u->g->lost = 1;
	if (ret != RV_NVML_SUCCESS)
		return;
	if (u->p.last >= 0)
		metrics(s, u, k, raw, valid);
	u->p.last = k;
}

static void sample_mem(struct gpm_state *s, struct gpm_unit *u, double *raw, uint8_t *valid)
{
	struct nvml_memory_v2 m = { .version = MEMORY_V2 };
	int ret = s->a.mig_memory(u->mig, &m);

	if (unit_lost(u, ret))
		u->g->lost = 1;
	if (ret != RV_NVML_SUCCESS)
		return;
	raw[0] = (double)m.used;
	raw[1] = (double)m.total;
	valid[0] = valid[1] = 1;
}

static void gpm_sample(void *state, double *raw, uint8_t *valid)
{
	struct gpm_state *s = state;

	for (size_t i = 0; i < s->n; i++) {
		struct gpm_unit *u = &s->unit[i];
		size_t at = u->first;

		if (u->mem && !u->g->lost)
			sample_mem(s, u, raw + at, valid + at);
		at += u->mem ? MEM_CHANS : 0;
		if (u->gpm && !u->g->lost)
			sample_gpm(s, u, raw + at, valid + at);
	}
}

static void gpm_close(void *state)
{
	struct gpm_state *s = state;

	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		pair_free(s, &s->unit[i].p);
	free(s->unit);
	free(s);
}

const struct nvml_part rv_nvml_part_gpm = {
	.name = PART,
	.open = gpm_open,
	.sample = gpm_sample,
	.close = gpm_close,
};
