/*
 * rvl_codec.h - internal to record/rvl.c: the bit-level codes of .rvl
 * block payloads, as specified in rvl.h. Nothing here allocates; a reader
 * past the end of its bits gets zeros and the sticky bad flag.
 */
#ifndef RV_RECORD_RVL_CODEC_H
#define RV_RECORD_RVL_CODEC_H

#include <stddef.h>
#include <stdint.h>

enum {
	RV_RVL_DEC_EMAX = 15,                   /* largest decimal exponent */
	RV_RVL_ESC_CODE = 0x3f, RV_RVL_ESC_BITS = 6,
};

/* MSB-first bit writer; buf NULL counts bits only (cost estimates). */
struct rv_rvl_bitw {
	uint8_t *buf;
	uint64_t pos;
};

struct rv_rvl_bitr {
	const uint8_t *buf;
	uint64_t pos, end;
	int bad;
};

struct rv_rvl_xor {            /* Gorilla XOR: previous bits and window */
	uint64_t prev;
	unsigned lead, trail;
	int win;
};

struct rv_rvl_dec {            /* decimal mode: previous m and delta */
	uint64_t prev, delta;
	int started, order2;
};

struct rv_rvl_mode {
	int dec;                /* 0 XOR, 1 decimal */
	unsigned e;
	int order2;
};

/* Appends the n (<= 64) low bits of v, most significant first. */
void rv_rvl_bits_put(struct rv_rvl_bitw *b, uint64_t v, unsigned n);
/* Next n (<= 64) bits; 0 and b->bad past the end. */
uint64_t rv_rvl_bits_get(struct rv_rvl_bitr *b, unsigned n);

/* INT(r); r is a two's complement int64 held in a uint64_t. */
void rv_rvl_int_put(struct rv_rvl_bitw *b, uint64_t r);
/* Returns 1 for ESC, else 0 and *r. */
int rv_rvl_int_get(struct rv_rvl_bitr *b, uint64_t *r);

/* One Gorilla XOR-coded value (IEEE bits); s starts zeroed per block. */
void rv_rvl_xor_put(struct rv_rvl_bitw *b, struct rv_rvl_xor *s, uint64_t bits);
uint64_t rv_rvl_xor_get(struct rv_rvl_bitr *b, struct rv_rvl_xor *s);

/* Decimal predictor: residual of m (writer), m of a residual (reader). */
uint64_t rv_rvl_dec_resid(struct rv_rvl_dec *s, uint64_t m);
uint64_t rv_rvl_dec_value(struct rv_rvl_dec *s, uint64_t r);
/* 1 and *m when the double with IEEE bits `bits` is exactly m / 10^e. */
int rv_rvl_dec_of(uint64_t bits, unsigned e, int64_t *m);

/* The values of one channel in mode md, mode bits first; a value with
 * dec_ok 0 escapes to XOR. mant[i] is its m at md->e. */
void rv_rvl_values_put(struct rv_rvl_bitw *b, const uint64_t *vals,
		       const uint8_t *dec_ok, const int64_t *mant, size_t nv,
		       const struct rv_rvl_mode *md);
/* One value (IEEE bits) in mode md; xs and is start zeroed per channel. */
uint64_t rv_rvl_value_get(struct rv_rvl_bitr *b, const struct rv_rvl_mode *md,
			  struct rv_rvl_xor *xs, struct rv_rvl_dec *is);

double rv_rvl_f64(uint64_t u);
uint64_t rv_rvl_u64(double d);
uint32_t rv_rvl_le32_get(const uint8_t *p);
void rv_rvl_le32_put(uint8_t *p, uint32_t v);

#endif
