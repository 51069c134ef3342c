/*
 * nvml_facts.c - GPU model and driver for the static facts (facts.h):
 * gpu.driver and gpu.<i>.name, through the NVIDIA management library
 * loaded the way the nvml source loads it (dlopen, our own declarations of
 * the few calls used: no nvml.h). A host without the library gives no GPU
 * facts; nothing here is an error but running out of memory.
 */
#include "collect/nvml_facts.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/facts.h"

enum { NAME_LEN = 96, DRIVER_LEN = 80, GPUS_MAX = 64, NVML_OK = 0 };

struct nvml_device;

struct facts_api {
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned int *n);
	int (*handle)(unsigned int i, struct nvml_device **d);
	int (*name)(struct nvml_device *d, char *buf, unsigned int len);
	int (*driver)(char *buf, unsigned int len);
};

/* The first of the names the library has (versioned names first). */
static void *sym(void *dl, const char *a, const char *b)
{
	void *p = dlsym(dl, a);

	return p || !b ? p : dlsym(dl, b);
}

static int load(void *dl, struct facts_api *api)
{
	*(void **)&api->init = sym(dl, "nvmlInit_v2", "nvmlInit");
	*(void **)&api->shutdown = sym(dl, "nvmlShutdown", NULL);
	*(void **)&api->count = sym(dl, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
	*(void **)&api->handle = sym(dl, "nvmlDeviceGetHandleByIndex_v2",
				     "nvmlDeviceGetHandleByIndex");
	*(void **)&api->name = sym(dl, "nvmlDeviceGetName", NULL);
	*(void **)&api->driver = sym(dl, "nvmlSystemGetDriverVersion", NULL);
	return api->init && api->shutdown && api->count && api->handle;
}

int rv_nvml_facts(const char *lib, struct rv_facts *f)
{
	void *dl = dlopen(lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	struct facts_api api;
	unsigned int n = 0;
	int rc = 0;

	if (!dl)
		return 0;
	if (!load(dl, &api) || api.init() != NVML_OK) {
		dlclose(dl);
		return 0;
	}
	char buf[NAME_LEN > DRIVER_LEN ? NAME_LEN : DRIVER_LEN], key[RV_FACT_KEY_MAX];

	if (api.driver && api.driver(buf, DRIVER_LEN) == NVML_OK) {
		buf[DRIVER_LEN - 1] = '\0';
		rc = rv_facts_add(f, "gpu.driver", buf);
	}
	if (api.name && api.count(&n) == NVML_OK) {
		for (unsigned int i = 0; i < n && i < GPUS_MAX && rc != -ENOMEM; i++) {
			struct nvml_device *d = NULL;

			if (api.handle(i, &d) != NVML_OK || api.name(d, buf, NAME_LEN) != NVML_OK)
				continue;
			buf[NAME_LEN - 1] = '\0';
			snprintf(key, sizeof(key), "gpu.%u.name", i);
			rc = rv_facts_add(f, key, buf);
		}
	}
	api.shutdown();
	dlclose(dl);
	return rc == -ENOMEM ? rc : 0;
}
