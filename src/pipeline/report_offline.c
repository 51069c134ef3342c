/*
 * report_offline.c - an incidents file with its data as the incidents of
 * a report; see report_offline.h. (Moved from cli/report_build.c.)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "explain/details.h"
#include "pipeline/report_offline.h"
#include "record/table_read.h"

static float table_get(const void *ctx, size_t row, size_t chan)
{
	const struct rv_table *t = ctx;
	return rv_table_at(t, chan, row);
}

/* The detector window in seconds and the pace of the data into o: a
 * baseline and plot margin of as many samples as 2 minutes and 1 minute
 * at 1 s, whatever the data's pace. */
static struct rv_details_opts details_opts(const struct rv_ev_source *src,
					   const struct rv_json *root, double window_s,
					   size_t window_n)
{
	double step = rv_median_step(src->ts, src->nrows);
	size_t window;
	struct rv_details_opts o;

	if (!(step > 0))  /* too few rows, or no forward step: 1 (a sample a second) */
		step = 1;
	window = window_n ? window_n
			  : (size_t)rv_json_num(rv_json_get(root, "window"), RV_REPORT_DEFAULT_WINDOW);
	o = rv_details_defaults(isfinite(window_s) && window_s > 0 ? window_s
								  : (double)window * step);
	if (step > 1) {
		o.base_s = 120 * step;
		o.pre_s = 60 * step;
		o.post_s = 15 * step;
	}
	return o;
}

int rv_report_offline_build(struct rv_pool *pl, const struct rv_report_filter *f,
			    const struct rv_kb *kb, const char *file, const char *text, size_t len,
			    const char *data, double window_s, size_t window_n,
			    struct rv_report *rep, struct rv_report_offline *od, struct rv_err *err)
{
	const struct rv_json *root, *arr;
	struct rv_ev_source src = { 0 };
	struct rv_details_opts o;
	double *rowts = NULL;
	int rc;

	memset(od, 0, sizeof(*od));
	if ((rc = rv_json_parse(text, len, file, &od->doc, err)) != 0)
		return rc;
	root = rv_json_root(od->doc);
	arr = rv_json_get(root, "incidents");
	if (!arr || rv_json_type(arr) != RV_JSON_ARRAY)
		return rv_err_set(err, -EINVAL, "%s: not an incidents file of `reveal detect"
				  " --incidents` (no \"incidents\" array)", file);
	if ((rc = rv_table_read_path(data, &od->t, err)) != 0)
		return rc;
	if (!od->t->ts) {  /* no timestamp column: detect numbers the rows */
		rowts = malloc((od->t->nrows ? od->t->nrows : 1) * sizeof(*rowts));
		if (!rowts)
			return -ENOMEM;
		for (size_t i = 0; i < od->t->nrows; i++)
			rowts[i] = (double)i;
	}
	src.nrows = od->t->nrows;
	src.nchan = od->t->ncols;
	src.ts = od->t->ts ? od->t->ts : rowts;
	src.names = (const char *const *)od->t->names;
	src.get = table_get;
	src.ctx = od->t;
	o = details_opts(&src, root, window_s, window_n);
	rc = rv_report_offline_incidents(pl, f, file, kb, &src, &o, arr, rep, err);
	rep->source = rv_pool_printf(pl, "incidents %s with data %s", file, data);
	free(rowts);
	return rc;
}

void rv_report_offline_free(struct rv_report_offline *od)
{
	rv_json_doc_free(od->doc);
	rv_table_free(od->t);
	memset(od, 0, sizeof(*od));
}
