/*
 * promtext.h - a writer of the Prometheus text exposition format 0.0.4.
 *
 * The agent renders its /metrics page with it: one family header (# HELP,
 * # TYPE) per metric, then that family's samples. The writer owns one
 * growable byte buffer (base/buf.h); rv_prom_reset() empties it but keeps
 * the memory, so a steady scrape allocates nothing once the buffer has
 * reached the page's size. Running out of memory (or past the page limit)
 * is sticky: later writes do nothing and rv_prom_failed() tells, instead of a crash or a
 * silently truncated page. Timestamps are not written (Prometheus stamps
 * samples with the scrape time). Not thread safe: one writer per thread, or
 * a lock around it.
 *
 * Callers: agent/ (the /metrics route). Non-goals: parsing, OpenMetrics.
 */
#ifndef RV_SERVE_PROMTEXT_H
#define RV_SERVE_PROMTEXT_H

#include <stddef.h>

#include "base/buf.h"

/* The Content-Type of a page written by this module. */
#define RV_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

enum {
	RV_PROM_MAX_BYTES = 64 << 20,   /* default page limit (-ENOMEM past it) */
	RV_PROM_VALUE_MAX = 32,         /* buffer size for rv_prom_fmt_value */
};

/* One family header already written: its name's place in buf. */
struct rv_prom_fam {
	size_t off, len;
};

struct rv_promtext {
	struct rv_buf page;        /* the page; page.max is RV_PROM_MAX_BYTES after init */
	struct rv_prom_fam *fams;  /* families of this page, in order */
	size_t nfams, fams_cap;
};

/* Empty writer with page.max RV_PROM_MAX_BYTES (the caller may lower it
 * before the first write); allocates nothing until the first write. */
void rv_prom_init(struct rv_promtext *p);

/* Frees the buffers; p may be NULL. The writer may be initialised again. */
void rv_prom_fini(struct rv_promtext *p);

/* Empties the page and clears a failure; keeps the allocations. */
void rv_prom_reset(struct rv_promtext *p);

/*
 * Starts the family `name` of type "gauge", "counter", "untyped", "summary"
 * or "histogram": writes "# HELP name help" (backslash and newline escaped;
 * no HELP line when help is NULL) and "# TYPE name type". Calling it again
 * for the family just started writes nothing and returns 0. Returns
 * -EINVAL (bad name or type; nothing written), -EEXIST (the family was
 * started earlier on this page and other families followed: the format
 * wants a family's samples together), or the sticky failure.
 */
int rv_prom_family(struct rv_promtext *p, const char *name, const char *type,
		   const char *help);

/*
 * Writes one sample line `name{k="v",...} value`. labels is NULL or an
 * array k0, v0, k1, v1, ..., NULL; label values are escaped (backslash,
 * double quote, newline), so any string (a channel name such as
 * "cpu.busy_pct:cpu3") may be a value. Values: exact integers below 2^53
 * without exponent or point, NaN, +Inf, -Inf, otherwise the shortest
 * decimal that reads back as the same double. The sample belongs to the
 * family started last (the caller keeps a family's samples together).
 * Returns -EINVAL for a bad metric or label name, a key without value or a
 * repeated key (nothing written), or the sticky failure.
 */
int rv_prom_sample(struct rv_promtext *p, const char *name,
		   const char *const *labels, double value);

/* 0, or -ENOMEM when a write ran out of memory or past page.max
 * since the last reset (the page is then incomplete: do not serve it). */
int rv_prom_failed(const struct rv_promtext *p);

/* The page written so far ("" before any write); *len gets its length
 * when len is not NULL. Valid until the next write, reset or fini. */
const char *rv_prom_text(const struct rv_promtext *p, size_t *len);

/* 1 when name is a valid metric name [a-zA-Z_:][a-zA-Z0-9_:]*, else 0
 * (also for NULL). */
int rv_prom_name_ok(const char *name);

/* 1 when name is a valid label name [a-zA-Z_][a-zA-Z0-9_]*, else 0. */
int rv_prom_label_name_ok(const char *name);

/*
 * Writes into out (cap bytes, NUL-terminated, truncated to fit) a valid
 * metric name made from in: every byte outside [a-zA-Z0-9_:] becomes '_'
 * (a UTF-8 character becomes one '_' per byte), a leading digit gets a '_'
 * in front, and an empty in gives "_". With cap 1 out is "", with cap 0
 * nothing is written.
 */
void rv_prom_sanitize(const char *in, char *out, size_t cap);

/* Formats a sample value as rv_prom_sample does into buf
 * (RV_PROM_VALUE_MAX bytes); returns the length. */
size_t rv_prom_fmt_value(double v, char *buf);

#endif
