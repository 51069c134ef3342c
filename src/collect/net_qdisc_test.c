/*
 * net_qdisc_test.c - the source "net.qdisc" (net_qdisc.c) and its parse of
 * rtnetlink qdisc dumps (qdisc_msg.c).
 *
 * The parse gets replies built here from the kernel's own structs: a dump
 * of two interfaces, the old TCA_STATS alone, TCA_STATS2 preferred over
 * it, ingress and child qdiscs and other requests' messages skipped, every
 * cut of a message and attributes that are short or run past their
 * message (refused), NLMSG_ERROR and an NLMSG_DONE that carries an error,
 * and a buffer at an odd address. The source runs on one end of an
 * AF_UNIX SOCK_SEQPACKET pair (net_qdisc_int.h): channels by interface
 * index and name, replies in several datagrams behind a stale one, a
 * vanished and an unknown interface, errors, a datagram cut short, a cut
 * dump and a reply that never comes (invalid, within the wait), and the
 * recovery after it. A qdisc replaced restarts its counters, which derive/
 * takes as a reset. One test opens the real source on this host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "collect/net_qdisc_int.h"
#include "collect/sources.h"
#include "collect/qdisc_msg.h"
#include "derive/derive.h"

enum { NL_MAX = 65536, GOT_MAX = 16, MAXCH = 64, F = RV_QDISC_FIELDS, NAMES = 8 };

/* ------------------------------------------------------------ replies */

/* One datagram of netlink messages, built as the kernel builds them. */
struct nlbuf {
	unsigned char b[NL_MAX];
	size_t len;
};

/* Appends n bytes (NULL: zeros) padded to 4; returns their offset. */
static size_t put(struct nlbuf *m, const void *p, size_t n)
{
	size_t off = m->len;

	assert_true(off + NLMSG_ALIGN(n) <= NL_MAX);
	memset(m->b + off, 0, NLMSG_ALIGN(n));
	if (p)
		memcpy(m->b + off, p, n);
	m->len += NLMSG_ALIGN(n);
	return off;
}

static size_t msg_open(struct nlbuf *m, uint16_t type, uint32_t seq)
{
	struct nlmsghdr h = { .nlmsg_type = type, .nlmsg_flags = NLM_F_MULTI,
			      .nlmsg_seq = seq, .nlmsg_pid = 4242 };

	return put(m, &h, sizeof(h));
}

/* Sets the length of the message that starts at off to what follows. */
static void msg_close(struct nlbuf *m, size_t off)
{
	uint32_t len = (uint32_t)(m->len - off);

	memcpy(m->b + off + offsetof(struct nlmsghdr, nlmsg_len), &len, sizeof(len));
}

static void put_attr(struct nlbuf *m, uint16_t type, const void *data, size_t n)
{
	struct rtattr a = { .rta_len = (unsigned short)RTA_LENGTH(n), .rta_type = type };

	put(m, &a, sizeof(a));
	put(m, data, n);
}

/* A qdisc as the kernel dumps it: tcmsg, TCA_KIND, then TCA_STATS2
 * (basic, queue) and the old TCA_STATS when given. */
struct qd_msg {
	int ifindex;
	uint32_t parent;
	const struct gnet_stats_queue *q2;
	const struct tc_stats *old;
	size_t old_len;                 /* 0: sizeof(struct tc_stats) */
	int old_first;                  /* TCA_STATS before TCA_STATS2 */
};

static void put_old(struct nlbuf *m, const struct qd_msg *q)
{
	if (q->old)
		put_attr(m, TCA_STATS, q->old, q->old_len ? q->old_len : sizeof(*q->old));
}

static void put_qdisc(struct nlbuf *m, uint32_t seq, const struct qd_msg *q)
{
	struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = q->ifindex,
			   .tcm_handle = 0x80010000u, .tcm_parent = q->parent };
	struct gnet_stats_basic basic = { .bytes = 123456, .packets = 789 };
	size_t h = msg_open(m, RTM_NEWQDISC, seq), nest;
	struct rtattr a = { .rta_type = TCA_STATS2 | NLA_F_NESTED };

	put(m, &t, sizeof(t));
	put_attr(m, TCA_KIND, "tbf", 4);
	if (q->old_first)
		put_old(m, q);
	if (q->q2) {
		nest = put(m, &a, sizeof(a));
		put_attr(m, TCA_STATS_BASIC, &basic, sizeof(basic));
		put_attr(m, TCA_STATS_QUEUE, q->q2, sizeof(*q->q2));
		a.rta_len = (unsigned short)(m->len - nest);
		memcpy(m->b + nest, &a, sizeof(a));
	}
	if (!q->old_first)
		put_old(m, q);
	msg_close(m, h);
}

/* A root qdisc with TCA_STATS2 and TCA_STATS, its queue counts from k. */
static void put_root(struct nlbuf *m, uint32_t seq, int ifindex, uint32_t k)
{
	struct gnet_stats_queue q2 = { .qlen = k, .backlog = 1500 * k, .drops = 10 * k,
				       .requeues = k + 1, .overlimits = 100 * k };
	struct tc_stats old = { .drops = 7, .overlimits = 7, .qlen = 7, .backlog = 7 };

	put_qdisc(m, seq, &(struct qd_msg){ ifindex, TC_H_ROOT, &q2, &old, 0, 0 });
}

static void put_done(struct nlbuf *m, uint32_t seq, int code)
{
	size_t h = msg_open(m, NLMSG_DONE, seq);

	put(m, &code, sizeof(code));
	msg_close(m, h);
}

static void put_error(struct nlbuf *m, uint32_t seq, int code)
{
	struct nlmsgerr e = { .error = code };
	size_t h = msg_open(m, NLMSG_ERROR, seq);

	put(m, &e, sizeof(e));
	msg_close(m, h);
}

/* ------------------------------------------------------------ parse */

struct got {
	size_t n;
	int ifindex[GOT_MAX];
	struct rv_qdisc_stats st[GOT_MAX];
};

static void collect(void *ctx, int ifindex, const struct rv_qdisc_stats *st)
{
	struct got *g = ctx;

	assert_true(g->n < GOT_MAX);
	g->ifindex[g->n] = ifindex;
	g->st[g->n++] = *st;
}

static int parse(const struct nlbuf *m, size_t len, uint32_t seq, struct got *g)
{
	memset(g, 0, sizeof(*g));
	return rv_qdisc_parse(m->b, len, seq, collect, g);
}

/* The stats put_root wrote for k. */
static void assert_root(const struct rv_qdisc_stats *st, uint32_t k)
{
	assert_true(st->v[RV_QDISC_DROPS] == 10 * k);
	assert_true(st->v[RV_QDISC_OVERLIMITS] == 100 * k);
	assert_true(st->v[RV_QDISC_REQUEUES] == k + 1);
	assert_true(st->v[RV_QDISC_BACKLOG_BYTES] == 1500 * k);
	assert_true(st->v[RV_QDISC_QLEN] == k);
	for (int f = 0; f < F; f++)
		assert_int_equal(st->valid[f], 1);
}

/* The request, and a dump of lo and eth0 ended by NLMSG_DONE. */
static void test_parse_two_ifaces(void **state)
{
	struct nlbuf *m = calloc(1, sizeof(*m));
	struct nlmsghdr h;
	struct tcmsg t;
	struct got g;

	(void)state;
	assert_non_null(m);
	assert_int_equal(rv_qdisc_request(m->b, sizeof(m->b), 77), NLMSG_LENGTH(sizeof(t)));
	memcpy(&h, m->b, sizeof(h));
	memcpy(&t, m->b + NLMSG_HDRLEN, sizeof(t));
	assert_int_equal(h.nlmsg_type, RTM_GETQDISC);
	assert_int_equal(h.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(h.nlmsg_seq, 77);
	assert_int_equal(t.tcm_family, AF_UNSPEC);
	assert_int_equal(t.tcm_ifindex, 0);
	assert_int_equal(rv_qdisc_request(m->b, NLMSG_LENGTH(sizeof(t)) - 1, 77), 0);

	m->len = 0;
	put_root(m, 5, 1, 0);
	put_root(m, 5, 2, 3);
	assert_int_equal(parse(m, m->len, 5, &g), 0);      /* no DONE yet: more to come */
	put_done(m, 5, 0);
	assert_int_equal(parse(m, m->len, 5, &g), 1);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ifindex[0], 1);
	assert_root(&g.st[0], 0);
	assert_int_equal(g.ifindex[1], 2);
	assert_root(&g.st[1], 3);
	assert_int_equal(parse(m, 0, 5, &g), 0);
	free(m);
}

/* The old TCA_STATS alone (40 bytes, or 36 as i386 packs it): no requeue
 * count; where both are there, TCA_STATS2 wins in either order. */
static void test_parse_old_stats(void **state)
{
	struct tc_stats old = { .bytes = 1, .packets = 2, .drops = 3, .overlimits = 4,
				.qlen = 5, .backlog = 6 };
	struct gnet_stats_queue q2 = { 50, 60, 30, 20, 40 };
	struct nlbuf *m = calloc(1, sizeof(*m));
	struct got g;

	(void)state;
	assert_non_null(m);
	put_qdisc(m, 1, &(struct qd_msg){ 4, TC_H_ROOT, NULL, &old, 0, 0 });
	put_qdisc(m, 1, &(struct qd_msg){ 5, TC_H_ROOT, NULL, &old, 36, 0 });
	put_qdisc(m, 1, &(struct qd_msg){ 6, TC_H_ROOT, &q2, &old, 0, 1 });
	put_qdisc(m, 1, &(struct qd_msg){ 7, TC_H_ROOT, &q2, &old, 0, 0 });
	assert_int_equal(parse(m, m->len, 1, &g), 0);
	assert_int_equal(g.n, 4);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(g.ifindex[i], 4 + (int)i);
		assert_true(g.st[i].v[RV_QDISC_DROPS] == 3);
		assert_true(g.st[i].v[RV_QDISC_OVERLIMITS] == 4);
		assert_true(g.st[i].v[RV_QDISC_QLEN] == 5);
		assert_true(g.st[i].v[RV_QDISC_BACKLOG_BYTES] == 6);
		assert_int_equal(g.st[i].valid[RV_QDISC_REQUEUES], 0);
		assert_int_equal(g.st[i].valid[RV_QDISC_DROPS], 1);
	}
	for (size_t i = 2; i < 4; i++) {
		assert_true(g.st[i].v[RV_QDISC_DROPS] == 30);
		assert_true(g.st[i].v[RV_QDISC_REQUEUES] == 20);
		assert_true(g.st[i].v[RV_QDISC_OVERLIMITS] == 40);
		assert_true(g.st[i].v[RV_QDISC_QLEN] == 50);
		assert_int_equal(g.st[i].valid[RV_QDISC_REQUEUES], 1);
	}
	free(m);
}

/* Not reported: ingress/clsact, a class's qdisc, a root without
 * statistics, and what answers another request (its DONE and ERROR
 * too); NLMSG_NOOP and an ACK are passed over. */
static void test_parse_skips(void **state)
{
	struct gnet_stats_queue q2 = { 1, 2, 3, 4, 5 };
	struct nlbuf *m = calloc(1, sizeof(*m));
	struct got g;

	(void)state;
	assert_non_null(m);
	put_qdisc(m, 3, &(struct qd_msg){ 2, TC_H_INGRESS, &q2, NULL, 0, 0 });
	put_qdisc(m, 3, &(struct qd_msg){ 2, TC_H_MAKE(0x10000u, 1), &q2, NULL, 0, 0 });
	put_qdisc(m, 3, &(struct qd_msg){ 3, TC_H_ROOT, NULL, NULL, 0, 0 });
	put_root(m, 2, 4, 1);
	put_error(m, 2, -EBUSY);
	put_done(m, 2, 0);
	msg_close(m, msg_open(m, NLMSG_NOOP, 3));
	put_error(m, 3, 0);
	put_root(m, 3, 5, 2);
	assert_int_equal(parse(m, m->len, 3, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.ifindex[0], 5);
	assert_root(&g.st[0], 2);
	free(m);
}

/* Every cut of a dump inside a message is refused, a cut between two
 * is the end of a datagram, and nothing past the cut is reported. */
static void test_parse_truncated(void **state)
{
	struct nlbuf *m = calloc(1, sizeof(*m));
	size_t bounds[4] = { 0 }, nb = 0;
	struct got g;

	(void)state;
	assert_non_null(m);
	put_root(m, 9, 1, 1);
	bounds[++nb] = m->len;
	put_root(m, 9, 2, 2);
	bounds[++nb] = m->len;
	put_done(m, 9, 0);
	for (size_t len = 1; len < m->len; len++) {
		int rc = parse(m, len, 9, &g), at_bound = 0;

		for (size_t b = 0; b <= nb; b++)
			at_bound |= bounds[b] == len;
		assert_int_equal(rc, at_bound ? 0 : -EPROTO);
		assert_true(g.n <= 2 && (g.n == 0 || g.ifindex[0] == 1));
	}
	assert_int_equal(parse(m, m->len, 9, &g), 1);
	/* after the DONE nothing is read */
	memset(m->b + m->len, 0xff, 2);
	assert_int_equal(parse(m, m->len + 2, 9, &g), 1);
	free(m);
}

/* Overwrites the u16 at off of the message built into m. */
static void poke16(struct nlbuf *m, size_t off, uint16_t v)
{
	memcpy(m->b + off, &v, sizeof(v));
}

/* Attributes and headers that claim more or less than they hold. */
static void test_parse_bad_attrs(void **state)
{
	struct gnet_stats_queue q2 = { 1, 2, 3, 4, 5 };
	struct tc_stats old = { .drops = 1 };
	struct nlbuf *m = calloc(1, sizeof(*m));
	const size_t kind = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct tcmsg));
	struct got g;
	uint32_t len;

	(void)state;
	assert_non_null(m);
	put_root(m, 1, 1, 1);                           /* TCA_KIND runs past the message */
	poke16(m, kind, 4000);
	assert_int_equal(parse(m, m->len, 1, &g), -EPROTO);
	poke16(m, kind, 2);                             /* shorter than its header */
	assert_int_equal(parse(m, m->len, 1, &g), -EPROTO);
	assert_int_equal(g.n, 0);

	m->len = 0;                                     /* TCA_STATS_QUEUE of 12 bytes */
	put_qdisc(m, 1, &(struct qd_msg){ 1, TC_H_ROOT, &q2, NULL, 0, 0 });
	poke16(m, m->len - RTA_LENGTH(sizeof(q2)), RTA_LENGTH(12));
	assert_int_equal(parse(m, m->len, 1, &g), -EPROTO);

	m->len = 0;                                     /* TCA_STATS of 20 bytes */
	put_qdisc(m, 1, &(struct qd_msg){ 1, TC_H_ROOT, NULL, &old, 20, 0 });
	assert_int_equal(parse(m, m->len, 1, &g), -EPROTO);

	m->len = 0;                                     /* tcmsg cut, header too short */
	len = NLMSG_HDRLEN + 8;
	msg_open(m, RTM_NEWQDISC, 1);
	put(m, NULL, 8);
	memcpy(m->b, &len, sizeof(len));
	assert_int_equal(parse(m, m->len, 1, &g), -EPROTO);
	len = 8;
	memcpy(m->b, &len, sizeof(len));
	assert_int_equal(parse(m, m->len, 1, &g), -EPROTO);
	assert_int_equal(g.n, 0);
	free(m);
}

/* The kernel's errors end the dump with its errno. */
static void test_parse_errors(void **state)
{
	struct nlbuf *m = calloc(1, sizeof(*m));
	struct got g;
	size_t h;

	(void)state;
	assert_non_null(m);
	put_root(m, 4, 1, 1);
	put_error(m, 4, -EPERM);
	assert_int_equal(parse(m, m->len, 4, &g), -EPERM);
	m->len = 0;
	put_done(m, 4, -EINTR);                         /* a dump that failed midway */
	assert_int_equal(parse(m, m->len, 4, &g), -EINTR);
	m->len = 0;
	msg_close(m, msg_open(m, NLMSG_DONE, 4));        /* no error field: done */
	assert_int_equal(parse(m, m->len, 4, &g), 1);
	m->len = 0;
	msg_close(m, msg_open(m, NLMSG_ERROR, 4));       /* no error field */
	assert_int_equal(parse(m, m->len, 4, &g), -EPROTO);
	m->len = 0;
	h = msg_open(m, NLMSG_ERROR, 4);
	put(m, &(int){ 5 }, sizeof(int));                /* a positive errno: nonsense */
	msg_close(m, h);
	assert_int_equal(parse(m, m->len, 4, &g), -EPROTO);
	m->len = 0;
	msg_close(m, msg_open(m, NLMSG_OVERRUN, 4));
	assert_int_equal(parse(m, m->len, 4, &g), -ENOBUFS);
	assert_int_equal(rv_qdisc_parse(NULL, 4, 4, collect, &g), -EINVAL);
	free(m);
}

/* The same dump one byte off 4-byte alignment (UBSan checks the reads). */
static void test_parse_unaligned(void **state)
{
	struct nlbuf *m = calloc(1, sizeof(*m));
	unsigned char *odd = malloc(NL_MAX + 1);
	struct got g;

	(void)state;
	assert_non_null(m);
	assert_non_null(odd);
	put_root(m, 6, 3, 4);
	put_done(m, 6, 0);
	memcpy(odd + 1, m->b, m->len);
	memset(&g, 0, sizeof(g));
	assert_int_equal(rv_qdisc_parse(odd + 1, m->len, 6, collect, &g), 1);
	assert_int_equal(g.n, 1);
	assert_root(&g.st[0], 4);
	free(odd);
	free(m);
}

/* ------------------------------------------------------------ source */

/* The kernel's side: one end of a socket pair, interface names by
 * index, and what open()'s dump gets back. */
struct fake {
	int peer;
	int refuse;                     /* socket() fails with this */
	const char *names[NAMES];       /* by ifindex; NULL: no such interface */
	struct nlbuf first;             /* the reply to request 1 */
};

static int fake_socket(void *ctx)
{
	struct fake *fk = ctx;
	int sv[2];

	if (fk->refuse)
		return fk->refuse;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fk->peer = sv[1];
	if (fk->first.len)
		assert_int_equal(send(fk->peer, fk->first.b, fk->first.len, 0), fk->first.len);
	return sv[0];
}

static int fake_ifname(void *ctx, int ifindex, char *name)
{
	struct fake *fk = ctx;

	if (ifindex <= 0 || ifindex >= NAMES || !fk->names[ifindex])
		return -ENODEV;
	snprintf(name, IF_NAMESIZE, "%s", fk->names[ifindex]);
	return 0;
}

struct run {
	struct fake fk;
	struct nlbuf m;
	struct rv_chanlist l;
	struct rv_err err;
	void *st;
	double raw[MAXCH];
	uint8_t ok[MAXCH];
};

/* Opens through the fake after its first reply was written into r->fk. */
static int run_open(struct run *r)
{
	struct rv_qdisc_link link = { fake_socket, fake_ifname, &r->fk, 20 };

	r->l.source = "net.qdisc";
	return rv_qdisc_open_link(&link, &r->st, &r->l, &r->err);
}

/* The request the source sent last carried sequence number seq. */
static void expect_request(struct run *r, uint32_t seq)
{
	struct nlmsghdr h;

	assert_int_equal(recv(r->fk.peer, &h, sizeof(h), MSG_DONTWAIT | MSG_TRUNC),
			 NLMSG_LENGTH(sizeof(struct tcmsg)));
	assert_int_equal(h.nlmsg_type, RTM_GETQDISC);
	assert_int_equal(h.nlmsg_seq, seq);
}

/* Sends r->m as one datagram and empties it. */
static void send_m(struct run *r)
{
	assert_int_equal(send(r->fk.peer, r->m.b, r->m.len, 0), r->m.len);
	r->m.len = 0;
}

/* A sample whose request has sequence number seq. */
static void run_sample(struct run *r, uint32_t seq)
{
	memset(r->ok, 0xee, sizeof(r->ok));
	rv_src_net_qdisc.sample(r->st, r->raw, r->ok);
	expect_request(r, seq);
}

static void run_close(struct run *r)
{
	rv_src_net_qdisc.close(r->st);
	rv_chanlist_fini(&r->l);
	if (r->fk.peer > 0)
		close(r->fk.peer);
}

/* Interface i (channel order) has the values put_root wrote for k. */
static void assert_iface(const struct run *r, size_t i, uint32_t k)
{
	const double want[F] = { 10.0 * k, 100.0 * k, k + 1.0, 1500.0 * k, k };

	for (size_t f = 0; f < F; f++) {
		assert_int_equal(r->ok[i * F + f], 1);
		assert_true(r->raw[i * F + f] == want[f]);
	}
}

static void assert_iface_invalid(const struct run *r, size_t i)
{
	for (size_t f = 0; f < F; f++)
		assert_int_equal(r->ok[i * F + f], 0);
}

/* A new run whose open() finds lo (1), eth0 (2) and veth1 (3), listed out
 * of order, with an ingress qdisc and an interface without a name. */
static struct run *three_ifaces(void)
{
	struct run *r = calloc(1, sizeof(*r));
	struct gnet_stats_queue q2 = { 0 };

	assert_non_null(r);
	r->fk.names[1] = "lo";
	r->fk.names[2] = "eth0";
	r->fk.names[3] = "veth1";
	put_root(&r->fk.first, 1, 3, 0);
	put_root(&r->fk.first, 1, 1, 0);
	put_qdisc(&r->fk.first, 1, &(struct qd_msg){ 2, TC_H_INGRESS, &q2, NULL, 0, 0 });
	put_root(&r->fk.first, 1, 2, 0);
	put_root(&r->fk.first, 1, 6, 0);                /* gone before it was named */
	put_done(&r->fk.first, 1, 0);
	assert_int_equal(run_open(r), 0);
	expect_request(r, 1);
	return r;
}

/* Channels by interface index, named by interface; kinds from the
 * catalog; a reply in two datagrams behind a stale one. */
static void test_source_channels(void **state)
{
	static const char *const names[] = { "lo", "eth0", "veth1" };
	struct run *r = three_ifaces();
	char want[RV_CHAN_NAME_MAX];

	(void)state;
	assert_int_equal(r->l.n, 3 * F);
	for (size_t i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "net.qdisc_drops:%s", names[i]);
		assert_string_equal(r->l.v[i * F].name, want);
	}
	assert_string_equal(r->l.v[F + 1].name, "net.qdisc_overlimits:eth0");
	assert_string_equal(r->l.v[F + 2].name, "net.qdisc_requeues:eth0");
	assert_string_equal(r->l.v[F + 3].name, "net.qdisc_backlog_bytes:eth0");
	assert_string_equal(r->l.v[F + 4].name, "net.qdisc_qlen:eth0");
	assert_true(r->l.v[0].metric->kind == RV_KIND_EVENT);
	assert_true(r->l.v[1].metric->kind == RV_KIND_COUNTER);
	assert_true(r->l.v[2].metric->kind == RV_KIND_COUNTER);
	assert_true(r->l.v[3].metric->kind == RV_KIND_GAUGE);
	assert_true(r->l.v[4].metric->kind == RV_KIND_GAUGE);
	assert_string_equal(r->l.v[3].metric->unit, "bytes");

	put_root(&r->m, 1, 1, 99);                      /* left over from open */
	send_m(r);
	put_root(&r->m, 2, 1, 1);
	put_root(&r->m, 2, 2, 2);
	send_m(r);
	put_root(&r->m, 2, 3, 3);
	put_done(&r->m, 2, 0);
	send_m(r);
	run_sample(r, 2);
	for (size_t i = 0; i < 3; i++)
		assert_iface(r, i, (uint32_t)i + 1);
	assert_int_equal(r->ok[3 * F], 0xee);          /* nothing past its channels */
	run_close(r);
	free(r);
}

/* A vanished interface is invalid, an unknown one ignored, the old
 * TCA_STATS has no requeue count. */
static void test_source_vanished_unknown(void **state)
{
	struct tc_stats old = { .drops = 8, .overlimits = 9, .qlen = 1, .backlog = 1500 };
	struct run *r = three_ifaces();

	(void)state;
	put_root(&r->m, 2, 1, 5);
	put_root(&r->m, 2, 7, 5);                       /* added after open */
	put_qdisc(&r->m, 2, &(struct qd_msg){ 2, TC_H_ROOT, NULL, &old, 0, 0 });
	put_done(&r->m, 2, 0);
	send_m(r);
	run_sample(r, 2);
	assert_iface(r, 0, 5);
	assert_true(r->raw[F + 0] == 8.0 && r->ok[F + 0] == 1);
	assert_true(r->raw[F + 1] == 9.0 && r->ok[F + 1] == 1);
	assert_int_equal(r->ok[F + 2], 0);
	assert_true(r->raw[F + 3] == 1500.0 && r->ok[F + 3] == 1);
	assert_iface_invalid(r, 2);
	run_close(r);
	free(r);
}

/* Errors, a cut datagram, a dump cut short, silence: every channel
 * invalid, nothing partial; then the source recovers. */
static void test_source_failures(void **state)
{
	struct run *r = three_ifaces();
	uint32_t seq = 2;
	rv_ns t0;

	(void)state;
	put_error(&r->m, seq, -EBUSY);
	send_m(r);
	run_sample(r, seq++);
	for (size_t i = 0; i < 3; i++)
		assert_iface_invalid(r, i);

	put_root(&r->m, seq, 1, 1);                     /* good first datagram, then a cut one */
	send_m(r);
	put_root(&r->m, seq, 2, 1);
	r->m.len -= 8;
	send_m(r);
	run_sample(r, seq++);
	for (size_t i = 0; i < 3; i++)
		assert_iface_invalid(r, i);

	put_root(&r->m, seq, 1, 1);                     /* longer than the 32 KiB buffer */
	r->m.len = 40000;
	send_m(r);
	run_sample(r, seq++);
	assert_iface_invalid(r, 0);

	put_root(&r->m, seq, 1, 1);                     /* no NLMSG_DONE, ever */
	send_m(r);
	t0 = rv_clock_ns();
	run_sample(r, seq++);
	assert_true(rv_clock_ns() - t0 < 500 * (rv_ns)1000000);
	assert_iface_invalid(r, 0);

	put_done(&r->m, seq - 1, 0);                    /* the late end of that dump */
	send_m(r);
	put_done(&r->m, seq, 0);                        /* a dump without qdiscs */
	send_m(r);
	run_sample(r, seq++);
	for (size_t i = 0; i < 3; i++)
		assert_iface_invalid(r, i);

	for (size_t i = 1; i <= 3; i++)
		put_root(&r->m, seq, (int)i, 7);
	put_done(&r->m, seq, 0);
	send_m(r);
	run_sample(r, seq++);
	for (size_t i = 0; i < 3; i++)
		assert_iface(r, i, 7);
	run_close(r);
	free(r);
}

/* open() refuses what it cannot use, with the reason. */
static void test_source_open_fails(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	struct gnet_stats_queue q2 = { 0 };
	void *st = NULL;

	(void)state;
	assert_non_null(r);
	r->fk.refuse = -EAFNOSUPPORT;
	assert_int_equal(run_open(r), -EAFNOSUPPORT);
	assert_non_null(strstr(r->err.msg, "rtnetlink socket"));

	memset(r, 0, sizeof(*r));
	put_error(&r->fk.first, 1, -EPERM);
	assert_int_equal(run_open(r), -EPERM);
	assert_non_null(strstr(r->err.msg, "qdisc dump"));
	close(r->fk.peer);

	memset(r, 0, sizeof(*r));                       /* only ingress; a root without a name */
	put_qdisc(&r->fk.first, 1, &(struct qd_msg){ 1, TC_H_INGRESS, &q2, NULL, 0, 0 });
	put_root(&r->fk.first, 1, 5, 0);
	put_done(&r->fk.first, 1, 0);
	assert_int_equal(run_open(r), -ENODATA);
	assert_int_equal(r->l.n, 0);
	close(r->fk.peer);

	memset(r, 0, sizeof(*r));                       /* a fixture tree */
	assert_int_equal(rv_src_net_qdisc.open(&(struct rv_collect_cfg){ .root = "/tmp/tree" },
					       &st, &r->l, &r->err), -EOPNOTSUPP);
	assert_non_null(strstr(r->err.msg, "/tmp/tree"));
	assert_null(st);
	rv_src_net_qdisc.close(NULL);
	free(r);
}

/* tc qdisc replace: the new qdisc counts from 0, which derive/ takes as
 * a reset (no rate), then rates go on from the new count. */
static void test_replaced_qdisc_is_a_gap(void **state)
{
	struct rv_derive_prev p = { 0 };
	const int64_t s = 1000000000;
	double out;

	(void)state;
	assert_int_equal(rv_derive_step(RV_KIND_EVENT, 1.0, 500.0, 1, 1 * s, &p, &out), 0);
	assert_int_equal(rv_derive_step(RV_KIND_EVENT, 1.0, 600.0, 1, 2 * s, &p, &out), 1);
	assert_true(out == 100.0);
	assert_int_equal(rv_derive_step(RV_KIND_EVENT, 1.0, 4.0, 1, 3 * s, &p, &out), 0);
	assert_int_equal(rv_derive_step(RV_KIND_EVENT, 1.0, 10.0, 1, 4 * s, &p, &out), 1);
	assert_true(out == 6.0);
}

/* The real kernel of this host: channels with a valid sample, or a
 * reason. */
static void test_real_host(void **state)
{
	struct rv_chanlist l = { .source = "net.qdisc" };
	struct rv_err err = { 0 };
	double *raw;
	uint8_t *ok;
	void *st = NULL;
	size_t valid = 0;
	int rc;

	(void)state;
	rc = rv_src_net_qdisc.open(&(struct rv_collect_cfg){ .root = "" }, &st, &l, &err);
	if (rc) {
		print_message("net.qdisc on this host: %s\n", err.msg);
		assert_true(rc < 0);
		assert_null(st);
		rv_chanlist_fini(&l);
		return;
	}
	print_message("net.qdisc on this host: %zu channels, first %s\n", l.n, l.v[0].name);
	assert_true(l.n % F == 0);
	raw = calloc(l.n, sizeof(*raw));
	ok = calloc(l.n, sizeof(*ok));
	assert_non_null(raw);
	assert_non_null(ok);
	for (int k = 0; k < 2; k++) {
		rv_src_net_qdisc.sample(st, raw, ok);
		valid = 0;
		for (size_t i = 0; i < l.n; i++)
			valid += ok[i];
	}
	assert_true(valid > 0);
	free(raw);
	free(ok);
	rv_src_net_qdisc.close(st);
	rv_chanlist_fini(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_two_ifaces),
		cmocka_unit_test(test_parse_old_stats),
		cmocka_unit_test(test_parse_skips),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_bad_attrs),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_unaligned),
		cmocka_unit_test(test_source_channels),
		cmocka_unit_test(test_source_vanished_unknown),
		cmocka_unit_test(test_source_failures),
		cmocka_unit_test(test_source_open_fails),
		cmocka_unit_test(test_replaced_qdisc_is_a_gap),
		cmocka_unit_test(test_real_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
