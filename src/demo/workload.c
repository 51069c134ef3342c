/*
 * workload.c - the training-like load of workload.h: two ranks, dense
 * matrix steps at a fixed pace, and a two-rank ring all-reduce over
 * loopback TCP every few steps; the pace starts afresh from the end of
 * each all-reduce, where the ranks meet, as a synchronous job's does.
 */
#include "demo/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"

enum {
	DIM_MIN = 16, DIM_MAX = 2048,
	REDUCE_EVERY_MAX = 1000,
	ACCEPT_WAIT_MS = 5000,
	POLL_MS = 200,
	RENORM_EVERY = 50,        /* steps between two rescalings of A */
};

static const double STEP_MIN_S = 0.001, STEP_MAX_S = 10.0;
static const size_t GRAD_MIN = 64u << 10, GRAD_MAX = 1u << 30;
static const double LEARN_RATE = 1e-4, GRAD_SCALE = 1e-3;

struct rank {
	const struct rv_workload_cfg *c;
	const volatile sig_atomic_t *stop;
	int fd;
	unsigned id;               /* 0 or 1 */
	double *a, *b, *out;       /* dim x dim, row-major */
	float *grad, *stage, *peer;
	size_t nflt;               /* floats in grad; even */
};

/* What rank 0 prints every report_s: sums since the last line. */
struct window_sums {
	rv_ns start;
	uint64_t steps, reduces, bytes;
	double step_s, compute_s, reduce_s;
};

void rv_workload_defaults(struct rv_workload_cfg *c)
{
	c->dim = 224;
	c->step_s = 0.1;
	c->grad_bytes = 4u << 20;
	c->reduce_every = 5;
	c->duration_s = 0.0;
	c->report_s = 10.0;
}

int rv_workload_check(const struct rv_workload_cfg *c, struct rv_err *err)
{
	if (c->dim < DIM_MIN || c->dim > DIM_MAX)
		return rv_err_set(err, -EINVAL, "matrix side %u is out of range %d..%d", c->dim,
				  DIM_MIN, DIM_MAX);
	if (!(c->step_s >= STEP_MIN_S && c->step_s <= STEP_MAX_S))
		return rv_err_set(err, -EINVAL, "step %g s is out of range 1 ms..10 s", c->step_s);
	if (c->grad_bytes < GRAD_MIN || c->grad_bytes > GRAD_MAX)
		return rv_err_set(err, -EINVAL, "gradient size %zu bytes is out of range 64 KiB..1 GiB",
				  c->grad_bytes);
	if (c->reduce_every < 1 || c->reduce_every > REDUCE_EVERY_MAX)
		return rv_err_set(err, -EINVAL, "all-reduce every %u steps is out of range 1..%d",
				  c->reduce_every, REDUCE_EVERY_MAX);
	if (!(c->duration_s >= 0.0) || !isfinite(c->duration_s))
		return rv_err_set(err, -EINVAL, "duration %g s is not a time", c->duration_s);
	if (!(c->report_s >= 0.0) || !isfinite(c->report_s))
		return rv_err_set(err, -EINVAL, "report period %g s is not a time", c->report_s);
	return 0;
}

/* ------------------------------------------------------------ compute */

static void matmul(double *out, const double *a, const double *b, unsigned n)
{
	memset(out, 0, (size_t)n * n * sizeof(*out));
	for (unsigned i = 0; i < n; i++) {
		double *o = out + (size_t)i * n;

		for (unsigned k = 0; k < n; k++) {
			const double aik = a[(size_t)i * n + k];
			const double *row = b + (size_t)k * n;

			for (unsigned j = 0; j < n; j++)
				o[j] += aik * row[j];
		}
	}
}

/* One "training step": out = A.B, a gradient spread over the whole
 * gradient buffer, and a small update of A, kept bounded by rescaling. */
static void compute_step(struct rank *r, uint64_t step)
{
	const unsigned n = r->c->dim;
	const size_t nn = (size_t)n * n;

	matmul(r->out, r->a, r->b, n);
	for (size_t j = 0; j < r->nflt; j++)
		r->grad[j] = (float)(r->out[j % nn] * GRAD_SCALE);
	for (size_t j = 0; j < nn; j++)
		r->a[j] -= LEARN_RATE * r->out[j] / n;
	if (step % RENORM_EVERY == 0) {
		double m = 0.0;

		for (size_t j = 0; j < nn; j++)
			m = fmax(m, fabs(r->a[j]));
		if (m > 0.0)
			for (size_t j = 0; j < nn; j++)
				r->a[j] /= m;
	}
}

/* ----------------------------------------------------------- exchange */

/* Sends sn bytes of sb while receiving rn bytes into rb, both at once so
 * that two ranks sending large halves to each other never deadlock.
 * -EPIPE when the peer closed, -EINTR when *stop was set. */
static int exchange(int fd, const void *sb, size_t sn, void *rb, size_t rn,
		    const volatile sig_atomic_t *stop)
{
	size_t s = 0, r = 0;

	while (s < sn || r < rn) {
		struct pollfd p = { .fd = fd };
		ssize_t k;
		int n;

		if (stop && *stop)
			return -EINTR;
		p.events = (short)((r < rn ? POLLIN : 0) | (s < sn ? POLLOUT : 0));
		n = poll(&p, 1, POLL_MS);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		if (r < rn && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
			k = recv(fd, (char *)rb + r, rn - r, MSG_DONTWAIT);
			if (k == 0)
				return -EPIPE;
			if (k < 0 && errno != EAGAIN && errno != EINTR)
				return -errno;
			if (k > 0)
				r += (size_t)k;
		}
		if (s < sn && (p.revents & (POLLOUT | POLLERR))) {
			k = send(fd, (const char *)sb + s, sn - s, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (k < 0 && errno != EAGAIN && errno != EINTR)
				return errno == ECONNRESET ? -EPIPE : -errno;
			if (k > 0)
				s += (size_t)k;
		}
		if ((p.revents & POLLNVAL))
			return -EPIPE;
	}
	return 0;
}

/* Two-rank ring all-reduce of grad: rank i owns half i. Reduce-scatter
 * sends the other half and adds the peer's copy of the own half; the
 * all-gather sends the own reduced half and takes the peer's. The pack and
 * unpack copies through stage are the memory traffic of a real one. */
static int allreduce(struct rank *r, uint64_t *bytes)
{
	const size_t half = r->nflt / 2, hb = half * sizeof(float);
	float *own = r->grad + r->id * half, *other = r->grad + (1 - r->id) * half;
	int rc;

	memcpy(r->stage, other, hb);
	rc = exchange(r->fd, r->stage, hb, r->peer, hb, r->stop);
	if (rc)
		return rc;
	for (size_t j = 0; j < half; j++)
		own[j] = 0.5f * (own[j] + r->peer[j]);
	memcpy(r->stage, own, hb);
	rc = exchange(r->fd, r->stage, hb, r->peer, hb, r->stop);
	if (rc)
		return rc;
	memcpy(other, r->peer, hb);
	*bytes += 2 * hb;
	return 0;
}

/* -------------------------------------------------------------- ranks */

static int rank_alloc(struct rank *r, const struct rv_workload_cfg *c, unsigned id,
		      const volatile sig_atomic_t *stop)
{
	const size_t nn = (size_t)c->dim * c->dim;
	uint32_t seed = 2463534242u + id;

	memset(r, 0, sizeof(*r));
	r->c = c;
	r->stop = stop;
	r->id = id;
	r->fd = -1;
	r->nflt = (c->grad_bytes / sizeof(float)) & ~(size_t)1;
	r->a = malloc(nn * sizeof(double));
	r->b = malloc(nn * sizeof(double));
	r->out = malloc(nn * sizeof(double));
	r->grad = calloc(r->nflt, sizeof(float));
	r->stage = malloc(r->nflt / 2 * sizeof(float));
	r->peer = malloc(r->nflt / 2 * sizeof(float));
	if (!r->a || !r->b || !r->out || !r->grad || !r->stage || !r->peer)
		return -ENOMEM;
	for (size_t j = 0; j < nn; j++) {   /* xorshift32: values in [-1, 1) */
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		r->a[j] = seed / 2147483648.0 - 1.0;
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		r->b[j] = (seed / 2147483648.0 - 1.0) / sqrt((double)c->dim);
	}
	return 0;
}

static void rank_free(struct rank *r)
{
	free(r->a);
	free(r->b);
	free(r->out);
	free(r->grad);
	free(r->stage);
	free(r->peer);
	if (r->fd >= 0)
		close(r->fd);
}

static void sleep_until(struct timespec *deadline, double step_s)
{
	struct timespec now;
	long ns = (long)(step_s * 1e9);

	deadline->tv_nsec += ns % 1000000000L;
	deadline->tv_sec += ns / 1000000000L + deadline->tv_nsec / 1000000000L;
	deadline->tv_nsec %= 1000000000L;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* Behind by more than a step (a fault slowed us): start afresh from
	 * now instead of running the missed steps back to back. */
	if (now.tv_sec > deadline->tv_sec + 1 ||
	    (now.tv_sec - deadline->tv_sec) * 1e9 + (now.tv_nsec - deadline->tv_nsec) > ns) {
		*deadline = now;
		return;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL) == EINTR)
		;
}

static void report_line(FILE *f, struct window_sums *w)
{
	const double span = rv_clock_since_s(w->start);

	if (w->steps)
		fprintf(f, "workload: %llu steps, %.1f ms a step (compute %.1f ms), "
			   "all-reduce %.1f ms, %.1f MB/s to the peer\n",
			(unsigned long long)w->steps, 1e3 * w->step_s / w->steps,
			1e3 * w->compute_s / w->steps,
			w->reduces ? 1e3 * w->reduce_s / w->reduces : 0.0,
			span > 0 ? w->bytes / span / 1e6 : 0.0);
	else
		fprintf(f, "workload: no step finished in the last %.0f s\n", span);
	fflush(f);
	memset(w, 0, sizeof(*w));
	w->start = rv_clock_ns();
}

static int rank_loop(struct rank *r, struct rv_workload_stats *stats, FILE *progress)
{
	const struct rv_workload_cfg *c = r->c;
	const rv_ns start = rv_clock_ns();
	struct window_sums w = { .start = start };
	struct timespec deadline;
	uint64_t step = 0, bytes = 0;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	while (!*r->stop && (c->duration_s <= 0.0 || rv_clock_since_s(start) < c->duration_s)) {
		const rv_ns t0 = rv_clock_ns();
		double compute_s, reduce_s = 0.0;
		int rc;

		compute_step(r, ++step);
		compute_s = rv_clock_since_s(t0);
		if (step % c->reduce_every == 0) {
			const rv_ns t1 = rv_clock_ns();
			uint64_t b0 = bytes;

			rc = allreduce(r, &bytes);
			if (rc == -EINTR)
				break;
			if (rc)
				return rc;
			reduce_s = rv_clock_since_s(t1);
			/* the all-reduce is where the ranks meet: pace the next
			 * steps from its end, as both leave it together. Each
			 * rank on its own grid instead, a fault that delayed one
			 * set them a step apart for good (every all-reduce then
			 * waited ~95 ms for the other rank's tick). */
			clock_gettime(CLOCK_MONOTONIC, &deadline);
			w.reduces++;
			w.reduce_s += reduce_s;
			w.bytes += bytes - b0;
		}
		w.steps++;
		w.step_s += rv_clock_since_s(t0);
		w.compute_s += compute_s;
		if (stats) {
			stats->steps = step;
			stats->reduces = step / c->reduce_every;
			stats->bytes = bytes;
			stats->step_s = rv_clock_since_s(t0);
			stats->compute_s = compute_s;
			if (reduce_s > 0)
				stats->reduce_s = reduce_s;
		}
		if (progress && c->report_s > 0 && rv_clock_since_s(w.start) >= c->report_s)
			report_line(progress, &w);
		sleep_until(&deadline, c->step_s);
	}
	return 0;
}

/* ------------------------------------------------------- connections */

static int listen_loopback(int *out, uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	*out = fd;
	*port = ntohs(sa.sin_port);
	return 0;
}

static void tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* The peer rank: connects to rank 0 and runs until rank 0 closes. */
static void peer_main(const struct rv_workload_cfg *c, const volatile sig_atomic_t *stop,
		      uint16_t port, int lfd)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct rv_workload_cfg pc = *c;
	struct rank r;
	int rc;

	/* Rank 0 alone decides when the run ends. */
	pc.duration_s = 0.0;
	pc.report_s = 0.0;
	close(lfd);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	rc = rank_alloc(&r, &pc, 1, stop);
	if (!rc) {
		r.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (r.fd < 0 || connect(r.fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
			rc = -errno;
	}
	if (!rc) {
		tune(r.fd);
		rc = rank_loop(&r, NULL, NULL);
	}
	rank_free(&r);
	/* Rank 0 closing the connection is how a run ends. */
	_exit(rc == 0 || rc == -EPIPE ? 0 : 1);
}

static int accept_peer(int lfd, pid_t peer, int *out, struct rv_err *err)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int n = poll(&p, 1, ACCEPT_WAIT_MS);

	if (n <= 0) {
		int status;

		if (waitpid(peer, &status, WNOHANG) == peer)
			return rv_err_set(err, -ECONNREFUSED, "the peer rank could not connect "
					  "over loopback (is lo up in this network namespace?)");
		return rv_err_set(err, -ETIMEDOUT, "the peer rank did not connect within %d s",
				  ACCEPT_WAIT_MS / 1000);
	}
	*out = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (*out < 0)
		return rv_err_set(err, -errno, "accept: %s", rv_strerror(errno));
	tune(*out);
	return 0;
}

int rv_workload_run(const struct rv_workload_cfg *c, const volatile sig_atomic_t *stop,
		    struct rv_workload_stats *stats, FILE *progress, struct rv_err *err)
{
	struct rank r;
	uint16_t port = 0;
	int lfd = -1, rc, status;
	pid_t peer;

	rc = rv_workload_check(c, err);
	if (rc)
		return rc;
	rc = listen_loopback(&lfd, &port);
	if (rc)
		return rv_err_set(err, rc, "loopback socket: %s (is lo up in this network "
				  "namespace?)", rv_strerror(rc));
	peer = fork();
	if (peer < 0) {
		rc = -errno;
		close(lfd);
		return rv_err_set(err, rc, "fork of the peer rank: %s", rv_strerror(rc));
	}
	if (peer == 0)
		peer_main(c, stop, port, lfd);
	rc = rank_alloc(&r, c, 0, stop);
	if (rc)
		rv_err_set(err, rc, "out of memory for the matrices and the gradient");
	else
		rc = accept_peer(lfd, peer, &r.fd, err);
	close(lfd);
	if (!rc) {
		rc = rank_loop(&r, stats, progress);
		if (rc == -EPIPE)
			rv_err_set(err, rc, "the peer rank closed the connection");
		else if (rc)
			rv_err_set(err, rc, "exchange with the peer rank: %s", rv_strerror(rc));
	}
	rank_free(&r);   /* closing the socket ends the peer */
	if (rc && rc != -EPIPE)
		kill(peer, SIGKILL);
	while (waitpid(peer, &status, 0) < 0 && errno == EINTR)
		;
	return rc;
}
