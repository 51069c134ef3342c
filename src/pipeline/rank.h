/*
 * rank.h - ranking a window's channels by attribution weight (internal to
 * pipeline/, shared by the offline run and the live scorer).
 */
#ifndef RV_PIPELINE_RANK_H
#define RV_PIPELINE_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"

struct rv_ranked {
	double w;
	uint32_t c;
};

/*
 * Ranks the nchan channels by weight, largest first (ties by index), into
 * rank, using rk (nchan entries) as scratch; chan_sub[c] is channel c's
 * enum rv_subsystem. Returns the subsystem carrying the largest summed
 * weight (RV_SUB_OTHER when all weights are zero).
 */
enum rv_subsystem rv_rank_channels(size_t nchan, const uint8_t *chan_sub, const double *weight,
				   struct rv_ranked *rk, uint32_t *rank);

#endif
