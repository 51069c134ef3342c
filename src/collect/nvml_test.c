/*
 * nvml_test.c - the nvml source against fake NVIDIA management libraries
 * (tests/fakes/nvidia_ml_*.c, found in RV_FAKE_LIBDIR): the channels of 8
 * GPUs, exact raw values over two samples, calls that are not supported
 * (no channel) or fail while sampling (invalid), an old library with
 * unversioned names and missing calls, a library without a required
 * symbol, a path that does not load, nvmlInit failing, no GPU, a GPU lost
 * mid-run, XID events, and the real library name on this host. The
 * health rows per model (memory temperature, row remapping, fan: none on
 * the basic model), a memory temperature field that fails or is not
 * supported, and the clock event reasons under their current name and
 * the deprecated one (libnvidia_ml_old.so) giving the same channels.
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

/* reset(), and the fake's field variables (tests/fakes/nvidia_ml_fake/link.c). */
static int reset_fields(void **state)
{
	reset(state);
	unsetenv("FAKE_NVML_FIELD_FAIL");
	unsetenv("FAKE_NVML_FIELD_NOT_SUPPORTED");
	return 0;
}

static const char *const health_types[] = {
	"gpu.mem_temp_c", "gpu.remapped_rows_corr", "gpu.remapped_rows_uncorr",
	"gpu.remap_pending", "gpu.remap_failed", "gpu.fan_pct",
};
enum { HEALTH = sizeof(health_types) / sizeof(health_types[0]), H_FAN = HEALTH - 1 };

/* The health channels of a GPU follow gpu.retired_pages, before
 * gpu.xid_errors; the fan only where `fan`. */
static void check_health_layout(const struct run *r, unsigned g, int fan)
{
	char name[96];
	long at;

	snprintf(name, sizeof(name), "gpu.retired_pages:gpu%u", g);
	at = chan(r, name);
	assert_true(at >= 0);
	for (size_t k = 0; k < HEALTH; k++) {
		if (k == H_FAN && !fan)
			continue;
		snprintf(name, sizeof(name), "%s:gpu%u", health_types[k], g);
		assert_string_equal(r->l.v[++at].name, name);
	}
	snprintf(name, sizeof(name), "gpu.xid_errors:gpu%u", g);
	assert_string_equal(r->l.v[++at].name, name);
	if (!fan) {
		snprintf(name, sizeof(name), "gpu.fan_pct:gpu%u", g);
		assert_int_equal(chan(r, name), -1);
	}
}

/* Health values of GPU g at call k (tests/fakes/nvidia_ml_fake/health.c). */
static void check_health(const struct run *r, unsigned g, unsigned k, int fan)
{
	assert_true(val(r, "gpu.mem_temp_c", g) == 60 + g + k);
	assert_true(val(r, "gpu.remapped_rows_corr", g) == 2 * g + k);
	assert_true(val(r, "gpu.remapped_rows_uncorr", g) == g);
	assert_true(val(r, "gpu.remap_pending", g) == k % 2);
	assert_true(val(r, "gpu.remap_failed", g) == (g == 1));
	if (fan)
		assert_true(val(r, "gpu.fan_pct", g) == 30 + g + k);
}

/* h100: memory temperature and row remapping, no fan (SXM); a100: all. */
static void test_health_rows(void **state)
{
	static const char *const models[] = { "h100", "a100" };

	(void)state;
	need_catalog();
	for (int m = 0; m < 2; m++) {
		struct run r;
		long i;

		setenv("FAKE_NVML_MODEL", models[m], 1);
		run_open_fake(&r, "libnvidia_ml_fake.so");
		for (unsigned g = 0; g < 2; g++)
			check_health_layout(&r, g, m == 1);
		i = chan(&r, "gpu.mem_temp_c:gpu1");
		assert_true(r.l.v[i].metric->kind == RV_KIND_GAUGE);
		i = chan(&r, "gpu.remapped_rows_uncorr:gpu1");
		assert_true(r.l.v[i].metric->kind == RV_KIND_EVENT);
		for (unsigned k = 1; k <= 2; k++) {
			run_sample(&r);
			for (unsigned g = 0; g < 2; g++)
				check_health(&r, g, k, m == 1);
		}
		run_close(&r);
	}
}

/* The basic model answers none of the health calls. */
static void test_health_basic(void **state)
{
	struct run r;
	char name[96];

	(void)state;
	need_catalog();
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(r.l.n, 2 * PER_GPU);
	for (size_t k = 0; k < HEALTH; k++) {
		snprintf(name, sizeof(name), "%s:gpu0", health_types[k]);
		assert_int_equal(chan(&r, name), -1);
	}
	run_close(&r);
}

/* The memory temperature field: failing, its channel is there and
 * invalid; not supported, it has none. */
static void test_mem_temp_field(void **state)
{
	struct run r;
	long i;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_FIELD_FAIL", "82", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	i = chan(&r, "gpu.mem_temp_c:gpu0");
	assert_true(i >= 0);
	run_sample(&r);
	assert_int_equal(r.ok[i], 0);
	assert_true(val(&r, "gpu.remapped_rows_corr", 0) == 1);
	run_close(&r);

	unsetenv("FAKE_NVML_FIELD_FAIL");
	setenv("FAKE_NVML_FIELD_NOT_SUPPORTED", "82", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(chan(&r, "gpu.mem_temp_c:gpu0"), -1);
	assert_true(chan(&r, "gpu.remapped_rows_corr:gpu0") >= 0);
	run_close(&r);
}

static const char *const reason_types[] = {
	"gpu.throttle_reasons", "gpu.throttle_power", "gpu.throttle_thermal",
	"gpu.throttle_hw_slowdown",
};
enum { REASONS = sizeof(reason_types) / sizeof(reason_types[0]), REASON_SWEEPS = 5 };

/* The clock event reason channels of both GPUs over REASON_SWEEPS sweeps. */
static void sample_reasons(const char *lib, double out[REASON_SWEEPS][2][REASONS])
{
	struct run r;

	run_open_fake(&r, lib);
	for (int s = 0; s < REASON_SWEEPS; s++) {
		run_sample(&r);
		for (unsigned g = 0; g < 2; g++)
			for (size_t t = 0; t < REASONS; t++)
				out[s][g][t] = val(&r, reason_types[t], g);
	}
	run_close(&r);
}

/* Whether lib, with `unsupported` answering NOT_SUPPORTED, has the
 * clock event reason channels. */
static int has_reasons(const char *lib, const char *unsupported)
{
	struct run r;
	int has;

	setenv("FAKE_NVML_NOT_SUPPORTED", unsupported, 1);
	run_open_fake(&r, lib);
	has = chan(&r, "gpu.throttle_reasons:gpu0") >= 0;
	run_close(&r);
	unsetenv("FAKE_NVML_NOT_SUPPORTED");
	return has;
}

/* nvmlDeviceGetCurrentClocksEventReasons (current drivers) and the
 * deprecated nvmlDeviceGetCurrentClocksThrottleReasons (the old driver
 * has only that name) give the same channels and values; each library is
 * read through the name it has, the newest first. */
static void test_clock_reason_names(void **state)
{
	static const char ev[] = "nvmlDeviceGetCurrentClocksEventReasons";
	static const char thr[] = "nvmlDeviceGetCurrentClocksThrottleReasons";
	static const double mask[4] = { 0x1, 0x4, 0x28, 0x48 };
	double cur[REASON_SWEEPS][2][REASONS], old[REASON_SWEEPS][2][REASONS];

	(void)state;
	need_catalog();
	sample_reasons("libnvidia_ml_fake.so", cur);
	sample_reasons("libnvidia_ml_old.so", old);
	assert_memory_equal(cur, old, sizeof(cur));
	for (int s = 0; s < REASON_SWEEPS; s++)
		assert_true(cur[s][1][0] == mask[(s + 1) % 4]);
	assert_true(has_reasons("libnvidia_ml_fake.so", thr));
	assert_false(has_reasons("libnvidia_ml_fake.so", ev));
	assert_false(has_reasons("libnvidia_ml_old.so", thr));
	assert_true(has_reasons("libnvidia_ml_old.so", ev));
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
		cmocka_unit_test_setup(test_health_rows, reset_fields),
		cmocka_unit_test_setup(test_health_basic, reset_fields),
		cmocka_unit_test_setup(test_mem_temp_field, reset_fields),
		cmocka_unit_test_setup(test_clock_reason_names, reset_fields),
		cmocka_unit_test_setup(test_default_library, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
