/*
 * nvml_proc.c - part "nvml.proc" of the nvml source (nvml_int.h): compute processes.
 * Placeholder: no channels yet.
 */
#include "collect/nvml_int.h"

static int proc_open(struct nvml_src *st, struct rv_chanlist *chans, void **state,
		    struct rv_err *err)
{
	(void)st;
	(void)chans;
	(void)err;
	*state = NULL;
	return 0;
}

static void proc_sample(void *state, double *raw, uint8_t *valid)
{
	(void)state;
	(void)raw;
	(void)valid;
}

static void proc_close(void *state)
{
	(void)state;
}

const struct nvml_part rv_nvml_part_proc = {
	.name = "nvml.proc",
	.open = proc_open,
	.sample = proc_sample,
	.close = proc_close,
};
