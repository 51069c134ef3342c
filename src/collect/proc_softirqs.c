/*
 * proc_softirqs.c - source "proc.softirqs": /proc/softirqs, softirqs
 * raised per CPU and kind.
 *
 * Each of the ten kinds the kernel has printed since 4.x (HI ... RCU) that
 * is in the file at open becomes one counter per CPU: cpu.softirq_<kind>:
 * cpuN, but for the network and block kinds, which go to their subsystem
 * (net.softirq_net_tx, net.softirq_net_rx, storage.softirq_block). Rows of
 * other names (a future kernel's) are ignored.
 *
 * The CPUs are the header's columns (cpucols.h): a CPU taken offline after
 * open leaves its channels invalid; one that comes online is not followed
 * until the collector reopens. A row that is missing, cut short or not a
 * number in a column leaves the channels it did not give invalid.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdlib.h>

#include "base/strparse.h"
#include "collect/cpucols.h"
#include "collect/pairs.h"
#include "collect/pfile.h"

enum { SOFTIRQ_KINDS = 10 };

static const char *const kind_labels[SOFTIRQ_KINDS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};
static const char *const kind_types[SOFTIRQ_KINDS] = {
	"cpu.softirq_hi", "cpu.softirq_timer", "net.softirq_net_tx", "net.softirq_net_rx",
	"storage.softirq_block", "cpu.softirq_irq_poll", "cpu.softirq_tasklet",
	"cpu.softirq_sched", "cpu.softirq_hrtimer", "cpu.softirq_rcu",
};

struct softirq_src {
	struct rv_pfile f;
	struct rv_cpucols cols;
	long base[SOFTIRQ_KINDS];       /* first channel of the kind, -1: not at open */
};

/* Kind of the row labelled [s, s + len), or -1. */
static int kind_of(const char *s, size_t len)
{
	for (int k = 0; k < SOFTIRQ_KINDS; k++)
		if (rv_str_eq(s, s + len, kind_labels[k]))
			return k;
	return -1;
}

static void softirq_sample(void *state, double *raw, uint8_t *valid)
{
	struct softirq_src *st = state;
	struct rv_cpucols *c = &st->cols;
	const char *p, *end, *s, *e, *ls;
	uint64_t sum;
	size_t llen;
	int k;

	if (rv_cpucols_reread(c, &st->f, &p, &end))
		return;                 /* every channel stays invalid */
	while (p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		if (rv_cpucols_label(&s, e, &ls, &llen) || (k = kind_of(ls, llen)) < 0 ||
		    st->base[k] < 0)
			continue;
		rv_cpucols_row(c, &s, e, &sum);
		rv_cpucols_put(c, raw + st->base[k], valid + st->base[k]);
	}
}

static void softirq_close(void *state)
{
	struct softirq_src *st = state;

	if (!st)
		return;
	rv_pfile_close(&st->f);
	rv_cpucols_fini(&st->cols);
	free(st);
}

/* Which kinds the file has (st->base[k] = 0 for those, -1 else). */
static size_t find_kinds(struct softirq_src *st, const char *p, const char *end)
{
	const char *s, *e, *ls;
	size_t llen, n = 0;
	int k;

	for (k = 0; k < SOFTIRQ_KINDS; k++)
		st->base[k] = -1;
	while (p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		if (rv_cpucols_label(&s, e, &ls, &llen) == 0 && (k = kind_of(ls, llen)) >= 0 &&
		    st->base[k] < 0) {
			st->base[k] = 0;
			n++;
		}
	}
	return n;
}

static int softirq_open(const struct rv_collect_cfg *cfg, void **state,
			struct rv_chanlist *chans, struct rv_err *err)
{
	struct softirq_src *st = calloc(1, sizeof(*st));
	const char *p, *end;
	long next = 0;
	int rc;

	if (!st)
		return rv_err_set(err, -ENOMEM, "proc.softirqs: out of memory");
	rc = rv_cpucols_open(&st->cols, &st->f, cfg->root, "/proc/softirqs", &p, &end, err);
	if (rc)
		goto fail;
	if (find_kinds(st, p, end) == 0) {
		rc = rv_err_set(err, -ENODATA, "%s: none of the known softirq rows", st->f.path);
		goto fail;
	}
	for (int k = 0; !rc && k < SOFTIRQ_KINDS; k++) {
		if (st->base[k] < 0)
			continue;
		st->base[k] = next;
		next += (long)st->cols.n;
		rc = rv_cpucols_add(&st->cols, chans, kind_types[k], NULL, err);
	}
	if (rc)
		goto fail;
	*state = st;
	return 0;
fail:
	softirq_close(st);
	return rc;
}

const struct rv_source rv_src_proc_softirqs = {
	.name = "proc.softirqs",
	.open = softirq_open,
	.sample = softirq_sample,
	.close = softirq_close,
};
