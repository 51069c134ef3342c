/*
 * metrics_sys.c - metric types read from /sys by the collect/sys_*.c
 * sources (see metrics_sys.h). Grouped by subsystem like the catalog.
 */
#include "catalog/metrics_sys.h"

#include <stddef.h>

const struct rv_metric rv_metrics_sys[] = {
	/* sys_cpufreq.c, sys_thermal.c, sys_rapl.c */
	{ "cpu.freq_mhz", "MHz", RV_KIND_GAUGE, 1, "current CPU frequency (cpufreq scaling_cur_freq)" },
	{ "cpu.temp_c", "C", RV_KIND_GAUGE, 1, "temperature of a hwmon sensor or thermal zone" },
	{ "cpu.power_w", "W", RV_KIND_COUNTER, 1, "RAPL power of a package or subzone (energy_uj)" },
	/* sys_numa.c: /sys/devices/system/node/nodeN */
	{ "mem.node_mem_total_bytes", "bytes", RV_KIND_GAUGE, 2, "memory of the NUMA node (MemTotal)" },
	{ "mem.node_mem_free_bytes", "bytes", RV_KIND_GAUGE, 2, "free memory of the node (MemFree)" },
	{ "mem.node_mem_used_bytes", "bytes", RV_KIND_GAUGE, 2, "used memory of the node (MemUsed)" },
	{ "mem.node_file_pages_bytes", "bytes", RV_KIND_GAUGE, 2, "page cache on the node (FilePages)" },
	{ "mem.node_anon_pages_bytes", "bytes", RV_KIND_GAUGE, 2, "anonymous memory on the node (AnonPages)" },
	{ "mem.node_dirty_bytes", "bytes", RV_KIND_GAUGE, 2, "dirty page cache on the node (Dirty)" },
	{ "mem.node_hugepages_total", "pages", RV_KIND_GAUGE, 3, "default-size hugetlb pages on the node" },
	{ "mem.node_hugepages_free", "pages", RV_KIND_GAUGE, 3, "default-size hugetlb pages free on the node" },
	{ "mem.node_numa_hit", "pages/s", RV_KIND_COUNTER, 3, "allocations placed on the node as intended" },
	{ "mem.node_numa_miss", "pages/s", RV_KIND_COUNTER, 3, "allocations placed here meant for another node" },
	{ "mem.node_numa_foreign", "pages/s", RV_KIND_COUNTER, 3, "allocations meant for here placed elsewhere" },
	{ "mem.node_interleave_hit", "pages/s", RV_KIND_COUNTER, 3, "interleaved allocations placed here" },
	{ "mem.node_local_node", "pages/s", RV_KIND_COUNTER, 3, "allocations here by a process on this node" },
	{ "mem.node_other_node", "pages/s", RV_KIND_COUNTER, 3, "allocations here by a process on another node" },
	{ "mem.node_hugepages_size_nr", "pages", RV_KIND_GAUGE, 3, "hugetlb pool of one page size on the node" },
	{ "mem.node_hugepages_size_free", "pages", RV_KIND_GAUGE, 3, "free hugetlb pages of one size on the node" },
	{ "mem.node_hugepages_size_surplus", "pages", RV_KIND_GAUGE, 3, "surplus hugetlb pages of one size on the node" },
	/* sys_netclass.c: /sys/class/net/<if> */
	{ "net.carrier_changes", "1/s", RV_KIND_EVENT, 2, "link went up or down" },
	{ "net.link_up", "bool", RV_KIND_GAUGE, 2, "carrier present (1) or not (0)" },
	/* sys_infiniband.c: /sys/class/infiniband/<dev>/ports/<p> */
	{ "net.ib_port_xmit_data", "bytes/s", RV_KIND_COUNTER, 1, "InfiniBand bytes sent" },
	{ "net.ib_port_rcv_data", "bytes/s", RV_KIND_COUNTER, 1, "InfiniBand bytes received" },
	{ "net.ib_port_xmit_packets", "1/s", RV_KIND_COUNTER, 2, "InfiniBand packets sent" },
	{ "net.ib_port_rcv_packets", "1/s", RV_KIND_COUNTER, 2, "InfiniBand packets received" },
	{ "net.ib_port_xmit_wait", "1/s", RV_KIND_COUNTER, 2, "ticks with data to send but no credit" },
	{ "net.ib_symbol_error", "1/s", RV_KIND_EVENT, 3, "minor link errors on a physical lane" },
	{ "net.ib_link_downed", "1/s", RV_KIND_EVENT, 2, "link training failed, link went down" },
	{ "net.ib_link_error_recovery", "1/s", RV_KIND_EVENT, 3, "link error recoveries completed" },
	{ "net.ib_port_rcv_errors", "1/s", RV_KIND_EVENT, 3, "received packets with errors" },
	{ "net.ib_port_xmit_discards", "1/s", RV_KIND_EVENT, 3, "outbound packets discarded" },
	{ "net.ib_port_rcv_remote_physical_errors", "1/s", RV_KIND_EVENT, 3, "received packets marked bad upstream" },
	{ "net.ib_local_link_integrity_errors", "1/s", RV_KIND_EVENT, 3, "physical errors beyond the threshold" },
	{ "net.ib_excessive_buffer_overrun_errors", "1/s", RV_KIND_EVENT, 3, "consecutive receive buffer overruns" },
	{ "net.ib_vl15_dropped", "1/s", RV_KIND_EVENT, 3, "management (VL15) packets dropped" },
	{ "net.ib_out_of_sequence", "1/s", RV_KIND_EVENT, 3, "RDMA packets received out of sequence" },
	{ "net.ib_local_ack_timeout_err", "1/s", RV_KIND_EVENT, 3, "RDMA ACK timeouts of the sender" },
	{ "net.ib_packet_seq_err", "1/s", RV_KIND_EVENT, 3, "RDMA NAK sequence errors received" },
	{ "net.ib_rnr_nak_retry_err", "1/s", RV_KIND_EVENT, 3, "RDMA receiver-not-ready retries exhausted" },
	{ "net.ib_implied_nak_seq_err", "1/s", RV_KIND_EVENT, 3, "RDMA implied NAK sequence errors" },
	{ "net.ib_duplicate_request", "1/s", RV_KIND_EVENT, 3, "RDMA duplicate requests received" },
	{ "net.ib_req_cqe_error", "1/s", RV_KIND_EVENT, 3, "RDMA requests completed with an error" },
	{ "net.ib_resp_cqe_error", "1/s", RV_KIND_EVENT, 3, "RDMA responses completed with an error" },
	{ "net.ib_np_cnp_sent", "1/s", RV_KIND_EVENT, 3, "congestion notification packets sent (RoCE)" },
	{ "net.ib_rp_cnp_handled", "1/s", RV_KIND_EVENT, 3, "congestion notification packets handled (RoCE)" },
	{ "net.ib_np_ecn_marked_roce_packets", "1/s", RV_KIND_EVENT, 3, "ECN-marked RoCE packets received" },
	{ "net.ib_port_active", "bool", RV_KIND_GAUGE, 2, "port state ACTIVE (1) or not (0)" },
	{ "net.ib_rate_gbps", "Gbit/s", RV_KIND_GAUGE, 2, "port data rate" },
	{ NULL, NULL, RV_KIND_GAUGE, 0, NULL },
};
