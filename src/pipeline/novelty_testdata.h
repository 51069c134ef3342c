/*
 * novelty_testdata.h - test support for novelty_test.c and live_test.c
 * (not part of the library; header-only, everything static): a host of
 * 300 quiet channels sampled every 125 ms, as the agent sees it. 270
 * gauges with noise over cpu, mem, net, storage and gpu, then 30 event
 * channels of the catalog (TCP timeouts and retransmits, drops and errors
 * per NIC, GPU XID errors, storage I/O errors, OOM kills) that stay 0
 * until a test plants counts with qt_plant.
 */
#ifndef RV_PIPELINE_NOVELTY_TESTDATA_H
#define RV_PIPELINE_NOVELTY_TESTDATA_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "record/table.h"

enum { QT_GAUGES = 270, QT_EVENTS = 30, QT_CHAN = QT_GAUGES + QT_EVENTS };
/* The first event channel, the one the tests make count. */
enum { QT_TIMEOUTS = QT_GAUGES };
/* 1/8 s: rates x interval are exact, so one event is exactly 1.0. */
#define QT_INTERVAL_S 0.125
#define QT_T0 1700000000.0
/* Noise of a gauge, against its cycle's amplitude 1. */
#define QT_NOISE 0.2

static const struct {
	const char *fmt;
	double level, sd;
} qt_gauges[5] = {
	{ "cpu.busy_pct:cpu%zu", 50.0, 5.0 },
	{ "mem.pgscan:%zu", 1000.0, 100.0 },
	{ "net.rx_packets:eth%zu", 5000.0, 300.0 },
	{ "storage.await_ms:dev%zu", 2.0, 0.3 },
	{ "gpu.util_pct:gpu%zu", 80.0, 4.0 },
};

/* Name of event channel e (0..QT_EVENTS-1) into buf. */
static void qt_event_name(size_t e, char *buf, size_t cap)
{
	if (e == 0)
		snprintf(buf, cap, "net.tcpext_tcp_timeouts");
	else if (e == 1)
		snprintf(buf, cap, "net.tcp_retrans_segs");
	else if (e < 10)
		snprintf(buf, cap, "net.rx_drop:eth%zu", e - 2);
	else if (e < 18)
		snprintf(buf, cap, "net.rx_errs:eth%zu", e - 10);
	else if (e < 24)
		snprintf(buf, cap, "gpu.xid_errors:gpu%zu", e - 18);
	else if (e < 29)
		snprintf(buf, cap, "storage.io_errors:dev%zu", e - 24);
	else   /* an event of the collector's catalog that no name token marks */
		snprintf(buf, cap, "mem.oom_kill");
}

/* Five slow cycles (periods of 20 s to 3 min) that the gauges follow, each
 * gauge one of them with a phase of its own, plus noise: a host whose
 * channels move together, as a real one's do, so that the detectors learn
 * its shape from a few minutes. */
static double qt_cycle(size_t c, double t_s)
{
	static const double period_s[5] = { 20.0, 47.0, 71.0, 113.0, 180.0 };

	return sin(2.0 * M_PI * t_s / period_s[(c / 5) % 5] + 0.1 * (double)c);
}

/* nrows samples from QT_T0 + first_row intervals (a table that continues
 * another has first_row = its row count); the noise comes from seed. The
 * caller frees it with rv_table_free. */
static struct rv_table *quiet_table(size_t nrows, size_t first_row, uint64_t seed)
{
	struct rv_table *t = NULL;
	struct rv_rng rng;
	char name[64];

	if (rv_table_new(nrows, QT_CHAN, 1, "quiet", &t) != 0)
		abort();
	rv_rng_seed(&rng, seed);
	for (size_t r = 0; r < nrows; r++)
		t->ts[r] = QT_T0 + (double)(first_row + r) * QT_INTERVAL_S;
	for (size_t c = 0; c < QT_CHAN; c++) {
		float *col = t->values + c * nrows;

		if (c < QT_GAUGES)
			snprintf(name, sizeof(name), qt_gauges[c % 5].fmt, c / 5);
		else
			qt_event_name(c - QT_GAUGES, name, sizeof(name));
		if (!(t->names[c] = strdup(name)))
			abort();
		for (size_t r = 0; r < nrows; r++) {
			double z = rv_rng_uniform(&rng) + rv_rng_uniform(&rng) +
				   rv_rng_uniform(&rng) + rv_rng_uniform(&rng) - 2.0;

			double x = qt_cycle(c, (t->ts[r] - QT_T0)) + QT_NOISE * z;

			col[r] = c < QT_GAUGES
					 ? (float)(qt_gauges[c % 5].level + qt_gauges[c % 5].sd * x)
					 : 0.0f;
		}
	}
	return t;
}

/* Channel c runs at rate (per second) over rows [r0, r1). */
static void qt_plant(struct rv_table *t, size_t c, size_t r0, size_t r1, float rate)
{
	for (size_t r = r0; r < r1 && r < t->nrows; r++)
		t->values[c * t->nrows + r] = rate;
}

#endif
