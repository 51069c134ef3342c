/*
 * sys_infiniband.c - source "sys.infiniband": port counters of InfiniBand
 * and RoCE devices, /sys/class/infiniband/<dev>/ports/<p>/, instance
 * "<dev>_<p>":
 *   counters/<c>     -> net.ib_<c> (lower case): data and packets as
 *                       counters (the data counters count 4-byte words, so
 *                       their scale is 4 -> bytes/s), errors and drops as
 *                       events (their kind is in the catalog);
 *   hw_counters/<c>  -> the same, for the RDMA transport errors and the
 *                       congestion notifications a driver reports (mlx5);
 *   state            -> gauge net.ib_port_active (1 for "4: ACTIVE");
 *   rate             -> gauge net.ib_rate_gbps ("100 Gb/sec (4X EDR)").
 * A counter file the driver lacks has no channel. -ENOENT when no device
 * exists.
 */
#include "collect/sources.h"

#include <stdio.h>

#include "collect/sysval.h"

enum { MAX_PORTS = 64, IB_WORD_BYTES = 4 };

/* Files under ports/<p>/. */
static const struct rv_sysattr attrs[] = {
	{ "counters/port_xmit_data", "net.ib_port_xmit_data", RV_SYSVAL_U64, IB_WORD_BYTES },
	{ "counters/port_rcv_data", "net.ib_port_rcv_data", RV_SYSVAL_U64, IB_WORD_BYTES },
	{ "counters/port_xmit_packets", "net.ib_port_xmit_packets", RV_SYSVAL_U64, 1 },
	{ "counters/port_rcv_packets", "net.ib_port_rcv_packets", RV_SYSVAL_U64, 1 },
	{ "counters/port_xmit_wait", "net.ib_port_xmit_wait", RV_SYSVAL_U64, 1 },
	{ "counters/symbol_error", "net.ib_symbol_error", RV_SYSVAL_U64, 1 },
	{ "counters/link_downed", "net.ib_link_downed", RV_SYSVAL_U64, 1 },
	{ "counters/link_error_recovery", "net.ib_link_error_recovery", RV_SYSVAL_U64, 1 },
	{ "counters/port_rcv_errors", "net.ib_port_rcv_errors", RV_SYSVAL_U64, 1 },
	{ "counters/port_xmit_discards", "net.ib_port_xmit_discards", RV_SYSVAL_U64, 1 },
	{ "counters/port_rcv_remote_physical_errors", "net.ib_port_rcv_remote_physical_errors",
	  RV_SYSVAL_U64, 1 },
	{ "counters/local_link_integrity_errors", "net.ib_local_link_integrity_errors",
	  RV_SYSVAL_U64, 1 },
	{ "counters/excessive_buffer_overrun_errors", "net.ib_excessive_buffer_overrun_errors",
	  RV_SYSVAL_U64, 1 },
	{ "counters/VL15_dropped", "net.ib_vl15_dropped", RV_SYSVAL_U64, 1 },
	{ "hw_counters/out_of_sequence", "net.ib_out_of_sequence", RV_SYSVAL_U64, 1 },
	{ "hw_counters/local_ack_timeout_err", "net.ib_local_ack_timeout_err", RV_SYSVAL_U64, 1 },
	{ "hw_counters/packet_seq_err", "net.ib_packet_seq_err", RV_SYSVAL_U64, 1 },
	{ "hw_counters/rnr_nak_retry_err", "net.ib_rnr_nak_retry_err", RV_SYSVAL_U64, 1 },
	{ "hw_counters/implied_nak_seq_err", "net.ib_implied_nak_seq_err", RV_SYSVAL_U64, 1 },
	{ "hw_counters/duplicate_request", "net.ib_duplicate_request", RV_SYSVAL_U64, 1 },
	{ "hw_counters/req_cqe_error", "net.ib_req_cqe_error", RV_SYSVAL_U64, 1 },
	{ "hw_counters/resp_cqe_error", "net.ib_resp_cqe_error", RV_SYSVAL_U64, 1 },
	{ "hw_counters/np_cnp_sent", "net.ib_np_cnp_sent", RV_SYSVAL_U64, 1 },
	{ "hw_counters/rp_cnp_handled", "net.ib_rp_cnp_handled", RV_SYSVAL_U64, 1 },
	{ "hw_counters/np_ecn_marked_roce_packets", "net.ib_np_ecn_marked_roce_packets",
	  RV_SYSVAL_U64, 1 },
	{ "state", "net.ib_port_active", RV_SYSVAL_IBSTATE, 1 },
	{ "rate", "net.ib_rate_gbps", RV_SYSVAL_LEAD, 1 },
};

static int add_dev(struct rv_sysvals *sv, struct rv_chanlist *chans, const char *dir,
		   const char *dev, struct rv_err *err)
{
	char pdir[RV_SYSVAL_PATH_MAX], inst[RV_SYSVAL_NAME_MAX + 16];
	uint32_t ports[MAX_PORTS];
	size_t n = 0;
	int rc = 0;

	if (rv_sysval_path(pdir, "%s/%s/ports", dir, dev) ||
	    rv_sysval_scan_ids(pdir, "", "", ports, MAX_PORTS, &n))
		return 0;
	for (size_t i = 0; !rc && i < n; i++) {
		snprintf(inst, sizeof(inst), "%s_%u", dev, ports[i]);
		if (rv_sysval_path(pdir, "%s/%s/ports/%u", dir, dev, ports[i]) == 0)
			rc = rv_sysvals_add_attrs(sv, chans, pdir, attrs,
						  sizeof(attrs) / sizeof(attrs[0]), inst, err);
	}
	return rc;
}

static int ib_open(const struct rv_collect_cfg *cfg, void **state,
		   struct rv_chanlist *chans, struct rv_err *err)
{
	return rv_sysvals_open_each(cfg, "/sys/class/infiniband", "no RDMA port counters",
				    add_dev, state, chans, err);
}

const struct rv_source rv_src_sys_infiniband = {
	.name = "sys.infiniband",
	.open = ib_open,
	.sample = rv_sysvals_sample_src,
	.close = rv_sysvals_free,
};
