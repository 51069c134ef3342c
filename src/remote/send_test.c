/*
 * send_test.c - the remote-write sender against a small HTTP/1.1 server
 * inside the test (a thread on 127.0.0.1 that records every request's
 * method, path, headers, body and arrival time, and answers each with a
 * scripted status, keep-alive or close, or never at all): headers and
 * bodies arrive byte for byte and in order on one connection; 503 then
 * 204 delivers once with one retry and one warning; 429's Retry-After is
 * honoured and capped; 400 is rejected, not retried, logged once and then
 * counted; basic, bearer and URL credentials and custom headers are sent
 * and never logged; the bounds drop the oldest while the port is closed
 * and delivery resumes, newest first in order, when a server comes back on
 * it; free flushes, and cuts a request to a server that never answers.
 * Every wait is a bounded poll on a condition (WAIT_S).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/log_testutil.h"
#include "remote/rwrite.h"
#include "remote/send.h"

#define WAIT_S 10.0          /* the longest any condition is waited for */
#define N(a) (sizeof(a) / sizeof((a)[0]))

enum {
	SRV_MAX_REQS = 64,
	SRV_BUF = 1 << 20,
	SRV_POLL_MS = 20,
};

/* ---- the server ---- */

struct reply {
	int status;
	const char *extra;   /* header lines, each ending in \r\n */
	const char *body;
	int close;
};

struct got {
	char method[16], path[128], head[4096];
	unsigned char *body;
	size_t len;
	rv_ns at;
	int status;          /* answered, 0 none */
};

struct srv {
	int lfd, port;
	pthread_t th;
	atomic_int stop, silent;
	pthread_mutex_t mu;
	const struct reply *script;  /* answer i for request i; past it 204 */
	size_t nscript, nreq, nconn;
	struct got reqs[SRV_MAX_REQS];
	char buf[SRV_BUF];
};

/* Reads more into s->buf[*len..]; 1 read, 0 EOF or stop, -1 error. */
static int srv_read(struct srv *s, int fd, size_t *len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	while (!atomic_load(&s->stop)) {
		if (poll(&p, 1, SRV_POLL_MS) <= 0)
			continue;
		n = read(fd, s->buf + *len, SRV_BUF - 1 - *len);
		if (n <= 0)
			return n < 0 ? -1 : 0;
		*len += (size_t)n;
		s->buf[*len] = 0;
		return 1;
	}
	return 0;
}

static size_t content_length(const char *head)
{
	const char *p = strcasestr(head, "\r\ncontent-length:");

	return p ? strtoul(p + 17, NULL, 10) : 0;
}

/* One request into s->reqs; returns the bytes it took, 0 at EOF/stop. */
static size_t srv_request(struct srv *s, int fd, size_t *len)
{
	char *end;
	size_t hlen, blen;
	struct got *g;

	while (!(end = strstr(s->buf, "\r\n\r\n")))
		if (srv_read(s, fd, len) <= 0)
			return 0;
	hlen = (size_t)(end - s->buf) + 4;
	blen = content_length(s->buf);
	while (*len < hlen + blen)
		if (srv_read(s, fd, len) <= 0)
			return 0;
	pthread_mutex_lock(&s->mu);
	g = &s->reqs[s->nreq];   /* no cmocka assert off the main thread */
	if (s->nreq >= SRV_MAX_REQS || !(g->body = malloc(blen + 1))) {
		pthread_mutex_unlock(&s->mu);
		return 0;        /* the sender sees the connection close */
	}
	snprintf(g->head, sizeof(g->head), "%.*s", (int)hlen, s->buf);
	snprintf(g->method, sizeof(g->method), "%.*s", (int)strcspn(s->buf, " "), s->buf);
	end = strchr(s->buf, ' ') + 1;
	snprintf(g->path, sizeof(g->path), "%.*s", (int)strcspn(end, " "), end);
	memcpy(g->body, s->buf + hlen, blen);
	g->len = blen;
	g->at = rv_clock_ns();
	pthread_mutex_unlock(&s->mu);
	return hlen + blen;
}

/* Answers the newest request; 1 when the connection is to be closed. */
static int srv_answer(struct srv *s, int fd)
{
	struct reply r = { 204, "", "", 0 };
	char out[1024];
	int n;

	pthread_mutex_lock(&s->mu);
	if (s->nreq < s->nscript)
		r = s->script[s->nreq];
	s->reqs[s->nreq].status = r.status;
	s->nreq++;
	pthread_mutex_unlock(&s->mu);
	n = snprintf(out, sizeof(out), "HTTP/1.1 %d Scripted\r\nContent-Length: %zu\r\n%s%s\r\n%s",
		     r.status, strlen(r.body), r.extra ? r.extra : "",
		     r.close ? "Connection: close\r\n" : "", r.body);
	if (write(fd, out, (size_t)n) != n)
		return 1;
	return r.close;
}

static void srv_conn(struct srv *s, int fd)
{
	size_t len = 0, used;

	s->buf[0] = 0;
	while ((used = srv_request(s, fd, &len)) > 0) {
		if (atomic_load(&s->silent)) {
			pthread_mutex_lock(&s->mu);
			s->nreq++;
			pthread_mutex_unlock(&s->mu);
			while (srv_read(s, fd, &len) > 0)
				len = 0;   /* hold the connection, say nothing */
			break;
		}
		memmove(s->buf, s->buf + used, len - used);
		len -= used;
		s->buf[len] = 0;
		if (srv_answer(s, fd))
			break;
	}
	close(fd);
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	struct pollfd p = { .fd = s->lfd, .events = POLLIN };
	int fd;

	while (!atomic_load(&s->stop)) {
		if (poll(&p, 1, SRV_POLL_MS) <= 0)
			continue;
		fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		s->nconn++;
		srv_conn(s, fd);
	}
	return NULL;
}

/* A server on 127.0.0.1:port (0: any free port). */
static struct srv *srv_start(int port, const struct reply *script, size_t nscript)
{
	struct srv *s = calloc(1, sizeof(*s));
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int one = 1;

	assert_non_null(s);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	s->lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)), 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->lfd, 8), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&a, &alen), 0);
	s->port = ntohs(a.sin_port);
	s->script = script;
	s->nscript = nscript;
	pthread_mutex_init(&s->mu, NULL);
	atomic_init(&s->stop, 0);
	atomic_init(&s->silent, 0);
	assert_int_equal(pthread_create(&s->th, NULL, srv_main, s), 0);
	return s;
}

static void srv_stop(struct srv *s)
{
	atomic_store(&s->stop, 1);
	pthread_join(s->th, NULL);
	close(s->lfd);
	for (size_t i = 0; i < SRV_MAX_REQS; i++)
		free(s->reqs[i].body);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

static size_t srv_count(struct srv *s)
{
	size_t n;

	pthread_mutex_lock(&s->mu);
	n = s->nreq;
	pthread_mutex_unlock(&s->mu);
	return n;
}

static void srv_wait(struct srv *s, size_t n)
{
	rv_ns t0 = rv_clock_ns();

	while (srv_count(s) < n) {
		assert_true(rv_clock_since_s(t0) < WAIT_S);
		poll(NULL, 0, 5);
	}
}

/* The value of header name in g ("" when absent), into out. */
static const char *header(const struct got *g, const char *name, char *out, size_t cap)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "\r\n%s:", name);
	out[0] = 0;
	p = strcasestr(g->head, key);
	if (p) {
		p += strlen(key);
		p += strspn(p, " ");
		snprintf(out, cap, "%.*s", (int)strcspn(p, "\r"), p);
	}
	return out;
}

static void assert_header(const struct got *g, const char *name, const char *want)
{
	char v[512];

	assert_string_equal(header(g, name, v, sizeof(v)), want);
}

/* ---- log capture ---- */


static int setup(void **state)
{
	(void)state;
	log_capture_start();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	log_capture_stop();
	return 0;
}

/* ---- helpers ---- */

static char url_buf[128];

static struct rv_rsend_opts opts_for(int port)
{
	struct rv_rsend_opts o = { 0 };

	snprintf(url_buf, sizeof(url_buf), "http://127.0.0.1:%d/api/v1/write", port);
	o.http.url = url_buf;
	o.backoff_min_s = 0.01;
	o.backoff_max_s = 0.05;
	return o;
}

static struct rv_rsend *sender(const struct rv_rsend_opts *o)
{
	struct rv_err err = { 0 };
	struct rv_rsend *s = NULL;

	assert_int_equal(rv_rsend_new(o, &s, &err), 0);
	assert_non_null(s);
	return s;
}

#define WAIT_STATS(s, st, cond)                                              \
	do {                                                                 \
		rv_ns t0_ = rv_clock_ns();                                   \
		for (rv_rsend_stats((s), &(st)); !(cond); rv_rsend_stats((s), &(st))) { \
			assert_true(rv_clock_since_s(t0_) < WAIT_S);         \
			poll(NULL, 0, 5);                                    \
		}                                                            \
	} while (0)

static void push_text(struct rv_rsend *s, const char *text, size_t nsamples)
{
	assert_int_equal(rv_rsend_push(s, text, strlen(text), nsamples), 0);
}

/* A server answering by its script, and a sender's options for it. */
struct fix {
	struct srv *v;
	struct rv_rsend_opts o;
	struct rv_rsend_stats st;
};

static void fix_up(struct fix *f, const struct reply *script, size_t nscript)
{
	memset(f, 0, sizeof(*f));
	f->v = srv_start(0, script, nscript);
	f->o = opts_for(f->v->port);
}

/* A port with nothing listening on it (the kernel gave it, and it was
 * closed again). */
static int closed_port(void)
{
	struct srv *v = srv_start(0, NULL, 0);
	int port = v->port;

	srv_stop(v);
	return port;
}

/* A sender on o delivers text and is freed; *st gets the counters at the
 * delivery. */
static void deliver_one(const struct rv_rsend_opts *o, const char *text,
			struct rv_rsend_stats *st)
{
	struct rv_rsend *s = sender(o);

	push_text(s, text, 1);
	WAIT_STATS(s, *st, st->sent_requests == 1);
	rv_rsend_free(s, 0);
}

/* Seconds between the arrivals of requests i and i + 1. */
static double gap_s(const struct srv *v, size_t i)
{
	return (double)(v->reqs[i + 1].at - v->reqs[i].at) / 1e9;
}

static void assert_body(const struct got *g, const char *text)
{
	assert_int_equal(g->len, strlen(text));
	assert_memory_equal(g->body, text, g->len);
}

/* ---- tests ---- */

static void test_opts_refused(void **state)
{
	struct rv_rsend_opts o = opts_for(1);
	struct rv_err err = { 0 };
	struct rv_rsend *s = (void *)&o;

	(void)state;
	o.http.url = "ftp://127.0.0.1/";
	assert_int_equal(rv_rsend_new(&o, &s, &err), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err.msg, "url"));
	o = opts_for(1);
	o.backoff_min_s = 2;
	o.backoff_max_s = 1;
	rv_err_clear(&err);
	assert_int_equal(rv_rsend_new(&o, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "backoff"));
	o = opts_for(1);
	o.http.basic_user = "u";
	o.http.bearer_token = "t";
	assert_int_equal(rv_rsend_new(&o, &s, NULL), -EINVAL);
	o.http.basic_user = NULL;
	o.http.bearer_token = "t\r\nX-Evil: 1";
	assert_int_equal(rv_rsend_new(&o, &s, NULL), -EINVAL);
	rv_rsend_free(NULL, 1);
}

static void test_url_safe(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(rv_httpc_url_safe("http://u:pw@h:9/api/v1/write?token=x", out,
					      sizeof(out)), "http://h:9/api/v1/write?...");
	assert_string_equal(rv_httpc_url_safe("https://h/w", out, sizeof(out)), "https://h/w");
	assert_string_equal(rv_httpc_url_safe("https://a@b@h", out, sizeof(out)), "https://h");
	assert_string_equal(rv_httpc_url_safe("http://h/0123456789012345678901234567890123"
					      "456789012345678901234567890123456789", out,
					      sizeof(out)),
			    "http://h/012345678901234567890123456789012345678901234567890123");
}

/* A real encoded request and four more bodies (binary, NULs), in order,
 * on one kept-alive connection, with the headers of the specification. */
static void test_headers_body_order(void **state)
{
	static const unsigned char bin[] = { 0, 1, 2, 0xff, 0, '\r', '\n', 0 };
	struct rv_rw_label lab[] = { { "__name__", "up" }, { "node", "n1" } };
	struct rv_rw_sample smp[] = { { 1, 1000 }, { 0.5, 2000 } };
	struct fix f;
	struct rv_rsend *s;
	struct rv_rw *w;
	unsigned char enc[4096];
	size_t len;
	char ua[64];

	(void)state;
	fix_up(&f, NULL, 0);
	s = sender(&f.o);
	assert_int_equal(rv_rw_new(NULL, &w, NULL), 0);
	assert_int_equal(rv_rw_add(w, lab, N(lab), smp, N(smp), NULL), 0);
	assert_int_equal(rv_rw_encode(w, enc, sizeof(enc), &len, NULL), 0);
	assert_int_equal(rv_rsend_push(s, enc, len, 2), 0);
	assert_int_equal(rv_rsend_push(s, bin, sizeof(bin), 1), 0);
	push_text(s, "third", 3);
	push_text(s, "fourth", 4);
	push_text(s, "fifth", 5);
	WAIT_STATS(s, f.st, f.st.sent_requests == 5);
	assert_int_equal(f.st.sent_samples, 15);
	assert_int_equal(f.st.sent_bytes, len + sizeof(bin) + 5 + 6 + 5);
	assert_int_equal(f.st.retries + f.st.dropped_requests + f.st.rejected_requests, 0);
	assert_int_equal(f.st.queued_requests + f.st.queued_bytes, 0);
	assert_int_equal(f.st.up, 1);
	assert_true(f.st.last_success_wall > (double)rv_clock_wall_ns() / 1e9 - WAIT_S);
	assert_string_equal(f.st.last_error, "");
	assert_int_equal(srv_count(f.v), 5);
	snprintf(ua, sizeof(ua), "reveal/%s", REVEAL_VERSION);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(f.v->reqs[i].method, "POST");
		assert_string_equal(f.v->reqs[i].path, "/api/v1/write");
		assert_header(&f.v->reqs[i], "Content-Encoding", "snappy");
		assert_header(&f.v->reqs[i], "Content-Type", "application/x-protobuf");
		assert_header(&f.v->reqs[i], "X-Prometheus-Remote-Write-Version", "0.1.0");
		assert_header(&f.v->reqs[i], "User-Agent", ua);
		assert_header(&f.v->reqs[i], "Expect", "");
		assert_header(&f.v->reqs[i], "Authorization", "");
	}
	assert_int_equal(f.v->reqs[0].len, len);
	assert_memory_equal(f.v->reqs[0].body, enc, len);
	assert_int_equal(f.v->reqs[1].len, sizeof(bin));
	assert_memory_equal(f.v->reqs[1].body, bin, sizeof(bin));
	assert_body(&f.v->reqs[2], "third");
	assert_body(&f.v->reqs[3], "fourth");
	assert_body(&f.v->reqs[4], "fifth");
	assert_int_equal(f.v->nconn, 1);   /* keep-alive */
	rv_rsend_free(s, 0);
	rv_rw_free(w);
	srv_stop(f.v);
	assert_int_equal(logged(-1, ""), 0);
}

static void test_retry_503(void **state)
{
	static const struct reply script[] = {
		{ 503, "", "overloaded\r\n\tsoon\n", 0 }, { 204, "", "", 0 },
	};
	struct fix f;
	struct rv_rsend *s;

	(void)state;
	fix_up(&f, script, N(script));
	s = sender(&f.o);
	push_text(s, "body-1", 7);
	WAIT_STATS(s, f.st, f.st.sent_requests == 1);
	assert_int_equal(f.st.retries, 1);
	assert_int_equal(f.st.sent_samples, 7);
	assert_int_equal(f.st.up, 1);
	assert_string_equal(f.st.last_error, "HTTP 503: overloaded   soon");
	assert_int_equal(srv_count(f.v), 2);
	assert_body(&f.v->reqs[0], "body-1");
	assert_body(&f.v->reqs[1], "body-1");
	assert_int_equal(logged(RV_LOG_WARN, "HTTP 503: overloaded   soon; retrying (queue 1 "
				"requests)"), 1);
	assert_int_equal(logged(RV_LOG_INFO, "delivering again after"), 1);
	assert_int_equal(logged(RV_LOG_INFO, "0 requests dropped meanwhile"), 1);
	assert_int_equal(logged(-1, "127.0.0.1"), 2);
	rv_rsend_free(s, 0);
	srv_stop(f.v);
}

/* Retry-After: 1 is waited for with a backoff of 10 ms; Retry-After: 30
 * is cut to backoff_max_s. */
static void test_retry_after(void **state)
{
	static const struct reply script[] = {
		{ 429, "Retry-After: 1\r\n", "slow down", 0 }, { 200, "", "", 0 },
		{ 429, "retry-after:30\r\n", "", 0 }, { 200, "", "", 0 },
	};
	struct fix f;

	(void)state;
	fix_up(&f, script, N(script));
	f.o.backoff_max_s = 5;
	deliver_one(&f.o, "a", &f.st);
	assert_int_equal(f.st.retries, 1);
	assert_string_equal(f.st.last_error, "HTTP 429: slow down");
	assert_true(gap_s(f.v, 0) >= 0.95 && gap_s(f.v, 0) < 3);
	f.o.backoff_max_s = 0.2;
	deliver_one(&f.o, "b", &f.st);
	assert_true(gap_s(f.v, 2) >= 0.15 && gap_s(f.v, 2) < 2);
	assert_body(&f.v->reqs[3], "b");
	srv_stop(f.v);
}

/* 400 drops the request (counted, not retried, logged once with the
 * receiver's message); the next goes through; later rejections are
 * counted and summed up at free. */
static void test_rejected(void **state)
{
	static const struct reply script[] = {
		{ 400, "", "out of order sample", 0 }, { 204, "", "", 0 },
		{ 422, "", "bad", 1 }, { 400, "", "too old", 0 },
	};
	struct fix f;
	struct rv_rsend *s;

	(void)state;
	fix_up(&f, script, N(script));
	s = sender(&f.o);
	push_text(s, "A", 3);
	push_text(s, "B", 2);
	WAIT_STATS(s, f.st, f.st.sent_requests == 1 && f.st.rejected_requests == 1);
	assert_int_equal(f.st.rejected_samples, 3);
	assert_int_equal(f.st.retries, 0);
	assert_string_equal(f.st.last_error, "HTTP 400: out of order sample");
	assert_int_equal(srv_count(f.v), 2);
	assert_body(&f.v->reqs[0], "A");
	assert_body(&f.v->reqs[1], "B");
	assert_int_equal(logged(RV_LOG_WARN, "rejected, not retried: HTTP 400: out of order "
				"sample"), 1);
	push_text(s, "C", 1);
	push_text(s, "D", 1);
	WAIT_STATS(s, f.st, f.st.rejected_requests == 3);
	assert_int_equal(f.st.rejected_samples, 5);
	assert_int_equal(f.st.up, 0);
	assert_string_equal(f.st.last_error, "HTTP 400: too old");
	assert_int_equal(srv_count(f.v), 4);
	assert_body(&f.v->reqs[2], "C");
	assert_body(&f.v->reqs[3], "D");
	assert_int_equal(f.v->nconn, 2);   /* the 422 closed the first */
	assert_int_equal(logged(-1, "rejected"), 1);
	rv_rsend_free(s, 0);
	assert_int_equal(logged(RV_LOG_WARN, "2 more requests rejected, the last: HTTP 400: "
				"too old"), 1);
	srv_stop(f.v);
}

/* Each credential and the custom headers arrive; a failure's log line
 * holds none of the secrets. */
static void test_auth(void **state)
{
	static const struct reply script[] = {
		{ 503, "", "", 0 }, { 204, "", "", 0 }, { 503, "", "", 0 }, { 204, "", "", 0 },
		{ 503, "", "", 0 }, { 204, "", "", 0 },
	};
	struct fix f;
	char url[128];

	(void)state;
	fix_up(&f, script, N(script));
	f.o.http.basic_user = "alice";
	f.o.http.basic_password = "s3cret";
	f.o.http.headers[0] = "X-Scope-OrgID: team-a";
	f.o.http.headers[1] = "X-Extra:two words";
	f.o.http.nheaders = 2;
	deliver_one(&f.o, "x", &f.st);
	assert_header(&f.v->reqs[1], "Authorization", "Basic YWxpY2U6czNjcmV0");
	assert_header(&f.v->reqs[1], "X-Scope-OrgID", "team-a");
	assert_header(&f.v->reqs[1], "X-Extra", "two words");
	assert_header(&f.v->reqs[1], "Content-Encoding", "snappy");
	f.o = opts_for(f.v->port);
	f.o.http.bearer_token = "tok-123.xyz";
	deliver_one(&f.o, "y", &f.st);
	assert_header(&f.v->reqs[3], "Authorization", "Bearer tok-123.xyz");
	assert_header(&f.v->reqs[3], "X-Scope-OrgID", "");
	snprintf(url, sizeof(url), "http://carol:pw9@127.0.0.1:%d/api/v1/write?k=tok9", f.v->port);
	f.o = opts_for(f.v->port);
	f.o.http.url = url;
	deliver_one(&f.o, "z", &f.st);
	assert_header(&f.v->reqs[5], "Authorization", "Basic Y2Fyb2w6cHc5");
	assert_string_equal(f.v->reqs[5].path, "/api/v1/write?k=tok9");
	assert_int_equal(logged(RV_LOG_WARN, "HTTP 503; retrying"), 3);
	assert_int_equal(logged(-1, "/api/v1/write?...: HTTP 503"), 1);
	assert_int_equal(logged(-1, "s3cret") + logged(-1, "tok-123") + logged(-1, "pw9") +
			 logged(-1, "tok9") + logged(-1, "carol") + logged(-1, "alice"), 0);
	srv_stop(f.v);
}

/* The port closed: ten pushes into a queue of four keep the newest four,
 * with one warning however often it retries; a server on the same port
 * then gets those four in order, and the info line counts the drops. */
static void test_bounds_and_resume(void **state)
{
	int port = closed_port();
	struct rv_rsend_opts o = opts_for(port);
	struct rv_rsend *s;
	struct rv_rsend_stats st;
	struct srv *v;
	char text[16];

	(void)state;
	o.queue_requests = 4;
	s = sender(&o);
	for (size_t i = 0; i < 10; i++) {
		snprintf(text, sizeof(text), "req-%02zu", i);
		push_text(s, text, i + 1);
		rv_rsend_stats(s, &st);
		assert_true(st.queued_requests <= 5 && st.queued_bytes <= 5 * 6);
	}
	WAIT_STATS(s, st, st.dropped_requests == 6 && st.retries >= 3);
	assert_int_equal(st.dropped_samples, 1 + 2 + 3 + 4 + 5 + 6);
	assert_int_equal(st.queued_requests, 4);
	assert_int_equal(st.queued_bytes, 4 * 6);
	assert_int_equal(st.sent_requests, 0);
	assert_int_equal(st.up, 0);
	assert_non_null(strstr(st.last_error, "(Connection refused)"));
	assert_int_equal(logged(RV_LOG_WARN, "retrying (queue"), 1);
	assert_int_equal(logged(-1, ""), 1);
	v = srv_start(port, NULL, 0);
	WAIT_STATS(s, st, st.sent_requests == 4);
	assert_int_equal(st.sent_samples, 7 + 8 + 9 + 10);
	assert_int_equal(st.dropped_requests, 6);
	assert_int_equal(st.queued_requests, 0);
	assert_int_equal(st.up, 1);
	assert_int_equal(srv_count(v), 4);
	for (size_t i = 0; i < 4; i++) {
		snprintf(text, sizeof(text), "req-%02zu", i + 6);
		assert_body(&v->reqs[i], text);
	}
	assert_int_equal(logged(RV_LOG_INFO, "6 requests dropped meanwhile"), 1);
	rv_rsend_free(s, 0);
	srv_stop(v);
}

/* queue_bytes: 300-byte bodies into 1000 bytes; a body over the bound
 * alone and an empty one are refused and counted; free logs the rest. */
static void test_bytes_bound(void **state)
{
	struct rv_rsend_opts o = opts_for(closed_port());
	struct rv_rsend *s;
	struct rv_rsend_stats st;
	static unsigned char body[1001];

	(void)state;
	o.queue_bytes = 1000;
	s = sender(&o);
	for (int i = 0; i < 5; i++)
		assert_int_equal(rv_rsend_push(s, body, 300, 10), 0);
	assert_int_equal(rv_rsend_push(s, body, sizeof(body), 7), -E2BIG);
	assert_int_equal(rv_rsend_push(s, body, 0, 1), -EINVAL);
	WAIT_STATS(s, st, st.dropped_requests == 4 && st.queued_bytes == 900);
	assert_int_equal(st.dropped_samples, 10 + 10 + 7 + 1);
	assert_int_equal(st.queued_requests, 3);
	rv_rsend_free(s, 0);
	assert_int_equal(logged(RV_LOG_WARN, "stopped with 3 requests (30 samples) undelivered"),
			 1);
}

/* free with a flush time goes on until the queue is empty. */
static void test_flush(void **state)
{
	static const struct reply script[] = { { 503, "", "", 0 }, { 502, "", "", 1 } };
	struct fix f;
	struct rv_rsend *s;
	const char *want[] = { "one", "two", "three", "four", "five" };

	(void)state;
	fix_up(&f, script, N(script));
	s = sender(&f.o);
	for (size_t i = 0; i < N(want); i++)
		push_text(s, want[i], 1);
	rv_rsend_free(s, WAIT_S);
	assert_int_equal(srv_count(f.v), 2 + N(want));
	for (size_t i = 0; i < N(want); i++) {
		assert_int_equal(f.v->reqs[2 + i].status, 204);
		assert_body(&f.v->reqs[2 + i], want[i]);
	}
	assert_int_equal(logged(-1, "undelivered"), 0);
	srv_stop(f.v);
}

/* A server that takes the request and never answers: free returns within
 * about its flush time plus 100 ms, and says what was lost; a sender
 * waiting out a long backoff stops at once too. */
static void test_free_interrupts(void **state)
{
	struct srv *v = srv_start(0, NULL, 0);
	struct rv_rsend_opts o = opts_for(v->port);
	struct rv_rsend *s;
	struct rv_rsend_stats st;
	rv_ns t0;

	(void)state;
	atomic_store(&v->silent, 1);
	s = sender(&o);
	push_text(s, "never answered", 4);
	srv_wait(v, 1);
	t0 = rv_clock_ns();
	rv_rsend_free(s, 0.2);
	assert_true(rv_clock_since_s(t0) < 1.0);
	assert_int_equal(logged(RV_LOG_WARN, "stopped with 1 requests (4 samples)"), 1);
	srv_stop(v);
	o = opts_for(closed_port());
	o.backoff_min_s = o.backoff_max_s = 30;
	s = sender(&o);
	push_text(s, "port closed", 1);
	WAIT_STATS(s, st, st.retries == 1);
	t0 = rv_clock_ns();
	rv_rsend_free(s, 0);
	assert_true(rv_clock_since_s(t0) < 0.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_opts_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_url_safe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_headers_body_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry_503, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry_after, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds_and_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bytes_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_interrupts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
