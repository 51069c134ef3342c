/*
 * pipeline_testutil.h - test support shared by pipeline_test.c and
 * modelfile_test.c (not part of the library): a sink that captures every
 * window rv_model_run emits, run() to score a table into it with a fresh
 * incident merger (run_free() releases both), and the comparisons that
 * demand two runs agree window for window and incident for incident.
 *
 * Header-only on purpose: the build compiles every .c file of src/pipeline
 * that is not a *_test.c into the library. Everything here is static, so
 * each test gets its own copy.
 */
#ifndef RV_PIPELINE_TESTUTIL_H
#define RV_PIPELINE_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/model.h"

/* MAX_CHAN bounds the ranking a window may carry (its channel count: the
 * quiet host of novelty_testdata.h has 300). */
enum { MAX_WINDOWS = 4096, MAX_CHAN = 320 };

/* --------------------------------------------------------------- sink */

struct seen {
	size_t index, nrank;
	double ts;
	struct rv_ens_result res;
	uint32_t rank[MAX_CHAN];
	enum rv_subsystem subsystem;
};

struct capture {
	struct seen *w;
	size_t n;
	size_t fail_at;     /* return -EIO at this window (SIZE_MAX: never) */
	size_t nchan;
};

static int capture_window(void *ctx, const struct rv_window_out *o)
{
	struct capture *c = ctx;
	struct seen *s;

	if (c->n == c->fail_at)
		return -EIO;
	assert_true(c->n < MAX_WINDOWS);
	s = &c->w[c->n++];
	memset(s, 0, sizeof(*s));
	s->index = o->index;
	s->ts = o->ts;
	s->res = *o->res;
	s->nrank = o->nrank;
	assert_true(o->nrank == 0 || o->nrank == c->nchan);
	assert_true(o->nrank <= MAX_CHAN);
	if (o->nrank)
		memcpy(s->rank, o->rank, o->nrank * sizeof(uint32_t));
	s->subsystem = o->subsystem;
	return 0;
}

/* Allocates c->w (the caller frees it). */
static void capture_init(struct capture *c, size_t nchan)
{
	c->w = calloc(MAX_WINDOWS, sizeof(*c->w));
	assert_non_null(c->w);
	c->n = 0;
	c->fail_at = SIZE_MAX;
	c->nchan = nchan;
}

/* Runs m over t into c with a fresh merger (returned, caller frees). */
static struct rv_incmerge *run(const struct rv_model *m, const struct rv_table *t,
			       struct capture *c, size_t gap, size_t min, unsigned threads)
{
	struct rv_incmerge *mg = NULL;
	struct rv_sink sink = { .ctx = c, .window = capture_window };
	struct rv_err err = { 0 };
	int rc;

	assert_int_equal(rv_incmerge_new(m->nchan, (const char *const *)m->names, gap, min, &mg, NULL), 0);
	capture_init(c, m->nchan);
	rc = rv_model_run(m, t, &sink, mg, threads, NULL, &err);
	if (rc)
		fail_msg("rv_model_run: %d %s", rc, err.msg);
	return mg;
}

/* Frees what run() made: the merger and c's windows. */
static void run_free(struct rv_incmerge *mg, struct capture *c)
{
	rv_incmerge_free(mg);
	free(c->w);
}

/* ------------------------------------------------------------ compare */

static void same_output(const struct capture *a, const struct capture *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t w = 0; w < a->n; w++) {
		const struct seen *x = &a->w[w], *y = &b->w[w];
		assert_int_equal(x->index, y->index);
		assert_true(x->ts == y->ts);
		assert_memory_equal(x->res.score, y->res.score, sizeof(x->res.score));
		assert_memory_equal(x->res.ratio, y->res.ratio, sizeof(x->res.ratio));
		assert_true(x->res.fused == y->res.fused);
		assert_int_equal(x->res.flags, y->res.flags);
		assert_int_equal(x->res.anomaly, y->res.anomaly);
		assert_true(x->res.novelty == y->res.novelty);
		assert_int_equal(x->res.novel_chan, y->res.novel_chan);
		assert_int_equal(x->res.novel, y->res.novel);
		assert_true(x->res.level == y->res.level);
		assert_int_equal(x->res.level_chan, y->res.level_chan);
		assert_int_equal(x->res.leveled, y->res.leveled);
		assert_int_equal(x->nrank, y->nrank);
		assert_memory_equal(x->rank, y->rank, x->nrank * sizeof(x->rank[0]));
		assert_int_equal(x->subsystem, y->subsystem);
	}
}

static void same_incidents(const struct rv_incmerge *a, const struct rv_incmerge *b)
{
	assert_int_equal(rv_incmerge_count(a), rv_incmerge_count(b));
	for (size_t i = 0; i < rv_incmerge_count(a); i++) {
		const struct rv_incident *x = rv_incmerge_get(a, i), *y = rv_incmerge_get(b, i);
		assert_int_equal(x->first_win, y->first_win);
		assert_int_equal(x->last_win, y->last_win);
		assert_true(x->peak_score == y->peak_score && x->mean_score == y->mean_score);
		assert_int_equal(x->ntop, y->ntop);
		assert_memory_equal(x->top, y->top, x->ntop * sizeof(x->top[0]));
	}
}

#endif
