/*
 * bigalloc.c - see bigalloc.h. madvise is advice: when the kernel has THP
 * off, or the call fails, the block is an ordinary allocation.
 */
#include "base/bigalloc.h"

#include <stdlib.h>
#include <sys/mman.h>

enum { HUGE_PAGE_BYTES = 2 << 20 };

void *rv_big_alloc(size_t bytes)
{
	void *p = NULL;

	if (bytes < HUGE_PAGE_BYTES)
		return malloc(bytes);
	if (posix_memalign(&p, HUGE_PAGE_BYTES, bytes) != 0)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}
