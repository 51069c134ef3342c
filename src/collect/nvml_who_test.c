/*
 * nvml_who_test.c - the GPU process lister of whose workload (nvml_who.c)
 * against the fake NVIDIA management library (RV_FAKE_LIBDIR;
 * tests/fakes/nvidia_ml_fake/proc.c): the exact list of every GPU (pid,
 * memory, mean SM and memory use), the utilization of each list covering
 * only the samples since the previous one, a process without samples (0)
 * and a memory the driver does not give (NaN), utilization not supported
 * (NaN), the old driver's _v2, a GPU lost (left out), a full output, a
 * model without the calls (nothing listed) and the libraries it cannot
 * use (-ENOENT, -ENOSYS naming the call).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_who.h"

enum { OUT_MAX = 16 };

static const double MIB = 1024.0 * 1024.0;

static const char *const vars[] = {
	"FAKE_NVML_GPUS", "FAKE_NVML_MODEL", "FAKE_NVML_PROCS", "FAKE_NVML_NOT_SUPPORTED",
	"FAKE_NVML_FAIL", "FAKE_NVML_LOST_AFTER",
};

static int reset(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	return 0;
}

static void lib(char *buf, size_t cap, const char *name)
{
	const char *dir = getenv("RV_FAKE_LIBDIR");

	assert_non_null(dir);
	snprintf(buf, cap, "%s/%s", dir, name);
}

static struct rv_nvml_who *open_fake(const char *name)
{
	struct rv_nvml_who *w = NULL;
	struct rv_err err = { 0 };
	char path[512];

	lib(path, sizeof(path), name);
	assert_int_equal(rv_nvml_who_open(path, &w, &err), 0);
	assert_non_null(w);
	return w;
}

/* NaN-aware equality of a listed number. */
static void same(double got, double want)
{
	if (isnan(want) ? !isnan(got) : got != want)
		fail_msg("got %g, want %g", got, want);
}

static void check(const struct rv_gpu_proc *p, unsigned gpu, int pid, double mem, double sm,
		  double memu)
{
	assert_int_equal(p->gpu, gpu);
	assert_int_equal(p->pid, pid);
	same(p->mem_bytes, mem);
	same(p->sm_pct, sm);
	same(p->mem_pct, memu);
}

static const char PROCS[] = "0:4242:40960:87,0:4243:1024:0,1:777:2048:50,1:778:-1:99";

/* Three lists: tick k's samples have SM smPct + k (at most 100), memory
 * half of that; each list sees only the tick since the one before. */
static void three_lists(const char *name)
{
	struct rv_gpu_proc out[OUT_MAX];
	struct rv_nvml_who *w;

	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_PROCS", PROCS, 1);
	w = open_fake(name);
	assert_int_equal(rv_nvml_who_gpus(w), 2);
	for (unsigned k = 0; k < 3; k++) {
		assert_int_equal(rv_nvml_who_list(w, out, OUT_MAX), 4);
		check(&out[0], 0, 4242, 40960 * MIB, 87 + k, (87 + k) / 2);
		check(&out[1], 0, 4243, 1024 * MIB, 0, 0);
		check(&out[2], 1, 777, 2048 * MIB, 50 + k, (50 + k) / 2);
		check(&out[3], 1, 778, NAN, 99 + k > 100 ? 100 : 99 + k,
		      (99 + k > 100 ? 100 : 99 + k) / 2);
	}
	rv_nvml_who_close(w);
}

static void test_lists(void **state)
{
	(void)state;
	three_lists("libnvidia_ml_fake.so");
}

static void test_old_driver(void **state)
{
	(void)state;
	three_lists("libnvidia_ml_old.so");
}

/* No utilization: the processes with their memory, SM unknown. */
static void test_util_not_supported(void **state)
{
	struct rv_gpu_proc out[OUT_MAX];
	struct rv_nvml_who *w;

	(void)state;
	setenv("FAKE_NVML_MODEL", "a100", 1);
	setenv("FAKE_NVML_PROCS", "1:31:512:40", 1);
	setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlDeviceGetProcessUtilization", 1);
	w = open_fake("libnvidia_ml_fake.so");
	assert_int_equal(rv_nvml_who_list(w, out, OUT_MAX), 1);
	check(&out[0], 1, 31, 512 * MIB, NAN, NAN);
	rv_nvml_who_close(w);
}

/* GPU 1 falls off the bus: the list goes on with GPU 0 only. */
static void test_lost_gpu(void **state)
{
	struct rv_gpu_proc out[OUT_MAX];
	struct rv_nvml_who *w;
	unsigned int u[2];
	void *dl, *dev = NULL;
	int (*handle)(unsigned int, void **), (*util)(void *, unsigned int *);
	char path[512];

	(void)state;
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_PROCS", PROCS, 1);
	setenv("FAKE_NVML_LOST_AFTER", "0", 1);
	w = open_fake("libnvidia_ml_fake.so");
	assert_int_equal(rv_nvml_who_list(w, out, OUT_MAX), 4);
	/* the fake loses GPU 1 at its next utilization-rates call */
	lib(path, sizeof(path), "libnvidia_ml_fake.so");
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(dl);
	*(void **)&handle = dlsym(dl, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&util = dlsym(dl, "nvmlDeviceGetUtilizationRates");
	assert_int_equal(handle(1, &dev), 0);
	assert_int_equal(util(dev, u), 15);
	dlclose(dl);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(rv_nvml_who_list(w, out, OUT_MAX), 2);
		assert_int_equal(out[0].pid, 4242);
		assert_int_equal(out[1].pid, 4243);
	}
	rv_nvml_who_close(w);
}

/* Room for fewer than run: the first ones, GPU by GPU. */
static void test_full(void **state)
{
	struct rv_gpu_proc out[OUT_MAX];
	struct rv_nvml_who *w;

	(void)state;
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_PROCS", PROCS, 1);
	w = open_fake("libnvidia_ml_fake.so");
	assert_int_equal(rv_nvml_who_list(w, out, 3), 3);
	assert_int_equal(out[2].pid, 777);
	assert_int_equal(rv_nvml_who_list(w, out, 0), 0);
	rv_nvml_who_close(w);
}

/* The basic model has no process calls: nothing listed, no failure. */
static void test_basic(void **state)
{
	struct rv_gpu_proc out[OUT_MAX];
	struct rv_nvml_who *w;

	(void)state;
	setenv("FAKE_NVML_PROCS", PROCS, 1);
	w = open_fake("libnvidia_ml_fake.so");
	assert_int_equal(rv_nvml_who_list(w, out, OUT_MAX), 0);
	rv_nvml_who_close(w);
	rv_nvml_who_close(NULL);
	assert_int_equal(rv_nvml_who_list(NULL, out, OUT_MAX), 0);
}

static void test_cannot_open(void **state)
{
	struct rv_nvml_who *w = (struct rv_nvml_who *)&w;
	struct rv_err err = { 0 };
	char path[512];

	(void)state;
	lib(path, sizeof(path), "libnvidia_ml_absent.so");
	assert_int_equal(rv_nvml_who_open(path, &w, &err), -ENOENT);
	assert_null(w);
	assert_non_null(strstr(err.msg, "libnvidia_ml_absent.so"));
	lib(path, sizeof(path), "libnvidia_ml_nosym.so");
	rv_err_clear(&err);
	assert_int_equal(rv_nvml_who_open(path, &w, &err), -ENOSYS);
	assert_null(w);
	assert_non_null(strstr(err.msg, "no symbol nvmlDeviceGetComputeRunningProcesses_v3"));
	setenv("FAKE_NVML_GPUS", "0", 1);
	lib(path, sizeof(path), "libnvidia_ml_fake.so");
	rv_err_clear(&err);
	assert_int_equal(rv_nvml_who_open(path, &w, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no NVIDIA GPU"));
	assert_null(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_lists, reset),
		cmocka_unit_test_setup(test_old_driver, reset),
		cmocka_unit_test_setup(test_util_not_supported, reset),
		cmocka_unit_test_setup(test_lost_gpu, reset),
		cmocka_unit_test_setup(test_full, reset),
		cmocka_unit_test_setup(test_basic, reset),
		cmocka_unit_test_setup(test_cannot_open, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
