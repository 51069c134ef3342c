/*
 * proc_interrupts.c - source "proc.interrupts": /proc/interrupts, hardware
 * interrupts per CPU and per IRQ line.
 *
 * Channels, in this order:
 *  - cpu.irqs:cpuN, per CPU the total of every per-CPU row (numbered IRQs
 *    and the named NMI, LOC, ... rows): an uneven spread across CPUs is
 *    the IRQ imbalance this source is for. The host-wide single-number
 *    rows (x86 ERR and MIS, arm64 Err) are left out: they belong to no CPU.
 *  - then, per row present at open, in file order:
 *    - the named rows NMI, LOC, RES, CAL and TLB: cpu.irq_<nmi|loc|...>:cpuN;
 *      other named rows (SPU, PMI, IWI, IPI0, ...) count in the totals only;
 *    - a numbered row whose name (the last word of the line) says network
 *      or storage device (table dev_prefixes: eth*, en*, mlx*, nvme*, ...;
 *      virtio-net queues virtioN-input.M/-output.M; virtio-blk and
 *      virtio-scsi queues virtioN-req*): net.irqs:<name> or
 *      storage.irqs:<name>, the row's sum over all CPUs; and, on hosts of
 *      at most PERCPU_ROWS_MAX_CPUS CPUs only, one channel per CPU,
 *      net.irqs_cpu:<name>/cpuN. Beyond that the per-CPU split of every
 *      queue would be thousands of channels (a 128-CPU host with a 64-queue
 *      NIC); the totals per CPU still show the imbalance, and no "max over
 *      CPUs" channel is offered because the rate of a max is not the max
 *      of the rates. virtio's single "input" queue (virtio-rng) is not a
 *      NIC and is not matched.
 *    All other numbered rows (timers, USB, ACPI) count in the totals only,
 *    as do device rows beyond DEV_ROWS_MAX and names longer than
 *    IRQ_NAME_MAX. A name seen twice gets "-irq<label>" appended.
 *
 * Rows are found again at each sample by their label (the IRQ number or
 * "LOC") through an index sorted at open, and a numbered row must still
 * carry its name (an IRQ number reused by another device is not the same
 * row): a row that vanished leaves its channels invalid; a new one counts
 * in the totals only until the collector reopens. The CPUs are the header's
 * columns (cpucols.h). A per-CPU total is invalid when some row lacks a
 * number for that CPU (cut short, not a number) or the total passes 2^64.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "collect/cpucols.h"
#include "collect/pairs.h"
#include "collect/pfile.h"

enum {
	LABEL_MAX = 16,                 /* "4294967295", "NMI" */
	IRQ_NAME_MAX = 48,              /* "mlx5_comp63@pci:0000:3b:00.0" fits */
	INST_MAX = IRQ_NAME_MAX + LABEL_MAX + 8,
	DEV_ROWS_MAX = 512,
	PERCPU_ROWS_MAX_CPUS = 16,
	NAMED_ROWS = 5,
};

static const char *const named_labels[NAMED_ROWS] = { "NMI", "LOC", "RES", "CAL", "TLB" };
static const char *const named_types[NAMED_ROWS] = {
	"cpu.irq_nmi", "cpu.irq_loc", "cpu.irq_res", "cpu.irq_cal", "cpu.irq_tlb",
};
static const char *const hostwide_labels[] = { "ERR", "MIS", "Err" };

enum { SUB_NONE, SUB_NET, SUB_STORAGE };

/* Device names by their start (the driver or interface name). */
static const struct {
	const char *prefix;
	int sub;
} dev_prefixes[] = {
	{ "eth", SUB_NET }, { "en", SUB_NET }, { "ib", SUB_NET }, { "mlx", SUB_NET },
	{ "ixgbe", SUB_NET }, { "i40e", SUB_NET }, { "ice", SUB_NET }, { "bnxt", SUB_NET },
	{ "nvme", SUB_STORAGE }, { "ahci", SUB_STORAGE }, { "megasas", SUB_STORAGE },
	{ "mpt", SUB_STORAGE },
};
static const char *const sum_types[] = { [SUB_NET] = "net.irqs", [SUB_STORAGE] = "storage.irqs" };
static const char *const cpu_types[] = {
	[SUB_NET] = "net.irqs_cpu", [SUB_STORAGE] = "storage.irqs_cpu",
};

struct irq_row {
	char label[LABEL_MAX];
	char name[IRQ_NAME_MAX];        /* numbered rows: last word of the line */
	char inst[INST_MAX];            /* device rows: channel instance */
	int named;                      /* index in named_labels, or -1 */
	int sub;                        /* device rows: SUB_NET or SUB_STORAGE */
	size_t chan;                    /* first channel */
	int has_sum, has_cpus;          /* sum at chan; one per CPU after it */
	int seen;                       /* found in this sample */
};

struct irq_src {
	struct rv_pfile f;
	struct rv_cpucols cols;
	struct irq_row *rows;           /* in channel order */
	size_t nrows, cap;
	struct irq_row **by_label;      /* rows sorted by label */
	uint64_t *tot;                  /* per CPU slot, this sample */
	uint8_t *bad;
};

static int is_hostwide(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(hostwide_labels) / sizeof(hostwide_labels[0]); i++)
		if (rv_str_eq(s, s + len, hostwide_labels[i]))
			return 1;
	return 0;
}

/* The last blank-separated word of [s, e): [*ws, e'), its length. */
static size_t last_word(const char *s, const char *e, const char **ws)
{
	const char *we = e;

	while (we > s && (we[-1] == ' ' || we[-1] == '\t'))
		we--;
	*ws = we;
	while (*ws > s && (*ws)[-1] != ' ' && (*ws)[-1] != '\t')
		(*ws)--;
	return (size_t)(we - *ws);
}

static int starts(const char *s, size_t len, const char *prefix)
{
	size_t pl = strlen(prefix);

	return len >= pl && memcmp(s, prefix, pl) == 0;
}

/* SUB_NET, SUB_STORAGE or SUB_NONE for the IRQ named [s, s + len). */
static int classify(const char *s, size_t len)
{
	const char *q = s + 6, *e = s + len;
	uint64_t n;

	if (starts(s, len, "virtio") && rv_str_u64(&q, e, &n) == 0 && q < e && *q == '-') {
		q++;
		if (starts(q, (size_t)(e - q), "input.") || starts(q, (size_t)(e - q), "output."))
			return SUB_NET;
		return starts(q, (size_t)(e - q), "req") ? SUB_STORAGE : SUB_NONE;
	}
	for (size_t i = 0; i < sizeof(dev_prefixes) / sizeof(dev_prefixes[0]); i++)
		if (starts(s, len, dev_prefixes[i].prefix))
			return dev_prefixes[i].sub;
	return SUB_NONE;
}

static int named_index(const char *s, size_t len)
{
	for (int j = 0; j < NAMED_ROWS; j++)
		if (rv_str_eq(s, s + len, named_labels[j]))
			return j;
	return -1;
}

static int all_digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return len > 0;
}

/* Compares the label [s, s + len) with a NUL-terminated one, as strcmp. */
static int label_cmp(const char *s, size_t len, const char *label)
{
	size_t ll = strlen(label);
	int c = memcmp(s, label, len < ll ? len : ll);

	return c ? c : (len > ll) - (len < ll);
}

static int row_cmp(const void *a, const void *b)
{
	const struct irq_row *ra = *(const struct irq_row *const *)a;
	const struct irq_row *rb = *(const struct irq_row *const *)b;

	return strcmp(ra->label, rb->label);
}

static struct irq_row *find_row(const struct irq_src *st, const char *s, size_t len)
{
	size_t lo = 0, hi = st->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = label_cmp(s, len, st->by_label[mid]->label);

		if (c == 0)
			return st->by_label[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Adds this row's numbers to the per-CPU totals. */
static void add_totals(struct irq_src *st)
{
	const struct rv_cpucols *c = &st->cols;

	for (size_t k = 0; k < c->n; k++) {
		if (!c->present[k])
			continue;
		if (!c->ok[k] || __builtin_add_overflow(st->tot[k], c->vals[k], &st->tot[k]))
			st->bad[k] = 1;
	}
}

static void put_row(const struct irq_src *st, const struct irq_row *r, int row_ok,
		    uint64_t sum, double *raw, uint8_t *valid)
{
	const struct rv_cpucols *c = &st->cols;
	size_t ch = r->chan;

	if (r->has_sum) {
		raw[ch] = (double)sum;
		valid[ch] = row_ok == 0;
		ch++;
	}
	if (r->has_cpus)
		rv_cpucols_put(c, raw + ch, valid + ch);
}

/* The line [s, e) still carries the row's name (named rows have none). */
static int same_device(const struct irq_row *r, const char *s, const char *e)
{
	const char *ws;
	size_t len = last_word(s, e, &ws);

	return r->name[0] == '\0' || rv_str_eq(ws, ws + len, r->name);
}

static void irq_sample(void *state, double *raw, uint8_t *valid)
{
	struct irq_src *st = state;
	struct rv_cpucols *c = &st->cols;
	const char *p, *end, *s, *e, *ls;
	struct irq_row *r;
	uint64_t sum;
	size_t llen;
	int rc;

	if (rv_cpucols_reread(c, &st->f, &p, &end))
		return;                 /* every channel stays invalid */
	memset(st->tot, 0, c->n * sizeof(*st->tot));
	memset(st->bad, 0, c->n);
	for (size_t i = 0; i < st->nrows; i++)
		st->rows[i].seen = 0;
	while (p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		if (rv_cpucols_label(&s, e, &ls, &llen) || is_hostwide(ls, llen))
			continue;
		rc = rv_cpucols_row(c, &s, e, &sum);
		add_totals(st);
		r = find_row(st, ls, llen);
		if (r && !r->seen && same_device(r, s, e)) {
			r->seen = 1;
			put_row(st, r, rc, sum, raw, valid);
		}
	}
	for (size_t k = 0; k < c->n; k++)
		if (c->present[k] && !st->bad[k]) {
			raw[k] = (double)st->tot[k];
			valid[k] = 1;
		}
}

static void irq_close(void *state)
{
	struct irq_src *st = state;

	if (!st)
		return;
	rv_pfile_close(&st->f);
	rv_cpucols_fini(&st->cols);
	free(st->rows);
	free(st->by_label);
	free(st->tot);
	free(st->bad);
	free(st);
}

static int label_known(const struct irq_src *st, const char *s, size_t len)
{
	for (size_t i = 0; i < st->nrows; i++)
		if (rv_str_eq(s, s + len, st->rows[i].label))
			return 1;
	return 0;
}

static int inst_known(const struct irq_src *st, const char *inst)
{
	for (size_t i = 0; i < st->nrows; i++)
		if (strcmp(st->rows[i].inst, inst) == 0)
			return 1;
	return 0;
}

/* Fills a row for the line labelled [ls, ls + llen) whose numbers end at
 * s; 0 when the row is to be followed. */
static int make_row(struct irq_src *st, struct irq_row *r, const char *ls, size_t llen,
		    const char *s, const char *e, size_t *ndev)
{
	const char *ws;
	size_t wl;

	memset(r, 0, sizeof(*r));
	r->named = named_index(ls, llen);
	if (llen >= LABEL_MAX || label_known(st, ls, llen))
		return -EINVAL;
	memcpy(r->label, ls, llen);
	if (r->named >= 0) {
		r->has_cpus = 1;
		return 0;
	}
	wl = last_word(s, e, &ws);
	if (!all_digits(ls, llen) || wl == 0 || wl >= IRQ_NAME_MAX || *ndev >= DEV_ROWS_MAX)
		return -EINVAL;
	r->sub = classify(ws, wl);
	if (r->sub == SUB_NONE)
		return -EINVAL;
	memcpy(r->name, ws, wl);
	memcpy(r->inst, ws, wl);
	if (inst_known(st, r->inst))
		snprintf(r->inst, sizeof(r->inst), "%s-irq%s", r->name, r->label);
	r->has_sum = 1;
	r->has_cpus = st->cols.n <= PERCPU_ROWS_MAX_CPUS;
	(*ndev)++;
	return 0;
}

/* The rows to follow, in file order, from the lines after the header. */
static int find_rows(struct irq_src *st, const char *p, const char *end)
{
	const char *s, *e, *ls;
	size_t llen, ndev = 0;
	uint64_t sum;

	st->cap = NAMED_ROWS + DEV_ROWS_MAX;
	st->rows = calloc(st->cap, sizeof(*st->rows));
	st->by_label = calloc(st->cap, sizeof(*st->by_label));
	if (!st->rows || !st->by_label)
		return -ENOMEM;
	while (p < end && st->nrows < st->cap) {
		s = rv_pairs_next_line(&p, end, &e);
		if (rv_cpucols_label(&s, e, &ls, &llen) || is_hostwide(ls, llen) ||
		    rv_cpucols_row(&st->cols, &s, e, &sum))
			continue;
		if (make_row(st, &st->rows[st->nrows], ls, llen, s, e, &ndev) == 0)
			st->nrows++;
	}
	for (size_t i = 0; i < st->nrows; i++)
		st->by_label[i] = &st->rows[i];
	qsort(st->by_label, st->nrows, sizeof(*st->by_label), row_cmp);
	return 0;
}

static int add_row_chans(struct irq_src *st, struct irq_row *r, size_t *next,
			 struct rv_chanlist *chans, struct rv_err *err)
{
	int rc = 0;

	r->chan = *next;
	if (r->has_sum) {
		rc = rv_chanlist_add(chans, sum_types[r->sub], r->inst, 1.0, err);
		(*next)++;
	}
	if (!rc && r->has_cpus) {
		if (r->named >= 0)
			rc = rv_cpucols_add(&st->cols, chans, named_types[r->named], NULL, err);
		else
			rc = rv_cpucols_add(&st->cols, chans, cpu_types[r->sub], r->inst, err);
		*next += st->cols.n;
	}
	return rc;
}

static int irq_open(const struct rv_collect_cfg *cfg, void **state,
		    struct rv_chanlist *chans, struct rv_err *err)
{
	struct irq_src *st = calloc(1, sizeof(*st));
	const char *p, *end;
	size_t next;
	int rc;

	if (!st)
		return rv_err_set(err, -ENOMEM, "proc.interrupts: out of memory");
	rc = rv_cpucols_open(&st->cols, &st->f, cfg->root, "/proc/interrupts", &p, &end, err);
	if (rc)
		goto fail;
	st->tot = calloc(st->cols.n, sizeof(*st->tot));
	st->bad = calloc(st->cols.n, sizeof(*st->bad));
	if (!st->tot || !st->bad || find_rows(st, p, end)) {
		rc = rv_err_set(err, -ENOMEM, "%s: out of memory", st->f.path);
		goto fail;
	}
	rc = rv_cpucols_add(&st->cols, chans, "cpu.irqs", NULL, err);
	next = st->cols.n;
	for (size_t i = 0; !rc && i < st->nrows; i++)
		rc = add_row_chans(st, &st->rows[i], &next, chans, err);
	if (rc)
		goto fail;
	*state = st;
	return 0;
fail:
	irq_close(st);
	return rc;
}

const struct rv_source rv_src_proc_interrupts = {
	.name = "proc.interrupts",
	.open = irq_open,
	.sample = irq_sample,
	.close = irq_close,
};
