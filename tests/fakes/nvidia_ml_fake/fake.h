/*
 * fake.h - state shared by the files of the fake NVIDIA management library
 * (tests/fakes/nvidia_ml_fake.c and the files beside this one, one library).
 *
 * The models (FAKE_NVML_MODEL): basic answers the base calls only; h100
 * (Hopper-class) also GPM, NVLink (18 links), MIG, processes and the
 * health calls; a100 (Ampere-class, 12 links) the same without GPM: its
 * GPM calls exist (a new driver) but the device is not supported.
 * FAKE_NVML_OLD_DRIVER (libnvidia_ml_old.so): a driver before R525: no
 * GPM, no nvmlDeviceGetCurrentClocksEventReasons, no
 * nvmlDeviceGetComputeRunningProcesses_v3 (only _v2), no
 * nvmlSystemGetCudaDriverVersion_v2, whatever the model.
 */
#ifndef FAKE_NVML_FAKE_H
#define FAKE_NVML_FAKE_H

enum { FAKE_MAX_GPUS = 64, FAKE_DEFAULT_GPUS = 2, FAKE_VARIANTS = 4, FAKE_LIST_MAX = 1024 };
enum {
	R_OK = 0, R_UNINITIALIZED = 1, R_INVALID = 2, R_NOT_SUPPORTED = 3, R_NO_PERMISSION = 4,
	R_NOT_FOUND = 6, R_INSUFFICIENT_SIZE = 7, R_TIMEOUT = 10, R_GPU_IS_LOST = 15,
	R_UNKNOWN = 999,
};
enum { LOST_GPU = 1 };
enum fake_model { FAKE_BASIC, FAKE_H100, FAKE_A100 };

struct nvmlDevice_st { unsigned int index; };

struct fake_state {
	int inited;                     /* nvmlInit count */
	unsigned int ngpu;
	enum fake_model model;
	struct nvmlDevice_st dev[FAKE_MAX_GPUS];
	char not_supported[FAKE_LIST_MAX], fail[FAKE_LIST_MAX];
	long long lost_after;           /* -1: never */
	int lost;
	unsigned long long xids;
};

extern struct fake_state fk;

/* Whether `name` is one of the comma-separated words of `list`. */
int fake_listed(const char *list, const char *name);

/* The environment variable as a number, dflt when unset or empty. */
long long fake_env_num(const char *var, long long dflt);

/* The prologue of a library-wide call: R_UNINITIALIZED, the code
 * FAKE_NVML_NOT_SUPPORTED / FAKE_NVML_FAIL give `fn`, or R_OK. */
int fake_check(const char *fn);

/* The prologue of a per-GPU call outside nvidia_ml_fake.c: as fake_check,
 * R_INVALID for a handle not of this library, R_GPU_IS_LOST for the lost
 * GPU. */
int fake_gpu_check(const char *fn, const struct nvmlDevice_st *d);

/* Each part file forgets its call counters and environment: called by
 * nvmlInit_v2 when the init count goes from 0 to 1, so a test that fails
 * before closing the source does not leave its state to the next one. */
void fake_gpm_reset(void);
void fake_link_reset(void);
void fake_health_reset(void);
void fake_proc_reset(void);

#endif
