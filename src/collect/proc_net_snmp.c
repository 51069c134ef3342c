/*
 * proc_net_snmp.c - source "proc.net_snmp": /proc/net/snmp, the RFC 1213
 * style counters of IP, ICMP, TCP, UDP and UDP-Lite for the whole host
 * (this network namespace).
 *
 * A curated subset: traffic (segments, datagrams, opens) as counters, the
 * failure counts (errors, discards, resets, retransmitted segments) as
 * events, and established TCP connections as a gauge; the kind and unit
 * of each are in catalog/metrics_net.c. Fields this kernel lacks (older
 * ones have no InCsumErrors or MemErrors) are simply not channels. The
 * parsing is pairs.c's, shared with proc_netstat.c.
 */
#include "collect/sources.h"

#include <stddef.h>

#include "collect/pairs.h"

static const struct rv_pairs_row snmp_rows[] = {
	{ "Ip", "InReceives", "net.ip_in_receives" },
	{ "Ip", "InDelivers", "net.ip_in_delivers" },
	{ "Ip", "OutRequests", "net.ip_out_requests" },
	{ "Ip", "ForwDatagrams", "net.ip_forw_datagrams" },
	{ "Ip", "InHdrErrors", "net.ip_in_hdr_errors" },
	{ "Ip", "InAddrErrors", "net.ip_in_addr_errors" },
	{ "Ip", "InUnknownProtos", "net.ip_in_unknown_protos" },
	{ "Ip", "InDiscards", "net.ip_in_discards" },
	{ "Ip", "OutDiscards", "net.ip_out_discards" },
	{ "Ip", "OutNoRoutes", "net.ip_out_no_routes" },
	{ "Ip", "ReasmFails", "net.ip_reasm_fails" },
	{ "Ip", "FragFails", "net.ip_frag_fails" },
	{ "Icmp", "InMsgs", "net.icmp_in_msgs" },
	{ "Icmp", "OutMsgs", "net.icmp_out_msgs" },
	{ "Icmp", "InDestUnreachs", "net.icmp_in_dest_unreachs" },
	{ "Icmp", "OutDestUnreachs", "net.icmp_out_dest_unreachs" },
	{ "Icmp", "InErrors", "net.icmp_in_errors" },
	{ "Icmp", "InCsumErrors", "net.icmp_in_csum_errors" },
	{ "Icmp", "OutErrors", "net.icmp_out_errors" },
	{ "Tcp", "ActiveOpens", "net.tcp_active_opens" },
	{ "Tcp", "PassiveOpens", "net.tcp_passive_opens" },
	{ "Tcp", "CurrEstab", "net.tcp_curr_estab" },
	{ "Tcp", "InSegs", "net.tcp_in_segs" },
	{ "Tcp", "OutSegs", "net.tcp_out_segs" },
	{ "Tcp", "AttemptFails", "net.tcp_attempt_fails" },
	{ "Tcp", "EstabResets", "net.tcp_estab_resets" },
	{ "Tcp", "RetransSegs", "net.tcp_retrans_segs" },
	{ "Tcp", "InErrs", "net.tcp_in_errs" },
	{ "Tcp", "OutRsts", "net.tcp_out_rsts" },
	{ "Tcp", "InCsumErrors", "net.tcp_in_csum_errors" },
	{ "Udp", "InDatagrams", "net.udp_in_datagrams" },
	{ "Udp", "OutDatagrams", "net.udp_out_datagrams" },
	{ "Udp", "NoPorts", "net.udp_no_ports" },
	{ "Udp", "InErrors", "net.udp_in_errors" },
	{ "Udp", "RcvbufErrors", "net.udp_rcvbuf_errors" },
	{ "Udp", "SndbufErrors", "net.udp_sndbuf_errors" },
	{ "Udp", "InCsumErrors", "net.udp_in_csum_errors" },
	{ "Udp", "MemErrors", "net.udp_mem_errors" },
	{ "UdpLite", "InDatagrams", "net.udplite_in_datagrams" },
	{ "UdpLite", "OutDatagrams", "net.udplite_out_datagrams" },
	{ "UdpLite", "InErrors", "net.udplite_in_errors" },
	{ NULL, NULL, NULL },
};

static int snmp_open(const struct rv_collect_cfg *cfg, void **state,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	return rv_pairs_open(cfg->root, "/proc/net/snmp", "proc.net_snmp", snmp_rows, state,
			     chans, err);
}

const struct rv_source rv_src_proc_net_snmp = {
	.name = "proc.net_snmp",
	.open = snmp_open,
	.sample = rv_pairs_sample,
	.close = rv_pairs_close,
};
