/*
 * log.c - default stderr sink and level filter. See log.h.
 */
#include "base/log.h"

#include <stdio.h>

enum { LOG_LINE_MAX = 2048 };

static const char *const level_name[] = {
	[RV_LOG_ERROR] = "error",
	[RV_LOG_WARN] = "warning",
	[RV_LOG_INFO] = "info",
	[RV_LOG_DEBUG] = "debug",
};
_Static_assert(sizeof(level_name) / sizeof(level_name[0]) == RV_LOG_DEBUG + 1,
	       "level_name must name every level");

static void stderr_sink(enum rv_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == RV_LOG_INFO)
		fprintf(stderr, "reveal: %s\n", msg);
	else
		fprintf(stderr, "reveal: %s: %s\n", level_name[level], msg);
}

/* The justified globals: one sink for the process, set at start-up. */
static rv_log_sink_fn log_sink = stderr_sink;
static void *log_ctx;
static enum rv_log_level log_level = RV_LOG_INFO;

void rv_log_set_sink(rv_log_sink_fn fn, void *ctx)
{
	log_sink = fn ? fn : stderr_sink;
	log_ctx = fn ? ctx : NULL;
}

void rv_log_set_level(enum rv_log_level level)
{
	log_level = level;
}

enum rv_log_level rv_log_get_level(void)
{
	return log_level;
}

void rv_log(enum rv_log_level level, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_sink(level, line, log_ctx);
}
