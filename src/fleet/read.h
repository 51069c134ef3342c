/*
 * read.h - what `reveal fleet` reads of the agents' remote-written
 * summaries (agent/remote.c) through the Prometheus HTTP API only, so that
 * Prometheus, VictoriaMetrics, Mimir, Thanos and Cortex all serve it.
 *
 * rv_fleet_src_open finds, for the selector and the time range:
 *  - the nodes and their group (the label opts->group_by; "" when absent):
 *    last_over_time(reveal_node_learning{SEL}[RANGE]) at the range's end;
 *  - the summary interval (the step), from one node's raw samples unless
 *    given: reveal_node_learning{SEL,node="N"}[W];
 *  - the channels: /api/v1/label/channel/values of reveal_channel_mean{SEL};
 *  - each node's facts: last_over_time(reveal_fact_info{SEL}[RANGE]).
 * rv_fleet_src_read then fills the values of a run of windows (the
 * summary timestamps t0 + k * step), one query_range per channel,
 * reveal_channel_mean{SEL,channel="C"}, spread over opts->threads
 * connections. What a node lacks in a window stays NaN.
 *
 * Memory: the caller sizes the run of windows it asks for (values take
 * windows x nodes x channels floats). Not thread safe: one caller.
 */
#ifndef RV_FLEET_READ_H
#define RV_FLEET_READ_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/pool.h"
#include "remote/httpc.h"

enum { RV_FLEET_THREADS_MAX = 16 };

struct rv_fleet_src_opts {
	struct rv_httpc_opts http;     /* the API's base URL and credentials */
	const char *selector;          /* label matchers: 'a="b",c=~"d.*"' or '{...}'; "" all */
	const char *group_by;          /* the label that names a node's group */
	double since, until;           /* unix seconds, since < until */
	double step;                   /* the summary interval; 0: found from the data */
	unsigned threads;              /* connections for the channel queries, 1..16 */
};

struct rv_fleet_fact {
	const char *key, *value;
	double since;   /* when the node's agent first saw this value (its `since`
			   label, unix seconds), 0 when it did not say */
};

/* One node's facts f[0..n) sorted by key, each key once: of a key given
 * more than once (its value changed in the range), the newest value (the
 * largest since; of equals, the smallest value). Returns how many are
 * left. */
size_t rv_fleet_facts_newest(struct rv_fleet_fact *f, size_t n);

struct rv_fleet_src {
	double t0, step;               /* window k is at t0 + k * step */
	size_t nwin;
	size_t nnodes;
	const char **node;             /* sorted by name */
	const char **group;            /* per node */
	size_t nchan;
	const char **chan;             /* sorted */
	struct rv_fleet_fact **facts;  /* per node, sorted by key */
	size_t *nfacts;
	uint64_t requests, bytes;      /* API requests made and answer bytes */
	double read_s;                 /* wall-clock seconds spent reading */
	/* private */
	struct rv_pool pool;
	const struct rv_fleet_src_opts *o;
	char *sel;                     /* the matchers without braces */
	struct rv_prom *conn[RV_FLEET_THREADS_MAX];
	unsigned nconn;
};

/* Discovers nodes, step, channels and facts (above). 0, or a negative
 * errno with err naming the query and the API's answer; -ENODATA when
 * the selector matches no node in the range. Free with rv_fleet_src_close
 * in every case. */
int rv_fleet_src_open(const struct rv_fleet_src_opts *o, struct rv_fleet_src *s,
		      struct rv_err *err);

/*
 * Values of windows [w0, w0 + nw) into vals[(w - w0) * nnodes * nchan +
 * node * nchan + chan] (NaN where none). 0 or a negative errno (err).
 */
int rv_fleet_src_read(struct rv_fleet_src *s, size_t w0, size_t nw, float *vals,
		      struct rv_err *err);

/* One channel over windows [w0, w0 + nw) for every node into
 * vals[(w - w0) * nnodes + node]: the report's plots. */
int rv_fleet_src_read_chan(struct rv_fleet_src *s, size_t chan, size_t w0, size_t nw,
			   float *vals, struct rv_err *err);

/* Index of node name, or -1. */
long rv_fleet_src_node(const struct rv_fleet_src *s, const char *name);

void rv_fleet_src_close(struct rv_fleet_src *s);

#endif
