/*
 * metrics.h - the metric tables behind rv_catalog_metric (catalog.h): one
 * const array per subsystem, in metrics_<subsystem>.c, each ended by an
 * entry whose name is NULL. Data, not code: a new metric is one line:
 * name, unit, kind, interpretability rank (1 read directly, 2 a
 * breakdown, 3 an internal counter: rv_catalog_interpretability), help.
 */
#ifndef RV_CATALOG_METRICS_H
#define RV_CATALOG_METRICS_H

#include "catalog/catalog.h"

extern const struct rv_metric rv_metrics_cpu[];
extern const struct rv_metric rv_metrics_mem[];
extern const struct rv_metric rv_metrics_net[];
extern const struct rv_metric rv_metrics_storage[];
extern const struct rv_metric rv_metrics_derived[];

#endif
