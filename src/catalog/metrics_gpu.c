/*
 * metrics_gpu.c - metric types of the gpu subsystem, one instance per
 * NVIDIA GPU ("gpu0", ...), read by collect/nvml.c (see metrics.h). Units
 * are those after the channel scale: NVML's milliwatts, millijoules and
 * KB/s become W and bytes/s.
 */
#include "catalog/metrics_gpu.h"

#include <stddef.h>

const struct rv_metric rv_metrics_gpu[] = {
	{ "gpu.util_pct", "%", RV_KIND_GAUGE, 1, "time a kernel ran on the GPU over the driver's last period" },
	{ "gpu.mem_util_pct", "%", RV_KIND_GAUGE, 2, "time device memory was read or written over that period" },
	{ "gpu.mem_used_bytes", "bytes", RV_KIND_GAUGE, 1, "device memory allocated" },
	{ "gpu.mem_total_bytes", "bytes", RV_KIND_GAUGE, 1, "device memory installed" },
	{ "gpu.power_w", "W", RV_KIND_GAUGE, 1, "board power draw (NVML mW)" },
	{ "gpu.energy", "W", RV_KIND_COUNTER, 3, "average power from the energy counter (NVML mJ)" },
	{ "gpu.temp_c", "C", RV_KIND_GAUGE, 1, "GPU core temperature" },
	{ "gpu.sm_clock_mhz", "MHz", RV_KIND_GAUGE, 2, "SM clock" },
	{ "gpu.mem_clock_mhz", "MHz", RV_KIND_GAUGE, 2, "memory clock" },
	{ "gpu.pcie_tx_bytes", "bytes/s", RV_KIND_GAUGE, 2, "PCIe transmit throughput, 20 ms sample (NVML KB/s)" },
	{ "gpu.pcie_rx_bytes", "bytes/s", RV_KIND_GAUGE, 2, "PCIe receive throughput, 20 ms sample (NVML KB/s)" },
	{ "gpu.pcie_replays", "1/s", RV_KIND_EVENT, 3, "PCIe link replays" },
	{ "gpu.ecc_corrected", "1/s", RV_KIND_EVENT, 2, "corrected ECC errors (volatile, since driver load)" },
	{ "gpu.ecc_uncorrected", "1/s", RV_KIND_EVENT, 2, "uncorrected ECC errors (volatile, since driver load)" },
	{ "gpu.throttle_reasons", "bitmask", RV_KIND_GAUGE, 3, "clock throttle reasons as NVML's bitmask" },
	{ "gpu.throttle_power", "0/1", RV_KIND_GAUGE, 2, "clocks held down by the power cap or power brake" },
	{ "gpu.throttle_thermal", "0/1", RV_KIND_GAUGE, 2, "clocks held down by software or hardware thermal slowdown" },
	{ "gpu.throttle_hw_slowdown", "0/1", RV_KIND_GAUGE, 2, "hardware slowdown (thermal, power brake) engaged" },
	{ "gpu.pstate", "P", RV_KIND_GAUGE, 3, "performance state, 0 (fastest) to 15" },
	{ "gpu.retired_pages", "pages/s", RV_KIND_EVENT, 3, "device memory pages retired (single and double bit ECC)" },
	{ "gpu.xid_errors", "1/s", RV_KIND_EVENT, 2, "XID critical error events from the driver" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
