/*
 * promapi_http_test.c - the HTTP side of the Prometheus API reader
 * (promapi.h) against a small HTTP server run by this test in a thread on
 * 127.0.0.1: what each request sends (method, path under a base URL,
 * form or query string, headers, auth), one connection kept alive across
 * requests, the answers' status codes and error bodies, an answer past
 * the size limit (with and without Content-Length: refused, not read to
 * the end), a server that closes the connection or goes silent, a
 * connection refused, arguments refused before any request, counters.
 * Every wait on the server is bounded by a deadline.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "remote/promapi.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

enum {
	REPLIES_MAX = 8,
	LOG_MAX = 16384,         /* the requests received, one after another */
	WAIT_MS = 10000,         /* the longest the server waits for anything */
	FLOOD_CHUNK = 65536,
	FLOOD_TOTAL = 64 << 20,  /* what a flooding server would send */
	LIMIT = 1 << 20,         /* the reader's max_body_bytes there */
};

enum mode {
	REPLY,      /* status and body */
	CLOSE,      /* read the request, close without a word */
	PARTIAL,    /* promise 1000 bytes, send 10, close */
	SILENT,     /* read the request, wait until the client gives up */
	FLOOD,      /* 200 and FLOOD_TOTAL bytes */
	FLOOD_LEN,  /* the same, announced by Content-Length */
};

struct reply {
	enum mode mode;
	int status;
	const char *body;
};

struct srv {
	int lfd, port;
	pthread_t th;
	struct reply replies[REPLIES_MAX];
	size_t nreplies;
	int keep_alive;
	/* what the thread saw (read after pthread_join) */
	char log[LOG_MAX];
	size_t log_len;
	int accepts;
	size_t served;
	size_t sent;
};

static const char RANGE[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
	"{\"metric\":{\"__name__\":\"reveal_channel_mean\",\"node\":\"n1\"},"
	"\"values\":[[1700000000,\"1.5\"],[1700000010,\"NaN\"]]}]}}";
static const char VECTOR[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
	"{\"metric\":{\"node\":\"n1\"},\"value\":[1700000000,\"2\"]}]}}";
static const char SERIES[] =
	"{\"status\":\"success\",\"data\":[{\"__name__\":\"reveal_fact_info\",\"node\":\"n1\"}]}";
static const char VALUES[] = "{\"status\":\"success\",\"data\":[\"n1\",\"n2\"]}";
static const char BAD_DATA[] =
	"{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter \\\"query\\\"\"}";

/* ---------------------------------------------------------------- server */

static long ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Waits for fd to be readable before the deadline: 1, or 0. */
static int wait_in(int fd, const struct timespec *deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long ms = ms_left(deadline);

	return ms > 0 && poll(&p, 1, (int)ms) == 1;
}

static void log_put(struct srv *s, const char *p, size_t n)
{
	if (n > LOG_MAX - 1 - s->log_len)
		n = LOG_MAX - 1 - s->log_len;
	memcpy(s->log + s->log_len, p, n);
	s->log_len += n;
	s->log[s->log_len] = '\0';
}

/* Reads one request (headers and Content-Length bytes of body) into the
 * log: 1, or 0 when the connection ended or the deadline passed. */
static int read_request(struct srv *s, int fd, const struct timespec *deadline)
{
	char buf[8192];
	size_t have = 0, need = SIZE_MAX;

	while (have < need) {
		ssize_t n;
		char *end;

		if (have == sizeof(buf) - 1 || !wait_in(fd, deadline))
			return 0;
		n = recv(fd, buf + have, sizeof(buf) - 1 - have, 0);
		if (n <= 0)
			return 0;
		have += (size_t)n;
		buf[have] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (end && need == SIZE_MAX) {
			const char *cl = strcasestr(buf, "\r\nContent-Length:");
			need = (size_t)(end + 4 - buf) + (cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0);
		}
	}
	log_put(s, buf, have);
	log_put(s, "\n----\n", 6);
	return 1;
}

static void send_all(struct srv *s, int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return;
		s->sent += (size_t)w;
		p += w;
		n -= (size_t)w;
	}
}

static void flood(struct srv *s, int fd, int with_length)
{
	static char chunk[FLOOD_CHUNK];
	char head[256];
	size_t before;

	memset(chunk, ' ', sizeof(chunk));
	snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n%s\r\n",
		 with_length ? "Content-Length: 67108864\r\n" : "Connection: close\r\n");
	send_all(s, fd, head, strlen(head));
	s->sent = 0;
	for (size_t i = 0; i < FLOOD_TOTAL / FLOOD_CHUNK; i++) {
		before = s->sent;
		send_all(s, fd, chunk, sizeof(chunk));
		if (s->sent - before < sizeof(chunk))
			return;    /* the client hung up */
	}
}

/* Answers one request as r says; 1 when the connection may serve more. */
static int answer(struct srv *s, int fd, const struct reply *r, const struct timespec *deadline)
{
	char head[256];
	size_t len = r->body ? strlen(r->body) : 0;

	switch (r->mode) {
	case CLOSE:
		return 0;
	case PARTIAL:
		send_all(s, fd, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"status\":", 50);
		return 0;
	case SILENT:
		while (wait_in(fd, deadline) && recv(fd, head, sizeof(head), 0) > 0)
			;
		return 0;
	case FLOOD:
	case FLOOD_LEN:
		flood(s, fd, r->mode == FLOOD_LEN);
		return 0;
	case REPLY:
		break;
	}
	snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
		 "Content-Length: %zu\r\n%s\r\n", r->status, len,
		 s->keep_alive ? "" : "Connection: close\r\n");
	send_all(s, fd, head, strlen(head));
	send_all(s, fd, r->body ? r->body : "", len);
	return s->keep_alive;
}

static void *serve(void *arg)
{
	struct srv *s = arg;
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += WAIT_MS / 1000;
	while (s->served < s->nreplies && wait_in(s->lfd, &deadline)) {
		int fd = accept(s->lfd, NULL, NULL), more = 1;

		if (fd < 0)
			break;
		s->accepts++;
		while (more && s->served < s->nreplies && read_request(s, fd, &deadline))
			more = answer(s, fd, &s->replies[s->served++], &deadline);
		close(fd);
	}
	return NULL;
}

/* A listening socket on 127.0.0.1 and an ephemeral port. */
static int listen_any(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Starts a server that gives the replies in order, then ends. */
static struct srv *srv_start(const struct reply *replies, size_t n, int keep_alive)
{
	struct srv *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	assert_true(n <= REPLIES_MAX);
	memcpy(s->replies, replies, n * sizeof(*replies));
	s->nreplies = n;
	s->keep_alive = keep_alive;
	s->lfd = listen_any(&s->port);
	assert_int_equal(pthread_create(&s->th, NULL, serve, s), 0);
	return s;
}

static void srv_join(struct srv *s)
{
	pthread_join(s->th, NULL);
	close(s->lfd);
}

/* A reader of http://127.0.0.1:PORT/BASE. */
static struct rv_prom *reader(int port, const char *base, const struct rv_prom_limits *lim,
			      double timeout_s)
{
	char url[128];
	struct rv_httpc_opts o = { .url = url, .timeout_s = timeout_s };
	struct rv_err err = { 0 };
	struct rv_prom *p = NULL;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, base);
	if (rv_prom_new(&o, lim, &p, &err) != 0)
		fail_msg("rv_prom_new: %s", err.msg);
	return p;
}

static void expect_err(int rc, const struct rv_err *err, int code, const char *text)
{
	if (rc != code || err->code != code || !strstr(err->msg, text))
		fail_msg("got %d \"%s\", want %d with \"%s\"", rc, err->msg, code, text);
}

/* ------------------------------------------------------------------ tests */

static void test_requests(void **state)
{
	const struct reply replies[] = {
		{ REPLY, 200, RANGE }, { REPLY, 200, VECTOR }, { REPLY, 200, SERIES },
		{ REPLY, 200, VALUES }, { REPLY, 200, VALUES },
	};
	struct srv *s = srv_start(replies, N(replies), 1);
	char url[128];
	struct rv_httpc_opts o = {
		.url = url, .headers = { "X-Scope-OrgID: tenant1" }, .nheaders = 1,
		.bearer_token = "tok",
	};
	struct rv_prom_result r = { 0 };
	struct rv_prom_stats st;
	struct rv_err err = { 0 };
	struct rv_prom *p = NULL;

	(void)state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/select/0/prometheus/", s->port);
	assert_int_equal(rv_prom_new(&o, NULL, &p, &err), 0);
	assert_int_equal(rv_prom_query_range(p, "reveal_channel_mean{channel=\"c17\"}", 1700000000,
					     1700003600.5, 10, &r, &err), 0);
	assert_int_equal(r.nseries, 1);
	assert_true(isnan(r.series[0].v[1]));
	assert_int_equal(rv_prom_query(p, "up", 1700000000.25, &r, &err), 0);
	assert_int_equal(r.type, RV_PROM_VECTOR);
	assert_int_equal(rv_prom_series(p, "reveal_fact_info{group=\"a b\"}", 1, 2, &r, &err), 0);
	assert_string_equal(rv_prom_label(&r.series[0], "node"), "n1");
	assert_int_equal(rv_prom_label_values(p, "node", "reveal_channel_mean", 1, 2, &r, &err), 0);
	assert_int_equal(r.nvalues, 2);
	assert_int_equal(rv_prom_label_values(p, "node", NULL, 1, 2.5, &r, &err), 0);
	assert_string_equal(r.values[1], "n2");
	rv_prom_stats(p, &st);
	assert_int_equal(st.requests, 5);
	assert_int_equal(st.failed, 0);
	assert_int_equal(st.body_bytes, strlen(RANGE) + strlen(VECTOR) + strlen(SERIES) +
			 2 * strlen(VALUES));
	assert_true(st.wire_bytes > 0 && st.seconds > 0);
	rv_prom_free(p);
	rv_prom_result_fini(&r);
	srv_join(s);
	assert_int_equal(s->served, 5);
	assert_int_equal(s->accepts, 1);   /* one connection, kept alive */
	static const char *const want[] = {
		"POST /select/0/prometheus/api/v1/query_range HTTP/1.1\r\n",
		"Content-Type: application/x-www-form-urlencoded",
		"\r\n\r\nquery=reveal_channel_mean%7Bchannel%3D%22c17%22%7D&start=1700000000.000"
		"&end=1700003600.500&step=10.000\n",
		"\r\n\r\nquery=up&time=1700000000.250\n",
		"POST /select/0/prometheus/api/v1/series HTTP/1.1\r\n",
		"\r\n\r\nmatch[]=reveal_fact_info%7Bgroup%3D%22a%20b%22%7D&start=1.000&end=2.000\n",
		"GET /select/0/prometheus/api/v1/label/node/values?match[]=reveal_channel_mean"
		"&start=1.000&end=2.000 HTTP/1.1\r\n",
		"GET /select/0/prometheus/api/v1/label/node/values?start=1.000&end=2.500 HTTP/1.1\r\n",
		"X-Scope-OrgID: tenant1\r\n", "Authorization: Bearer tok\r\n",
		"Accept: application/json\r\n", "Accept-Encoding: ", "User-Agent: reveal/",
	};
	for (size_t i = 0; i < N(want); i++)
		if (!strstr(s->log, want[i]))
			fail_msg("the requests lack \"%s\":\n%s", want[i], s->log);
	free(s);
}

static void test_http_errors(void **state)
{
	static char long_body[1001];
	const struct reply replies[] = {
		{ REPLY, 400, BAD_DATA },
		{ REPLY, 200, BAD_DATA },
		{ REPLY, 503, "upstream down\n\x01\xff" },
		{ REPLY, 401, "" },
		{ REPLY, 502, long_body },
		{ REPLY, 404, "404 page not found\n" },
		{ REPLY, 200, "<html>not json</html>" },
		{ REPLY, 200, "{\"status\":\"success\",\"data\":{\"resultType\":\"string\","
			      "\"result\":[1,\"a\"]}}" },
	};
	const struct {
		int code;
		const char *text;
	} want[] = {
		{ -EINVAL, "/api/v1/query: HTTP 400: API error bad_data: invalid parameter \"query\"" },
		{ -EINVAL, "/api/v1/query: API error bad_data" },
		{ -EAGAIN, "HTTP 503: upstream down  ?" },
		{ -EACCES, "HTTP 401 (no body)" },
		{ -EIO, "HTTP 502: xxxx" },
		{ -ENOENT, "HTTP 404: 404 page not found" },
		{ -EBADMSG, "/api/v1/query: malformed JSON: answer:1:1:" },
		{ -EBADMSG, "/api/v1/query: data.resultType \"string\": not a number type a query" },
	};
	struct srv *s;
	struct rv_prom_result r = { 0 };
	struct rv_prom_stats st;
	struct rv_err err;
	struct rv_prom *p;

	(void)state;
	memset(long_body, 'x', sizeof(long_body) - 1);
	s = srv_start(replies, N(replies), 0);
	p = reader(s->port, "", NULL, 0);
	for (size_t i = 0; i < N(want); i++) {
		rv_err_clear(&err);
		expect_err(rv_prom_query(p, "up", 1, &r, &err), &err, want[i].code, want[i].text);
		assert_null(r.mem);
	}
	rv_prom_stats(p, &st);
	assert_int_equal(st.requests, N(want));
	assert_int_equal(st.failed, N(want));
	rv_prom_free(p);
	srv_join(s);
	assert_int_equal(s->accepts, N(want));
	free(s);
}

/* A body is quoted to 200 bytes at most. */
static void test_quoted_length(void **state)
{
	static char long_body[1001];
	const struct reply replies[] = { { REPLY, 502, long_body } };
	struct srv *s;
	struct rv_prom_result r = { 0 };
	struct rv_err err = { 0 };
	struct rv_prom *p;
	const char *x;

	(void)state;
	memset(long_body, 'x', sizeof(long_body) - 1);
	s = srv_start(replies, N(replies), 0);
	p = reader(s->port, "", NULL, 0);
	expect_err(rv_prom_query(p, "up", 1, &r, &err), &err, -EIO, "HTTP 502: ");
	x = strstr(err.msg, "HTTP 502: ") + 10;
	assert_int_equal(strlen(x), 200);
	assert_int_equal(strspn(x, "x"), 200);
	rv_prom_free(p);
	srv_join(s);
	free(s);
}

static void test_oversized(void **state)
{
	const struct rv_prom_limits lim = { .max_body_bytes = LIMIT };
	const enum mode modes[] = { FLOOD, FLOOD_LEN };

	(void)state;
	for (size_t i = 0; i < N(modes); i++) {
		const struct reply replies[] = { { modes[i], 200, NULL } };
		struct srv *s = srv_start(replies, 1, 0);
		struct rv_prom *p = reader(s->port, "", &lim, 0);
		struct rv_prom_result r = { 0 };
		struct rv_err err = { 0 };

		expect_err(rv_prom_query_range(p, "up", 1, 2, 1, &r, &err), &err, -E2BIG,
			   "the answer is larger than the limit of 1048576 bytes");
		assert_null(r.mem);
		rv_prom_free(p);
		srv_join(s);
		/* the reader hung up: the server could not send it all (what it
		 * did send is the limit plus the sockets' buffers) */
		if (s->sent >= FLOOD_TOTAL / 2)
			fail_msg("mode %zu: the server sent %zu bytes", i, s->sent);
		free(s);
	}
}

static void test_closed(void **state)
{
	const struct reply replies[] = {
		{ CLOSE, 0, NULL }, { PARTIAL, 0, NULL }, { REPLY, 200, RANGE },
	};
	struct srv *s = srv_start(replies, N(replies), 0);
	struct rv_prom *p = reader(s->port, "", NULL, 0);
	struct rv_prom_result r = { 0 };
	struct rv_err err = { 0 };
	char url[64];

	(void)state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/query_range: ", s->port);
	expect_err(rv_prom_query_range(p, "up", 1, 2, 1, &r, &err), &err, -EIO, url);
	rv_err_clear(&err);
	expect_err(rv_prom_query_range(p, "up", 1, 2, 1, &r, &err), &err, -EIO, url);
	if (!strstr(err.msg, "remaining to read"))
		fail_msg("%s", err.msg);
	/* and the reader recovers */
	assert_int_equal(rv_prom_query_range(p, "up", 1, 2, 1, &r, &err), 0);
	assert_int_equal(r.npoints, 2);
	rv_prom_result_fini(&r);
	rv_prom_free(p);
	srv_join(s);
	free(s);
}

static void test_refused_and_timeout(void **state)
{
	const struct reply replies[] = { { SILENT, 0, NULL } };
	struct rv_prom_result r = { 0 };
	struct rv_err err = { 0 };
	struct timespec t0, t1;
	struct rv_prom *p;
	struct srv *s;
	char want[64];
	int port, fd;

	(void)state;
	fd = listen_any(&port);
	close(fd);             /* nobody listens there now */
	p = reader(port, "", NULL, 0);
	snprintf(want, sizeof(want), "http://127.0.0.1:%d/api/v1/query: ", port);
	expect_err(rv_prom_query(p, "up", 1, &r, &err), &err, -ECONNREFUSED, want);
	rv_prom_free(p);

	s = srv_start(replies, 1, 0);
	p = reader(s->port, "", NULL, 0.3);
	rv_err_clear(&err);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect_err(rv_prom_query(p, "up", 1, &r, &err), &err, -ETIMEDOUT, "/api/v1/query: ");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	rv_prom_free(p);
	srv_join(s);
	free(s);
}

/* Bad arguments are refused before anything is sent (a request would
 * fail otherwise: nothing listens on the port). */
static void test_arguments(void **state)
{
	const struct rv_prom_limits big[] = {
		{ .max_body_bytes = RV_PROM_MAX_BODY_BYTES + 1 },
		{ .max_series = RV_PROM_MAX_SERIES + 1 },
		{ .max_points = RV_PROM_MAX_POINTS + 1 },
	};
	struct rv_httpc_opts o = { .url = "ftp://x" };
	struct rv_prom_result r = { 0 };
	struct rv_prom_stats st;
	struct rv_err err = { 0 };
	struct rv_prom *p = NULL;
	int port, fd = listen_any(&port);

	(void)state;
	close(fd);
	expect_err(rv_prom_new(&o, NULL, &p, &err), &err, -EINVAL, "ftp://x");
	assert_null(p);
	o.url = "http://127.0.0.1:1";
	for (size_t i = 0; i < N(big); i++) {
		rv_err_clear(&err);
		expect_err(rv_prom_new(&o, &big[i], &p, &err), &err, -E2BIG, "more than");
	}
	p = reader(port, "", NULL, 0);
	rv_err_clear(&err);
	expect_err(rv_prom_query_range(p, "up", 2, 1, 1, &r, &err), &err, -EINVAL, "time range");
	rv_err_clear(&err);
	expect_err(rv_prom_query_range(p, "up", NAN, 1, 1, &r, &err), &err, -EINVAL, "time range");
	rv_err_clear(&err);
	expect_err(rv_prom_query_range(p, "up", 1, 2, 0.0001, &r, &err), &err, -EINVAL, "step");
	rv_err_clear(&err);
	expect_err(rv_prom_query_range(p, "", 1, 2, 1, &r, &err), &err, -EINVAL, "query_range: empty query");
	rv_err_clear(&err);
	expect_err(rv_prom_query(p, "up", INFINITY, &r, &err), &err, -EINVAL, "time range");
	rv_err_clear(&err);
	expect_err(rv_prom_series(p, NULL, 1, 2, &r, &err), &err, -EINVAL, "series: empty match");
	rv_err_clear(&err);
	expect_err(rv_prom_label_values(p, "no-de", NULL, 1, 2, &r, &err), &err, -EINVAL,
		   "label name \"no-de\"");
	rv_err_clear(&err);
	expect_err(rv_prom_label_values(p, "9a", NULL, 1, 2, &r, &err), &err, -EINVAL, "label name");
	rv_prom_stats(p, &st);
	assert_int_equal(st.requests, 0);
	rv_err_clear(&err);
	expect_err(rv_prom_query(p, "up", 1, &r, &err), &err, -ECONNREFUSED, "/api/v1/query");
	rv_prom_free(p);
	rv_prom_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_http_errors),
		cmocka_unit_test(test_quoted_length),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_closed),
		cmocka_unit_test(test_refused_and_timeout),
		cmocka_unit_test(test_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
