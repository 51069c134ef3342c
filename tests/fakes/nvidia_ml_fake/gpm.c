/*
 * gpm.c - the GPM and MIG calls of the fake NVIDIA management library
 * (fake.h; built into libnvidia_ml_fake.so with nvidia_ml_fake.c) for
 * collect/nvml_gpm_test.c, with NVML's ABI.
 *
 * GPM (none of it in libnvidia_ml_old.so: GPM came with R520):
 *   nvmlGpmQueryDeviceSupport    h100: isSupportedDevice 1; a100: 0;
 *                                basic: NOT_SUPPORTED (3). A version other
 *                                than 1 gets ARGUMENT_VERSION_MISMATCH (25).
 *   nvmlGpmSampleAlloc / Free    malloc / free (a leak shows under the
 *                                sanitizers).
 *   nvmlGpmSampleGet(GPU i)      h100 only (a100 and basic: NOT_SUPPORTED);
 *                                works in MIG mode too. Call number k of
 *                                GPU i (from 0, every call on a GPU that is
 *                                not lost) stores sequence number seq = k;
 *                                a call that fails leaves the buffer empty.
 *   nvmlGpmMigSampleGet(i, gi)   GPU instance gi of a GPU in MIG mode (h100
 *                                only): seq = call number of (i, gi).
 *   nvmlGpmMetricsGet            version 1, numMetrics at most 98, both
 *                                samples taken, of the same GPU or GPU
 *                                instance, sample2 newer than sample1, else
 *                                INVALID_ARGUMENT (2) for the whole call (so
 *                                a swapped or stale pair shows). Reads and
 *                                writes metrics[0..numMetrics) only. Metric
 *                                id m (1..97) of GPU i:
 *       value = 1000 m + 100 seq2 + 10 (seq2 - seq1) + i  [+ 100000 gi]
 *                                (the bracket for GPU instance gi); GPU 1,
 *                                SM_UTIL (2), samples 0 then 1: 2111. Other
 *                                ids: nvmlReturn INVALID_ARGUMENT.
 *
 * MIG (h100 and a100; basic: NOT_SUPPORTED):
 *   nvmlDeviceGetMigMode         current = pending = 1 (enabled) for the
 *                                GPU FAKE_NVML_MIG names, else 0
 *   nvmlDeviceGetMaxMigDeviceCount      7
 *   nvmlDeviceGetMigDeviceHandleByIndex MIG device j < n of that GPU: a
 *                                handle of its own (not a GPU handle);
 *                                NOT_FOUND for n <= j < 7; NOT_SUPPORTED on a
 *                                GPU not in MIG mode
 *   nvmlDeviceGetGpuInstanceId   MIG device j: j / c + 1 (c compute
 *                                instances share each GPU instance)
 *   nvmlDeviceGetMemoryInfo_v2   (R510 on, so in both libraries) version
 *                                nvmlMemory_v2 (0x02000028). MIG device of
 *                                GPU instance gi: total 10 gi GiB, used
 *                                (gi + k) GiB, k its call number for that
 *                                MIG device; GPU i: total (16 + i) GiB, used
 *                                (1 + k) GiB + i MiB, as the v1 call
 * A MIG device of the lost GPU answers GPU_IS_LOST, as the GPU does.
 *
 * Environment, read at the first call of this file after the library is
 * loaded or initialised afresh (fake_gpm_reset, from nvmlInit_v2):
 *   FAKE_NVML_MIG=g:n[:c]        GPU g in MIG mode with n GPU instances
 *                                (ids 1..n) of c compute instances each
 *                                (default 1): MIG devices 0..n c - 1, at
 *                                most 7
 *   FAKE_NVML_GPM_FAIL=k1,k2     calls k1, k2 of nvmlGpmSampleGet on each
 *                                GPU (numbered as above) answer UNKNOWN
 *   FAKE_NVML_GPM_UNSUPPORTED=m1,m2   these metric ids answer nvmlReturn
 *                                NOT_SUPPORTED (an H100 without NVLink: 60,61)
 * FAKE_NVML_NOT_SUPPORTED / FAKE_NVML_FAIL name any of these calls.
 *
 * A test double: global state and plain C, no project headers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

enum {
	R_ARG_VERSION = 25, MIG_DEVICES = 7, MIG_ENABLE = 1, GPM_METRIC_MAX = 98,
	GPM_VERSION = 1, SAMPLE_MAGIC = 0x47504d31, LIST_NUM = 24,
};

static const unsigned long long GIB = 1ULL << 30, MIB = 1ULL << 20;
/* nvmlMemory_v2: sizeof(nvmlMemory_v2_t) (40) | 2 << 24. */
static const unsigned int MEMORY_V2 = 40u | (2u << 24);

struct fake_memory_v2 {
	unsigned int version;
	unsigned long long total, reserved, free, used;
};

static struct {
	int loaded;
	long long mig_gpu;              /* -1: none in MIG mode */
	unsigned int ngi, nci, nmig;
	char gpm_fail[FAKE_LIST_MAX], gpm_unsup[FAKE_LIST_MAX];
	unsigned long long gpm_calls[FAKE_MAX_GPUS], gi_calls[MIG_DEVICES + 1];
	unsigned long long mem_gpu[FAKE_MAX_GPUS], mem_mig[MIG_DEVICES];
} g;

/* The MIG devices of the GPU in MIG mode: their own handles. */
static struct nvmlDevice_st mig_dev[MIG_DEVICES];

int nvmlDeviceGetMigMode(struct nvmlDevice_st *d, unsigned int *cur, unsigned int *pending);
int nvmlDeviceGetMaxMigDeviceCount(struct nvmlDevice_st *d, unsigned int *n);
int nvmlDeviceGetMigDeviceHandleByIndex(struct nvmlDevice_st *d, unsigned int j,
					struct nvmlDevice_st **mig);
int nvmlDeviceGetGpuInstanceId(struct nvmlDevice_st *d, unsigned int *id);
int nvmlDeviceGetMemoryInfo_v2(struct nvmlDevice_st *d, struct fake_memory_v2 *m);

static void env_list(char *dst, const char *var)
{
	const char *v = getenv(var);

	snprintf(dst, FAKE_LIST_MAX, "%s", v ? v : "");
}

/* FAKE_NVML_MIG=g:n[:c]. */
static void load_mig(void)
{
	const char *v = getenv("FAKE_NVML_MIG");
	char *end;
	long n = 0, c = 1;

	g.mig_gpu = -1;
	if (!v || !*v)
		return;
	g.mig_gpu = strtol(v, &end, 10);
	if (*end == ':')
		n = strtol(end + 1, &end, 10);
	if (*end == ':')
		c = strtol(end + 1, &end, 10);
	if (n < 1 || c < 1 || n * c > MIG_DEVICES) {
		g.mig_gpu = -1;
		return;
	}
	g.ngi = (unsigned int)n;
	g.nci = (unsigned int)c;
	g.nmig = g.ngi * g.nci;
	for (unsigned int j = 0; j < g.nmig; j++)
		mig_dev[j].index = j;
}

static void load(void)
{
	if (g.loaded)
		return;
	memset(&g, 0, sizeof(g));
	load_mig();
	env_list(g.gpm_fail, "FAKE_NVML_GPM_FAIL");
	env_list(g.gpm_unsup, "FAKE_NVML_GPM_UNSUPPORTED");
	g.loaded = 1;
}

/* The prologue of a call on a GPU handle: fake_gpu_check, then the model's
 * answer (MIG: h100 and a100; GPM: h100 only). */
static int gpu_enter(const char *fn, const struct nvmlDevice_st *d, int gpm)
{
	int ret = fake_gpu_check(fn, d);

	if (ret != R_OK)
		return ret;
	load();
	if (fk.model == FAKE_BASIC || (gpm && fk.model != FAKE_H100))
		return R_NOT_SUPPORTED;
	return R_OK;
}

static int in_mig_mode(const struct nvmlDevice_st *d)
{
	return g.mig_gpu >= 0 && d->index == (unsigned int)g.mig_gpu;
}

/* The prologue of a call on a MIG device handle: its index in *j. */
static int mig_enter(const char *fn, const struct nvmlDevice_st *d, unsigned int *j)
{
	if (!fk.inited)
		return R_UNINITIALIZED;
	load();
	if (!d || d < mig_dev || d >= mig_dev + g.nmig)
		return R_INVALID;
	if (g.mig_gpu == LOST_GPU && fk.lost)
		return R_GPU_IS_LOST;
	*j = d->index;
	return fake_check(fn);
}

int nvmlDeviceGetMigMode(struct nvmlDevice_st *d, unsigned int *cur, unsigned int *pending)
{
	int ret = gpu_enter(__func__, d, 0);

	if (ret == R_OK)
		*cur = *pending = in_mig_mode(d) ? MIG_ENABLE : 0;
	return ret;
}

int nvmlDeviceGetMaxMigDeviceCount(struct nvmlDevice_st *d, unsigned int *n)
{
	int ret = gpu_enter(__func__, d, 0);

	if (ret == R_OK)
		*n = MIG_DEVICES;
	return ret;
}

int nvmlDeviceGetMigDeviceHandleByIndex(struct nvmlDevice_st *d, unsigned int j,
					struct nvmlDevice_st **mig)
{
	int ret = gpu_enter(__func__, d, 0);

	if (ret != R_OK)
		return ret;
	if (!in_mig_mode(d))
		return R_NOT_SUPPORTED;
	if (j >= MIG_DEVICES)
		return R_INVALID;
	if (j >= g.nmig)
		return R_NOT_FOUND;
	*mig = &mig_dev[j];
	return R_OK;
}

int nvmlDeviceGetGpuInstanceId(struct nvmlDevice_st *d, unsigned int *id)
{
	unsigned int j;
	int ret = mig_enter(__func__, d, &j);

	if (ret == R_OK)
		*id = j / g.nci + 1;
	return ret;
}

int nvmlDeviceGetMemoryInfo_v2(struct nvmlDevice_st *d, struct fake_memory_v2 *m)
{
	unsigned int j = 0;
	int ret = d >= mig_dev && d < mig_dev + MIG_DEVICES ? mig_enter(__func__, d, &j) :
		  fake_gpu_check(__func__, d);

	if (ret != R_OK)
		return ret;
	if (m->version != MEMORY_V2)
		return R_ARG_VERSION;
	load();
	m->reserved = 0;
	if (d >= mig_dev && d < mig_dev + MIG_DEVICES) {
		unsigned long long gi = j / g.nci + 1;

		m->total = 10 * gi * GIB;
		m->used = (gi + g.mem_mig[j]++) * GIB;
	} else {
		m->total = (16 + d->index) * GIB;
		m->used = (1 + g.mem_gpu[d->index]++) * GIB + d->index * MIB;
	}
	m->free = m->total - m->used;
	return R_OK;
}

#ifndef FAKE_NVML_OLD_DRIVER

struct nvmlGpmSample_st {
	unsigned int magic;
	int taken;
	unsigned int gpu, gi;           /* gi 0: the whole GPU */
	unsigned long long seq;
};

struct fake_gpm_support { unsigned int version, supported; };

struct fake_gpm_metric {
	unsigned int id;
	int ret;
	double value;
	char *short_name, *long_name, *unit;
};

struct fake_gpm_get {
	unsigned int version, n;
	struct nvmlGpmSample_st *s1, *s2;
	struct fake_gpm_metric m[GPM_METRIC_MAX];
};

int nvmlGpmQueryDeviceSupport(struct nvmlDevice_st *d, struct fake_gpm_support *s);
int nvmlGpmSampleAlloc(struct nvmlGpmSample_st **s);
int nvmlGpmSampleFree(struct nvmlGpmSample_st *s);
int nvmlGpmSampleGet(struct nvmlDevice_st *d, struct nvmlGpmSample_st *s);
int nvmlGpmMigSampleGet(struct nvmlDevice_st *d, unsigned int gi, struct nvmlGpmSample_st *s);
int nvmlGpmMetricsGet(struct fake_gpm_get *q);

int nvmlGpmQueryDeviceSupport(struct nvmlDevice_st *d, struct fake_gpm_support *s)
{
	int ret = gpu_enter(__func__, d, 0);

	if (ret != R_OK)
		return ret;
	if (s->version != GPM_VERSION)
		return R_ARG_VERSION;
	s->supported = fk.model == FAKE_H100;
	return R_OK;
}

int nvmlGpmSampleAlloc(struct nvmlGpmSample_st **s)
{
	int ret = fake_check(__func__);

	if (ret != R_OK)
		return ret;
	*s = calloc(1, sizeof(**s));
	if (!*s)
		return R_UNKNOWN;
	(*s)->magic = SAMPLE_MAGIC;
	return R_OK;
}

int nvmlGpmSampleFree(struct nvmlGpmSample_st *s)
{
	int ret = fake_check(__func__);

	if (ret != R_OK)
		return ret;
	if (!s || s->magic != SAMPLE_MAGIC)
		return R_INVALID;
	s->magic = 0;
	free(s);
	return R_OK;
}

int nvmlGpmSampleGet(struct nvmlDevice_st *d, struct nvmlGpmSample_st *s)
{
	char k[LIST_NUM];
	int ret = gpu_enter(__func__, d, 1);

	if (ret != R_OK)
		return ret;
	if (!s || s->magic != SAMPLE_MAGIC)
		return R_INVALID;
	snprintf(k, sizeof(k), "%llu", g.gpm_calls[d->index]);
	s->taken = 0;
	if (fake_listed(g.gpm_fail, k)) {
		g.gpm_calls[d->index]++;
		return R_UNKNOWN;
	}
	s->seq = g.gpm_calls[d->index]++;
	s->taken = 1;
	s->gpu = d->index;
	s->gi = 0;
	return R_OK;
}

int nvmlGpmMigSampleGet(struct nvmlDevice_st *d, unsigned int gi, struct nvmlGpmSample_st *s)
{
	int ret = gpu_enter(__func__, d, 1);

	if (ret != R_OK)
		return ret;
	if (!s || s->magic != SAMPLE_MAGIC)
		return R_INVALID;
	if (!in_mig_mode(d))
		return R_NOT_SUPPORTED;
	if (gi < 1 || gi > g.ngi)
		return R_NOT_FOUND;
	s->seq = g.gi_calls[gi]++;
	s->taken = 1;
	s->gpu = d->index;
	s->gi = gi;
	return R_OK;
}

static int pair_ok(const struct nvmlGpmSample_st *a, const struct nvmlGpmSample_st *b)
{
	return a && b && a->magic == SAMPLE_MAGIC && b->magic == SAMPLE_MAGIC && a->taken &&
	       b->taken && a->gpu == b->gpu && a->gi == b->gi && b->seq > a->seq;
}

int nvmlGpmMetricsGet(struct fake_gpm_get *q)
{
	char id[LIST_NUM];
	int ret = fake_check(__func__);

	if (ret != R_OK)
		return ret;
	if (q->version != GPM_VERSION)
		return R_ARG_VERSION;
	if (q->n > GPM_METRIC_MAX || !pair_ok(q->s1, q->s2))
		return R_INVALID;
	for (unsigned int k = 0; k < q->n; k++) {
		struct fake_gpm_metric *m = &q->m[k];
		unsigned long long s1 = q->s1->seq, s2 = q->s2->seq;

		snprintf(id, sizeof(id), "%u", m->id);
		m->short_name = m->long_name = m->unit = NULL;
		m->value = 0;
		m->ret = m->id < 1 || m->id >= GPM_METRIC_MAX ? R_INVALID :
			 fake_listed(g.gpm_unsup, id) ? R_NOT_SUPPORTED : R_OK;
		if (m->ret == R_OK)
			m->value = 1000.0 * m->id + 100.0 * (double)s2 + 10.0 * (double)(s2 - s1) +
				   q->s1->gpu + 100000.0 * q->s1->gi;
	}
	return R_OK;
}

#endif

void fake_gpm_reset(void)
{
	memset(&g, 0, sizeof(g));
}
