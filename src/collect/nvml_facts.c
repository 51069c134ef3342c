/*
 * nvml_facts.c - the GPU facts of a host (facts.h) from the NVIDIA
 * management library: the driver, CUDA and NVML versions, the GPU count
 * and, per GPU, its model, identity (UUID, serial), VBIOS and the settings
 * that make two identical nodes behave differently: persistence mode,
 * power limits, application clocks, ECC and MIG modes, and the PCIe link
 * the board trained at against the best it and its slot can do. The keys
 * are listed in nvml_facts.h; fleet/drift.c compares them across nodes.
 *
 * The library is loaded the way the nvml source loads it (dlopen, symbols
 * through rv_nvml_sym, our own declarations of the calls: no nvml.h), and
 * every call is looked up at run time: a driver without one, or a GPU that
 * answers it with anything but success (NOT_SUPPORTED on a board without
 * ECC, NO_PERMISSION, a GPU off the bus), only leaves that fact out, never
 * a made-up value. A host without the library gives no GPU facts; nothing
 * here is an error but running out of memory. Facts are read once (at
 * start, or by `reveal metrics`), so this is not on any sample path.
 */
#include "collect/nvml_facts.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "collect/facts.h"
#include "collect/nvml_int.h"

/*
 * Buffer sizes from nvml.h: NVML_DEVICE_NAME_V2_BUFFER_SIZE and
 * NVML_DEVICE_UUID_V2_BUFFER_SIZE are 96, the driver and NVML versions 80,
 * NVML_DEVICE_SERIAL_BUFFER_SIZE 30, NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE
 * 32: one buffer of the largest serves them all. GPUS_MAX bounds the keys
 * of a host (gpu.<i>.*) as before; gpu.count still says how many there are.
 */
enum { TEXT_LEN = 96, GPUS_MAX = 64, MODE_LEN = 48 };

/* nvmlClockType_t (nvml.h): the clock domains of the application clocks. */
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

/* NVML gives power in milliwatts and the CUDA version as 1000 * major +
 * 10 * minor (NVML_CUDA_DRIVER_VERSION_MAJOR/_MINOR in nvml.h: 12040 is
 * 12.4). */
enum { MW_PER_W = 1000, CUDA_MAJOR = 1000, CUDA_MINOR = 10 };

enum { T_NAME, T_UUID, T_SERIAL, T_VBIOS, NTEXT };        /* per GPU text */
enum { W_LIMIT, W_ENFORCED, NWATT };                       /* power limits */
enum { P_GEN, P_WIDTH, P_MAX_GEN, P_MAX_WIDTH, NPCIE };   /* PCIe link */
enum { C_V2, C_V1, NCUDA };                                /* CUDA version */

/*
 * The calls, with the signatures of nvml.h (NVML API reference, "Device
 * Queries" and "System Queries"). nvmlEnableState_t (ECC, persistence) is
 * an enum the size of an int, 0 disabled and 1 enabled; the MIG modes are
 * unsigned ints, NVML_DEVICE_MIG_DISABLE 0 and NVML_DEVICE_MIG_ENABLE 1.
 */
struct facts_api {
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned int *n);
	int (*handle)(unsigned int i, struct nvml_dev **d);
	int (*driver)(char *buf, unsigned int len);
	int (*nvml_version)(char *buf, unsigned int len);
	int (*cuda[NCUDA])(int *version);
	int (*text[NTEXT])(struct nvml_dev *d, char *buf, unsigned int len);
	int (*watt[NWATT])(struct nvml_dev *d, unsigned int *mw);
	int (*pcie[NPCIE])(struct nvml_dev *d, unsigned int *v);
	int (*app_clock)(struct nvml_dev *d, int type, unsigned int *mhz);
	int (*persistence)(struct nvml_dev *d, unsigned int *state);
	int (*ecc)(struct nvml_dev *d, unsigned int *current, unsigned int *pending);
	int (*mig)(struct nvml_dev *d, unsigned int *current, unsigned int *pending);
};

_Static_assert(sizeof(void *) == sizeof(int (*)(void)),
	       "dlsym results are stored as function pointers");

#define API(f) offsetof(struct facts_api, f)

/*
 * nvmlSystemGetCudaDriverVersion_v2 (R525 and later) reads the version of
 * the CUDA driver library actually installed; the older call gives the
 * version the kernel driver supports, which is the same number unless a
 * forward-compatibility CUDA package is in use. The newer is asked first,
 * the older when the newer is missing or does not answer.
 */
static const struct rv_nvml_symdef syms[] = {
	{ { "nvmlInit_v2", "nvmlInit" }, API(init), 1 },
	{ { "nvmlShutdown" }, API(shutdown), 1 },
	{ { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount" }, API(count), 1 },
	{ { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex" }, API(handle), 1 },
	{ { "nvmlSystemGetDriverVersion" }, API(driver), 0 },
	{ { "nvmlSystemGetNVMLVersion" }, API(nvml_version), 0 },
	{ { "nvmlSystemGetCudaDriverVersion_v2" }, API(cuda[C_V2]), 0 },
	{ { "nvmlSystemGetCudaDriverVersion" }, API(cuda[C_V1]), 0 },
	{ { "nvmlDeviceGetName" }, API(text[T_NAME]), 0 },
	{ { "nvmlDeviceGetUUID" }, API(text[T_UUID]), 0 },
	{ { "nvmlDeviceGetSerial" }, API(text[T_SERIAL]), 0 },
	{ { "nvmlDeviceGetVbiosVersion" }, API(text[T_VBIOS]), 0 },
	{ { "nvmlDeviceGetPowerManagementLimit" }, API(watt[W_LIMIT]), 0 },
	{ { "nvmlDeviceGetEnforcedPowerLimit" }, API(watt[W_ENFORCED]), 0 },
	{ { "nvmlDeviceGetCurrPcieLinkWidth" }, API(pcie[P_WIDTH]), 0 },
	{ { "nvmlDeviceGetMaxPcieLinkGeneration" }, API(pcie[P_MAX_GEN]), 0 },
	{ { "nvmlDeviceGetMaxPcieLinkWidth" }, API(pcie[P_MAX_WIDTH]), 0 },
	{ { "nvmlDeviceGetApplicationsClock" }, API(app_clock), 0 },
	{ { "nvmlDeviceGetPersistenceMode" }, API(persistence), 0 },
	{ { "nvmlDeviceGetEccMode" }, API(ecc), 0 },
	{ { "nvmlDeviceGetMigMode" }, API(mig), 0 },
};

/* The key of each per-GPU call of an array above: gpu.<i>.<word>. */
static const char *const text_key[NTEXT] = {
	[T_NAME] = "name", [T_UUID] = "uuid", [T_SERIAL] = "serial", [T_VBIOS] = "vbios",
};
static const char *const watt_key[NWATT] = {
	[W_LIMIT] = "power_limit_w", [W_ENFORCED] = "power_limit_enforced_w",
};

/* Words of the two-state modes, indexed by NVML's 0 and 1. */
static const char *const on_off[2] = { "off", "on" };
static const char *const mig_word[2] = { "disabled", "enabled" };

/* One pass: the calls, the list filled, and -ENOMEM once it happened
 * (other refusals of rv_facts_add, an empty value, only lose the fact). */
struct ctx {
	struct facts_api a;
	struct rv_facts *f;
	int rc;
};

/* 1 when every required call is there; the optional ones may be NULL. */
static int load(void *dl, struct facts_api *a)
{
	memset(a, 0, sizeof(*a));
	return rv_nvml_resolve(dl, syms, sizeof(syms) / sizeof(syms[0]), a) == NULL;
}

static void put(struct ctx *c, const char *key, const char *value)
{
	if (c->rc != -ENOMEM && rv_facts_add(c->f, key, value) == -ENOMEM)
		c->rc = -ENOMEM;
}

static void put_gpu(struct ctx *c, unsigned int i, const char *what, const char *value)
{
	char key[RV_FACT_KEY_MAX];

	snprintf(key, sizeof(key), "gpu.%u.%s", i, what);
	put(c, key, value);
}

/* "700" or "312.5": watts from milliwatts, without trailing zeros. */
static void put_watts(struct ctx *c, unsigned int i, const char *what, unsigned int mw)
{
	char v[32];

	snprintf(v, sizeof(v), "%.10g", (double)mw / MW_PER_W);
	put_gpu(c, i, what, v);
}

/* "on", or "on (pending off)" when the next GPU reset or reboot changes
 * it. A state other than 0 or 1 is not NVML's: no fact. */
static void put_mode(struct ctx *c, unsigned int i, const char *what, unsigned int cur,
		     unsigned int pend, const char *const word[2])
{
	char v[MODE_LEN];

	if (cur > 1 || pend > 1)
		return;
	if (cur == pend)
		snprintf(v, sizeof(v), "%s", word[cur]);
	else
		snprintf(v, sizeof(v), "%s (pending %s)", word[cur], word[pend]);
	put_gpu(c, i, what, v);
}

/* gpu.driver, gpu.nvml_version ("12.550.54.15"), gpu.cuda_driver ("12.4"). */
static void system_facts(struct ctx *c)
{
	char buf[TEXT_LEN];
	int cuda = 0, ok = 0;

	if (c->a.driver && c->a.driver(buf, sizeof(buf)) == RV_NVML_SUCCESS) {
		buf[sizeof(buf) - 1] = '\0';
		put(c, "gpu.driver", buf);
	}
	if (c->a.nvml_version && c->a.nvml_version(buf, sizeof(buf)) == RV_NVML_SUCCESS) {
		buf[sizeof(buf) - 1] = '\0';
		put(c, "gpu.nvml_version", buf);
	}
	for (size_t v = 0; v < NCUDA && !ok; v++)
		ok = c->a.cuda[v] && c->a.cuda[v](&cuda) == RV_NVML_SUCCESS && cuda > 0;
	if (ok) {
		snprintf(buf, sizeof(buf), "%d.%d", cuda / CUDA_MAJOR, cuda % CUDA_MAJOR / CUDA_MINOR);
		put(c, "gpu.cuda_driver", buf);
	}
}

/* name, uuid, serial, vbios, and the power limits. */
static void gpu_text(struct ctx *c, unsigned int i, struct nvml_dev *d)
{
	char buf[TEXT_LEN];
	unsigned int mw;

	for (size_t t = 0; t < NTEXT; t++) {
		if (!c->a.text[t] || c->a.text[t](d, buf, sizeof(buf)) != RV_NVML_SUCCESS)
			continue;
		buf[sizeof(buf) - 1] = '\0';
		put_gpu(c, i, text_key[t], buf);
	}
	for (size_t w = 0; w < NWATT; w++)
		if (c->a.watt[w] && c->a.watt[w](d, &mw) == RV_NVML_SUCCESS)
			put_watts(c, i, watt_key[w], mw);
}

/* Application clocks, persistence, ECC and MIG modes. */
static void gpu_settings(struct ctx *c, unsigned int i, struct nvml_dev *d)
{
	unsigned int v, cur, pend;
	char buf[32];

	if (c->a.app_clock && c->a.app_clock(d, NVML_CLOCK_SM, &v) == RV_NVML_SUCCESS) {
		snprintf(buf, sizeof(buf), "%u", v);
		put_gpu(c, i, "app_clock_sm_mhz", buf);
	}
	if (c->a.app_clock && c->a.app_clock(d, NVML_CLOCK_MEM, &v) == RV_NVML_SUCCESS) {
		snprintf(buf, sizeof(buf), "%u", v);
		put_gpu(c, i, "app_clock_mem_mhz", buf);
	}
	if (c->a.persistence && c->a.persistence(d, &v) == RV_NVML_SUCCESS)
		put_mode(c, i, "persistence", v, v, on_off);
	if (c->a.ecc && c->a.ecc(d, &cur, &pend) == RV_NVML_SUCCESS)
		put_mode(c, i, "ecc", cur, pend, on_off);
	if (c->a.mig && c->a.mig(d, &cur, &pend) == RV_NVML_SUCCESS)
		put_mode(c, i, "mig", cur, pend, mig_word);
}

/*
 * The PCIe link: its width now (pcie_width, "x16") and the best the GPU
 * and its slot allow (pcie_link_max, "gen5 x16", NVML's "possible with
 * this device and system"). The current generation is left out: most
 * GPUs drop to gen1 when idle to save power, and facts are read once, so
 * a node started under load would differ from idle peers for nothing. A
 * link trained narrower than its peers' (x8 in an x16 slot, a bad riser)
 * does not change with load, and is named by fleet drift.
 */
static void gpu_pcie(struct ctx *c, unsigned int i, struct nvml_dev *d)
{
	int (*g)(struct nvml_dev *, unsigned int *) = c->a.pcie[P_MAX_GEN];
	int (*w)(struct nvml_dev *, unsigned int *) = c->a.pcie[P_MAX_WIDTH];
	int (*now)(struct nvml_dev *, unsigned int *) = c->a.pcie[P_WIDTH];
	unsigned int gen, width;
	char buf[32];

	if (now && now(d, &width) == RV_NVML_SUCCESS) {
		snprintf(buf, sizeof(buf), "x%u", width);
		put_gpu(c, i, "pcie_width", buf);
	}
	if (g && w && g(d, &gen) == RV_NVML_SUCCESS && w(d, &width) == RV_NVML_SUCCESS) {
		snprintf(buf, sizeof(buf), "gen%u x%u", gen, width);
		put_gpu(c, i, "pcie_link_max", buf);
	}
}

/* gpu.count and every GPU's facts, up to GPUS_MAX GPUs. */
static void gpu_facts(struct ctx *c)
{
	unsigned int n = 0;
	char buf[32];

	if (c->a.count(&n) != RV_NVML_SUCCESS)
		return;
	snprintf(buf, sizeof(buf), "%u", n);
	put(c, "gpu.count", buf);
	for (unsigned int i = 0; i < n && i < GPUS_MAX && c->rc != -ENOMEM; i++) {
		struct nvml_dev *d = NULL;

		if (c->a.handle(i, &d) != RV_NVML_SUCCESS || !d)
			continue;
		gpu_text(c, i, d);
		gpu_settings(c, i, d);
		gpu_pcie(c, i, d);
	}
}

int rv_nvml_facts(const char *lib, struct rv_facts *f)
{
	void *dl = dlopen(lib ? lib : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	struct ctx c = { .f = f };

	if (!dl)
		return 0;
	if (!load(dl, &c.a) || c.a.init() != RV_NVML_SUCCESS) {
		dlclose(dl);
		return 0;
	}
	system_facts(&c);
	gpu_facts(&c);
	c.a.shutdown();
	dlclose(dl);
	return c.rc;
}
