/*
 * report_int.h - what the files of `reveal report` share (internal to
 * cli/): report_cmd.c parses the options, loads the rules and writes;
 * report_build.c gathers the incidents and explains each; report_links.c
 * links the phases of a cascade.
 */
#ifndef RV_CLI_REPORT_INT_H
#define RV_CLI_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/json.h"
#include "catalog/catalog.h"
#include "explain/kb.h"
#include "explain/report.h"
#include "record/table.h"
#include "store/store.h"

enum {
	RULE_FILES_MAX = 16,
	RULE_FILE_MAX_BYTES = 1 << 20,
	INCIDENTS_MAX = 100000,      /* incidents one report takes */
	KEY_SIGNALS_MAX = RV_STORE_SIG_MAX + RV_KB_EVIDENCE_MAX,
	DEFAULT_WINDOW = 5,          /* samples, when the incidents file does not say */
};

/* Everything allocated for one report, freed together. */
struct pool {
	void **p;
	size_t n, cap;
	int oom;
};

void *pool_keep(struct pool *pl, void *p);   /* takes p (frees it when it cannot) */
void *pool_zalloc(struct pool *pl, size_t n, size_t size);
const char *pool_str(struct pool *pl, const char *s);
const char *pool_printf(struct pool *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pool_free(struct pool *pl);

struct report_args {
	const char *store, *incidents, *data, *out;
	int format;                 /* -1: not given */
	const char *rules[RULE_FILES_MAX];
	size_t nrules;
	double since, until;
	const char *since_text, *until_text;
	int subsystem;              /* -1: any */
	int min_sev;
	uint64_t id;                /* 0: any */
	int summary, check_rules, list_rules, print_builtin;
	double window_s;            /* NaN: not given */
	size_t window_n;            /* samples, 0: not given */
};

/* What every input gives about an incident before its explanation. */
struct inc_in {
	uint64_t id;
	const char *host;
	double start_ts, end_ts;
	int open;
	size_t windows;
	double peak, mean;
	unsigned detectors;           /* bits (store) */
	size_t ndet_names;
	const char *det_name[8];      /* names (incidents JSON) */
	size_t nsub;
	struct rv_report_subsys sub[RV_SUB_COUNT];
	size_t ntop;
	const char *top[RV_STORE_SIG_MAX];
	double top_share[RV_STORE_SIG_MAX];
	double top_base[RV_STORE_SIG_MAX], top_value[RV_STORE_SIG_MAX];
	unsigned phase;               /* 1, or 2, 3, ... for a follow-on phase */
	uint64_t follows;             /* the incident it follows, 0: none */
};

/* One incident of the report's data (the store, or the incidents file),
 * whether the filters keep it or not: what the phases of a cascade need. */
struct report_row {
	uint64_t id, follows;
	const char *subsystem;        /* the subsystem the report shows; static text */
	double start_ts;
};

/* What the offline report borrows names from until it is written. */
struct offline_data {
	char *text;
	struct rv_json_doc *doc;
	struct rv_table *t;
	double *rowts;
};

void offline_free(struct offline_data *od);

/* Reads the file (at most max bytes, NUL added); messages on stderr. */
int report_read_file(const char *path, size_t max, char **text, size_t *len);

/* The incidents that pass a's filters, explained, into rep (0 or a
 * negative errno, with the message already on stderr). The store is opened
 * read-only (rv_store_open_ro): never written, never created. Every
 * incident of the store or the file is read (the filters apply after), so
 * that a report incident can name the phases of its cascade that the
 * filters leave out. */
int report_from_store(struct pool *pl, const struct report_args *a, const struct rv_kb *kb,
		      struct rv_report *rep);
int report_from_offline(struct pool *pl, const struct report_args *a, const struct rv_kb *kb,
			struct rv_report *rep, struct offline_data *od);

/*
 * Links the phases of a cascade (report_links.c): for each of the n report
 * incidents in r (their phase and follows set), the subsystem of the
 * incident it follows and whether r holds it, and the incidents of rows
 * (all nrows of the report's data; reordered) that follow it, in start
 * order. 0 or -ENOMEM.
 */
int report_link(struct pool *pl, struct report_row *rows, size_t nrows,
		struct rv_report_incident *r, size_t n);

#endif
