/*
 * metrics_net.c - metric types of the net subsystem (see metrics.h).
 */
#include "catalog/metrics.h"

#include <stddef.h>

const struct rv_metric rv_metrics_net[] = {
	{ NULL, NULL, RV_KIND_GAUGE, NULL },
};
