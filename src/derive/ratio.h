/*
 * ratio.h - channels computed from other channels' values: IPC, cache and
 * branch miss shares, busy MHz the way turbostat computes Bzy_MHz, the TCP
 * retransmit share. One table of rules; a rule applies to every instance
 * that has all its inputs (cpu.ipc:cpu3 from cpu.instructions:cpu3 and
 * cpu.cycles:cpu3). The live collector and the readers of recordings plan
 * and apply the same rules, so a recording replays the same values.
 */
#ifndef RV_DERIVE_RATIO_H
#define RV_DERIVE_RATIO_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"

struct rv_ratio_plan;

/*
 * Plans the ratio channels over n channels named names[i] (values after
 * derive_value: rates for counters). 0 and *out (possibly with no ratio),
 * or -ENOMEM.
 */
int rv_ratio_plan_new(const char *const *names, size_t n, struct rv_ratio_plan **out);
void rv_ratio_plan_free(struct rv_ratio_plan *p);

size_t rv_ratio_count(const struct rv_ratio_plan *p);
/* Name ("cpu.ipc:cpu3") and catalog entry of ratio channel j. */
const char *rv_ratio_name(const struct rv_ratio_plan *p, size_t j);
const struct rv_metric *rv_ratio_metric(const struct rv_ratio_plan *p, size_t j);

/* The indices (into the names given to rv_ratio_plan_new) of ratio j's
 * inputs, numerator first, into idx: returns their count, 2 or 3. The
 * collector keeps the inputs of a ratio it watches (source.h: keep). */
size_t rv_ratio_inputs(const struct rv_ratio_plan *p, size_t j, size_t idx[3]);

/*
 * Ratio values from the n input values v (validity ok) into out[j],
 * out_ok[j]: a gap when an input is a gap or a denominator is not
 * positive. Allocates nothing.
 */
void rv_ratio_apply(const struct rv_ratio_plan *p, const double *v, const uint8_t *ok,
		    double *out, uint8_t *out_ok);

#endif
