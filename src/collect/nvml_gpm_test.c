/*
 * nvml_gpm_test.c - part "nvml.gpm" of the nvml source (nvml_gpm.c)
 * against the fake NVIDIA management libraries (tests/fakes/, formulas in
 * tests/fakes/nvidia_ml_fake/gpm.c): the GPM channels of two H100s and
 * their values over several sweeps, MIG instances with memory and GPM, and
 * what degrades with a note: GPM missing from an old driver, MIG calls
 * missing, GPUs before Hopper, the basic model, GPM per GPU instance not
 * supported, a metric in error, a failed sample and the recovery after it,
 * a lost GPU.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_testutil.h"
#include "collect/sources.h"

enum { NGPM = 12, NMEM = 2 };

/* The part's channel types of the whole GPU, in its order, with the GPM
 * metric ids (nvml.h) the fake's values follow. */
static const struct {
	const char *type;
	unsigned id;
	double scale;
} gpm[NGPM] = {
	{ "gpu.gr_active_pct", 1, 1 }, { "gpu.sm_active_pct", 2, 1 },
	{ "gpu.sm_occupancy_pct", 3, 1 }, { "gpu.tensor_active_pct", 5, 1 },
	{ "gpu.fp64_active_pct", 11, 1 }, { "gpu.fp32_active_pct", 12, 1 },
	{ "gpu.fp16_active_pct", 13, 1 }, { "gpu.dram_active_pct", 10, 1 },
	{ "gpu.gpm_pcie_tx_bytes", 20, 1048576 }, { "gpu.gpm_pcie_rx_bytes", 21, 1048576 },
	{ "gpu.nvlink_tx_bytes", 61, 1048576 }, { "gpu.nvlink_rx_bytes", 60, 1048576 },
};

static const char *const gpm_vars[] = {
	"FAKE_NVML_GPM_FAIL", "FAKE_NVML_GPM_UNSUPPORTED",
};

static int reset_gpm(void **state)
{
	for (size_t i = 0; i < sizeof(gpm_vars) / sizeof(gpm_vars[0]); i++)
		unsetenv(gpm_vars[i]);
	return reset(state);
}

/* The fake's value of metric `id` between samples seq1 and seq2 of GPU i
 * (gi 0) or of its GPU instance gi. */
static double expect(unsigned id, unsigned seq1, unsigned seq2, unsigned i, unsigned gi)
{
	return 1000.0 * id + 100.0 * seq2 + 10.0 * (seq2 - seq1) + i + 100000.0 * gi;
}

/* Index of channel type:inst, failing when absent. */
static size_t at(const struct run *r, const char *type, const char *inst)
{
	char name[96];
	long i;

	snprintf(name, sizeof(name), "%s:%s", type, inst);
	i = chan(r, name);
	if (i < 0)
		fail_msg("no channel %s", name);
	return (size_t)i;
}

static int has_type(const struct run *r, const char *type, const char *inst)
{
	char name[96];

	snprintf(name, sizeof(name), "%s:%s", type, inst);
	return chan(r, name) >= 0;
}

/* How many notes this part made, and whether one reads `text`. */
static size_t notes(const struct run *r)
{
	size_t n = 0;

	for (size_t k = 0; k < r->l.nnotes; k++)
		n += strcmp(r->l.notes[k].part, "nvml.gpm") == 0;
	return n;
}

static int has_note(const struct run *r, const char *text)
{
	for (size_t k = 0; k < r->l.nnotes; k++)
		if (strcmp(r->l.notes[k].part, "nvml.gpm") == 0 &&
		    strcmp(r->l.notes[k].reason, text) == 0)
			return 1;
	return 0;
}

static void print_notes(const struct run *r)
{
	for (size_t k = 0; k < r->l.nnotes; k++)
		print_message("note %s: %s\n", r->l.notes[k].part, r->l.notes[k].reason);
}

/* Every GPM channel of `inst` valid with the fake's value for the pair. */
static void check_gpm(const struct run *r, const char *inst, unsigned seq1, unsigned seq2,
		      unsigned i, unsigned gi)
{
	for (size_t k = 0; k < NGPM; k++) {
		size_t c = at(r, gpm[k].type, inst);

		if (!r->ok[c])
			fail_msg("channel %s invalid", r->l.v[c].name);
		assert_true(r->raw[c] == expect(gpm[k].id, seq1, seq2, i, gi));
	}
}

static void check_gpm_invalid(const struct run *r, const char *inst)
{
	for (size_t k = 0; k < NGPM; k++)
		assert_int_equal(r->ok[at(r, gpm[k].type, inst)], 0);
}

static void no_gpm(const struct run *r, const char *inst)
{
	for (size_t k = 0; k < NGPM; k++)
		assert_false(has_type(r, gpm[k].type, inst));
}

/* Two H100s: twelve channels each, after all the base channels. */
static void test_h100_channels(void **state)
{
	struct run r;
	char name[96];
	size_t first;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	first = at(&r, "gpu.gr_active_pct", "gpu0");
	assert_true(first > at(&r, "gpu.xid_errors", "gpu1"));
	for (unsigned g = 0; g < 2; g++)
		for (size_t k = 0; k < NGPM; k++) {
			const struct rv_chan *c = &r.l.v[first + g * NGPM + k];

			snprintf(name, sizeof(name), "%s:gpu%u", gpm[k].type, g);
			assert_string_equal(c->name, name);
			assert_string_equal(c->source, "nvml");
			assert_true(c->scale == gpm[k].scale);
			assert_true(c->metric->kind == RV_KIND_GAUGE);
		}
	assert_int_equal(notes(&r), 0);
	run_close(&r);
}

/* Each sweep measures from the previous sample to the new one. */
static void test_h100_values(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	for (unsigned s = 1; s <= 3; s++) {
		run_sample(&r);
		check_gpm(&r, "gpu0", s - 1, s, 0, 0);
		check_gpm(&r, "gpu1", s - 1, s, 1, 0);
		assert_true(val(&r, "gpu.fp64_active_pct", 0) == 11000 + 100 * s + 10);
	}
	/* The one a reader sees: SM active of GPU 1 in sweep 3 (samples 2, 3). */
	assert_true(r.raw[at(&r, "gpu.sm_active_pct", "gpu1")] == 2311);
	run_close(&r);
}

/* Ampere: the GPM calls exist but the device is not supported. */
static void test_a100_not_supported(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "a100", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	no_gpm(&r, "gpu0");
	no_gpm(&r, "gpu1");
	assert_int_equal(notes(&r), 2);
	assert_true(has_note(&r, "gpu0 (NVIDIA A100-SXM4-80GB (fake 0)): GPM not supported "
			     "(needs Hopper or later)"));
	assert_true(has_note(&r, "gpu1 (NVIDIA A100-SXM4-80GB (fake 1)): GPM not supported "
			     "(needs Hopper or later)"));
	run_sample(&r);
	run_close(&r);
}

/* The basic model answers NOT_SUPPORTED: no channel, the same note, and no
 * note for MIG (a GPU without MIG lacks nothing). */
static void test_basic_model(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	run_open_fake(&r, "libnvidia_ml_fake.so");
	for (size_t i = 0; i < r.l.n; i++)
		assert_null(strstr(r.l.v[i].name, "active_pct"));
	assert_int_equal(notes(&r), 2);
	assert_true(has_note(&r, "gpu1 (NVIDIA T4 (fake 1)): GPM not supported "
			     "(needs Hopper or later)"));
	run_sample(&r);
	all_valid(&r);
	run_close(&r);
}

/* A driver before R520: no GPM calls at all, one note naming the first
 * one; MIG still lists its instances with their memory. */
static void test_old_driver(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_MIG", "0:2", 1);
	run_open_fake(&r, "libnvidia_ml_old.so");
	no_gpm(&r, "gpu0");
	no_gpm(&r, "gpu0-mig1");
	assert_int_equal(notes(&r), 1);
	assert_true(has_note(&r, "nvmlGpmQueryDeviceSupport missing (driver older than R520)"));
	run_sample(&r);
	assert_true(r.raw[at(&r, "gpu.mem_used_bytes", "gpu0-mig2")] == 3 * GIB);
	assert_true(r.raw[at(&r, "gpu.mem_total_bytes", "gpu0-mig2")] == 20 * GIB);
	run_close(&r);
}

/* A library without any of the calls: both sets noted, by their first. */
static void test_calls_missing(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	run_open_fake(&r, "libnvidia_ml_nosym.so");
	assert_int_equal(notes(&r), 2);
	assert_true(has_note(&r, "nvmlGpmQueryDeviceSupport missing (driver older than R520)"));
	assert_true(has_note(&r, "nvmlDeviceGetMigMode missing (driver older than R450)"));
	run_close(&r);
}

/* GPU 0 in MIG mode with GPU instances 1 and 2: after its own GPM
 * channels, each instance's memory and GPM; then GPU 1. */
static void test_mig_instances(void **state)
{
	static const char *const order[] = { "gpu0", "gpu0-mig1", "gpu0-mig2", "gpu1" };
	struct run r;
	size_t c;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_MIG", "0:2", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	c = at(&r, "gpu.gr_active_pct", "gpu0");
	for (size_t u = 0; u < 4; u++) {
		int mig = strchr(order[u], '-') != NULL;

		if (mig) {
			assert_int_equal(at(&r, "gpu.mem_used_bytes", order[u]), c++);
			assert_int_equal(at(&r, "gpu.mem_total_bytes", order[u]), c++);
		}
		for (size_t k = 0; k < NGPM; k++)
			assert_int_equal(at(&r, gpm[k].type, order[u]), c++);
	}
	assert_int_equal(notes(&r), 0);
	for (unsigned s = 1; s <= 2; s++) {
		run_sample(&r);
		for (unsigned gi = 1; gi <= 2; gi++) {
			char inst[32];

			snprintf(inst, sizeof(inst), "gpu0-mig%u", gi);
			assert_true(r.raw[at(&r, "gpu.mem_used_bytes", inst)] == (gi + s) * GIB);
			assert_true(r.raw[at(&r, "gpu.mem_total_bytes", inst)] == 10 * gi * GIB);
			check_gpm(&r, inst, s - 1, s, 0, gi);
		}
		check_gpm(&r, "gpu0", s - 1, s, 0, 0);
		check_gpm(&r, "gpu1", s - 1, s, 1, 0);
	}
	run_close(&r);
}

/* Two compute instances in each GPU instance: still one instance each. */
static void test_mig_compute_instances(void **state)
{
	struct run r;
	size_t n = 0;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_MIG", "0:3:2", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	for (size_t i = 0; i < r.l.n; i++)
		n += strstr(r.l.v[i].name, "gpu.mem_total_bytes:gpu0-mig") != NULL;
	assert_int_equal(n, 3);
	assert_true(has_type(&r, "gpu.mem_used_bytes", "gpu0-mig3"));
	run_sample(&r);
	check_gpm(&r, "gpu0-mig3", 0, 1, 0, 3);
	run_close(&r);
}

/* GPM per GPU instance not supported: memory only, a note per instance;
 * the whole GPU keeps its GPM. */
static void test_mig_gpm_not_supported(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_MIG", "0:2", 1);
	setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlGpmMigSampleGet", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	no_gpm(&r, "gpu0-mig1");
	no_gpm(&r, "gpu0-mig2");
	assert_int_equal(notes(&r), 2);
	assert_true(has_note(&r, "gpu0-mig1: GPM per MIG instance not supported "
			     "(nvmlGpmMigSampleGet: Not Supported)"));
	assert_true(has_note(&r, "gpu0-mig2: GPM per MIG instance not supported "
			     "(nvmlGpmMigSampleGet: Not Supported)"));
	run_sample(&r);
	assert_true(r.raw[at(&r, "gpu.mem_used_bytes", "gpu0-mig1")] == 2 * GIB);
	check_gpm(&r, "gpu0", 0, 1, 0, 0);
	run_close(&r);
}

/* Samples of whole GPUs not supported (here on both, one in MIG mode):
 * no GPM channels for them, a note each; the GPU instance keeps its own. */
static void test_whole_gpu_not_supported(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_MIG", "0:1", 1);
	setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlGpmSampleGet", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	no_gpm(&r, "gpu0");
	no_gpm(&r, "gpu1");
	assert_int_equal(notes(&r), 2);
	assert_true(has_note(&r, "gpu0 (NVIDIA H100 80GB HBM3 (fake 0)): GPM of the whole GPU in MIG mode "
			     "not supported (nvmlGpmSampleGet: Not Supported)"));
	assert_true(has_note(&r, "gpu1 (NVIDIA H100 80GB HBM3 (fake 1)): GPM not supported "
			     "(nvmlGpmSampleGet: Not Supported)"));
	assert_int_equal(at(&r, "gpu.gr_active_pct", "gpu0-mig1"),
			 at(&r, "gpu.mem_total_bytes", "gpu0-mig1") + 1);
	run_sample(&r);
	check_gpm(&r, "gpu0-mig1", 0, 1, 0, 1);
	run_close(&r);
}

/* An H100 without NVLink: those two metrics in error, the rest valid. */
static void test_metric_error(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_GPM_UNSUPPORTED", "60,61", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	run_sample(&r);
	for (unsigned g = 0; g < 2; g++) {
		char inst[16];

		snprintf(inst, sizeof(inst), "gpu%u", g);
		for (size_t k = 0; k < NGPM; k++) {
			size_t c = at(&r, gpm[k].type, inst);
			int nvlink = gpm[k].id == 60 || gpm[k].id == 61;

			assert_int_equal(r.ok[c], !nvlink);
			if (!nvlink)
				assert_true(r.raw[c] == expect(gpm[k].id, 0, 1, g, 0));
		}
	}
	run_close(&r);
}

/* The second sweep's sample fails: that sweep has no GPM values, and the
 * third measures from the last good sample (1) over two intervals. */
static void test_sample_fails_then_recovers(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_GPM_FAIL", "2", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	run_sample(&r);
	check_gpm(&r, "gpu0", 0, 1, 0, 0);
	run_sample(&r);
	check_gpm_invalid(&r, "gpu0");
	check_gpm_invalid(&r, "gpu1");
	assert_true(r.ok[at(&r, "gpu.util_pct", "gpu0")]);
	run_sample(&r);
	check_gpm(&r, "gpu0", 1, 3, 0, 0);
	check_gpm(&r, "gpu1", 1, 3, 1, 0);
	run_sample(&r);
	check_gpm(&r, "gpu1", 3, 4, 1, 0);
	run_close(&r);
}

/* The first sample (at open) fails: the channels stay, the first sweep's
 * sample becomes the reference, the second sweep has values. */
static void test_first_sample_fails(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_GPM_FAIL", "0", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(notes(&r), 0);
	run_sample(&r);
	check_gpm_invalid(&r, "gpu0");
	run_sample(&r);
	check_gpm(&r, "gpu0", 1, 2, 0, 0);
	run_close(&r);
}

/* Every sample fails (not "not supported"): channels, never a value. */
static void test_sample_always_fails(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_FAIL", "nvmlGpmSampleGet", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	for (int s = 0; s < 2; s++) {
		run_sample(&r);
		check_gpm_invalid(&r, "gpu0");
		check_gpm_invalid(&r, "gpu1");
	}
	run_close(&r);
}

/* GPU 1 (in MIG mode) falls off the bus in the second sweep: its GPM and
 * its instances stay invalid, GPU 0 goes on. */
static void test_gpu_lost(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_MIG", "1:1", 1);
	setenv("FAKE_NVML_LOST_AFTER", "2", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	run_sample(&r);
	check_gpm(&r, "gpu1", 0, 1, 1, 0);
	check_gpm(&r, "gpu1-mig1", 0, 1, 1, 1);
	assert_true(r.raw[at(&r, "gpu.mem_used_bytes", "gpu1-mig1")] == 2 * GIB);
	for (unsigned s = 2; s <= 3; s++) {
		run_sample(&r);
		check_gpm(&r, "gpu0", s - 1, s, 0, 0);
		check_gpm_invalid(&r, "gpu1");
		check_gpm_invalid(&r, "gpu1-mig1");
		assert_int_equal(r.ok[at(&r, "gpu.mem_used_bytes", "gpu1-mig1")], 0);
		assert_int_equal(r.ok[at(&r, "gpu.mem_total_bytes", "gpu1-mig1")], 0);
	}
	if (notes(&r) != 0)
		print_notes(&r);
	assert_int_equal(notes(&r), 0);
	run_close(&r);
}

/* Calls that fail at open (UNKNOWN, not "not supported"): each leaves out
 * only what it serves, with a note naming the call and NVML's text. */
static void test_open_failures(void **state)
{
	static const char h100[] = "NVIDIA H100 80GB HBM3 (fake ";
	char text[200];
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_FAIL", "nvmlGpmQueryDeviceSupport", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	no_gpm(&r, "gpu0");
	no_gpm(&r, "gpu1");
	assert_int_equal(notes(&r), 2);
	for (unsigned g = 0; g < 2; g++) {
		snprintf(text, sizeof(text), "gpu%u (%s%u)): GPM not available "
			 "(nvmlGpmQueryDeviceSupport: Unknown Error)", g, h100, g);
		assert_true(has_note(&r, text));
	}
	run_close(&r);

	setenv("FAKE_NVML_FAIL", "nvmlGpmSampleAlloc", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	no_gpm(&r, "gpu0");
	snprintf(text, sizeof(text), "gpu1 (%s1)): GPM not available "
		 "(nvmlGpmSampleAlloc: Unknown Error)", h100);
	assert_true(has_note(&r, text));
	run_close(&r);

	/* MIG mode unreadable: the GPU's own GPM stays, no instances. */
	setenv("FAKE_NVML_MIG", "0:2", 1);
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetMigMode", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_true(chan(&r, "gpu.sm_active_pct:gpu0") >= 0);
	assert_true(chan(&r, "gpu.mem_total_bytes:gpu0-mig1") < 0);
	snprintf(text, sizeof(text), "gpu0 (%s0)): MIG instances not listed "
		 "(nvmlDeviceGetMigMode: Unknown Error)", h100);
	assert_true(has_note(&r, text));
	run_close(&r);

	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetMaxMigDeviceCount", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_true(chan(&r, "gpu.mem_total_bytes:gpu0-mig1") < 0);
	snprintf(text, sizeof(text), "gpu0 (%s0)): MIG instances not listed "
		 "(nvmlDeviceGetMaxMigDeviceCount: Unknown Error)", h100);
	assert_true(has_note(&r, text));
	run_close(&r);

	/* An instance's memory unreadable: its GPM channels stay. */
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetMemoryInfo_v2", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_true(chan(&r, "gpu.mem_total_bytes:gpu0-mig1") < 0);
	assert_true(chan(&r, "gpu.sm_active_pct:gpu0-mig1") >= 0);
	assert_true(has_note(&r, "gpu0-mig1: memory not available "
			     "(nvmlDeviceGetMemoryInfo_v2: Unknown Error)"));
	run_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_h100_channels, reset_gpm),
		cmocka_unit_test_setup(test_h100_values, reset_gpm),
		cmocka_unit_test_setup(test_a100_not_supported, reset_gpm),
		cmocka_unit_test_setup(test_basic_model, reset_gpm),
		cmocka_unit_test_setup(test_old_driver, reset_gpm),
		cmocka_unit_test_setup(test_calls_missing, reset_gpm),
		cmocka_unit_test_setup(test_mig_instances, reset_gpm),
		cmocka_unit_test_setup(test_mig_compute_instances, reset_gpm),
		cmocka_unit_test_setup(test_mig_gpm_not_supported, reset_gpm),
		cmocka_unit_test_setup(test_whole_gpu_not_supported, reset_gpm),
		cmocka_unit_test_setup(test_metric_error, reset_gpm),
		cmocka_unit_test_setup(test_sample_fails_then_recovers, reset_gpm),
		cmocka_unit_test_setup(test_first_sample_fails, reset_gpm),
		cmocka_unit_test_setup(test_sample_always_fails, reset_gpm),
		cmocka_unit_test_setup(test_gpu_lost, reset_gpm),
		cmocka_unit_test_setup(test_open_failures, reset_gpm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
