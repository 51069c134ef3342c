/*
 * incident_effect_test.c - the blame of side effects (incident.h,
 * catalog.h rv_catalog_effect) on crafted windows: an incident whose
 * weight sits mostly in another subsystem's side effect is blamed on the
 * subsystem whose activity caused it when that activity moved too, and
 * on the effect's own subsystem when it did not:
 *   - page faults with process creation (a fork or exec storm): cpu;
 *     page faults alone (memory mapped and touched in a loop): mem; with
 *     forks too few to matter beside them: mem;
 *   - softirq time with packets (a flood on the loopback): net; alone:
 *     cpu;
 *   - iowait and blocked tasks with a busy disk: storage;
 *   - the catalog's classes themselves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "explain/incident.h"

static const char *const names[] = {
	"cpu.forks", "mem.pgfault", "cpu.user_pct", "net.rx_packets:lo", "cpu.softirq_pct",
	"storage.busy_pct:vda", "cpu.iowait_pct", "cpu.procs_blocked", "mem.page_tables_bytes",
};
enum { FORKS, PGFAULT, USER, PACKETS, SOFTIRQ, BUSY, IOWAIT, BLOCKED, PTABLES, NCHAN };

/* Five flagged windows of weights w, then the close: the incident's
 * subsystem. */
static enum rv_subsystem blame(const double *w)
{
	struct rv_incmerge *m = NULL;
	enum rv_subsystem sub;

	assert_int_equal(rv_incmerge_new(NCHAN, names, 0, 1, &m, NULL), 0);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(rv_incmerge_push(m, i, (double)i, 1, 3.0, 1u, w), 0);
	assert_int_equal(rv_incmerge_finish(m), 0);
	assert_int_equal(rv_incmerge_count(m), 1);
	sub = rv_incmerge_get(m, 0)->subsystem;
	rv_incmerge_free(m);
	return sub;
}

static void test_process_creation(void **state)
{
	double w[NCHAN] = { 0 };

	(void)state;
	/* a fork storm: the faults outweigh the forks, the forks moved */
	w[PGFAULT] = 10;
	w[PTABLES] = 3;
	w[FORKS] = 3;
	w[USER] = 0.5;
	assert_int_equal(blame(w), RV_SUB_CPU);
	/* memory mapped and touched in a loop: no process created */
	w[FORKS] = 0;
	assert_int_equal(blame(w), RV_SUB_MEM);
	/* a few forks beside it, under a tenth of the effects' weight */
	w[FORKS] = 1.2;
	assert_int_equal(blame(w), RV_SUB_MEM);
	w[FORKS] = 1.4;
	assert_int_equal(blame(w), RV_SUB_CPU);
}

static void test_traffic_and_io(void **state)
{
	double w[NCHAN] = { 0 };

	(void)state;
	w[SOFTIRQ] = 10;
	w[USER] = 2;
	w[PACKETS] = 4;
	assert_int_equal(blame(w), RV_SUB_NET);
	w[PACKETS] = 0;
	assert_int_equal(blame(w), RV_SUB_CPU);
	memset(w, 0, sizeof(w));
	w[IOWAIT] = 10;
	w[BLOCKED] = 6;
	w[USER] = 3;
	w[BUSY] = 2;
	assert_int_equal(blame(w), RV_SUB_STORAGE);
	w[BUSY] = 0;
	assert_int_equal(blame(w), RV_SUB_CPU);
}

static void test_catalog(void **state)
{
	enum rv_subsystem sub = RV_SUB_OTHER;
	int k;

	(void)state;
	k = rv_catalog_effect("mem.pgfault", &sub);
	assert_true(k >= 0 && sub == RV_SUB_CPU);
	assert_int_equal(rv_catalog_effect_cause("cpu.forks", k), 1);
	assert_int_equal(rv_catalog_effect_cause("net.rx_packets:lo", k), 0);
	k = rv_catalog_effect("cpu.softirq_pct:cpu3", &sub);
	assert_true(k >= 0 && sub == RV_SUB_NET);
	assert_int_equal(rv_catalog_effect_cause("net.rx_packets:eth0", k), 1);
	k = rv_catalog_effect("cpu.iowait_pct", &sub);
	assert_true(k >= 0 && sub == RV_SUB_STORAGE);
	assert_int_equal(rv_catalog_effect_cause("storage.busy_pct:nvme0n1", k), 1);
	/* not effects, not causes */
	assert_int_equal(rv_catalog_effect("cpu.user_pct", NULL), -1);
	assert_int_equal(rv_catalog_effect("mem.pgmajfault", NULL), -1);
	assert_int_equal(rv_catalog_effect(NULL, NULL), -1);
	assert_int_equal(rv_catalog_effect_cause("cpu.forks", -1), 0);
	assert_int_equal(rv_catalog_effect_cause("cpu.forks", RV_CATALOG_EFFECTS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_process_creation),
		cmocka_unit_test(test_traffic_and_io),
		cmocka_unit_test(test_catalog),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
