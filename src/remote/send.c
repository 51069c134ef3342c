/*
 * send.c - the remote-write sender: a bounded queue of request bodies and
 * the one thread that delivers them (the contract is in send.h).
 *
 * Why this shape: the agent's loop must never wait for a receiver, so
 * push only copies the body (outside the lock) and links it in; the thread
 * takes the oldest request out of the queue while it is in flight (a push
 * may then drop every waiting request without touching the one libcurl
 * reads), and a request to be retried goes back to the head, where the
 * bounds apply to it like to any other: during an outage the queue holds
 * the newest requests. The transfer runs on a curl multi handle polled
 * every SEND_POLL_MS and woken by curl_multi_wakeup, so that free can cut
 * a request to a receiver that never answers at once; the multi handle
 * also keeps the connection between requests.
 */
#include "remote/send.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/rng.h"
#include "base/strparse.h"
#include "remote/rwrite.h"

enum {
	SEND_POLL_MS = 100,        /* the longest wait before the halt flag is seen */
	SEND_URL_SHOWN = 256,      /* bytes of the URL in log lines */
	SEND_NOTE_MAX = 768,       /* one log line */
	SEND_HTTP_OK_MIN = 200,
	SEND_HTTP_OK_MAX = 299,
	SEND_HTTP_TOO_MANY = 429,
	SEND_HTTP_SERVER_MIN = 500,
	SEND_HTTP_SERVER_MAX = 599,
};
#define SEND_COMPLAIN_S   60.0       /* a repeated complaint at most this often */
#define SEND_JITTER       0.1        /* a retry delay is up to 10 % shorter */
#define SEND_NS_PER_S     1e9
#define SEND_FLUSH_MAX_S  86400.0    /* rv_rsend_free's flush_s is capped here */
#define SEND_RETRY_AFTER  "Retry-After:"

/* One request body, copied by push; freed when delivered, rejected or
 * dropped. */
struct req {
	struct req *next;
	size_t len, nsamples;
	unsigned char body[];
};

/* What one attempt came to. */
enum outcome { OUT_SENT, OUT_RETRY, OUT_REJECT, OUT_HALTED };

/* A log line made under the lock and written after it. */
struct note {
	enum rv_log_level level;
	char text[SEND_NOTE_MAX];
};

struct rv_rsend {
	pthread_mutex_t mu;
	pthread_cond_t wake;        /* the thread: new work, stop, halt */
	pthread_cond_t idle;        /* free: the thread is done */
	pthread_t thread;
	int sync_ready, thread_started;
	atomic_int halt;            /* stop now, abort the request in flight */

	/* under mu */
	struct req *head, *tail;    /* waiting, oldest first */
	struct req *cur;            /* in flight, outside the queue */
	size_t nwait, wait_bytes;
	size_t max_bytes, max_reqs;
	int stopping, done;
	struct rv_rsend_stats st;
	rv_ns retry_at;             /* written by the thread, under mu */

	/* the thread's own (set up by new, torn down by free) */
	CURL *curl;
	CURLM *multi;
	struct curl_slist *hdrs;
	char errbuf[CURL_ERROR_SIZE];
	char answer[RV_RSEND_BODY_SHOWN + 1];
	size_t answer_len;
	double retry_after_s;       /* the answer's Retry-After, -1 none */
	char failure[RV_RSEND_ERROR_MAX];
	double backoff_min_s, backoff_max_s, backoff_s;
	struct rv_rng rng;
	int failing;                /* since the first failure after a delivery */
	rv_ns fail_since, fail_logged, reject_logged;
	uint64_t dropped_mark;      /* dropped_requests at the last delivery */
	uint64_t rejects_unlogged;
	char url[SEND_URL_SHOWN];   /* without user:password@ and query */
};

/* ---- the queue (every function here runs under mu) ---- */

static void append(struct rv_rsend *s, struct req *r)
{
	r->next = NULL;
	if (s->tail)
		s->tail->next = r;
	else
		s->head = r;
	s->tail = r;
	s->nwait++;
	s->wait_bytes += r->len;
}

static struct req *take_head(struct rv_rsend *s)
{
	struct req *r = s->head;

	s->head = r->next;
	if (!s->head)
		s->tail = NULL;
	s->nwait--;
	s->wait_bytes -= r->len;
	return r;
}

static void drop_head(struct rv_rsend *s)
{
	struct req *r = take_head(s);

	s->st.dropped_requests++;
	s->st.dropped_samples += r->nsamples;
	free(r);
}

/* A request to try again goes back to the head; if pushes filled the
 * queue meanwhile, the oldest (this one first) make room. */
static void requeue(struct rv_rsend *s, struct req *r)
{
	r->next = s->head;
	s->head = r;
	if (!s->tail)
		s->tail = r;
	s->nwait++;
	s->wait_bytes += r->len;
	while (s->head && (s->nwait > s->max_reqs || s->wait_bytes > s->max_bytes))
		drop_head(s);
}

int rv_rsend_push(struct rv_rsend *s, const void *body, size_t len,
		  size_t nsamples)
{
	struct req *r = NULL;
	int rc = 0;

	if (len == 0)
		rc = -EINVAL;
	else if (len > s->max_bytes)
		rc = -E2BIG;
	else if (!(r = malloc(sizeof(*r) + len)))
		rc = -ENOMEM;
	if (r) {
		memcpy(r->body, body, len);
		r->len = len;
		r->nsamples = nsamples;
	}
	pthread_mutex_lock(&s->mu);
	if (rc < 0) {
		s->st.dropped_requests++;
		s->st.dropped_samples += nsamples;
	} else {
		while (s->head && (s->nwait + 1 > s->max_reqs ||
				   s->wait_bytes + len > s->max_bytes))
			drop_head(s);
		append(s, r);
		pthread_cond_signal(&s->wake);
	}
	pthread_mutex_unlock(&s->mu);
	return rc;
}

void rv_rsend_stats(struct rv_rsend *s, struct rv_rsend_stats *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->st;
	out->queued_requests = s->nwait + (s->cur ? 1 : 0);
	out->queued_bytes = s->wait_bytes + (s->cur ? s->cur->len : 0);
	pthread_mutex_unlock(&s->mu);
}

/* ---- one attempt (the thread, without the lock) ---- */

/* The first RV_RSEND_BODY_SHOWN bytes of the answer are kept for the
 * message; the rest is read and let go. */
static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct rv_rsend *s = arg;
	size_t len = size * n, room = RV_RSEND_BODY_SHOWN - s->answer_len;

	if (len < room)
		room = len;
	memcpy(s->answer + s->answer_len, data, room);
	s->answer_len += room;
	return len;
}

/* Retry-After in seconds (the HTTP-date form is left to the backoff). */
static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	struct rv_rsend *s = arg;
	size_t len = size * n, name = sizeof(SEND_RETRY_AFTER) - 1;
	const char *p = data + name, *end = data + len;
	uint64_t secs;

	if (len > name && !strncasecmp(data, SEND_RETRY_AFTER, name)) {
		rv_str_skip_blank(&p, end);
		if (rv_str_u64(&p, end, &secs) == 0)
			s->retry_after_s = (double)secs;
	}
	return len;
}

/* Drives the transfer on the multi handle until it ends or halt is set.
 * OUT_SENT: an answer came (or a transport error, in *cc); OUT_HALTED;
 * OUT_RETRY: libcurl's multi interface failed (s->failure says how). */
static enum outcome perform(struct rv_rsend *s, CURLcode *cc)
{
	CURLMcode mc = curl_multi_add_handle(s->multi, s->curl);
	int running = 1, left, halted = 0, ended = 0;
	CURLMsg *m;

	while (mc == CURLM_OK && running && !(halted = atomic_load(&s->halt))) {
		mc = curl_multi_perform(s->multi, &running);
		if (mc == CURLM_OK && running)
			mc = curl_multi_poll(s->multi, NULL, 0, SEND_POLL_MS, NULL);
	}
	while ((m = curl_multi_info_read(s->multi, &left)))
		if (m->msg == CURLMSG_DONE) {
			*cc = m->data.result;
			ended = 1;
		}
	curl_multi_remove_handle(s->multi, s->curl);
	if (halted)
		return OUT_HALTED;
	if (mc != CURLM_OK || !ended) {
		snprintf(s->failure, sizeof(s->failure), "libcurl: %s",
			 mc != CURLM_OK ? curl_multi_strerror(mc) : "transfer did not end");
		return OUT_RETRY;
	}
	return OUT_SENT;
}

/* "HTTP 503: <answer>" with the answer on one line of printable ASCII. */
static void describe_status(struct rv_rsend *s, long status)
{
	size_t n = s->answer_len;

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s->answer[i] < ' ' || (unsigned char)s->answer[i] >= 127)
			s->answer[i] = (unsigned char)s->answer[i] >= 127 ? '?' : ' ';
	while (n > 0 && s->answer[n - 1] == ' ')
		n--;
	s->answer[n] = 0;
	snprintf(s->failure, sizeof(s->failure), "HTTP %ld%s%s", status,
		 n ? ": " : "", s->answer);
}

/* libcurl's message, and the system's reason where it has one (libcurl
 * 7.88 says "Couldn't connect to server" for a refused connection). */
static void describe_transport(struct rv_rsend *s, CURLcode cc)
{
	size_t cap = sizeof(s->failure);
	long os = 0;
	int n;

	n = snprintf(s->failure, cap, "%s", s->errbuf[0] ? s->errbuf : curl_easy_strerror(cc));
	if (curl_easy_getinfo(s->curl, CURLINFO_OS_ERRNO, &os) == CURLE_OK && os > 0 &&
	    n >= 0 && (size_t)n < cap)
		snprintf(s->failure + n, cap - (size_t)n, " (%s)", rv_strerror((int)os));
}

static enum outcome attempt(struct rv_rsend *s, const struct req *r)
{
	CURLcode cc = CURLE_OK;
	enum outcome oc;
	long status = 0;

	s->errbuf[0] = 0;
	s->answer_len = 0;
	s->retry_after_s = -1;
	if (curl_easy_setopt(s->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->len) ||
	    curl_easy_setopt(s->curl, CURLOPT_POSTFIELDS, (const char *)r->body)) {
		snprintf(s->failure, sizeof(s->failure), "libcurl refused a body of %zu bytes",
			 r->len);
		return OUT_REJECT;   /* it would refuse it again */
	}
	oc = perform(s, &cc);
	if (oc != OUT_SENT)
		return oc;
	if (cc != CURLE_OK) {
		describe_transport(s, cc);
		return OUT_RETRY;
	}
	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status >= SEND_HTTP_OK_MIN && status <= SEND_HTTP_OK_MAX)
		return OUT_SENT;
	describe_status(s, status);
	if (status == SEND_HTTP_TOO_MANY ||
	    (status >= SEND_HTTP_SERVER_MIN && status <= SEND_HTTP_SERVER_MAX))
		return OUT_RETRY;
	return OUT_REJECT;
}

/* ---- the outcome in the counters, the backoff and the log (under mu) ---- */

static void note_set(struct note *n, enum rv_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note_set(struct note *n, enum rv_log_level level, const char *fmt, ...)
{
	va_list ap;

	n->level = level;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

static double secs_between(rv_ns from, rv_ns to)
{
	return to > from ? (double)(to - from) / SEND_NS_PER_S : 0;
}

static void settle_sent(struct rv_rsend *s, struct req *r, rv_ns now, struct note *n)
{
	s->st.sent_requests++;
	s->st.sent_bytes += r->len;
	s->st.sent_samples += r->nsamples;
	s->st.up = 1;
	s->st.last_success_wall = (double)rv_clock_wall_ns() / SEND_NS_PER_S;
	if (s->failing)
		note_set(n, RV_LOG_INFO, "remote_write %s: delivering again after %.1f s; "
			 "%llu requests dropped meanwhile", s->url,
			 secs_between(s->fail_since, now),
			 (unsigned long long)(s->st.dropped_requests - s->dropped_mark));
	s->failing = 0;
	s->dropped_mark = s->st.dropped_requests;
	s->backoff_s = s->backoff_min_s;
	s->retry_at = 0;
	free(r);
}

static void settle_rejected(struct rv_rsend *s, struct req *r, rv_ns now, struct note *n)
{
	int first = s->st.rejected_requests == 0;

	s->st.rejected_requests++;
	s->st.rejected_samples += r->nsamples;
	s->st.up = 0;
	snprintf(s->st.last_error, sizeof(s->st.last_error), "%s", s->failure);
	if (first) {
		note_set(n, RV_LOG_WARN, "remote_write %s: request of %zu samples rejected, "
			 "not retried: %s", s->url, r->nsamples, s->failure);
		s->reject_logged = now;
	} else {
		s->rejects_unlogged++;
	}
	if (s->rejects_unlogged && secs_between(s->reject_logged, now) >= SEND_COMPLAIN_S) {
		note_set(n, RV_LOG_WARN, "remote_write %s: %llu more requests rejected "
			 "in %.0f s, the last: %s", s->url,
			 (unsigned long long)s->rejects_unlogged,
			 secs_between(s->reject_logged, now), s->failure);
		s->rejects_unlogged = 0;
		s->reject_logged = now;
	}
	/* the receiver answered: no reason to wait before the next request */
	s->backoff_s = s->backoff_min_s;
	s->retry_at = 0;
	free(r);
}

/* The delay before the next attempt: the backoff less a little jitter
 * (so that a fleet of agents does not retry in step), or a 429's
 * Retry-After within [backoff_min_s, backoff_max_s]. */
static double retry_delay(struct rv_rsend *s)
{
	double d = s->backoff_s * (1 - SEND_JITTER * rv_rng_uniform(&s->rng));

	if (s->retry_after_s >= 0) {
		d = s->retry_after_s;
		if (d < s->backoff_min_s)
			d = s->backoff_min_s;
		if (d > s->backoff_max_s)
			d = s->backoff_max_s;
	}
	s->backoff_s *= 2;
	if (s->backoff_s > s->backoff_max_s)
		s->backoff_s = s->backoff_max_s;
	return d;
}

static void settle_retry(struct rv_rsend *s, struct req *r, rv_ns now, struct note *n)
{
	s->st.retries++;
	s->st.up = 0;
	snprintf(s->st.last_error, sizeof(s->st.last_error), "%s", s->failure);
	s->retry_at = now + (rv_ns)(retry_delay(s) * SEND_NS_PER_S);
	requeue(s, r);
	if (!s->failing) {
		s->failing = 1;
		s->fail_since = s->fail_logged = now;
		note_set(n, RV_LOG_WARN, "remote_write %s: %s; retrying (queue %zu requests)",
			 s->url, s->failure, s->nwait);
	} else if (secs_between(s->fail_logged, now) >= SEND_COMPLAIN_S) {
		s->fail_logged = now;
		note_set(n, RV_LOG_WARN, "remote_write %s: still failing after %.0f s: %s; "
			 "queue %zu requests, %llu dropped meanwhile", s->url,
			 secs_between(s->fail_since, now), s->failure, s->nwait,
			 (unsigned long long)(s->st.dropped_requests - s->dropped_mark));
	}
}

static void settle(struct rv_rsend *s, struct req *r, enum outcome oc, struct note *n)
{
	rv_ns now = rv_clock_ns();

	s->cur = NULL;
	n->text[0] = 0;
	if (oc == OUT_SENT)
		settle_sent(s, r, now, n);
	else if (oc == OUT_REJECT)
		settle_rejected(s, r, now, n);
	else if (oc == OUT_RETRY)
		settle_retry(s, r, now, n);
	else
		requeue(s, r);   /* halted: counted as undelivered by free */
}

/* ---- the thread ---- */

static void wait_until(pthread_cond_t *c, pthread_mutex_t *mu, rv_ns at)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(at / (rv_ns)SEND_NS_PER_S);
	ts.tv_nsec = (long)(at % (rv_ns)SEND_NS_PER_S);
	pthread_cond_timedwait(c, mu, &ts);   /* CLOCK_MONOTONIC */
}

static void *send_main(void *arg)
{
	struct rv_rsend *s = arg;
	enum outcome oc;
	struct note n;
	struct req *r;

	pthread_mutex_lock(&s->mu);
	while (!atomic_load(&s->halt)) {
		if (!s->head) {
			if (s->stopping)
				break;
			pthread_cond_wait(&s->wake, &s->mu);
			continue;
		}
		if (rv_clock_ns() < s->retry_at) {
			wait_until(&s->wake, &s->mu, s->retry_at);
			continue;
		}
		r = s->cur = take_head(s);
		pthread_mutex_unlock(&s->mu);
		oc = attempt(s, r);
		pthread_mutex_lock(&s->mu);
		settle(s, r, oc, &n);
		if (n.text[0]) {
			pthread_mutex_unlock(&s->mu);
			rv_log(n.level, "%s", n.text);
			pthread_mutex_lock(&s->mu);
		}
	}
	s->done = 1;
	pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* ---- set-up and tear-down ---- */

/* The bounds and delays with their defaults, checked. */
static int take_opts(struct rv_rsend *s, const struct rv_rsend_opts *o, struct rv_err *err)
{
	s->max_bytes = o->queue_bytes ? o->queue_bytes : RV_RSEND_DEF_QUEUE_BYTES;
	s->max_reqs = o->queue_requests ? o->queue_requests : RV_RSEND_DEF_QUEUE_REQUESTS;
	s->backoff_min_s = o->backoff_min_s != 0 ? o->backoff_min_s : RV_RSEND_DEF_BACKOFF_MIN_S;
	s->backoff_max_s = o->backoff_max_s != 0 ? o->backoff_max_s : RV_RSEND_DEF_BACKOFF_MAX_S;
	if (!(s->backoff_min_s > 0 && isfinite(s->backoff_min_s)) ||
	    !(s->backoff_max_s >= s->backoff_min_s && s->backoff_max_s <= SEND_FLUSH_MAX_S))
		return rv_err_set(err, -EINVAL, "remote_write backoff: %g..%g s is not "
				  "0 < min <= max <= %g", s->backoff_min_s, s->backoff_max_s,
				  SEND_FLUSH_MAX_S);
	s->backoff_s = s->backoff_min_s;
	return rv_httpc_check(&o->http, err);
}

/* The easy handle with every option set once: the remote-write headers,
 * the operator's settings (httpc.h), the answer's callbacks; and the multi
 * handle that drives it and keeps its connection. */
static int curl_setup(struct rv_rsend *s, const struct rv_httpc_opts *h, struct rv_err *err)
{
	static const char *const own[] = {
		"Content-Encoding: " RV_RW_CONTENT_ENCODING,
		"Content-Type: " RV_RW_CONTENT_TYPE,
		RV_RW_VERSION_HEADER ": " RV_RW_VERSION,
		"Expect:",   /* no 100-continue round trip before a large body */
	};
	CURLcode cc = CURLE_OK;
	struct curl_slist *l;
	int rc;

	s->curl = curl_easy_init();
	s->multi = curl_multi_init();
	if (!s->curl || !s->multi)
		return rv_err_set(err, -ENOMEM, "remote_write: libcurl cannot make a handle");
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		if (!(l = curl_slist_append(s->hdrs, own[i])))
			return rv_err_set(err, -ENOMEM, "remote_write: out of memory");
		s->hdrs = l;
	}
	rc = rv_httpc_apply(s->curl, h, &s->hdrs, err);
	if (rc < 0)
		return rc;
	cc = curl_easy_setopt(s->curl, CURLOPT_USERAGENT, RV_RW_USER_AGENT);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, s->errbuf);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, on_body);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(s->curl, CURLOPT_HEADERFUNCTION, on_header);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(s->curl, CURLOPT_HEADERDATA, s);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(s->curl, CURLOPT_POST, 1L);
	if (cc == CURLE_OK)
		cc = curl_easy_setopt(s->curl, CURLOPT_TCP_KEEPALIVE, 1L);
	if (cc != CURLE_OK)
		return rv_err_set(err, -EIO, "remote_write: libcurl: %s", curl_easy_strerror(cc));
	return 0;
}

/* The lock and both conditions (on CLOCK_MONOTONIC, as rv_clock_ns). */
static int sync_setup(struct rv_rsend *s, struct rv_err *err)
{
	pthread_condattr_t ca;
	int rc = -pthread_condattr_init(&ca);

	if (rc == 0) {
		rc = -pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		if (rc == 0 && (rc = -pthread_cond_init(&s->wake, &ca)) == 0 &&
		    (rc = -pthread_cond_init(&s->idle, &ca)) < 0)
			pthread_cond_destroy(&s->wake);
		pthread_condattr_destroy(&ca);
	}
	if (rc < 0)
		return rv_err_set(err, rc, "remote_write: %s", rv_strerror(rc));
	s->mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	s->sync_ready = 1;
	return 0;
}

int rv_rsend_new(const struct rv_rsend_opts *o, struct rv_rsend **out,
		 struct rv_err *err)
{
	struct rv_rsend *s;
	int rc;

	*out = NULL;
	rc = rv_httpc_global_init(err);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s)
		return rv_err_set(err, -ENOMEM, "remote_write: out of memory");
	s->st.up = -1;
	atomic_init(&s->halt, 0);
	rv_rng_seed(&s->rng, rv_clock_ns() ^ (uint64_t)(uintptr_t)s);
	rc = take_opts(s, o, err);
	if (rc == 0) {
		rv_httpc_url_safe(o->http.url, s->url, sizeof(s->url));
		rc = curl_setup(s, &o->http, err);
	}
	if (rc == 0)
		rc = sync_setup(s, err);
	if (rc == 0 && (rc = -pthread_create(&s->thread, NULL, send_main, s)) < 0)
		rv_err_set(err, rc, "remote_write: cannot start its thread: %s", rv_strerror(rc));
	s->thread_started = rc == 0;
	if (rc < 0) {
		rv_rsend_free(s, 0);
		return rc;
	}
	*out = s;
	return 0;
}

/* Lets the thread deliver until the queue is empty or flush_s has passed,
 * then halts it (a request in flight is cut within SEND_POLL_MS). */
static void stop_thread(struct rv_rsend *s, double flush_s)
{
	rv_ns deadline = rv_clock_ns();

	if (flush_s > 0)
		deadline += (rv_ns)((flush_s < SEND_FLUSH_MAX_S ? flush_s : SEND_FLUSH_MAX_S) *
				    SEND_NS_PER_S);
	pthread_mutex_lock(&s->mu);
	s->stopping = 1;
	pthread_cond_signal(&s->wake);
	while (!s->done && rv_clock_ns() < deadline)
		wait_until(&s->idle, &s->mu, deadline);
	if (!s->done) {
		atomic_store(&s->halt, 1);
		pthread_cond_signal(&s->wake);
	}
	pthread_mutex_unlock(&s->mu);
	curl_multi_wakeup(s->multi);
	pthread_join(s->thread, NULL);
}

/* What was not delivered, and rejections not yet told, go to the log. */
static void drain(struct rv_rsend *s)
{
	size_t n = 0, samples = 0;

	while (s->head) {
		n++;
		samples += s->head->nsamples;
		free(take_head(s));
	}
	if (n)
		rv_warn("remote_write %s: stopped with %zu requests (%zu samples) undelivered",
			s->url, n, samples);
	if (s->rejects_unlogged)
		rv_warn("remote_write %s: %llu more requests rejected, the last: %s", s->url,
			(unsigned long long)s->rejects_unlogged, s->st.last_error);
}

void rv_rsend_free(struct rv_rsend *s, double flush_s)
{
	if (!s)
		return;
	if (s->thread_started)
		stop_thread(s, flush_s);
	drain(s);
	if (s->multi)
		curl_multi_cleanup(s->multi);
	if (s->curl)
		curl_easy_cleanup(s->curl);
	curl_slist_free_all(s->hdrs);
	if (s->sync_ready) {
		pthread_cond_destroy(&s->wake);
		pthread_cond_destroy(&s->idle);
		pthread_mutex_destroy(&s->mu);
	}
	free(s);
}
