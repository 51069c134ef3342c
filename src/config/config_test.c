/*
 * config_test.c - the agent configuration (config/config.h): defaults, a
 * file that overrides every key, duration and size parsing (tables with
 * bad input and overflow), rv_config_set, write -> load round trips, the
 * cross-field checks, and deploy/reveal.yaml: it must load to the defaults
 * and contain exactly what rv_config_write prints for them, so the
 * documented example cannot drift from the key table. The loader's errors
 * are in config_load_test.c.
 */
#include "config/config_testutil.h"

#include <math.h>

#include "base/rng.h"

enum { PATH_BUF = 4096, ROUND_TRIPS = 2000 };

/* ------------------------------------------------------------ defaults */

static void test_defaults(void **state)
{
	struct rv_config c, rw;
	struct rv_err err;

	rv_config_defaults(&c);
	assert_true(c.interval_s == 0.1);
	assert_true(c.learn_s == 600.0);
	assert_true(c.refit_s == 3600.0);
	assert_true(c.reservoir_s == 3600.0);
	assert_string_equal(c.state_dir, ".");
	assert_string_equal(c.host, "");
	assert_int_equal(c.log_level, RV_LOG_INFO);
	assert_string_equal(c.collect.root, "");
	assert_string_equal(c.collect.nvml, "libnvidia-ml.so.1");
	assert_int_equal(c.collect.n_exclude, 0);
	assert_true(c.collect.rediscover_s == 60.0);
	assert_true(c.collect.slow_s == 1.0);
	assert_int_equal(c.collect.perf_software, 0);      /* auto */
	assert_string_equal(c.collect.metric_set, "");
	assert_true(c.detect.window.value == 3.0 && c.detect.window.seconds);
	assert_true(c.detect.step.value == 1.0 && c.detect.step.seconds);
	assert_int_equal(c.detect.preset, RV_CFG_PRESET_DEFAULT);
	assert_int_equal(c.detect.incident_gap, 2);
	assert_int_equal(c.detect.incident_min, 2);
	assert_int_equal(c.detect.report_severity, RV_CFG_SEV_MAJOR);
	assert_int_equal(c.detect.minor_min, 8);
	assert_int_equal(c.detect.sustained_min, 3);
	assert_string_equal(c.http.listen, "127.0.0.1:9464");
	assert_int_equal(c.http.max_connections, 32);
	assert_int_equal(c.http.per_client_connections, 8);
	assert_true(c.http.idle_timeout_s == 10.0);
	assert_false(c.http.raw_channels);
	assert_string_equal(c.store.path, "./reveal.db");
	assert_true(c.store.retention_s == 30 * 86400.0);
	assert_string_equal(c.events.path, "");
	assert_string_equal(c.record.path, "");
	assert_true(c.record.max_size_bytes == 1024ULL * 1024 * 1024);
	assert_true(c.record.max_age_s == 86400.0);
	/* remote_write: off, every string and list empty, tls_insecure false,
	 * time_offset 0; all but three fields are zero bytes */
	memset(&rw, 0, sizeof(rw));
	rw.remote_write.interval_s = 10.0;
	rw.remote_write.timeout_s = 10.0;
	rw.remote_write.queue_size_bytes = 32ULL << 20;
	assert_memory_equal(&c.remote_write, &rw.remote_write, sizeof(c.remote_write));
	assert_int_equal(c.actions.n, 0);
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), 0);
}
static void test_full_file(void **state)
{
	struct rv_config c;
	struct rv_err err;

	if (load(full_file, &c, &err) != 0)
		fail_msg("%s", err.msg);
	assert_true(c.interval_s == 0.25);
	assert_true(c.learn_s == 0.0);
	assert_true(c.refit_s == 0.0);
	assert_true(c.reservoir_s == 2 * 86400.0);
	assert_string_equal(c.state_dir, "/var/lib/reveal");
	assert_string_equal(c.host, "gpu-node-07");
	assert_int_equal(c.log_level, RV_LOG_DEBUG);
	assert_string_equal(c.collect.root, "/host");
	assert_string_equal(c.collect.nvml, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
	assert_int_equal(c.collect.n_exclude, 3);
	assert_string_equal(c.collect.exclude[0], "perf");
	assert_string_equal(c.collect.exclude[1], "sys.thermal");
	assert_string_equal(c.collect.exclude[2], "proc_net-2");
	assert_true(c.collect.rediscover_s == 0.0);
	assert_string_equal(c.collect.metric_set, "/etc/reveal/metrics.yaml");
	assert_true(c.detect.window.value == 30.0 && !c.detect.window.seconds);
	assert_true(c.detect.step.value == 1.5 && c.detect.step.seconds);
	assert_int_equal(c.detect.preset, RV_CFG_PRESET_PAPER);
	assert_int_equal(c.detect.incident_gap, 0);
	assert_int_equal(c.detect.incident_min, 1000);
	assert_int_equal(c.detect.report_severity, RV_CFG_SEV_CRITICAL);
	assert_int_equal(c.detect.minor_min, 0);
	assert_int_equal(c.detect.sustained_min, 5);
	assert_int_equal(c.detect.burst_min, 0);
	assert_true(c.detect.absorb_s == 0.0);
	assert_string_equal(c.http.listen, "[::1]:0");
	assert_int_equal(c.http.max_connections, 1024);
	assert_int_equal(c.http.per_client_connections, 1024);
	assert_true(c.http.idle_timeout_s == 3600.0);
	assert_true(c.http.raw_channels);
	assert_string_equal(c.store.path, "");
	assert_true(c.store.retention_s == 0.0);
	assert_string_equal(c.events.path, "-");
	assert_string_equal(c.record.path, "/data/rec");
	assert_true(c.record.max_size_bytes == 1000000000ULL);
	assert_true(c.record.max_age_s == 5400.0);
	assert_string_equal(c.remote_write.url, "https://mimir.example:9009/api/v1/push");
	assert_true(c.remote_write.interval_s == 30.0);
	assert_int_equal(c.remote_write.channels.n, 3);
	assert_string_equal(c.remote_write.channels.item[0], "gpu.*");
	assert_string_equal(c.remote_write.channels.item[1], "mem.*_bytes");
	assert_string_equal(c.remote_write.channels.item[2], "cpu.util_[0-9]*");
	assert_int_equal(c.remote_write.labels.n, 3);
	assert_string_equal(c.remote_write.labels.item[0], "cluster=eu1");
	assert_string_equal(c.remote_write.labels.item[1], "group=job42");
	assert_string_equal(c.remote_write.labels.item[2], "instance=gpu-node-07.eu1");
	assert_int_equal(c.remote_write.headers.n, 2);
	assert_string_equal(c.remote_write.headers.item[0], "X-Scope-OrgID: tenant1");
	assert_string_equal(c.remote_write.headers.item[1], "X-Note:a=b, c");
	assert_string_equal(c.remote_write.username, "reveal");
	assert_string_equal(c.remote_write.password_file, "/etc/reveal/rw-password");
	assert_string_equal(c.remote_write.bearer_token_file, "");
	assert_string_equal(c.remote_write.tls_ca_file, "/etc/reveal/ca.pem");
	assert_string_equal(c.remote_write.tls_cert_file, "/etc/reveal/client.pem");
	assert_string_equal(c.remote_write.tls_key_file, "/etc/reveal/client.key");
	assert_true(c.remote_write.tls_insecure);
	assert_true(c.remote_write.timeout_s == 60.0);
	assert_true(c.remote_write.queue_size_bytes == 1ULL << 30);
	assert_true(c.remote_write.time_offset_s == 400 * 86400.0);
	assert_int_equal(c.actions.n, 1);
	assert_string_equal(c.actions.item[0].name, "taint");
	assert_int_equal(c.actions.item[0].argc, 3);
	/* 30 samples at 250 ms = 7.5 s: a step of 1.5 s fits */
	rv_err_clear(&err);
	if (rv_config_check(&c, &err) != 0)
		fail_msg("%s", err.msg);
}

/* A file overrides only what it names, over whatever *c held. */
static void test_partial_file_keeps_the_rest(void **state)
{
	static const char text[] = "http:\n  max_connections: 7\n";
	struct rv_config c, want;
	struct rv_err err;

	rv_config_defaults(&c);
	assert_int_equal(rv_config_set(&c, "host", "before", NULL), 0);
	want = c;
	want.http.max_connections = 7;
	rv_err_clear(&err);
	assert_int_equal(rv_config_load_string(text, strlen(text), "p.yaml", &c, &err), 0);
	expect_same(&c, &want, "partial");
	/* text need not be NUL-terminated: only len bytes are read */
	assert_int_equal(rv_config_load_string("interval: 2sXXXX", 12, NULL, &c, &err), 0);
	assert_true(c.interval_s == 2.0);
}

/* ------------------------------------------------- durations and sizes */

struct dur_case {
	const char *s;
	int rc;
	double want;
};

static void test_parse_duration(void **state)
{
	static const struct dur_case cases[] = {
		{ "0", 0, 0.0 }, { "0s", 0, 0.0 }, { "0.0", 0, 0.0 }, { "100ms", 0, 0.1 },
		{ "10ms", 0, 0.01 }, { "1ms", 0, 0.001 }, { "2s", 0, 2.0 }, { "1.5s", 0, 1.5 },
		{ ".5s", 0, 0.5 }, { "10m", 0, 600.0 }, { "1min", 0, 60.0 }, { "1h", 0, 3600.0 },
		{ "1d", 0, 86400.0 }, { "7d", 0, 604800.0 }, { "1e3ms", 0, 1.0 }, { "+2s", 0, 2.0 },
		{ "1e308d", -ERANGE, 0 }, { "1e400s", -ERANGE, 0 },
		{ "", -EINVAL, 0 }, { "s", -EINVAL, 0 }, { "5", -EINVAL, 0 }, { "0.5", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 }, { "-0s", -EINVAL, 0 }, { "5 s", -EINVAL, 0 },
		{ " 5s", -EINVAL, 0 }, { "5s ", -EINVAL, 0 }, { "5S", -EINVAL, 0 },
		{ "5M", -EINVAL, 0 }, { "5us", -EINVAL, 0 }, { "5sec", -EINVAL, 0 },
		{ "infs", -EINVAL, 0 }, { "inf", -EINVAL, 0 }, { "nans", -EINVAL, 0 },
		{ "0x10s", -EINVAL, 0 }, { "5 parsecs", -EINVAL, 0 }, { "1h30m", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v = -7.0;
		int rc = rv_config_parse_duration(cases[i].s, &v);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].s, rc, cases[i].rc);
		if (rc == 0 && v != cases[i].want)
			fail_msg("'%s': %.17g, want %.17g", cases[i].s, v, cases[i].want);
		if (rc != 0 && v != -7.0)
			fail_msg("'%s': output written on error", cases[i].s);
	}
}

struct size_case {
	const char *s;
	int rc;
	uint64_t want;
};

static void test_parse_bytes(void **state)
{
	static const struct size_case cases[] = {
		{ "0", 0, 0 }, { "4096", 0, 4096 }, { "512B", 0, 512 }, { "512KiB", 0, 512 << 10 },
		{ "64MiB", 0, 64ULL << 20 }, { "1GiB", 0, 1ULL << 30 }, { "2TiB", 0, 2ULL << 40 },
		{ "1PiB", 0, 1ULL << 50 }, { "15EiB", 0, 15ULL << 60 }, { "1kB", 0, 1000 },
		{ "1KB", 0, 1000 }, { "1MB", 0, 1000000 }, { "1GB", 0, 1000000000ULL },
		{ "3TB", 0, 3000000000000ULL }, { "1PB", 0, 1000000000000000ULL },
		{ "18EB", 0, 18000000000000000000ULL },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 }, { "16EiB", -ERANGE, 0 },
		{ "19EB", -ERANGE, 0 }, { "17179869184GiB", -ERANGE, 0 },
		{ "", -EINVAL, 0 }, { "GiB", -EINVAL, 0 }, { "1.5GiB", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 }, { "+1", -EINVAL, 0 }, { "1 GiB", -EINVAL, 0 },
		{ "1gib", -EINVAL, 0 }, { "1G", -EINVAL, 0 }, { "1Gb", -EINVAL, 0 },
		{ "1KiBB", -EINVAL, 0 }, { "0x10", -EINVAL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 7;
		int rc = rv_config_parse_bytes(cases[i].s, &v);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].s, rc, cases[i].rc);
		if (rc == 0 && v != cases[i].want)
			fail_msg("'%s': %llu, want %llu", cases[i].s, (unsigned long long)v,
				 (unsigned long long)cases[i].want);
		if (rc != 0 && v != 7)
			fail_msg("'%s': output written on error", cases[i].s);
	}
}

/* ------------------------------------------------------ rv_config_set */

static void test_set(void **state)
{
	struct rv_config c;
	struct rv_err err;

	rv_config_defaults(&c);
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "http.listen", "0.0.0.0:9100", &err), 0);
	assert_string_equal(c.http.listen, "0.0.0.0:9100");
	assert_int_equal(rv_config_set(&c, "interval", "1s", &err), 0);
	assert_true(c.interval_s == 1.0);
	assert_int_equal(rv_config_set(&c, "detect.window", "60", &err), 0);
	assert_true(c.detect.window.value == 60.0 && !c.detect.window.seconds);
	assert_int_equal(rv_config_set(&c, "collect.exclude", " perf , sys.thermal,gpu ", &err), 0);
	assert_int_equal(c.collect.n_exclude, 3);
	assert_string_equal(c.collect.exclude[1], "sys.thermal");
	assert_string_equal(c.collect.exclude[2], "gpu");
	assert_int_equal(rv_config_set(&c, "collect.exclude", "[perf]", &err), 0);
	assert_int_equal(c.collect.n_exclude, 1);
	assert_int_equal(rv_config_set(&c, "collect.exclude", "", &err), 0);
	assert_int_equal(c.collect.n_exclude, 0);
	assert_int_equal(rv_config_set(&c, "collect.metric_set", "/etc/reveal/set.yaml", &err), 0);
	assert_string_equal(c.collect.metric_set, "/etc/reveal/set.yaml");
	assert_int_equal(rv_config_set(&c, "collect.metric_set", "", &err), 0);
	assert_string_equal(c.collect.metric_set, "");
	assert_int_equal(rv_config_set(&c, "http.raw_channels", "true", &err), 0);
	assert_true(c.http.raw_channels);
	assert_int_equal(rv_config_set(&c, "record.max_size", "64MiB", &err), 0);
	assert_true(c.record.max_size_bytes == 64ULL << 20);
	assert_int_equal(rv_config_set(&c, "log_level", "warn", &err), 0);
	assert_int_equal(c.log_level, RV_LOG_WARN);
	assert_int_equal(err.code, 0);
}

/* Bad keys and values: a message naming the key, and *c unchanged. */
static void test_set_errors(void **state)
{
	struct rv_config c, before;
	struct rv_err err;

	rv_config_defaults(&c);
	before = c;
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "http.max_connections", "0", &err), -EINVAL);
	assert_string_equal(err.msg, "http.max_connections: '0' is not in 1..1024");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "http.foo", "1", &err), -EINVAL);
	assert_string_equal(err.msg, "unknown key 'http.foo' (known in 'http': listen, "
			    "max_connections, per_client_connections, idle_timeout, raw_channels)");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "http.per_client_connections", "0", &err), -EINVAL);
	assert_string_equal(err.msg, "http.per_client_connections: '0' is not in 1..1024");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "http.idle_timeout", "500ms", &err), -EINVAL);
	assert_string_equal(err.msg, "http.idle_timeout: '500ms' is not in 1s..1h");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "collect.slow_interval", "11s", &err), -EINVAL);
	assert_string_equal(err.msg, "collect.slow_interval: '11s' is not in 0..10s");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "collect.perf_software", "yes", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "collect.perf_software: 'yes' is not one of auto"));
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "foo", "1", &err), -EINVAL);
	expect_msg(&err, "unknown key 'foo' (known: interval, learn,", "foo");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "nope.listen", "1", &err), -EINVAL);
	expect_msg(&err, "unknown key 'nope.listen' (known: interval,", "nope.listen");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "interval.x", "1", &err), -EINVAL);
	expect_msg(&err, "unknown key 'interval.x'", "interval.x");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "http", "1", &err), -EINVAL);
	assert_string_equal(err.msg, "'http' is a section; name one of its keys (listen, "
			    "max_connections, per_client_connections, idle_timeout, raw_channels)");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "collect.exclude", "perf,,gpu", &err), -EINVAL);
	assert_string_equal(err.msg, "collect.exclude: '' is not a source name (letters, digits, "
			    "'.', '_', '-'; at most 31)");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "host", "caf\xc3", &err), -EINVAL);
	expect_msg(&err, "host: 'caf", "bad UTF-8");
	expect_msg(&err, "is not valid UTF-8", "bad UTF-8");
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "interval", NULL, &err), -EINVAL);
	expect_same(&c, &before, "after failed sets");
}

/* A string one byte too long is refused; one that fits is kept. */
static void test_string_lengths(void **state)
{
	char host[RV_CFG_STR_MAX + 1];
	struct rv_config c;
	struct rv_err err;

	rv_config_defaults(&c);
	memset(host, 'h', sizeof(host));
	host[RV_CFG_STR_MAX - 1] = '\0';
	assert_int_equal(rv_config_set(&c, "host", host, NULL), 0);
	assert_int_equal(strlen(c.host), RV_CFG_STR_MAX - 1);
	host[RV_CFG_STR_MAX - 1] = 'h';
	host[RV_CFG_STR_MAX] = '\0';
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "host", host, &err), -EINVAL);
	expect_msg(&err, "...' is longer than 255 bytes", "long host");
}

/* --------------------------------------------------------- round trips */

/* Awkward values of every type survive write -> load bit for bit. */
static void test_round_trip(void **state)
{
	struct rv_config c, back;
	struct rv_err err;

	rv_config_defaults(&c);
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "interval", "0.123456789s", &err), 0);
	assert_int_equal(rv_config_set(&c, "learn", "1.5s", &err), 0);
	assert_int_equal(rv_config_set(&c, "refit", "0", &err), 0);
	assert_int_equal(rv_config_set(&c, "reservoir", "123457ms", &err), 0);
	assert_int_equal(rv_config_set(&c, "state_dir", "/tmp/a \"quoted\" \\dir\\ # not a comment",
				       &err), 0);
	assert_int_equal(rv_config_set(&c, "host", "h\xc3\xa9te-\xe2\x80\xa8-\xf0\x9f\x98\x80-\t-\x01-"
				       "\xc2\x85: x", &err), 0);
	assert_int_equal(rv_config_set(&c, "log_level", "error", &err), 0);
	assert_int_equal(rv_config_set(&c, "collect.root", "- [not a list]", &err), 0);
	assert_int_equal(rv_config_set(&c, "collect.exclude", "a,b.c,d_e-f", &err), 0);
	assert_int_equal(rv_config_set(&c, "collect.metric_set", "sets/a b: 'c'.yaml", &err), 0);
	assert_int_equal(rv_config_set(&c, "detect.window", "17", &err), 0);
	assert_int_equal(rv_config_set(&c, "detect.step", "3", &err), 0);
	assert_int_equal(rv_config_set(&c, "detect.preset", "paper", &err), 0);
	assert_int_equal(rv_config_set(&c, "http.listen", "", &err), 0);
	assert_int_equal(rv_config_set(&c, "http.raw_channels", "TRUE", &err), 0);
	assert_int_equal(rv_config_set(&c, "store.path", "null", &err), 0);
	assert_int_equal(rv_config_set(&c, "events.path", "~", &err), 0);
	assert_int_equal(rv_config_set(&c, "record.path", "'single'", &err), 0);
	assert_int_equal(rv_config_set(&c, "record.max_size", "1000000007", &err), 0);
	assert_int_equal(rv_config_set(&c, "record.max_age", "0.5d", &err), 0);
	expect_round_trip(&c, &back, "round trip");
	assert_string_equal(back.store.path, "null");  /* quoted: a string, not YAML's null */
}

/* Random durations, sizes and spans: written text loads back bit for bit. */
static void test_round_trip_random(void **state)
{
	struct rv_rng rng;
	struct rv_config c, back;

	rv_rng_seed(&rng, 20240601);
	for (int i = 0; i < ROUND_TRIPS; i++) {
		rv_config_defaults(&c);
		c.interval_s = 0.01 + rv_rng_uniform(&rng) * 9.99;
		c.learn_s = i % 3 ? round(rv_rng_uniform(&rng) * 604800.0) : rv_rng_uniform(&rng);
		c.reservoir_s = 60.0 + (i % 2 ? round(rv_rng_uniform(&rng) * 1e5) / 1e3
					       : rv_rng_uniform(&rng) * 6e5);
		c.record.max_size_bytes = (1ULL << 20) + rv_rng_below(&rng, 1ULL << 49);
		c.detect.step.value = 0.01 + rv_rng_uniform(&rng);
		expect_round_trip(&c, &back, "random round trip");
	}
}

/* ------------------------------------------------------- deploy file */

static void test_deploy_file(void **state)
{
	char path[PATH_BUF];
	struct rv_config c, d;
	struct rv_err err;
	char *file, *want;

	deploy_path(path, sizeof(path));
	rv_config_defaults(&d);
	/* start from full_file, where every key differs from its default: the
	 * example must name every key to come back to the defaults */
	if (load(full_file, &c, &err) != 0)
		fail_msg("%s", err.msg);
	/* the one key full_file cannot set (it excludes remote_write.username) */
	assert_int_equal(rv_config_set(&c, "remote_write.bearer_token_file", "/t", &err), 0);
	if (rv_config_load(path, &c, &err) != 0)
		fail_msg("%s", err.msg);
	expect_same(&c, &d, path);
	file = read_all(path);
	want = write_text(&d);
	if (!strstr(file, want))
		fail_msg("%s is not what rv_config_write prints for the defaults (after any lines "
			 "of its own at the top); regenerate it. Expected:\n%s", path, want);
	free(file);
	free(want);
}

/* Every key is in the written text, which also names every key's doc. */
static void test_write_names_every_key(void **state)
{
	static const char *const lines[] = {
		"\ninterval: 100ms\n", "\nlearn: 10m\n", "\nrefit: 1h\n", "\nreservoir: 1h\n",
		"\nstate_dir: \".\"\n", "\nhost: \"\"\n", "\nlog_level: info\n", "\ncollect:\n",
		"\n  root: \"\"\n", "\n  nvml: \"libnvidia-ml.so.1\"\n", "\n  exclude: []\n",
		"\n  rediscover: 1m\n", "\ndetect:\n", "\n  window: 3s\n", "\n  step: 1s\n",
		"\n  preset: default\n", "\n  incident_gap: 2\n", "\n  incident_min: 2\n", "\n  report_severity: major\n",
		"\n  minor_min: 8\n", "\n  sustained_min: 3\n", "\n  absorb: 15m\n",
		"\nhttp:\n", "\n  listen: \"127.0.0.1:9464\"\n", "\n  max_connections: 32\n",
		"\n  per_client_connections: 8\n", "\n  idle_timeout: 10s\n",
		"\n  raw_channels: false\n", "\nstore:\n", "\n  path: \"./reveal.db\"\n",
		"\n  retention: 30d\n", "\nevents:\n", "\nrecord:\n", "\n  max_size: 1GiB\n",
		"\n  max_age: 1d\n", "\nremote_write:\n", "\n  url: \"\"\n", "\n  interval: 10s\n",
		"\n  channels: []\n", "\n  labels: []\n", "\n  headers: []\n",
		"\n  username: \"\"\n", "\n  password_file: \"\"\n",
		"\n  bearer_token_file: \"\"\n", "\n  tls_ca_file: \"\"\n",
		"\n  tls_cert_file: \"\"\n", "\n  tls_key_file: \"\"\n",
		"\n  tls_insecure: false\n", "\n  timeout: 10s\n", "\n  queue_size: 32MiB\n",
		"\n  time_offset: 0\n", "Range: 1s..10m.\n", "Range: 64KiB..4GiB.\n",
		"Range: 0..36525d.\n", "# Sampling interval. Range: 10ms..10s.\n",
		"# Oldest segment kept; 0 = no age limit. Range: 0, or 1m..3650d.\n", "One of: default | paper.\n",
	};
	struct rv_config c;
	char *text;

	rv_config_defaults(&c);
	text = write_text(&c);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!strstr(text, lines[i]))
			fail_msg("written config lacks '%s':\n%s", lines[i], text);
	free(text);
}

/* ------------------------------------------------------- cross checks */

struct check_case {
	const char *set[4][2];  /* key, value */
	const char *want;       /* NULL: valid */
};

static void test_check(void **state)
{
	static const struct check_case cases[] = {
		{ { { NULL } }, NULL },
		{ { { "detect.step", "3s" } }, NULL },
		{ { { "detect.step", "4s" } }, "detect.step (4s) is longer than detect.window (3s)" },
		{ { { "detect.window", "30" }, { "detect.step", "3s" } }, NULL },
		{ { { "detect.window", "30" }, { "detect.step", "3001ms" } },
		  "detect.step (3001ms) is longer than detect.window (30)" },
		{ { { "detect.window", "5" }, { "detect.step", "6" } },
		  "detect.step (6) is longer than detect.window (5)" },
		{ { { "detect.window", "1" }, { "detect.step", "1" } },
		  "detect.window (1) holds fewer than 2 samples at interval 100ms" },
		{ { { "detect.window", "150ms" }, { "detect.step", "150ms" } },
		  "detect.window (150ms) holds fewer than 2 samples at interval 100ms" },
		{ { { "detect.step", "50ms" } }, "detect.step (50ms) is shorter than interval (100ms)" },
		{ { { "interval", "2s" }, { "detect.window", "5" }, { "detect.step", "1" } }, NULL },
		{ { { "interval", "2s" }, { "detect.window", "10s" }, { "detect.step", "1s" } },
		  "detect.step (1s) is shorter than interval (2s)" },
		{ { { "detect.window", "1h" }, { "reservoir", "30m" } },
		  "reservoir (30m) is shorter than detect.window (1h)" },
		{ { { "learn", "2s" } }, "learn (2s) is shorter than detect.window (3s): not one window to learn from" },
		{ { { "learn", "0" } }, NULL },
		{ { { "interval", "10s" }, { "detect.window", "30" }, { "detect.step", "1" },
		    { "collect.rediscover", "5s" } },
		  "collect.rediscover (5s) is shorter than interval (10s)" },
		{ { { "collect.rediscover", "0" }, { "refit", "0" }, { "store.retention", "0" } }, NULL },
		{ { { "http.max_connections", "4" } },
		  "http.per_client_connections (8) is above http.max_connections (4): lower it too" },
		{ { { "http.max_connections", "4" }, { "http.per_client_connections", "4" } }, NULL },
		{ { { "http.idle_timeout", "1500ms" } },
		  "http.idle_timeout (1500ms) is not a whole number of seconds" },
		{ { { "http.idle_timeout", "2m" } }, NULL },
		{ { { "remote_write.username", "u" }, { "remote_write.bearer_token_file", "/t" } },
		  "remote_write.username and remote_write.bearer_token_file are both set: basic "
		  "or bearer authentication, not both" },
		{ { { "remote_write.password_file", "/p" } },
		  "remote_write.password_file needs remote_write.username" },
		{ { { "remote_write.tls_key_file", "/k" } },
		  "remote_write.tls_key_file needs remote_write.tls_cert_file" },
		{ { { "interval", "2s" }, { "detect.window", "5" }, { "detect.step", "1" },
		    { "remote_write.interval", "1s" } },
		  "remote_write.interval (1s) is shorter than interval (2s)" },
		{ { { "interval", "2s" }, { "detect.window", "5" }, { "detect.step", "1" },
		    { "remote_write.interval", "2s" } }, NULL },
		{ { { "remote_write.username", "u" }, { "remote_write.password_file", "/p" } }, NULL },
		{ { { "remote_write.bearer_token_file", "/t" }, { "remote_write.tls_cert_file", "/c" },
		    { "remote_write.tls_key_file", "/k" } }, NULL },
		{ { { "remote_write.tls_cert_file", "/c" } }, NULL },
		{ { { "remote_write.url", "http://h/w" }, { "remote_write.username", "u" } }, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct check_case *k = &cases[i];
		struct rv_config c;
		struct rv_err err;
		int rc;

		rv_config_defaults(&c);
		rv_err_clear(&err);
		for (int j = 0; j < 4 && k->set[j][0]; j++)
			if (rv_config_set(&c, k->set[j][0], k->set[j][1], &err) != 0)
				fail_msg("case %zu: %s", i, err.msg);
		rc = rv_config_check(&c, &err);
		if (!k->want && rc != 0)
			fail_msg("case %zu: %s", i, err.msg);
		if (k->want && (rc != -EINVAL || strcmp(err.msg, k->want) != 0))
			fail_msg("case %zu: rc %d '%s', want '%s'", i, rc, err.msg, k->want);
	}
}

/* Fields set from C, bypassing the parser, get the parser's checks. */
static void test_check_fields(void **state)
{
	struct rv_config c;
	struct rv_err err;

	rv_config_defaults(&c);
	c.refit_s = 30.0;
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "refit: '30s' is not 0, or 1m..30d");

	rv_config_defaults(&c);
	c.interval_s = NAN;
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	expect_msg(&err, "interval: 'nan", "nan interval");

	rv_config_defaults(&c);
	c.http.max_connections = 0;
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "http.max_connections: '0' is not in 1..1024");

	rv_config_defaults(&c);
	c.log_level = (enum rv_log_level)7;
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "log_level: '7' is not one of error | warn | info | debug");

	rv_config_defaults(&c);
	c.detect.window = (struct rv_cfg_span){ 2.5, 0 };
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	expect_msg(&err, "detect.window: '2.5' is not", "fractional samples");

	rv_config_defaults(&c);
	memset(c.host, 'x', sizeof(c.host));
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "host: not NUL-terminated");

	rv_config_defaults(&c);
	c.collect.n_exclude = RV_CFG_EXCLUDE_MAX + 1;
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	expect_msg(&err, "collect.exclude: more than 32 names", "n_exclude");

	rv_config_defaults(&c);
	c.collect.n_exclude = 1;
	snprintf(c.collect.exclude[0], RV_CFG_NAME_MAX, "a b");
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	expect_msg(&err, "collect.exclude: name 1 is not a source name", "space in name");

	rv_config_defaults(&c);
	c.state_dir[0] = '\0';
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "state_dir: must not be empty");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_partial_file_keeps_the_rest),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_bytes),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_string_lengths),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_deploy_file),
		cmocka_unit_test(test_write_names_every_key),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

