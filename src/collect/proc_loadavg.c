/*
 * proc_loadavg.c - source "proc.loadavg": /proc/loadavg.
 *
 * "0.04 0.47 0.64 1/86 19457": the 1, 5 and 15 minute load averages
 * (cpu.load1, cpu.load5, cpu.load15) and the runnable / total task counts
 * of the fourth field (cpu.tasks_runnable, cpu.tasks_total), all gauges.
 * The last pid (fifth field) is not a health signal and is not kept. A
 * slow source (collector.h): the kernel updates the averages every 5 s,
 * and the runnable count is proc.stat's procs_running at every sweep.
 * Fields are read left to right: a malformed one invalidates it and every
 * later one, since nothing after it can be trusted to be in its place.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdlib.h>

#include "base/strparse.h"
#include "collect/pfile.h"

enum { LOAD1, LOAD5, LOAD15, RUNNABLE, TOTAL, LOADAVG_CHANS };

static const char *const loadavg_types[LOADAVG_CHANS] = {
	"cpu.load1", "cpu.load5", "cpu.load15", "cpu.tasks_runnable", "cpu.tasks_total",
};

/* A field ends at a blank, a newline or the end of the text. */
static int field_end(const char *p, const char *end)
{
	return p == end || *p == ' ' || *p == '\t' || *p == '\n';
}

static void loadavg_sample(void *state, double *raw, uint8_t *valid)
{
	struct rv_pfile *f = state;
	const char *p, *end;
	uint64_t run, total;

	if (rv_pfile_read(f) < 0)
		return;
	p = f->buf;
	end = p + f->len;
	for (int k = LOAD1; k <= LOAD15; k++) {
		rv_str_skip_blank(&p, end);
		if (rv_str_double(&p, end, &raw[k]) || !field_end(p, end))
			return;
		valid[k] = 1;
	}
	rv_str_skip_blank(&p, end);
	if (rv_str_u64(&p, end, &run) || p == end || *p++ != '/')
		return;
	raw[RUNNABLE] = (double)run;
	if (rv_str_u64(&p, end, &total) || !field_end(p, end))
		return;
	raw[TOTAL] = (double)total;
	valid[RUNNABLE] = valid[TOTAL] = 1;
}

static void loadavg_close(void *state)
{
	struct rv_pfile *f = state;

	if (!f)
		return;
	rv_pfile_close(f);
	free(f);
}

static int loadavg_open(const struct rv_collect_cfg *cfg, void **state,
		        struct rv_chanlist *chans, struct rv_err *err)
{
	struct rv_pfile *f = calloc(1, sizeof(*f));
	int rc;

	if (!f)
		return rv_err_set(err, -ENOMEM, "proc.loadavg: out of memory");
	rc = rv_pfile_open(f, cfg->root, "/proc/loadavg", err);
	for (int k = 0; !rc && k < LOADAVG_CHANS; k++)
		rc = rv_chanlist_add(chans, loadavg_types[k], NULL, 1.0, err);
	if (rc) {
		loadavg_close(f);
		return rc;
	}
	*state = f;
	return 0;
}

const struct rv_source rv_src_proc_loadavg = {
	.name = "proc.loadavg",
	.open = loadavg_open,
	.sample = loadavg_sample,
	.close = loadavg_close,
	.slow = 1,
};
