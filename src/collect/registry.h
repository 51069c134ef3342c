/*
 * registry.h - every source's descriptor (defined at the end of its file).
 */
#ifndef RV_COLLECT_REGISTRY_H
#define RV_COLLECT_REGISTRY_H

#include "collect/source.h"

#include "collect/procmem_sources.h"
#include "collect/nvml_sources.h"
#include "collect/perf_sources.h"
#include "collect/procirq_sources.h"
#include "collect/procnet_sources.h"
#include "collect/sysfs_sources.h"

extern const struct rv_source rv_src_proc_stat;

#endif
