/*
 * proc_diskstats_test.c - the proc.diskstats source: whole devices of the
 * nethost fixture (partitions known from its sys/class/block, loop, ram,
 * zram and sr skipped), channel order, scales and kinds, raw values; the
 * name rule for partitions where /sys is absent (sda1, nvme0n1p1 and
 * mmcblk0p1 are partitions, nvme0n10 is not); lines of 11, 15 and 17
 * statistics; a temporary file rewritten between open and sample (moved
 * lines, a vanished device, short, long and non-numeric lines, 2^64 - 1
 * and beyond, emptied); a missing file and a host with only loop devices.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>

#include "collect/sources.h"
#include "collect/procnet_test.h"

enum { FULL = 17 };

static void test_fixture(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	nethost_root(root, sizeof(root));
	assert_int_equal(run_open(&r, &rv_src_proc_diskstats, root), 0);
	assert_int_equal(r.l.n, 3 * FULL);
	assert_string_equal(r.l.v[0].name, "storage.reads:sda");
	assert_string_equal(r.l.v[16].name, "storage.flush_time_ms:sda");
	assert_string_equal(r.l.v[17].name, "storage.reads:nvme0n1");
	assert_string_equal(r.l.v[34].name, "storage.reads:dm-0");
	assert_string_equal(r.l.v[2].name, "storage.read_bytes:sda");
	assert_true(r.l.v[2].scale == 512.0);
	assert_string_equal(r.l.v[2].metric->unit, "bytes/s");
	assert_string_equal(r.l.v[9].name, "storage.busy_pct:sda");
	assert_true(r.l.v[9].scale == 0.1);
	assert_string_equal(r.l.v[9].metric->unit, "%");
	assert_string_equal(r.l.v[8].name, "storage.in_flight:sda");
	assert_true(r.l.v[8].metric->kind == RV_KIND_GAUGE);
	assert_true(r.l.v[10].metric->kind == RV_KIND_COUNTER);
	assert_string_equal(r.l.v[13].name, "storage.discard_bytes:sda");
	assert_true(r.l.v[13].scale == 512.0);
	assert_int_equal(run_find(&r, "storage.reads:sda1"), -1);
	assert_int_equal(run_find(&r, "storage.reads:nvme0n1p2"), -1);
	assert_int_equal(run_find(&r, "storage.reads:loop0"), -1);
	assert_int_equal(run_find(&r, "storage.reads:zram0"), -1);
	assert_int_equal(run_find(&r, "storage.reads:sr0"), -1);
	assert_int_equal(run_find(&r, "storage.reads:ram0"), -1);
	run_sample(&r);
	run_all_valid(&r, 1);
	assert_true(run_val(&r, "storage.reads:sda") == 439658.0);
	assert_true(run_val(&r, "storage.read_bytes:sda") == 14645578.0);
	assert_true(run_val(&r, "storage.write_time_ms:sda") == 163893.0);
	assert_true(run_val(&r, "storage.in_flight:sda") == 2.0);
	assert_true(run_val(&r, "storage.busy_pct:sda") == 201332.0);
	assert_true(run_val(&r, "storage.weighted_time_ms:sda") == 3025818.0);
	assert_true(run_val(&r, "storage.discard_bytes:sda") == 18857984.0);
	assert_true(run_val(&r, "storage.flush_time_ms:sda") == 46.0);
	assert_true(run_val(&r, "storage.read_bytes:nvme0n1") == 98765432100.0);
	assert_true(run_val(&r, "storage.write_bytes:nvme0n1") == 76543210987.0);
	assert_true(run_val(&r, "storage.in_flight:nvme0n1") == 17.0);
	assert_true(run_val(&r, "storage.flushes:nvme0n1") == 98765.0);
	assert_true(run_val(&r, "storage.writes:dm-0") == 3000.0);
	run_close(&r);
}

/* No /sys: partitions by name. Three line lengths: 17, 15, 11. */
static const char disk_at_open[] =
	"   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	"   8       1 sda1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	" 259       0 nvme0n1 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37\n"
	" 259       1 nvme0n1p1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	" 259       9 nvme0n10 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55\n"
	" 179       0 mmcblk0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	" 179       1 mmcblk0p1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	"   9       0 md0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	"   3       0 hda 61 62 63 64 65 66 67 68 69 70 71\n"
	"   7       3 loop3 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	"   8      16 sdb 1 2 3 4\n"
	"not a device line\n";

/* hda first, sda cut short with a word, mmcblk0 gone, nvme0n1 with 2^64 - 1,
 * 2^64 and extra columns. */
static const char disk_later[] =
	"   3       0 hda 161 162 163 164 165 166 167 168 169 170 171\n"
	"   8       0 sda 101 x 103 104\n"
	" 259       0 nvme0n1 18446744073709551615 18446744073709551616 123 124 125 126"
	" 127 128 129 130 131 132 133 134 135 136 137 138 139\n"
	" 259       9 nvme0n10 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57\n"
	"   9       0 md0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n";

static void test_no_sys_and_changes(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	tmp_root(root, sizeof(root), 0);
	put_file(root, "/proc/diskstats", disk_at_open);
	assert_int_equal(run_open(&r, &rv_src_proc_diskstats, root), 0);
	/* sda, nvme0n1, mmcblk0, md0: 17; nvme0n10: 15; hda: 11 */
	assert_int_equal(r.l.n, 4 * FULL + 15 + 11);
	assert_int_equal(run_find(&r, "storage.reads:sda1"), -1);
	assert_int_equal(run_find(&r, "storage.reads:nvme0n1p1"), -1);
	assert_int_equal(run_find(&r, "storage.reads:mmcblk0p1"), -1);
	assert_int_equal(run_find(&r, "storage.reads:loop3"), -1);
	assert_int_equal(run_find(&r, "storage.reads:sdb"), -1);
	assert_true(run_find(&r, "storage.discard_time_ms:nvme0n10") >= 0);
	assert_int_equal(run_find(&r, "storage.flushes:nvme0n10"), -1);
	assert_true(run_find(&r, "storage.weighted_time_ms:hda") >= 0);
	assert_int_equal(run_find(&r, "storage.discards:hda"), -1);
	run_sample(&r);
	run_all_valid(&r, 1);
	assert_true(run_val(&r, "storage.reads:nvme0n10") == 41.0);
	assert_true(run_val(&r, "storage.discard_time_ms:nvme0n10") == 55.0);
	assert_true(run_val(&r, "storage.weighted_time_ms:hda") == 71.0);

	put_file(root, "/proc/diskstats", disk_later);
	run_sample(&r);
	assert_true(run_val(&r, "storage.reads:hda") == 161.0);
	assert_true(run_val(&r, "storage.weighted_time_ms:hda") == 171.0);
	assert_true(run_val(&r, "storage.reads:sda") == 101.0);
	assert_int_equal(run_ok(&r, "storage.reads_merged:sda"), 0);
	assert_true(run_val(&r, "storage.read_time_ms:sda") == 104.0);
	assert_int_equal(run_ok(&r, "storage.writes:sda"), 0);
	assert_int_equal(run_ok(&r, "storage.flush_time_ms:sda"), 0);
	assert_int_equal(run_ok(&r, "storage.reads:mmcblk0"), 0);
	assert_int_equal(run_ok(&r, "storage.flush_time_ms:mmcblk0"), 0);
	assert_true(run_val(&r, "storage.reads:nvme0n1") == 18446744073709551615.0);
	assert_int_equal(run_ok(&r, "storage.reads_merged:nvme0n1"), 0);
	assert_true(run_val(&r, "storage.read_bytes:nvme0n1") == 123.0);
	assert_true(run_val(&r, "storage.flush_time_ms:nvme0n1") == 137.0);
	assert_true(run_val(&r, "storage.discard_time_ms:nvme0n10") == 55.0);
	assert_true(run_val(&r, "storage.flush_time_ms:md0") == 17.0);

	put_file(root, "/proc/diskstats", "");
	run_sample(&r);
	run_all_valid(&r, 0);
	run_close(&r);
	rm_root(root, "/proc/diskstats");
}

static void test_cannot_open(void **state)
{
	struct src_run r;
	char root[512];

	(void)state;
	tmp_root(root, sizeof(root), 0);
	assert_int_equal(run_open(&r, &rv_src_proc_diskstats, root), -ENOENT);
	assert_non_null(strstr(r.err.msg, root));
	assert_non_null(strstr(r.err.msg, "/proc/diskstats"));
	rv_chanlist_fini(&r.l);

	put_file(root, "/proc/diskstats", "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		       "   1       0 ram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
	assert_int_equal(run_open(&r, &rv_src_proc_diskstats, root), -ENODATA);
	assert_non_null(strstr(r.err.msg, "diskstats"));
	assert_int_equal(r.l.n, 0);
	rv_chanlist_fini(&r.l);
	rm_root(root, "/proc/diskstats");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_no_sys_and_changes),
		cmocka_unit_test(test_cannot_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
