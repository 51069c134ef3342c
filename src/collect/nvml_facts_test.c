/*
 * nvml_facts_test.c - the GPU facts (nvml_facts.h) read from the fake
 * NVIDIA library (tests/fakes/nvidia_ml_fake/facts.c has the values): every
 * key of an H100 and an A100 host, ECC off and with a pending change, MIG, a
 * link trained below its best, a power limit of a fraction of a watt, the
 * workstation model whose data-centre calls are not supported, calls made
 * to fail or refuse one by one (only their key goes), and the driver before
 * R525 whose CUDA version comes through the older call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/facts.h"
#include "collect/nvml_facts.h"

enum { PATH_LEN = 512 };

static const char *const env_vars[] = {
	"FAKE_NVML_GPUS", "FAKE_NVML_MODEL", "FAKE_NVML_NOT_SUPPORTED", "FAKE_NVML_FAIL",
	"FAKE_NVML_ECC_OFF", "FAKE_NVML_ECC_PENDING", "FAKE_NVML_MIG",
	"FAKE_NVML_PCIE_GEN", "FAKE_NVML_PCIE_WIDTH", "FAKE_NVML_POWER_LIMIT_MW",
};

static int reset(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(env_vars) / sizeof(env_vars[0]); i++)
		unsetenv(env_vars[i]);
	return 0;
}

/* The facts of the fake library `name` into *f (finished by the caller). */
static void read_facts(const char *name, struct rv_facts *f)
{
	const char *dir = getenv("RV_FAKE_LIBDIR");
	char lib[PATH_LEN];

	assert_non_null(dir);
	snprintf(lib, sizeof(lib), "%s/%s", dir, name);
	memset(f, 0, sizeof(*f));
	assert_int_equal(rv_nvml_facts(lib, f), 0);
}

static void expect(const struct rv_facts *f, const char *key, const char *value)
{
	const char *got = rv_facts_get(f, key);

	if (!got)
		fail_msg("fact %s missing (want \"%s\")", key, value);
	if (strcmp(got, value) != 0)
		fail_msg("fact %s = \"%s\", want \"%s\"", key, got, value);
}

static void expect_absent(const struct rv_facts *f, const char *key)
{
	const char *got = rv_facts_get(f, key);

	if (got)
		fail_msg("fact %s = \"%s\", want none", key, got);
}

/* Every key of a two-GPU H100 host. */
static void test_h100(void **state)
{
	struct rv_facts f;

	(void)state;
	setenv("FAKE_NVML_MODEL", "h100", 1);
	read_facts("libnvidia_ml_fake.so", &f);
	expect(&f, "gpu.driver", "999.99-fake");
	expect(&f, "gpu.cuda_driver", "12.4");
	expect(&f, "gpu.nvml_version", "12.999.99-fake");
	expect(&f, "gpu.count", "2");
	expect(&f, "gpu.0.name", "NVIDIA H100 80GB HBM3 (fake 0)");
	expect(&f, "gpu.0.uuid", "GPU-fake-0000-0000-0000-0000-000000000000");
	expect(&f, "gpu.1.uuid", "GPU-fake-0001-0000-0000-0000-000000000000");
	expect(&f, "gpu.1.serial", "fake-sn-1");
	expect(&f, "gpu.1.vbios", "96.00.99.00.01");
	expect(&f, "gpu.0.persistence", "on");
	expect(&f, "gpu.0.power_limit_w", "700");
	expect(&f, "gpu.0.power_limit_enforced_w", "700");
	expect(&f, "gpu.1.app_clock_sm_mhz", "1980");
	expect(&f, "gpu.1.app_clock_mem_mhz", "2619");
	expect(&f, "gpu.0.ecc", "on");
	expect(&f, "gpu.1.ecc", "on");
	expect(&f, "gpu.0.mig", "disabled");
	expect(&f, "gpu.0.pcie_width", "x16");
	expect(&f, "gpu.1.pcie_link_max", "gen5 x16");
	expect_absent(&f, "gpu.2.name");
	expect_absent(&f, "gpu.2.uuid");
	assert_int_equal(f.n, 4 + 2 * 13);   /* 13 keys per GPU */
	rv_facts_fini(&f);
}

/* An A100 host with ECC off on one GPU and a change pending on another,
 * MIG on the first, links trained at x8 and a limit of 312.5 W. */
static void test_a100_changed(void **state)
{
	struct rv_facts f;

	(void)state;
	setenv("FAKE_NVML_MODEL", "a100", 1);
	setenv("FAKE_NVML_GPUS", "3", 1);
	setenv("FAKE_NVML_ECC_OFF", "1", 1);
	setenv("FAKE_NVML_ECC_PENDING", "2", 1);
	setenv("FAKE_NVML_MIG", "0:2", 1);
	setenv("FAKE_NVML_PCIE_GEN", "3", 1);     /* idle: not a fact */
	setenv("FAKE_NVML_PCIE_WIDTH", "8", 1);
	read_facts("libnvidia_ml_fake.so", &f);
	expect(&f, "gpu.count", "3");
	expect(&f, "gpu.0.ecc", "on");
	expect(&f, "gpu.1.ecc", "off");
	expect(&f, "gpu.2.ecc", "on (pending off)");
	expect(&f, "gpu.0.mig", "enabled");
	expect(&f, "gpu.1.mig", "disabled");
	expect(&f, "gpu.2.pcie_width", "x8");
	expect(&f, "gpu.2.pcie_link_max", "gen4 x16");
	expect(&f, "gpu.0.power_limit_w", "400");
	expect(&f, "gpu.0.app_clock_sm_mhz", "1410");
	expect(&f, "gpu.2.vbios", "92.00.99.00.02");
	rv_facts_fini(&f);

	setenv("FAKE_NVML_POWER_LIMIT_MW", "312500", 1);
	read_facts("libnvidia_ml_fake.so", &f);
	expect(&f, "gpu.0.power_limit_w", "312.5");
	expect(&f, "gpu.2.power_limit_enforced_w", "312.5");
	rv_facts_fini(&f);
}

/* The workstation board: no serial, application clocks, ECC or MIG. */
static void test_basic(void **state)
{
	struct rv_facts f;

	(void)state;
	read_facts("libnvidia_ml_fake.so", &f);
	expect(&f, "gpu.0.uuid", "GPU-fake-0000-0000-0000-0000-000000000000");
	expect(&f, "gpu.0.vbios", "90.00.99.00.00");
	expect(&f, "gpu.0.persistence", "off");
	expect(&f, "gpu.1.power_limit_w", "250");
	expect(&f, "gpu.1.pcie_width", "x16");
	expect(&f, "gpu.1.pcie_link_max", "gen4 x16");
	expect_absent(&f, "gpu.0.serial");
	expect_absent(&f, "gpu.0.app_clock_sm_mhz");
	expect_absent(&f, "gpu.0.app_clock_mem_mhz");
	expect_absent(&f, "gpu.0.ecc");
	expect_absent(&f, "gpu.1.mig");
	rv_facts_fini(&f);
}

/* A call refused or failing loses its own key, nothing else; the CUDA
 * version falls back to the older call when the newer refuses. */
static void test_refused(void **state)
{
	struct rv_facts f;

	(void)state;
	setenv("FAKE_NVML_MODEL", "h100", 1);
	setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlDeviceGetUUID,nvmlDeviceGetMaxPcieLinkWidth", 1);
	setenv("FAKE_NVML_FAIL", "nvmlDeviceGetEccMode,nvmlSystemGetNVMLVersion", 1);
	read_facts("libnvidia_ml_fake.so", &f);
	expect_absent(&f, "gpu.0.uuid");
	expect_absent(&f, "gpu.1.uuid");
	expect_absent(&f, "gpu.0.pcie_link_max");
	expect_absent(&f, "gpu.0.ecc");
	expect_absent(&f, "gpu.nvml_version");
	expect(&f, "gpu.0.pcie_width", "x16");
	expect(&f, "gpu.0.serial", "fake-sn-0");
	expect(&f, "gpu.0.mig", "disabled");
	expect(&f, "gpu.cuda_driver", "12.4");
	rv_facts_fini(&f);

	setenv("FAKE_NVML_FAIL", "nvmlSystemGetCudaDriverVersion_v2", 1);
	read_facts("libnvidia_ml_fake.so", &f);
	expect(&f, "gpu.cuda_driver", "12.4");
	rv_facts_fini(&f);

	setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlSystemGetCudaDriverVersion", 1);
	read_facts("libnvidia_ml_fake.so", &f);
	expect_absent(&f, "gpu.cuda_driver");
	expect(&f, "gpu.driver", "999.99-fake");
	rv_facts_fini(&f);
}

/* A driver before R525 has only nvmlSystemGetCudaDriverVersion. */
static void test_old_driver(void **state)
{
	struct rv_facts f;

	(void)state;
	setenv("FAKE_NVML_MODEL", "h100", 1);
	read_facts("libnvidia_ml_old.so", &f);
	expect(&f, "gpu.cuda_driver", "11.8");
	expect(&f, "gpu.nvml_version", "11.999.99-fake");
	expect(&f, "gpu.0.ecc", "on");
	rv_facts_fini(&f);
}

/* No GPUs: the count says so and nothing else per GPU; a library with
 * only the oldest calls still gives the count. */
static void test_no_gpus(void **state)
{
	struct rv_facts f;

	(void)state;
	setenv("FAKE_NVML_GPUS", "0", 1);
	read_facts("libnvidia_ml_fake.so", &f);
	expect(&f, "gpu.count", "0");
	expect_absent(&f, "gpu.0.uuid");
	expect(&f, "gpu.driver", "999.99-fake");
	rv_facts_fini(&f);

	read_facts("libnvidia_ml_nosym.so", &f);
	expect(&f, "gpu.count", "2");
	expect_absent(&f, "gpu.cuda_driver");
	expect_absent(&f, "gpu.0.pcie_width");
	assert_int_equal(f.n, 1);
	rv_facts_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_h100, reset),
		cmocka_unit_test_setup(test_a100_changed, reset),
		cmocka_unit_test_setup(test_basic, reset),
		cmocka_unit_test_setup(test_refused, reset),
		cmocka_unit_test_setup(test_old_driver, reset),
		cmocka_unit_test_setup(test_no_gpus, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
