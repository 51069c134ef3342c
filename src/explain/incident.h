/*
 * incident.h - merging flagged windows into incidents.
 *
 * A streaming merger: windows are pushed in time order; flagged windows,
 * allowing up to `max_gap` other windows between them, form one incident.
 *
 * Blame of the onset. An incident's top channels and subsystem are those of
 * its onset: the attribution weights of its first windows up to its peak
 * score (at least 2 windows; the peak is looked for in the first 5), less
 * its start-up: channels already gone by the 5th window (under a quarter of
 * their onset weight per window) leave it, unless nothing would stay. From
 * the 5th window on they never change, however the incident goes on.
 * Before that (an incident peeked at open, one closed sooner) the channels
 * gone by its latest window leave the summary the same way. Its subsystem
 * is the one whose 3 heaviest onset channels weigh most, a channel within
 * 0.5 % of the weight of one already counted being the same signal under
 * another name (counted once). A channel that counts a side effect of
 * another subsystem's activity (catalog.h rv_catalog_effect: the page
 * faults of process creation, the softirq time of traffic, the iowait of
 * block I/O) counts for that subsystem when the activity's channels carry
 * a tenth of the effects' weight at least. With a gate, the onset begins at the
 * incident's first material window (struct rv_incwin): the flagged
 * windows before it leave nothing in its blame, and the incident begins
 * there (they still count towards min_windows and the burst rule); so
 * does a stretch not reported yet, all of whose windows were weak (at or
 * below the gate's peak), at its first strong material window.
 *
 * Close on what opened it. After the onset, a flagged window continues the
 * incident only while the onset channels (the heaviest ones, holding 80 %
 * of the onset's weight) still carry at least a quarter of their onset
 * weight per window, each channel counted up to its own onset weight per
 * window (a minor onset channel that an after-effect keeps going cannot
 * hold the incident alone); a window without attribution continues it. The
 * incident closes once more than max_gap windows pass without one of its
 * own (or at rv_incmerge_finish); its end is its last own window.
 *
 * Follow-on phases. The flagged windows no open incident explains form a
 * candidate. It opens as an incident as soon as it qualifies (the gate
 * below), or when an incident closes while it still goes on: a follow-on
 * phase of the newest open incident, or of the one that closed (`follows`
 * its id, `phase` one more), when its peak so far is not above that one's
 * (an after-effect is not stronger than its cause), else an incident of
 * its own, as is a follow-on phase whose peak later rises above its
 * cause's (then phase 1 and follows 0 from that window on; one that only
 * grows stays linked: a fault can leave a job worse off than it was during
 * the fault); either way with
 * its own onset: a cascade cpu -> net reads as
 * two linked incidents, never as one relabelled incident. A candidate that
 * stops before it qualifies is a blip.
 *
 * Concurrent incidents. A fault that begins while an incident goes on (a
 * lasting after-effect, say) is not swallowed by it: a window the open
 * incidents take whose score is at least twice their recent score, and
 * whose channels that grew fourfold over the incidents' recent profile
 * lie mostly outside their onset channels, feeds the candidate too (with
 * that growth as its weights). Such a candidate that qualifies while they
 * go on opens beside them, phase 1. At most RV_INCMERGE_OPEN_MAX are open
 * at once; ids are given in the order incidents qualify (or close).
 *
 * Blips. Closed incidents are kept in an array owned by the merger.
 * Incidents shorter than `min_windows` flagged windows are dropped as blips
 * when min_windows > 1 (counted in `dropped`; a new onset inside open
 * incidents that never qualifies is not a blip). With a gate
 * (rv_incmerge_set_gate), an incident whose peak score stays at or below
 * the gate's peak is also dropped unless it lasts the gate's number of
 * flagged windows, or (rv_incmerge_set_sustained) has the sustained
 * number of windows whose evidence lasts (struct rv_incwin) with a summed
 * excess (score - 1 over them) of at least the gate's peak - 1: a
 * sustained moderate excess counts like a strong window, a short weak
 * stretch (the windows that overlap one burst) is a blip. With bursts
 * (rv_incmerge_set_bursts, rv_incmerge_push_win) a stretch none of whose
 * windows lasts is held back until it has the bursts' number of flagged
 * windows, however strong: a page-in of a second flags three windows.
 * With a gate, a stretch none of whose windows is material (struct
 * rv_incwin) never qualifies, however strong or long: the detector judges
 * moves against the spread it learnt, and a quiet host's spread is far
 * below what could matter to any workload.
 *
 * Memory: 3 * (RV_INCMERGE_OPEN_MAX + 1) + 1 times nchan doubles (the
 * open incidents, the candidate, a split window), allocated at _new; the closed-incident array grows geometrically until
 * the caller forgets the closed incidents (rv_incmerge_forget_closed), as
 * the live agent does after handing each to its sinks.
 */
#ifndef RV_EXPLAIN_INCIDENT_H
#define RV_EXPLAIN_INCIDENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "base/severity.h"
#include "catalog/catalog.h"

enum { RV_INCIDENT_TOP_MAX = 8, RV_INCMERGE_OPEN_MAX = 4 };

struct rv_incident {
	uint64_t id;                 /* 1, 2, ... as they qualify; dropped blips take none */
	size_t first_win, last_win;  /* window indices, inclusive */
	double start_ts, end_ts;     /* timestamps of the first and last flagged window */
	size_t flagged;              /* flagged windows inside */
	double peak_score, mean_score;
	unsigned detectors;          /* OR of the detector bits that fired inside */
	enum rv_subsystem subsystem; /* subsystem with the largest onset weight */
	double sub_share[RV_SUB_COUNT]; /* each subsystem's share of the onset weight, 0..1 */
	size_t ntop;
	uint32_t top[RV_INCIDENT_TOP_MAX];       /* channel indices, most responsible first */
	double top_weight[RV_INCIDENT_TOP_MAX];  /* their share of the onset weight, 0..1 */
	unsigned phase;              /* 1, or 2, 3, ... for a follow-on phase */
	uint64_t follows;            /* id of the incident this one follows, 0: none */
	int onset_done;              /* its onset is over: subsystem and top channels
					are final (an incident may close before) */
};

struct rv_incmerge;

/*
 * A merger of nchan channels named names[] (borrowed, must outlive the
 * merger; each name's subsystem is looked up once, here) in *out: 0,
 * -EINVAL with a message in err when names is NULL with nchan > 0 or
 * nchan > UINT32_MAX, or -ENOMEM; *out is NULL on failure. max_gap 0
 * merges only adjacent flagged windows; min_windows 0 or 1 keeps every
 * incident.
 */
int rv_incmerge_new(size_t nchan, const char *const *names, size_t max_gap, size_t min_windows,
		    struct rv_incmerge **out, struct rv_err *err);
void rv_incmerge_free(struct rv_incmerge *m);

/*
 * Severity of an incident from its peak fused score (a multiple of the
 * detection threshold): minor up to RV_SEVERITY_MAJOR, major up to
 * RV_SEVERITY_CRITICAL, critical above.
 */
#define RV_SEVERITY_MAJOR 2.0
#define RV_SEVERITY_CRITICAL 5.0

/*
 * The reporting gate: an incident counts (peek_open, closed) once it has
 * min_windows flagged windows and either a peak score above `peak` or at
 * least `windows` flagged windows; windows 0 drops every incident whose
 * peak stays at or below `peak`. peak <= 0 removes the gate (the default).
 */
void rv_incmerge_set_gate(struct rv_incmerge *m, double peak, size_t windows);
/* With a gate: an incident of at least `windows` flagged windows whose
 * excess (sum of score - 1) reaches the gate's peak - 1 counts too; 0 (the
 * default) turns that off. */
void rv_incmerge_set_sustained(struct rv_incmerge *m, size_t windows);

/*
 * Pushes window `win` (strictly increasing; indices skipped count as
 * unflagged windows) at time ts. chan_weight (nchan doubles, borrowed for
 * the call; NULL means no attribution, and is ignored when not flagged) is
 * this window's per-channel attribution; values that are negative, zero or
 * not finite add nothing. Closes the open incident once more than max_gap
 * windows not its own follow it. Returns 0, -EINVAL (win not after the last
 * one) or -ENOMEM (growing the closed array); on error the window is not
 * taken and the merger is unchanged, so the push may be retried.
 */
int rv_incmerge_push(struct rv_incmerge *m, size_t win, double ts, int flagged, double score,
		     unsigned detectors, const double *chan_weight);
/* One scored window, for rv_incmerge_push_win. */
struct rv_incwin {
	size_t win;                  /* as rv_incmerge_push's arguments */
	double ts;
	int flagged;
	double score;
	unsigned detectors;
	const double *weight;        /* chan_weight */
	int lasting;                 /* 0: a flagged window whose evidence is a short
					burst (pipeline/live.h), 1: it lasts */
	int immaterial;              /* 1: a flagged window whose channels moved
					less than could matter (pipeline/live.h) */
	const uint8_t *persist;      /* per channel: 1 where it is still moving at
					the window's end (pipeline/live.h), or NULL */
	const float *matter;         /* per channel: the share of its materiality
					floor it moved, up to 1 (pipeline/live.h),
					or NULL */
	double strength;             /* what the gate weighs of a material
					window: its score with no detector below
					its threshold dragging it down
					(rv_ens_result.strength); 0: the score */
};

/*
 * rv_incmerge_push with the window's evidence judged (rv_incmerge_push is
 * this with lasting 1). With a gate and rv_incmerge_set_bursts, a stretch
 * none of whose windows lasts does not qualify until it has that many
 * flagged windows: a train of short bursts (page-ins, programs starting)
 * is not an incident until it goes on.
 */
int rv_incmerge_push_win(struct rv_incmerge *m, const struct rv_incwin *w);
/* Flagged windows a stretch without a lasting window needs to qualify (with
 * a gate); 0 (the default) turns the rule off. */
void rv_incmerge_set_bursts(struct rv_incmerge *m, size_t windows);

/* Closes the open incident, if any, and then the candidate going on after
 * it, as its follow-on (0, or -ENOMEM as for push). */
int rv_incmerge_finish(struct rv_incmerge *m);

/*
 * For a caller that delays per-window output: whether window win is
 * decided (no open incident may still take it: each open one either began
 * after it, or has min flagged windows and reaches past it). Returns 1 and
 * sets *anomaly (a closed or open incident covers it), or 0: wait.
 */
int rv_incmerge_decided(const struct rv_incmerge *m, size_t win, size_t min, int *anomaly);

/* 1 when window win lies inside a closed (kept) incident. Looks back from
 * the newest incident, so it is cheap for recent windows. */
int rv_incmerge_covers(const struct rv_incmerge *m, size_t win);

/*
 * The oldest open incident as it would close now (top channels, subsystem
 * and mean score over its flagged windows so far; its id): returns 1 and
 * fills *out when an incident is open and has at least min_windows
 * flagged windows (and passes the gate, if set), else 0. For the live
 * agent, which reports an incident while it lasts.
 */
int rv_incmerge_peek_open(const struct rv_incmerge *m, struct rv_incident *out);
/* Every open incident that qualifies, oldest first, up to max of them into
 * out[]; returns how many. */
size_t rv_incmerge_peek_all(const struct rv_incmerge *m, struct rv_incident *out, size_t max);

/* Drops the closed incidents kept so far (ids go on): a long-running
 * caller takes them (rv_incmerge_get) and forgets them, so memory stays
 * bounded. */
void rv_incmerge_forget_closed(struct rv_incmerge *m);

/* Sets the id of the next incident (ids continue after a restart); 0 is
 * ignored. */
void rv_incmerge_set_next_id(struct rv_incmerge *m, uint64_t id);

/* Closed incidents kept, in order of closing; get returns NULL past the
 * end. The pointer is valid until the next push or finish. */
size_t rv_incmerge_count(const struct rv_incmerge *m);
size_t rv_incmerge_max_gap(const struct rv_incmerge *m);
size_t rv_incmerge_min_windows(const struct rv_incmerge *m);
const struct rv_incident *rv_incmerge_get(const struct rv_incmerge *m, size_t i);
/* Incidents dropped as blips (fewer than min_windows flagged windows, or
 * stopped by the gate). */
size_t rv_incmerge_dropped(const struct rv_incmerge *m);
/* The name of channel c (borrowed from _new), NULL when out of range. */
const char *rv_incmerge_chan_name(const struct rv_incmerge *m, uint32_t c);

/*
 * Writes all closed incidents as one JSON document
 * {"window":N,"incidents":[{"id":..,"start":..,"end":..,"duration_s":..,"windows":..,
 *   "peak_score":..,"mean_score":..,"detectors":["zscore",..],
 *   "subsystem":"net","phase":1,"follows":null,"top_metrics":[{"name":..,"share":..},..]},..]}
 * with one incident per line. window is the detector window in samples
 * (written when nonzero: `reveal report` reads it to place the baseline).
 * det_names[i] names detector bit i (ndet of them;
 * a set bit without a name is written "bit<i>"). start and end are the
 * first and last flagged window's timestamps (%.3f), duration_s their
 * difference; scores %.17g, shares %.6f; non-finite numbers become null.
 * Returns 0, -EINVAL (NULL f or m) or -EIO (f's error flag is set); the
 * caller owns f and flushes it.
 */
int rv_incident_write_json(FILE *f, const struct rv_incmerge *m, const char *const *det_names,
			   size_t ndet, size_t window);

/* "minor" (peak fused score <= 2 or unknown), "major" (<= 5) or
 * "critical": how far past the detectors' thresholds an incident went;
 * _of gives it as the enum of base/severity.h. */
const char *rv_incident_severity(double peak);
enum rv_severity rv_incident_severity_of(double peak);
/* "cpu:0.712,mem:0.204": the subsystems with at least 1 % of the weight,
 * largest first; "" when it does not fit in cap bytes. */
void rv_incident_rank_subsystems(const struct rv_incident *in, char *buf, size_t cap);

/*
 * Writes a fixed-width summary table to f: a header line, then one line per
 * incident with id, start (ISO-8601 UTC), duration, flagged windows, peak
 * score, detectors, subsystem and up to 3 top metrics with their shares;
 * just "no incidents" when there are none. Returns as the JSON writer.
 */
int rv_incident_write_table(FILE *f, const struct rv_incmerge *m, const char *const *det_names,
			    size_t ndet);

#endif
