/*
 * metrics_storage.c - metric types of the storage subsystem (see metrics.h):
 * block devices and the file-system caches.
 */
#include "catalog/metrics.h"

#include <stddef.h>

const struct rv_metric rv_metrics_storage[] = {
	/* /proc/diskstats: per whole block device (partitions left out) */
	{ "storage.reads", "1/s", RV_KIND_COUNTER, 2, "reads completed" },
	{ "storage.reads_merged", "1/s", RV_KIND_COUNTER, 3, "reads merged with an adjacent one" },
	{ "storage.read_bytes", "bytes/s", RV_KIND_COUNTER, 1, "bytes read" },
	{ "storage.read_time_ms", "ms/s", RV_KIND_COUNTER, 2, "time spent by reads (sum over requests)" },
	{ "storage.writes", "1/s", RV_KIND_COUNTER, 2, "writes completed" },
	{ "storage.writes_merged", "1/s", RV_KIND_COUNTER, 3, "writes merged with an adjacent one" },
	{ "storage.write_bytes", "bytes/s", RV_KIND_COUNTER, 1, "bytes written" },
	{ "storage.write_time_ms", "ms/s", RV_KIND_COUNTER, 2, "time spent by writes (sum over requests)" },
	{ "storage.in_flight", "requests", RV_KIND_GAUGE, 2, "requests issued and not completed" },
	{ "storage.busy_pct", "%", RV_KIND_COUNTER, 1, "time the device had requests in flight" },
	{ "storage.weighted_time_ms", "ms/s", RV_KIND_COUNTER, 3, "request time weighted by queue depth" },
	{ "storage.discards", "1/s", RV_KIND_COUNTER, 3, "discards completed" },
	{ "storage.discards_merged", "1/s", RV_KIND_COUNTER, 3, "discards merged with an adjacent one" },
	{ "storage.discard_bytes", "bytes/s", RV_KIND_COUNTER, 3, "bytes discarded" },
	{ "storage.discard_time_ms", "ms/s", RV_KIND_COUNTER, 3, "time spent by discards" },
	{ "storage.flushes", "1/s", RV_KIND_COUNTER, 3, "cache flushes completed" },
	{ "storage.flush_time_ms", "ms/s", RV_KIND_COUNTER, 3, "time spent by flushes" },
	/* /proc/sys/fs (proc_fs.c): the file-system caches, for the host */
	{ "storage.dentries", "dentries", RV_KIND_GAUGE, 3, "dentries allocated, in use or cached (dentry-state nr_dentry)" },
	{ "storage.dentries_unused", "dentries", RV_KIND_GAUGE, 3, "dentries cached and unused, reclaimable (dentry-state nr_unused)" },
	{ "storage.dentries_negative", "dentries", RV_KIND_GAUGE, 3, "unused dentries of names that do not exist: failed lookups, unlinked files (dentry-state nr_negative)" },
	{ "storage.inodes", "inodes", RV_KIND_GAUGE, 3, "inodes allocated (inode-nr nr_inodes)" },
	{ "storage.inodes_unused", "inodes", RV_KIND_GAUGE, 3, "inodes cached and unused, reclaimable (inode-nr nr_free_inodes)" },
	{ "storage.files_open", "files", RV_KIND_GAUGE, 2, "file handles allocated: files open on the host (file-nr, first field)" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
