/*
 * send.h - the remote-write sender: request bodies (rwrite.h's, protobuf
 * + snappy) queued by the agent and delivered by a thread of their own to
 * a Prometheus remote-write 1.0 receiver (Prometheus with its receiver
 * on, VictoriaMetrics, Mimir, Thanos, Cortex) over HTTP(S) with libcurl.
 *
 * The caller, the agent's sampling loop, never waits on the network:
 * rv_rsend_push copies a body into a bounded queue and returns. One
 * thread, one reused connection (keep-alive), POSTs the oldest body with
 * the headers the specification wants (rwrite.h's RV_RW_*), the
 * configured ones and the auth, and then
 *  - 2xx: delivered, counted, gone from the queue;
 *  - 5xx, 429 and transport errors (refused, timeout, DNS, TLS): kept at
 *    the head and tried again after a delay that doubles from
 *    backoff_min_s to backoff_max_s (a little jitter below it), back to
 *    backoff_min_s after a delivery; Retry-After seconds (of a 429 or a
 *    503) are honoured within backoff_min_s..backoff_max_s;
 *  - any other status (a 4xx such as Prometheus' 400 for out-of-order
 *    samples, or a redirect, which is not followed): the receiver will
 *    never take it; dropped and counted as rejected.
 * While the receiver is away the queue fills; a push that would pass a
 * bound drops the oldest requests (counted) to make room, so the newest
 * data waits and memory stays within queue_bytes plus the one request in
 * flight. Logs say it once: a warning when delivery first fails (then at
 * most once a minute), an info line when it resumes with the drops
 * meanwhile, a rejection's first message and then a count at most once a
 * minute. No log line or error holds a password or token (the URL is
 * shown without user:password@ and query).
 *
 * Threads: push and stats may be called from any thread; new and free by
 * the owner only, free last. Errors: new returns a negative errno with err
 * set; push's drops are counted in the stats as well as returned.
 *
 * Non-goals: batching (the caller builds each request), remote-write 2.0,
 * a queue on disk (a stopped agent's queue is lost, and logged).
 */
#ifndef RV_REMOTE_SEND_H
#define RV_REMOTE_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "remote/httpc.h"

enum {
	RV_RSEND_DEF_QUEUE_BYTES = 32 << 20,
	RV_RSEND_DEF_QUEUE_REQUESTS = 1024,
	RV_RSEND_ERROR_MAX = 256,      /* last_error, NUL included */
	RV_RSEND_BODY_SHOWN = 200,     /* bytes of a receiver's answer quoted */
};
#define RV_RSEND_DEF_BACKOFF_MIN_S 0.1
#define RV_RSEND_DEF_BACKOFF_MAX_S 5.0

struct rv_rsend_opts {
	struct rv_httpc_opts http;     /* applied (copied) by rv_rsend_new */
	size_t queue_bytes;            /* bound on the bodies waiting; 0: 32 MiB */
	size_t queue_requests;         /* bound on the requests waiting; 0: 1024 */
	double backoff_min_s;          /* first retry delay; 0: 0.1 s */
	double backoff_max_s;          /* the doubling stops here; 0: 5 s */
};

struct rv_rsend_stats {
	uint64_t sent_requests, sent_bytes, sent_samples;   /* 2xx */
	uint64_t dropped_requests, dropped_samples;  /* queue full (oldest), too big, no memory */
	uint64_t rejected_requests, rejected_samples; /* non-2xx other than 5xx/429: not retried */
	uint64_t retries;              /* attempts that failed and will be made again */
	size_t queued_requests, queued_bytes;        /* not yet delivered, in flight included */
	int up;                        /* the last attempt delivered (1), failed (0); -1 none yet */
	double last_success_wall;      /* unix seconds of the last delivery; 0 none */
	char last_error[RV_RSEND_ERROR_MAX];  /* the last failure or rejection, kept after a
					       * delivery: "" none, "HTTP 503: <answer>",
					       * or libcurl's message */
};

struct rv_rsend;

/*
 * Checks o (rv_httpc_check, the bounds, 0 < backoff_min_s <= backoff_max_s
 * after defaults), sets up libcurl and starts the thread. Nothing of o is
 * kept. Returns 0 with *out to free with rv_rsend_free, or -EINVAL (err
 * names the field), -ENOMEM, -EIO (libcurl), or a pthread error.
 */
int rv_rsend_new(const struct rv_rsend_opts *o, struct rv_rsend **out,
		 struct rv_err *err);

/*
 * Queues a copy of body[0..len) (a request holding nsamples samples, for
 * the counters). When it would pass queue_bytes or queue_requests, the
 * oldest waiting requests are dropped until it fits. Never blocks on the
 * network. Returns 0; -E2BIG when len alone is over queue_bytes, -ENOMEM,
 * or -EINVAL for len 0: the body is then dropped and counted as dropped.
 */
int rv_rsend_push(struct rv_rsend *s, const void *body, size_t len,
		  size_t nsamples);

/* A consistent copy of the counters into *out. */
void rv_rsend_stats(struct rv_rsend *s, struct rv_rsend_stats *out);

/*
 * Goes on delivering what is queued for up to flush_s seconds (0: not at
 * all), then stops the thread, interrupting a request in flight within
 * about 100 ms, and frees s. Requests left undelivered are logged as a
 * warning with their count. s may be NULL.
 */
void rv_rsend_free(struct rv_rsend *s, double flush_s);

#endif
