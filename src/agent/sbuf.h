/*
 * sbuf.h - a growable text buffer for the agent's JSON and log lines.
 *
 * Appends never fail loudly: out of memory (or past max) sets a sticky
 * flag, and the caller checks rv_sb_failed once at the end.
 */
#ifndef RV_AGENT_SBUF_H
#define RV_AGENT_SBUF_H

#include <stddef.h>

struct rv_sb {
	char *buf;
	size_t len, cap;
	int failed;
};

void rv_sb_init(struct rv_sb *b);
void rv_sb_fini(struct rv_sb *b);
void rv_sb_reset(struct rv_sb *b);
void rv_sb_printf(struct rv_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string, quoted and escaped. */
void rv_sb_json_str(struct rv_sb *b, const char *s);
/* v as a JSON number (%.6g or integer-like), or null when not finite. */
void rv_sb_json_num(struct rv_sb *b, double v);
/* Hands the buffer to the caller (free() it) and leaves b empty. */
char *rv_sb_take(struct rv_sb *b, size_t *len);
int rv_sb_failed(const struct rv_sb *b);

#endif
