/*
 * store_details_test.c - the agent's SQLite store: the details of an
 * incident (evidence, series, causes) round trip, replaced whole, pruned
 * with it and refused when malformed or damaged; the upgrade of version 1
 * and version 2 stores in place (a version 2 incident reads as phase 1,
 * following none) and phases out of range. The rest is in store_test.c.
 *
 * Every test works in its own directory made with mkdtemp under $TMPDIR (or
 * /tmp) and removed afterwards (store_testutil.h).
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

static struct rv_store_ev ev_entry(const char *name, double base, double value, int dir)
{
	struct rv_store_ev e;

	memset(&e, 0, sizeof(e));
	e.name = name;
	e.base_n = 600;
	e.inc_n = 40;
	e.base_mean = base;
	e.base_sd = 0.5;
	e.value = value;
	e.inc_sd = 1.5;
	e.peak = value * 2;
	e.z = (value - base) / 0.5;
	e.change = base != 0 ? (value - base) / fabs(base) : INFINITY;
	e.dir = dir;
	e.onset_ts = 1000.5;
	return e;
}

static void test_details_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_ev ev[3];
	double ts[4] = { 990, 991, 992, 993 };
	float v[4] = { 1.0f, NAN, 3.5f, -2.0f };
	struct rv_store_details d, got;
	struct rv_err err;

	open_ok(fx);
	ev[0] = ev_entry("net.tcp_retrans_segs", 0, 212, 1);
	ev[1] = ev_entry("cpu.softirq_pct:cpu_skew", 1.2, 5.0, 1);
	ev[1].skew = 1;
	ev[2] = ev_entry("gpu.util_pct:gpu0", 95, 40, -1);
	ev[2].onset_ts = NAN;
	memset(&d, 0, sizeof(d));
	d.base_from = 870;
	d.base_to = 990;
	d.start_ts = 997;
	d.end_ts = 1030;
	d.nev = 3;
	d.ev = ev;
	d.nseries = 1;
	snprintf(d.series[0].name, sizeof(d.series[0].name), "net.tcp_retrans_segs");
	d.series[0].n = 4;
	d.series[0].ts = ts;
	d.series[0].v = v;
	d.ncauses = 2;
	snprintf(d.causes[0].rule_id, sizeof(d.causes[0].rule_id), "packet-loss");
	snprintf(d.causes[0].title, sizeof(d.causes[0].title), "Packet loss");
	d.causes[0].confidence = 0.82;
	snprintf(d.causes[1].rule_id, sizeof(d.causes[1].rule_id), "irq-imbalance");
	snprintf(d.causes[1].title, sizeof(d.causes[1].title), "IRQ imbalance");
	d.causes[1].confidence = 0.4;
	rv_err_clear(&err);
	/* details may come before the incident row */
	must(rv_store_put_details(fx->s, 7, &d, &err), &err);
	struct rv_store_incident inc = make_inc(7, 997, 1030, 0, 1, "sig");
	must(rv_store_put_incident(fx->s, &inc, &err), &err);
	reopen(fx);
	must(rv_store_get_details(fx->s, 7, &got, &err), &err);
	assert_true(got.base_from == 870 && got.base_to == 990);
	assert_true(got.start_ts == 997 && got.end_ts == 1030);
	assert_int_equal(got.nev, 3);
	assert_string_equal(got.ev[0].name, "net.tcp_retrans_segs");
	assert_true(isinf(got.ev[0].change) && got.ev[0].change > 0);
	assert_int_equal(got.ev[1].skew, 1);
	assert_int_equal(got.ev[2].dir, -1);
	assert_true(isnan(got.ev[2].onset_ts));
	assert_true(got.ev[2].value == 40 && got.ev[2].base_n == 600 && got.ev[2].inc_n == 40);
	assert_true(got.ev[2].inc_sd == 1.5 && got.ev[2].peak == 80);
	assert_int_equal(got.nseries, 1);
	assert_int_equal(got.series[0].n, 4);
	assert_true(got.series[0].ts[3] == 993);
	assert_true(isnan(got.series[0].v[1]) && got.series[0].v[2] == 3.5f);
	assert_int_equal(got.ncauses, 2);
	assert_string_equal(got.causes[0].rule_id, "packet-loss");
	assert_true(got.causes[1].confidence == 0.4);
	rv_store_details_free(&got);
	/* the view names the likeliest cause */
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents_view"
					   " WHERE likely_cause = 'Packet loss (82%)'"), 1);

	/* replaced whole */
	d.nev = 1;
	d.nseries = 0;
	d.ncauses = 0;
	must(rv_store_put_details(fx->s, 7, &d, &err), &err);
	must(rv_store_get_details(fx->s, 7, &got, &err), &err);
	assert_int_equal(got.nev, 1);
	assert_int_equal(got.nseries, 0);
	assert_int_equal(got.ncauses, 0);
	rv_store_details_free(&got);

	/* none stored */
	rv_err_clear(&err);
	assert_int_equal(rv_store_get_details(fx->s, 8, &got, &err), -ENOENT);
	assert_contains(err.msg, "no details of incident 8");

	/* pruning the incident drops its details */
	must(rv_store_prune(fx->s, 2000, 0, &err), &err);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_evidence"), 0);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incident_details"), 0);
}

static void test_details_refused(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_details d, got;
	struct rv_store_ev ev = ev_entry("cpu.busy_pct", 10, 90, 1);
	double ts[1] = { 1 };
	float v[1] = { 1 };
	struct rv_err err;

	open_ok(fx);
	memset(&d, 0, sizeof(d));
	rv_err_clear(&err);
	assert_int_equal(rv_store_put_details(fx->s, 0, &d, &err), -EINVAL);
	d.nev = RV_STORE_EV_MAX + 1;
	d.ev = &ev;
	rv_err_clear(&err);
	assert_int_equal(rv_store_put_details(fx->s, 1, &d, &err), -EINVAL);
	assert_contains(err.msg, "at most");
	d.nev = 1;
	ev.name = NULL;
	rv_err_clear(&err);
	assert_int_equal(rv_store_put_details(fx->s, 1, &d, &err), -EINVAL);
	ev.name = "cpu.busy_pct";
	d.nseries = 1;
	d.series[0].n = 1;
	rv_err_clear(&err);
	assert_int_equal(rv_store_put_details(fx->s, 1, &d, &err), -EINVAL);
	d.series[0].ts = ts;
	d.series[0].v = v;
	snprintf(d.series[0].name, sizeof(d.series[0].name), "cpu.busy_pct");
	must(rv_store_put_details(fx->s, 1, &d, &err), &err);
	/* a series blob cut short by hand is damage, named */
	raw_exec(fx->path, "UPDATE incident_series SET data = x'0102'");
	rv_err_clear(&err);
	assert_int_equal(rv_store_get_details(fx->s, 1, &got, &err), -EILSEQ);
	assert_contains(err.msg, "incident 1: series cpu.busy_pct");
	assert_null(got.ev);
}

/* A version 1 store (the first agent's) is upgraded in place, keeping its
 * incidents. */
static void test_upgrade_from_v1(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_details d;
	struct rv_err err;

	raw_exec(fx->path, rv_store_schema_v1);
	raw_exec(fx->path, "PRAGMA user_version = 1");
	raw_exec(fx->path, "INSERT INTO incidents (id, start_ts, end_ts, open, windows,"
			   " peak_score, mean_score, detectors, subsystem, host, subsystems)"
			   " VALUES (3, 10, 20, 0, 5, 2.5, 1.5, 3, 'cpu', 'h', 'cpu:1.000')");
	open_ok(fx);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), RV_STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents_view WHERE id = 3"
					   " AND likely_cause IS NULL AND phase = 1"
					   " AND follows IS NULL"), 1);
	rv_err_clear(&err);
	assert_int_equal(rv_store_get_details(fx->s, 3, &d, &err), -ENOENT);
	memset(&d, 0, sizeof(d));
	must(rv_store_put_details(fx->s, 3, &d, &err), &err);
	reopen(fx);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), RV_STORE_SCHEMA_VERSION);
}

static int first_cb(void *ctx, const struct rv_store_incident *inc)
{
	*(struct rv_store_incident *)ctx = *inc;
	return 1;
}

/* The first incident listed (newest), which must exist. */
static struct rv_store_incident first_incident(struct rv_store *s)
{
	struct rv_store_incident inc;
	struct rv_err err;

	memset(&inc, 0, sizeof(inc));
	rv_err_clear(&err);
	assert_int_equal(rv_store_list_incidents(s, -INFINITY, 0, first_cb, &inc, &err), 1);
	return inc;
}

/* A version 2 store (before phases) is upgraded in place: its incident
 * keeps its row, signals and details and reads as a first incident (phase
 * 1, follows none); a follow-on phase written afterwards reads back. */
static void test_upgrade_from_v2(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_incident inc;
	struct rv_store_details d;
	struct rv_err err;

	make_v2_store(fx->path, 1);
	open_ok(fx);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), RV_STORE_SCHEMA_VERSION);
	inc = first_incident(fx->s);
	assert_int_equal(inc.id, 3);
	assert_int_equal(inc.phase, 1);
	assert_int_equal(inc.follows, 0);
	assert_int_equal(inc.nsig, 2);
	assert_string_equal(inc.sig[0].name, "cpu.busy_pct");
	assert_string_equal(inc.cause, "cpu-contention");
	rv_err_clear(&err);
	must(rv_store_get_details(fx->s, 3, &d, &err), &err);
	assert_int_equal(d.nev, 1);
	assert_string_equal(d.ev[0].name, "cpu.busy_pct");
	assert_int_equal(d.ncauses, 1);
	rv_store_details_free(&d);
	assert_int_equal(raw_int(fx->path, "SELECT count(*) FROM incidents_view WHERE id = 3"
					   " AND phase = 1 AND follows IS NULL"
					   " AND likely_cause = 'CPU contention (75%)'"), 1);

	inc = make_inc(4, 30, 40, 0, 1, "net.x");
	inc.phase = 2;
	inc.follows = 3;
	must(rv_store_put_incident(fx->s, &inc, &err), &err);
	reopen(fx);
	inc = first_incident(fx->s);
	assert_int_equal(inc.id, 4);
	assert_int_equal(inc.phase, 2);
	assert_int_equal(inc.follows, 3);
	assert_int_equal(raw_int(fx->path, "PRAGMA user_version"), RV_STORE_SCHEMA_VERSION);
}

/* Phases an operator's edit left out of range read as a first incident. */
static void test_odd_phase_rows(void **state)
{
	struct fixture *fx = *state;
	struct rv_store_incident inc = make_inc(5, 10, 20, 0, 0, "x");
	struct rv_err err;

	open_ok(fx);
	inc.phase = 3;
	inc.follows = 2;
	rv_err_clear(&err);
	must(rv_store_put_incident(fx->s, &inc, &err), &err);
	raw_exec(fx->path, "UPDATE incidents SET phase = 0, follows = -4 WHERE id = 5");
	inc = first_incident(fx->s);
	assert_int_equal(inc.phase, 1);
	assert_int_equal(inc.follows, 0);
	raw_exec(fx->path, "UPDATE incidents SET phase = 5000000000, follows = NULL WHERE id = 5");
	inc = first_incident(fx->s);
	assert_int_equal(inc.phase, 1);
	assert_int_equal(inc.follows, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_details_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_details_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_from_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_from_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_odd_phase_rows, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
