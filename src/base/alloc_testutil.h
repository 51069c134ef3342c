/*
 * alloc_testutil.h - for unit tests of "this allocates nothing": the test
 * executable's malloc, calloc and realloc count their calls in `allocs`
 * while `counting` is set, and forward to glibc's. Defined only without
 * AddressSanitizer (which owns malloc): RV_COUNT_ALLOCS says whether the
 * count is there. Include in one test file of an executable, once.
 */
#ifndef RV_BASE_ALLOC_TESTUTIL_H
#define RV_BASE_ALLOC_TESTUTIL_H

#include <stddef.h>

#if !defined(__SANITIZE_ADDRESS__)
#define RV_COUNT_ALLOCS 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
static int counting;
static unsigned long allocs;

void *malloc(size_t n)
{
	allocs += (unsigned long)counting;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	allocs += (unsigned long)counting;
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	allocs += (unsigned long)counting;
	return __libc_realloc(p, n);
}
#endif

#endif
