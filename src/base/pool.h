/*
 * pool.h - allocations freed together: everything one `reveal report`
 * builds (strings, arrays of its incidents) is kept in a pool and freed at
 * the end, so the builders of explain/report_build.c need no free paths.
 * Not for long-lived or hot-path memory.
 */
#ifndef RV_BASE_POOL_H
#define RV_BASE_POOL_H

#include <stddef.h>

/* Zero-initialise ({ 0 }); oom is set once any allocation failed. */
struct rv_pool {
	void **p;
	size_t n, cap;
	int oom;
};

/* Takes p into the pool and returns it; when p is NULL, or the pool
 * cannot grow (p is freed then), sets oom and returns NULL. */
void *rv_pool_keep(struct rv_pool *pl, void *p);

/* n zeroed elements of size bytes (at least one), or NULL (oom set). */
void *rv_pool_zalloc(struct rv_pool *pl, size_t n, size_t size);

/* A copy of s (NULL: ""), or "" when out of memory (oom set). */
const char *rv_pool_str(struct rv_pool *pl, const char *s);

/* A printf-formatted string, or "" when out of memory (oom set). */
const char *rv_pool_printf(struct rv_pool *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Frees everything kept and resets pl; may be called again. */
void rv_pool_free(struct rv_pool *pl);

#endif
