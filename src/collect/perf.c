/*
 * perf.c - source "perf": per-CPU counters of perf_event_open(2).
 *
 * For every CPU in /sys/devices/system/cpu/online (under the root prefix)
 * up to three event groups are opened CPU-wide (pid -1), each read with
 * one read() of PERF_FORMAT_GROUP plus the enabled and running times:
 *
 *   hardware  cycles, instructions, cache references and misses, branches
 *             and branch misses, front/back-end stalled cycles, LLC load
 *             misses (a generic cache event, or the CPU's own event named
 *             by libpfm4 when the build has it);
 *   software  context switches, migrations, page faults (all, minor,
 *             major) of the kernel's software PMU, read at the collector's
 *             slow sweeps (gaps between; perf_pace below), and by default
 *             only where hardware counters open (cfg->perf_software;
 *             want_software below);
 *   msr       aperf, mperf and tsc of the "msr" PMU, when sysfs lists aperf
 *             and mperf. Busy MHz = tsc rate / 1e6 * aperf rate / mperf
 *             rate is derived downstream, like IPC and miss ratios.
 *
 * Degrades, never pretends: an event the kernel refuses (no PMU in a VM:
 * ENOENT/EOPNOTSUPP; a group too large for the counters: EINVAL) is left
 * out of the channel list; a CPU-wide clock (cpu-clock, task-clock) is not
 * counted because CPU-wide it ticks at wall time whatever the CPU does.
 * When nothing opens, open() fails, and for EACCES/EPERM the message names
 * what unlocks it (CAP_PERFMON, kernel.perf_event_paranoid).
 *
 * Values are cumulative counts scaled by enabled / running time (counters
 * multiplexed with other users), so a scaled value can step back a little:
 * the collector then skips that rate. A group that was never scheduled
 * (running time 0) reads as invalid. The system calls go through struct
 * rv_perf_ops (perf_int.h) so that tests can stand in for the kernel.
 */
#include "collect/sources.h"
#include "collect/perf_int.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/strparse.h"
#include "collect/pfile.h"

#ifdef RV_HAVE_LIBPFM
#include <perfmon/pfmlib_perf_event.h>
#endif

enum { MAX_CPUS = 8192, MAX_MEMBERS = 9, READ_HDR = 3 };
enum grp_kind { GRP_HW, GRP_SW, GRP_MSR, GRP_KINDS };

#define MSR_DIR "/sys/bus/event_source/devices/msr"
#define CACHE_EVENT(cache, op, result) \
	((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

/* A generic event of the kernel: channel type, group, PERF_TYPE_*, config. */
struct gen_event {
	const char *type;
	enum grp_kind grp;
	uint32_t ptype;
	uint64_t config;
};

#define HW(type, config) { type, GRP_HW, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##config }
#define SW(type, config) { type, GRP_SW, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##config }

static const struct gen_event gen_events[] = {
	HW("cpu.cycles", CPU_CYCLES),
	HW("cpu.instructions", INSTRUCTIONS),
	HW("cpu.cache_references", CACHE_REFERENCES),
	HW("cpu.cache_misses", CACHE_MISSES),
	HW("cpu.branches", BRANCH_INSTRUCTIONS),
	HW("cpu.branch_misses", BRANCH_MISSES),
	HW("cpu.stalled_cycles_frontend", STALLED_CYCLES_FRONTEND),
	HW("cpu.stalled_cycles_backend", STALLED_CYCLES_BACKEND),
	{ "cpu.llc_load_misses", GRP_HW, PERF_TYPE_HW_CACHE,
	  CACHE_EVENT(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
		      PERF_COUNT_HW_CACHE_RESULT_MISS) },
	SW("cpu.perf_context_switches", CONTEXT_SWITCHES),
	SW("cpu.perf_cpu_migrations", CPU_MIGRATIONS),
	SW("cpu.perf_page_faults", PAGE_FAULTS),
	SW("cpu.perf_minor_faults", PAGE_FAULTS_MIN),
	SW("cpu.perf_major_faults", PAGE_FAULTS_MAJ),
};

/* msr PMU events (sysfs names) and their channel types; tsc is optional. */
static const char *const msr_names[] = { "aperf", "mperf", "tsc" };
static const char *const msr_types[] = { "cpu.aperf", "cpu.mperf", "cpu.tsc" };
enum { MSR_REQUIRED = 2 };

/*
 * The CPU's own events that libpfm4 may name in place of a generic one
 * (Intel names; elsewhere the generic event stays). First that encodes wins.
 */
static const char *const llc_load_miss_pfm[] = {
	"MEM_LOAD_RETIRED:L3_MISS",             /* Skylake and later */
	"MEM_LOAD_UOPS_RETIRED:L3_MISS",        /* Haswell, Broadwell */
	"MEM_LOAD_UOPS_RETIRED:LLC_MISS",       /* Sandy/Ivy Bridge */
};

/* The events one group will try, in order; the first that opens leads. */
struct plan {
	const char *type[MAX_MEMBERS];
	struct perf_event_attr attr[MAX_MEMBERS];
	unsigned n;
};

struct perf_group {
	int fd[MAX_MEMBERS];    /* [0] the leader; -1 unused */
	unsigned n;             /* members that opened */
	size_t first;           /* channel of fd[0]; the others follow */
	int slow;               /* software events: read once per sw_period_ns */
};

struct perf_src {
	struct rv_perf_ops ops;
	struct perf_group *g;
	size_t ng;
	size_t base;            /* chans->n when open began: g->first counts from it */
	int64_t slow_due;       /* when software groups are read next */
	int paced;              /* a collector says which sweeps read them (pace) */
	int pace_slow;          /* ... and this one does */
	uint64_t buf[READ_HDR + MAX_MEMBERS];   /* nr, enabled, running, values */
};

/* First refusals seen while opening, for the message when nothing opens. */
struct open_errs {
	int perm;               /* -EACCES or -EPERM */
	int other;              /* anything else */
	int hw_err;             /* first refusal of a hardware event */
	unsigned hw;            /* hardware events that opened */
};

static int sys_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

static long sys_read(void *ctx, int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);

	return n < 0 ? -errno : (long)n;
}

static void sys_close(void *ctx, int fd)
{
	close(fd);
}

/*
 * Reading a CPU's group is an inter-processor call to that CPU. Software
 * events (context switches, migrations, page faults per CPU) say what they
 * have to say over a second, and on a busy virtual machine their reads at
 * every 100 ms sweep were half of the collector's cost; they are read at
 * the collector's slow sweeps (perf_pace; collector.h), or once a
 * second by the source's own clock where nobody paces it, gaps in between
 * (the rate then covers the whole span, derive/derive.h). Hardware
 * counters are read at every sweep.
 */
#define SW_PERIOD_NS 1000000000LL

static const struct rv_perf_ops sys_ops = {
	.open = sys_open, .read = sys_read, .close = sys_close, .ctx = NULL,
	.sw_period_ns = SW_PERIOD_NS, .now = NULL,
};

#ifdef RV_HAVE_LIBPFM
/* Encoding of the libpfm4 event `name` into type and config of *attr. */
static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;

	if (pfm_initialize() != PFM_SUCCESS)
		return -ENOTSUP;
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT,
				      &arg) != PFM_SUCCESS)
		return -ENOENT;
	attr->type = a.type;
	attr->config = a.config;
	attr->config1 = a.config1;
	attr->config2 = a.config2;
	return 0;
}
#else
static int pfm_encode(const char *name, struct perf_event_attr *attr)
{
	return -ENOTSUP;
}
#endif

static void plan_add(struct plan *p, const char *type, uint32_t ptype, uint64_t config)
{
	struct perf_event_attr *a = &p->attr[p->n];

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ptype;
	a->config = config;
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	p->type[p->n++] = type;
}

/* The generic events of group `kind`. */
static void plan_generic(struct plan *p, enum grp_kind kind)
{
	const struct gen_event *ev = gen_events;

	for (size_t i = 0; i < sizeof(gen_events) / sizeof(gen_events[0]); i++) {
		if (ev[i].grp != kind || p->n == MAX_MEMBERS)
			continue;
		plan_add(p, ev[i].type, ev[i].ptype, ev[i].config);
		if (strcmp(ev[i].type, "cpu.llc_load_misses") != 0)
			continue;
		for (size_t k = 0; k < sizeof(llc_load_miss_pfm) / sizeof(llc_load_miss_pfm[0]); k++)
			if (pfm_encode(llc_load_miss_pfm[k], &p->attr[p->n - 1]) == 0)
				break;
	}
}

/* Hex (0x...) or decimal number at *s. */
static int scan_num(const char **s, const char *e, uint64_t *v)
{
	const char *q = *s;
	uint64_t x = 0;
	int digits = 0;

	if (e - q < 2 || q[0] != '0' || (q[1] != 'x' && q[1] != 'X'))
		return rv_str_u64(s, e, v);
	for (q += 2; q < e; q++, digits++) {
		int d = *q >= '0' && *q <= '9' ? *q - '0' :
			*q >= 'a' && *q <= 'f' ? *q - 'a' + 10 :
			*q >= 'A' && *q <= 'F' ? *q - 'A' + 10 : -1;

		if (d < 0)
			break;
		if (x >> 60)
			return -ERANGE;
		x = x << 4 | (uint64_t)d;
	}
	if (!digits)
		return -EINVAL;
	*v = x;
	*s = q;
	return 0;
}

/* Opens root + rel, read once: [*s, *e) is its text less trailing newlines
 * and blanks. The caller closes f. */
static int open_text(struct rv_pfile *f, const char *root, const char *rel,
		     const char **s, const char **e, struct rv_err *err)
{
	int rc = rv_pfile_open(f, root, rel, err);

	if (rc)
		return rc;
	*s = f->buf;
	*e = *s + f->len;
	while (*e > *s && ((*e)[-1] == '\n' || (*e)[-1] == ' '))
		(*e)--;
	return 0;
}

/* The whole of file root + rel is one number ("9\n", "event=0x01\n" with
 * prefix "event="). -ENOENT, -EINVAL, ... */
static int read_num(const char *root, const char *rel, const char *prefix, uint64_t *v)
{
	struct rv_pfile f;
	const char *s, *e;
	size_t pl = strlen(prefix);
	int rc = open_text(&f, root, rel, &s, &e, NULL);

	if (rc)
		return rc;
	if ((size_t)(e - s) < pl || memcmp(s, prefix, pl) != 0)
		rc = -EINVAL;
	s += pl;
	if (!rc)
		rc = scan_num(&s, e, v);
	if (!rc && s != e)
		rc = -EINVAL;                   /* more terms than we know */
	rv_pfile_close(&f);
	return rc;
}

/* aperf, mperf (both or neither) and tsc of the msr PMU, when sysfs has them. */
static void plan_msr(struct plan *p, const char *root)
{
	enum { NMSR = sizeof(msr_names) / sizeof(msr_names[0]) };
	const unsigned required = (1u << MSR_REQUIRED) - 1;
	uint64_t type, config[NMSR];
	char rel[128];
	unsigned have = 0;

	if (read_num(root, MSR_DIR "/type", "", &type) || type > UINT32_MAX)
		return;
	for (unsigned i = 0; i < NMSR; i++) {
		snprintf(rel, sizeof(rel), MSR_DIR "/events/%s", msr_names[i]);
		if (read_num(root, rel, "event=", &config[i]) == 0)
			have |= 1u << i;
	}
	if ((have & required) != required)
		return;
	for (unsigned i = 0; i < NMSR; i++)
		if (have & 1u << i)
			plan_add(p, msr_types[i], (uint32_t)type, config[i]);
}

/* CPU list "0-3,5\n" of root + /sys/devices/system/cpu/online into ids. */
static int read_online(const char *root, uint32_t *ids, size_t *n, struct rv_err *err)
{
	struct rv_pfile f;
	const char *s, *e;
	uint64_t a, b;
	int rc = open_text(&f, root, "/sys/devices/system/cpu/online", &s, &e, err);

	if (rc)
		return rc;
	for (*n = 0; !rc && s < e; ) {
		b = 0;
		rc = rv_str_u64(&s, e, &a);
		if (!rc && s < e && *s == '-') {
			s++;
			rc = rv_str_u64(&s, e, &b);
		} else {
			b = a;
		}
		if (!rc && (b < a || b >= MAX_CPUS))
			rc = -ERANGE;
		if (!rc && *n && a <= ids[*n - 1])
			rc = -EINVAL;           /* not ascending: a repeated CPU */
		for (uint64_t c = a; !rc && c <= b && *n < MAX_CPUS; c++)
			ids[(*n)++] = (uint32_t)c;
		if (!rc && s < e && *s++ != ',')
			rc = -EINVAL;
		if (!rc && s == e && e[-1] == ',')
			rc = -EINVAL;
	}
	if (!rc && *n == 0)
		rc = -EINVAL;
	if (rc)
		rc = rv_err_set(err, rc == -ERANGE ? -ERANGE : -EINVAL,
				"%s: not a CPU list", f.path);
	rv_pfile_close(&f);
	return rc;
}

static void note_err(struct open_errs *oe, int rc)
{
	if (rc == -EACCES || rc == -EPERM) {
		if (!oe->perm)
			oe->perm = rc;
	} else if (!oe->other) {
		oe->other = rc;
	}
}

/* Opens on `cpu` what of plan p the kernel accepts, as one group; which
 * plan entries opened go to idx, the first refusal to *refused. Returns how
 * many opened. */
static unsigned open_group(struct perf_src *st, struct plan *p, int cpu, struct perf_group *g,
			   unsigned *idx, int *refused)
{
	g->n = 0;
	for (unsigned i = 0; i < MAX_MEMBERS; i++)
		g->fd[i] = -1;
	for (unsigned i = 0; i < p->n; i++) {
		int fd = st->ops.open(st->ops.ctx, &p->attr[i], -1, cpu,
				      g->n ? g->fd[0] : -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			*refused = *refused ? *refused : fd;
			continue;
		}
		idx[g->n] = i;
		g->fd[g->n++] = fd;
	}
	return g->n;
}

static void close_group(const struct rv_perf_ops *ops, struct perf_group *g)
{
	for (unsigned i = g->n; i-- > 0;)
		if (g->fd[i] >= 0)
			ops->close(ops->ctx, g->fd[i]);
	g->n = 0;
}

static void perf_close(void *state)
{
	struct perf_src *st = state;

	if (!st)
		return;
	for (size_t i = 0; i < st->ng; i++)
		close_group(&st->ops, &st->g[i]);
	free(st->g);
	free(st);
}

static void perf_sample(void *state, double *raw, uint8_t *valid)
{
	struct perf_src *st = state;
	int slow = 1;

	if (st->paced) {
		slow = st->pace_slow;
	} else if (st->ops.sw_period_ns > 0) {
		int64_t now = st->ops.now ? st->ops.now(st->ops.ctx) : (int64_t)rv_clock_ns();

		slow = now >= st->slow_due;
		if (slow)
			st->slow_due = now + st->ops.sw_period_ns;
	}
	for (size_t i = 0; i < st->ng; i++) {
		const struct perf_group *g = &st->g[i];
		size_t want = (READ_HDR + g->n) * sizeof(st->buf[0]);
		long got;
		double f;

		if (g->slow && !slow)
			continue;               /* a gap until the next second */
		got = st->ops.read(st->ops.ctx, g->fd[0], st->buf, want);
		if (got != (long)want || st->buf[0] != g->n || st->buf[2] == 0)
			continue;               /* failed, or never on the PMU */
		f = (double)st->buf[1] / (double)st->buf[2];
		for (unsigned k = 0; k < g->n; k++) {
			raw[g->first + k] = (double)st->buf[READ_HDR + k] * f;
			valid[g->first + k] = 1;
		}
	}
}

/* A collector's word on this sweep: software groups follow its slow
 * sweeps instead of the source's own clock. */
static void perf_pace(void *state, int slow_sweep)
{
	struct perf_src *st = state;

	st->paced = 1;
	st->pace_slow = slow_sweep;
}

/* Opens the groups of one CPU (software ones only when sw) and adds their
 * channels. */
static int open_cpu(struct perf_src *st, struct plan *plans, uint32_t cpu, int sw,
		    struct rv_chanlist *chans, struct open_errs *oe, struct rv_err *err)
{
	unsigned idx[MAX_MEMBERS];
	char inst[32];
	int rc = 0;

	snprintf(inst, sizeof(inst), "cpu%u", cpu);
	for (int k = 0; !rc && k < GRP_KINDS; k++) {
		struct perf_group *g = &st->g[st->ng];
		int refused = 0;
		unsigned n = k == GRP_SW && !sw ? 0 :
			open_group(st, &plans[k], (int)cpu, g, idx, &refused);

		if (refused)
			note_err(oe, refused);
		if (refused && k == GRP_HW && !oe->hw_err)
			oe->hw_err = refused;
		if (!n)
			continue;
		st->ng++;
		g->first = chans->n - st->base;    /* sample's raw starts at our first */
		g->slow = k == GRP_SW;
		oe->hw += k == GRP_HW ? g->n : 0;
		for (unsigned i = 0; !rc && i < g->n; i++)
			rc = rv_chanlist_add(chans, plans[k].type[idx[i]], inst, 1.0, err);
	}
	return rc;
}

/*
 * Whether the software groups are opened: perf_software on or off, or on
 * auto whether a hardware group opens on `cpu` (tried and closed again;
 * *hw_err gets its refusal). Without a PMU (most VMs) the software events
 * are all perf has, each read of a CPU's group is an inter-processor call
 * (~300 us to an idle vCPU of the VM these numbers come from), and
 * /proc/stat and /proc/vmstat count the same events for the host.
 */
static int want_software(struct perf_src *st, const struct rv_collect_cfg *cfg,
			 struct plan *hw, uint32_t cpu, int *hw_err)
{
	struct perf_group probe = { .n = 0 };
	unsigned idx[MAX_MEMBERS], n;

	if (cfg->perf_software != RV_PERF_SW_AUTO)
		return cfg->perf_software == RV_PERF_SW_ON;
	n = open_group(st, hw, (int)cpu, &probe, idx, hw_err);
	if (n)
		close_group(&st->ops, &probe);
	return n > 0;
}

/* The reason nothing opened: a permission to grant, or what the kernel said. */
static int none_opened(const char *root, const struct open_errs *oe, struct rv_err *err)
{
	char level[16] = "unknown";
	struct rv_pfile f;
	const char *s, *e;
	int64_t v;

	if (!oe->perm)
		return rv_err_set(err, oe->other ? oe->other : -ENODEV,
				  "perf: no perf event opens on any CPU (%s)",
				  rv_strerror(oe->other ? oe->other : -ENODEV));
	if (open_text(&f, root, "/proc/sys/kernel/perf_event_paranoid", &s, &e, NULL) == 0) {
		if (rv_str_i64(&s, e, &v) == 0 && s == e)
			snprintf(level, sizeof(level), "%lld", (long long)v);
		rv_pfile_close(&f);
	}
	return rv_err_set(err, oe->perm,
			  "perf: CPU-wide perf events not permitted (%s); kernel.perf_event_paranoid "
			  "is %s: grant CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8) or set "
			  "kernel.perf_event_paranoid to 0 or less",
			  rv_strerror(oe->perm), level);
}

int rv_perf_open_ops(const struct rv_collect_cfg *cfg, const struct rv_perf_ops *ops,
		     void **state, struct rv_chanlist *chans, struct rv_err *err)
{
	struct perf_src *st = calloc(1, sizeof(*st));
	uint32_t *ids = malloc(MAX_CPUS * sizeof(*ids));
	struct plan *plans = calloc(GRP_KINDS, sizeof(*plans));
	struct open_errs oe = { 0, 0, 0, 0 };
	size_t nids = 0;
	int rc, sw, probe_err = 0;

	if (!st || !ids || !plans) {
		rc = rv_err_set(err, -ENOMEM, "perf: out of memory");
		goto fail;
	}
	st->base = chans->n;
	st->ops = *ops;
	rc = read_online(cfg->root, ids, &nids, err);
	if (rc)
		goto fail;
	st->g = calloc(nids * GRP_KINDS, sizeof(*st->g));
	if (!st->g) {
		rc = rv_err_set(err, -ENOMEM, "perf: out of memory for %zu CPUs", nids);
		goto fail;
	}
	plan_generic(&plans[GRP_HW], GRP_HW);
	plan_generic(&plans[GRP_SW], GRP_SW);
	plan_msr(&plans[GRP_MSR], cfg->root);
	sw = nids ? want_software(st, cfg, &plans[GRP_HW], ids[0], &probe_err) : 1;
	for (size_t i = 0; !rc && i < nids; i++)
		rc = open_cpu(st, plans, ids[i], sw, chans, &oe, err);
	if (!rc && st->ng == 0 && !sw && !oe.perm)
		rc = rv_err_set(err, -EOPNOTSUPP, "perf: no hardware counters here (%s); %s",
				rv_strerror(oe.hw_err ? oe.hw_err : probe_err ? probe_err : -ENOENT),
				cfg->perf_software == RV_PERF_SW_OFF ?
				"software events off (collect.perf_software: off)" :
				"software events are counted only beside them (collect."
				"perf_software: auto; on, or record --perf-software on, counts "
				"them anyway)");
	if (!rc && st->ng == 0)
		rc = none_opened(cfg->root, &oe, err);
	if (rc)
		goto fail;
	if (!oe.hw)
		rv_info("perf: no hardware counters here (%s); counting software events",
			rv_strerror(oe.hw_err ? oe.hw_err : -ENOENT));
	free(plans);
	free(ids);
	*state = st;
	return 0;
fail:
	free(plans);
	free(ids);
	perf_close(st);
	return rc;
}

static int perf_open(const struct rv_collect_cfg *cfg, void **state,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	/* The counters are the running kernel's: under a fixture tree they
	 * would describe another host than the files do. */
	if (cfg->root[0])
		return rv_err_set(err, -EOPNOTSUPP,
				  "perf: counts the running kernel, not read under --root %s", cfg->root);
	return rv_perf_open_ops(cfg, &sys_ops, state, chans, err);
}

const struct rv_source rv_src_perf = {
	.name = "perf",
	.open = perf_open,
	.sample = perf_sample,
	.close = perf_close,
	.pace = perf_pace,
};
