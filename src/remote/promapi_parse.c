/*
 * promapi_parse.c - the Prometheus HTTP API's JSON answers as results
 * (promapi.h): rv_prom_parse, rv_prom_label, rv_prom_result_fini.
 *
 * The answer is read by base/json.h (strict RFC 8259, valid UTF-8, unique
 * member names: so a series' labels are unique without a check here) into
 * a document, which is then walked twice: once to size the result from
 * the arrays' lengths alone, then to check every item and copy it into
 * the result's one allocation. The generic reader was measured fast and
 * small enough for the answers `reveal fleet` reads (1,000 series x 360
 * points, 9.8 MB: 0.15 s, 37 MB of document), so there is no second JSON
 * parser to keep correct. Nothing of the document outlives the call.
 *
 * Layout of the allocation: t[points], v[points], series[], labels[],
 * string pointers (values, warnings), then the characters.
 */
#include "remote/promapi.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/strparse.h"
#include "base/utf8.h"
#include "remote/promapi_int.h"

enum {
	SHOW_MAX = 64,          /* bytes of an answer's string quoted in a message */
	API_TEXT_MAX = 400,     /* bytes of an API error's text kept */
	WHERE_MAX = 64,         /* "data.result[123456].values" */
};

#define PARTIAL_TEXT "isPartial: the answer misses the data of storage nodes that did not answer"

/* errorType of Prometheus' API (web/api/v1/api.go) -> errno. */
static const struct {
	const char *type;
	int code;
} api_types[] = {
	{ "bad_data", -EINVAL },
	{ "timeout", -ETIMEDOUT },
	{ "canceled", -ECANCELED },
	{ "not_found", -ENOENT },
	{ "unavailable", -EAGAIN },
	{ "not_acceptable", -ENOTSUP },
	{ "execution", -EIO },
	{ "internal", -EIO },
};

/* HTTP status -> errno (VictoriaMetrics puts the status in errorType). */
static const struct {
	long status;
	int code;
} http_codes[] = {
	{ 400, -EINVAL }, { 401, -EACCES }, { 403, -EACCES }, { 404, -ENOENT },
	{ 406, -ENOTSUP }, { 408, -ETIMEDOUT }, { 413, -E2BIG }, { 422, -EINVAL },
	{ 429, -EAGAIN }, { 503, -EAGAIN }, { 504, -ETIMEDOUT },
};

struct sizes {
	size_t series, labels, points, strings, chars;
};

/* Where the next item of each kind goes in the result's allocation. */
struct fill {
	struct rv_err *err;
	double *t, *v;
	struct rv_prom_label *l;
	const char **s;
	char *c;
};

int rv_prom_http_errno(long status)
{
	for (size_t i = 0; i < sizeof(http_codes) / sizeof(http_codes[0]); i++)
		if (http_codes[i].status == status)
			return http_codes[i].code;
	return status >= 400 && status < 500 ? -EINVAL : -EIO;
}

size_t rv_prom_printable(char *dst, size_t cap, const char *s, size_t len)
{
	size_t i = 0, o = 0;

	while (i < len && s[i] != '\0' && o + 1 < cap) {
		const unsigned char *u = (const unsigned char *)s + i;
		unsigned char seq[5] = { 0 };   /* NUL-ended: s need not be */
		size_t n;

		memcpy(seq, u, len - i < 4 ? len - i : 4);
		n = rv_utf8_len(seq);
		if (n > 1 && o + n < cap) {
			memcpy(dst + o, u, n);
			o += n;
			i += n;
			continue;
		}
		dst[o++] = *u < ' ' || *u == 0x7F ? ' ' : *u >= 0x80 ? '?' : (char)*u;
		i++;
	}
	dst[o] = '\0';
	return i;
}

/* A string of the answer fit for a message, in buf[SHOW_MAX]. */
static const char *show(char *buf, const char *s)
{
	rv_prom_printable(buf, SHOW_MAX, s, strlen(s));
	return buf;
}

static int __attribute__((format(printf, 2, 3)))
bad(struct rv_err *err, const char *fmt, ...)
{
	char msg[RV_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rv_err_set(err, -EBADMSG, "%s", msg);
}

/* ------------------------------------------------------ status and shape */

static int api_errno(const char *type)
{
	const char *p = type, *end = type + strlen(type);
	uint64_t status;

	for (size_t i = 0; i < sizeof(api_types) / sizeof(api_types[0]); i++)
		if (!strcmp(api_types[i].type, type))
			return api_types[i].code;
	if (rv_str_u64(&p, end, &status) == 0 && p == end && status < 1000)
		return rv_prom_http_errno((long)status);
	return -EIO;
}

/* 0 for "status":"success"; the API error's code and text for "error". */
static int check_status(const struct rv_json *root, struct rv_err *err)
{
	const char *st = rv_json_str(rv_json_get(root, "status"), NULL);
	const char *type, *text;
	char tbuf[SHOW_MAX], xbuf[API_TEXT_MAX];

	if (rv_json_type(root) != RV_JSON_OBJECT)
		return bad(err, "answer: not a JSON object");
	if (!st)
		return bad(err, "answer: no \"status\" string");
	if (!strcmp(st, "success"))
		return 0;
	if (strcmp(st, "error"))
		return bad(err, "answer: status \"%s\" is neither success nor error",
			   show(tbuf, st));
	type = rv_json_str(rv_json_get(root, "errorType"), "");
	text = rv_json_str(rv_json_get(root, "error"), "");
	rv_prom_printable(xbuf, sizeof(xbuf), text, strlen(text));
	return rv_err_set(err, api_errno(type), "API error %s: %s",
			  *type ? show(tbuf, type) : "(no errorType)", xbuf);
}

static const char *kind_name(enum rv_prom_kind kind)
{
	static const char *const names[] = {
		[RV_PROM_QUERY_RANGE] = "query_range", [RV_PROM_QUERY] = "query",
		[RV_PROM_SERIES] = "series", [RV_PROM_LABEL_VALUES] = "label values",
	};
	return names[kind];
}

/* The list of a /series or label values answer: data, an array or null. */
static int locate_list(const struct rv_json *data, enum rv_prom_kind kind,
		       enum rv_prom_type *type, struct rv_err *err)
{
	enum rv_json_type t = rv_json_type(data);

	if (!data || (t != RV_JSON_ARRAY && t != RV_JSON_NULL))
		return bad(err, "data: not an array, as a %s answer has", kind_name(kind));
	*type = kind == RV_PROM_SERIES ? RV_PROM_LABELSETS : RV_PROM_STRINGS;
	return 0;
}

/* The type of a query answer and its items (data.result). */
static int locate(const struct rv_json *root, enum rv_prom_kind kind,
		  enum rv_prom_type *type, const struct rv_json **items, struct rv_err *err)
{
	const struct rv_json *data = rv_json_get(root, "data"), *res;
	const char *rt;
	char buf[SHOW_MAX];

	*items = data;
	if (kind == RV_PROM_SERIES || kind == RV_PROM_LABEL_VALUES)
		return locate_list(data, kind, type, err);
	if (rv_json_type(data) != RV_JSON_OBJECT)
		return bad(err, "data: not an object, as a %s answer has", kind_name(kind));
	rt = rv_json_str(rv_json_get(data, "resultType"), NULL);
	res = *items = rv_json_get(data, "result");
	if (!rt || !res)
		return bad(err, "data: no resultType string or no result");
	if (!strcmp(rt, "matrix"))
		*type = RV_PROM_MATRIX;
	else if (!strcmp(rt, "vector") && kind == RV_PROM_QUERY)
		*type = RV_PROM_VECTOR;
	else if (!strcmp(rt, "scalar") && kind == RV_PROM_QUERY)
		*type = RV_PROM_SCALAR;
	else
		return bad(err, "data.resultType \"%s\": not a number type a %s answers",
			   show(buf, rt), kind_name(kind));
	if (*type != RV_PROM_SCALAR && rv_json_type(res) != RV_JSON_ARRAY &&
	    rv_json_type(res) != RV_JSON_NULL)
		return bad(err, "data.result: not an array");
	return 0;
}

/* ------------------------------------------------------------- sizing */

static void measure_labels(const struct rv_json *obj, struct sizes *sz)
{
	size_t n = rv_json_len(obj);

	sz->labels += n;
	for (size_t i = 0; i < n; i++)
		sz->chars += rv_json_key_len(obj, i) + rv_json_str_len(rv_json_at(obj, i)) + 2;
}

static void measure_strings(const struct rv_json *arr, struct sizes *sz)
{
	size_t n = rv_json_len(arr);

	sz->strings += n;
	for (size_t i = 0; i < n; i++)
		sz->chars += rv_json_str_len(rv_json_at(arr, i)) + 1;
}

static int measure(const struct rv_json *root, enum rv_prom_type type,
		   const struct rv_json *items, const struct rv_prom_limits *lim,
		   struct sizes *sz, struct rv_err *err)
{
	size_t n = rv_json_len(items), nser = n;

	if (type == RV_PROM_SCALAR) {
		sz->series = sz->points = nser = 1;
	} else if (type == RV_PROM_STRINGS) {
		measure_strings(items, sz);
	} else {
		sz->series = n;
		for (size_t i = 0; i < n; i++) {
			const struct rv_json *it = rv_json_at(items, i);

			if (type == RV_PROM_LABELSETS) {
				measure_labels(it, sz);
				continue;
			}
			measure_labels(rv_json_get(it, "metric"), sz);
			sz->points += type == RV_PROM_VECTOR ? 1 :
				      rv_json_len(rv_json_get(it, "values"));
		}
	}
	measure_strings(rv_json_get(root, "warnings"), sz);
	if (rv_json_bool(rv_json_get(root, "isPartial"), 0) == 1) {
		sz->strings++;
		sz->chars += sizeof(PARTIAL_TEXT);
	}
	if (nser > lim->max_series)
		return rv_err_set(err, -E2BIG, "answer: %zu %s, more than the limit of %zu",
				  nser, type == RV_PROM_STRINGS ? "values" : "series",
				  lim->max_series);
	if (sz->points > lim->max_points)
		return rv_err_set(err, -E2BIG, "answer: %zu points, more than the limit of %zu",
				  sz->points, lim->max_points);
	return 0;
}

static int allocate(struct rv_prom_result *r, const struct sizes *sz, struct fill *f)
{
	size_t pts = sz->points * sizeof(double);
	size_t total = 2 * pts + sz->series * sizeof(struct rv_prom_series) +
		       sz->labels * sizeof(struct rv_prom_label) +
		       sz->strings * sizeof(char *) + sz->chars;
	char *m;

	if (total == 0)
		return 0;
	m = r->mem = malloc(total);
	if (!m)
		return rv_err_set(f->err, -ENOMEM, "answer: out of memory for %zu bytes", total);
	f->t = (double *)(void *)m;
	f->v = (double *)(void *)(m + pts);
	r->series = (struct rv_prom_series *)(void *)(m + 2 * pts);
	f->l = (struct rv_prom_label *)(void *)(r->series + sz->series);
	f->s = (const char **)(void *)(f->l + sz->labels);
	f->c = (char *)(f->s + sz->strings);
	r->values = f->s;
	return 0;
}

/* ------------------------------------------------------------- filling */

static const char *put_str(struct fill *f, const char *s, size_t len)
{
	char *d = f->c;

	memcpy(d, s, len);
	d[len] = '\0';
	f->c += len + 1;
	return d;
}

/* A string of the answer without NUL bytes (\u0000), copied. */
static int copy_str(struct fill *f, const struct rv_json *v, const char *where, size_t i,
		    const char **out)
{
	const char *s = rv_json_str(v, NULL);
	size_t len = rv_json_str_len(v);

	if (!s || strlen(s) != len)
		return bad(f->err, "%s[%zu]: not a string, or one with a NUL", where, i);
	*out = put_str(f, s, len);
	return 0;
}

static int fill_labels(struct fill *f, const struct rv_json *obj, const char *where,
		       struct rv_prom_series *s)
{
	size_t n = rv_json_len(obj);

	if (rv_json_type(obj) != RV_JSON_OBJECT)
		return bad(f->err, "%s: not an object of labels", where);
	s->labels = f->l;
	s->nlabels = n;
	for (size_t i = 0; i < n; i++) {
		const char *name = rv_json_key(obj, i);
		size_t len = rv_json_key_len(obj, i);
		struct rv_prom_label *l = f->l++;

		if (len == 0 || strlen(name) != len)
			return bad(f->err, "%s: label %zu: an empty name, or one with a NUL",
				   where, i + 1);
		l->name = put_str(f, name, len);
		if (copy_str(f, rv_json_at(obj, i), where, i, &l->value) < 0)
			return -EBADMSG;
	}
	return 0;
}

/* One [time, "value"] pair into *t, *v; j is its index in where
 * (SIZE_MAX: where is the pair itself). */
static int point(struct fill *f, const struct rv_json *pt, const char *where, size_t j,
		 double *t, double *v)
{
	const struct rv_json *a = rv_json_at(pt, 0), *b = rv_json_at(pt, 1);
	const char *s = rv_json_str(b, ""), *end = s + rv_json_str_len(b);
	char idx[32] = "", buf[SHOW_MAX];
	int shape_ok = rv_json_type(pt) == RV_JSON_ARRAY && rv_json_len(pt) == 2 &&
		       rv_json_type(a) == RV_JSON_NUMBER && rv_json_type(b) == RV_JSON_STRING;

	if (shape_ok && s != end && rv_str_double(&s, end, v) == 0 && s == end) {
		*t = rv_json_num(a, NAN);
		return 0;
	}
	if (j != SIZE_MAX)
		snprintf(idx, sizeof(idx), "[%zu]", j);
	if (!shape_ok)
		return bad(f->err, "%s%s: not a pair [time, \"value\"]", where, idx);
	return bad(f->err, "%s%s[1]: \"%s\" is not a number", where, idx,
		   show(buf, rv_json_str(b, "")));
}

static int fill_points(struct fill *f, const struct rv_json *arr, const char *where,
		       struct rv_prom_series *s)
{
	size_t n = rv_json_len(arr);

	if (rv_json_type(arr) != RV_JSON_ARRAY)
		return bad(f->err, "%s: not an array of points", where);
	s->t = f->t;
	s->v = f->v;
	s->npoints = n;
	for (size_t j = 0; j < n; j++) {
		if (point(f, rv_json_at(arr, j), where, j, f->t + j, f->v + j) < 0)
			return -EBADMSG;
		if (j > 0 && !(f->t[j] > f->t[j - 1]))
			return bad(f->err, "%s[%zu][0]: time %.3f is not after the one before, %.3f",
				   where, j, f->t[j], f->t[j - 1]);
	}
	f->t += n;
	f->v += n;
	return 0;
}

/* Item i of a matrix or vector result. */
static int fill_item(struct fill *f, const struct rv_json *it, enum rv_prom_type type,
		     size_t i, struct rv_prom_series *s)
{
	char where[WHERE_MAX];

	if (rv_json_type(it) != RV_JSON_OBJECT)
		return bad(f->err, "data.result[%zu]: not an object", i);
	if (rv_json_get(it, "histogram") || rv_json_get(it, "histograms"))
		return bad(f->err, "data.result[%zu]: native histograms are not supported", i);
	snprintf(where, sizeof(where), "data.result[%zu].metric", i);
	if (fill_labels(f, rv_json_get(it, "metric"), where, s) < 0)
		return -EBADMSG;
	if (type == RV_PROM_MATRIX) {
		snprintf(where, sizeof(where), "data.result[%zu].values", i);
		return fill_points(f, rv_json_get(it, "values"), where, s);
	}
	snprintf(where, sizeof(where), "data.result[%zu].value", i);
	s->t = f->t;
	s->v = f->v;
	s->npoints = 1;
	if (point(f, rv_json_get(it, "value"), where, SIZE_MAX, f->t++, f->v++) < 0)
		return -EBADMSG;
	return 0;
}

static int fill_result(struct fill *f, const struct rv_json *items, enum rv_prom_type type,
		       struct rv_prom_result *r)
{
	size_t n = rv_json_len(items);
	char where[WHERE_MAX];

	if (type == RV_PROM_SCALAR) {
		memset(r->series, 0, sizeof(*r->series));
		r->series[0].t = f->t;
		r->series[0].v = f->v;
		r->series[0].npoints = r->nseries = r->npoints = 1;
		return point(f, items, "data.result", SIZE_MAX, f->t, f->v);
	}
	for (size_t i = 0; i < n; i++) {
		const struct rv_json *it = rv_json_at(items, i);

		if (type == RV_PROM_STRINGS) {
			if (copy_str(f, it, "data", i, f->s++) < 0)
				return -EBADMSG;
			r->nvalues++;
			continue;
		}
		memset(&r->series[i], 0, sizeof(r->series[i]));
		if (type == RV_PROM_LABELSETS)
			snprintf(where, sizeof(where), "data[%zu]", i);
		if (type == RV_PROM_LABELSETS ? fill_labels(f, it, where, &r->series[i]) :
		    fill_item(f, it, type, i, &r->series[i]))
			return -EBADMSG;
		r->nseries++;
		r->npoints += r->series[i].npoints;
	}
	return 0;
}

static int fill_warnings(struct fill *f, const struct rv_json *root, struct rv_prom_result *r)
{
	const struct rv_json *w = rv_json_get(root, "warnings");
	enum rv_json_type t = rv_json_type(w);
	size_t n = rv_json_len(w);

	if (t != RV_JSON_NULL && t != RV_JSON_ARRAY)
		return bad(f->err, "warnings: not an array");
	r->warnings = f->s;
	for (size_t i = 0; i < n; i++, r->nwarnings++)
		if (copy_str(f, rv_json_at(w, i), "warnings", i, f->s++) < 0)
			return -EBADMSG;
	if (rv_json_bool(rv_json_get(root, "isPartial"), 0) == 1) {
		r->partial = 1;
		*f->s++ = put_str(f, PARTIAL_TEXT, sizeof(PARTIAL_TEXT) - 1);
		r->nwarnings++;
	}
	if (r->nwarnings == 0)
		r->warnings = NULL;
	return 0;
}

/* ----------------------------------------------------------------- API */

static int from_doc(const struct rv_json *root, enum rv_prom_kind kind,
		    const struct rv_prom_limits *lim, struct rv_prom_result *out,
		    struct rv_err *err)
{
	const struct rv_json *items = NULL;
	struct sizes sz = { 0 };
	struct fill f = { .err = err };
	enum rv_prom_type type = RV_PROM_MATRIX;
	int rc;

	if ((rc = check_status(root, err)) < 0 ||
	    (rc = locate(root, kind, &type, &items, err)) < 0 ||
	    (rc = measure(root, type, items, lim, &sz, err)) < 0 ||
	    (rc = allocate(out, &sz, &f)) < 0)
		return rc;
	out->type = type;
	if ((rc = fill_result(&f, items, type, out)) < 0 ||
	    (rc = fill_warnings(&f, root, out)) < 0)
		return rc;
	if (type != RV_PROM_STRINGS)
		out->values = NULL;
	if (out->nseries == 0)
		out->series = NULL;
	return 0;
}

void rv_prom_limits_resolve(const struct rv_prom_limits *lim, struct rv_prom_limits *out)
{
	*out = lim ? *lim : (struct rv_prom_limits){ 0 };
	if (!out->max_body_bytes)
		out->max_body_bytes = RV_PROM_DEF_BODY_BYTES;
	if (!out->max_series)
		out->max_series = RV_PROM_DEF_SERIES;
	if (!out->max_points)
		out->max_points = RV_PROM_DEF_POINTS;
}

int rv_prom_parse(const char *body, size_t len, enum rv_prom_kind kind,
		  const struct rv_prom_limits *lim, struct rv_prom_result *out,
		  struct rv_err *err)
{
	struct rv_prom_limits l;
	struct rv_json_doc *doc = NULL;
	struct rv_err jerr = { 0 };
	int rc;

	if (!out || (!body && len) || (unsigned)kind > RV_PROM_LABEL_VALUES)
		return rv_err_set(err, -EINVAL, "rv_prom_parse: bad arguments");
	rv_prom_result_fini(out);
	rv_prom_limits_resolve(lim, &l);
	if (len > l.max_body_bytes)
		return rv_err_set(err, -E2BIG, "answer: %zu bytes, more than the limit of %zu",
				  len, l.max_body_bytes);
	rc = rv_json_parse(body, len, "answer", &doc, &jerr);
	if (rc == -EINVAL)
		return rv_err_set(err, -EBADMSG, "malformed JSON: %s", jerr.msg);
	if (rc == -EFBIG)
		return rv_err_set(err, -E2BIG, "%s", jerr.msg);
	if (rc < 0)
		return rv_err_set(err, rc, "%s", rv_err_text(&jerr, rc));
	rc = from_doc(rv_json_root(doc), kind, &l, out, err);
	rv_json_doc_free(doc);
	if (rc < 0)
		rv_prom_result_fini(out);
	return rc;
}

int rv_prom_api_error(const char *body, size_t len, struct rv_err *err)
{
	struct rv_json_doc *doc = NULL;
	const struct rv_json *root;
	int rc = 0;

	if (!body || rv_json_parse(body, len, "answer", &doc, NULL) < 0)
		return 0;
	root = rv_json_root(doc);
	if (rv_json_type(root) == RV_JSON_OBJECT &&
	    !strcmp(rv_json_str(rv_json_get(root, "status"), ""), "error"))
		rc = check_status(root, err);
	rv_json_doc_free(doc);
	return rc;
}

const char *rv_prom_label(const struct rv_prom_series *s, const char *name)
{
	if (!s || !name)
		return NULL;
	for (size_t i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return NULL;
}

void rv_prom_result_fini(struct rv_prom_result *r)
{
	if (!r)
		return;
	free(r->mem);
	memset(r, 0, sizeof(*r));
}
