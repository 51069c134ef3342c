/*
 * buf.h - the one growable text buffer of reveal, with a size cap and a
 * sticky failure.
 *
 * The agent builds its /api/v1 JSON and event lines in it, serve/promtext.c
 * its /metrics page. Appends never fail loudly: running out of memory, or
 * past the cap, sets a sticky -ENOMEM, later appends do nothing, and the
 * caller checks rv_buf_failed() once at the end instead of after every
 * write (and never serves a truncated page). rv_buf_reset() empties the
 * buffer but keeps the allocation, so a steady writer allocates nothing
 * once the buffer has reached its working size (the idea of curl's dynbuf).
 * The text is always NUL-terminated once written. Not thread safe.
 */
#ifndef RV_BASE_BUF_H
#define RV_BASE_BUF_H

#include <stddef.h>

enum { RV_BUF_MAX_BYTES = 64 << 20 };   /* default cap, NUL included */

struct rv_buf {
	char *data;      /* the text, NUL-terminated; NULL before the first write */
	size_t len, cap;
	size_t max;      /* cap in bytes, NUL included; may be lowered before writing */
	int failed;      /* 0 or -ENOMEM, sticky until reset */
};

/* Empty buffer capped at max bytes (0: RV_BUF_MAX_BYTES); allocates
 * nothing until the first write. */
void rv_buf_init(struct rv_buf *b, size_t max);

/* Frees the text; b may be NULL. The buffer may be initialised again. */
void rv_buf_fini(struct rv_buf *b);

/* Empties the text and clears a failure; keeps the allocation. */
void rv_buf_reset(struct rv_buf *b);

/* Append n bytes of s / the string s / printf-style text. Return 0 or the
 * sticky -ENOMEM (nothing of this call is then written). */
int rv_buf_put(struct rv_buf *b, const char *s, size_t n);
int rv_buf_puts(struct rv_buf *b, const char *s);
int rv_buf_printf(struct rv_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* 0, or -ENOMEM when a write failed since the last reset. */
int rv_buf_failed(const struct rv_buf *b);

/* The text so far ("" before any write; borrowed, valid until the next
 * write, reset or fini); *len gets its length when len is not NULL. */
const char *rv_buf_text(const struct rv_buf *b, size_t *len);

/* Hands the text to the caller (free() it; "" when nothing was written)
 * and leaves b empty with the same cap. NULL when b failed or out of
 * memory: b is then emptied too. */
char *rv_buf_take(struct rv_buf *b, size_t *len);

/*
 * Text appended into a caller's fixed buffer, snprintf-style: cut to fit,
 * always terminated when cap > 0, and len says what the whole text would
 * have taken (len >= cap: cut). buf may be NULL with cap 0 to measure.
 */
struct rv_text {
	char *buf;
	size_t cap, len;
};

void rv_text_add(struct rv_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
