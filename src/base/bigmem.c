/*
 * bigmem.c - see bigmem.h. Each block starts with a header one cache line
 * long holding the size of its mapping (0: the block came from malloc), so
 * the pointer handed out is 64-byte aligned in both cases.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/bigmem.h"

enum {
	HDR = 64,                   /* bytes before the caller's pointer */
	HUGE_PAGE = 2 << 20,        /* bytes: the x86-64 and arm64 PMD size */
};

struct big_hdr {
	size_t map_len;             /* bytes mapped; 0: malloc'd */
	size_t bytes;               /* bytes the caller asked for */
};

static size_t round_huge(size_t n)
{
	return (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

static struct big_hdr *hdr_of(void *p)
{
	return (struct big_hdr *)((char *)p - HDR);
}

static void *user_of(struct big_hdr *h)
{
	return (char *)h + HDR;
}

static struct big_hdr *map_block(size_t bytes)
{
	size_t len = round_huge(bytes + HDR);
	void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return NULL;
	/* Advice only: EINVAL where THP is compiled out changes nothing. */
	(void)madvise(base, len, MADV_HUGEPAGE);
	struct big_hdr *h = base;

	h->map_len = len;
	h->bytes = bytes;
	return h;
}

static struct big_hdr *malloc_block(size_t bytes)
{
	struct big_hdr *h = aligned_alloc(HDR, (bytes + HDR + HDR - 1) / HDR * HDR);

	if (h) {
		h->map_len = 0;
		h->bytes = bytes;
	}
	return h;
}

void *rv_big_alloc(size_t bytes)
{
	struct big_hdr *h;

	if (bytes > SIZE_MAX - 2 * (size_t)HUGE_PAGE)
		return NULL;
	h = bytes >= RV_BIG_MIN ? map_block(bytes) : malloc_block(bytes);
	return h ? user_of(h) : NULL;
}

void *rv_big_array(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return rv_big_alloc(n * size);
}

void *rv_big_realloc(void *p, size_t bytes)
{
	if (!p)
		return rv_big_alloc(bytes);
	if (bytes > SIZE_MAX - 2 * (size_t)HUGE_PAGE)
		return NULL;
	struct big_hdr *h = hdr_of(p);

	if (h->map_len && bytes >= RV_BIG_MIN) {
		size_t len = round_huge(bytes + HDR);
		void *moved = len == h->map_len ? (void *)h
				: mremap(h, h->map_len, len, MREMAP_MAYMOVE);

		if (moved == MAP_FAILED)
			return NULL;
		h = moved;
		h->map_len = len;
		h->bytes = bytes;
		return user_of(h);
	}
	/* Between the two kinds, or both small: allocate and copy. */
	void *q = rv_big_alloc(bytes);

	if (!q)
		return NULL;
	memcpy(q, p, h->bytes < bytes ? h->bytes : bytes);
	rv_big_free(p);
	return q;
}

void rv_big_free(void *p)
{
	if (!p)
		return;
	struct big_hdr *h = hdr_of(p);

	if (h->map_len)
		munmap(h, h->map_len);
	else
		free(h);
}
