/*
 * report_int.h - what the files of `reveal report` share (internal to
 * cli/): report_cmd.c parses the options, loads the rules and writes;
 * report_build.c reads the incidents (store, or incidents file and data)
 * and hands them to explain/report_build.h and pipeline/report_offline.h.
 */
#ifndef RV_CLI_REPORT_INT_H
#define RV_CLI_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/pool.h"
#include "explain/kb.h"
#include "explain/report.h"
#include "pipeline/report_offline.h"
#include "store/store.h"

enum {
	RULE_FILES_MAX = 16,
	RULE_FILE_MAX_BYTES = 1 << 20,
	INCIDENTS_FILE_MAX_BYTES = 256 << 20,
};

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

/* What the offline report borrows names from until it is written. */
struct offline_data {
	char *text;                       /* the incidents file */
	struct rv_report_offline built;   /* its document and the data */
};

void rv_cli_offline_free(struct offline_data *od);

/* Reads the file (at most max bytes, NUL added); messages on stderr. */
int rv_cli_report_read_file(const char *path, size_t max, char **text, size_t *len);

/* The incidents that pass a's filters, explained, into rep (0 or a
 * negative errno, with the message already on stderr). The store is opened
 * read-only (rv_store_open_ro): never written, never created. Every
 * incident of the store or the file is read (the filters apply after), so
 * that a report incident can name the phases of its cascade that the
 * filters leave out. */
int rv_cli_report_from_store(struct rv_pool *pl, const struct report_args *a, const struct rv_kb *kb,
		      struct rv_report *rep);
int rv_cli_report_from_offline(struct rv_pool *pl, const struct report_args *a, const struct rv_kb *kb,
			struct rv_report *rep, struct offline_data *od);

#endif
