/*
 * whose.c - whose workload: the agent's attribution worker (attrib/).
 *
 * One thread of low priority (nice 10) that the sampling loop never waits
 * for. Every WHOSE_BASE_S it takes a cheap snapshot of the cgroups' CPU,
 * memory and I/O counters and keeps the last two: the baseline. When an
 * incident opens (and again every attrib.every while it stays open: the
 * caller asks), the detection thread queues a request and goes on; the
 * worker then scans every process and cgroup, waits WHOSE_SPAN_S, scans
 * again, and ranks the consumers of the incident's resource (cpu: CPU
 * time; mem: memory growth; storage: I/O bytes; anything else: CPU time)
 * between the two scans: the top WHOSE_PROCS processes and WHOSE_CGROUPS
 * cgroups (with their rate in the baseline, so growth shows). When another
 * subsystem holds at least WHOSE_SECOND of the incident's attribution and
 * stands for another resource (a mem incident with a quarter on cpu), that
 * resource is ranked too, and each gets 3 processes and 1 cgroup.
 *
 * GPUs (whose_gpu.c): where NVML answers (the lister is opened by the
 * worker at its start, on collect.nvml's library unless the nvml source
 * is excluded), a gpu incident, or one with gpu as its second resource,
 * ranks the compute processes of the GPUs (those on the GPUs its top
 * signals name first; SM use since the previous list, then GPU memory)
 * in place of that resource's processes, and the CPU's cgroups as its
 * cgroups. With no GPU process listed, or no NVML, the request is served
 * as it would be without GPUs: a gpu incident ranks CPU time. The result
 * waits in a mailbox until the detection thread takes it
 * (rv_agent_whose_poll), which writes it to the store and keeps the newest
 * results for the events and the API. Requests beyond WHOSE_QUEUE wait
 * and the newest are dropped (counted); a live agent only (a replay's
 * processes are not this host's).
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/whose_gpu.h"
#include "attrib/attrib.h"
#include "base/clock.h"
#include "base/log.h"
#include "serve/promtext.h"

#define WHOSE_BASE_S 5.0
#define WHOSE_SPAN_S 1.0
#define WHOSE_SECOND 0.25
enum { WHOSE_QUEUE = 4, WHOSE_DONE = 8, WHOSE_PROCS = 5, WHOSE_CGROUPS = 3 };

/* A resource to rank: an enum rv_attrib_res, or the GPUs. */
enum { WHOSE_GPU = RV_ATTRIB_RES_COUNT };

struct whose_req {
	uint64_t id;
	int res[2];                    /* with the GPUs */
	size_t nres;
	int plain[2];                  /* as without them (gpu ranks CPU time) */
	size_t nplain;
	struct agent_gpus gpus;        /* the GPUs its signals name */
};

struct whose_done {
	uint64_t id;
	size_t n;
	struct rv_store_consumer c[RV_STORE_CONS_MAX];
};

struct agent_whose {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	struct whose_req req[WHOSE_QUEUE];
	size_t nreq;
	struct whose_done mail[WHOSE_DONE];    /* finished, not taken yet */
	size_t nmail;
	struct whose_done kept[WHOSE_DONE];    /* taken, newest last: for the JSON */
	size_t nkept;
	struct rv_attrib *at;
	struct rv_attrib_snap *pa, *pb, *ca, *cb, *base[2], *spare;
	size_t nbase;
	struct agent_gpu gpu;                  /* the worker's (who NULL: no NVML) */
	char nvml_lib[RV_CFG_PATH_MAX];        /* "": NVML's default name */
	int no_gpu;                            /* the nvml source is excluded */
	/* counters for /metrics (mu) */
	uint64_t scans, dropped, skipped;
	double scan_s, procs;
	int failing;
};

static double mono_s(void)
{
	return (double)rv_clock_ns() * 1e-9;
}

static int res_of(const char *subsystem, int gpu)
{
	if (strcmp(subsystem, "mem") == 0)
		return RV_ATTRIB_MEM;
	if (strcmp(subsystem, "storage") == 0)
		return RV_ATTRIB_IO;
	if (gpu && strcmp(subsystem, "gpu") == 0)
		return WHOSE_GPU;
	return RV_ATTRIB_CPU;
}

void rv_agent_whose_to_store(const struct rv_consumer *c, double ts, struct rv_store_consumer *o)
{
	memset(o, 0, sizeof(*o));
	o->measured_ts = ts;
	o->is_cgroup = c->is_cgroup;
	o->pid = c->pid;
	snprintf(o->comm, sizeof(o->comm), "%s", c->comm);
	snprintf(o->cmd, sizeof(o->cmd), "%s", c->cmd);
	snprintf(o->cgroup, sizeof(o->cgroup), "%s", c->cgroup);
	snprintf(o->label, sizeof(o->label), "%s", c->name.label);
	snprintf(o->runtime, sizeof(o->runtime), "%s", c->name.runtime);
	snprintf(o->container, sizeof(o->container), "%s", c->name.container);
	snprintf(o->pod_uid, sizeof(o->pod_uid), "%s", c->name.pod_uid);
	snprintf(o->qos, sizeof(o->qos), "%s", c->name.qos);
	snprintf(o->slurm_job, sizeof(o->slurm_job), "%s", c->name.slurm_job);
	snprintf(o->unit, sizeof(o->unit), "%s", c->name.unit);
	snprintf(o->resource, sizeof(o->resource), "%s", rv_attrib_res_name(c->res));
	o->amount = c->amount;
	o->before = c->before;
	o->share = c->share;
	o->pressure = c->pressure;
	rv_consumer_text(c, o->text, sizeof(o->text));
}

/* Sleeps s seconds on the condition variable (mu held), or until a
 * request comes when wake; 1 when told to stop. */
static int nap(struct agent_whose *w, double s, int wake)
{
	struct timespec until;
	double t;

	clock_gettime(CLOCK_REALTIME, &until);
	t = (double)until.tv_sec + (double)until.tv_nsec * 1e-9 + s;
	until.tv_sec = (time_t)t;
	until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
	while (!w->stop && pthread_cond_timedwait(&w->cv, &w->mu, &until) == 0 &&
	       !(wake && w->nreq))
		;
	return w->stop;
}

/* One scan of both kinds into p and c (mu not held). */
static int scan_both(struct agent_whose *w, struct rv_attrib_snap *p, struct rv_attrib_snap *c,
		     struct rv_err *err)
{
	int rc = rv_attrib_scan_procs(w->at, p, mono_s(), err);

	if (rc == 0)
		rc = rv_attrib_scan_cgroups(w->at, c, mono_s(), err);
	return rc;
}

/* The consumers of resource res into d, room permitting: np processes
 * (the GPUs': the first np of gpu[0..ngpu)) and nc cgroups (the GPUs':
 * the CPU's, as a cgroup's GPU use is not known). */
static void rank_one(struct agent_whose *w, int res, const struct rv_store_consumer *gpu,
		     size_t ngpu, size_t np, size_t nc, double ts, struct whose_done *d)
{
	struct rv_consumer top[RV_ATTRIB_TOP_MAX];
	enum rv_attrib_res ar = res == WHOSE_GPU ? RV_ATTRIB_CPU : (enum rv_attrib_res)res;
	size_t n;

	if (res == WHOSE_GPU) {
		for (size_t i = 0; i < ngpu && i < np && d->n < RV_STORE_CONS_MAX; i++)
			d->c[d->n++] = gpu[i];
	} else {
		n = rv_attrib_rank(w->at, w->pa, w->pb, NULL, NULL, ar, top, np);
		for (size_t i = 0; i < n && d->n < RV_STORE_CONS_MAX; i++)
			rv_agent_whose_to_store(&top[i], ts, &d->c[d->n++]);
	}
	n = rv_attrib_rank(w->at, w->ca, w->cb, w->nbase == 2 ? w->base[0] : NULL,
			   w->nbase == 2 ? w->base[1] : NULL, ar, top, nc);
	for (size_t i = 0; i < n && d->n < RV_STORE_CONS_MAX; i++)
		rv_agent_whose_to_store(&top[i], ts, &d->c[d->n++]);
}

/* The measurement of one request (mu not held): two scans WHOSE_SPAN_S
 * apart, ranked (the GPUs listed after the second scan, so that their
 * processes are named from it); the result into *d. 1 when stopped
 * meanwhile. */
static int measure(struct agent_whose *w, const struct whose_req *r, struct whose_done *d,
		   struct rv_err *err)
{
	struct rv_store_consumer gpu[WHOSE_PROCS];
	const int *res = r->res;
	size_t nres = r->nres, ngpu = 0;
	double ts;
	int rc = scan_both(w, w->pa, w->ca, err);

	if (rc == 0) {
		pthread_mutex_lock(&w->mu);
		rc = nap(w, WHOSE_SPAN_S, 0) ? 1 : 0;
		pthread_mutex_unlock(&w->mu);
	}
	if (rc == 0)
		rc = scan_both(w, w->pb, w->cb, err);
	if (rc != 0)
		return rc;
	ts = rv_agent_wall_s();
	if (res[0] == WHOSE_GPU || (nres > 1 && res[1] == WHOSE_GPU))
		ngpu = rv_agent_gpu_consumers(&w->gpu, w->at, w->pb, &r->gpus, ts, gpu, WHOSE_PROCS);
	if (ngpu == 0) {
		res = r->plain;
		nres = r->nplain;
	}
	d->id = r->id;
	d->n = 0;
	for (size_t k = 0; k < nres; k++)
		rank_one(w, res[k], gpu, ngpu, nres > 1 ? 3 : WHOSE_PROCS,
			 nres > 1 ? 1 : WHOSE_CGROUPS, ts, d);
	return 0;
}

/* A failure of a scan: logged when it starts, and when scans work again. */
static void scan_result(struct agent_whose *w, int rc, const struct rv_err *err)
{
	if (rc == 0 && w->failing)
		rv_info("agent: attribution: scanning again");
	else if (rc < 0 && !w->failing)
		rv_warn("agent: attribution: %s (incidents go on without consumers; reported "
			"again when it works)", rv_err_text(err, rc));
	w->failing = rc < 0;
}

/* The newest cgroup snapshot becomes the baseline's second (mu not held). */
static void rotate_base(struct agent_whose *w)
{
	struct rv_err err = { 0 };
	struct rv_attrib_snap *t;
	int rc = rv_attrib_scan_cgroups(w->at, w->spare, mono_s(), &err);

	scan_result(w, rc, &err);
	if (rc != 0)
		return;
	pthread_mutex_lock(&w->mu);
	t = w->base[0];
	w->base[0] = w->base[1];
	w->base[1] = w->spare;
	w->spare = t;
	if (w->nbase < 2)
		w->nbase++;
	pthread_mutex_unlock(&w->mu);
}

/* Serves one queued request (mu held on entry and return). */
static void serve(struct agent_whose *w)
{
	struct whose_req r = w->req[0];
	struct whose_done d;
	struct rv_err err = { 0 };
	double t0 = mono_s();
	int rc;

	memmove(w->req, w->req + 1, (w->nreq - 1) * sizeof(*w->req));
	w->nreq--;
	pthread_mutex_unlock(&w->mu);
	rc = measure(w, &r, &d, &err);
	scan_result(w, rc < 0 ? rc : 0, &err);
	pthread_mutex_lock(&w->mu);
	if (rc != 0)
		return;
	w->scans++;
	w->scan_s = mono_s() - t0 - WHOSE_SPAN_S;
	w->procs = (double)rv_attrib_snap_count(w->pb);
	w->skipped += rv_attrib_snap_skipped(w->pb);
	if (w->nmail == WHOSE_DONE) {
		memmove(w->mail, w->mail + 1, (WHOSE_DONE - 1) * sizeof(*w->mail));
		w->nmail--;
		w->dropped++;
	}
	w->mail[w->nmail++] = d;
}

static void *worker(void *arg)
{
	struct agent_whose *w = arg;
	double next = 0.0;

	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	/* here rather than at start: loading NVML takes the driver's time */
	if (!w->no_gpu && rv_agent_gpu_open(&w->gpu, w->nvml_lib[0] ? w->nvml_lib : NULL) != 0)
		rv_warn("agent: attribution: out of memory for the GPU processes (attributing "
			"as without GPUs)");
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		if (w->nreq) {
			serve(w);
			continue;
		}
		if (mono_s() >= next) {
			pthread_mutex_unlock(&w->mu);
			rotate_base(w);
			pthread_mutex_lock(&w->mu);
			next = mono_s() + WHOSE_BASE_S;
			continue;
		}
		nap(w, next - mono_s(), 1);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void whose_free(struct agent_whose *w)
{
	struct rv_attrib_snap *s[] = { w->pa, w->pb, w->ca, w->cb, w->base[0], w->base[1],
				       w->spare };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		rv_attrib_snap_free(s[i]);
	rv_attrib_free(w->at);
	rv_agent_gpu_close(&w->gpu);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

int rv_agent_whose_start(struct agent *a, struct rv_err *err)
{
	struct rv_attrib_limits lim = { a->cfg.attrib.max_processes, 2048, 8 };
	struct agent_whose *w;
	struct rv_attrib_snap **s[7];
	int rc;

	if (a->rd || !a->cfg.attrib.enabled)
		return 0;
	if (!(w = calloc(1, sizeof(*w))))
		return rv_err_set(err, -ENOMEM, "agent: attribution: out of memory");
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	snprintf(w->nvml_lib, sizeof(w->nvml_lib), "%s", a->cfg.collect.nvml);
	for (size_t i = 0; i < a->cfg.collect.n_exclude; i++)
		w->no_gpu |= strcmp(a->cfg.collect.exclude[i], "nvml") == 0;
	s[0] = &w->pa, s[1] = &w->pb, s[2] = &w->ca, s[3] = &w->cb;
	s[4] = &w->base[0], s[5] = &w->base[1], s[6] = &w->spare;
	rc = rv_attrib_new(a->cfg.collect.root, &lim, &w->at, err);
	for (size_t i = 0; rc == 0 && i < 7; i++)
		if ((rc = rv_attrib_snap_new(w->at, s[i])) != 0)
			rv_err_set(err, rc, "agent: attribution: out of memory");
	if (rc == 0 && (rc = -pthread_create(&w->tid, NULL, worker, w)) != 0)
		rv_err_set(err, rc, "agent: attribution thread: %s", rv_strerror(-rc));
	if (rc != 0) {
		whose_free(w);
		return rc;
	}
	a->whose = w;
	return 0;
}

void rv_agent_whose_stop(struct agent *a)
{
	struct agent_whose *w = a->whose;

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->tid, NULL);
	a->whose = NULL;
	whose_free(w);
}

/* The resources of an incident: its subsystem's, and the one of the first
 * other subsystem in `ranked` ("cpu:0.712,mem:0.204") with a share of at
 * least WHOSE_SECOND that stands for another resource; the GPUs stand
 * for one of their own when gpu is 1, else for CPU time. */
static void resources(const char *subsystem, const char *ranked, int gpu, int *res,
		      size_t *nres)
{
	const char *p = ranked ? ranked : "";

	res[0] = res_of(subsystem, gpu);
	*nres = 1;
	while (*p) {
		const char *colon = strchr(p, ':'), *next = strchr(p, ',');
		char name[16], *end;
		double share;
		size_t len = colon ? (size_t)(colon - p) : 0;

		if (!colon || (next && next < colon) || len == 0 || len >= sizeof(name))
			break;
		memcpy(name, p, len);
		name[len] = '\0';
		share = strtod(colon + 1, &end);
		if (end == colon + 1)
			break;
		if (share >= WHOSE_SECOND && strcmp(name, subsystem) != 0 &&
		    res_of(name, gpu) != res[0]) {
			res[(*nres)++] = res_of(name, gpu);
			break;
		}
		p = next ? next + 1 : "";
	}
}

void rv_agent_whose_request(struct agent *a, const struct rv_store_incident *in)
{
	struct agent_whose *w = a->whose;
	struct whose_req *r;

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	if (w->nreq < WHOSE_QUEUE) {
		r = &w->req[w->nreq++];
		*r = (struct whose_req){ .id = in->id };
		resources(in->subsystem, in->subsystems, 1, r->res, &r->nres);
		resources(in->subsystem, in->subsystems, 0, r->plain, &r->nplain);
		rv_agent_gpu_named(in, &r->gpus);
		pthread_cond_signal(&w->cv);
	} else {
		w->dropped++;
	}
	pthread_mutex_unlock(&w->mu);
}

double rv_agent_whose_every(const struct agent *a)
{
	return a->cfg.attrib.every_s > 0 ? a->cfg.attrib.every_s : INFINITY;
}

/* Keeps d as the newest result of its incident (mu held). */
static void keep(struct agent_whose *w, const struct whose_done *d)
{
	for (size_t i = 0; i < w->nkept; i++)
		if (w->kept[i].id == d->id) {
			memmove(&w->kept[i], &w->kept[i + 1], (w->nkept - i - 1) * sizeof(*d));
			w->nkept--;
			break;
		}
	if (w->nkept == WHOSE_DONE) {
		memmove(w->kept, w->kept + 1, (WHOSE_DONE - 1) * sizeof(*d));
		w->nkept--;
	}
	w->kept[w->nkept++] = *d;
}

void rv_agent_whose_poll(struct agent *a)
{
	struct agent_whose *w = a->whose;
	struct whose_done d;

	while (w) {
		pthread_mutex_lock(&w->mu);
		if (!w->nmail) {
			pthread_mutex_unlock(&w->mu);
			break;
		}
		d = w->mail[0];
		memmove(w->mail, w->mail + 1, (w->nmail - 1) * sizeof(*w->mail));
		w->nmail--;
		keep(w, &d);
		pthread_mutex_unlock(&w->mu);
		if (d.n)
			rv_info("agent: incident %llu: %s", (unsigned long long)d.id, d.c[0].text);
		if (a->store) {
			struct rv_err err = { 0 };
			int rc = rv_store_put_consumers(a->store, d.id, d.c, d.n, &err);

			rv_agent_sink_result(a, SINK_STORE, rc, &err);
		}
	}
}

size_t rv_agent_whose_get(struct agent *a, uint64_t id, struct rv_store_consumer *out,
			  size_t max)
{
	struct agent_whose *w = a->whose;
	size_t n = 0;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->mu);
	for (size_t i = w->nkept; i-- > 0;)
		if (w->kept[i].id == id) {
			n = w->kept[i].n < max ? w->kept[i].n : max;
			memcpy(out, w->kept[i].c, n * sizeof(*out));
			break;
		}
	pthread_mutex_unlock(&w->mu);
	return n;
}

void rv_agent_whose_metrics(struct agent *a, struct rv_promtext *p)
{
	struct agent_whose *w = a->whose;
	const char *fam[][3] = {
		{ "reveal_attrib_scans_total", "counter",
		  "Attribution measurements done (two scans of every process and cgroup each)" },
		{ "reveal_attrib_scan_seconds", "gauge",
		  "Wall time of the last measurement's two scans and ranking (the wait between"
		  " them left out)" },
		{ "reveal_attrib_processes", "gauge", "Processes the last scan read" },
		{ "reveal_attrib_skipped_total", "counter", "Processes left out by the scan limit" },
		{ "reveal_attrib_dropped_total", "counter",
		  "Attribution requests or results dropped (queue full)" },
	};
	double v[5];

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	v[0] = (double)w->scans;
	v[1] = w->scan_s;
	v[2] = w->procs;
	v[3] = (double)w->skipped;
	v[4] = (double)w->dropped;
	pthread_mutex_unlock(&w->mu);
	for (size_t i = 0; i < 5; i++) {
		rv_prom_family(p, fam[i][0], fam[i][1], fam[i][2]);
		rv_prom_sample(p, fam[i][0], NULL, v[i]);
	}
}
