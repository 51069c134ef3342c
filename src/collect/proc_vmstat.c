/*
 * proc_vmstat.c - source "proc.vmstat": /proc/vmstat.
 *
 * A curated set of the kernel's memory event counters, each a counter
 * channel mem.<name> whose rate is per second: faults, pages freed, paging and
 * swapping, reclaim scans and steals, compaction, transparent huge pages,
 * NUMA placement, migration and OOM kills. pgpgin and pgpgout are counted
 * in KiB by the kernel and become mem.pgpgin_bytes / mem.pgpgout_bytes
 * (scale 1024). allocstall and workingset_refault are the sums of their
 * per-zone / per-type lines on kernels that split them. Two gauges: the
 * dirty and under-writeback page counts, times the page size, in bytes
 * (mem.nr_dirty_bytes, mem.nr_writeback_bytes).
 *
 * Only counters the file has at open become channels (older kernels lack
 * the THP and NUMA lines). Catalog lines: metrics_mem.c. The parsing is
 * the key-value reader of proc_meminfo.c.
 */
#include "collect/kvsrc.h"
#include "collect/sources.h"

#define COUNT(key) { #key, "mem." #key, RV_KV_ONE, 0 }
#define SUM(key) { #key, "mem." #key, RV_KV_ONE, 1 }

static const struct rv_kvrow vmstat_rows[] = {
	COUNT(pgfault), COUNT(pgmajfault),
	{ "pgpgin", "mem.pgpgin_bytes", RV_KV_KIB, 0 },
	{ "pgpgout", "mem.pgpgout_bytes", RV_KV_KIB, 0 },
	COUNT(pswpin), COUNT(pswpout),
	COUNT(pgscan_kswapd), COUNT(pgscan_direct),
	COUNT(pgsteal_kswapd), COUNT(pgsteal_direct),
	COUNT(compact_stall), COUNT(compact_fail), COUNT(compact_success),
	COUNT(thp_fault_alloc), COUNT(thp_fault_fallback),
	COUNT(thp_collapse_alloc), COUNT(thp_split_page),
	COUNT(numa_hit), COUNT(numa_miss), COUNT(numa_foreign),
	COUNT(numa_local), COUNT(numa_other),
	COUNT(numa_pte_updates), COUNT(numa_hint_faults),
	COUNT(pgmigrate_success), COUNT(pgmigrate_fail),
	COUNT(oom_kill), SUM(allocstall), SUM(workingset_refault), COUNT(pgfree),
	{ "nr_dirty", "mem.nr_dirty_bytes", RV_KV_PAGE, 0 },
	{ "nr_writeback", "mem.nr_writeback_bytes", RV_KV_PAGE, 0 },
};

static int vmstat_open(const struct rv_collect_cfg *cfg, void **state,
		       struct rv_chanlist *chans, struct rv_err *err)
{
	return rv_kvsrc_open(cfg->root, "/proc/vmstat", vmstat_rows,
			     sizeof(vmstat_rows) / sizeof(vmstat_rows[0]), state, chans, err);
}

const struct rv_source rv_src_proc_vmstat = {
	.name = "proc.vmstat",
	.open = vmstat_open,
	.sample = rv_kvsrc_sample,
	.close = rv_kvsrc_close,
};
