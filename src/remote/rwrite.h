/*
 * rwrite.h - one Prometheus remote-write 1.0 request, built and encoded.
 *
 * The agent will push its channels to a remote-write receiver (issue 16);
 * this is the part that needs no network: series go in as label
 * name/value pairs plus samples, and come out as the request body the
 * specification wants, a protobuf WriteRequest (src/remote/remote_write.proto)
 * compressed with snappy's block format. Each series is checked and put in
 * the order the specification asks for when it is added:
 *  - labels sorted by name (byte order), names unique, `__name__` present
 *    with a metric name matching [a-zA-Z_:][a-zA-Z0-9_:]*, other names
 *    matching [a-zA-Z_][a-zA-Z0-9_]* and not starting with "__" (reserved),
 *    values valid UTF-8 (a receiver refuses a whole request otherwise);
 *  - labels with an empty value left out (the specification's "a label with
 *    an empty value is a label that does not exist");
 *  - samples in timestamp order (milliseconds since the epoch), at most one
 *    per timestamp; any double value, NaN and the stale marker included
 *    (-0 is sent as 0: protobuf-c leaves zeros out).
 * All memory is taken by rv_rw_new, sized by the limits; adding, encoding
 * and rv_rw_reset allocate nothing (libsnappy's compressor takes its own
 * working table on each call). Not thread safe: one request per thread.
 *
 * Non-goals: HTTP (the sender comes later), metadata, exemplars,
 * histograms, remote-write 2.0.
 */
#ifndef RV_REMOTE_RWRITE_H
#define RV_REMOTE_RWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* The HTTP headers a remote-write 1.0 request carries (the sender sets
 * them; the body is what rv_rw_encode writes). */
#define RV_RW_CONTENT_ENCODING "snappy"
#define RV_RW_CONTENT_TYPE     "application/x-protobuf"
#define RV_RW_VERSION_HEADER   "X-Prometheus-Remote-Write-Version"
#define RV_RW_VERSION          "0.1.0"
#define RV_RW_USER_AGENT       "reveal/" REVEAL_VERSION

/* The label that holds a series' metric name. */
#define RV_RW_METRIC_LABEL "__name__"

/* The staleness marker of Prometheus: a NaN with exactly these bits says
 * "this series ended here" (any other NaN is an ordinary value). */
#define RV_RW_STALE_NAN_BITS UINT64_C(0x7ff0000000000002)

/* Defaults (a 0 in struct rv_rw_limits) and ceilings (past them rv_rw_new
 * says -E2BIG): a request holds this many series, samples (all series
 * together), labels and bytes of label names and values (without NULs). */
enum {
	RV_RW_DEF_SERIES = 2000,
	RV_RW_DEF_SAMPLES = 10000,
	RV_RW_DEF_LABELS = 20000,
	RV_RW_DEF_LABEL_BYTES = 1 << 20,
	RV_RW_MAX_SERIES = 1 << 20,
	RV_RW_MAX_SAMPLES = 1 << 24,
	RV_RW_MAX_LABELS = 1 << 22,
	RV_RW_MAX_LABEL_BYTES = 1 << 28,
};

struct rv_rw_limits {
	size_t max_series;       /* 0: RV_RW_DEF_SERIES */
	size_t max_samples;      /* 0: RV_RW_DEF_SAMPLES */
	size_t max_labels;       /* 0: RV_RW_DEF_LABELS */
	size_t max_label_bytes;  /* 0: RV_RW_DEF_LABEL_BYTES */
};

/* One label as given by the caller (borrowed: copied by rv_rw_add). */
struct rv_rw_label {
	const char *name;
	const char *value;
};

struct rv_rw_sample {
	double value;
	int64_t ts_ms;           /* milliseconds since the Unix epoch */
};

struct rv_rw;

/*
 * A new, empty request sized by lim (NULL: every default). Returns 0,
 * -E2BIG (a limit past its ceiling, named in err) or -ENOMEM. The caller
 * frees *out with rv_rw_free.
 */
int rv_rw_new(const struct rv_rw_limits *lim, struct rv_rw **out,
	      struct rv_err *err);

/* Frees w; w may be NULL. */
void rv_rw_free(struct rv_rw *w);

/* Empties the request for the next one; keeps every allocation. */
void rv_rw_reset(struct rv_rw *w);

/*
 * Adds one series: labels[0..nlabels) (the metric name as `__name__`)
 * and samples[0..nsamples) in any order; both are copied. All or nothing:
 * on an error the request is as before. Returns 0, -EINVAL (a bad or
 * reserved name, a value not UTF-8, a duplicate label, no `__name__`, no
 * sample, two samples at one timestamp, a NULL name or value; err names
 * the series and the label), or -E2BIG (the
 * request is full: err names the limit; encode and send what it holds,
 * rv_rw_reset, and add the series again).
 */
int rv_rw_add(struct rv_rw *w, const struct rv_rw_label *labels, size_t nlabels,
	      const struct rv_rw_sample *samples, size_t nsamples,
	      struct rv_err *err);

/* Adds the series labels with one stale marker at ts_ms (rv_rw_add's
 * returns): Prometheus then ends the series there instead of letting it
 * linger for five minutes. */
int rv_rw_add_stale(struct rv_rw *w, const struct rv_rw_label *labels,
		    size_t nlabels, int64_t ts_ms, struct rv_err *err);

/* The stale marker as a double, and whether v has exactly its bits. */
double rv_rw_stale_nan(void);
int rv_rw_is_stale(double v);

/* Series and samples the request holds now. */
size_t rv_rw_nseries(const struct rv_rw *w);
size_t rv_rw_nsamples(const struct rv_rw *w);

/* The largest body a request of w's limits encodes to: an output buffer
 * of this many bytes always suffices for rv_rw_encode. */
size_t rv_rw_out_max(const struct rv_rw *w);

/*
 * Encodes the request (protobuf, then snappy block format) into out, which
 * the caller owns and may reuse for every request; *len gets the body's
 * length. The request stays as it is (rv_rw_reset empties it). Returns 0,
 * or -ENOSPC when cap is too small for this request (err gives the size
 * needed; rv_rw_out_max always suffices), or -EIO should snappy fail.
 */
int rv_rw_encode(struct rv_rw *w, void *out, size_t cap, size_t *len,
		 struct rv_err *err);

#endif
