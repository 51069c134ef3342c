/*
 * httpc.h - what the HTTP clients of rv_remote (the remote-write sender,
 * send.h; the Prometheus API reader, promapi.h) share: the connection
 * settings an operator configures, and libcurl's one-time set-up.
 *
 * Both clients take a struct rv_httpc_opts; every string is borrowed for
 * the call that takes it and copied where it is kept.
 */
#ifndef RV_REMOTE_HTTPC_H
#define RV_REMOTE_HTTPC_H

#include <stddef.h>

#include "base/err.h"

enum { RV_HTTPC_HEADERS_MAX = 16 };

struct rv_httpc_opts {
	const char *url;              /* http:// or https:// */
	const char *headers[RV_HTTPC_HEADERS_MAX]; /* "Name: value" each */
	size_t nheaders;
	const char *basic_user;       /* basic auth when non-NULL and non-empty */
	const char *basic_password;
	const char *bearer_token;     /* "Authorization: Bearer ..." when set */
	const char *ca_file;          /* TLS: CA bundle; NULL/"" = the system's */
	const char *cert_file;        /* TLS client certificate and key */
	const char *key_file;
	int insecure;                 /* TLS: do not verify the server */
	double timeout_s;             /* one request, connect included; 0 = 10 s */
};

/* curl_global_init, once per process and thread safe (pthread_once);
 * every client calls it before its first handle. 0 or -EIO (err set). */
int rv_httpc_global_init(struct rv_err *err);

/* The first line of the file at path (a password or a token: never logged)
 * into buf of n bytes, without its line end. what names the setting in
 * messages ("WHAT PATH: reason"). 0, the errno of opening it, or -EINVAL
 * when the line is empty. */
int rv_httpc_read_secret(const char *what, const char *path, char *buf, size_t n,
			 struct rv_err *err);

/* Checks o: a URL that is http(s)://HOST..., headers of the form
 * "Name: value" without CR or LF, a key with a certificate, not both
 * basic auth and a bearer token, a timeout in 0..3600 s. 0, or -EINVAL
 * naming the field. */
int rv_httpc_check(const struct rv_httpc_opts *o, struct rv_err *err);

/* libcurl's header list (struct curl_slist); declared here so that this
 * header does not pull in <curl/curl.h>. */
struct curl_slist;

/*
 * Applies o to a libcurl easy handle (a CURL *, passed as void *): URL,
 * the timeout (whole request and connect), basic auth or the bearer token,
 * TLS files and verification, no signals (the clients run in threads),
 * http and https only, no redirects followed. The configured headers, and
 * "Authorization: Bearer ..." for a token, are appended to *hdrs (which
 * may already hold the client's own headers, or be NULL) and the list is
 * set as the handle's CURLOPT_HTTPHEADER; the caller keeps *hdrs until the
 * handle is done with it and frees it with curl_slist_free_all, on an
 * error too. libcurl copies every string, so o is borrowed for the call.
 * Call rv_httpc_check(o) first. 0, -ENOMEM, or -EINVAL when libcurl
 * refuses an option (err names it; never a secret).
 */
int rv_httpc_apply(void *curl, const struct rv_httpc_opts *o,
		   struct curl_slist **hdrs, struct rv_err *err);

/* The URL for log lines and messages: url with any "user:password@" left
 * out (and a query string, which may carry a token, cut to "?..."),
 * written into out[0..cap) and truncated to fit; returns out. */
const char *rv_httpc_url_safe(const char *url, char *out, size_t cap);

#endif
