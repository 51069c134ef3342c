/*
 * promapi.c - the HTTP side of the Prometheus API reader (promapi.h): one
 * libcurl easy handle per reader, so its connection is kept alive between
 * requests; the form or query string and the answer in buffers kept for
 * the next request. The answers are parsed by promapi_parse.c.
 *
 * The answer's size is checked as it arrives (libcurl's write callback,
 * after decompression): past max_body_bytes the transfer is stopped, so a
 * runaway answer costs at most the limit.
 */
#include "remote/promapi.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "base/buf.h"
#include "base/clock.h"
#include "remote/promapi_int.h"

enum {
	URL_SHOW_MAX = 256,       /* bytes of a URL in a message */
	BODY_SHOW_MAX = 200,      /* bytes of an answer in a message */
	FORM_MAX_BYTES = 16 << 20, /* a request's parameters, escaped */
};

/* |time| accepted: beyond it a time is no Unix time (year 33658). */
#define TIME_MAX_S 1e12
/* Times go out with millisecond decimals: a shorter step would be 0. */
#define STEP_MIN_S 0.001

#define API "/api/v1"
#define USER_AGENT "reveal/" REVEAL_VERSION

struct rv_prom {
	CURL *curl;
	struct curl_slist *hdrs;
	char *base;                   /* o->url without a trailing '/' */
	struct rv_prom_limits lim;
	struct rv_buf form;           /* the parameters, escaped */
	struct rv_buf url;            /* the request's URL */
	struct rv_buf body;           /* the answer */
	int too_big, oom;             /* set by on_data */
	char errbuf[CURL_ERROR_SIZE];
	struct rv_prom_stats st;
};

static size_t on_data(char *ptr, size_t size, size_t n, void *arg)
{
	struct rv_prom *p = arg;
	size_t len = size * n;

	if (len > p->lim.max_body_bytes - p->body.len) {
		p->too_big = 1;
		return 0;
	}
	if (rv_buf_put(&p->body, ptr, len) < 0) {
		p->oom = 1;
		return 0;
	}
	return len;
}

static int check_limits(const struct rv_prom_limits *l, struct rv_err *err)
{
	if (l->max_body_bytes > RV_PROM_MAX_BODY_BYTES)
		return rv_err_set(err, -E2BIG, "max_body_bytes %zu: more than %d",
				  l->max_body_bytes, RV_PROM_MAX_BODY_BYTES);
	if (l->max_series > RV_PROM_MAX_SERIES)
		return rv_err_set(err, -E2BIG, "max_series %zu: more than %d",
				  l->max_series, RV_PROM_MAX_SERIES);
	if (l->max_points > RV_PROM_MAX_POINTS)
		return rv_err_set(err, -E2BIG, "max_points %zu: more than %d",
				  l->max_points, RV_PROM_MAX_POINTS);
	return 0;
}

/* The reader's own options, after rv_httpc_apply. */
static int own_options(struct rv_prom *p, struct rv_err *err)
{
	CURLcode rc = curl_easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, on_data);

	if (rc == CURLE_OK)
		rc = curl_easy_setopt(p->curl, CURLOPT_WRITEDATA, p);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(p->curl, CURLOPT_ERRORBUFFER, p->errbuf);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(p->curl, CURLOPT_USERAGENT, USER_AGENT);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(p->curl, CURLOPT_TCP_KEEPALIVE, 1L);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(p->curl, CURLOPT_MAXFILESIZE_LARGE,
				      (curl_off_t)p->lim.max_body_bytes);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(p->curl, CURLOPT_ACCEPT_ENCODING, "");
	if (rc != CURLE_OK)
		return rv_err_set(err, rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO,
				  "libcurl: %s", curl_easy_strerror(rc));
	return 0;
}

static int setup(struct rv_prom *p, const struct rv_httpc_opts *o, struct rv_err *err)
{
	size_t n;
	int rc;

	p->base = strdup(o->url);
	if (!p->base)
		return rv_err_set(err, -ENOMEM, "prometheus reader: out of memory");
	n = strlen(p->base);
	while (n > 0 && p->base[n - 1] == '/')
		p->base[--n] = '\0';
	p->curl = curl_easy_init();
	if (!p->curl)
		return rv_err_set(err, -EIO, "libcurl: curl_easy_init failed");
	p->hdrs = curl_slist_append(NULL, "Accept: application/json");
	if (!p->hdrs)
		return rv_err_set(err, -ENOMEM, "libcurl: no memory for a header");
	rc = rv_httpc_apply(p->curl, o, &p->hdrs, err);
	return rc < 0 ? rc : own_options(p, err);
}

int rv_prom_new(const struct rv_httpc_opts *o, const struct rv_prom_limits *lim,
		struct rv_prom **out, struct rv_err *err)
{
	struct rv_prom *p;
	int rc;

	if (!o || !out)
		return rv_err_set(err, -EINVAL, "rv_prom_new: bad arguments");
	*out = NULL;
	if ((rc = rv_httpc_check(o, err)) < 0 ||
	    (lim && (rc = check_limits(lim, err)) < 0) ||
	    (rc = rv_httpc_global_init(err)) < 0)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p)
		return rv_err_set(err, -ENOMEM, "prometheus reader: out of memory");
	rv_prom_limits_resolve(lim, &p->lim);
	rv_buf_init(&p->form, FORM_MAX_BYTES);
	rv_buf_init(&p->url, FORM_MAX_BYTES);
	rv_buf_init(&p->body, p->lim.max_body_bytes + 1);
	rc = setup(p, o, err);
	if (rc < 0) {
		rv_prom_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void rv_prom_free(struct rv_prom *p)
{
	if (!p)
		return;
	if (p->curl)
		curl_easy_cleanup(p->curl);
	curl_slist_free_all(p->hdrs);
	free(p->base);
	rv_buf_fini(&p->form);
	rv_buf_fini(&p->url);
	rv_buf_fini(&p->body);
	free(p);
}

void rv_prom_set_compression(struct rv_prom *p, int on)
{
	curl_easy_setopt(p->curl, CURLOPT_ACCEPT_ENCODING, on ? "" : NULL);
}

void rv_prom_stats(const struct rv_prom *p, struct rv_prom_stats *out)
{
	*out = p->st;
}

/* ------------------------------------------------------------ requests */

static void param(struct rv_prom *p, const char *name, const char *value)
{
	char *esc = curl_easy_escape(p->curl, value, 0);

	if (!esc) {
		p->form.failed = -ENOMEM;
		return;
	}
	rv_buf_printf(&p->form, "%s%s=%s", p->form.len ? "&" : "", name, esc);
	curl_free(esc);
}

static void param_time(struct rv_prom *p, const char *name, double t)
{
	rv_buf_printf(&p->form, "%s%s=%.3f", p->form.len ? "&" : "", name, t);
}

static int time_ok(double t)
{
	return isfinite(t) && fabs(t) < TIME_MAX_S;
}

/* The errno and message of a transfer that did not complete. */
static int transfer_error(struct rv_prom *p, CURLcode rc, const char *url, struct rv_err *err)
{
	int code = -EIO;

	if (p->too_big || rc == CURLE_FILESIZE_EXCEEDED)
		return rv_err_set(err, -E2BIG, "%s: the answer is larger than the limit of %zu bytes",
				  url, p->lim.max_body_bytes);
	if (p->oom || rc == CURLE_OUT_OF_MEMORY)
		return rv_err_set(err, -ENOMEM, "%s: out of memory for the answer", url);
	if (rc == CURLE_COULDNT_CONNECT)
		code = -ECONNREFUSED;
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		code = -ETIMEDOUT;
	return rv_err_set(err, code, "%s: %s", url,
			  p->errbuf[0] ? p->errbuf : curl_easy_strerror(rc));
}

/* An HTTP status of 300 or more: the API's error when the body is one,
 * else the status and the start of the body. */
static int http_error(struct rv_prom *p, long status, const char *url, struct rv_err *err)
{
	struct rv_err api = { 0 };
	char show[BODY_SHOW_MAX + 1];
	size_t len;
	const char *body = rv_buf_text(&p->body, &len);
	int code = rv_prom_api_error(body, len, &api);

	if (code < 0)
		return rv_err_set(err, code, "%s: HTTP %ld: %s", url, status, api.msg);
	rv_prom_printable(show, sizeof(show), body, len);
	return rv_err_set(err, rv_prom_http_errno(status), "%s: HTTP %ld%s%s", url, status,
			  len ? ": " : " (no body)", show);
}

static int answer(struct rv_prom *p, CURLcode rc, enum rv_prom_kind kind,
		  struct rv_prom_result *out, struct rv_err *err)
{
	char url[URL_SHOW_MAX];
	struct rv_err perr = { 0 };
	const char *body;
	long status = 0;
	size_t len;
	int ret;

	rv_httpc_url_safe(rv_buf_text(&p->url, NULL), url, sizeof(url));
	if (rc != CURLE_OK)
		return transfer_error(p, rc, url, err);
	curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status >= 300)
		return http_error(p, status, url, err);
	body = rv_buf_text(&p->body, &len);
	ret = rv_prom_parse(body, len, kind, &p->lim, out, &perr);
	if (ret < 0)
		return rv_err_set(err, ret, "%s: %s", url, rv_err_text(&perr, ret));
	return 0;
}

/* Sends the parameters in p->form to path, as a POST form or (get) a
 * query string, and parses the answer into out. */
static int request(struct rv_prom *p, const char *path, int get, enum rv_prom_kind kind,
		   struct rv_prom_result *out, struct rv_err *err)
{
	rv_ns t0 = rv_clock_ns();
	curl_off_t wire = 0;
	CURLcode rc = CURLE_OK;
	int ret;

	rv_prom_result_fini(out);
	rv_buf_reset(&p->url);
	rv_buf_printf(&p->url, "%s%s%s%s", p->base, path, get ? "?" : "",
		      get ? rv_buf_text(&p->form, NULL) : "");
	if (rv_buf_failed(&p->form) || rv_buf_failed(&p->url)) {
		char url[URL_SHOW_MAX];

		rv_httpc_url_safe(p->base, url, sizeof(url));
		return rv_err_set(err, -ENOMEM, "%s%s: the request's parameters do not fit in %d bytes",
				  url, path, FORM_MAX_BYTES);
	}
	rv_buf_reset(&p->body);
	p->too_big = p->oom = 0;
	p->errbuf[0] = '\0';
	rc = curl_easy_setopt(p->curl, CURLOPT_URL, rv_buf_text(&p->url, NULL));
	if (rc == CURLE_OK && get)
		rc = curl_easy_setopt(p->curl, CURLOPT_HTTPGET, 1L);
	if (rc == CURLE_OK && !get)
		rc = curl_easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)p->form.len);
	if (rc == CURLE_OK && !get)
		rc = curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, rv_buf_text(&p->form, NULL));
	if (rc == CURLE_OK)
		rc = curl_easy_perform(p->curl);
	ret = answer(p, rc, kind, out, err);
	curl_easy_getinfo(p->curl, CURLINFO_SIZE_DOWNLOAD_T, &wire);
	p->st.requests++;
	p->st.failed += ret < 0;
	p->st.body_bytes += p->body.len;
	p->st.wire_bytes += (uint64_t)wire;
	p->st.seconds += rv_clock_since_s(t0);
	return ret;
}

/* Checks what every request needs (text NULL: none) and empties the
 * parameters for it. */
static int begin(struct rv_prom *p, struct rv_prom_result *out, const char *what,
		 const char *text, double start, double end, struct rv_err *err)
{
	if (!p || !out)
		return rv_err_set(err, -EINVAL, "prometheus %s: bad arguments", what);
	if (text && !*text)
		return rv_err_set(err, -EINVAL, "prometheus %s: empty %s", what,
				  strcmp(what, "series") ? "query" : "match");
	if (!time_ok(start) || !time_ok(end) || start > end)
		return rv_err_set(err, -EINVAL, "prometheus %s: time range %g..%g: "
				  "not finite Unix times in order", what, start, end);
	rv_buf_reset(&p->form);
	return 0;
}

/* A required text argument: "" instead of NULL so begin refuses it. */
static const char *required(const char *s)
{
	return s ? s : "";
}

int rv_prom_query_range(struct rv_prom *p, const char *query, double start,
			double end, double step, struct rv_prom_result *out,
			struct rv_err *err)
{
	int rc = begin(p, out, "query_range", required(query), start, end, err);

	if (rc < 0)
		return rc;
	if (!(step >= STEP_MIN_S && step < TIME_MAX_S))
		return rv_err_set(err, -EINVAL, "step %g: not a number of seconds from 0.001 on", step);
	param(p, "query", query);
	param_time(p, "start", start);
	param_time(p, "end", end);
	param_time(p, "step", step);
	return request(p, API "/query_range", 0, RV_PROM_QUERY_RANGE, out, err);
}

int rv_prom_query(struct rv_prom *p, const char *query, double t,
		  struct rv_prom_result *out, struct rv_err *err)
{
	int rc = begin(p, out, "query", required(query), t, t, err);

	if (rc < 0)
		return rc;
	param(p, "query", query);
	param_time(p, "time", t);
	return request(p, API "/query", 0, RV_PROM_QUERY, out, err);
}

int rv_prom_series(struct rv_prom *p, const char *match, double start,
		   double end, struct rv_prom_result *out, struct rv_err *err)
{
	int rc = begin(p, out, "series", required(match), start, end, err);

	if (rc < 0)
		return rc;
	param(p, "match[]", match);
	param_time(p, "start", start);
	param_time(p, "end", end);
	return request(p, API "/series", 0, RV_PROM_SERIES, out, err);
}

static int label_name_ok(const char *s)
{
	if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		      (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

int rv_prom_label_values(struct rv_prom *p, const char *label, const char *match,
			 double start, double end, struct rv_prom_result *out,
			 struct rv_err *err)
{
	char path[URL_SHOW_MAX];
	int rc = begin(p, out, "label values", NULL, start, end, err);

	if (rc < 0)
		return rc;
	if (!label_name_ok(label) || strlen(label) > URL_SHOW_MAX / 2)
		return rv_err_set(err, -EINVAL, "label name \"%.64s\": not [a-zA-Z_][a-zA-Z0-9_]*",
				  label ? label : "");
	if (match && *match)
		param(p, "match[]", match);
	param_time(p, "start", start);
	param_time(p, "end", end);
	snprintf(path, sizeof(path), API "/label/%s/values", label);
	return request(p, path, 1, RV_PROM_LABEL_VALUES, out, err);
}
