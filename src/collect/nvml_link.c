/*
 * nvml_link.c - part "nvml.link" of the nvml source (nvml_int.h): NVLink links.
 * Placeholder: no channels yet.
 */
#include "collect/nvml_int.h"

static int link_open(struct nvml_src *st, struct rv_chanlist *chans, void **state,
		    struct rv_err *err)
{
	(void)st;
	(void)chans;
	(void)err;
	*state = NULL;
	return 0;
}

static void link_sample(void *state, double *raw, uint8_t *valid)
{
	(void)state;
	(void)raw;
	(void)valid;
}

static void link_close(void *state)
{
	(void)state;
}

const struct nvml_part rv_nvml_part_link = {
	.name = "nvml.link",
	.open = link_open,
	.sample = link_sample,
	.close = link_close,
};
