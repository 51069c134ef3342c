/*
 * delay.h - the delay line of the pipeline (internal to pipeline/).
 *
 * A window's final verdict depends on later windows (a gap may be bridged,
 * a blip shorter than incident_min dropped), so scored windows wait here
 * until the incident merger has decided them, then go to the sink with
 * `anomaly` set to whether an incident covers them. At most
 * (incident_min + 2) * (incident_gap + 1) + 1 windows wait at a time (the
 * open incident closing after incident_gap windows not its own, then the
 * follow-on taking its place).
 */
#ifndef RV_PIPELINE_DELAY_H
#define RV_PIPELINE_DELAY_H

#include "pipeline/model.h"

struct rv_pending {
	struct rv_window_out out;
	struct rv_ens_result res;
	uint32_t *rank;
};

struct rv_delay {
	struct rv_pending *q;
	size_t cap, head, len;
};

int rv_delay_init(struct rv_delay *d, const struct rv_model *m, size_t gap, size_t min);
void rv_delay_fini(struct rv_delay *d);
/* Copies the window (and its ranking) into the line; never blocks: the
 * caller flushes after every push, which keeps the line under its size. */
void rv_delay_push(struct rv_delay *d, const struct rv_window_out *o, size_t nchan);
/* Hands every decided window to sink (may be NULL); all of them when final. */
int rv_delay_flush(struct rv_delay *d, const struct rv_incmerge *mg, size_t min,
		   const struct rv_sink *sink, int final);

#endif
