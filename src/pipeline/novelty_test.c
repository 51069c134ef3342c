/*
 * novelty_test.c - the novelty statistic of sparse event counts
 * (novelty.h) in the offline run and the model file:
 *   - which channels a fit watches, and their T_c and M_c;
 *   - on a quiet host of 300 channels, one event channel counting 30/s for
 *     10 s flags every window that holds it, from the first one after the
 *     onset, with that channel ranked first and the net subsystem blamed,
 *     and a fused score of a major incident;
 *   - one, two or three stray events flag nothing, four do;
 *   - a model file of format version 2 (a fixture written before version
 *     3) loads and scores as it did; a version 2 file made from a version
 *     3 one scores exactly as the model without novelty; version 3 round
 *     trips the thresholds, and bad thresholds are refused.
 * live_test.c checks that the live scorer agrees.
 */
#include "pipeline/pipeline_testutil.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "base/crc32c.h"
#include "features/features.h"
#include "pipeline/novelty.h"
#include "pipeline/novelty_testdata.h"
#include "record/csv.h"

/* 300 s of learning, 60 s of test at 8 samples a second: windows of 3 s
 * (24 samples) every 1 s (8). */
enum { TRAIN_ROWS = 2400, TEST_ROWS = 480, WIN = 24, STEP = 8 };
/* The burst: 30/s from test +30 s to +40 s. */
enum { BURST_R0 = 240, BURST_R1 = 320, FIRST_BURST_WIN = 28, LAST_BURST_WIN = 39 };
#define BURST_RATE 30.0f

struct fixture {
	struct rv_table *train;
	struct rv_model *m;
	char path[64];
};

static struct fixture F;

static struct rv_model *fit(const struct rv_detect_opts *o, const struct rv_table *t)
{
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };
	int rc = rv_model_fit(o, t, &m, NULL, &err);

	if (rc)
		fail_msg("rv_model_fit: %d %s", rc, err.msg);
	return m;
}

static void default_opts(struct rv_detect_opts *o)
{
	rv_detect_opts_default(o);
	o->ens.iforest.trees = 50;
}

static int setup(void **state)
{
	struct rv_detect_opts o;
	int fd;

	(void)state;
	F.train = quiet_table(TRAIN_ROWS, 0, 1);
	default_opts(&o);
	if (rv_model_fit(&o, F.train, &F.m, NULL, NULL) != 0)
		return -1;
	snprintf(F.path, sizeof(F.path), "/tmp/rv_novelty_test_XXXXXX");
	fd = mkstemp(F.path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(F.path);
	rv_model_free(F.m);
	rv_table_free(F.train);
	return 0;
}

/* Rows of window w inside [r0, r1). */
static size_t overlap(size_t w, size_t r0, size_t r1)
{
	size_t a = w * STEP, b = a + WIN;

	a = a > r0 ? a : r0;
	b = b < r1 ? b : r1;
	return b > a ? b - a : 0;
}

static void near(double a, double b, double tol)
{
	if (!(fabs(a - b) <= tol * (1.0 + fabs(b))))
		fail_msg("%.12g, expected %.12g", a, b);
}

/* ------------------------------------------------------------ the fit */

static void test_fused_score(void **state)
{
	(void)state;
	assert_true(rv_novelty_fused(1.0, 0.9) == 0.0);
	assert_true(rv_novelty_fused(0.5, 0.9) == 0.0);
	/* just over 1: at the fusion's threshold and the detectors' (1) */
	near(rv_novelty_fused(1.0 + 1e-9, 0.9), 1.0, 1e-6);
	assert_true(rv_novelty_fused(1.0 + 1e-9, 0.9) > 0.9);
	/* up to 2: minor; beyond: major; capped below critical */
	near(rv_novelty_fused(2.0, 0.9), 2.0, 1e-12);
	assert_true(rv_novelty_fused(2.0, 0.9) <= RV_SEVERITY_MAJOR);
	assert_true(rv_novelty_fused(2.5, 0.9) > RV_SEVERITY_MAJOR);
	near(rv_novelty_fused(4.0, 0.9), 3.0, 1e-12);
	near(rv_novelty_fused(8.0, 0.9), RV_NOVELTY_SCORE_CAP, 1e-12);
	near(rv_novelty_fused(1e6, 0.9), RV_NOVELTY_SCORE_CAP, 1e-12);
	assert_true(RV_NOVELTY_SCORE_CAP < RV_SEVERITY_CRITICAL);
	/* a fusion threshold over 1 is the base */
	near(rv_novelty_fused(2.0, 1.5), 3.0, 1e-12);
	near(rv_novelty_fused(1e6, 5.0), 5.0, 1e-12);
	near(rv_novelty_fused(2.0, NAN), 2.0, 1e-12);
}

/* Index of c in the watched list, or -1. */
static long watched(const struct rv_novelty *nv, size_t c)
{
	for (size_t i = 0; i < nv->n; i++)
		if (nv->chan[i] == c)
			return (long)i;
	return -1;
}

static void test_fit_watches_quiet_event_channels(void **state)
{
	struct rv_table *t = quiet_table(TRAIN_ROWS, 0, 7);
	const struct rv_novelty *nv;
	struct rv_detect_opts o;
	struct rv_model *m;
	long i;

	(void)state;
	qt_plant(t, QT_TIMEOUTS + 1, 0, TRAIN_ROWS, 5.0f);      /* steady: counts everywhere */
	qt_plant(t, QT_TIMEOUTS + 2, 1000, 1001, 80.0f);        /* one burst of 10 events */
	for (size_t r = 0; r < TRAIN_ROWS; r += 40)              /* 1 event in 60 % of windows */
		qt_plant(t, QT_TIMEOUTS + 3, r, r + 1, 8.0f);
	qt_plant(t, QT_TIMEOUTS + 4, 100, 102, 8.0f);           /* 2 events once */
	default_opts(&o);
	m = fit(&o, t);
	nv = &m->nov;
	assert_int_equal(m->window, WIN);
	assert_int_equal(m->step, STEP);
	assert_int_equal(nv->n, QT_EVENTS - 2);
	for (size_t k = 1; k < nv->n; k++)
		assert_true(nv->chan[k] > nv->chan[k - 1]);
	for (size_t c = 0; c < QT_GAUGES; c++)
		assert_int_equal(watched(nv, c), -1);
	assert_int_equal(watched(nv, QT_TIMEOUTS + 1), -1);
	assert_int_equal(watched(nv, QT_TIMEOUTS + 3), -1);
	i = watched(nv, QT_TIMEOUTS);
	assert_true(i >= 0 && nv->thr[i] == 0.0 && nv->margin[i] == RV_NOVELTY_MIN_MARGIN);
	i = watched(nv, QT_TIMEOUTS + 2);
	assert_true(i >= 0 && nv->thr[i] == 10.0 && nv->margin[i] == 5.0);
	i = watched(nv, QT_TIMEOUTS + 4);
	assert_true(i >= 0 && nv->thr[i] == 2.0 && nv->margin[i] == RV_NOVELTY_MIN_MARGIN);
	/* an event by its metric type only: gauge features, watched all the same */
	assert_string_equal(m->names[QT_CHAN - 1], "mem.oom_kill");
	assert_int_equal(m->masks[QT_CHAN - 1] & RV_FEAT_BIT(RV_F_SUM), 0);
	assert_true(watched(nv, QT_CHAN - 1) >= 0);
	rv_model_free(m);
	rv_table_free(t);
}

/* No channel watched: by the option, without event channels, with the
 * paper's preset. Without timestamps a sample stands for 1 s. */
static void test_fit_off_and_untimed(void **state)
{
	struct rv_table *t = quiet_table(TRAIN_ROWS, 0, 7);
	struct rv_detect_opts o;
	struct rv_model *m;
	long i;

	(void)state;
	qt_plant(t, QT_TIMEOUTS + 2, 1000, 1001, 80.0f);
	default_opts(&o);
	o.novelty = 0;
	m = fit(&o, t);
	assert_int_equal(m->nov.n, 0);
	rv_model_free(m);
	default_opts(&o);
	o.events = 0;
	m = fit(&o, t);
	assert_int_equal(m->nov.n, 0);
	rv_model_free(m);
	rv_detect_opts_paper(&o);
	o.ens.iforest.trees = 20;
	m = fit(&o, t);
	assert_int_equal(m->nov.n, 0);
	rv_model_free(m);

	/* without timestamps: counts are sums of the values */
	free(t->ts);
	t->ts = NULL;
	default_opts(&o);
	m = fit(&o, t);
	assert_true(m->interval_s == 0.0);
	assert_true(rv_novelty_sample_s(m) == 1.0);
	i = watched(&m->nov, QT_TIMEOUTS + 2);
	assert_true(i >= 0 && m->nov.thr[i] == 80.0 && m->nov.margin[i] == 40.0);
	rv_model_free(m);
	rv_table_free(t);
}

/* ------------------------------------------------------------ scoring */

/* The burst of the module comment, checked window by window. */
static void check_burst(const struct rv_model *m, const struct capture *cap)
{
	const double thr = rv_ens_fuse_threshold(m->ens);
	size_t flagged = 0;

	for (size_t w = 0; w < cap->n; w++) {
		const struct seen *s = &cap->w[w];
		size_t k = overlap(w, BURST_R0, BURST_R1);
		double events = (double)k * BURST_RATE * QT_INTERVAL_S;

		assert_int_equal(s->index, w);
		if (!k) {
			assert_true(s->res.novelty == 0.0);
			assert_int_equal(s->res.novel_chan, RV_NOVEL_NONE);
			assert_int_equal(s->res.novel, 0);
			continue;
		}
		flagged++;
		assert_int_equal(s->res.novel, 1);
		assert_int_equal(s->res.novel_chan, QT_TIMEOUTS);
		near(s->res.novelty, events / RV_NOVELTY_MIN_MARGIN, 1e-12);
		assert_int_equal(s->res.anomaly, 1);
		assert_true(s->res.fused >= rv_novelty_fused(s->res.novelty, thr));
		assert_true(s->res.fused > RV_SEVERITY_MAJOR);
		/* the detectors are quiet: the novelty takes the whole share */
		near(s->res.novel_share, RV_NOVELTY_SHARE, 0.0);
		assert_int_equal(s->nrank, m->nchan);
		assert_int_equal(s->rank[0], QT_TIMEOUTS);
		assert_int_equal(s->subsystem, RV_SUB_NET);
	}
	assert_int_equal(flagged, LAST_BURST_WIN - FIRST_BURST_WIN + 1);
	/* the first window ending after the onset: 1 s of the burst */
	assert_int_equal(cap->w[FIRST_BURST_WIN].res.novel, 1);
	assert_int_equal(cap->w[FIRST_BURST_WIN - 1].res.novel, 0);
}

/* The novel channels' share of the blame: all of RV_NOVELTY_SHARE when
 * the novelty flags the window alone, what novel_share says when the
 * detectors outweigh it (rv_novelty_score sets it). */
static void test_attribution_share(void **state)
{
	uint32_t chan[] = { 2 };
	struct rv_model m;
	struct rv_ens_result res;
	const double ratio[] = { 3.0 };
	double w[3] = { 6, 3, 1 };

	(void)state;
	memset(&m, 0, sizeof(m));
	memset(&res, 0, sizeof(res));
	m.nchan = 3;
	m.nov.n = 1;
	m.nov.chan = chan;
	res.novel = 1;
	res.novel_share = RV_NOVELTY_SHARE;
	/* the others carry 9: the novel channel gets 18 of 27 */
	rv_novelty_attribute(&m, ratio, &res, w);
	near(w[2], 18.0, 1e-12);
	near(w[0], 6.0, 0.0);
	/* detectors ten times stronger: a tenth is the most it is raised to */
	w[2] = 0.5;
	res.novel_share = 0.1;
	rv_novelty_attribute(&m, ratio, &res, w);
	near(w[2], 1.0, 1e-12);
	/* already above its share: unchanged */
	w[2] = 4.0;
	rv_novelty_attribute(&m, ratio, &res, w);
	near(w[2], 4.0, 0.0);
}

static void test_burst_is_flagged_and_blamed(void **state)
{
	struct rv_table *t = quiet_table(TEST_ROWS, TRAIN_ROWS, 2);
	struct rv_detect_stats st;
	struct rv_incmerge *mg, *mg2;
	struct capture cap;
	const struct rv_incident *in = NULL;

	(void)state;
	qt_plant(t, QT_TIMEOUTS, BURST_R0, BURST_R1, BURST_RATE);
	mg = run(F.m, t, &cap, 2, 1, 2);
	check_burst(F.m, &cap);
	/* the incident holding the burst is net's, led by the channel */
	for (size_t i = 0; i < rv_incmerge_count(mg); i++) {
		const struct rv_incident *x = rv_incmerge_get(mg, i);
		if (x->first_win <= FIRST_BURST_WIN && x->last_win >= LAST_BURST_WIN)
			in = x;
	}
	assert_non_null(in);
	assert_int_equal(in->subsystem, RV_SUB_NET);
	assert_int_equal(in->top[0], QT_TIMEOUTS);
	assert_true(in->top_weight[0] >= 0.5);
	assert_true(in->peak_score > RV_SEVERITY_MAJOR);
	/* the run's statistics count the windows the novelty flagged */
	memset(&st, 0, sizeof(st));
	assert_int_equal(rv_incmerge_new(F.m->nchan, (const char *const *)F.m->names, 2, 1, &mg2, NULL), 0);
	assert_int_equal(rv_model_run(F.m, t, NULL, mg2, 1, &st, NULL), 0);
	assert_int_equal(st.novel_flagged, LAST_BURST_WIN - FIRST_BURST_WIN + 1);
	rv_incmerge_free(mg2);
	run_free(mg, &cap);
	rv_table_free(t);
}

/* n single events (one sample each at 1/interval) from row 250: windows
 * 29 to 31 hold all of them. Up to 3 (= M_c) flag nothing. */
static void test_stray_events(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 4; n++) {
		struct rv_table *t = quiet_table(TEST_ROWS, TRAIN_ROWS, 2);
		struct rv_incmerge *mg;
		struct capture cap;
		size_t novel = 0;

		qt_plant(t, QT_TIMEOUTS, 250, 250 + n, (float)(1.0 / QT_INTERVAL_S));
		mg = run(F.m, t, &cap, 2, 1, 1);
		for (size_t w = 0; w < cap.n; w++) {
			const struct seen *s = &cap.w[w];
			size_t k = overlap(w, 250, 250 + n);

			novel += s->res.novel != 0;
			if (!k) {
				assert_true(s->res.novelty == 0.0);
				continue;
			}
			assert_int_equal(s->res.novel_chan, QT_TIMEOUTS);
			near(s->res.novelty, (double)k / RV_NOVELTY_MIN_MARGIN, 1e-12);
		}
		assert_int_equal(cap.w[30].res.novel, n >= 4);
		assert_int_equal(novel, n >= 4 ? 3 : 0);
		run_free(mg, &cap);
		rv_table_free(t);
	}
}

/* ----------------------------------------------------------- the file */

static void same_novelty(const struct rv_novelty *a, const struct rv_novelty *b)
{
	assert_int_equal(a->n, b->n);
	assert_memory_equal(a->chan, b->chan, a->n * sizeof(*a->chan));
	assert_memory_equal(a->thr, b->thr, a->n * sizeof(*a->thr));
	assert_memory_equal(a->margin, b->margin, a->n * sizeof(*a->margin));
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *d;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	d = malloc((size_t)n);
	assert_non_null(d);
	assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return d;
}

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Envelope (modelfile.c): magic 8, version u32, payload length u64,
 * payload, CRC-32C u32. Writes d (len bytes, payload length fixed up and
 * checksummed) to path under version. */
enum { OFF_VERSION = 8, OFF_PLEN = 12, OFF_PAYLOAD = 20 };

static void spit_model(const char *path, uint8_t *d, size_t len, uint32_t version)
{
	size_t plen = len - OFF_PAYLOAD - 4;
	FILE *f = fopen(path, "wb");

	put_le(d + OFF_VERSION, version, 4);
	put_le(d + OFF_PLEN, plen, 8);
	put_le(d + OFF_PAYLOAD + plen, rv_crc32c(0, d + OFF_PAYLOAD, plen), 4);
	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Offset of the novelty section in the file (modelfile.c's layout). */
static size_t novelty_offset(const struct rv_model *m)
{
	size_t off = OFF_PAYLOAD + 8;

	for (size_t c = 0; c < m->nchan; c++)
		off += 4 + strlen(m->names[c]) + 4;
	off += 8 + 8 + 8 + 8 + 8 * m->nraw_pts + 8;
	return off + 4 + (m->chan_mean ? 8 * m->nchan : 0);
}

static struct rv_model *load(const char *path)
{
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };
	int rc = rv_model_load(path, &m, &err);

	if (rc)
		fail_msg("rv_model_load: %d %s", rc, err.msg);
	return m;
}

static void test_v4_round_trip_v3_and_v2(void **state)
{
	struct rv_table *t = quiet_table(TEST_ROWS, TRAIN_ROWS, 2);
	struct rv_novelty kept;
	double *floors;
	struct rv_model *l;
	struct capture a, b, c3, c2, c0;
	struct rv_incmerge *ma, *mb, *m3, *m2, *m0;
	size_t len, off, sec;
	uint8_t *d;

	(void)state;
	qt_plant(t, QT_TIMEOUTS, BURST_R0, BURST_R1, BURST_RATE);
	assert_int_equal(rv_model_save(F.m, F.path, NULL), 0);
	d = slurp(F.path, &len);
	assert_int_equal(d[OFF_VERSION], 5);
	/* version 5 adds the level section after the floors, empty on this
	 * host (no level channel): without it, a version 4 file */
	assert_int_equal(F.m->lvl.n, 0);
	off = novelty_offset(F.m) + 8 + F.m->nov.n * (4 + 8 + 8) + 4 + 8 * F.m->nchan;
	assert_true(off + 8 < len);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(d[off + i], 0);
	memmove(d + off, d + off + 8, len - off - 8);
	len -= 8;
	spit_model(F.path, d, len, 4);
	l = load(F.path);
	assert_int_equal(l->nov.n, QT_EVENTS);
	same_novelty(&F.m->nov, &l->nov);
	assert_non_null(F.m->flat_below);
	assert_non_null(l->flat_below);
	assert_memory_equal(l->flat_below, F.m->flat_below, F.m->nchan * sizeof(double));
	ma = run(F.m, t, &a, 2, 1, 1);
	mb = run(l, t, &b, 2, 1, 1);
	same_output(&a, &b);
	same_incidents(ma, mb);
	rv_model_free(l);

	/* the same model as a version 3 file: no channel floors, scored
	 * exactly as the model without them (every window's shape its own) */
	off = novelty_offset(F.m) + 8 + F.m->nov.n * (4 + 8 + 8);
	sec = 4 + 8 * F.m->nchan;
	assert_int_equal(d[off], 1);
	memmove(d + off, d + off + sec, len - off - sec);
	len -= sec;
	spit_model(F.path, d, len, 3);
	l = load(F.path);
	assert_null(l->flat_below);
	assert_int_equal(l->nov.n, QT_EVENTS);
	m3 = run(l, t, &c3, 2, 1, 1);
	floors = F.m->flat_below;
	F.m->flat_below = NULL;
	m0 = run(F.m, t, &c0, 2, 1, 1);
	same_output(&c3, &c0);
	same_incidents(m3, m0);
	rv_model_free(l);
	run_free(m0, &c0);

	/* and as a version 2 file: no novelty section either */
	off = novelty_offset(F.m);
	sec = 8 + F.m->nov.n * (4 + 8 + 8);
	assert_int_equal(d[off], QT_EVENTS);
	memmove(d + off, d + off + sec, len - off - sec);
	spit_model(F.path, d, len - sec, 2);
	l = load(F.path);
	assert_int_equal(l->nov.n, 0);
	m2 = run(l, t, &c2, 2, 1, 1);
	/* scored exactly as the model without the statistic */
	kept = F.m->nov;
	memset(&F.m->nov, 0, sizeof(F.m->nov));
	m0 = run(F.m, t, &c0, 2, 1, 1);
	F.m->nov = kept;
	F.m->flat_below = floors;
	same_output(&c2, &c0);
	same_incidents(m2, m0);
	for (size_t w = 0; w < c2.n; w++)
		assert_true(c2.w[w].res.novelty == 0.0 && !c2.w[w].res.novel);
	rv_model_free(l);
	run_free(ma, &a);
	run_free(mb, &b);
	run_free(m3, &c3);
	run_free(m2, &c2);
	run_free(m0, &c0);
	free(d);
	rv_table_free(t);
}

static void expect_refused(const char *path, const char *text)
{
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };
	int rc = rv_model_load(path, &m, &err);

	if (rc != -EINVAL || m != NULL || !strstr(err.msg, text))
		fail_msg("rc %d, '%s', want '...%s...'", rc, err.msg, text);
}

static void test_bad_novelty_refused(void **state)
{
	size_t len, off;
	uint8_t *orig, *d;
	/* entry i at off + 8 + 20 i: u32 channel, f64 T, f64 M */
	const double nan_val = NAN, neg = -1.0, zero = 0.0;
	uint64_t bits;

	(void)state;
	assert_int_equal(rv_model_save(F.m, F.path, NULL), 0);
	orig = slurp(F.path, &len);
	d = malloc(len);
	assert_non_null(d);
	off = novelty_offset(F.m);

	memcpy(d, orig, len);
	put_le(d + off, F.m->nchan + 1, 8);
	spit_model(F.path, d, len, 3);
	expect_refused(F.path, "invalid novelty section");

	memcpy(d, orig, len);
	put_le(d + off + 8, F.m->nchan, 4);
	spit_model(F.path, d, len, 3);
	expect_refused(F.path, "novelty entry 0: channel index 300 out of order");

	memcpy(d, orig, len);
	put_le(d + off + 8 + 20, QT_TIMEOUTS, 4);    /* entry 1 repeats entry 0 */
	spit_model(F.path, d, len, 3);
	expect_refused(F.path, "novelty entry 1: channel index 270 out of order");

	memcpy(d, orig, len);
	memcpy(&bits, &nan_val, 8);
	put_le(d + off + 8 + 4, bits, 8);
	spit_model(F.path, d, len, 3);
	expect_refused(F.path, "novelty entry 0 (channel net.tcpext_tcp_timeouts): invalid");

	memcpy(d, orig, len);
	memcpy(&bits, &neg, 8);
	put_le(d + off + 8 + 20 + 4, bits, 8);
	spit_model(F.path, d, len, 3);
	expect_refused(F.path, "novelty entry 1 (channel net.tcp_retrans_segs): invalid");

	memcpy(d, orig, len);
	memcpy(&bits, &zero, 8);
	put_le(d + off + 8 + 12, bits, 8);
	spit_model(F.path, d, len, 3);
	expect_refused(F.path, "invalid threshold 0 or margin 0");

	/* a payload that ends inside the section */
	memcpy(d, orig, len);
	spit_model(F.path, d, off + 8 + 10 + 4, 3);
	expect_refused(F.path, "invalid novelty section (30 channels of 300)");
	free(d);
	free(orig);
}

/* ---------------------------------------------------- version 2 fixture */

static void fixture_path(char *buf, size_t cap, const char *name)
{
	const char *dir = getenv("RV_FIXTURES");

	assert_non_null(dir);
	snprintf(buf, cap, "%s/detect/%s", dir, name);
}

/* Reads "window,anomaly,score" rows (gen_model_v2.sh) into the arrays;
 * returns the row count. */
static size_t read_expected(const char *path, int *anomaly, double *score, size_t cap)
{
	FILE *f = fopen(path, "r");
	char line[128];
	size_t n = 0;

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "window,anomaly,score\n");
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		unsigned long w = strtoul(p, &end, 10);

		assert_true(n < cap && end != p && *end == ',' && w == n);
		p = end + 1;
		anomaly[n] = (int)strtol(p, &end, 10);
		assert_true(end != p && *end == ',');
		p = end + 1;
		score[n] = strtod(p, &end);
		assert_true(end != p && *end == '\n');
		n++;
	}
	fclose(f);
	return n;
}

static void test_v2_fixture_scores_as_before(void **state)
{
	char path[512];
	struct rv_table *t = NULL;
	struct rv_model *m;
	struct rv_err err = { 0 };
	struct rv_incmerge *mg;
	struct capture cap;
	int anomaly[MAX_WINDOWS];
	double score[MAX_WINDOWS];
	size_t n;

	(void)state;
	fixture_path(path, sizeof(path), "model_v2.bin");
	m = load(path);
	assert_int_equal(m->nov.n, 0);
	assert_non_null(m->chan_mean);
	fixture_path(path, sizeof(path), "model_v2_test.csv");
	if (rv_csv_read(path, &t, &err) != 0 || rv_table_fill_gaps(t, NULL, &err) != 0 ||
	    rv_model_check_table(m, t, &err) != 0)
		fail_msg("%s", err.msg);
	/* a channel a version 3 fit would watch: net.tcp_retrans_segs counts
	 * 90 events a window in the test, one event in all of learning */
	assert_int_equal(rv_catalog_kind_by_name(m->names[4]), RV_KIND_EVENT);
	fixture_path(path, sizeof(path), "model_v2_expected.csv");
	n = read_expected(path, anomaly, score, MAX_WINDOWS);
	mg = run(m, t, &cap, 2, 1, 1);   /* reveal detect's defaults */
	assert_int_equal(cap.n, n);
	for (size_t w = 0; w < n; w++) {
		const struct seen *s = &cap.w[w];

		/* the fixture's scores have 6 significant digits */
		near(s->res.fused, score[w], 2e-5);
		assert_int_equal(s->res.anomaly, anomaly[w]);
		assert_true(s->res.novelty == 0.0 && !s->res.novel);
		assert_int_equal(s->res.novel_chan, RV_NOVEL_NONE);
	}
	run_free(mg, &cap);
	rv_model_free(m);
	rv_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fused_score),
		cmocka_unit_test(test_fit_watches_quiet_event_channels),
		cmocka_unit_test(test_fit_off_and_untimed),
		cmocka_unit_test(test_attribution_share),
		cmocka_unit_test(test_burst_is_flagged_and_blamed),
		cmocka_unit_test(test_stray_events),
		cmocka_unit_test(test_v4_round_trip_v3_and_v2),
		cmocka_unit_test(test_bad_novelty_refused),
		cmocka_unit_test(test_v2_fixture_scores_as_before),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
