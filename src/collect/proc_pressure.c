/*
 * proc_pressure.c - source "proc.pressure": /proc/pressure/{cpu,memory,io}
 * (pressure stall information, kernel 4.20+ with PSI enabled).
 *
 * Each file has a "some" line (time at least one task stalled on the
 * resource) and on most kernels a "full" line (time all non-idle tasks
 * stalled at once): "some avg10=0.05 avg60=0.27 avg300=0.86 total=352965167".
 * Per line present at open: <sub>.psi_<line>_avg10_pct and _avg60_pct,
 * gauges as the kernel averaged them, and <sub>.psi_<line>_stall_pct, the
 * total= stall time in microseconds as a counter whose rate, scaled by
 * 1e-4, is the percentage of wall time stalled over our own interval.
 * Subsystems: cpu for cpu, mem for memory, storage for io. Fields are
 * found by name, so a kernel that adds one does not shift the others.
 *
 * A file that is absent (or whose metric types the catalog lacks) is
 * skipped; with none at all PSI is off here and open fails with -ENOENT.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "collect/pfile.h"

enum { PSI_FILES = 3, PSI_LINES = 2, PSI_FIELDS = 3, PSI_TYPE_MAX = 64 };
enum { F_AVG10, F_AVG60, F_TOTAL };

/* µs of stall per s of wall time, as a percentage. */
static const double psi_us_to_pct = 1e-4;

static const struct {
	const char *rel, *sub;
} psi_files[PSI_FILES] = {
	{ "/proc/pressure/cpu", "cpu" },
	{ "/proc/pressure/memory", "mem" },
	{ "/proc/pressure/io", "storage" },
};
static const char *const psi_lines[PSI_LINES] = { "some", "full" };
static const char *const psi_fields[PSI_FIELDS] = { "avg10", "avg60", "total" };
static const char *const psi_suffix[PSI_FIELDS] = { "avg10_pct", "avg60_pct", "stall_pct" };

struct psi_src {
	struct rv_pfile f[PSI_FILES];
	int open[PSI_FILES];
	long first[PSI_FILES][PSI_LINES];       /* channel of avg10, -1 none */
};

/* Next line of [*p, end): sets *line_end; advances *p past the newline. */
static const char *next_line(const char **p, const char *end, const char **line_end)
{
	const char *s = *p, *e = memchr(s, '\n', (size_t)(end - s));

	*line_end = e ? e : end;
	*p = e ? e + 1 : end;
	return s;
}

/* Index of the line named by the first word of [s, e), or -1. */
static int line_kind(const char *s, const char *e)
{
	const char *w = s;

	while (w < e && *w != ' ' && *w != '\t')
		w++;
	for (int l = 0; l < PSI_LINES; l++)
		if (rv_str_eq(s, w, psi_lines[l]))
			return l;
	return -1;
}

/* The name=value fields after the first word; unknown names are skipped,
 * a malformed value leaves its field invalid. */
static void parse_fields(const char *s, const char *e, double *raw, uint8_t *valid)
{
	while (s < e && *s != ' ' && *s != '\t')
		s++;
	while (rv_str_skip_blank(&s, e), s < e) {
		const char *name = s, *eq;
		uint64_t u;
		double d;
		int k;

		while (s < e && *s != '=' && *s != ' ' && *s != '\t')
			s++;
		eq = s;
		for (k = 0; k < PSI_FIELDS && !rv_str_eq(name, eq, psi_fields[k]); k++)
			;
		if (eq < e && *eq == '=')
			s++;
		if (k < PSI_FIELDS && eq < e && *eq == '=') {
			int rc = k == F_TOTAL ? rv_str_u64(&s, e, &u) : rv_str_double(&s, e, &d);

			if (rc == 0 && (s == e || *s == ' ' || *s == '\t')) {
				raw[k] = k == F_TOTAL ? (double)u : d;
				valid[k] = 1;
			}
		}
		while (s < e && *s != ' ' && *s != '\t')
			s++;                    /* rest of a bad or unknown field */
	}
}

static void psi_sample(void *state, double *raw, uint8_t *valid)
{
	struct psi_src *st = state;

	for (int i = 0; i < PSI_FILES; i++) {
		const char *p, *end, *s, *e;

		if (!st->open[i] || rv_pfile_read(&st->f[i]) < 0)
			continue;
		p = st->f[i].buf;
		end = p + st->f[i].len;
		while (p < end) {
			int l;

			s = next_line(&p, end, &e);
			l = line_kind(s, e);
			if (l >= 0 && st->first[i][l] >= 0)
				parse_fields(s, e, raw + st->first[i][l], valid + st->first[i][l]);
		}
	}
}

static void psi_close(void *state)
{
	struct psi_src *st = state;

	if (!st)
		return;
	for (int i = 0; i < PSI_FILES; i++)
		if (st->open[i])
			rv_pfile_close(&st->f[i]);
	free(st);
}

/* Channels of the lines file i has, if the catalog knows its types. */
static int add_file(struct psi_src *st, int i, struct rv_chanlist *chans, struct rv_err *err)
{
	const char *p = st->f[i].buf, *end = p + st->f[i].len, *s, *e;
	char type[PSI_TYPE_MAX];
	int rc = 0;

	snprintf(type, sizeof(type), "%s.psi_some_%s", psi_files[i].sub, psi_suffix[0]);
	if (!rv_catalog_metric(type))
		return -ENOENT;
	while (!rc && p < end) {
		int l;

		s = next_line(&p, end, &e);
		l = line_kind(s, e);
		if (l < 0 || st->first[i][l] >= 0)
			continue;
		st->first[i][l] = (long)chans->n;
		for (int k = 0; !rc && k < PSI_FIELDS; k++) {
			snprintf(type, sizeof(type), "%s.psi_%s_%s", psi_files[i].sub,
				 psi_lines[l], psi_suffix[k]);
			rc = rv_chanlist_add(chans, type, NULL,
					     k == F_TOTAL ? psi_us_to_pct : 1.0, err);
		}
	}
	return rc;
}

static int psi_open(const struct rv_collect_cfg *cfg, void **state,
		    struct rv_chanlist *chans, struct rv_err *err)
{
	struct psi_src *st = calloc(1, sizeof(*st));
	size_t base = chans->n;
	int rc = 0, any = 0;

	if (!st)
		return rv_err_set(err, -ENOMEM, "proc.pressure: out of memory");
	for (int i = 0; !rc && i < PSI_FILES; i++) {
		st->first[i][0] = st->first[i][1] = -1;
		if (rv_pfile_open(&st->f[i], cfg->root, psi_files[i].rel, NULL))
			continue;
		st->open[i] = 1;
		rc = add_file(st, i, chans, err);
		if (rc == -ENOENT)
			rc = 0;
		for (int l = 0; l < PSI_LINES; l++)
			if (st->first[i][l] >= 0) {
				st->first[i][l] -= (long)base;  /* into our slice */
				any = 1;
			}
	}
	if (!rc && !any)
		rc = rv_err_set(err, -ENOENT, "%s/proc/pressure/{cpu,memory,io}: no readable "
				"pressure file (kernel without PSI, or booted with psi=0)",
				cfg->root);
	if (rc) {
		psi_close(st);
		return rc;
	}
	*state = st;
	return 0;
}

const struct rv_source rv_src_proc_pressure = {
	.name = "proc.pressure",
	.open = psi_open,
	.sample = psi_sample,
	.close = psi_close,
};
