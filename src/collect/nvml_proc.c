/*
 * nvml_proc.c - part "nvml.processes" of the nvml source (nvml_int.h):
 * gpu.processes per GPU, the number of compute processes running on it
 * (a CUDA context each; graphics clients are not counted).
 *
 * The call is nvmlDeviceGetComputeRunningProcesses_v3 (drivers from R525),
 * or _v2 of an older driver: both take the same nvmlProcessInfo_t (pid,
 * memory, GPU and compute instance), but we never need one. Asked with a
 * count of 0 and no buffer, NVML answers with the count alone
 * (INSUFFICIENT_SIZE and the count, or SUCCESS when none runs), so a
 * sweep costs one call per GPU, allocates nothing and cannot be cut short
 * by a buffer too small. Who the processes are is whose workload's
 * question (nvml_who.c), asked off the sampling loop.
 *
 * A library without either name, or a GPU that answers NOT_SUPPORTED (or
 * NO_PERMISSION: in MIG mode the whole-GPU list needs privileges), gets
 * no channel and a note saying why; any other failure at open keeps the
 * channel, invalid while the call fails.
 */
#include "collect/nvml_int.h"

#include <errno.h>
#include <stdlib.h>

static const char *const procs_names[] = {
	"nvmlDeviceGetComputeRunningProcesses_v3",
	"nvmlDeviceGetComputeRunningProcesses_v2",
	NULL,
};

/* The process list call; infos may be NULL when *n is 0. */
typedef int (*procs_fn)(struct nvml_dev *d, unsigned int *n, void *infos);

struct proc_part {
	procs_fn procs;
	size_t n;                       /* GPUs with the channel */
	struct nvml_gpu *gpu[];         /* those GPUs, in channel order */
};

/* The count of compute processes on d into *n: NVML's code, SUCCESS for
 * the count-only answer INSUFFICIENT_SIZE. */
static int count_procs(procs_fn procs, struct nvml_dev *d, unsigned int *n)
{
	int ret;

	*n = 0;
	ret = procs(d, n, NULL);
	return ret == RV_NVML_ERROR_INSUFFICIENT_SIZE ? RV_NVML_SUCCESS : ret;
}

/* Whether GPU g gets the channel: probed once, a reason noted when not
 * (*rc -ENOMEM when the note could not be kept). */
static int probe(struct nvml_src *st, struct rv_chanlist *chans, procs_fn procs,
		 struct nvml_gpu *g, int *rc, struct rv_err *err)
{
	char label[RV_NVML_NAME_MAX + 32];
	unsigned int n;
	int ret;

	if (!g->dev || g->lost)
		return 0;
	ret = count_procs(procs, g->dev, &n);
	if (rv_nvml_is_lost(ret)) {
		g->lost = 1;
		return 0;
	}
	if (!rv_nvml_unsupported(ret))
		return 1;
	if (rv_chanlist_note(chans, rv_nvml_part_proc.name, "%s: compute processes: %s (%d)",
			     rv_nvml_gpu_label(g, label, sizeof(label)), rv_nvml_text(st, ret), ret))
		*rc = rv_err_set(err, -ENOMEM, "nvml: out of memory");
	return 0;
}

static int proc_open(struct nvml_src *st, struct rv_chanlist *chans, void **state,
		     struct rv_err *err)
{
	struct proc_part *p;
	procs_fn procs;
	int rc = 0;

	*state = NULL;
	*(void **)&procs = rv_nvml_sym(st->dl, procs_names);
	if (!procs)
		rc = rv_chanlist_note(chans, rv_nvml_part_proc.name,
				      "%s has no %s (nor _v2): no gpu.processes", st->lib,
				      procs_names[0]);
	if (!procs || rc)
		return rc ? rv_err_set(err, rc, "nvml: out of memory") : 0;
	p = calloc(1, sizeof(*p) + st->ngpu * sizeof(p->gpu[0]));
	if (!p)
		return rv_err_set(err, -ENOMEM, "nvml: out of memory");
	p->procs = procs;
	for (size_t i = 0; !rc && i < st->ngpu; i++) {
		if (!probe(st, chans, procs, &st->gpu[i], &rc, err))
			continue;
		rc = rv_nvml_add_chan(st, chans, "gpu.processes", st->gpu[i].inst, 1, err);
		if (!rc)
			p->gpu[p->n++] = &st->gpu[i];
	}
	if (rc || p->n == 0) {
		free(p);
		return rc;
	}
	*state = p;
	return 0;
}

static void proc_sample(void *state, double *raw, uint8_t *valid)
{
	struct proc_part *p = state;

	for (size_t i = 0; i < p->n; i++) {
		struct nvml_gpu *g = p->gpu[i];
		unsigned int n;
		int ret = g->lost ? RV_NVML_ERROR_GPU_IS_LOST : count_procs(p->procs, g->dev, &n);

		if (rv_nvml_is_lost(ret))
			g->lost = 1;
		if (ret == RV_NVML_SUCCESS) {
			raw[i] = n;
			valid[i] = 1;
		}
	}
}

static void proc_close(void *state)
{
	free(state);
}

const struct nvml_part rv_nvml_part_proc = {
	.name = "nvml.processes",
	.open = proc_open,
	.sample = proc_sample,
	.close = proc_close,
};
