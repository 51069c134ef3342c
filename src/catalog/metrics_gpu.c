/*
 * metrics_gpu.c - metric types of the gpu subsystem, one instance per
 * NVIDIA GPU ("gpu0", ...), MIG GPU instance ("gpu0-mig1") or NVLink link
 * ("gpu0-link3"), read by collect/nvml*.c (see metrics.h). Units
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
	/* GPM (Hopper and later; per GPU and per MIG instance): activity over
	 * the interval between two GPM samples, collect/nvml_gpm.c. */
	{ "gpu.gr_active_pct", "%", RV_KIND_GAUGE, 2, "graphics/compute engine active (GPM)" },
	{ "gpu.sm_active_pct", "%", RV_KIND_GAUGE, 1, "SMs with at least one warp resident, averaged over SMs (GPM)" },
	{ "gpu.sm_occupancy_pct", "%", RV_KIND_GAUGE, 2, "warps resident on the SMs as a share of the maximum (GPM)" },
	{ "gpu.tensor_active_pct", "%", RV_KIND_GAUGE, 1, "tensor core pipes active, any precision (GPM)" },
	{ "gpu.fp64_active_pct", "%", RV_KIND_GAUGE, 3, "FP64 pipe active (GPM)" },
	{ "gpu.fp32_active_pct", "%", RV_KIND_GAUGE, 2, "FP32 pipe active (GPM)" },
	{ "gpu.fp16_active_pct", "%", RV_KIND_GAUGE, 2, "FP16 pipe active (GPM)" },
	{ "gpu.dram_active_pct", "%", RV_KIND_GAUGE, 1, "device memory bandwidth used, share of the peak (GPM)" },
	{ "gpu.gpm_pcie_tx_bytes", "bytes/s", RV_KIND_GAUGE, 2, "PCIe transmit throughput over the GPM interval (NVML MiB/s)" },
	{ "gpu.gpm_pcie_rx_bytes", "bytes/s", RV_KIND_GAUGE, 2, "PCIe receive throughput over the GPM interval (NVML MiB/s)" },
	{ "gpu.nvlink_tx_bytes", "bytes/s", RV_KIND_GAUGE, 1, "NVLink transmit throughput, all links (GPM, NVML MiB/s)" },
	{ "gpu.nvlink_rx_bytes", "bytes/s", RV_KIND_GAUGE, 1, "NVLink receive throughput, all links (GPM, NVML MiB/s)" },
	/* NVLink per link ("gpu0-link3"): field values and link state,
	 * collect/nvml_link.c. */
	{ "gpu.nvlink_up", "0/1", RV_KIND_GAUGE, 1, "NVLink link active" },
	{ "gpu.nvlink_data_tx_bytes", "bytes/s", RV_KIND_COUNTER, 2, "NVLink data transmitted on the link (NVML KiB counter)" },
	{ "gpu.nvlink_data_rx_bytes", "bytes/s", RV_KIND_COUNTER, 2, "NVLink data received on the link (NVML KiB counter)" },
	{ "gpu.nvlink_crc_flit_errors", "1/s", RV_KIND_EVENT, 2, "NVLink flow-control digit CRC errors on the link" },
	{ "gpu.nvlink_crc_data_errors", "1/s", RV_KIND_EVENT, 2, "NVLink data CRC errors on the link" },
	{ "gpu.nvlink_replay_errors", "1/s", RV_KIND_EVENT, 2, "NVLink replays (retransmissions) on the link" },
	{ "gpu.nvlink_recovery_errors", "1/s", RV_KIND_EVENT, 2, "NVLink recoveries (link retrained) on the link" },
	/* Health (collect/nvml_rows.c). */
	{ "gpu.mem_temp_c", "C", RV_KIND_GAUGE, 2, "device memory (HBM) temperature" },
	{ "gpu.fan_pct", "%", RV_KIND_GAUGE, 3, "fan speed as a share of the maximum" },
	{ "gpu.remapped_rows_corr", "rows/s", RV_KIND_EVENT, 3, "memory rows remapped for correctable errors" },
	{ "gpu.remapped_rows_uncorr", "rows/s", RV_KIND_EVENT, 2, "memory rows remapped for uncorrectable errors" },
	{ "gpu.remap_pending", "0/1", RV_KIND_GAUGE, 2, "a row remap waits for a GPU reset" },
	{ "gpu.remap_failed", "0/1", RV_KIND_GAUGE, 2, "a row remap failed: the GPU needs service" },
	/* Who uses it (collect/nvml_proc.c). */
	{ "gpu.processes", "procs", RV_KIND_GAUGE, 2, "compute processes running on the GPU" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
