/*
 * rank.c - the consumers of a resource between two snapshots
 * (rv_attrib_rank), one process of a snapshot as a consumer measured
 * elsewhere (rv_attrib_proc_who), their one-line text, and the resource
 * names.
 *
 * Processes are matched by (pid, starttime): the same pid with another
 * start time is a new process, counted from zero like one that appears
 * only in the later snapshot. CPU is the utime + stime ticks used over
 * the interval in cores, memory the RSS growth in bytes (negative when it
 * shrank), I/O the read_bytes + write_bytes per second (a process whose
 * I/O is unknown in either snapshot is not an I/O consumer).
 *
 * Cgroups: only the leaves are ranked (a cgroup with no cgroup below it
 * in the later snapshot, or one at the walk's depth limit), never a
 * hierarchy's root: every counter read is hierarchical (v2, and v1
 * cpuacct and memory), so a parent's usage is its children's again, and
 * ranking both would name the same work twice; a pod's usage shows as its
 * containers', a slice's as its services'. Work done by processes in a
 * non-leaf v1 cgroup itself is not ranked. A cgroup absent from the
 * earlier snapshot counts from zero; a counter that went down (a cgroup
 * recreated under the same name) counts as zero. `before` is the same
 * measure between base0 and base1 for a cgroup present in both (CPU and
 * I/O as their rate; memory as the baseline's growth scaled to this
 * interval's length), else NaN.
 *
 * Shares are of the sum of the positive amounts over every consumer of
 * the kind (processes, or leaf cgroups). Consumers whose amount is zero
 * are not ranked; ties go to the lower pid, or the lower path.
 */
#include "attrib/attrib_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"

enum { REL_MAX = 48, PROC_PATH = AP_ROOT_MAX + REL_MAX };

static const double ns_per_s = 1e9;
static const double kib = 1024.0, mib = 1024.0 * 1024.0, gib = 1024.0 * 1024.0 * 1024.0;
static const double mb = 1e6;          /* I/O rates in MB/s, as iostat prints them */

static const char *const res_name[RV_ATTRIB_RES_COUNT] = { "cpu", "memory", "io" };
static const char *const res_unit[RV_ATTRIB_RES_COUNT] = { "cores", "bytes", "bytes/s" };
static const unsigned res_has[RV_ATTRIB_RES_COUNT] = { AP_HAS_CPU, AP_HAS_MEM, AP_HAS_IO };

const char *rv_attrib_res_name(enum rv_attrib_res r)
{
	return (unsigned)r < RV_ATTRIB_RES_COUNT ? res_name[r] : "unknown";
}

const char *rv_attrib_res_unit(enum rv_attrib_res r)
{
	return (unsigned)r < RV_ATTRIB_RES_COUNT ? res_unit[r] : "";
}

/* ------------------------------------------------------------ amounts */

/* after - before of a counter; a decrease counts as zero. */
static double grew(uint64_t after, uint64_t before)
{
	return after > before ? (double)(after - before) : 0.0;
}

/* The amount of res of process entry i of after: 1, or 0 when it has
 * none (I/O unknown). */
static int proc_amount(const struct rv_attrib_snap *b, const struct rv_attrib_snap *a, size_t i,
		       enum rv_attrib_res res, double dt, double *v)
{
	const struct ap_proc *p = &a->procs[i], *q = NULL;
	long j = ap_proc_find(b, p->pid);
	struct ap_proc zero = { .io_known = 1 };

	if (j >= 0 && b->procs[j].start == p->start)
		q = &b->procs[j];
	else
		q = &zero;
	if (res == RV_ATTRIB_CPU)
		*v = grew(p->cpu_ticks, q->cpu_ticks) / (double)a->clk_tck / dt;
	else if (res == RV_ATTRIB_MEM)
		*v = (double)p->rss_bytes - (double)q->rss_bytes;
	else if (!p->io_known || !q->io_known)
		return 0;
	else
		*v = grew(p->io_bytes, q->io_bytes) / dt;
	return 1;
}

/* The amount of res of cgroup c (path, in the later snapshot) since
 * snapshot b over dt seconds: 1, or 0 when c lacks the counter or when
 * b lacks the cgroup and `from_zero` is 0. */
static int cg_amount(const struct rv_attrib_snap *b, const struct ap_cg *c, const char *path,
		     enum rv_attrib_res res, double dt, int from_zero, double *v)
{
	static const struct ap_cg none = { .has = AP_HAS_CPU | AP_HAS_MEM | AP_HAS_IO };
	uint32_t j = ap_paths_find(&b->paths, path, strlen(path));
	const struct ap_cg *q = j == AP_NO_PATH ? &none : &b->cgs[j];

	if (!(c->has & res_has[res]) || !(q->has & res_has[res]) || (q == &none && !from_zero))
		return 0;
	if (res == RV_ATTRIB_CPU)
		*v = grew(c->cpu_ns, q->cpu_ns) / ns_per_s / dt;
	else if (res == RV_ATTRIB_MEM)
		*v = (double)c->mem_bytes - (double)q->mem_bytes;
	else
		*v = grew(c->io_bytes, q->io_bytes) / dt;
	return 1;
}

/* The baseline's measure of cgroup path, or NaN. */
static double cg_before(const struct rv_attrib_snap *b0, const struct rv_attrib_snap *b1,
			const char *path, enum rv_attrib_res res, double dt)
{
	uint32_t j;
	double dtb, v;

	if (!b0 || !b1 || b0->kind != AP_CGROUPS || b1->kind != AP_CGROUPS)
		return NAN;
	dtb = b1->t - b0->t;
	j = ap_paths_find(&b1->paths, path, strlen(path));
	if (dtb <= 0.0 || j == AP_NO_PATH || !cg_amount(b0, &b1->cgs[j], path, res, dtb, 0, &v))
		return NAN;
	return res == RV_ATTRIB_MEM ? v / dtb * dt : v;
}

int rv_attrib_proc_amount(const struct rv_attrib_snap *before, const struct rv_attrib_snap *after,
			  int pid, enum rv_attrib_res res, double *amount)
{
	double dt;
	long i;

	if (!before || !after || before->kind != AP_PROCS || after->kind != AP_PROCS ||
	    (unsigned)res >= RV_ATTRIB_RES_COUNT)
		return -EINVAL;
	dt = after->t - before->t;
	if (dt <= 0.0 && res != RV_ATTRIB_MEM)
		return -EINVAL;
	if ((i = ap_proc_find(after, pid)) < 0 ||
	    !proc_amount(before, after, (size_t)i, res, dt, amount))
		return -ENOENT;
	return 0;
}

/* --------------------------------------------------------------- top */

struct cand {
	double amount;
	size_t idx;
	int pid;                  /* the tie-break of processes */
	const char *path;         /* ... of cgroups */
};

struct top {
	struct cand c[RV_ATTRIB_TOP_MAX];
	size_t n, max;
	double sum;               /* of the positive amounts */
};

static int ahead(const struct cand *x, const struct cand *y)
{
	if (x->amount != y->amount)
		return x->amount > y->amount;
	if (x->path)
		return strcmp(x->path, y->path) < 0;
	return x->pid < y->pid;
}

/* Offers a consumer; zero amounts are not ranked. */
static void offer(struct top *t, struct cand c)
{
	size_t k;

	if (c.amount > 0.0)
		t->sum += c.amount;
	if (c.amount == 0.0 || (t->n == t->max && !ahead(&c, &t->c[t->n - 1])))
		return;
	k = t->n < t->max ? t->n++ : t->n - 1;
	for (; k > 0 && ahead(&c, &t->c[k - 1]); k--)
		t->c[k] = t->c[k - 1];
	t->c[k] = c;
}

static double share(const struct top *t, double amount)
{
	return amount > 0.0 && t->sum > 0.0 ? amount / t->sum : 0.0;
}

/* --------------------------------------------------------- processes */

/* The command line of process p into cmd, when p still runs (the same
 * start time); else "". */
static void read_cmd(struct rv_attrib *a, const struct ap_proc *p, char *cmd, size_t cap)
{
	char path[PROC_PATH];
	struct ap_proc now = { 0 };
	uint64_t rss;
	long len;

	cmd[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/%d/stat", a->root, p->pid);
	len = ap_read_at(AT_FDCWD, path, a->buf, AP_FILE_BUF + 1);
	if (len < 0 || ap_parse_stat(a->buf, a->buf + len, &now, &rss) || now.start != p->start)
		return;
	snprintf(path, sizeof(path), "%s/proc/%d/cmdline", a->root, p->pid);
	len = ap_read_at(AT_FDCWD, path, a->buf, AP_FILE_BUF + 1);
	if (len == -EOVERFLOW)
		len = AP_FILE_BUF;
	while (len > 0 && a->buf[len - 1] == '\0')
		len--;
	if (len <= 0)
		return;
	if ((size_t)len >= cap)
		len = (long)cap - 1;
	for (long i = 0; i < len; i++)
		cmd[i] = a->buf[i] ? a->buf[i] : ' ';
	cmd[len] = '\0';
}

static void fill_proc(struct rv_attrib *a, const struct rv_attrib_snap *s, const struct top *t,
		      const struct cand *c, enum rv_attrib_res res, struct rv_consumer *o)
{
	const struct ap_proc *p = &s->procs[c->idx];

	memset(o, 0, sizeof(*o));
	o->pid = p->pid;
	snprintf(o->comm, sizeof(o->comm), "%s", p->comm);
	read_cmd(a, p, o->cmd, sizeof(o->cmd));
	snprintf(o->cgroup, sizeof(o->cgroup), "%s", ap_paths_get(&s->paths, p->cg));
	rv_cgname_parse(o->cgroup, &o->name);
	o->res = res;
	o->amount = c->amount;
	o->before = NAN;
	o->share = share(t, c->amount);
	o->pressure = NAN;
}

int rv_attrib_proc_who(struct rv_attrib *a, const struct rv_attrib_snap *s, int pid,
		       struct rv_consumer *out)
{
	struct top none = { .max = 1 };
	long i;

	if (!a || !s || !out || s->kind != AP_PROCS)
		return -EINVAL;
	if ((i = ap_proc_find(s, pid)) < 0)
		return -ENOENT;
	fill_proc(a, s, &none, &(struct cand){ .idx = (size_t)i, .pid = pid }, RV_ATTRIB_CPU, out);
	return 0;
}

static size_t rank_procs(struct rv_attrib *a, const struct rv_attrib_snap *b,
			 const struct rv_attrib_snap *s, enum rv_attrib_res res,
			 struct rv_consumer *out, struct top *t)
{
	double dt = s->t - b->t;

	if (dt <= 0.0 && res != RV_ATTRIB_MEM)
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		struct cand c = { .idx = i, .pid = s->procs[i].pid };

		if (proc_amount(b, s, i, res, dt, &c.amount))
			offer(t, c);
	}
	for (size_t k = 0; k < t->n; k++)
		fill_proc(a, s, t, &t->c[k], res, &out[k]);
	return t->n;
}

/* ----------------------------------------------------------- cgroups */

static size_t rank_cgroups(const struct rv_attrib_snap *b, const struct rv_attrib_snap *s,
			   const struct rv_attrib_snap *b0, const struct rv_attrib_snap *b1,
			   enum rv_attrib_res res, struct rv_consumer *out, struct top *t)
{
	double dt = s->t - b->t;

	if (dt <= 0.0 && res != RV_ATTRIB_MEM)
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		const char *path = ap_paths_get(&s->paths, (uint32_t)i);
		struct cand c = { .idx = i, .path = path };

		if (s->cgs[i].leaf && s->cgs[i].parent >= 0 &&
		    cg_amount(b, &s->cgs[i], path, res, dt, 1, &c.amount))
			offer(t, c);
	}
	for (size_t k = 0; k < t->n; k++) {
		struct rv_consumer *o = &out[k];
		const struct cand *c = &t->c[k];

		memset(o, 0, sizeof(*o));
		o->is_cgroup = 1;
		snprintf(o->cgroup, sizeof(o->cgroup), "%s", c->path);
		rv_cgname_parse(o->cgroup, &o->name);
		o->res = res;
		o->amount = c->amount;
		o->before = cg_before(b0, b1, c->path, res, dt);
		o->share = share(t, c->amount);
		o->pressure = s->cgs[c->idx].psi[res];
	}
	return t->n;
}

size_t rv_attrib_rank(struct rv_attrib *a, const struct rv_attrib_snap *before,
		      const struct rv_attrib_snap *after, const struct rv_attrib_snap *base0,
		      const struct rv_attrib_snap *base1, enum rv_attrib_res res,
		      struct rv_consumer *out, size_t max)
{
	struct top t = { .max = max < RV_ATTRIB_TOP_MAX ? max : RV_ATTRIB_TOP_MAX };

	if (!a || !before || !after || !out || t.max == 0 || before->kind != after->kind ||
	    (unsigned)res >= RV_ATTRIB_RES_COUNT)
		return 0;
	if (after->kind == AP_PROCS)
		return rank_procs(a, before, after, res, out, &t);
	if (after->kind == AP_CGROUPS)
		return rank_cgroups(before, after, base0, base1, res, out, &t);
	return 0;
}

/* -------------------------------------------------------------- text */

/* Bytes in B, KiB, MiB or GiB. */
static void add_bytes(struct rv_text *o, double v)
{
	double m = fabs(v);

	if (m >= gib)
		rv_text_add(o, "%.1f GiB", v / gib);
	else if (m >= mib)
		rv_text_add(o, "%.0f MiB", v / mib);
	else if (m >= kib)
		rv_text_add(o, "%.0f KiB", v / kib);
	else
		rv_text_add(o, "%.0f B", v);
}

/* v in the unit of res (cores named only when `cores`). */
static void add_amount(struct rv_text *o, enum rv_attrib_res res, double v, int cores)
{
	if (res == RV_ATTRIB_CPU)
		rv_text_add(o, cores ? "%.2f cores" : "%.2f", v);
	else if (res == RV_ATTRIB_MEM)
		add_bytes(o, v);
	else
		rv_text_add(o, "%.1f MB/s", v / mb);
}

/* 1 when the name says more than the path: a container, pod, job or unit. */
static int says(const struct rv_cgname *n)
{
	return n->container[0] || n->pod_uid[0] || n->slurm_job[0] || n->unit[0];
}

static void add_who(struct rv_text *o, const struct rv_consumer *c)
{
	const struct rv_cgname *n = &c->name;
	const char *where = c->cgroup[0] == '/' ? c->cgroup + 1 : c->cgroup;

	if (c->is_cgroup) {
		rv_text_add(o, "cgroup %s", says(n) ? n->label : c->cgroup);
		return;
	}
	rv_text_add(o, "pid %d %s", c->pid, c->comm);
	if (n->container[0] || n->pod_uid[0] || n->slurm_job[0])
		rv_text_add(o, " in %s", n->label);
	else if (where[0])
		rv_text_add(o, " in %s", where);
}

int rv_consumer_text(const struct rv_consumer *c, char *buf, size_t cap)
{
	struct rv_text o = { .buf = buf, .cap = buf ? cap : 0 };
	int mem = c->res == RV_ATTRIB_MEM;

	if (o.cap)
		buf[0] = '\0';
	add_who(&o, c);
	rv_text_add(&o, " %s ", mem ? (c->amount < 0.0 ? "shrank" : "grew") : "took");
	add_amount(&o, c->res, mem ? fabs(c->amount) : c->amount, 1);
	if (c->res == RV_ATTRIB_IO)
		rv_text_add(&o, " of I/O");
	rv_text_add(&o, " (%.0f %%)", c->share * 100.0);
	if (isfinite(c->before)) {
		rv_text_add(&o, ", ");
		add_amount(&o, c->res, c->before, 0);
		rv_text_add(&o, " before");
	}
	if (isfinite(c->pressure))
		rv_text_add(&o, ", %s pressure %.1f %%", rv_attrib_res_name(c->res), c->pressure);
	return (int)o.len;
}
