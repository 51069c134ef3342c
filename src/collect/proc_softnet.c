/*
 * proc_softnet.c - source "proc.softnet": /proc/net/softnet_stat, the
 * receive path of the network stack per CPU.
 *
 * One line per online CPU of blank-separated 8-digit hex numbers:
 * processed, dropped, time_squeeze, five zeros (once fastroute),
 * cpu_collision (0 since 2.6.x), received_rps, flow_limit_count (3.11+),
 * backlog_len (5.10+), the CPU's index (5.10+), then input and process
 * queue lengths (6.x). Channels per CPU: net.softnet_processed (counter),
 * net.softnet_dropped, net.softnet_time_squeeze and, when the column is
 * there at open, net.softnet_flow_limit (events) and
 * net.softnet_backlog_len (gauge).
 *
 * Only online CPUs have a line, so on kernels that print the index column
 * a line belongs to the CPU it names; older kernels have no index and the
 * n-th line is taken to be CPU n (right unless CPUs are offline: then the
 * CPUs above a gap are mislabelled, which those kernels do not let us
 * tell). Lines whose index is not a CPU of open, lines cut short and
 * values that are not hex leave the channels they should have given
 * invalid.
 */
#include "collect/sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "collect/pairs.h"
#include "collect/pfile.h"

enum { COL_PROCESSED = 0, COL_DROPPED = 1, COL_SQUEEZE = 2, COL_FLOW_LIMIT = 10,
       COL_BACKLOG = 11, COL_INDEX = 12, SOFTNET_COLS = 13 };
enum { MAX_CPUS = 8192, HEX_DIGITS_MAX = 16 };

enum { CH_PROCESSED, CH_DROPPED, CH_SQUEEZE, CH_FLOW_LIMIT, CH_BACKLOG, CHANS_MAX };

static const char *const chan_types[CHANS_MAX] = {
	"net.softnet_processed", "net.softnet_dropped", "net.softnet_time_squeeze",
	"net.softnet_flow_limit", "net.softnet_backlog_len",
};
static const int chan_cols[CHANS_MAX] = {
	COL_PROCESSED, COL_DROPPED, COL_SQUEEZE, COL_FLOW_LIMIT, COL_BACKLOG,
};

struct softnet_src {
	struct rv_pfile f;
	size_t nchan;                   /* channels per CPU: 3, 4 or 5 */
	int by_index;                   /* lines name their CPU (column 12) */
	uint32_t *ids;                  /* CPU of each slot */
	size_t ncpu;
	int32_t *slot_of;               /* CPU -> slot, -1 */
	size_t nslot;
};

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Next blank-separated column of [*p, end) as unsigned hex without "0x":
 * 0 with *v; -EINVAL for a word that is not one or has more than 16
 * significant digits (skipped, so the following columns keep their
 * places); -ENODATA at the end of the line.
 */
static int hex_col(const char **p, const char *end, uint64_t *v)
{
	const char *s;
	int digits = 0, bad = 0, d;

	rv_str_skip_blank(p, end);
	if (*p >= end)
		return -ENODATA;
	*v = 0;
	for (s = *p; s < end && *s != ' ' && *s != '\t'; s++) {
		d = hex_digit(*s);
		if (d < 0 || (digits == HEX_DIGITS_MAX))
			bad = 1;
		else if (digits || d)
			digits++;
		*v = (*v << 4) | (uint64_t)(d < 0 ? 0 : d);
	}
	*p = s;
	return bad ? -EINVAL : 0;
}

/* The first SOFTNET_COLS columns of a line: vals[c], ok[c] where it is
 * hex; returns how many columns there are (bad ones included), -1 for a
 * blank line. */
static int read_line(const char *s, const char *e, uint64_t *vals, uint8_t *ok)
{
	int n = 0, r;

	memset(ok, 0, SOFTNET_COLS);
	for (int c = 0; c < SOFTNET_COLS; c++) {
		r = hex_col(&s, e, &vals[c]);
		if (r == -ENODATA)
			break;
		ok[c] = r == 0;
		n = c + 1;
	}
	return n ? n : -1;
}

/* Slot of the line numbered `row`, or -1. */
static long line_slot(const struct softnet_src *st, size_t row, const uint64_t *vals,
		      const uint8_t *ok)
{
	uint64_t cpu = row;

	if (st->by_index) {
		if (!ok[COL_INDEX])
			return -1;
		cpu = vals[COL_INDEX];
	}
	return cpu < st->nslot ? st->slot_of[cpu] : -1;
}

static void softnet_sample(void *state, double *raw, uint8_t *valid)
{
	struct softnet_src *st = state;
	const char *p, *end, *s, *e;
	uint64_t vals[SOFTNET_COLS];
	uint8_t ok[SOFTNET_COLS];
	size_t row = 0;
	long slot;

	if (rv_pfile_read(&st->f) < 0)
		return;                 /* every channel stays invalid */
	p = st->f.buf;
	end = p + st->f.len;
	while (p < end) {
		s = rv_pairs_next_line(&p, end, &e);
		if (read_line(s, e, vals, ok) < 0)
			continue;
		slot = line_slot(st, row++, vals, ok);
		if (slot < 0)
			continue;
		for (size_t k = 0; k < st->nchan; k++) {
			size_t ch = (size_t)slot * st->nchan + k;

			if (ok[chan_cols[k]] && !valid[ch]) {
				raw[ch] = (double)vals[chan_cols[k]];
				valid[ch] = 1;
			}
		}
	}
}

static void softnet_close(void *state)
{
	struct softnet_src *st = state;

	if (!st)
		return;
	rv_pfile_close(&st->f);
	free(st->ids);
	free(st->slot_of);
	free(st);
}

/* Reads the lines at open: their CPUs (st->ids) and the fewest columns
 * any has, which decides the channels. -EINVAL without a line. */
static int find_cpus(struct softnet_src *st, int *mincols)
{
	const char *p = st->f.buf, *end = p + st->f.len, *s, *e;
	uint64_t vals[SOFTNET_COLS];
	uint8_t ok[SOFTNET_COLS];
	int n, with_index = 1;

	*mincols = SOFTNET_COLS;
	while (p < end && st->ncpu < MAX_CPUS) {
		s = rv_pairs_next_line(&p, end, &e);
		n = read_line(s, e, vals, ok);
		if (n < 0)
			continue;
		*mincols = n < *mincols ? n : *mincols;
		with_index &= n > COL_INDEX && ok[COL_INDEX] && vals[COL_INDEX] < MAX_CPUS;
		st->ids[st->ncpu] = with_index ? (uint32_t)vals[COL_INDEX] : (uint32_t)st->ncpu;
		st->ncpu++;
	}
	if (!with_index)
		for (size_t i = 0; i < st->ncpu; i++)
			st->ids[i] = (uint32_t)i;
	st->by_index = with_index;
	return st->ncpu ? 0 : -EINVAL;
}

/* st->slot_of from st->ids; -EINVAL for a CPU twice. */
static int map_slots(struct softnet_src *st)
{
	uint32_t max = 0;

	for (size_t i = 0; i < st->ncpu; i++)
		max = st->ids[i] > max ? st->ids[i] : max;
	st->nslot = (size_t)max + 1;
	st->slot_of = malloc(st->nslot * sizeof(*st->slot_of));
	if (!st->slot_of)
		return -ENOMEM;
	for (size_t i = 0; i < st->nslot; i++)
		st->slot_of[i] = -1;
	for (size_t i = 0; i < st->ncpu; i++) {
		if (st->slot_of[st->ids[i]] >= 0)
			return -EINVAL;
		st->slot_of[st->ids[i]] = (int32_t)i;
	}
	return 0;
}

static int softnet_open(const struct rv_collect_cfg *cfg, void **state,
			struct rv_chanlist *chans, struct rv_err *err)
{
	struct softnet_src *st = calloc(1, sizeof(*st));
	char inst[32];
	int mincols, rc;

	if (!st || !(st->ids = malloc(MAX_CPUS * sizeof(*st->ids)))) {
		free(st);
		return rv_err_set(err, -ENOMEM, "proc.softnet: out of memory");
	}
	rc = rv_pfile_open(&st->f, cfg->root, "/proc/net/softnet_stat", err);
	if (rc)
		goto fail;
	if (find_cpus(st, &mincols) || mincols <= COL_SQUEEZE) {
		rc = rv_err_set(err, -EINVAL, "%s: no line of at least %d hex columns",
				st->f.path, COL_SQUEEZE + 1);
		goto fail;
	}
	rc = map_slots(st);
	if (rc) {
		rc = rv_err_set(err, rc, "%s: %s", st->f.path,
				rc == -ENOMEM ? "out of memory" : "a CPU index twice");
		goto fail;
	}
	st->nchan = CH_FLOW_LIMIT;
	while (st->nchan < CHANS_MAX && mincols > chan_cols[st->nchan])
		st->nchan++;
	for (size_t i = 0; !rc && i < st->ncpu; i++) {
		snprintf(inst, sizeof(inst), "cpu%u", st->ids[i]);
		for (size_t k = 0; !rc && k < st->nchan; k++)
			rc = rv_chanlist_add(chans, chan_types[k], inst, 1.0, err);
	}
	if (rc)
		goto fail;
	*state = st;
	return 0;
fail:
	softnet_close(st);
	return rc;
}

const struct rv_source rv_src_proc_softnet = {
	.name = "proc.softnet",
	.open = softnet_open,
	.sample = softnet_sample,
	.close = softnet_close,
};
