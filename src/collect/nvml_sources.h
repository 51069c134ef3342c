/*
 * nvml_sources.h - the GPU source "nvml" (nvml.c; source.h is its contract).
 *
 * It loads the NVIDIA management library at open (cfg->nvml_lib, or
 * "libnvidia-ml.so.1" when NULL) with dlopen, so reveal neither links nor
 * needs NVIDIA's headers; a host without the driver gets -ENOENT and the
 * dlerror text as the reason, and the collector goes on without GPUs.
 */
#ifndef RV_COLLECT_NVML_SOURCES_H
#define RV_COLLECT_NVML_SOURCES_H

#include "collect/source.h"

extern const struct rv_source rv_src_nvml;

struct rv_facts;
/* Adds gpu.driver and gpu.<i>.name to f from the library lib (NULL:
 * "libnvidia-ml.so.1"); no library or no answer adds nothing. 0 or
 * -ENOMEM (nvml_facts.c). */
int rv_nvml_facts(const char *lib, struct rv_facts *f);

#endif
