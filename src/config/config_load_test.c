/*
 * config_load_test.c - the YAML loader of config/config.h on bad input:
 * each class of error (unknown and duplicate keys, bad values, a mapping
 * where a value belongs and the other way round, anchors and aliases,
 * extra documents, libyaml syntax and encoding errors) with its
 * FILE:LINE:COL and key; all-or-nothing loading; files that are missing,
 * directories or too large; empty files; and random edits of a full file,
 * which must load and round-trip or fail with a located message.
 */
#include "config/config_testutil.h"

#include <unistd.h>

#include "base/rng.h"

enum { PATH_BUF = 4096, MUTATIONS = 3000, MUTATION_EDITS = 4, CASE_NAME_BUF = 32 };

/* Empty files, comments only and null documents are the defaults. */
static void test_empty_is_defaults(void **state)
{
	static const char *const texts[] = {
		"", "\n", "# only a comment\n", "---\n", "--- ~\n", "---\n...\n", "{}\n",
		"collect:\nhttp: ~\n", "collect:\n  # nothing here\n",
	};
	struct rv_config c, d;
	struct rv_err err;

	rv_config_defaults(&d);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		if (load(texts[i], &c, &err) != 0)
			fail_msg("'%s': %s", texts[i], err.msg);
		expect_same(&c, &d, texts[i]);
	}
}

/* ------------------------------------------------------------- errors */

struct err_case {
	const char *text;
	const char *want[2];  /* substrings of the message */
};

static const struct err_case err_cases[] = {
	/* unknown keys, with the known ones */
	{ "foo: 1\n", { "t.yaml:1:1: unknown key 'foo' (known: interval, learn, refit, reservoir, "
		      "state_dir, host, log_level, collect, detect, http, store, events, record, "
		      "remote_write, attrib, actions)" } },
	{ "http:\n  listen: ''\n  foo: 1\n",
	  { "t.yaml:3:3: unknown key 'foo' in 'http' (known: listen, max_connections, "
	      "per_client_connections, idle_timeout, raw_channels)" } },
	{ "detect:\n  interval: 1s\n", { "t.yaml:2:3: unknown key 'interval' in 'detect'" } },
	{ "listen: x\n", { "t.yaml:1:1: unknown key 'listen' (known:" } },
	/* values out of range or of the wrong type */
	{ "http:\n  max_connections: 0\n", { "t.yaml:2:20: http.max_connections: '0' is not in 1..1024" } },
	{ "http:\n  max_connections: 1025\n", { "t.yaml:2:20:", "'1025' is not in 1..1024" } },
	{ "http:\n  max_connections: -1\n", { "t.yaml:2:20:", "'-1' is not a whole number" } },
	{ "http:\n  max_connections: 3.5\n", { "'3.5' is not a whole number" } },
	{ "http:\n  idle_timeout: 2h\n", { "t.yaml:2:17: http.idle_timeout: '2h' is not in 1s..1h" } },
	{ "http:\n  per_client_connections: x\n",
	  { "t.yaml:2:27: http.per_client_connections: 'x' is not a whole number" } },
	{ "interval: 5 parsecs\n",
	  { "t.yaml:1:11: interval: '5 parsecs' is not a duration (like 100ms, 2s, 10m)" } },
	{ "interval: 5ms\n", { "t.yaml:1:11: interval: '5ms' is not in 10ms..10s" } },
	{ "interval: 11s\n", { "interval: '11s' is not in 10ms..10s" } },
	{ "interval: 100\n", { "interval: '100' is not a duration" } },
	{ "interval:\n", { "t.yaml:1:10: interval: '' is not a duration" } },
	{ "learn: 8d\n", { "learn: '8d' is not in 0..7d" } },
	{ "refit: 30s\n", { "t.yaml:1:8: refit: '30s' is not 0, or 1m..30d" } },
	{ "reservoir: 0\n", { "reservoir: '0' is not in 1m..7d" } },
	{ "log_level: verbose\n",
	  { "t.yaml:1:12: log_level: 'verbose' is not one of error | warn | info | debug" } },
	{ "detect:\n  preset: fast\n", { "t.yaml:2:11: detect.preset: 'fast' is not one of default | paper" } },
	{ "http:\n  raw_channels: maybe\n", { "t.yaml:2:17: http.raw_channels: 'maybe' is not true or false" } },
	{ "record:\n  max_size: 12 parsecs\n", { "t.yaml:2:13: record.max_size: '12 parsecs' is not a size" } },
	{ "record:\n  max_size: 1000KB\n", { "record.max_size: '1000KB' is not in 1MiB..1PiB" } },
	{ "record:\n  max_size: 20EiB\n", { "record.max_size: '20EiB' is too large" } },
	{ "learn: 1e400s\n", { "t.yaml:1:8: learn: '1e400s' is too large" } },
	{ "detect:\n  window: 0\n", { "t.yaml:2:11: detect.window: '0' is not in 10ms..1h, or 1..100000 samples" } },
	{ "detect:\n  window: 2.5\n", { "detect.window: '2.5' is not a duration or a number of samples" } },
	{ "detect:\n  step: 2h\n", { "detect.step: '2h' is not in 10ms..1h" } },
	{ "detect:\n  incident_min: 0\n", { "detect.incident_min: '0' is not in 1..1000" } },
	{ "detect:\n  report_severity: high\n", { "detect.report_severity", "minor | major | critical" } },
	{ "state_dir: ''\n", { "t.yaml:1:12: state_dir: must not be empty" } },
	{ "host: \"a\\0b\"\n", { "t.yaml:1:7: host: the value contains a NUL byte" } },
	{ "http:\n  listen: localhost\n", { "t.yaml:2:11: http.listen: 'localhost' is not HOST:PORT" } },
	{ "http:\n  listen: '::1:80'\n", { "http.listen: '::1:80' is not HOST:PORT" } },
	{ "http:\n  listen: 'h:65536'\n", { "http.listen: 'h:65536' is not HOST:PORT" } },
	{ "collect:\n  exclude: [perf, 'bad name']\n",
	  { "t.yaml:2:19: collect.exclude: 'bad name' is not a source name" } },
	{ "collect:\n  exclude: [perf, '']\n", { "collect.exclude: '' is not a source name" } },
	{ "collect:\n  exclude: [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, "
	  "w, x, y, z, aa, bb, cc, dd, ee, ff, gg]\n", { "t.yaml:2:", "collect.exclude: more than 32 names" } },
	{ "collect:\n  exclude: [[perf]]\n", { "t.yaml:2:13: collect.exclude: expected a source name, not a list" } },
	{ "collect:\n  exclude: {perf: 1}\n", { "t.yaml:2:12: collect.exclude: expected a list of names, not a mapping" } },
	/* remote_write */
	{ "remote_write:\n  foo: 1\n",
	  { "t.yaml:2:3: unknown key 'foo' in 'remote_write' (known: url, interval, channels, "
	    "labels, headers, username, password_file, bearer_token_file, tls_ca_file, "
	    "tls_cert_file, tls_key_file, tls_insecure, timeout, queue_size, time_offset)" } },
	{ "remote_write: 5\n", { "t.yaml:1:15: remote_write: expected a mapping of keys (url, " } },
	{ "remote_write:\n  url: ftp://h/w\n",
	  { "t.yaml:2:8: remote_write.url: 'ftp://h/w' is not an http:// or https:// URL (like "
	    "http://127.0.0.1:9090/api/v1/write)" } },
	{ "remote_write:\n  url: http://u:pw@h/w\n",
	  { "t.yaml:2:8: remote_write.url: 'http://u:pw@h/w' holds credentials: use username "
	    "and password_file" } },
	{ "remote_write:\n  url: http:///api/v1/write\n",
	  { "remote_write.url: 'http:///api/v1/write' has no valid HOST, HOST:PORT or "
	    "[IPv6]:PORT after the scheme" } },
	{ "remote_write:\n  url: 'http://h x/w'\n",
	  { "remote_write.url: 'http://h x/w' contains a blank or control character" } },
	{ "remote_write:\n  interval: 500ms\n",
	  { "t.yaml:2:13: remote_write.interval: '500ms' is not in 1s..10m" } },
	{ "remote_write:\n  interval: 0\n", { "remote_write.interval: '0' is not in 1s..10m" } },
	{ "remote_write:\n  timeout: 301s\n", { "t.yaml:2:12: remote_write.timeout: '301s' is not in 1s..5m" } },
	{ "remote_write:\n  queue_size: 60KiB\n",
	  { "t.yaml:2:15: remote_write.queue_size: '60KiB' is not in 64KiB..4GiB" } },
	{ "remote_write:\n  queue_size: 4097MiB\n", { "'4097MiB' is not in 64KiB..4GiB" } },
	{ "remote_write:\n  time_offset: 36526d\n",
	  { "t.yaml:2:16: remote_write.time_offset: '36526d' is not in 0..36525d" } },
	{ "remote_write:\n  time_offset: 1y\n", { "remote_write.time_offset: '1y' is not a duration" } },
	{ "remote_write:\n  tls_insecure: 1\n",
	  { "t.yaml:2:17: remote_write.tls_insecure: '1' is not true or false" } },
	{ "remote_write:\n  username: \"a\\x85\\0\"\n",
	  { "t.yaml:2:13: remote_write.username: the value contains a NUL byte" } },
	{ "remote_write:\n  labels: [cluster=a, node=x]\n",
	  { "t.yaml:2:23: remote_write.labels: 'node=x' sets a label the agent sets itself" } },
	{ "remote_write:\n  labels:\n    - cluster=a\n    - cluster=b\n",
	  { "t.yaml:4:7: remote_write.labels: 'cluster=b' sets label 'cluster' a second time" } },
	{ "remote_write:\n  labels: [cluster]\n",
	  { "t.yaml:2:12: remote_write.labels: 'cluster' is not name=value (like cluster=eu1)" } },
	{ "remote_write:\n  labels: ['cluster=']\n", { "'cluster=' has an empty value" } },
	{ "remote_write:\n  labels: [__name__=x]\n",
	  { "'__name__=x' has a name starting with '__', which Prometheus reserves" } },
	{ "remote_write:\n  labels: [9lives=x]\n",
	  { "'9lives=x' has a name that is not a label name ([a-zA-Z_][a-zA-Z0-9_]*)" } },
	{ "remote_write:\n  labels: [\"a=b\\0\"]\n", { "remote_write.labels: 'a=b?' contains a NUL byte" } },
	{ "remote_write:\n  labels: {cluster: eu1}\n",
	  { "t.yaml:2:11: remote_write.labels: expected a list of labels, not a mapping" } },
	{ "remote_write:\n  headers:\n    - X-Scope-OrgID: tenant1\n",
	  { "t.yaml:3:7: remote_write.headers: expected a header ('Name: value', quoted in "
	    "YAML), not a mapping" } },
	{ "remote_write:\n  headers: [\"X-A: a\\r\\nX-B: b\"]\n",
	  { "t.yaml:2:13: remote_write.headers: 'X-A: a??X-B: b' contains a line break or "
	    "control character" } },
	{ "remote_write:\n  headers: ['X-A:  ']\n", { "'X-A:  ' has an empty value" } },
	{ "remote_write:\n  headers: ['X A: b']\n",
	  { "'X A: b' has a name that is not an HTTP token" } },
	{ "remote_write:\n  headers: ['x-a: 1', 'X-A: 2']\n",
	  { "t.yaml:2:23: remote_write.headers: 'X-A: 2' sets header 'X-A' a second time" } },
	{ "remote_write:\n  headers: ['authorization: Bearer x']\n",
	  { "'authorization: Bearer x' would put a secret in the configuration: use username "
	    "and password_file, or bearer_token_file" } },
	{ "remote_write:\n  headers: ['Content-Encoding: gzip']\n",
	  { "'Content-Encoding: gzip' sets a header of the remote-write protocol" } },
	{ "remote_write:\n  channels: [gpu.*, '']\n",
	  { "t.yaml:2:21: remote_write.channels: '' is not a pattern of channel names" } },
	{ "remote_write:\n  channels: [[gpu.*]]\n",
	  { "t.yaml:2:14: remote_write.channels: expected a pattern of channel names, not a list" } },
	/* a mapping or list where a value belongs, and the other way round */
	{ "interval:\n  a: 1\n", { "t.yaml:2:3: interval: expected a single value, not a mapping" } },
	{ "interval: [1s]\n", { "t.yaml:1:11: interval: expected a single value, not a list" } },
	{ "http: 5\n", { "t.yaml:1:7: http: expected a mapping of keys (listen, max_connections, "
		       "per_client_connections, idle_timeout, raw_channels), not a single value" } },
	{ "http: [a]\n", { "t.yaml:1:7: http: expected a mapping", "not a list" } },
	{ "? [a]\n: b\n", { "t.yaml:1:3: a key must be a name, not a list" } },
	/* duplicates */
	{ "interval: 1s\nlearn: 1h\ninterval: 2s\n", { "t.yaml:3:1: duplicate key 'interval' (first at 1:1)" } },
	{ "http:\n  listen: ''\n  listen: ''\n", { "t.yaml:3:3: duplicate key 'listen' in 'http' (first at 2:3)" } },
	{ "http: {}\nstore: {}\nhttp: {}\n", { "t.yaml:3:1: duplicate key 'http' (first at 1:1)" } },
	/* not a mapping at the top */
	{ "- interval\n- learn\n", { "t.yaml:1:1: the configuration must be a mapping of keys", "not a list" } },
	{ "hello\n", { "t.yaml:1:1: the configuration must be a mapping", "not a single value" } },
	/* anchors, aliases, documents */
	{ "interval: &i 1s\n", { "t.yaml:1:11: anchors (&i) are not supported" } },
	{ "collect: &c\n  root: ''\n", { "t.yaml:1:10: anchors (&c) are not supported" } },
	{ "interval: 1s\nlearn: *i\n", { "t.yaml:2:8:", "aliases (*i) are not supported" } },
	{ "interval: 1s\n---\nlearn: 1h\n", { "t.yaml:2:1: only one YAML document is allowed" } },
	/* YAML syntax: libyaml's problem, with its line and column */
	{ "interval: 1s\nlearn: 1h: 2h\n", { "t.yaml:2:10: mapping values are not allowed in this context" } },
	{ "collect:\n  exclude: [a\n", { "t.yaml:3:1:", "did not find expected ',' or ']' (while parsing a flow sequence at 2:12)" } },
	{ "interval: 1s\n\tlearn: 1h\n", { "t.yaml:2:1: found a tab character that violates indentation (while scanning a plain scalar at 1:11)" } },
	{ "interval: \"abc\n", { "t.yaml:2:1: found unexpected end of stream (while scanning a quoted scalar at 1:11)" } },
	{ "host: caf\xc3\n", { "t.yaml:1:11: invalid trailing UTF-8 octet" } },
};

static void test_errors(void **state)
{
	struct rv_config c, d;
	struct rv_err err;

	rv_config_defaults(&d);
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *e = &err_cases[i];
		int rc = load(e->text, &c, &err);

		if (rc != -EINVAL)
			fail_msg("input '%s': rc %d (%s), not -EINVAL", e->text, rc, err.msg);
		assert_int_equal(err.code, -EINVAL);
		for (size_t j = 0; j < 2 && e->want[j]; j++)
			expect_msg(&err, e->want[j], e->text);
		expect_same(&c, &d, e->text);  /* all or nothing */
	}
}

/* An error in a later key leaves the earlier, good keys unapplied too. */
static void test_error_changes_nothing(void **state)
{
	static const char text[] = "interval: 1s\nhost: h\nhttp:\n  max_connections: 0\n";
	struct rv_config c, before;
	struct rv_err err;

	rv_config_defaults(&c);
	assert_int_equal(rv_config_set(&c, "learn", "1h", NULL), 0);
	before = c;
	rv_err_clear(&err);
	assert_int_equal(rv_config_load_string(text, strlen(text), "x", &c, &err), -EINVAL);
	expect_same(&c, &before, "after an error");
	/* NULL err is allowed */
	assert_int_equal(rv_config_load_string(text, strlen(text), "x", &c, NULL), -EINVAL);
}

static void test_file_errors(void **state)
{
	char path[PATH_BUF], dir[] = "/tmp/rv_config_test_XXXXXX";
	struct rv_config c;
	struct rv_err err;
	FILE *f;

	rv_config_defaults(&c);
	rv_err_clear(&err);
	assert_int_equal(rv_config_load("/nonexistent/reveal.yaml", &c, &err), -ENOENT);
	assert_string_equal(err.msg, "/nonexistent/reveal.yaml: No such file or directory");

	assert_non_null(mkdtemp(dir));
	rv_err_clear(&err);
	assert_int_equal(rv_config_load(dir, &c, &err), -EISDIR);
	expect_msg(&err, "Is a directory", dir);

	snprintf(path, sizeof(path), "%s/big.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < (1 << 20) / 16 + 1; i++)
		fputs("# padding line.\n", f);
	assert_int_equal(fclose(f), 0);
	rv_err_clear(&err);
	assert_int_equal(rv_config_load(path, &c, &err), -EFBIG);
	expect_msg(&err, path, "big file");

	/* errors from a file name the file */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# comment\nhttp:\n  max_connections: 0\n", f);
	assert_int_equal(fclose(f), 0);
	rv_err_clear(&err);
	assert_int_equal(rv_config_load(path, &c, &err), -EINVAL);
	expect_msg(&err, "/big.yaml:3:20: http.max_connections: '0' is not in 1..1024", path);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Random byte edits of a full file: every result is either a good load
 * that writes and loads back equal, or -EINVAL with a located message. */
static void test_mutations(void **state)
{
	static const char alphabet[] = " \n\t:-[]{},'\"#&*!?|>%@`0123456789smhdkKiBG.\\\x00\xc3\xff";
	struct rv_rng rng;
	char buf[sizeof(full_file) + MUTATION_EDITS];

	rv_rng_seed(&rng, 7);
	for (int i = 0; i < MUTATIONS; i++) {
		struct rv_config c, back;
		struct rv_err err;
		size_t len = sizeof(full_file) - 1;
		char what[CASE_NAME_BUF];
		int rc;

		memcpy(buf, full_file, len);
		for (int e = 0; e < 1 + (int)rv_rng_below(&rng, MUTATION_EDITS); e++) {
			size_t at = rv_rng_below(&rng, len);
			char ch = alphabet[rv_rng_below(&rng, sizeof(alphabet) - 1)];

			if (rv_rng_below(&rng, 3) == 0 && len + 1 < sizeof(buf)) {
				memmove(buf + at + 1, buf + at, len - at);
				len++;
			}
			buf[at] = ch;
		}
		rv_config_defaults(&c);
		rv_err_clear(&err);
		rc = rv_config_load_string(buf, len, "m.yaml", &c, &err);
		if (rc != 0) {
			if (rc != -EINVAL || err.code != rc || strncmp(err.msg, "m.yaml:", 7) != 0)
				fail_msg("mutation %d: rc %d '%s'", i, rc, err.msg);
			continue;
		}
		snprintf(what, sizeof(what), "mutation %d", i);
		expect_round_trip(&c, &back, what);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_is_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_changes_nothing),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
