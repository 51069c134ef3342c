/*
 * parallel.c - see parallel.h. Plain pthreads: one thread per slice.
 */
#include "base/parallel.h"

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

struct slice {
	rv_parallel_fn fn;
	void *ctx;
	size_t begin, end;
	unsigned slot;
	int rc;
};

static void *run_slice(void *arg)
{
	struct slice *s = arg;

	s->rc = s->fn(s->ctx, s->begin, s->end, s->slot);
	return NULL;
}

unsigned rv_parallel_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > RV_PARALLEL_MAX ? RV_PARALLEL_MAX : (unsigned)n;
}

int rv_parallel_for(size_t n, unsigned nthreads, rv_parallel_fn fn, void *ctx)
{
	struct slice s[RV_PARALLEL_MAX];
	pthread_t tid[RV_PARALLEL_MAX];
	unsigned started = 1;
	int rc = 0;

	if (n == 0)
		return 0;
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > RV_PARALLEL_MAX)
		nthreads = RV_PARALLEL_MAX;
	if (nthreads > n)
		nthreads = (unsigned)n;
	for (unsigned t = 0; t < nthreads; t++) {
		s[t] = (struct slice){ fn, ctx, n * t / nthreads, n * (t + 1) / nthreads, t, 0 };
	}
	for (unsigned t = 1; t < nthreads; t++, started++)
		if (pthread_create(&tid[t], NULL, run_slice, &s[t]) != 0)
			break;
	if (started < nthreads) {
		/* Run the slices that got no thread here, after the first. */
		for (unsigned t = started; t < nthreads; t++)
			run_slice(&s[t]);
	}
	run_slice(&s[0]);
	for (unsigned t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	for (unsigned t = 0; t < nthreads && !rc; t++)
		rc = s[t].rc;
	return rc;
}
