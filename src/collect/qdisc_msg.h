/*
 * qdisc_msg.h - internal to collect/: rtnetlink's qdisc messages without a
 * socket. The dump request that net_qdisc.c sends (RTM_GETQDISC,
 * NLM_F_DUMP) and the parse of the kernel's answer into the statistics of
 * each interface's root qdisc, what `tc -s qdisc show` prints as "dropped,
 * overlimits, requeues, backlog". Pure functions on byte buffers: tests
 * feed replies they build from the kernel's structs, no root and no live
 * netlink needed. Not a source; the socket is net_qdisc.c's.
 */
#ifndef RV_COLLECT_QDISC_MSG_H
#define RV_COLLECT_QDISC_MSG_H

#include <stddef.h>
#include <stdint.h>

/* The statistics of one qdisc, in the order of the source's channels. */
enum rv_qdisc_field {
	RV_QDISC_DROPS,                 /* packets dropped (queue full, policer, AQM) */
	RV_QDISC_OVERLIMITS,            /* enqueues or dequeues over the shaped rate */
	RV_QDISC_REQUEUES,              /* packets the driver handed back */
	RV_QDISC_BACKLOG_BYTES,         /* bytes queued now */
	RV_QDISC_QLEN,                  /* packets queued now */
	RV_QDISC_FIELDS
};

/* Counters are the kernel's 32-bit totals since the qdisc was made. A
 * field the message did not carry has valid[f] = 0: the old TCA_STATS
 * has no requeue count. */
struct rv_qdisc_stats {
	uint64_t v[RV_QDISC_FIELDS];
	uint8_t valid[RV_QDISC_FIELDS];
};

/* Receives the statistics of each root qdisc of a dump; ctx is the one
 * given to rv_qdisc_parse, st lives only for the call. */
typedef void rv_qdisc_root_fn(void *ctx, int ifindex, const struct rv_qdisc_stats *st);

/*
 * Writes the request "dump every qdisc" with sequence number seq into buf
 * (cap bytes, 4-byte aligned). Returns its length, or 0 when cap is too
 * small.
 */
size_t rv_qdisc_request(void *buf, size_t cap, uint32_t seq);

/*
 * Parses one datagram [buf, buf + len) of the answer to request seq. Each
 * RTM_NEWQDISC of seq whose parent is TC_H_ROOT is handed to fn with its
 * interface index (any index: which ones matter is the caller's business)
 * and statistics from TCA_STATS2's TCA_STATS_QUEUE, or from the old
 * TCA_STATS when that is absent; a root qdisc with neither is skipped.
 * Ingress and clsact qdiscs (parent TC_H_INGRESS), classes' qdiscs and
 * messages of another sequence number (what an earlier request left in the
 * socket) are skipped. Returns 1 when the dump ended (NLMSG_DONE of seq)
 * in this datagram, 0 when more datagrams follow, -EPROTO for a message or
 * attribute cut short or running past its container, or the negative
 * errno of an NLMSG_ERROR or of an NLMSG_DONE that carries one. On an
 * error fn may already have been called for earlier messages: the caller
 * drops the whole dump. Allocates nothing; buf need not be aligned.
 */
int rv_qdisc_parse(const void *buf, size_t len, uint32_t seq, rv_qdisc_root_fn *fn, void *ctx);

#endif
