/*
 * csvwrite.c - see csvwrite.h.
 */
#include "record/csvwrite.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int rv_csv_write(const struct rv_table *t, const char *path, struct rv_err *err)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return rv_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (t->ts)
		fputs("timestamp", f);
	for (size_t c = 0; c < t->ncols; c++)
		fprintf(f, "%s%s", (c || t->ts) ? "," : "", t->names[c]);
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++) {
		if (t->ts)
			fprintf(f, "%.15g", t->ts[r]);
		for (size_t c = 0; c < t->ncols; c++) {
			float v = rv_table_at(t, c, r);
			if ((c || t->ts) && fputc(',', f) == EOF)
				break;
			if (!isnan(v))
				fprintf(f, "%.9g", (double)v);
		}
		fputc('\n', f);
	}
	if (ferror(f) | (fclose(f) != 0))
		return rv_err_set(err, -EIO, "%s: write failed", path);
	return 0;
}
