/*
 * window_csv.c - the per-window CSV writer of `reveal detect`
 * (window_csv.h): columns follow the detector table.
 */
#include "pipeline/window_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmtnum.h"
#include "catalog/catalog.h"
#include "detect/detector.h"
#include "detect/ensemble.h"

/* Bytes of a row besides the channel names and the detector columns: the
 * timestamp, the fused score, the subsystem, separators (generous). */
enum { CSV_FIXED_MAX = 12 * RV_FMT_MAX };

struct rv_window_csv {
	FILE *f;
	const struct rv_model *m;
	size_t *name_len;        /* strlen of each channel name */
	char *line;              /* one output row, sized for every name */
};

int rv_window_csv_new(FILE *f, const struct rv_model *m, struct rv_window_csv **out)
{
	struct rv_window_csv *w = calloc(1, sizeof(*w));
	size_t total = CSV_FIXED_MAX + (size_t)rv_det_count() * (RV_FMT_MAX + 3);

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->f = f;
	w->m = m;
	w->name_len = malloc((m->nchan ? m->nchan : 1) * sizeof(*w->name_len));
	if (!w->name_len) {
		rv_window_csv_free(w);
		return -ENOMEM;
	}
	for (size_t c = 0; c < m->nchan; c++)
		total += (w->name_len[c] = strlen(m->names[c])) + 1;
	if (!(w->line = malloc(total))) {
		rv_window_csv_free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

void rv_window_csv_free(struct rv_window_csv *w)
{
	if (!w)
		return;
	free(w->name_len);
	free(w->line);
	free(w);
}

/* The flag columns of the paper's detectors (paper 1) or the others. */
static void header_flags(FILE *f, int paper)
{
	for (int d = 0; d < rv_det_count(); d++)
		if (rv_det_ops(d)->paper == paper)
			fprintf(f, ",%s", rv_det_name(d));
}

int rv_window_csv_header(struct rv_window_csv *w)
{
	fputs("timestamp,anomaly,score", w->f);
	header_flags(w->f, 1);
	fputs(",top_metrics,subsystem", w->f);
	header_flags(w->f, 0);
	for (int d = 0; d < rv_det_count(); d++)
		fprintf(w->f, ",%s_score", rv_det_name(d));
	return fputc('\n', w->f) == EOF ? -EIO : 0;
}

/* Appends text to the row at *n. */
static void put(char *line, size_t *n, const char *text, size_t len)
{
	memcpy(line + *n, text, len);
	*n += len;
}

static void row_flags(char *line, size_t *n, unsigned flags, int paper)
{
	for (int d = 0; d < rv_det_count(); d++)
		if (rv_det_ops(d)->paper == paper)
			put(line, n, (flags >> d) & 1u ? ",1" : ",0", 2);
}

/*
 * One row per window. This runs once per window on the serial path, so the
 * row is assembled in a buffer (no printf, one write per row): the float
 * formatting of printf and per-call stream locking were a tenth of a run.
 */
int rv_window_csv_row(void *ctx, const struct rv_window_out *w)
{
	struct rv_window_csv *s = ctx;
	const struct rv_ens_result *r = w->res;
	const char *sub = w->nrank ? rv_subsystem_name(w->subsystem) : "";
	char *line = s->line;
	size_t n = 0;

	n += rv_fmt_g15(w->ts, line + n);
	put(line, &n, r->anomaly ? ",1," : ",0,", 3);
	n += rv_fmt_g6(r->fused, line + n);
	row_flags(line, &n, r->flags, 1);
	line[n++] = ',';
	for (size_t i = 0; i < w->nrank; i++) {
		if (i)
			line[n++] = ';';
		put(line, &n, s->m->names[w->rank[i]], s->name_len[w->rank[i]]);
	}
	line[n++] = ',';
	put(line, &n, sub, strlen(sub));
	row_flags(line, &n, r->flags, 0);
	for (int d = 0; d < rv_det_count(); d++) {
		line[n++] = ',';
		n += rv_fmt_g6(r->ratio[d], line + n);
	}
	line[n++] = '\n';
	return fwrite_unlocked(line, 1, n, s->f) == n ? 0 : -EIO;
}
