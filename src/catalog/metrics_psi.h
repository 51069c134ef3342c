/*
 * metrics_psi.h - the storage.psi_* metric types (metrics_psi.c), a
 * NULL-terminated table like those of metrics.h.
 */
#ifndef RV_CATALOG_METRICS_PSI_H
#define RV_CATALOG_METRICS_PSI_H

#include "catalog/catalog.h"

extern const struct rv_metric rv_metrics_psi[];

#endif
