/*
 * cpucols.h - internal to collect/: the per-CPU tables of /proc/interrupts
 * and /proc/softirqs, where a header line names the columns
 *
 *	           CPU0       CPU2       CPU3
 *	 NMI:         12          0          4   Non-maskable interrupts
 *
 * and every other line is "<blanks>LABEL:" followed by one number per
 * column. Only online CPUs are printed, so the header is the truth: a CPU
 * gone offline is a missing column, not a shift of the others. Used by
 * proc_interrupts.c and proc_softirqs.c; not a source.
 */
#ifndef RV_COLLECT_CPUCOLS_H
#define RV_COLLECT_CPUCOLS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "collect/pfile.h"
#include "collect/source.h"

/* The CPUs found at open (channel slots 0..n-1) and where each stands in
 * the header of the current sample. */
struct rv_cpucols {
	uint32_t *ids;          /* CPU number of each slot, header order at open */
	size_t n;
	int32_t *slot_of;       /* CPU number -> slot, -1; nslot entries */
	size_t nslot;
	int32_t *col_slot;      /* column of this sample -> slot, -1 */
	size_t ncols;           /* columns in this sample's header */
	uint8_t *present;       /* slot has a column in this sample */
	uint64_t *vals;         /* row scratch: value of each slot */
	uint8_t *ok;            /* row scratch: vals[k] was read */
};

/*
 * Opens root + rel into f (pfile.h), reads its header line ("CPU0 CPU1
 * ..."), sizes everything the samples need and maps the header as a
 * sample would; the rows after the header are [*rows, *end). -EINVAL with
 * the path in err for a header that names no CPU, a column that is not
 * "CPU<n>" or a CPU twice; errors of rv_pfile_open; -ENOMEM. The caller
 * closes f; rv_cpucols_fini frees the rest, also after a failure.
 */
int rv_cpucols_open(struct rv_cpucols *c, struct rv_pfile *f, const char *root, const char *rel,
		    const char **rows, const char **end, struct rv_err *err);

/*
 * Maps the header line of a new sample at *p onto the slots of open and
 * advances *p past it; CPUs that are new since open are columns without a
 * slot. -EINVAL (no mapping) for a header that is not one. Allocates
 * nothing.
 */
int rv_cpucols_header(struct rv_cpucols *c, const char **p, const char *end);

/*
 * The label of a row: [*ls, *ls + *llen) before the first ':' of
 * [*p, end), without the leading blanks and not containing any; advances
 * *p past the ':'. -EINVAL for a line without one.
 */
int rv_cpucols_label(const char **p, const char *end, const char **ls, size_t *llen);

/*
 * Reads the numbers of one row after its label, one per header column:
 * c->vals[k] and c->ok[k] for each slot k (ok 0 where the column is
 * missing, not a number or beyond 2^64 - 1). *sum is the total over all
 * columns, also those without a slot. 0 when every column was read and
 * the total fits 64 bits; -EINVAL otherwise (some ok[] may still be 1).
 */
int rv_cpucols_row(struct rv_cpucols *c, const char **p, const char *end, uint64_t *sum);

/*
 * Rereads f and maps its header (rv_cpucols_header): 0 with the rows
 * after the header at [*p, *end); a negative errno when the file cannot
 * be read whole or its header is not one (the sample gives nothing).
 */
int rv_cpucols_reread(struct rv_cpucols *c, struct rv_pfile *f, const char **p,
		      const char **end);

/*
 * Writes the row last read into raw[k] and valid[k] for each slot k whose
 * value was read and whose channel is not valid yet (a row twice in a
 * file: the first counts).
 */
void rv_cpucols_put(const struct rv_cpucols *c, double *raw, uint8_t *valid);

/*
 * Appends one channel of `type` per slot, in slot order: instance "cpuN",
 * or "<prefix>/cpuN" when prefix is not NULL. As rv_chanlist_add.
 */
int rv_cpucols_add(const struct rv_cpucols *c, struct rv_chanlist *chans, const char *type,
		   const char *prefix, struct rv_err *err);

/* Frees everything; a zeroed struct is a no-op. */
void rv_cpucols_fini(struct rv_cpucols *c);

#endif
