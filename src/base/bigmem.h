/*
 * bigmem.h - large buffers (feature matrices, CSV rows, standardized copies)
 * backed by transparent huge pages where the kernel allows it.
 *
 * A 36 MB feature matrix filled once takes about 9 000 page faults in 4 KiB
 * pages; the kernel's fault handling, not the zeroing, was a tenth of a
 * whole `reveal detect` run. Buffers of at least RV_BIG_MIN bytes are
 * mapped on their own and advised MADV_HUGEPAGE (THP "madvise" mode, the
 * default of most distributions), so they fault 2 MiB at a time; where THP
 * is off they behave like any anonymous mapping. Smaller requests go to
 * malloc. Memory from rv_big_* is freed with rv_big_free only.
 *
 * Contents of new memory are unspecified, as with malloc.
 */
#ifndef RV_BASE_BIGMEM_H
#define RV_BASE_BIGMEM_H

#include <stddef.h>

enum { RV_BIG_MIN = 1 << 20 };      /* bytes: smaller requests use malloc */

/* NULL when out of memory; bytes 0 yields a valid, freeable pointer. */
void *rv_big_alloc(size_t bytes);

/* n x size bytes, NULL on overflow or out of memory. */
void *rv_big_array(size_t n, size_t size);

/* Grows or shrinks p (NULL: allocates) keeping the first min(old, new)
 * bytes; a mapping is moved with mremap, not copied. NULL and p untouched
 * when out of memory. */
void *rv_big_realloc(void *p, size_t bytes);

void rv_big_free(void *p);

#endif
