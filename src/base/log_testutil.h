/*
 * log_testutil.h - for unit tests: the lines rv_log writes, captured in
 * memory (RV_LOG_CAPTURE_MAX of them, 1 KiB each) so that a test can count
 * what was said. Include once per test file; log_capture_start() in the
 * setup, log_capture_stop() in the teardown.
 */
#ifndef RV_BASE_LOG_TESTUTIL_H
#define RV_BASE_LOG_TESTUTIL_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"

#ifndef RV_LOG_CAPTURE_MAX
#define RV_LOG_CAPTURE_MAX 64
#endif

static struct {
	pthread_mutex_t mu;
	size_t n;
	enum rv_log_level level[RV_LOG_CAPTURE_MAX];
	char text[RV_LOG_CAPTURE_MAX][1024];
} logs = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void log_capture(enum rv_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&logs.mu);
	if (logs.n < RV_LOG_CAPTURE_MAX) {
		logs.level[logs.n] = level;
		snprintf(logs.text[logs.n], sizeof(logs.text[0]), "%s", msg);
		logs.n++;
	}
	pthread_mutex_unlock(&logs.mu);
}

/* Lines at level containing s (all levels when level < 0). */
static inline size_t logged(int level, const char *s)
{
	size_t k = 0;

	pthread_mutex_lock(&logs.mu);
	for (size_t i = 0; i < logs.n; i++)
		if ((level < 0 || (int)logs.level[i] == level) && strstr(logs.text[i], s))
			k++;
	pthread_mutex_unlock(&logs.mu);
	return k;
}

static inline void log_capture_start(void)
{
	pthread_mutex_lock(&logs.mu);
	logs.n = 0;
	pthread_mutex_unlock(&logs.mu);
	rv_log_set_sink(log_capture, NULL);
}

static inline void log_capture_stop(void)
{
	rv_log_set_sink(NULL, NULL);
}

#endif
