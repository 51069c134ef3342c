/*
 * compare.h - consistency between two detection runs (`reveal compare`):
 * how far two configurations agree on the same telemetry, as the paper
 * measures it between its default and fine-grained settings (median IoU
 * of anomalous windows 0.50, incident hit rate 0.92).
 *
 * A run (struct rv_compare_run) is what one detection left behind:
 *  - a per-window CSV of `reveal detect` (window_csv.h; compare_read.c):
 *    its windows with their `anomaly` column, and its incidents formed
 *    again from that column by explain/incident.c, the merger detect runs;
 *  - an agent store (read by cli/, which adds the incidents one by one):
 *    incidents only; its anomalous windows are the windows its incidents
 *    cover. Either way a window is anomalous exactly when an incident
 *    covers it, so a CSV and a store compare like for like.
 *
 * Time. A window stands for the step that ends at its timestamp: the
 * interval (ts - step, ts], step being the run's median spacing of
 * timestamps (a CSV) or the step given (a store). An incident covers
 * (start_ts - step, end_ts]. Measuring in seconds rather than counting
 * windows matched by timestamp makes runs with different steps, or with
 * timestamps that do not line up (another window length, another
 * sampling phase), comparable; on two runs with the same timestamps it is
 * exactly the count of windows. Gaps between a CSV's windows (more than
 * one step) belong to no window and are anomalous in neither run.
 *
 * The range. Only the time both runs cover, inside [since, until], is
 * compared: a CSV covers (first_ts - step, last_ts]; a store's span is
 * unknown (it keeps incidents, not the times it watched) and bounds
 * nothing. With two stores and no since/until, the range runs from the
 * first incident of either to the last. Windows outside the range and
 * incidents that do not overlap it are left out and counted.
 *
 * The measures (rv_compare_runs):
 *  - IoU of anomalous windows: seconds anomalous in both runs over seconds
 *    anomalous in either. Two runs without any anomalous window agree
 *    completely: IoU 1 (both_s = either_s = 0).
 *  - hit rate of A: the share of A's incidents that at least one of B's
 *    overlaps (a positive length of time in common), and of B by A. A run
 *    without incidents has no hit rate: NaN (JSON null, text "n/a").
 *  - matching: each incident of A with the incident of B that overlaps
 *    it longest (the earlier on a tie) or none; then B's incidents that
 *    overlap none of A's.
 *
 * Not here: reading a store (cli/compare_cmd.c), flags.
 */
#ifndef RV_PIPELINE_COMPARE_H
#define RV_PIPELINE_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "catalog/catalog.h"

/* No incident: the index of a pair's missing side. */
#define RV_COMPARE_NONE SIZE_MAX

/* The paper's figures between its default and fine-grained configurations. */
#define RV_COMPARE_PAPER_IOU 0.50
#define RV_COMPARE_PAPER_HIT 0.92

enum { RV_COMPARE_INCIDENTS_MAX = 1 << 20 };   /* per run */

struct rv_compare_incident {
	uint64_t id;                 /* the store's id, or 1, 2, ... in a CSV's order */
	double start_ts, end_ts;     /* the first and last anomalous window's timestamps */
	size_t windows;              /* flagged windows inside (0: not known) */
	enum rv_subsystem subsystem;
	int attributed;              /* 0: no channel was named, the subsystem is unknown */
	unsigned phase;              /* 1, or 2, 3, ... for a follow-on phase */
};

struct rv_compare_run {
	const char *name;            /* for messages and output (borrowed) */
	const char *kind;            /* "csv" or "store" (static text) */
	double step;                 /* seconds one window stands for, > 0 */
	size_t nwin;                 /* windows (a CSV; 0 for a store) */
	double *ts;                  /* nwin timestamps, strictly increasing */
	unsigned char *anomaly;      /* nwin flags, 0 or 1 */
	size_t ninc, capinc;
	struct rv_compare_incident *inc;   /* in order of start */
};

/* An empty run named name (borrowed) of kind "csv" or "store" whose
 * windows stand for step seconds. */
void rv_compare_run_init(struct rv_compare_run *r, const char *name, const char *kind,
			 double step);
/* Frees what the run owns and empties it; NULL is a no-op. */
void rv_compare_run_fini(struct rv_compare_run *r);
/*
 * Appends a copy of in (a store's incidents, in any order: rv_compare_runs
 * sorts its own view). 0, -EINVAL with a message naming the run when its
 * times are not finite or end before they start, -E2BIG past
 * RV_COMPARE_INCIDENTS_MAX, or -ENOMEM.
 */
int rv_compare_run_add(struct rv_compare_run *r, const struct rv_compare_incident *in,
		       struct rv_err *err);

/* One line of the incident table: A's incident a with its match b, or
 * (a == RV_COMPARE_NONE) one of B's that matches none of A's. */
struct rv_compare_pair {
	size_t a, b;                 /* indices into the runs' inc[], or RV_COMPARE_NONE */
	double overlap_s;            /* seconds in common (0 without a match) */
};

struct rv_compare_side {
	size_t windows;              /* windows inside the range (0 for a store) */
	size_t windows_out;          /* windows outside it, left out */
	size_t flagged;              /* anomalous windows inside (a store: its
					incidents' flagged windows, where known) */
	double anomalous_s;          /* seconds anomalous inside the range */
	size_t incidents;            /* incidents overlapping the range */
	size_t incidents_out;        /* incidents outside it, left out */
	size_t hit;                  /* of those, overlapped by one of the other run */
	double hit_rate;             /* hit / incidents; NaN without incidents */
};

struct rv_compare_result {
	double from, to;             /* the range compared: (from, to] */
	double both_s, either_s;     /* seconds anomalous in both runs / in either */
	double iou;                  /* both_s / either_s; 1 when either_s is 0 */
	struct rv_compare_side a, b;
	size_t npair;
	struct rv_compare_pair *pair;   /* A's incidents in order, then B's unmatched */
};

/*
 * Compares run a with run b over the time both cover inside [since, until]
 * (-INFINITY/INFINITY: no bound) into *out (free with
 * rv_compare_result_fini). Returns 0; -EINVAL with a message naming both
 * runs and their spans when they share no time (or none inside
 * since/until); -ENOMEM. The runs are not changed.
 */
int rv_compare_runs(const struct rv_compare_run *a, const struct rv_compare_run *b,
		    double since, double until, struct rv_compare_result *out,
		    struct rv_err *err);
/* Frees the pairs and zeroes r; NULL is a no-op. */
void rv_compare_result_fini(struct rv_compare_result *r);

/*
 * Reads a per-window CSV of `reveal detect` (window_csv.h) into *out
 * (rv_compare_run_init'ed by the call; fini it also on failure). Needs the
 * columns timestamp (unix seconds, strictly increasing) and anomaly (0 or
 * 1); score and top_metrics are used when present, other columns are
 * ignored. Incidents are formed by explain/incident.c's merger from the
 * anomaly column with max_gap and min_windows (window_csv's anomaly
 * already bridges the run's own gaps: 0 and 1 re-form its incidents), each
 * flagged window's score, and as its attribution the first
 * RV_COMPARE_RANK_MAX channels of top_metrics weighing 1, 1/2, 1/3, ...
 * (the CSV ranks, it does not weigh: where detect split a stretch because
 * its leading channels changed, the merger may split it elsewhere or not
 * at all; on synth data sets of 4 seeds x 7 configurations 21 runs of 28
 * came out exactly as detect's --incidents, 105 of its 118 incidents,
 * against 19 and 110 of 133 for weights 1, 1/2, 1/4, ...; the anomalous
 * windows, and so the IoU, are the file's as written). The step is the
 * median spacing of the timestamps, default_step with a single window.
 * Memory: per window 17 bytes, per anomalous window 33 more, the channel
 * names once, one line (at most RV_COMPARE_LINE_MAX). Errors (-EINVAL,
 * -EILSEQ for a line that is not text, -EIO, -ENOMEM, -E2BIG) name the
 * file and line: a missing column, a row with the wrong number of fields,
 * a bad number or flag, timestamps not increasing, no window at all.
 */
enum { RV_COMPARE_RANK_MAX = 8, RV_COMPARE_LINE_MAX = 16 << 20 };
int rv_compare_read_csv(const char *path, size_t max_gap, size_t min_windows,
			double default_step, struct rv_compare_run *out, struct rv_err *err);
/* The same from an open stream f named path (the caller closes f). */
int rv_compare_read_stream(FILE *f, const char *path, size_t max_gap, size_t min_windows,
			   double default_step, struct rv_compare_run *out, struct rv_err *err);

/*
 * Writes the comparison for people (text) or as one JSON document
 * {"compare":{...},"incidents":[{"a":{..}|null,"b":{..}|null,
 * "overlap_s":..},...]}, one incident pair per line. Times are ISO-8601
 * UTC in text, unix seconds and ISO-8601 in JSON; a missing hit rate is
 * "n/a" / null. Returns 0 or -EIO (f's error flag set); the caller owns
 * and flushes f.
 */
int rv_compare_write_text(FILE *f, const struct rv_compare_run *a, const struct rv_compare_run *b,
			  const struct rv_compare_result *r);
int rv_compare_write_json(FILE *f, const struct rv_compare_run *a, const struct rv_compare_run *b,
			  const struct rv_compare_result *r);

#endif
