/*
 * rank.c - see rank.h.
 */
#include "pipeline/rank.h"

#include <stdlib.h>

/* Channel counts ranked by insertion sort rather than qsort. */
enum { RANK_INSERTION_MAX = 64 };
/* A subsystem weighs as much as its heaviest SUB_LEADERS channels (as an
 * incident's, explain/incident.c): many channels moving together (a
 * family per CPU) must not outweigh a few that say more. */
enum { SUB_LEADERS = 3 };

static int cmp_ranked(const void *a, const void *b)
{
	const struct rv_ranked *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return (x->c > y->c) - (x->c < y->c);
}

enum rv_subsystem rv_rank_channels(size_t nchan, const uint8_t *chan_sub, const double *weight,
				   struct rv_ranked *rk, uint32_t *rank)
{
	double lead[RV_SUB_COUNT][SUB_LEADERS] = { { 0 } }, sub_w[RV_SUB_COUNT] = { 0 };
	enum rv_subsystem best = RV_SUB_OTHER;

	for (size_t c = 0; c < nchan; c++) {
		double *b = lead[chan_sub[c]], w = weight[c];

		rk[c].w = weight[c];
		rk[c].c = (uint32_t)c;
		for (int k = 0; k < SUB_LEADERS; k++)
			if (w > b[k]) {
				double t = b[k];

				b[k] = w;
				w = t;
			}
	}
	for (int s = 0; s < RV_SUB_COUNT; s++)
		for (int k = 0; k < SUB_LEADERS; k++)
			sub_w[s] += lead[s][k];
	if (nchan <= RANK_INSERTION_MAX) {
		/* Few channels: an insertion sort beats qsort's indirect calls. */
		for (size_t i = 1; i < nchan; i++) {
			struct rv_ranked v = rk[i];
			size_t j = i;
			for (; j > 0 && cmp_ranked(&rk[j - 1], &v) > 0; j--)
				rk[j] = rk[j - 1];
			rk[j] = v;
		}
	} else {
		qsort(rk, nchan, sizeof(*rk), cmp_ranked);
	}
	for (size_t c = 0; c < nchan; c++)
		rank[c] = rk[c].c;
	for (int s = 0; s < RV_SUB_COUNT; s++)
		if (sub_w[s] > sub_w[best])
			best = (enum rv_subsystem)s;
	return best;
}
