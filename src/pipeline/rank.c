/*
 * rank.c - see rank.h.
 */
#include "pipeline/rank.h"

#include <stdlib.h>

/* Channel counts ranked by insertion sort rather than qsort. */
enum { RANK_INSERTION_MAX = 64 };

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
	double sub_w[RV_SUB_COUNT] = { 0 };
	enum rv_subsystem best = RV_SUB_OTHER;

	for (size_t c = 0; c < nchan; c++) {
		rk[c].w = weight[c];
		rk[c].c = (uint32_t)c;
		sub_w[chan_sub[c]] += weight[c];
	}
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
