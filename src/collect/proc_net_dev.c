/*
 * proc_net_dev.c - source "proc.net_dev": /proc/net/dev, the per-interface
 * traffic counters.
 *
 * Each interface present at open, but the loopback "lo", gets the 16
 * columns of its line as channels net.rx_bytes:eth0 ... net.tx_compressed:
 * eth0: byte and packet counts are counters, the error, drop, FIFO, frame,
 * collision and carrier counts events (kinds in catalog/metrics_net.c).
 *
 * The file starts with two header lines; every other line is
 * "<blanks>name:<blanks?>numbers", the first number touching the colon
 * when it is wide. Lines are matched to interfaces by name at each sample
 * (an interface going away shifts the lines after it): a vanished
 * interface leaves its channels invalid; a new one is not followed until
 * the collector reopens.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "collect/pairs.h"
#include "collect/pfile.h"

enum { DEV_FIELDS = 16, IFACE_NAME_MAX = 16 };

/* Channel order of an interface: the columns of its line. */
static const char *const dev_types[DEV_FIELDS] = {
	"net.rx_bytes", "net.rx_packets", "net.rx_errs", "net.rx_drop",
	"net.rx_fifo", "net.rx_frame", "net.rx_compressed", "net.rx_multicast",
	"net.tx_bytes", "net.tx_packets", "net.tx_errs", "net.tx_drop",
	"net.tx_fifo", "net.tx_colls", "net.tx_carrier", "net.tx_compressed",
};

struct dev_src {
	struct rv_pfile f;
	struct rv_pairs_rec *ifs;       /* interfaces in channel order */
	size_t n;
};

/* Name of an interface line: [*ns, *ne) and the text after the colon;
 * NULL for a header line. */
static const char *iface_of(const char *s, const char *e, const char **ns, const char **ne)
{
	const char *c = memchr(s, ':', (size_t)(e - s));

	if (!c)
		return NULL;
	while (s < c && (*s == ' ' || *s == '\t'))
		s++;
	*ns = s;
	*ne = c;
	return s < c && (size_t)(c - s) < IFACE_NAME_MAX ? c + 1 : NULL;
}

static void dev_sample(void *state, double *raw, uint8_t *valid)
{
	struct dev_src *ds = state;

	rv_pairs_sample_recs(&ds->f, iface_of, ds->ifs, ds->n, raw, valid);
}

static void dev_close(void *state)
{
	struct dev_src *ds = state;

	if (!ds)
		return;
	rv_pfile_close(&ds->f);
	free(ds->ifs);
	free(ds);
}

/* Interfaces of the file as read at open, "lo" left out. */
static int list_ifaces(struct dev_src *ds, struct rv_err *err)
{
	const char *p = ds->f.buf, *end = p + ds->f.len, *s, *e, *ns, *ne;
	size_t lines = 1;

	for (const char *c = p; c < end; c++)
		lines += *c == '\n';
	ds->ifs = calloc(lines, sizeof(*ds->ifs));
	if (!ds->ifs)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", ds->f.path);
	while (p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		if (!iface_of(s, e, &ns, &ne) || rv_str_eq(ns, ne, "lo") ||
		    rv_pairs_find_rec(ds->ifs, ds->n, ns, ne, 0) >= 0)
			continue;
		memcpy(ds->ifs[ds->n].name, ns, (size_t)(ne - ns));
		ds->ifs[ds->n].first = ds->n * DEV_FIELDS;
		ds->ifs[ds->n].ncols = DEV_FIELDS;
		ds->n++;
	}
	return 0;
}

static int dev_open(const struct rv_collect_cfg *cfg, void **state,
		    struct rv_chanlist *chans, struct rv_err *err)
{
	struct dev_src *ds = calloc(1, sizeof(*ds));
	int rc;

	if (!ds)
		return rv_err_set(err, -ENOMEM, "proc.net_dev: out of memory");
	rc = rv_pfile_open(&ds->f, cfg->root, "/proc/net/dev", err);
	if (!rc)
		rc = list_ifaces(ds, err);
	if (!rc && ds->n == 0)
		rc = rv_err_set(err, -ENODATA, "%s: no interface but lo", ds->f.path);
	for (size_t i = 0; !rc && i < ds->n; i++)
		for (size_t k = 0; !rc && k < DEV_FIELDS; k++)
			rc = rv_chanlist_add(chans, dev_types[k], ds->ifs[i].name, 1.0, err);
	if (rc) {
		dev_close(ds);
		return rc;
	}
	*state = ds;
	return 0;
}

const struct rv_source rv_src_proc_net_dev = {
	.name = "proc.net_dev",
	.open = dev_open,
	.sample = dev_sample,
	.close = dev_close,
};
