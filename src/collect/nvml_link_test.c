/*
 * nvml_link_test.c - the NVLink part of the nvml source (nvml_link.c)
 * against the fake NVIDIA management library (tests/fakes/nvidia_ml_fake/
 * link.c: its header gives the formulas the values here follow): the
 * channels of an h100 (18 links, link-scoped error ids and state field)
 * and an a100 (12 links, the per-link ids of older drivers, the state by
 * nvmlDeviceGetNvLinkState), on the new and the old driver; exact values
 * over two sweeps; the inactive link 5 of GPU 1; a field that fails or is
 * not supported; nvmlDeviceGetFieldValues not supported or missing;
 * nvmlDeviceGetNvLinkState missing; a GPU without NVLink; a GPU lost.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "collect/nvml_int.h"
#include "collect/nvml_testutil.h"
#include "collect/sources.h"

enum { H100_LINKS = 18, A100_LINKS = 12, DOWN_GPU = 1, DOWN_LINK = 5 };

/* Per-link channel types in the part's order; h100 has no CRC data. */
static const char *const link_types[] = {
	"gpu.nvlink_up", "gpu.nvlink_data_tx_bytes", "gpu.nvlink_data_rx_bytes",
	"gpu.nvlink_crc_flit_errors", "gpu.nvlink_crc_data_errors", "gpu.nvlink_replay_errors",
	"gpu.nvlink_recovery_errors",
};
enum { TYPES = sizeof(link_types) / sizeof(link_types[0]), T_DATA = 4 };

static int setup(void **state)
{
	reset(state);
	unsetenv("FAKE_NVML_FIELD_FAIL");
	unsetenv("FAKE_NVML_FIELD_NOT_SUPPORTED");
	return 0;
}

static void link_name(char *buf, size_t len, const char *type, unsigned g, unsigned l)
{
	snprintf(buf, len, "%s:gpu%u-link%u", type, g, l);
}

/* Index of a link channel, -1 when absent. */
static long lchan(const struct run *r, const char *type, unsigned g, unsigned l)
{
	char name[96];

	link_name(name, sizeof(name), type, g, l);
	return chan(r, name);
}

static double lval(const struct run *r, const char *type, unsigned g, unsigned l)
{
	long i = lchan(r, type, g, l);

	if (i < 0)
		fail_msg("no channel %s:gpu%u-link%u", type, g, l);
	if (!r->ok[i])
		fail_msg("channel %s:gpu%u-link%u invalid", type, g, l);
	return r->raw[i];
}

/* A channel of this part: a per-link instance (the GPM part has
 * gpu.nvlink_tx_bytes per GPU). */
static int is_link(const char *name)
{
	return strncmp(name, "gpu.nvlink_", 11) == 0 && strstr(name, "-link") != NULL;
}

/* The part's channels whose name starts with prefix. */
static size_t count_links(const struct run *r, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < r->l.n; i++)
		n += is_link(r->l.v[i].name) &&
		     strncmp(r->l.v[i].name, prefix, strlen(prefix)) == 0;
	return n;
}

static void links_valid(const struct run *r)
{
	for (size_t i = 0; i < r->l.n; i++)
		if (is_link(r->l.v[i].name) && r->ok[i] != 1)
			fail_msg("channel %s invalid", r->l.v[i].name);
}

static int has_note(const struct run *r, const char *text)
{
	for (size_t i = 0; i < r->l.nnotes; i++)
		if (strcmp(r->l.notes[i].part, "nvml.nvlink") == 0 &&
		    strstr(r->l.notes[i].reason, text))
			return 1;
	return 0;
}

static size_t link_notes(const struct run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->l.nnotes; i++)
		n += strcmp(r->l.notes[i].part, "nvml.nvlink") == 0;
	return n;
}

/* The link channels of GPUs 0..ngpu-1 follow each other: per GPU, per
 * link, the types of the model in order. */
static void check_layout(const struct run *r, unsigned ngpu, unsigned nlinks, int with_data)
{
	long at = lchan(r, "gpu.nvlink_up", 0, 0);
	char name[96];

	assert_true(at >= 0);
	for (unsigned g = 0; g < ngpu; g++)
		for (unsigned l = 0; l < nlinks; l++)
			for (size_t t = 0; t < TYPES; t++) {
				if (t == T_DATA && !with_data)
					continue;
				link_name(name, sizeof(name), link_types[t], g, l);
				assert_true((size_t)at < r->l.n);
				assert_string_equal(r->l.v[at].name, name);
				assert_string_equal(r->l.v[at].source, "nvml");
				at++;
			}
	assert_int_equal(count_links(r, "gpu.nvlink_"),
			 (size_t)at - (size_t)lchan(r, "gpu.nvlink_up", 0, 0));
}

static void test_h100_channels(void **state)
{
	struct run r;
	long up, tx, flit;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_GPUS", "3", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	check_layout(&r, 3, H100_LINKS, 0);
	assert_int_equal(count_links(&r, "gpu.nvlink_"), 3 * H100_LINKS * 6);
	up = lchan(&r, "gpu.nvlink_up", 2, 17);
	tx = lchan(&r, "gpu.nvlink_data_tx_bytes", 2, 17);
	flit = lchan(&r, "gpu.nvlink_crc_flit_errors", 2, 17);
	assert_true(r.l.v[up].metric->kind == RV_KIND_GAUGE && r.l.v[up].scale == 1.0);
	assert_true(r.l.v[tx].metric->kind == RV_KIND_COUNTER && r.l.v[tx].scale == 1024.0);
	assert_true(r.l.v[flit].metric->kind == RV_KIND_EVENT && r.l.v[flit].scale == 1.0);
	assert_int_equal(link_notes(&r), 3);
	for (unsigned g = 0; g < 3; g++) {
		char text[128];

		snprintf(text, sizeof(text), "gpu%u (NVIDIA H100 80GB HBM3 (fake %u)): "
			 "gpu.nvlink_crc_data_errors not supported on 18 of 18 links", g, g);
		assert_true(has_note(&r, text));
	}
	run_close(&r);
}

/* The a100's channels, on the current and on the old driver alike. */
static void test_a100_channels(void **state)
{
	static const char *const libs[] = { "libnvidia_ml_fake.so", "libnvidia_ml_old.so" };

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "a100", 1);
	for (size_t i = 0; i < 2; i++) {
		struct run r;

		run_open_fake(&r, libs[i]);
		check_layout(&r, 2, A100_LINKS, 1);
		assert_int_equal(count_links(&r, "gpu.nvlink_"), 2 * A100_LINKS * 7);
		assert_int_equal(lchan(&r, "gpu.nvlink_up", 0, 12), -1);
		assert_int_equal(link_notes(&r), 0);
		run_close(&r);
	}
}

/* Counters of GPU g, link l at call k (the probe at open was k = 0); the
 * inactive link moves nothing. */
static void check_counters(const struct run *r, unsigned g, unsigned l, unsigned k, int with_data)
{
	unsigned kk = g == DOWN_GPU && l == DOWN_LINK ? 0 : k;
	double link_kib = 1000.0 * l + kk;

	assert_true(lval(r, "gpu.nvlink_data_tx_bytes", g, l) == 100000.0 * (g + 1) + link_kib);
	assert_true(lval(r, "gpu.nvlink_data_rx_bytes", g, l) == 200000.0 * (g + 1) + link_kib);
	assert_true(lval(r, "gpu.nvlink_crc_flit_errors", g, l) == 10 * g + l + kk);
	assert_true(lval(r, "gpu.nvlink_replay_errors", g, l) == g + 2 * kk);
	assert_true(lval(r, "gpu.nvlink_recovery_errors", g, l) == l % 3);
	if (with_data)
		assert_true(lval(r, "gpu.nvlink_crc_data_errors", g, l) == 10 * g + l);
}

static double expect_up(unsigned g, unsigned l)
{
	return g == DOWN_GPU && l == DOWN_LINK ? 0 : 1;
}

/* h100: the state field rides in the call, valid at every sweep. */
static void test_h100_values(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	for (unsigned k = 1; k <= 2; k++) {
		run_sample(&r);
		links_valid(&r);
		for (unsigned g = 0; g < 2; g++)
			for (unsigned l = 0; l < H100_LINKS; l++) {
				assert_true(lval(&r, "gpu.nvlink_up", g, l) == expect_up(g, l));
				check_counters(&r, g, l, k, 0);
			}
	}
	assert_true(lval(&r, "gpu.nvlink_data_tx_bytes", 1, 5) == 205000);
	assert_true(lval(&r, "gpu.nvlink_data_tx_bytes", 1, 6) == 206002);
	run_close(&r);
}

/* a100: the state comes from nvmlDeviceGetNvLinkState, at most once a
 * second: the first sweep has it, a sweep less than a second later not. */
static void test_a100_values(void **state)
{
	struct run r;
	rv_ns t1;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "a100", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	run_sample(&r);
	t1 = rv_clock_ns();
	links_valid(&r);
	for (unsigned g = 0; g < 2; g++)
		for (unsigned l = 0; l < A100_LINKS; l++) {
			assert_true(lval(&r, "gpu.nvlink_up", g, l) == expect_up(g, l));
			check_counters(&r, g, l, 1, 1);
		}
	run_sample(&r);
	for (unsigned g = 0; g < 2; g++)
		for (unsigned l = 0; l < A100_LINKS; l++) {
			long up = lchan(&r, "gpu.nvlink_up", g, l);

			if (rv_clock_since_s(t1) < 0.9)
				assert_int_equal(r.ok[up], 0);
			check_counters(&r, g, l, 2, 1);
		}
	run_close(&r);
}

/* Without the state field (an older h100 driver), the state call too. */
static void test_state_field_not_supported(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_FIELD_NOT_SUPPORTED", "165", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(count_links(&r, "gpu.nvlink_"), 2 * H100_LINKS * 6);
	run_sample(&r);
	links_valid(&r);
	assert_true(lval(&r, "gpu.nvlink_up", 1, 5) == 0);
	assert_true(lval(&r, "gpu.nvlink_up", 1, 17) == 1);
	check_counters(&r, 0, 17, 1, 0);
	run_close(&r);
}

static void test_no_nvlink(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(count_links(&r, "gpu.nvlink_"), 0);
	run_sample(&r);
	all_valid(&r);
	assert_int_equal(link_notes(&r), 2);
	assert_true(has_note(&r, "gpu0 (NVIDIA T4 (fake 0)): no NVLink"));
	assert_true(has_note(&r, "gpu1 (NVIDIA T4 (fake 1)): no NVLink"));
	run_close(&r);
}

/* A field that fails keeps its channels, invalid; one not supported at
 * open has none, noted. */
static void test_field_fails(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_FIELD_FAIL", "139", 1);
	setenv("FAKE_NVML_FIELD_NOT_SUPPORTED", "163", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(count_links(&r, "gpu.nvlink_"), 2 * H100_LINKS * 5);
	assert_int_equal(count_links(&r, "gpu.nvlink_crc_flit_errors"), 0);
	assert_true(has_note(&r, "gpu1 (NVIDIA H100 80GB HBM3 (fake 1)): gpu.nvlink_crc_flit_errors not "
			     "supported on 18 of 18 links"));
	for (unsigned k = 1; k <= 2; k++) {
		run_sample(&r);
		for (size_t i = 0; i < r.l.n; i++) {
			const char *name = r.l.v[i].name;

			if (is_link(name))
				assert_int_equal(r.ok[i], strncmp(name, "gpu.nvlink_data_rx", 18) != 0);
		}
		assert_true(lval(&r, "gpu.nvlink_data_tx_bytes", 0, 3) == 100000 + 3000 + k);
		assert_true(lval(&r, "gpu.nvlink_replay_errors", 1, 9) == 1 + 2 * k);
	}
	run_close(&r);
}

/* nvmlDeviceGetFieldValues answers NOT_SUPPORTED: the links' state only. */
static void test_field_values_not_supported(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlDeviceGetFieldValues", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(count_links(&r, "gpu.nvlink_"), 2 * H100_LINKS);
	assert_int_equal(count_links(&r, "gpu.nvlink_up:"), 2 * H100_LINKS);
	assert_true(has_note(&r, "gpu0 (NVIDIA H100 80GB HBM3 (fake 0)): NVLink counters: "
			     "nvmlDeviceGetFieldValues: Not Supported (3)"));
	assert_int_equal(link_notes(&r), 2);
	run_sample(&r);
	links_valid(&r);
	assert_true(lval(&r, "gpu.nvlink_up", 1, 5) == 0);
	assert_true(lval(&r, "gpu.nvlink_up", 0, 5) == 1);
	run_close(&r);
}

/* A library without nvmlDeviceGetFieldValues: the part opened again on
 * the source's state with that call taken away. */
static void test_field_values_missing(void **state)
{
	struct run r;
	struct rv_chanlist l = { .source = "nvml" };
	struct rv_err err;
	struct nvml_src *st;
	double raw[2 * H100_LINKS];
	uint8_t ok[2 * H100_LINKS] = { 0 };
	void *part = NULL;
	size_t nchan;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	st = r.st;
	nchan = st->nchan;
	st->api.field_values = NULL;
	rv_err_clear(&err);
	assert_int_equal(rv_nvml_part_link.open(st, &l, &part, &err), 0);
	assert_non_null(part);
	assert_int_equal(l.n, 2 * H100_LINKS);
	assert_int_equal(l.nnotes, 1);
	assert_string_equal(l.notes[0].part, "nvml.nvlink");
	assert_non_null(strstr(l.notes[0].reason, "no nvmlDeviceGetFieldValues in"));
	assert_string_equal(l.v[H100_LINKS + 5].name, "gpu.nvlink_up:gpu1-link5");
	rv_nvml_part_link.sample(part, raw, ok);
	for (size_t i = 0; i < l.n; i++) {
		assert_int_equal(ok[i], 1);
		assert_true(raw[i] == (i == H100_LINKS + 5 ? 0 : 1));
	}
	rv_nvml_part_link.close(part);
	rv_chanlist_fini(&l);
	st->nchan = nchan;
	run_close(&r);
}

static void test_state_call_missing(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	run_open_fake(&r, "libnvidia_ml_nosym.so");
	assert_int_equal(count_links(&r, "gpu.nvlink_"), 0);
	assert_int_equal(link_notes(&r), 1);
	assert_true(has_note(&r, "no nvmlDeviceGetNvLinkState in "));
	run_close(&r);
}

/* GPU 1 falls off the bus after the probe and one sample. */
static void test_gpu_lost(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_LOST_AFTER", "2", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	run_sample(&r);
	links_valid(&r);
	for (unsigned s = 0; s < 2; s++) {
		run_sample(&r);
		for (unsigned l = 0; l < H100_LINKS; l++) {
			for (size_t t = 0; t < TYPES; t++) {
				long i = lchan(&r, link_types[t], 1, l);

				assert_true(t == T_DATA ? i < 0 : i >= 0 && r.ok[i] == 0);
			}
			check_counters(&r, 0, l, 2 + s, 0);
		}
		assert_true(val(&r, "gpu.util_pct", 0) == 12 + s);
	}
	run_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_h100_channels, setup),
		cmocka_unit_test_setup(test_a100_channels, setup),
		cmocka_unit_test_setup(test_h100_values, setup),
		cmocka_unit_test_setup(test_a100_values, setup),
		cmocka_unit_test_setup(test_state_field_not_supported, setup),
		cmocka_unit_test_setup(test_no_nvlink, setup),
		cmocka_unit_test_setup(test_field_fails, setup),
		cmocka_unit_test_setup(test_field_values_not_supported, setup),
		cmocka_unit_test_setup(test_field_values_missing, setup),
		cmocka_unit_test_setup(test_state_call_missing, setup),
		cmocka_unit_test_setup(test_gpu_lost, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
