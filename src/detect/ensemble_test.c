/*
 * ensemble_test.c - the detector ensemble (detect/ensemble.h).
 *
 * Data: 400 rows of 12 correlated features (4 channels x 3) and 12 raw
 * columns, generated with base/rng.h by operations that are exact in IEEE
 * double; tests/fixtures/detect/gen_ensemble.py replays the generator and
 * stores numpy's column statistics and zscore threshold. The test recomputes
 * the zscore scores itself and checks the threshold semantics, fusion,
 * attribution, save/load and refusal of truncated or crafted sections.
 * The generator and fixture reader: ensemble_testdata.h (shared with
 * scaler_test.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "detect/ensemble.h"
#include "detect/ensemble_testdata.h"

enum {
	/* training rows strictly above the 0.99 and the 0.95 quantile of 400:
	 * 400 - 1 - floor(q * 399) when no two scores tie */
	OVER_99 = 4, OVER_95 = 20,
	PREFIX_HEAD = 1500, PREFIX_SAMPLES = 400,
};
static const double Q = 0.99;

/* ----------------------------------------------------------- ensemble */

static void config(struct rv_ens_config *c, unsigned enabled, enum rv_fusion fusion, unsigned k)
{
	memset(c, 0, sizeof(*c));
	c->enabled = enabled;
	c->quantile = Q;
	c->contamination = 0.01;
	c->var_keep = 0.95;
	c->spe_var_keep = 0.95;
	c->iforest.trees = 50;
	c->iforest.samples = 128;
	c->iforest.seed = 3;
	c->fusion = fusion;
	c->vote_k = k;
	c->fuse_quantile = Q;
}

static const unsigned ALL = RV_DET_BIT(RV_DET_ZSCORE) | RV_DET_BIT(RV_DET_PCA) |
			    RV_DET_BIT(RV_DET_IFOREST) | RV_DET_BIT(RV_DET_SPE);

static struct rv_ens_train train_set(void)
{
	struct rv_ens_train tr = {
		.feat = D.feat, .nfeat = NF, .feat_chan = D.feat_chan,
		.raw = D.raw, .nraw = NRAW, .raw_chan = D.raw_chan,
		.n = ROWS, .nchan = NCHAN,
	};
	return tr;
}

static struct rv_ensemble *fit(const struct rv_ens_config *c)
{
	struct rv_ens_train tr = train_set();
	struct rv_ensemble *e = NULL;
	struct rv_err err = { 0 };
	int rc = rv_ens_fit(c, &tr, &e, &err);

	if (rc)
		fail_msg("rv_ens_fit: %d %s", rc, err.msg);
	assert_non_null(e);
	return e;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* numpy.percentile's linear rule, written out here. */
static double percentile(double *v, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)pos;

	qsort(v, n, sizeof(*v), cmp_double);
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}

/* zscore scores with the test's own statistics (double, two-pass). */
static void own_zscore_scores(double *score)
{
	double mean[NF] = { 0 }, sd[NF] = { 0 };

	for (size_t i = 0; i < ROWS; i++)
		for (size_t j = 0; j < NF; j++)
			mean[j] += D.feat[i * NF + j];
	for (size_t j = 0; j < NF; j++)
		mean[j] /= ROWS;
	for (size_t i = 0; i < ROWS; i++)
		for (size_t j = 0; j < NF; j++)
			sd[j] += (D.feat[i * NF + j] - mean[j]) * (D.feat[i * NF + j] - mean[j]);
	for (size_t j = 0; j < NF; j++)
		sd[j] = sqrt(sd[j] / ROWS);
	for (size_t i = 0; i < ROWS; i++) {
		double s = 0.0;
		for (size_t j = 0; j < NF; j++)
			s += fabs((D.feat[i * NF + j] - mean[j]) / sd[j]);
		score[i] = s / NF;
	}
}

static unsigned popcount(unsigned x)
{
	unsigned n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

static void test_zscore_threshold(void **state)
{
	struct rv_ens_config c;
	struct rv_ensemble *e;
	struct rv_ens_scratch *s;
	static double own[ROWS], sorted[ROWS];
	double thr;

	config(&c, RV_DET_BIT(RV_DET_ZSCORE), RV_FUSE_VOTE, 1);
	e = fit(&c);
	assert_int_equal(rv_ens_scratch_new(e, &s), 0);
	assert_non_null(s);
	own_zscore_scores(own);
	for (size_t i = 0; i < ROWS; i++) {
		struct rv_ens_result res;
		rv_ens_score(e, D.feat + i * NF, NULL, s, &res, NULL);
		assert_true(close_rel(res.score[RV_DET_ZSCORE], own[i], 1e-5));
		/* disabled detectors score 0 */
		assert_true(res.score[RV_DET_PCA] == 0.0 && res.score[RV_DET_SPE] == 0.0);
	}
	memcpy(sorted, own, sizeof(own));
	thr = percentile(sorted, ROWS, Q);
	assert_true(close_rel(rv_ens_threshold(e, RV_DET_ZSCORE), thr, 1e-5));
	assert_true(close_rel(rv_ens_threshold(e, RV_DET_ZSCORE), D.zscore_thr, 1e-5));
	assert_true(close_rel(thr, D.zscore_thr, 1e-9));
	assert_int_equal(rv_ens_features_kept(e), NF);
	assert_int_equal(rv_ens_pca_ncomp(e), 0);
	rv_ens_scratch_free(s);
	rv_ens_free(e);
	(void)state;
}

/* On the training data itself, exactly the rows above the threshold
 * quantile exceed it: quantile 0.95 for zscore, pca and spe, 1 -
 * contamination = 0.99 for iforest, fuse_quantile 0.99 for the fusion. */
static void test_training_over_threshold(void **state)
{
	struct rv_ens_config c;
	struct rv_ensemble *e;
	struct rv_ens_scratch *s;
	size_t over[RV_DET_FIXED] = { 0 }, anomalies = 0;
	static double fused[ROWS];

	config(&c, ALL, RV_FUSE_SCORE, 2);
	c.quantile = 0.95;
	e = fit(&c);
	assert_int_equal(rv_ens_scratch_new(e, &s), 0);
	assert_non_null(s);
	assert_true(rv_ens_pca_ncomp(e) >= 1 && rv_ens_pca_ncomp(e) < NF);
	for (size_t i = 0; i < ROWS; i++) {
		struct rv_ens_result res;
		rv_ens_score(e, D.feat + i * NF, D.raw + i * NRAW, s, &res, NULL);
		for (int d = 0; d < RV_DET_FIXED; d++) {
			double thr = rv_ens_threshold(e, (enum rv_det)d);
			int on = res.score[d] > thr;
			over[d] += (size_t)on;
			assert_int_equal((res.flags >> d) & 1u, (unsigned)on);
			assert_true(res.ratio[d] == res.score[d] / thr);
		}
		assert_true(close_rel(res.fused,
				      (res.ratio[0] + res.ratio[1] + res.ratio[2] + res.ratio[3]) / 4,
				      1e-12));
		/* strength: each ratio at least 1 */
		assert_true(close_rel(res.strength,
				      (fmax(res.ratio[0], 1) + fmax(res.ratio[1], 1) +
				       fmax(res.ratio[2], 1) + fmax(res.ratio[3], 1)) / 4,
				      1e-12));
		assert_int_equal(res.anomaly, res.fused > rv_ens_fuse_threshold(e));
		anomalies += (size_t)res.anomaly;
		fused[i] = res.fused;
	}
	for (int d = 0; d < RV_DET_FIXED; d++)
		if (over[d] != (d == RV_DET_IFOREST ? OVER_99 : OVER_95))
			fail_msg("%s: %zu training rows over the threshold",
				 rv_det_name((enum rv_det)d), over[d]);
	assert_int_equal(anomalies, OVER_99);
	/* the fit scores its rows in batches (sgemm), this loop one at a time
	 * (sgemv): OpenBLAS kernels differ between CPUs in the last bits */
	assert_true(close_rel(rv_ens_fuse_threshold(e), percentile(fused, ROWS, Q), 1e-6));
	rv_ens_scratch_free(s);
	rv_ens_free(e);
	(void)state;
}

/* A window whose features and raw points sit 12 sd out against the
 * correlation of the training data: on channel `only` (< NCHAN), or on
 * every channel. Isolation Forest needs the broad version: one channel of
 * four, extreme, still leaves the row central on 9 of 12 features, so most
 * random splits treat it like an inlier. */
static void outlier_row(float *feat, float *raw, size_t only)
{
	for (size_t j = 0; j < NF; j++) {
		double sign = j % 2 ? -1.0 : 1.0;
		int hit = only >= NCHAN || j / PER_CHAN == only;
		feat[j] = (float)(D.mean[j] + (hit ? sign * 12.0 * D.sd[j] : 0.0));
		raw[j] = (float)(D.raw_mean[j] + (hit ? sign * 12.0 * D.raw_sd[j] : 0.0));
	}
}

/* RV_ATTR_ZSCORE: each channel's share of the summed |z| of the features. */
static void expect_zscore_shares(const float *feat, const double *w)
{
	double per[NCHAN] = { 0 }, total = 0.0;

	for (size_t j = 0; j < NF; j++) {
		double a = fabs((feat[j] - D.mean[j]) / D.sd[j]);
		per[j / PER_CHAN] += a;
		total += a;
	}
	for (size_t ch = 0; ch < NCHAN; ch++)
		if (fabs(w[ch] - per[ch] / total) > 1e-5)
			fail_msg("channel %zu: weight %.9g, want %.9g", ch, w[ch], per[ch] / total);
}

static void test_outlier_and_normal(void **state)
{
	static const enum rv_fusion fusions[] = { RV_FUSE_VOTE, RV_FUSE_SCORE };
	float feat[NF], raw[NRAW], mfeat[NF], mraw[NRAW];

	for (size_t j = 0; j < NF; j++)
		mfeat[j] = (float)D.mean[j];
	for (size_t j = 0; j < NRAW; j++)
		mraw[j] = (float)D.raw_mean[j];
	for (size_t k = 0; k < 2 * RV_ATTR_COUNT; k++) {
		struct rv_ens_config c;
		struct rv_ensemble *e;
		struct rv_ens_scratch *s;
		struct rv_ens_result res;
		double w[NCHAN], total = 0.0;

		config(&c, ALL, fusions[k % 2], 2);
		c.attribution = (enum rv_attribution)(k / 2);
		e = fit(&c);
		assert_int_equal(rv_ens_scratch_new(e, &s), 0);
		assert_non_null(s);
		outlier_row(feat, raw, NCHAN);
		rv_ens_score(e, feat, raw, s, &res, NULL);
		assert_int_equal(res.flags, ALL);
		assert_int_equal(res.anomaly, 1);
		for (int d = 0; d < RV_DET_FIXED; d++)
			assert_true(res.ratio[d] > 1.0);

		/* one channel out: still an anomaly, and the weight goes to it */
		outlier_row(feat, raw, 2);
		rv_ens_score(e, feat, raw, s, &res, w);
		assert_true(popcount(res.flags) >= 2);
		assert_int_equal(res.anomaly, 1);
		for (size_t ch = 0; ch < NCHAN; ch++) {
			assert_true(w[ch] >= 0.0);
			total += w[ch];
		}
		if (c.attribution == RV_ATTR_ZSCORE) {
			assert_true(fabs(total - 1.0) < 1e-9);
			expect_zscore_shares(feat, w);
		} else {
			/* each firing detector's shares sum to 1, added with equal weight */
			assert_true(fabs(total - popcount(res.flags)) < 1e-6);
		}
		assert_true(w[2] > 0.5 * total);

		rv_ens_score(e, mfeat, mraw, s, &res, w);
		assert_int_equal(res.flags, 0);
		assert_int_equal(res.anomaly, 0);
		for (size_t ch = 0; ch < NCHAN; ch++)
			assert_true(w[ch] == 0.0); /* nothing flagged: no attribution */
		assert_true(res.fused < 1.0);
		assert_true(res.score[RV_DET_ZSCORE] < 1e-5);
		rv_ens_scratch_free(s);
		rv_ens_free(e);
	}
	(void)state;
}

/* Rows of varied strength: training rows and channel perturbations. */
static void probe_row(size_t k, float *feat, float *raw)
{
	size_t base = (k * 53) % ROWS, ch = k % NCHAN;
	double mag = 1.0 + 0.25 * (double)(k % 24);

	memcpy(feat, D.feat + base * NF, NF * sizeof(*feat));
	memcpy(raw, D.raw + base * NRAW, NRAW * sizeof(*raw));
	if (k % 3 == 0)
		return;
	for (size_t j = ch * PER_CHAN; j < (ch + 1) * PER_CHAN; j++) {
		feat[j] += (float)((j % 2 ? -mag : mag) * D.sd[j]);
		if (k % 3 == 2)
			raw[j] += (float)(mag * D.raw_sd[j]);
	}
}

enum { PROBES = 240 };

/* vote_k = 1..4: anomaly exactly when at least k detectors fired; the
 * thresholds do not depend on the fusion settings. */
static void test_vote_semantics(void **state)
{
	struct rv_ensemble *e[5];
	struct rv_ens_scratch *s[5];
	size_t differs_2_3 = 0, by_votes[RV_DET_FIXED + 1] = { 0 };
	float feat[NF], raw[NRAW];

	for (unsigned k = 1; k <= 4; k++) {
		struct rv_ens_config c;
		config(&c, ALL, RV_FUSE_VOTE, k);
		e[k] = fit(&c);
		assert_int_equal(rv_ens_scratch_new(e[k], &s[k]), 0);
		assert_non_null(s[k]);
		for (int d = 0; d < RV_DET_FIXED; d++)
			assert_true(rv_ens_threshold(e[k], (enum rv_det)d) ==
				    rv_ens_threshold(e[1], (enum rv_det)d));
	}
	for (size_t p = 0; p < PROBES; p++) {
		struct rv_ens_result res[5];
		probe_row(p, feat, raw);
		for (unsigned k = 1; k <= 4; k++) {
			rv_ens_score(e[k], feat, raw, s[k], &res[k], NULL);
			assert_int_equal(res[k].flags, res[1].flags);
			assert_int_equal(res[k].anomaly, popcount(res[k].flags) >= k);
		}
		by_votes[popcount(res[1].flags)]++;
		differs_2_3 += res[2].anomaly != res[3].anomaly;
	}
	/* the probes exercise every vote count, so k really decides */
	for (int v = 0; v <= RV_DET_FIXED; v++)
		if (by_votes[v] == 0)
			fail_msg("no probe row with exactly %d votes", v);
	assert_true(differs_2_3 > 0);
	for (unsigned k = 1; k <= 4; k++) {
		rv_ens_scratch_free(s[k]);
		rv_ens_free(e[k]);
	}
	(void)state;
}

/* Score fusion: anomaly follows the fused score, not the vote count. */
static void test_score_semantics(void **state)
{
	struct rv_ens_config c;
	struct rv_ensemble *e;
	struct rv_ens_scratch *s;
	float feat[NF], raw[NRAW];
	size_t disagree = 0;

	config(&c, ALL, RV_FUSE_SCORE, 4);
	e = fit(&c);
	assert_int_equal(rv_ens_scratch_new(e, &s), 0);
	assert_non_null(s);
	for (size_t p = 0; p < PROBES; p++) {
		struct rv_ens_result res;
		probe_row(p, feat, raw);
		rv_ens_score(e, feat, raw, s, &res, NULL);
		assert_int_equal(res.anomaly, res.fused > rv_ens_fuse_threshold(e));
		disagree += (size_t)res.anomaly != (popcount(res.flags) >= 4);
	}
	assert_true(disagree > 0); /* vote_k is ignored under score fusion */
	rv_ens_scratch_free(s);
	rv_ens_free(e);
	(void)state;
}

static void same_results(const struct rv_ensemble *a, const struct rv_ensemble *b)
{
	struct rv_ens_scratch *sa = NULL, *sb = NULL;
	float feat[NF], raw[NRAW];

	assert_int_equal(rv_ens_scratch_new(a, &sa), 0);
	assert_int_equal(rv_ens_scratch_new(b, &sb), 0);

	assert_non_null(sa);
	assert_non_null(sb);
	for (int d = 0; d < RV_DET_FIXED; d++)
		assert_true(rv_ens_threshold(a, (enum rv_det)d) == rv_ens_threshold(b, (enum rv_det)d));
	assert_true(rv_ens_fuse_threshold(a) == rv_ens_fuse_threshold(b));
	assert_int_equal(rv_ens_pca_ncomp(a), rv_ens_pca_ncomp(b));
	assert_int_equal(rv_ens_features_kept(a), rv_ens_features_kept(b));
	assert_memory_equal(rv_ens_config(a), rv_ens_config(b), sizeof(struct rv_ens_config));
	for (size_t p = 0; p < PROBES; p += 7) {
		struct rv_ens_result ra, rb;
		double wa[NCHAN], wb[NCHAN];
		probe_row(p, feat, raw);
		rv_ens_score(a, feat, raw, sa, &ra, wa);
		rv_ens_score(b, feat, raw, sb, &rb, wb);
		assert_memory_equal(ra.score, rb.score, sizeof(ra.score));
		assert_memory_equal(ra.ratio, rb.ratio, sizeof(ra.ratio));
		assert_true(ra.flags == rb.flags && ra.anomaly == rb.anomaly && ra.fused == rb.fused);
		assert_memory_equal(wa, wb, sizeof(wa));
	}
	rv_ens_scratch_free(sa);
	rv_ens_scratch_free(sb);
}

static void test_save_load(void **state)
{
	static const unsigned masks[] = {
		RV_DET_BIT(RV_DET_ZSCORE) | RV_DET_BIT(RV_DET_PCA) | RV_DET_BIT(RV_DET_IFOREST),
		RV_DET_BIT(RV_DET_SPE),
		RV_DET_BIT(RV_DET_ZSCORE) | RV_DET_BIT(RV_DET_SPE),
	};
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		struct rv_ens_config c;
		struct rv_ensemble *e, *l;
		struct rv_wbuf w, w2;
		struct rv_rbuf r;
		struct rv_err err = { 0 };

		config(&c, masks[m], m == 1 ? RV_FUSE_SCORE : RV_FUSE_VOTE, 2);
		e = fit(&c);
		rv_wbuf_init(&w);
		rv_ens_save(e, &w);
		assert_false(w.oom);
		rv_rbuf_init(&r, w.data, w.len);
		if (rv_ens_load(&r, &l, &err) != 0)
			fail_msg("load: %s", err.msg);
		assert_int_equal(r.pos, w.len);
		same_results(e, l);
		/* saving the loaded model gives the same bytes */
		rv_wbuf_init(&w2);
		rv_ens_save(l, &w2);
		assert_int_equal(w2.len, w.len);
		assert_memory_equal(w2.data, w.data, w.len);
		rv_wbuf_fini(&w2);
		rv_wbuf_fini(&w);
		rv_ens_free(l);
		rv_ens_free(e);
	}
	(void)state;
}

/* The thread count of fitting does not change the model. */
static void test_fit_threads(void **state)
{
	struct rv_ens_config c;
	struct rv_ens_train tr = train_set();
	struct rv_ensemble *one, *many = NULL;

	config(&c, ALL, RV_FUSE_SCORE, 2);
	one = fit(&c);
	tr.threads = 3;
	assert_int_equal(rv_ens_fit(&c, &tr, &many, NULL), 0);
	same_results(one, many);
	rv_ens_free(many);
	rv_ens_free(one);
	(void)state;
}

/* fuse_geometric: the fused score is the geometric mean of the ratios. */
static void test_fuse_geometric(void **state)
{
	struct rv_ens_config c;
	struct rv_ensemble *e;
	struct rv_ens_scratch *s;
	float feat[NF], raw[NRAW];

	config(&c, ALL, RV_FUSE_SCORE, 2);
	c.fuse_geometric = 1;
	e = fit(&c);
	assert_int_equal(rv_ens_scratch_new(e, &s), 0);
	assert_non_null(s);
	for (size_t p = 0; p < PROBES; p += 5) {
		struct rv_ens_result res;
		double logsum = 0.0, seen = 0.0;
		int below = 0;
		probe_row(p, feat, raw);
		rv_ens_score(e, feat, raw, s, &res, NULL);
		for (int d = 0; d < RV_DET_FIXED; d++) {
			logsum += log(res.ratio[d]);
			seen += log(fmax(res.ratio[d], 1.0));
			below += res.ratio[d] < 1.0;
		}
		assert_true(close_rel(res.fused, exp(logsum / RV_DET_FIXED), 1e-9));
		/* a detector below its threshold does not weaken the strength;
		 * with none below, it is the fused score */
		assert_true(close_rel(res.strength, exp(seen / RV_DET_FIXED), 1e-9));
		assert_true(below ? res.strength > res.fused : close_rel(res.strength, res.fused, 1e-9));
		assert_int_equal(res.anomaly, res.fused > rv_ens_fuse_threshold(e));
	}
	rv_ens_scratch_free(s);
	rv_ens_free(e);
	(void)state;
}

static void expect_load_refused(const uint8_t *data, size_t len)
{
	struct rv_ensemble *l = (struct rv_ensemble *)&l;
	struct rv_rbuf r;
	struct rv_err err = { 0 };
	int rc;

	rv_rbuf_init(&r, data, len);
	rc = rv_ens_load(&r, &l, &err);
	if (rc == 0 || l != NULL || err.code != rc || err.msg[0] == '\0')
		fail_msg("prefix of %zu bytes: rc %d, err '%s'", len, rc, err.msg);
}

/* Every prefix of the first PREFIX_HEAD bytes (headers, maps, scalers, the
 * PCA basis) and a random sample of the longer ones must fail cleanly. */
static void test_truncated_refused(void **state)
{
	struct rv_ens_config c;
	struct rv_ensemble *e;
	struct rv_wbuf w;
	struct rv_rng r;

	config(&c, ALL, RV_FUSE_VOTE, 2);
	e = fit(&c);
	rv_wbuf_init(&w);
	rv_ens_save(e, &w);
	assert_true(w.len > PREFIX_HEAD);
	for (size_t len = 0; len < PREFIX_HEAD; len++)
		expect_load_refused(w.data, len);
	rv_rng_seed(&r, 77);
	for (size_t i = 0; i < PREFIX_SAMPLES; i++)
		expect_load_refused(w.data, PREFIX_HEAD + rv_rng_below(&r, w.len - PREFIX_HEAD));
	for (size_t len = w.len - 64; len < w.len; len++)
		expect_load_refused(w.data, len);
	rv_wbuf_fini(&w);
	rv_ens_free(e);
	(void)state;
}

/* Finds the 24-byte map header (nfeat, nraw, nchan as u64) in a saved
 * section: its offset depends on the configuration block before it. */
static size_t find_maps(const struct rv_wbuf *w)
{
	uint8_t pat[24];
	const uint64_t v[3] = { NF, NRAW, NCHAN };

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 8; i++)
			pat[k * 8 + i] = (uint8_t)(v[k] >> (8 * i));
	for (size_t at = 0; at + sizeof(pat) <= w->len; at++)
		if (memcmp(w->data + at, pat, sizeof(pat)) == 0)
			return at;
	fail_msg("map header not found");
	return 0;
}

/* Sizes in a crafted section (a CRC does not stop a crafted file) are
 * refused before anything is allocated from them. nfeat + nraw = 2^64
 * wraps to 0, so the "enough bytes left" check must not add them. */
static void test_load_crafted_sizes(void **state)
{
	static const uint64_t sizes[][3] = {
		{ 1ull << 62, 0, NCHAN },                  /* more columns than bytes */
		{ NF, NRAW, 0 },                           /* no channel */
		{ 1ull << 62, 3ull << 62, NCHAN },         /* nfeat + nraw wraps to 0 */
		{ UINT64_MAX, 1, NCHAN },                  /* the same, another way */
	};
	struct rv_ens_config c;
	struct rv_ensemble *e;
	struct rv_wbuf w;
	uint8_t *d;
	size_t at;

	config(&c, ALL, RV_FUSE_VOTE, 2);
	e = fit(&c);
	rv_wbuf_init(&w);
	rv_ens_save(e, &w);
	at = find_maps(&w);
	d = malloc(w.len);
	assert_non_null(d);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		memcpy(d, w.data, w.len);
		for (int f = 0; f < 3; f++)
			for (int i = 0; i < 8; i++)
				d[at + (size_t)f * 8 + (size_t)i] = (uint8_t)(sizes[k][f] >> (8 * i));
		expect_load_refused(d, w.len);
	}
	free(d);
	rv_wbuf_fini(&w);
	rv_ens_free(e);
	(void)state;
}

static void test_fit_refusals(void **state)
{
	struct rv_ens_config c;
	struct rv_ens_train tr = train_set();
	struct rv_ensemble *e = (struct rv_ensemble *)&e;
	struct rv_err err = { 0 };

	config(&c, 0, RV_FUSE_VOTE, 2);
	assert_int_equal(rv_ens_fit(&c, &tr, &e, &err), -EINVAL);
	assert_null(e);
	assert_true(err.msg[0] != '\0');

	config(&c, ALL, RV_FUSE_VOTE, 2);
	tr.n = 7;
	rv_err_clear(&err);
	assert_int_equal(rv_ens_fit(&c, &tr, &e, &err), -EINVAL);
	assert_null(e);
	assert_non_null(strstr(err.msg, "7 training windows"));

	tr = train_set();
	tr.raw = NULL;
	rv_err_clear(&err);
	assert_int_equal(rv_ens_fit(&c, &tr, &e, &err), -EINVAL);
	assert_null(e);
	assert_non_null(strstr(err.msg, "spe"));
	(void)state;
}

/*
 * overwrite = 1 (the fit standardizes the caller's rows in place) fits the
 * same model as working on copies. The inputs get constant columns in the
 * middle, so the in-place pass also compacts the kept columns leftwards.
 */
static void test_overwrite_same_model(void **state)
{
	enum { WF = NF + 2, WR = NRAW + 1 };
	static float feat[ROWS * WF], raw[ROWS * WR], work_f[ROWS * WF], work_r[ROWS * WR];
	uint32_t fchan[WF], rchan[WR];
	struct rv_ens_config c;
	struct rv_ensemble *e[2];
	struct rv_ens_scratch *s[2];
	struct rv_err err = { 0 };

	for (size_t i = 0; i < ROWS; i++) {
		for (size_t j = 0, k = 0; j < WF; j++)
			feat[i * WF + j] = j == 1 ? 4.0f : j == NF / 2 + 1 ? -2.5f : D.feat[i * NF + k++];
		for (size_t j = 0, k = 0; j < WR; j++)
			raw[i * WR + j] = j == 3 ? 7.0f : D.raw[i * NRAW + k++];
	}
	for (size_t j = 0, k = 0; j < WF; j++)
		fchan[j] = j == 1 || j == NF / 2 + 1 ? 0 : D.feat_chan[k++];
	for (size_t j = 0, k = 0; j < WR; j++)
		rchan[j] = j == 3 ? 1 : D.raw_chan[k++];
	config(&c, ALL, RV_FUSE_SCORE, 2);
	for (int ow = 0; ow < 2; ow++) {
		struct rv_ens_train tr = {
			.feat = work_f, .nfeat = WF, .feat_chan = fchan,
			.raw = work_r, .nraw = WR, .raw_chan = rchan,
			.n = ROWS, .nchan = NCHAN, .threads = 2, .overwrite = ow,
		};

		memcpy(work_f, feat, sizeof(feat));
		memcpy(work_r, raw, sizeof(raw));
		if (rv_ens_fit(&c, &tr, &e[ow], &err))
			fail_msg("rv_ens_fit (overwrite %d): %s", ow, err.msg);
		assert_int_equal(rv_ens_features_kept(e[ow]), NF);
		/* Copies leave the input alone; overwrite rewrote it. */
		assert_int_equal(memcmp(work_f, feat, sizeof(feat)) != 0, ow);
		assert_int_equal(rv_ens_scratch_new(e[ow], &s[ow]), 0);
		assert_non_null(s[ow]);
	}
	for (int d = 0; d < RV_DET_FIXED; d++)
		assert_true(rv_ens_threshold(e[0], (enum rv_det)d) ==
			    rv_ens_threshold(e[1], (enum rv_det)d));
	assert_true(rv_ens_fuse_threshold(e[0]) == rv_ens_fuse_threshold(e[1]));
	/* the spread of each kept column; none for the constant ones */
	for (size_t j = 0; j <= WF; j++) {
		double sd = rv_ens_feature_sd(e[0], j);

		assert_true(sd == rv_ens_feature_sd(e[1], j));
		assert_int_equal(sd > 0.0, j != 1 && j != NF / 2 + 1 && j < WF);
	}
	assert_int_equal(rv_ens_pca_ncomp(e[0]), rv_ens_pca_ncomp(e[1]));
	for (size_t i = 0; i < ROWS; i += 7) {
		struct rv_ens_result r0, r1;

		rv_ens_score(e[0], feat + i * WF, raw + i * WR, s[0], &r0, NULL);
		rv_ens_score(e[1], feat + i * WF, raw + i * WR, s[1], &r1, NULL);
		assert_memory_equal(r0.score, r1.score, sizeof(r0.score));
		assert_true(r0.fused == r1.fused && r0.anomaly == r1.anomaly);
	}
	for (int ow = 0; ow < 2; ow++) {
		rv_ens_scratch_free(s[ow]);
		rv_ens_free(e[ow]);
	}
	(void)state;
}

static void test_names(void **state)
{
	for (int d = 0; d < RV_DET_FIXED; d++)
		assert_int_equal(rv_det_parse(rv_det_name((enum rv_det)d)), d);
	for (int f = 0; f < RV_FUSE_COUNT; f++)
		assert_int_equal(rv_fusion_parse(rv_fusion_name((enum rv_fusion)f)), f);
	assert_string_equal(rv_det_name(RV_DET_ZSCORE), "zscore");
	assert_string_equal(rv_det_name(RV_DET_PCA), "pca");
	assert_string_equal(rv_det_name(RV_DET_IFOREST), "iforest");
	assert_string_equal(rv_det_name(RV_DET_SPE), "spe");
	assert_string_equal(rv_fusion_name(RV_FUSE_VOTE), "vote");
	assert_string_equal(rv_fusion_name(RV_FUSE_SCORE), "score");
	assert_int_equal(rv_det_parse("zscores"), -1);
	assert_int_equal(rv_det_parse(""), -1);
	assert_int_equal(rv_det_parse("vote"), -1);
	assert_int_equal(rv_fusion_parse("pca"), -1);
	assert_int_equal(rv_fusion_parse("votes"), -1);
	assert_int_equal(rv_fusion_parse(""), -1);
	assert_int_equal(rv_attribution_parse("zscore"), RV_ATTR_ZSCORE);
	assert_int_equal(rv_attribution_parse("ensemble"), RV_ATTR_ENSEMBLE);
	assert_int_equal(rv_attribution_parse("vote"), -1);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_matches_python),
		cmocka_unit_test(test_zscore_threshold),
		cmocka_unit_test(test_training_over_threshold),
		cmocka_unit_test(test_outlier_and_normal),
		cmocka_unit_test(test_vote_semantics),
		cmocka_unit_test(test_score_semantics),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_fit_threads),
		cmocka_unit_test(test_fuse_geometric),
		cmocka_unit_test(test_truncated_refused),
		cmocka_unit_test(test_fit_refusals),
		cmocka_unit_test(test_overwrite_same_model),
		cmocka_unit_test(test_names),
		/* last: it crashes under ASan while the bug it shows is there */
		cmocka_unit_test(test_load_crafted_sizes),
	};
	return cmocka_run_group_tests(tests, ens_data_setup, NULL);
}
