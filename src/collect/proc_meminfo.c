/*
 * proc_meminfo.c - source "proc.meminfo": /proc/meminfo, and the reader of
 * "key value [kB]" files it shares with proc_vmstat.c (kvsrc.h).
 *
 * Every field of the table below that the file has at open becomes a
 * gauge: mem.<field>_bytes for the kB fields (scale 1024), mem.<field>
 * for the page counts HugePages_Total/Free/Rsvd/Surp. Field names become
 * lower_snake_case at their case changes (KernelStack -> kernel_stack,
 * Active(anon) -> active_anon; runs of capitals stay one word: SReclaimable
 * -> sreclaimable). A field the table does not know is skipped: kernels
 * add fields, and a channel needs a catalog entry (metrics_mem.c).
 *
 * The reader indexes the keys of the file at open because nothing promises
 * the order of the lines stays the same: sorted while it is built, then a
 * hash table that a sample probes once per line without allocating (most
 * lines of /proc/vmstat are not wanted: a miss must be cheap).
 *
 * The kernel does keep the order, so a sample first tries the lines as the
 * last hashed pass found them: each line's key is compared with the key
 * that line had (one memcmp, no scanning for the key's end, no hashing),
 * and only a wanted line's value is parsed. The first line whose key
 * differs, or a different number of lines, drops that pass and the sample
 * is taken again by hashing, which learns the new order: both passes give
 * the same values and validity bits, the first at about half the cost
 * (docs/PERFORMANCE.md, "A fair side by side").
 */
#include "collect/kvsrc.h"
#include "collect/sources.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strparse.h"
#include "collect/pfile.h"

enum { KEY_MAX = 48, KIB = 1024, PAGE_FALLBACK = 4096 };

/* A key of the file at open and the channel it feeds. */
struct kv_key {
	char key[KEY_MAX];
	uint32_t len;
	uint32_t chan;
};

/* A line of the file as the last hashed pass found it: its key is the
 * len bytes at off in the order's key text (len 0: a line without a key),
 * `key` the index + 1 of the wanted key it is (0: not wanted). */
struct kv_line {
	uint32_t off;
	uint16_t len;
	uint16_t key;
};

struct kv_src {
	struct rv_pfile f;
	struct kv_key *keys;    /* sorted by key */
	size_t nkeys;
	uint32_t *slot;         /* hash of a key -> its index + 1 (0: empty) */
	size_t nslot;           /* a power of two, at least 4 x nkeys */
	size_t nchan;
	uint16_t *parts;        /* per channel: keys that feed it */
	uint16_t *hits;         /* per channel: keys read this sample */
	struct kv_line *line;   /* the order: line_cap entries taken at open */
	size_t nline, line_cap;
	char *text;             /* the order's keys, f.cap bytes */
	int ordered;            /* line[0, nline) is the file's order */
};

/* Next line of [*p, end): sets *line_end; advances *p past the newline. */
static const char *next_line(const char **p, const char *end, const char **line_end)
{
	const char *s = *p, *e = memchr(s, '\n', (size_t)(end - s));

	*line_end = e ? e : end;
	*p = e ? e + 1 : end;
	return s;
}

/* The key of a line: up to ':' or a blank. Its end, or NULL when empty. */
static const char *key_end(const char *s, const char *e)
{
	const char *k = s;

	while (k < e && *k != ':' && *k != ' ' && *k != '\t')
		k++;
	return k > s ? k : NULL;
}

/* The value after the key: blanks, an optional ':', blanks, a number and
 * nothing after it but blanks and an optional "kB". */
static int line_value(const char *k, const char *e, uint64_t *v)
{
	rv_str_skip_blank(&k, e);
	if (k < e && *k == ':')
		k++;
	rv_str_skip_blank(&k, e);
	if (rv_str_u64(&k, e, v))
		return -EINVAL;
	rv_str_skip_blank(&k, e);
	if (k < e && e - k == 2 && memcmp(k, "kB", 2) == 0)
		k = e;
	rv_str_skip_blank(&k, e);
	return k == e ? 0 : -EINVAL;
}

/* Compares the key [s, s + len) with a NUL-terminated one. */
static int key_cmp(const char *s, size_t len, const char *key)
{
	size_t kl = strnlen(key, KEY_MAX);
	int c = memcmp(s, key, len < kl ? len : kl);

	return c ? c : (len > kl) - (len < kl);
}

static const struct kv_key *find_key(const struct kv_src *st, const char *s, size_t len)
{
	size_t lo = 0, hi = st->nkeys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(s, len, st->keys[mid].key);

		if (c == 0)
			return &st->keys[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* FNV-1a over the key's bytes. */
static uint32_t key_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

/* The hash table over the finished key index (linear probing). */
static int build_slots(struct kv_src *st)
{
	st->nslot = 16;
	while (st->nslot < 4 * st->nkeys)
		st->nslot *= 2;
	st->slot = calloc(st->nslot, sizeof(*st->slot));
	if (!st->slot)
		return -ENOMEM;
	for (size_t i = 0; i < st->nkeys; i++) {
		size_t at = key_hash(st->keys[i].key, st->keys[i].len) & (st->nslot - 1);

		while (st->slot[at])
			at = (at + 1) & (st->nslot - 1);
		st->slot[at] = (uint32_t)i + 1;
	}
	return 0;
}

static const struct kv_key *lookup(const struct kv_src *st, const char *s, size_t len)
{
	size_t at = key_hash(s, len) & (st->nslot - 1);

	for (; st->slot[at]; at = (at + 1) & (st->nslot - 1)) {
		const struct kv_key *k = &st->keys[st->slot[at] - 1];

		if (k->len == len && memcmp(k->key, s, len) == 0)
			return k;
	}
	return NULL;
}

static int is_key_end(char c)
{
	return c == ':' || c == ' ' || c == '\t';
}

/* Adds the value of line [k, e) (after its key) to key kk's channel. */
static void add_value(struct kv_src *st, const struct kv_key *kk, const char *k,
		      const char *e, double *raw)
{
	uint64_t v;

	if (line_value(k, e, &v))
		return;
	raw[kk->chan] += (double)v;
	st->hits[kk->chan]++;
}

/* Notes line n of the hashed pass (key [s, k), k NULL: none; kk the
 * wanted key it is or NULL); a line that does not fit the order's
 * buffers leaves the file unordered. */
static void learn_line(struct kv_src *st, size_t n, const char *s, const char *k,
		       const struct kv_key *kk)
{
	size_t len = k ? (size_t)(k - s) : 0, off = (size_t)(s - st->f.buf);
	size_t key = kk ? (size_t)(kk - st->keys) + 1 : 0;

	if (n >= st->line_cap || len > UINT16_MAX || key > UINT16_MAX) {
		st->ordered = 0;
		return;
	}
	memcpy(st->text + off, s, len);
	st->line[n] = (struct kv_line){
		.off = (uint32_t)off, .len = (uint16_t)len,
		.key = (uint16_t)key,
	};
}

/* The sample by hashing each line's key; learns the order. */
static void hashed_pass(struct kv_src *st, double *raw)
{
	const char *p = st->f.buf, *end = p + st->f.len, *s, *e, *k;
	size_t n = 0;

	st->ordered = 1;
	for (; p < end; n++) {
		const struct kv_key *kk = NULL;

		s = next_line(&p, end, &e);
		k = key_end(s, e);
		if (k)
			kk = lookup(st, s, (size_t)(k - s));
		learn_line(st, n, s, k, kk);
		if (kk)
			add_value(st, kk, k, e, raw);
	}
	st->nline = n;
}

/* The sample with the learned order: 0, or -1 at the first line whose key
 * is not the one learned (raw and hits are then partly summed). */
static int ordered_pass(struct kv_src *st, double *raw)
{
	const char *p = st->f.buf, *end = p + st->f.len, *s, *e;
	size_t n = 0;

	for (; p < end; n++) {
		const struct kv_line *ln;
		const char *k;

		if (n >= st->nline)
			return -1;
		ln = &st->line[n];
		s = next_line(&p, end, &e);
		if (ln->len == 0 ? s < e && !is_key_end(*s) :
		    (size_t)(e - s) < ln->len || memcmp(s, st->text + ln->off, ln->len) != 0 ||
		    (s + ln->len < e && !is_key_end(s[ln->len])))
			return -1;
		k = s + ln->len;
		if (ln->key)
			add_value(st, &st->keys[ln->key - 1], k, e, raw);
	}
	return n == st->nline ? 0 : -1;
}

static void clear_sums(struct kv_src *st, double *raw)
{
	for (size_t i = 0; i < st->nchan; i++) {
		raw[i] = 0.0;
		st->hits[i] = 0;
	}
}

void rv_kvsrc_sample(void *state, double *raw, uint8_t *valid)
{
	struct kv_src *st = state;

	if (rv_pfile_read(&st->f) < 0)
		return;                 /* every channel stays invalid */
	clear_sums(st, raw);
	if (!st->ordered || ordered_pass(st, raw)) {
		clear_sums(st, raw);
		hashed_pass(st, raw);
	}
	for (size_t i = 0; i < st->nchan; i++)
		valid[i] = st->hits[i] == st->parts[i];
}

void rv_kvsrc_close(void *state)
{
	struct kv_src *st = state;

	if (!st)
		return;
	rv_pfile_close(&st->f);
	free(st->keys);
	free(st->slot);
	free(st->parts);
	free(st->hits);
	free(st->line);
	free(st->text);
	free(st);
}

/* The row a key of the file belongs to, or -1. */
static long row_of(const struct rv_kvrow *rows, size_t nrows, const char *s, size_t len)
{
	for (size_t r = 0; r < nrows; r++) {
		size_t rl = strlen(rows[r].key);

		if (rl == len && memcmp(s, rows[r].key, len) == 0)
			return (long)r;
		if (rows[r].sum && len > rl + 1 && memcmp(s, rows[r].key, rl) == 0 && s[rl] == '_')
			return (long)r;
	}
	return -1;
}

static int keys_sort_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv_key *)a)->key, ((const struct kv_key *)b)->key);
}

/* Lines of the file as read at open (a last one without a newline
 * counts; an empty file has one). */
static size_t file_lines(const struct kv_src *st)
{
	const char *end = st->f.buf + st->f.len;
	size_t lines = 1;

	for (const char *q = st->f.buf; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		lines++;
	return lines;
}

/* Collects the file's keys that rows name; .chan holds the row for now. */
static int index_keys(struct kv_src *st, const struct rv_kvrow *rows, size_t nrows)
{
	const char *p = st->f.buf, *end = p + st->f.len, *s, *e, *k;

	st->keys = calloc(file_lines(st), sizeof(*st->keys));
	if (!st->keys)
		return -ENOMEM;
	while (p < end) {
		long r;

		s = next_line(&p, end, &e);
		k = key_end(s, e);
		if (!k || (size_t)(k - s) >= KEY_MAX || find_key(st, s, (size_t)(k - s)))
			continue;
		r = row_of(rows, nrows, s, (size_t)(k - s));
		if (r < 0)
			continue;
		memcpy(st->keys[st->nkeys].key, s, (size_t)(k - s));
		st->keys[st->nkeys].len = (uint32_t)(k - s);
		st->keys[st->nkeys].chan = (uint32_t)r;
		st->nkeys++;
		/* kept sorted as it grows, so find_key above sees duplicates */
		qsort(st->keys, st->nkeys, sizeof(*st->keys), keys_sort_cmp);
	}
	return 0;
}

static double unit_scale(enum rv_kvunit u)
{
	long page = sysconf(_SC_PAGESIZE);

	if (u == RV_KV_KIB)
		return KIB;
	if (u == RV_KV_PAGE)
		return (double)(page > 0 ? page : PAGE_FALLBACK);
	return 1.0;
}

/* The order's buffers: twice the lines the file has now, and key text as
 * long as the file may grow (its buffer). Learned at the first sample. */
static int alloc_order(struct kv_src *st)
{
	st->line_cap = 2 * file_lines(st) + 16;
	st->line = calloc(st->line_cap, sizeof(*st->line));
	st->text = malloc(st->f.cap + 1);
	return st->line && st->text ? 0 : -ENOMEM;
}

/* One channel per row that has keys, in row order; keys get channels. */
static int add_channels(struct kv_src *st, const struct rv_kvrow *rows, size_t nrows,
			struct rv_chanlist *chans, struct rv_err *err)
{
	long *chan_of = malloc((nrows ? nrows : 1) * sizeof(*chan_of));
	int rc = 0;

	if (!chan_of)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", st->f.path);
	for (size_t r = 0; r < nrows; r++)
		chan_of[r] = -1;
	for (size_t i = 0; i < st->nkeys; i++)
		chan_of[st->keys[i].chan] = 0;
	for (size_t r = 0; !rc && r < nrows; r++) {
		if (chan_of[r] < 0)
			continue;
		chan_of[r] = (long)st->nchan++;
		rc = rv_chanlist_add(chans, rows[r].type, NULL, unit_scale(rows[r].unit), err);
	}
	st->parts = calloc(st->nchan ? st->nchan : 1, sizeof(*st->parts));
	st->hits = calloc(st->nchan ? st->nchan : 1, sizeof(*st->hits));
	if (!rc && (!st->parts || !st->hits))
		rc = rv_err_set(err, -ENOMEM, "%s: out of memory", st->f.path);
	for (size_t i = 0; !rc && i < st->nkeys; i++) {
		st->keys[i].chan = (uint32_t)chan_of[st->keys[i].chan];
		st->parts[st->keys[i].chan]++;
	}
	free(chan_of);
	return rc;
}

int rv_kvsrc_open(const char *root, const char *rel, const struct rv_kvrow *rows,
		  size_t nrows, void **state, struct rv_chanlist *chans, struct rv_err *err)
{
	struct kv_src *st = calloc(1, sizeof(*st));
	int rc;

	if (!st)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", rel);
	rc = rv_pfile_open(&st->f, root, rel, err);
	if (rc)
		goto fail;
	if (index_keys(st, rows, nrows) || build_slots(st) || alloc_order(st)) {
		rc = rv_err_set(err, -ENOMEM, "%s: out of memory", st->f.path);
		goto fail;
	}
	if (st->nkeys == 0) {
		rc = rv_err_set(err, -ENODATA, "%s: none of the %zu known fields is there",
				st->f.path, nrows);
		goto fail;
	}
	rc = add_channels(st, rows, nrows, chans, err);
	if (rc)
		goto fail;
	*state = st;
	return 0;
fail:
	rv_kvsrc_close(st);
	return rc;
}

#define KB(key, type) { key, "mem." type "_bytes", RV_KV_KIB, 0 }
#define PAGES(key, type) { key, "mem." type, RV_KV_ONE, 0 }

/* Catalog lines: metrics_mem.c. */
static const struct rv_kvrow meminfo_rows[] = {
	KB("MemTotal", "mem_total"), KB("MemFree", "mem_free"),
	KB("MemAvailable", "mem_available"), KB("Buffers", "buffers"),
	KB("Cached", "cached"), KB("SwapCached", "swap_cached"),
	KB("Active", "active"), KB("Inactive", "inactive"),
	KB("Active(anon)", "active_anon"), KB("Inactive(anon)", "inactive_anon"),
	KB("Active(file)", "active_file"), KB("Inactive(file)", "inactive_file"),
	KB("Unevictable", "unevictable"), KB("Mlocked", "mlocked"),
	KB("HighTotal", "high_total"), KB("HighFree", "high_free"),
	KB("LowTotal", "low_total"), KB("LowFree", "low_free"),
	KB("MmapCopy", "mmap_copy"),
	KB("SwapTotal", "swap_total"), KB("SwapFree", "swap_free"),
	KB("Zswap", "zswap"), KB("Zswapped", "zswapped"),
	KB("Dirty", "dirty"), KB("Writeback", "writeback"),
	KB("AnonPages", "anon_pages"), KB("Mapped", "mapped"), KB("Shmem", "shmem"),
	KB("KReclaimable", "kreclaimable"), KB("Slab", "slab"),
	KB("SReclaimable", "sreclaimable"), KB("SUnreclaim", "sunreclaim"),
	KB("KernelStack", "kernel_stack"), KB("ShadowCallStack", "shadow_call_stack"),
	KB("PageTables", "page_tables"), KB("SecPageTables", "sec_page_tables"),
	KB("Quicklists", "quicklists"),
	KB("NFS_Unstable", "nfs_unstable"), KB("Bounce", "bounce"),
	KB("WritebackTmp", "writeback_tmp"),
	KB("CommitLimit", "commit_limit"), KB("Committed_AS", "committed_as"),
	KB("VmallocTotal", "vmalloc_total"), KB("VmallocUsed", "vmalloc_used"),
	KB("VmallocChunk", "vmalloc_chunk"), KB("Percpu", "percpu"),
	KB("HardwareCorrupted", "hardware_corrupted"),
	KB("AnonHugePages", "anon_huge_pages"), KB("ShmemHugePages", "shmem_huge_pages"),
	KB("ShmemPmdMapped", "shmem_pmd_mapped"), KB("FileHugePages", "file_huge_pages"),
	KB("FilePmdMapped", "file_pmd_mapped"),
	KB("CmaTotal", "cma_total"), KB("CmaFree", "cma_free"),
	KB("Unaccepted", "unaccepted"), KB("Balloon", "balloon"),
	PAGES("HugePages_Total", "hugepages_total"), PAGES("HugePages_Free", "hugepages_free"),
	PAGES("HugePages_Rsvd", "hugepages_rsvd"), PAGES("HugePages_Surp", "hugepages_surp"),
	KB("Hugepagesize", "hugepagesize"), KB("Hugetlb", "hugetlb"),
	KB("DirectMap4k", "direct_map_4k"), KB("DirectMap2M", "direct_map_2m"),
	KB("DirectMap4M", "direct_map_4m"), KB("DirectMap1G", "direct_map_1g"),
};

static int meminfo_open(const struct rv_collect_cfg *cfg, void **state,
		        struct rv_chanlist *chans, struct rv_err *err)
{
	return rv_kvsrc_open(cfg->root, "/proc/meminfo", meminfo_rows,
			     sizeof(meminfo_rows) / sizeof(meminfo_rows[0]), state, chans, err);
}

const struct rv_source rv_src_proc_meminfo = {
	.name = "proc.meminfo",
	.open = meminfo_open,
	.sample = rv_kvsrc_sample,
	.close = rv_kvsrc_close,
};
