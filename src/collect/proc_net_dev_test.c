/*
 * proc_net_dev_test.c - the proc.net_dev source: interfaces of the nethost
 * fixture (lo left out, a first number touching the colon, 64-bit
 * values), kinds from the catalog, and a temporary file rewritten between
 * open and sample: lines that move, a vanished interface, short lines,
 * extra and non-numeric columns, 2^64 - 1 and beyond, an emptied and an
 * unlinked file; a missing file and a host with nothing but lo.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>

#include "collect/sources.h"
#include "collect/procnet_test.h"

enum { DEV_FIELDS = 16 };

#define HDR "Inter-|   Receive                                                |  Transmit\n" \
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets" \
	" errs drop fifo colls carrier compressed\n"

static void test_fixture(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	nethost_root(root, sizeof(root));
	assert_int_equal(run_open(&r, &rv_src_proc_net_dev, root), 0);
	assert_int_equal(r.l.n, 3 * DEV_FIELDS);
	assert_string_equal(r.l.v[0].name, "net.rx_bytes:eth0");
	assert_string_equal(r.l.v[15].name, "net.tx_compressed:eth0");
	assert_string_equal(r.l.v[16].name, "net.rx_bytes:eth1");
	assert_string_equal(r.l.v[32].name, "net.rx_bytes:ib0");
	assert_string_equal(r.l.v[47].name, "net.tx_compressed:ib0");
	for (size_t i = 0; i < r.l.n; i++)
		assert_null(strstr(r.l.v[i].name, ":lo"));
	assert_true(r.l.v[0].metric->kind == RV_KIND_COUNTER);
	assert_true(r.l.v[run_chan(&r, "net.rx_errs:eth0")].metric->kind == RV_KIND_EVENT);
	assert_true(r.l.v[run_chan(&r, "net.tx_colls:eth0")].metric->kind == RV_KIND_EVENT);
	assert_true(r.l.v[run_chan(&r, "net.tx_carrier:eth0")].metric->kind == RV_KIND_EVENT);
	assert_true(r.l.v[run_chan(&r, "net.rx_multicast:eth0")].metric->kind == RV_KIND_COUNTER);
	assert_string_equal(r.l.v[0].metric->unit, "bytes/s");
	run_sample(&r);
	run_all_valid(&r, 1);
	assert_true(r.raw[run_chan(&r, "net.rx_bytes:eth0")] == 36014737.0);
	assert_true(r.raw[run_chan(&r, "net.tx_packets:eth0")] == 541.0);
	assert_true(r.raw[run_chan(&r, "net.rx_bytes:eth1")] == 1234567890123.0);
	assert_true(r.raw[run_chan(&r, "net.rx_packets:eth1")] == 987654321.0);
	assert_true(r.raw[run_chan(&r, "net.rx_drop:eth1")] == 7.0);
	assert_true(r.raw[run_chan(&r, "net.rx_multicast:eth1")] == 4096.0);
	assert_true(r.raw[run_chan(&r, "net.tx_bytes:eth1")] == 987654321012.0);
	assert_true(r.raw[run_chan(&r, "net.tx_carrier:eth1")] == 1.0);
	assert_true(r.raw[run_chan(&r, "net.rx_frame:ib0")] == 14.0);
	assert_true(r.raw[run_chan(&r, "net.tx_bytes:ib0")] == 6000000000000.0);
	assert_true(r.raw[run_chan(&r, "net.tx_compressed:ib0")] == 22.0);
	run_close(&r);
}

static const char dev_at_open[] = HDR
	"    lo:  100 1 0 0 0 0 0 0  100 1 0 0 0 0 0 0\n"
	"  eth0:  1000 10 0 0 0 0 0 0  2000 20 0 0 0 0 0 0\n"
	"  eth1:  3000 30 1 2 3 4 5 6  4000 40 7 8 9 10 11 12\n"
	"  eth2:  5000 50 0 0 0 0 0 0  6000 60 0 0 0 0 0 0\n"
	"  veth12345678ab:  7000 70 0 0 0 0 0 0  8000 80 0 0 0 0 0 0\n";

/* eth1 first, eth0 cut short with a word in it, eth2 gone, veth with
 * extra columns, 2^64 - 1 and 2^64. */
static const char dev_later[] = HDR
	"  eth1:18446744073709551615 31 1 2 3 4 5 6  4001 41 7 8 9 10 11 12\n"
	"    lo:  100 1 0 0 0 0 0 0  100 1 0 0 0 0 0 0\n"
	"  eth0:  1100 x1 0 0\n"
	"  veth12345678ab:  7100 18446744073709551616 0 0 0 0 0 0  8100 81 0 0 0 0 0 0 99 98\n"
	"  eth3:  1 1 1 1 1 1 1 1  1 1 1 1 1 1 1 1\n"
	"garbage line without a colon\n"
	":  5 5 5\n";

static void test_moves_and_malformed(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	tmp_root(root, sizeof(root), 1);
	put_file(root, "/proc/net/dev", dev_at_open);
	assert_int_equal(run_open(&r, &rv_src_proc_net_dev, root), 0);
	assert_int_equal(r.l.n, 4 * DEV_FIELDS);
	assert_string_equal(r.l.v[48].name, "net.rx_bytes:veth12345678ab");
	put_file(root, "/proc/net/dev", dev_later);
	run_sample(&r);
	/* eth1 moved to the first line: still its own values */
	assert_int_equal(r.ok[run_chan(&r, "net.rx_bytes:eth1")], 1);
	assert_true(r.raw[run_chan(&r, "net.rx_bytes:eth1")] == 18446744073709551615.0);
	assert_true(r.raw[run_chan(&r, "net.rx_packets:eth1")] == 31.0);
	assert_true(r.raw[run_chan(&r, "net.tx_compressed:eth1")] == 12.0);
	/* eth0: bytes read, the word and everything past the end are not */
	assert_int_equal(r.ok[run_chan(&r, "net.rx_bytes:eth0")], 1);
	assert_true(r.raw[run_chan(&r, "net.rx_bytes:eth0")] == 1100.0);
	assert_int_equal(r.ok[run_chan(&r, "net.rx_packets:eth0")], 0);
	assert_int_equal(r.ok[run_chan(&r, "net.rx_errs:eth0")], 1);
	assert_int_equal(r.ok[run_chan(&r, "net.rx_drop:eth0")], 1);
	for (size_t k = 4; k < DEV_FIELDS; k++)
		assert_int_equal(r.ok[DEV_FIELDS * 0 + k], 0);
	/* eth2 vanished: every channel invalid */
	for (size_t k = 0; k < DEV_FIELDS; k++)
		assert_int_equal(r.ok[DEV_FIELDS * 2 + k], 0);
	/* veth: 2^64 overflows (invalid), its neighbours keep their places */
	assert_int_equal(r.ok[run_chan(&r, "net.rx_packets:veth12345678ab")], 0);
	assert_true(r.raw[run_chan(&r, "net.rx_bytes:veth12345678ab")] == 7100.0);
	assert_true(r.raw[run_chan(&r, "net.tx_packets:veth12345678ab")] == 81.0);
	assert_int_equal(r.ok[run_chan(&r, "net.tx_compressed:veth12345678ab")], 1);
	assert_int_equal(r.l.n, 4 * DEV_FIELDS);        /* eth3 not followed */

	put_file(root, "/proc/net/dev", "");
	run_sample(&r);
	run_all_valid(&r, 0);
	put_file(root, "/proc/net/dev", HDR);
	run_sample(&r);
	run_all_valid(&r, 0);
	/* unlinked: the open descriptor still reads the last content */
	put_file(root, "/proc/net/dev", dev_at_open);
	rm_root(root, "/proc/net/dev");
	run_sample(&r);
	assert_int_equal(r.ok[run_chan(&r, "net.tx_bytes:eth2")], 1);
	assert_true(r.raw[run_chan(&r, "net.tx_bytes:eth2")] == 6000.0);
	run_close(&r);
}

static void test_missing_and_lo_only(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	tmp_root(root, sizeof(root), 1);
	assert_int_equal(run_open(&r, &rv_src_proc_net_dev, root), -ENOENT);
	assert_non_null(strstr(r.err.msg, "/proc/net/dev"));
	assert_non_null(strstr(r.err.msg, root));
	assert_int_equal(r.l.n, 0);
	rv_chanlist_fini(&r.l);

	put_file(root, "/proc/net/dev", HDR "    lo:  100 1 0 0 0 0 0 0  100 1 0 0 0 0 0 0\n");
	assert_int_equal(run_open(&r, &rv_src_proc_net_dev, root), -ENODATA);
	assert_non_null(strstr(r.err.msg, "lo"));
	rv_chanlist_fini(&r.l);
	rm_root(root, "/proc/net/dev");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_moves_and_malformed),
		cmocka_unit_test(test_missing_and_lo_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
