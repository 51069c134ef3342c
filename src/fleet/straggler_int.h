/*
 * straggler_int.h - the inside of struct rv_strag, shared by straggler.c
 * (window statistics and scores) and straggler_stretch.c (streaks, runs,
 * stretches and their signals). Not API: fleet/straggler.h is.
 */
#ifndef RV_FLEET_STRAGGLER_INT_H
#define RV_FLEET_STRAGGLER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "fleet/straggler.h"

enum {
	RV_STRAG_SIG_CANDIDATES = 4 * RV_STRAG_MAX_SIGNALS,  /* before aliases are merged */
};

#define RV_STRAG_NONE SIZE_MAX

/* The sums of one channel of one tracked node over its current run. */
struct strag_acc {
	double sx, sm, sz;
	size_t n;
};

/* Where one node stands: its scores of the last window, its streak, its
 * run and its stretches. */
struct strag_node {
	double wscore, pscore;
	double t_first, t_last, t_streak, peak;
	size_t streak_first, streak_len; /* windows out of step on their own, in a row */
	size_t run_first, run_len;       /* the run: the persistent score above */
	size_t run_out, run_last;        /* its windows out of step on their own; the last */
	size_t peak_window;
	size_t below;                    /* windows of the run below threshold, in a row */
	int confirmed;                   /* the run is a stretch (run_out >= persist) */
	size_t slot;                     /* acc slot, RV_STRAG_NONE */
	size_t head, tail;               /* closed stretches in the pool, RV_STRAG_NONE */
	int flagged;
};

struct strag_stretch {
	struct rv_strag_finding f;
	size_t next;                     /* the node's next stretch, RV_STRAG_NONE */
};

/* A channel's column hash, for finding channels with identical columns. */
struct strag_hidx {
	uint64_t h;
	size_t ch;
};

/* The scratch of one window's column statistics (COL_BLOCK: straggler.c). */
struct strag_cols {
	double *col;                     /* [COL_BLOCK * n] gathered columns */
	struct strag_hidx *hx;           /* [c] */
	unsigned char *alias;            /* [c] 1: an earlier channel has its column */
};

struct rv_strag {
	struct rv_strag_opts o;
	size_t n, c, win;
	double alpha, margin, t_prev;
	float *mu, *sq;                  /* [n * c] weighted means of z and of z^2 */
	double *med, *spread, *inv;      /* [c], the last window */
	double *floor;                   /* [c] absolute floors */
	double *pooled;                  /* [c] averaged raw spread */
	size_t *seen;                    /* [c] windows with a verdict */
	struct strag_cols w;             /* column scratch and the aliases */
	struct strag_node *node;         /* [n] */
	struct strag_acc *acc;           /* [max_active * c] */
	size_t *free_slot, nfree;        /* stack of free slots */
	struct strag_stretch *pool;      /* [max_stretches] */
	size_t npool;
	struct rv_strag_stats st;
	int warned_slots, warned_pool;
};

/* The k largest values seen, descending, and their indices. */
struct strag_topk {
	size_t k, n;
	double *v;
	size_t *idx;                     /* NULL when only the values matter */
};

/* z of value v against median m and inverse spread inv, clipped to +-cap. */
static inline double rv_strag_clipped(double v, double m, double inv, double cap)
{
	double z = (v - m) * inv;

	return z > cap ? cap : z < -cap ? -cap : z;
}

/* Keeps v (index i) in t when it is among the k largest so far. */
void rv_strag_top_add(struct strag_topk *t, double v, size_t i);

/* Moves node i's streak and run on after its scores of this window (row:
 * its values), t the window's time; sums the windows out of step. */
void rv_strag_advance(struct rv_strag *s, size_t i, const double *row, double t);

#endif
