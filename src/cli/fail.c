/*
 * fail.c - the one way a command of `reveal` reports an error:
 * "reveal CMD: message" on stderr (cli/ owns the terminal; library code
 * only fills a struct rv_err or logs through rv_log) and, for
 * rv_cli_fail, the exit status handed back, so a command writes
 * `return rv_cli_fail("report", RV_EXIT_USAGE, "%s: %s", path, strerror(e));`.
 * See cli.h.
 */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/err.h"

static void vreport(const char *cmd, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vreport(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "reveal %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void rv_cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cmd, fmt, ap);
	va_end(ap);
}

int rv_cli_fail(const char *cmd, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(cmd, fmt, ap);
	va_end(ap);
	return status;
}

int rv_cli_fail_err(const char *cmd, int status, const struct rv_err *err, int rc)
{
	return rv_cli_fail(cmd, status, "%s", rv_err_text(err, rc));
}
