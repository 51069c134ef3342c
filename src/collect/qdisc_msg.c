/*
 * qdisc_msg.c - see qdisc_msg.h.
 *
 * Every header and payload is copied out with memcpy before it is read:
 * the kernel aligns to 4 bytes, struct tc_stats starts with a u64, and
 * tests and fuzzers hand in buffers at any address. Lengths are checked
 * against what is left of the enclosing message or attribute before
 * anything past them is touched; the last item of a container may lack
 * its padding.
 */
#include "collect/qdisc_msg.h"

#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>

/* The old struct tc_stats up to its last field: 36 bytes where a u64 is
 * 4-byte aligned (i386), 40 with the tail padding elsewhere. */
#define TC_STATS_MIN (offsetof(struct tc_stats, backlog) + sizeof(uint32_t))

size_t rv_qdisc_request(void *buf, size_t cap, uint32_t seq)
{
	struct nlmsghdr h = {
		.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.nlmsg_type = RTM_GETQDISC,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nlmsg_seq = seq,
	};
	struct tcmsg t = { .tcm_family = AF_UNSPEC };

	if (!buf || cap < h.nlmsg_len)
		return 0;
	memcpy(buf, &h, sizeof(h));
	memcpy((unsigned char *)buf + NLMSG_HDRLEN, &t, sizeof(t));
	return h.nlmsg_len;
}

/* Messages and attributes alike are padded to 4 bytes. */
_Static_assert(NLMSG_ALIGNTO == 4 && RTA_ALIGNTO == 4, "netlink pads to 4 bytes");

/* Bytes from an item of len bytes (at least a header, so never 0) to the
 * next: len padded to 4, or what is left when the last one is not padded.
 * In size_t, so that a length near 2^32 cannot wrap to a step of 0. */
static size_t step_of(size_t len, size_t left)
{
	size_t padded = (len + 3u) & ~(size_t)3u;

	return padded < left ? padded : left;
}

/*
 * The next attribute of [*p, end): 1 with its type (flag bits cleared) and
 * payload [*data, *data + *dlen), 0 at the end, -EPROTO when it is cut
 * short or claims more than is left.
 */
static int next_attr(const unsigned char **p, const unsigned char *end, unsigned *type,
		     const unsigned char **data, size_t *dlen)
{
	size_t left = (size_t)(end - *p);
	struct rtattr a;

	if (left == 0)
		return 0;
	if (left < sizeof(a))
		return -EPROTO;
	memcpy(&a, *p, sizeof(a));
	if (a.rta_len < RTA_LENGTH(0) || a.rta_len > left)
		return -EPROTO;
	*type = a.rta_type & NLA_TYPE_MASK;
	*data = *p + RTA_LENGTH(0);
	*dlen = a.rta_len - RTA_LENGTH(0);
	*p += step_of(a.rta_len, left);
	return 1;
}

/* TCA_STATS_QUEUE inside TCA_STATS2 [p, end) into st (all fields valid):
 * 1 found, 0 absent, -EPROTO malformed. */
static int stats2_queue(const unsigned char *p, const unsigned char *end,
			struct rv_qdisc_stats *st)
{
	struct gnet_stats_queue q;
	const unsigned char *data;
	size_t dlen;
	unsigned type;
	int rc, found = 0;

	while ((rc = next_attr(&p, end, &type, &data, &dlen)) > 0) {
		if (type != TCA_STATS_QUEUE)
			continue;
		if (dlen < sizeof(q))
			return -EPROTO;
		memcpy(&q, data, sizeof(q));
		st->v[RV_QDISC_DROPS] = q.drops;
		st->v[RV_QDISC_OVERLIMITS] = q.overlimits;
		st->v[RV_QDISC_REQUEUES] = q.requeues;
		st->v[RV_QDISC_BACKLOG_BYTES] = q.backlog;
		st->v[RV_QDISC_QLEN] = q.qlen;
		memset(st->valid, 1, sizeof(st->valid));
		found = 1;
	}
	return rc < 0 ? rc : found;
}

/* The old TCA_STATS payload into st: 1, or -EPROTO when cut short. It
 * has no requeue count. */
static int old_stats(const unsigned char *data, size_t dlen, struct rv_qdisc_stats *st)
{
	struct tc_stats s;

	if (dlen < TC_STATS_MIN)
		return -EPROTO;
	memset(&s, 0, sizeof(s));
	memcpy(&s, data, TC_STATS_MIN);
	st->v[RV_QDISC_DROPS] = s.drops;
	st->v[RV_QDISC_OVERLIMITS] = s.overlimits;
	st->v[RV_QDISC_BACKLOG_BYTES] = s.backlog;
	st->v[RV_QDISC_QLEN] = s.qlen;
	memset(st->valid, 1, sizeof(st->valid));
	st->valid[RV_QDISC_REQUEUES] = 0;
	return 1;
}

/*
 * An RTM_NEWQDISC payload [p, p + len): 1 with *ifindex and st for a root
 * qdisc with statistics, 0 for any other qdisc or a root without them,
 * -EPROTO when malformed.
 */
static int qdisc_stats(const unsigned char *p, size_t len, int *ifindex,
		       struct rv_qdisc_stats *st)
{
	const unsigned char *end = p + len, *data, *old = NULL;
	struct rv_qdisc_stats s2;
	size_t dlen, old_len = 0;
	struct tcmsg t;
	unsigned type;
	int rc, have2 = 0;

	if (len < sizeof(t))
		return -EPROTO;
	memcpy(&t, p, sizeof(t));
	if (t.tcm_parent != TC_H_ROOT)
		return 0;
	memset(&s2, 0, sizeof(s2));
	p += step_of(sizeof(t), len);
	while ((rc = next_attr(&p, end, &type, &data, &dlen)) > 0) {
		if (type == TCA_STATS2 && !have2) {
			rc = stats2_queue(data, data + dlen, &s2);
			if (rc < 0)
				return rc;
			have2 = rc;
		} else if (type == TCA_STATS) {
			old = data;
			old_len = dlen;
		}
	}
	if (rc < 0)
		return rc;
	*ifindex = t.tcm_ifindex;
	if (have2) {
		*st = s2;
		return 1;
	}
	memset(st, 0, sizeof(*st));
	return old ? old_stats(old, old_len, st) : 0;
}

/* One message of sequence seq: 1 at the dump's end, 0 to go on, or a
 * negative errno. */
static int one_msg(const struct nlmsghdr *h, const unsigned char *body, size_t blen,
		   rv_qdisc_root_fn *fn, void *ctx)
{
	struct rv_qdisc_stats st;
	int rc, ifindex = 0, code = 0;

	switch (h->nlmsg_type) {
	case NLMSG_DONE:        /* carries the dump's error since Linux 4.x */
		if (blen >= sizeof(code))
			memcpy(&code, body, sizeof(code));
		return code < 0 ? code : 1;
	case NLMSG_ERROR:       /* struct nlmsgerr: error first; 0 is an ACK */
		if (blen < sizeof(code))
			return -EPROTO;
		memcpy(&code, body, sizeof(code));
		return code <= 0 ? code : -EPROTO;
	case NLMSG_OVERRUN:
		return -ENOBUFS;
	case RTM_NEWQDISC:
		rc = qdisc_stats(body, blen, &ifindex, &st);
		if (rc > 0)
			fn(ctx, ifindex, &st);
		return rc < 0 ? rc : 0;
	default:                /* NLMSG_NOOP, anything newer */
		return 0;
	}
}

int rv_qdisc_parse(const void *buf, size_t len, uint32_t seq, rv_qdisc_root_fn *fn, void *ctx)
{
	const unsigned char *p = buf, *end = p + len;
	struct nlmsghdr h;
	int rc;

	if (!buf && len)
		return -EINVAL;
	while (p < end) {
		size_t left = (size_t)(end - p);

		if (left < sizeof(h))
			return -EPROTO;
		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > left)
			return -EPROTO;
		if (h.nlmsg_seq == seq) {
			rc = one_msg(&h, p + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN, fn, ctx);
			if (rc)
				return rc;
		}
		p += step_of(h.nlmsg_len, left);
	}
	return 0;
}
