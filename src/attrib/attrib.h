/*
 * attrib.h - whose workload: which processes and cgroups took the
 * resources that moved, named the way an operator thinks of them.
 *
 * Two kinds of snapshot, both read under a root prefix ("" on a host, a
 * fixture directory in tests: root + "/proc", root + "/sys/fs/cgroup"):
 *
 *  - rv_attrib_scan_procs: every process (/proc/[pid]/stat: comm, utime +
 *    stime, starttime, RSS; /proc/[pid]/io: read_bytes + write_bytes when
 *    readable; /proc/[pid]/cgroup: its cgroup path), at most lim.max_procs
 *    of them (the rest counted as skipped). The expensive one: run only
 *    when an incident opens, and off the sampling thread.
 *  - rv_attrib_scan_cgroups: the cgroups of the hierarchies found (v2
 *    unified, or the v1 cpuacct, memory and blkio controllers), down to
 *    lim.max_depth levels and at most lim.max_cgroups: CPU time (v2
 *    cpu.stat usage_usec, v1 cpuacct.usage), memory (v2 memory.current,
 *    v1 memory.usage_in_bytes), I/O bytes (v2 io.stat rbytes + wbytes,
 *    v1 blkio.throttle.io_service_bytes Total) and, where the kernel has
 *    it (v2), the pressure "some avg10" of cpu, memory and io. Cheap
 *    enough to take every few seconds as the baseline.
 *
 * rv_attrib_rank compares two snapshots of the same kind taken dt seconds
 * apart and ranks the consumers of one resource: CPU in cores, memory
 * growth in bytes, I/O in bytes per second, each with its share of the
 * whole (the sum over every consumer, or the host's total where known).
 * A process that appears only in the later snapshot counts from zero; one
 * gone by then is not ranked. Counter decreases (a cgroup recreated under
 * the same name) count as zero. Of the cgroups only the leaves are ranked
 * (those with no cgroup below them, or at the depth limit), never a
 * hierarchy's root: the counters are hierarchical, so a parent's usage is
 * its children's again (a pod's shows as its containers', a slice's as
 * its services'), and the shares are of the sum over the leaves.
 *
 * Naming (rv_cgname_parse) reads a cgroup path: docker ("/docker/<id>",
 * "docker-<id>.scope"), containerd ("cri-containerd-<id>.scope",
 * "/kubepods/.../<id>"), CRI-O ("crio-<id>.scope"), Kubernetes (pod UID
 * from "kubepods-<qos>-pod<uid>.slice" with '_' for '-', or
 * "/kubepods/<qos>/pod<uid>/"; QoS class guaranteed when no qos level is
 * in the path, else burstable or besteffort), Slurm ("job_<N>" in the
 * path; "step_<S>" too), systemd (the last "*.service" or "*.scope" that
 * is not a container's), and the label: "pod <uid> (burstable)",
 * "docker <id12>", "slurm job 42", "foo.service", else the path.
 *
 * Nothing here allocates per process after rv_attrib_new: snapshots are
 * arrays sized at _new by the limits. No threads; the caller chooses
 * where to run a scan.
 */
#ifndef RV_ATTRIB_ATTRIB_H
#define RV_ATTRIB_ATTRIB_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum {
	RV_ATTRIB_COMM_MAX = 64,     /* process name (comm is at most 16; kept roomy) */
	RV_ATTRIB_CMD_MAX = 256,     /* command line, arguments joined by spaces */
	RV_ATTRIB_PATH_MAX = 512,    /* cgroup path, relative to its hierarchy */
	RV_ATTRIB_ID_MAX = 72,       /* container id (64 hex) */
	RV_ATTRIB_UID_MAX = 40,      /* pod UID (36) */
	RV_ATTRIB_LABEL_MAX = 160,
	RV_ATTRIB_TOP_MAX = 8,       /* consumers kept per incident */
};

enum rv_attrib_res { RV_ATTRIB_CPU, RV_ATTRIB_MEM, RV_ATTRIB_IO, RV_ATTRIB_RES_COUNT };

/* "cpu", "memory", "io"; the unit of rv_consumer.amount: "cores", "bytes", "bytes/s". */
const char *rv_attrib_res_name(enum rv_attrib_res r);
const char *rv_attrib_res_unit(enum rv_attrib_res r);

/* What a cgroup path says. Empty strings where it says nothing. */
struct rv_cgname {
	char runtime[16];                  /* "docker", "containerd", "crio", "" */
	char container[RV_ATTRIB_ID_MAX];  /* full id as in the path */
	char pod_uid[RV_ATTRIB_UID_MAX];   /* with '-' */
	char qos[16];                      /* "guaranteed", "burstable", "besteffort" */
	char slurm_job[24];                /* the N of job_N */
	char slurm_step[24];               /* the S of step_S */
	char unit[128];                    /* systemd unit: "foo.service", "session-3.scope" */
	char label[RV_ATTRIB_LABEL_MAX];   /* the one name an operator reads */
};

/* Parses path (as in /proc/[pid]/cgroup, "/" for the root) into *out.
 * Never fails: an unknown layout gives only the label (the path). */
void rv_cgname_parse(const char *path, struct rv_cgname *out);

struct rv_attrib_limits {
	size_t max_procs;     /* processes one scan reads (default 20000) */
	size_t max_cgroups;   /* cgroups one scan reads (default 2048) */
	size_t max_depth;     /* levels below a hierarchy's top (default 8) */
};

struct rv_attrib;
struct rv_attrib_snap;

/* The hierarchies under root are looked for here (a host without any
 * cgroup hierarchy still scans processes). lim NULL, or a field 0: the
 * default. 0, -ENOMEM (-ENAMETOOLONG, -EINVAL: a root or limits too
 * large). An attributor does one scan or ranking at a time: its read
 * buffers are shared by them. */
int rv_attrib_new(const char *root, const struct rv_attrib_limits *lim, struct rv_attrib **out,
		  struct rv_err *err);
void rv_attrib_free(struct rv_attrib *a);

/* A snapshot owned by a, for the scans: any number may exist at once. */
int rv_attrib_snap_new(const struct rv_attrib *a, struct rv_attrib_snap **out);
void rv_attrib_snap_free(struct rv_attrib_snap *s);

/* Fill s (its previous content is replaced). t is the caller's clock in
 * seconds (monotonic), kept in the snapshot. 0, or -ENOENT with err when
 * root/proc cannot be read at all. Processes that vanish during the scan
 * are skipped, not errors. */
int rv_attrib_scan_procs(struct rv_attrib *a, struct rv_attrib_snap *s, double t,
			 struct rv_err *err);
int rv_attrib_scan_cgroups(struct rv_attrib *a, struct rv_attrib_snap *s, double t,
			   struct rv_err *err);

/* How many entries a snapshot holds, how many the limit left out, and
 * the seconds its scan took (for the cost metric). */
size_t rv_attrib_snap_count(const struct rv_attrib_snap *s);
size_t rv_attrib_snap_skipped(const struct rv_attrib_snap *s);
double rv_attrib_snap_seconds(const struct rv_attrib_snap *s);
/* Processes of a process snapshot whose I/O could not be read (their
 * io file unreadable, EACCES for another user's, or absent): not I/O
 * consumers. 0 for a cgroup snapshot. */
size_t rv_attrib_snap_io_unknown(const struct rv_attrib_snap *s);

/* One ranked consumer. */
struct rv_consumer {
	int is_cgroup;                     /* 0: a process */
	int pid;                           /* a process's pid, else 0 */
	char comm[RV_ATTRIB_COMM_MAX];     /* a process's name */
	char cmd[RV_ATTRIB_CMD_MAX];       /* a process's command line (read at rank) */
	char cgroup[RV_ATTRIB_PATH_MAX];   /* the cgroup (of the process) */
	struct rv_cgname name;             /* what the cgroup path says */
	enum rv_attrib_res res;
	double amount;                     /* in rv_attrib_res_unit(res) */
	double before;                     /* the same measure in the baseline, or NaN */
	double share;                      /* of the whole, 0..1 */
	double pressure;                   /* the cgroup's PSI some avg10 of res, %, or NaN */
};

/*
 * Ranks the consumers of res between before and after (same kind, after
 * later). Processes: the resource used between the two. Cgroups: the
 * same, and `before` is the rate of the baseline pair (base0, base1: two
 * earlier cgroup snapshots, or NULL for none) so that growth shows.
 * Writes at most max (<= RV_ATTRIB_TOP_MAX) consumers to out, largest
 * amount first, and returns how many (consumers whose amount is zero are
 * left out); a process's command line is read now for the ones written
 * (root + /proc/PID/cmdline; "" when the process has gone since).
 */
size_t rv_attrib_rank(struct rv_attrib *a, const struct rv_attrib_snap *before,
		      const struct rv_attrib_snap *after, const struct rv_attrib_snap *base0,
		      const struct rv_attrib_snap *base1, enum rv_attrib_res res,
		      struct rv_consumer *out, size_t max);

/*
 * The amount of res that process pid of after used since before (both
 * process snapshots), as rv_attrib_rank computes it. 0; -ENOENT when
 * after has no such pid (or its I/O is unknown); -EINVAL for snapshots
 * of another kind, or no time between them (CPU, I/O).
 */
int rv_attrib_proc_amount(const struct rv_attrib_snap *before, const struct rv_attrib_snap *after,
			  int pid, enum rv_attrib_res res, double *amount);

/*
 * Process pid of the process snapshot s as a consumer without an amount,
 * for a caller that measured it elsewhere (the GPU processes of whose
 * workload): pid, comm, cgroup and what its path says, the command line
 * read now as rv_attrib_rank reads it; res CPU, amount and share 0,
 * before and pressure NaN. 0; -ENOENT when s has no such pid; -EINVAL for
 * a cgroup snapshot.
 */
int rv_attrib_proc_who(struct rv_attrib *a, const struct rv_attrib_snap *s, int pid,
		       struct rv_consumer *out);

/* "pid 4242 stress-ng in system.slice/foo.service took 1.90 cores (61 %)"
 * (a process in a container, pod or Slurm job: "in docker 3f2a9c1b0d7e")
 * or "cgroup docker 3f2a9c1b0d7e took 1.90 cores (61 %), 0.10 before"
 * (the label when the path names something, else the path); memory as
 * "grew 512 MiB", I/O as "took 12.5 MB/s of I/O"; a cgroup's pressure
 * appended when known (", cpu pressure 12.3 %"). Returns snprintf's
 * count. */
int rv_consumer_text(const struct rv_consumer *c, char *buf, size_t cap);

#endif
