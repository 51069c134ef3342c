/*
 * sbuf.c - see sbuf.h.
 */
#include "agent/sbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SB_INITIAL = 1024 };

void rv_sb_init(struct rv_sb *b)
{
	memset(b, 0, sizeof(*b));
}

void rv_sb_fini(struct rv_sb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

void rv_sb_reset(struct rv_sb *b)
{
	b->len = 0;
	b->failed = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

static int reserve(struct rv_sb *b, size_t more)
{
	size_t cap = b->cap ? b->cap : SB_INITIAL;
	char *p;

	if (b->failed)
		return -1;
	if (b->len + more + 1 <= b->cap)
		return 0;
	while (cap < b->len + more + 1)
		cap *= 2;
	if (!(p = realloc(b->buf, cap))) {
		b->failed = 1;
		return -1;
	}
	b->buf = p;
	b->cap = cap;
	return 0;
}

void rv_sb_printf(struct rv_sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n) != 0) {
		b->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rv_sb_json_str(struct rv_sb *b, const char *s)
{
	if (!s) {
		rv_sb_printf(b, "null");
		return;
	}
	if (reserve(b, strlen(s) * 6 + 2) != 0)
		return;
	b->buf[b->len++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			b->buf[b->len++] = '\\';
			b->buf[b->len++] = (char)*p;
		} else if (*p < 0x20) {
			b->len += (size_t)snprintf(b->buf + b->len, 7, "\\u%04x", *p);
		} else {
			b->buf[b->len++] = (char)*p;
		}
	}
	b->buf[b->len++] = '"';
	b->buf[b->len] = '\0';
}

void rv_sb_json_num(struct rv_sb *b, double v)
{
	if (!isfinite(v))
		rv_sb_printf(b, "null");
	else if (v == floor(v) && fabs(v) < 1e15)
		rv_sb_printf(b, "%.0f", v);
	else if (fabs(v) >= 1e6)
		rv_sb_printf(b, "%.3f", v);     /* timestamps: milliseconds */
	else
		rv_sb_printf(b, "%.9g", v);
}

char *rv_sb_take(struct rv_sb *b, size_t *len)
{
	char *p = b->buf;

	if (len)
		*len = b->len;
	if (!p && !b->failed && (p = malloc(1)))
		p[0] = '\0';
	memset(b, 0, sizeof(*b));
	return p;
}

int rv_sb_failed(const struct rv_sb *b)
{
	return b->failed;
}
