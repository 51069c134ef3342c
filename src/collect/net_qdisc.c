/*
 * net_qdisc.c - source "net.qdisc": the statistics of each network
 * interface's root queueing discipline, what `tc -s qdisc show` prints,
 * read over rtnetlink. A shaper (tbf, htb) over its rate counts
 * overlimits and holds a backlog; a full queue (fq_codel, pfifo) drops.
 * Beside proc.net_dev's and the TCP counters, that tells a link held back
 * on this host from packets lost on the path.
 *
 * Each interface whose root qdisc the kernel lists at open gets five
 * channels, instance = interface name (lo too: a shaper on lo is how a
 * test or a fault injection throttles local traffic):
 * net.qdisc_drops:eth0, net.qdisc_overlimits, net.qdisc_requeues
 * (counters and events, the kernel's 32-bit totals), net.qdisc_backlog_bytes
 * and net.qdisc_qlen (gauges). The root of mq or multiq is the kernel's
 * sum over its per-queue children; ingress and clsact are not queues and
 * are left out. An interface never brought up has only the kernel's
 * built-in noop, which is not listed, and gets no channels.
 *
 * A slow source (collector.h): drops, overlimits and requeues are counted
 * by the kernel, so their rates over a second miss nothing, and the dump
 * grows with the interfaces (hundreds of veths on a Kubernetes node).
 *
 * open() keeps one NETLINK_ROUTE socket and a 32 KiB receive buffer (the
 * largest datagram a netlink dump sends); sample() asks for a dump of
 * every qdisc and reads it into that buffer until NLMSG_DONE, allocating
 * nothing. The parse is qdisc_msg.c's. Interfaces are matched by index:
 * one that went away leaves its channels invalid, one added later is not
 * followed until the collector opens the sources again (rediscovery). A
 * qdisc replaced (tc qdisc replace) starts its counters from 0 again;
 * derive/ takes a counter that went down as a reset (a gap, no rate). A
 * netlink error, a datagram cut short, a malformed message or a dump not
 * done within RV_QDISC_WAIT_MS leaves every channel invalid for that
 * sample; nothing partial is reported. The sockets of a network namespace
 * see its interfaces only: run reveal in the namespace to watch it.
 */
#include "collect/net_qdisc_int.h"
#include "collect/sources.h"

#include <errno.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "collect/qdisc_msg.h"

/* One datagram: netlink caps a dump's datagrams at 32 KiB. */
enum { QDISC_RECV_BYTES = 32768, QDISC_DRAIN_MAX = 64, NS_PER_MS = 1000000 };

/* Channel order of an interface: the fields of struct rv_qdisc_stats. */
static const char *const qdisc_types[RV_QDISC_FIELDS] = {
	[RV_QDISC_DROPS] = "net.qdisc_drops",
	[RV_QDISC_OVERLIMITS] = "net.qdisc_overlimits",
	[RV_QDISC_REQUEUES] = "net.qdisc_requeues",
	[RV_QDISC_BACKLOG_BYTES] = "net.qdisc_backlog_bytes",
	[RV_QDISC_QLEN] = "net.qdisc_qlen",
};

struct qd_iface {
	int ifindex;
	int seen;                         /* in the dump being read */
	struct rv_qdisc_stats st;
	char name[IF_NAMESIZE];
};

struct qd_src {
	int fd;
	uint32_t seq;                     /* of the last request */
	int unfinished;                   /* it stopped before its NLMSG_DONE */
	int nomem;                        /* open: an interface found no room */
	int wait_ms;
	unsigned char *buf;               /* QDISC_RECV_BYTES */
	struct qd_iface *ifs;             /* by ifindex: the channel order */
	size_t n, cap;
};

/* Waits until fd is readable or the deadline passes (-ETIMEDOUT). */
static int wait_readable(int fd, rv_ns deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		rv_ns now = rv_clock_ns();
		int rc;

		if (now >= deadline)
			return -ETIMEDOUT;
		rc = poll(&p, 1, (int)((deadline - now + NS_PER_MS - 1) / NS_PER_MS));
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

/*
 * Discards what an unfinished dump left in the socket: the datagrams
 * whose first message answers an earlier request (peeked at, so a reply
 * to the next one stays). Reading them lets the kernel end that dump; it
 * refuses a new one (EBUSY) while one runs.
 */
static void drain_stale(struct qd_src *q)
{
	struct nlmsghdr h;

	for (int i = 0; i < QDISC_DRAIN_MAX; i++) {
		ssize_t n = recv(q->fd, &h, sizeof(h), MSG_DONTWAIT | MSG_PEEK);

		if (n <= 0 || ((size_t)n >= sizeof(h) && h.nlmsg_seq == q->seq + 1))
			return;
		if (recv(q->fd, q->buf, QDISC_RECV_BYTES, MSG_DONTWAIT) < 0)
			return;
	}
}

/*
 * Sends a new dump request and hands each root qdisc of the answer to fn,
 * datagram by datagram, until NLMSG_DONE: 0 then. -ETIMEDOUT when the
 * source's wait ran out first, -EMSGSIZE for a datagram longer than the
 * buffer (cut), -EPROTO for an empty or malformed one, the kernel's errno.
 */
static int dump(struct qd_src *q, rv_qdisc_root_fn *fn, void *ctx)
{
	rv_ns deadline = rv_clock_ns() + (rv_ns)q->wait_ms * NS_PER_MS;
	size_t len;
	ssize_t sent;
	int rc;

	if (q->unfinished)
		drain_stale(q);
	len = rv_qdisc_request(q->buf, QDISC_RECV_BYTES, ++q->seq);
	sent = send(q->fd, q->buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (sent < 0)
		return -errno;
	if ((size_t)sent != len)
		return -EIO;
	q->unfinished = 1;
	for (;;) {
		ssize_t n = recv(q->fd, q->buf, QDISC_RECV_BYTES, MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
			rc = wait_readable(q->fd, deadline);
			if (rc)
				return rc;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPROTO;
		if (n > QDISC_RECV_BYTES)
			return -EMSGSIZE;
		rc = rv_qdisc_parse(q->buf, (size_t)n, q->seq, fn, ctx);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			q->unfinished = 0;
			return 0;
		}
		if (rv_clock_ns() >= deadline)
			return -ETIMEDOUT;
	}
}

static int cmp_iface(const void *a, const void *b)
{
	const struct qd_iface *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

/* sample(): a root qdisc of the dump, kept when its interface has
 * channels. */
static void fill_iface(void *ctx, int ifindex, const struct rv_qdisc_stats *st)
{
	struct qd_src *q = ctx;
	struct qd_iface key = { .ifindex = ifindex };
	struct qd_iface *i = bsearch(&key, q->ifs, q->n, sizeof(*q->ifs), cmp_iface);

	if (i) {
		i->st = *st;
		i->seen = 1;
	}
}

static void qd_sample(void *state, double *raw, uint8_t *valid)
{
	struct qd_src *q = state;

	memset(valid, 0, q->n * RV_QDISC_FIELDS);
	for (size_t i = 0; i < q->n; i++)
		q->ifs[i].seen = 0;
	if (dump(q, fill_iface, q) != 0)
		return;
	for (size_t i = 0; i < q->n; i++) {
		const struct qd_iface *f = &q->ifs[i];

		for (size_t k = 0; f->seen && k < RV_QDISC_FIELDS; k++) {
			raw[i * RV_QDISC_FIELDS + k] = (double)f->st.v[k];
			valid[i * RV_QDISC_FIELDS + k] = f->st.valid[k];
		}
	}
}

static void qd_close(void *state)
{
	struct qd_src *q = state;

	if (!q)
		return;
	if (q->fd >= 0)
		close(q->fd);
	free(q->buf);
	free(q->ifs);
	free(q);
}

/* open(): a root qdisc of the first dump, its interface added once. */
static void add_iface(void *ctx, int ifindex, const struct rv_qdisc_stats *st)
{
	struct qd_src *q = ctx;

	for (size_t i = 0; i < q->n; i++)
		if (q->ifs[i].ifindex == ifindex)
			return;
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 16;
		struct qd_iface *v = realloc(q->ifs, cap * sizeof(*v));

		if (!v) {
			q->nomem = 1;
			return;
		}
		q->ifs = v;
		q->cap = cap;
	}
	memset(&q->ifs[q->n], 0, sizeof(q->ifs[q->n]));
	q->ifs[q->n++].ifindex = ifindex;
}

/* The interfaces with a root qdisc now, by index, named; one whose name
 * is gone by then is left out. */
static int find_ifaces(struct qd_src *q, const struct rv_qdisc_link *link, struct rv_err *err)
{
	size_t kept = 0;
	int rc = dump(q, add_iface, q);

	if (rc)
		return rv_err_set(err, rc, "rtnetlink qdisc dump: %s", rv_strerror(rc));
	if (q->nomem)
		return rv_err_set(err, -ENOMEM,
				  "rtnetlink qdisc dump: out of memory for %zu interfaces", q->n);
	qsort(q->ifs, q->n, sizeof(*q->ifs), cmp_iface);
	for (size_t i = 0; i < q->n; i++)
		if (link->ifname(link->ctx, q->ifs[i].ifindex, q->ifs[i].name) == 0)
			q->ifs[kept++] = q->ifs[i];
	q->n = kept;
	if (q->n == 0)
		return rv_err_set(err, -ENODATA,
				  "rtnetlink qdisc dump: no interface has a root qdisc");
	return 0;
}

int rv_qdisc_open_link(const struct rv_qdisc_link *link, void **state,
		       struct rv_chanlist *chans, struct rv_err *err)
{
	struct qd_src *q = calloc(1, sizeof(*q));
	int rc;

	if (q)
		q->buf = malloc(QDISC_RECV_BYTES);
	if (!q || !q->buf) {
		free(q);
		return rv_err_set(err, -ENOMEM, "net.qdisc: out of memory");
	}
	q->wait_ms = link->wait_ms > 0 ? link->wait_ms : RV_QDISC_WAIT_MS;
	q->fd = link->socket(link->ctx);
	if (q->fd < 0)
		rc = rv_err_set(err, q->fd, "rtnetlink socket: %s", rv_strerror(q->fd));
	else
		rc = find_ifaces(q, link, err);
	for (size_t i = 0; !rc && i < q->n; i++)
		for (size_t k = 0; !rc && k < RV_QDISC_FIELDS; k++)
			rc = rv_chanlist_add(chans, qdisc_types[k], q->ifs[i].name, 1.0, err);
	if (rc) {
		qd_close(q);
		return rc;
	}
	*state = q;
	return 0;
}

static int sys_socket(void *ctx)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	return fd < 0 ? -errno : fd;
}

static int sys_ifname(void *ctx, int ifindex, char *name)
{
	if (ifindex <= 0)
		return -ENODEV;
	return if_indextoname((unsigned)ifindex, name) ? 0 : -errno;
}

static int qd_open(const struct rv_collect_cfg *cfg, void **state, struct rv_chanlist *chans,
		   struct rv_err *err)
{
	const struct rv_qdisc_link link = { sys_socket, sys_ifname, NULL, 0 };

	/* The qdiscs are the running kernel's: under a fixture tree they
	 * would describe another host than the files do. */
	if (cfg->root[0])
		return rv_err_set(err, -EOPNOTSUPP,
				  "rtnetlink: the running kernel's qdiscs, not read under --root %s",
				  cfg->root);
	return rv_qdisc_open_link(&link, state, chans, err);
}

const struct rv_source rv_src_net_qdisc = {
	.name = "net.qdisc",
	.open = qd_open,
	.sample = qd_sample,
	.close = qd_close,
	.slow = 1,
};
