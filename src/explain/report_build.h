/*
 * report_build.h - the incidents of a report (explain/report.h) put
 * together from what an input says of each (struct rv_report_in: a row of
 * the agent's store, or an object of `reveal detect --incidents`), the
 * evidence, the knowledge base's matches and the plot series; the filters
 * of `reveal report`; the offline explanation of an incident from data
 * (explain/details.h, the code the agent runs); the links between the
 * phases of a cascade (report_links.c).
 *
 * Computing only: the caller reads the store, the files and the data
 * (cli/report_build.c, pipeline/report_offline.c). Everything allocated
 * goes into the caller's pool (base/pool.h); names are copied into it.
 */
#ifndef RV_EXPLAIN_REPORT_BUILD_H
#define RV_EXPLAIN_REPORT_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/json.h"
#include "base/pool.h"
#include "base/severity.h"
#include "catalog/catalog.h"
#include "explain/details.h"
#include "explain/evidence.h"
#include "explain/kb.h"
#include "explain/report.h"

enum {
	RV_REPORT_TOP_MAX = 8,         /* top signals an input gives per incident */
	RV_REPORT_DET_MAX = 8,         /* detector names */
	RV_REPORT_KEY_SIGNALS_MAX = RV_REPORT_TOP_MAX + RV_KB_EVIDENCE_MAX,
	RV_REPORT_INCIDENTS_MAX = 100000,   /* incidents one report takes */
};

/* What every input gives about an incident before its explanation. Names
 * are borrowed (from the store's rows or the JSON document). */
struct rv_report_in {
	uint64_t id;
	const char *host;
	double start_ts, end_ts;
	int open;
	size_t windows;
	double peak, mean;
	size_t ndet_names;
	const char *det_name[RV_REPORT_DET_MAX];   /* the detectors that fired */
	size_t nsub;
	struct rv_report_subsys sub[RV_SUB_COUNT];
	size_t ntop;
	const char *top[RV_REPORT_TOP_MAX];
	double top_share[RV_REPORT_TOP_MAX];
	double top_base[RV_REPORT_TOP_MAX], top_value[RV_REPORT_TOP_MAX];
	unsigned phase;               /* 1, or 2, 3, ... for a follow-on phase */
	uint64_t follows;             /* the incident it follows, 0: none */
};

/* The filters of `reveal report` (all must pass). */
struct rv_report_filter {
	double since, until;          /* the incident overlaps [since, until] */
	uint64_t id;                  /* 0: any */
	int min_sev;                  /* enum rv_severity */
	int subsystem;                /* enum rv_subsystem, -1: any; the first or >= 25 % */
};

/* 1 when in passes f, else 0. */
int rv_report_passes(const struct rv_report_filter *f, const struct rv_report_in *in);

/* The index of a subsystem name; RV_SUB_OTHER for an unknown one. */
int rv_report_sub_index(const char *name);

/* "cpu:0.712,mem:0.204" (the store's ranking) into in's subsystems;
 * bad entries are skipped. */
void rv_report_parse_subsystems(const char *text, struct rv_report_in *in);

/* The parts every input shares into r (cleared first): row fields,
 * severity, detectors, subsystems. */
void rv_report_fill_head(struct rv_pool *pl, struct rv_report_incident *r,
			 const struct rv_report_in *in);

/* Key signals: in's top signals (with their entries of ev, which may be
 * NULL), then the likeliest match's evidence not among them. */
void rv_report_fill_signals(struct rv_pool *pl, struct rv_report_incident *r,
			    const struct rv_report_in *in, const struct rv_evidence *ev,
			    const struct rv_kb_match *match, size_t nmatch);

/* A likely cause the agent decided on an incident's onset (the store's
 * role onset). */
struct rv_report_onset {
	const char *id;
	double confidence;
};

/*
 * Signals, likely causes, cross-layer notes and the chain from evidence ev
 * and the knowledge base's matches (ranked, as rv_kb_match wrote them).
 * The matches of a rule of the incident's subsystem (in's first) are its
 * causes, those of another subsystem notes (kb.h rv_kb_split). onset
 * (nonset, may be 0): the causes the agent decided on the incident's
 * onset, shown first in their order, with their stored confidence when
 * the evidence no longer shows them. With no cause and a kb, the
 * subsystem's rules that came closest (rv_kb_near). kb may be NULL.
 */
void rv_report_fill_explained(struct rv_pool *pl, struct rv_report_incident *r,
			      const struct rv_report_in *in, const struct rv_evidence *ev,
			      const struct rv_kb *kb, const struct rv_kb_match *match,
			      size_t nmatch, const struct rv_report_onset *onset, size_t nonset);

/*
 * Whose workload: the n consumers c (borrowed; they must outlive the
 * report) into r, and every likely cause's paragraph with "{consumer}" in
 * it rewritten with the first consumer's text (or "no consumer was
 * measured"): a rule can name the neighbour that took the CPU. Call after
 * rv_report_fill_explained.
 */
void rv_report_set_consumers(struct rv_pool *pl, struct rv_report_incident *r,
			     const struct rv_report_consumer *c, size_t n);

/* A plot series from n samples (ts, v) with the band of its entry of ev
 * (may be NULL), into *out. */
void rv_report_add_series(struct rv_pool *pl, struct rv_report_series *out, const char *name,
			  size_t n, const double *ts, const float *v, const struct rv_evidence *ev);

/*
 * One incident object o of an incidents file (file: its name, for
 * messages) into in; names point into the document. 0, or -EINVAL with
 * "FILE:LINE: reason" in err.
 */
int rv_report_in_from_json(const struct rv_json *o, const char *file, struct rv_report_in *in,
			   struct rv_err *err);

/*
 * The incidents of arr (an incidents file's "incidents") that pass f,
 * explained from the data src with the options o into rep (incidents and
 * nincidents; at most RV_REPORT_INCIDENTS_MAX), their phases linked over
 * all of arr. 0, -ENOMEM, or -EINVAL and the like with the message in err.
 */
int rv_report_offline_incidents(struct rv_pool *pl, const struct rv_report_filter *f,
				const char *file, const struct rv_kb *kb,
				const struct rv_ev_source *src, const struct rv_details_opts *o,
				const struct rv_json *arr, struct rv_report *rep, struct rv_err *err);

/* One incident of the report's data (the store, or the incidents file),
 * whether the filters keep it or not: what the phases of a cascade need. */
struct rv_report_row {
	uint64_t id, follows;
	const char *subsystem;        /* the subsystem the report shows; static text */
	double start_ts;
};

/* The row of in for rv_report_link. */
struct rv_report_row rv_report_row_of(const struct rv_report_in *in);

/*
 * Links the phases of a cascade (report_links.c): for each of the n report
 * incidents in r (their phase and follows set), the subsystem of the
 * incident it follows and whether r holds it, and the incidents of rows
 * (all nrows of the report's data; reordered) that follow it, in start
 * order. 0 or -ENOMEM.
 */
int rv_report_link(struct rv_pool *pl, struct rv_report_row *rows, size_t nrows,
		   struct rv_report_incident *r, size_t n);

#endif
