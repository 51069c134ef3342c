/*
 * report_offline.h - the incidents of `reveal report --incidents FILE
 * --data DATA`: the incidents file's JSON and the data it was detected on
 * (CSV, CSV.gz or .rvl: record/table_read.h) become the report's
 * incidents, each explained from the data with explain/details.h as the
 * agent does (explain/report_build.h). The detector window is the one
 * given, else the file's, else 5 samples; the baseline and plot margins
 * scale with the data's median step.
 */
#ifndef RV_PIPELINE_REPORT_OFFLINE_H
#define RV_PIPELINE_REPORT_OFFLINE_H

#include <stddef.h>

#include "base/err.h"
#include "base/json.h"
#include "base/pool.h"
#include "explain/kb.h"
#include "explain/report.h"
#include "explain/report_build.h"
#include "record/table.h"

enum { RV_REPORT_DEFAULT_WINDOW = 5 };   /* samples, when the file does not say */

/* What the report borrows names from until it is written. */
struct rv_report_offline {
	struct rv_json_doc *doc;
	struct rv_table *t;
};

/*
 * Parses the incidents file's text (len bytes, named file), reads the
 * data file and puts the incidents that pass f, explained with kb, into
 * rep (incidents, nincidents, source). window_s (seconds; NaN or <= 0: not
 * given) or window_n (samples; 0: not given) overrides the file's window.
 * od keeps the document and the table (free with rv_report_offline_free,
 * after the report is written), also on failure. 0, -ENOMEM, or a negative
 * errno with the message ("FILE:LINE:COL: reason", "FILE: reason") in err.
 */
int rv_report_offline_build(struct rv_pool *pl, const struct rv_report_filter *f,
			    const struct rv_kb *kb, const char *file, const char *text, size_t len,
			    const char *data, double window_s, size_t window_n,
			    struct rv_report *rep, struct rv_report_offline *od, struct rv_err *err);

/* Frees what od holds and zeroes it. */
void rv_report_offline_free(struct rv_report_offline *od);

#endif
