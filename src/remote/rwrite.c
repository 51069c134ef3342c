/*
 * rwrite.c - a Prometheus remote-write 1.0 request: series checked and
 * ordered as they are added, then packed by protobuf-c and compressed with
 * snappy's block format (the contract is in rwrite.h).
 *
 * Why this shape: the agent will send a request every few seconds for as
 * long as it runs, so every array the request needs (protobuf-c's message
 * structs and the pointer arrays it walks, the label text, the packed
 * protobuf) is allocated once by rv_rw_new, sized by the limits, and
 * reused; a series that does not fit is refused whole (-E2BIG) and the
 * caller sends what the request holds first. The packed size is bounded
 * at creation (pb_bound: field tags of one byte, lengths of at most 5
 * varint bytes, as every length stays below 2^35 under the ceilings of
 * rwrite.h), and protobuf-c's own count is checked against it before
 * packing, so the scratch never grows and the caller's output buffer can
 * be sized once (rv_rw_out_max).
 */
#include "remote/rwrite.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "base/utf8.h"
#include "remote_write.pb-c.h"

enum {
	RV_RW_NAME_SHOWN = 64,         /* bytes of a name quoted in a message */
	RV_RW_SERIES_OVERHEAD = 1 + 5, /* tag + length of one TimeSeries */
	RV_RW_LABEL_OVERHEAD = 3 * (1 + 5), /* Label tag/len, name and value tag/len */
	RV_RW_SAMPLE_BYTES = 1 + 1 + (1 + 8) + (1 + 10), /* tag, len, double, int64 */
};

struct rv_rw {
	struct rv_rw_limits lim;
	Prometheus__TimeSeries *series, **series_p;   /* [max_series] */
	Prometheus__Label *labels, **labels_p;        /* [max_labels] */
	Prometheus__Sample *samples, **samples_p;     /* [max_samples] */
	const struct rv_rw_label **sorted;  /* [max_labels]: one rv_rw_add's input */
	char *text;           /* names and values, NUL-terminated, back to back */
	size_t text_cap;      /* max_label_bytes + 2 NULs per label */
	uint8_t *pb;          /* the packed WriteRequest */
	size_t pb_cap, out_max;
	size_t nseries, nlabels, nsamples, ntext, label_bytes;
};

/* The series a message is about: its metric name, or a placeholder. */
struct rv_rw_ctx {
	const char *metric;
};

double rv_rw_stale_nan(void)
{
	uint64_t bits = RV_RW_STALE_NAN_BITS;
	double v;

	memcpy(&v, &bits, sizeof v);
	return v;
}

int rv_rw_is_stale(double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	return bits == RV_RW_STALE_NAN_BITS;
}

static int limit_or_default(size_t *v, size_t def, size_t ceiling,
			    const char *what, struct rv_err *err)
{
	if (*v == 0)
		*v = def;
	if (*v > ceiling)
		return rv_err_set(err, -E2BIG, "remote write: %s %zu is past the "
				  "ceiling of %zu", what, *v, ceiling);
	return 0;
}

static int resolve_limits(struct rv_rw_limits *lim, struct rv_err *err)
{
	int rc;

	rc = limit_or_default(&lim->max_series, RV_RW_DEF_SERIES,
			      RV_RW_MAX_SERIES, "max_series", err);
	if (rc == 0)
		rc = limit_or_default(&lim->max_samples, RV_RW_DEF_SAMPLES,
				      RV_RW_MAX_SAMPLES, "max_samples", err);
	if (rc == 0)
		rc = limit_or_default(&lim->max_labels, RV_RW_DEF_LABELS,
				      RV_RW_MAX_LABELS, "max_labels", err);
	if (rc == 0)
		rc = limit_or_default(&lim->max_label_bytes, RV_RW_DEF_LABEL_BYTES,
				      RV_RW_MAX_LABEL_BYTES, "max_label_bytes", err);
	return rc;
}

/* The largest WriteRequest the limits allow, packed. */
static size_t pb_bound(const struct rv_rw_limits *lim)
{
	return lim->max_series * RV_RW_SERIES_OVERHEAD +
	       lim->max_labels * RV_RW_LABEL_OVERHEAD + lim->max_label_bytes +
	       lim->max_samples * RV_RW_SAMPLE_BYTES;
}

int rv_rw_new(const struct rv_rw_limits *lim, struct rv_rw **out,
	      struct rv_err *err)
{
	struct rv_rw *w;
	int rc;

	*out = NULL;
	w = calloc(1, sizeof *w);
	if (w == NULL)
		return rv_err_set(err, -ENOMEM, "remote write: out of memory");
	if (lim != NULL)
		w->lim = *lim;
	rc = resolve_limits(&w->lim, err);
	if (rc < 0) {
		free(w);
		return rc;
	}
	w->series = calloc(w->lim.max_series, sizeof *w->series);
	w->series_p = calloc(w->lim.max_series, sizeof *w->series_p);
	w->labels = calloc(w->lim.max_labels, sizeof *w->labels);
	w->labels_p = calloc(w->lim.max_labels, sizeof *w->labels_p);
	w->sorted = calloc(w->lim.max_labels, sizeof *w->sorted);
	w->samples = calloc(w->lim.max_samples, sizeof *w->samples);
	w->samples_p = calloc(w->lim.max_samples, sizeof *w->samples_p);
	w->text_cap = w->lim.max_label_bytes + 2 * w->lim.max_labels;
	w->text = malloc(w->text_cap);
	w->pb_cap = pb_bound(&w->lim);
	w->pb = malloc(w->pb_cap);
	w->out_max = snappy_max_compressed_length(w->pb_cap);
	if (!w->series || !w->series_p || !w->labels || !w->labels_p ||
	    !w->sorted || !w->samples || !w->samples_p || !w->text || !w->pb) {
		rc = rv_err_set(err, -ENOMEM, "remote write: out of memory for "
				"a request of %zu series, %zu samples",
				w->lim.max_series, w->lim.max_samples);
		rv_rw_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void rv_rw_free(struct rv_rw *w)
{
	if (w == NULL)
		return;
	free(w->series);
	free(w->series_p);
	free(w->labels);
	free(w->labels_p);
	free(w->sorted);
	free(w->samples);
	free(w->samples_p);
	free(w->text);
	free(w->pb);
	free(w);
}

void rv_rw_reset(struct rv_rw *w)
{
	w->nseries = w->nlabels = w->nsamples = w->ntext = w->label_bytes = 0;
}

size_t rv_rw_nseries(const struct rv_rw *w)
{
	return w->nseries;
}

size_t rv_rw_nsamples(const struct rv_rw *w)
{
	return w->nsamples;
}

size_t rv_rw_out_max(const struct rv_rw *w)
{
	return w->out_max;
}

/* [a-zA-Z_][a-zA-Z0-9_]* for a label name; ':' allowed too for a metric. */
static int valid_name(const char *s, int metric)
{
	size_t i;

	if (s[0] == '\0')
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		char c = s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 c == '_' || (metric && c == ':') ||
			 (i > 0 && c >= '0' && c <= '9');
		if (!ok)
			return 0;
	}
	return 1;
}

/* Where s stops being UTF-8 (a protobuf string must be; receivers refuse
 * the whole request otherwise), or (size_t)-1 when it is valid. */
static size_t bad_utf8_at(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (p[i] != '\0') {
		n = rv_utf8_len(p + i);
		if (n == 0)
			return i;
		i += n;
	}
	return (size_t)-1;
}

/* Checks one label's name and value (the metric name in `__name__`). */
static int check_label(const struct rv_rw_label *l, const struct rv_rw_ctx *ctx,
		       struct rv_err *err)
{
	size_t at;

	if (l->name == NULL || l->value == NULL)
		return rv_err_set(err, -EINVAL, "remote write: series %.*s: a label "
				  "with a NULL %s", RV_RW_NAME_SHOWN, ctx->metric,
				  l->name == NULL ? "name" : "value");
	at = bad_utf8_at(l->value);
	if (at != (size_t)-1)
		return rv_err_set(err, -EINVAL, "remote write: series %.*s: the "
				  "value of label \"%.*s\" is not UTF-8 (byte %zu)",
				  RV_RW_NAME_SHOWN, ctx->metric, RV_RW_NAME_SHOWN,
				  l->name, at);
	if (strcmp(l->name, RV_RW_METRIC_LABEL) == 0) {
		if (l->value[0] != '\0' && !valid_name(l->value, 1))
			return rv_err_set(err, -EINVAL, "remote write: metric name "
					  "\"%.*s\" is not valid (want "
					  "[a-zA-Z_:][a-zA-Z0-9_:]*)",
					  RV_RW_NAME_SHOWN, l->value);
		return 0;
	}
	if (!valid_name(l->name, 0))
		return rv_err_set(err, -EINVAL, "remote write: series %.*s: label "
				  "name \"%.*s\" is not valid (want "
				  "[a-zA-Z_][a-zA-Z0-9_]*)", RV_RW_NAME_SHOWN,
				  ctx->metric, RV_RW_NAME_SHOWN, l->name);
	if (l->name[0] == '_' && l->name[1] == '_')
		return rv_err_set(err, -EINVAL, "remote write: series %.*s: label "
				  "name \"%.*s\" is reserved (names starting "
				  "with __ other than __name__)", RV_RW_NAME_SHOWN,
				  ctx->metric, RV_RW_NAME_SHOWN, l->name);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct rv_rw_label *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static int by_time(const void *a, const void *b)
{
	const Prometheus__Sample *const *x = a, *const *y = b;

	return ((*x)->timestamp > (*y)->timestamp) -
	       ((*x)->timestamp < (*y)->timestamp);
}

/*
 * Checks every label, sorts them by name into w->sorted and refuses
 * duplicates; *kept and *bytes get the labels with a value and the bytes
 * of their names and values.
 */
static int sort_labels(struct rv_rw *w, const struct rv_rw_label *labels,
		       size_t n, const struct rv_rw_ctx *ctx, size_t *kept,
		       size_t *bytes, struct rv_err *err)
{
	int has_metric = 0, rc;
	size_t i;

	if (n > w->lim.max_labels)
		return rv_err_set(err, -E2BIG, "remote write: series %.*s has %zu "
				  "labels, a request holds at most %zu (max_labels)",
				  RV_RW_NAME_SHOWN, ctx->metric, n, w->lim.max_labels);
	for (i = 0; i < n; i++) {
		rc = check_label(&labels[i], ctx, err);
		if (rc < 0)
			return rc;
		w->sorted[i] = &labels[i];
	}
	qsort(w->sorted, n, sizeof *w->sorted, by_name);
	*kept = *bytes = 0;
	for (i = 0; i < n; i++) {
		const struct rv_rw_label *l = w->sorted[i];

		if (i > 0 && strcmp(w->sorted[i - 1]->name, l->name) == 0)
			return rv_err_set(err, -EINVAL, "remote write: series %.*s: "
					  "label \"%.*s\" given twice", RV_RW_NAME_SHOWN,
					  ctx->metric, RV_RW_NAME_SHOWN, l->name);
		if (l->value[0] == '\0')
			continue;   /* an empty value is no label (the spec) */
		has_metric |= strcmp(l->name, RV_RW_METRIC_LABEL) == 0;
		(*kept)++;
		*bytes += strlen(l->name) + strlen(l->value);
	}
	if (!has_metric)
		return rv_err_set(err, -EINVAL, "remote write: a series without "
				  "a metric name (label __name__)");
	return 0;
}

/* -E2BIG naming the limit when the series does not fit. */
static int check_room(const struct rv_rw *w, size_t kept, size_t bytes,
		      size_t nsamples, const struct rv_rw_ctx *ctx,
		      struct rv_err *err)
{
	const char *what = NULL;
	size_t limit = 0;

	if (w->nseries + 1 > w->lim.max_series)
		what = "series (max_series)", limit = w->lim.max_series;
	else if (w->nlabels + kept > w->lim.max_labels)
		what = "labels (max_labels)", limit = w->lim.max_labels;
	else if (w->label_bytes + bytes > w->lim.max_label_bytes)
		what = "bytes of label names and values (max_label_bytes)",
		limit = w->lim.max_label_bytes;
	else if (w->nsamples + nsamples > w->lim.max_samples)
		what = "samples (max_samples)", limit = w->lim.max_samples;
	if (what == NULL)
		return 0;
	return rv_err_set(err, -E2BIG, "remote write: series %.*s does not fit: "
			  "the request holds at most %zu %s; send it and start "
			  "another", RV_RW_NAME_SHOWN, ctx->metric, limit, what);
}

/* Copies the samples after the request's, sorted by time; refuses two at
 * one timestamp. Counts nothing: the caller commits. */
static int put_samples(struct rv_rw *w, const struct rv_rw_sample *samples,
		       size_t n, const struct rv_rw_ctx *ctx, struct rv_err *err)
{
	Prometheus__Sample **p = w->samples_p + w->nsamples;
	size_t i;

	for (i = 0; i < n; i++) {
		Prometheus__Sample *s = &w->samples[w->nsamples + i];

		prometheus__sample__init(s);
		/* -0 becomes 0 here, on purpose: protobuf-c leaves out a value
		 * equal to 0 and the receiver reads a missing one as +0 */
		s->value = samples[i].value == 0 ? 0.0 : samples[i].value;
		s->timestamp = samples[i].ts_ms;
		p[i] = s;
	}
	qsort(p, n, sizeof *p, by_time);
	for (i = 1; i < n; i++)
		if (p[i - 1]->timestamp == p[i]->timestamp)
			return rv_err_set(err, -EINVAL, "remote write: series %.*s: "
					  "two samples at timestamp %lld ms",
					  RV_RW_NAME_SHOWN, ctx->metric,
					  (long long)p[i]->timestamp);
	return 0;
}

/* Copies s with its NUL into the label text; returns where it lies. */
static char *put_text(struct rv_rw *w, const char *s)
{
	size_t n = strlen(s) + 1;
	char *at = w->text + w->ntext;

	memcpy(at, s, n);
	w->ntext += n;
	return at;
}

/* Copies the kept labels (sorted, values not empty) after the request's. */
static void put_labels(struct rv_rw *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct rv_rw_label *l = w->sorted[i];
		Prometheus__Label *d;

		if (l->value[0] == '\0')
			continue;
		d = &w->labels[w->nlabels];
		prometheus__label__init(d);
		d->name = put_text(w, l->name);
		d->value = put_text(w, l->value);
		w->label_bytes += strlen(l->name) + strlen(l->value);
		w->labels_p[w->nlabels++] = d;
	}
}

/* The metric name for messages about the series (a valid one only). */
static const char *metric_of(const struct rv_rw_label *labels, size_t n)
{
	size_t i;

	for (i = 0; labels != NULL && i < n; i++)
		if (labels[i].name != NULL && labels[i].value != NULL &&
		    strcmp(labels[i].name, RV_RW_METRIC_LABEL) == 0 &&
		    valid_name(labels[i].value, 1))
			return labels[i].value;
	return "(no valid __name__)";
}

int rv_rw_add(struct rv_rw *w, const struct rv_rw_label *labels, size_t nlabels,
	      const struct rv_rw_sample *samples, size_t nsamples,
	      struct rv_err *err)
{
	struct rv_rw_ctx ctx = { metric_of(labels, nlabels) };
	Prometheus__TimeSeries *ts;
	size_t kept = 0, bytes = 0, first_label = w->nlabels;
	int rc;

	if ((labels == NULL && nlabels > 0) || (samples == NULL && nsamples > 0))
		return rv_err_set(err, -EINVAL, "remote write: NULL labels or samples");
	rc = sort_labels(w, labels, nlabels, &ctx, &kept, &bytes, err);
	if (rc < 0)
		return rc;
	if (nsamples == 0)
		return rv_err_set(err, -EINVAL, "remote write: series %.*s has no "
				  "sample", RV_RW_NAME_SHOWN, ctx.metric);
	rc = check_room(w, kept, bytes, nsamples, &ctx, err);
	if (rc == 0)
		rc = put_samples(w, samples, nsamples, &ctx, err);
	if (rc < 0)
		return rc;
	put_labels(w, nlabels);
	ts = &w->series[w->nseries];
	prometheus__time_series__init(ts);
	ts->n_labels = kept;
	ts->labels = w->labels_p + first_label;
	ts->n_samples = nsamples;
	ts->samples = w->samples_p + w->nsamples;
	w->nsamples += nsamples;
	w->series_p[w->nseries++] = ts;
	return 0;
}

int rv_rw_add_stale(struct rv_rw *w, const struct rv_rw_label *labels,
		    size_t nlabels, int64_t ts_ms, struct rv_err *err)
{
	struct rv_rw_sample s = { rv_rw_stale_nan(), ts_ms };

	return rv_rw_add(w, labels, nlabels, &s, 1, err);
}

int rv_rw_encode(struct rv_rw *w, void *out, size_t cap, size_t *len,
		 struct rv_err *err)
{
	Prometheus__WriteRequest req = PROMETHEUS__WRITE_REQUEST__INIT;
	size_t n, need, outlen = cap;
	snappy_status st;

	*len = 0;
	req.n_timeseries = w->nseries;
	req.timeseries = w->nseries > 0 ? w->series_p : NULL;
	n = prometheus__write_request__get_packed_size(&req);
	if (n > w->pb_cap)   /* pb_bound is wrong: a bug, not the input */
		return rv_err_set(err, -EIO, "remote write: request of %zu bytes "
				  "past its bound of %zu", n, w->pb_cap);
	n = prometheus__write_request__pack(&req, w->pb);
	need = snappy_max_compressed_length(n);
	if (cap < need)
		return rv_err_set(err, -ENOSPC, "remote write: an output buffer of "
				  "%zu bytes is too small for this request (%zu "
				  "needed)", cap, need);
	st = snappy_compress((const char *)w->pb, n, out, &outlen);
	if (st != SNAPPY_OK)
		return rv_err_set(err, -EIO, "remote write: snappy compression "
				  "failed (status %d)", (int)st);
	*len = outlen;
	return 0;
}
