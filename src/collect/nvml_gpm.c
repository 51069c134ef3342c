/*
 * nvml_gpm.c - part "nvml.gpm" of the nvml source (nvml_int.h): GPM metrics and MIG instances.
 * Placeholder: no channels yet.
 */
#include "collect/nvml_int.h"

static int gpm_open(struct nvml_src *st, struct rv_chanlist *chans, void **state,
		    struct rv_err *err)
{
	(void)st;
	(void)chans;
	(void)err;
	*state = NULL;
	return 0;
}

static void gpm_sample(void *state, double *raw, uint8_t *valid)
{
	(void)state;
	(void)raw;
	(void)valid;
}

static void gpm_close(void *state)
{
	(void)state;
}

const struct nvml_part rv_nvml_part_gpm = {
	.name = "nvml.gpm",
	.open = gpm_open,
	.sample = gpm_sample,
	.close = gpm_close,
};
