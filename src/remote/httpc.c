/*
 * httpc.c - libcurl's one-time set-up, the check of the connection
 * settings and their application to an easy handle (httpc.h).
 */
#include "remote/httpc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

enum {
	HTTPC_DEF_TIMEOUT_MS = 10 * 1000,   /* timeout_s 0 */
	HTTPC_BEARER_PREFIX_LEN = 22,       /* strlen("Authorization: Bearer ") */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CURLcode init_rc;

static void global_init(void)
{
	init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int rv_httpc_global_init(struct rv_err *err)
{
	pthread_once(&once, global_init);
	if (init_rc != CURLE_OK)
		return rv_err_set(err, -EIO, "libcurl: %s", curl_easy_strerror(init_rc));
	return 0;
}

static int header_ok(const char *h)
{
	const char *colon = strchr(h, ':');

	if (!colon || colon == h || strpbrk(h, "\r\n"))
		return 0;
	for (const char *p = h; p < colon; p++)
		if (*p <= ' ' || *p >= 127)
			return 0;
	return 1;
}

static int nonempty(const char *s)
{
	return s && *s;
}

/* A token goes into a header line as it is: no blanks, no control bytes. */
static int token_ok(const char *t)
{
	for (const unsigned char *p = (const unsigned char *)t; *p; p++)
		if (*p <= ' ' || *p == 127)
			return 0;
	return 1;
}

int rv_httpc_check(const struct rv_httpc_opts *o, struct rv_err *err)
{
	const char *u = o->url, *host;

	if (!u || !*u)
		return rv_err_set(err, -EINVAL, "url: empty");
	if (!strncasecmp(u, "http://", 7))
		host = u + 7;
	else if (!strncasecmp(u, "https://", 8))
		host = u + 8;
	else
		return rv_err_set(err, -EINVAL, "url %s: not http:// or https://", u);
	if (!*host || *host == '/' || strpbrk(u, " \t\r\n"))
		return rv_err_set(err, -EINVAL, "url %s: no host, or a blank in it", u);
	if (o->nheaders > RV_HTTPC_HEADERS_MAX)
		return rv_err_set(err, -EINVAL, "headers: more than %d", RV_HTTPC_HEADERS_MAX);
	for (size_t i = 0; i < o->nheaders; i++)
		if (!o->headers[i] || !header_ok(o->headers[i]))
			return rv_err_set(err, -EINVAL,
					  "header %zu: not \"Name: value\" on one line", i + 1);
	if (o->key_file && *o->key_file && !(o->cert_file && *o->cert_file))
		return rv_err_set(err, -EINVAL, "tls key_file without cert_file");
	if (nonempty(o->basic_user) && nonempty(o->bearer_token))
		return rv_err_set(err, -EINVAL, "basic auth and a bearer token both set");
	if (o->bearer_token && !token_ok(o->bearer_token))
		return rv_err_set(err, -EINVAL, "bearer token: a blank or control character in it");
	if (!(o->timeout_s >= 0 && o->timeout_s <= 3600))
		return rv_err_set(err, -EINVAL, "timeout: %g s is outside 0..3600", o->timeout_s);
	return 0;
}

/* A failed curl_easy_setopt as an errno; what names the option, never
 * its value (a password or a token). */
static int opt_fail(CURLcode rc, const char *what, struct rv_err *err)
{
	return rv_err_set(err, rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL,
			  "libcurl %s: %s", what, curl_easy_strerror(rc));
}

static int add_header(struct curl_slist **hdrs, const char *h, struct rv_err *err)
{
	struct curl_slist *n = curl_slist_append(*hdrs, h);

	if (!n)
		return rv_err_set(err, -ENOMEM, "libcurl: no memory for a header");
	*hdrs = n;
	return 0;
}

static int apply_tls(CURL *c, const struct rv_httpc_opts *o, struct rv_err *err)
{
	CURLcode rc = CURLE_OK;

	if (nonempty(o->ca_file))
		rc = curl_easy_setopt(c, CURLOPT_CAINFO, o->ca_file);
	if (rc == CURLE_OK && nonempty(o->cert_file))
		rc = curl_easy_setopt(c, CURLOPT_SSLCERT, o->cert_file);
	if (rc == CURLE_OK && nonempty(o->key_file))
		rc = curl_easy_setopt(c, CURLOPT_SSLKEY, o->key_file);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, o->insecure ? 0L : 1L);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, o->insecure ? 0L : 2L);
	return rc == CURLE_OK ? 0 : opt_fail(rc, "tls options", err);
}

/* Basic auth through libcurl's options (sent with the first request, as
 * the only scheme allowed); a bearer token as a header of its own. */
static int apply_auth(CURL *c, const struct rv_httpc_opts *o,
		      struct curl_slist **hdrs, struct rv_err *err)
{
	CURLcode rc = CURLE_OK;
	char *line;
	size_t n;
	int ret;

	if (nonempty(o->basic_user)) {
		rc = curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(c, CURLOPT_USERNAME, o->basic_user);
		if (rc == CURLE_OK)
			rc = curl_easy_setopt(c, CURLOPT_PASSWORD,
					      o->basic_password ? o->basic_password : "");
		if (rc != CURLE_OK)
			return opt_fail(rc, "basic auth", err);
	}
	if (!nonempty(o->bearer_token))
		return 0;
	n = HTTPC_BEARER_PREFIX_LEN + strlen(o->bearer_token) + 1;
	line = malloc(n);
	if (!line)
		return rv_err_set(err, -ENOMEM, "no memory for the bearer token header");
	snprintf(line, n, "Authorization: Bearer %s", o->bearer_token);
	ret = add_header(hdrs, line, err);
	free(line);
	return ret;
}

static int apply_basics(CURL *c, const struct rv_httpc_opts *o, struct rv_err *err)
{
	long ms = HTTPC_DEF_TIMEOUT_MS;
	CURLcode rc;

	if (o->timeout_s > 0)
		ms = o->timeout_s * 1000 < 1 ? 1 : (long)(o->timeout_s * 1000);
	rc = curl_easy_setopt(c, CURLOPT_URL, o->url);
	if (rc != CURLE_OK)
		return opt_fail(rc, "url", err);
	rc = curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, ms);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	return rc == CURLE_OK ? 0 : opt_fail(rc, "options", err);
}

int rv_httpc_apply(void *curl, const struct rv_httpc_opts *o,
		   struct curl_slist **hdrs, struct rv_err *err)
{
	CURL *c = curl;
	CURLcode rc;
	int ret;

	ret = apply_basics(c, o, err);
	if (!ret)
		ret = apply_tls(c, o, err);
	if (!ret)
		ret = apply_auth(c, o, hdrs, err);
	for (size_t i = 0; !ret && i < o->nheaders; i++)
		ret = add_header(hdrs, o->headers[i], err);
	if (ret)
		return ret;
	rc = curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
	return rc == CURLE_OK ? 0 : opt_fail(rc, "headers", err);
}

const char *rv_httpc_url_safe(const char *url, char *out, size_t cap)
{
	const char *sep, *auth, *host, *end, *q;

	if (!cap)
		return out;
	if (!url) {
		out[0] = 0;
		return out;
	}
	sep = strstr(url, "://");
	auth = sep ? sep + 3 : url;
	end = auth + strcspn(auth, "/?#");
	host = auth;
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			host = p + 1;
	q = strpbrk(end, "?#");
	if (!q)
		q = end + strlen(end);
	snprintf(out, cap, "%.*s%.*s%s", (int)(auth - url), url,
		 (int)(q - host), host, *q ? "?..." : "");
	return out;
}

int rv_httpc_read_secret(const char *what, const char *path, char *buf, size_t n,
			 struct rv_err *err)
{
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return rv_err_set(err, -errno, "%s %s: %s", what, path, rv_strerror(errno));
	len = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[len] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0])
		return rv_err_set(err, -EINVAL, "%s %s: empty", what, path);
	return 0;
}
