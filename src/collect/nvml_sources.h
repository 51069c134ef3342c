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

#endif
