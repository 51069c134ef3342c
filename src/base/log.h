/*
 * log.h - the one log sink of reveal.
 *
 * Nothing but this module writes diagnostics. The default sink writes
 * "reveal: level: message\n" to stderr ("reveal: message\n" for info); cli/ may replace it (tests capture
 * messages with their own sink). The sink pointer and level are the only
 * mutable globals (STYLE.md), set once at start-up.
 */
#ifndef RV_BASE_LOG_H
#define RV_BASE_LOG_H

#include <stdarg.h>

enum rv_log_level { RV_LOG_ERROR, RV_LOG_WARN, RV_LOG_INFO, RV_LOG_DEBUG };

typedef void (*rv_log_sink_fn)(enum rv_log_level level, const char *msg, void *ctx);

/* Installs a sink (NULL restores the default stderr sink). */
void rv_log_set_sink(rv_log_sink_fn fn, void *ctx);

/* Messages above this level are dropped (default RV_LOG_INFO). */
void rv_log_set_level(enum rv_log_level level);
enum rv_log_level rv_log_get_level(void);

/* Formats and hands one message to the sink (a trailing newline is not needed). */
void rv_log(enum rv_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define rv_error(...) rv_log(RV_LOG_ERROR, __VA_ARGS__)
#define rv_warn(...)  rv_log(RV_LOG_WARN, __VA_ARGS__)
#define rv_info(...)  rv_log(RV_LOG_INFO, __VA_ARGS__)
#define rv_debug(...) rv_log(RV_LOG_DEBUG, __VA_ARGS__)

#endif
