/*
 * facts.c - the calls of the fake NVIDIA management library that
 * collect/nvml_facts.c reads once for a host's static facts: versions,
 * identity, and the settings fleet drift compares (persistence, power
 * limits, application clocks, ECC, PCIe link; the MIG mode is gpm.c's).
 * Part of libnvidia_ml_fake.so (fake.h); collect/nvml_facts_test.c
 * predicts every value from this table, for GPU i:
 *
 *                      basic            h100                  a100
 *   CUDA driver        12040 ("12.4"; the old driver: 11080, only through
 *                      nvmlSystemGetCudaDriverVersion)
 *   NVML version       "12.999.99-fake" (the old driver: "11.999.99-fake")
 *   UUID               "GPU-fake-000i-0000-0000-0000-000000000000"
 *   serial             not supported    "fake-sn-i"           "fake-sn-i"
 *   VBIOS              "90.00.99.00.0i" "96.00.99.00.0i"      "92.00.99.00.0i"
 *   persistence        off              on                    on
 *   power limit        250000 mW        700000 mW             400000 mW
 *                      (enforced the same)
 *   app clocks SM/MEM  not supported    1980 / 2619 MHz       1410 / 1593 MHz
 *   ECC                not supported    on (pending on)       on (pending on)
 *   MIG mode           gpm.c (not supported; disabled but for the GPU
 *                      FAKE_NVML_MIG names)
 *   PCIe max           gen4 x16         gen5 x16              gen4 x16
 *   PCIe current       the max
 *
 * The basic model stands for a workstation board: what every board has
 * works, the data-centre settings (serial, application clocks, ECC, MIG)
 * answer NOT_SUPPORTED. Environment, read at every call:
 *   FAKE_NVML_ECC_OFF=g          GPU g's ECC is off (pending off)
 *   FAKE_NVML_ECC_PENDING=g      GPU g's ECC is on, pending off
 *   FAKE_NVML_PCIE_GEN=n         every link trained at generation n
 *   FAKE_NVML_PCIE_WIDTH=w       every link trained at width w (max: x16)
 *   FAKE_NVML_POWER_LIMIT_MW=n   every GPU's power limit (enforced too)
 * FAKE_NVML_NOT_SUPPORTED / FAKE_NVML_FAIL name any of these calls, as
 * for the others.
 */
#include <stdio.h>
#include <string.h>

#include "fake.h"

enum { FAKE_PCIE_WIDTH = 16, FAKE_NO_GPU = -1 };

/* A driver before R525 supports CUDA 11.8 at most (R520). */
#ifdef FAKE_NVML_OLD_DRIVER
enum { FAKE_CUDA_VERSION = 11080 };
static const char fake_nvml_version[] = "11.999.99-fake";
#else
enum { FAKE_CUDA_VERSION = 12040 };
static const char fake_nvml_version[] = "12.999.99-fake";
#endif

/* Per model, in the order of enum fake_model: basic, h100, a100. */
static const unsigned int power_mw[] = { 250000, 700000, 400000 };
static const unsigned int vbios_major[] = { 90, 96, 92 };
static const unsigned int app_sm_mhz[] = { 0, 1980, 1410 };
static const unsigned int app_mem_mhz[] = { 0, 2619, 1593 };
static const unsigned int pcie_max_gen[] = { 4, 5, 4 };

int nvmlSystemGetCudaDriverVersion(int *version);
int nvmlSystemGetNVMLVersion(char *version, unsigned int len);
int nvmlDeviceGetUUID(struct nvmlDevice_st *d, char *uuid, unsigned int len);
int nvmlDeviceGetSerial(struct nvmlDevice_st *d, char *serial, unsigned int len);
int nvmlDeviceGetVbiosVersion(struct nvmlDevice_st *d, char *version, unsigned int len);
int nvmlDeviceGetPersistenceMode(struct nvmlDevice_st *d, unsigned int *mode);
int nvmlDeviceGetPowerManagementLimit(struct nvmlDevice_st *d, unsigned int *mw);
int nvmlDeviceGetEnforcedPowerLimit(struct nvmlDevice_st *d, unsigned int *mw);
int nvmlDeviceGetApplicationsClock(struct nvmlDevice_st *d, int type, unsigned int *mhz);
int nvmlDeviceGetEccMode(struct nvmlDevice_st *d, unsigned int *current, unsigned int *pending);
int nvmlDeviceGetCurrPcieLinkGeneration(struct nvmlDevice_st *d, unsigned int *gen);
int nvmlDeviceGetCurrPcieLinkWidth(struct nvmlDevice_st *d, unsigned int *width);
int nvmlDeviceGetMaxPcieLinkGeneration(struct nvmlDevice_st *d, unsigned int *gen);
int nvmlDeviceGetMaxPcieLinkWidth(struct nvmlDevice_st *d, unsigned int *width);

/* The prologue of a call only data-centre boards answer. */
static int dc_check(const char *fn, const struct nvmlDevice_st *d)
{
	int ret = fake_gpu_check(fn, d);

	return ret == R_OK && fk.model == FAKE_BASIC ? R_NOT_SUPPORTED : ret;
}

/* Whether the environment variable names GPU d. */
static int env_gpu(const char *var, const struct nvmlDevice_st *d)
{
	return fake_env_num(var, FAKE_NO_GPU) == (long long)d->index;
}

static int put_text(char *buf, unsigned int len, const char *text)
{
	return snprintf(buf, len, "%s", text) >= (int)len ? R_INSUFFICIENT_SIZE : R_OK;
}

static int cuda_version(const char *fn, int *version)
{
	int ret = fake_check(fn);

	if (ret == R_OK)
		*version = FAKE_CUDA_VERSION;
	return ret;
}

#ifndef FAKE_NVML_OLD_DRIVER
int nvmlSystemGetCudaDriverVersion_v2(int *version);

int nvmlSystemGetCudaDriverVersion_v2(int *version)
{
	return cuda_version(__func__, version);
}
#endif

int nvmlSystemGetCudaDriverVersion(int *version)
{
	return cuda_version(__func__, version);
}

int nvmlSystemGetNVMLVersion(char *version, unsigned int len)
{
	int ret = fake_check(__func__);

	return ret == R_OK ? put_text(version, len, fake_nvml_version) : ret;
}

int nvmlDeviceGetUUID(struct nvmlDevice_st *d, char *uuid, unsigned int len)
{
	int ret = fake_gpu_check(__func__, d);

	if (ret != R_OK)
		return ret;
	if (snprintf(uuid, len, "GPU-fake-%04u-0000-0000-0000-000000000000", d->index) >= (int)len)
		return R_INSUFFICIENT_SIZE;
	return R_OK;
}

int nvmlDeviceGetSerial(struct nvmlDevice_st *d, char *serial, unsigned int len)
{
	int ret = dc_check(__func__, d);

	if (ret != R_OK)
		return ret;
	return snprintf(serial, len, "fake-sn-%u", d->index) >= (int)len ? R_INSUFFICIENT_SIZE : R_OK;
}

int nvmlDeviceGetVbiosVersion(struct nvmlDevice_st *d, char *version, unsigned int len)
{
	int ret = fake_gpu_check(__func__, d);

	if (ret != R_OK)
		return ret;
	if (snprintf(version, len, "%u.00.99.00.%02u", vbios_major[fk.model], d->index) >= (int)len)
		return R_INSUFFICIENT_SIZE;
	return R_OK;
}

int nvmlDeviceGetPersistenceMode(struct nvmlDevice_st *d, unsigned int *mode)
{
	int ret = fake_gpu_check(__func__, d);

	if (ret == R_OK)
		*mode = fk.model == FAKE_BASIC ? 0 : 1;
	return ret;
}

static int power_limit(const char *fn, const struct nvmlDevice_st *d, unsigned int *mw)
{
	int ret = fake_gpu_check(fn, d);

	if (ret == R_OK)
		*mw = (unsigned int)fake_env_num("FAKE_NVML_POWER_LIMIT_MW", power_mw[fk.model]);
	return ret;
}

int nvmlDeviceGetPowerManagementLimit(struct nvmlDevice_st *d, unsigned int *mw)
{
	return power_limit(__func__, d, mw);
}

int nvmlDeviceGetEnforcedPowerLimit(struct nvmlDevice_st *d, unsigned int *mw)
{
	return power_limit(__func__, d, mw);
}

/* Clock types of nvml.h: 1 SM, 2 memory (graphics 0 and video 3 unused). */
int nvmlDeviceGetApplicationsClock(struct nvmlDevice_st *d, int type, unsigned int *mhz)
{
	int ret = dc_check(__func__, d);

	if (ret != R_OK)
		return ret;
	if (type != 1 && type != 2)
		return R_INVALID;
	*mhz = type == 1 ? app_sm_mhz[fk.model] : app_mem_mhz[fk.model];
	return R_OK;
}

int nvmlDeviceGetEccMode(struct nvmlDevice_st *d, unsigned int *current, unsigned int *pending)
{
	int ret = dc_check(__func__, d);

	if (ret != R_OK)
		return ret;
	*current = env_gpu("FAKE_NVML_ECC_OFF", d) ? 0 : 1;
	*pending = env_gpu("FAKE_NVML_ECC_OFF", d) || env_gpu("FAKE_NVML_ECC_PENDING", d) ? 0 : 1;
	return R_OK;
}

static int pcie(const char *fn, const struct nvmlDevice_st *d, unsigned int value,
		unsigned int *out)
{
	int ret = fake_gpu_check(fn, d);

	if (ret == R_OK)
		*out = value;
	return ret;
}

int nvmlDeviceGetCurrPcieLinkGeneration(struct nvmlDevice_st *d, unsigned int *gen)
{
	long long g = fake_env_num("FAKE_NVML_PCIE_GEN", pcie_max_gen[fk.model]);

	return pcie(__func__, d, (unsigned int)g, gen);
}

int nvmlDeviceGetCurrPcieLinkWidth(struct nvmlDevice_st *d, unsigned int *width)
{
	long long w = fake_env_num("FAKE_NVML_PCIE_WIDTH", FAKE_PCIE_WIDTH);

	return pcie(__func__, d, (unsigned int)w, width);
}

int nvmlDeviceGetMaxPcieLinkGeneration(struct nvmlDevice_st *d, unsigned int *gen)
{
	return pcie(__func__, d, pcie_max_gen[fk.model], gen);
}

int nvmlDeviceGetMaxPcieLinkWidth(struct nvmlDevice_st *d, unsigned int *width)
{
	return pcie(__func__, d, FAKE_PCIE_WIDTH, width);
}
