/*
 * fuzz_rvl.c - libFuzzer target of the .rvl reader (record/rvl.h): any
 * bytes go through rv_rvl_reader_open_mem and every sample is read. The
 * reader must neither crash, read out of bounds, allocate beyond its limits
 * nor loop without end; sanitizers and libFuzzer's limits tell. Build and
 * run: tests/fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "record/rvl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rv_rvl_reader *r;
	uint64_t off;
	int64_t t;
	size_t n;
	double *v;
	uint8_t *valid;

	if (rv_rvl_reader_open_mem(data, size, &r, NULL) < 0)
		return 0;
	n = rv_rvl_reader_nchan(r);
	v = malloc(n * sizeof(*v));
	valid = malloc(n);
	if (v && valid) {
		while (rv_rvl_reader_next(r, &t, v, valid, NULL) == 1)
			;
		(void)rv_rvl_reader_stopped(r, &off);
	}
	free(v);
	free(valid);
	rv_rvl_reader_close(r);
	return 0;
}
