/*
 * sysval.c - see sysval.h.
 */
#include "collect/sysval.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strparse.h"
#include "collect/readcost.h"

/* An attribute of one number is a few dozen bytes; more is not one. */
enum { SYSVAL_BUF = 128, IB_STATE_ACTIVE = 4, MAX_ENTRIES = 1024 };

void rv_sysvals_init(struct rv_sysvals *s, const struct rv_chanlist *chans)
{
	memset(s, 0, sizeof(*s));
	s->base = chans->n;
}

static int grow(struct rv_sysvals *s)
{
	size_t cap = s->cap ? 2 * s->cap : 16;
	int *fd = realloc(s->fd, cap * sizeof(*fd));

	if (!fd)
		return -ENOMEM;
	s->fd = fd;
	uint8_t *fmt = realloc(s->fmt, cap * sizeof(*fmt));
	if (!fmt)
		return -ENOMEM;
	s->fmt = fmt;
	uint32_t *slot = realloc(s->slot, cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	s->slot = slot;
	s->cap = cap;
	return 0;
}

int rv_sysvals_add(struct rv_sysvals *s, struct rv_chanlist *chans, const char *path,
		   enum rv_sysval_fmt fmt, const char *type, const char *inst, double scale,
		   struct rv_err *err)
{
	size_t slot = chans->n - s->base;
	int fd, rc;

	if (s->n == s->cap && grow(s))
		return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rv_err_set(err, -errno, "%s: %s", path, strerror(errno));
	rc = rv_chanlist_add(chans, type, inst, scale, err);
	if (rc) {
		close(fd);
		return rc;
	}
	s->fd[s->n] = fd;
	s->fmt[s->n] = (uint8_t)fmt;
	s->slot[s->n] = (uint32_t)slot;
	s->n++;
	return 0;
}

int rv_sysvals_new(const struct rv_chanlist *chans, struct rv_sysvals **out)
{
	*out = malloc(sizeof(**out));
	if (!*out)
		return -ENOMEM;
	rv_sysvals_init(*out, chans);
	return 0;
}

void rv_sysvals_sample_src(void *state, double *raw, uint8_t *valid)
{
	rv_sysvals_sample(state, raw, valid);
}

void rv_sysvals_free(void *state)
{
	if (!state)
		return;
	rv_sysvals_fini(state);
	free(state);
}

int rv_sysvals_taken(const struct rv_sysvals *s, const struct rv_chanlist *chans,
		     const char *type, const char *inst)
{
	char name[RV_CHAN_NAME_MAX];

	snprintf(name, sizeof(name), "%s:%s", type, inst);
	for (size_t i = s->base; i < chans->n; i++)
		if (strcmp(chans->v[i].name, name) == 0)
			return 1;
	return 0;
}

int rv_sysval_path(char *buf, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, RV_SYSVAL_PATH_MAX, fmt, ap);
	va_end(ap);
	return len < 0 || len >= RV_SYSVAL_PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Only blanks and newlines in [p, end). */
static int only_space(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\n')
			return 0;
	return 1;
}

int rv_sysval_parse(const char *s, size_t len, enum rv_sysval_fmt fmt, double *out)
{
	const char *p = s, *end = s + len;
	uint64_t u;
	int64_t i;
	double d;
	int rc;

	rv_str_skip_blank(&p, end);
	switch (fmt) {
	case RV_SYSVAL_U64:
		rc = rv_str_u64(&p, end, &u);
		d = (double)u;
		break;
	case RV_SYSVAL_I64:
	case RV_SYSVAL_NONNEG:
		rc = rv_str_i64(&p, end, &i);
		d = (double)i;
		if (!rc && fmt == RV_SYSVAL_NONNEG && i < 0)
			rc = -EINVAL;
		break;
	case RV_SYSVAL_LEAD:
		rc = rv_str_double(&p, end, &d);
		p = end;
		break;
	case RV_SYSVAL_IBSTATE:
		rc = rv_str_u64(&p, end, &u);
		d = u == IB_STATE_ACTIVE;
		if (!rc && (p == end || *p != ':'))
			rc = -EINVAL;
		p = end;
		break;
	default:
		return -EINVAL;
	}
	if (rc)
		return rc;
	if (!only_space(p, end))
		return -EINVAL;
	*out = d;
	return 0;
}

void rv_sysvals_sample(const struct rv_sysvals *s, double *raw, uint8_t *valid)
{
	char buf[SYSVAL_BUF];

	for (size_t k = 0; k < s->n; k++) {
		ssize_t got;
		double v;

		got = rv_pread(s->fd[k], buf, sizeof(buf), 0);
		if (got <= 0 || (size_t)got == sizeof(buf))
			continue;       /* vanished, empty or not one number */
		if (rv_sysval_parse(buf, (size_t)got, (enum rv_sysval_fmt)s->fmt[k], &v) == 0) {
			raw[s->slot[k]] = v;
			valid[s->slot[k]] = 1;
		}
	}
}

void rv_sysvals_fini(struct rv_sysvals *s)
{
	for (size_t k = 0; k < s->n; k++)
		close(s->fd[k]);
	free(s->fd);
	free(s->fmt);
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

int rv_sysval_text(const char *path, char *buf, size_t cap, struct rv_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return rv_err_set(err, -errno, "%s: %s", path, strerror(errno));
	got = read(fd, buf, cap - 1);
	if (got < 0) {
		int rc = -errno;

		close(fd);
		return rv_err_set(err, rc, "%s: %s", path, strerror(-rc));
	}
	close(fd);
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = '\0';
	if (got == 0)
		return rv_err_set(err, -EINVAL, "%s: empty", path);
	return 0;
}

void rv_sysval_sanitize(char *s)
{
	for (; *s; s++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		*s = ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) ? c : '_';
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* N when name is prefix + N + suffix; -1 otherwise. */
static long match_id(const char *name, const char *prefix, const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix), nl = strlen(name);
	const char *p = name + pl, *end;
	uint64_t id;

	if (nl <= pl + sl || strncmp(name, prefix, pl) != 0 || strcmp(name + nl - sl, suffix) != 0)
		return -1;
	end = name + nl - sl;
	if (*p < '0' || *p > '9' || rv_str_u64(&p, end, &id) || p != end || id > UINT32_MAX)
		return -1;
	return (long)id;
}

int rv_sysval_scan_ids(const char *dir, const char *prefix, const char *suffix,
		       uint32_t *ids, size_t max, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d)) && *n < max) {
		long id = match_id(e->d_name, prefix, suffix);

		if (id >= 0)
			ids[(*n)++] = (uint32_t)id;
	}
	closedir(d);
	qsort(ids, *n, sizeof(*ids), cmp_u32);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int rv_sysval_scan_names(const char *dir, char (*names)[RV_SYSVAL_NAME_MAX], size_t max,
			 size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d)) && *n < max) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || len >= RV_SYSVAL_NAME_MAX)
			continue;
		memcpy(names[*n], e->d_name, len + 1);
		(*n)++;
	}
	closedir(d);
	qsort(names, *n, sizeof(*names), cmp_name);
	return 0;
}

int rv_sysvals_add_attrs(struct rv_sysvals *s, struct rv_chanlist *chans, const char *dir,
			 const struct rv_sysattr *attrs, size_t n, const char *inst,
			 struct rv_err *err)
{
	char path[RV_SYSVAL_PATH_MAX];

	for (size_t a = 0; a < n; a++) {
		struct rv_err e = { 0 };
		int rc;

		if (rv_sysval_path(path, "%s/%s", dir, attrs[a].file))
			continue;
		rc = rv_sysvals_add(s, chans, path, attrs[a].fmt, attrs[a].type, inst,
				    attrs[a].scale, &e);
		if (rc == -ENOENT || rc == -ENOTDIR || rc == -EACCES)
			continue;       /* not this device's, or not a device */
		if (rc)
			return rv_err_set(err, rc, "%s", e.msg);
	}
	return 0;
}

int rv_sysvals_open_each(const struct rv_collect_cfg *cfg, const char *rel, const char *none,
			 int (*add)(struct rv_sysvals *sv, struct rv_chanlist *chans,
				    const char *dir, const char *name, struct rv_err *err),
			 void **state, struct rv_chanlist *chans, struct rv_err *err)
{
	struct rv_sysvals *sv = NULL;
	char (*names)[RV_SYSVAL_NAME_MAX] = malloc(MAX_ENTRIES * sizeof(*names));
	char dir[RV_SYSVAL_PATH_MAX];
	size_t n = 0;
	int rc = 0;

	if (rv_sysvals_new(chans, &sv) != 0 || !names) {
		rc = rv_err_set(err, -ENOMEM, "%s%s: out of memory", cfg->root, rel);
		goto out;
	}
	if (rv_sysval_path(dir, "%s%s", cfg->root, rel)) {
		rc = rv_err_set(err, -ENAMETOOLONG, "%s: path too long", cfg->root);
		goto out;
	}
	rc = rv_sysval_scan_names(dir, names, MAX_ENTRIES, &n);
	if (rc) {
		rv_err_set(err, rc, "%s: %s (%s)", dir, rv_strerror(rc), none);
		goto out;
	}
	for (size_t i = 0; !rc && i < n; i++)
		rc = add(sv, chans, dir, names[i], err);
	if (!rc && sv->n == 0)
		rc = rv_err_set(err, -ENOENT, "%s: %s", dir, none);
out:
	free(names);
	if (rc) {
		rv_sysvals_free(sv);
		return rc;
	}
	*state = sv;
	return 0;
}
