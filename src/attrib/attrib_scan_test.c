/*
 * attrib_scan_test.c - snapshots and ranking (scan.c, cgscan.c, rank.c)
 * on the fixture trees tests/fixtures/attrib/v2 (a cgroup v2 host:
 * processes in docker, a Kubernetes pod (systemd driver), a Slurm step
 * and a systemd service, one with ") (" and spaces in its comm, one
 * without an io file; cgroups with cpu.stat, memory.current, io.stat and
 * pressure files) and v1 (cpu,cpuacct with the cpu and cpuacct symlinks,
 * memory and blkio, an empty unified tree). Each test copies its tree
 * into a mkdtemp directory and edits counter files between the scans:
 * exact rankings, amounts, shares, baseline rates, names, a pid reused by
 * a new process, a vanished one, a counter going down, the limits and
 * their skipped counts. Then this host's /proc (our own CPU burn against
 * getrusage) and, outside AddressSanitizer, no allocation by a scan or a
 * ranking.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc_testutil.h"   /* counting, allocs (RV_COUNT_ALLOCS) */
#include "attrib/attrib.h"

enum { PATH_LEN = 1024, TOP = RV_ATTRIB_TOP_MAX };

#define ID "3f2a9c1b0d7e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a"
#define ID2 "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d"
#define UID "1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8"
#define UID_ "1f2e3d4c_5b6a_7980_a1b2_c3d4e5f6a7b8"
#define CG "sys/fs/cgroup"
#define FOO "/system.slice/foo.service"
#define NEW "/system.slice/new.service"
#define DOCK "/system.slice/docker-" ID ".scope"
#define POD "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice"
#define CRI POD "/cri-containerd-" ID2 ".scope"
#define TASK "/system.slice/slurmstepd.scope/job_42/step_batch/user/task_0"
#define SESSION "/user.slice/user-1000.slice/session-3.scope"
#define MIB 1048576.0

#define T_BEFORE 10.0
#define T_AFTER 12.0
#define DT (T_AFTER - T_BEFORE)

/* ------------------------------------------------------- temp trees */

struct tmp {
	char root[64];
	size_t srclen;
	const char *src;
};

static char *tmp_path(const struct tmp *t, const char *rel, char *buf)
{
	snprintf(buf, PATH_LEN, "%s/%s", t->root, rel);
	return buf;
}

static struct tmp *copying;

static int copy_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	char dst[PATH_LEN], link[PATH_LEN], buf[4096];
	FILE *in, *out;
	size_t n;
	ssize_t len;

	(void)ftw;
	snprintf(dst, sizeof(dst), "%s%s", copying->root, path + copying->srclen);
	if (flag == FTW_D)
		return mkdir(dst, 0755) && errno != EEXIST;
	if (flag == FTW_SL) {
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			return -1;
		link[len] = '\0';
		return symlink(link, dst);
	}
	if (!S_ISREG(sb->st_mode) || !(in = fopen(path, "rb")))
		return -1;
	if (!(out = fopen(dst, "wb"))) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	return fclose(out);
}

/* A copy of tests/fixtures/attrib/TREE in a new temp directory. */
static void tmp_copy(struct tmp *t, const char *tree)
{
	char src[PATH_LEN];
	const char *d = getenv("RV_FIXTURES");

	assert_non_null(d);
	snprintf(src, sizeof(src), "%s/attrib/%s", d, tree);
	snprintf(t->root, sizeof(t->root), "/tmp/rv_attrib_XXXXXX");
	assert_non_null(mkdtemp(t->root));
	t->src = src;
	t->srclen = strlen(src);
	copying = t;
	assert_int_equal(nftw(src, copy_one, 16, FTW_PHYS), 0);
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_rel(const struct tmp *t, const char *rel)
{
	char p[PATH_LEN];

	assert_int_equal(nftw(tmp_path(t, rel, p), rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void tmp_drop(struct tmp *t)
{
	rm_rel(t, "");
}

/* Writes root/rel (creating its directories) with n bytes of text. */
static void put_n(const struct tmp *t, const char *rel, const char *text, size_t n)
{
	char path[PATH_LEN];
	FILE *f;

	tmp_path(t, rel, path);
	for (char *p = path + strlen(t->root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void put(const struct tmp *t, const char *rel, const char *text)
{
	put_n(t, rel, text, strlen(text));
}

static void putf(const struct tmp *t, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void putf(const struct tmp *t, const char *rel, const char *fmt, ...)
{
	char text[PATH_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	put(t, rel, text);
}

/* /proc/PID/stat as the fixture generator wrote it. */
static void put_stat(const struct tmp *t, int pid, const char *comm, unsigned flags,
		     unsigned long ut, unsigned long st, unsigned long start, unsigned long rss)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	putf(t, rel, "%d (%s) S 1 %d %d 0 -1 %u 100 0 0 0 %lu %lu 0 0 20 0 1 0 %lu 104857600 %lu "
	     "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n", pid, comm, pid, pid,
	     flags, ut, st, start, rss);
}

static void put_io(const struct tmp *t, int pid, unsigned long r, unsigned long w)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/io", pid);
	putf(t, rel, "rchar: 1\nwchar: 1\nsyscr: 1\nsyscw: 1\nread_bytes: %lu\nwrite_bytes: %lu\n"
	     "cancelled_write_bytes: 0\n", r, w);
}

static void put_usage(const struct tmp *t, const char *cg, unsigned long usec)
{
	char rel[PATH_LEN];

	snprintf(rel, sizeof(rel), CG "%s/cpu.stat", cg);
	putf(t, rel, "usage_usec %lu\nuser_usec 0\nsystem_usec 0\n", usec);
}

static void put_cgfile(const struct tmp *t, const char *cg, const char *file, const char *text)
{
	char rel[PATH_LEN];

	snprintf(rel, sizeof(rel), CG "%s/%s", cg, file);
	put(t, rel, text);
}

/* ------------------------------------------------------------ checks */

struct run {
	struct tmp t;             /* the tree copied for this run, if any */
	struct rv_attrib *a;
	struct rv_attrib_snap *s[4];
	struct rv_consumer top[TOP];
	struct rv_err err;
};

/* An attributor of root and four snapshots. */
static void run_open_at(struct run *r, const char *root, const struct rv_attrib_limits *lim)
{
	assert_int_equal(rv_attrib_new(root, lim, &r->a, &r->err), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rv_attrib_snap_new(r->a, &r->s[i]), 0);
}

/* The same on a copy of the fixture tree (NULL: this host). */
static void run_open(struct run *r, const char *tree, const struct rv_attrib_limits *lim)
{
	memset(r, 0, sizeof(*r));
	if (tree)
		tmp_copy(&r->t, tree);
	run_open_at(r, r->t.root, lim);
}

static void run_close(struct run *r)
{
	for (int i = 0; i < 4; i++)
		rv_attrib_snap_free(r->s[i]);
	rv_attrib_free(r->a);
	if (r->t.root[0])
		tmp_drop(&r->t);
	memset(r, 0, sizeof(*r));
}

static void scan_procs(struct run *r, int i, double t)
{
	assert_int_equal(rv_attrib_scan_procs(r->a, r->s[i], t, &r->err), 0);
}

static void scan_cgroups(struct run *r, int i, double t)
{
	assert_int_equal(rv_attrib_scan_cgroups(r->a, r->s[i], t, &r->err), 0);
}

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) > 1.0 ? fabs(b) : 1.0);
}

static double cores(double ticks)
{
	return ticks / (double)sysconf(_SC_CLK_TCK) / DT;
}

static double pages(double n)
{
	return n * (double)sysconf(_SC_PAGESIZE);
}

/* Consumer k: a process (pid > 0) or cgroup path, amount, share of sum. */
static void expect_at(const struct rv_consumer *c, size_t n, size_t k, int pid, const char *cg,
		      double amount, double sum)
{
	if (k >= n)
		fail_msg("consumer %zu: only %zu ranked", k, n);
	c += k;
	if (pid ? c->pid != pid || c->is_cgroup : !c->is_cgroup || strcmp(c->cgroup, cg))
		fail_msg("consumer %zu: pid %d cgroup %s, want pid %d cgroup %s", k, c->pid,
			 c->cgroup, pid, cg ? cg : "-");
	if (!near(c->amount, amount) || !near(c->share, amount > 0 ? amount / sum : 0.0))
		fail_msg("consumer %zu (%d %s): amount %.17g share %.17g, want %.17g and %.17g", k,
			 c->pid, c->cgroup, c->amount, c->share, amount, amount / sum);
}

static void expect_text(const struct rv_consumer *c, const char *want)
{
	char buf[512];

	rv_consumer_text(c, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* ------------------------------------------------------ v2 processes */

/* The process side of the v2 host 2 s later: see the fixture's values
 * (tests/fixtures/attrib/v2/proc) for the starting point. */
static void v2_procs_after(const struct tmp *t)
{
	static const char cmd[] = "stress-ng\0--cpu\0" "2";

	put_stat(t, 4242, "stress-ng", 4194304, 1300, 280, 5000, 5120);      /* +380 ticks */
	put_io(t, 4242, 0, 3000000);                                         /* +2 MB */
	put_n(t, "proc/4242/cmdline", cmd, sizeof(cmd));
	put_stat(t, 5000, "python3", 4194304, 540, 100, 6000, 156672);      /* +512 MiB */
	put_stat(t, 6000, "a) (b c", 4194304, 400, 0, 7000, 50176);          /* -4 MiB */
	put_io(t, 6000, 11000000, 11000000);                                 /* +20 MB */
	put_stat(t, 7000, "hpc_task", 4194304, 30, 0, 7100, 1000);
	put_stat(t, 8000, "kworker/0:1-events", 69238880, 0, 510, 20, 0);
	put_stat(t, 9000, "old", 4194304, 60, 0, 9999, 2000);   /* pid reused: a new start time */
	rm_rel(t, "proc/9100");                                  /* gone */
	put_stat(t, 9200, "newbie", 4194304, 20, 10, 9500, 500); /* new */
	put_io(t, 9200, 0, 0);
	put(t, "proc/9200/cgroup", "0::" NEW "\n");
	put(t, "proc/9200/cmdline", "newbie");
}

static void test_v2_procs(void **state)
{
	struct run r;
	struct rv_consumer *c = r.top;
	double sum;
	size_t n;

	(void)state;
	run_open(&r, "v2", NULL);
	scan_procs(&r, 0, T_BEFORE);
	assert_int_equal(rv_attrib_snap_count(r.s[0]), 9);      /* 12ab is not a pid */
	assert_int_equal(rv_attrib_snap_skipped(r.s[0]), 0);
	assert_int_equal(rv_attrib_snap_io_unknown(r.s[0]), 1); /* 7000 has no io */
	assert_true(rv_attrib_snap_seconds(r.s[0]) >= 0.0);
	v2_procs_after(&r.t);
	scan_procs(&r, 1, T_AFTER);
	assert_int_equal(rv_attrib_snap_count(r.s[1]), 9);

	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_CPU, c, TOP);
	assert_int_equal(n, 7);           /* 1 and 2 took nothing; 9100 is gone */
	sum = cores(380 + 100 + 60 + 40 + 30 + 20 + 10);
	expect_at(c, n, 0, 4242, NULL, cores(380), sum);
	expect_at(c, n, 1, 6000, NULL, cores(100), sum);
	expect_at(c, n, 2, 9000, NULL, cores(60), sum);  /* from zero, not 10000 ticks back */
	expect_at(c, n, 3, 5000, NULL, cores(40), sum);
	expect_at(c, n, 4, 9200, NULL, cores(30), sum);
	expect_at(c, n, 5, 7000, NULL, cores(20), sum);
	expect_at(c, n, 6, 8000, NULL, cores(10), sum);  /* a kernel thread */
	assert_string_equal(c[0].comm, "stress-ng");
	assert_string_equal(c[0].cmd, "stress-ng --cpu 2");
	assert_string_equal(c[0].cgroup, FOO);
	assert_string_equal(c[0].name.unit, "foo.service");
	assert_true(isnan(c[0].before) && isnan(c[0].pressure));
	assert_string_equal(c[1].comm, "a) (b c");
	assert_string_equal(c[1].cmd, "weird");
	assert_string_equal(c[1].name.runtime, "containerd");
	assert_string_equal(c[1].name.pod_uid, UID);
	assert_string_equal(c[3].name.label, "docker 3f2a9c1b0d7e");
	assert_string_equal(c[5].name.label, "slurm job 42 step batch");
	assert_string_equal(c[6].comm, "kworker/0:1-events");
	assert_string_equal(c[6].cmd, "");
	expect_text(&c[0], "pid 4242 stress-ng in system.slice/foo.service took 1.90 cores (59 %)");
	expect_text(&c[1], "pid 6000 a) (b c in pod " UID " (burstable) container 9e8d7c6b5a4f "
			   "took 0.50 cores (16 %)");

	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_MEM, c, TOP);
	assert_int_equal(n, 5);
	sum = pages(131072 + 2560 + 2000 + 500);
	expect_at(c, n, 0, 5000, NULL, pages(131072), sum);
	expect_at(c, n, 1, 4242, NULL, pages(2560), sum);
	expect_at(c, n, 2, 9000, NULL, pages(2000), sum);
	expect_at(c, n, 3, 9200, NULL, pages(500), sum);
	expect_at(c, n, 4, 6000, NULL, -pages(1024), sum);   /* shrank: last, share 0 */
	if (sysconf(_SC_PAGESIZE) == 4096)
		expect_text(&c[0], "pid 5000 python3 in docker 3f2a9c1b0d7e grew 512 MiB (96 %)");

	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_IO, c, 2);
	assert_int_equal(n, 2);
	expect_at(c, n, 0, 6000, NULL, 10e6, 11e6);
	expect_at(c, n, 1, 4242, NULL, 1e6, 11e6);
	expect_text(&c[1], "pid 4242 stress-ng in system.slice/foo.service took 1.0 MB/s of I/O "
			   "(9 %)");

	double v = -1.0;

	assert_int_equal(rv_attrib_proc_amount(r.s[0], r.s[1], 9000, RV_ATTRIB_CPU, &v), 0);
	assert_true(near(v, cores(60)));
	assert_int_equal(rv_attrib_proc_amount(r.s[0], r.s[1], 9100, RV_ATTRIB_CPU, &v), -ENOENT);
	assert_int_equal(rv_attrib_proc_amount(r.s[0], r.s[1], 7000, RV_ATTRIB_IO, &v), -ENOENT);
	assert_int_equal(rv_attrib_proc_amount(r.s[1], r.s[1], 4242, RV_ATTRIB_CPU, &v), -EINVAL);
	/* the process 6000 has exited and its pid is taken again: no command line of another */
	put_stat(&r.t, 6000, "other", 4194304, 1, 0, 12345, 10);
	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_CPU, c, TOP);
	assert_string_equal(c[1].comm, "a) (b c");
	assert_string_equal(c[1].cmd, "");
	run_close(&r);
}

/* ------------------------------------------------------- v2 cgroups */

/* The baseline pair (t 0 and 5): foo.service at 0.1 cores, docker at
 * 0.05 and growing 10 MiB in 5 s; the rest as in the fixture. */
static void v2_base(struct run *r)
{
	put_usage(&r->t, FOO, 200000);
	put_usage(&r->t, DOCK, 100000);
	put_cgfile(&r->t, DOCK, "memory.current", "104857600\n");
	scan_cgroups(r, 2, 0.0);
	put_usage(&r->t, FOO, 700000);
	put_usage(&r->t, DOCK, 350000);
	put_cgfile(&r->t, DOCK, "memory.current", "115343360\n");
	scan_cgroups(r, 3, 5.0);
}

static void v2_cgroups_after(const struct tmp *t)
{
	put_usage(t, FOO, 4800000);                                 /* +3.8 s: 1.9 cores */
	put_cgfile(t, FOO, "memory.current", "115343360\n");        /* +10 MiB */
	put_cgfile(t, FOO, "io.stat",
		   "8:0 rbytes=0 wbytes=3000000 rios=0 wios=30 dbytes=0 dios=0\n");
	put_cgfile(t, FOO, "cpu.pressure", "some avg10=60.50 avg60=40.00 avg300=20.00 total=9\n"
		   "full avg10=10.00 avg60=5.00 avg300=1.00 total=3\n");
	put_usage(t, DOCK, 2400000);
	put_cgfile(t, DOCK, "memory.current", "746586112\n");       /* +512 MiB */
	put_usage(t, CRI, 3500000);
	put_cgfile(t, CRI, "memory.current", "48234496\n");         /* -4 MiB */
	put_cgfile(t, CRI, "io.stat", "8:0 rbytes=10500000 wbytes=10500000 rios=5 wios=5 dbytes=0 "
		   "dios=0\n259:0 rbytes=1000000 wbytes=0 rios=10 wios=0 dbytes=0 dios=0\n");
	put_usage(t, TASK, 300000);
	put_usage(t, SESSION, 1000000);         /* went down: recreated, counts as zero */
	put_usage(t, NEW, 600000);              /* new: from zero */
	put_cgfile(t, NEW, "memory.current", "1048576\n");
	put_cgfile(t, NEW, "io.stat",
		   "8:0 rbytes=0 wbytes=4000000 rios=0 wios=4 dbytes=0 dios=0\n");
	/* the parents hold their children's usage: never ranked */
	put_usage(t, "/system.slice", 25000000);
	put_cgfile(t, "/system.slice", "memory.current", "1622147072\n");
	put_usage(t, "/system.slice/slurmstepd.scope", 700000);
	put_usage(t, "/system.slice/slurmstepd.scope/job_42", 600000);
	put_usage(t, "/system.slice/slurmstepd.scope/job_42/step_batch", 500000);
	put_usage(t, "/system.slice/slurmstepd.scope/job_42/step_batch/user", 400000);
	put_usage(t, "/kubepods.slice", 6000000);
	put_usage(t, "/kubepods.slice/kubepods-burstable.slice", 5000000);
	put_usage(t, POD, 4000000);
	put_usage(t, "/user.slice", 2000000);
	put_usage(t, "/user.slice/user-1000.slice", 1500000);
}

static void test_v2_cgroups(void **state)
{
	struct run r;
	struct rv_consumer *c = r.top;
	size_t n;

	(void)state;
	run_open(&r, "v2", NULL);
	scan_cgroups(&r, 0, T_BEFORE);
	assert_int_equal(rv_attrib_snap_count(r.s[0]), 17);
	assert_int_equal(rv_attrib_snap_skipped(r.s[0]), 0);
	assert_int_equal(rv_attrib_snap_io_unknown(r.s[0]), 0);
	v2_base(&r);
	v2_cgroups_after(&r.t);
	scan_cgroups(&r, 1, T_AFTER);
	assert_int_equal(rv_attrib_snap_count(r.s[1]), 18);

	n = rv_attrib_rank(r.a, r.s[0], r.s[1], r.s[2], r.s[3], RV_ATTRIB_CPU, c, TOP);
	assert_int_equal(n, 5);   /* parents, the root, session-3 (down) and init (idle) not */
	expect_at(c, n, 0, 0, FOO, 1.9, 3.0);
	expect_at(c, n, 1, 0, CRI, 0.5, 3.0);
	expect_at(c, n, 2, 0, NEW, 0.3, 3.0);
	expect_at(c, n, 3, 0, DOCK, 0.2, 3.0);
	expect_at(c, n, 4, 0, TASK, 0.1, 3.0);
	assert_true(near(c[0].before, 0.1) && near(c[1].before, 0.0) && isnan(c[2].before));
	assert_true(near(c[3].before, 0.05) && near(c[4].before, 0.0));
	assert_true(near(c[0].pressure, 60.5) && isnan(c[3].pressure));
	assert_string_equal(c[1].name.label, "pod " UID " (burstable) container 9e8d7c6b5a4f");
	assert_string_equal(c[1].name.qos, "burstable");
	assert_string_equal(c[3].name.container, ID);
	assert_string_equal(c[4].name.slurm_job, "42");
	assert_int_equal(c[0].pid, 0);
	assert_string_equal(c[0].comm, "");
	expect_text(&c[0], "cgroup foo.service took 1.90 cores (63 %), 0.10 before, "
			   "cpu pressure 60.5 %");
	expect_text(&c[2], "cgroup new.service took 0.30 cores (10 %)");

	n = rv_attrib_rank(r.a, r.s[0], r.s[1], r.s[2], r.s[3], RV_ATTRIB_MEM, c, TOP);
	assert_int_equal(n, 4);
	expect_at(c, n, 0, 0, DOCK, 512 * MIB, 523 * MIB);
	expect_at(c, n, 1, 0, FOO, 10 * MIB, 523 * MIB);
	expect_at(c, n, 2, 0, NEW, 1 * MIB, 523 * MIB);
	expect_at(c, n, 3, 0, CRI, -4 * MIB, 523 * MIB);
	assert_true(near(c[0].before, 4 * MIB));        /* 10 MiB in 5 s, over 2 s */
	expect_text(&c[0], "cgroup docker 3f2a9c1b0d7e grew 512 MiB (98 %), 4 MiB before");

	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_IO, c, TOP);
	assert_int_equal(n, 3);
	expect_at(c, n, 0, 0, CRI, 10e6, 13e6);
	expect_at(c, n, 1, 0, NEW, 2e6, 13e6);
	expect_at(c, n, 2, 0, FOO, 1e6, 13e6);
	assert_true(isnan(c[0].before) && isnan(c[0].pressure) && near(c[2].pressure, 1.25));

	/* snapshots of different kinds, or no time between them, rank nothing */
	scan_procs(&r, 2, T_BEFORE);
	assert_int_equal(rv_attrib_rank(r.a, r.s[2], r.s[1], NULL, NULL, RV_ATTRIB_CPU, c, TOP), 0);
	assert_int_equal(rv_attrib_rank(r.a, r.s[1], r.s[1], NULL, NULL, RV_ATTRIB_CPU, c, TOP), 0);
	assert_int_equal(rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_CPU, c, 0), 0);
	run_close(&r);
}

/* ---------------------------------------------------------------- v1 */

static void test_v1(void **state)
{
	char want[128];
	struct run r;
	struct rv_consumer *c = r.top;
	size_t n;

	(void)state;
	run_open(&r, "v1", NULL);
	scan_cgroups(&r, 0, T_BEFORE);
	/* /, /docker, /docker/ID, /system.slice, its foo.service, /only-mem: the
	 * cpu and cpuacct symlinks and the three controllers merged */
	assert_int_equal(rv_attrib_snap_count(r.s[0]), 6);
	scan_procs(&r, 2, T_BEFORE);
	assert_int_equal(rv_attrib_snap_count(r.s[2]), 4);
	put(&r.t, CG "/cpu,cpuacct/docker/" ID "/cpuacct.usage", "5500000000\n");
	put(&r.t, CG "/cpu,cpuacct/system.slice/foo.service/cpuacct.usage", "1500000000\n");
	put(&r.t, CG "/memory/docker/" ID "/memory.usage_in_bytes", "1610612736\n");
	put(&r.t, CG "/memory/only-mem/memory.usage_in_bytes", "2097152\n");
	put(&r.t, CG "/blkio/docker/" ID "/blkio.throttle.io_service_bytes",
	    "8:0 Read 2000000\n8:0 Write 3000000\n8:0 Total 5000000\nTotal 5000000\n");
	scan_cgroups(&r, 1, T_AFTER);

	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_CPU, c, TOP);
	assert_int_equal(n, 2);
	expect_at(c, n, 0, 0, "/docker/" ID, 0.75, 1.0);
	expect_at(c, n, 1, 0, FOO, 0.25, 1.0);
	assert_true(isnan(c[0].pressure));
	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_MEM, c, TOP);
	assert_int_equal(n, 2);
	expect_at(c, n, 0, 0, "/docker/" ID, 1024 * MIB, 1025 * MIB);
	expect_at(c, n, 1, 0, "/only-mem", 1 * MIB, 1025 * MIB);
	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_IO, c, TOP);
	assert_int_equal(n, 1);
	expect_at(c, n, 0, 0, "/docker/" ID, 1.5e6, 1.5e6);
	expect_text(&c[0], "cgroup docker 3f2a9c1b0d7e took 1.5 MB/s of I/O (100 %)");

	/* a process's path: cpu,cpuacct, else memory, else name=systemd, else 0:: */
	put_stat(&r.t, 100, "nginx", 4194304, 100, 0, 1000, 1004);
	put_stat(&r.t, 200, "memhog", 4194304, 100, 0, 1000, 1003);
	put_stat(&r.t, 300, "baz", 4194304, 100, 0, 1000, 1002);
	put_stat(&r.t, 400, "v2only", 4194304, 100, 0, 1000, 1001);
	scan_procs(&r, 3, T_AFTER);
	n = rv_attrib_rank(r.a, r.s[2], r.s[3], NULL, NULL, RV_ATTRIB_MEM, c, TOP);
	assert_int_equal(n, 4);
	assert_string_equal(c[0].cgroup, "/docker/" ID);
	assert_string_equal(c[1].cgroup, "/only-mem");
	assert_string_equal(c[2].cgroup, "/system.slice/baz.service");
	assert_string_equal(c[3].cgroup, "/user.slice");
	snprintf(want, sizeof(want), "pid 100 nginx in docker 3f2a9c1b0d7e grew %.0f KiB (40 %%)",
		 pages(4) / 1024.0);
	expect_text(&c[0], want);
	run_close(&r);
}

/* ------------------------------------------------------------ limits */

static void test_limits(void **state)
{
	struct rv_attrib_limits procs3 = { 3, 0, 0 }, depth1 = { 0, 0, 1 }, both = { 0, 3, 1 };
	struct run r = { 0 };
	struct rv_consumer *c = r.top;
	struct tmp t;
	size_t n;

	(void)state;
	tmp_copy(&t, "v2");
	run_open_at(&r, t.root, &procs3);
	scan_procs(&r, 0, T_BEFORE);
	assert_int_equal(rv_attrib_snap_count(r.s[0]), 3);
	assert_int_equal(rv_attrib_snap_skipped(r.s[0]), 6);
	scan_cgroups(&r, 1, T_BEFORE);
	assert_int_equal(rv_attrib_snap_count(r.s[1]), 17);
	run_close(&r);

	/* one level: the root and its four children, ranked as leaves */
	run_open_at(&r, t.root, &depth1);
	scan_cgroups(&r, 0, T_BEFORE);
	assert_int_equal(rv_attrib_snap_count(r.s[0]), 5);
	assert_int_equal(rv_attrib_snap_skipped(r.s[0]), 0);
	put_usage(&t, "/system.slice", 21000000);
	put_usage(&t, "/user.slice", 6200000);
	scan_cgroups(&r, 1, T_AFTER);
	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_CPU, c, TOP);
	assert_int_equal(n, 2);
	expect_at(c, n, 0, 0, "/system.slice", 0.5, 0.6);
	expect_at(c, n, 1, 0, "/user.slice", 0.1, 0.6);
	run_close(&r);

	/* at most 3 cgroups: the root and two children read, two skipped */
	run_open_at(&r, t.root, &both);
	scan_cgroups(&r, 0, T_BEFORE);
	assert_int_equal(rv_attrib_snap_count(r.s[0]), 3);
	assert_int_equal(rv_attrib_snap_skipped(r.s[0]), 2);
	run_close(&r);
	tmp_drop(&t);
}

/* ---------------------------------------------- vanished and missing */

static void test_vanished(void **state)
{
	struct run r;
	char msg[PATH_LEN];

	(void)state;
	run_open(&r, "v2", NULL);
	put(&r.t, "proc/31337/cgroup", "0::/\n");      /* gone before its stat was read */
	put(&r.t, "proc/31338/stat", "31338 (broken S 1 2 3\n");
	put(&r.t, "proc/31339/stat", "31339 (short) S 1 2 3\n");
	scan_procs(&r, 0, T_BEFORE);
	assert_int_equal(rv_attrib_snap_count(r.s[0]), 9);
	assert_int_equal(rv_attrib_snap_skipped(r.s[0]), 0);
	run_close(&r);

	/* a root without proc/ or cgroups: no processes is an error, no cgroups is not */
	snprintf(r.t.root, sizeof(r.t.root), "/tmp/rv_attrib_XXXXXX");
	assert_non_null(mkdtemp(r.t.root));
	run_open_at(&r, r.t.root, NULL);
	assert_int_equal(rv_attrib_scan_procs(r.a, r.s[0], 1.0, &r.err), -ENOENT);
	snprintf(msg, sizeof(msg), "%s/proc: ", r.t.root);
	assert_non_null(strstr(r.err.msg, msg));
	assert_int_equal(rv_attrib_scan_cgroups(r.a, r.s[1], 1.0, NULL), 0);
	assert_int_equal(rv_attrib_snap_count(r.s[1]), 0);
	run_close(&r);
}

/* -------------------------------------------------- this host's /proc */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/*
 * Burns our own CPU for 0.3 s between two scans of /proc. What /proc says
 * we used is the CPU between the two reads of our stat: the burn, plus
 * the part of each scan on the far side of our entry (0 to the whole of
 * that scan's CPU: with thousands of processes on a busy host a scan
 * costs tens of ms). So it must lie within 20 % of getrusage's burn at
 * the low end, and of the burn plus both scans at the high end.
 */
static void test_real_proc(void **state)
{
	struct run r;
	double t0, t1, c[4], v = -1.0, got, burn = 0.3;
	volatile unsigned long spin = 0;

	(void)state;
	run_open(&r, NULL, NULL);
	c[0] = cpu_s();
	t0 = now_s();
	scan_procs(&r, 0, t0);
	c[1] = cpu_s();
	assert_true(rv_attrib_snap_count(r.s[0]) > 1);
	while (now_s() - t0 < burn)
		spin++;
	c[2] = cpu_s();
	t1 = now_s();
	scan_procs(&r, 1, t1);
	c[3] = cpu_s();
	assert_int_equal(rv_attrib_proc_amount(r.s[0], r.s[1], (int)getpid(), RV_ATTRIB_CPU, &v),
			 0);
	got = v * (t1 - t0);
	if (got < 0.8 * (c[2] - c[1]) || got > 1.2 * (c[3] - c[0]))
		fail_msg("our CPU: %.3f s from /proc; getrusage: %.3f s burnt, %.3f s with the "
			 "scans (of %zu and %zu processes)", got, c[2] - c[1], c[3] - c[0],
			 rv_attrib_snap_count(r.s[0]), rv_attrib_snap_count(r.s[1]));
	assert_int_equal(rv_attrib_scan_cgroups(r.a, r.s[2], now_s(), &r.err), 0);
	run_close(&r);
}

/* ------------------------------------------------------ allocations */

static void test_no_alloc(void **state)
{
#ifdef RV_COUNT_ALLOCS
	struct run r, host;
	size_t n;

	(void)state;
	run_open(&r, "v2", NULL);
	run_open(&host, NULL, NULL);
	scan_procs(&r, 0, T_BEFORE);
	scan_cgroups(&r, 2, T_BEFORE);
	v2_procs_after(&r.t);
	v2_cgroups_after(&r.t);
	allocs = 0;
	counting = 1;
	scan_procs(&r, 1, T_AFTER);
	scan_cgroups(&r, 3, T_AFTER);
	n = rv_attrib_rank(r.a, r.s[0], r.s[1], NULL, NULL, RV_ATTRIB_CPU, r.top, TOP);
	n += rv_attrib_rank(r.a, r.s[2], r.s[3], NULL, NULL, RV_ATTRIB_IO, r.top, TOP);
	rv_consumer_text(&r.top[0], NULL, 0);
	scan_procs(&host, 0, 1.0);
	scan_cgroups(&host, 1, 1.0);
	counting = 0;
	assert_int_equal(allocs, 0);
	assert_int_equal(n, 7 + 3);
	run_close(&host);
	run_close(&r);
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2_procs),
		cmocka_unit_test(test_v2_cgroups),
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_vanished),
		cmocka_unit_test(test_real_proc),
		cmocka_unit_test(test_no_alloc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
