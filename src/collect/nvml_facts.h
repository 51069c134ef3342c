/*
 * nvml_facts.h - the GPU facts of a host (facts.c) read from the NVIDIA
 * management library; nvml_facts.c loads the library with dlopen, as the
 * source nvml (nvml.c) does.
 *
 * Keys (each present only when its call exists and answers):
 *   gpu.driver                 "550.54.15"
 *   gpu.cuda_driver            "12.4" (major.minor of the CUDA driver)
 *   gpu.nvml_version           "12.550.54.15"
 *   gpu.count                  GPUs the library sees, "8"
 * and per GPU i (0 .. 63):
 *   gpu.<i>.name               "NVIDIA H100 80GB HBM3"
 *   gpu.<i>.uuid               "GPU-..."          identity: differs per board
 *   gpu.<i>.serial             board serial       identity: differs per board
 *   gpu.<i>.vbios              "96.00.89.00.01"
 *   gpu.<i>.persistence        "on" | "off"
 *   gpu.<i>.power_limit_w      the power management limit, "700" or "312.5"
 *   gpu.<i>.power_limit_enforced_w   the limit in force (the lowest of all)
 *   gpu.<i>.app_clock_sm_mhz, gpu.<i>.app_clock_mem_mhz   application clocks
 *   gpu.<i>.ecc                "on", "off", "on (pending off)" (after a reset)
 *   gpu.<i>.mig                "enabled", "disabled", "disabled (pending enabled)"
 *   gpu.<i>.pcie_width         "x16": the link's width now (its generation
 *                              is left out: idle GPUs drop to gen1)
 *   gpu.<i>.pcie_link_max      "gen5 x16": the best the GPU and slot allow
 * The identity keys are left out of fleet drift (fleet/drift.h); all the
 * others are configuration, and a node that differs from its peers on one
 * is named.
 */
#ifndef RV_COLLECT_NVML_FACTS_H
#define RV_COLLECT_NVML_FACTS_H

struct rv_facts;
/* Adds the keys above to f from the library lib (NULL:
 * "libnvidia-ml.so.1"); no library or no answer adds nothing, a call
 * missing or refused leaves out its key only. 0 or -ENOMEM (nvml_facts.c). */
int rv_nvml_facts(const char *lib, struct rv_facts *f);

#endif
