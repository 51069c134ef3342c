/*
 * promapi_int.h - what the parser of the Prometheus API's answers
 * (promapi_parse.c) shares with its HTTP client (promapi.c); not part of
 * the public API of promapi.h.
 */
#ifndef RV_REMOTE_PROMAPI_INT_H
#define RV_REMOTE_PROMAPI_INT_H

#include <stddef.h>

#include "base/err.h"
#include "remote/promapi.h"

/* lim (NULL: all defaults) with each 0 replaced by its default. */
void rv_prom_limits_resolve(const struct rv_prom_limits *lim, struct rv_prom_limits *out);

/* When body[0..len) is an API error answer ("status":"error"): its code
 * (promapi.h) with "API error TYPE: TEXT" in err; 0 for anything else
 * (another answer, or no JSON at all). */
int rv_prom_api_error(const char *body, size_t len, struct rv_err *err);

/* The errno an HTTP status stands for (promapi.h lists them): 4xx
 * without a row -EINVAL, anything else -EIO. */
int rv_prom_http_errno(long status);

/* Copies at most len bytes of s (and at most cap - 1) to dst as one line
 * fit for a message: valid UTF-8 passes, control characters become
 * blanks and other bytes '?'; stops at a NUL. dst is NUL-terminated
 * (cap > 0). Returns the bytes of s consumed. */
size_t rv_prom_printable(char *dst, size_t cap, const char *s, size_t len);

#endif
