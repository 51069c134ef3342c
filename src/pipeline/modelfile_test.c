/*
 * modelfile_test.c - the model file (rv_model_save / rv_model_load): a model
 * fitted with reveal's default options on the synthetic job survives the
 * round trip with identical per-window output and incidents, and loading
 * refuses a wrong magic, another format version, truncation, a flipped byte
 * (checksum), an invalid but checksummed payload, trailing bytes and a
 * missing file, each with its message.
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
#include <unistd.h>

#include "base/crc32c.h"
#include "pipeline/model.h"
#include "pipeline/pipeline_testutil.h"
#include "record/synth.h"

/* --------------------------------------------------------- model file */

static void same_model(const struct rv_model *a, const struct rv_model *b)
{
	assert_int_equal(a->nchan, b->nchan);
	for (size_t c = 0; c < a->nchan; c++) {
		assert_string_equal(a->names[c], b->names[c]);
		assert_int_equal(a->masks[c], b->masks[c]);
	}
	assert_int_equal(a->window, b->window);
	assert_int_equal(a->step, b->step);
	assert_true(a->interval_s == b->interval_s);
	assert_int_equal(a->nraw_pts, b->nraw_pts);
	assert_memory_equal(a->raw_pos, b->raw_pos, a->nraw_pts * sizeof(a->raw_pos[0]));
	assert_int_equal(a->train_windows, b->train_windows);
	assert_int_equal(a->chan_mean != NULL, b->chan_mean != NULL);
	if (a->chan_mean)
		assert_memory_equal(a->chan_mean, b->chan_mean, a->nchan * sizeof(double));
}

struct synth {
	struct rv_table *train, *test;
	struct rv_model *m;
	char path[64];
};

static struct synth S;

/* The synthetic job (shortened), fitted with reveal's default options. */
static int synth_setup(void **state)
{
	struct rv_synth_params p;
	struct rv_detect_opts o;
	uint8_t *labels = NULL;
	int fd;

	rv_synth_defaults(&p);
	p.train_s = 200.0;
	p.test_s = 300.0;
	if (rv_synth_generate(&p, &S.train, &S.test, &labels) != 0)
		return -1;
	free(labels);
	rv_detect_opts_default(&o);
	o.ens.iforest.trees = 50;
	if (rv_model_fit(&o, S.train, &S.m, NULL, NULL) != 0)
		return -1;
	snprintf(S.path, sizeof(S.path), "/tmp/rv_pipeline_test_XXXXXX");
	fd = mkstemp(S.path);
	if (fd < 0)
		return -1;
	close(fd);
	(void)state;
	return 0;
}

static int synth_teardown(void **state)
{
	unlink(S.path);
	rv_model_free(S.m);
	rv_table_free(S.train);
	rv_table_free(S.test);
	(void)state;
	return 0;
}

/* A recording that lacks channels of the model and has one the model
 * does not know is put into the model's order. */
static void test_align_table(void **state)
{
	struct rv_table *t = NULL;
	const struct rv_model *m = S.m;
	size_t added = 9, dropped = 9, n = m->window;    /* one window */

	(void)state;
	assert_true(m->nchan >= 3);
	assert_int_equal(rv_table_new(n, 2, 1, "rec.rvl", &t), 0);
	t->names[0] = strdup("other.unknown");
	t->names[1] = strdup(m->names[1]);
	for (size_t r = 0; r < n; r++) {
		t->values[r] = -1.0f;
		t->values[n + r] = (float)r;
		t->ts[r] = (double)r;
	}
	assert_int_equal(rv_model_align_table(m, &t, &added, &dropped, NULL), 0);
	assert_int_equal(t->ncols, m->nchan);
	assert_int_equal(added, m->nchan - 1);
	assert_int_equal(dropped, 1);
	assert_int_equal(rv_model_check_table(m, t, NULL), 0);
	for (size_t r = 0; r < n; r++) {
		assert_true(rv_table_at(t, 1, r) == (float)r);
		assert_true(rv_table_at(t, 0, r) == (float)m->chan_mean[0]);
		assert_true(t->ts[r] == (double)r);
	}
	/* already aligned: nothing changes */
	{
		struct rv_table *before = t;
		assert_int_equal(rv_model_align_table(m, &t, &added, &dropped, NULL), 0);
		assert_ptr_equal(t, before);
		assert_int_equal(added, 0);
		assert_int_equal(dropped, 0);
	}
	rv_table_free(t);
}

static void test_save_load_round_trip(void **state)
{
	struct rv_model *l = NULL;
	struct rv_err err = { 0 };
	struct capture a, b, t;
	struct rv_incmerge *ma, *mb, *mt;

	assert_int_equal(S.m->window, 15); /* 200 ms data */
	assert_int_equal(S.m->step, 5);
	assert_true(S.m->nraw_pts > 0);
	/* the baseline of each channel is its mean over the training rows */
	assert_non_null(S.m->chan_mean);
	for (size_t c = 0; c < S.m->nchan; c++) {
		double sum = 0.0;
		for (size_t r = 0; r < S.train->nrows; r++)
			sum += rv_table_at(S.train, c, r);
		assert_true(fabs(S.m->chan_mean[c] - sum / (double)S.train->nrows) <=
			    1e-9 * (1.0 + fabs(S.m->chan_mean[c])));
	}
	if (rv_model_save(S.m, S.path, &err) != 0 || rv_model_load(S.path, &l, &err) != 0)
		fail_msg("%s", err.msg);
	same_model(S.m, l);
	ma = run(S.m, S.test, &a, 2, 2, 1);
	mb = run(l, S.test, &b, 2, 2, 1);
	same_output(&a, &b);
	same_incidents(ma, mb);
	assert_true(rv_incmerge_count(ma) > 0);
	/* the thread count changes nothing either */
	mt = run(l, S.test, &t, 2, 2, 3);
	same_output(&a, &t);
	same_incidents(ma, mt);
	run_free(ma, &a);
	run_free(mb, &b);
	run_free(mt, &t);
	rv_model_free(l);
	(void)state;
}

/* Reads the saved model file into a malloc'd buffer. */
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

static void spit(const char *path, const uint8_t *d, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void expect_load_refused(const char *path, int code, const char *text)
{
	struct rv_model *l = (struct rv_model *)&l;
	struct rv_err err = { 0 };
	int rc = rv_model_load(path, &l, &err);

	if (rc != code || l != NULL || err.code != code || !strstr(err.msg, text) ||
	    strncmp(err.msg, path, strlen(path)) != 0)
		fail_msg("rc %d (want %d), err '%s', want '%s: ...%s...'", rc, code, err.msg, path,
			 text);
}

/* Envelope: magic 8, version u32 at 8, payload length u64 at 12, payload
 * at 20, CRC-32C u32 after it. */
enum { OFF_VERSION = 8, OFF_PLEN = 12, OFF_PAYLOAD = 20 };

static void test_load_refusals(void **state)
{
	char bad[96], version_text[96];
	size_t len, plen;
	uint8_t *orig, *d;

	assert_int_equal(rv_model_save(S.m, S.path, NULL), 0);
	orig = slurp(S.path, &len);
	plen = len - OFF_PAYLOAD - 4;
	assert_memory_equal(orig, "RVLMODEL", 8);
	d = malloc(len + 8);
	assert_non_null(d);
	snprintf(bad, sizeof(bad), "%s.bad", S.path);

	memcpy(d, orig, len);
	d[3] ^= 0x20;
	spit(bad, d, len);
	expect_load_refused(bad, -EINVAL, "not a reveal model file");
	spit(bad, orig, 10);
	expect_load_refused(bad, -EINVAL, "not a reveal model file");

	memcpy(d, orig, len);
	put_u32(d + OFF_VERSION, RV_MODEL_FORMAT_VERSION + 1);
	spit(bad, d, len);
	snprintf(version_text, sizeof(version_text),
		 "model format version %d, this reveal reads versions 1 to %d",
		 RV_MODEL_FORMAT_VERSION + 1, RV_MODEL_FORMAT_VERSION);
	expect_load_refused(bad, -EINVAL, version_text);

	spit(bad, orig, len - 7);
	expect_load_refused(bad, -EINVAL, "truncated or padded model");
	spit(bad, orig, OFF_PAYLOAD + 4);
	expect_load_refused(bad, -EINVAL, "truncated or padded model");

	for (size_t at = OFF_PAYLOAD; at < len; at += (len - OFF_PAYLOAD) / 7) {
		memcpy(d, orig, len);
		d[at] ^= 0x01;
		spit(bad, d, len);
		expect_load_refused(bad, -EINVAL, "checksum mismatch: the model file is corrupt");
	}

	/* a checksummed payload that is itself invalid: zero channels */
	memcpy(d, orig, len);
	put_u64(d + OFF_PAYLOAD, 0);
	put_u32(d + OFF_PAYLOAD + plen, rv_crc32c(0, d + OFF_PAYLOAD, plen));
	spit(bad, d, len);
	expect_load_refused(bad, -EINVAL, "invalid channel table");

	/* trailing bytes inside a consistent envelope */
	memcpy(d, orig, OFF_PAYLOAD + plen);
	memset(d + OFF_PAYLOAD + plen, 0, 4);
	put_u64(d + OFF_PLEN, plen + 4);
	put_u32(d + OFF_PAYLOAD + plen + 4, rv_crc32c(0, d + OFF_PAYLOAD, plen + 4));
	spit(bad, d, len + 4);
	expect_load_refused(bad, -EINVAL, "4 unexpected bytes after the model");

	unlink(bad);
	expect_load_refused(bad, -ENOENT, strerror(ENOENT));
	free(d);
	free(orig);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_save_load_round_trip),
		cmocka_unit_test(test_align_table),
		cmocka_unit_test(test_load_refusals),
	};
	return cmocka_run_group_tests(tests, synth_setup, synth_teardown);
}
