/*
 * proc_stat.c - source "proc.stat": /proc/stat.
 *
 * Per CPU and for the whole host ("cpu" line, no instance): the time
 * shares user, nice, system, idle, iowait, irq, softirq, steal and busy
 * (all but idle and iowait), as counters of USER_HZ ticks whose rate, scaled
 * by 100 / USER_HZ, is a percentage of the CPU (for the host line, of all
 * CPUs together: scaled down by their count). Host-wide: context switches,
 * interrupts and forks per second, runnable and blocked tasks (gauges),
 * each when its line is there at open.
 *
 * CPUs are matched by the number in "cpuN", so an offline CPU (its line
 * missing) is a gap in its own channels only; a CPU that was not there at
 * open is not followed until the collector reopens.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strparse.h"
#include "collect/pfile.h"

enum { CPU_FIELDS = 8, CPU_CHANS = CPU_FIELDS + 1, MAX_CPUS = 8192 };
enum { HOST_CTXT, HOST_INTR, HOST_FORKS, HOST_RUNNING, HOST_BLOCKED, HOST_CHANS };

/* Channel order of a CPU: the 8 fields of the line, then busy. */
static const char *const cpu_types[CPU_CHANS] = {
	"cpu.user_pct", "cpu.nice_pct", "cpu.system_pct", "cpu.idle_pct",
	"cpu.iowait_pct", "cpu.irq_pct", "cpu.softirq_pct", "cpu.steal_pct",
	"cpu.busy_pct",
};
static const char *const host_types[HOST_CHANS] = {
	"cpu.context_switches", "cpu.interrupts", "cpu.forks",
	"cpu.procs_running", "cpu.procs_blocked",
};
static const char *const host_keys[HOST_CHANS] = {
	"ctxt", "intr", "processes", "procs_running", "procs_blocked",
};

struct stat_src {
	struct rv_pfile f;
	size_t ncpu;            /* per-CPU blocks after the host block */
	int32_t *slot_of;       /* cpu number -> block index, -1 none */
	size_t nslot;
	int host_slot[HOST_CHANS];      /* channel after the CPU blocks, -1: no line */
};

/* Index of the host key that starts line [s, e) (followed by a blank), or -1. */
static int host_key(const char *s, const char *e)
{
	for (int h = 0; h < HOST_CHANS; h++) {
		size_t kl = strlen(host_keys[h]);

		if ((size_t)(e - s) > kl && memcmp(s, host_keys[h], kl) == 0 &&
		    (s[kl] == ' ' || s[kl] == '\t'))
			return h;
	}
	return -1;
}

/* Next line of [*p, end): sets *line_end; advances *p past the newline. */
static const char *next_line(const char **p, const char *end, const char **line_end)
{
	const char *s = *p, *e = memchr(s, '\n', (size_t)(end - s));

	*line_end = e ? e : end;
	*p = e ? e + 1 : end;
	return s;
}

/* The 8 tick fields of a cpu line after its name; missing fields are 0
 * (older kernels stop before steal). -EINVAL when none parses. */
static int parse_ticks(const char *s, const char *e, uint64_t *t)
{
	int got = 0;

	for (int k = 0; k < CPU_FIELDS; k++) {
		t[k] = 0;
		rv_str_skip_blank(&s, e);
		if (s < e && rv_str_u64(&s, e, &t[k]) == 0)
			got++;
	}
	return got >= 4 ? 0 : -EINVAL;
}

static void put_ticks(const uint64_t *t, double *raw, uint8_t *valid)
{
	uint64_t busy = t[0] + t[1] + t[2] + t[5] + t[6] + t[7];

	for (int k = 0; k < CPU_FIELDS; k++) {
		raw[k] = (double)t[k];
		valid[k] = 1;
	}
	raw[CPU_FIELDS] = (double)busy;
	valid[CPU_FIELDS] = 1;
}

static void stat_sample(void *state, double *raw, uint8_t *valid)
{
	struct stat_src *st = state;
	const char *p, *end, *s, *e;
	uint64_t t[CPU_FIELDS];

	if (rv_pfile_read(&st->f) < 0)
		return;                 /* every channel stays invalid */
	p = st->f.buf;
	end = p + st->f.len;
	while (p < end) {
		s = next_line(&p, end, &e);
		if (e - s > 3 && memcmp(s, "cpu", 3) == 0) {
			const char *q = s + 3;
			uint64_t id;
			size_t base;

			if (q < e && (*q == ' ' || *q == '\t')) {
				base = 0;                       /* host line */
			} else if (rv_str_u64(&q, e, &id) == 0 && id < st->nslot &&
				   st->slot_of[id] >= 0) {
				base = (size_t)(1 + st->slot_of[id]) * CPU_CHANS;
			} else {
				continue;
			}
			if (parse_ticks(q, e, t) == 0)
				put_ticks(t, raw + base, valid + base);
			continue;
		}
		int h = host_key(s, e);
		const char *q;
		uint64_t v;

		if (h < 0 || st->host_slot[h] < 0)
			continue;
		q = s + strlen(host_keys[h]);
		rv_str_skip_blank(&q, e);
		if (rv_str_u64(&q, e, &v) == 0) {
			size_t i = (1 + st->ncpu) * CPU_CHANS + (size_t)st->host_slot[h];

			raw[i] = (double)v;
			valid[i] = 1;
		}
	}
}

static void stat_close(void *state)
{
	struct stat_src *st = state;

	if (!st)
		return;
	rv_pfile_close(&st->f);
	free(st->slot_of);
	free(st);
}

/* CPU numbers of the per-CPU lines, in file order, into st->slot_of. */
static int map_cpus(struct stat_src *st, uint32_t *ids, size_t *nids)
{
	const char *p = st->f.buf, *end = p + st->f.len, *s, *e;
	uint32_t max = 0;

	*nids = 0;
	while (p < end) {
		s = next_line(&p, end, &e);
		const char *q = s + 3;
		uint64_t id;

		if (e - s > 3 && memcmp(s, "cpu", 3) == 0 && rv_str_u64(&q, e, &id) == 0 &&
		    id < MAX_CPUS && *nids < MAX_CPUS) {
			ids[(*nids)++] = (uint32_t)id;
			max = (uint32_t)id > max ? (uint32_t)id : max;
		}
	}
	st->nslot = *nids ? (size_t)max + 1 : 0;
	st->slot_of = malloc((st->nslot ? st->nslot : 1) * sizeof(*st->slot_of));
	if (!st->slot_of)
		return -ENOMEM;
	for (size_t i = 0; i < st->nslot; i++)
		st->slot_of[i] = -1;
	for (size_t i = 0; i < *nids; i++)
		if (st->slot_of[ids[i]] < 0)
			st->slot_of[ids[i]] = (int32_t)i;
	st->ncpu = *nids;
	return 0;
}

static int stat_open(const struct rv_collect_cfg *cfg, void **state,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	struct stat_src *st = calloc(1, sizeof(*st));
	uint32_t *ids = malloc(MAX_CPUS * sizeof(*ids));
	long hz = sysconf(_SC_CLK_TCK);
	double pct = 100.0 / (double)(hz > 0 ? hz : 100);
	size_t nids = 0;
	char inst[32];
	int rc;

	if (!st || !ids) {
		rc = rv_err_set(err, -ENOMEM, "proc.stat: out of memory");
		goto fail;
	}
	rc = rv_pfile_open(&st->f, cfg->root, "/proc/stat", err);
	if (rc)
		goto fail;
	if (!strstr(st->f.buf, "cpu ")) {
		rc = rv_err_set(err, -EINVAL, "%s: no \"cpu\" line", st->f.path);
		goto fail;
	}
	rc = map_cpus(st, ids, &nids);
	for (size_t k = 0; !rc && k < CPU_CHANS; k++)
		rc = rv_chanlist_add(chans, cpu_types[k], NULL, pct / (double)(nids ? nids : 1), err);
	for (size_t i = 0; !rc && i < nids; i++) {
		snprintf(inst, sizeof(inst), "cpu%u", ids[i]);
		for (size_t k = 0; !rc && k < CPU_CHANS; k++)
			rc = rv_chanlist_add(chans, cpu_types[k], inst, pct, err);
	}
	for (int h = 0; h < HOST_CHANS; h++)
		st->host_slot[h] = -1;
	for (const char *p = st->f.buf, *end = p + st->f.len, *s, *e; p < end;) {
		int h;

		s = next_line(&p, end, &e);
		h = host_key(s, e);
		if (h >= 0 && st->host_slot[h] < 0)
			st->host_slot[h] = 0;           /* present; numbered below */
	}
	for (int h = 0, k = 0; !rc && h < HOST_CHANS; h++)
		if (st->host_slot[h] >= 0) {
			st->host_slot[h] = k++;
			rc = rv_chanlist_add(chans, host_types[h], NULL, 1.0, err);
		}
	if (rc)
		goto fail;
	free(ids);
	*state = st;
	return 0;
fail:
	free(ids);
	stat_close(st);
	return rc;
}

const struct rv_source rv_src_proc_stat = {
	.name = "proc.stat",
	.open = stat_open,
	.sample = stat_sample,
	.close = stat_close,
};
