/*
 * agent_int.h - the agent's state, shared by agent.c (the loop), sinks.c
 * (store, events, recording) and http.c (the HTTP handlers). Internal.
 *
 * Threads: the main thread samples, scores and writes the sinks; a fit
 * thread fits models; libmicrohttpd's thread calls the handlers. Fields
 * under "shared" are written by the main thread with `mu` held and read by
 * the handlers with `mu` held; everything else belongs to the main thread.
 */
#ifndef RV_AGENT_AGENT_INT_H
#define RV_AGENT_AGENT_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "agent/agent.h"
#include "agent/ring.h"
#include "collect/collector.h"
#include "collect/facts.h"
#include "explain/kb.h"
#include "pipeline/model.h"
#include "pipeline/live.h"
#include "record/rvl.h"
#include "record/rvl_values.h"
#include "serve/http.h"
#include "store/store.h"

enum {
	AGENT_RECENT_MAX = 64,         /* closed incidents kept for the API */
	AGENT_SOURCES_MAX = 64,
	AGENT_HOST_MAX = 64,
};

enum agent_state { AGENT_LEARNING, AGENT_DETECTING };

/* Where a sink failed: counted per sink, reported once until it recovers. */
enum agent_sink { SINK_STORE, SINK_EVENTS, SINK_RECORD, SINK_MODEL, SINK_COUNT };

/* The causes an incident's onset decided (explain.c): they stay its first
 * causes whatever the later explanations match. */
struct agent_onset {
	int decided;                       /* the onset was explained */
	size_t n;
	struct rv_store_cause cause[RV_STORE_CAUSE_MAX];
};

/* An open incident as last reported. */
struct agent_open {
	struct rv_store_incident inc;      /* its id, summary and last cause */
	double written_ts;                 /* data time it was last written */
	double explained_ts;               /* data time it was last explained */
	double whose_ts;                   /* data time its consumers were last asked for */
	struct agent_onset onset;
};

enum { AGENT_FACT_CHANGES = 16 };   /* fact changes kept for the API */

/* A fact that changed (facts.c); from or to "" when it appeared or went. */
struct agent_fact_change {
	char key[RV_FACT_KEY_MAX];
	char from[RV_FACT_VALUE_MAX], to[RV_FACT_VALUE_MAX];
	double ts;                         /* wall time it was seen */
};

/* The host's facts (facts.c); cur, since and the changes are shared (mu). */
struct agent_facts {
	struct rv_facts cur;
	double *since;                     /* cur.n: wall time each value was first seen */
	double next;                       /* wall time of the next read; 0: never */
	uint64_t changes;                  /* changes seen since start */
	unsigned failures;                 /* reads failed in a row */
	struct agent_fact_change recent[AGENT_FACT_CHANGES];
	size_t nrecent, recent_next;
};

struct agent_source_stat {
	const char *name;
	size_t nchan;
	double last_s, total_s;
};

struct agent {
	const struct rv_agent_opts *o;
	struct rv_config cfg;              /* effective (SIGHUP changes some keys) */
	char host[AGENT_HOST_MAX];
	char model_path[4096];
	double started_mono, started_wall;

	/* input: the collector, or a recording being replayed */
	struct rv_collector *coll;
	struct rv_rvl_reader *rd;
	struct rv_rvl_values rv;
	struct rv_metricset *mset;         /* collect.metric_set (mset.c); NULL: every channel */
	size_t *sel;                       /* replay: nchan indices of the recording's values */
	size_t nchan;
	char **names;                      /* nchan owned */
	double *vals;                      /* nchan, this sample */
	uint8_t *ok;
	float *last;                       /* last valid value per channel (0 before any) */
	uint32_t *reads;                   /* readings per channel since the channels were set */
	uint8_t *hold;                     /* samples each channel's reading is held (live.h) */
	uint32_t hold_samples;             /* samples behind reads[] */
	double interval_s;                 /* expected time between samples */

	/* history and scoring */
	struct rv_ring ring;
	size_t learn_rows, reservoir_rows;
	struct rv_detect_opts dopts;
	struct rv_model *model;
	struct rv_live *live;
	const float **wrows;               /* window row pointers */
	size_t win;                        /* index of the next window */
	struct rv_incmerge *mg;

	/* explanations (explain.c) */
	struct rv_kb *kb;                  /* the built-in rules */
	double *ex_ts;                     /* ring.cap: the ring's times, oldest first */
	struct rv_store_ev *ex_ev;         /* RV_STORE_EV_MAX kept entries */
	size_t *ex_idx;

	/* fitting */
	pthread_t fit_tid;
	int fitting;                       /* a fit thread runs (or ran and was not joined) */
	atomic_int fit_done;
	struct rv_table *fit_table;
	struct rv_model *fit_model;
	struct rv_err fit_err;
	int fit_rc;
	double fit_secs;
	const char *fit_reason;            /* "learn", "refit", "absorb" */
	int absorbing;                     /* an absorb refit runs: flags wait for it */
	double absorb_since;               /* data time: flagged rows an absorb fits on */
	double fit_from;                   /* data time: the sample a fit started at */
	double quiet_until;                /* data time: windows before it flag nothing */
	double last_fit_wall;              /* data time of the last fit's end, 0: none */
	double next_refit;                 /* data time of the next refit */

	struct agent_whose *whose;         /* the attribution worker (whose.c), NULL: off */

	/* sinks */
	struct rv_store *store;
	FILE *events;
	int events_owned;
	struct rv_rvl_writer *rec;
	struct rv_rvl_chan *rec_ch;
	char rec_path[4200];
	double rec_opened;
	size_t rec_buffered;               /* samples in the open block */
	int sink_failing[SINK_COUNT];

	/* HTTP */
	struct rv_http *http;

	/* remote write (remote.c); NULL: off */
	struct agent_rw *rw;

	/* the host's facts (facts.c) */
	struct agent_facts facts;

	/* incident actions (actions.c); NULL: none configured */
	struct rv_actions *actions;

	/* shared (mu) */
	pthread_mutex_t mu;
	enum agent_state state;
	double learn_progress, learn_remaining_s;
	double data_ts;                    /* timestamp of the last sample */
	uint64_t samples, missed, windows_scored, windows_flagged, fits;
	uint64_t blips, blips_base;   /* flagged stretches not reported (incident.h) */
	double last_fused, fused_threshold;
	double last_novelty;               /* the last window's novelty (pipeline/novelty.h) */
	double last_level;                 /* its level score (pipeline/level.h) */
	int last_anomaly;
	int judging;                       /* the last window could flag (not quiet) */
	double det_score[RV_DET_MAX], det_threshold[RV_DET_MAX];   /* detector.h's table */
	int det_fired[RV_DET_MAX];
	unsigned det_enabled;
	double last_score_s;               /* time the last window took to score */
	double model_fitted_at, model_fit_s;
	size_t model_features, model_train_windows;
	uint64_t incidents_total[RV_SUB_COUNT];
	struct agent_open open[RV_INCMERGE_OPEN_MAX]; /* the open incidents reported, oldest first */
	size_t nopen;
	struct rv_store_incident recent[AGENT_RECENT_MAX];
	size_t nrecent, recent_next;
	uint64_t sink_errors[SINK_COUNT];
	struct agent_source_stat src[AGENT_SOURCES_MAX];
	size_t nsrc;
	double *shown;                     /* nchan last values for /metrics (raw_channels) */
	uint8_t *shown_ok;
	double cpu_s;
};

/* explain.c */
struct rv_details;
int rv_agent_explain_alloc(struct agent *a);   /* buffers sized by the ring */
void rv_agent_explain_free(struct agent *a);
/*
 * The causes of an explanation as the store keeps them: the onset's causes
 * first (role onset, as they were decided, whether or not they match now),
 * then the current matches (cur, ncur: ranked, as rv_kb_match wrote them)
 * that may be its cause (rv_kb_cause_of the incident's subsystem sub, the
 * undecided rules' candidates resolved in kb) and
 * are not among them (role cause, or onset when decide is set: the onset
 * is being decided now), then those of another subsystem (role note); at
 * most RV_STORE_CAUSE_MAX in out. Returns how many.
 */
size_t rv_agent_rank_causes(const struct rv_kb *kb, const struct agent_onset *onset,
			    const struct rv_kb_match *cur, size_t ncur, const char *sub, int decide,
			    struct rv_store_cause *out);
/*
 * Works out the details of incident inc (its top signals and subsystem
 * already filled) into *det, borrowing from *d (which the caller frees
 * with rv_details_free after the store took det), and sets inc's likely
 * cause: the first of its causes (rv_agent_rank_causes), none when only
 * notes matched. onset: what the incident's onset decided, updated when
 * decide is set (the onset is over, or the incident closes undecided);
 * NULL for an incident never reported open, whose causes are all its
 * onset's. Returns 0, or a negative errno when there is nothing to
 * explain from (no model yet, an empty ring) or no memory.
 */
int rv_agent_explain(struct agent *a, struct rv_store_incident *inc, struct rv_details *d,
		     struct rv_store_details *det, struct agent_onset *onset, int decide);
/* For an open incident at data time ts (prev: as last reported, NULL when
 * fresh; cur: what is being reported now, its onset carried over):
 * explains it when fresh, when its onset just ended undecided (onset_done)
 * or every EXPLAIN_UPDATE_S (returns 1: det filled, free d after use),
 * else carries the last cause over (returns 0, d zeroed). */
int rv_agent_explain_open(struct agent *a, struct agent_open *cur, double ts,
			  const struct agent_open *prev, int onset_done, struct rv_details *d,
			  struct rv_store_details *det);
/* The likely cause of the last explanation, from `from` into inc (only
 * the main thread writes either). */
void rv_agent_carry_cause(struct rv_store_incident *inc, const struct rv_store_incident *from);

/* incidents.c */
/* After a window went into the merger: report what closed, what opened
 * and (every OPEN_UPDATE_S) how each open incident grew; absorbs one open
 * for detect.absorb. */
void rv_agent_incidents_after_push(struct agent *a, double ts);
/* Closes and reports every open incident. */
void rv_agent_close_all(struct agent *a);

/* sinks.c */
int rv_agent_sinks_open(struct agent *a, struct rv_err *err);
void rv_agent_sinks_close(struct agent *a);   /* events and recording; the store stays */
void rv_agent_store_close(struct agent *a);
/* Writes an incident (open or closed) to the store, the events and the log;
 * det (may be NULL: keep what is stored) are its details for the store. */
void rv_agent_report_incident(struct agent *a, const struct rv_store_incident *inc,
			      const char *event, const struct rv_store_details *det);
void rv_agent_record_sample(struct agent *a, int64_t t_ns);
void rv_agent_sink_result(struct agent *a, enum agent_sink s, int rc, const struct rv_err *err);
void rv_agent_store_fit(struct agent *a, const char *reason);
/* One incident as the JSON object of /api/v1/incidents. */
struct rv_buf;
struct rv_store_consumer;
void rv_agent_incident_json(struct rv_buf *b, const struct rv_store_incident *in,
			    const struct rv_store_consumer *cons, size_t ncons);
/* "minor", "major" or "critical" for a peak fused score. */
const char *rv_agent_severity(double peak);
/* The events file's line of an incident event ("open", "close": its JSON
 * object and a newline) appended to b. */
void rv_agent_event_line(struct agent *a, const struct rv_store_incident *in, const char *event,
			 struct rv_buf *b);

/* http.c */
int rv_agent_http_start(struct agent *a, struct rv_err *err);
/* The per-detector series of /metrics (labels detector="NAME" from the
 * detector table) for the model in use; the caller holds a->mu. */
struct rv_promtext;
void rv_agent_metrics_detectors(const struct agent *a, struct rv_promtext *p);
void rv_agent_http_stop(struct agent *a);

/* whose.c: whose workload (attrib/), a live agent only; no-ops when off */
int rv_agent_whose_start(struct agent *a, struct rv_err *err);
void rv_agent_whose_stop(struct agent *a);
/* Queues a measurement of the consumers of incident in (its subsystem,
 * its ranking "cpu:0.712,mem:0.204" and the GPUs its top signals name;
 * never blocks); how often an open incident asks again, in seconds. */
void rv_agent_whose_request(struct agent *a, const struct rv_store_incident *in);
double rv_agent_whose_every(const struct agent *a);
/* Takes the finished measurements: store, log, kept for the JSON. */
void rv_agent_whose_poll(struct agent *a);
/* The newest consumers measured for incident id (up to max), 0: none yet. */
struct rv_store_consumer;
size_t rv_agent_whose_get(struct agent *a, uint64_t id, struct rv_store_consumer *out,
			  size_t max);
void rv_agent_whose_metrics(struct agent *a, struct rv_promtext *p);

/* agent.c (detector names: rv_det_name, detect/detector.h) */
double rv_agent_wall_s(void);              /* CLOCK_REALTIME, seconds */

/* actions.c: incident actions (configuration actions, action/action.h);
 * no-ops while none is configured. */
struct rv_actions;
/* Starts the configured actions (reads their password and token files). */
int rv_agent_actions_open(struct agent *a, struct rv_err *err);
/* Hands an "open" or "close" event to the actions (queued, never waited
 * for); other events are ignored. */
void rv_agent_actions_incident(struct agent *a, const struct rv_store_incident *in,
			       const char *event);
/* Their series on /metrics; the caller holds a->mu. */
void rv_agent_actions_metrics(struct agent *a, struct rv_promtext *p);
/* Stops them: the runs in progress end, the queued ones are dropped. */
void rv_agent_actions_close(struct agent *a);

/* facts.c: the host's facts, read at start and every
 * collect.facts_interval (a replay: at start only). open: 0, or the reading's
 * error (-ENOMEM). tick: reads them again when due, logs and counts each
 * change; returns how many changed. */
int rv_agent_facts_open(struct agent *a, double now_wall, struct rv_err *err);
int rv_agent_facts_tick(struct agent *a, double now_wall);
void rv_agent_facts_close(struct agent *a);

/* remote.c: remote write of per-interval summaries (configuration
 * remote_write); every function is a no-op while it is off. */
struct rv_rsend_stats;
/* Starts it when remote_write.url is set: facts, channels, the sender. */
int rv_agent_rw_open(struct agent *a, struct rv_err *err);
/* The channels to send, chosen anew from a->names (0 or -ENOMEM). */
int rv_agent_rw_channels(struct agent *a);
/* Before a->names changes: sends the open interval, forgets the channels. */
void rv_agent_rw_channels_go(struct agent *a);
/* Each sample (a->vals, a->ok at data time ts) and each scored window. */
void rv_agent_rw_sample(struct agent *a, double ts);
void rv_agent_rw_window(struct agent *a, double fused, const double *det, int flagged);
/* Stops it: clean (a normal stop) sends the open interval, stale markers,
 * and lets the sender deliver for a few seconds. */
void rv_agent_rw_close(struct agent *a, int clean);
/* The sender's counters into *out: 1, or 0 while remote write is off; the
 * caller holds a->mu (the HTTP thread asks). */
int rv_agent_rw_stats(struct agent *a, struct rv_rsend_stats *out);

/* mset.c: the metric set (collect.metric_set) */
struct rv_metricset;
/* Loads it when configured: 0, -ENOMEM, or -EINVAL (unreadable, malformed,
 * or naming a metric type the catalog lacks) with "FILE:LINE[:COL]: ...". */
int rv_agent_mset_load(struct agent *a, struct rv_err *err);
/* The channel filter over a set (collect/source.h keep): 1 when set is NULL
 * or keeps channel. */
int rv_agent_mset_keep(void *set, const char *channel);
/* Once a->names is known: -EINVAL when the set keeps no channel of the
 * input, else logs which channels of the set the input lacks and how many
 * of its channels the set leaves out (nleft). */
int rv_agent_mset_check(struct agent *a, size_t nleft, struct rv_err *err);

/* model.c */
void rv_agent_drop_model(struct agent *a);
/* Loads state_dir's model when it was fitted on these channels. */
void rv_agent_try_load_model(struct agent *a);
/* A fit on the history: "learn" (every row), "refit" (the newest
 * reservoir_rows normal rows) or "absorb" (the newest reservoir_rows,
 * flagged or not); inline_fit runs it in this thread. */
void rv_agent_start_fit(struct agent *a, const char *reason, int inline_fit);
/* Takes the memory fits and scoring keep, before the first sample. */
void rv_agent_warm_up(struct agent *a);
/* Joins a finished fit, installs and saves its model. */
void rv_agent_finish_fit(struct agent *a, double now_data);

#endif
