/*
 * bigalloc.h - allocation of large matrices (megabytes and more).
 *
 * Asks the kernel for transparent huge pages on the block, so that the
 * first write costs one page fault per 2 MiB instead of one per 4 KiB: on a
 * run over a few days of telemetry the faults of fresh matrices were a
 * tenth of the CPU time. Small requests are plain malloc. Free with free().
 */
#ifndef RV_BASE_BIGALLOC_H
#define RV_BASE_BIGALLOC_H

#include <stddef.h>

/* NULL on failure (or for 0 bytes, like malloc may). */
void *rv_big_alloc(size_t bytes);

#endif
