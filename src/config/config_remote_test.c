/*
 * config_remote_test.c - the remote_write section of config/config.h and
 * the list keys it brought (channels, labels, headers, beside
 * collect.exclude): rv_config_set of every key, each bad value with its
 * exact message (and the configuration unchanged), the forms a list takes
 * in YAML and in --set, the limits of a list (32 items, 255 bytes an
 * item), lists set from C and caught by rv_config_check, and awkward items
 * through rv_config_write and back. Defaults, the full file, the deploy
 * file and the cross-key rules are in config_test.c; YAML errors with
 * their FILE:LINE:COL in config_load_test.c.
 */
#include "config/config_testutil.h"

enum { TEXT_BUF = 16384, WANT_BUF = 512, LONG_ITEM = RV_CFG_ITEM_MAX - 1 };

#define RW(k) "remote_write." k

struct set_case {
	const char *key, *value;
	const char *want;  /* the message; NULL: accepted */
};

/* ------------------------------------------------------ rv_config_set */

static void test_set(void **state)
{
	struct rv_config c;
	struct rv_err err;

	rv_config_defaults(&c);
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, RW("url"), "http://127.0.0.1:9090/api/v1/write", &err), 0);
	assert_string_equal(c.remote_write.url, "http://127.0.0.1:9090/api/v1/write");
	assert_int_equal(rv_config_set(&c, RW("interval"), "1m", &err), 0);
	assert_true(c.remote_write.interval_s == 60.0);
	assert_int_equal(rv_config_set(&c, RW("channels"), " gpu.* , mem.*_bytes", &err), 0);
	assert_int_equal(c.remote_write.channels.n, 2);
	assert_string_equal(c.remote_write.channels.item[0], "gpu.*");
	assert_string_equal(c.remote_write.channels.item[1], "mem.*_bytes");
	assert_int_equal(rv_config_set(&c, RW("labels"), "cluster=eu1,group=job42, note=a=b",
				       &err), 0);
	assert_int_equal(c.remote_write.labels.n, 3);
	assert_string_equal(c.remote_write.labels.item[0], "cluster=eu1");
	assert_string_equal(c.remote_write.labels.item[2], "note=a=b");
	assert_int_equal(rv_config_set(&c, RW("headers"), "X-Scope-OrgID: tenant1,X-A:b", &err),
			 0);
	assert_int_equal(c.remote_write.headers.n, 2);
	assert_string_equal(c.remote_write.headers.item[0], "X-Scope-OrgID: tenant1");
	assert_string_equal(c.remote_write.headers.item[1], "X-A:b");
	assert_int_equal(rv_config_set(&c, RW("username"), "reveal", &err), 0);
	assert_string_equal(c.remote_write.username, "reveal");
	assert_int_equal(rv_config_set(&c, RW("password_file"), "/etc/reveal/pw", &err), 0);
	assert_string_equal(c.remote_write.password_file, "/etc/reveal/pw");
	assert_int_equal(rv_config_set(&c, RW("bearer_token_file"), "/etc/reveal/tok", &err), 0);
	assert_string_equal(c.remote_write.bearer_token_file, "/etc/reveal/tok");
	assert_int_equal(rv_config_set(&c, RW("tls_ca_file"), "/ca.pem", &err), 0);
	assert_string_equal(c.remote_write.tls_ca_file, "/ca.pem");
	assert_int_equal(rv_config_set(&c, RW("tls_cert_file"), "/c.pem", &err), 0);
	assert_string_equal(c.remote_write.tls_cert_file, "/c.pem");
	assert_int_equal(rv_config_set(&c, RW("tls_key_file"), "/k.pem", &err), 0);
	assert_string_equal(c.remote_write.tls_key_file, "/k.pem");
	assert_int_equal(rv_config_set(&c, RW("tls_insecure"), "true", &err), 0);
	assert_true(c.remote_write.tls_insecure);
	assert_int_equal(rv_config_set(&c, RW("timeout"), "5m", &err), 0);
	assert_true(c.remote_write.timeout_s == 300.0);
	assert_int_equal(rv_config_set(&c, RW("queue_size"), "4GiB", &err), 0);
	assert_true(c.remote_write.queue_size_bytes == 4ULL << 30);
	assert_int_equal(rv_config_set(&c, RW("time_offset"), "36525d", &err), 0);
	assert_true(c.remote_write.time_offset_s == 36525 * 86400.0);
	/* a list given again replaces the one before */
	assert_int_equal(rv_config_set(&c, RW("labels"), "[instance=n7]", &err), 0);
	assert_int_equal(c.remote_write.labels.n, 1);
	assert_string_equal(c.remote_write.labels.item[0], "instance=n7");
	assert_int_equal(rv_config_set(&c, RW("headers"), "", &err), 0);
	assert_int_equal(c.remote_write.headers.n, 0);
	assert_int_equal(rv_config_set(&c, RW("url"), "", &err), 0);
	assert_string_equal(c.remote_write.url, "");
	assert_int_equal(err.code, 0);
}

/* URLs the key takes and refuses. */
static void test_urls(void **state)
{
	static const char *const good[] = {
		"http://h", "https://vm.example:8428/api/v1/write", "HTTPS://H.EXAMPLE/push",
		"http://[::1]:9090/api/v1/write", "http://[fe80::1%25eth0]/w", "http://10.0.0.1:80",
		"http://h?tenant=a#x", "https://h.example/insert/0/prometheus/api/v1/write",
	};
	static const char *const bad_urls[] = {
		"localhost:9090", "ftp://h/w", "http:/h", "http://", "http:///w", "http://:80/w",
		"http://h:/w", "http://h:99999/w", "http://h:x/w", "http://[::1/w", "http://[]/w",
		"http://::1/w", "http://h]/w", "http://[::1]x/w", "http://h w", "http://h\t/w",
		"http://u@h/w", " http://h",
	};
	struct rv_config c;
	struct rv_err err;

	rv_config_defaults(&c);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		rv_err_clear(&err);
		if (rv_config_set(&c, RW("url"), good[i], &err) != 0)
			fail_msg("'%s': %s", good[i], err.msg);
		assert_string_equal(c.remote_write.url, good[i]);
	}
	for (size_t i = 0; i < sizeof(bad_urls) / sizeof(bad_urls[0]); i++) {
		rv_err_clear(&err);
		if (rv_config_set(&c, RW("url"), bad_urls[i], &err) != -EINVAL)
			fail_msg("'%s' is accepted", bad_urls[i]);
		expect_msg(&err, "remote_write.url: '", bad_urls[i]);
	}
	assert_string_equal(c.remote_write.url, good[sizeof(good) / sizeof(good[0]) - 1]);
}

/* Bad values: the exact message, and the configuration unchanged. */
static void test_set_errors(void **state)
{
	static const struct set_case cases[] = {
		{ RW("interval"), "500ms", "remote_write.interval: '500ms' is not in 1s..10m" },
		{ RW("interval"), "11m", "remote_write.interval: '11m' is not in 1s..10m" },
		{ RW("timeout"), "0", "remote_write.timeout: '0' is not in 1s..5m" },
		{ RW("queue_size"), "5GiB", "remote_write.queue_size: '5GiB' is not in 64KiB..4GiB" },
		{ RW("queue_size"), "lots", "remote_write.queue_size: 'lots' is not a size (like "
		  "512KiB, 64MiB, 1GB or bytes)" },
		{ RW("time_offset"), "-1d", "remote_write.time_offset: '-1d' is not a duration "
		  "(like 100ms, 2s, 10m)" },
		{ RW("time_offset"), "36526d", "remote_write.time_offset: '36526d' is not in "
		  "0..36525d" },
		{ RW("tls_insecure"), "yes", "remote_write.tls_insecure: 'yes' is not true or false" },
		{ RW("username"), "caf\xc3", "remote_write.username: 'caf\xc3' is not valid UTF-8" },
		{ RW("channels"), "gpu.*,,mem.*", "remote_write.channels: '' is not a pattern of "
		  "channel names (like gpu.* or mem.*_bytes)" },
		{ RW("channels"), "gpu\x01*", "remote_write.channels: 'gpu?*' contains a control "
		  "character" },
		{ RW("labels"), "cluster", "remote_write.labels: 'cluster' is not name=value (like "
		  "cluster=eu1)" },
		{ RW("labels"), "node=x", "remote_write.labels: 'node=x' sets a label the agent sets "
		  "itself (node, channel, subsystem, detector, fact, value; instance may be set)" },
		{ RW("labels"), "a=1,value=2", "remote_write.labels: 'value=2' sets a label the "
		  "agent sets itself (node, channel, subsystem, detector, fact, value; instance "
		  "may be set)" },
		{ RW("labels"), "__name__=x", "remote_write.labels: '__name__=x' has a name starting "
		  "with '__', which Prometheus reserves" },
		{ RW("labels"), "clu-ster=x", "remote_write.labels: 'clu-ster=x' has a name that is "
		  "not a label name ([a-zA-Z_][a-zA-Z0-9_]*)" },
		{ RW("labels"), "=x", "remote_write.labels: '=x' has a name that is not a label name "
		  "([a-zA-Z_][a-zA-Z0-9_]*)" },
		{ RW("labels"), "cluster=", "remote_write.labels: 'cluster=' has an empty value" },
		{ RW("labels"), "cluster=a, cluster=b", "remote_write.labels: 'cluster=b' sets label "
		  "'cluster' a second time" },
		{ RW("labels"), "cluster=\xff", "remote_write.labels: 'cluster=\xff' is not valid UTF-8" },
		{ RW("headers"), "X-Scope-OrgID tenant1", "remote_write.headers: 'X-Scope-OrgID "
		  "tenant1' is not 'Name: value' (like 'X-Scope-OrgID: tenant1')" },
		{ RW("headers"), ": a", "remote_write.headers: ': a' has a name that is not an HTTP "
		  "token (letters, digits, !#$%&'*+-.^_`|~)" },
		{ RW("headers"), "X-A:", "remote_write.headers: 'X-A:' has an empty value" },
		{ RW("headers"), "X-A: a\r\nX-B: b", "remote_write.headers: 'X-A: a??X-B: b' "
		  "contains a line break or control character" },
		{ RW("headers"), "Authorization: Basic eDp5", "remote_write.headers: 'Authorization: "
		  "Basic eDp5' would put a secret in the configuration: use username and "
		  "password_file, or bearer_token_file" },
		{ RW("headers"), "x-prometheus-remote-write-version: 2.0", "remote_write.headers: "
		  "'x-prometheus-remote-write-version: 2.0' sets a header of the remote-write "
		  "protocol, which the agent sets itself" },
		{ RW("headers"), "X-A: 1, x-a: 2", "remote_write.headers: 'x-a: 2' sets header 'x-a' "
		  "a second time" },
		{ RW("nope"), "1", "unknown key 'remote_write.nope' (known in 'remote_write': url, "
		  "interval, channels, labels, headers, username, password_file, bearer_token_file, "
		  "tls_ca_file, tls_cert_file, tls_key_file, tls_insecure, timeout, queue_size, "
		  "time_offset)" },
	};
	struct rv_config c, before;

	rv_config_defaults(&c);
	assert_int_equal(rv_config_set(&c, RW("labels"), "keep=me", NULL), 0);
	before = c;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rv_err err;
		int rc;

		rv_err_clear(&err);
		rc = rv_config_set(&c, cases[i].key, cases[i].value, &err);
		if (rc != -EINVAL || strcmp(err.msg, cases[i].want) != 0)
			fail_msg("%s '%s': rc %d '%s', want '%s'", cases[i].key, cases[i].value, rc,
				 err.msg, cases[i].want);
		expect_same(&c, &before, cases[i].key);
	}
}

/* ------------------------------------------------------------- lists */

/* A list in YAML: flow, block, one scalar (split at commas), null, []. */
static void test_list_forms(void **state)
{
	static const char block[] = "remote_write:\n  labels:\n    - cluster=eu1\n"
				    "    - 'group=job 42'\n  channels: gpu.*, mem.*\n"
				    "  headers: [\"X-A: b, c\"]\n";
	struct rv_config c;
	struct rv_err err;

	if (load(block, &c, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.remote_write.labels.n, 2);
	assert_string_equal(c.remote_write.labels.item[1], "group=job 42");
	assert_int_equal(c.remote_write.channels.n, 2);
	assert_string_equal(c.remote_write.channels.item[1], "mem.*");
	assert_int_equal(c.remote_write.headers.n, 1);
	assert_string_equal(c.remote_write.headers.item[0], "X-A: b, c");
	/* a file names the list: it replaces the one before, null and [] empty it */
	rv_err_clear(&err);
	assert_int_equal(rv_config_load_string("remote_write: {labels: [a=1]}", 29, "x", &c, &err),
			 0);
	assert_int_equal(c.remote_write.labels.n, 1);
	assert_string_equal(c.remote_write.labels.item[0], "a=1");
	assert_int_equal(c.remote_write.channels.n, 2);
	assert_int_equal(rv_config_load_string("remote_write:\n  labels:\n  channels: []\n", 39,
					       "x", &c, &err), 0);
	assert_int_equal(c.remote_write.labels.n, 0);
	assert_int_equal(c.remote_write.channels.n, 0);
	assert_int_equal(c.remote_write.headers.n, 1);
}

/* n items "PREFIX%02d..." of key (a label, header or pattern) as YAML and
 * as --set text. */
static void make_items(const char *key, int n, char *yaml, char *set, size_t size)
{
	const char *fmt = strstr(key, "labels") ? "l%02d=v" : strstr(key, "headers") ?
			  "X-H%02d: v" : strstr(key, "channels") ? "c%02d.*" : "s%02d";
	size_t y = (size_t)snprintf(yaml, size, "%s:\n  %s:\n", strstr(key, "collect") ?
				    "collect" : "remote_write", strchr(key, '.') + 1);
	size_t t = 0;

	set[0] = '\0';
	for (int i = 0; i < n; i++) {
		char item[32];

		snprintf(item, sizeof(item), fmt, i);
		y += (size_t)snprintf(yaml + y, size - y, "    - \"%s\"\n", item);
		t += (size_t)snprintf(set + t, size - t, "%s%s", i ? "," : "", item);
	}
}

/* 32 items fit each list, a 33rd is refused where it stands. */
static void test_list_count(void **state)
{
	static const struct { const char *key, *plural; } keys[] = {
		{ "collect.exclude", "names" }, { RW("channels"), "patterns" },
		{ RW("labels"), "labels" }, { RW("headers"), "headers" },
	};
	char *yaml = malloc(TEXT_BUF), *set = malloc(TEXT_BUF), want[WANT_BUF];
	struct rv_config c;
	struct rv_err err;

	assert_true(yaml && set);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		make_items(keys[i].key, RV_CFG_LIST_MAX, yaml, set, TEXT_BUF);
		if (load(yaml, &c, &err) != 0)
			fail_msg("%s", err.msg);
		rv_err_clear(&err);
		if (rv_config_set(&c, keys[i].key, set, &err) != 0 || rv_config_check(&c, &err))
			fail_msg("%s", err.msg);
		make_items(keys[i].key, RV_CFG_LIST_MAX + 1, yaml, set, TEXT_BUF);
		assert_int_equal(load(yaml, &c, &err), -EINVAL);
		/* header lines, 32 items, then the 33rd at column 7 */
		snprintf(want, sizeof(want), "t.yaml:%d:7: %s: more than 32 %s",
			 3 + RV_CFG_LIST_MAX, keys[i].key, keys[i].plural);
		assert_string_equal(err.msg, want);
		rv_err_clear(&err);
		assert_int_equal(rv_config_set(&c, keys[i].key, set, &err), -EINVAL);
		assert_string_equal(err.msg, want + strlen("t.yaml:35:7: "));
	}
	free(yaml);
	free(set);
}

/* An item of 255 bytes fits, one of 256 does not. */
static void test_item_length(void **state)
{
	static const char *const keys[] = { RW("channels"), RW("labels"), RW("headers") };
	static const char *const starts[] = { "c", "l=", "X-L: " };
	char item[RV_CFG_ITEM_MAX + 2], want[WANT_BUF];
	struct rv_config c;
	struct rv_err err;

	rv_config_defaults(&c);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		memset(item, 'v', sizeof(item));
		memcpy(item, starts[i], strlen(starts[i]));
		item[LONG_ITEM] = '\0';
		rv_err_clear(&err);
		if (rv_config_set(&c, keys[i], item, &err) != 0)
			fail_msg("%s: %s", keys[i], err.msg);
		item[LONG_ITEM] = 'v';
		item[LONG_ITEM + 1] = '\0';
		rv_err_clear(&err);
		assert_int_equal(rv_config_set(&c, keys[i], item, &err), -EINVAL);
		snprintf(want, sizeof(want), "%s: '%.60s...' is longer than 255 bytes", keys[i],
			 item);
		assert_string_equal(err.msg, want);
	}
	assert_int_equal(strlen(c.remote_write.channels.item[0]), LONG_ITEM);
	assert_int_equal(strlen(c.remote_write.labels.item[0]), LONG_ITEM);
	assert_int_equal(strlen(c.remote_write.headers.item[0]), LONG_ITEM);
}

/* Lists filled in C get the loader's checks from rv_config_check. */
static void test_check_lists(void **state)
{
	struct rv_config c;
	struct rv_err err;

	rv_config_defaults(&c);
	c.remote_write.labels.n = RV_CFG_LIST_MAX + 1;
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "remote_write.labels: more than 32 labels");

	rv_config_defaults(&c);
	c.remote_write.labels.n = 2;
	snprintf(c.remote_write.labels.item[0], RV_CFG_ITEM_MAX, "cluster=a");
	snprintf(c.remote_write.labels.item[1], RV_CFG_ITEM_MAX, "node=x");
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "remote_write.labels: label 2 sets a label the agent sets "
			    "itself (node, channel, subsystem, detector, fact, value; instance may "
			    "be set)");

	rv_config_defaults(&c);
	c.remote_write.headers.n = 1;
	memset(c.remote_write.headers.item[0], 'x', RV_CFG_ITEM_MAX);
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "remote_write.headers: header 1 is not NUL-terminated");

	rv_config_defaults(&c);
	c.remote_write.channels.n = 1;
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "remote_write.channels: pattern 1 is not a pattern of "
			    "channel names (like gpu.* or mem.*_bytes)");

	rv_config_defaults(&c);
	snprintf(c.remote_write.url, sizeof(c.remote_write.url), "ftp://h");
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "remote_write.url: 'ftp://h' is not an http:// or https:// "
			    "URL (like http://127.0.0.1:9090/api/v1/write)");

	rv_config_defaults(&c);
	c.remote_write.queue_size_bytes = 0;
	rv_err_clear(&err);
	assert_int_equal(rv_config_check(&c, &err), -EINVAL);
	assert_string_equal(err.msg, "remote_write.queue_size: '0' is not in 64KiB..4GiB");
}

/* Items with quotes, backslashes, '#', commas, non-ASCII and tabs come
 * back from rv_config_write bit for bit. */
static void test_round_trip(void **state)
{
	struct rv_config c, back;
	struct rv_err err;

	rv_config_defaults(&c);
	snprintf(c.remote_write.url, sizeof(c.remote_write.url),
		 "https://h.example/api/v1/push?tenant=a&x=%%20#frag");
	c.remote_write.labels.n = 3;
	snprintf(c.remote_write.labels.item[0], RV_CFG_ITEM_MAX, "note=\"q\" \\ , #x\t\xc3\xa9");
	snprintf(c.remote_write.labels.item[1], RV_CFG_ITEM_MAX, "instance=- [not a list]");
	snprintf(c.remote_write.labels.item[2], RV_CFG_ITEM_MAX, "e=\xe2\x80\xa8\xf0\x9f\x98\x80");
	c.remote_write.headers.n = 1;
	snprintf(c.remote_write.headers.item[0], RV_CFG_ITEM_MAX, "X-A: 'a', \"b\"\t# c");
	c.remote_write.channels.n = 2;
	snprintf(c.remote_write.channels.item[0], RV_CFG_ITEM_MAX, "*[,]*");
	snprintf(c.remote_write.channels.item[1], RV_CFG_ITEM_MAX, "null");
	c.remote_write.time_offset_s = 0.5;
	c.remote_write.queue_size_bytes = 1000000007;
	rv_err_clear(&err);
	if (rv_config_check(&c, &err) != 0)
		fail_msg("%s", err.msg);
	expect_round_trip(&c, &back, "round trip");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_list_forms),
		cmocka_unit_test(test_list_count),
		cmocka_unit_test(test_item_length),
		cmocka_unit_test(test_check_lists),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
