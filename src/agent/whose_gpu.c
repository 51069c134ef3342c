/*
 * whose_gpu.c - the GPUs in whose workload (whose_gpu.h): the processes
 * that use the GPUs, from the NVML lister (collect/nvml_who.h), joined
 * with the attribution's process scan for their names and cgroups.
 *
 * A GPU incident is about SMs and GPU memory, which the process scan does
 * not see: the lister gives each compute process's SM use since its
 * previous list (NVML's own samples) and the memory it holds, and the
 * ranking puts the GPUs the incident's signals name first, so that a busy
 * neighbour on another GPU does not hide the process on the GPU that
 * moved. Runs on the attribution thread; allocates only at open.
 */
#include "agent/whose_gpu.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/log.h"

enum { GPU_INDEX_MAX = 65535 };   /* beyond any host's GPU count: a name, not a GPU */

static const double gib = 1024.0 * 1024.0 * 1024.0, mib = 1024.0 * 1024.0;

int rv_agent_gpu_open(struct agent_gpu *g, const char *lib)
{
	struct rv_err err = { 0 };
	int rc;

	memset(g, 0, sizeof(*g));
	rc = rv_nvml_who_open(lib, &g->who, &err);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		rv_debug("agent: attribution: no GPU processes: %s", rv_err_text(&err, rc));
		return 0;
	}
	g->list = calloc(RV_AGENT_GPU_LIST, sizeof(*g->list));
	if (!g->list) {
		rv_nvml_who_close(g->who);
		g->who = NULL;
		return -ENOMEM;
	}
	rv_info("agent: attribution: GPU processes of %zu GPUs through %s",
		rv_nvml_who_gpus(g->who), lib ? lib : "libnvidia-ml.so.1");
	return 0;
}

void rv_agent_gpu_close(struct agent_gpu *g)
{
	rv_nvml_who_close(g->who);
	free(g->list);
	memset(g, 0, sizeof(*g));
}

/* The N of an instance "gpuN" at the end of a channel name, or -1. */
static long gpu_of(const char *name)
{
	const char *inst = strrchr(name, ':');
	char *end;
	unsigned long v;

	if (!inst || strncmp(inst + 1, "gpu", 3) != 0 || inst[4] < '0' || inst[4] > '9')
		return -1;
	v = strtoul(inst + 4, &end, 10);
	return v <= GPU_INDEX_MAX ? (long)v : -1;
}

void rv_agent_gpu_named(const struct rv_store_incident *in, struct agent_gpus *out)
{
	char name[RV_STORE_SIG_NAME_LEN + 1];

	out->n = 0;
	for (size_t i = 0; i < in->nsig && i < RV_STORE_SIG_MAX && out->n < RV_AGENT_GPU_NAMED;
	     i++) {
		long g;
		size_t k = 0;

		/* a full name field need not end in a NUL (store.h) */
		memcpy(name, in->sig[i].name, RV_STORE_SIG_NAME_LEN);
		name[RV_STORE_SIG_NAME_LEN] = '\0';
		if ((g = gpu_of(name)) < 0)
			continue;
		while (k < out->n && out->idx[k] != (unsigned int)g)
			k++;
		if (k == out->n)
			out->idx[out->n++] = (unsigned int)g;
	}
}

static int is_named(const struct agent_gpus *named, unsigned int gpu)
{
	for (size_t k = 0; named && k < named->n; k++)
		if (named->idx[k] == gpu)
			return 1;
	return 0;
}

/* A known measure, or -1 so that unknown ranks after every known one. */
static double or_last(double v)
{
	return isnan(v) ? -1.0 : v;
}

/* Whether x ranks before y. */
static int ahead(const struct rv_gpu_proc *x, const struct rv_gpu_proc *y,
		 const struct agent_gpus *named)
{
	int nx = is_named(named, x->gpu), ny = is_named(named, y->gpu);

	if (nx != ny)
		return nx;
	if (or_last(x->sm_pct) != or_last(y->sm_pct))
		return or_last(x->sm_pct) > or_last(y->sm_pct);
	if (or_last(x->mem_bytes) != or_last(y->mem_bytes))
		return or_last(x->mem_bytes) > or_last(y->mem_bytes);
	if (x->pid != y->pid)
		return x->pid < y->pid;
	return x->gpu < y->gpu;
}

size_t rv_agent_gpu_rank(const struct rv_gpu_proc *p, size_t n, const struct agent_gpus *named,
			 size_t *top, size_t max)
{
	size_t k = 0;

	/* insertion into the top max: n is small, max smaller still */
	for (size_t i = 0; i < n && max > 0; i++) {
		size_t at;

		if (k == max && !ahead(&p[i], &p[top[k - 1]], named))
			continue;
		at = k < max ? k++ : k - 1;
		for (; at > 0 && ahead(&p[i], &p[top[at - 1]], named); at--)
			top[at] = top[at - 1];
		top[at] = i;
	}
	return k;
}

/* What an operator calls the process's place: its pod, container, Slurm
 * job or systemd unit; nothing when its cgroup names none of them (a bare
 * cgroup path says little and would make the line long). */
static void add_where(struct rv_text *o, const struct rv_cgname *n)
{
	if (n->pod_uid[0])
		rv_text_add(o, " (pod %s)", n->pod_uid);
	else if (n->container[0] || n->slurm_job[0])
		rv_text_add(o, " (%s)", n->label);
	else if (n->unit[0])
		rv_text_add(o, " (%s)", n->unit);
}

int rv_agent_gpu_text(const struct rv_gpu_proc *p, const struct rv_consumer *who, char *buf,
		      size_t cap)
{
	struct rv_text o = { .buf = buf, .cap = buf ? cap : 0 };

	if (o.cap)
		buf[0] = '\0';
	rv_text_add(&o, "pid %d", p->pid);
	if (who && who->pid == p->pid && who->comm[0]) {
		rv_text_add(&o, " %s", who->comm);
		add_where(&o, &who->name);
	}
	rv_text_add(&o, " on gpu%u: ", p->gpu);
	if (isnan(p->sm_pct))
		rv_text_add(&o, "SM unknown");
	else
		rv_text_add(&o, "%.0f %% SM", p->sm_pct);
	if (isnan(p->mem_bytes))
		rv_text_add(&o, ", memory unknown");
	else if (p->mem_bytes >= gib)
		rv_text_add(&o, ", %.1f GiB", p->mem_bytes / gib);
	else
		rv_text_add(&o, ", %.0f MiB", p->mem_bytes / mib);
	return (int)o.len;
}

/* Process p as a consumer: named from the scan when it is there. */
static void to_consumer(struct rv_attrib *at, const struct rv_attrib_snap *procs,
			const struct rv_gpu_proc *p, double sm_sum, double ts,
			struct rv_store_consumer *o)
{
	struct rv_consumer who;

	if (!at || !procs || rv_attrib_proc_who(at, procs, p->pid, &who) != 0) {
		memset(&who, 0, sizeof(who));
		who.pid = p->pid;
		who.before = who.pressure = NAN;
	}
	rv_agent_whose_to_store(&who, ts, o);
	snprintf(o->resource, sizeof(o->resource), "gpu");
	o->amount = p->sm_pct;
	o->share = sm_sum > 0.0 && p->sm_pct > 0.0 ? p->sm_pct / sm_sum : 0.0;
	rv_agent_gpu_text(p, &who, o->text, sizeof(o->text));
}

size_t rv_agent_gpu_consumers(struct agent_gpu *g, struct rv_attrib *at,
			      const struct rv_attrib_snap *procs, const struct agent_gpus *named,
			      double ts, struct rv_store_consumer *out, size_t max)
{
	size_t top[RV_STORE_CONS_MAX], n, k;
	double sum = 0.0;

	if (!g->who)
		return 0;
	n = rv_nvml_who_list(g->who, g->list, RV_AGENT_GPU_LIST);
	for (size_t i = 0; i < n; i++)
		if (g->list[i].sm_pct > 0.0)
			sum += g->list[i].sm_pct;
	k = rv_agent_gpu_rank(g->list, n, named, top, max < RV_STORE_CONS_MAX ? max :
						      RV_STORE_CONS_MAX);
	for (size_t i = 0; i < k; i++)
		to_consumer(at, procs, &g->list[top[i]], sum, ts, &out[i]);
	return k;
}
