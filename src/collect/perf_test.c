/*
 * perf_test.c - unit tests of the source "perf" (perf.c).
 *
 * The kernel is replaced through struct rv_perf_ops (perf_int.h) by a fake
 * that plays three hosts: a VM without a PMU (hardware events ENOENT,
 * software events fine; this build machine), a full host with multiplexed
 * counters (running < enabled, so values are scaled), and a locked-down
 * host (EACCES everywhere). CPU lists and the msr PMU come from fixture
 * trees tests/fixtures/collect/perfvm and perfhost, or temp trees for
 * malformed files. One test opens the real source on this machine. A
 * collector can pace the software groups (rv_src_perf.pace): test_sw_paced;
 * cfg.perf_software auto, on and off: test_sw_modes (the other tests ask
 * for the software events: on).
 *
 * Tests that list channels need the cpu.* perf types in the catalog
 * (catalog/metrics_perf.c); until the catalog lists that table they skip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "catalog/catalog.h"
#include "collect/perf_int.h"
#include "collect/sources.h"

enum { FAKE_FD0 = 1000, FAKE_MAX = 512, CPU_VALUE = 1000000, TYPE_VALUE = 1000 };
enum fake_mode { FAKE_NO_PMU, FAKE_ALL, FAKE_DENY, FAKE_NO_PERF };

struct fake_ev {
	uint32_t type;
	uint64_t config;
	int cpu, group_fd, closed;
};

/* The fake kernel: fds are FAKE_FD0 + index into ev[]. */
struct fake {
	enum fake_mode mode;
	int deny;                       /* FAKE_DENY: -EACCES or -EPERM */
	uint64_t refuse_hw;             /* bit n: PERF_TYPE_HARDWARE config n gets EINVAL */
	struct fake_ev ev[FAKE_MAX];
	unsigned n;
	uint64_t enabled, running, tick;
	uint64_t fixed;                 /* nonzero: every count reads this */
	int read_fd_fail;               /* this leader's read fails with -EIO */
	long short_by;                  /* bytes fewer than asked */
	int64_t period, clock;          /* sw_period_ns for the source, and its clock */
	unsigned reads;                 /* group reads so far */
	int sw_mode;                    /* cfg.perf_software (fake_init: on) */
};

/* ---------------------------------------------------------------- fake */

static uint64_t fake_value(const struct fake *fk, const struct fake_ev *e)
{
	if (fk->fixed)
		return fk->fixed;
	return (uint64_t)(e->cpu + 1) * CPU_VALUE + e->type * TYPE_VALUE + (e->config & 0xff) +
	       fk->tick;
}

static int fake_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	struct fake *fk = ctx;
	int sw = attr->type == PERF_TYPE_SOFTWARE;

	assert_int_equal(pid, -1);
	assert_true(cpu >= 0);
	assert_int_equal(flags, PERF_FLAG_FD_CLOEXEC);
	assert_int_equal(attr->size, sizeof(*attr));
	assert_int_equal(attr->read_format, PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING);
	if (group_fd >= 0) {            /* a member joins a leader of its CPU */
		assert_true(group_fd >= FAKE_FD0 && (unsigned)(group_fd - FAKE_FD0) < fk->n);
		assert_int_equal(fk->ev[group_fd - FAKE_FD0].cpu, cpu);
		assert_int_equal(fk->ev[group_fd - FAKE_FD0].group_fd, -1);
	}
	if (fk->mode == FAKE_DENY)
		return fk->deny;
	if (fk->mode == FAKE_NO_PERF || (fk->mode == FAKE_NO_PMU && !sw))
		return -ENOENT;
	if (attr->type == PERF_TYPE_HARDWARE && attr->config < 64 &&
	    (fk->refuse_hw >> attr->config & 1))
		return -EINVAL;
	assert_true(fk->n < FAKE_MAX);
	fk->ev[fk->n] = (struct fake_ev){ attr->type, attr->config, cpu, group_fd, 0 };
	return FAKE_FD0 + (int)fk->n++;
}

static long fake_read(void *ctx, int fd, void *buf, size_t len)
{
	struct fake *fk = ctx;
	uint64_t *v = buf;
	size_t k = 3;

	assert_true(fd >= FAKE_FD0 && (unsigned)(fd - FAKE_FD0) < fk->n);
	assert_int_equal(fk->ev[fd - FAKE_FD0].group_fd, -1);  /* leaders only */
	fk->reads++;
	if (fd == fk->read_fd_fail)
		return -EIO;
	v[1] = fk->enabled;
	v[2] = fk->running;
	for (unsigned i = 0; i < fk->n; i++) {
		const struct fake_ev *e = &fk->ev[i];

		if ((int)i == fd - FAKE_FD0 || e->group_fd == fd) {
			assert_true((k + 1) * sizeof(*v) <= len);
			v[k++] = fake_value(fk, e);
		}
	}
	v[0] = k - 3;
	return (long)(k * sizeof(*v)) - fk->short_by;
}

static int64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->clock;
}

static void fake_close(void *ctx, int fd)
{
	struct fake *fk = ctx;

	assert_true(fd >= FAKE_FD0 && (unsigned)(fd - FAKE_FD0) < fk->n);
	assert_false(fk->ev[fd - FAKE_FD0].closed);
	fk->ev[fd - FAKE_FD0].closed = 1;
}

static void fake_init(struct fake *fk, enum fake_mode mode)
{
	memset(fk, 0, sizeof(*fk));
	fk->mode = mode;
	fk->deny = -EACCES;
	fk->enabled = 1000;
	fk->running = 1000;
	fk->read_fd_fail = -1;
	fk->sw_mode = RV_PERF_SW_ON;
}

static void assert_all_closed(const struct fake *fk)
{
	for (unsigned i = 0; i < fk->n; i++)
		assert_true(fk->ev[i].closed);
}

/* ---------------------------------------------------------------- helpers */

struct opened {
	struct fake fk;
	struct rv_perf_ops ops;
	struct rv_chanlist chans;
	void *state;
	struct rv_err err;
	double raw[256];
	uint8_t valid[256];
};

static const char *fixture(const char *tree, char *buf, size_t cap)
{
	const char *dir = getenv("RV_FIXTURES");

	assert_non_null(dir);
	snprintf(buf, cap, "%s/collect/%s", dir, tree);
	return buf;
}

static int open_fake(struct opened *o, enum fake_mode mode, const char *root)
{
	struct rv_collect_cfg cfg = { .root = root, .perf_software = o->fk.sw_mode };

	o->fk.mode = mode;
	o->ops = (struct rv_perf_ops){ .open = fake_open, .read = fake_read, .close = fake_close,
				       .ctx = &o->fk, .sw_period_ns = o->fk.period,
				       .now = fake_now };
	memset(&o->chans, 0, sizeof(o->chans));
	rv_err_clear(&o->err);
	o->state = NULL;
	return rv_perf_open_ops(&cfg, &o->ops, &o->state, &o->chans, &o->err);
}

static void sample(struct opened *o)
{
	assert_true(o->chans.n <= 256);
	memset(o->valid, 0, sizeof(o->valid));
	memset(o->raw, 0, sizeof(o->raw));
	rv_src_perf.sample(o->state, o->raw, o->valid);
}

static void close_fake(struct opened *o)
{
	rv_src_perf.close(o->state);
	rv_chanlist_fini(&o->chans);
	assert_all_closed(&o->fk);
}

static void need_catalog(void)
{
	if (!rv_catalog_metric("cpu.perf_context_switches") || !rv_catalog_metric("cpu.cycles")) {
		print_message("catalog has no perf metric types yet (metrics_perf.c): skipped\n");
		skip();
	}
}

/* Writes text to dir/rel, making the folders on the way. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---------------------------------------------------------------- tests */

static const char *const sw_types[] = {
	"cpu.perf_context_switches", "cpu.perf_cpu_migrations", "cpu.perf_page_faults",
	"cpu.perf_minor_faults", "cpu.perf_major_faults",
};
static const uint64_t sw_configs[] = {
	PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS,
	PERF_COUNT_SW_PAGE_FAULTS_MIN, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
};

/* (a) This VM: no PMU, msr PMU with tsc only: software events per CPU. */
static void test_no_pmu(void **unused)
{
	struct opened *o;
	char root[512], name[96];

	need_catalog();       /* before anything to free */
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	fake_init(&o->fk, FAKE_NO_PMU);
	assert_int_equal(open_fake(o, FAKE_NO_PMU, fixture("perfvm", root, sizeof(root))), 0);
	assert_int_equal(o->chans.n, 10);
	assert_int_equal(o->fk.n, 10);
	for (unsigned c = 0; c < 2; c++)
		for (unsigned k = 0; k < 5; k++) {
			const struct rv_chan *ch = &o->chans.v[c * 5 + k];

			snprintf(name, sizeof(name), "%s:cpu%u", sw_types[k], c);
			assert_string_equal(ch->name, name);
			assert_int_equal(ch->metric->kind, RV_KIND_COUNTER);
			assert_string_equal(ch->metric->unit, "1/s");
			assert_true(ch->scale == 1.0);
			assert_int_equal(o->fk.ev[c * 5 + k].cpu, (int)c);
			assert_int_equal(o->fk.ev[c * 5 + k].config, sw_configs[k]);
			assert_int_equal(o->fk.ev[c * 5 + k].group_fd,
					 k ? FAKE_FD0 + (int)c * 5 : -1);
		}
	sample(o);
	for (unsigned i = 0; i < 10; i++) {
		assert_int_equal(o->valid[i], 1);
		assert_true(o->raw[i] == (double)fake_value(&o->fk, &o->fk.ev[i]));
	}
	/* cpu1 context switches: (1 + 1) * 1e6 + type 1 * 1000 + config 3 */
	assert_true(o->raw[5] == 2001003.0);
	o->fk.tick = 50;
	sample(o);
	assert_true(o->raw[5] == 2001053.0);
	close_fake(o);
	free(o);
}

/* The PMU-less VM with a 1 s software period, its clock at 5 s. */
static struct opened *open_vm_periodic(void)
{
	struct opened *o;
	char root[512];

	need_catalog();
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	fake_init(&o->fk, FAKE_NO_PMU);
	o->fk.period = 1000000000;
	o->fk.clock = 5000000000;
	assert_int_equal(open_fake(o, FAKE_NO_PMU, fixture("perfvm", root, sizeof(root))), 0);
	return o;
}

/* Software groups are read once per period: gaps between, by the source's
 * clock; reads happen only when due. */
static void test_sw_period(void **unused)
{
	struct opened *o = open_vm_periodic();

	assert_int_equal(o->chans.n, 10);
	sample(o);                                   /* due at once */
	assert_int_equal(o->fk.reads, 2);            /* one group per CPU */
	assert_int_equal(o->valid[0], 1);
	assert_int_equal(o->valid[9], 1);
	o->fk.clock += 100000000;                    /* +100 ms: not due */
	sample(o);
	assert_int_equal(o->fk.reads, 2);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(o->valid[i], 0);
	o->fk.clock += 900000000;                    /* a second after the last read */
	o->fk.tick = 7;
	sample(o);
	assert_int_equal(o->fk.reads, 4);
	assert_int_equal(o->valid[5], 1);
	assert_true(o->raw[5] == 2001010.0);         /* cpu1 context switches, tick 7 */
	close_fake(o);
	free(o);
	(void)unused;
}

/* Paced by a collector (rv_src_perf.pace), software groups follow its
 * slow sweeps, whatever the source's own clock says; hardware ones (none
 * on this PMU-less fixture) do not depend on it. */
static void test_sw_paced(void **unused)
{
	struct opened *o = open_vm_periodic();

	assert_non_null(rv_src_perf.pace);
	rv_src_perf.pace(o->state, 0);               /* clock due, the collector says no */
	sample(o);
	assert_int_equal(o->fk.reads, 0);
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(o->valid[i], 0);
	rv_src_perf.pace(o->state, 1);               /* a slow sweep */
	sample(o);
	assert_int_equal(o->fk.reads, 2);
	assert_int_equal(o->valid[0], 1);
	assert_int_equal(o->valid[9], 1);
	o->fk.clock += 1000;                         /* 1 us later: the clock says no */
	rv_src_perf.pace(o->state, 1);
	sample(o);
	assert_int_equal(o->fk.reads, 4);
	assert_int_equal(o->valid[5], 1);
	o->fk.clock += 5000000000;                   /* seconds later, not a slow sweep */
	rv_src_perf.pace(o->state, 0);
	sample(o);
	assert_int_equal(o->fk.reads, 4);
	assert_int_equal(o->valid[5], 0);
	close_fake(o);
	free(o);
	(void)unused;
}

/* Channels of o whose name starts with `prefix`. */
static size_t count_prefix(const struct opened *o, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < o->chans.n; i++)
		n += strncmp(o->chans.v[i].name, prefix, strlen(prefix)) == 0;
	return n;
}

/* perf_software auto leaves the software events out where no hardware
 * counter opens (the source unavailable with the reason, nothing left
 * open), counts them where one does; off leaves them out everywhere; a
 * refusal for want of permission still says which to grant. */
static void test_sw_modes(void **unused)
{
	static const int modes[] = { RV_PERF_SW_AUTO, RV_PERF_SW_ON, RV_PERF_SW_OFF };
	static const char *const why[] = { "counted only beside them", "",
					   "software events off (collect.perf_software: off)" };
	struct opened *o = calloc(1, sizeof(*o));
	size_t nsw[3], n[3];
	char root[512];

	need_catalog();
	assert_non_null(o);
	for (int m = 0; m < 3; m++) {
		fake_init(&o->fk, FAKE_NO_PMU);
		o->fk.sw_mode = modes[m];
		if (modes[m] == RV_PERF_SW_ON) {
			assert_int_equal(open_fake(o, FAKE_NO_PMU, fixture("perfvm", root,
								       sizeof(root))), 0);
			assert_int_equal(o->chans.n, 10);
			close_fake(o);
			continue;
		}
		assert_int_equal(open_fake(o, FAKE_NO_PMU, fixture("perfvm", root, sizeof(root))),
				 -EOPNOTSUPP);
		assert_null(o->state);
		assert_int_equal(o->chans.n, 0);
		assert_non_null(strstr(o->err.msg, "perf: no hardware counters here"));
		assert_non_null(strstr(o->err.msg, why[m]));
		assert_all_closed(&o->fk);
		rv_chanlist_fini(&o->chans);
	}
	for (int m = 0; m < 3; m++) {              /* a full host */
		fake_init(&o->fk, FAKE_ALL);
		o->fk.sw_mode = modes[m];
		assert_int_equal(open_fake(o, FAKE_ALL, fixture("perfhost", root, sizeof(root))), 0);
		n[m] = o->chans.n;
		nsw[m] = count_prefix(o, "cpu.perf_");
		assert_true(count_prefix(o, "cpu.cycles:") > 0);
		close_fake(o);
	}
	assert_true(nsw[0] > 0 && nsw[0] == nsw[1] && n[0] == n[1]);
	assert_int_equal(nsw[2], 0);
	assert_int_equal(n[2], n[0] - nsw[0]);
	fake_init(&o->fk, FAKE_DENY);               /* auto on a locked-down host */
	o->fk.sw_mode = RV_PERF_SW_AUTO;
	assert_int_equal(open_fake(o, FAKE_DENY, fixture("perfvm", root, sizeof(root))), -EACCES);
	assert_non_null(strstr(o->err.msg, "CAP_PERFMON"));
	assert_all_closed(&o->fk);
	rv_chanlist_fini(&o->chans);
	free(o);
	(void)unused;
}

/* (b) A full host: every event, multiplexed 1 in 3, values scaled by 3. */
static void test_full_multiplexed(void **unused)
{
	static const char *const cpu2_types[] = {
		"cpu.cycles", "cpu.instructions", "cpu.cache_references", "cpu.cache_misses",
		"cpu.branches", "cpu.branch_misses", "cpu.stalled_cycles_frontend",
		"cpu.stalled_cycles_backend", "cpu.llc_load_misses",
		"cpu.perf_context_switches", "cpu.perf_cpu_migrations", "cpu.perf_page_faults",
		"cpu.perf_minor_faults", "cpu.perf_major_faults", "cpu.aperf", "cpu.mperf", "cpu.tsc",
	};
	struct opened *o;
	char root[512], name[96];

	need_catalog();       /* before anything to free */
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	fake_init(&o->fk, FAKE_ALL);
	assert_int_equal(open_fake(o, FAKE_ALL, fixture("perfhost", root, sizeof(root))), 0);
	assert_int_equal(o->chans.n, 3 * 17);           /* CPUs 0, 2, 3 */
	for (unsigned k = 0; k < 17; k++) {
		snprintf(name, sizeof(name), "%s:cpu2", cpu2_types[k]);
		assert_string_equal(o->chans.v[17 + k].name, name);
	}
	assert_string_equal(o->chans.v[0].name, "cpu.cycles:cpu0");
	assert_string_equal(o->chans.v[50].name, "cpu.tsc:cpu3");
	/* msr events: type from msr/type, config from events/<name> */
	assert_int_equal(o->fk.ev[17 + 14].type, 14);
	assert_int_equal(o->fk.ev[17 + 14].config, 1);
	assert_int_equal(o->fk.ev[17 + 15].config, 2);
	assert_int_equal(o->fk.ev[17 + 16].config, 0);
	o->fk.enabled = 3000;
	o->fk.running = 1000;
	sample(o);
	for (unsigned i = 0; i < o->chans.n; i++) {
		assert_int_equal(o->valid[i], 1);
		assert_true(o->raw[i] == 3.0 * (double)fake_value(&o->fk, &o->fk.ev[i]));
	}
	assert_true(o->raw[17] == 3.0 * 3000000.0);     /* cycles: type 0, config 0 on cpu2 */
	assert_true(o->raw[17 + 14] == 3.0 * 3014001.0); /* aperf: type 14, config 1 */
	close_fake(o);
	free(o);
}

/* What a read can do wrong: each costs only the channels it concerns. */
static void test_sample_failures(void **unused)
{
	struct opened *o;
	char root[512];

	need_catalog();       /* before anything to free */
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	fake_init(&o->fk, FAKE_ALL);
	assert_int_equal(open_fake(o, FAKE_ALL, fixture("perfhost", root, sizeof(root))), 0);
	assert_int_equal(o->chans.n, 3 * 17);

	/* never scheduled: running 0 makes every channel invalid */
	o->fk.running = 0;
	sample(o);
	for (unsigned i = 0; i < o->chans.n; i++)
		assert_int_equal(o->valid[i], 0);

	/* one group's read fails: only its channels (cpu2 software) go */
	o->fk.running = 1000;
	o->fk.read_fd_fail = FAKE_FD0 + 17 + 9;
	sample(o);
	for (unsigned i = 0; i < o->chans.n; i++)
		assert_int_equal(o->valid[i], i >= 17 + 9 && i < 17 + 14 ? 0 : 1);

	/* a short read: nothing valid, nothing made up */
	o->fk.read_fd_fail = -1;
	o->fk.short_by = 8;
	sample(o);
	for (unsigned i = 0; i < o->chans.n; i++)
		assert_int_equal(o->valid[i], 0);

	/* the largest count the kernel can return */
	o->fk.short_by = 0;
	o->fk.enabled = o->fk.running;
	o->fk.fixed = UINT64_MAX;
	sample(o);
	assert_int_equal(o->valid[0], 1);
	assert_true(o->raw[0] == 18446744073709551615.0);
	close_fake(o);
	free(o);
}

/* Members the PMU cannot take (group too large: EINVAL) are left out. */
static void test_member_refused(void **unused)
{
	struct opened *o;
	char root[512];

	need_catalog();       /* before anything to free */
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	fake_init(&o->fk, FAKE_ALL);
	o->fk.refuse_hw = 1u << PERF_COUNT_HW_CPU_CYCLES |
			  1u << PERF_COUNT_HW_STALLED_CYCLES_FRONTEND |
			  1u << PERF_COUNT_HW_STALLED_CYCLES_BACKEND;
	assert_int_equal(open_fake(o, FAKE_ALL, fixture("perfvm", root, sizeof(root))), 0);
	assert_int_equal(o->chans.n, 2 * (6 + 5));
	/* instructions leads when cycles is refused */
	assert_string_equal(o->chans.v[0].name, "cpu.instructions:cpu0");
	assert_int_equal(o->fk.ev[0].group_fd, -1);
	assert_string_equal(o->chans.v[5].name, "cpu.llc_load_misses:cpu0");
	assert_int_equal(o->fk.ev[5].group_fd, FAKE_FD0);
	assert_string_equal(o->chans.v[6].name, "cpu.perf_context_switches:cpu0");
	assert_string_equal(o->chans.v[11].name, "cpu.instructions:cpu1");
	sample(o);
	for (unsigned i = 0; i < o->chans.n; i++) {
		assert_int_equal(o->valid[i], 1);
		assert_true(o->raw[i] == (double)fake_value(&o->fk, &o->fk.ev[i]));
	}
	close_fake(o);
	free(o);
}

/* (c) Locked down: the reason names CAP_PERFMON and the sysctl's value. */
static void test_denied(void **unused)
{
	static const int codes[] = { -EACCES, -EPERM };
	struct opened *o = calloc(1, sizeof(*o));
	char root[512];

	for (unsigned i = 0; i < 2; i++) {
		fake_init(&o->fk, FAKE_DENY);
		o->fk.deny = codes[i];
		assert_int_equal(open_fake(o, FAKE_DENY, fixture("perfvm", root, sizeof(root))),
				 codes[i]);
		assert_int_equal(o->err.code, codes[i]);
		assert_null(o->state);
		assert_int_equal(o->chans.n, 0);
		assert_non_null(strstr(o->err.msg, "CAP_PERFMON"));
		assert_non_null(strstr(o->err.msg, "CAP_SYS_ADMIN before Linux 5.8"));
		assert_non_null(strstr(o->err.msg, "kernel.perf_event_paranoid is 2"));
		rv_chanlist_fini(&o->chans);
	}
	/* no paranoid file under the root: the level is unknown, still a reason */
	fake_init(&o->fk, FAKE_DENY);
	{
		char dir[] = "/tmp/rv_perf_test_XXXXXX";

		assert_non_null(mkdtemp(dir));
		put(dir, "sys/devices/system/cpu/online", "0\n");
		assert_int_equal(open_fake(o, FAKE_DENY, dir), -EACCES);
		assert_non_null(strstr(o->err.msg, "kernel.perf_event_paranoid is unknown"));
		rv_chanlist_fini(&o->chans);
		rm_tree(dir);
	}
	/* perf absent altogether: ENOENT with a message, no channels */
	fake_init(&o->fk, FAKE_NO_PERF);
	assert_int_equal(open_fake(o, FAKE_NO_PERF, fixture("perfvm", root, sizeof(root))),
			 -ENOENT);
	assert_non_null(strstr(o->err.msg, "no perf event opens"));
	assert_int_equal(o->chans.n, 0);
	rv_chanlist_fini(&o->chans);
	free(o);
}

/* The CPU list: missing, malformed, huge; and msr files that do not fit. */
static void test_malformed_sysfs(void **unused)
{
	static const struct { const char *online; int rc; unsigned ncpu; } cases[] = {
		{ "0\n", 0, 1 }, { "0-3\n", 0, 4 }, { "1,3,5-6\n", 0, 4 }, { "7", 0, 1 },
		{ "", -EINVAL, 0 }, { "\n", -EINVAL, 0 }, { "abc\n", -EINVAL, 0 },
		{ "0-\n", -EINVAL, 0 }, { "0,\n", -EINVAL, 0 }, { "0,,1\n", -EINVAL, 0 },
		{ "3-1\n", -ERANGE, 0 }, { "1,0\n", -EINVAL, 0 }, { "0 1\n", -EINVAL, 0 },
		{ "0-99999\n", -ERANGE, 0 }, { "18446744073709551615\n", -ERANGE, 0 },
		{ "99999999999999999999\n", -ERANGE, 0 },
	};
	struct opened *o = calloc(1, sizeof(*o));
	char dir[] = "/tmp/rv_perf_test_XXXXXX";

	assert_non_null(mkdtemp(dir));
	/* missing file: the errno, and the path in the message */
	fake_init(&o->fk, FAKE_NO_PMU);
	assert_int_equal(open_fake(o, FAKE_NO_PMU, dir), -ENOENT);
	assert_non_null(strstr(o->err.msg, "/sys/devices/system/cpu/online"));
	rv_chanlist_fini(&o->chans);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put(dir, "sys/devices/system/cpu/online", cases[i].online);
		fake_init(&o->fk, FAKE_NO_PMU);
		int rc = open_fake(o, FAKE_NO_PMU, dir);

		if (rc && rc != cases[i].rc)
			print_message("online \"%s\": %d %s\n", cases[i].online, rc, o->err.msg);
		if (cases[i].rc == 0 && !rv_catalog_metric("cpu.perf_context_switches")) {
			assert_int_equal(rc, -EINVAL);  /* catalog not wired yet */
		} else {
			assert_int_equal(rc, cases[i].rc);
			assert_int_equal(o->chans.n, 5 * cases[i].ncpu);
		}
		if (cases[i].rc)
			assert_non_null(strstr(o->err.msg, "not a CPU list"));
		if (!rc)
			close_fake(o);
		else
			rv_chanlist_fini(&o->chans);
	}
	rm_tree(dir);
	free(o);
}

/* msr PMU files that do not fit leave the msr events out, nothing else. */
static void test_msr_variants(void **unused)
{
	static const struct { const char *type, *aperf, *mperf, *tsc; unsigned nmsr; } cases[] = {
		{ "9\n", "event=0x01\n", "event=0x02\n", "event=0x00\n", 3 },
		{ "9\n", "event=0x01\n", "event=0x02\n", NULL, 2 },
		{ "9\n", "event=0x01\n", NULL, "event=0x00\n", 0 },
		{ "nine\n", "event=0x01\n", "event=0x02\n", "event=0x00\n", 0 },
		{ "4294967296\n", "event=0x01\n", "event=0x02\n", NULL, 0 },
		{ "9\n", "event=0x01,umask=0x2\n", "event=0x02\n", NULL, 0 },
		{ "9\n", "event=0x\n", "event=0x02\n", NULL, 0 },
		{ "9\n", "config=0x01\n", "event=0x02\n", NULL, 0 },
		{ "9\n", "event=1\n", "event=2\n", "event=0xffffffffffffffffff\n", 2 },
		{ NULL, NULL, NULL, NULL, 0 },
	};
	struct opened *o;

	need_catalog();       /* before anything to free */
	o = calloc(1, sizeof(*o));
	assert_non_null(o);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/rv_perf_test_XXXXXX";

		assert_non_null(mkdtemp(dir));
		put(dir, "sys/devices/system/cpu/online", "0\n");
		if (cases[i].type)
			put(dir, "sys/bus/event_source/devices/msr/type", cases[i].type);
		if (cases[i].aperf)
			put(dir, "sys/bus/event_source/devices/msr/events/aperf", cases[i].aperf);
		if (cases[i].mperf)
			put(dir, "sys/bus/event_source/devices/msr/events/mperf", cases[i].mperf);
		if (cases[i].tsc)
			put(dir, "sys/bus/event_source/devices/msr/events/tsc", cases[i].tsc);
		fake_init(&o->fk, FAKE_ALL);
		assert_int_equal(open_fake(o, FAKE_ALL, dir), 0);
		assert_int_equal(o->chans.n, 9 + 5 + cases[i].nmsr);
		if (cases[i].nmsr) {
			assert_string_equal(o->chans.v[14].name, "cpu.aperf:cpu0");
			assert_int_equal(o->fk.ev[14].config, 1);
			assert_int_equal(o->fk.ev[15].config, 2);
		}
		close_fake(o);
		rm_tree(dir);
	}
	free(o);
}

/* The real kernel of this machine: software channels (asked for even
 * without hardware counters) or a clear reason. */
static void test_real_host(void **unused)
{
	struct rv_collect_cfg cfg = { .root = "", .perf_software = RV_PERF_SW_ON };
	struct rv_chanlist chans;
	struct rv_err err;
	void *state = NULL;
	double *raw;
	uint8_t *valid;
	int rc;

	need_catalog();
	memset(&chans, 0, sizeof(chans));
	rv_err_clear(&err);
	rc = rv_src_perf.open(&cfg, &state, &chans, &err);
	if (rc) {
		print_message("perf on this host: %s\n", err.msg);
		assert_true(rc < 0);
		assert_non_null(strstr(err.msg, "perf"));
		assert_null(state);
		rv_chanlist_fini(&chans);
		return;
	}
	assert_true(chans.n > 0);
	print_message("perf on this host: %zu channels, first %s\n", chans.n, chans.v[0].name);
	int have_cs0 = 0;

	for (size_t i = 0; i < chans.n; i++) {
		assert_int_equal(strncmp(chans.v[i].name, "cpu.", 4), 0);
		assert_non_null(strstr(chans.v[i].name, ":cpu"));
		have_cs0 |= strcmp(chans.v[i].name, "cpu.perf_context_switches:cpu0") == 0;
	}
	assert_true(have_cs0);
	raw = calloc(chans.n, sizeof(*raw));
	valid = calloc(chans.n, 1);
	assert_non_null(raw);
	assert_non_null(valid);
	rv_src_perf.sample(state, raw, valid);
	for (size_t i = 0; i < chans.n; i++)
		if (strncmp(chans.v[i].name, "cpu.perf_context_switches:", 26) == 0) {
			assert_int_equal(valid[i], 1);
			assert_true(raw[i] >= 0.0);
		}
	usleep(10000);
	double before = raw[0];

	rv_src_perf.sample(state, raw, valid);
	assert_true(!valid[0] || raw[0] >= before * 0.999);
	free(raw);
	free(valid);
	rv_src_perf.close(state);
	rv_chanlist_fini(&chans);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_pmu),
		cmocka_unit_test(test_sw_period),
		cmocka_unit_test(test_sw_paced),
		cmocka_unit_test(test_sw_modes),
		cmocka_unit_test(test_full_multiplexed),
		cmocka_unit_test(test_sample_failures),
		cmocka_unit_test(test_member_refused),
		cmocka_unit_test(test_denied),
		cmocka_unit_test(test_malformed_sysfs),
		cmocka_unit_test(test_msr_variants),
		cmocka_unit_test(test_real_host),
	};

	rv_log_set_level(RV_LOG_WARN);  /* "no hardware counters here" is expected */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
