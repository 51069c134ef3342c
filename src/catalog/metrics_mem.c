/*
 * metrics_mem.c - metric types of the mem subsystem (see metrics.h).
 */
#include "catalog/metrics.h"

#include <stddef.h>

const struct rv_metric rv_metrics_mem[] = {
	{ NULL, NULL, RV_KIND_GAUGE, NULL },
};
