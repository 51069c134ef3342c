/*
 * report.h - incident reports for people: terminal text, markdown, JSON and
 * a self-contained HTML page (inline SVG plots, no external assets, no
 * script).
 *
 * The renderers only format: the caller (cli/report_cmd.c, with
 * report_build.h and pipeline/report_offline.h) fills a struct
 * rv_report from the store or from offline detector output, with the
 * evidence (evidence.h), the knowledge base's matches (kb.h) and the
 * cross-layer chain already worked out. Every pointer in these structs is
 * borrowed from the caller for the duration of the call.
 *
 * Per incident a report shows: the time range (UTC), duration, severity,
 * the detectors that fired, the subsystems ranked by share, the key
 * signals (baseline, incident value, change: "net.tcp_retrans_segs:
 * 1200/s in the incident, +850 % over a baseline of 126/s"), the likely
 * causes with their confidence, evidence, checks and fix (or "no rule
 * matched" plainly), the cross-layer chain in time order when signals of
 * several subsystems moved ("net.tcp_retrans_segs up -> cpu.softirq_pct up
 * -> gpu.util_pct down"), the phases of a cascade beside it ("Follow-on
 * phase 2 of incident 12 (cpu)." on a follow-on, "Followed by incident 13
 * (net, 4.0 s after it began)." on the incident it follows; markdown and
 * HTML link to the other incident when the report holds it, and name its
 * id plainly when not), whose workload took the resource that moved (the
 * consumers the agent measured: "pid 4242 stress-ng in foo.service took
 * 1.90 cores (61 %)"), and (HTML) a plot per top signal around the
 * incident against its baseline band.
 *
 * Formats:
 *   RV_REPORT_TEXT      terminal text, at most 100 columns, no colour
 *   RV_REPORT_MARKDOWN  GitHub-flavoured markdown (tables, code spans for
 *                       commands; an incident linked to another phase gets
 *                       an anchor <a id="incident-N"></a> for the links)
 *   RV_REPORT_JSON      one JSON document {"report": {...}, "incidents":
 *                       [...]}, every field of the structs below (the
 *                       phases as "phase", "follows" (null: none) and
 *                       "followed_by" [ids], in summary mode too);
 *                       non-finite numbers are null
 *   RV_REPORT_HTML      one HTML5 page, CSS inline, one <svg> per series
 * `summary` (any format): one line (text, markdown table row, JSON object
 * without signals/series/causes, HTML table row) per incident.
 */
#ifndef RV_EXPLAIN_REPORT_H
#define RV_EXPLAIN_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rv_report_format { RV_REPORT_TEXT, RV_REPORT_MARKDOWN, RV_REPORT_JSON, RV_REPORT_HTML };

struct rv_report_subsys {
	const char *name;   /* cpu, gpu, mem, net, storage, other */
	double share;       /* 0..1 */
};

struct rv_report_signal {
	const char *name;
	const char *unit;   /* "%", "bytes/s", "" when unknown */
	double share;       /* of the incident's attribution, 0..1; NaN when not a top signal */
	double baseline;    /* baseline mean; NaN when unknown */
	double base_sd;     /* NaN when unknown */
	double value;       /* mean over the incident; NaN when unknown */
	double peak;        /* NaN when unknown */
	double change;      /* (value - baseline) / |baseline|, may be +-INFINITY; NaN unknown */
	double z;           /* NaN when unknown */
	int dir;            /* +1 up, -1 down, 0 not moved / unknown */
	double onset_ts;    /* NaN when unknown */
};

/* The samples of one signal around the incident, for a plot. */
struct rv_report_series {
	const char *name;
	const char *unit;
	size_t n;
	const double *ts;   /* n times, increasing */
	const double *v;    /* n values; NaN: a gap in the line */
	double band_lo, band_hi;  /* the baseline band (mean -+ 3 sd_eff); NaN: none */
	double base_mean;         /* NaN: none */
};

struct rv_report_check {
	const char *cmd;    /* a command to run */
	const char *why;    /* what it shows, or "" */
};

struct rv_report_cause {
	const char *id, *title, *subsystem;
	double confidence;  /* 0..1 */
	const char *cause;  /* why this pattern means that cause (a paragraph) */
	size_t nevidence;
	const char *const *evidence;   /* lines: "net.tcp_retrans_segs up: 0.4/s -> 212/s (z 41)" */
	size_t nchecks;
	const struct rv_report_check *checks;
	const char *fix;
	/* an undecided rule (kb.h): the causes that remain ("a, b, c") and what
	 * would decide between them; "" or NULL for a decided rule */
	const char *undecided, *decided_by;
	/* the rule's calibration (kb.h rv_kb_rule_measured): measured 1 when its
	 * confidence comes from labelled live incidents, first of them */
	int measured;
	unsigned measured_first, measured_right;
	/* decided on the incident's onset (the agent keeps such a cause first
	 * whatever its later explanations match); onset_only: the evidence
	 * of the whole incident no longer shows it (no evidence lines) */
	int onset, onset_only;
};

/* A rule of another subsystem that fired on the incident's evidence too:
 * what happened as well, not why this incident happened (kb.h
 * rv_kb_split). */
struct rv_report_note {
	const char *id, *title, *subsystem;
	double confidence;
};

/* When no rule of the incident's subsystem fired: one of that subsystem's
 * rules, how close it came and what it lacked (kb.h rv_kb_near). */
struct rv_report_near {
	const char *id, *title;
	size_t held, required;            /* required items that held, of all */
	const char *missing;              /* the first required condition that did
					     not hold, or NULL */
	const char *excluded_by;          /* the excluding condition that held, or NULL */
};

/* Whose workload: a process or cgroup that took the incident's resource
 * (the agent's attribution; store.h struct rv_store_consumer). */
struct rv_report_consumer {
	const char *text;       /* "pid 4242 stress-ng in foo.service took 1.90 cores (61 %)" */
	int is_cgroup;
	int pid;                /* 0 for a cgroup */
	const char *comm, *cmd, *cgroup, *label;
	const char *runtime, *container, *pod_uid, *qos, *slurm_job, *unit;
	const char *resource;   /* cpu, memory, io, gpu (amount: SM %) */
	double amount, before, share, pressure, measured_ts;   /* NaN: unknown */
};

/* One step of the cross-layer chain: the first signal of a subsystem to
 * move, in time order. */
struct rv_report_step {
	const char *name;
	const char *subsystem;
	int dir;            /* +1 up, -1 down */
	double onset_ts;
};

/* Another phase of the same cascade: an incident that follows this one. */
struct rv_report_link {
	uint64_t id;
	const char *subsystem;  /* its subsystem; "" or NULL when unknown */
	double offset_s;        /* its start after this incident's start; NaN: unknown */
	int shown;              /* it is in this report too (markdown, HTML: a link to it) */
};

struct rv_report_incident {
	uint64_t id;
	const char *host;           /* "" when unknown */
	double start_ts, end_ts;    /* unix seconds */
	int open;                   /* still open when the report was made */
	size_t windows;             /* flagged windows */
	double peak_score, mean_score;
	const char *severity;       /* minor, major, critical */
	size_t ndetectors;
	const char *const *detectors;  /* names of the detectors that fired */
	size_t nsubsys;
	const struct rv_report_subsys *subsys;   /* largest share first */
	size_t nsignals;
	const struct rv_report_signal *signals;  /* key signals, most responsible first */
	size_t nseries;
	const struct rv_report_series *series;   /* plots, in signal order */
	size_t ncauses;
	const struct rv_report_cause *causes;    /* the onset's first, then highest confidence
						    first; 0: no rule of the incident's
						    subsystem matched */
	size_t nnotes;
	const struct rv_report_note *notes;      /* other subsystems' rules that fired too */
	size_t nnear;
	const struct rv_report_near *near;       /* no cause: its subsystem's rules that came
						    closest, closest first */
	size_t nchain;
	const struct rv_report_step *chain;      /* time order; shown when >= 2 steps */
	const char *note;           /* "" or a sentence (e.g. why there are no plots) */
	/* phases of a cascade (explain/incident.h): shown beside the chain */
	unsigned phase;             /* 1 (0 reads as 1), or 2, 3, ... for a follow-on phase */
	uint64_t follows;           /* the incident this one follows, 0: none */
	const char *follows_subsystem;  /* that incident's subsystem; "" or NULL: unknown */
	int follows_shown;          /* that incident is in this report too */
	size_t nfollowers;
	const struct rv_report_link *followers;  /* the incidents that follow this one */
	size_t nconsumers;
	const struct rv_report_consumer *consumers;  /* whose workload, largest first */
};

struct rv_report {
	const char *title;          /* "reveal incident report" */
	const char *source;         /* "store /var/lib/reveal/agent.db" */
	const char *filters;        /* "" or "since 2026-12-01T00:00:00Z, subsystem net" */
	double generated_ts;        /* unix seconds */
	size_t nincidents;
	const struct rv_report_incident *incidents;  /* oldest first */
	size_t nrules;              /* rules in the knowledge base that was used */
};

/*
 * Writes the report to f in format fmt (one incident per line when
 * summary). Returns 0, -EINVAL (NULL f or r, an unknown format) or -EIO
 * (f's error flag is set afterwards); the caller owns f and flushes it.
 * No incidents is a valid report ("no incidents" in every format).
 */
int rv_report_write(FILE *f, const struct rv_report *r, enum rv_report_format fmt, int summary);

/* "text", "markdown", "json", "html" <-> the format; parse returns -1 for
 * an unknown name. */
const char *rv_report_format_name(enum rv_report_format fmt);
int rv_report_format_parse(const char *name);

/*
 * The change of a signal as people read it, into buf (at least 32 bytes):
 * "+850 %", "-42 %", "+0.3 %", "from 0", "no change"; "?" when unknown.
 */
void rv_report_change_text(double baseline, double value, char *buf, size_t n);

#endif
