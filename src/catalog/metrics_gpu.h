/*
 * metrics_gpu.h - the gpu.* metric types (metrics_gpu.c), read through
 * NVML by collect/nvml.c; a NULL-terminated table like those of metrics.h.
 */
#ifndef RV_CATALOG_METRICS_GPU_H
#define RV_CATALOG_METRICS_GPU_H

#include "catalog/catalog.h"

extern const struct rv_metric rv_metrics_gpu[];

#endif
