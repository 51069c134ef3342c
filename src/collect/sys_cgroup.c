/*
 * sys_cgroup.c - source "sys.cgroup": CPU throttling of the cgroups that
 * have a CPU quota (Kubernetes CPU limits, systemd CPUQuota=, Slurm,
 * docker --cpus), summed over the host; no per-cgroup channels, since
 * cgroups come and go with jobs:
 *   cpu.cgroup_throttled_periods  event    nr_throttled: periods in which
 *                                          a cgroup used up its quota
 *   cpu.cgroup_throttled_time_ms  counter  throttled_usec (v2) or
 *                                          throttled_time (v1, ns): time
 *                                          held back, ms/s (1000: one CPU)
 *   cpu.cgroups_with_quota        gauge    cgroups with a quota now
 *
 * Hierarchies: cgroup v2 where its cgroup.controllers lists cpu
 * (/sys/fs/cgroup, /sys/fs/cgroup/unified) and cgroup v1's cpu controller
 * (/sys/fs/cgroup/cpu, /sys/fs/cgroup/cpu,cpuacct), and any cgroup2 mount
 * or v1 mount with the cpu option that /proc/self/mountinfo names; each
 * hierarchy once (a symlink cpu -> cpu,cpuacct, a second mount or a bind
 * mount of one of its cgroups is the same one), all read. None: the
 * source is unavailable, naming the paths.
 *
 * Only a cgroup with a quota (v2 cpu.max not "max ...", v1
 * cpu.cfs_quota_us not -1) is throttled, and reading every cgroup's
 * cpu.stat at every sweep would cost too much on a node with hundreds. So
 * the source keeps open the cpu.stat of at most RV_CGROUP_WATCH_MAX
 * quota'd cgroups and rereads those at each sweep, and finds them by
 * walking the tree: at open, then from sample() at most once a second,
 * RV_CGROUP_WALK_DIRS directories per walk and RV_CGROUP_DEPTH_MAX levels
 * below a hierarchy's top (a walk cut short goes on where it stopped at
 * the next refresh; the quota count is that of the last whole pass).
 * Opening, reading and closing a cgroup file costs tens of microseconds
 * (kernfs), so a walk waits after itself RV_CGROUP_WALK_PACE times what it
 * took, at least the second and at most RV_CGROUP_WALK_GAP_MAX_S: at most
 * 1/RV_CGROUP_WALK_PACE of a CPU on a node with thousands of cgroups, a new
 * quota found within the second on a small one. Each hierarchy's top
 * directory and its quota file stay open between walks.
 * Quota'd cgroups past the first RV_CGROUP_WATCH_MAX are counted by
 * cpu.cgroups_with_quota but not summed. The walk allocates nothing:
 * open(O_DIRECTORY) and getdents64 into buffers taken at open, each quota
 * file read with pread into a stack buffer.
 *
 * The sums are kept here from each cgroup's increments, so they never go
 * down: a cgroup that vanishes (its cpu.stat fails with ENOENT/ENODEV) or
 * whose quota is lifted (not found by the next whole pass) stops adding;
 * one that gains a quota later adds from its first read after the walk
 * found it (its count before that, at most a refresh, is not seen); those
 * found at open add their whole count, so the first value is the kernel's
 * total. Nested quotas (a pod and its containers) each count. A cpu.stat
 * that reads malformed adds nothing that sweep: its increment comes with
 * its next good read.
 */
#include "collect/sources.h"
#include "collect/sys_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/strparse.h"
#include "collect/pairs.h"
#include "collect/pfile.h"
#include "collect/readcost.h"
#include "collect/sysval.h"

enum {
	CG_HIER_MAX = 8,        /* hierarchies: v2, v1 cpu, and mounts found elsewhere */
	CG_DENTS_BUF = 8192,    /* one getdents64 batch, per level of the walk */
	CG_STAT_BUF = 4096,     /* one cpu.stat: a few hundred bytes on Linux 6.x */
	CG_QUOTA_BUF = 64,      /* "max 100000", "-1" */
	CG_TEXT_BUF = 512,      /* cgroup.controllers */
	CG_PATH_MAX = 512,
	CG_REL_MAX = 300,       /* a directory entry's name (255 at most) and a file */
	CG_OPEN_WALKS = 16,     /* open walks up to this many refreshes' worth */
};

static const uint64_t cg_refresh_ns = 1000000000ULL;   /* a new quota shows within 1 s */
static const uint64_t ns_per_us = 1000;
static const double ns_to_ms = 1e-6;

enum { CH_PERIODS, CH_TIME, CH_QUOTAS };

struct cg_hier {
	char path[CG_PATH_MAX];
	int v2;
	dev_t dev;
	ino_t ino;
	int fd, quota_fd;       /* the top and its quota file, kept open (-1: not) */
};

/* A directory the walk is listing. */
struct cg_level {
	int fd;
	size_t pos, len;        /* the unread part of buf */
	_Alignas(8) char buf[CG_DENTS_BUF];
};

/* A quota'd cgroup whose cpu.stat is kept open. */
struct cg_watch {
	int fd;
	uint32_t hier;
	uint32_t pass;          /* the last walk pass that found its quota */
	int primed;             /* periods and time_ns hold its last read */
	uint64_t ino;           /* of its directory, within the hierarchy */
	uint64_t periods, time_ns;
};

struct cg_src {
	struct cg_hier hier[CG_HIER_MAX];
	size_t nhier;
	struct cg_watch watch[RV_CGROUP_WATCH_MAX];
	size_t nwatch;
	struct cg_level level[RV_CGROUP_DEPTH_MAX];
	int depth;              /* level listed now; -1 between hierarchies */
	size_t walk_hier;       /* hierarchy walked now */
	uint32_t pass;          /* whole passes so far */
	size_t pass_quota;      /* quota'd cgroups seen in this pass */
	size_t nquota;          /* ... in the last whole pass */
	int counted;            /* a pass has ended: nquota is known */
	int opening;            /* in open(): cgroups found add their whole count */
	uint64_t refresh_ns, next_ns;
	int paced;              /* the gap after a walk grows with its cost */
	size_t walk_dirs;
	uint64_t periods, time_ns;      /* the sums */
	char stat[CG_STAT_BUF];
};

/* ------------------------------------------------------------ parsing */

/* 1 when [s, e) has the token tok between separators sep. */
static int has_token(const char *s, const char *e, char sep, const char *tok)
{
	while (s < e) {
		const char *t = memchr(s, sep, (size_t)(e - s));

		if (!t)
			t = e;
		if (rv_str_eq(s, t, tok))
			return 1;
		s = t + 1;
	}
	return 0;
}

/* Only blanks and newlines in [p, e). */
static int only_space(const char *p, const char *e)
{
	for (; p < e; p++)
		if (*p != ' ' && *p != '\t' && *p != '\n')
			return 0;
	return 1;
}

/*
 * The text of a quota file: v2 cpu.max is "max PERIOD" (none) or "QUOTA
 * PERIOD", v1 cpu.cfs_quota_us a number, -1 for none. 1 quota, 0 none,
 * -EINVAL for anything else.
 */
static int parse_quota(const char *p, const char *e, int v2)
{
	uint64_t quota, period;
	int64_t q1;

	rv_str_skip_blank(&p, e);
	if (!v2) {
		if (rv_str_i64(&p, e, &q1) || !only_space(p, e))
			return -EINVAL;
		return q1 > 0;
	}
	if (e - p >= 3 && memcmp(p, "max", 3) == 0) {
		p += 3;
		return p == e || *p == ' ' || *p == '\n' ? 0 : -EINVAL;
	}
	if (rv_str_u64(&p, e, &quota) || p == e || *p != ' ')
		return -EINVAL;
	rv_str_skip_blank(&p, e);
	if (rv_str_u64(&p, e, &period) || !only_space(p, e))
		return -EINVAL;
	return quota > 0;
}

/*
 * The throttling counts of a cpu.stat ("key value" lines): nr_throttled,
 * and throttled_usec (v2) or throttled_time (v1, ns) as ns. Other lines
 * are ignored, even malformed; -EINVAL when a wanted one is missing or
 * its value is not a number.
 */
static int parse_stat(const char *p, const char *end, int v2, uint64_t *periods,
		      uint64_t *time_ns)
{
	const char *tkey = v2 ? "throttled_usec" : "throttled_time";
	int have = 0;

	while (p < end) {
		const char *e, *s = rv_pairs_next_line(&p, end, &e), *k = s;
		uint64_t v;
		int which;

		while (k < e && *k != ' ')
			k++;
		which = rv_str_eq(s, k, "nr_throttled") ? 1 : rv_str_eq(s, k, tkey) ? 2 : 0;
		if (!which)
			continue;
		rv_str_skip_blank(&k, e);
		if (rv_str_u64(&k, e, &v) || !only_space(k, e))
			return -EINVAL;
		if (which == 1)
			*periods = v;
		else
			*time_ns = v2 ? v * ns_per_us : v;
		have |= which;
	}
	return have == 3 ? 0 : -EINVAL;
}

/* ----------------------------------------------------------- watches */

/* Opens file of the cgroup directory dir (relative to at). */
static int open_in(int at, const char *dir, const char *file)
{
	char rel[CG_REL_MAX];
	int len = snprintf(rel, sizeof(rel), "%s/%s", dir, file);

	if (len < 0 || len >= (int)sizeof(rel)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return openat(at, rel, O_RDONLY | O_CLOEXEC);
}

static const char *quota_file(int v2)
{
	return v2 ? "cpu.max" : "cpu.cfs_quota_us";
}

/* 1 when the open quota file fd says there is a quota; 0 when it says
 * none, is absent (fd -1), unreadable or malformed. */
static int quota_in(int fd, int v2)
{
	char buf[CG_QUOTA_BUF];
	ssize_t got;

	if (fd < 0)
		return 0;
	got = rv_pread(fd, buf, sizeof(buf), 0);
	if (got <= 0 || (size_t)got == sizeof(buf))
		return 0;
	return parse_quota(buf, buf + got, v2) == 1;
}

/* quota_in for the cgroup directory dir (relative to at). */
static int has_quota(int at, const char *dir, int v2)
{
	int fd = open_in(at, dir, quota_file(v2)), q = quota_in(fd, v2);

	if (fd >= 0)
		close(fd);
	return q;
}

static long find_watch(const struct cg_src *st, uint32_t h, uint64_t ino)
{
	for (size_t i = 0; i < st->nwatch; i++)
		if (st->watch[i].ino == ino && st->watch[i].hier == h)
			return (long)i;
	return -1;
}

/* Closes watch i; the last one takes its place. */
static void drop_watch(struct cg_src *st, size_t i)
{
	close(st->watch[i].fd);
	st->watch[i] = st->watch[--st->nwatch];
}

static void add_watch(struct cg_src *st, int at, const char *dir, uint32_t h, uint64_t ino)
{
	int fd = open_in(at, dir, "cpu.stat");

	if (fd < 0)
		return;
	st->watch[st->nwatch++] = (struct cg_watch){
		.fd = fd, .hier = h, .pass = st->pass, .ino = ino, .primed = st->opening,
	};
}

/* The walk reached the cgroup directory dir (relative to at; inode ino)
 * and found a quota there. (A watch whose quota went is dropped when the
 * pass ends.) */
static void found_quota(struct cg_src *st, int at, const char *dir, uint32_t h, uint64_t ino)
{
	long w;

	st->pass_quota++;
	w = find_watch(st, h, ino);
	if (w >= 0)
		st->watch[w].pass = st->pass;
	else if (st->nwatch < RV_CGROUP_WATCH_MAX)
		add_watch(st, at, dir, h, ino);
}

/* Reads one cpu.stat: 0, -errno of the read, or -EINVAL (empty, too
 * long, malformed). */
static int read_stat(struct cg_src *st, const struct cg_watch *w, uint64_t *periods,
		     uint64_t *time_ns)
{
	ssize_t got;

	got = rv_pread(w->fd, st->stat, sizeof(st->stat), 0);
	if (got < 0)
		return -errno;
	if (got == 0 || (size_t)got == sizeof(st->stat))
		return -EINVAL;
	return parse_stat(st->stat, st->stat + got, st->hier[w->hier].v2, periods, time_ns);
}

/* Adds each watched cgroup's increments to the sums. */
static void read_watches(struct cg_src *st)
{
	for (size_t i = st->nwatch; i-- > 0;) {
		struct cg_watch *w = &st->watch[i];
		uint64_t p = 0, t = 0;
		int rc = read_stat(st, w, &p, &t);

		if (rc == -ENOENT || rc == -ENODEV) {
			drop_watch(st, i);      /* the cgroup is gone */
			continue;
		}
		if (rc)
			continue;
		if (w->primed) {        /* a count that went down adds nothing */
			st->periods += p >= w->periods ? p - w->periods : 0;
			st->time_ns += t >= w->time_ns ? t - w->time_ns : 0;
		}
		w->periods = p;
		w->time_ns = t;
		w->primed = 1;
	}
}

/* -------------------------------------------------------------- walk */

static int is_dot(const char *name)
{
	return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* The next entry listed by l that may be a directory (its entry lives in
 * l->buf), or NULL at the end of the listing or on an error. */
static const struct dirent64 *next_subdir(struct cg_level *l)
{
	for (;;) {
		const struct dirent64 *d;

		if (l->pos >= l->len) {
			ssize_t n = getdents64(l->fd, l->buf, sizeof(l->buf));

			if (n <= 0)
				return NULL;
			l->pos = 0;
			l->len = (size_t)n;
		}
		d = (const struct dirent64 *)(const void *)(l->buf + l->pos);
		l->pos += d->d_reclen;
		if (!is_dot(d->d_name) && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN))
			return d;
	}
}

static void push_level(struct cg_src *st, int fd)
{
	struct cg_level *l = &st->level[++st->depth];

	l->fd = fd;
	l->pos = l->len = 0;
}

/* Starts on the top of the hierarchy walk_hier, opened once and kept
 * (listed again from its start): 1 directory visited, or 0 when it cannot
 * be opened (skipped this pass, tried again at the next). */
static size_t enter_top(struct cg_src *st)
{
	struct cg_hier *h = &st->hier[st->walk_hier];

	if (h->fd < 0) {
		h->fd = open(h->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (h->fd >= 0)
			h->quota_fd = open_in(h->fd, ".", quota_file(h->v2));
	}
	if (h->fd < 0 || lseek(h->fd, 0, SEEK_SET) < 0) {
		st->walk_hier++;
		return 0;
	}
	if (quota_in(h->quota_fd, h->v2))
		found_quota(st, h->fd, ".", (uint32_t)st->walk_hier, (uint64_t)h->ino);
	push_level(st, h->fd);
	return 1;
}

/*
 * One entry of the listing at the current level: 1 when it was a
 * directory the walk visited, else 0. A directory is opened and listed
 * only when it has subdirectories: a link count of 2 says it has none
 * (kernfs, tmpfs and ext4 count them; a file system that does not says 1),
 * which spares most cgroups, the leaves, three of their seven system calls.
 */
static size_t walk_entry(struct cg_src *st)
{
	struct cg_level *l = &st->level[st->depth];
	const struct dirent64 *d = next_subdir(l);
	struct stat sb;
	int fd;

	if (!d) {
		if (st->depth > 0)
			close(l->fd);   /* level 0: a top, kept */
		l->fd = -1;
		if (--st->depth < 0)
			st->walk_hier++;
		return 0;
	}
	if (fstatat(l->fd, d->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(sb.st_mode))
		return 0;               /* gone since it was listed, or not a cgroup */
	if (has_quota(l->fd, d->d_name, st->hier[st->walk_hier].v2))
		found_quota(st, l->fd, d->d_name, (uint32_t)st->walk_hier, (uint64_t)sb.st_ino);
	if (sb.st_nlink == 2 || st->depth + 1 >= RV_CGROUP_DEPTH_MAX)
		return 1;               /* a leaf, or the deepest level: not listed */
	fd = openat(l->fd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		push_level(st, fd);
	return 1;
}

/* A whole pass has ended: watches it did not find lost their quota or
 * their cgroup. */
static void end_pass(struct cg_src *st)
{
	for (size_t i = st->nwatch; i-- > 0;)
		if (st->watch[i].pass != st->pass)
			drop_watch(st, i);
	st->nquota = st->pass_quota;
	st->pass_quota = 0;
	st->counted = 1;
	st->pass++;
	st->walk_hier = 0;
}

/* Walks on for at most `budget` directories: 1 when that ended a pass
 * (the next walk starts again at the top), else 0. */
static int walk(struct cg_src *st, size_t budget)
{
	size_t visited = 0;

	while (visited < budget) {
		if (st->depth >= 0)
			visited += walk_entry(st);
		else if (st->walk_hier < st->nhier)
			visited += enter_top(st);
		else {
			end_pass(st);
			return 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ source */

static void cg_sample(void *state, double *raw, uint8_t *valid)
{
	struct cg_src *st = state;
	uint64_t now = rv_clock_ns();

	if (now >= st->next_ns) {
		walk(st, st->walk_dirs);
		st->next_ns = now + (st->paced ? rv_cgroup_walk_gap_ns(st->refresh_ns,
								       rv_clock_ns() - now)
					       : st->refresh_ns);
	}
	read_watches(st);
	raw[CH_PERIODS] = (double)st->periods;
	valid[CH_PERIODS] = 1;
	raw[CH_TIME] = (double)st->time_ns;
	valid[CH_TIME] = 1;
	if (st->counted) {
		raw[CH_QUOTAS] = (double)st->nquota;
		valid[CH_QUOTAS] = 1;
	}
}

static void cg_close(void *state)
{
	struct cg_src *st = state;

	if (!st)
		return;
	for (size_t i = 0; i < st->nwatch; i++)
		close(st->watch[i].fd);
	for (; st->depth > 0; st->depth--)
		close(st->level[st->depth].fd);
	for (size_t i = 0; i < st->nhier; i++) {
		if (st->hier[i].fd >= 0)
			close(st->hier[i].fd);
		if (st->hier[i].quota_fd >= 0)
			close(st->hier[i].quota_fd);
	}
	free(st);
}

/* 1 when path is the top of a v2 hierarchy with the cpu controller, or
 * (v2 0) of a v1 hierarchy of the cpu controller. */
static int is_cpu_hier(const char *path, int v2)
{
	char file[CG_PATH_MAX], text[CG_TEXT_BUF];

	if (!v2)
		return rv_sysval_path(file, "%s/cpu.cfs_quota_us", path) == 0 &&
		       access(file, R_OK) == 0 &&
		       rv_sysval_path(file, "%s/cpu.stat", path) == 0 && access(file, R_OK) == 0;
	return rv_sysval_path(file, "%s/cgroup.controllers", path) == 0 &&
	       rv_sysval_text(file, text, sizeof(text), NULL) == 0 &&
	       has_token(text, text + strlen(text), ' ', "cpu");
}

/* 1 when path is on a cgroup file system (not a fixture tree). */
static int on_cgroupfs(const char *path)
{
	struct statfs fs;

	return statfs(path, &fs) == 0 &&
	       (fs.f_type == CGROUP_SUPER_MAGIC || fs.f_type == CGROUP2_SUPER_MAGIC);
}

/*
 * Adds the hierarchy at path unless it is not one or is already listed:
 * the same directory (a symlink cpu -> cpu,cpuacct), or on cgroupfs the
 * same device, which is the same hierarchy (a second mount of it, or a
 * bind mount of one of its cgroups, would count those cgroups twice).
 */
static void try_hier(struct cg_src *st, const char *path, int v2)
{
	struct cg_hier *h = &st->hier[st->nhier];
	struct stat sb;
	int cgfs;

	if (st->nhier == CG_HIER_MAX || strlen(path) >= sizeof(h->path) || stat(path, &sb) ||
	    !S_ISDIR(sb.st_mode) || !is_cpu_hier(path, v2))
		return;
	cgfs = on_cgroupfs(path);
	for (size_t i = 0; i < st->nhier; i++)
		if (st->hier[i].dev == sb.st_dev && (cgfs || st->hier[i].ino == sb.st_ino))
			return;
	memcpy(h->path, path, strlen(path) + 1);
	h->v2 = v2;
	h->dev = sb.st_dev;
	h->ino = sb.st_ino;
	h->fd = h->quota_fd = -1;
	st->nhier++;
}

/*
 * A line of mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...]
 * - FSTYPE SOURCE SUPEROPTS". A cgroup2 mount, or a cgroup (v1) mount
 * whose SUPEROPTS have cpu, is tried under root. A mount point with an
 * escaped character (\040 for a space) is not followed.
 */
static void mount_line(struct cg_src *st, const char *root, const char *s, const char *e)
{
	struct rv_mountinfo m;
	char path[CG_PATH_MAX];
	int v2;

	if (rv_mountinfo_parse(s, e, &m))
		return;
	v2 = rv_str_eq(m.fstype, m.fstype_end, "cgroup2");
	if (!v2 && !(rv_str_eq(m.fstype, m.fstype_end, "cgroup") &&
		     has_token(m.superopts, m.superopts_end, ',', "cpu")))
		return;
	if (memchr(m.mount, '\\', (size_t)(m.mount_end - m.mount)) ||
	    rv_sysval_path(path, "%s%.*s", root, (int)(m.mount_end - m.mount), m.mount))
		return;
	try_hier(st, path, v2);
}

static void from_mountinfo(struct cg_src *st, const char *root)
{
	struct rv_pfile f;
	const char *p, *end;

	if (rv_pfile_open(&f, root, "/proc/self/mountinfo", NULL))
		return;
	p = f.buf;
	end = p + f.len;
	while (p < end) {
		const char *e, *s = rv_pairs_next_line(&p, end, &e);

		mount_line(st, root, s, e);
	}
	rv_pfile_close(&f);
}

static int find_hiers(struct cg_src *st, const char *root, struct rv_err *err)
{
	static const struct {
		const char *rel;
		int v2;
	} fixed[] = {
		{ "/sys/fs/cgroup", 1 }, { "/sys/fs/cgroup/unified", 1 },
		{ "/sys/fs/cgroup/cpu", 0 }, { "/sys/fs/cgroup/cpu,cpuacct", 0 },
	};
	char path[CG_PATH_MAX];

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (rv_sysval_path(path, "%s%s", root, fixed[i].rel) == 0)
			try_hier(st, path, fixed[i].v2);
	from_mountinfo(st, root);
	if (st->nhier == 0)
		return rv_err_set(err, -ENOENT, "%s/sys/fs/cgroup: no cgroup v2 hierarchy with the "
				  "cpu controller and no v1 cpu hierarchy (none in "
				  "%s/proc/self/mountinfo either)", root, root);
	return 0;
}

static int cg_open(const struct rv_collect_cfg *cfg, void **state, struct rv_chanlist *chans,
		   struct rv_err *err)
{
	struct cg_src *st = calloc(1, sizeof(*st));
	int rc;

	if (!st)
		return rv_err_set(err, -ENOMEM, "sys.cgroup: out of memory");
	st->depth = -1;
	st->refresh_ns = cg_refresh_ns;
	st->paced = 1;
	st->walk_dirs = RV_CGROUP_WALK_DIRS;
	rc = find_hiers(st, cfg->root, err);
	if (!rc)
		rc = rv_chanlist_add(chans, "cpu.cgroup_throttled_periods", NULL, 1.0, err);
	if (!rc)
		rc = rv_chanlist_add(chans, "cpu.cgroup_throttled_time_ms", NULL, ns_to_ms, err);
	if (!rc)
		rc = rv_chanlist_add(chans, "cpu.cgroups_with_quota", NULL, 1.0, err);
	if (rc) {
		cg_close(st);
		return rc;
	}
	st->opening = 1;
	for (int i = 0; i < CG_OPEN_WALKS && !walk(st, st->walk_dirs); i++)
		;
	st->opening = 0;
	st->next_ns = rv_clock_ns() + st->refresh_ns;
	*state = st;
	return 0;
}

void rv_cgroup_tune(void *state, uint64_t refresh_ns, size_t walk_dirs)
{
	struct cg_src *st = state;

	st->refresh_ns = refresh_ns;
	st->paced = 0;
	st->walk_dirs = walk_dirs ? walk_dirs : RV_CGROUP_WALK_DIRS;
	st->next_ns = 0;
}

uint64_t rv_cgroup_walk_gap_ns(uint64_t refresh_ns, uint64_t walk_ns)
{
	const uint64_t max_ns = (uint64_t)RV_CGROUP_WALK_GAP_MAX_S * 1000000000ULL;
	uint64_t gap = walk_ns > max_ns / RV_CGROUP_WALK_PACE ? max_ns
							       : walk_ns * RV_CGROUP_WALK_PACE;

	if (gap > max_ns)
		gap = max_ns;
	return gap > refresh_ns ? gap : refresh_ns;
}

const struct rv_source rv_src_sys_cgroup = {
	.name = "sys.cgroup",
	.open = cg_open,
	.sample = cg_sample,
	.close = cg_close,
};
