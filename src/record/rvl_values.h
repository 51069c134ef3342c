/*
 * rvl_values.h - a recording's samples as the live collector reports them:
 * each recorded channel derived (derive/: rates for counters, gaps for
 * resets), then the ratio channels the recorded ones allow
 * (derive/ratio.h). The one replay of a recording, shared by `reveal
 * export` and the table reader of `reveal detect`.
 */
#ifndef RV_RECORD_RVL_VALUES_H
#define RV_RECORD_RVL_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "derive/derive.h"
#include "derive/ratio.h"
#include "record/rvl.h"

struct rv_rvl_values {
	struct rv_rvl_reader *r;        /* borrowed */
	struct rv_ratio_plan *ratios;
	size_t n, m;                    /* recorded channels; plus the ratios */
	double *out;                    /* m values of the current sample */
	uint8_t *out_ok;                /* m: 1 where out holds a value */
	int64_t t, last_t;              /* this sample's and the previous one's ns */
	size_t count;                   /* samples read so far */
	double *raw;                    /* n raw values of this sample */
	uint8_t *ok;
	struct rv_derive_prev *prev;    /* n: each channel's last valid raw value */
};

/* Plans the columns of r's recording. 0 or -ENOMEM. */
int rv_rvl_values_init(struct rv_rvl_values *v, struct rv_rvl_reader *r);
void rv_rvl_values_fini(struct rv_rvl_values *v);

/* Name and kind (enum rv_kind) of column i < m. */
const char *rv_rvl_values_name(const struct rv_rvl_values *v, size_t i);
unsigned rv_rvl_values_kind(const struct rv_rvl_values *v, size_t i);

/* Reads and derives the next sample into out/out_ok/t: 1, 0 at the end
 * (a clean one or a stop: rv_rvl_reader_stopped), or a negative errno. */
int rv_rvl_values_next(struct rv_rvl_values *v, struct rv_err *err);

#endif
