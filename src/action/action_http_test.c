/*
 * action_http_test.c - webhook actions (action/action.h) against a small
 * HTTP/1.1 server inside the test (a thread on 127.0.0.1 that records
 * each request's method, path, headers and body and answers it with a
 * scripted status, or never): the POST carries the JSON byte for byte,
 * Content-Type: application/json, the configured header and the bearer
 * token; a 500 fails with the answer's first line, logged once; a server
 * that never answers times out at the action's timeout; a port nobody
 * listens on fails. Every wait is bounded (WAIT_S).
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

#include "action/action.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/log_testutil.h"

#define WAIT_S 10.0

enum { SRV_MAX_REQS = 8, SRV_BUF = 65536, SRV_POLL_MS = 20, URL_BUF = 128 };

/* ---- the server ---- */

struct got {
	char method[16], path[128], head[4096];
	char body[4096];
	size_t len;
};

struct srv {
	int lfd, port;
	pthread_t th;
	atomic_int stop;
	int status;                  /* answer; 0: never answer */
	const char *answer;          /* its body */
	pthread_mutex_t mu;
	size_t nreq;
	struct got reqs[SRV_MAX_REQS];
	char buf[SRV_BUF];
};

/* Reads into s->buf[*len..]: 1 read, 0 EOF or stop, -1 error. */
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

/* One request recorded (and answered, unless the server is silent). */
static void srv_conn(struct srv *s, int fd)
{
	size_t len = 0, hlen, blen;
	const char *end, *cl;
	char out[1024];
	struct got *g;
	int n;

	s->buf[0] = 0;
	while (!(end = strstr(s->buf, "\r\n\r\n")))
		if (srv_read(s, fd, &len) <= 0)
			return;
	hlen = (size_t)(end - s->buf) + 4;
	cl = strcasestr(s->buf, "\r\ncontent-length:");
	blen = cl ? strtoul(cl + 17, NULL, 10) : 0;
	while (len < hlen + blen)
		if (srv_read(s, fd, &len) <= 0)
			return;
	pthread_mutex_lock(&s->mu);
	if (s->nreq < SRV_MAX_REQS) {
		g = &s->reqs[s->nreq++];
		snprintf(g->head, sizeof(g->head), "%.*s", (int)hlen, s->buf);
		snprintf(g->method, sizeof(g->method), "%.*s", (int)strcspn(s->buf, " "), s->buf);
		end = strchr(s->buf, ' ') + 1;
		snprintf(g->path, sizeof(g->path), "%.*s", (int)strcspn(end, " "), end);
		g->len = blen < sizeof(g->body) ? blen : sizeof(g->body) - 1;
		memcpy(g->body, s->buf + hlen, g->len);
	}
	pthread_mutex_unlock(&s->mu);
	if (!s->status) {            /* hold the connection, say nothing */
		while (srv_read(s, fd, &len) > 0)
			len = 0;
		return;
	}
	n = snprintf(out, sizeof(out), "HTTP/1.1 %d Scripted\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n%s", s->status, strlen(s->answer), s->answer);
	if (write(fd, out, (size_t)n) != n)
		return;
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	struct pollfd p = { .fd = s->lfd, .events = POLLIN };
	int fd;

	while (!atomic_load(&s->stop)) {
		if (poll(&p, 1, SRV_POLL_MS) <= 0)
			continue;
		if ((fd = accept(s->lfd, NULL, NULL)) < 0)
			continue;
		srv_conn(s, fd);
		close(fd);
	}
	return NULL;
}

static struct srv *srv_start(int status, const char *answer)
{
	struct srv *s = calloc(1, sizeof(*s));
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);

	assert_non_null(s);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->lfd, 8), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&a, &alen), 0);
	s->port = ntohs(a.sin_port);
	s->status = status;
	s->answer = answer;
	pthread_mutex_init(&s->mu, NULL);
	atomic_init(&s->stop, 0);
	assert_int_equal(pthread_create(&s->th, NULL, srv_main, s), 0);
	return s;
}

static void srv_stop(struct srv *s)
{
	atomic_store(&s->stop, 1);
	pthread_join(s->th, NULL);
	close(s->lfd);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* The value of header name in g ("" when absent), into out. */
static const char *header(const struct got *g, const char *name, char *out, size_t cap)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "\r\n%s:", name);
	out[0] = 0;
	if ((p = strcasestr(g->head, key))) {
		p += strlen(key);
		p += strspn(p, " ");
		snprintf(out, cap, "%.*s", (int)strcspn(p, "\r"), p);
	}
	return out;
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

static char url[URL_BUF];

static struct rv_actions *start_hook(int port, double timeout_s)
{
	struct rv_action_spec sp = { .name = "page", .timeout_s = timeout_s,
				     .events = (1u << RV_ACTION_OPEN) | (1u << RV_ACTION_CLOSE) };
	struct rv_actions_opts o = { .spec = &sp, .n = 1 };
	struct rv_actions *s = NULL;
	struct rv_err err = { 0 };

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", port);
	sp.http.url = url;
	sp.http.headers[0] = "X-Team: infra";
	sp.http.nheaders = 1;
	sp.http.bearer_token = "tok3n";
	if (rv_actions_new(&o, &s, &err) != 0)
		fail_msg("rv_actions_new: %s", err.msg);
	return s;
}

static void submit(struct rv_actions *s, enum rv_action_event ev, uint64_t id, const char *json)
{
	struct rv_action_incident in = { .event = ev, .id = id, .severity = RV_SEV_CRITICAL,
					 .subsystem = "gpu", .host = "node7", .json = json,
					 .len = strlen(json) };

	assert_int_equal(rv_actions_submit(s, &in), 1);
}

static struct rv_action_stats wait_runs(struct rv_actions *s, uint64_t n)
{
	struct rv_action_stats st;
	rv_ns t0 = rv_clock_ns();

	for (;;) {
		rv_actions_stats(s, 0, &st);
		if (st.runs[RV_ACTION_OK] + st.runs[RV_ACTION_FAILED] + st.runs[RV_ACTION_TIMEOUT] >= n)
			return st;
		if (rv_clock_since_s(t0) > WAIT_S)
			fail_msg("runs did not finish");
		usleep(5000);
	}
}

/* ---- tests ---- */

static void test_post(void **state)
{
	static const char json[] = "{\"event\":\"open\",\"id\":3,\"host\":\"node7\",\"x\":\"\xc3\xa9\"}\n";
	struct srv *srv = srv_start(204, "");
	struct rv_actions *s = start_hook(srv->port, 5.0);
	struct rv_action_stats st;
	char v[512];

	(void)state;
	submit(s, RV_ACTION_OPEN, 3, json);
	st = wait_runs(s, 1);
	assert_int_equal(st.runs[RV_ACTION_OK], 1);
	pthread_mutex_lock(&srv->mu);
	assert_int_equal(srv->nreq, 1);
	assert_string_equal(srv->reqs[0].method, "POST");
	assert_string_equal(srv->reqs[0].path, "/hook");
	assert_int_equal(srv->reqs[0].len, strlen(json));
	assert_memory_equal(srv->reqs[0].body, json, strlen(json));
	assert_string_equal(header(&srv->reqs[0], "Content-Type", v, sizeof(v)), "application/json");
	assert_string_equal(header(&srv->reqs[0], "X-Team", v, sizeof(v)), "infra");
	assert_string_equal(header(&srv->reqs[0], "Authorization", v, sizeof(v)), "Bearer tok3n");
	assert_string_equal(header(&srv->reqs[0], "Expect", v, sizeof(v)), "");
	assert_true(strncmp(header(&srv->reqs[0], "User-Agent", v, sizeof(v)), "reveal/", 7) == 0);
	pthread_mutex_unlock(&srv->mu);
	rv_actions_free(s);
	srv_stop(srv);
	assert_int_equal(logged(RV_LOG_WARN, "page"), 0);
	assert_int_equal(logged(-1, "tok3n"), 0);
}

/* 500: failed with the answer's first line, logged once for two runs. */
static void test_500(void **state)
{
	struct srv *srv = srv_start(500, "busy right now\nsecond line");
	struct rv_actions *s = start_hook(srv->port, 5.0);
	struct rv_action_stats st;

	(void)state;
	submit(s, RV_ACTION_OPEN, 1, "{}\n");
	submit(s, RV_ACTION_CLOSE, 1, "{}\n");
	st = wait_runs(s, 2);
	assert_int_equal(st.runs[RV_ACTION_FAILED], 2);
	assert_string_equal(st.last_error, "HTTP 500: busy right now");
	assert_int_equal(logged(RV_LOG_WARN, "action page: incident 1 open: HTTP 500: busy right "
				"now"), 1);
	assert_int_equal(logged(RV_LOG_WARN, "HTTP 500"), 1);
	rv_actions_free(s);
	srv_stop(srv);
	assert_int_equal(logged(RV_LOG_INFO, "action page: 2 runs: 0 ok, 2 failed, 0 timed out; "
				"0 dropped"), 1);
}

/* A server that takes the request and never answers: cut at the timeout. */
static void test_timeout(void **state)
{
	struct srv *srv = srv_start(0, NULL);
	struct rv_actions *s = start_hook(srv->port, 0.5);
	struct rv_action_stats st;
	rv_ns t0 = rv_clock_ns();

	(void)state;
	submit(s, RV_ACTION_OPEN, 2, "{}\n");
	assert_true(rv_clock_since_s(t0) < 0.05);
	st = wait_runs(s, 1);
	assert_true(rv_clock_since_s(t0) >= 0.5 && rv_clock_since_s(t0) < 2.0);
	assert_int_equal(st.runs[RV_ACTION_TIMEOUT], 1);
	assert_string_equal(st.last_error, "timed out after 0.5 s");
	pthread_mutex_lock(&srv->mu);
	assert_int_equal(srv->nreq, 1);   /* it arrived, whole */
	pthread_mutex_unlock(&srv->mu);
	rv_actions_free(s);
	srv_stop(srv);
}

/* Nobody listens: a transport error, failed. */
static void test_refused(void **state)
{
	struct srv *srv = srv_start(204, "");
	int port = srv->port;
	struct rv_actions *s;
	struct rv_action_stats st;

	(void)state;
	srv_stop(srv);   /* the port is free again */
	s = start_hook(port, 2.0);
	submit(s, RV_ACTION_OPEN, 5, "{}\n");
	st = wait_runs(s, 1);
	assert_int_equal(st.runs[RV_ACTION_FAILED], 1);
	if (!strstr(st.last_error, "onnect"))
		fail_msg("reason '%s'", st.last_error);
	rv_actions_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_post, setup, teardown),
		cmocka_unit_test_setup_teardown(test_500, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
