/*
 * metricset.h - a metric set: the channels to watch, as `reveal prune`
 * writes it (a YAML file), read by `reveal agent` (collect.metric_set,
 * --metric-set) and `reveal detect --metric-set`.
 *
 * File (YAML, one document):
 *
 *   # reveal metric set (reveal prune): ...
 *   version: 1
 *   threshold: 0.5               # |r| above which a pair was redundant
 *   inputs: [a.rvl, b.csv]       # what it was computed from (informational)
 *   keep:                        # the channels to watch
 *     - cpu.busy_pct
 *     - net.rx_bytes:eth0
 *   drop:                        # each dropped channel, the kept one that
 *     - {channel: cpu.user_pct, kept: cpu.busy_pct, r: 0.97}   # stands for it
 *   constant: [mem.total_bytes]  # with --drop-constant: constant in every input, not watched
 *
 * Only `version` and `keep` are required; unknown keys, duplicates,
 * a channel both kept and dropped, and a name that is not a channel name
 * (printable, no blank; an instance after ':') are errors naming
 * FILE:LINE:COL. Whether the catalog knows a channel's metric type is the
 * caller's question (rv_metricset_uncatalogued): the agent, whose channels
 * all come from the catalog, refuses a set naming a type it does not know
 * (a typo), with the line; `reveal detect` on offline data (SMD columns
 * have names of their own) does not. A channel of the set that the host
 * does not have is not an error here (the caller names it).
 *
 * In detail: a channel name is a metric type of [a-z0-9_.-] (starting with
 * a letter or digit), then optionally ':' and an instance of printable
 * ASCII without blanks (the live collector's instances hold '/', ':' and
 * upper case: "net.irqs_cpu:virtio2-input.0/cpu0"). `version` must be 1;
 * `threshold` a number in [0, 1]; each drop's `r` a number in [-1, 1] and
 * its `kept` a channel of `keep`; `keep` lists at least one channel (at
 * most RV_METRICSET_MAX_CHANNELS names in all).
 *
 * The object is immutable once loaded; lookups are O(log n) and safe from
 * any thread.
 */
#ifndef RV_SELECT_METRICSET_H
#define RV_SELECT_METRICSET_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"

struct rv_metricset;

/* One dropped channel: the kept channel standing for it and their r. */
struct rv_metricset_drop {
	const char *channel, *kept;
	double r;
};

/* Reads path (at most 16 MiB). 0 and *out, or a negative errno with err
 * "PATH:LINE:COL: ..." (-EINVAL bad content; the errno of open/read). */
int rv_metricset_load(const char *path, struct rv_metricset **out, struct rv_err *err);

/* The same from len bytes of text; name starts the messages. */
int rv_metricset_parse(const char *text, size_t len, const char *name,
		       struct rv_metricset **out, struct rv_err *err);

void rv_metricset_free(struct rv_metricset *m);

/* Kept channels, in file order; their line in the file (1-based). */
size_t rv_metricset_count(const struct rv_metricset *m);
const char *rv_metricset_name(const struct rv_metricset *m, size_t i);
size_t rv_metricset_line(const struct rv_metricset *m, size_t i);

/* The first kept channel (index) whose metric type (the name before ':')
 * the catalog does not know, or -1. */
long rv_metricset_uncatalogued(const struct rv_metricset *m);

/* 1 when channel is kept, else 0. */
int rv_metricset_has(const struct rv_metricset *m, const char *channel);

/* Dropped and constant channels (informational). */
size_t rv_metricset_ndropped(const struct rv_metricset *m);
const struct rv_metricset_drop *rv_metricset_dropped(const struct rv_metricset *m, size_t i);
size_t rv_metricset_nconstant(const struct rv_metricset *m);
const char *rv_metricset_constant(const struct rv_metricset *m, size_t i);
double rv_metricset_threshold(const struct rv_metricset *m);   /* NaN when absent */

/* The `inputs` list (informational), in file order. */
size_t rv_metricset_ninputs(const struct rv_metricset *m);
const char *rv_metricset_input(const struct rv_metricset *m, size_t i);

enum { RV_METRICSET_MAX_CHANNELS = 1 << 18 };  /* names in a file, all lists together */

/* 1 when name is a channel name as above (the catalog not asked), else 0. */
int rv_metricset_valid_name(const char *name);

/* What rv_metricset_write writes; every array borrowed, names distinct. */
struct rv_metricset_spec {
	double threshold;                       /* NaN: no `threshold` key */
	const char *const *inputs;              /* any text (written quoted) */
	size_t ninputs;
	const char *const *keep;                /* at least one */
	size_t nkeep;
	const struct rv_metricset_drop *drop;   /* each drop's kept is in keep */
	size_t ndrop;
	const char *const *constant;
	size_t nconstant;
};

/*
 * Writes s as a metric-set file to f, one that rv_metricset_parse reads
 * back to the same lists (r rounded to 4 decimals). 0, or -EINVAL with
 * "channel 'NAME' is not a channel name" (nothing useful written: the
 * caller discards the file), or -EIO when f reports a write error.
 */
int rv_metricset_write(FILE *f, const struct rv_metricset_spec *s, struct rv_err *err);

#endif
