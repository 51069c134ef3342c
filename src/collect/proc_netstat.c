/*
 * proc_netstat.c - source "proc.netstat": /proc/net/netstat, the Linux
 * extensions to the SNMP counters (TcpExt, IpExt).
 *
 * A curated subset aimed at trouble: retransmissions and timeouts, listen
 * queue overflows, receive-queue pruning and drops, aborts and memory
 * pressure (events), plus the IP byte counts and a few TCP volume counts
 * as context (counters). Channels are net.tcpext_<field> and
 * net.ipext_<field>, the kernel's name in lower snake case. Kinds and
 * units live in catalog/metrics_net.c; the parsing is pairs.c's, shared
 * with proc_net_snmp.c.
 */
#include "collect/sources.h"

#include <stddef.h>

#include "collect/pairs.h"

static const struct rv_pairs_row netstat_rows[] = {
	{ "TcpExt", "TCPTimeouts", "net.tcpext_tcp_timeouts" },
	{ "TcpExt", "TCPLostRetransmit", "net.tcpext_tcp_lost_retransmit" },
	{ "TcpExt", "TCPSynRetrans", "net.tcpext_tcp_syn_retrans" },
	{ "TcpExt", "TCPFastRetrans", "net.tcpext_tcp_fast_retrans" },
	{ "TcpExt", "TCPSlowStartRetrans", "net.tcpext_tcp_slow_start_retrans" },
	{ "TcpExt", "TCPRetransFail", "net.tcpext_tcp_retrans_fail" },
	{ "TcpExt", "TCPLossProbes", "net.tcpext_tcp_loss_probes" },
	{ "TcpExt", "TCPSpuriousRTOs", "net.tcpext_tcp_spurious_rtos" },
	{ "TcpExt", "TCPSackFailures", "net.tcpext_tcp_sack_failures" },
	{ "TcpExt", "ListenOverflows", "net.tcpext_listen_overflows" },
	{ "TcpExt", "ListenDrops", "net.tcpext_listen_drops" },
	{ "TcpExt", "TCPReqQFullDrop", "net.tcpext_tcp_req_q_full_drop" },
	{ "TcpExt", "TCPBacklogDrop", "net.tcpext_tcp_backlog_drop" },
	{ "TcpExt", "TCPRcvQDrop", "net.tcpext_tcp_rcv_q_drop" },
	{ "TcpExt", "TCPZeroWindowDrop", "net.tcpext_tcp_zero_window_drop" },
	{ "TcpExt", "TCPOFODrop", "net.tcpext_tcp_ofo_drop" },
	{ "TcpExt", "PruneCalled", "net.tcpext_prune_called" },
	{ "TcpExt", "RcvPruned", "net.tcpext_rcv_pruned" },
	{ "TcpExt", "EmbryonicRsts", "net.tcpext_embryonic_rsts" },
	{ "TcpExt", "TCPAbortOnTimeout", "net.tcpext_tcp_abort_on_timeout" },
	{ "TcpExt", "TCPAbortOnData", "net.tcpext_tcp_abort_on_data" },
	{ "TcpExt", "TCPAbortOnMemory", "net.tcpext_tcp_abort_on_memory" },
	{ "TcpExt", "TCPMemoryPressures", "net.tcpext_tcp_memory_pressures" },
	{ "TcpExt", "TCPToZeroWindowAdv", "net.tcpext_tcp_to_zero_window_adv" },
	{ "TcpExt", "TCPOFOQueue", "net.tcpext_tcp_ofo_queue" },
	{ "TcpExt", "DelayedACKs", "net.tcpext_delayed_acks" },
	{ "TcpExt", "TW", "net.tcpext_tw" },
	{ "TcpExt", "TCPOrigDataSent", "net.tcpext_tcp_orig_data_sent" },
	{ "IpExt", "InOctets", "net.ipext_in_octets" },
	{ "IpExt", "OutOctets", "net.ipext_out_octets" },
	{ "IpExt", "InMcastPkts", "net.ipext_in_mcast_pkts" },
	{ "IpExt", "OutMcastPkts", "net.ipext_out_mcast_pkts" },
	{ "IpExt", "InBcastPkts", "net.ipext_in_bcast_pkts" },
	{ "IpExt", "InNoRoutes", "net.ipext_in_no_routes" },
	{ "IpExt", "InTruncatedPkts", "net.ipext_in_truncated_pkts" },
	{ "IpExt", "InCsumErrors", "net.ipext_in_csum_errors" },
	{ "IpExt", "InCEPkts", "net.ipext_in_ce_pkts" },
	{ NULL, NULL, NULL },
};

static int netstat_open(const struct rv_collect_cfg *cfg, void **state,
			struct rv_chanlist *chans, struct rv_err *err)
{
	return rv_pairs_open(cfg->root, "/proc/net/netstat", "proc.netstat", netstat_rows, state,
			     chans, err);
}

const struct rv_source rv_src_proc_netstat = {
	.name = "proc.netstat",
	.open = netstat_open,
	.sample = rv_pairs_sample,
	.close = rv_pairs_close,
};
