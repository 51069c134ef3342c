/*
 * proc_vmstat_test.c - unit tests of proc.vmstat: the memhost fixture (a
 * real /proc/vmstat with allocstall split by zone), kinds, units and
 * scales, sums of split counters (one bad part spoils the sum), the
 * unsplit lines of older kernels, a file that empties, a missing file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "collect/sources.h"

enum { VM_MAXCH = 64, MEMHOST_COUNTERS = 32 };

struct vm {
	struct rv_chanlist chans;
	void *state;
	double raw[VM_MAXCH];
	uint8_t valid[VM_MAXCH];
	char dir[64];
};

static int vm_open(struct vm *v, const char *root, struct rv_err *err)
{
	struct rv_collect_cfg cfg = { .root = root };

	memset(&v->chans, 0, sizeof(v->chans));
	v->state = NULL;
	rv_err_clear(err);
	return rv_src_proc_vmstat.open(&cfg, &v->state, &v->chans, err);
}

static void vm_sample(struct vm *v)
{
	assert_true(v->chans.n <= VM_MAXCH);
	memset(v->valid, 0, sizeof(v->valid));
	rv_src_proc_vmstat.sample(v->state, v->raw, v->valid);
}

/* The channel called name: its index, after checking it. */
static size_t vm_find(const struct vm *v, const char *name)
{
	size_t i = 0;

	while (i < v->chans.n && strcmp(v->chans.v[i].name, name) != 0)
		i++;
	assert_true(i < v->chans.n);
	return i;
}

/* Writes proc/vmstat under v->dir, creating the tree the first time. */
static void vm_write(struct vm *v, const char *text)
{
	char path[512];
	FILE *f;

	if (!v->dir[0]) {
		snprintf(v->dir, sizeof(v->dir), "/tmp/rv_vmstat_XXXXXX");
		assert_non_null(mkdtemp(v->dir));
		snprintf(path, sizeof(path), "%s/proc", v->dir);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	snprintf(path, sizeof(path), "%s/proc/vmstat", v->dir);
	f = fopen(path, "a");           /* same inode across rewrites */
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 0), 0);
	fputs(text, f);
	fclose(f);
}

static void vm_done(struct vm *v)
{
	char path[512];

	rv_src_proc_vmstat.close(v->state);
	rv_chanlist_fini(&v->chans);
	if (v->dir[0]) {
		snprintf(path, sizeof(path), "%s/proc/vmstat", v->dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/proc", v->dir);
		rmdir(path);
		rmdir(v->dir);
	}
}

static void expect(const struct vm *v, const char *name, double raw, enum rv_kind kind,
		   const char *unit, double scale)
{
	size_t i = vm_find(v, name);

	assert_int_equal(v->valid[i], 1);
	assert_true(v->raw[i] == raw);
	assert_int_equal(v->chans.v[i].metric->kind, kind);
	assert_string_equal(v->chans.v[i].metric->unit, unit);
	assert_true(v->chans.v[i].scale == scale);
}

static void test_memhost_fixture(void **unused)
{
	struct vm v = { 0 };
	char root[512];
	struct rv_err err;
	double page = (double)sysconf(_SC_PAGESIZE);

	(void)unused;
	snprintf(root, sizeof(root), "%s/collect/memhost", getenv("RV_FIXTURES"));
	assert_int_equal(vm_open(&v, root, &err), 0);
	assert_int_equal(v.chans.n, MEMHOST_COUNTERS);
	assert_string_equal(v.chans.v[0].name, "mem.pgfault");
	assert_string_equal(v.chans.v[MEMHOST_COUNTERS - 1].name, "mem.nr_writeback_bytes");
	vm_sample(&v);
	for (size_t i = 0; i < v.chans.n; i++)
		assert_int_equal(v.valid[i], 1);
	expect(&v, "mem.pgfault", 175918195.0, RV_KIND_COUNTER, "1/s", 1.0);
	expect(&v, "mem.pgmajfault", 19865.0, RV_KIND_COUNTER, "1/s", 1.0);
	expect(&v, "mem.pgpgin_bytes", 7771917.0, RV_KIND_COUNTER, "bytes/s", 1024.0);
	expect(&v, "mem.pgpgout_bytes", 11561020.0, RV_KIND_COUNTER, "bytes/s", 1024.0);
	expect(&v, "mem.numa_hit", 161169500.0, RV_KIND_COUNTER, "pages/s", 1.0);
	expect(&v, "mem.thp_fault_alloc", 358369.0, RV_KIND_COUNTER, "1/s", 1.0);
	expect(&v, "mem.oom_kill", 2.0, RV_KIND_EVENT, "1/s", 1.0);
	expect(&v, "mem.compact_fail", 0.0, RV_KIND_EVENT, "1/s", 1.0);
	expect(&v, "mem.thp_fault_fallback", 0.0, RV_KIND_EVENT, "1/s", 1.0);
	expect(&v, "mem.pgmigrate_fail", 0.0, RV_KIND_EVENT, "pages/s", 1.0);
	/* allocstall_{dma,dma32,normal,movable,device}: 0 + 0 + 12 + 30 + 0 */
	expect(&v, "mem.allocstall", 42.0, RV_KIND_COUNTER, "1/s", 1.0);
	/* workingset_refault_anon + _file */
	expect(&v, "mem.workingset_refault", 1660214.0, RV_KIND_COUNTER, "pages/s", 1.0);
	/* not nr_dirty_threshold, nor nr_dirty_background_threshold */
	expect(&v, "mem.nr_dirty_bytes", 391.0, RV_KIND_GAUGE, "bytes", page);
	expect(&v, "mem.nr_writeback_bytes", 0.0, RV_KIND_GAUGE, "bytes", page);
	vm_done(&v);
}

static void test_split_and_unsplit_sums(void **unused)
{
	struct vm v = { 0 };
	struct rv_err err;

	(void)unused;
	/* older kernels: one allocstall line, no THP or NUMA lines */
	vm_write(&v, "nr_dirty 5\npgfault 100\nallocstall 9\nworkingset_refault 4\n");
	assert_int_equal(vm_open(&v, v.dir, &err), 0);
	assert_int_equal(v.chans.n, 4);
	assert_string_equal(v.chans.v[0].name, "mem.pgfault");
	assert_string_equal(v.chans.v[1].name, "mem.allocstall");
	assert_string_equal(v.chans.v[2].name, "mem.workingset_refault");
	assert_string_equal(v.chans.v[3].name, "mem.nr_dirty_bytes");
	vm_sample(&v);
	assert_true(v.raw[1] == 9.0 && v.valid[1]);
	assert_true(v.raw[2] == 4.0 && v.valid[2]);
	vm_done(&v);

	memset(&v, 0, sizeof(v));
	vm_write(&v, "allocstall_normal 1\nallocstall_movable 2\npgfault 7\n");
	assert_int_equal(vm_open(&v, v.dir, &err), 0);
	assert_int_equal(v.chans.n, 2);
	vm_sample(&v);
	assert_true(v.raw[1] == 3.0 && v.valid[1]);
	/* a bad part, then a missing part: no sum rather than a short one */
	vm_write(&v, "allocstall_movable 2\nallocstall_normal x\npgfault 8\n");
	vm_sample(&v);
	assert_int_equal(v.valid[1], 0);
	assert_true(v.raw[0] == 8.0 && v.valid[0]);
	vm_write(&v, "pgfault 9\nallocstall_movable 5\n");
	vm_sample(&v);
	assert_int_equal(v.valid[1], 0);
	assert_int_equal(v.valid[0], 1);
	/* a part that was not there at open is not followed */
	vm_write(&v, "allocstall_normal 1\nallocstall_movable 2\nallocstall_dma 4\n");
	vm_sample(&v);
	assert_true(v.raw[1] == 3.0 && v.valid[1]);
	assert_int_equal(v.valid[0], 0);
	vm_done(&v);
}

static void test_malformed_values(void **unused)
{
	struct vm v = { 0 };
	struct rv_err err;

	(void)unused;
	vm_write(&v, "pgfault 1\npgmajfault 2\npswpin 3\npswpout 4\noom_kill 5\n");
	assert_int_equal(vm_open(&v, v.dir, &err), 0);
	assert_int_equal(v.chans.n, 5);
	vm_write(&v, "pgfault 18446744073709551615\npgmajfault\npswpin 3 4\n"
		 "pswpout -4\noom_kill 99999999999999999999\n");
	vm_sample(&v);
	assert_int_equal(v.valid[0], 1);
	assert_true(v.raw[0] == 18446744073709551615.0);
	for (size_t i = 1; i < 5; i++)
		assert_int_equal(v.valid[i], 0);
	vm_write(&v, "");
	vm_sample(&v);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(v.valid[i], 0);
	vm_done(&v);
}

static void test_missing_file(void **unused)
{
	struct vm v = { 0 };
	struct rv_err err;

	(void)unused;
	assert_int_equal(vm_open(&v, "/nonexistent/rvvm", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/rvvm/proc/vmstat"));
	vm_done(&v);
	memset(&v, 0, sizeof(v));
	vm_write(&v, "nr_free_pages 5\n");
	assert_int_equal(vm_open(&v, v.dir, &err), -ENODATA);
	assert_int_equal(v.chans.n, 0);
	vm_done(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memhost_fixture),
		cmocka_unit_test(test_split_and_unsplit_sums),
		cmocka_unit_test(test_malformed_values),
		cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
