/*
 * json_write.c - the one JSON string writer (declared in base/json.h), to
 * a FILE stream or into a struct rv_buf, and the agent's JSON numbers.
 *
 * Strings are escaped per RFC 8259: '"', '\\' and the control characters
 * (\n, \r, \t, the others as \u00XX); valid UTF-8 passes as is and a byte
 * that starts no valid sequence becomes \ufffd, so the text written is
 * valid JSON in valid UTF-8 whatever it was given. One escaper feeds both
 * destinations through a small put callback, so they cannot drift apart.
 */
#include "base/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"

enum {
	JSON_FIRST_PRINTABLE = 0x20,
	JSON_U_ESC_LEN = 6,             /* \u00XX */
};
static const double JSON_INT_MAX = 1e15;   /* integral values below: no point */
static const double JSON_TS_MIN = 1e6;     /* from here (timestamps): 3 decimals */

typedef void json_put_fn(void *ctx, const char *s, size_t n);

/* The escape of the byte c that starts a sequence of len bytes (0:
 * invalid) into esc[JSON_U_ESC_LEN + 1], or NULL when it passes as is. */
static const char *escape(unsigned char c, size_t len, char *esc)
{
	if (len == 0)
		return "\\ufffd";
	switch (c) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\n': return "\\n";
	case '\t': return "\\t";
	case '\r': return "\\r";
	default: break;
	}
	if (c >= JSON_FIRST_PRINTABLE)
		return NULL;
	snprintf(esc, JSON_U_ESC_LEN + 1, "\\u%04x", (unsigned)c);
	return esc;
}

/* Writes s quoted and escaped through put, in runs of unescaped bytes. */
static void json_escape(const char *s, json_put_fn *put, void *ctx)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char ubuf[JSON_U_ESC_LEN + 1];

	if (!s) {
		put(ctx, "null", 4);
		return;
	}
	put(ctx, "\"", 1);
	while (*p) {
		size_t len = rv_utf8_len(p);
		const char *esc = escape(*p, len, ubuf);

		if (!esc) {
			p += len;
			continue;
		}
		put(ctx, (const char *)run, (size_t)(p - run));
		put(ctx, esc, strlen(esc));
		p += len ? len : 1;
		run = p;
	}
	put(ctx, (const char *)run, (size_t)(p - run));
	put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

static void put_buf(void *ctx, const char *s, size_t n)
{
	rv_buf_put(ctx, s, n);
}

void rv_json_fput_str(FILE *f, const char *s)
{
	json_escape(s, put_file, f);
}

int rv_json_buf_str(struct rv_buf *b, const char *s)
{
	json_escape(s, put_buf, b);
	return rv_buf_failed(b);
}

int rv_json_buf_num(struct rv_buf *b, double v)
{
	if (!isfinite(v))
		return rv_buf_puts(b, "null");
	if (v == floor(v) && fabs(v) < JSON_INT_MAX)
		return rv_buf_printf(b, "%.0f", v);
	if (fabs(v) >= JSON_TS_MIN)
		return rv_buf_printf(b, "%.3f", v);
	return rv_buf_printf(b, "%.9g", v);
}
