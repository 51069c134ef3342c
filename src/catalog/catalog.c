/*
 * catalog.c - subsystem and kind of a channel from its name alone.
 *
 * Offline input (CSV, SMD-style data sets) carries nothing but column names,
 * so this file reads what it can from `subsystem.metric[:instance]`: the
 * subsystem from the prefix, and whether the metric is a sparse event count
 * (errors, drops, retransmits, ...) that features should sum rather than
 * describe statistically. Live sources know their kinds exactly and do not
 * need the name heuristic.
 */
#include "catalog/catalog.h"
#include "catalog/metrics.h"
#include "catalog/metrics_gpu.h"
#include "catalog/metrics_irq.h"
#include "catalog/metrics_perf.h"
#include "catalog/metrics_psi.h"
#include "catalog/metrics_sys.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const char *const subsystem_names[] = {
	[RV_SUB_CPU] = "cpu",
	[RV_SUB_GPU] = "gpu",
	[RV_SUB_MEM] = "mem",
	[RV_SUB_NET] = "net",
	[RV_SUB_STORAGE] = "storage",
	[RV_SUB_OTHER] = "other",
};
_Static_assert(sizeof(subsystem_names) / sizeof(subsystem_names[0]) == RV_SUB_COUNT,
	       "one name per enum rv_subsystem");

static const char *const kind_names[] = {
	[RV_KIND_GAUGE] = "gauge",
	[RV_KIND_COUNTER] = "counter",
	[RV_KIND_EVENT] = "event",
	[RV_KIND_STATIC] = "static",
};
_Static_assert(sizeof(kind_names) / sizeof(kind_names[0]) == RV_KIND_COUNT,
	       "one name per enum rv_kind");

/*
 * Tokens of the metric part (split at '_', '-' and '.', compared ignoring
 * case) that mark a sparse event count. Whole tokens, not substrings:
 * "err" is inside "interrupts" and "rst" inside "first". "fault" is left
 * out on purpose: page-fault counts (mem.pgfault, mem.page_faults) are
 * steady rates that deserve the gauge feature set; GPU faults arrive as
 * xid/ecc events and are caught by those tokens.
 */
static const char *const event_tokens[] = {
	"err", "errs", "error", "errors",
	"drop", "drops", "dropped",
	"retrans", "retransegs",
	"timeout", "timeouts",
	"overflow", "overflows",
	"rst", "rsts", "reset", "resets",
	"xid", "ecc", "replay", "replays",
};

static const char *const unknown_name = "unknown";

/*
 * Channels kept under one subsystem's name whose activity is another's:
 * pgpgin and pgpgout sit in /proc/vmstat but count the block layer's
 * reads and writes (every bio submitted, page cache and direct I/O alike),
 * so a write storm's writeback weighs as storage, not memory. Whole names.
 */
static const struct {
	const char *name;
	enum rv_subsystem sub;
} subsystem_moved[] = {
	{ "mem.pgpgin_bytes", RV_SUB_STORAGE },
	{ "mem.pgpgout_bytes", RV_SUB_STORAGE },
};

enum rv_subsystem rv_catalog_subsystem(const char *name)
{
	if (!name)
		return RV_SUB_OTHER;
	for (size_t i = 0; i < sizeof(subsystem_moved) / sizeof(subsystem_moved[0]); i++)
		if (strcmp(name, subsystem_moved[i].name) == 0)
			return subsystem_moved[i].sub;
	const char *dot = strchr(name, '.');
	if (!dot)
		return RV_SUB_OTHER;
	size_t len = (size_t)(dot - name);
	for (int s = 0; s < RV_SUB_OTHER; s++) {
		if (strlen(subsystem_names[s]) == len && memcmp(name, subsystem_names[s], len) == 0)
			return (enum rv_subsystem)s;
	}
	return RV_SUB_OTHER;
}

const char *rv_subsystem_name(enum rv_subsystem s)
{
	if ((unsigned)s >= RV_SUB_COUNT)
		return unknown_name;
	return subsystem_names[s];
}

const char *rv_kind_name(enum rv_kind k)
{
	if ((unsigned)k >= RV_KIND_COUNT)
		return unknown_name;
	return kind_names[k];
}

static int is_token_sep(char c)
{
	return c == '_' || c == '-' || c == '.';
}

static int is_event_token(const char *tok, size_t len)
{
	for (size_t i = 0; i < sizeof(event_tokens) / sizeof(event_tokens[0]); i++) {
		if (strlen(event_tokens[i]) == len && strncasecmp(tok, event_tokens[i], len) == 0)
			return 1;
	}
	return 0;
}

enum rv_kind rv_catalog_kind_by_name(const char *name)
{
	if (!name)
		return RV_KIND_GAUGE;
	const char *dot = strchr(name, '.');
	const char *p = dot ? dot + 1 : name;
	const char *end = strchr(p, ':');
	if (!end)
		end = p + strlen(p);
	while (p < end) {
		const char *tok = p;
		while (p < end && !is_token_sep(*p))
			p++;
		if (p > tok && is_event_token(tok, (size_t)(p - tok)))
			return RV_KIND_EVENT;
		if (p < end)
			p++;
	}
	return RV_KIND_GAUGE;
}

/* Memory gauges that drain by themselves: not stocks (rv_catalog_stock). */
static const char *const draining_tokens[] = { "dirty", "writeback", "unstable", "bounce" };

/* The metric type of a channel name ("mem.x_bytes:node0" -> mem.x_bytes),
 * copied into type; NULL when it is not in the catalog. */
static const struct rv_metric *metric_of(const char *name, char *type, size_t len)
{
	size_t n;

	if (!name)
		return NULL;
	n = strcspn(name, ":");
	if (n >= len)
		return NULL;
	memcpy(type, name, n);
	type[n] = '\0';
	return rv_catalog_metric(type);
}

/* Kernel caches of file-system objects: like the page cache, they keep
 * what a past storm of file operations left until memory is reclaimed. */
static const char *const cache_stocks[] = {
	"storage.dentries", "storage.dentries_unused", "storage.dentries_negative",
	"storage.inodes", "storage.inodes_unused",
};

int rv_catalog_stock(const char *name)
{
	char type[128];
	const struct rv_metric *m = metric_of(name, type, sizeof(type));

	if (!m)
		return 0;
	for (size_t i = 0; i < sizeof(cache_stocks) / sizeof(cache_stocks[0]); i++)
		if (strcmp(type, cache_stocks[i]) == 0)
			return 1;
	if (rv_catalog_subsystem(name) != RV_SUB_MEM || m->kind != RV_KIND_GAUGE ||
	    strcmp(m->unit, "bytes") != 0)
		return 0;
	for (size_t i = 0; i < sizeof(draining_tokens) / sizeof(draining_tokens[0]); i++)
		if (strstr(type, draining_tokens[i]))
			return 0;
	return 1;
}

int rv_catalog_kept(const char *name)
{
	static const char *const held[] = { "mem.anon_pages_bytes", "mem.node_anon_pages_bytes" };
	char type[128];

	if (!metric_of(name, type, sizeof(type)))
		return 0;
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		if (strcmp(type, held[i]) == 0)
			return 1;
	return 0;
}

struct resolution {
	const char *unit;
	double value;
};

static const struct resolution resolutions[] = {
	{ "bytes", 1048576.0 }, { "bytes/s", 262144.0 }, { "%", 0.5 }, { "pages", 256.0 },
	{ "pages/s", 64.0 }, { "ms/s", 5.0 }, { "packets/s", 10.0 }, { "segments/s", 10.0 },
	{ "1/s", 1.0 }, { "tasks", 0.5 }, { "cgroups", 0.5 }, { "MHz", 10.0 }, { "C", 0.5 }, { "W", 1.0 },
	{ "dentries", 100.0 }, { "inodes", 100.0 }, { "files", 10.0 }, { "bytes/segment", 8.0 },
};

/* Bytes that are not memory: a qdisc's backlog is packets waiting to be
 * sent, moved by one full-sized Ethernet frame (1514 bytes). */
static const struct {
	const char *type;
	double value;
} resolution_types[] = {
	{ "net.qdisc_backlog_bytes", 1514.0 },
};

double rv_catalog_resolution(const char *name)
{
	char type[128];
	const struct rv_metric *m = metric_of(name, type, sizeof(type));

	if (!m)
		return 0.0;
	if (m->kind == RV_KIND_EVENT)
		return 1.0;
	for (size_t i = 0; i < sizeof(resolution_types) / sizeof(resolution_types[0]); i++)
		if (strcmp(type, resolution_types[i].type) == 0)
			return resolution_types[i].value;
	for (size_t i = 0; i < sizeof(resolutions) / sizeof(resolutions[0]); i++)
		if (strcmp(m->unit, resolutions[i].unit) == 0)
			return resolutions[i].value;
	return 0.0;
}

/* What could matter to a workload, per unit: 64 MiB of memory, 4 MiB/s of
 * traffic (1024 pages/s), 5 percentage points, 50 ms/s of device or
 * stall time, a thousand packets or counted things a second (kernel work
 * of a few microseconds each: about a hundredth of a core), two tasks,
 * 100 MHz, 5 degrees, 10 W, an IPC of 0.1, 100 packets queued or
 * connections, 4 requests in flight, ten thousand dentries or inodes
 * cached (a second of a metadata storm, a few MiB of slab), a thousand
 * files open. */
static const struct resolution materials[] = {
	{ "bytes", 67108864.0 }, { "bytes/s", 4194304.0 }, { "%", 5.0 }, { "pages", 16384.0 },
	{ "pages/s", 1024.0 }, { "ms/s", 50.0 }, { "packets/s", 1000.0 }, { "segments/s", 1000.0 },
	{ "1/s", 1000.0 }, { "tasks", 2.0 }, { "cgroups", 2.0 }, { "MHz", 100.0 }, { "C", 5.0 },
	{ "W", 10.0 }, { "instr/cycle", 0.1 }, { "packets", 100.0 }, { "connections", 100.0 },
	{ "requests", 4.0 }, { "dentries", 10000.0 }, { "inodes", 10000.0 }, { "files", 1000.0 },
	{ "bytes/segment", 100.0 },
};

/* Metric types whose unit says too little: the stalls of direct reclaim
 * and compaction, each of which costs a task (their resolution), the
 * tasks that exist on the host, of which a program starting adds a few
 * (the runnable and blocked ones are counted in twos), processes created
 * (a fork or an exec copies page tables or maps a program: tens to
 * hundreds of microseconds each, so fifty a second are about a hundredth
 * of a core), and a qdisc's backlog, about 100 full-sized frames as for
 * 100 packets queued. */
static const struct {
	const char *type;
	double value;
} material_types[] = {
	{ "mem.allocstall", 1.0 }, { "mem.compact_stall", 1.0 }, { "cpu.tasks_total", 100.0 },
	{ "cpu.forks", 50.0 },
	{ "net.qdisc_backlog_bytes", 131072.0 },
};

double rv_catalog_material(const char *name)
{
	char type[128];
	const struct rv_metric *m = metric_of(name, type, sizeof(type));

	if (!m)
		return 0.0;
	if (m->kind == RV_KIND_EVENT)
		return rv_catalog_resolution(name);
	for (size_t i = 0; i < sizeof(material_types) / sizeof(material_types[0]); i++)
		if (strcmp(type, material_types[i].type) == 0)
			return material_types[i].value;
	for (size_t i = 0; i < sizeof(materials) / sizeof(materials[0]); i++)
		if (strcmp(m->unit, materials[i].unit) == 0)
			return materials[i].value;
	return 0.0;
}

/* The levels (rv_catalog_level), with the smallest move that counts:
 * available memory moves by hundreds of MiB as the page cache and the
 * reclaimable slab come and go (a metadata storm leaves dentries whose
 * reclaim reserve shows as less available memory), so a change of it is
 * 2 % of the level or 256 MiB; the pool, the swap space and the carrier
 * are settings, and any change of them counts (half a page, 64 MiB of
 * swap, half of a bool). */
static const struct {
	const char *type;
	double floor, rel;
} levels[] = {
	{ "mem.mem_available_bytes", 268435456.0, 0.02 },
	{ "mem.mem_total_bytes", 67108864.0, 0.0 },
	{ "mem.hugepages_total", 0.5, 0.0 },
	{ "mem.hugetlb_bytes", 1048576.0, 0.0 },
	{ "mem.node_hugepages_total", 0.5, 0.0 },
	{ "mem.node_hugepages_size_nr", 0.5, 0.0 },
	{ "mem.swap_total_bytes", 67108864.0, 0.0 },
	{ "net.link_up", 0.5, 0.0 },
};

int rv_catalog_level(const char *name, double *floor, double *rel)
{
	char type[128];

	if (!metric_of(name, type, sizeof(type)))
		return 0;
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strcmp(type, levels[i].type) == 0) {
			*floor = levels[i].floor;
			*rel = levels[i].rel;
			return 1;
		}
	return 0;
}

/* The side effects (catalog.h), one row a class; metric types. */
static const struct {
	const char *effects[5];
	const char *causes[8];
	enum rv_subsystem sub;
} side_effects[RV_CATALOG_EFFECTS] = {
	{ { "mem.pgfault", "mem.page_tables_bytes", "mem.kernel_stack_bytes",
	    "mem.committed_as_bytes" },
	  { "cpu.forks" }, RV_SUB_CPU },
	{ { "cpu.softirq_pct" },
	  { "net.rx_packets", "net.tx_packets", "net.tcp_in_segs", "net.tcp_out_segs",
	    "net.udp_in_datagrams", "net.udp_out_datagrams", "net.ip_in_receives",
	    "net.softirq_net_rx" }, RV_SUB_NET },
	{ { "cpu.iowait_pct", "cpu.procs_blocked" },
	  { "storage.busy_pct", "storage.reads", "storage.writes", "storage.read_bytes",
	    "storage.write_bytes", "storage.weighted_time_ms" }, RV_SUB_STORAGE },
};

static int type_in(const char *type, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n && list[i]; i++)
		if (strcmp(type, list[i]) == 0)
			return 1;
	return 0;
}

int rv_catalog_effect(const char *name, enum rv_subsystem *sub)
{
	char type[128];

	if (!metric_of(name, type, sizeof(type)))
		return -1;
	for (int k = 0; k < RV_CATALOG_EFFECTS; k++)
		if (type_in(type, side_effects[k].effects,
			    sizeof(side_effects[k].effects) / sizeof(side_effects[k].effects[0]))) {
			if (sub)
				*sub = side_effects[k].sub;
			return k;
		}
	return -1;
}

int rv_catalog_effect_cause(const char *name, int k)
{
	char type[128];

	if (k < 0 || k >= RV_CATALOG_EFFECTS || !metric_of(name, type, sizeof(type)))
		return 0;
	return type_in(type, side_effects[k].causes,
		       sizeof(side_effects[k].causes) / sizeof(side_effects[k].causes[0]));
}

int rv_catalog_smoothed(const char *name)
{
	static const char *const loads[] = { "cpu.load1", "cpu.load5", "cpu.load15" };
	char type[128];
	size_t n;

	if (!metric_of(name, type, sizeof(type)))
		return 0;
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++)
		if (strcmp(type, loads[i]) == 0)
			return 1;
	n = strlen(type);
	return strstr(type, ".psi_") && n > 10 &&
	       (strcmp(type + n - 10, "_avg60_pct") == 0 || strcmp(type + n - 10, "_avg10_pct") == 0);
}

static const struct rv_metric *const metric_tables[] = {
	rv_metrics_cpu, rv_metrics_mem, rv_metrics_net, rv_metrics_storage, rv_metrics_psi,
	rv_metrics_perf, rv_metrics_gpu, rv_metrics_sys, rv_metrics_irq, rv_metrics_derived,
};

size_t rv_catalog_metric_count(void)
{
	size_t n = 0;

	for (size_t t = 0; t < sizeof(metric_tables) / sizeof(metric_tables[0]); t++)
		for (const struct rv_metric *m = metric_tables[t]; m->name; m++)
			n++;
	return n;
}

const struct rv_metric *rv_catalog_metric_at(size_t i)
{
	for (size_t t = 0; t < sizeof(metric_tables) / sizeof(metric_tables[0]); t++)
		for (const struct rv_metric *m = metric_tables[t]; m->name; m++)
			if (i-- == 0)
				return m;
	return NULL;
}

/* Linear: looked up once per channel when sources open, never per sample. */
int rv_catalog_interpretability(const char *name)
{
	const struct rv_metric *m = rv_catalog_metric_of(name);

	return m ? m->interp : RV_INTERP_UNKNOWN;
}

int rv_catalog_generality(const char *name)
{
	return !name || strchr(name, ':') != NULL;
}

const struct rv_metric *rv_catalog_metric_of(const char *name)
{
	char type[128];

	return metric_of(name, type, sizeof(type));
}

const struct rv_metric *rv_catalog_metric(const char *type)
{
	if (!type)
		return NULL;
	for (size_t t = 0; t < sizeof(metric_tables) / sizeof(metric_tables[0]); t++)
		for (const struct rv_metric *m = metric_tables[t]; m->name; m++)
			if (strcmp(m->name, type) == 0)
				return m;
	return NULL;
}
