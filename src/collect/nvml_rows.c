/*
 * nvml_rows.c - the base rows of the nvml source: one NVML call per row
 * and the channels it fills for each GPU (nvml_int.h). A row whose call
 * the driver lacks, or that answers NOT_SUPPORTED at open, has no channel
 * on that GPU.
 *
 * The health rows at the end: memory temperature and row remapping exist
 * on data-centre (HBM) boards, fan speed only on boards with a fan (not on
 * passively cooled SXM modules); elsewhere they answer NOT_SUPPORTED and
 * have no channel. Memory temperature has no call of its own: it is field
 * NVML_FI_DEV_MEMORY_TEMP of nvmlDeviceGetFieldValues, one field per call.
 */
#include "collect/nvml_int.h"

#include <stddef.h>
#include <string.h>

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
	NVML_FI_DEV_MEMORY_TEMP = 82,           /* nvml.h field id; degrees C */
};

/* nvmlValueType_t: which member of a field's value NVML wrote. */
enum {
	NVML_VALUE_TYPE_DOUBLE = 0,
	NVML_VALUE_TYPE_UNSIGNED_INT = 1,
	NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
	NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
	NVML_VALUE_TYPE_SIGNED_INT = 5,
	NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,     /* newer drivers */
};

/* nvmlClocksEventReason* (formerly ThrottleReason) bits. */
static const unsigned long long THR_SW_POWER_CAP = 0x4, THR_HW_SLOWDOWN = 0x8,
	THR_SW_THERMAL = 0x20, THR_HW_THERMAL = 0x40, THR_HW_POWER_BRAKE = 0x80;

#define API(f) offsetof(struct nvml_api, f)

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

	if (ret != RV_NVML_SUCCESS)
		return ret;
	v[0] = p;
	return p >= 0 && p <= NVML_PSTATE_MAX ? RV_NVML_SUCCESS : RV_NVML_NO_VALUE;
}

/* Pages of both causes; a count of 0 asks for the number alone, which NVML
 * answers with INSUFFICIENT_SIZE when there are pages. */
static int rd_retired(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	double sum = 0;

	for (int cause = 0; cause < NVML_PAGE_RETIREMENT_CAUSE_COUNT; cause++) {
		unsigned int n = 0;
		int ret = a->retired(d, cause, &n, NULL);

		if (ret != RV_NVML_SUCCESS && ret != RV_NVML_ERROR_INSUFFICIENT_SIZE)
			return ret;
		sum += n;
	}
	v[0] = sum;
	return RV_NVML_SUCCESS;
}

int rv_nvml_field_double(const struct nvml_field_value *f, double *v)
{
	if (f->ret != RV_NVML_SUCCESS)
		return f->ret;
	switch (f->value_type) {
	case NVML_VALUE_TYPE_DOUBLE: *v = f->value.d; break;
	case NVML_VALUE_TYPE_UNSIGNED_INT: *v = f->value.ui; break;
	case NVML_VALUE_TYPE_UNSIGNED_LONG: *v = (double)f->value.ul; break;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *v = (double)f->value.ull; break;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *v = (double)f->value.sll; break;
	case NVML_VALUE_TYPE_SIGNED_INT: *v = f->value.si; break;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT: *v = f->value.us; break;
	default: return RV_NVML_NO_VALUE;
	}
	return RV_NVML_SUCCESS;
}

/* One field of nvmlDeviceGetFieldValues, `field` its id. The answer is
 * the value's own nvmlReturn: the call itself succeeds for a field the
 * board does not have. */
static int rd_field(const struct nvml_api *a, struct nvml_dev *d, int field, double *v)
{
	struct nvml_field_value f = { .field_id = (unsigned int)field };
	int ret = a->field_values(d, 1, &f);

	return ret != RV_NVML_SUCCESS ? ret : rv_nvml_field_double(&f, v);
}

/* Rows remapped for correctable and uncorrectable errors (cumulative),
 * then whether a remap waits for a reset and whether one failed. */
static int rd_remap(const struct nvml_api *a, struct nvml_dev *d, int arg, double *v)
{
	unsigned int corr = 0, unc = 0, pending = 0, failed = 0;
	int ret = a->remapped_rows(d, &corr, &unc, &pending, &failed);

	v[0] = corr;
	v[1] = unc;
	v[2] = pending != 0;
	v[3] = failed != 0;
	return ret;
}

/* Channel order of a GPU: these rows (those it has), then gpu.xid_errors. */
const struct nvml_row rv_nvml_rows[] = {
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
	{ API(field_values), rd_field, NVML_FI_DEV_MEMORY_TEMP, 1, { "gpu.mem_temp_c" }, { 1 } },
	{ API(remapped_rows), rd_remap, 0, 4,
	  { "gpu.remapped_rows_corr", "gpu.remapped_rows_uncorr", "gpu.remap_pending",
	    "gpu.remap_failed" }, { 1, 1, 1, 1 } },
	{ API(fan), rd_uint, (int)API(fan), 1, { "gpu.fan_pct" }, { 1 } },
};
const size_t rv_nvml_nrows = sizeof(rv_nvml_rows) / sizeof(rv_nvml_rows[0]);
