/*
 * rvl.h - the .rvl recording format: a header with the channel catalog,
 * then append-only, self-contained, checksummed blocks of samples.
 *
 * Written by `reveal record` / the agent (one writer per file), read by the
 * offline commands. A sample is one timestamp (int64 unix ns) plus one double
 * and one validity bit per channel. Values are stored bit-exactly (NaN
 * payloads, -0, denormals included). A crash loses at most the open block;
 * a reader stops cleanly at the first bad or truncated block and says where.
 * Non-goals: random access by time, editing, more than one writer.
 *
 * FILE FORMAT, version 1. Fixed-width fields are little-endian.
 *
 *   File header
 *     0   8  magic "RVLREC\0\1"
 *     8   4  u32 format version (1)
 *    12   4  u32 L: length of the fields below (<= 16 MiB)
 *    16   L  fields:
 *              u32 S: samples per block at most (1..65536)
 *              u32 C: channel count (1..1000000; S * C <= 2^24)
 *              C times:
 *                u32 name length (1..95), name bytes (no NUL)
 *                u32 unit length (0..95), unit bytes
 *                u8  kind (0 gauge, 1 counter, 2 event, 3 static: rv_kind)
 *                f64 scale (IEEE-754 bits as u64)
 *              the fields must end exactly at 16 + L
 *  16+L   4  u32 CRC-32C of bytes [0, 16 + L)
 *
 *   Blocks, back to back until the end of the file
 *     0   4  magic "RVB1"
 *     4   4  u32 P: payload length in bytes (1..64 MiB)
 *     8   4  u32 n: samples in the block (1..S)
 *    12   4  u32 CRC-32C of bytes 4..11 (P and n) followed by the payload
 *    16   P  payload: one bit stream, most significant bit of each byte
 *            first, padded with 0 bits to a byte boundary (< 8 bits).
 *
 *   Payload. Nothing refers to an earlier block.
 *     timestamps: t[0] as 64 bits (two's complement), then for j = 1..n-1
 *       INT(d) where d = delta - previous delta (previous delta 0 for j=1),
 *       arithmetic modulo 2^64.
 *     then for each channel in header order:
 *       1 bit  1 = valid in all n samples; 0 = n validity bits follow
 *              (bit j = sample j valid). Invalid values are not stored;
 *              a channel with no valid sample stops here.
 *       1 bit  1 = constant: all valid values are bit-identical, only the
 *              first is coded; 0 = each valid value is coded.
 *       1 bit  mode: 0 = XOR; 1 = decimal, followed by 4 bits e (0..15)
 *              and 1 bit order (0 = delta, 1 = delta-of-delta).
 *       the values:
 *       XOR mode (Gorilla, Pelkonen et al. 2015): x = bits ^ previous bits
 *         (previous starts at 0, i.e. +0.0; no window yet)
 *         '0'  x == 0
 *         '10' + (64 - lead - trail) bits of x >> trail, using the window
 *              (lead, trail) of the last '11'
 *         '11' + 5 bits lead (<= 31) + 6 bits length m (64 coded as 0)
 *              + m bits of x >> (64 - lead - m); sets the window
 *       decimal mode: the value is m / 10^e for an int64 m, stored as
 *         INT(r) where r = m - previous m (order 0), or r = (m - previous
 *         m) - previous delta (order 1); the first coded m of the block is
 *         stored as r = m, the second's previous delta is 0. A value that
 *         is not exactly m / 10^e (-0, NaN, inf, 2^63 and above, too many
 *         digits) is coded as ESC followed by one XOR-mode value (XOR state
 *         of its own; the decimal state skips it). Counters and events are
 *         decimal with e = 0: integer delta-of-delta.
 *     INT(r), z = zigzag(r) = (r << 1) ^ (r >> 63):
 *         '0' z == 0          '10' + 7 bits z     '110' + 12 bits z
 *         '1110' + 20 bits z  '11110' + 32 bits z '111110' + 64 bits z
 *         '111111' ESC (only where a value may escape)
 *
 * The writer picks per block and channel the smallest of XOR, decimal
 * delta and decimal delta-of-delta; a steady interval costs 1 bit per
 * timestamp, a constant channel about 3 bytes per block.
 */
#ifndef RV_RECORD_RVL_H
#define RV_RECORD_RVL_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum {
	RV_RVL_VERSION = 1,
	RV_RVL_NAME_MAX = 95,                 /* bytes of a name or unit */
	RV_RVL_BLOCK_DEFAULT = 64,            /* samples per block */
	RV_RVL_BLOCK_MAX = 65536,
	RV_RVL_CHAN_MAX = 1000000,
	RV_RVL_HEADER_MAX = 16 << 20,         /* bytes of header fields */
	RV_RVL_PAYLOAD_MAX = 64 << 20,        /* bytes of one block payload */
	RV_RVL_BLOCK_VALUES_MAX = 1 << 24,    /* samples per block x channels */
};

/* One channel of the header. kind is an enum rv_kind (catalog/catalog.h);
 * scale is what a reader multiplies a counter's rate or a gauge by. */
struct rv_rvl_chan {
	const char *name, *unit;
	unsigned kind;
	double scale;
};

struct rv_rvl_writer;
struct rv_rvl_reader;

/*
 * Creates or truncates path and writes the header for the n channels ch
 * (copied; unit NULL means ""). block_samples 0 means RV_RVL_BLOCK_DEFAULT;
 * it is lowered when n channels would exceed the block limits. Allocates
 * all buffers here. Returns 0 and *out, or a negative errno with
 * "PATH: ..." in err.
 */
int rv_rvl_writer_open(const char *path, const struct rv_rvl_chan *ch,
		       size_t n, size_t block_samples,
		       struct rv_rvl_writer **out, struct rv_err *err);

/*
 * Adds one sample: v[n] values, valid[n] flags (NULL: all valid; the value
 * of an invalid channel is ignored). Allocates nothing; a full block is
 * encoded and written with one write(). On a write error the block's
 * samples are dropped, the file is cut back to its last complete block and
 * the negative errno is returned.
 */
int rv_rvl_writer_append(struct rv_rvl_writer *w, int64_t t_ns,
			 const double *v, const uint8_t *valid,
			 struct rv_err *err);

/* Writes the open block (if any) as a short block; fsync()s when sync. */
int rv_rvl_writer_flush(struct rv_rvl_writer *w, int sync, struct rv_err *err);

/* Flushes (fsync when sync), closes and frees w, also on error. NULL: 0. */
int rv_rvl_writer_close(struct rv_rvl_writer *w, int sync, struct rv_err *err);

/* The actual samples per block after lowering (see _open). */
size_t rv_rvl_writer_block_samples(const struct rv_rvl_writer *w);

/*
 * Opens path and checks its header. Blocks are read as the file is read:
 * a block appended after the end has been reached is not seen. Returns 0
 * and *out, or a negative errno with "PATH: offset N: ..." in err for a bad
 * header (-EINVAL) or a file that cannot be read.
 */
int rv_rvl_reader_open(const char *path, struct rv_rvl_reader **out,
		       struct rv_err *err);

/* The same on len bytes at data, borrowed until rv_rvl_reader_close. */
int rv_rvl_reader_open_mem(const void *data, size_t len,
			   struct rv_rvl_reader **out, struct rv_err *err);

/* Frees r (NULL: no-op). */
void rv_rvl_reader_close(struct rv_rvl_reader *r);

size_t rv_rvl_reader_nchan(const struct rv_rvl_reader *r);
/* Channel i (< nchan), owned by r. */
const struct rv_rvl_chan *rv_rvl_reader_chan(const struct rv_rvl_reader *r,
					     size_t i);

/*
 * Next sample: fills *t_ns, v[nchan] and valid[nchan] (invalid: v NAN,
 * valid 0) and returns 1; returns 0 at the end: a clean one, or the first
 * bad or truncated block (see rv_rvl_reader_stopped); a negative errno
 * only when the file cannot be read. Allocates the block buffers when a
 * block is larger than any before it.
 */
int rv_rvl_reader_next(struct rv_rvl_reader *r, int64_t *t_ns, double *v,
		       uint8_t *valid, struct rv_err *err);

/*
 * NULL while reading or after a clean end; after a stop the reason,
 * "offset N: block CRC mismatch" or "offset N: truncated block (crash
 * while recording?)", with *offset (may be NULL) the block's file offset.
 */
const char *rv_rvl_reader_stopped(const struct rv_rvl_reader *r,
				  uint64_t *offset);

#endif
