/*
 * strparse.h - the one cursor scanner of reveal (STYLE.md: no sscanf/atoi).
 *
 * Every function takes a cursor `const char **p` and an end pointer, reads
 * one token starting at *p, and on success advances *p past it and returns
 * 0. On failure it returns -EINVAL (no number there) or -ERANGE (out of
 * range) and leaves *p unchanged. None allocates; none needs NUL-terminated
 * input except where stated.
 */
#ifndef RV_BASE_STRPARSE_H
#define RV_BASE_STRPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Advances *p over spaces and tabs. */
void rv_str_skip_blank(const char **p, const char *end);

/* Unsigned decimal integer. */
int rv_str_u64(const char **p, const char *end, uint64_t *out);

/* Signed decimal integer with optional sign. */
int rv_str_i64(const char **p, const char *end, int64_t *out);

/*
 * Floating-point number in C-locale syntax: [sign] digits [. digits]
 * [e[sign]digits], or "nan", "inf", "infinity" (any case). Exactly rounded
 * for up to 19 significant digits, strtod beyond. Hex floats are refused;
 * so is a number written with more than 1023 characters (-ERANGE).
 */
int rv_str_double(const char **p, const char *end, double *out);

/* 1 when the range [s, end) is exactly the token tok. Inline, so that a
 * literal tok's length is known when it is compiled (parsers compare every
 * line of a kernel file with a few). */
static inline int rv_str_eq(const char *s, const char *end, const char *tok)
{
	size_t n = strlen(tok);

	return (size_t)(end - s) == n && memcmp(s, tok, n) == 0;
}

/*
 * One line [s, e) of /proc/PID/mountinfo: "ID PARENT MAJ:MIN ROOT
 * MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPEROPTS". Each field is a
 * [start, end) pair into the line; escapes (\040 for a space) are left
 * as they are.
 */
struct rv_mountinfo {
	const char *root, *root_end;
	const char *mount, *mount_end;
	const char *fstype, *fstype_end;
	const char *superopts, *superopts_end;
};

/* 0, or -EINVAL for a line without those fields (no "-" separator after
 * the mount point, fewer than three words after it). */
int rv_mountinfo_parse(const char *s, const char *e, struct rv_mountinfo *m);

#endif
