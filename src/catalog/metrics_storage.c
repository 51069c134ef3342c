/*
 * metrics_storage.c - metric types of the storage subsystem (see metrics.h).
 */
#include "catalog/metrics.h"

#include <stddef.h>

const struct rv_metric rv_metrics_storage[] = {
	{ NULL, NULL, RV_KIND_GAUGE, NULL },
};
