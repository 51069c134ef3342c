/*
 * select_metricset_test.c - the metric-set file (select/metricset.h): the
 * documented example read back field by field; every refusal with its
 * FILE:LINE:COL; names outside the catalog; files (missing, a folder, too
 * large); the writer's output read back to the same lists, names and
 * characters that need quoting included; lookups in a large set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select/metricset.h"

enum { PATH_BUF = 4096, NAME_BUF = 64, MANY = 3000 };

static const char example[] =
	"# reveal metric set (reveal prune): ...\n"
	"version: 1\n"
	"threshold: 0.5               # |r| above which a pair was redundant\n"
	"inputs: [a.rvl, b.csv]\n"
	"keep:\n"
	"  - cpu.busy_pct\n"
	"  - net.irqs_cpu:virtio2-input.0/cpu0\n"
	"  - mem.node_hugepages_size_nr:node0_2048kB\n"
	"drop:\n"
	"  - {channel: cpu.user_pct, kept: cpu.busy_pct, r: 0.97}\n"
	"  - channel: cpu.system_pct\n"
	"    kept: cpu.busy_pct\n"
	"    r: -0.61\n"
	"constant: [mem.mem_total_bytes]\n";

static struct rv_metricset *parse_ok(const char *text)
{
	struct rv_metricset *m = NULL;
	struct rv_err err;

	rv_err_clear(&err);
	if (rv_metricset_parse(text, strlen(text), "t.yaml", &m, &err) != 0)
		fail_msg("refused: %s\n%s", err.msg, text);
	return m;
}

static void test_example(void **state)
{
	struct rv_metricset *m = parse_ok(example);

	(void)state;
	assert_int_equal(rv_metricset_count(m), 3);
	assert_string_equal(rv_metricset_name(m, 0), "cpu.busy_pct");
	assert_string_equal(rv_metricset_name(m, 1), "net.irqs_cpu:virtio2-input.0/cpu0");
	assert_int_equal(rv_metricset_line(m, 0), 6);
	assert_int_equal(rv_metricset_line(m, 2), 8);
	assert_null(rv_metricset_name(m, 3));
	assert_int_equal(rv_metricset_has(m, "mem.node_hugepages_size_nr:node0_2048kB"), 1);
	assert_int_equal(rv_metricset_has(m, "cpu.user_pct"), 0);
	assert_int_equal(rv_metricset_has(m, "cpu.busy_pct:cpu0"), 0);
	assert_int_equal(rv_metricset_has(m, NULL), 0);
	assert_int_equal(rv_metricset_ndropped(m), 2);
	assert_string_equal(rv_metricset_dropped(m, 0)->channel, "cpu.user_pct");
	assert_string_equal(rv_metricset_dropped(m, 0)->kept, "cpu.busy_pct");
	assert_true(rv_metricset_dropped(m, 0)->r == 0.97);
	assert_true(rv_metricset_dropped(m, 1)->r == -0.61);
	assert_null(rv_metricset_dropped(m, 2));
	assert_int_equal(rv_metricset_nconstant(m), 1);
	assert_string_equal(rv_metricset_constant(m, 0), "mem.mem_total_bytes");
	assert_true(rv_metricset_threshold(m) == 0.5);
	assert_int_equal(rv_metricset_ninputs(m), 2);
	assert_string_equal(rv_metricset_input(m, 1), "b.csv");
	assert_int_equal(rv_metricset_uncatalogued(m), -1);
	rv_metricset_free(m);
	rv_metricset_free(NULL);

	m = parse_ok("version: 1\nkeep: [cpu.busy_pct]\ndrop:\nconstant: []\n");
	assert_true(isnan(rv_metricset_threshold(m)));
	assert_int_equal(rv_metricset_ndropped(m) + rv_metricset_nconstant(m), 0);
	assert_int_equal(rv_metricset_ninputs(m), 0);
	rv_metricset_free(m);
}

struct err_case {
	const char *text, *want;
};

#define K "version: 1\nkeep: [cpu.busy_pct]\n"
static const struct err_case err_cases[] = {
	{ "", "t.yaml:1:1: a metric set must be a mapping" },
	{ "- cpu.busy_pct\n", "t.yaml:1:1: a metric set must be a mapping" },
	{ "keep: [cpu.busy_pct]\n", "t.yaml:1:1: no 'version'" },
	{ "version: 2\nkeep: [cpu.busy_pct]\n", "t.yaml:1:10: version: expected 1" },
	{ "version: 1\n", "t.yaml:1:1: 'keep' lists no channel" },
	{ "version: 1\nkeep: []\n", "t.yaml:2:1: 'keep' lists no channel" },
	{ K "colour: red\n", "t.yaml:3:1: unknown key 'colour' (known: version," },
	{ K "version: 1\n", "t.yaml:3:1: duplicate key 'version' (first at 1:1)" },
	{ K "threshold: 1.5\n", "t.yaml:3:12: threshold: expected a number from 0 to 1" },
	{ K "threshold: half\n", "t.yaml:3:12: threshold: expected a number" },
	{ K "catalog: false\n", "t.yaml:3:1: unknown key 'catalog'" },
	{ "version: 1\nkeep: cpu.busy_pct\n", "t.yaml:2:7: keep: expected a list, not a single value" },
	{ "version: 1\nkeep: [[cpu.busy_pct]]\n", "t.yaml:2:8: keep: expected a channel name, not a list" },
	{ "version: 1\nkeep: [CPU.busy]\n", "t.yaml:2:8: keep: 'CPU.busy' is not a channel name" },
	{ "version: 1\nkeep: [\"cpu.busy_pct:a b\"]\n", "t.yaml:2:8: keep: 'cpu.busy_pct:a b' is not" },
	{ "version: 1\nkeep: [\"cpu.busy_pct:\"]\n", "is not a channel name" },
	{ "version: 1\nkeep: [\"cpu.busy_pct\\0x\"]\n", "t.yaml:2:8: a name must not hold a NUL" },
	{ "version: 1\nkeep: [cpu.busy_pct, cpu.user_pct, cpu.busy_pct]\n",
	  "t.yaml:2:36: channel 'cpu.busy_pct' is listed as kept here and as kept at 2:8" },
	{ K "drop: [{channel: cpu.busy_pct, kept: cpu.busy_pct, r: 1}]\n",
	  "t.yaml:3:18: channel 'cpu.busy_pct' is listed as dropped here and as kept at 2:8" },
	{ K "constant: [cpu.user_pct]\ndrop: [{channel: cpu.user_pct, kept: cpu.busy_pct, r: 1}]\n",
	  "t.yaml:4:18: channel 'cpu.user_pct' is listed as dropped here and as constant at 3:12" },
	{ K "drop: [{channel: cpu.user_pct, kept: cpu.system_pct, r: 0.9}]\n",
	  "t.yaml:3:38: drop: kept channel 'cpu.system_pct' is not in 'keep'" },
	{ K "drop: [{channel: cpu.user_pct, kept: cpu.busy_pct, r: 1.01}]\n",
	  "t.yaml:3:55: drop: r: expected a number from -1 to 1" },
	{ K "drop: [{channel: cpu.user_pct, kept: cpu.busy_pct, r: nan}]\n", "drop: r: expected" },
	{ K "drop: [{channel: cpu.user_pct, kept: cpu.busy_pct}]\n", "t.yaml:3:8: drop: no 'r'" },
	{ K "drop: [{channel: cpu.user_pct, r: 0.9}]\n", "t.yaml:3:8: drop: no 'kept'" },
	{ K "drop: [{kept: cpu.busy_pct, r: 0.9}]\n", "t.yaml:3:8: drop: no 'channel'" },
	{ K "drop: [{channel: cpu.user_pct, kept: cpu.busy_pct, r: 1, why: x}]\n",
	  "t.yaml:3:58: drop: unknown key 'why'" },
	{ K "drop: [{channel: cpu.user_pct, channel: cpu.busy_pct}]\n", "drop: duplicate key 'channel'" },
	{ K "drop: [cpu.user_pct]\n", "t.yaml:3:8: drop: expected a mapping" },
	{ K "drop: {channel: cpu.user_pct}\n", "t.yaml:3:7: drop: expected a list" },
	{ "version: &v 1\nkeep: [cpu.busy_pct]\n", "t.yaml:1:10:" },
	{ K "---\nversion: 1\n", "only one YAML document is allowed" },
	{ "version: 1\nkeep: [cpu.busy_pct\n", "t.yaml:3:1:" },
	{ "version: 1\nkeep: [cpu.busy\xc3]\n", "t.yaml:2:17: invalid trailing UTF-8 octet" },
	{ "[a]: 1\n", "t.yaml:1:1: a key must be a name" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		struct rv_metricset *m = (struct rv_metricset *)&m;
		struct rv_err err;
		int rc;

		rv_err_clear(&err);
		rc = rv_metricset_parse(c->text, strlen(c->text), "t.yaml", &m, &err);
		if (rc != -EINVAL || !strstr(err.msg, c->want))
			fail_msg("case %zu: rc %d, message '%s', wanted '%s'\n%s", i, rc, err.msg,
				 c->want, c->text);
		assert_int_equal(err.code, -EINVAL);
		assert_null(m);
		assert_int_equal(rv_metricset_parse(c->text, strlen(c->text), NULL, &m, NULL),
				 -EINVAL);
	}
}

/* Offline CSV columns (SMD): any metric type of the right characters;
 * whether the catalog knows them is the caller's question. */
static void test_uncatalogued(void **state)
{
	static const char text[] = "version: 1\n"
				   "keep: [cpu.busy_pct, cpu.cpu_r, unknown.metric_01]\n"
				   "drop: [{channel: cpu.load_1, kept: cpu.cpu_r, r: 0.8}]\n";
	struct rv_metricset *m = parse_ok(text);
	struct rv_err err;

	(void)state;
	assert_int_equal(rv_metricset_uncatalogued(m), 1);
	assert_int_equal(rv_metricset_has(m, "unknown.metric_01"), 1);
	rv_metricset_free(m);
	rv_err_clear(&err);
	assert_int_equal(rv_metricset_parse("version: 1\nkeep: [Cpu]\n", 22, "t", &m, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "t:2:8: keep: 'Cpu' is not a channel name (a metric type "
			    "of [a-z0-9_.-], then ':' and an instance)");
}

static void test_valid_name(void **state)
{
	static const char *const good[] = { "cpu.busy_pct", "a", "0x", "gpu.util:0000:3b:00.0",
					    "net.x:Eth0/\"#[]" };
	static const char *const bad[] = { "", "Cpu", ".x", "-x", "cpu.busy pct", "cpu:",
					   "cpu.a:b c", "cpu.a:\x7f", "cpu/x", "cpu.\xc3\xa9" };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!rv_metricset_valid_name(good[i]))
			fail_msg("'%s' refused", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (rv_metricset_valid_name(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(rv_metricset_valid_name(NULL), 0);
}

static void write_file(const char *path, const char *text, size_t repeat)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < repeat; i++)
		fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_files(void **state)
{
	char dir[] = "/tmp/rv_metricset_test_XXXXXX", path[PATH_BUF], want[2 * PATH_BUF];
	struct rv_metricset *m = NULL;
	struct rv_err err;

	(void)state;
	rv_err_clear(&err);
	assert_int_equal(rv_metricset_load("/nonexistent/set.yaml", &m, &err), -ENOENT);
	assert_string_equal(err.msg, "/nonexistent/set.yaml: No such file or directory");
	assert_non_null(mkdtemp(dir));
	rv_err_clear(&err);
	assert_int_equal(rv_metricset_load(dir, &m, &err), -EISDIR);
	snprintf(path, sizeof(path), "%s/set.yaml", dir);
	write_file(path, "version: 1\nkeep:\n  - cpu.busy_pct\n  - cpu.busy_pct\n", 1);
	rv_err_clear(&err);
	assert_int_equal(rv_metricset_load(path, &m, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:4:5: channel 'cpu.busy_pct' is listed as kept here", path);
	assert_non_null(strstr(err.msg, want));
	write_file(path, example, 1);
	assert_int_equal(rv_metricset_load(path, &m, NULL), 0);
	assert_int_equal(rv_metricset_count(m), 3);
	rv_metricset_free(m);
	write_file(path, "# sixteen bytes\n", (16 << 20) / 16 + 1);
	rv_err_clear(&err);
	assert_int_equal(rv_metricset_load(path, &m, &err), -EFBIG);
	assert_non_null(strstr(err.msg, "not a metric set"));
	assert_null(m);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Writes spec into a string and reads it back. */
static struct rv_metricset *round_trip(const struct rv_metricset_spec *s, char **text)
{
	size_t len = 0;
	FILE *f = open_memstream(text, &len);
	struct rv_metricset *m = NULL;
	struct rv_err err;

	assert_non_null(f);
	rv_err_clear(&err);
	if (rv_metricset_write(f, s, &err) != 0)
		fail_msg("write: %s", err.msg);
	assert_int_equal(fclose(f), 0);
	rv_err_clear(&err);
	if (rv_metricset_parse(*text, len, "w.yaml", &m, &err) != 0)
		fail_msg("written set refused: %s\n%s", err.msg, *text);
	return m;
}

static void test_write_round_trip(void **state)
{
	static const char *const keep[] = { "cpu.busy_pct", "net.irqs_cpu:virtio2-input.0/cpu0",
					    "gpu.util_pct:0000:3b:00.0", "net.rx_bytes:a\"b\\c",
					    "net.tx_bytes:#x,[y]{z}:", "cpu.user_pct:-" };
	static const struct rv_metricset_drop drop[] = {
		{ "cpu.system_pct", "cpu.busy_pct", 0.97123 },
		{ "net.rx_bytes:x:", "net.tx_bytes:#x,[y]{z}:", -1.0 },
	};
	static const char *const cons[] = { "mem.mem_total_bytes" };
	static const char *const inputs[] = { "a b.rvl", "q\"uote\\.csv", "caf\xc3\xa9", "bad\xff" };
	struct rv_metricset_spec s = { .threshold = 0.5, .inputs = inputs, .ninputs = 4,
				       .keep = keep, .nkeep = 6, .drop = drop, .ndrop = 2,
				       .constant = cons, .nconstant = 1 };
	char *text = NULL;
	struct rv_metricset *m = round_trip(&s, &text);

	(void)state;
	assert_int_equal(rv_metricset_count(m), 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(rv_metricset_name(m, i), keep[i]);
	assert_int_equal(rv_metricset_ndropped(m), 2);
	assert_string_equal(rv_metricset_dropped(m, 1)->channel, drop[1].channel);
	assert_string_equal(rv_metricset_dropped(m, 1)->kept, drop[1].kept);
	assert_true(rv_metricset_dropped(m, 0)->r == 0.9712);
	assert_true(rv_metricset_dropped(m, 1)->r == -1.0);
	assert_string_equal(rv_metricset_constant(m, 0), cons[0]);
	assert_true(rv_metricset_threshold(m) == 0.5);
	assert_string_equal(rv_metricset_input(m, 1), inputs[1]);
	assert_string_equal(rv_metricset_input(m, 2), inputs[2]);
	assert_string_equal(rv_metricset_input(m, 3), "bad\xc3\xbf");  /* \xff: U+00FF */
	assert_non_null(strstr(text, "\n  - cpu.busy_pct\n"));
	rv_metricset_free(m);
	free(text);
}

/* Characters YAML folds or refuses raw in a quoted scalar (NEL, a C1
 * control, LS, PS, BOM) are escaped and come back as they were. */
static void test_write_special_characters(void **state)
{
	static const char *const keep[] = { "cpu.busy_pct" };
	static const char *const inputs[] = { "a\xc2\x85" "b", "\xc2\x80", "x\xe2\x80\xa8y",
					      "\xe2\x80\xa9", "\xef\xbb\xbfz", "\xc3\xa9\xe2\x82\xac" };
	struct rv_metricset_spec s = { .threshold = NAN, .keep = keep, .nkeep = 1,
				       .inputs = inputs, .ninputs = 6 };
	char *text = NULL;
	struct rv_metricset *m = round_trip(&s, &text);

	(void)state;
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(rv_metricset_input(m, i), inputs[i]);
	assert_non_null(strstr(text, "\"a\\u0085b\""));
	assert_non_null(strstr(text, "\"\xc3\xa9\xe2\x82\xac\""));   /* kept raw */
	rv_metricset_free(m);
	free(text);
}

static void test_write_offline_and_refusals(void **state)
{
	static const char *const keep[] = { "cpu.cpu_r" };
	static const char *const bad[] = { "Cpu" };
	struct rv_metricset_drop nan_r = { "cpu.load_1", "cpu.cpu_r", NAN };
	struct rv_metricset_spec s = { .threshold = NAN, .keep = keep, .nkeep = 1 };
	char *text = NULL;
	struct rv_metricset *m = round_trip(&s, &text);
	struct rv_err err;
	FILE *f;

	(void)state;
	assert_int_equal(rv_metricset_uncatalogued(m), 0);
	assert_true(isnan(rv_metricset_threshold(m)));
	rv_metricset_free(m);
	free(text);
	f = fopen("/dev/null", "w");
	assert_non_null(f);
	s.keep = bad;
	rv_err_clear(&err);
	assert_int_equal(rv_metricset_write(f, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "channel 'Cpu' is not a channel name"));
	s.keep = keep;
	s.drop = &nan_r;
	s.ndrop = 1;
	assert_int_equal(rv_metricset_write(f, &s, NULL), -EINVAL);
	s.ndrop = 0;
	s.nkeep = 0;
	assert_int_equal(rv_metricset_write(f, &s, NULL), -EINVAL);
	assert_int_equal(fclose(f), 0);
}

/* Lookups in a set of MANY channels: every kept one found, no other. */
static void test_many(void **state)
{
	static char names[MANY][NAME_BUF];
	static const char *keep[MANY];
	struct rv_metricset_spec s = { .threshold = 0.5, .keep = keep, .nkeep = MANY };
	char *text = NULL, probe[NAME_BUF];
	struct rv_metricset *m;

	(void)state;
	for (size_t i = 0; i < MANY; i++) {
		snprintf(names[i], NAME_BUF, "cpu.busy_pct:cpu%zu", (i * 7919) % (2 * MANY));
		keep[i] = names[i];
	}
	m = round_trip(&s, &text);
	for (size_t i = 0; i < 2 * MANY; i++) {
		int want = 0;

		snprintf(probe, sizeof(probe), "cpu.busy_pct:cpu%zu", i);
		for (size_t j = 0; j < MANY && !want; j++)
			want = strcmp(names[j], probe) == 0;
		assert_int_equal(rv_metricset_has(m, probe), want);
	}
	assert_int_equal(rv_metricset_line(m, MANY - 1), MANY + 5);
	rv_metricset_free(m);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_uncatalogued),
		cmocka_unit_test(test_valid_name),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_write_round_trip),
		cmocka_unit_test(test_write_special_characters),
		cmocka_unit_test(test_write_offline_and_refusals),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
