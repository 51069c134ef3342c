/*
 * proc_irq_test.c - unit tests of proc.interrupts, proc.softirqs and
 * proc.softnet (sources.h): channel names and exact values on the
 * fixture trees tests/fixtures/collect/irqhost (a 2-CPU VM, as read) and
 * irqhost8 (8 CPUs, a 4-queue NIC and an NVMe drive; CPU 5 offline in
 * softnet_stat), and the damage a sample may meet in files rewritten in a
 * temporary tree: rows and CPU columns that vanish, malformed and huge
 * numbers, short lines, an emptied file; never a made-up value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "collect/sources.h"

enum { PATH_MAX_LEN = 512, BIG_FILE = 1 << 16, BIG_CPUS = 20 };

static const double u64_max = 18446744073709551615.0;

struct run {
	const struct rv_source *src;
	struct rv_chanlist chans;
	void *state;
	double *raw;
	uint8_t *valid;
};

struct tree {
	char dir[64];
};

/* ---------------------------------------------------------------- helpers */

/* The catalog table of these sources is wired in by catalog.c; until it
 * is, the sources cannot name their channels and the tests are skipped. */
static void need_catalog(void)
{
	if (!rv_catalog_metric("cpu.irqs") || !rv_catalog_metric("net.softnet_processed")) {
		print_message("catalog/metrics_irq.c is not listed in catalog.c yet\n");
		skip();
	}
}

static void fixture_root(const char *tree, char *root, size_t cap)
{
	const char *dir = getenv("RV_FIXTURES");

	assert_non_null(dir);
	snprintf(root, cap, "%s/collect/%s", dir, tree);
}

static int run_open(struct run *r, const struct rv_source *src, const char *root,
		    struct rv_err *err)
{
	struct rv_collect_cfg cfg = { .root = root, .nvml_lib = NULL };
	int rc;

	memset(r, 0, sizeof(*r));
	r->src = src;
	rv_err_clear(err);
	rc = src->open(&cfg, &r->state, &r->chans, err);
	if (rc)
		return rc;
	r->raw = calloc(r->chans.n + 1, sizeof(*r->raw));
	r->valid = calloc(r->chans.n + 1, sizeof(*r->valid));
	assert_non_null(r->raw);
	assert_non_null(r->valid);
	return 0;
}

static void run_open_ok(struct run *r, const struct rv_source *src, const char *root)
{
	struct rv_err err;
	int rc = run_open(r, src, root, &err);

	if (rc)
		print_message("open: %s\n", err.msg);
	assert_int_equal(rc, 0);
}

static void open_fixture(struct run *r, const struct rv_source *src, const char *tree)
{
	char root[PATH_MAX_LEN];

	fixture_root(tree, root, sizeof(root));
	run_open_ok(r, src, root);
}

static void run_sample(struct run *r)
{
	memset(r->valid, 0, r->chans.n);
	for (size_t i = 0; i < r->chans.n; i++)
		r->raw[i] = -1.0;
	r->src->sample(r->state, r->raw, r->valid);
}

static void run_close(struct run *r)
{
	r->src->close(r->state);
	rv_chanlist_fini(&r->chans);
	free(r->raw);
	free(r->valid);
}

static long chan(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->chans.n; i++)
		if (strcmp(r->chans.v[i].name, name) == 0)
			return (long)i;
	return -1;
}

static void want_value(const struct run *r, const char *name, double v)
{
	long i = chan(r, name);

	if (i < 0 || !r->valid[i] || r->raw[i] != v)
		print_message("%s: index %ld valid %d raw %.17g, want %.17g\n", name, i,
			      i < 0 ? -1 : r->valid[i], i < 0 ? 0.0 : r->raw[i], v);
	assert_true(i >= 0);
	assert_int_equal(r->valid[i], 1);
	assert_true(r->raw[i] == v);
}

static void want_invalid(const struct run *r, const char *name)
{
	long i = chan(r, name);

	assert_true(i >= 0);
	if (r->valid[i])
		print_message("%s: valid with %.17g\n", name, r->raw[i]);
	assert_int_equal(r->valid[i], 0);
}

/* Channel i is called name. */
struct at {
	size_t i;
	const char *name;
};

/* Channel name is valid with value v. */
struct val {
	const char *name;
	double v;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void want_names(const struct run *r, const struct at *t, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		assert_true(t[k].i < r->chans.n);
		assert_string_equal(r->chans.v[t[k].i].name, t[k].name);
	}
}

static void want_values(const struct run *r, const struct val *t, size_t n)
{
	for (size_t k = 0; k < n; k++)
		want_value(r, t[k].name, t[k].v);
}

static void want_gone(const struct run *r, const char *const *names, size_t n)
{
	for (size_t k = 0; k < n; k++)
		want_invalid(r, names[k]);
}

static size_t count_valid(const struct run *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->chans.n; i++)
		n += r->valid[i];
	return n;
}

static void tree_make(struct tree *t)
{
	char path[PATH_MAX_LEN];

	snprintf(t->dir, sizeof(t->dir), "/tmp/rv_irq_XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(path, sizeof(path), "%s/proc", t->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/proc/net", t->dir);
	assert_int_equal(mkdir(path, 0700), 0);
}

/* Writes the file in place (same inode), as the kernel's files change
 * under an open descriptor. */
static void tree_put(const struct tree *t, const char *rel, const char *text)
{
	char path[PATH_MAX_LEN];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", t->dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void tree_remove(const struct tree *t)
{
	static const char *const rels[] = {
		"/proc/interrupts", "/proc/softirqs", "/proc/net/softnet_stat",
	};
	char path[PATH_MAX_LEN];

	for (size_t i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", t->dir, rels[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/proc/net", t->dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/proc", t->dir);
	rmdir(path);
	rmdir(t->dir);
}

/* Open on a file that is not there fails and names the path. */
static void want_missing(const struct rv_source *src, const char *rel)
{
	struct tree t;
	struct run r;
	struct rv_err err;

	tree_make(&t);
	assert_int_equal(run_open(&r, src, t.dir, &err), -ENOENT);
	assert_non_null(strstr(err.msg, t.dir));
	assert_non_null(strstr(err.msg, rel));
	tree_remove(&t);
}

/* Open on an empty file fails with -EINVAL naming the path. */
static void want_empty_refused(const struct rv_source *src, const char *rel)
{
	struct tree t;
	struct run r;
	struct rv_err err;

	tree_make(&t);
	tree_put(&t, rel, "");
	assert_int_equal(run_open(&r, src, t.dir, &err), -EINVAL);
	assert_non_null(strstr(err.msg, rel));
	tree_remove(&t);
}

/* A file emptied after open leaves every channel invalid. */
static void want_emptied(const struct rv_source *src, const char *rel, const char *text)
{
	struct tree t;
	struct run r;

	tree_make(&t);
	tree_put(&t, rel, text);
	run_open_ok(&r, src, t.dir);
	run_sample(&r);
	assert_true(count_valid(&r) > 0);
	tree_put(&t, rel, "");
	run_sample(&r);
	assert_int_equal(count_valid(&r), 0);
	tree_put(&t, rel, "garbage\n");
	run_sample(&r);
	assert_int_equal(count_valid(&r), 0);
	run_close(&r);
	tree_remove(&t);
}

/*
 * A file as at open (`before`, nchans channels, all valid), then damaged
 * (`after`: the channels vals valid with their values, those of gone
 * invalid, with exact no others valid, and no channel called absent),
 * then as at open again (all valid again).
 */
struct damage {
	const struct rv_source *src;
	const char *rel;
	const char *before, *after;
	size_t nchans;
	const struct val *vals;
	size_t nvals;
	const char *const *gone;
	size_t ngone;
	int exact;
	const char *absent;
};

static void run_damage(const struct damage *d)
{
	struct tree t;
	struct run r;

	tree_make(&t);
	tree_put(&t, d->rel, d->before);
	run_open_ok(&r, d->src, t.dir);
	assert_int_equal(r.chans.n, d->nchans);
	run_sample(&r);
	assert_int_equal(count_valid(&r), d->nchans);
	tree_put(&t, d->rel, d->after);
	run_sample(&r);
	want_values(&r, d->vals, d->nvals);
	want_gone(&r, d->gone, d->ngone);
	if (d->exact)
		assert_int_equal(count_valid(&r), d->nvals);
	if (d->absent)
		assert_int_equal(chan(&r, d->absent), -1);
	tree_put(&t, d->rel, d->before);
	run_sample(&r);
	assert_int_equal(count_valid(&r), d->nchans);
	run_close(&r);
	tree_remove(&t);
}

/* ---------------------------------------------------------------- proc.interrupts */

static void test_interrupts_vm(void **unused)
{
	/* 2 totals; virtio1-req.0, virtio2-input.0, virtio2-output.0 (sum and
	 * 2 CPUs each); NMI LOC RES CAL TLB (2 CPUs each) */
	static const struct at names[] = {
		{ 0, "cpu.irqs:cpu0" }, { 1, "cpu.irqs:cpu1" },
		{ 2, "storage.irqs:virtio1-req.0" },
		{ 3, "storage.irqs_cpu:virtio1-req.0/cpu0" },
		{ 5, "net.irqs:virtio2-input.0" }, { 8, "net.irqs:virtio2-output.0" },
		{ 11, "cpu.irq_nmi:cpu0" }, { 20, "cpu.irq_tlb:cpu1" },
	};
	static const struct val vals[] = {
		{ "cpu.irqs:cpu0", 2727737 }, { "cpu.irqs:cpu1", 2991413 },
		{ "storage.irqs:virtio1-req.0", 240369 },
		{ "storage.irqs_cpu:virtio1-req.0/cpu0", 0 },
		{ "storage.irqs_cpu:virtio1-req.0/cpu1", 240369 },
		{ "net.irqs:virtio2-input.0", 557 }, { "net.irqs:virtio2-output.0", 442 },
		{ "net.irqs_cpu:virtio2-output.0/cpu0", 442 },
		{ "cpu.irq_loc:cpu1", 2031071 }, { "cpu.irq_res:cpu0", 131608 },
		{ "cpu.irq_cal:cpu1", 394185 }, { "cpu.irq_tlb:cpu0", 239177 },
	};
	struct run r;

	need_catalog();
	open_fixture(&r, &rv_src_proc_interrupts, "irqhost");
	assert_int_equal(r.chans.n, 21);
	want_names(&r, names, N(names));
	assert_int_equal(r.chans.v[0].metric->kind, RV_KIND_COUNTER);
	assert_int_equal(chan(&r, "net.irqs:virtio4-input"), -1);     /* virtio-rng */
	run_sample(&r);
	assert_int_equal(count_valid(&r), 21);
	want_values(&r, vals, N(vals));
	run_close(&r);
}

static void test_interrupts_8cpu(void **unused)
{
	/* 8 totals; 11 device rows x (sum + 8 CPUs); 5 named rows x 8 */
	static const struct at names[] = {
		{ 8, "storage.irqs:ahci[0000:00:17.0]" }, { 17, "net.irqs:eth0" },
		{ 26, "net.irqs:eth0-TxRx-0" }, { 107, "cpu.irq_nmi:cpu0" },
		{ 146, "cpu.irq_tlb:cpu7" },
	};
	static const struct val vals[] = {
		{ "cpu.irqs:cpu0", 1128678 }, { "cpu.irqs:cpu1", 2247151 },
		{ "cpu.irqs:cpu2", 3380761 }, { "cpu.irqs:cpu3", 4606527 },
		{ "cpu.irqs:cpu4", 5133850 }, { "cpu.irqs:cpu5", 6143442 },
		{ "cpu.irqs:cpu6", 7187990 }, { "cpu.irqs:cpu7", 8192588 },
		{ "net.irqs:eth0-TxRx-2", 303000 },
		{ "net.irqs_cpu:eth0-TxRx-2/cpu2", 300000 },
		{ "net.irqs_cpu:eth0-TxRx-2/cpu6", 3000 },
		{ "net.irqs_cpu:eth0-TxRx-2/cpu0", 0 },
		{ "storage.irqs:nvme0q0", 30 }, { "storage.irqs:nvme0q3", 15021 },
		{ "storage.irqs_cpu:nvme0q4/cpu7", 28 },
		{ "storage.irqs:ahci[0000:00:17.0]", 51 },
		{ "cpu.irq_nmi:cpu3", 40 }, { "cpu.irq_loc:cpu7", 8000000 },
		{ "cpu.irq_tlb:cpu7", 3200 },
	};
	struct run r;

	need_catalog();
	open_fixture(&r, &rv_src_proc_interrupts, "irqhost8");
	assert_int_equal(r.chans.n, 8 + 11 * 9 + 5 * 8);
	want_names(&r, names, N(names));
	assert_int_equal(chan(&r, "net.irqs:xhci_hcd"), -1);
	assert_int_equal(chan(&r, "storage.irqs:xhci_hcd"), -1);
	run_sample(&r);
	assert_int_equal(count_valid(&r), r.chans.n);
	want_values(&r, vals, N(vals));
	run_close(&r);
}

static const char irq_open_text[] =
	"           CPU0       CPU1       CPU2       CPU3\n"
	" 10:          1          2          3          4  IO-APIC   2-edge      timer\n"
	" 40:        100        200        300        400  PCI-MSIX-0000:01:00.0 1-edge eth0-TxRx-0\n"
	" 41:         10         20         30         40  PCI-MSIX-0000:01:00.0 2-edge eth0-TxRx-1\n"
	" 50:       1000       2000       3000       4000  PCI-MSIX-0000:02:00.0 1-edge nvme0q1\n"
	"NMI:          5          6          7          8   Non-maskable interrupts\n"
	"LOC:      10000      20000      30000      40000   Local timer interrupts\n"
	"ERR:          9\n";

/* CPU2 offline (its column gone), eth0-TxRx-1 (IRQ 41) gone, IRQ 50 now
 * another device's, a new IRQ 60. */
static const char irq_hotplug_text[] =
	"           CPU0       CPU1       CPU3\n"
	" 10:          2          3          5  IO-APIC   2-edge      timer\n"
	" 40:        101        201        401  PCI-MSIX-0000:01:00.0 1-edge eth0-TxRx-0\n"
	" 50:       1001       2001       4001  PCI-MSIX-0000:03:00.0 1-edge nvme1q1\n"
	" 60:          7          0          0  PCI-MSIX-0000:03:00.0 0-edge nvme1q0\n"
	"NMI:          5          6          8   Non-maskable interrupts\n"
	"LOC:      10001      20001      40001   Local timer interrupts\n"
	"ERR:          9\n";

static void test_interrupts_hotplug(void **unused)
{
	static const struct val after[] = {
		{ "cpu.irqs:cpu0", 2 + 101 + 1001 + 7 + 5 + 10001 },
		{ "cpu.irqs:cpu1", 3 + 201 + 2001 + 0 + 6 + 20001 },
		{ "cpu.irqs:cpu3", 5 + 401 + 4001 + 0 + 8 + 40001 },
		{ "net.irqs:eth0-TxRx-0", 703 }, { "net.irqs_cpu:eth0-TxRx-0/cpu3", 401 },
		{ "cpu.irq_nmi:cpu3", 8 }, { "cpu.irq_loc:cpu1", 20001 },
	};
	static const char *const gone[] = {
		"cpu.irqs:cpu2", "net.irqs_cpu:eth0-TxRx-0/cpu2", "net.irqs:eth0-TxRx-1",
		"net.irqs_cpu:eth0-TxRx-1/cpu0", "storage.irqs:nvme0q1",
		"storage.irqs_cpu:nvme0q1/cpu0", "cpu.irq_nmi:cpu2",
	};
	const struct damage d = {
		.src = &rv_src_proc_interrupts, .rel = "/proc/interrupts",
		.before = irq_open_text, .after = irq_hotplug_text,
		.nchans = 4 + 3 * 5 + 2 * 4,
		.vals = after, .nvals = N(after), .gone = gone, .ngone = N(gone),
		.absent = "storage.irqs:nvme1q0",
	};

	need_catalog();
	run_damage(&d);
}

/* IRQ 40 has a word in CPU1 and 2^64 - 1 in CPU0; IRQ 41 is cut after
 * CPU1; CPU3 of the timer is past 2^64; LOC's CPU2 is negative; a line
 * without a label and a last line cut before its colon. */
static const char irq_bad_text[] =
	"           CPU0       CPU1       CPU2       CPU3\n"
	" 10:          1          2          3 18446744073709551616  IO-APIC 2-edge timer\n"
	" 40: 18446744073709551615        x20        300        400  PCI-MSIX 1-edge eth0-TxRx-0\n"
	" 41:         10         20\n"
	" 50:       1000       2000       3000       4000  PCI-MSIX-0000:02:00.0 1-edge nvme0q1\n"
	"NMI:          5          6          7          8   Non-maskable interrupts\n"
	"LOC:      10000      20000         -1      40000   Local timer interrupts\n"
	"junk line without a label\n"
	" 7";

static void test_interrupts_malformed(void **unused)
{
	static const struct val vals[] = {
		{ "net.irqs_cpu:eth0-TxRx-0/cpu0", u64_max },
		{ "net.irqs_cpu:eth0-TxRx-0/cpu2", 300 }, { "storage.irqs:nvme0q1", 10000 },
		{ "cpu.irq_loc:cpu1", 20000 }, { "cpu.irq_loc:cpu3", 40000 },
		{ "cpu.irq_nmi:cpu2", 7 },
	};
	/* CPU0: 1 + (2^64 - 1) passes 2^64; CPU1: x20; CPU2: IRQ 41 short and
	 * LOC not a number; CPU3: the timer past 2^64. IRQ 41 lost its name
	 * with its end: not known to be eth0-TxRx-1 any more. */
	static const char *const gone[] = {
		"cpu.irqs:cpu0", "cpu.irqs:cpu1", "cpu.irqs:cpu2", "cpu.irqs:cpu3",
		"net.irqs:eth0-TxRx-0", "net.irqs_cpu:eth0-TxRx-0/cpu1",
		"net.irqs:eth0-TxRx-1", "net.irqs_cpu:eth0-TxRx-1/cpu1",
		"cpu.irq_loc:cpu2",
	};
	const struct damage d = {
		.src = &rv_src_proc_interrupts, .rel = "/proc/interrupts",
		.before = irq_open_text, .after = irq_bad_text,
		.nchans = 4 + 3 * 5 + 2 * 4,
		.vals = vals, .nvals = N(vals), .gone = gone, .ngone = N(gone),
	};

	need_catalog();
	run_damage(&d);
}

/* Appends to text[*len ...) as snprintf, failing the test when full. */
static void appendf(char *text, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text + *len, BIG_FILE - *len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < BIG_FILE - *len);
	*len += (size_t)n;
}

/* More than 16 CPUs: device rows as sums only. */
static void test_interrupts_many_cpus(void **unused)
{
	static const struct val vals[] = {
		{ "net.irqs:mlx5_comp0@pci:0000:01:00.0", BIG_CPUS * (BIG_CPUS + 1) / 2 },
		{ "cpu.irqs:cpu19", 1020 }, { "cpu.irq_loc:cpu19", 1000 },
	};
	size_t len = 0;
	struct tree t;
	struct run r;
	char *text;

	need_catalog();
	text = malloc(BIG_FILE);
	assert_non_null(text);
	appendf(text, &len, "     ");
	for (int k = 0; k < BIG_CPUS; k++)
		appendf(text, &len, " CPU%-7d", k);
	appendf(text, &len, "\n 40:");
	for (int k = 0; k < BIG_CPUS; k++)
		appendf(text, &len, " %10d", k + 1);
	appendf(text, &len, "  PCI-MSIX-0000:01:00.0 1-edge mlx5_comp0@pci:0000:01:00.0\nLOC:");
	for (int k = 0; k < BIG_CPUS; k++)
		appendf(text, &len, " %10d", 1000);
	appendf(text, &len, "   Local timer interrupts\n");
	tree_make(&t);
	tree_put(&t, "/proc/interrupts", text);
	run_open_ok(&r, &rv_src_proc_interrupts, t.dir);
	assert_int_equal(r.chans.n, BIG_CPUS + 1 + BIG_CPUS);
	assert_string_equal(r.chans.v[BIG_CPUS].name, "net.irqs:mlx5_comp0@pci:0000:01:00.0");
	run_sample(&r);
	assert_int_equal(count_valid(&r), r.chans.n);
	want_values(&r, vals, N(vals));
	run_close(&r);
	tree_remove(&t);
	free(text);
}

static void test_interrupts_missing_empty(void **unused)
{
	need_catalog();
	want_missing(&rv_src_proc_interrupts, "/proc/interrupts");
	want_empty_refused(&rv_src_proc_interrupts, "/proc/interrupts");
	want_emptied(&rv_src_proc_interrupts, "/proc/interrupts", irq_open_text);
}

/* ---------------------------------------------------------------- proc.softirqs */

static void test_softirqs_fixtures(void **unused)
{
	static const struct at names[] = {
		{ 0, "cpu.softirq_hi:cpu0" }, { 5, "net.softirq_net_tx:cpu1" },
		{ 8, "storage.softirq_block:cpu0" }, { 19, "cpu.softirq_rcu:cpu1" },
	};
	static const struct val vals[] = {
		{ "cpu.softirq_timer:cpu0", 237203 }, { "net.softirq_net_rx:cpu1", 583 },
		{ "storage.softirq_block:cpu1", 240347 }, { "cpu.softirq_sched:cpu1", 329434 },
		{ "cpu.softirq_rcu:cpu0", 474368 },
	};
	static const struct val vals8[] = {
		{ "cpu.softirq_hi:cpu7", 1007 }, { "net.softirq_net_tx:cpu3", 3003 },
		{ "cpu.softirq_irq_poll:cpu5", 6005 }, { "cpu.softirq_hrtimer:cpu0", 9000 },
	};
	struct run r;

	need_catalog();
	open_fixture(&r, &rv_src_proc_softirqs, "irqhost");
	assert_int_equal(r.chans.n, 20);
	want_names(&r, names, N(names));
	run_sample(&r);
	assert_int_equal(count_valid(&r), 20);
	want_values(&r, vals, N(vals));
	run_close(&r);

	open_fixture(&r, &rv_src_proc_softirqs, "irqhost8");
	assert_int_equal(r.chans.n, 80);
	run_sample(&r);
	assert_int_equal(count_valid(&r), 80);
	want_values(&r, vals8, N(vals8));
	run_close(&r);
}

static const char softirq_open_text[] =
	"                    CPU0       CPU1       CPU2\n"
	"          HI:          1          2          3\n"
	"       TIMER:         10         20         30\n"
	"      NET_RX:        100        200        300\n"
	"       BLOCK:       1000       2000       3000\n"
	"         RCU:          4          5          6\n"
	"     FUTURE1:          7          8          9\n";

/* CPU1 offline; TIMER has a word, NET_RX is cut short, BLOCK is gone, RCU
 * is huge and past 2^64, HI appears twice (the first counts). */
static const char softirq_bad_text[] =
	"                    CPU0       CPU2\n"
	"          HI:         11         33\n"
	"       TIMER:        1x0         31\n"
	"      NET_RX:        101\n"
	"         RCU: 18446744073709551615 18446744073709551616\n"
	"          HI:         99         99\n";

static void test_softirqs_malformed(void **unused)
{
	static const struct val vals[] = {
		{ "cpu.softirq_hi:cpu0", 11 }, { "cpu.softirq_hi:cpu2", 33 },
		{ "cpu.softirq_timer:cpu2", 31 }, { "net.softirq_net_rx:cpu0", 101 },
		{ "cpu.softirq_rcu:cpu0", u64_max },
	};
	static const char *const gone[] = {
		"cpu.softirq_hi:cpu1", "cpu.softirq_timer:cpu0", "net.softirq_net_rx:cpu2",
		"storage.softirq_block:cpu0", "cpu.softirq_rcu:cpu2",
	};
	const struct damage d = {
		.src = &rv_src_proc_softirqs, .rel = "/proc/softirqs",
		.before = softirq_open_text, .after = softirq_bad_text,
		.nchans = 5 * 3,        /* FUTURE1 is not followed */
		.vals = vals, .nvals = N(vals), .gone = gone, .ngone = N(gone), .exact = 1,
		.absent = "cpu.softirq_future1:cpu0",
	};

	need_catalog();
	run_damage(&d);
}

static void test_softirqs_missing_empty(void **unused)
{
	struct tree t;
	struct run r;
	struct rv_err err;

	need_catalog();
	want_missing(&rv_src_proc_softirqs, "/proc/softirqs");
	want_empty_refused(&rv_src_proc_softirqs, "/proc/softirqs");
	want_emptied(&rv_src_proc_softirqs, "/proc/softirqs", softirq_open_text);
	tree_make(&t);
	tree_put(&t, "/proc/softirqs", "   CPU0\n  FOO:  1\n");
	assert_int_equal(run_open(&r, &rv_src_proc_softirqs, t.dir, &err), -ENODATA);
	tree_put(&t, "/proc/softirqs", "   CPU0  CPU0\n  HI:  1 1\n");
	assert_int_equal(run_open(&r, &rv_src_proc_softirqs, t.dir, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "twice"));
	tree_remove(&t);
}

/* ---------------------------------------------------------------- proc.softnet */

static void test_softnet_fixtures(void **unused)
{
	static const struct at names[] = {
		{ 0, "net.softnet_processed:cpu0" }, { 4, "net.softnet_backlog_len:cpu0" },
		{ 7, "net.softnet_time_squeeze:cpu1" },
	};
	static const struct val vals[] = {
		{ "net.softnet_processed:cpu0", 0x18 }, { "net.softnet_processed:cpu1", 0x36c },
		{ "net.softnet_dropped:cpu1", 0 },
	};
	static const struct val vals8[] = {
		{ "net.softnet_processed:cpu6", 0x7000 }, { "net.softnet_dropped:cpu7", 7 },
		{ "net.softnet_time_squeeze:cpu4", 0x14 }, { "net.softnet_flow_limit:cpu6", 12 },
		{ "net.softnet_backlog_len:cpu6", 1 },
	};
	struct run r;

	need_catalog();
	open_fixture(&r, &rv_src_proc_softnet, "irqhost");
	assert_int_equal(r.chans.n, 2 * 5);
	want_names(&r, names, N(names));
	assert_int_equal(r.chans.v[1].metric->kind, RV_KIND_EVENT);
	assert_int_equal(r.chans.v[4].metric->kind, RV_KIND_GAUGE);
	run_sample(&r);
	assert_int_equal(count_valid(&r), 10);
	want_values(&r, vals, N(vals));
	run_close(&r);

	/* CPU 5 offline: seven lines, named by their index column */
	open_fixture(&r, &rv_src_proc_softnet, "irqhost8");
	assert_int_equal(r.chans.n, 7 * 5);
	assert_int_equal(chan(&r, "net.softnet_processed:cpu5"), -1);
	assert_string_equal(r.chans.v[25].name, "net.softnet_processed:cpu6");
	run_sample(&r);
	assert_int_equal(count_valid(&r), 35);
	want_values(&r, vals8, N(vals8));
	run_close(&r);
}

static const char softnet_open_text[] =
	"00000010 00000001 00000002 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000003 00000004 00000000\n"
	"00000020 00000005 00000006 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000007 00000000 00000001\n"
	"00000030 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000002\n";

/* CPU 1 offline; CPU 0 has an all-ones processed, a dropped that is not
 * hex and 17 significant digits of squeeze; CPU 2's line is cut after
 * flow_limit, so without its index it cannot be placed; the last line
 * names CPU 9, unknown at open. */
static const char softnet_bad_text[] =
	"ffffffffffffffff 0000zz01 10000000000000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000003 00000004 00000000\n"
	"00000031 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000008\n"
	"00000090 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000009\n";

static void test_softnet_malformed(void **unused)
{
	static const struct val vals[] = {
		{ "net.softnet_processed:cpu0", u64_max }, { "net.softnet_flow_limit:cpu0", 3 },
		{ "net.softnet_backlog_len:cpu0", 4 },
	};
	static const char *const gone[] = {
		"net.softnet_dropped:cpu0", "net.softnet_time_squeeze:cpu0",
		"net.softnet_processed:cpu1", "net.softnet_processed:cpu2",
	};
	const struct damage d = {
		.src = &rv_src_proc_softnet, .rel = "/proc/net/softnet_stat",
		.before = softnet_open_text, .after = softnet_bad_text,
		.nchans = 3 * 5,
		.vals = vals, .nvals = N(vals), .gone = gone, .ngone = N(gone), .exact = 1,
	};

	need_catalog();
	run_damage(&d);
}

/* Kernels before 5.10: no index column, lines are CPUs in order; before
 * 3.11 no flow_limit either. */
static void test_softnet_old_kernels(void **unused)
{
	struct tree t;
	struct run r;

	need_catalog();
	tree_make(&t);
	tree_put(&t, "/proc/net/softnet_stat",
		 "0000000a 00000001 00000002 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000003\n"
		 "0000000b 00000004 00000005 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000006\n");
	run_open_ok(&r, &rv_src_proc_softnet, t.dir);
	assert_int_equal(r.chans.n, 2 * 4);
	assert_string_equal(r.chans.v[7].name, "net.softnet_flow_limit:cpu1");
	run_sample(&r);
	assert_int_equal(count_valid(&r), 8);
	want_value(&r, "net.softnet_processed:cpu1", 11);
	want_value(&r, "net.softnet_flow_limit:cpu1", 6);
	run_close(&r);

	tree_put(&t, "/proc/net/softnet_stat",
		 "0000000a 00000001 00000002 00000000 00000000 00000000 00000000 00000000 00000000\n");
	run_open_ok(&r, &rv_src_proc_softnet, t.dir);
	assert_int_equal(r.chans.n, 3);
	run_sample(&r);
	want_value(&r, "net.softnet_time_squeeze:cpu0", 2);
	run_close(&r);
	tree_remove(&t);
}

static void test_softnet_missing_empty(void **unused)
{
	struct tree t;
	struct run r;
	struct rv_err err;

	need_catalog();
	want_missing(&rv_src_proc_softnet, "/proc/net/softnet_stat");
	want_empty_refused(&rv_src_proc_softnet, "/proc/net/softnet_stat");
	want_emptied(&rv_src_proc_softnet, "/proc/net/softnet_stat", softnet_open_text);
	tree_make(&t);
	tree_put(&t, "/proc/net/softnet_stat", "00000001 00000002\n");
	assert_int_equal(run_open(&r, &rv_src_proc_softnet, t.dir, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "softnet_stat"));
	tree_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interrupts_vm),
		cmocka_unit_test(test_interrupts_8cpu),
		cmocka_unit_test(test_interrupts_hotplug),
		cmocka_unit_test(test_interrupts_malformed),
		cmocka_unit_test(test_interrupts_many_cpus),
		cmocka_unit_test(test_interrupts_missing_empty),
		cmocka_unit_test(test_softirqs_fixtures),
		cmocka_unit_test(test_softirqs_malformed),
		cmocka_unit_test(test_softirqs_missing_empty),
		cmocka_unit_test(test_softnet_fixtures),
		cmocka_unit_test(test_softnet_malformed),
		cmocka_unit_test(test_softnet_old_kernels),
		cmocka_unit_test(test_softnet_missing_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
