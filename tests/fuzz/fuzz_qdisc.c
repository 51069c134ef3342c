/*
 * fuzz_qdisc.c - libFuzzer target of the rtnetlink qdisc dump parse
 * (collect/qdisc_msg.c, source net.qdisc): the input is one datagram as
 * recv() returns it, parsed as the answer to the sequence number its first
 * message carries (0 when it has none), so that the messages are not all
 * passed over as another request's. The parse must end with 1, 0 or a
 * negative errno, hand over only fields marked 0 or 1, and read nothing
 * past the input (ASan). Seeds: the qdisc dump of the host that runs
 * gen_seeds.c. Build and run: tests/fuzz/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/qdisc_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { SEQ_AT = 8 };    /* offset of nlmsg_seq in struct nlmsghdr */

static void take(void *ctx, int ifindex, const struct rv_qdisc_stats *st)
{
	size_t *n = ctx;

	(void)ifindex;
	for (int f = 0; f < RV_QDISC_FIELDS; f++)
		if (st->valid[f] > 1) {
			fprintf(stderr, "fuzz_qdisc: field %d has validity %d\n", f, st->valid[f]);
			abort();
		}
	(*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t seq = 0;
	size_t roots = 0;
	int rc;

	if (size >= SEQ_AT + sizeof(seq))
		memcpy(&seq, data + SEQ_AT, sizeof(seq));
	rc = rv_qdisc_parse(data, size, seq, take, &roots);
	if (rc > 1 || roots > size / 16) {
		fprintf(stderr, "fuzz_qdisc: parse returned %d after %zu roots\n", rc, roots);
		abort();
	}
	return 0;
}
