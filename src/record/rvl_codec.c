/*
 * rvl_codec.c - the bit-level codes of .rvl block payloads (rvl.h): the
 * MSB-first bit stream, INT codes, Gorilla XOR and the decimal predictor.
 * Shared by the writer and the reader in rvl.c; not API.
 */
#include "record/rvl_codec.h"

#include <math.h>
#include <string.h>

enum {
	INT_CLASSES = 6,        /* INT prefixes '0' .. '111110'; '111111' = ESC */
	LEAD_MAX = 31,          /* 5-bit leading-zero count of XOR mode */
};

static const unsigned int_width[INT_CLASSES] = { 0, 7, 12, 20, 32, 64 };
static const double pow10_tab[RV_RVL_DEC_EMAX + 1] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
};

void rv_rvl_bits_put(struct rv_rvl_bitw *b, uint64_t v, unsigned n)
{
	if (!b->buf) {
		b->pos += n;
		return;
	}
	while (n) {
		unsigned used = (unsigned)(b->pos & 7), take = 8 - used;

		if (take > n)
			take = n;
		if (!used)
			b->buf[b->pos >> 3] = 0;
		b->buf[b->pos >> 3] |= (uint8_t)(((v >> (n - take)) &
			((1u << take) - 1)) << (8 - used - take));
		b->pos += take;
		n -= take;
	}
}

/* n bits, or 0 and the sticky bad flag past the end. */
uint64_t rv_rvl_bits_get(struct rv_rvl_bitr *b, unsigned n)
{
	uint64_t v = 0;

	if (b->bad || n > b->end - b->pos) {
		b->bad = 1;
		return 0;
	}
	while (n) {
		unsigned used = (unsigned)(b->pos & 7), take = 8 - used;

		if (take > n)
			take = n;
		v = (v << take) | ((b->buf[b->pos >> 3] >> (8 - used - take)) &
				   ((1u << take) - 1));
		b->pos += take;
		n -= take;
	}
	return v;
}

/* INT(r) of rvl.h; r is a two's complement int64 held in a uint64_t. */
void rv_rvl_int_put(struct rv_rvl_bitw *b, uint64_t r)
{
	uint64_t z = (r << 1) ^ (0 - (r >> 63));
	unsigned k = 0;

	while (int_width[k] < 64 && (z >> int_width[k]) != 0)
		k++;
	rv_rvl_bits_put(b, (1u << (k + 1)) - 2, k + 1);
	rv_rvl_bits_put(b, z, int_width[k]);
}

/* Returns 1 for ESC, else 0 and *r. */
int rv_rvl_int_get(struct rv_rvl_bitr *b, uint64_t *r)
{
	unsigned k = 0;
	uint64_t z;

	while (k < INT_CLASSES && rv_rvl_bits_get(b, 1))
		k++;
	if (k == INT_CLASSES)
		return 1;
	z = rv_rvl_bits_get(b, int_width[k]);
	*r = (z >> 1) ^ (0 - (z & 1));
	return 0;
}

void rv_rvl_xor_put(struct rv_rvl_bitw *b, struct rv_rvl_xor *s, uint64_t bits)
{
	uint64_t x = bits ^ s->prev;
	unsigned lead, trail, m;

	s->prev = bits;
	if (!x) {
		rv_rvl_bits_put(b, 0, 1);
		return;
	}
	lead = (unsigned)__builtin_clzll(x);
	trail = (unsigned)__builtin_ctzll(x);
	if (lead > LEAD_MAX)
		lead = LEAD_MAX;
	if (s->win && lead >= s->lead && trail >= s->trail) {
		rv_rvl_bits_put(b, 2, 2);
		rv_rvl_bits_put(b, x >> s->trail, 64 - s->lead - s->trail);
		return;
	}
	m = 64 - lead - trail;
	rv_rvl_bits_put(b, 3, 2);
	rv_rvl_bits_put(b, lead, 5);
	rv_rvl_bits_put(b, m & 63, 6);
	rv_rvl_bits_put(b, x >> trail, m);
	s->lead = lead;
	s->trail = trail;
	s->win = 1;
}

uint64_t rv_rvl_xor_get(struct rv_rvl_bitr *b, struct rv_rvl_xor *s)
{
	unsigned m;

	if (!rv_rvl_bits_get(b, 1))
		return s->prev;
	if (!rv_rvl_bits_get(b, 1)) {
		if (!s->win) {
			b->bad = 1;
			return 0;
		}
		s->prev ^= rv_rvl_bits_get(b, 64 - s->lead - s->trail) << s->trail;
		return s->prev;
	}
	s->lead = (unsigned)rv_rvl_bits_get(b, 5);
	m = (unsigned)rv_rvl_bits_get(b, 6);
	if (!m)
		m = 64;
	if (s->lead + m > 64) {
		b->bad = 1;
		return 0;
	}
	s->trail = 64 - s->lead - m;
	s->win = 1;
	s->prev ^= rv_rvl_bits_get(b, m) << s->trail;
	return s->prev;
}

/* Residual of m (encoder side); see "decimal mode" in rvl.h. */
uint64_t rv_rvl_dec_resid(struct rv_rvl_dec *s, uint64_t m)
{
	uint64_t r = m;

	if (s->started) {
		uint64_t d = m - s->prev;

		r = s->order2 ? d - s->delta : d;
		s->delta = d;
	}
	s->prev = m;
	s->started = 1;
	return r;
}

/* m of residual r (decoder side). */
uint64_t rv_rvl_dec_value(struct rv_rvl_dec *s, uint64_t r)
{
	uint64_t m = r;

	if (s->started) {
		uint64_t d = s->order2 ? s->delta + r : r;

		m = s->prev + d;
		s->delta = d;
	}
	s->prev = m;
	s->started = 1;
	return m;
}

double rv_rvl_f64(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

uint64_t rv_rvl_u64(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/* 1 when bits is exactly m / 10^e for an int64 m (the reader's division). */
int rv_rvl_dec_of(uint64_t bits, unsigned e, int64_t *m)
{
	double x = rv_rvl_f64(bits) * pow10_tab[e];
	int64_t k;

	if (!(x > -9.2e18 && x < 9.2e18))
		return 0;
	k = (int64_t)rint(x);
	if (rv_rvl_u64((double)k / pow10_tab[e]) != bits)
		return 0;
	*m = k;
	return 1;
}

uint32_t rv_rvl_le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void rv_rvl_le32_put(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void rv_rvl_values_put(struct rv_rvl_bitw *b, const uint64_t *vals,
		       const uint8_t *dec_ok, const int64_t *mant, size_t nv,
		       const struct rv_rvl_mode *md)
{
	struct rv_rvl_xor xs = { 0 };
	struct rv_rvl_dec is = { .order2 = md->order2 };

	rv_rvl_bits_put(b, (unsigned)md->dec, 1);
	if (!md->dec) {
		for (size_t i = 0; i < nv; i++)
			rv_rvl_xor_put(b, &xs, vals[i]);
		return;
	}
	rv_rvl_bits_put(b, md->e, 4);
	rv_rvl_bits_put(b, (unsigned)md->order2, 1);
	for (size_t i = 0; i < nv; i++) {
		if (dec_ok[i]) {
			rv_rvl_int_put(b, rv_rvl_dec_resid(&is, (uint64_t)mant[i]));
		} else {
			rv_rvl_bits_put(b, RV_RVL_ESC_CODE, RV_RVL_ESC_BITS);
			rv_rvl_xor_put(b, &xs, vals[i]);
		}
	}
}

uint64_t rv_rvl_value_get(struct rv_rvl_bitr *b, const struct rv_rvl_mode *md,
			  struct rv_rvl_xor *xs, struct rv_rvl_dec *is)
{
	uint64_t res;

	if (!md->dec || rv_rvl_int_get(b, &res))
		return rv_rvl_xor_get(b, xs);
	return rv_rvl_u64((double)(int64_t)rv_rvl_dec_value(is, res) /
			      pow10_tab[md->e]);
}

