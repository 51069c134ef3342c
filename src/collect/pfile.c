/*
 * pfile.c - see pfile.h.
 */
#include "collect/pfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/readcost.h"

struct rv_read_cost rv_read_cost;
enum { PFILE_START = 4096, PFILE_MAX = 16 << 20 };

long rv_pfile_read(struct rv_pfile *f)
{
	ssize_t got;

	got = rv_pread(f->fd, f->buf, f->cap, 0);
	if (got < 0) {
		f->len = 0;
		f->buf[0] = '\0';
		return -errno;
	}
	f->len = (size_t)got;
	f->buf[f->len] = '\0';
	return f->len == f->cap ? -EOVERFLOW : (long)f->len;
}

int rv_pfile_open(struct rv_pfile *f, const char *root, const char *rel, struct rv_err *err)
{
	long got;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (snprintf(f->path, sizeof(f->path), "%s%s", root ? root : "", rel) >= (int)sizeof(f->path))
		return rv_err_set(err, -ENAMETOOLONG, "%s%s: path too long", root, rel);
	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return rv_err_set(err, -errno, "%s: %s", f->path, strerror(errno));
	for (f->cap = PFILE_START;; f->cap *= 2) {
		char *b = realloc(f->buf, f->cap + 1);

		if (!b) {
			rv_pfile_close(f);
			return rv_err_set(err, -ENOMEM, "%s: out of memory", f->path);
		}
		f->buf = b;
		got = rv_pfile_read(f);
		if (got >= 0 && f->len * 2 <= f->cap)
			return 0;       /* fits, with room for the file to grow */
		if (got < 0 && got != -EOVERFLOW) {
			int rc = (int)got;

			rv_pfile_close(f);
			return rv_err_set(err, rc, "%s: %s", f->path, strerror(-rc));
		}
		if (f->cap >= PFILE_MAX) {
			rv_pfile_close(f);
			return rv_err_set(err, -EFBIG, "%s: larger than %d bytes", f->path, PFILE_MAX);
		}
	}
}

void rv_pfile_close(struct rv_pfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
	f->fd = -1;
	f->buf = NULL;
	f->cap = f->len = 0;
}
