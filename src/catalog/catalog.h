/*
 * catalog.h - what reveal knows about a channel from its name.
 *
 * Names are `subsystem.metric[:instance]` (DESIGN.md). The subsystem is the
 * text before the first dot; cpu, gpu, mem, net and storage are known, all
 * else is RV_SUB_OTHER. The kind says how features treat the channel:
 * gauges get the full statistical feature set, events (sparse error and
 * retransmit counts) get sum and max.
 */
#ifndef RV_CATALOG_CATALOG_H
#define RV_CATALOG_CATALOG_H

#include <stddef.h>

enum rv_subsystem { RV_SUB_CPU, RV_SUB_GPU, RV_SUB_MEM, RV_SUB_NET, RV_SUB_STORAGE,
		    RV_SUB_OTHER, RV_SUB_COUNT };

enum rv_kind { RV_KIND_GAUGE, RV_KIND_COUNTER, RV_KIND_EVENT, RV_KIND_STATIC, RV_KIND_COUNT };

/*
 * Subsystem of `name`: the text before the first dot when it is exactly one
 * of the known ones; RV_SUB_OTHER for anything else, a name without a dot
 * and NULL. A few channels named where the kernel keeps them count another
 * subsystem's activity and belong to it (a table in catalog.c):
 * mem.pgpgin_bytes and mem.pgpgout_bytes are block I/O, storage.
 */
enum rv_subsystem rv_catalog_subsystem(const char *name);
/* Static names ("cpu", ..., "other"; "gauge", ...); "unknown" out of range. */
const char *rv_subsystem_name(enum rv_subsystem s);
const char *rv_kind_name(enum rv_kind k);

/*
 * Kind of a channel known only by name (offline CSV input): RV_KIND_EVENT
 * when a token of the metric part (after the first dot, or all of a name
 * without one, up to any ':'; split at '_', '-', '.'; any case) names
 * errors, drops, retransmits, timeouts, overflows, resets, GPU XID/ECC
 * errors or replays (e.g. net.in_errs, net.retransegs, net.tcp_timeouts,
 * net.listen_overflows, gpu.xid_errors); else RV_KIND_GAUGE, never COUNTER
 * or STATIC. Page faults stay gauges: they are steady rates, not sparse
 * events. The token list is a table in catalog.c.
 */
enum rv_kind rv_catalog_kind_by_name(const char *name);

/*
 * 1 when `name` (instance allowed) is a stock of the live collector: an
 * amount of memory in the mem subsystem (a "bytes" gauge such as
 * mem.cached_bytes or mem.node_anon_pages_bytes), or a count of cached
 * file-system objects (storage.dentries*, storage.inodes*), that stays
 * where a past event left it. A write storm leaves the page cache and the slab grown
 * for hours; a job that loads its data keeps the memory. Detection judges
 * stocks by how they move (spread, slope), not by where they sit, or one
 * event would keep an incident open until the model is refitted. Memory
 * in flight to the disk (Dirty, Writeback, NFS_Unstable, Bounce,
 * WritebackTmp) drains by itself and is not a stock; neither is any name
 * outside the catalog. Pressure from a stock shows in its flows (PSI,
 * reclaim and swap rates).
 */
int rv_catalog_stock(const char *name);

/*
 * 1 when `name` (instance allowed) is the anonymous memory that processes
 * hold: mem.anon_pages_bytes of the host or mem.node_anon_pages_bytes of
 * a NUMA node. Unlike the page cache, which grows with every file read
 * and written, it rises only when programs take memory and keep it. As a
 * stock it is judged by how it moves; where it sits matters to the blame
 * of an incident (pipeline/kept.h): a program that took several hundred
 * MiB and now streams through them moves nothing after its first second.
 */
int rv_catalog_kept(const char *name);

/*
 * The smallest move of channel `name` that an operator would call a change,
 * in the channel's unit, from the unit of its metric type: 1 MiB of memory
 * (but one 1514-byte frame of a qdisc's backlog, which is bytes of packets)
 * or 256 KiB/s of traffic, half a percentage point, 5 ms/s of device time,
 * 64 pages/s, 10 packets/s, half a task, 100 dentries or inodes, 10
 * files; one a second for counts of
 * things (faults, interrupts, merged requests) and for events (sparse
 * error counts, where one is news). 0 for names outside the catalog and
 * for units without an entry. Detection never standardizes a feature by
 * less than this: minutes of learning see many channels stand still, and a
 * standard deviation of nearly nothing makes any later wiggle an outlier,
 * while an error count that stayed 0 would otherwise not be watched.
 */
double rv_catalog_resolution(const char *name);

/*
 * The smallest move of channel `name` that could matter to a workload, in
 * the channel's unit: 64 MiB of memory, 4 MiB/s of traffic or 1024
 * pages/s, 5 percentage points, 50 ms/s of device or stall time, a
 * thousand packets, segments or counted things a second (faults,
 * interrupts, context switches, I/O requests: kernel work of a few
 * microseconds each, about a hundredth of a core; how much an I/O request
 * costs shows in bytes and device time), two tasks, 100 MHz, 5 degrees,
 * 10 W, an IPC of 0.1, 100 packets queued (128 KiB of a qdisc's backlog)
 * or connections, 4 requests in flight, 10000 dentries or inodes cached,
 * 1000 files open; for events (sparse error counts)
 * and for the stalls of direct reclaim and compaction, where each one
 * costs a task, the resolution. 0 for names outside the catalog and units
 * without an entry (every move counts). Detection judges a move against
 * the spread seen while learning; on a quiet host that spread is far below
 * this, and the live agent reports an incident only when a channel it
 * blames moved by at least this much (pipeline/live.h): a hundred
 * page-ins a second on an idle disk are real, and no incident.
 */
double rv_catalog_material(const char *name);

/*
 * 1 when `name` (instance allowed) is a level: how much of a resource the
 * host has or has set aside, which moves only when something changes it
 * and then stays (pipeline/level.h): the memory available to workloads,
 * the memory the kernel manages (a balloon or hot-unplug moves it), the
 * huge page pool (pages, bytes, per node and page size), the swap space,
 * a link's carrier. Then *floor (in the channel's unit) and *rel (a share
 * of the level) say the smallest move of it that counts as a change: the
 * larger of the two. 0 for every other name (floor and rel untouched).
 */
int rv_catalog_level(const char *name, double *floor, double *rel);

/*
 * Side effects: channels that count, in their own subsystem, work another
 * subsystem's activity makes the kernel do. A process created (cpu.forks)
 * copies its parent's page tables and faults in its pages (mem.pgfault,
 * page tables, kernel stacks, committed memory); traffic is received and
 * sent in softirqs (cpu.softirq_pct); block I/O leaves CPUs idle waiting
 * for it and tasks blocked on it (cpu.iowait_pct, cpu.procs_blocked).
 * When the activity moved too, the blame of an incident counts the effect
 * for the activity's subsystem (explain/incident.h): a fork storm is a CPU
 * problem whose page faults follow, a flood on the loopback a network one
 * whose softirqs follow.
 *
 * rv_catalog_effect: the class (0 .. RV_CATALOG_EFFECTS - 1) of which
 * `name` (instance allowed) is an effect, -1 when none; *sub (may be
 * NULL) the subsystem it then counts for. rv_catalog_effect_cause: 1
 * when `name` is an activity (a cause) of class k.
 */
enum { RV_CATALOG_EFFECTS = 3 };
int rv_catalog_effect(const char *name, enum rv_subsystem *sub);
int rv_catalog_effect_cause(const char *name, int k);

/*
 * 1 when `name` is a kernel moving average of a signal the collector also
 * reads directly: the load averages (cpu.load1/5/15, over 1 to 15 minutes)
 * and the 10- and 60-second pressure averages (*.psi_*_avg10_pct and
 * *_avg60_pct; the stall time itself is *.psi_*_stall_pct). Their time
 * constants are longer than a window, so as inputs to detection they only
 * add lag: an incident stays open for 10 s to a minute after its cause
 * ends, or the next fault's blame is the decay of the last one's,
 * and a learning period shorter than their memory sees them drift. They
 * stay in recordings, evidence and reports.
 */
int rv_catalog_smoothed(const char *name);

/*
 * A metric type of the live collector: the channel name without its
 * instance ("cpu.busy_pct" for "cpu.busy_pct:cpu3"). Kind says how a
 * sample becomes a value: gauges are taken as read; counters and events
 * are cumulative in the source and become rates over the measured
 * interval (events are the sparse error counts among them); static facts
 * are kept for reports and left out of detection. unit is the unit of
 * the value after that (so "bytes/s" for a byte counter).
 */
struct rv_metric {
	const char *name;
	const char *unit;
	enum rv_kind kind;
	int interp;             /* interpretability rank, rv_catalog_interpretability */
	const char *help;
};

/*
 * How directly an operator reads channel `name` (its instance after ':'
 * ignored), the first key of `reveal prune`'s priority (select/prune.h):
 * 1 a quantity read as it is (CPU busy %, load, memory free and available,
 * bytes/s of a link or a disk, disk busy %, GPU utilisation, power and
 * temperature, stall % of pressure, OOM kills); 2 a breakdown or a close
 * relative of one (user/system %, cached bytes, packets/s, I/O requests/s,
 * page faults, the 10/60 s pressure averages); 3 an internal counter
 * (vmstat's reclaim and NUMA counters, softirqs by type, TCP extension
 * counters, perf events). A name outside the catalog ranks last, 4.
 */
int rv_catalog_interpretability(const char *name);

enum { RV_INTERP_UNKNOWN = 4 };  /* the rank of a name outside the catalog */

/*
 * How general channel `name` is, the second key of the priority: 0 for a
 * channel of the host as a whole (no ':' instance: cpu.busy_pct), 1 for
 * one of an instance (a CPU, a device, a link, a NUMA node:
 * cpu.busy_pct:cpu3, net.rx_bytes:eth0). Lower is more general. NULL is 1.
 */
int rv_catalog_generality(const char *name);

/* The metric type called `type` (no instance), or NULL. */
const struct rv_metric *rv_catalog_metric(const char *type);
/* The metric type of channel `name`, its instance after ':' ignored
 * ("cpu.busy_pct:cpu3" -> cpu.busy_pct), or NULL (also for NULL). */
const struct rv_metric *rv_catalog_metric_of(const char *name);
/* Every metric type, i < rv_catalog_metric_count(), grouped by subsystem. */
size_t rv_catalog_metric_count(void);
const struct rv_metric *rv_catalog_metric_at(size_t i);

#endif
