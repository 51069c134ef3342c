/*
 * err.c - struct rv_err helpers. See err.h.
 */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rv_err_clear(struct rv_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

int rv_err_set(struct rv_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err || err->code != 0)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

const char *rv_strerror(int code)
{
	return strerror(code < 0 ? -code : code);
}

const char *rv_err_text(const struct rv_err *err, int code)
{
	if (err && err->msg[0])
		return err->msg;
	return rv_strerror(code);
}
