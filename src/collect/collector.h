/*
 * collector.h - every available source behind one sweep.
 *
 * rv_collector_open() opens each source of the registry under a root
 * prefix; the ones that cannot run here are kept as (name, reason) pairs,
 * reported once. rv_collector_sample() sweeps them in order into one frame
 * of values with validity: gauges as read, counters and events as rates
 * over the CLOCK_MONOTONIC interval since the previous sweep. A counter
 * that went backwards was reset (or wrapped): no rate this time, never a
 * negative one; a value missing now or in the previous sweep is a gap.
 * The sweep allocates nothing.
 *
 * A channel filter (cfg->keep, a metric set) narrows the frame to the
 * channels it keeps, in the order they have without it. A source none of
 * whose channels is kept is closed at open and never sampled: it is listed
 * among the unavailable ones with the reason "no channel in the metric
 * set". A source partly kept still reads its files once per sweep, and
 * only its kept channels reach the frame. A kept ratio channel (cpu.ipc:
 * cpu3) needs its inputs (cpu.instructions:cpu3, cpu.cycles:cpu3): they
 * are read even when the filter drops them, and are part of the raw list
 * (rv_collector_nraw) so that a recording can compute the ratio again, but
 * not of the frame.
 */
#ifndef RV_COLLECT_COLLECTOR_H
#define RV_COLLECT_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/err.h"
#include "collect/source.h"

struct rv_collector;

/* The reason given for a source the filter leaves nothing to read of. */
#define RV_COLLECT_NOT_IN_SET "no channel in the metric set"

/* Unavailable sources are recorded, not errors: only -ENOMEM fails, and
 * -EINVAL for a name in cfg->exclude that is no source (the message lists
 * the sources). Excluded sources are listed as unavailable, "excluded by
 * configuration". cfg is copied with its strings and exclude list (the
 * caller's may go once this returns); keep_ctx must outlive the
 * collector. A filter that keeps nothing here gives a collector with no
 * channel (the caller decides whether that is an error). */
int rv_collector_open(const struct rv_collect_cfg *cfg, struct rv_collector **out,
		      struct rv_err *err);

/*
 * Opens every source again, to pick up devices that appeared (a NIC, a
 * disk, a GPU) or drop ones that are gone. 0: the same channels, nothing
 * changed (the open state is kept, rates go on); 1: the channel list
 * (frame or raw) changed, c now holds the new one (indices and counts move, and counters
 * start again: no rate at the next sweep); -ENOMEM. Costs a full open:
 * call it every minute or so, not every sweep.
 */
int rv_collector_rediscover(struct rv_collector *c, struct rv_err *err);
void rv_collector_close(struct rv_collector *c);

size_t rv_collector_nchan(const struct rv_collector *c);
const struct rv_chan *rv_collector_chan(const struct rv_collector *c, size_t i);

/* Channels of the sources that opened (and their ratios) that the filter
 * left out of the frame, the inputs it reads for a kept ratio included;
 * 0 without a filter. */
size_t rv_collector_nleft(const struct rv_collector *c);

/* Sources that did not open, with the reason they gave. */
size_t rv_collector_nunavail(const struct rv_collector *c);
const char *rv_collector_unavail_source(const struct rv_collector *c, size_t i);
const char *rv_collector_unavail_reason(const struct rv_collector *c, size_t i);

/*
 * One sweep at `now`: values[i] and valid[i] for every channel. Counters
 * have no rate at the first sweep (valid 0). Returns the number of valid
 * values.
 */
size_t rv_collector_sample(struct rv_collector *c, rv_ns now, double *values, uint8_t *valid);

/*
 * Only the sources' part of a sweep: every source read and the raw list
 * gathered (rv_collector_raw), no rates, ratios or frame, and the state
 * rates need is not touched: for a recorder, which stores raw values.
 * Mixing it with rv_collector_sample makes the next rate span the
 * interval since the last rv_collector_sample.
 */
void rv_collector_read(struct rv_collector *c);

/* Time rv_collector_sample spent after reading (rates, ratios, the
 * frame), all sweeps so far (CLOCK_MONOTONIC, ns). */
uint64_t rv_collector_derive_ns(const struct rv_collector *c);

/* Sources that are sampled, in sweep order: name, channels read from it
 * (with a filter: those kept and the inputs of kept ratios), and the time
 * the last sweep spent in it and in all sweeps so far (CLOCK_MONOTONIC, ns). */
size_t rv_collector_nsources(const struct rv_collector *c);
void rv_collector_source_stats(const struct rv_collector *c, size_t i, const char **name,
			       size_t *nchan, uint64_t *last_ns, uint64_t *total_ns);

/* Of source i's time, the file reads (rv_pread calls and their wall time,
 * all sweeps so far): counted only while rv_read_cost.on (readcost.h). */
void rv_collector_source_reads(const struct rv_collector *c, size_t i, uint64_t *calls,
			       uint64_t *ns);

/* 1 when source i (as rv_collector_nsources counts) is read at one sweep
 * in cfg->slow_every only (a slow source, and slow_every above 1). */
int rv_collector_source_slow(const struct rv_collector *c, size_t i);

/*
 * Slow sources: values that move slowly (kernel object counts, load
 * averages, NUMA node memory, hugepages, link carrier, temperatures, clock
 * frequencies) or counted events whose rate over a second misses nothing
 * (qdisc drops, energy counters) are read at one sweep in cfg->slow_every, starting with the
 * first, and are gaps at the others; counters among them get their rate
 * over the whole span at the sweep that reads them (derive/derive.h), and
 * the agent carries gauges over the gaps. perf's software events follow
 * the same sweeps (its hardware counters are read at every one).
 * rv_collect_slow_every gives the sweeps between two such reads for a
 * sampling interval and a slow interval, rounded to a whole number: 1
 * (every sweep) for a slow interval of 0 or not above the interval.
 */
unsigned rv_collect_slow_every(double interval_s, double slow_s);

/* The default slow interval of `reveal record` and the agent. */
#define RV_COLLECT_SLOW_S 1.0

/* The names of every source in the registry, for messages and --help. */
size_t rv_collector_known_sources(const char *const **names);

/* Channels read by sources (the raw list), in sweep order, and channel i
 * of it (NULL past the end). Without a filter they are the frame's first
 * nraw channels, and the rest of the frame are ratios computed from them
 * (derive/ratio.h, source "derive"); with one, the raw list holds the kept
 * source channels and the inputs of kept ratios (see above). */
size_t rv_collector_nraw(const struct rv_collector *c);
const struct rv_chan *rv_collector_raw_chan(const struct rv_collector *c, size_t i);

/* The raw values of the last sweep (counters as totals) and their
 * validity, nraw each, owned by c: what a recording stores (readers
 * compute the ratios again). */
void rv_collector_raw(const struct rv_collector *c, const double **raw, const uint8_t **valid);

#endif
