/*
 * metrics_irq.h - the interrupt, softirq and softnet metric types
 * (metrics_irq.c), a NULL-terminated table like those of metrics.h.
 */
#ifndef RV_CATALOG_METRICS_IRQ_H
#define RV_CATALOG_METRICS_IRQ_H

#include "catalog/catalog.h"

extern const struct rv_metric rv_metrics_irq[];

#endif
