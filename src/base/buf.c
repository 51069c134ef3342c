/*
 * buf.c - growable text buffer. See buf.h.
 *
 * The allocation doubles from BUF_FIRST_CAP up to the cap, so a page of n
 * bytes costs O(log n) reallocations once and none after a reset.
 */
#include "base/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUF_FIRST_CAP = 4096 };   /* a small page in one go */

void rv_buf_init(struct rv_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max ? max : RV_BUF_MAX_BYTES;
}

void rv_buf_fini(struct rv_buf *b)
{
	if (!b)
		return;
	free(b->data);
	rv_buf_init(b, b->max);
}

void rv_buf_reset(struct rv_buf *b)
{
	b->len = 0;
	b->failed = 0;
	if (b->data)
		b->data[0] = '\0';
}

/* Makes room for n more bytes plus the terminating NUL. */
static int reserve(struct rv_buf *b, size_t n)
{
	size_t want, cap;
	char *nb;

	if (b->failed)
		return b->failed;
	if (n >= b->max || b->len + n + 1 > b->max)
		return b->failed = -ENOMEM;
	want = b->len + n + 1;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : BUF_FIRST_CAP;
	while (cap < want)
		cap *= 2;
	if (cap > b->max)
		cap = b->max;
	nb = realloc(b->data, cap);
	if (!nb)
		return b->failed = -ENOMEM;
	b->data = nb;
	b->cap = cap;
	return 0;
}

int rv_buf_put(struct rv_buf *b, const char *s, size_t n)
{
	int rc = reserve(b, n);

	if (rc < 0)
		return rc;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int rv_buf_puts(struct rv_buf *b, const char *s)
{
	return rv_buf_put(b, s, strlen(s));
}

int rv_buf_printf(struct rv_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return b->failed ? b->failed : (b->failed = -ENOMEM);
	if ((rc = reserve(b, (size_t)n)) < 0)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int rv_buf_failed(const struct rv_buf *b)
{
	return b->failed;
}

const char *rv_buf_text(const struct rv_buf *b, size_t *len)
{
	if (len)
		*len = b->len;
	return b->data ? b->data : "";
}

char *rv_buf_take(struct rv_buf *b, size_t *len)
{
	char *p = b->failed ? NULL : b->data;

	if (b->failed)
		free(b->data);
	else if (!p && (p = malloc(1)))
		p[0] = '\0';
	if (len)
		*len = p ? b->len : 0;
	rv_buf_init(b, b->max);
	return p;
}

void rv_text_add(struct rv_text *t, const char *fmt, ...)
{
	size_t room = t->len < t->cap ? t->cap - t->len : 0;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
	va_end(ap);
	if (k > 0)
		t->len += (size_t)k;
}
