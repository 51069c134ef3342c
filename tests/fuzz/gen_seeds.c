/*
 * gen_seeds.c - writes the seeds of the binary formats, which have no
 * fixture files: gen_seeds DIR makes
 *   DIR/model/payload  the payload of a small model fitted on the synthetic
 *                      job (as modelfile_test.c does), its retransmit
 *                      channel quiet while learning so that the novelty
 *                      section has an entry, the input shape of
 *                      fuzz_model (which adds the envelope itself);
 *   DIR/model/file     the same model file whole, envelope included;
 *   DIR/rvl/small.rvl  a recording of 3 channels x 40 samples in blocks of
 *                      16, with gaps, for fuzz_rvl;
 *   DIR/qdisc/dumpN    the datagrams of this host's rtnetlink qdisc dump,
 *                      for fuzz_qdisc (none, and no failure, where netlink
 *                      is refused).
 * DIR/model and DIR/rvl must exist. Run by run.sh; not a fuzz target (its
 * name does not start with fuzz_).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "collect/qdisc_msg.h"
#include "pipeline/model.h"
#include "record/rvl.h"
#include "record/synth.h"
#include "record/table.h"

enum { ENVELOPE_HEAD = 20, ENVELOPE_TAIL = 4, QDISC_DGRAM = 32768, QDISC_DGRAMS = 16 };

/* The synthetic job's retransmits, 0 while learning but for one count:
 * a channel the model's novelty section watches (pipeline/novelty.h). */
static void quiet_retransmits(struct rv_table *t)
{
	for (size_t c = 0; c < t->ncols; c++) {
		float *col = t->values + c * t->nrows;

		if (strcmp(t->names[c], "net.tcp_retrans_segs") != 0)
			continue;
		for (size_t r = 0; r < t->nrows; r++)
			col[r] = r == t->nrows / 2 ? 1.0f : 0.0f;
	}
}

static int write_model(const char *dir)
{
	struct rv_synth_params p;
	struct rv_detect_opts o;
	struct rv_table *train = NULL, *test = NULL;
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };
	uint8_t *labels = NULL, *buf = NULL;
	char file[1024], payload[1024];
	size_t len = 0;
	FILE *f;
	int rc;

	snprintf(file, sizeof(file), "%s/model/file", dir);
	snprintf(payload, sizeof(payload), "%s/model/payload", dir);
	rv_synth_defaults(&p);
	p.train_s = 120.0;
	p.test_s = 60.0;
	rc = rv_synth_generate(&p, &train, &test, &labels);
	free(labels);
	if (rc == 0) {
		quiet_retransmits(train);
		rv_detect_opts_default(&o);
		o.ens.iforest.trees = 4;
		rc = rv_model_fit(&o, train, &m, NULL, &err);
	}
	if (rc == 0 && m->nov.n == 0) {
		fprintf(stderr, "gen_seeds: model: no channel in the novelty section\n");
		rc = -EINVAL;
	}
	if (rc == 0)
		rc = rv_model_save(m, file, &err);
	rv_model_free(m);
	rv_table_free(train);
	rv_table_free(test);
	if (rc != 0) {
		fprintf(stderr, "gen_seeds: model: %s\n", rv_err_text(&err, rc));
		return 1;
	}
	f = fopen(file, "rb");
	if (f && (buf = malloc(1 << 24)) != NULL)
		len = fread(buf, 1, 1 << 24, f);
	if (f)
		fclose(f);
	rc = 1;
	if (len > ENVELOPE_HEAD + ENVELOPE_TAIL && (f = fopen(payload, "wb")) != NULL) {
		size_t n = len - ENVELOPE_HEAD - ENVELOPE_TAIL;

		rc = fwrite(buf + ENVELOPE_HEAD, 1, n, f) != n;
		rc |= fclose(f) != 0;
	}
	free(buf);
	if (rc)
		fprintf(stderr, "gen_seeds: cannot write %s\n", payload);
	return rc;
}

static int write_rvl(const char *dir)
{
	static const struct rv_rvl_chan ch[] = {
		{ "cpu.util:cpu0", "ratio", RV_KIND_GAUGE, 1.0 },
		{ "net.rx_bytes:eth0", "B", RV_KIND_COUNTER, 1.0 },
		{ "mem.free_bytes", NULL, RV_KIND_GAUGE, 1024.0 },
	};
	struct rv_rvl_writer *w = NULL;
	struct rv_err err = { 0 };
	char path[1024];
	int rc;

	snprintf(path, sizeof(path), "%s/rvl/small.rvl", dir);
	rc = rv_rvl_writer_open(path, ch, 3, 16, &w, &err);
	for (int i = 0; rc == 0 && i < 40; i++) {
		double v[3] = { 0.5 + 0.4 * sin(i), 1e6 * i, i % 7 == 3 ? NAN : 4096.0 - i };
		uint8_t ok[3] = { 1, i % 11 != 5, 1 };

		rc = rv_rvl_writer_append(w, 1700000000000000000LL + i * 1000000000LL, v, ok, &err);
	}
	if (w) {
		int rc2 = rv_rvl_writer_close(w, 0, &err);

		rc = rc ? rc : rc2;
	}
	if (rc)
		fprintf(stderr, "gen_seeds: rvl: %s\n", rv_err_text(&err, rc));
	return rc != 0;
}

static void no_root(void *ctx, int ifindex, const struct rv_qdisc_stats *st)
{
	(void)ctx;
	(void)ifindex;
	(void)st;
}

/* The datagrams of one qdisc dump of this host, each a file, until its
 * NLMSG_DONE; nothing where netlink is refused (seeds help, they are not
 * needed). */
static int write_qdisc(const char *dir)
{
	static unsigned char buf[QDISC_DGRAM];
	struct timeval wait = { .tv_sec = 1 };
	size_t len = rv_qdisc_request(buf, sizeof(buf), 1);
	char path[1024];
	int fd, done = 0;

	snprintf(path, sizeof(path), "%s/qdisc", dir);
	if (mkdir(path, 0700) != 0 && errno != EEXIST)
		return 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait)) != 0 ||
	    send(fd, buf, len, 0) != (ssize_t)len) {
		fprintf(stderr, "gen_seeds: qdisc: no dump (%s)\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	for (int i = 0; !done && i < QDISC_DGRAMS; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		FILE *f;

		if (n <= 0)
			break;
		snprintf(path, sizeof(path), "%s/qdisc/dump%d", dir, i);
		f = fopen(path, "wb");
		if (f) {
			fwrite(buf, 1, (size_t)n, f);
			fclose(f);
		}
		done = rv_qdisc_parse(buf, (size_t)n, 1, no_root, NULL) != 0;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	return write_model(argv[1]) | write_rvl(argv[1]) | write_qdisc(argv[1]);
}
