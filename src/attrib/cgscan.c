/*
 * cgscan.c - the cgroup snapshots (attrib.h): the hierarchies found at
 * rv_attrib_new, then at each scan a walk of each one down to
 * lim.max_depth levels with open(O_DIRECTORY) + getdents64 into the
 * level buffers taken at _new, each cgroup's counters read with openat
 * into the one file buffer: nothing allocated.
 *
 * Hierarchies: cgroup v2 at root/sys/fs/cgroup, else at
 * root/sys/fs/cgroup/unified, else any cgroup2 mount that
 * root/proc/self/mountinfo names, for the counters of the controllers its
 * cgroup.controllers lists (cpu, memory, io: a hybrid host's unified tree
 * with none of them, or only hugetlb, gives nothing). Then, for the
 * counters v2 does not give, cgroup v1's cpuacct (cpu,cpuacct,
 * cpuacct,cpu, cpuacct), memory and blkio controllers, each where its
 * counter file is at the top, and those mountinfo names (mounted
 * elsewhere, with the controller in its options, the mount's root "/");
 * one hierarchy per counter, the first found. The hierarchies hold the
 * same relative paths (systemd, docker and the kubelet create each
 * cgroup in every controller), so their counters are merged by relative
 * path: one entry per cgroup, whichever hierarchy listed it first.
 *
 * A cgroup's counters: v2 cpu.stat usage_usec, memory.current, io.stat
 * rbytes + wbytes over its devices, and cpu.pressure, memory.pressure,
 * io.pressure "some avg10"; v1 cpuacct.usage (ns),
 * memory.usage_in_bytes, blkio.throttle.io_service_bytes "Total". A file
 * absent or malformed leaves that counter unknown (the entry's `has`
 * bits say which were read). The walk visits at most lim.max_cgroups
 * cgroups; the directories it lists beyond that are counted as skipped
 * (and not entered: their subdirectories are not counted).
 */
#include "attrib/attrib_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/strparse.h"

static const uint64_t ns_per_us = 1000;

/* The v1 places looked at first, and the counter file that marks each. */
static const struct {
	const char *rel;
	unsigned has;
} v1_fixed[] = {
	{ "/sys/fs/cgroup/cpu,cpuacct", AP_HAS_CPU },
	{ "/sys/fs/cgroup/cpuacct,cpu", AP_HAS_CPU },
	{ "/sys/fs/cgroup/cpuacct", AP_HAS_CPU },
	{ "/sys/fs/cgroup/memory", AP_HAS_MEM },
	{ "/sys/fs/cgroup/blkio", AP_HAS_IO },
};

static const char *const v1_file[] = { "cpuacct.usage", "memory.usage_in_bytes",
				       "blkio.throttle.io_service_bytes" };

/* ------------------------------------------------------- hierarchies */

/* The counters among want whose controllers (cpu, memory, io) the v2
 * tree dir lists in its cgroup.controllers. */
static unsigned v2_counters(struct rv_attrib *a, const char *dir, unsigned want)
{
	static const char *const ctrl[] = { "cpu", "memory", "io" };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsigned got = 0;
	const char *p, *end;
	long len;

	if (fd < 0)
		return 0;
	len = ap_read_at(fd, "cgroup.controllers", a->buf, AP_FILE_BUF + 1);
	close(fd);
	for (p = a->buf, end = a->buf + (len > 0 ? len : 0); p < end;) {
		const char *w;

		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		for (w = p; p < end && *p != ' ' && *p != '\n'; p++)
			;
		for (unsigned i = 0; i < 3; i++)
			if (rv_str_eq(w, p, ctrl[i]))
				got |= 1u << i;
	}
	return got & want;
}

/* The counters (AP_HAS_*) among want whose v1 file is at the top of dir. */
static unsigned v1_counters(const char *dir, unsigned want)
{
	char file[AP_FULL_PATH + 48];
	unsigned got = 0;

	for (unsigned i = 0; i < 3; i++)
		if (want & (1u << i)) {
			snprintf(file, sizeof(file), "%s/%s", dir, v1_file[i]);
			if (access(file, R_OK) == 0)
				got |= 1u << i;
		}
	return got;
}

/* Adds the hierarchy at path for the counters that it gives (v2: those
 * of the controllers it lists; v1: those in want whose file is at its
 * top) and no hierarchy gives yet, unless it gives none or is listed. */
static void try_hier(struct rv_attrib *a, const char *path, int v2, unsigned want)
{
	struct ap_hier *h = &a->hier[a->nhier];
	unsigned taken = 0, has;
	struct stat sb;

	for (size_t i = 0; i < a->nhier; i++)
		taken |= a->hier[i].has;
	if (a->nhier == AP_HIER_MAX || strlen(path) >= sizeof(h->path) || stat(path, &sb) ||
	    !S_ISDIR(sb.st_mode) || (v2 && a->v2))
		return;
	for (size_t i = 0; i < a->nhier; i++)
		if (a->hier[i].dev == sb.st_dev && a->hier[i].ino == sb.st_ino)
			return;
	if (v2)
		has = v2_counters(a, path, AP_HAS_CPU | AP_HAS_MEM | AP_HAS_IO);
	else
		has = v1_counters(path, want & ~taken);
	if (!has)
		return;
	memcpy(h->path, path, strlen(path) + 1);
	h->v2 = v2;
	h->has = has;
	h->dev = sb.st_dev;
	h->ino = sb.st_ino;
	a->nhier++;
	a->v2 |= v2;
}

/* The counters a v1 mount's super options [s, e) name. */
static unsigned v1_opts(const char *s, const char *e)
{
	static const char *const ctrl[] = { "cpuacct", "memory", "blkio" };
	unsigned has = 0;

	while (s < e) {
		const char *c = memchr(s, ',', (size_t)(e - s));

		if (!c)
			c = e;
		for (unsigned i = 0; i < 3; i++)
			if (rv_str_eq(s, c, ctrl[i]))
				has |= 1u << i;
		s = c + 1;
	}
	return has;
}

/*
 * A line of mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...]
 * - FSTYPE SOURCE SUPEROPTS". A cgroup2 mount, or a cgroup mount whose
 * SUPEROPTS name cpuacct, memory or blkio, is tried under the root when
 * its ROOT is "/" and its mount point has no escaped character. v2 0:
 * only v1 mounts, 1: only cgroup2 ones.
 */
static void mount_line(struct rv_attrib *a, const char *s, const char *e, int v2)
{
	struct rv_mountinfo m;
	char path[AP_FULL_PATH];
	int is2;

	if (rv_mountinfo_parse(s, e, &m) || !rv_str_eq(m.root, m.root_end, "/") ||
	    memchr(m.mount, '\\', (size_t)(m.mount_end - m.mount)))
		return;
	is2 = rv_str_eq(m.fstype, m.fstype_end, "cgroup2");
	if (is2 != v2 || (!is2 && !rv_str_eq(m.fstype, m.fstype_end, "cgroup")))
		return;
	if (snprintf(path, sizeof(path), "%s%.*s", a->root, (int)(m.mount_end - m.mount),
		     m.mount) >= (int)sizeof(path))
		return;
	try_hier(a, path, v2, v2 ? 0 : v1_opts(m.superopts, m.superopts_end));
}

/* Tries the mounts of root/proc/self/mountinfo (v2 or v1 ones). The
 * text goes into the /proc listing buffer, unused at _new (the file
 * buffer is try_hier's). */
static void from_mountinfo(struct rv_attrib *a, int v2)
{
	char path[AP_ROOT_MAX + 32];
	char *text = a->dents;
	const char *p, *end;
	long len;

	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", a->root);
	len = ap_read_at(AT_FDCWD, path, text, AP_DENTS_BUF);
	if (len == -EOVERFLOW) {        /* thousands of mounts: the whole lines that fit */
		for (len = AP_DENTS_BUF - 1; len > 0 && text[len - 1] != '\n'; len--)
			;
	}
	if (len <= 0)
		return;
	for (p = text, end = text + len; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));

		if (!e)
			e = end;
		mount_line(a, p, e, v2);
		p = e + 1;
	}
}

void ap_find_hiers(struct rv_attrib *a)
{
	char path[AP_FULL_PATH];

	snprintf(path, sizeof(path), "%s/sys/fs/cgroup", a->root);
	try_hier(a, path, 1, 0);
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/unified", a->root);
	try_hier(a, path, 1, 0);
	from_mountinfo(a, 1);
	for (size_t i = 0; i < sizeof(v1_fixed) / sizeof(v1_fixed[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", a->root, v1_fixed[i].rel);
		try_hier(a, path, 0, v1_fixed[i].has);
	}
	from_mountinfo(a, 0);
}

/* ---------------------------------------------------------- counters */

/* The value of the "key value" line of key in [s, end): 0, -ENOENT when
 * there is none, -EINVAL when its value is not a number. */
static int keyed_u64(const char *s, const char *end, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);

	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s)), *p = s + klen;

		if (!e)
			e = end;
		if ((size_t)(e - s) > klen && memcmp(s, key, klen) == 0 && *p == ' ') {
			rv_str_skip_blank(&p, e);
			return rv_str_u64(&p, e, v) ? -EINVAL : 0;
		}
		s = e + 1;
	}
	return -ENOENT;
}

/* rbytes + wbytes over the lines of a v2 io.stat ("MAJ:MIN rbytes=N
 * wbytes=N rios=N ..."); an empty file (no I/O yet) is 0. */
static int io_stat(const char *s, const char *end, uint64_t *v)
{
	*v = 0;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));

		if (!e)
			e = end;
		for (const char *w = s; w < e;) {
			const char *we = memchr(w, ' ', (size_t)(e - w)), *eq;
			uint64_t x;

			if (!we)
				we = e;
			eq = memchr(w, '=', (size_t)(we - w));
			if (eq && (rv_str_eq(w, eq, "rbytes") || rv_str_eq(w, eq, "wbytes"))) {
				const char *q = eq + 1;

				if (rv_str_u64(&q, we, &x) || q != we)
					return -EINVAL;
				*v += x;
			}
			w = we + 1;
		}
		s = e + 1;
	}
	return 0;
}

/* "some avg10=1.23 avg60=..." of a pressure file, or NaN. */
static double psi_some(const char *s, const char *end)
{
	const char *p;
	double v;

	if (end - s < 11 || memcmp(s, "some avg10=", 11) != 0)
		return NAN;
	p = s + 11;
	return rv_str_double(&p, end, &v) ? NAN : v;
}

/* Reads file (of the cgroup directory fd) into the file buffer: its
 * length, or -1 when absent, unreadable or too long. */
static long cg_file(struct rv_attrib *a, int fd, const char *file)
{
	long len = ap_read_at(fd, file, a->buf, AP_FILE_BUF + 1);

	return len < 0 ? -1 : len;
}

static void read_v2(struct rv_attrib *a, int fd, unsigned has, struct ap_cg *c)
{
	static const char *const psi_file[RV_ATTRIB_RES_COUNT] = {
		"cpu.pressure", "memory.pressure", "io.pressure",
	};
	const char *p;
	uint64_t v;
	long len;

	if ((has & AP_HAS_CPU) && (len = cg_file(a, fd, "cpu.stat")) >= 0 &&
	    keyed_u64(a->buf, a->buf + len, "usage_usec", &v) == 0) {
		c->cpu_ns = v * ns_per_us;
		c->has |= AP_HAS_CPU;
	}
	p = a->buf;
	if ((has & AP_HAS_MEM) && (len = cg_file(a, fd, "memory.current")) >= 0 &&
	    rv_str_u64(&p, a->buf + len, &v) == 0) {
		c->mem_bytes = v;
		c->has |= AP_HAS_MEM;
	}
	if ((has & AP_HAS_IO) && (len = cg_file(a, fd, "io.stat")) >= 0 &&
	    io_stat(a->buf, a->buf + len, &v) == 0) {
		c->io_bytes = v;
		c->has |= AP_HAS_IO;
	}
	for (int r = 0; r < RV_ATTRIB_RES_COUNT; r++)
		if ((has & (1u << r)) && (len = cg_file(a, fd, psi_file[r])) >= 0)
			c->psi[r] = psi_some(a->buf, a->buf + len);
}

/* The "Total N" line of a v1 blkio.throttle.io_service_bytes. */
static int blkio_total(const char *s, const char *end, uint64_t *v)
{
	return keyed_u64(s, end, "Total", v);
}

static void read_v1(struct rv_attrib *a, int fd, unsigned has, struct ap_cg *c)
{
	const char *p;
	uint64_t v;
	long len;

	p = a->buf;
	if ((has & AP_HAS_CPU) && (len = cg_file(a, fd, v1_file[0])) >= 0 &&
	    rv_str_u64(&p, a->buf + len, &v) == 0) {
		c->cpu_ns = v;
		c->has |= AP_HAS_CPU;
	}
	p = a->buf;
	if ((has & AP_HAS_MEM) && (len = cg_file(a, fd, v1_file[1])) >= 0 &&
	    rv_str_u64(&p, a->buf + len, &v) == 0) {
		c->mem_bytes = v;
		c->has |= AP_HAS_MEM;
	}
	if ((has & AP_HAS_IO) && (len = cg_file(a, fd, v1_file[2])) >= 0 &&
	    blkio_total(a->buf, a->buf + len, &v) == 0) {
		c->io_bytes = v;
		c->has |= AP_HAS_IO;
	}
}

/* -------------------------------------------------------------- walk */

/* The cgroup at a->walk_path[0, plen) (directory fd) found in hierarchy
 * h: its entry (new or merged), or AP_NO_PATH when the table is full. */
static uint32_t visit(struct rv_attrib *a, struct rv_attrib_snap *s, const struct ap_hier *h,
		      int fd, size_t plen, int32_t parent, unsigned depth)
{
	int added;
	uint32_t i = ap_paths_intern(&s->paths, a->walk_path, plen ? plen : 1, &added);
	struct ap_cg *c;

	if (i == AP_NO_PATH)
		return i;
	c = &s->cgs[i];
	if (added) {
		*c = (struct ap_cg){ .parent = parent, .depth = (uint16_t)depth, .leaf = 1 };
		for (int r = 0; r < RV_ATTRIB_RES_COUNT; r++)
			c->psi[r] = NAN;
		s->n++;
	}
	if (h->v2)
		read_v2(a, fd, h->has, c);
	else
		read_v1(a, fd, h->has, c);
	return i;
}

static int is_dot(const char *name)
{
	return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* The next subdirectory listed at level l (its entry lives in l->buf),
 * or NULL at the end or on an error. */
static const struct dirent64 *next_subdir(struct ap_level *l)
{
	for (;;) {
		const struct dirent64 *d;
		struct stat sb;

		if (l->pos >= l->len) {
			ssize_t n = getdents64(l->fd, l->buf, sizeof(l->buf));

			if (n <= 0)
				return NULL;
			l->pos = 0;
			l->len = (size_t)n;
		}
		d = (const struct dirent64 *)(const void *)(l->buf + l->pos);
		l->pos += d->d_reclen;
		if (is_dot(d->d_name))
			continue;
		if (d->d_type == DT_DIR)
			return d;
		if (d->d_type == DT_UNKNOWN &&
		    fstatat(l->fd, d->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode))
			return d;
	}
}

/* One entry at level depth: its directory visited (and pushed when the
 * walk goes deeper); 0, or -1 at the end of that level's listing. */
static int walk_entry(struct rv_attrib *a, struct rv_attrib_snap *s, const struct ap_hier *h,
		      size_t *depth)
{
	struct ap_level *l = &a->levels[*depth - 1];
	const struct dirent64 *d = next_subdir(l);
	size_t nlen, plen;
	uint32_t i;
	int fd;

	if (!d)
		return -1;
	nlen = strlen(d->d_name);
	plen = l->plen + 1 + nlen;
	if (plen >= sizeof(a->walk_path)) {
		s->skipped++;
		return 0;
	}
	a->walk_path[l->plen] = '/';
	memcpy(a->walk_path + l->plen + 1, d->d_name, nlen);
	if (s->paths.n == s->paths.max &&
	    ap_paths_find(&s->paths, a->walk_path, plen) == AP_NO_PATH) {
		s->skipped++;   /* full: counted, not opened */
		return 0;
	}
	fd = openat(l->fd, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;       /* gone since it was listed */
	i = visit(a, s, h, fd, plen, (int32_t)l->idx, (unsigned)*depth);
	if (i == AP_NO_PATH)
		s->skipped++;
	if (i == AP_NO_PATH || *depth >= a->lim.max_depth) {
		close(fd);
		return 0;
	}
	l = &a->levels[(*depth)++];
	*l = (struct ap_level){ .fd = fd, .idx = i, .plen = plen };
	return 0;
}

/* Walks hierarchy h. */
static void walk(struct rv_attrib *a, struct rv_attrib_snap *s, const struct ap_hier *h)
{
	int fd = open(h->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t depth = 0;
	uint32_t top;

	if (fd < 0)
		return;
	a->walk_path[0] = '/';
	top = visit(a, s, h, fd, 0, -1, 0);
	if (top == AP_NO_PATH) {
		s->skipped++;
		close(fd);
		return;
	}
	a->levels[depth++] = (struct ap_level){ .fd = fd, .idx = top, .plen = 0 };
	while (depth > 0)
		if (walk_entry(a, s, h, &depth) < 0)
			close(a->levels[--depth].fd);
}

int rv_attrib_scan_cgroups(struct rv_attrib *a, struct rv_attrib_snap *s, double t,
			   struct rv_err *err)
{
	rv_ns t0 = rv_clock_ns();

	(void)err;
	s->kind = AP_CGROUPS;
	s->t = t;
	s->n = s->skipped = s->io_unknown = 0;
	s->v2 = a->v2;
	ap_paths_reset(&s->paths);
	for (size_t i = 0; i < a->nhier; i++)
		walk(a, s, &a->hier[i]);
	for (size_t i = 0; i < s->n; i++)
		if (s->cgs[i].parent >= 0)
			s->cgs[s->cgs[i].parent].leaf = 0;
	s->seconds = rv_clock_since_s(t0);
	return 0;
}
