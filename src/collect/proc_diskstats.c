/*
 * proc_diskstats.c - source "proc.diskstats": /proc/diskstats, the I/O
 * counters of each block device.
 *
 * Only whole, real devices: RAM disks, loop, zram, floppy and optical
 * drives are skipped, and so are partitions (their I/O is already in
 * their disk's). Device-mapper and md devices are kept: they are what
 * file systems sit on. A partition is a device with a "partition" file in
 * /sys/class/block/<name>; where that directory is missing (a fixture, a
 * container without /sys) the name decides: sda1 when sda is listed,
 * nvme0n1p1 when nvme0n1 is.
 *
 * Channels per device (instance = its name), in the order of the line:
 * reads, merges, bytes (sectors of 512 bytes) and milliseconds for
 * reads and writes, in_flight (gauge), busy_pct (io_ticks: ms busy, a
 * rate scaled by 0.1 is a %), weighted_time_ms, then the discard fields
 * (kernels 4.18+) and flush fields (5.5+) when this kernel's line has
 * them. Derived figures (await, utilisation per request) belong to
 * derive/. Devices are matched by name at each sample.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/pairs.h"
#include "collect/pfile.h"

enum { SECTOR_BYTES = 512 };
/* Statistics columns after the name, by kernel generation. */
enum { STATS_BASE = 11, STATS_DISCARD = 15, STATS_FLUSH = 17 };

/* Rate of io_ticks (ms per s) times 0.1 is the busy share in %. */
#define MS_PER_S_TO_PCT 0.1

struct disk_col {
	const char *type;
	double scale;
};

/* The statistics columns of a line, in order. */
static const struct disk_col disk_cols[STATS_FLUSH] = {
	{ "storage.reads", 1.0 },
	{ "storage.reads_merged", 1.0 },
	{ "storage.read_bytes", SECTOR_BYTES },
	{ "storage.read_time_ms", 1.0 },
	{ "storage.writes", 1.0 },
	{ "storage.writes_merged", 1.0 },
	{ "storage.write_bytes", SECTOR_BYTES },
	{ "storage.write_time_ms", 1.0 },
	{ "storage.in_flight", 1.0 },
	{ "storage.busy_pct", MS_PER_S_TO_PCT },
	{ "storage.weighted_time_ms", 1.0 },
	{ "storage.discards", 1.0 },
	{ "storage.discards_merged", 1.0 },
	{ "storage.discard_bytes", SECTOR_BYTES },
	{ "storage.discard_time_ms", 1.0 },
	{ "storage.flushes", 1.0 },
	{ "storage.flush_time_ms", 1.0 },
};

/* Name prefixes (followed by a digit) of devices that are not storage. */
static const char *const skip_prefixes[] = { "ram", "loop", "zram", "fd", "sr" };

/* ncols of a device: STATS_BASE, STATS_DISCARD or STATS_FLUSH. */
struct disk_src {
	struct rv_pfile f;
	struct rv_pairs_rec *devs;
	size_t n;
};

/* Parses "major minor name": the name as [*ns, *ne); returns the text
 * after it, or NULL for a line that is not a device. */
static const char *disk_line(const char *s, const char *e, const char **ns, const char **ne)
{
	uint64_t major, minor;

	if (rv_pairs_col_u64(&s, e, &major) || rv_pairs_col_u64(&s, e, &minor))
		return NULL;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	*ns = s;
	while (s < e && *s != ' ' && *s != '\t')
		s++;
	*ne = s;
	return *ne > *ns && (size_t)(*ne - *ns) < RV_PAIRS_NAME_MAX ? s : NULL;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int skipped_kind(const char *name)
{
	for (size_t i = 0; i < sizeof(skip_prefixes) / sizeof(skip_prefixes[0]); i++) {
		size_t n = strlen(skip_prefixes[i]);

		if (strncmp(name, skip_prefixes[i], n) == 0 && is_digit(name[n]))
			return 1;
	}
	return 0;
}

/* Whether `name` is a partition of `disk` by name alone: disk + digits when
 * the disk ends in a letter (sda1), disk + "p" + digits when in a digit
 * (nvme0n1p1, mmcblk0p2), so that nvme0n10 is not taken for nvme0n1's. */
static int partition_name_of(const char *name, const char *disk)
{
	size_t dl = strlen(disk);
	const char *s = name + dl;

	if (dl == 0 || strncmp(name, disk, dl) != 0)
		return 0;
	if (is_digit(disk[dl - 1]) && *s++ != 'p')
		return 0;
	if (!is_digit(*s))
		return 0;
	while (is_digit(*s))
		s++;
	return *s == '\0';
}

static int is_partition(const struct disk_src *ds, const char *root, const char *name,
			int have_sys)
{
	char path[512];

	if (have_sys) {
		snprintf(path, sizeof(path), "%s/sys/class/block/%s/partition", root, name);
		return access(path, F_OK) == 0;
	}
	for (size_t i = 0; i < ds->n; i++)
		if (partition_name_of(name, ds->devs[i].name))
			return 1;
	return 0;
}

/* The devices of the file at open that are followed, in file order. */
static int list_devs(struct disk_src *ds, const char *root, struct rv_err *err)
{
	const char *p = ds->f.buf, *end = p + ds->f.len, *s, *e, *ns, *ne, *q;
	size_t lines = 1, cols, kept = 0;
	char sys[512];
	struct stat sb;
	uint64_t v;
	int have_sys;

	for (const char *c = p; c < end; c++)
		lines += *c == '\n';
	ds->devs = calloc(lines, sizeof(*ds->devs));
	if (!ds->devs)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", ds->f.path);
	while (p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		q = disk_line(s, e, &ns, &ne);
		for (cols = 0; q && rv_pairs_col_u64(&q, e, &v) != -ENODATA; cols++)
			;
		if (!q || cols < STATS_BASE)
			continue;
		struct rv_pairs_rec *d = &ds->devs[ds->n++];

		memcpy(d->name, ns, (size_t)(ne - ns));
		d->ncols = cols >= STATS_FLUSH ? STATS_FLUSH :
			   cols >= STATS_DISCARD ? STATS_DISCARD : STATS_BASE;
	}
	snprintf(sys, sizeof(sys), "%s/sys/class/block", root);
	have_sys = stat(sys, &sb) == 0 && S_ISDIR(sb.st_mode);
	for (size_t i = 0; i < ds->n; i++)
		if (skipped_kind(ds->devs[i].name) ||
		    is_partition(ds, root, ds->devs[i].name, have_sys))
			ds->devs[i].ncols = 0;  /* not followed */
	for (size_t i = 0; i < ds->n; i++)
		if (ds->devs[i].ncols)
			ds->devs[kept++] = ds->devs[i];
	ds->n = kept;
	return 0;
}

static void disk_sample(void *state, double *raw, uint8_t *valid)
{
	struct disk_src *ds = state;

	rv_pairs_sample_recs(&ds->f, disk_line, ds->devs, ds->n, raw, valid);
}

static void disk_close(void *state)
{
	struct disk_src *ds = state;

	if (!ds)
		return;
	rv_pfile_close(&ds->f);
	free(ds->devs);
	free(ds);
}

static int disk_open(const struct rv_collect_cfg *cfg, void **state,
		     struct rv_chanlist *chans, struct rv_err *err)
{
	struct disk_src *ds = calloc(1, sizeof(*ds));
	size_t first = chans->n;
	int rc;

	if (!ds)
		return rv_err_set(err, -ENOMEM, "proc.diskstats: out of memory");
	rc = rv_pfile_open(&ds->f, cfg->root, "/proc/diskstats", err);
	if (!rc)
		rc = list_devs(ds, cfg->root, err);
	for (size_t i = 0; !rc && i < ds->n; i++) {
		struct rv_pairs_rec *d = &ds->devs[i];

		d->first = chans->n - first;
		for (size_t k = 0; !rc && k < d->ncols; k++)
			rc = rv_chanlist_add(chans, disk_cols[k].type, d->name,
					     disk_cols[k].scale, err);
	}
	if (!rc && chans->n == first)
		rc = rv_err_set(err, -ENODATA, "%s: no disk", ds->f.path);
	if (rc) {
		disk_close(ds);
		return rc;
	}
	*state = ds;
	return 0;
}

const struct rv_source rv_src_proc_diskstats = {
	.name = "proc.diskstats",
	.open = disk_open,
	.sample = disk_sample,
	.close = disk_close,
};
