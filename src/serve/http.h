/*
 * http.h - a small HTTP server over libmicrohttpd for the live agent's
 * /metrics, JSON API and dashboard.
 *
 * The server knows routes, not data: each route is an exact path and a
 * handler that fills a response. It answers GET and HEAD only (others: 405
 * with "Allow: GET, HEAD"), refuses requests that carry a body (413),
 * answers unknown paths with 404 and a failing handler with 500, and marks
 * every response "Cache-Control: no-store".
 *
 * Connections are bounded so that a scrape gets through while other
 * clients hold connections open (see rv_http_limits):
 *  - at most max_connections open; one more is accepted and closed at
 *    once (the client sees a reset), never left waiting in the kernel's
 *    accept queue behind idle connections;
 *  - at most per_client open from one client address (the rest are closed
 *    the same way), so one client cannot take every slot;
 *  - a connection that sends nothing for timeout_s is closed (idle time,
 *    counted from the last byte received or sent);
 *  - a request must be complete and answered within 2 x timeout_s of the
 *    connection opening or of the previous answer on it, else the
 *    connection is shut: a client that trickles its headers a byte at a
 *    time holds its slot for that long at most (the idle time alone would
 *    let it hold it for hours);
 *  - request headers are bounded in size (32 KiB per connection).
 *
 * Threads: libmicrohttpd runs its own polling thread(s) (epoll where
 * available, else poll), a pool of rv_http_limits.threads; one more thread
 * of ours enforces the request deadline (it sleeps while no connection is
 * open). These threads start with the process's signals blocked, so that
 * signals reach the caller's threads. Handlers are
 * called from those threads, several at once when threads > 1, and never
 * from the thread that called rv_http_start: handlers must be thread safe
 * (the agent takes its mutex around the data they read).
 *
 * Callers: agent/. Non-goals: TLS, authentication, request bodies, keeping
 * state between requests.
 */
#ifndef RV_SERVE_HTTP_H
#define RV_SERVE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

struct MHD_Connection;
struct rv_http;

enum {
	RV_HTTP_DEF_CONNECTIONS = 32,   /* concurrent connections */
	RV_HTTP_MAX_CONNECTIONS = 1024,
	/* Per client address: a browser opens up to 6 connections to a host,
	 * Prometheus 1 (2 while a slow scrape overlaps the next). */
	RV_HTTP_DEF_PER_CLIENT = 8,
	RV_HTTP_DEF_TIMEOUT_S = 10,     /* idle time before a connection is closed */
	RV_HTTP_MAX_TIMEOUT_S = 3600,
	RV_HTTP_REQUEST_TIMEOUTS = 2,   /* request deadline, in idle timeouts */
	RV_HTTP_DEF_THREADS = 1,
	RV_HTTP_MAX_THREADS = 4,
};

/* Server limits; a zero field takes its default (NULL limits: all). */
struct rv_http_limits {
	unsigned max_connections;   /* 1..RV_HTTP_MAX_CONNECTIONS, >= threads */
	unsigned per_client;        /* 1..max_connections, per client address;
				     * 0: RV_HTTP_DEF_PER_CLIENT, at most
				     * max_connections */
	unsigned timeout_s;         /* 1..RV_HTTP_MAX_TIMEOUT_S: idle time; the
				     * request deadline is RV_HTTP_REQUEST_TIMEOUTS
				     * times this */
	unsigned threads;           /* 1..RV_HTTP_MAX_THREADS */
};

/* One request, valid during the handler call only. */
struct rv_http_req {
	const char *method;           /* "GET" or "HEAD" */
	const char *path;             /* decoded path without the query, "/metrics" */
	int head;                     /* 1 for HEAD: the body set is not sent */
	struct MHD_Connection *conn;  /* private to http.c */
};

/* What a handler answers. The server sets status 200, content type
 * "text/plain; charset=utf-8" and an empty body before the call. */
struct rv_http_resp {
	int status;                /* 100..599 (anything else becomes a 500) */
	const char *content_type;  /* must stay valid until the handler returns;
				    * no CR or LF (else 500) */
	char *body;                /* private: set with the functions below */
	size_t len;
};

/*
 * A route: an exact path ("/metrics"; no prefix matching, the query string
 * is not part of it) and its handler. The handler returns 0 with resp
 * filled, or a negative errno: the client then gets "500 internal server
 * error" and whatever body was set is dropped. The same handler serves
 * HEAD. ctx is passed through untouched.
 */
struct rv_http_route {
	const char *path;
	int (*handler)(void *ctx, const struct rv_http_req *req, struct rv_http_resp *resp);
	void *ctx;
};

/*
 * The value of query parameter key ("/api?x=1&y" -> "1" for x, "" for y),
 * percent-decoded, or NULL when absent. Owned by the server; valid during
 * the handler call.
 */
const char *rv_http_query(const struct rv_http_req *req, const char *key);

/* Sets the body to a copy of len bytes of body (the handler keeps its
 * buffer). Replaces an earlier body. Returns 0 or -ENOMEM. */
int rv_http_resp_body(struct rv_http_resp *resp, const void *body, size_t len);

/* Sets the body to the NUL-terminated string s (a copy). */
int rv_http_resp_text(struct rv_http_resp *resp, const char *s);

/* Sets the body to buf, a malloc'd buffer of len bytes that the server now
 * owns and frees (even when the handler then fails). Replaces an earlier
 * body. */
void rv_http_resp_take(struct rv_http_resp *resp, char *buf, size_t len);

/*
 * Checks a listen address without binding: "HOST:PORT" with a numeric IPv4
 * host or "localhost" (127.0.0.1), "[IPV6]:PORT", or ":PORT" (all
 * interfaces, IPv6 and IPv4 where the host has IPv6, else IPv4). PORT is
 * 0..65535; 0 asks the kernel for a free port. Host names other than
 * localhost are refused (no DNS at start-up). Returns 0 or -EINVAL with a
 * message naming the address and what is wrong.
 */
int rv_http_listen_check(const char *listen, struct rv_err *err);

/*
 * Binds listen (see rv_http_listen_check) and serves routes (nroutes
 * entries, copied; the path strings and ctx are borrowed and must outlive
 * the server) with the limits lim (NULL: defaults). On success *out owns
 * the running server. Errors: -EINVAL (bad address, limits or routes),
 * a bind or listen failure as its errno (-EADDRINUSE, -EACCES,
 * -EADDRNOTAVAIL, ...) with a message naming the address and the reason,
 * -ENOMEM, -EAGAIN when the deadline thread cannot be started, or -EIO
 * when libmicrohttpd does not start.
 */
int rv_http_start(const char *listen, const struct rv_http_route *routes, size_t nroutes,
		  const struct rv_http_limits *lim, struct rv_http **out, struct rv_err *err);

/* The port the server listens on (the kernel's choice for port 0). */
int rv_http_port(const struct rv_http *h);

/* Requests answered since start, and how many of them got a status of 400
 * or more (405, 404, 413, 500 and handler-set errors). Either pointer may
 * be NULL. Safe to call from any thread. */
void rv_http_stats(const struct rv_http *h, uint64_t *requests, uint64_t *errors);

/* Stops serving (open connections are closed, running handlers finish
 * first), closes the socket and frees h. h may be NULL. */
void rv_http_stop(struct rv_http *h);

#endif
