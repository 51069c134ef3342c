/*
 * facts.c - static facts of a host (facts.h), read once under a root
 * prefix:
 *   /proc/cpuinfo              cpu.model, cpu.vendor, cpu.sockets (distinct
 *                              "physical id"), cpu.cores_per_socket,
 *                              cpu.threads_per_core, cpu.flags_avx512 (of
 *                              the first processor)
 *   /sys/devices/system/cpu/online           cpu.logical
 *   /proc/sys/kernel/osrelease               kernel.release
 *   /sys/devices/system/node/node<N>/cpulist numa.nodes, numa.node<N>.cpus
 *   /proc/meminfo              mem.total_bytes, mem.hugepage_size_bytes
 *   /sys/kernel/mm/hugepages/hugepages-<S>kB/nr_hugepages
 *                              mem.hugepages_<S>kb
 *   /sys/kernel/mm/transparent_hugepage/enabled  mem.thp (the [choice])
 *   /sys/class/net/<if>/       net.<if>.{speed_mbps,mtu,operstate}, lo not
 *   /sys/class/infiniband/<dev>/ports/<p>/       ib.<dev>_<p>.{rate,link_layer}
 *   /sys/class/block/<dev>/    disk.<dev>.{size_bytes,rotational}, whole
 *                              disks only (no partitions, loop or RAM disks)
 * Names in keys are lowered, other bytes than [a-z0-9_] becoming '_'.
 * A down link's speed (EINVAL) or an unknown one (-1) is absent.
 */
#include "collect/facts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strparse.h"
#include "collect/nvml_facts.h"
#include "collect/pairs.h"
#include "collect/pfile.h"
#include "collect/sysval.h"

enum {
	FACTS_START = 64,       /* facts of a list's first allocation */
	MAX_SOCKETS = 256,      /* distinct "physical id" values counted */
	MAX_NODES = 1024,
	MAX_HUGE_SIZES = 16,
	MAX_DEVS = 1024,        /* interfaces, IB devices, block devices */
	MAX_PORTS = 64,
	MAX_CPUS = 1 << 20,     /* beyond any NR_CPUS: a cpulist past it is garbage */
	KIB = 1024,
	SECTOR_BYTES = 512,
	TEXT_MAX = RV_FACT_VALUE_MAX,
};

/* ARPHRD_LOOPBACK, the `type` of lo. */
static const uint64_t loopback_type = 772;

/* RAM disks, loop and zram devices are not disks of the host. */
static const char *const virtual_disks[] = { "loop", "ram", "zram" };

struct ctx {
	const char *root;
	struct rv_facts *f;
	char (*names)[RV_SYSVAL_NAME_MAX];      /* scratch of directory listings */
	int rc;                 /* -ENOMEM once out of memory: nothing more is added */
};

/* ------------------------------------------------------------ the list */

static int is_space(unsigned char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' ||
	       ch == '\f';
}

static int key_ok(const char *k)
{
	size_t n = strlen(k);

	if (n == 0 || n >= RV_FACT_KEY_MAX)
		return 0;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_' ||
		      *k == '.'))
			return 0;
	return 1;
}

/* v trimmed and cut into out (RV_FACT_VALUE_MAX); returns its length. */
static size_t clean_value(char *out, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	size_t n = 0;

	while (*s && is_space(*s))
		s++;
	for (; *s && n < RV_FACT_VALUE_MAX - 1; s++)
		out[n++] = (char)(*s >= 0x20 && *s < 0x7f ? *s : is_space(*s) ? ' ' : '?');
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return n;
}

int rv_facts_add(struct rv_facts *f, const char *key, const char *value)
{
	char clean[RV_FACT_VALUE_MAX];
	struct rv_fact *slot = NULL;

	if (!key_ok(key) || clean_value(clean, value) == 0)
		return -EINVAL;
	for (size_t i = 0; i < f->n && !slot; i++)
		if (strcmp(f->v[i].key, key) == 0)
			slot = &f->v[i];
	if (!slot) {
		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : FACTS_START;
			struct rv_fact *v = realloc(f->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			f->v = v;
			f->cap = cap;
		}
		slot = &f->v[f->n++];
		memcpy(slot->key, key, strlen(key) + 1);
	}
	memcpy(slot->value, clean, sizeof(clean));
	return 0;
}

const char *rv_facts_get(const struct rv_facts *f, const char *key)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].key, key) == 0)
			return f->v[i].value;
	return NULL;
}

void rv_facts_fini(struct rv_facts *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* ------------------------------------------------------------ helpers */

static void vput(struct ctx *c, const char *value, const char *fmt, va_list ap)
{
	char key[RV_FACT_KEY_MAX];
	int len = vsnprintf(key, sizeof(key), fmt, ap);

	if (c->rc || len < 0 || (size_t)len >= sizeof(key))
		return;                 /* a device name too long for a key: no fact */
	if (rv_facts_add(c->f, key, value) == -ENOMEM)
		c->rc = -ENOMEM;
}

/* Adds the fact named by fmt; an empty value adds nothing. */
__attribute__((format(printf, 3, 4)))
static void put(struct ctx *c, const char *value, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(c, value, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static void put_u64(struct ctx *c, uint64_t v, const char *fmt, ...)
{
	char value[24];
	va_list ap;

	snprintf(value, sizeof(value), "%" PRIu64, v);
	va_start(ap, fmt);
	vput(c, value, fmt, ap);
	va_end(ap);
}

/* root + the rest (printf-style) into buf of RV_SYSVAL_PATH_MAX bytes:
 * 0, or -ENAMETOOLONG. */
__attribute__((format(printf, 3, 4)))
static int path_of(const struct ctx *c, char *buf, const char *fmt, ...)
{
	char rel[RV_SYSVAL_PATH_MAX];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(rel))
		return -ENAMETOOLONG;
	return rv_sysval_path(buf, "%s%s", c->root, rel);
}

/* dir/file whole into buf (TEXT_MAX), without the trailing newline: 0 or
 * a negative errno (-EINVAL when empty). */
static int read_text(const char *dir, const char *file, char *buf)
{
	char path[RV_SYSVAL_PATH_MAX];

	if (rv_sysval_path(path, "%s/%s", dir, file))
		return -ENAMETOOLONG;
	return rv_sysval_text(path, buf, TEXT_MAX, NULL);
}

/* The unsigned decimal that is all of [s, e) but blanks. */
static int whole_u64(const char *s, const char *e, uint64_t *v)
{
	rv_str_skip_blank(&s, e);
	if (rv_str_u64(&s, e, v))
		return -EINVAL;
	rv_str_skip_blank(&s, e);
	return s == e ? 0 : -EINVAL;
}

/* dir/file as one unsigned decimal: 0, or a negative errno. */
static int read_u64(const char *dir, const char *file, uint64_t *v)
{
	char buf[TEXT_MAX];
	int rc = read_text(dir, file, buf);

	return rc ? rc : whole_u64(buf, buf + strlen(buf), v);
}

/* Adds dir/file under the key fmt % name when it reads. */
static void put_text_of(struct ctx *c, const char *dir, const char *file, const char *fmt,
			const char *name)
{
	char buf[TEXT_MAX];

	if (read_text(dir, file, buf) == 0)
		put(c, buf, fmt, name);
}

static void put_u64_of(struct ctx *c, const char *dir, const char *file, const char *fmt,
		       const char *name)
{
	uint64_t v;

	if (read_u64(dir, file, &v) == 0)
		put_u64(c, v, fmt, name);
}

/* The CPUs of a cpulist ("0-3,8,10-11"): 0 with *n, -EINVAL when the
 * text is not one. */
static int cpulist_count(const char *s, uint64_t *n)
{
	const char *e = s + strlen(s);
	uint64_t lo, hi;

	*n = 0;
	while (s < e) {
		if (rv_str_u64(&s, e, &lo))
			return -EINVAL;
		hi = lo;
		if (s < e && *s == '-') {
			s++;
			if (rv_str_u64(&s, e, &hi) || hi < lo)
				return -EINVAL;
		}
		if (hi - lo >= MAX_CPUS || (*n += hi - lo + 1) > MAX_CPUS)
			return -EINVAL;
		if (s < e && (*s++ != ',' || s == e))
			return -EINVAL;
	}
	return *n ? 0 : -EINVAL;
}

/* Splits "key<blanks>: value" (cpuinfo, meminfo) at the first ':': 0 with
 * the key's end *ke and the value's start *vs; -1 for a line without. */
static int split_kv(const char *s, const char *e, const char **ke, const char **vs)
{
	const char *colon = memchr(s, ':', (size_t)(e - s));

	if (!colon)
		return -1;
	for (*ke = colon; *ke > s && ((*ke)[-1] == ' ' || (*ke)[-1] == '\t'); (*ke)--)
		;
	*vs = colon + 1;
	rv_str_skip_blank(vs, e);
	return 0;
}

/* Calls line(arg, key start, key end, value start, line end) for each
 * "key: value" line of root + rel; an unreadable file calls nothing. */
static void each_kv(struct ctx *c, const char *rel,
		    void (*line)(void *arg, const char *ks, const char *ke, const char *vs,
				 const char *e),
		    void *arg)
{
	struct rv_pfile pf;
	const char *p, *end, *s, *e, *ke, *vs;
	int rc = rv_pfile_open(&pf, c->root, rel, NULL);

	if (rc) {
		if (rc == -ENOMEM)
			c->rc = rc;
		return;
	}
	for (p = pf.buf, end = p + pf.len; p < end;) {
		s = rv_pairs_next_line(&p, end, &e);
		if (split_kv(s, e, &ke, &vs) == 0)
			line(arg, s, ke, vs, e);
	}
	rv_pfile_close(&pf);
}

/* ------------------------------------------------------------ cpu */

enum { UNSEEN, BAD, READ };

struct cpuinfo {
	char model[TEXT_MAX], vendor[TEXT_MAX];
	int avx512;                     /* -1: no flags line */
	uint64_t cores, siblings;
	int cores_st, siblings_st;      /* UNSEEN, BAD, READ */
	uint64_t socket[MAX_SOCKETS];
	size_t nsocket;
	int sockets_bad;                /* a physical id that is not a number */
};

static void copy_text(char *dst, const char *s, const char *e)
{
	size_t n = (size_t)(e - s) < TEXT_MAX - 1 ? (size_t)(e - s) : TEXT_MAX - 1;

	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* 1 when word is one of the blank-separated words of [s, e). */
static int has_word(const char *s, const char *e, const char *word)
{
	const char *w;

	while (s < e) {
		rv_str_skip_blank(&s, e);
		for (w = s; s < e && *s != ' ' && *s != '\t'; s++)
			;
		if (s > w && rv_str_eq(w, s, word))
			return 1;
	}
	return 0;
}

static void note_socket(struct cpuinfo *ci, const char *vs, const char *e)
{
	uint64_t id;

	if (whole_u64(vs, e, &id)) {
		ci->sockets_bad = 1;
		return;
	}
	for (size_t i = 0; i < ci->nsocket; i++)
		if (ci->socket[i] == id)
			return;
	if (ci->nsocket == MAX_SOCKETS)
		ci->sockets_bad = 1;
	else
		ci->socket[ci->nsocket++] = id;
}

/* One line of /proc/cpuinfo: every physical id; of the other keys the
 * first line that has one (the first processor's on any real host). */
static void cpuinfo_line(void *arg, const char *ks, const char *ke, const char *vs,
			 const char *e)
{
	struct cpuinfo *ci = arg;

	if (rv_str_eq(ks, ke, "physical id"))
		note_socket(ci, vs, e);
	else if (rv_str_eq(ks, ke, "model name") && !ci->model[0])
		copy_text(ci->model, vs, e);
	else if (rv_str_eq(ks, ke, "vendor_id") && !ci->vendor[0])
		copy_text(ci->vendor, vs, e);
	else if (rv_str_eq(ks, ke, "flags") && ci->avx512 < 0)
		ci->avx512 = has_word(vs, e, "avx512f");
	else if (rv_str_eq(ks, ke, "cpu cores") && ci->cores_st == UNSEEN)
		ci->cores_st = whole_u64(vs, e, &ci->cores) ? BAD : READ;
	else if (rv_str_eq(ks, ke, "siblings") && ci->siblings_st == UNSEEN)
		ci->siblings_st = whole_u64(vs, e, &ci->siblings) ? BAD : READ;
}

static void cpu_facts(struct ctx *c)
{
	struct cpuinfo *ci = calloc(1, sizeof(*ci));
	char dir[RV_SYSVAL_PATH_MAX], buf[TEXT_MAX];
	uint64_t n;

	if (!ci) {
		c->rc = -ENOMEM;
		return;
	}
	ci->avx512 = -1;
	each_kv(c, "/proc/cpuinfo", cpuinfo_line, ci);
	put(c, ci->model, "cpu.model");
	put(c, ci->vendor, "cpu.vendor");
	if (path_of(c, dir, "/sys/devices/system/cpu") == 0 &&
	    read_text(dir, "online", buf) == 0 && cpulist_count(buf, &n) == 0)
		put_u64(c, n, "cpu.logical");
	if (ci->nsocket && !ci->sockets_bad)
		put_u64(c, ci->nsocket, "cpu.sockets");
	if (ci->cores_st == READ && ci->cores > 0) {
		put_u64(c, ci->cores, "cpu.cores_per_socket");
		if (ci->siblings_st == READ && ci->siblings >= ci->cores &&
		    ci->siblings % ci->cores == 0)
			put_u64(c, ci->siblings / ci->cores, "cpu.threads_per_core");
	}
	if (ci->avx512 >= 0)
		put(c, ci->avx512 ? "yes" : "no", "cpu.flags_avx512");
	free(ci);
}

/* ------------------------------------------------------------ kernel, numa, memory */

static void kernel_facts(struct ctx *c)
{
	char dir[RV_SYSVAL_PATH_MAX];

	if (path_of(c, dir, "/proc/sys/kernel") == 0)
		put_text_of(c, dir, "osrelease", "kernel.%s", "release");
}

static void numa_facts(struct ctx *c)
{
	char dir[RV_SYSVAL_PATH_MAX], node[RV_SYSVAL_PATH_MAX], buf[TEXT_MAX];
	uint32_t ids[MAX_NODES];
	size_t n;

	if (path_of(c, dir, "/sys/devices/system/node") ||
	    rv_sysval_scan_ids(dir, "node", "", ids, MAX_NODES, &n) || n == 0)
		return;
	put_u64(c, n, "numa.nodes");
	for (size_t i = 0; i < n; i++)
		if (rv_sysval_path(node, "%s/node%" PRIu32, dir, ids[i]) == 0 &&
		    read_text(node, "cpulist", buf) == 0)
			put(c, buf, "numa.node%" PRIu32 ".cpus", ids[i]);
}

/* "MemTotal:  24683568 kB" -> mem.total_bytes; Hugepagesize likewise. */
static void meminfo_line(void *arg, const char *ks, const char *ke, const char *vs,
			 const char *e)
{
	struct ctx *c = arg;
	const char *key = rv_str_eq(ks, ke, "MemTotal") ? "mem.total_bytes" :
			  rv_str_eq(ks, ke, "Hugepagesize") ? "mem.hugepage_size_bytes" : NULL;
	uint64_t v;

	if (!key || rv_str_u64(&vs, e, &v) || v > UINT64_MAX / KIB)
		return;
	rv_str_skip_blank(&vs, e);
	if (e - vs < 2 || memcmp(vs, "kB", 2) != 0)
		return;
	vs += 2;
	rv_str_skip_blank(&vs, e);
	if (vs == e)
		put_u64(c, v * KIB, "%s", key);
}

static void mem_facts(struct ctx *c)
{
	char dir[RV_SYSVAL_PATH_MAX], sub[RV_SYSVAL_PATH_MAX], buf[TEXT_MAX], *lb, *rb;
	uint32_t ids[MAX_HUGE_SIZES];
	uint64_t v;
	size_t n;

	each_kv(c, "/proc/meminfo", meminfo_line, c);
	if (path_of(c, dir, "/sys/kernel/mm/hugepages") == 0 &&
	    rv_sysval_scan_ids(dir, "hugepages-", "kB", ids, MAX_HUGE_SIZES, &n) == 0)
		for (size_t i = 0; i < n; i++)
			if (rv_sysval_path(sub, "%s/hugepages-%" PRIu32 "kB", dir, ids[i]) == 0 &&
			    read_u64(sub, "nr_hugepages", &v) == 0)
				put_u64(c, v, "mem.hugepages_%" PRIu32 "kb", ids[i]);
	if (path_of(c, dir, "/sys/kernel/mm/transparent_hugepage") ||
	    read_text(dir, "enabled", buf))
		return;
	lb = strchr(buf, '[');
	rb = lb ? strchr(lb, ']') : NULL;
	if (rb) {
		*rb = '\0';
		put(c, lb + 1, "mem.thp");
	}
}

/* ------------------------------------------------------------ devices */

/* Lists root + rel into c->names: their count, 0 when it cannot be read. */
static size_t list_dir(const struct ctx *c, const char *rel, char *dir)
{
	size_t n;

	if (path_of(c, dir, "%s", rel) ||
	    rv_sysval_scan_names(dir, c->names, MAX_DEVS, &n))
		return 0;
	return n;
}

static int is_loopback(const char *ifdir, const char *name)
{
	uint64_t type;

	return strcmp(name, "lo") == 0 ||
	       (read_u64(ifdir, "type", &type) == 0 && type == loopback_type);
}

static void net_facts(struct ctx *c)
{
	char dir[RV_SYSVAL_PATH_MAX], ifdir[RV_SYSVAL_PATH_MAX], key[RV_SYSVAL_NAME_MAX];
	size_t n = list_dir(c, "/sys/class/net", dir);

	for (size_t i = 0; i < n; i++) {
		const char *name = c->names[i];

		if (rv_sysval_path(ifdir, "%s/%s", dir, name) || is_loopback(ifdir, name))
			continue;
		memcpy(key, name, sizeof(key));
		rv_sysval_sanitize(key);
		put_u64_of(c, ifdir, "speed", "net.%s.speed_mbps", key);
		put_u64_of(c, ifdir, "mtu", "net.%s.mtu", key);
		put_text_of(c, ifdir, "operstate", "net.%s.operstate", key);
	}
}

static void ib_facts(struct ctx *c)
{
	char dir[RV_SYSVAL_PATH_MAX], ports[RV_SYSVAL_PATH_MAX], port[RV_SYSVAL_PATH_MAX];
	char inst[RV_SYSVAL_NAME_MAX + 16];
	uint32_t ids[MAX_PORTS];
	size_t n = list_dir(c, "/sys/class/infiniband", dir), np;

	for (size_t i = 0; i < n; i++) {
		if (rv_sysval_path(ports, "%s/%s/ports", dir, c->names[i]) ||
		    rv_sysval_scan_ids(ports, "", "", ids, MAX_PORTS, &np))
			continue;
		for (size_t k = 0; k < np; k++) {
			if (rv_sysval_path(port, "%s/%" PRIu32, ports, ids[k]))
				continue;
			snprintf(inst, sizeof(inst), "%s_%" PRIu32, c->names[i], ids[k]);
			rv_sysval_sanitize(inst);
			put_text_of(c, port, "rate", "ib.%s.rate", inst);
			put_text_of(c, port, "link_layer", "ib.%s.link_layer", inst);
		}
	}
}

static int is_virtual_disk(const char *name)
{
	for (size_t i = 0; i < sizeof(virtual_disks) / sizeof(virtual_disks[0]); i++) {
		size_t n = strlen(virtual_disks[i]);

		if (strncmp(name, virtual_disks[i], n) == 0 && name[n] >= '0' && name[n] <= '9')
			return 1;
	}
	return 0;
}

static void disk_facts(struct ctx *c)
{
	char dir[RV_SYSVAL_PATH_MAX], dev[RV_SYSVAL_PATH_MAX], key[RV_SYSVAL_NAME_MAX];
	char part[RV_SYSVAL_PATH_MAX];
	size_t n = list_dir(c, "/sys/class/block", dir);
	uint64_t sectors;

	for (size_t i = 0; i < n; i++) {
		const char *name = c->names[i];

		if (is_virtual_disk(name) || rv_sysval_path(dev, "%s/%s", dir, name) ||
		    rv_sysval_path(part, "%s/partition", dev) || access(part, F_OK) == 0)
			continue;
		memcpy(key, name, sizeof(key));
		rv_sysval_sanitize(key);
		if (read_u64(dev, "size", &sectors) == 0 && sectors <= UINT64_MAX / SECTOR_BYTES)
			put_u64(c, sectors * SECTOR_BYTES, "disk.%s.size_bytes", key);
		put_u64_of(c, dev, "queue/rotational", "disk.%s.rotational", key);
	}
}

/* ------------------------------------------------------------ all */

static void (*const steps[])(struct ctx *c) = {
	cpu_facts, kernel_facts, numa_facts, mem_facts, net_facts, ib_facts, disk_facts,
};

int rv_facts_collect(const struct rv_collect_cfg *cfg, struct rv_facts *out,
		     struct rv_err *err)
{
	struct ctx c = { .root = cfg->root, .f = out };

	c.names = malloc(MAX_DEVS * sizeof(*c.names));
	if (!c.names)
		return rv_err_set(err, -ENOMEM, "facts: out of memory");
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && !c.rc; i++)
		steps[i](&c);
	free(c.names);
	if (!c.rc)
		c.rc = rv_nvml_facts(cfg->nvml_lib, out);
	if (c.rc)
		return rv_err_set(err, c.rc, "facts of \"%s\": out of memory", cfg->root);
	return 0;
}
