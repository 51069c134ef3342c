/*
 * err.h - the one error mechanism of reveal.
 *
 * Functions return 0 on success or a negative errno (-EINVAL, -ENOMEM, ...).
 * When they fail they may fill the caller's struct rv_err with a human
 * message that names the file, line, column or channel at fault. The code in
 * the struct is the same negative errno. Only cli/ turns errors into exit
 * statuses and text on the terminal.
 */
#ifndef RV_BASE_ERR_H
#define RV_BASE_ERR_H

#include <stddef.h>

enum { RV_ERR_MSG_MAX = 512 };

/* Caller-owned error detail. A NULL struct rv_err * is allowed everywhere:
 * the detail is then dropped and only the return code tells. */
struct rv_err {
	int code;                   /* 0 or a negative errno */
	char msg[RV_ERR_MSG_MAX];   /* "" or a complete sentence without "\n" */
};

/* Clears err (code 0, empty message). err may be NULL. */
void rv_err_clear(struct rv_err *err);

/* Sets code and a printf-style message; returns code so callers can write
 * `return rv_err_set(err, -EINVAL, "%s:%zu: bad number", path, line);`.
 * Keeps the first error: a second call on an already set err only returns. */
int rv_err_set(struct rv_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Static text (strerror) for a negative (or positive) errno. */
const char *rv_strerror(int code);

/* Message of err, or rv_strerror(code) when it has none. */
const char *rv_err_text(const struct rv_err *err, int code);

#endif
