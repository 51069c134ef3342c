/*
 * bytes.c - see bytes.h. Values are stored little-endian regardless of the
 * host so that model files move between machines.
 */
#include "base/bytes.h"

#include <stdlib.h>
#include <string.h>

enum { WBUF_MIN_CAP = 4096 };

void rv_wbuf_init(struct rv_wbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void rv_wbuf_fini(struct rv_wbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void rv_wbuf_bytes(struct rv_wbuf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : WBUF_MIN_CAP;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *d = realloc(b->data, cap);
		if (!d) {
			b->oom = 1;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void rv_wbuf_u32(struct rv_wbuf *b, uint32_t v)
{
	uint8_t x[4];
	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	rv_wbuf_bytes(b, x, sizeof(x));
}

void rv_wbuf_u64(struct rv_wbuf *b, uint64_t v)
{
	uint8_t x[8];
	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	rv_wbuf_bytes(b, x, sizeof(x));
}

void rv_wbuf_f64(struct rv_wbuf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	rv_wbuf_u64(b, u);
}

void rv_wbuf_f32s(struct rv_wbuf *b, const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &v[i], sizeof(u));
		rv_wbuf_u32(b, u);
	}
}

void rv_wbuf_f64s(struct rv_wbuf *b, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rv_wbuf_f64(b, v[i]);
}

void rv_wbuf_str(struct rv_wbuf *b, const char *s)
{
	size_t n = strlen(s);
	rv_wbuf_u32(b, (uint32_t)n);
	rv_wbuf_bytes(b, s, n);
}

void rv_rbuf_init(struct rv_rbuf *b, const void *data, size_t len)
{
	b->data = data;
	b->len = len;
	b->pos = 0;
	b->bad = 0;
}

int rv_rbuf_has(const struct rv_rbuf *b, size_t n, size_t size)
{
	if (b->bad)
		return 0;
	if (size && n > (b->len - b->pos) / size)
		return 0;
	return 1;
}

void rv_rbuf_bytes(struct rv_rbuf *b, void *p, size_t n)
{
	if (b->bad || n > b->len - b->pos) {
		b->bad = 1;
		memset(p, 0, n);
		return;
	}
	memcpy(p, b->data + b->pos, n);
	b->pos += n;
}

uint32_t rv_rbuf_u32(struct rv_rbuf *b)
{
	uint8_t x[4];
	uint32_t v = 0;
	rv_rbuf_bytes(b, x, sizeof(x));
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)x[i] << (8 * i);
	return v;
}

uint64_t rv_rbuf_u64(struct rv_rbuf *b)
{
	uint8_t x[8];
	uint64_t v = 0;
	rv_rbuf_bytes(b, x, sizeof(x));
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)x[i] << (8 * i);
	return v;
}

double rv_rbuf_f64(struct rv_rbuf *b)
{
	uint64_t u = rv_rbuf_u64(b);
	double v;
	memcpy(&v, &u, sizeof(v));
	return v;
}

void rv_rbuf_f32s(struct rv_rbuf *b, float *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u = rv_rbuf_u32(b);
		memcpy(&v[i], &u, sizeof(u));
	}
}

void rv_rbuf_f64s(struct rv_rbuf *b, double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = rv_rbuf_f64(b);
}

char *rv_rbuf_str(struct rv_rbuf *b, size_t max)
{
	uint32_t n = rv_rbuf_u32(b);
	char *s;

	if (b->bad || n > max || n > b->len - b->pos) {
		b->bad = 1;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		b->bad = 1;
		return NULL;
	}
	memcpy(s, b->data + b->pos, n);
	s[n] = '\0';
	b->pos += n;
	return s;
}
