/*
 * rvl.c - writer and reader of .rvl recordings; the format is in rvl.h.
 *
 * The writer keeps the open block as raw rows (allocated at open) and
 * encodes it column by column at flush into a buffer sized for the worst
 * case, so append never allocates and a block costs one write(). The
 * reader checks every length against the limits of rvl.h and the bytes
 * present before it allocates or loops, decodes a whole block at a time and
 * stops, with the offset and a reason, at the first block that is not
 * complete and intact.
 */
#include "record/rvl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "base/crc32c.h"
#include "record/rvl_codec.h"

_Static_assert(sizeof(double) == sizeof(uint64_t), "IEEE-754 double");

enum {
	HDR_FIXED = 16,         /* magic, version, fields length */
	CRC_BYTES = 4,
	BLK_HDR = 16,           /* magic, payload length, count, CRC */
	KIND_MAX = 3,           /* RV_KIND_STATIC in catalog/catalog.h */
	CHAN_MIN_BYTES = 17,    /* name length, unit length, kind, scale */
	WORST_TS_BITS = 70,     /* one timestamp INT, 64-bit class */
	WORST_VALUE_BITS = 84,  /* ESC + '11' + 5 + 6 + 64, plus its validity bit */
	WORST_CHAN_BITS = 9,    /* all-valid, constant, mode, e, order */
	STOP_MSG_MAX = 160,
};

static const uint8_t file_magic[8] = { 'R', 'V', 'L', 'R', 'E', 'C', 0, 1 };
static const uint8_t blk_magic[4] = { 'R', 'V', 'B', '1' };

/* ---------------------------------------------------------------- writer */

struct rv_rvl_writer {
	int fd;
	char *path;
	size_t nchan, bs, count;
	uint64_t good_off;      /* file size after the last complete block */
	int64_t *ts;            /* [bs] */
	uint64_t *bits;         /* [bs][nchan] rows as appended */
	uint8_t *valid;         /* [bs][nchan] */
	uint64_t *vals;         /* [bs] one channel's valid values */
	int64_t *mant;          /* [bs] their m at the chosen e */
	uint8_t *dec_ok;        /* [bs] m valid */
	uint8_t *blk;           /* block header + worst-case payload */
};

static uint64_t worst_payload(uint64_t n, uint64_t c)
{
	return (64 + n * WORST_TS_BITS + c * (WORST_CHAN_BITS +
		n * WORST_VALUE_BITS)) / 8 + 1;
}

/* Cheapest of XOR, decimal delta and decimal delta-of-delta for vals[nv]. */
static struct rv_rvl_mode choose_mode(struct rv_rvl_writer *w, size_t nv)
{
	struct rv_rvl_mode cand[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 0, 1 } };
	uint64_t best_cost = UINT64_MAX;
	unsigned e = 0, best = 0;
	int any = 0;

	for (size_t i = 0; i < nv; i++) {
		for (unsigned k = 0; k <= RV_RVL_DEC_EMAX; k++) {
			if (rv_rvl_dec_of(w->vals[i], k, &w->mant[i])) {
				e = k > e ? k : e;
				any = 1;
				break;
			}
		}
	}
	for (size_t i = 0; i < nv; i++)
		w->dec_ok[i] = (uint8_t)rv_rvl_dec_of(w->vals[i], e, &w->mant[i]);
	cand[1].e = cand[2].e = e;
	for (unsigned k = 0; k < (any ? 3u : 1u); k++) {
		struct rv_rvl_bitw cb = { NULL, 0 };

		rv_rvl_values_put(&cb, w->vals, w->dec_ok, w->mant, nv, &cand[k]);
		if (cb.pos < best_cost) {
			best_cost = cb.pos;
			best = k;
		}
	}
	return cand[best];
}

static void enc_channel(struct rv_rvl_writer *w, struct rv_rvl_bitw *b, size_t c)
{
	size_t n = w->count, nv = 0, all = 1, cst = 1;
	struct rv_rvl_mode md;

	for (size_t j = 0; j < n; j++) {
		if (w->valid[j * w->nchan + c])
			w->vals[nv++] = w->bits[j * w->nchan + c];
		else
			all = 0;
	}
	rv_rvl_bits_put(b, all, 1);
	for (size_t j = 0; !all && j < n; j++)
		rv_rvl_bits_put(b, w->valid[j * w->nchan + c] != 0, 1);
	if (!nv)
		return;
	for (size_t i = 1; i < nv; i++)
		cst &= w->vals[i] == w->vals[0];
	rv_rvl_bits_put(b, cst, 1);
	if (cst)
		nv = 1;
	md = choose_mode(w, nv);
	rv_rvl_values_put(b, w->vals, w->dec_ok, w->mant, nv, &md);
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

static int write_block(struct rv_rvl_writer *w, struct rv_err *err)
{
	struct rv_rvl_bitw b = { w->blk + BLK_HDR, 0 };
	struct rv_rvl_dec ts = { .order2 = 1 };
	uint32_t plen, crc;
	int rc;

	rv_rvl_bits_put(&b, (uint64_t)w->ts[0], 64);
	rv_rvl_dec_resid(&ts, (uint64_t)w->ts[0]);
	for (size_t j = 1; j < w->count; j++)
		rv_rvl_int_put(&b, rv_rvl_dec_resid(&ts, (uint64_t)w->ts[j]));
	for (size_t c = 0; c < w->nchan; c++)
		enc_channel(w, &b, c);
	plen = (uint32_t)((b.pos + 7) / 8);
	memcpy(w->blk, blk_magic, sizeof(blk_magic));
	rv_rvl_le32_put(w->blk + 4, plen);
	rv_rvl_le32_put(w->blk + 8, (uint32_t)w->count);
	crc = rv_crc32c(rv_crc32c(0, w->blk + 4, 8), w->blk + BLK_HDR, plen);
	rv_rvl_le32_put(w->blk + 12, crc);
	rc = write_all(w->fd, w->blk, BLK_HDR + (size_t)plen);
	if (rc < 0) {
		if (ftruncate(w->fd, (off_t)w->good_off) == 0)
			(void)lseek(w->fd, (off_t)w->good_off, SEEK_SET);
		rv_err_set(err, rc, "%s: write of a block failed, %zu samples dropped: %s",
			   w->path, w->count, rv_strerror(rc));
	} else {
		w->good_off += BLK_HDR + (uint64_t)plen;
	}
	w->count = 0;
	return rc;
}

/* Header bytes (file header + fields + CRC) into h; -EINVAL for bad channels. */
static int build_header(struct rv_wbuf *h, const struct rv_rvl_chan *ch,
			size_t n, size_t bs, const char *path,
			struct rv_err *err)
{
	struct rv_wbuf f;
	int rc = 0;

	rv_wbuf_init(&f);
	rv_wbuf_u32(&f, (uint32_t)bs);
	rv_wbuf_u32(&f, (uint32_t)n);
	for (size_t i = 0; i < n && !rc; i++) {
		const char *unit = ch[i].unit ? ch[i].unit : "";
		size_t nl = ch[i].name ? strlen(ch[i].name) : 0;

		if (!nl || nl > RV_RVL_NAME_MAX || strlen(unit) > RV_RVL_NAME_MAX ||
		    ch[i].kind > KIND_MAX)
			rc = rv_err_set(err, -EINVAL, "%s: channel %zu: empty or too long name or unit, or bad kind %u",
					path, i, ch[i].kind);
		rv_wbuf_str(&f, ch[i].name ? ch[i].name : "");
		rv_wbuf_str(&f, unit);
		rv_wbuf_bytes(&f, &(uint8_t){ (uint8_t)ch[i].kind }, 1);
		rv_wbuf_f64(&f, ch[i].scale);
	}
	if (!rc && f.len > RV_RVL_HEADER_MAX)
		rc = rv_err_set(err, -EINVAL, "%s: header of %zu bytes is over the limit", path, f.len);
	rv_wbuf_bytes(h, file_magic, sizeof(file_magic));
	rv_wbuf_u32(h, RV_RVL_VERSION);
	rv_wbuf_u32(h, (uint32_t)f.len);
	rv_wbuf_bytes(h, f.data, f.len);
	rv_wbuf_u32(h, h->oom ? 0 : rv_crc32c(0, h->data, h->len));
	if (!rc && (f.oom || h->oom))
		rc = rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	rv_wbuf_fini(&f);
	return rc;
}

static int writer_alloc(struct rv_rvl_writer *w, const char *path)
{
	size_t bs = w->bs, n = w->nchan;

	w->path = strdup(path);
	w->ts = calloc(bs, sizeof(*w->ts));
	w->bits = calloc(bs * n, sizeof(*w->bits));
	w->valid = calloc(bs * n, 1);
	w->vals = calloc(bs, sizeof(*w->vals));
	w->mant = calloc(bs, sizeof(*w->mant));
	w->dec_ok = calloc(bs, 1);
	w->blk = malloc(BLK_HDR + worst_payload(bs, n));
	if (!w->path || !w->ts || !w->bits || !w->valid || !w->vals ||
	    !w->mant || !w->dec_ok || !w->blk)
		return -ENOMEM;
	return 0;
}

static void writer_free(struct rv_rvl_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->path);
	free(w->ts);
	free(w->bits);
	free(w->valid);
	free(w->vals);
	free(w->mant);
	free(w->dec_ok);
	free(w->blk);
	free(w);
}

int rv_rvl_writer_open(const char *path, const struct rv_rvl_chan *ch,
		       size_t n, size_t block_samples,
		       struct rv_rvl_writer **out, struct rv_err *err)
{
	struct rv_rvl_writer *w;
	struct rv_wbuf h;
	size_t bs = block_samples ? block_samples : RV_RVL_BLOCK_DEFAULT;
	int rc;

	*out = NULL;
	if (!n || n > RV_RVL_CHAN_MAX || bs > RV_RVL_BLOCK_MAX)
		return rv_err_set(err, -EINVAL, "%s: %zu channels or %zu samples per block out of range",
				  path, n, bs);
	while (bs > 1 && ((uint64_t)bs * n > RV_RVL_BLOCK_VALUES_MAX ||
			  worst_payload(bs, n) > RV_RVL_PAYLOAD_MAX))
		bs--;
	w = calloc(1, sizeof(*w));
	if (!w)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	w->fd = -1;
	w->nchan = n;
	w->bs = bs;
	rv_wbuf_init(&h);
	rc = build_header(&h, ch, n, bs, path, err);
	if (!rc && writer_alloc(w, path) < 0)
		rc = rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	if (!rc) {
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (w->fd < 0)
			rc = rv_err_set(err, -errno, "%s: %s", path, strerror(errno));
	}
	if (!rc && (rc = write_all(w->fd, h.data, h.len)) < 0)
		rv_err_set(err, rc, "%s: header write failed: %s", path, rv_strerror(rc));
	w->good_off = h.len;
	rv_wbuf_fini(&h);
	if (rc) {
		writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int rv_rvl_writer_append(struct rv_rvl_writer *w, int64_t t_ns,
			 const double *v, const uint8_t *valid,
			 struct rv_err *err)
{
	size_t row = w->count * w->nchan;

	w->ts[w->count] = t_ns;
	memcpy(w->bits + row, v, w->nchan * sizeof(*v));
	if (valid)
		memcpy(w->valid + row, valid, w->nchan);
	else
		memset(w->valid + row, 1, w->nchan);
	if (++w->count < w->bs)
		return 0;
	return write_block(w, err);
}

int rv_rvl_writer_flush(struct rv_rvl_writer *w, int sync, struct rv_err *err)
{
	int rc = w->count ? write_block(w, err) : 0;

	if (!rc && sync && fsync(w->fd) < 0)
		rc = rv_err_set(err, -errno, "%s: fsync: %s", w->path, strerror(errno));
	return rc;
}

int rv_rvl_writer_close(struct rv_rvl_writer *w, int sync, struct rv_err *err)
{
	int rc;

	if (!w)
		return 0;
	rc = rv_rvl_writer_flush(w, sync, err);
	if (close(w->fd) < 0 && !rc)
		rc = rv_err_set(err, -errno, "%s: close: %s", w->path, strerror(errno));
	w->fd = -1;
	writer_free(w);
	return rc;
}

size_t rv_rvl_writer_block_samples(const struct rv_rvl_writer *w)
{
	return w->bs;
}

/* ---------------------------------------------------------------- reader */

struct rv_rvl_reader {
	const uint8_t *mem;     /* memory reader, or NULL */
	int fd;                 /* file reader, or -1 */
	char *path;             /* "<memory>" for a memory reader */
	uint64_t size;          /* bytes readable */
	uint8_t *io;            /* file reader: bytes of the last fetch */
	size_t io_cap;
	size_t nchan, bs;
	struct rv_rvl_chan *ch;
	char *strs;             /* names and units, NUL-terminated */
	uint64_t off;           /* next block */
	size_t n, j, cap;       /* samples in the block, next one, capacity */
	int64_t *ts;            /* [cap] */
	uint64_t *bits;         /* [nchan][n] column-major */
	uint8_t *valid;         /* [nchan][n] */
	int done;
	uint64_t stop_off;
	char stop_msg[STOP_MSG_MAX];
};

/* Points *p at len bytes at off (off + len <= r->size, checked by callers). */
static int fetch(struct rv_rvl_reader *r, uint64_t off, size_t len,
		 const uint8_t **p, struct rv_err *err)
{
	size_t got = 0;

	if (r->mem) {
		*p = r->mem + off;
		return 0;
	}
	if (len > r->io_cap) {
		uint8_t *io = realloc(r->io, len);

		if (!io)
			return rv_err_set(err, -ENOMEM, "%s: out of memory", r->path);
		r->io = io;
		r->io_cap = len;
	}
	while (got < len) {
		ssize_t k = pread(r->fd, r->io + got, len - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return rv_err_set(err, k < 0 ? -errno : -EIO, "%s: offset %llu: read failed%s",
					  r->path, (unsigned long long)(off + got),
					  k < 0 ? "" : " (file shrank)");
		got += (size_t)k;
	}
	*p = r->io;
	return 0;
}

/* Parses the fields of the header (len bytes at p, file offset HDR_FIXED). */
static int parse_fields(struct rv_rvl_reader *r, const uint8_t *p, size_t len,
			struct rv_err *err)
{
	struct rv_rbuf b;
	uint8_t kind;
	char *s;

	rv_rbuf_init(&b, p, len);
	r->bs = rv_rbuf_u32(&b);
	r->nchan = rv_rbuf_u32(&b);
	if (b.bad || !r->bs || r->bs > RV_RVL_BLOCK_MAX || !r->nchan ||
	    r->nchan > RV_RVL_CHAN_MAX || !rv_rbuf_has(&b, r->nchan, CHAN_MIN_BYTES) ||
	    (uint64_t)r->bs * r->nchan > RV_RVL_BLOCK_VALUES_MAX)
		return rv_err_set(err, -EINVAL, "%s: offset %d: bad header: %zu channels, %zu samples per block",
				  r->path, HDR_FIXED, r->nchan, r->bs);
	r->ch = calloc(r->nchan, sizeof(*r->ch));
	s = r->strs = malloc(len + 2 * r->nchan);
	if (!r->ch || !r->strs)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", r->path);
	for (size_t i = 0; i < r->nchan; i++) {
		for (int k = 0; k < 2; k++) {
			size_t sl = rv_rbuf_u32(&b);

			if (b.bad || sl > RV_RVL_NAME_MAX || (!k && !sl) || !rv_rbuf_has(&b, sl, 1))
				return rv_err_set(err, -EINVAL, "%s: offset %zu: bad header: channel %zu: bad %s length",
						  r->path, HDR_FIXED + b.pos, i, k ? "unit" : "name");
			rv_rbuf_bytes(&b, s, sl);
			s[sl] = '\0';
			*(k ? &r->ch[i].unit : &r->ch[i].name) = s;
			s += sl + 1;
		}
		rv_rbuf_bytes(&b, &kind, 1);
		r->ch[i].kind = kind;
		r->ch[i].scale = rv_rbuf_f64(&b);
		if (b.bad || r->ch[i].kind > KIND_MAX)
			return rv_err_set(err, -EINVAL, "%s: offset %zu: bad header: channel %zu: bad kind",
					  r->path, HDR_FIXED + b.pos, i);
	}
	if (b.pos != b.len)
		return rv_err_set(err, -EINVAL, "%s: offset %zu: bad header: %zu bytes after the channels",
				  r->path, HDR_FIXED + b.pos, b.len - b.pos);
	return 0;
}

static int read_header(struct rv_rvl_reader *r, struct rv_err *err)
{
	const uint8_t *p;
	uint32_t ver, len;
	int rc;

	if (r->size < HDR_FIXED + CRC_BYTES)
		return rv_err_set(err, -EINVAL, "%s: offset 0: file too short for a header (%llu bytes)",
				  r->path, (unsigned long long)r->size);
	if ((rc = fetch(r, 0, HDR_FIXED, &p, err)) < 0)
		return rc;
	if (memcmp(p, file_magic, sizeof(file_magic)))
		return rv_err_set(err, -EINVAL, "%s: offset 0: not a reveal recording (bad magic)", r->path);
	ver = rv_rvl_le32_get(p + 8);
	len = rv_rvl_le32_get(p + 12);
	if (ver != RV_RVL_VERSION)
		return rv_err_set(err, -EINVAL, "%s: offset 8: unsupported format version %u", r->path, ver);
	if (len > RV_RVL_HEADER_MAX || HDR_FIXED + (uint64_t)len + CRC_BYTES > r->size)
		return rv_err_set(err, -EINVAL, "%s: offset 12: header length %u beyond the file or the limit",
				  r->path, len);
	if ((rc = fetch(r, 0, HDR_FIXED + (size_t)len + CRC_BYTES, &p, err)) < 0)
		return rc;
	if (rv_crc32c(0, p, HDR_FIXED + (size_t)len) != rv_rvl_le32_get(p + HDR_FIXED + len))
		return rv_err_set(err, -EINVAL, "%s: offset %u: header CRC mismatch", r->path,
				  HDR_FIXED + len);
	r->off = HDR_FIXED + (uint64_t)len + CRC_BYTES;
	return parse_fields(r, p + HDR_FIXED, len, err);
}

static int reader_start(struct rv_rvl_reader *r, const char *path,
			struct rv_rvl_reader **out, struct rv_err *err)
{
	int rc = 0;

	r->path = strdup(path);
	if (!r->path)
		rc = rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	if (!rc)
		rc = read_header(r, err);
	if (rc) {
		rv_rvl_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

int rv_rvl_reader_open_mem(const void *data, size_t len,
			   struct rv_rvl_reader **out, struct rv_err *err)
{
	struct rv_rvl_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return rv_err_set(err, -ENOMEM, "<memory>: out of memory");
	r->fd = -1;
	r->mem = data ? data : (const uint8_t *)"";
	r->size = data ? len : 0;
	return reader_start(r, "<memory>", out, err);
}

int rv_rvl_reader_open(const char *path, struct rv_rvl_reader **out,
		       struct rv_err *err)
{
	struct rv_rvl_reader *r;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*out = NULL;
	if (fd < 0)
		return rv_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		int rc = -errno;

		close(fd);
		return rv_err_set(err, rc, "%s: %s", path, strerror(-rc));
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		close(fd);
		return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	r->fd = fd;
	r->size = (uint64_t)st.st_size;
	return reader_start(r, path, out, err);
}

void rv_rvl_reader_close(struct rv_rvl_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r->io);
	free(r->ch);
	free(r->strs);
	free(r->ts);
	free(r->bits);
	free(r->valid);
	free(r);
}

size_t rv_rvl_reader_nchan(const struct rv_rvl_reader *r)
{
	return r->nchan;
}

const struct rv_rvl_chan *rv_rvl_reader_chan(const struct rv_rvl_reader *r,
					     size_t i)
{
	return i < r->nchan ? &r->ch[i] : NULL;
}

const char *rv_rvl_reader_stopped(const struct rv_rvl_reader *r,
				  uint64_t *offset)
{
	if (!r->stop_msg[0])
		return NULL;
	if (offset)
		*offset = r->stop_off;
	return r->stop_msg;
}

/* Ends reading at the block at off; returns 0 (the stop is not an error). */
static int stop_at(struct rv_rvl_reader *r, uint64_t off, const char *why)
{
	r->done = 1;
	r->n = r->j = 0;
	r->stop_off = off;
	snprintf(r->stop_msg, sizeof(r->stop_msg), "offset %llu: %s",
		 (unsigned long long)off, why);
	return 0;
}

static void dec_channel(struct rv_rvl_reader *r, struct rv_rvl_bitr *b, size_t c)
{
	uint8_t *vd = r->valid + c * r->n;
	uint64_t *out = r->bits + c * r->n, first = 0;
	struct rv_rvl_mode md = { 0 };
	struct rv_rvl_xor xs = { 0 };
	struct rv_rvl_dec is = { 0 };
	size_t nv = 0, all = rv_rvl_bits_get(b, 1), cst, k = 0;

	for (size_t j = 0; j < r->n; j++) {
		vd[j] = (uint8_t)(all ? 1 : rv_rvl_bits_get(b, 1));
		nv += vd[j];
		out[j] = rv_rvl_u64(NAN);
	}
	if (!nv || b->bad)
		return;
	cst = rv_rvl_bits_get(b, 1);
	md.dec = (int)rv_rvl_bits_get(b, 1);
	if (md.dec) {
		md.e = (unsigned)rv_rvl_bits_get(b, 4);
		is.order2 = md.order2 = (int)rv_rvl_bits_get(b, 1);
	}
	for (size_t j = 0; j < r->n && !b->bad; j++) {
		if (!vd[j])
			continue;
		if (!cst || !k)
			first = rv_rvl_value_get(b, &md, &xs, &is);
		out[j] = first;
		k++;
	}
}

static int grow_block(struct rv_rvl_reader *r, size_t n)
{
	int64_t *ts;
	uint64_t *bits;
	uint8_t *valid;

	if (n <= r->cap)
		return 0;
	ts = realloc(r->ts, n * sizeof(*ts));
	if (ts)
		r->ts = ts;
	bits = realloc(r->bits, n * r->nchan * sizeof(*bits));
	if (bits)
		r->bits = bits;
	valid = realloc(r->valid, n * r->nchan);
	if (valid)
		r->valid = valid;
	if (!ts || !bits || !valid)
		return -ENOMEM;
	r->cap = n;
	return 0;
}

/* Decodes a payload of n samples; -1 when it does not decode exactly. */
static int dec_block(struct rv_rvl_reader *r, const uint8_t *p, size_t len,
		     size_t n)
{
	struct rv_rvl_bitr b = { p, 0, (uint64_t)len * 8, 0 };
	struct rv_rvl_dec ts = { .order2 = 1 };
	unsigned pad;

	r->n = n;
	r->ts[0] = (int64_t)rv_rvl_dec_value(&ts, rv_rvl_bits_get(&b, 64));
	for (size_t j = 1; j < n && !b.bad; j++) {
		uint64_t res = 0;

		if (rv_rvl_int_get(&b, &res))
			b.bad = 1;
		r->ts[j] = (int64_t)rv_rvl_dec_value(&ts, res);
	}
	for (size_t c = 0; c < r->nchan && !b.bad; c++)
		dec_channel(r, &b, c);
	pad = (unsigned)(b.end - b.pos);
	if (b.bad || pad >= 8 || (pad && (p[len - 1] & ((1u << pad) - 1))))
		return -1;
	return 0;
}

static int load_block(struct rv_rvl_reader *r, struct rv_err *err)
{
	uint64_t off = r->off, left = r->size - off;
	const uint8_t *p;
	uint32_t len, n;
	int rc;

	if (!left) {
		r->done = 1;
		return 0;
	}
	if (left < BLK_HDR)
		return stop_at(r, off, "truncated block header (crash while recording?)");
	if ((rc = fetch(r, off, BLK_HDR, &p, err)) < 0)
		return rc;
	if (memcmp(p, blk_magic, sizeof(blk_magic)))
		return stop_at(r, off, "bad block magic");
	len = rv_rvl_le32_get(p + 4);
	n = rv_rvl_le32_get(p + 8);
	if (!len || len > RV_RVL_PAYLOAD_MAX || !n || n > r->bs)
		return stop_at(r, off, "bad block length or sample count");
	if (len > left - BLK_HDR)
		return stop_at(r, off, "truncated block (crash while recording?)");
	if ((rc = fetch(r, off, BLK_HDR + (size_t)len, &p, err)) < 0)
		return rc;
	if (rv_crc32c(rv_crc32c(0, p + 4, 8), p + BLK_HDR, len) != rv_rvl_le32_get(p + 12))
		return stop_at(r, off, "block CRC mismatch");
	if (grow_block(r, n) < 0)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", r->path);
	if (dec_block(r, p + BLK_HDR, len, n) < 0)
		return stop_at(r, off, "block payload does not decode");
	r->off = off + BLK_HDR + len;
	r->j = 0;
	return 0;
}

int rv_rvl_reader_next(struct rv_rvl_reader *r, int64_t *t_ns, double *v,
		       uint8_t *valid, struct rv_err *err)
{
	int rc;

	if (r->j >= r->n) {
		r->n = r->j = 0;
		if (r->done)
			return 0;
		if ((rc = load_block(r, err)) < 0)
			return rc;
		if (r->done)
			return 0;
	}
	*t_ns = r->ts[r->j];
	for (size_t c = 0; c < r->nchan; c++) {
		valid[c] = r->valid[c * r->n + r->j];
		v[c] = rv_rvl_f64(r->bits[c * r->n + r->j]);
	}
	r->j++;
	return 1;
}
