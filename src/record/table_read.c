/*
 * table_read.c - reading a table by its file name, one file or several in
 * parallel; see table_read.h.
 */
#include <string.h>

#include "base/parallel.h"
#include "record/csv.h"
#include "record/rvl_table.h"
#include "record/table_read.h"

int rv_table_path_is_rvl(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && strcmp(path + n - 4, ".rvl") == 0;
}

int rv_table_read_path(const char *path, struct rv_table **out, struct rv_err *err)
{
	*out = NULL;
	return rv_table_path_is_rvl(path) ? rv_rvl_read_table(path, out, NULL, err)
					  : rv_csv_read(path, out, err);
}

static int read_jobs(void *ctx, size_t begin, size_t end, unsigned slot)
{
	struct rv_table_job *jobs = ctx;

	(void)slot;
	for (size_t i = begin; i < end; i++) {
		struct rv_table_job *j = &jobs[i];

		rv_err_clear(&j->err);
		j->filled = 0;
		j->rc = rv_table_read_path(j->path, &j->t, &j->err);
		if (!j->rc && j->fill_gaps)
			j->rc = rv_table_fill_gaps(j->t, &j->filled, &j->err);
		if (j->rc) {
			rv_table_free(j->t);
			j->t = NULL;
		}
	}
	return 0;
}

int rv_table_read_many(struct rv_table_job *jobs, size_t n, unsigned threads)
{
	rv_parallel_for(n, threads, read_jobs, jobs);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].rc)
			return jobs[i].rc;
	return 0;
}
