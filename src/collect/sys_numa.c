/*
 * sys_numa.c - source "sys.numa": per NUMA node N, from
 * /sys/devices/system/node/nodeN/
 *   meminfo   "Node N MemTotal:  X kB" -> gauges mem.node_*_bytes:nodeN and
 *             the default-size hugetlb pool mem.node_hugepages_total/free;
 *   numastat  "numa_hit X"            -> counters mem.node_numa_hit:nodeN, ...
 *             (pages allocated, so the rate is in pages/s);
 *   hugepages/hugepages-<S>kB/{nr,free,surplus}_hugepages
 *             -> gauges mem.node_hugepages_size_{nr,free,surplus}:nodeN_<S>kB.
 * A row whose line is absent at open has no channel; lines are matched by
 * key at every sample, so their order does not matter. -ENOENT when no
 * node directory exists (a kernel without CONFIG_NUMA).
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "collect/pfile.h"
#include "collect/sysval.h"

enum { MAX_NODES = 1024, MAX_SIZES = 8, KIB = 1024 };

struct row {
	const char *key;
	const char *type;
	double scale;
};

static const struct row meminfo_rows[] = {
	{ "MemTotal", "mem.node_mem_total_bytes", KIB },
	{ "MemFree", "mem.node_mem_free_bytes", KIB },
	{ "MemUsed", "mem.node_mem_used_bytes", KIB },
	{ "FilePages", "mem.node_file_pages_bytes", KIB },
	{ "AnonPages", "mem.node_anon_pages_bytes", KIB },
	{ "Dirty", "mem.node_dirty_bytes", KIB },
	{ "HugePages_Total", "mem.node_hugepages_total", 1 },
	{ "HugePages_Free", "mem.node_hugepages_free", 1 },
};
enum { NMEMINFO = sizeof(meminfo_rows) / sizeof(meminfo_rows[0]), MAX_ROWS = NMEMINFO };

static const struct row numastat_rows[] = {
	{ "numa_hit", "mem.node_numa_hit", 1 },
	{ "numa_miss", "mem.node_numa_miss", 1 },
	{ "numa_foreign", "mem.node_numa_foreign", 1 },
	{ "interleave_hit", "mem.node_interleave_hit", 1 },
	{ "local_node", "mem.node_local_node", 1 },
	{ "other_node", "mem.node_other_node", 1 },
};
enum { NNUMASTAT = sizeof(numastat_rows) / sizeof(numastat_rows[0]) };
_Static_assert((int)NNUMASTAT <= (int)MAX_ROWS, "numastat rows fit a slot table");

static const struct row huge_rows[] = {
	{ "nr_hugepages", "mem.node_hugepages_size_nr", 1 },
	{ "free_hugepages", "mem.node_hugepages_size_free", 1 },
	{ "surplus_hugepages", "mem.node_hugepages_size_surplus", 1 },
};
enum { NHUGE = sizeof(huge_rows) / sizeof(huge_rows[0]) };

/* A keyed file of one node and the channel of each row (-1: no line). */
struct keyed {
	struct rv_pfile f;
	const struct row *rows;
	size_t nrows;
	int32_t slot[MAX_ROWS];
};

struct numa_src {
	struct rv_sysvals sv;   /* the hugepages-<S>kB files */
	struct keyed *files;    /* meminfo and numastat of each node */
	size_t nfiles;
};

/*
 * Row of line [s, e), after an optional "Node N " prefix: the key runs to
 * ':' or a blank. Sets *val past the key; -1 when no row has that key.
 */
static int row_of(const struct keyed *k, const char *s, const char *e, const char **val)
{
	const char *key;
	uint64_t node;

	if (e - s > 5 && memcmp(s, "Node ", 5) == 0) {
		s += 5;
		if (rv_str_u64(&s, e, &node))
			return -1;
		rv_str_skip_blank(&s, e);
	}
	key = s;
	while (s < e && *s != ':' && *s != ' ' && *s != '\t')
		s++;
	for (size_t r = 0; r < k->nrows; r++)
		if (rv_str_eq(key, s, k->rows[r].key)) {
			*val = s < e && *s == ':' ? s + 1 : s;
			return (int)r;
		}
	return -1;
}

/* Walks the lines of the file read last: with raw NULL (open) marks the
 * rows present with slot 0; else stores each row's value in raw[slot]. */
static void scan_keyed(struct keyed *k, double *raw, uint8_t *valid)
{
	const char *p = k->f.buf, *end = p + k->f.len;

	while (p < end) {
		const char *s = p, *e = memchr(p, '\n', (size_t)(end - p)), *v;
		uint64_t x;
		int r;

		e = e ? e : end;
		p = e < end ? e + 1 : end;
		r = row_of(k, s, e, &v);
		if (r < 0)
			continue;
		if (!raw) {
			k->slot[r] = 0;
			continue;
		}
		rv_str_skip_blank(&v, e);
		if (k->slot[r] < 0 || rv_str_u64(&v, e, &x))
			continue;
		rv_str_skip_blank(&v, e);
		if (v != e && !rv_str_eq(v, e, "kB"))
			continue;
		raw[k->slot[r]] = (double)x;
		valid[k->slot[r]] = 1;
	}
}

static int open_keyed(struct keyed *k, const char *root, const char *rel,
		      const struct row *rows, size_t nrows, const char *inst,
		      struct rv_chanlist *chans, size_t base, struct rv_err *err)
{
	int rc = rv_pfile_open(&k->f, root, rel, err);

	k->rows = rows;
	k->nrows = nrows;
	for (size_t r = 0; r < nrows; r++)
		k->slot[r] = -1;
	if (rc)
		return rc;
	scan_keyed(k, NULL, NULL);
	for (size_t r = 0; !rc && r < nrows; r++) {
		if (k->slot[r] < 0)
			continue;
		k->slot[r] = (int32_t)(chans->n - base);
		rc = rv_chanlist_add(chans, rows[r].type, inst, rows[r].scale, err);
	}
	return rc;
}

static void numa_sample(void *state, double *raw, uint8_t *valid)
{
	struct numa_src *st = state;

	for (size_t i = 0; i < st->nfiles; i++)
		if (rv_pfile_read(&st->files[i].f) >= 0)
			scan_keyed(&st->files[i], raw, valid);
	rv_sysvals_sample(&st->sv, raw, valid);
}

static void numa_close(void *state)
{
	struct numa_src *st = state;

	if (!st)
		return;
	for (size_t i = 0; i < st->nfiles; i++)
		rv_pfile_close(&st->files[i].f);
	free(st->files);
	rv_sysvals_fini(&st->sv);
	free(st);
}

/* The hugepages-<S>kB directories of node `node` (none is fine). */
static int open_huge(struct numa_src *st, const char *dir, uint32_t node,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	char hdir[RV_SYSVAL_PATH_MAX], path[RV_SYSVAL_PATH_MAX], inst[48];
	uint32_t sizes[MAX_SIZES];
	size_t n = 0;
	int rc = 0;

	if (rv_sysval_path(hdir, "%s/node%u/hugepages", dir, node) ||
	    rv_sysval_scan_ids(hdir, "hugepages-", "kB", sizes, MAX_SIZES, &n))
		return 0;
	for (size_t i = 0; !rc && i < n; i++) {
		snprintf(inst, sizeof(inst), "node%u_%ukB", node, sizes[i]);
		for (size_t r = 0; !rc && r < NHUGE; r++) {
			struct rv_err e = { 0 };

			if (rv_sysval_path(path, "%s/hugepages-%ukB/%s", hdir, sizes[i],
					   huge_rows[r].key))
				continue;
			rc = rv_sysvals_add(&st->sv, chans, path, RV_SYSVAL_U64, huge_rows[r].type,
					    inst, 1, &e);
			if (rc == -ENOENT || rc == -EACCES)
				rc = 0;
			else if (rc)
				rv_err_set(err, rc, "%s", e.msg);
		}
	}
	return rc;
}

/* meminfo, numastat and the hugepages of node `node`. */
static int open_node(struct numa_src *st, const char *root, const char *dir, uint32_t node,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	char rel[RV_SYSVAL_PATH_MAX], inst[24];
	struct keyed *k = &st->files[st->nfiles];
	int rc;

	snprintf(inst, sizeof(inst), "node%u", node);
	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%u/meminfo", node);
	st->nfiles++;
	rc = open_keyed(k, root, rel, meminfo_rows, NMEMINFO, inst, chans, st->sv.base, err);
	if (rc)
		return rc;
	snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%u/numastat", node);
	st->nfiles++;
	rc = open_keyed(k + 1, root, rel, numastat_rows, NNUMASTAT, inst, chans, st->sv.base,
			err);
	return rc ? rc : open_huge(st, dir, node, chans, err);
}

static int numa_open(const struct rv_collect_cfg *cfg, void **state,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	struct numa_src *st = calloc(1, sizeof(*st));
	uint32_t *ids = malloc(MAX_NODES * sizeof(*ids));
	char dir[RV_SYSVAL_PATH_MAX];
	size_t n = 0;
	int rc = 0;

	if (!st || !ids) {
		rc = rv_err_set(err, -ENOMEM, "sys.numa: out of memory");
		goto out;
	}
	rv_sysvals_init(&st->sv, chans);
	if (rv_sysval_path(dir, "%s/sys/devices/system/node", cfg->root)) {
		rc = rv_err_set(err, -ENAMETOOLONG, "%s: path too long", cfg->root);
		goto out;
	}
	rc = rv_sysval_scan_ids(dir, "node", "", ids, MAX_NODES, &n);
	if (!rc && n == 0)
		rc = -ENOENT;
	if (rc) {
		rv_err_set(err, rc, "%s/node*: %s", dir, rv_strerror(rc));
		goto out;
	}
	st->files = calloc(2 * n, sizeof(*st->files));
	if (!st->files) {
		rc = rv_err_set(err, -ENOMEM, "sys.numa: out of memory");
		goto out;
	}
	for (size_t i = 0; !rc && i < n; i++)
		rc = open_node(st, cfg->root, dir, ids[i], chans, err);
out:
	free(ids);
	if (rc) {
		numa_close(st);
		return rc;
	}
	*state = st;
	return 0;
}

const struct rv_source rv_src_sys_numa = {
	.name = "sys.numa",
	.open = numa_open,
	.sample = numa_sample,
	.close = numa_close,
	.slow = 1,
};
