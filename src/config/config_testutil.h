/*
 * config_testutil.h - test support shared by config_test.c and
 * config_load_test.c (not part of the library): field-by-field comparison
 * of two configurations, load() of a text over the defaults, message
 * checks, rv_config_write into memory and back, and full_file, a configuration in
 * which every key differs from its default (but remote_write's
 * bearer_token_file, which excludes its username), one action included.
 *
 * Header-only on purpose: the build compiles every .c file of src/config
 * that is not a *_test.c into the library. Everything here is static, so
 * each test gets its own copy.
 */
#ifndef RV_CONFIG_TESTUTIL_H
#define RV_CONFIG_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* ------------------------------------------------------------- helpers */

#define SAME_STR(f) if (strcmp(a->f, b->f) != 0) return #f
#define SAME_NUM(f) if (memcmp(&a->f, &b->f, sizeof(a->f)) != 0) return #f
#define SAME_LIST(f) SAME_NUM(f.n);                                         \
	for (size_t i = 0; i < a->f.n && i < RV_CFG_LIST_MAX; i++)          \
		SAME_STR(f.item[i])

/* The first field in which a and b differ (doubles bit for bit), or NULL. */
static inline const char *cfg_diff(const struct rv_config *a, const struct rv_config *b)
{
	SAME_NUM(interval_s); SAME_NUM(learn_s); SAME_NUM(refit_s); SAME_NUM(reservoir_s);
	SAME_STR(state_dir); SAME_STR(host); SAME_NUM(log_level);
	SAME_STR(collect.root); SAME_STR(collect.nvml); SAME_NUM(collect.n_exclude);
	for (size_t i = 0; i < a->collect.n_exclude && i < RV_CFG_EXCLUDE_MAX; i++)
		SAME_STR(collect.exclude[i]);
	SAME_NUM(collect.rediscover_s); SAME_NUM(collect.facts_s); SAME_STR(collect.metric_set);
	SAME_NUM(detect.window.value); SAME_NUM(detect.window.seconds);
	SAME_NUM(detect.step.value); SAME_NUM(detect.step.seconds);
	SAME_NUM(detect.preset); SAME_NUM(detect.incident_gap); SAME_NUM(detect.incident_min);
	SAME_NUM(detect.report_severity); SAME_NUM(detect.minor_min);
	SAME_NUM(detect.sustained_min); SAME_NUM(detect.burst_min); SAME_NUM(detect.absorb_s);
	SAME_STR(http.listen); SAME_NUM(http.max_connections); SAME_NUM(http.raw_channels);
	SAME_NUM(http.per_client_connections); SAME_NUM(http.idle_timeout_s);
	SAME_STR(store.path); SAME_NUM(store.retention_s);
	SAME_STR(events.path);
	SAME_STR(record.path); SAME_NUM(record.max_size_bytes); SAME_NUM(record.max_age_s);
	SAME_STR(remote_write.url); SAME_NUM(remote_write.interval_s);
	SAME_LIST(remote_write.channels); SAME_LIST(remote_write.labels);
	SAME_LIST(remote_write.headers);
	SAME_STR(remote_write.username); SAME_STR(remote_write.password_file);
	SAME_STR(remote_write.bearer_token_file); SAME_STR(remote_write.tls_ca_file);
	SAME_STR(remote_write.tls_cert_file); SAME_STR(remote_write.tls_key_file);
	SAME_NUM(remote_write.tls_insecure); SAME_NUM(remote_write.timeout_s);
	SAME_NUM(remote_write.queue_size_bytes); SAME_NUM(remote_write.time_offset_s);
	SAME_NUM(actions.n);
	for (size_t i = 0; i < a->actions.n && i < RV_CFG_ACTIONS_MAX; i++)
		SAME_NUM(actions.item[i]);   /* loaded ones are zero past every string */
	return NULL;
}

static inline void expect_same(const struct rv_config *a, const struct rv_config *b, const char *what)
{
	const char *d = cfg_diff(a, b);

	if (d)
		fail_msg("%s: field %s differs", what, d);
}

/* Loads text as "t.yaml" over the defaults. */
static inline int load(const char *text, struct rv_config *c, struct rv_err *err)
{
	rv_config_defaults(c);
	rv_err_clear(err);
	return rv_config_load_string(text, strlen(text), "t.yaml", c, err);
}

static inline void expect_msg(const struct rv_err *err, const char *want, const char *input)
{
	if (!strstr(err->msg, want))
		fail_msg("input '%s': message '%s' lacks '%s'", input, err->msg, want);
}

/* The repository's deploy/reveal.yaml (RV_FIXTURES is tests/fixtures). */
static inline const char *deploy_path(char *buf, size_t n)
{
	const char *dir = getenv("RV_FIXTURES");

	if (!dir)
		fail_msg("RV_FIXTURES is not set");
	snprintf(buf, n, "%s/../../deploy/reveal.yaml", dir);
	return buf;
}

/* What rv_config_write prints for c, malloc'd. */
static inline char *write_text(const struct rv_config *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(rv_config_write(f, c), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* Writes c, loads the text over the defaults into *back and expects it
 * equal to c; what names the case in a failure. */
static inline void expect_round_trip(const struct rv_config *c, struct rv_config *back,
				     const char *what)
{
	struct rv_err err;
	char *text = write_text(c);

	rv_config_defaults(back);
	rv_err_clear(&err);
	if (rv_config_load_string(text, strlen(text), "written", back, &err) != 0)
		fail_msg("%s: the written text does not load: %s\n%s", what, err.msg, text);
	expect_same(back, c, what);
	free(text);
}

static inline char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}


/* Every key set, each to something other than its default. */
static const char full_file[] =
	"interval: 250ms\n"
	"learn: 0\n"
	"refit: 0\n"
	"reservoir: 2d\n"
	"state_dir: /var/lib/reveal\n"
	"host: 'gpu-node-07'\n"
	"log_level: debug\n"
	"collect:\n"
	"  root: /host\n"
	"  nvml: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1\n"
	"  exclude: [perf, sys.thermal, proc_net-2]\n"
	"  rediscover: 0\n"
	"  metric_set: /etc/reveal/metrics.yaml\n"
	"detect:\n"
	"  window: 30\n"
	"  step: 1.5s\n"
	"  preset: paper\n"
	"  incident_gap: 0\n"
	"  incident_min: 1000\n"
	"  report_severity: critical\n"
	"  minor_min: 0\n"
	"  sustained_min: 5\n"
	"  burst_min: 0\n"
	"  absorb: 0\n"
	"http: {listen: \"[::1]:0\", max_connections: 1024, per_client_connections: 1024,\n"
	"       idle_timeout: 1h, raw_channels: true}\n"
	"store:\n"
	"  path: \"\"\n"
	"  retention: 0\n"
	"events:\n"
	"  path: \"-\"\n"
	"record:\n"
	"  path: /data/rec\n"
	"  max_size: 1GB\n"
	"  max_age: 90min\n"
	"remote_write:\n"
	"  url: https://mimir.example:9009/api/v1/push\n"
	"  interval: 30s\n"
	"  channels: [gpu.*, 'mem.*_bytes', \"cpu.util_[0-9]*\"]\n"
	"  labels:\n"
	"    - cluster=eu1\n"
	"    - group=job42\n"
	"    - instance=gpu-node-07.eu1\n"
	"  headers: [\"X-Scope-OrgID: tenant1\", 'X-Note:a=b, c']\n"
	"  username: reveal\n"
	"  password_file: /etc/reveal/rw-password\n"
	"  tls_ca_file: /etc/reveal/ca.pem\n"
	"  tls_cert_file: /etc/reveal/client.pem\n"
	"  tls_key_file: /etc/reveal/client.key\n"
	"  tls_insecure: true\n"
	"  timeout: 1m\n"
	"  queue_size: 1GiB\n"
	"  time_offset: 400d\n"
	"actions:\n"
	"  - name: taint\n"
	"    command: [/usr/local/bin/taint, --reason, reveal]\n";


#endif
