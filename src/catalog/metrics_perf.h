/*
 * metrics_perf.h - the cpu.* metric types counted with perf_event_open by
 * collect/perf.c (metrics_perf.c), a NULL-terminated table like those of
 * metrics.h.
 */
#ifndef RV_CATALOG_METRICS_PERF_H
#define RV_CATALOG_METRICS_PERF_H

#include "catalog/catalog.h"

extern const struct rv_metric rv_metrics_perf[];

#endif
