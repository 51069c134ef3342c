/*
 * net_qdisc_int.h - the seam between collect/net_qdisc.c and the kernel,
 * for net_qdisc.c and its test only (not API).
 *
 * A netlink socket cannot be faked with a root prefix. rv_src_net_qdisc
 * opens a NETLINK_ROUTE socket and names interfaces with if_indextoname;
 * net_qdisc_test.c hands in one end of an AF_UNIX SOCK_SEQPACKET pair
 * instead (it keeps datagram boundaries and reports a datagram longer than
 * the buffer as netlink does), writes crafted replies into the other end
 * and names the interfaces itself. The source numbers its dump requests
 * 1, 2, 3, ...: the first is open()'s, then one per sample(), so a test
 * knows the sequence number each reply must carry.
 */
#ifndef RV_COLLECT_NET_QDISC_INT_H
#define RV_COLLECT_NET_QDISC_INT_H

#include "collect/source.h"

/* How long one dump may take at most, from the request to NLMSG_DONE. */
enum { RV_QDISC_WAIT_MS = 50 };

struct rv_qdisc_link {
	/* A datagram socket that reaches rtnetlink: a descriptor the source
	 * owns from then on (it closes it), or a negative errno. */
	int (*socket)(void *ctx);
	/* The name of interface ifindex into name (IF_NAMESIZE bytes): 0, or
	 * a negative errno when there is none (it went away). */
	int (*ifname)(void *ctx, int ifindex, char *name);
	void *ctx;                        /* passed to each; borrowed */
	int wait_ms;                      /* a dump's limit; 0: RV_QDISC_WAIT_MS */
};

/*
 * open() of net.qdisc through `link` (rv_src_net_qdisc passes the real
 * socket and names); cfg->root is not looked at. Same contract as
 * source.h's open(); sample and close are rv_src_net_qdisc's.
 */
int rv_qdisc_open_link(const struct rv_qdisc_link *link, void **state,
		       struct rv_chanlist *chans, struct rv_err *err);

#endif
