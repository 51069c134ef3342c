/*
 * http.c - the agent's HTTP server over libmicrohttpd. See http.h.
 *
 * We bind the listening socket ourselves and hand it to libmicrohttpd
 * (MHD_OPTION_LISTEN_SOCKET): a failed bind then reports its own errno
 * ("Address already in use") for the address the operator wrote, and port
 * 0 can be read back with getsockname(). A request with a body or a
 * method other than GET and HEAD is refused on the first call of the access
 * handler (headers only), so no body is ever read; the others are answered
 * on the second call, once the request is complete, which lets
 * libmicrohttpd keep the connection alive.
 *
 * Connection limits. libmicrohttpd stops accepting at its connection
 * limit, which left further connections (a scrape among them) queued in
 * the kernel behind idle ones. Its limit is now above max_connections and
 * our accept policy refuses (accept, close) past max_connections, as its
 * per-IP limit does past per_client. Its idle timeout counts from the last
 * byte, so a header trickled a byte at a time never reaches it: our reaper
 * thread shutdown()s a connection whose request misses its deadline, and
 * libmicrohttpd, seeing end of file, closes it. The reaper holds the lock
 * that the "closed" notification takes, which libmicrohttpd sends before
 * it closes the descriptor: a reused descriptor number is never shut.
 */
#include "serve/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/strparse.h"

enum {
	HTTP_BACKLOG = 64,                 /* kernel accept queue of the listener */
	HTTP_CONN_MEMORY = 32 * 1024,      /* per-connection pool: bounds request headers */
	HTTP_PORT_MAX = 65535,
	HTTP_HOST_MAX = INET6_ADDRSTRLEN,  /* longest numeric host we accept */
	HTTP_LOG_MAX = 256,
	HTTP_STATUS_MIN = 100,
	HTTP_STATUS_MAX = 599,
	HTTP_STATUS_ERROR = 400,           /* this and above count as errors */
};

#define HTTP_NS_PER_S 1000000000ull
#define HTTP_NO_DEADLINE UINT64_MAX

/* An open connection, for the request deadline; fd -1: a free slot. */
struct conn_slot {
	int fd;
	rv_ns deadline;   /* HTTP_NO_DEADLINE once shut */
};

#define HTTP_TEXT "text/plain; charset=utf-8"
#define HTTP_LISTEN_FORMS "expected HOST:PORT, [IPV6]:PORT or :PORT"

struct rv_http {
	struct MHD_Daemon *daemon;
	struct rv_http_route *routes;
	size_t nroutes;
	int port;
	atomic_uint_fast64_t requests, errors;

	/* Open connections; all below under mu. */
	pthread_mutex_t mu;
	pthread_cond_t wake;          /* the reaper: stop, or an earlier deadline */
	pthread_t reaper;
	int stopping;
	struct conn_slot *slots;      /* libmicrohttpd's limit of them */
	unsigned nslots, open, max_open;
	rv_ns request_ns;             /* deadline of a request */
	rv_ns reaper_wakes;           /* HTTP_NO_DEADLINE: sleeps until woken */
};

/* A parsed listen address. */
struct laddr {
	struct sockaddr_storage ss;
	socklen_t len;
	int any;   /* ":PORT": IPv6 dual stack, IPv4 where the host lacks IPv6 */
};

/* ---- listen addresses ------------------------------------------------ */

static int parse_port(const char *listen, const char *s, uint16_t *port, struct rv_err *err)
{
	const char *p = s, *end = s + strlen(s);
	uint64_t v;
	int rc;

	if (p == end)
		return rv_err_set(err, -EINVAL, "listen address '%s' has no port (%s)",
				  listen, HTTP_LISTEN_FORMS);
	rc = rv_str_u64(&p, end, &v);
	if (rc == -EINVAL || (rc == 0 && p != end))
		return rv_err_set(err, -EINVAL, "listen address '%s': port '%s' is not a number",
				  listen, s);
	if (rc < 0 || v > HTTP_PORT_MAX)
		return rv_err_set(err, -EINVAL,
				  "listen address '%s': port %s is out of range (0..%d)",
				  listen, s, HTTP_PORT_MAX);
	*port = (uint16_t)v;
	return 0;
}

/* Fills a from host (a copy, NUL-terminated) and port; v6 when the host
 * was written in brackets. */
static int set_host(const char *listen, const char *host, int v6, uint16_t port,
		    struct laddr *a, struct rv_err *err)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;

	memset(a, 0, sizeof(*a));
	if (v6 || host[0] == '\0') {
		a->any = !v6;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		in6->sin6_addr = in6addr_any;
		a->len = sizeof(*in6);
		if (v6 && inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return rv_err_set(err, -EINVAL,
					  "listen address '%s': '%s' is not an IPv6 address",
					  listen, host);
		return 0;
	}
	in4->sin_family = AF_INET;
	in4->sin_port = htons(port);
	a->len = sizeof(*in4);
	if (strcmp(host, "localhost") == 0)
		host = "127.0.0.1";
	if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
		return rv_err_set(err, -EINVAL,
				  "listen address '%s': '%s' is not a numeric IPv4 address "
				  "(host names other than localhost are not resolved; IPv6 "
				  "goes in brackets)", listen, host);
	return 0;
}

static int parse_listen(const char *listen, struct laddr *a, struct rv_err *err)
{
	char host[HTTP_HOST_MAX];
	const char *h, *hend, *colon;
	uint16_t port = 0;
	int v6 = 0, rc;

	if (!listen || !*listen)
		return rv_err_set(err, -EINVAL, "empty listen address (%s)", HTTP_LISTEN_FORMS);
	if (listen[0] == '[') {
		h = listen + 1;
		hend = strchr(h, ']');
		if (!hend)
			return rv_err_set(err, -EINVAL, "listen address '%s': '[' without ']'",
					  listen);
		if (hend[1] != ':')
			return rv_err_set(err, -EINVAL, "listen address '%s' has no port after ']' (%s)",
					  listen, HTTP_LISTEN_FORMS);
		colon = hend + 1;
		v6 = 1;
	} else {
		h = listen;
		colon = strrchr(listen, ':');
		if (!colon)
			return rv_err_set(err, -EINVAL, "listen address '%s' has no port (%s)",
					  listen, HTTP_LISTEN_FORMS);
		hend = colon;
		if (memchr(h, ':', (size_t)(hend - h)))
			return rv_err_set(err, -EINVAL, "listen address '%s': an IPv6 host goes in "
					  "brackets, as in [::1]:9464", listen);
	}
	if ((size_t)(hend - h) >= sizeof(host) || (v6 && hend == h))
		return rv_err_set(err, -EINVAL, "listen address '%s': bad host", listen);
	rc = parse_port(listen, colon + 1, &port, err);
	if (rc < 0)
		return rc;
	memcpy(host, h, (size_t)(hend - h));
	host[hend - h] = '\0';
	return set_host(listen, host, v6, port, a, err);
}

int rv_http_listen_check(const char *listen, struct rv_err *err)
{
	struct laddr a;

	return parse_listen(listen, &a, err);
}

/* A bound, listening, non-blocking socket for a, or -errno. */
static int open_listener(const struct laddr *a)
{
	int one = 1, zero = 0, fd, rc;

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* SO_REUSEADDR: a restart binds despite connections in TIME_WAIT; on
	 * Linux it does not let two servers listen on one port. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (a->any && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0) ||
	    bind(fd, (const struct sockaddr *)&a->ss, a->len) < 0 ||
	    listen(fd, HTTP_BACKLOG) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

static const char *bind_hint(int rc)
{
	switch (rc) {
	case -EADDRINUSE:
		return " (another process listens there; choose another port)";
	case -EACCES:
		return " (ports below 1024 need privileges)";
	case -EADDRNOTAVAIL:
		return " (no interface of this host has that address)";
	default:
		return "";
	}
}

/* Listens on listen; ":PORT" falls back to IPv4 on a host without IPv6.
 * Returns the socket or a negative errno with err set. */
static int listen_on(const char *listen, struct rv_err *err)
{
	struct laddr a;
	int fd = parse_listen(listen, &a, err);

	if (fd < 0)
		return fd;
	fd = open_listener(&a);
	if (a.any && (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL)) {
		struct sockaddr_in *in4 = (struct sockaddr_in *)&a.ss;
		uint16_t port = ((struct sockaddr_in6 *)&a.ss)->sin6_port;

		memset(&a, 0, sizeof(a));
		in4->sin_family = AF_INET;
		in4->sin_port = port;
		in4->sin_addr.s_addr = htonl(INADDR_ANY);
		a.len = sizeof(*in4);
		fd = open_listener(&a);
	}
	if (fd < 0)
		return rv_err_set(err, fd, "cannot listen on %s: %s%s", listen,
				  rv_strerror(fd), bind_hint(fd));
	return fd;
}

static int bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return -errno;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* ---- responses --------------------------------------------------------- */

int rv_http_resp_body(struct rv_http_resp *resp, const void *body, size_t len)
{
	char *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, body, len);
	rv_http_resp_take(resp, copy, len);
	return 0;
}

int rv_http_resp_text(struct rv_http_resp *resp, const char *s)
{
	return rv_http_resp_body(resp, s, strlen(s));
}

void rv_http_resp_take(struct rv_http_resp *resp, char *buf, size_t len)
{
	free(resp->body);
	resp->body = buf;
	resp->len = len;
}

const char *rv_http_query(const struct rv_http_req *req, const char *key)
{
	const char *val = NULL;
	size_t len = 0;

	if (MHD_lookup_connection_value_n(req->conn, MHD_GET_ARGUMENT_KIND, key, strlen(key),
					  &val, &len) != MHD_YES)
		return NULL;
	return val ? val : "";
}

/* Adds the headers every response carries and queues r (consumed). */
static enum MHD_Result queue(struct rv_http *h, struct MHD_Connection *conn,
			     unsigned status, const char *type, struct MHD_Response *r)
{
	enum MHD_Result ok = MHD_NO;

	if (status >= HTTP_STATUS_ERROR)
		atomic_fetch_add(&h->errors, 1);
	if (!r)
		return MHD_NO;   /* libmicrohttpd closes the connection */
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) == MHD_YES &&
	    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store") == MHD_YES &&
	    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff") == MHD_YES &&
	    (status != MHD_HTTP_METHOD_NOT_ALLOWED ||
	     MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") == MHD_YES))
		ok = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ok;
}

/* A fixed text answer (404, 405, 413, 500). */
static enum MHD_Result reply_text(struct rv_http *h, struct MHD_Connection *conn,
				  unsigned status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_PERSISTENT);

	return queue(h, conn, status, HTTP_TEXT, r);
}

static int type_ok(const char *type)
{
	return type && *type && !strpbrk(type, "\r\n");
}

static enum MHD_Result run_handler(struct rv_http *h, const struct rv_http_route *route,
				   struct MHD_Connection *conn, const char *url,
				   const char *method, int head)
{
	struct rv_http_req req = { .method = method, .path = url, .head = head, .conn = conn };
	struct rv_http_resp resp = { .status = MHD_HTTP_OK, .content_type = HTTP_TEXT };
	struct MHD_Response *r;
	int rc = route->handler(route->ctx, &req, &resp);

	if (rc < 0 || resp.status < HTTP_STATUS_MIN || resp.status > HTTP_STATUS_MAX ||
	    !type_ok(resp.content_type)) {
		rv_debug("http: %s %s: handler failed (%s, status %d)", method, url,
			 rc < 0 ? rv_strerror(rc) : "bad response", resp.status);
		free(resp.body);
		return reply_text(h, conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "internal server error\n");
	}
	if (resp.body)
		r = MHD_create_response_from_buffer_with_free_callback(resp.len, resp.body, free);
	else
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	if (!r)
		free(resp.body);
	return queue(h, conn, (unsigned)resp.status, resp.content_type, r);
}

/* 1 when the request announces a body (which we do not read). */
static int has_body(struct MHD_Connection *conn, size_t upload_size)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);

	return upload_size != 0 || (cl && strcmp(cl, "0") != 0) ||
	       MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					   MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct rv_http *h = cls;
	int head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;

	(void)version;
	(void)upload_data;
	if (!*con_cls) {
		/* Headers only: refuse at once what we will not serve (the
		 * connection then closes); answer the rest on the next call, when
		 * the request is complete, so the connection can be kept alive. */
		atomic_fetch_add(&h->requests, 1);
		*con_cls = h;   /* any non-NULL mark: headers seen */
		if (!head && strcmp(method, MHD_HTTP_METHOD_GET) != 0)
			return reply_text(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "method not allowed\n");
		if (has_body(conn, *upload_size))
			return reply_text(h, conn, MHD_HTTP_CONTENT_TOO_LARGE,
					  "request bodies are not accepted\n");
		return MHD_YES;
	}
	if (*upload_size != 0)   /* not announced, yet a body: drop the connection */
		return MHD_NO;
	for (size_t i = 0; i < h->nroutes; i++)
		if (strcmp(h->routes[i].path, url) == 0)
			return run_handler(h, &h->routes[i], conn, url, method, head);
	return reply_text(h, conn, MHD_HTTP_NOT_FOUND, "not found\n");
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[HTTP_LOG_MAX];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	rv_debug("http: %s", msg);
}

/* ---- connections ------------------------------------------------------- */

/* Accept policy: while max_open connections are open, refuses one more
 * (libmicrohttpd closes it at once) instead of leaving it queued. */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct rv_http *h = cls;
	unsigned open;

	(void)addr;
	(void)len;
	pthread_mutex_lock(&h->mu);
	open = h->open;
	pthread_mutex_unlock(&h->mu);
	if (open < h->max_open)
		return MHD_YES;
	rv_debug("http: %u connections open, the limit: refusing a new one", open);
	return MHD_NO;
}

/* A new connection: a slot with its first request deadline. */
static void track(struct rv_http *h, struct MHD_Connection *conn, void **socket_ctx)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	rv_ns deadline = rv_clock_ns() + h->request_ns;

	*socket_ctx = NULL;
	pthread_mutex_lock(&h->mu);
	for (unsigned i = 0; ci && i < h->nslots; i++) {
		struct conn_slot *s = &h->slots[i];

		if (s->fd >= 0)
			continue;
		s->fd = ci->connect_fd;
		s->deadline = deadline;
		*socket_ctx = s;
		h->open++;
		if (deadline < h->reaper_wakes)
			pthread_cond_signal(&h->wake);
		break;
	}
	pthread_mutex_unlock(&h->mu);
}

/* Opened, or closed (sent before libmicrohttpd closes the descriptor). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct rv_http *h = cls;
	struct conn_slot *s = *socket_ctx;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		track(h, conn, socket_ctx);
		return;
	}
	if (!s)
		return;
	pthread_mutex_lock(&h->mu);
	s->fd = -1;
	h->open--;
	pthread_mutex_unlock(&h->mu);
	*socket_ctx = NULL;
}

/* A request answered (or abandoned): the next one on the same connection
 * gets a deadline of its own. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct rv_http *h = cls;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn_slot *s = ci ? ci->socket_context : NULL;

	(void)con_cls;
	(void)toe;
	if (!s)
		return;
	pthread_mutex_lock(&h->mu);
	if (s->deadline != HTTP_NO_DEADLINE)
		s->deadline = rv_clock_ns() + h->request_ns;
	pthread_mutex_unlock(&h->mu);
}

/* Shuts the connections past their deadline (under mu); returns the
 * earliest deadline left. */
static rv_ns reap(struct rv_http *h, rv_ns now)
{
	rv_ns next = HTTP_NO_DEADLINE;

	for (unsigned i = 0; i < h->nslots; i++) {
		struct conn_slot *s = &h->slots[i];

		if (s->fd < 0 || s->deadline == HTTP_NO_DEADLINE)
			continue;
		if (s->deadline > now) {
			next = s->deadline < next ? s->deadline : next;
			continue;
		}
		rv_debug("http: a request not answered within %llu s of its connection's "
			 "previous answer or start: closing the connection",
			 (unsigned long long)(h->request_ns / HTTP_NS_PER_S));
		if (shutdown(s->fd, SHUT_RDWR) < 0)
			rv_debug("http: shutdown: %s", rv_strerror(-errno));
		s->deadline = HTTP_NO_DEADLINE;
	}
	return next;
}

static void *reaper_main(void *arg)
{
	struct rv_http *h = arg;

	pthread_mutex_lock(&h->mu);
	while (!h->stopping) {
		struct timespec ts;

		h->reaper_wakes = reap(h, rv_clock_ns());
		if (h->reaper_wakes == HTTP_NO_DEADLINE) {
			pthread_cond_wait(&h->wake, &h->mu);
			continue;
		}
		ts.tv_sec = (time_t)(h->reaper_wakes / HTTP_NS_PER_S);
		ts.tv_nsec = (long)(h->reaper_wakes % HTTP_NS_PER_S);
		pthread_cond_timedwait(&h->wake, &h->mu, &ts);   /* CLOCK_MONOTONIC */
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* The connection table (a slot for each connection libmicrohttpd may
 * hold), the lock, the reaper and its condition (on CLOCK_MONOTONIC, as
 * rv_clock_ns). Returns 0 or a negative errno with err set. */
static int conns_init(struct rv_http *h, const struct rv_http_limits *lim, struct rv_err *err)
{
	pthread_condattr_t ca;
	int rc;

	h->max_open = lim->max_connections;
	/* a pool thread may accept between another's check and its count */
	h->nslots = lim->max_connections + lim->threads;
	h->request_ns = (rv_ns)lim->timeout_s * RV_HTTP_REQUEST_TIMEOUTS * HTTP_NS_PER_S;
	h->reaper_wakes = HTTP_NO_DEADLINE;
	h->slots = malloc(h->nslots * sizeof(*h->slots));
	if (!h->slots)
		return rv_err_set(err, -ENOMEM, "http server: out of memory");
	for (unsigned i = 0; i < h->nslots; i++)
		h->slots[i].fd = -1;
	h->mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	rc = -pthread_condattr_init(&ca);
	if (rc == 0) {
		rc = -pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		if (rc == 0)
			rc = -pthread_cond_init(&h->wake, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (rc == 0 && (rc = -pthread_create(&h->reaper, NULL, reaper_main, h)) < 0)
		pthread_cond_destroy(&h->wake);
	if (rc < 0) {
		free(h->slots);
		return rv_err_set(err, rc, "http server: cannot start its deadline thread: %s",
				  rv_strerror(rc));
	}
	return 0;
}

/* After libmicrohttpd has stopped: ends the reaper, frees the table. */
static void conns_fini(struct rv_http *h)
{
	pthread_mutex_lock(&h->mu);
	h->stopping = 1;
	pthread_cond_signal(&h->wake);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->reaper, NULL);
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->mu);
	free(h->slots);
}

/* ---- start and stop ---------------------------------------------------- */

/* Limits with defaults filled in, checked against their ranges. */
static int resolve_limits(const struct rv_http_limits *in, struct rv_http_limits *out,
			  struct rv_err *err)
{
	const struct {
		const char *name;
		unsigned *val, def, max;
	} f[] = {
		{ "max_connections", &out->max_connections, RV_HTTP_DEF_CONNECTIONS,
		  RV_HTTP_MAX_CONNECTIONS },
		{ "timeout_s", &out->timeout_s, RV_HTTP_DEF_TIMEOUT_S, RV_HTTP_MAX_TIMEOUT_S },
		{ "threads", &out->threads, RV_HTTP_DEF_THREADS, RV_HTTP_MAX_THREADS },
	};

	memset(out, 0, sizeof(*out));
	if (in)
		*out = *in;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (*f[i].val == 0)
			*f[i].val = f[i].def;
		if (*f[i].val > f[i].max)
			return rv_err_set(err, -EINVAL, "http %s %u is out of range (1..%u)",
					  f[i].name, *f[i].val, f[i].max);
	}
	if (out->max_connections < out->threads)
		return rv_err_set(err, -EINVAL, "http max_connections %u is below threads %u",
				  out->max_connections, out->threads);
	if (out->per_client == 0)
		out->per_client = out->max_connections < RV_HTTP_DEF_PER_CLIENT ?
				  out->max_connections : RV_HTTP_DEF_PER_CLIENT;
	if (out->per_client > out->max_connections)
		return rv_err_set(err, -EINVAL, "http per_client %u is above max_connections %u",
				  out->per_client, out->max_connections);
	return 0;
}

static int check_routes(const struct rv_http_route *routes, size_t n, struct rv_err *err)
{
	for (size_t i = 0; i < n; i++) {
		if (!routes[i].path || routes[i].path[0] != '/' || !routes[i].handler)
			return rv_err_set(err, -EINVAL, "http route %zu: %s", i,
					  !routes[i].handler ? "no handler" : "path must start with '/'");
		for (size_t j = 0; j < i; j++)
			if (strcmp(routes[i].path, routes[j].path) == 0)
				return rv_err_set(err, -EINVAL, "http route %s is listed twice",
						  routes[i].path);
	}
	return 0;
}

/* After a failed MHD_start_daemon: closes mfd unless libmicrohttpd already
 * did (it does on some failure paths and not on others). mfd is still ours
 * when it is open on the same socket as fd, its original. */
static void close_dup(int mfd, int fd)
{
	struct stat a, b;

	if (fstat(mfd, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		close(mfd);
}

static int start_daemon(struct rv_http *h, int fd, const struct rv_http_limits *lim,
			const char *listen, struct rv_err *err)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG |
			 (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES ?
			  MHD_USE_EPOLL : MHD_USE_POLL);
	/* libmicrohttpd gets a duplicate: on success it owns (and closes) it. */
	int mfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	/* CONNECTION_LIMIT: above max_connections (on_accept enforces that),
	 * so that libmicrohttpd never stops accepting. */
	struct MHD_OptionItem opts[] = {
		{ MHD_OPTION_LISTEN_SOCKET, mfd, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, h->nslots, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, lim->per_client, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, lim->timeout_s, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_CONN_MEMORY, NULL },
		{ MHD_OPTION_THREAD_POOL_SIZE, lim->threads, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (mfd < 0)
		return rv_err_set(err, -errno, "cannot listen on %s: %s", listen,
				  rv_strerror(errno));
	h->daemon = MHD_start_daemon(flags, 0, on_accept, h, on_request, h,
				     MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
				     MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				     MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				     MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	if (!h->daemon) {
		close_dup(mfd, fd);
		return rv_err_set(err, -EIO, "cannot serve on %s: libmicrohttpd did not start "
				  "(%u threads, %u connections)", listen, lim->threads,
				  lim->max_connections);
	}
	return 0;
}

/* The reaper and libmicrohttpd's threads, started with the signals sent
 * to the process blocked: those go to the caller's threads, whose sleeps
 * they are meant to cut short. Faults (SIGSEGV, ...) stay with the thread
 * that causes them. */
static int start_threads(struct rv_http *h, int fd, const struct rv_http_limits *lim,
			 const char *listen, struct rv_err *err)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = conns_init(h, lim, err);
	if (rc == 0 && (rc = start_daemon(h, fd, lim, listen, err)) < 0)
		conns_fini(h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int rv_http_start(const char *listen, const struct rv_http_route *routes, size_t nroutes,
		  const struct rv_http_limits *lim, struct rv_http **out, struct rv_err *err)
{
	struct rv_http_limits l;
	struct rv_http *h;
	int fd, rc;

	*out = NULL;
	rc = resolve_limits(lim, &l, err);
	if (rc == 0)
		rc = check_routes(routes, nroutes, err);
	if (rc < 0)
		return rc;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->routes = malloc((nroutes ? nroutes : 1) * sizeof(*routes)))) {
		free(h);
		return rv_err_set(err, -ENOMEM, "http server: out of memory");
	}
	if (nroutes)
		memcpy(h->routes, routes, nroutes * sizeof(*routes));
	h->nroutes = nroutes;
	fd = listen_on(listen, err);
	rc = fd < 0 ? fd : bound_port(fd);
	if (rc >= 0) {
		h->port = rc;
		rc = start_threads(h, fd, &l, listen, err);
	} else if (fd >= 0) {
		rv_err_set(err, rc, "cannot listen on %s: %s", listen, rv_strerror(rc));
	}
	if (fd >= 0)
		close(fd);
	if (rc < 0) {
		free(h->routes);
		free(h);
		return rc;
	}
	*out = h;
	return 0;
}

int rv_http_port(const struct rv_http *h)
{
	return h->port;
}

void rv_http_stats(const struct rv_http *h, uint64_t *requests, uint64_t *errors)
{
	/* atomic_load takes a non-const pointer in older C libraries. */
	struct rv_http *m = (struct rv_http *)h;

	if (requests)
		*requests = atomic_load(&m->requests);
	if (errors)
		*errors = atomic_load(&m->errors);
}

void rv_http_stop(struct rv_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);
	conns_fini(h);
	free(h->routes);
	free(h);
}
