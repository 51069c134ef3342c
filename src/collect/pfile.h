/*
 * pfile.h - a procfs/sysfs file kept open and reread whole with pread at
 * offset 0 into a buffer sized when it was opened: the sampling path
 * neither opens, allocates nor seeks.
 */
#ifndef RV_COLLECT_PFILE_H
#define RV_COLLECT_PFILE_H

#include <stddef.h>

#include "base/err.h"

struct rv_pfile {
	int fd;
	char *buf;              /* cap + 1 bytes; text NUL-terminated */
	size_t cap;
	size_t len;             /* bytes of the last read */
	char path[256];         /* for messages */
};

/*
 * Opens root + rel ("/proc/stat" under root "" or a fixture directory) and
 * reads it once, growing the buffer until the whole file fits (with room
 * to spare for growth of a few lines). -ENOENT, -EACCES, ... with the path
 * in err.
 */
int rv_pfile_open(struct rv_pfile *f, const char *root, const char *rel, struct rv_err *err);

/* Rereads the file: its length, or a negative errno. A file that no longer
 * fits the buffer is cut at cap bytes and -EOVERFLOW is returned (the
 * caller treats the sample as invalid). */
long rv_pfile_read(struct rv_pfile *f);

void rv_pfile_close(struct rv_pfile *f);

#endif
