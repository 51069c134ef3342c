/*
 * metrics_psi.c - metric types of the storage subsystem read from
 * /proc/pressure/io by proc_pressure.c (see metrics.h). Kept apart from
 * metrics_storage.c so that the two tables can grow independently; the
 * catalog lists this table with the others.
 */
#include "catalog/metrics_psi.h"

#include <stddef.h>

const struct rv_metric rv_metrics_psi[] = {
	{ "storage.psi_some_avg10_pct", "%", RV_KIND_GAUGE, 2, "time some tasks stalled on I/O, 10 s average" },
	{ "storage.psi_some_avg60_pct", "%", RV_KIND_GAUGE, 2, "time some tasks stalled on I/O, 60 s average" },
	{ "storage.psi_some_stall_pct", "%", RV_KIND_COUNTER, 1, "time some tasks stalled on I/O (total= us)" },
	{ "storage.psi_full_avg10_pct", "%", RV_KIND_GAUGE, 2, "time all non-idle tasks stalled on I/O, 10 s average" },
	{ "storage.psi_full_avg60_pct", "%", RV_KIND_GAUGE, 2, "time all non-idle tasks stalled on I/O, 60 s average" },
	{ "storage.psi_full_stall_pct", "%", RV_KIND_COUNTER, 1, "time all non-idle tasks stalled on I/O (total= us)" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
