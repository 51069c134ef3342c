/*
 * link.c - the NVLink calls of the fake NVIDIA management library (part
 * of libnvidia_ml_fake.so, fake.h) for the part nvml.nvlink of
 * collect/nvml.c (nvml_link.c), and nvmlDeviceGetFieldValues, which also
 * answers the memory temperature field of the base rows (health.c).
 *
 * Links: h100 18 (0..17), a100 12 (0..11), basic none:
 * nvmlDeviceGetNvLinkState answers NOT_SUPPORTED there, and
 * INVALID_ARGUMENT for a link past the last. Every link is active (1)
 * except link 5 of GPU 1, which is inactive (0) and moves nothing: its
 * counters stay at their values for k = 0.
 *
 * nvmlDeviceGetFieldValues: the call succeeds; each value carries its own
 * nvmlReturn. Values for GPU i, link l, after k earlier calls on that GPU
 * that asked for the same field id and got it (k = 0 at the source's
 * probe at open; once per call, however many links it asked for):
 *
 *   138 THROUGHPUT_DATA_TX (scopeId l)   100000 (i + 1) + 1000 l + k KiB
 *   139 THROUGHPUT_DATA_RX (scopeId l)   200000 (i + 1) + 1000 l + k KiB
 *   CRC flit errors                      10 i + l + k
 *   CRC data errors                      10 i + l
 *   replay errors                        i + 2 k
 *   recovery errors                      l % 3
 *   165 NVLINK_GET_STATE (scopeId l)     1, 0 for the inactive link
 *   82 MEMORY_TEMP                       health.c
 *
 * Counters are unsigned long long values, the state and the temperature
 * unsigned int. Which ids answer follows the drivers' history (NVML
 * change log, R525): h100 answers the link-scoped ids 161
 * (ERROR_DL_REPLAY), 162 (ERROR_DL_RECOVERY), 163 (ERROR_DL_CRC, the flit
 * CRC) and 165 and not the per-link ids of older drivers, which Hopper
 * dropped, nor CRC data errors, which it has no field for; a100 answers
 * the per-link ids (_L0.._L5: flit 32, data 39, replay 46, recovery 53;
 * _L6.._L11: flit 96, data 102, replay 108, recovery 114; scopeId
 * unused) and not 161..165, so the source's fallback to them is
 * exercised. The old driver (FAKE_NVML_OLD_DRIVER, before R525) knows no
 * id from 161 on. Other ids, and every id on the basic model, answer
 * NOT_SUPPORTED; a scope past the last link INVALID_ARGUMENT.
 *
 * Environment, read at every call:
 *   FAKE_NVML_FIELD_FAIL=a,b           these field ids (decimal) answer
 *                                      UNKNOWN (999) in their nvmlReturn
 *   FAKE_NVML_FIELD_NOT_SUPPORTED=a,b  these answer NOT_SUPPORTED (3)
 * FAKE_NVML_NOT_SUPPORTED / FAKE_NVML_FAIL name the two calls as the
 * others (the whole call answers). Call numbers start at 0 when the
 * library is loaded (health.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "fake.h"

/* Field ids of nvml.h. The per-link ids: from LEGACY_LO, four classes of
 * six links and a total each (LEGACY_STRIDE apart); from LEGACY_HI, the
 * same classes for links 6..11, no totals. */
enum {
	FI_MEMORY_TEMP = 82, FI_DATA_TX = 138, FI_DATA_RX = 139, FI_DL_REPLAY = 161,
	FI_DL_RECOVERY = 162, FI_DL_CRC = 163, FI_GET_STATE = 165, FI_IDS = 256,
	LEGACY_LO = 32, LEGACY_HI = 96, LEGACY_SET = 6, LEGACY_STRIDE = 7, LEGACY_KINDS = 4,
	H100_LINKS = 18, A100_LINKS = 12, DOWN_GPU = 1, DOWN_LINK = 5, ID_TEXT = 16,
};
enum { V_UINT = 1, V_ULL = 3 };                 /* nvmlValueType_t */
enum { C_FLIT, C_DATA, C_REPLAY, C_RECOVERY };  /* the per-link ids, in id order */

/* A driver before R525 knows no field id from 161 on. */
#ifdef FAKE_NVML_OLD_DRIVER
enum { FIRST_UNKNOWN_ID = 161 };
#else
enum { FIRST_UNKNOWN_ID = FI_IDS };
#endif

union fake_value { double d; unsigned int ui; unsigned long long ull; };
struct fake_field {
	unsigned int field_id, scope_id;
	long long timestamp, latency;
	int value_type, ret;
	union fake_value value;
};

static unsigned long long ncalls[FAKE_MAX_GPUS][FI_IDS];

int nvmlDeviceGetNvLinkState(struct nvmlDevice_st *d, unsigned int link, int *active);
int nvmlDeviceGetFieldValues(struct nvmlDevice_st *d, int n, struct fake_field *v);
int fake_mem_temp(const struct nvmlDevice_st *d, unsigned long long k, unsigned int *c);

static unsigned int links_of_model(void)
{
	return fk.model == FAKE_H100 ? H100_LINKS : fk.model == FAKE_A100 ? A100_LINKS : 0;
}

static int link_down(const struct nvmlDevice_st *d, unsigned int link)
{
	return d->index == DOWN_GPU && link == DOWN_LINK;
}

int nvmlDeviceGetNvLinkState(struct nvmlDevice_st *d, unsigned int link, int *active)
{
	int ret = fake_gpu_check(__func__, d);

	if (ret != R_OK)
		return ret;
	if (links_of_model() == 0)
		return R_NOT_SUPPORTED;
	if (link >= links_of_model())
		return R_INVALID;
	*active = !link_down(d, link);
	return R_OK;
}

/* Whether `list` (an environment value, NULL when unset) names field id
 * `id`. */
static int env_field(const char *list, unsigned int id)
{
	char text[ID_TEXT];

	if (!list || !*list)
		return 0;
	snprintf(text, sizeof(text), "%u", id);
	return fake_listed(list, text);
}

/* An error counter of link l, class c, at call k. */
static unsigned long long error_count(unsigned int i, unsigned int l, int c,
				      unsigned long long k)
{
	switch (c) {
	case C_FLIT: return 10ULL * i + l + k;
	case C_DATA: return 10ULL * i + l;
	case C_REPLAY: return i + 2 * k;
	default: return l % 3;
	}
}

/* A per-link id of the older drivers: its class and link, or -1. */
static int legacy_id(unsigned int id, int *c, unsigned int *link)
{
	unsigned int base = id >= LEGACY_HI ? LEGACY_HI : LEGACY_LO;
	unsigned int stride = id >= LEGACY_HI ? LEGACY_SET : LEGACY_STRIDE;
	unsigned int off = id - base;

	if (id < LEGACY_LO || id >= LEGACY_HI + LEGACY_KINDS * LEGACY_SET ||
	    (id >= LEGACY_LO + LEGACY_KINDS * LEGACY_STRIDE && id < LEGACY_HI) ||
	    (base == LEGACY_LO && off % LEGACY_STRIDE == LEGACY_SET))
		return -1;
	*c = (int)(off / stride);
	*link = off % stride + (base == LEGACY_HI ? LEGACY_SET : 0);
	return 0;
}

/* A link-scoped id: its class (C_*, or -1 for the others), or -2 when the
 * id is not one. */
static int scoped_class(unsigned int id)
{
	switch (id) {
	case FI_DL_CRC: return C_FLIT;
	case FI_DL_REPLAY: return C_REPLAY;
	case FI_DL_RECOVERY: return C_RECOVERY;
	case FI_DATA_TX: case FI_DATA_RX: case FI_GET_STATE: return -1;
	default: return -2;
	}
}

/* The value of a link-scoped id on link l at call k. */
static void scoped_value(struct fake_field *f, unsigned int i, unsigned int l, int c,
			 unsigned long long k)
{
	f->value_type = V_ULL;
	if (f->field_id == FI_GET_STATE) {
		f->value_type = V_UINT;
		f->value.ui = !link_down(&fk.dev[i], l);
	} else if (f->field_id == FI_DATA_TX || f->field_id == FI_DATA_RX) {
		f->value.ull = (f->field_id == FI_DATA_TX ? 100000ULL : 200000ULL) * (i + 1) +
			       1000ULL * l + k;
	} else {
		f->value.ull = error_count(i, l, c, k);
	}
}

/* The answer of one NVLink field of GPU d at call k. */
static int link_field(const struct nvmlDevice_st *d, struct fake_field *f, unsigned long long k)
{
	unsigned int link = f->scope_id, nlinks = links_of_model();
	int c = scoped_class(f->field_id);

	if (c == -2) {
		if (fk.model != FAKE_A100 || legacy_id(f->field_id, &c, &link) != 0)
			return R_NOT_SUPPORTED;
		if (link >= nlinks)
			return R_NOT_SUPPORTED;
		f->value_type = V_ULL;
		f->value.ull = error_count(d->index, link, c, link_down(d, link) ? 0 : k);
		return R_OK;
	}
	if (f->field_id >= FI_DL_REPLAY && fk.model != FAKE_H100)
		return R_NOT_SUPPORTED;
	if (link >= nlinks)
		return R_INVALID;
	scoped_value(f, d->index, link, c, link_down(d, link) ? 0 : k);
	return R_OK;
}

/* The answer of value f of GPU d at call k; fail, not_supported: the
 * environment's lists. */
static int one_field(const struct nvmlDevice_st *d, struct fake_field *f, unsigned long long k,
		     const char *fail, const char *not_supported)
{
	if (env_field(fail, f->field_id))
		return R_UNKNOWN;
	if (env_field(not_supported, f->field_id) || fk.model == FAKE_BASIC ||
	    f->field_id >= FIRST_UNKNOWN_ID)
		return R_NOT_SUPPORTED;
	if (f->field_id == FI_MEMORY_TEMP) {
		f->value_type = V_UINT;
		return fake_mem_temp(d, k, &f->value.ui);
	}
	return links_of_model() ? link_field(d, f, k) : R_NOT_SUPPORTED;
}

int nvmlDeviceGetFieldValues(struct nvmlDevice_st *d, int n, struct fake_field *v)
{
	unsigned char got[FI_IDS] = { 0 };
	const char *fail = getenv("FAKE_NVML_FIELD_FAIL");
	const char *not_supported = getenv("FAKE_NVML_FIELD_NOT_SUPPORTED");
	int ret = fake_gpu_check(__func__, d);

	if (ret != R_OK)
		return ret;
	if (n <= 0 || !v)
		return R_INVALID;
	for (int j = 0; j < n; j++) {
		unsigned int id = v[j].field_id;
		unsigned long long k = id < FI_IDS ? ncalls[d->index][id] : 0;

		v[j].timestamp = 0;
		v[j].latency = 0;
		v[j].value.ull = 0;
		v[j].ret = id < FI_IDS ? one_field(d, &v[j], k, fail, not_supported) :
			   R_NOT_SUPPORTED;
		if (v[j].ret == R_OK)
			got[id] = 1;
	}
	for (unsigned int id = 0; id < FI_IDS; id++)
		ncalls[d->index][id] += got[id];
	return R_OK;
}

void fake_link_reset(void)
{
	memset(ncalls, 0, sizeof(ncalls));
}
