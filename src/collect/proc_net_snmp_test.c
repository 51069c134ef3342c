/*
 * proc_net_snmp_test.c - the header/value pair sources proc.net_snmp and
 * proc.netstat (pairs.c): curated fields of the nethost fixture with their
 * kinds and values (2^64 - 1 included), fields an older kernel lacks, and
 * a temporary file rewritten between open and sample: a header that
 * changes, a protocol that goes away, short, long and non-numeric value
 * lines, a value past 2^64, a header without values, an emptied file; a
 * missing file and a file without any known field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>

#include "collect/sources.h"
#include "collect/procnet_test.h"

static void test_snmp_fixture(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	nethost_root(root, sizeof(root));
	assert_int_equal(run_open(&r, &rv_src_proc_net_snmp, root), 0);
	assert_int_equal(r.l.n, 41);
	assert_string_equal(r.l.v[0].name, "net.ip_in_receives");
	assert_string_equal(r.l.v[r.l.n - 1].name, "net.udplite_in_errors");
	assert_string_equal(r.l.v[0].source, "proc.net_snmp");
	assert_true(r.l.v[run_chan(&r, "net.tcp_curr_estab")].metric->kind == RV_KIND_GAUGE);
	assert_true(r.l.v[run_chan(&r, "net.tcp_in_segs")].metric->kind == RV_KIND_COUNTER);
	assert_true(r.l.v[run_chan(&r, "net.tcp_retrans_segs")].metric->kind == RV_KIND_EVENT);
	assert_true(r.l.v[run_chan(&r, "net.udp_rcvbuf_errors")].metric->kind == RV_KIND_EVENT);
	assert_true(r.l.v[run_chan(&r, "net.ip_in_discards")].metric->kind == RV_KIND_EVENT);
	run_sample(&r);
	run_all_valid(&r, 1);
	assert_true(run_val(&r, "net.ip_in_receives") == 8123456789.0);
	assert_true(run_val(&r, "net.ip_in_hdr_errors") == 3.0);
	assert_true(run_val(&r, "net.ip_forw_datagrams") == 1200.0);
	assert_true(run_val(&r, "net.ip_reasm_fails") == 2.0);
	assert_true(run_val(&r, "net.ip_frag_fails") == 1.0);
	assert_true(run_val(&r, "net.icmp_in_errors") == 12.0);
	assert_true(run_val(&r, "net.icmp_out_dest_unreachs") == 4200.0);
	assert_true(run_val(&r, "net.tcp_active_opens") == 152340.0);
	assert_true(run_val(&r, "net.tcp_curr_estab") == 87.0);
	assert_true(run_val(&r, "net.tcp_in_segs") == 9876543210.0);
	assert_true(run_val(&r, "net.tcp_retrans_segs") == 65432.0);
	assert_true(run_val(&r, "net.tcp_out_rsts") == 54321.0);
	assert_true(run_val(&r, "net.tcp_in_csum_errors") == 3.0);
	assert_true(run_val(&r, "net.udp_no_ports") == 1234.0);
	assert_true(run_val(&r, "net.udp_rcvbuf_errors") == 50.0);
	assert_true(run_val(&r, "net.udp_mem_errors") == 0.0);
	run_close(&r);
}

static void test_netstat_fixture(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	nethost_root(root, sizeof(root));
	assert_int_equal(run_open(&r, &rv_src_proc_netstat, root), 0);
	assert_int_equal(r.l.n, 37);
	assert_string_equal(r.l.v[0].name, "net.tcpext_tcp_timeouts");
	assert_string_equal(r.l.v[28].name, "net.ipext_in_octets");
	assert_true(r.l.v[0].metric->kind == RV_KIND_EVENT);
	assert_true(r.l.v[run_chan(&r, "net.tcpext_delayed_acks")].metric->kind == RV_KIND_COUNTER);
	assert_true(r.l.v[run_chan(&r, "net.ipext_in_octets")].metric->kind == RV_KIND_COUNTER);
	assert_string_equal(r.l.v[28].metric->unit, "bytes/s");
	assert_true(r.l.v[run_chan(&r, "net.ipext_in_csum_errors")].metric->kind == RV_KIND_EVENT);
	run_sample(&r);
	run_all_valid(&r, 1);
	assert_true(run_val(&r, "net.tcpext_tcp_timeouts") == 4321.0);
	assert_true(run_val(&r, "net.tcpext_listen_overflows") == 77.0);
	assert_true(run_val(&r, "net.tcpext_listen_drops") == 79.0);
	assert_true(run_val(&r, "net.tcpext_tcp_syn_retrans") == 345.0);
	assert_true(run_val(&r, "net.tcpext_tcp_ofo_queue") == 34567.0);
	assert_true(run_val(&r, "net.tcpext_prune_called") == 9.0);
	assert_true(run_val(&r, "net.tcpext_tw") == 45678.0);
	assert_true(run_val(&r, "net.tcpext_tcp_orig_data_sent") == 8000000000.0);
	assert_true(run_val(&r, "net.tcpext_tcp_to_zero_window_adv") == 17.0);
	assert_true(run_val(&r, "net.ipext_in_octets") == 18446744073709551615.0);
	assert_true(run_val(&r, "net.ipext_out_octets") == 987654321098.0);
	assert_true(run_val(&r, "net.ipext_in_csum_errors") == 21.0);
	assert_true(run_val(&r, "net.ipext_in_ce_pkts") == 25.0);
	assert_int_equal(run_find(&r, "net.mptcpext_mptcp_retrans"), -1);
	run_close(&r);
}

#define TCP_OLD "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens" \
	" AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts\n"
#define UDP_OLD "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
#define ICMP_OLD "Icmp: InMsgs InErrors OutMsgs\n"

/* An older kernel: no InCsumErrors, MemErrors, UdpLite; Ip is not wanted
 * past two fields. */
static const char snmp_at_open[] =
	"Ip: Forwarding DefaultTTL InReceives InDiscards\n"
	"Ip: 1 64 100 2\n"
	ICMP_OLD
	"Icmp: 5 1 6\n"
	TCP_OLD
	"Tcp: 1 200 120000 -1 10 20 3 4 5 1000 900 7 1 8\n"
	UDP_OLD
	"Udp: 50 1 2 60 3 4\n";

static void test_snmp_changes(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	tmp_root(root, sizeof(root), 1);
	put_file(root, "/proc/net/snmp", snmp_at_open);
	assert_int_equal(run_open(&r, &rv_src_proc_net_snmp, root), 0);
	assert_int_equal(r.l.n, 2 + 3 + 10 + 6);
	assert_int_equal(run_find(&r, "net.tcp_in_csum_errors"), -1);
	assert_int_equal(run_find(&r, "net.udplite_in_datagrams"), -1);
	run_sample(&r);
	run_all_valid(&r, 1);
	assert_true(run_val(&r, "net.tcp_curr_estab") == 5.0);
	assert_true(run_val(&r, "net.tcp_out_rsts") == 8.0);
	assert_true(run_val(&r, "net.udp_sndbuf_errors") == 4.0);

	/* Tcp gains a column (header differs), Icmp is gone, Ip has a word,
	 * 2^64 and extra values, Udp is cut short */
	put_file(root, "/proc/net/snmp",
		 "Ip: Forwarding DefaultTTL InReceives InDiscards\n"
		 "Ip: 1 x 18446744073709551616 3 77 78\n"
		 "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens"
		 " AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts"
		 " InCsumErrors\n"
		 "Tcp: 1 200 120000 -1 11 21 3 4 6 1100 990 9 1 8 0\n"
		 UDP_OLD
		 "Udp: 51 1\n");
	run_sample(&r);
	assert_int_equal(r.ok[run_chan(&r, "net.ip_in_receives")], 0);
	assert_true(run_val(&r, "net.ip_in_discards") == 3.0);
	assert_int_equal(r.ok[run_chan(&r, "net.icmp_in_msgs")], 0);
	assert_int_equal(r.ok[run_chan(&r, "net.icmp_in_errors")], 0);
	assert_int_equal(r.ok[run_chan(&r, "net.tcp_active_opens")], 0);
	assert_int_equal(r.ok[run_chan(&r, "net.tcp_curr_estab")], 0);
	assert_int_equal(r.ok[run_chan(&r, "net.tcp_retrans_segs")], 0);
	assert_true(run_val(&r, "net.udp_in_datagrams") == 51.0);
	assert_true(run_val(&r, "net.udp_no_ports") == 1.0);
	assert_int_equal(r.ok[run_chan(&r, "net.udp_in_errors")], 0);
	assert_int_equal(r.ok[run_chan(&r, "net.udp_sndbuf_errors")], 0);

	/* headers without values, then nothing at all */
	put_file(root, "/proc/net/snmp", TCP_OLD UDP_OLD);
	run_sample(&r);
	run_all_valid(&r, 0);
	put_file(root, "/proc/net/snmp", "");
	run_sample(&r);
	run_all_valid(&r, 0);
	/* and back: the columns found at open still hold */
	put_file(root, "/proc/net/snmp", snmp_at_open);
	run_sample(&r);
	assert_true(run_val(&r, "net.tcp_retrans_segs") == 7.0);
	assert_true(run_val(&r, "net.icmp_out_msgs") == 6.0);
	run_close(&r);
	rm_root(root, "/proc/net/snmp");
}

static void test_snmp_cannot_open(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	tmp_root(root, sizeof(root), 1);
	assert_int_equal(run_open(&r, &rv_src_proc_net_snmp, root), -ENOENT);
	assert_non_null(strstr(r.err.msg, root));
	assert_non_null(strstr(r.err.msg, "/proc/net/snmp"));
	rv_chanlist_fini(&r.l);
	assert_int_equal(run_open(&r, &rv_src_proc_netstat, root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/proc/net/netstat"));
	rv_chanlist_fini(&r.l);

	put_file(root, "/proc/net/snmp", "IcmpMsg: InType3\nIcmpMsg: 2\nTcp: Foo Bar\nTcp: 1 2\n");
	assert_int_equal(run_open(&r, &rv_src_proc_net_snmp, root), -ENODATA);
	assert_non_null(strstr(r.err.msg, "proc.net_snmp"));
	assert_int_equal(r.l.n, 0);
	rv_chanlist_fini(&r.l);
	rm_root(root, "/proc/net/snmp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snmp_fixture),
		cmocka_unit_test(test_netstat_fixture),
		cmocka_unit_test(test_snmp_changes),
		cmocka_unit_test(test_snmp_cannot_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
