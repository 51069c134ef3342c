/*
 * promapi.h - a reader of the Prometheus HTTP API: the client of the four
 * endpoints `reveal fleet` reads the agents' summaries through, and the
 * parser of their JSON answers.
 *
 * Only the standard API is used, so the reader works against every engine
 * that serves it (Prometheus, VictoriaMetrics, Mimir, Thanos, Cortex):
 * /api/v1/query_range, /api/v1/query, /api/v1/series (POST
 * application/x-www-form-urlencoded: selectors can be long) and
 * /api/v1/label/<name>/values (GET: Prometheus serves it on GET only).
 * Times go out as Unix seconds with millisecond decimals.
 *
 * Callers: fleet/ (`reveal fleet`, its --serve loop), bench/fleet_read.c.
 *
 * Ownership: a struct rv_prom_result owns everything it points to (one
 * allocation, freed by rv_prom_result_fini); its strings stay valid until
 * then. Answers are read into a buffer of at most max_body_bytes that the
 * reader keeps for the next request; parsing takes about four times the
 * answer's size more while it runs (base/json.h's document), then the
 * result: 16 bytes a point plus the labels.
 *
 * Threads: an rv_prom (one libcurl handle, its connection kept alive) is
 * used by one thread at a time; make one per thread. rv_prom_parse is
 * reentrant.
 *
 * Errors: 0 or a negative errno, the detail in err:
 *  - the server not reached: -ECONNREFUSED, -ETIMEDOUT or -EIO with
 *    "<url>: <libcurl's message>";
 *  - an API error answer ("status":"error", whatever the HTTP status):
 *    the code its errorType maps to (bad_data and VictoriaMetrics' 400
 *    and 422: -EINVAL; timeout, 504: -ETIMEDOUT; canceled: -ECANCELED;
 *    not_found, 404: -ENOENT; unavailable, 429, 503: -EAGAIN;
 *    not_acceptable, 406: -ENOTSUP; execution, internal and others:
 *    -EIO) with its errorType and error text;
 *  - another HTTP status of 300 and more: the code the status maps to the
 *    same way (401, 403: -EACCES) with "HTTP <code>" and the printable
 *    start of the body (at most 200 bytes);
 *  - an answer past a limit: -E2BIG (the body is not read further);
 *  - JSON that is malformed, or not of the shape the API documents
 *    (a wrong resultType, timestamps not increasing in a series, a value
 *    that is not a number in a string, a label without a string value):
 *    -EBADMSG naming the place ("data.result[3].values[17][0]") or the
 *    line and column;
 *  - -ENOMEM; -EINVAL for bad arguments.
 * Warnings of an answer are kept in the result, never dropped.
 *
 * Non-goals: native histograms (refused as -EBADMSG), exemplars, the
 * metadata and admin endpoints, remote read.
 */
#ifndef RV_REMOTE_PROMAPI_H
#define RV_REMOTE_PROMAPI_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "remote/httpc.h"

/* Defaults (a 0 in struct rv_prom_limits) and ceilings (rv_prom_new
 * refuses more with -E2BIG). The body ceiling is base/json.h's. */
enum {
	RV_PROM_DEF_BODY_BYTES = 64 << 20,
	RV_PROM_DEF_SERIES = 100000,
	RV_PROM_DEF_POINTS = 8 << 20,
	RV_PROM_MAX_BODY_BYTES = 256 << 20,
	RV_PROM_MAX_SERIES = 16 << 20,
	RV_PROM_MAX_POINTS = 64 << 20,
};

struct rv_prom_limits {
	size_t max_body_bytes;  /* 0: RV_PROM_DEF_BODY_BYTES; answer after decoding */
	size_t max_series;      /* 0: RV_PROM_DEF_SERIES; also label values */
	size_t max_points;      /* 0: RV_PROM_DEF_POINTS; all series together */
};

/* Which endpoint an answer comes from (what rv_prom_parse expects). */
enum rv_prom_kind {
	RV_PROM_QUERY_RANGE,    /* a matrix */
	RV_PROM_QUERY,          /* a vector, a scalar, or a matrix (a range selector) */
	RV_PROM_SERIES,         /* a list of label sets */
	RV_PROM_LABEL_VALUES,   /* a list of strings */
};

/* What the answer held. */
enum rv_prom_type {
	RV_PROM_MATRIX,         /* series with their points */
	RV_PROM_VECTOR,         /* series with one point each */
	RV_PROM_SCALAR,         /* one series without labels, one point */
	RV_PROM_LABELSETS,      /* series with labels and no points */
	RV_PROM_STRINGS,        /* values[] */
};

struct rv_prom_label {
	const char *name;       /* never NULL nor empty; no NUL inside */
	const char *value;      /* never NULL; may be "" */
};

struct rv_prom_series {
	const struct rv_prom_label *labels;  /* as the answer lists them; names unique */
	size_t nlabels;
	const double *t;        /* Unix seconds, strictly increasing */
	const double *v;        /* any double: "NaN", "+Inf", "-Inf" included */
	size_t npoints;
};

struct rv_prom_result {
	enum rv_prom_type type;
	struct rv_prom_series *series;
	size_t nseries;
	size_t npoints;         /* all series together */
	const char **values;    /* RV_PROM_STRINGS: the label values */
	size_t nvalues;
	const char **warnings;  /* the answer's "warnings" */
	size_t nwarnings;
	int partial;            /* "isPartial": true (VictoriaMetrics cluster:
	                         * a storage node did not answer); a warning too */
	void *mem;              /* the one allocation; private */
};

/* What one reader did since rv_prom_new. */
struct rv_prom_stats {
	uint64_t requests;      /* sent */
	uint64_t failed;        /* of them, those that returned an error */
	uint64_t body_bytes;    /* answers' bytes after decoding */
	uint64_t wire_bytes;    /* answers' bytes as received (compressed) */
	double seconds;         /* spent in requests, parsing included */
};

/* The value of label name in s, or NULL when s has no such label. Linear
 * in the labels. */
const char *rv_prom_label(const struct rv_prom_series *s, const char *name);

/* Frees what r holds and zeroes it; r may be NULL or already empty. */
void rv_prom_result_fini(struct rv_prom_result *r);

/*
 * Parses one API answer body[0..len) of an endpoint of kind into *out,
 * bounded by lim (NULL: the defaults). out must be zeroed ({ 0 }) or hold
 * an earlier result, which is freed first. Returns 0, or (errors above)
 * the code of an API error answer, -EBADMSG, -E2BIG or -ENOMEM; on error
 * *out is empty. Allocates only the result (and the JSON document while
 * parsing). Reentrant.
 */
int rv_prom_parse(const char *body, size_t len, enum rv_prom_kind kind,
		  const struct rv_prom_limits *lim, struct rv_prom_result *out,
		  struct rv_err *err);

struct rv_prom;

/*
 * A reader of the API at o->url (the base, as "http://host:9090" or
 * "http://vmselect:8481/select/0/prometheus": the endpoints' paths are
 * appended), with o's headers, auth, TLS and timeout, bounded by lim
 * (NULL: the defaults). Calls rv_httpc_global_init. Connects only at the
 * first request. Returns 0, -EINVAL (a setting, named), -E2BIG (a limit
 * past its ceiling) or -ENOMEM/-EIO. Free *out with rv_prom_free.
 */
int rv_prom_new(const struct rv_httpc_opts *o, const struct rv_prom_limits *lim,
		struct rv_prom **out, struct rv_err *err);

/* Closes the connection and frees p; p may be NULL. */
void rv_prom_free(struct rv_prom *p);

/* Whether to ask for compressed answers (Accept-Encoding: gzip and
 * whatever else libcurl decodes); on by default. */
void rv_prom_set_compression(struct rv_prom *p, int on);

/* p's counters so far. */
void rv_prom_stats(const struct rv_prom *p, struct rv_prom_stats *out);

/*
 * The requests. Each sends one request, waits for the answer (o's
 * timeout) and parses it into *out as rv_prom_parse does. query and
 * match are PromQL (a selector for match; NULL or "" for label values
 * means all series); start <= end, step >= 0.001 s, all finite (-EINVAL
 * otherwise). label must be a name of [a-zA-Z_][a-zA-Z0-9_]*.
 */
int rv_prom_query_range(struct rv_prom *p, const char *query, double start,
			double end, double step, struct rv_prom_result *out,
			struct rv_err *err);
int rv_prom_query(struct rv_prom *p, const char *query, double t,
		  struct rv_prom_result *out, struct rv_err *err);
int rv_prom_series(struct rv_prom *p, const char *match, double start,
		   double end, struct rv_prom_result *out, struct rv_err *err);
int rv_prom_label_values(struct rv_prom *p, const char *label, const char *match,
			 double start, double end, struct rv_prom_result *out,
			 struct rv_err *err);

#endif
