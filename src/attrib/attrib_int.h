/*
 * attrib_int.h - what the files of attrib/ share: the attributor, its
 * snapshots, the path table that merges cgroups by relative path, and
 * the one file reader (openat + read into a caller's buffer, no
 * allocation). Not API: attrib.h is the contract.
 *
 * Memory: a snapshot takes 112 bytes per lim.max_procs (the process
 * entries), 8 to 16 more (the pid index) and about 330 per
 * lim.max_cgroups (entries, path index, path text of AP_PATH_AVG bytes
 * on average), all allocated by rv_attrib_snap_new: 3.0 MiB at the
 * defaults, of which a scan touches only what it fills. The attributor
 * itself: 100 KiB of read buffers and 8 KiB per level of lim.max_depth.
 */
#ifndef RV_ATTRIB_ATTRIB_INT_H
#define RV_ATTRIB_ATTRIB_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "attrib/attrib.h"

enum {
	AP_ROOT_MAX = 256,        /* the root prefix */
	AP_FILE_BUF = 65536,      /* one /proc or cgroup file (io.stat of many devices) */
	AP_DENTS_BUF = 32768,     /* one getdents64 batch of /proc */
	AP_LEVEL_BUF = 8192,      /* one getdents64 batch of a cgroup directory */
	AP_HIER_MAX = 4,          /* v2, or v1 cpuacct, memory, blkio */
	AP_PATH_AVG = 256,        /* path text per cgroup, on average */
	AP_FULL_PATH = 1024,      /* a hierarchy's top under the root */
};

#define AP_NO_PATH UINT32_MAX

enum ap_kind { AP_EMPTY, AP_PROCS, AP_CGROUPS };

/* What a hierarchy (or a cgroup entry) provides. */
enum { AP_HAS_CPU = 1, AP_HAS_MEM = 2, AP_HAS_IO = 4 };

/* A cgroup hierarchy found at rv_attrib_new. */
struct ap_hier {
	char path[AP_FULL_PATH];  /* root + mount point */
	int v2;
	unsigned has;             /* AP_HAS_*: the counters read from it */
	dev_t dev;
	ino_t ino;
};

/* A directory the cgroup walk is listing. */
struct ap_level {
	int fd;
	uint32_t idx;             /* its cgroup entry */
	size_t plen;              /* its path's length in the walk's path */
	size_t pos, len;          /* the unread part of buf */
	_Alignas(8) char buf[AP_LEVEL_BUF];
};

struct rv_attrib {
	char root[AP_ROOT_MAX];
	struct rv_attrib_limits lim;
	long clk_tck;             /* sysconf(_SC_CLK_TCK) */
	long page_size;
	int v2;                   /* the unified hierarchy has controllers */
	struct ap_hier hier[AP_HIER_MAX];
	size_t nhier;
	char *buf;                /* AP_FILE_BUF + 1: one file at a time */
	char *dents;              /* AP_DENTS_BUF */
	struct ap_level *levels;  /* lim.max_depth */
	char walk_path[RV_ATTRIB_PATH_MAX];
};

/* One process of a snapshot. */
struct ap_proc {
	int32_t pid;
	uint32_t cg;              /* its cgroup path in the snapshot's table, or AP_NO_PATH */
	uint64_t start;           /* starttime, clock ticks after boot */
	uint64_t cpu_ticks;       /* utime + stime */
	uint64_t rss_bytes;
	uint64_t io_bytes;        /* read_bytes + write_bytes */
	uint8_t io_known;
	uint8_t kthread;
	char comm[RV_ATTRIB_COMM_MAX];
};

/* One cgroup of a snapshot; its index is that of its path in the table. */
struct ap_cg {
	int32_t parent;           /* entry of the parent directory, -1 for a top */
	uint16_t depth;           /* 0 for a hierarchy's top */
	uint8_t has;              /* AP_HAS_*: the counters read */
	uint8_t leaf;             /* no entry below it */
	uint64_t cpu_ns;
	uint64_t mem_bytes;
	uint64_t io_bytes;
	double psi[RV_ATTRIB_RES_COUNT];  /* some avg10 %, NaN when absent */
};

/* Relative paths interned: text in one pool, found again through an
 * open-addressing hash of mask + 1 slots (entry + 1, 0 for free). */
struct ap_paths {
	char *pool;
	size_t pool_cap, pool_used;
	uint32_t *off;            /* offset of each path in pool */
	size_t n, max;
	uint32_t *slot;
	size_t mask;
};

struct rv_attrib_snap {
	enum ap_kind kind;
	double t, seconds;
	size_t n, skipped, io_unknown;
	long clk_tck, page_size;
	int v2;
	struct ap_proc *procs;    /* max_procs */
	size_t max_procs;
	uint32_t *pid_slot;       /* pid index: entry + 1, 0 for free */
	size_t pid_cap;           /* slots allocated (a power of two) */
	size_t pid_mask;          /* slots used by the last scan, minus 1 */
	struct ap_cg *cgs;        /* paths.max */
	struct ap_paths paths;
};

/* --- paths (scan.c) --- */

void ap_paths_reset(struct ap_paths *p);
/* The entry of [s, s + len), added when new: its index, or AP_NO_PATH
 * when the table is full. *added says whether it was new. */
uint32_t ap_paths_intern(struct ap_paths *p, const char *s, size_t len, int *added);
/* The entry of path, or AP_NO_PATH. */
uint32_t ap_paths_find(const struct ap_paths *p, const char *s, size_t len);
const char *ap_paths_get(const struct ap_paths *p, uint32_t i);

/* The entry of pid in a process snapshot, or -1. */
long ap_proc_find(const struct rv_attrib_snap *s, int pid);

/* --- files (scan.c) --- */

/* Reads the file rel (relative to the directory at) into buf (cap bytes,
 * NUL-terminated at the length read): the length, -EOVERFLOW when it did
 * not fit (buf holds the first cap - 1 bytes), or -errno. */
long ap_read_at(int at, const char *rel, char *buf, size_t cap);

/* --- /proc/PID/stat (scan.c) --- */

/* Parses a stat line into comm, start, cpu_ticks, rss (pages) and
 * kthread of *p: 0, or -EINVAL. */
int ap_parse_stat(const char *s, const char *end, struct ap_proc *p, uint64_t *rss_pages);

/* --- cgroups (cgscan.c) --- */

/* Looks for the hierarchies under a->root (a->hier, a->nhier, a->v2). */
void ap_find_hiers(struct rv_attrib *a);

#endif
