/*
 * kvsrc.h - the reader of "key value [kB]" files that proc.meminfo and
 * proc.vmstat share (defined in proc_meminfo.c): a table of rows says
 * which keys become which channels.
 */
#ifndef RV_COLLECT_KVSRC_H
#define RV_COLLECT_KVSRC_H

#include <stddef.h>
#include <stdint.h>

#include "collect/source.h"

/* What a value of a key-value file is counted in; the channel scale. */
enum rv_kvunit {
	RV_KV_ONE,      /* a plain number: scale 1 */
	RV_KV_KIB,      /* kibibytes ("kB"): scale 1024 -> bytes */
	RV_KV_PAGE,     /* pages: scale = the page size here -> bytes */
};

/*
 * One channel of a "key value [kB]" file (/proc/meminfo, /proc/vmstat):
 * the key as the kernel spells it (a trailing ':' is not part of it), the
 * catalog metric type it becomes, its unit. With `sum` set the channel is
 * the sum of the line "key" and of every "key_*" line (allocstall_normal,
 * allocstall_movable, ... on kernels that split a count by zone or type).
 */
struct rv_kvrow {
	const char *key;
	const char *type;
	enum rv_kvunit unit;
	int sum;
};

/*
 * A source over such a file: opens root + rel, keeps one channel per row
 * whose key (or, with sum, a "key_*" line) is in the file at open, in row
 * order, and indexes the file's keys so that sampling matches lines by
 * name in any order. A file line that no row names is ignored. `rows`
 * must outlive the state. -ENOENT (and others) when the file cannot be
 * read, -ENODATA when it names no row; err says which path.
 */
int rv_kvsrc_open(const char *root, const char *rel, const struct rv_kvrow *rows,
		  size_t nrows, void **state, struct rv_chanlist *chans, struct rv_err *err);
/* Rereads the file; a channel is valid when each line it was built from
 * at open was read with a well-formed number. Allocates nothing. */
void rv_kvsrc_sample(void *state, double *raw, uint8_t *valid);
/* Frees the state; NULL is a no-op. */
void rv_kvsrc_close(void *state);

#endif
