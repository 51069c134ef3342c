/*
 * drift.h - configuration drift: static facts that differ inside a group.
 *
 * Every agent reports its host's static facts (collect/facts.h: cpu.model,
 * kernel.release, mem.hugepages_2048kb, net.eth0.mtu, gpu.driver, ...) as
 * the info series reveal_fact_info{node, fact, value}. `reveal fleet`
 * (issue 16) gives the facts of one group's nodes to a struct rv_drift,
 * node by node or in any order, and asks which keys disagree.
 *
 * For each key the nodes that report anything at all (at least one fact,
 * compared or not) are the group. A value held by more than half of them
 * is the majority; "lacking the key" is a value too, so a fact only one
 * node has (a GPU the others lack) makes that node odd. Every node not in
 * the majority is odd, with its value (NULL: it lacks the key). A key with
 * no strict majority (2-2, 1-1-1) is a split: every value with its nodes.
 * A key on which every node agrees is no finding.
 *
 * Keys compared: those matching an include glob (none given: every key)
 * and no exclude glob (fnmatch(3), no flags). The default excludes
 * (rv_drift_opts_default) are keys that differ between healthy identical
 * nodes: serial numbers and UUIDs (each GPU's gpu.<i>.serial and
 * gpu.<i>.uuid too), link-layer and IP addresses, host names
 * and machine or boot ids, and the network interfaces that containers and
 * VMs create per node (veth*, docker*, br-*, virbr*, cali*, flannel*,
 * cni*, tap*, vnet*, tun*: their names and presence follow what runs
 * there). Link state (net.*.operstate) stays: a link down on one node of
 * a job is exactly what to name, and so do the GPUs' settings (ECC,
 * persistence, power limits, application clocks, MIG, the PCIe link as
 * trained and at best, VBIOS, driver and CUDA versions).
 *
 * Numbers and tolerance: for keys matching a tolerant glob (default
 * "*total_bytes": mem.total_bytes differs by a few MiB between identical
 * nodes, as firmware and kernel reserve memory differently) whose values
 * are all finite numbers, two values within rel_tol (default 1 %) of the
 * larger magnitude are equal; the majority is then the widest run of
 * values within the tolerance, and the finding says so (tolerance, and
 * the smallest and largest value counted). Other numbers compare as text:
 * an MTU of 9000 against 9001 or 1024 huge pages against 1030 is drift.
 *
 * Findings come by key (byte order); odd nodes and each value's nodes by
 * node name; values with the majority first, then by count, then by value
 * (lacking last among equals). All memory is owned by the struct rv_drift:
 * the facts (bounded by max_facts and max_bytes, -E2BIG past them) and
 * the findings (valid until the next rv_drift_run or rv_drift_free). Not
 * thread safe; no global state (one object per group, groups in
 * parallel). Callers: fleet/.
 */
#ifndef RV_FLEET_DRIFT_H
#define RV_FLEET_DRIFT_H

#include <stddef.h>

#include "base/err.h"

#define RV_DRIFT_DEF_REL_TOL 0.01
enum {
	RV_DRIFT_DEF_MAX_FACTS = 1 << 20,      /* facts held (all nodes) */
	RV_DRIFT_DEF_MAX_BYTES = 64 << 20,     /* bytes of node names, keys, values */
	RV_DRIFT_MAX_TEXT = 1024,              /* a node name, key or value */
};

struct rv_drift_opts {
	const char *const *include;   /* globs of keys compared; ninclude 0: all */
	size_t ninclude;
	const char *const *exclude;   /* globs of keys left out */
	size_t nexclude;
	const char *const *tolerant;  /* globs of numeric keys compared with rel_tol */
	size_t ntolerant;
	double rel_tol;               /* >= 0 and < 1; 0: exact everywhere */
	size_t max_facts;             /* 0: RV_DRIFT_DEF_MAX_FACTS */
	size_t max_bytes;             /* 0: RV_DRIFT_DEF_MAX_BYTES */
};

/* One node and its value of the key (NULL: the node lacks the key). */
struct rv_drift_member {
	const char *node;
	const char *value;
};

/* One value of a key and the nodes that hold it. */
struct rv_drift_value {
	const char *value;            /* NULL: the nodes lack the key */
	const char *lo, *hi;          /* tolerant: smallest and largest counted; else value */
	size_t count;
	const char *const *nodes;     /* count names, sorted */
};

struct rv_drift_finding {
	const char *key;
	int split;                    /* 1: no value is held by more than half */
	const char *majority;         /* the majority value; NULL: split or lacking */
	int majority_lacks;           /* 1: most nodes lack the key; odd ones have it */
	size_t nmajority;             /* nodes in the majority (0 for a split) */
	size_t nnodes;                /* nodes of the group */
	double tolerance;             /* > 0: numbers within it counted equal */
	size_t nodd;
	const struct rv_drift_member *odd;   /* not in the majority; a split: every node */
	size_t nvalues;
	const struct rv_drift_value *values; /* every value, the majority first */
};

struct rv_drift;

/* Fills o with the defaults: every key included, the exclude and tolerant
 * lists above (static), rel_tol RV_DRIFT_DEF_REL_TOL, default limits. */
void rv_drift_opts_default(struct rv_drift_opts *o);

/* The default exclude globs (static, *n of them). */
const char *const *rv_drift_default_exclude(size_t *n);

/*
 * An empty comparison with options o (NULL: the defaults; the globs are
 * copied). 0, -EINVAL (a bad rel_tol or an empty or NULL glob; err) or
 * -ENOMEM. Free with rv_drift_free.
 */
int rv_drift_new(const struct rv_drift_opts *o, struct rv_drift **out,
		 struct rv_err *err);

/* Frees d and its findings; d may be NULL. */
void rv_drift_free(struct rv_drift *d);

/* 1 when key is compared under d's include and exclude globs. */
int rv_drift_wanted(const struct rv_drift *d, const char *key);

/*
 * Adds one fact of node (copied; a key left out by the globs only counts
 * the node as reporting). The same fact twice with one value counts
 * once. 0, -EINVAL (an empty or NULL string, or one past
 * RV_DRIFT_MAX_TEXT bytes; err), -E2BIG (past max_facts or max_bytes;
 * err) or -ENOMEM.
 */
int rv_drift_add(struct rv_drift *d, const char *node, const char *key,
		 const char *value, struct rv_err *err);

/*
 * Compares the facts added so far and replaces the findings. 0, -EINVAL
 * (a node gave one key two values; err names them) or -ENOMEM.
 */
int rv_drift_run(struct rv_drift *d, struct rv_err *err);

/* The findings of the last rv_drift_run: count, and finding i (NULL past
 * the end); borrowed from d until the next run or free. */
size_t rv_drift_count(const struct rv_drift *d);
const struct rv_drift_finding *rv_drift_get(const struct rv_drift *d, size_t i);

/* Nodes that reported anything (at the last run). */
size_t rv_drift_nodes(const struct rv_drift *d);

#endif
