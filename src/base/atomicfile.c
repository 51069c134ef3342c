/*
 * atomicfile.c - PATH.tmp.PID renamed over PATH when complete; see
 * atomicfile.h. (ext4 also does not stall the close flushing a
 * truncated-and-rewritten file, which it does when PATH is rewritten in
 * place.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/atomicfile.h"

int rv_atomicfile_open(struct rv_atomicfile *af, const char *path, const char *mode,
		       struct rv_err *err)
{
	struct stat st;

	memset(af, 0, sizeof(*af));
	af->path = path;
	if (!(stat(path, &st) == 0 && !S_ISREG(st.st_mode)) &&
	    asprintf(&af->tmp, "%s.tmp.%d", path, (int)getpid()) >= 0) {
		af->f = fopen(af->tmp, mode);
		if (af->f)
			return 0;
		free(af->tmp);
	}
	af->tmp = NULL;
	af->f = fopen(path, mode);
	if (!af->f) {
		int e = errno;
		return rv_err_set(err, -e, "%s: %s", path, strerror(e));
	}
	return 0;
}

int rv_atomicfile_close(struct rv_atomicfile *af, int rc, struct rv_err *err)
{
	if (!af->f)
		return rc;
	if ((ferror(af->f) | fclose(af->f)) != 0 && !rc)
		rc = rv_err_set(err, -EIO, "%s: write failed", af->path);
	af->f = NULL;
	if (af->tmp) {
		if (!rc && rename(af->tmp, af->path) != 0) {
			int e = errno;
			rc = rv_err_set(err, -e, "%s: %s", af->path, strerror(e));
		}
		if (rc)
			unlink(af->tmp);
		free(af->tmp);
		af->tmp = NULL;
	}
	return rc;
}
