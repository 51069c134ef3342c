/*
 * bytes.h - little-endian binary buffers for model files and recordings.
 *
 * struct rv_wbuf grows as values are appended (allocation happens here, so
 * never use it on a sampling path); struct rv_rbuf reads a borrowed byte
 * range with bounds checks: a read past the end sets the sticky `bad` flag
 * and yields zeros, so a parser checks once at the end of a section.
 */
#ifndef RV_BASE_BYTES_H
#define RV_BASE_BYTES_H

#include <stddef.h>
#include <stdint.h>

struct rv_wbuf {
	uint8_t *data;
	size_t len, cap;
	int oom;            /* sticky: an append failed for lack of memory */
};

void rv_wbuf_init(struct rv_wbuf *b);
void rv_wbuf_fini(struct rv_wbuf *b);
void rv_wbuf_bytes(struct rv_wbuf *b, const void *p, size_t n);
void rv_wbuf_u32(struct rv_wbuf *b, uint32_t v);
void rv_wbuf_u64(struct rv_wbuf *b, uint64_t v);
void rv_wbuf_f64(struct rv_wbuf *b, double v);
void rv_wbuf_f32s(struct rv_wbuf *b, const float *v, size_t n);
void rv_wbuf_f64s(struct rv_wbuf *b, const double *v, size_t n);
/* u32 length then the bytes (no NUL). */
void rv_wbuf_str(struct rv_wbuf *b, const char *s);

struct rv_rbuf {
	const uint8_t *data;
	size_t len, pos;
	int bad;            /* sticky: a read went past the end or a value was invalid */
};

void rv_rbuf_init(struct rv_rbuf *b, const void *data, size_t len);
void rv_rbuf_bytes(struct rv_rbuf *b, void *p, size_t n);
uint32_t rv_rbuf_u32(struct rv_rbuf *b);
uint64_t rv_rbuf_u64(struct rv_rbuf *b);
double rv_rbuf_f64(struct rv_rbuf *b);
void rv_rbuf_f32s(struct rv_rbuf *b, float *v, size_t n);
void rv_rbuf_f64s(struct rv_rbuf *b, double *v, size_t n);
/* Reads a string written by rv_wbuf_str into a new NUL-terminated
 * allocation (caller frees); NULL and bad set on error or if longer than max. */
char *rv_rbuf_str(struct rv_rbuf *b, size_t max);
/* 1 when n more items of size `size` can be read (guards allocations). */
int rv_rbuf_has(const struct rv_rbuf *b, size_t n, size_t size);

#endif
