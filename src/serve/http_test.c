/*
 * http_test.c - the server on 127.0.0.1 port 0, driven by a small raw
 * socket client: GET and HEAD of a route, 405 with Allow for other methods,
 * 404, 500 from a failing handler, 413 for a request body, query lookup,
 * response headers, counters, a second server on a taken port, bad listen
 * strings and limits, the idle timeout and the connection limits: many
 * idle connections of one client (127.0.0.1) do not keep another
 * (127.0.0.2) from an answer, a full server refuses at once, a client
 * trickling its headers is cut off at the request deadline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "serve/http.h"

enum { REPLY_MAX = 16384, CLIENT_TIMEOUT_S = 5, N_IDLE = 100, TRICKLE_MS = 250 };

#define METRICS_BODY "# TYPE reveal_up gauge\nreveal_up 1\n"
#define PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct reply {
	int status;            /* -1: no status line (connection closed first) */
	char raw[REPLY_MAX];
	size_t n;
	const char *body;      /* into raw, after the blank line */
	size_t body_len;
};

/* ---- handlers ---------------------------------------------------------- */

static int h_metrics(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	int *calls = ctx;

	(*calls)++;
	assert_string_equal(req->path, "/metrics");
	resp->content_type = PROM_TYPE;
	return rv_http_resp_text(resp, METRICS_BODY);
}

static int h_echo(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	char buf[256];
	const char *name = rv_http_query(req, "name"), *flag = rv_http_query(req, "flag");
	const char *missing = rv_http_query(req, "missing");

	(void)ctx;
	snprintf(buf, sizeof(buf), "name=%s flag=%s missing=%s", name ? name : "(null)",
		 flag ? flag : "(null)", missing ? missing : "(null)");
	return rv_http_resp_text(resp, buf);
}

static int h_fail(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	(void)ctx;
	(void)req;
	assert_int_equal(rv_http_resp_text(resp, "half-written"), 0);   /* dropped */
	return -EIO;
}

static int h_take(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	char *buf = strdup("{\"ok\":true}");

	(void)ctx;
	(void)req;
	if (!buf)
		return -ENOMEM;
	resp->status = 503;
	resp->content_type = "application/json";
	rv_http_resp_take(resp, buf, strlen(buf));
	return 0;
}

static int h_badtype(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp)
{
	(void)ctx;
	(void)req;
	resp->content_type = "text/plain\r\nX-Injected: 1";
	return 0;
}

/* ---- client ------------------------------------------------------------ */

static int connect_to(int family, int port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct timeval tv = { .tv_sec = CLIENT_TIMEOUT_S };
	socklen_t len;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		in6->sin6_addr = in6addr_loopback;
		len = sizeof(*in6);
	} else {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*in4);
	}
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&ss, len), 0);
	return fd;
}

/* An IPv4 connection from source address src (any of 127/8 is this host). */
static int connect_from(const char *src, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = CLIENT_TIMEOUT_S };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(inet_pton(AF_INET, src, &a.sin_addr), 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* 1 when the server has closed fd (end of file or reset) within wait_ms. */
static int closed_by_server(int fd, int wait_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char c;

	if (poll(&p, 1, wait_ms) <= 0)
		return 0;
	return recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

static void send_all(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		assert_true(w > 0);
		s += w;
		n -= (size_t)w;
	}
}

/* Reads until the server closes fd (requests say "Connection: close"). */
static void read_reply(int fd, struct reply *r)
{
	char *end;
	ssize_t got;

	r->n = 0;
	while (r->n < sizeof(r->raw) - 1 &&
	       (got = recv(fd, r->raw + r->n, sizeof(r->raw) - 1 - r->n, 0)) > 0)
		r->n += (size_t)got;
	r->raw[r->n] = '\0';
	r->status = -1;
	r->body = NULL;
	r->body_len = 0;
	if (strncmp(r->raw, "HTTP/1.", 7) != 0 || r->n < 12)
		return;
	r->status = (int)strtol(r->raw + 9, &end, 10);
	end = strstr(r->raw, "\r\n\r\n");
	assert_non_null(end);
	r->body = end + 4;
	r->body_len = r->n - (size_t)(r->body - r->raw);
}

static void request_on(int family, int port, const char *req, struct reply *r)
{
	int fd = connect_to(family, port);

	send_all(fd, req);
	read_reply(fd, r);
	close(fd);
}

/* GET path with "Connection: close" from source address src. */
static void get_from(const char *src, int port, const char *path, struct reply *r)
{
	char req[256];
	int fd = connect_from(src, port);

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		 path);
	send_all(fd, req);
	read_reply(fd, r);
	close(fd);
}

static void get(int port, const char *method, const char *target, struct reply *r)
{
	char req[512];

	snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
		 method, target);
	request_on(AF_INET, port, req, r);
}

/* Value of header name in r (case-insensitive name), copied into out;
 * NULL when absent. */
static const char *header(const struct reply *r, const char *name, char *out, size_t cap)
{
	const char *line = strstr(r->raw, "\r\n");
	size_t nl = strlen(name);

	while (line && line + 2 < r->body) {
		const char *s = line + 2, *eol = strstr(s, "\r\n");

		if (strncasecmp(s, name, nl) == 0 && s[nl] == ':') {
			s += nl + 1;
			while (*s == ' ')
				s++;
			snprintf(out, cap, "%.*s", (int)(eol - s), s);
			return out;
		}
		line = eol;
	}
	return NULL;
}

static void assert_header(const struct reply *r, const char *name, const char *want)
{
	char val[256];
	const char *got = header(r, name, val, sizeof(val));

	if (!got)
		fail_msg("header %s missing in:\n%s", name, r->raw);
	assert_string_equal(got, want);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- tests ------------------------------------------------------------- */

static int metrics_calls;

static const struct rv_http_route routes[] = {
	{ "/metrics", h_metrics, &metrics_calls },
	{ "/echo", h_echo, NULL },
	{ "/fail", h_fail, NULL },
	{ "/take", h_take, NULL },
	{ "/badtype", h_badtype, NULL },
};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))

static struct rv_http *start(const char *listen, const struct rv_http_limits *lim)
{
	struct rv_http *h = NULL;
	struct rv_err err;

	rv_err_clear(&err);
	if (rv_http_start(listen, routes, NROUTES, lim, &h, &err) != 0)
		fail_msg("rv_http_start(%s): %s", listen, err.msg);
	assert_non_null(h);
	assert_true(rv_http_port(h) > 0);
	return h;
}

static void test_get_and_head(void **state)
{
	struct rv_http *h = start("127.0.0.1:0", NULL);
	int port = rv_http_port(h);
	struct reply r;
	char val[64];
	uint64_t req, errs;

	(void)state;
	metrics_calls = 0;
	get(port, "GET", "/metrics", &r);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, strlen(METRICS_BODY));
	assert_memory_equal(r.body, METRICS_BODY, r.body_len);
	assert_header(&r, "Content-Type", PROM_TYPE);
	assert_header(&r, "Cache-Control", "no-store");
	snprintf(val, sizeof(val), "%zu", strlen(METRICS_BODY));
	assert_header(&r, "Content-Length", val);

	get(port, "HEAD", "/metrics", &r);   /* same headers, no body */
	assert_int_equal(r.status, 200);
	assert_header(&r, "Content-Length", val);
	assert_header(&r, "Content-Type", PROM_TYPE);
	assert_int_equal(r.body_len, 0);
	assert_int_equal(metrics_calls, 2);

	get(port, "GET", "/nope", &r);
	assert_int_equal(r.status, 404);
	assert_header(&r, "Cache-Control", "no-store");
	assert_string_equal(r.body, "not found\n");

	rv_http_stats(h, &req, &errs);
	assert_int_equal(req, 3);
	assert_int_equal(errs, 1);
	rv_http_stats(h, NULL, NULL);
	rv_http_stop(h);
	rv_http_stop(NULL);
}

static void test_error_answers(void **state)
{
	struct rv_http *h = start("127.0.0.1:0", NULL);
	int port = rv_http_port(h);
	struct reply r;
	char val[64];
	uint64_t req, errs;

	(void)state;
	metrics_calls = 0;
	get(port, "GET", "/fail", &r);
	assert_int_equal(r.status, 500);
	assert_string_equal(r.body, "internal server error\n");   /* not "half-written" */
	get(port, "GET", "/badtype", &r);
	assert_int_equal(r.status, 500);
	assert_null(header(&r, "X-Injected", val, sizeof(val)));

	get(port, "GET", "/take", &r);
	assert_int_equal(r.status, 503);
	assert_header(&r, "Content-Type", "application/json");
	assert_string_equal(r.body, "{\"ok\":true}");

	get(port, "DELETE", "/metrics", &r);
	assert_int_equal(r.status, 405);
	assert_header(&r, "Allow", "GET, HEAD");
	assert_header(&r, "Cache-Control", "no-store");
	request_on(AF_INET, port, "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
		   "Content-Length: 5\r\n\r\nhello", &r);
	assert_int_equal(r.status, 405);
	request_on(AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
		   "Content-Length: 3\r\n\r\nabc", &r);
	assert_int_equal(r.status, 413);
	request_on(AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
		   "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", &r);
	assert_int_equal(r.status, 413);
	assert_int_equal(metrics_calls, 0);   /* refused before the handler */

	rv_http_stats(h, &req, &errs);
	assert_int_equal(req, 7);
	assert_int_equal(errs, 7);   /* 500 x2, 503, 405 x2, 413 x2 */
	rv_http_stop(h);
}

static void test_query(void **state)
{
	struct rv_http *h = start("127.0.0.1:0", NULL);
	struct reply r;

	(void)state;
	get(rv_http_port(h), "GET", "/echo?name=a%20b%26c&flag", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "name=a b&c flag= missing=(null)");
	get(rv_http_port(h), "GET", "/echo", &r);
	assert_string_equal(r.body, "name=(null) flag=(null) missing=(null)");
	rv_http_stop(h);
}

static void test_keep_alive(void **state)
{
	struct rv_http *h = start("127.0.0.1:0", NULL);
	const char *second;
	struct reply r;
	double t0;
	int fd;

	(void)state;
	/* Two pipelined requests on one connection, both answered in order. */
	request_on(AF_INET, rv_http_port(h),
		   "GET /echo?name=1 HTTP/1.1\r\nHost: x\r\n\r\n"
		   "GET /echo?name=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.raw, "name=1 flag="));
	second = strstr(r.raw + 1, "HTTP/1.1 200");
	if (!second)
		fail_msg("one answer only:\n%s", r.raw);
	assert_non_null(strstr(second, "name=2 flag="));

	/* Stopping closes a connection kept alive, promptly. */
	fd = connect_to(AF_INET, rv_http_port(h));
	send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
	usleep(100 * 1000);
	t0 = now_s();
	rv_http_stop(h);
	assert_true(now_s() - t0 < 1.0);
	read_reply(fd, &r);   /* the answer, then end of file */
	assert_int_equal(r.status, 200);
	assert_null(strstr(r.raw, "Connection: close"));
	close(fd);
}

static void test_port_in_use(void **state)
{
	struct rv_http *h = start("127.0.0.1:0", NULL), *h2 = (struct rv_http *)&h;
	char listen[64], want[96];
	struct rv_err err;
	struct reply r;

	(void)state;
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", rv_http_port(h));
	rv_err_clear(&err);
	assert_int_equal(rv_http_start(listen, routes, NROUTES, NULL, &h2, &err), -EADDRINUSE);
	assert_null(h2);
	snprintf(want, sizeof(want), "cannot listen on %s: ", listen);
	if (strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, "in use"))
		fail_msg("unexpected message: %s", err.msg);
	get(rv_http_port(h), "GET", "/metrics", &r);   /* the first one still serves */
	assert_int_equal(r.status, 200);
	rv_http_stop(h);
}

static void test_bad_listen(void **state)
{
	static const struct { const char *listen, *want; } cases[] = {
		{ "", "empty listen address (expected HOST:PORT, [IPV6]:PORT or :PORT)" },
		{ "abc", "listen address 'abc' has no port (expected HOST:PORT, [IPV6]:PORT or :PORT)" },
		{ "1.2.3.4:99999", "listen address '1.2.3.4:99999': port 99999 is out of range (0..65535)" },
		{ "1.2.3.4:", "listen address '1.2.3.4:' has no port" },
		{ "1.2.3.4:8x", "listen address '1.2.3.4:8x': port '8x' is not a number" },
		{ "1.2.3.4:-1", "listen address '1.2.3.4:-1': port '-1' is not a number" },
		{ "1.2.3.4:99999999999999999999999", "is out of range (0..65535)" },
		{ "example.org:80", "'example.org' is not a numeric IPv4 address" },
		{ "1.2.3:80", "'1.2.3' is not a numeric IPv4 address" },
		{ "::1:9464", "an IPv6 host goes in brackets, as in [::1]:9464" },
		{ "[::1]", "listen address '[::1]' has no port after ']'" },
		{ "[::1:80", "'[' without ']'" },
		{ "[]:80", "listen address '[]:80': bad host" },
		{ "[zz]:80", "'zz' is not an IPv6 address" },
		{ "[1.2.3.4]:80", "'1.2.3.4' is not an IPv6 address" },
	};
	struct rv_http *h;
	struct rv_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rv_err_clear(&err);
		assert_int_equal(rv_http_listen_check(cases[i].listen, &err), -EINVAL);
		if (!strstr(err.msg, cases[i].want))
			fail_msg("'%s': got '%s', want '%s'", cases[i].listen, err.msg, cases[i].want);
		rv_err_clear(&err);
		h = (struct rv_http *)&err;
		assert_int_equal(rv_http_start(cases[i].listen, routes, NROUTES, NULL, &h, &err),
				 -EINVAL);
		assert_null(h);
		assert_non_null(strstr(err.msg, cases[i].want));
	}
	assert_int_equal(rv_http_listen_check(NULL, NULL), -EINVAL);
	assert_int_equal(rv_http_listen_check("127.0.0.1:9464", NULL), 0);
	assert_int_equal(rv_http_listen_check(":9464", NULL), 0);
	assert_int_equal(rv_http_listen_check("[::1]:0", NULL), 0);
	assert_int_equal(rv_http_listen_check("localhost:65535", NULL), 0);
}

static void test_bind_error_names_address(void **state)
{
	struct rv_http *h;
	struct rv_err err;
	int rc;

	(void)state;
	rv_err_clear(&err);
	/* 192.0.2.1 (TEST-NET-1) is no address of this host. */
	rc = rv_http_start("192.0.2.1:0", routes, NROUTES, NULL, &h, &err);
	if (rc == 0) {
		print_message("this host binds non-local addresses (ip_nonlocal_bind)\n");
		rv_http_stop(h);
		skip();
	}
	assert_int_equal(rc, -EADDRNOTAVAIL);
	assert_null(h);
	assert_non_null(strstr(err.msg, "cannot listen on 192.0.2.1:0: "));
	assert_non_null(strstr(err.msg, "no interface of this host has that address"));
}

static void test_bad_limits_and_routes(void **state)
{
	static const struct { struct rv_http_limits lim; const char *want; } cases[] = {
		{ { .threads = 5 }, "http threads 5 is out of range (1..4)" },
		{ { .max_connections = 2000 }, "http max_connections 2000 is out of range (1..1024)" },
		{ { .timeout_s = 4000 }, "http timeout_s 4000 is out of range (1..3600)" },
		{ { .max_connections = 1, .threads = 2 }, "http max_connections 1 is below threads 2" },
		{ { .max_connections = 8, .per_client = 9 },
		  "http per_client 9 is above max_connections 8" },
	};
	const struct rv_http_route dup[] = { routes[0], routes[0] };
	const struct rv_http_route rel[] = { { "metrics", h_metrics, NULL } };
	const struct rv_http_route none[] = { { "/x", NULL, NULL } };
	struct rv_http *h;
	struct rv_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rv_err_clear(&err);
		assert_int_equal(rv_http_start("127.0.0.1:0", routes, NROUTES, &cases[i].lim, &h,
					       &err), -EINVAL);
		assert_string_equal(err.msg, cases[i].want);
	}
	rv_err_clear(&err);
	assert_int_equal(rv_http_start("127.0.0.1:0", dup, 2, NULL, &h, &err), -EINVAL);
	assert_string_equal(err.msg, "http route /metrics is listed twice");
	rv_err_clear(&err);
	assert_int_equal(rv_http_start("127.0.0.1:0", rel, 1, NULL, &h, &err), -EINVAL);
	assert_string_equal(err.msg, "http route 0: path must start with '/'");
	rv_err_clear(&err);
	assert_int_equal(rv_http_start("127.0.0.1:0", none, 1, NULL, &h, &err), -EINVAL);
	assert_string_equal(err.msg, "http route 0: no handler");
}

static void test_thread_pool_and_any(void **state)
{
	const struct rv_http_limits lim = { .threads = 4, .max_connections = 8 };
	struct rv_http *h = start(":0", &lim);
	struct reply r;

	(void)state;
	for (int i = 0; i < 12; i++) {   /* reachable over IPv4 on the wildcard */
		get(rv_http_port(h), "GET", "/echo?name=x", &r);
		assert_int_equal(r.status, 200);
		assert_string_equal(r.body, "name=x flag=(null) missing=(null)");
	}
	rv_http_stop(h);
}

static void test_ipv6_loopback(void **state)
{
	struct rv_http *h = NULL;
	struct rv_err err;
	struct reply r;
	int rc;

	(void)state;
	rv_err_clear(&err);
	rc = rv_http_start("[::1]:0", routes, NROUTES, NULL, &h, &err);
	if (rc == -EADDRNOTAVAIL || rc == -EAFNOSUPPORT) {
		print_message("no IPv6 loopback here: %s\n", err.msg);
		skip();
	}
	assert_int_equal(rc, 0);
	request_on(AF_INET6, rv_http_port(h),
		   "GET /echo?name=v6 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "name=v6 flag=(null) missing=(null)");
	rv_http_stop(h);
}

static void test_idle_timeout(void **state)
{
	const struct rv_http_limits lim = { .timeout_s = 1 };
	struct rv_http *h = start("127.0.0.1:0", &lim);
	int fd = connect_to(AF_INET, rv_http_port(h));
	double t0 = now_s(), dt;
	char c;

	(void)state;
	assert_int_equal(recv(fd, &c, 1, 0), 0);   /* closed by the server, not our timeout */
	dt = now_s() - t0;
	assert_true(dt > 0.5 && dt < CLIENT_TIMEOUT_S);
	close(fd);
	rv_http_stop(h);
}

/* Counts the fds of fd[0..n) the server has closed, waiting until want of
 * them are (or 2 s have passed), then a little more for any extra. */
static int count_closed(const int *fd, int n, int want)
{
	int closed = 0;
	double t0 = now_s();

	for (int round = 0; round < 2; round++) {
		do {
			closed = 0;
			for (int i = 0; i < n; i++)
				closed += closed_by_server(fd[i], 0);
			if (closed < want)
				usleep(20 * 1000);
		} while (closed < want && now_s() - t0 < 2.0);
		usleep(200 * 1000);
	}
	return closed;
}

static void test_one_client_many_idle(void **state)
{
	struct rv_http *h = start("127.0.0.1:0", NULL);   /* 32 connections, 8 a client */
	int port = rv_http_port(h), fd[N_IDLE], closed;
	struct reply r;
	double t0;

	(void)state;
	for (int i = 0; i < N_IDLE; i++)
		fd[i] = connect_from("127.0.0.1", port);
	/* 8 are kept (idle for 10 s), the others closed at once, none queued */
	closed = count_closed(fd, N_IDLE, N_IDLE - RV_HTTP_DEF_PER_CLIENT);
	assert_int_equal(closed, N_IDLE - RV_HTTP_DEF_PER_CLIENT);
	t0 = now_s();
	get_from("127.0.0.2", port, "/metrics", &r);   /* another client: served */
	print_message("127.0.0.2 served in %.3f s\n", now_s() - t0);
	assert_int_equal(r.status, 200);
	assert_true(now_s() - t0 < 1.0);
	t0 = now_s();
	get_from("127.0.0.1", port, "/metrics", &r);   /* the full one: refused */
	assert_int_equal(r.status, -1);
	assert_true(now_s() - t0 < 1.0);
	for (int i = 0; i < N_IDLE; i++)
		close(fd[i]);
	usleep(100 * 1000);
	get_from("127.0.0.1", port, "/metrics", &r);   /* released: served again */
	assert_int_equal(r.status, 200);
	rv_http_stop(h);
}

static void test_full_server_refuses(void **state)
{
	const struct rv_http_limits lim = { .max_connections = 4, .per_client = 2 };
	struct rv_http *h = start("127.0.0.1:0", &lim);
	int port = rv_http_port(h), fd[4];
	struct reply r;
	double t0;

	(void)state;
	for (int i = 0; i < 4; i++)
		fd[i] = connect_from(i < 2 ? "127.0.0.1" : "127.0.0.2", port);
	assert_int_equal(count_closed(fd, 4, 0), 0);
	/* every slot held: a third client is closed at once, not queued */
	t0 = now_s();
	get_from("127.0.0.3", port, "/metrics", &r);
	print_message("full server: status %d after %.3f s\n", r.status, now_s() - t0);
	assert_int_equal(r.status, -1);
	assert_true(now_s() - t0 < 1.0);
	close(fd[0]);
	usleep(100 * 1000);
	get_from("127.0.0.3", port, "/metrics", &r);   /* a slot is free */
	assert_int_equal(r.status, 200);
	for (int i = 1; i < 4; i++)
		close(fd[i]);
	rv_http_stop(h);
}

/* A header sent a byte every TRICKLE_MS never leaves the connection idle
 * for timeout_s (1 s); the request deadline (2 s) closes it. */
static void test_trickle_deadline(void **state)
{
	const struct rv_http_limits lim = { .timeout_s = 1 };
	struct rv_http *h = start("127.0.0.1:0", &lim);
	int fd = connect_from("127.0.0.1", rv_http_port(h)), closed = 0;
	double t0 = now_s(), dt;

	(void)state;
	send_all(fd, "GET /metrics HTTP/1.1\r\nX-Pad: ");
	while (!closed && now_s() - t0 < CLIENT_TIMEOUT_S) {
		closed = closed_by_server(fd, TRICKLE_MS);
		if (!closed && send(fd, "a", 1, MSG_NOSIGNAL) != 1)
			closed = 1;
	}
	dt = now_s() - t0;
	print_message("trickling client closed after %.2f s\n", dt);
	assert_true(closed);
	assert_true(dt > 1.5 && dt < 3.5);
	close(fd);
	rv_http_stop(h);
}

/* Reads one answer to HEAD (headers only) on a kept-alive connection. */
static int head_status(int fd)
{
	char buf[2048];
	size_t n = 0;
	ssize_t got;

	while (n < sizeof(buf) - 1 && (got = recv(fd, buf + n, sizeof(buf) - 1 - n, 0)) > 0) {
		n += (size_t)got;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			return strncmp(buf, "HTTP/1.1 ", 9) == 0 ? (int)strtol(buf + 9, NULL, 10) : -1;
	}
	return -1;
}

/* The deadline is per request: a kept-alive connection asking every
 * 0.6 s is served past 2 s. */
static void test_keep_alive_past_deadline(void **state)
{
	const struct rv_http_limits lim = { .timeout_s = 1 };
	struct rv_http *h = start("127.0.0.1:0", &lim);
	int fd = connect_from("127.0.0.1", rv_http_port(h));

	(void)state;
	for (int i = 0; i < 6; i++) {
		send_all(fd, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
		assert_int_equal(head_status(fd), 200);
		usleep(600 * 1000);
	}
	close(fd);
	rv_http_stop(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_and_head),
		cmocka_unit_test(test_error_answers),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_keep_alive),
		cmocka_unit_test(test_port_in_use),
		cmocka_unit_test(test_bad_listen),
		cmocka_unit_test(test_bind_error_names_address),
		cmocka_unit_test(test_bad_limits_and_routes),
		cmocka_unit_test(test_thread_pool_and_any),
		cmocka_unit_test(test_ipv6_loopback),
		cmocka_unit_test(test_idle_timeout),
		cmocka_unit_test(test_one_client_many_idle),
		cmocka_unit_test(test_full_server_refuses),
		cmocka_unit_test(test_trickle_deadline),
		cmocka_unit_test(test_keep_alive_past_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
