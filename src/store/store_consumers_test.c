/*
 * store_consumers_test.c - the consumers of an incident (schema version 4):
 * round trip with every field (NaN kept), replaced whole, read with the
 * details, shown by the view, dropped with the incident, refused beyond the
 * limit; a version 3 store upgraded in place keeps its incidents and gets
 * the table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_sql.h"
#include "store/store_testutil.h"

static struct rv_store_consumer consumer(int pid, const char *comm, double amount, double share)
{
	struct rv_store_consumer c;

	memset(&c, 0, sizeof(c));
	c.measured_ts = 1001.5;
	c.pid = pid;
	c.is_cgroup = pid == 0;
	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	snprintf(c.cmd, sizeof(c.cmd), "%s --cpu 2", comm);
	snprintf(c.cgroup, sizeof(c.cgroup), "/system.slice/foo.service");
	snprintf(c.label, sizeof(c.label), "foo.service");
	snprintf(c.unit, sizeof(c.unit), "foo.service");
	snprintf(c.resource, sizeof(c.resource), "cpu");
	c.amount = amount;
	c.before = NAN;
	c.share = share;
	c.pressure = NAN;
	snprintf(c.text, sizeof(c.text), "pid %d %s in foo.service took %.2f cores", pid, comm,
		 amount);
	return c;
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_consumer c[2], got[RV_STORE_CONS_MAX];
	struct rv_store_incident inc = make_inc(7, 997, 1030, 1, 1, "cpu.busy_pct");
	struct rv_store_details d;
	struct rv_err err;
	size_t n;

	open_ok(fx);
	rv_err_clear(&err);
	c[0] = consumer(4242, "stress-ng", 1.9, 0.61);
	c[1] = consumer(0, "", 2.0, 0.7);
	snprintf(c[1].pod_uid, sizeof(c[1].pod_uid), "1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8");
	snprintf(c[1].qos, sizeof(c[1].qos), "burstable");
	c[1].before = 0.1;
	c[1].pressure = 12.5;
	must(rv_store_put_incident(fx->s, &inc, &err), &err);
	must(rv_store_put_consumers(fx->s, 7, c, 2, &err), &err);
	reopen(fx);
	must(rv_store_get_consumers(fx->s, 7, got, RV_STORE_CONS_MAX, &n, &err), &err);
	assert_int_equal(n, 2);
	assert_int_equal(got[0].pid, 4242);
	assert_int_equal(got[0].is_cgroup, 0);
	assert_string_equal(got[0].comm, "stress-ng");
	assert_string_equal(got[0].cmd, "stress-ng --cpu 2");
	assert_string_equal(got[0].unit, "foo.service");
	assert_string_equal(got[0].resource, "cpu");
	assert_true(got[0].amount == 1.9 && got[0].share == 0.61 && got[0].measured_ts == 1001.5);
	assert_true(isnan(got[0].before) && isnan(got[0].pressure));
	assert_int_equal(got[1].is_cgroup, 1);
	assert_string_equal(got[1].qos, "burstable");
	assert_string_equal(got[1].pod_uid, "1f2e3d4c-5b6a-7980-a1b2-c3d4e5f6a7b8");
	assert_true(got[1].before == 0.1 && got[1].pressure == 12.5);
	/* the view shows the first one's text */
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents_view WHERE id = 7 AND"
					   " top_consumer = 'pid 4242 stress-ng in foo.service took"
					   " 1.90 cores'"), 1);

	/* replaced whole; the details carry them */
	must(rv_store_put_consumers(fx->s, 7, &c[1], 1, &err), &err);
	memset(&d, 0, sizeof(d));
	must(rv_store_put_details(fx->s, 7, &d, &err), &err);
	must(rv_store_get_details(fx->s, 7, &d, &err), &err);
	assert_int_equal(d.ncons, 1);
	assert_int_equal(d.cons[0].is_cgroup, 1);
	rv_store_details_free(&d);

	/* none of another incident */
	must(rv_store_get_consumers(fx->s, 8, got, RV_STORE_CONS_MAX, &n, &err), &err);
	assert_int_equal(n, 0);

	/* at most RV_STORE_CONS_MAX */
	assert_int_equal(rv_store_put_consumers(fx->s, 7, got, RV_STORE_CONS_MAX + 1, &err),
			 -EINVAL);
	assert_contains(err.msg, "at most 8");

	/* closed and pruned: they go with it */
	inc.open = 0;
	must(rv_store_put_incident(fx->s, &inc, &err), &err);
	must(rv_store_prune(fx->s, 2000, 0, &err), &err);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_consumers"), 0);
}

static void test_upgrade_from_v3(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_consumer c = consumer(9, "dd", 0.5, 1.0);
	struct rv_store_consumer got[RV_STORE_CONS_MAX];
	struct rv_err err;
	size_t n;

	make_v2_store(fx->path, 1);
	raw_exec(fx->path, rv_store_schema_v3_upgrade);
	raw_exec(fx->path, "PRAGMA user_version = 3");
	open_ok(fx);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), RV_STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents_view WHERE id = 3"
					   " AND likely_cause = 'CPU contention (75%)'"
					   " AND top_consumer IS NULL"), 1);
	rv_err_clear(&err);
	must(rv_store_get_consumers(fx->s, 3, got, RV_STORE_CONS_MAX, &n, &err), &err);
	assert_int_equal(n, 0);
	must(rv_store_put_consumers(fx->s, 3, &c, 1, &err), &err);
	must(rv_store_get_consumers(fx->s, 3, got, RV_STORE_CONS_MAX, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_string_equal(got[0].comm, "dd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_from_v3, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
