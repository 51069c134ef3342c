/*
 * source.h - the contract every telemetry source implements (one file per
 * source under collect/, listed in registry.c).
 *
 * open() finds the channels under cfg->root (a path prefix: "" for the live
 * host, a fixture tree in tests), keeps its files open and takes all the
 * memory it will need; it appends its channels to the list in the order
 * sample() will fill them. A source that cannot run here (file absent, not
 * permitted, not supported) returns a negative errno with the reason in
 * err, and the collector goes on without it.
 *
 * sample() rereads the open files (pread at offset 0) and writes one raw
 * value per channel: gauges as read, counters and events as the cumulative
 * count the kernel reports (the collector turns them into rates). It
 * allocates nothing; a value it cannot read this time (a vanished device,
 * a short or malformed line) gets valid[i] = 0, never a made-up number.
 */
#ifndef RV_COLLECT_SOURCE_H
#define RV_COLLECT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "catalog/catalog.h"

enum { RV_CHAN_NAME_MAX = 96 };

struct rv_chan {
	char name[RV_CHAN_NAME_MAX];      /* subsystem.metric[:instance] */
	const struct rv_metric *metric;   /* catalog entry: unit, kind, help */
	double scale;                     /* counters: rate = delta * scale / s */
	const char *source;               /* name of the source that reads it */
};

enum { RV_CHAN_NOTE_MAX = 256 };

/* Channels a source that opened cannot give (a part of it unsupported on
 * this hardware or driver), with the reason; listed by the collector
 * among the unavailable ones as `part` (a static string, "nvml.gpm"). */
struct rv_chan_note {
	const char *part;
	char reason[RV_CHAN_NOTE_MAX];
};

/* Channels found by open(); grows while sources open, never when sampling. */
struct rv_chanlist {
	struct rv_chan *v;
	size_t n, cap;
	const char *source;               /* set by the collector around open() */
	struct rv_chan_note *notes;       /* nnotes, in the order reported */
	size_t nnotes, notecap;
};

/*
 * Appends channel `type` (a catalog metric type) with `instance` (NULL or
 * "" for none): "type:instance". scale 0 means 1. -EINVAL for a type not in
 * the catalog or a name that does not fit, -ENOMEM.
 */
int rv_chanlist_add(struct rv_chanlist *l, const char *type, const char *instance,
		    double scale, struct rv_err *err);
void rv_chanlist_fini(struct rv_chanlist *l);

/* Notes channels `part` (a static string) cannot give here, with the
 * reason (printf format; cut at RV_CHAN_NOTE_MAX). 0 or -ENOMEM. */
int rv_chanlist_note(struct rv_chanlist *l, const char *part, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What every source's open() is told. */
struct rv_collect_cfg {
	const char *root;                 /* "" or a fixture tree; never NULL */
	const char *nvml_lib;             /* NULL: "libnvidia-ml.so.1" */
	const char *const *exclude;       /* nexclude source names left out (the
					     collector's concern; sources ignore it) */
	size_t nexclude;
	/* The channels to watch (a metric set): keep(keep_ctx, name) is 1 for
	 * a channel to keep, 0 to drop; NULL keeps every channel. The
	 * collector's concern (sources ignore it), called only while opening
	 * (collector.h); keep_ctx must outlive the collector. */
	int (*keep)(void *ctx, const char *channel);
	void *keep_ctx;
	/* Sources marked slow (and perf's software events) are read at one
	 * sweep in slow_every: sweeps 0, slow_every, 2 * slow_every, ...;
	 * 0 and 1 read them at every sweep. The collector's concern
	 * (rv_collect_slow_every in collector.h turns intervals into it). */
	unsigned slow_every;
	/* perf's software events (context switches, migrations, page faults
	 * per CPU), enum rv_perf_sw: counted where hardware counters open
	 * (AUTO, 0), everywhere (ON) or nowhere (OFF). */
	int perf_software;
};

enum rv_perf_sw { RV_PERF_SW_AUTO, RV_PERF_SW_ON, RV_PERF_SW_OFF };

struct rv_source {
	const char *name;                 /* "proc.stat", ... */
	int (*open)(const struct rv_collect_cfg *cfg, void **state,
		    struct rv_chanlist *chans, struct rv_err *err);
	void (*sample)(void *state, double *raw, uint8_t *valid);
	void (*close)(void *state);
	/* 1: values that move slowly or count events, read at one sweep in
	 * cfg->slow_every; at the others sample() is not called and every
	 * channel is a gap (a counter's next rate covers the whole span). */
	int slow;
	/* NULL, or told before every sweep whether it is one that reads the
	 * slow parts (a source with fast and slow channels: perf). */
	void (*pace)(void *state, int slow_sweep);
};

/* Every source, in sampling order (registry.c); NULL-terminated. */
extern const struct rv_source *const rv_sources[];

#endif
