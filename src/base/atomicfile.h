/*
 * atomicfile.h - writing a file whole or not at all.
 *
 * A regular file (or one not there yet) is written as PATH.tmp.PID and
 * renamed over PATH when complete, so a failed or interrupted run never
 * leaves a half-written file under the real name, and a reader sees the old
 * file or the new one. Anything else (a pipe, /dev/null, a character
 * device) is written in place; so is PATH when PATH.tmp.PID cannot be
 * created (a folder the user may not write, holding a file they may).
 * Named atomicfile, not atomic, so that it is not taken for C11 atomics.
 * Callers: detect's outputs (cli/detect_cmd.c), the report
 * (cli/report_cmd.c), the model file (pipeline/modelfile.c), the run
 * facts (pipeline/runinfo.c).
 */
#ifndef RV_BASE_ATOMICFILE_H
#define RV_BASE_ATOMICFILE_H

#include <stdio.h>

#include "base/err.h"

struct rv_atomicfile {
	FILE *f;            /* write here between open and close */
	char *tmp;          /* PATH.tmp.PID, or NULL when written in place */
	const char *path;   /* borrowed from the caller until close */
};

/*
 * Opens path for writing ("w" or "wb" in mode) into af. 0, or a negative
 * errno with "PATH: reason" in err; af->f is NULL then and close is a
 * no-op. path must outlive the close.
 */
int rv_atomicfile_open(struct rv_atomicfile *af, const char *path, const char *mode,
		       struct rv_err *err);

/*
 * Closes the file. With rc == 0 (the caller's writes succeeded) it checks
 * the stream and renames the temporary file over the path; with rc != 0,
 * or when closing or renaming fails, the temporary file is removed and the
 * old file at path (if any) stays as it was. Returns rc when non-zero,
 * else 0 or a negative errno with "PATH: write failed" or "PATH: reason"
 * in err. Frees what open allocated; af may be closed once.
 */
int rv_atomicfile_close(struct rv_atomicfile *af, int rc, struct rv_err *err);

#endif
