/*
 * parallel.h - a blocking parallel-for over an index range.
 *
 * Splits [0, n) into nthreads contiguous slices and runs fn on each slice in
 * its own thread (the calling thread takes the first slice), then waits for
 * all. Work items must be independent: results land in per-item slots, so
 * the output does not depend on the thread count. Threads are created per
 * call: callers batch enough work per call (thousands of windows) that the
 * ~50 us of thread start-up does not matter.
 */
#ifndef RV_BASE_PARALLEL_H
#define RV_BASE_PARALLEL_H

#include <stddef.h>

enum { RV_PARALLEL_MAX = 64 };

/* fn(ctx, begin, end, slot): slot in [0, nthreads) names the thread, so
 * fn can use per-thread scratch space. Returns 0 or a negative errno. */
typedef int (*rv_parallel_fn)(void *ctx, size_t begin, size_t end, unsigned slot);

/*
 * Runs fn over [0, n) on up to nthreads threads (1 runs inline; never more
 * threads than items). Slices whose thread could not be started run in the
 * calling thread. Returns 0 or the error of the first failing slice.
 */
int rv_parallel_for(size_t n, unsigned nthreads, rv_parallel_fn fn, void *ctx);

/* Online CPUs, at least 1, at most RV_PARALLEL_MAX. */
unsigned rv_parallel_cpus(void);

#endif
