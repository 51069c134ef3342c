/*
 * metrics_sys.h - the metric types of the sysfs sources (sys_*.c in
 * collect/), a NULL-terminated table like those of metrics.h: cpu
 * frequency, temperature and RAPL power, NUMA node memory, network link
 * state and InfiniBand port counters.
 */
#ifndef RV_CATALOG_METRICS_SYS_H
#define RV_CATALOG_METRICS_SYS_H

#include "catalog/catalog.h"

extern const struct rv_metric rv_metrics_sys[];

#endif
