/*
 * fleet.h - `reveal fleet`: the nodes of a fleet compared with their peers
 * from the summaries their agents remote-write (agent/remote.c), read back
 * through the Prometheus HTTP API (read.h).
 *
 * rv_fleet_analyse reads a time range and finds, in each group of nodes
 * (the label opts.group_by: the nodes of one job, one rack):
 *  - stragglers: nodes persistently out of step with their peers
 *    (straggler.h: robust z per channel against the group's median,
 *    a score across channels, a persistence requirement), each with the
 *    stretches it was out of step and the signals that set it apart, the
 *    node's value beside the peers' median, and for the report's plots the
 *    node's series against the peers' band;
 *  - configuration drift: static facts that differ inside a group
 *    (drift.h), the odd nodes against the majority value.
 * The result is plain data for the report writers (report.c: text,
 * markdown, JSON; report_html.c: one page with SVG plots) and for
 * `reveal fleet --serve` (serve.c).
 *
 * Groups are analysed in parallel; the range is read in runs of windows
 * sized by opts.mem_bytes, so memory stays bounded whatever the range.
 */
#ifndef RV_FLEET_FLEET_H
#define RV_FLEET_FLEET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "base/pool.h"
#include "fleet/drift.h"
#include "fleet/read.h"
#include "fleet/straggler.h"

struct rv_fleet_opts {
	struct rv_fleet_src_opts src;  /* where and what to read */
	struct rv_strag_opts strag;    /* straggler statistics (persist in windows) */
	double persist_s;              /* > 0: persistence as a duration, made windows */
	struct rv_drift_opts drift;
	size_t mem_bytes;              /* values of one run of windows; 0: 256 MiB */
	size_t plot_signals;           /* signals plotted per straggler; 0: none */
	unsigned threads;              /* groups analysed at once; 0: the CPUs */
	/* The absolute floor of a channel's spread across nodes, in its unit
	 * (straggler.h, rv_strag_set_floors): the smallest move an operator
	 * would call a change; NULL, or 0 or NaN for a channel: opts.strag's.
	 * The CLI passes catalog/'s rv_catalog_resolution. */
	double (*floor_of)(const char *channel);
	/* Called after each run of windows (done, total windows); NULL: none. */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
};

/* Defaults: every field but src.http.url and the range. */
void rv_fleet_opts_default(struct rv_fleet_opts *o);

/* One signal that sets a straggler apart, over its longest stretch. */
struct rv_fleet_signal {
	const char *channel;
	double value;          /* the node's mean over the stretch */
	double median;         /* the mean of the peers' median over the stretch */
	double z;              /* the mean robust z over the stretch */
	/* For plots, per window of the range (nwin each; NULL: not plotted):
	 * the node, the peers' median and their band (25th..75th percentile;
	 * min..max below 8 peers). NaN: no value. */
	const float *node_v, *median_v, *lo_v, *hi_v;
};

struct rv_fleet_stretch {
	double start, end;     /* times of the first and last window out of step */
	double peak;           /* highest persistent score in it */
	int open;              /* still out of step at the last window analysed */
};

struct rv_fleet_straggler {
	const char *group, *node;
	double peak;           /* highest persistent score over the range */
	size_t nstretch;
	const struct rv_fleet_stretch *stretch;   /* in time order */
	size_t nsig;
	const struct rv_fleet_signal *sig;        /* largest |z| first */
};

struct rv_fleet_odd {
	const char *node;
	const char *value;     /* "" when the node lacks the fact ("absent") */
};

struct rv_fleet_drift {
	const char *group, *key;
	const char *majority;  /* NULL: no value has a majority (a split) */
	size_t nmajority;      /* nodes holding it */
	size_t nnodes;         /* nodes of the group */
	double tolerance;      /* > 0: numbers within this share counted equal */
	size_t nodd;
	const struct rv_fleet_odd *odd;  /* the odd nodes; for a split, every node */
};

struct rv_fleet_group {
	const char *name;      /* the group label's value; "" for nodes without it */
	size_t nnodes;
	const char *const *node;
	const float *score;    /* nnodes x nwin persistent scores (node-major); NaN none */
	size_t nflagged;       /* its stragglers */
};

struct rv_fleet_result {
	/* what was asked */
	const char *url, *selector, *group_by;
	double since, until;
	/* what was read */
	double t0, step;       /* window k at t0 + k * step */
	size_t nwin, nnodes, nchan;
	double threshold;      /* a node above it for persist windows is a straggler */
	size_t persist;
	size_t ngroup;
	const struct rv_fleet_group *group;       /* by name */
	size_t nstrag;
	const struct rv_fleet_straggler *strag;   /* by group, then peak score */
	size_t ndrift;
	const struct rv_fleet_drift *drift;       /* by group, then key */
	size_t nsmall;         /* groups of fewer than 3 nodes: no straggler verdict */
	uint64_t requests, bytes;
	double read_s, analyse_s;
	struct rv_pool pool;   /* private: holds everything above */
};

/*
 * Reads and analyses (above). 0 and *out (free with rv_fleet_result_free),
 * or a negative errno with err naming the query or the step that failed
 * (-ENODATA when nothing matches the selector in the range).
 */
int rv_fleet_analyse(const struct rv_fleet_opts *o, struct rv_fleet_result **out,
		     struct rv_err *err);

void rv_fleet_result_free(struct rv_fleet_result *r);

/* The report formats of `reveal report`. */
enum rv_fleet_format { RV_FLEET_TEXT, RV_FLEET_MARKDOWN, RV_FLEET_JSON, RV_FLEET_HTML };

/* Writes r to f in format fmt (report.c; its header comment is the JSON
 * schema). 0, -EIO when the stream failed, -EINVAL for a NULL stream or
 * result or an unknown format, -ENOMEM. */
int rv_fleet_report(FILE *f, const struct rv_fleet_result *r, enum rv_fleet_format fmt);

#endif
