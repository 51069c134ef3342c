/*
 * run.c - scoring a test table with a fitted model (rv_model_run).
 *
 * Per window: features -> ensemble score -> channel attribution -> ranking
 * -> sink and incident merger. Buffers are sized once before the loop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "features/window.h"
#include "pipeline/detect.h"

struct ranked {
	double w;
	uint32_t c;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return (x->c > y->c) - (x->c < y->c);
}

struct run_buffers {
	float *raw;
	double *chan_weight;
	struct ranked *rk;
	uint32_t *rank;
	struct rv_ens_scratch *scratch;
};

static void buffers_free(struct run_buffers *b)
{
	free(b->raw);
	free(b->chan_weight);
	free(b->rk);
	free(b->rank);
	rv_ens_scratch_free(b->scratch);
	memset(b, 0, sizeof(*b));
}

static int buffers_alloc(struct run_buffers *b, const struct rv_model *m)
{
	size_t nraw = m->nchan * m->nraw_pts;

	memset(b, 0, sizeof(*b));
	b->raw = malloc((nraw ? nraw : 1) * sizeof(*b->raw));
	b->chan_weight = malloc(m->nchan * sizeof(*b->chan_weight));
	b->rk = malloc(m->nchan * sizeof(*b->rk));
	b->rank = malloc(m->nchan * sizeof(*b->rank));
	b->scratch = rv_ens_scratch_new(m->ens);
	if (!b->raw || !b->chan_weight || !b->rk || !b->rank || !b->scratch) {
		buffers_free(b);
		return -ENOMEM;
	}
	return 0;
}

/* Ranks channels by weight (ties by index) into b->rank; returns the
 * subsystem carrying the largest summed weight. */
static enum rv_subsystem rank_channels(const struct rv_model *m, struct run_buffers *b)
{
	double sub_w[RV_SUB_COUNT] = { 0 };
	enum rv_subsystem best = RV_SUB_OTHER;

	for (size_t c = 0; c < m->nchan; c++) {
		b->rk[c].w = b->chan_weight[c];
		b->rk[c].c = (uint32_t)c;
		sub_w[rv_catalog_subsystem(m->names[c])] += b->chan_weight[c];
	}
	qsort(b->rk, m->nchan, sizeof(*b->rk), cmp_ranked);
	for (size_t c = 0; c < m->nchan; c++)
		b->rank[c] = b->rk[c].c;
	for (int s = 0; s < RV_SUB_COUNT; s++)
		if (sub_w[s] > sub_w[best])
			best = (enum rv_subsystem)s;
	return best;
}

/*
 * The delay line: a window's final verdict depends on later windows (a gap
 * may be bridged, a blip shorter than incident_min dropped), so scored
 * windows wait here until the incident merger has decided them. At most
 * (incident_min + 1) * (incident_gap + 1) + 1 windows wait at a time.
 */
struct pending {
	struct rv_window_out out;
	struct rv_ens_result res;
	uint32_t *rank;
};

struct delay_line {
	struct pending *q;
	size_t cap, head, len;
};

static int delay_init(struct delay_line *d, const struct rv_model *m, size_t gap, size_t min)
{
	d->cap = (min + 1) * (gap + 1) + 1;
	d->head = d->len = 0;
	d->q = calloc(d->cap, sizeof(*d->q));
	if (!d->q)
		return -ENOMEM;
	for (size_t i = 0; i < d->cap; i++)
		if (!(d->q[i].rank = malloc(m->nchan * sizeof(uint32_t))))
			return -ENOMEM;
	return 0;
}

static void delay_fini(struct delay_line *d)
{
	for (size_t i = 0; d->q && i < d->cap; i++)
		free(d->q[i].rank);
	free(d->q);
	d->q = NULL;
}

static void delay_push(struct delay_line *d, const struct rv_window_out *o, size_t nchan)
{
	struct pending *p = &d->q[(d->head + d->len) % d->cap];

	p->out = *o;
	p->res = *o->res;
	p->out.res = &p->res;
	if (o->nrank)
		memcpy(p->rank, o->rank, nchan * sizeof(uint32_t));
	p->out.rank = p->rank;
	d->len++;
}

/* Emits every window the merger has decided; all of them when final. */
static int delay_flush(struct delay_line *d, const struct rv_incmerge *mg, size_t min,
		       const struct rv_sink *sink, int final)
{
	size_t first = 0, last = 0, flagged = 0;
	int open = !final && rv_incmerge_open_state(mg, &first, &last, &flagged);

	while (d->len) {
		struct pending *p = &d->q[d->head];
		size_t w = p->out.index;
		int rc;

		if (open && w >= first && (flagged < min || w > last))
			break;
		p->res.anomaly = rv_incmerge_covers(mg, w) ||
				 (open && w >= first && w <= last && flagged >= min);
		if (sink && (rc = sink->window(sink->ctx, &p->out)) != 0)
			return rc;
		d->head = (d->head + 1) % d->cap;
		d->len--;
	}
	return 0;
}

static void count_window(struct rv_detect_stats *st, const struct rv_ens_result *res)
{
	if (!st)
		return;
	st->windows++;
	for (int d = 0; d < RV_DET_COUNT; d++)
		st->det_flagged[d] += (res->flags >> d) & 1u;
}

static int score_windows(const struct rv_model *m, const struct rv_table *test,
			 const struct rv_featmat *fm, struct run_buffers *b,
			 const struct rv_sink *sink, struct rv_incmerge *mg,
			 struct delay_line *dl, size_t min, struct rv_detect_stats *st)
{
	for (size_t w = 0; w < fm->nwin; w++) {
		struct rv_ens_result res;
		struct rv_window_out out = { .index = w, .res = &res, .rank = b->rank };
		int rc;

		out.ts = test->ts ? test->ts[fm->end_row[w]] : (double)fm->end_row[w];
		if (m->nraw_pts)
			rv_model_raw_row(m, test, fm->end_row[w], b->raw);
		rv_ens_score(m->ens, fm->x + w * fm->nfeat, b->raw, b->scratch, &res, b->chan_weight);
		if (res.anomaly || res.flags) {
			out.subsystem = rank_channels(m, b);
			out.nrank = m->nchan;
		}
		count_window(st, &res);
		rc = rv_incmerge_push(mg, w, out.ts, res.anomaly, res.fused, res.flags,
				      b->chan_weight);
		if (rc)
			return rc;
		delay_push(dl, &out, m->nchan);
		if ((rc = delay_flush(dl, mg, min, sink, 0)) != 0)
			return rc;
	}
	if (rv_incmerge_finish(mg) != 0)
		return -ENOMEM;
	return delay_flush(dl, mg, min, sink, 1);
}

int rv_model_run(const struct rv_model *m, const struct rv_table *test, const struct rv_sink *sink,
		 struct rv_incmerge *mg, struct rv_detect_stats *st, struct rv_err *err)
{
	struct delay_line dl = { 0 };
	struct rv_featmat fm;
	struct run_buffers b;
	size_t min = rv_incmerge_min_windows(mg);
	rv_ns t0;
	int rc;

	rc = rv_model_check_table(m, test, err);
	if (rc)
		return rc;
	t0 = rv_clock_ns();
	rc = rv_featmat_build(test->values, test->nrows, test->ncols, m->masks, m->window, m->step,
			      &fm, err);
	if (st)
		st->features_s += rv_clock_since_s(t0);
	if (rc)
		return rc;
	rc = buffers_alloc(&b, m);
	if (!rc && (rc = delay_init(&dl, m, rv_incmerge_max_gap(mg), min)) == 0) {
		t0 = rv_clock_ns();
		rc = score_windows(m, test, &fm, &b, sink, mg, &dl, min, st);
		if (st)
			st->score_s += rv_clock_since_s(t0);
	}
	if (st) {
		for (size_t i = 0; i < rv_incmerge_count(mg); i++) {
			const struct rv_incident *inc = rv_incmerge_get(mg, i);
			st->flagged += inc->last_win - inc->first_win + 1;
		}
	}
	delay_fini(&dl);
	buffers_free(&b);
	rv_featmat_fini(&fm);
	return rc;
}
