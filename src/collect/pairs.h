/*
 * pairs.h - internal to collect/: the reader of /proc/net/snmp and
 * /proc/net/netstat, where each protocol is a pair of lines
 *
 *	Tcp: RtoAlgorithm RtoMin ... RetransSegs InErrs OutRsts
 *	Tcp: 1 200 ... 0 0 2
 *
 * and the column scanner it shares with the whitespace-columned files
 * (/proc/net/dev, /proc/diskstats). Used by proc_net_snmp.c,
 * proc_netstat.c, proc_net_dev.c and proc_diskstats.c; not a source.
 */
#ifndef RV_COLLECT_PAIRS_H
#define RV_COLLECT_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "collect/pfile.h"
#include "collect/source.h"

/* One curated field: protocol prefix (without ':'), header name, catalog
 * metric type. The kind and unit are the catalog's. Tables end with a row
 * whose proto is NULL. */
struct rv_pairs_row {
	const char *proto;
	const char *field;
	const char *type;
};

struct rv_pairs;

/*
 * Opens root + rel, finds the columns of the rows whose protocol and field
 * the file has and appends one channel per such row, in table order (rows
 * absent here are skipped). `what` names the source in messages. The
 * header lines are kept: a sample whose header of a protocol differs
 * leaves that protocol's channels invalid. -ENOENT, ... with the path in
 * err; -ENODATA when not one row is present. *out is freed by
 * rv_pairs_close.
 */
int rv_pairs_open(const char *root, const char *rel, const char *what,
		  const struct rv_pairs_row *rows, void **out, struct rv_chanlist *chans,
		  struct rv_err *err);
/* Rereads the file; allocates nothing. Fits rv_source.sample. */
void rv_pairs_sample(void *state, double *raw, uint8_t *valid);
/* Frees everything; NULL is a no-op. Fits rv_source.close. */
void rv_pairs_close(void *state);

/* Next line of [*p, end): returns its start, sets *line_end (the newline
 * or end) and advances *p past the newline. */
const char *rv_pairs_next_line(const char **p, const char *end, const char **line_end);

/*
 * Next blank-separated column of [*p, end) as an unsigned decimal: 0 with
 * *v set; -EINVAL for a column that is not one (a word, a sign, a value
 * beyond 2^64 - 1), which is skipped so that the following columns keep
 * their positions; -ENODATA at the end of the line.
 */
int rv_pairs_col_u64(const char **p, const char *end, uint64_t *v);

/* A line of a file of named lines (an interface, a block device) and the
 * channels its columns fill: first, first + 1, ... first + ncols - 1. */
enum { RV_PAIRS_NAME_MAX = 32 };
struct rv_pairs_rec {
	char name[RV_PAIRS_NAME_MAX];
	size_t first;
	size_t ncols;
};

/* Index of the record called [s, e) among n, `hint` first; -1 if none. */
long rv_pairs_find_rec(const struct rv_pairs_rec *recs, size_t n, const char *s,
		       const char *e, size_t hint);

/*
 * Rereads f and fills, for each line that name_of() accepts (it sets the
 * name [*ns, *ne) and returns the text after it, or returns NULL) and
 * whose name is a record's, that record's channels from the columns
 * after the name. Lines are matched by name, the previous match's
 * successor tried first. A column that is not a number (a word, a value
 * past 2^64 - 1, a line cut short) and a record without a line stay
 * invalid; extra columns are ignored. Allocates nothing.
 */
void rv_pairs_sample_recs(struct rv_pfile *f,
			  const char *(*name_of)(const char *s, const char *e,
						 const char **ns, const char **ne),
			  const struct rv_pairs_rec *recs, size_t n, double *raw,
			  uint8_t *valid);

#endif
