/*
 * ring.h - the agent's bounded history of samples.
 *
 * One row of nchan floats per sample (gaps already carried over), with its
 * timestamp and a flag saying whether the row lay inside a flagged window.
 * The newest `cap` rows are kept; older ones are overwritten. The agent
 * scores the newest window straight from the ring (row pointers, no copy)
 * and fits its models on a copy of the rows the ring holds: all of them
 * while learning, the normal ones at a refit. Memory: cap x nchan floats,
 * taken at init; pushing allocates nothing.
 */
#ifndef RV_AGENT_RING_H
#define RV_AGENT_RING_H

#include <stddef.h>
#include <stdint.h>

#include "record/table.h"

struct rv_ring {
	size_t cap, nchan;
	float *rows;                 /* cap x nchan */
	double *ts;                  /* cap unix seconds */
	uint8_t *flagged;            /* cap: the row lay in a flagged window */
	size_t head;                 /* slot of the next push */
	size_t len;                  /* rows held, <= cap */
	uint64_t pushed;             /* rows pushed since init or reset */
};

int rv_ring_init(struct rv_ring *r, size_t cap, size_t nchan);
void rv_ring_fini(struct rv_ring *r);
void rv_ring_reset(struct rv_ring *r);

/* The slot for a new newest row at ts (the caller fills nchan floats);
 * the oldest row goes when the ring is full. */
float *rv_ring_push(struct rv_ring *r, double ts);

/* Row `back` rows before the newest (0: the newest); back < len. */
const float *rv_ring_row(const struct rv_ring *r, size_t back);
double rv_ring_ts(const struct rv_ring *r, size_t back);

/* Marks the newest n rows as lying in a flagged window. */
void rv_ring_mark_flagged(struct rv_ring *r, size_t n);

/*
 * Copies the newest rows into a table (column-major, oldest first) named
 * by names[nchan] (copied): at most max_rows of them (0: all); rows marked
 * flagged only when their time is at or after flagged_since (-INFINITY:
 * every row; INFINITY: normal rows only). Returns 0, -ENOMEM, or -ENODATA
 * when no row qualifies; *out is freed with rv_table_free.
 */
int rv_ring_table(const struct rv_ring *r, const char *const *names, size_t max_rows,
		  double flagged_since, struct rv_table **out);

#endif
