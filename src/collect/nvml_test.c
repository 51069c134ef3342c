/*
 * nvml_test.c - the nvml source against fake NVIDIA management libraries
 * (tests/fakes/nvidia_ml_*.c, found in RV_FAKE_LIBDIR): the channels of 8
 * GPUs, exact raw values over two samples, calls that are not supported
 * (no channel) or fail while sampling (invalid), an old library with
 * unversioned names and missing calls, a library without a required
 * symbol, a path that does not load, nvmlInit failing, no GPU, a GPU lost
 * mid-run, XID events, and the real library name on this host.
 *
 * Until the catalog lists rv_metrics_gpu, the tests that need channels are
 * skipped (rv_chanlist_add refuses types it does not know).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_testutil.h"
#include "collect/sources.h"

enum { PER_GPU = 21 };

/* Channel types of one GPU of the full fake, in the source's order. */
static const char *const gpu_types[PER_GPU] = {
	"gpu.util_pct", "gpu.mem_util_pct", "gpu.mem_used_bytes", "gpu.mem_total_bytes",
	"gpu.power_w", "gpu.energy", "gpu.temp_c", "gpu.sm_clock_mhz", "gpu.mem_clock_mhz",
	"gpu.pcie_tx_bytes", "gpu.pcie_rx_bytes", "gpu.pcie_replays", "gpu.ecc_corrected",
	"gpu.ecc_uncorrected", "gpu.throttle_reasons", "gpu.throttle_power",
	"gpu.throttle_thermal", "gpu.throttle_hw_slowdown", "gpu.pstate", "gpu.retired_pages",
	"gpu.xid_errors",
};

static void test_channels_8_gpus(void **state)
{
	struct run r;
	char name[96];

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_GPUS", "8", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(r.l.n, 8 * PER_GPU);
	for (unsigned g = 0; g < 8; g++)
		for (size_t k = 0; k < PER_GPU; k++) {
			snprintf(name, sizeof(name), "%s:gpu%u", gpu_types[k], g);
			assert_string_equal(r.l.v[g * PER_GPU + k].name, name);
			assert_string_equal(r.l.v[g * PER_GPU + k].source, "nvml");
		}
	assert_true(r.l.v[0].metric->kind == RV_KIND_GAUGE);
	assert_true(r.l.v[5].metric->kind == RV_KIND_COUNTER);        /* energy */
	assert_true(r.l.v[12].metric->kind == RV_KIND_EVENT);         /* ecc */
	assert_true(r.l.v[20].metric->kind == RV_KIND_EVENT);         /* xid */
	assert_true(r.l.v[4].scale == 1e-3 && r.l.v[5].scale == 1e-3);
	assert_true(r.l.v[9].scale == 1024.0 && r.l.v[10].scale == 1024.0);
	assert_true(r.l.v[0].scale == 1.0);
	run_close(&r);
}

/* Every channel of GPU g after the k-th call of each function (see the
 * formulas in nvidia_ml_fake.c; k = 0 was the probe at open). */
static void check_gpu(const struct run *r, unsigned g, unsigned k)
{
	static const double reasons[4] = { 0x1, 0x4, 0x28, 0x48 };
	double thr = reasons[k % 4];

	assert_true(val(r, "gpu.util_pct", g) == 10 + g + k);
	assert_true(val(r, "gpu.mem_util_pct", g) == 20 + g + k);
	assert_true(val(r, "gpu.mem_used_bytes", g) == (1 + k) * GIB + g * MIB);
	assert_true(val(r, "gpu.mem_total_bytes", g) == (16 + g) * GIB);
	assert_true(val(r, "gpu.power_w", g) == 100000 + 1000 * g + 10 * k);
	assert_true(val(r, "gpu.energy", g) == 1000000.0 * (g + 1) + 5000 * k);
	assert_true(val(r, "gpu.temp_c", g) == 40 + g + k);
	assert_true(val(r, "gpu.sm_clock_mhz", g) == 1000 + 10 * g + k);
	assert_true(val(r, "gpu.mem_clock_mhz", g) == 5000 + g);
	assert_true(val(r, "gpu.pcie_tx_bytes", g) == 100 * (g + 1) + k);
	assert_true(val(r, "gpu.pcie_rx_bytes", g) == 200 * (g + 1) + k);
	assert_true(val(r, "gpu.pcie_replays", g) == g + k);
	assert_true(val(r, "gpu.ecc_corrected", g) == 10 * g + k);
	assert_true(val(r, "gpu.ecc_uncorrected", g) == g);
	assert_true(val(r, "gpu.throttle_reasons", g) == thr);
	assert_true(val(r, "gpu.throttle_power", g) == (k % 4 == 1));
	assert_true(val(r, "gpu.throttle_thermal", g) == (k % 4 >= 2));
	assert_true(val(r, "gpu.throttle_hw_slowdown", g) == (k % 4 >= 2));
	assert_true(val(r, "gpu.pstate", g) == (g + k) % 3);
	assert_true(val(r, "gpu.retired_pages", g) == (g + k) + g);
	assert_true(val(r, "gpu.xid_errors", g) == 0);
}

static void test_sample_values(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_GPUS", "3", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(r.l.n, 3 * PER_GPU);
	for (unsigned k = 1; k <= 3; k++) {
		run_sample(&r);
		all_valid(&r);
		for (unsigned g = 0; g < 3; g++)
			check_gpu(&r, g, k);
	}
	run_close(&r);
}

static void test_not_supported_absent(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_NOT_SUPPORTED",
	       "nvmlDeviceGetPowerUsage,nvmlDeviceGetTotalEccErrors,nvmlDeviceRegisterEvents", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(r.l.n, 2 * (PER_GPU - 4));
	assert_int_equal(chan(&r, "gpu.power_w:gpu0"), -1);
	assert_int_equal(chan(&r, "gpu.ecc_corrected:gpu1"), -1);
	assert_int_equal(chan(&r, "gpu.ecc_uncorrected:gpu0"), -1);
	assert_int_equal(chan(&r, "gpu.xid_errors:gpu0"), -1);
	assert_string_equal(r.l.v[4].name, "gpu.energy:gpu0");
	assert_string_equal(r.l.v[PER_GPU - 4].name, "gpu.util_pct:gpu1");
	run_sample(&r);
	all_valid(&r);
	assert_true(val(&r, "gpu.energy", 1) == 2000000 + 5000);
	assert_true(val(&r, "gpu.retired_pages", 1) == 3);
	run_close(&r);
}

/* A call that fails with another error at open keeps its channel, which is
 * invalid whenever the call fails. */
static void test_call_fails_at_sample(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetPowerUsage,nvmlDeviceGetPerformanceState", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(r.l.n, 2 * PER_GPU);
	run_sample(&r);
	for (size_t i = 0; i < r.l.n; i++) {
		int bad = strncmp(r.l.v[i].name, "gpu.power_w:", 12) == 0 ||
			  strncmp(r.l.v[i].name, "gpu.pstate:", 11) == 0;

		assert_int_equal(r.ok[i], !bad);
	}
	assert_true(val(&r, "gpu.util_pct", 1) == 12);
	run_close(&r);
}

/* Unversioned names only, and no power, energy, clocks, ... */
static void test_optional_symbols_missing(void **state)
{
	static const char *const types[] = {
		"gpu.util_pct", "gpu.mem_util_pct", "gpu.mem_used_bytes", "gpu.mem_total_bytes",
		"gpu.temp_c",
	};
	struct run r;
	char name[96];

	(void)state;
	need_catalog();
	run_open_fake(&r, "libnvidia_ml_nosym.so");
	assert_int_equal(r.l.n, 2 * 5);
	for (unsigned g = 0; g < 2; g++)
		for (size_t k = 0; k < 5; k++) {
			snprintf(name, sizeof(name), "%s:gpu%u", types[k], g);
			assert_string_equal(r.l.v[g * 5 + k].name, name);
		}
	run_sample(&r);
	for (unsigned g = 0; g < 2; g++) {
		assert_true(val(&r, "gpu.util_pct", g) == 30 + g);
		assert_true(val(&r, "gpu.mem_util_pct", g) == 40 + g);
		assert_true(val(&r, "gpu.mem_used_bytes", g) == (g + 1) * GIB);
		assert_true(val(&r, "gpu.mem_total_bytes", g) == 8 * GIB);
		assert_true(val(&r, "gpu.temp_c", g) == 50 + g);
	}
	run_close(&r);
}

static void test_required_symbol_missing(void **state)
{
	struct run r;

	(void)state;
	lib_path(&r, "libnvidia_ml_noreq.so");
	assert_int_equal(run_open(&r, r.lib), -ENOSYS);
	assert_null(r.st);
	assert_non_null(strstr(r.err.msg, "nvmlDeviceGetCount_v2"));
	assert_non_null(strstr(r.err.msg, r.lib));
	assert_int_equal(r.l.n, 0);
	rv_chanlist_fini(&r.l);
}

static void test_dlopen_fails(void **state)
{
	static const char path[] = "/nonexistent/reveal/libnvidia-ml.so.1";
	struct run r;

	(void)state;
	assert_int_equal(run_open(&r, path), -ENOENT);
	assert_null(r.st);
	assert_int_equal(r.err.code, -ENOENT);
	assert_memory_equal(r.err.msg, path, strlen(path));
	rv_chanlist_fini(&r.l);
}

static void test_init_error(void **state)
{
	struct run r;

	(void)state;
	setenv("FAKE_NVML_INIT_ERROR", "9", 1);     /* NVML_ERROR_DRIVER_NOT_LOADED */
	lib_path(&r, "libnvidia_ml_fake.so");
	assert_int_equal(run_open(&r, r.lib), -ENODEV);
	assert_non_null(strstr(r.err.msg, "nvmlInit failed"));
	assert_non_null(strstr(r.err.msg, "(9)"));
	rv_chanlist_fini(&r.l);
}

static void test_no_gpu(void **state)
{
	struct run r;

	(void)state;
	setenv("FAKE_NVML_GPUS", "0", 1);
	lib_path(&r, "libnvidia_ml_fake.so");
	assert_int_equal(run_open(&r, r.lib), -ENODEV);
	assert_non_null(strstr(r.err.msg, "no NVIDIA GPU"));
	rv_chanlist_fini(&r.l);
}

/* GPU 1 answers the probe and one sample, then falls off the bus. */
static void test_gpu_lost(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_GPUS", "4", 1);
	setenv("FAKE_NVML_LOST_AFTER", "2", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(r.l.n, 4 * PER_GPU);
	run_sample(&r);
	all_valid(&r);
	for (int s = 0; s < 2; s++) {
		run_sample(&r);
		for (size_t i = 0; i < r.l.n; i++)
			assert_int_equal(r.ok[i], i / PER_GPU != 1);
		check_gpu(&r, 0, 2 + (unsigned)s);
		check_gpu(&r, 3, 2 + (unsigned)s);
	}
	run_close(&r);
}

static void test_xid_events(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_XIDS", "3", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	for (int s = 0; s < 2; s++) {
		run_sample(&r);
		assert_true(val(&r, "gpu.xid_errors", 0) == 3);
		assert_true(val(&r, "gpu.xid_errors", 1) == 0);
	}
	run_close(&r);
}

/* The real library: absent on a host without the NVIDIA driver (-ENOENT,
 * the name in the reason); where it loads, open either works or fails
 * with a reason naming it. */
static void test_default_library(void **state)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	struct run r;
	int rc;

	(void)state;
	if (h)
		dlclose(h);
	rc = run_open(&r, NULL);
	if (!h) {
		assert_int_equal(rc, -ENOENT);
		assert_non_null(strstr(r.err.msg, "libnvidia-ml.so.1"));
		assert_null(r.st);
	} else if (rc == 0) {
		assert_true(r.l.n <= MAXCH);
		run_sample(&r);
		rv_src_nvml.close(r.st);
	} else {
		assert_true(rc < 0);
		assert_true(r.err.msg[0] != '\0');
	}
	rv_chanlist_fini(&r.l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_channels_8_gpus, reset),
		cmocka_unit_test_setup(test_sample_values, reset),
		cmocka_unit_test_setup(test_not_supported_absent, reset),
		cmocka_unit_test_setup(test_call_fails_at_sample, reset),
		cmocka_unit_test_setup(test_optional_symbols_missing, reset),
		cmocka_unit_test_setup(test_required_symbol_missing, reset),
		cmocka_unit_test_setup(test_dlopen_fails, reset),
		cmocka_unit_test_setup(test_init_error, reset),
		cmocka_unit_test_setup(test_no_gpu, reset),
		cmocka_unit_test_setup(test_gpu_lost, reset),
		cmocka_unit_test_setup(test_xid_events, reset),
		cmocka_unit_test_setup(test_default_library, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
