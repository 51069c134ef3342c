/*
 * action_http.c - one run of a webhook action (action_int.h): the
 * incident's JSON POSTed with libcurl, the connection settings applied by
 * remote/httpc.h as for remote write. One easy handle per run: actions
 * are rare, and a fresh connection per event has no state to go stale.
 * The first bytes of a refusal's answer are kept for the log.
 */
#include "action/action_int.h"

#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

enum { HTTP_OK_MIN = 200, HTTP_OK_MAX = 299 };

/* The answer's first RV_ACTION_SHOWN bytes. */
struct answer {
	char text[RV_ACTION_SHOWN + 1];
	size_t len;
};

static size_t on_body(char *p, size_t size, size_t nmemb, void *ctx)
{
	struct answer *a = ctx;
	size_t n = size * nmemb, room = RV_ACTION_SHOWN - a->len;

	memcpy(a->text + a->len, p, n < room ? n : room);
	a->len += n < room ? n : room;
	return n;
}

/* The handle's own options besides httpc's: the body, the answer. */
static int set_request(CURL *c, const char *body, size_t len, struct answer *a, char *errbuf)
{
	CURLcode cc = curl_easy_setopt(c, CURLOPT_POST, 1L);

	if (cc == CURLE_OK)
		cc = curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(c, CURLOPT_USERAGENT, "reveal/" REVEAL_VERSION);
	return cc == CURLE_OK ? 0 : -1;
}

/* The outcome of a request libcurl performed (cc) on handle c. */
static void verdict(CURL *c, CURLcode cc, const char *errbuf, const struct answer *a,
		    double timeout_s, struct rv_action_outcome *out)
{
	char line[RV_ACTION_SHOWN + 1];
	long status = 0;

	out->result = RV_ACTION_FAILED;
	if (cc == CURLE_OPERATION_TIMEDOUT) {
		out->result = RV_ACTION_TIMEOUT;
		snprintf(out->reason, sizeof(out->reason), "timed out after %g s", timeout_s);
		return;
	}
	if (cc != CURLE_OK) {
		snprintf(out->reason, sizeof(out->reason), "%.*s", (int)sizeof(out->reason) - 1,
			 errbuf[0] ? errbuf : curl_easy_strerror(cc));
		return;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status >= HTTP_OK_MIN && status <= HTTP_OK_MAX) {
		out->result = RV_ACTION_OK;
		out->reason[0] = '\0';
		return;
	}
	rv_action_first_line(a->text, a->len, line, sizeof(line));
	snprintf(out->reason, sizeof(out->reason), "HTTP %ld%s%s", status, line[0] ? ": " : "",
		 line);
}

void rv_action_post(const struct rv_httpc_opts *http, const char *body, size_t len,
		    double timeout_s, struct rv_action_outcome *out)
{
	struct rv_httpc_opts o = *http;
	struct curl_slist *hdrs = NULL, *l;
	struct rv_err err = { 0 };
	struct answer a = { .len = 0 };
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *c = curl_easy_init();
	CURLcode cc;

	out->result = RV_ACTION_FAILED;
	o.timeout_s = timeout_s;
	l = curl_slist_append(NULL, "Content-Type: application/json");
	hdrs = l ? curl_slist_append(l, "Expect:") : NULL;   /* no 100-continue round trip */
	if (!hdrs)
		curl_slist_free_all(l);
	if (!c || !hdrs) {
		snprintf(out->reason, sizeof(out->reason), "libcurl: out of memory");
	} else if (rv_httpc_apply(c, &o, &hdrs, &err) != 0 ||
		   set_request(c, body, len, &a, errbuf) != 0) {
		snprintf(out->reason, sizeof(out->reason), "%.*s", (int)sizeof(out->reason) - 1,
			 err.msg[0] ? err.msg : "libcurl refused an option");
	} else {
		cc = curl_easy_perform(c);
		verdict(c, cc, errbuf, &a, timeout_s, out);
	}
	if (c)
		curl_easy_cleanup(c);
	curl_slist_free_all(hdrs);
}
