/*
 * nvml_proc_test.c - the part "nvml.processes" of the nvml source
 * (nvml_proc.c) against the fake NVIDIA management library
 * (tests/fakes/nvidia_ml_fake/proc.c, FAKE_NVML_PROCS): gpu.processes per
 * GPU with the exact counts the fake is given, following the list as it
 * changes; the driver before R525 (libnvidia_ml_old.so, no _v3) through
 * _v2; a model that does not support the call, a library without it and
 * the call refused by name (a note each, no channel); a call that fails
 * (channel kept, invalid); a GPU lost mid-run (invalid from then on, the
 * other GPU goes on).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml_testutil.h"
#include "collect/sources.h"

static const char PART[] = "nvml.processes";
static const char PROCS[] = "0:4242:40960:87,0:4243:1024:3,1:777:2048:50";

/* How many channels of type gpu.processes the source has. */
static size_t nproc_chans(const struct run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->l.n; i++)
		if (strncmp(r->l.v[i].name, "gpu.processes:", 14) == 0)
			n++;
	return n;
}

/* The notes of the part, in order, into out (at most max): how many. */
static size_t part_notes(const struct run *r, const char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->l.nnotes && n < max; i++)
		if (strcmp(r->l.notes[i].part, PART) == 0)
			out[n++] = r->l.notes[i].reason;
	return n;
}

static int valid(const struct run *r, const char *name)
{
	long i = chan(r, name);

	if (i < 0)
		fail_msg("no channel %s", name);
	return r->ok[i];
}

/* The counts of three GPUs over three sweeps, the list changed between. */
static void check_counts(const char *lib)
{
	struct run r;
	const char *notes[4];

	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_GPUS", "3", 1);
	setenv("FAKE_NVML_PROCS", PROCS, 1);
	run_open_fake(&r, lib);
	assert_int_equal(nproc_chans(&r), 3);
	assert_int_equal(part_notes(&r, notes, 4), 0);
	for (unsigned g = 0; g < 3; g++) {
		char name[32];
		long i;

		snprintf(name, sizeof(name), "gpu.processes:gpu%u", g);
		i = chan(&r, name);
		assert_true(i >= 0);
		assert_string_equal(r.l.v[i].source, "nvml");
		assert_true(r.l.v[i].metric->kind == RV_KIND_GAUGE);
		assert_true(r.l.v[i].scale == 1.0);
	}
	run_sample(&r);
	assert_true(val(&r, "gpu.processes", 0) == 2);
	assert_true(val(&r, "gpu.processes", 1) == 1);
	assert_true(val(&r, "gpu.processes", 2) == 0);
	setenv("FAKE_NVML_PROCS", "2:10:1:1,2:11:1:1,2:12:1:1,0:13:1:0", 1);
	run_sample(&r);
	assert_true(val(&r, "gpu.processes", 0) == 1);
	assert_true(val(&r, "gpu.processes", 1) == 0);
	assert_true(val(&r, "gpu.processes", 2) == 3);
	unsetenv("FAKE_NVML_PROCS");
	run_sample(&r);
	for (unsigned g = 0; g < 3; g++)
		assert_true(val(&r, "gpu.processes", g) == 0);
	run_close(&r);
}

static void test_counts(void **state)
{
	(void)state;
	check_counts("libnvidia_ml_fake.so");
}

/* The old driver has only _v2; the same counts come through it. */
static void test_old_driver_v2(void **state)
{
	struct run r;
	void *dl;

	(void)state;
	lib_path(&r, "libnvidia_ml_old.so");
	dl = dlopen(r.lib, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(dl);
	assert_null(dlsym(dl, "nvmlDeviceGetComputeRunningProcesses_v3"));
	assert_non_null(dlsym(dl, "nvmlDeviceGetComputeRunningProcesses_v2"));
	dlclose(dl);
	check_counts("libnvidia_ml_old.so");
}

/* The basic model answers NOT_SUPPORTED: a note per GPU, no channel, and
 * the other channels as before. */
static void test_not_supported(void **state)
{
	struct run r;
	const char *notes[4];

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_PROCS", PROCS, 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(nproc_chans(&r), 0);
	assert_int_equal(part_notes(&r, notes, 4), 2);
	assert_string_equal(notes[0], "gpu0 (NVIDIA T4 (fake 0)): compute processes: "
				      "Not Supported (3)");
	assert_string_equal(notes[1], "gpu1 (NVIDIA T4 (fake 1)): compute processes: "
				      "Not Supported (3)");
	run_sample(&r);
	all_valid(&r);
	run_close(&r);
}

/* Refused by name on a model that has it: no fallback to _v2 (the driver
 * has _v3 and said no). */
static void test_refused_by_name(void **state)
{
	struct run r;
	const char *notes[4];

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "a100", 1);
	setenv("FAKE_NVML_GPUS", "1", 1);
	setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlDeviceGetComputeRunningProcesses_v3", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(nproc_chans(&r), 0);
	assert_int_equal(part_notes(&r, notes, 4), 1);
	assert_string_equal(notes[0], "gpu0 (NVIDIA A100-SXM4-80GB (fake 0)): compute processes: "
				      "Not Supported (3)");
	run_close(&r);
}

/* A library without the call under either name: one note naming it. */
static void test_missing_function(void **state)
{
	struct run r;
	const char *notes[4];
	char want[600];

	(void)state;
	need_catalog();
	run_open_fake(&r, "libnvidia_ml_nosym.so");
	assert_int_equal(nproc_chans(&r), 0);
	assert_int_equal(part_notes(&r, notes, 4), 1);
	snprintf(want, sizeof(want),
		 "%s has no nvmlDeviceGetComputeRunningProcesses_v3 (nor _v2): no gpu.processes",
		 r.lib);
	assert_string_equal(notes[0], want);
	run_close(&r);
}

/* A call that fails (not "not supported") keeps its channel, invalid. */
static void test_fails(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_PROCS", PROCS, 1);
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetComputeRunningProcesses_v3", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	assert_int_equal(nproc_chans(&r), 2);
	run_sample(&r);
	assert_int_equal(valid(&r, "gpu.processes:gpu0"), 0);
	assert_int_equal(valid(&r, "gpu.processes:gpu1"), 0);
	assert_true(val(&r, "gpu.util_pct", 0) == 11);
	run_close(&r);
}

/* GPU 1 falls off the bus at the second sweep: invalid from then on. */
static void test_lost_gpu(void **state)
{
	struct run r;

	(void)state;
	need_catalog();
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_PROCS", PROCS, 1);
	setenv("FAKE_NVML_LOST_AFTER", "2", 1);
	run_open_fake(&r, "libnvidia_ml_fake.so");
	run_sample(&r);
	assert_true(val(&r, "gpu.processes", 0) == 2);
	assert_true(val(&r, "gpu.processes", 1) == 1);
	for (int k = 0; k < 2; k++) {
		run_sample(&r);
		assert_true(val(&r, "gpu.processes", 0) == 2);
		assert_int_equal(valid(&r, "gpu.processes:gpu1"), 0);
	}
	run_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_counts, reset),
		cmocka_unit_test_setup(test_old_driver_v2, reset),
		cmocka_unit_test_setup(test_not_supported, reset),
		cmocka_unit_test_setup(test_refused_by_name, reset),
		cmocka_unit_test_setup(test_missing_function, reset),
		cmocka_unit_test_setup(test_fails, reset),
		cmocka_unit_test_setup(test_lost_gpu, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
