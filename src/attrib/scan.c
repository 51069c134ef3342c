/*
 * scan.c - the attributor and its process snapshots (attrib.h): every
 * numeric directory of root/proc read through getdents64 into a buffer
 * taken at rv_attrib_new, and for each process its stat, io and cgroup
 * files read with openat into one reusable buffer. A process that
 * vanishes between the listing and the read (ENOENT, ESRCH) is skipped;
 * an io file that cannot be read (EACCES for another user's process, or
 * absent) leaves that process's I/O unknown and is counted. The cgroup
 * path of a process is interned in the snapshot's path table, so a scan
 * of 20,000 processes in 40 cgroups keeps 40 paths (beyond lim.max_cgroups
 * distinct paths, or their text's room, a process's cgroup is left
 * unknown: ""). Also the shared
 * helpers of attrib_int.h: the path table, the file reader, the stat
 * parser. Nothing allocates after rv_attrib_new / rv_attrib_snap_new.
 */
#include "attrib/attrib_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/strparse.h"

enum {
	DEF_MAX_PROCS = 20000,
	DEF_MAX_CGROUPS = 2048,
	DEF_MAX_DEPTH = 8,
	MAX_DEPTH_CAP = 64,       /* levels below a top the walk can list */
	PF_KTHREAD_FLAG = 0x00200000,   /* include/linux/sched.h PF_KTHREAD */
	STAT_FLAGS = 9,           /* fields of /proc/PID/stat (proc(5)), 1-based */
	STAT_UTIME = 14,
	STAT_STIME = 15,
	STAT_START = 22,
	STAT_RSS = 24,
	REL_MAX = 48,             /* "PID/cgroup" */
};

/* ------------------------------------------------------------- paths */

/* FNV-1a. */
static uint32_t path_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

void ap_paths_reset(struct ap_paths *p)
{
	p->n = 0;
	p->pool_used = 0;
	memset(p->slot, 0, (p->mask + 1) * sizeof(*p->slot));
}

const char *ap_paths_get(const struct ap_paths *p, uint32_t i)
{
	return i < p->n ? p->pool + p->off[i] : "";
}

/* The slot of [s, s + len): the one holding it, or the free one where it
 * would go. */
static size_t path_slot(const struct ap_paths *p, const char *s, size_t len)
{
	size_t k = path_hash(s, len) & p->mask;

	for (;; k = (k + 1) & p->mask) {
		uint32_t e = p->slot[k];
		const char *t;

		if (!e)
			return k;
		t = p->pool + p->off[e - 1];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return k;
	}
}

uint32_t ap_paths_find(const struct ap_paths *p, const char *s, size_t len)
{
	uint32_t e = p->slot[path_slot(p, s, len)];

	return e ? e - 1 : AP_NO_PATH;
}

uint32_t ap_paths_intern(struct ap_paths *p, const char *s, size_t len, int *added)
{
	size_t k = path_slot(p, s, len);

	*added = 0;
	if (p->slot[k])
		return p->slot[k] - 1;
	if (p->n == p->max || p->pool_cap - p->pool_used < len + 1)
		return AP_NO_PATH;
	memcpy(p->pool + p->pool_used, s, len);
	p->pool[p->pool_used + len] = '\0';
	p->off[p->n] = (uint32_t)p->pool_used;
	p->pool_used += len + 1;
	p->slot[k] = (uint32_t)++p->n;
	*added = 1;
	return (uint32_t)(p->n - 1);
}

/* ------------------------------------------------------------- files */

/*
 * A read shorter than asked ends the file: procfs, sysfs and cgroupfs
 * fill the whole request (seq_file loops until it is full or the records
 * end), and so does a regular file; so most files take one read, not a
 * second one to see the end (a third of the system calls of a process).
 */
long ap_read_at(int at, const char *rel, char *buf, size_t cap)
{
	int fd = openat(at, rel, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	long rc = 0;

	if (fd < 0)
		return -errno;
	while (len < cap - 1) {
		ssize_t got = read(fd, buf + len, cap - 1 - len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = -errno;
			break;
		}
		len += (size_t)got;
		if ((size_t)got < cap - 1 - (len - (size_t)got))
			break;  /* short (or 0): the end */
	}
	if (rc == 0 && len == cap - 1) {
		char extra;

		if (read(fd, &extra, 1) > 0)
			rc = -EOVERFLOW;
	}
	close(fd);
	buf[len] = '\0';
	return rc ? rc : (long)len;
}

/* ---------------------------------------------------------- stat file */

/* Skips one space-separated field. */
static void skip_field(const char **p, const char *end)
{
	while (*p < end && **p != ' ')
		(*p)++;
	rv_str_skip_blank(p, end);
}

/* Reads the unsigned field at *p (then past its separator). */
static int u64_field(const char **p, const char *end, uint64_t *v)
{
	int64_t sv;

	if (**p == '-') {       /* a signed field (rss is "%ld") never negative in practice */
		if (rv_str_i64(p, end, &sv))
			return -EINVAL;
		*v = 0;
	} else if (rv_str_u64(p, end, v)) {
		return -EINVAL;
	}
	rv_str_skip_blank(p, end);
	return 0;
}

int ap_parse_stat(const char *s, const char *end, struct ap_proc *p, uint64_t *rss_pages)
{
	const char *open = memchr(s, '(', (size_t)(end - s)), *close = NULL, *q;
	uint64_t v, utime = 0, flags = 0;
	size_t clen;

	for (q = end; q > s; q--)
		if (q[-1] == ')') {
			close = q - 1;
			break;
		}
	if (!open || !close || close < open || close + 2 > end)
		return -EINVAL;
	clen = (size_t)(close - open - 1);
	if (clen >= sizeof(p->comm))
		clen = sizeof(p->comm) - 1;
	memcpy(p->comm, open + 1, clen);
	p->comm[clen] = '\0';
	q = close + 2;          /* field 3, the state */
	for (int field = 3; field <= STAT_RSS; field++) {
		if (q >= end)
			return -EINVAL;
		if (field < STAT_FLAGS || (field > STAT_FLAGS && field < STAT_UTIME) ||
		    (field > STAT_STIME && field != STAT_START && field != STAT_RSS)) {
			skip_field(&q, end);
			continue;
		}
		if (u64_field(&q, end, &v))
			return -EINVAL;
		if (field == STAT_FLAGS)
			flags = v;
		else if (field == STAT_UTIME)
			utime = v;
		else if (field == STAT_STIME)
			p->cpu_ticks = utime + v;
		else if (field == STAT_START)
			p->start = v;
		else
			*rss_pages = v;
	}
	p->kthread = (flags & PF_KTHREAD_FLAG) != 0;
	return 0;
}

/* ------------------------------------------------------ io and cgroup */

/* read_bytes + write_bytes of an io file: 0, or -EINVAL. */
static int parse_io(const char *s, const char *end, uint64_t *bytes)
{
	int have = 0;

	*bytes = 0;
	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s)), *colon;
		uint64_t v;

		if (!e)
			e = end;
		colon = memchr(s, ':', (size_t)(e - s));
		if (colon && (rv_str_eq(s, colon, "read_bytes") ||
			      rv_str_eq(s, colon, "write_bytes"))) {
			const char *v0 = colon + 1;

			rv_str_skip_blank(&v0, e);
			if (rv_str_u64(&v0, e, &v))
				return -EINVAL;
			*bytes += v;
			have++;
		}
		s = e + 1;
	}
	return have == 2 ? 0 : -EINVAL;
}

/* 1 when the comma-separated list [s, e) has tok. */
static int has_ctrl(const char *s, const char *e, const char *tok)
{
	while (s < e) {
		const char *c = memchr(s, ',', (size_t)(e - s));

		if (!c)
			c = e;
		if (rv_str_eq(s, c, tok))
			return 1;
		s = c + 1;
	}
	return 0;
}

/* How well a /proc/PID/cgroup line's controllers [s, e) suit: the v2
 * line on a v2 host; else cpuacct/cpu, memory, name=systemd, the v2 line. */
static int line_rank(const char *s, const char *e, int v2)
{
	if (s == e)
		return v2 ? 5 : 1;
	if (v2)
		return 0;
	if (has_ctrl(s, e, "cpuacct") || has_ctrl(s, e, "cpu"))
		return 4;
	if (has_ctrl(s, e, "memory"))
		return 3;
	return has_ctrl(s, e, "name=systemd") ? 2 : 0;
}

/* The path [*ps, *pe) of the best line of a cgroup file: 0, or -ENOENT. */
static int pick_cgroup(const char *s, const char *end, int v2, const char **ps, const char **pe)
{
	int best = 0;

	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s)), *c1, *c2;
		int r;

		if (!e)
			e = end;
		c1 = memchr(s, ':', (size_t)(e - s));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
		if (c2 && (r = line_rank(c1 + 1, c2, v2)) > best) {
			best = r;
			*ps = c2 + 1;
			*pe = e;
		}
		s = e + 1;
	}
	return best ? 0 : -ENOENT;
}

/* ---------------------------------------------------------- processes */

/* Reads process pid (dir: root/proc) into *p: 0, or -errno: skip it
 * (-ENOENT, -ESRCH: it has exited since the listing). */
static int read_proc(struct rv_attrib *a, struct rv_attrib_snap *s, int dir, int pid,
		     struct ap_proc *p)
{
	char rel[REL_MAX];
	const char *cs, *ce;
	uint64_t rss = 0;
	long len;
	int added;

	snprintf(rel, sizeof(rel), "%d/stat", pid);
	len = ap_read_at(dir, rel, a->buf, AP_FILE_BUF + 1);
	if (len < 0)
		return (int)len;
	if (ap_parse_stat(a->buf, a->buf + len, p, &rss))
		return -EINVAL;
	p->pid = pid;
	p->rss_bytes = rss * (uint64_t)a->page_size;
	snprintf(rel, sizeof(rel), "%d/io", pid);
	len = ap_read_at(dir, rel, a->buf, AP_FILE_BUF + 1);
	p->io_known = len >= 0 && parse_io(a->buf, a->buf + len, &p->io_bytes) == 0;
	if (!p->io_known) {
		p->io_bytes = 0;
		s->io_unknown++;
	}
	p->cg = AP_NO_PATH;
	snprintf(rel, sizeof(rel), "%d/cgroup", pid);
	len = ap_read_at(dir, rel, a->buf, AP_FILE_BUF + 1);
	if (len > 0 && pick_cgroup(a->buf, a->buf + len, a->v2, &cs, &ce) == 0)
		p->cg = ap_paths_intern(&s->paths, cs, (size_t)(ce - cs), &added);
	return 0;
}

/* The pid of a /proc entry name, or -1 when it is not all digits. */
static int pid_of(const char *name)
{
	const char *p = name, *end = name + strlen(name);
	uint64_t v;

	if (*p < '0' || *p > '9' || rv_str_u64(&p, end, &v) || p != end || v == 0 ||
	    v > INT32_MAX)
		return -1;
	return (int)v;
}

static void index_pids(struct rv_attrib_snap *s)
{
	size_t cap = 1;

	while (cap < 2 * s->n)
		cap *= 2;
	s->pid_mask = cap - 1;
	memset(s->pid_slot, 0, cap * sizeof(*s->pid_slot));
	for (size_t i = 0; i < s->n; i++) {
		size_t k = ((uint32_t)s->procs[i].pid * 2654435761u) & s->pid_mask;

		while (s->pid_slot[k])
			k = (k + 1) & s->pid_mask;
		s->pid_slot[k] = (uint32_t)(i + 1);
	}
}

long ap_proc_find(const struct rv_attrib_snap *s, int pid)
{
	size_t k;

	if (s->kind != AP_PROCS || s->n == 0)
		return -1;
	for (k = ((uint32_t)pid * 2654435761u) & s->pid_mask; s->pid_slot[k];
	     k = (k + 1) & s->pid_mask)
		if (s->procs[s->pid_slot[k] - 1].pid == pid)
			return (long)(s->pid_slot[k] - 1);
	return -1;
}

/* Reads one getdents64 batch of dir: 0 at the end, 1 when more. */
static int proc_batch(struct rv_attrib *a, struct rv_attrib_snap *s, int dir)
{
	ssize_t got = getdents64(dir, a->dents, AP_DENTS_BUF);

	if (got <= 0)
		return 0;
	for (size_t pos = 0; pos < (size_t)got;) {
		const struct dirent64 *d = (const struct dirent64 *)(const void *)(a->dents + pos);
		int pid = pid_of(d->d_name);

		pos += d->d_reclen;
		if (pid < 0 || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
			continue;
		if (s->n == s->max_procs) {
			s->skipped++;
			continue;
		}
		if (read_proc(a, s, dir, pid, &s->procs[s->n]) == 0)
			s->n++;
	}
	return 1;
}

static void snap_reset(struct rv_attrib_snap *s, enum ap_kind kind, double t)
{
	s->kind = kind;
	s->t = t;
	s->n = s->skipped = s->io_unknown = 0;
	s->seconds = 0.0;
	ap_paths_reset(&s->paths);
}

int rv_attrib_scan_procs(struct rv_attrib *a, struct rv_attrib_snap *s, double t,
			 struct rv_err *err)
{
	char path[AP_ROOT_MAX + 8];
	rv_ns t0 = rv_clock_ns();
	int dir;

	snap_reset(s, AP_PROCS, t);
	s->v2 = a->v2;
	s->pid_mask = 0;
	snprintf(path, sizeof(path), "%s/proc", a->root);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return rv_err_set(err, -ENOENT, "%s: cannot list the processes: %s", path,
				  rv_strerror(errno));
	while (proc_batch(a, s, dir))
		;
	close(dir);
	index_pids(s);
	s->seconds = rv_clock_since_s(t0);
	return 0;
}

/* -------------------------------------------------- attributor, snaps */

static size_t or_default(size_t v, size_t def)
{
	return v ? v : def;
}

int rv_attrib_new(const char *root, const struct rv_attrib_limits *lim, struct rv_attrib **out,
		  struct rv_err *err)
{
	struct rv_attrib *a;

	*out = NULL;
	if (!root)
		root = "";
	if (strlen(root) >= AP_ROOT_MAX)
		return rv_err_set(err, -ENAMETOOLONG, "%s: root prefix too long (at most %d bytes)",
				  root, AP_ROOT_MAX - 1);
	if (!(a = calloc(1, sizeof(*a))))
		return rv_err_set(err, -ENOMEM, "attrib: out of memory");
	memcpy(a->root, root, strlen(root) + 1);
	a->lim.max_procs = or_default(lim ? lim->max_procs : 0, DEF_MAX_PROCS);
	a->lim.max_cgroups = or_default(lim ? lim->max_cgroups : 0, DEF_MAX_CGROUPS);
	a->lim.max_depth = or_default(lim ? lim->max_depth : 0, DEF_MAX_DEPTH);
	if (a->lim.max_depth > MAX_DEPTH_CAP)
		a->lim.max_depth = MAX_DEPTH_CAP;
	if (a->lim.max_procs > INT32_MAX / 4 || a->lim.max_cgroups > INT32_MAX / AP_PATH_AVG) {
		free(a);
		return rv_err_set(err, -EINVAL, "attrib: limits too large (%zu processes, "
				  "%zu cgroups)", lim->max_procs, lim->max_cgroups);
	}
	a->clk_tck = sysconf(_SC_CLK_TCK);
	a->page_size = sysconf(_SC_PAGESIZE);
	a->buf = malloc(AP_FILE_BUF + 1);
	a->dents = malloc(AP_DENTS_BUF);
	a->levels = calloc(a->lim.max_depth, sizeof(*a->levels));
	if (!a->buf || !a->dents || !a->levels || a->clk_tck <= 0 || a->page_size <= 0) {
		rv_attrib_free(a);
		return rv_err_set(err, -ENOMEM, "attrib: out of memory for the scan buffers");
	}
	ap_find_hiers(a);
	*out = a;
	return 0;
}

void rv_attrib_free(struct rv_attrib *a)
{
	if (!a)
		return;
	free(a->buf);
	free(a->dents);
	free(a->levels);
	free(a);
}

static size_t pow2_at_least(size_t n)
{
	size_t c = 1;

	while (c < n)
		c *= 2;
	return c;
}

int rv_attrib_snap_new(const struct rv_attrib *a, struct rv_attrib_snap **out)
{
	struct rv_attrib_snap *s = calloc(1, sizeof(*s));
	size_t ncg = a ? a->lim.max_cgroups : 0;

	*out = NULL;
	if (!a) {
		free(s);
		return -EINVAL;
	}
	if (!s)
		return -ENOMEM;
	s->max_procs = a->lim.max_procs;
	s->clk_tck = a->clk_tck;
	s->page_size = a->page_size;
	s->pid_cap = pow2_at_least(2 * s->max_procs);
	s->procs = calloc(s->max_procs, sizeof(*s->procs));
	s->pid_slot = calloc(s->pid_cap, sizeof(*s->pid_slot));
	s->cgs = calloc(ncg, sizeof(*s->cgs));
	s->paths.max = ncg;
	s->paths.pool_cap = ncg * AP_PATH_AVG;
	s->paths.mask = pow2_at_least(2 * ncg) - 1;
	s->paths.pool = malloc(s->paths.pool_cap);
	s->paths.off = calloc(ncg, sizeof(*s->paths.off));
	s->paths.slot = calloc(s->paths.mask + 1, sizeof(*s->paths.slot));
	if (!s->procs || !s->pid_slot || !s->cgs || !s->paths.pool || !s->paths.off ||
	    !s->paths.slot) {
		rv_attrib_snap_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void rv_attrib_snap_free(struct rv_attrib_snap *s)
{
	if (!s)
		return;
	free(s->procs);
	free(s->pid_slot);
	free(s->cgs);
	free(s->paths.pool);
	free(s->paths.off);
	free(s->paths.slot);
	free(s);
}

size_t rv_attrib_snap_count(const struct rv_attrib_snap *s)
{
	return s ? s->n : 0;
}

size_t rv_attrib_snap_skipped(const struct rv_attrib_snap *s)
{
	return s ? s->skipped : 0;
}

double rv_attrib_snap_seconds(const struct rv_attrib_snap *s)
{
	return s ? s->seconds : 0.0;
}

size_t rv_attrib_snap_io_unknown(const struct rv_attrib_snap *s)
{
	return s && s->kind == AP_PROCS ? s->io_unknown : 0;
}
