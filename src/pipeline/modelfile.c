/*
 * modelfile.c - the model file (rv_model_save / rv_model_load).
 *
 * Layout, little-endian:
 *   8 bytes  magic "RVLMODEL"
 *   u32      format version (RV_MODEL_FORMAT_VERSION)
 *   u64      payload length
 *   payload  channels and feature masks, windowing, training windows,
 *            channel means (version 2), novelty section (version 3),
 *            channel floors (version 4), level section (version 5),
 *            detector ensemble
 *   u32      CRC-32C of the payload
 * The novelty section (pipeline/novelty.h): u64 n, then per watched
 * channel u32 channel index (ascending), f64 T_c, f64 M_c. The channel
 * floors (flat_below): u32 flag, then nchan f64 when it is 1. The level
 * section (pipeline/level.h): u64 n, then per watched channel u32 channel
 * index (ascending), f64 lo, f64 hi, f64 margin.
 * Saving goes through base/atomicfile (a temporary file beside the target
 * renamed over it), so a crash never leaves half a model under the real name.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomicfile.h"
#include "base/bytes.h"
#include "base/crc32c.h"
#include "features/features.h"
#include "pipeline/model.h"

static const char model_magic[8] = { 'R', 'V', 'L', 'M', 'O', 'D', 'E', 'L' };
enum { HEADER_LEN = 8 + 4 + 8, TRAILER_LEN = 4, NAME_MAX_LEN = 4096 };
/* A model larger than this is refused on load (700 channels x 11 features
 * with a full PCA basis is well under it). */
#define MODEL_MAX_BYTES ((size_t)4 << 30)

static void save_payload(const struct rv_model *m, struct rv_wbuf *b)
{
	rv_wbuf_u64(b, m->nchan);
	for (size_t c = 0; c < m->nchan; c++) {
		rv_wbuf_str(b, m->names[c]);
		rv_wbuf_u32(b, m->masks[c]);
	}
	rv_wbuf_u64(b, m->window);
	rv_wbuf_u64(b, m->step);
	rv_wbuf_f64(b, m->interval_s);
	rv_wbuf_u64(b, m->nraw_pts);
	for (size_t p = 0; p < m->nraw_pts; p++)
		rv_wbuf_u64(b, m->raw_pos[p]);
	rv_wbuf_u64(b, m->train_windows);
	rv_wbuf_u32(b, m->chan_mean != NULL);
	for (size_t c = 0; m->chan_mean && c < m->nchan; c++)
		rv_wbuf_f64(b, m->chan_mean[c]);
	rv_wbuf_u64(b, m->nov.n);
	for (size_t i = 0; i < m->nov.n; i++) {
		rv_wbuf_u32(b, m->nov.chan[i]);
		rv_wbuf_f64(b, m->nov.thr[i]);
		rv_wbuf_f64(b, m->nov.margin[i]);
	}
	rv_wbuf_u32(b, m->flat_below != NULL);
	for (size_t c = 0; m->flat_below && c < m->nchan; c++)
		rv_wbuf_f64(b, m->flat_below[c]);
	rv_wbuf_u64(b, m->lvl.n);
	for (size_t i = 0; i < m->lvl.n; i++) {
		rv_wbuf_u32(b, m->lvl.chan[i]);
		rv_wbuf_f64(b, m->lvl.lo[i]);
		rv_wbuf_f64(b, m->lvl.hi[i]);
		rv_wbuf_f64(b, m->lvl.margin[i]);
	}
	rv_ens_save(m->ens, b);
}

static int write_all(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

int rv_model_save(const struct rv_model *m, const char *path, struct rv_err *err)
{
	struct rv_wbuf payload, head;
	struct rv_atomicfile af;
	int rc = 0;

	rv_wbuf_init(&payload);
	rv_wbuf_init(&head);
	save_payload(m, &payload);
	rv_wbuf_bytes(&head, model_magic, sizeof(model_magic));
	rv_wbuf_u32(&head, RV_MODEL_FORMAT_VERSION);
	rv_wbuf_u64(&head, payload.len);
	rv_wbuf_u32(&payload, rv_crc32c(0, payload.data, payload.len));
	if (payload.oom || head.oom)
		rc = -ENOMEM;
	else if ((rc = rv_atomicfile_open(&af, path, "wb", err)) == 0) {
		rc = write_all(af.f, head.data, head.len);
		if (!rc)
			rc = write_all(af.f, payload.data, payload.len);
		if (rc)
			rv_err_set(err, rc, "%s: write failed", path);
		rc = rv_atomicfile_close(&af, rc, err);
	}
	rv_wbuf_fini(&payload);
	rv_wbuf_fini(&head);
	return rc;
}

static int load_channels(struct rv_model *m, struct rv_rbuf *b)
{
	m->nchan = rv_rbuf_u64(b);
	if (b->bad || m->nchan == 0 || !rv_rbuf_has(b, m->nchan, 8))
		return -EINVAL;
	m->names = calloc(m->nchan, sizeof(*m->names));
	m->masks = calloc(m->nchan, sizeof(*m->masks));
	if (!m->names || !m->masks)
		return -ENOMEM;
	unsigned any = 0;

	for (size_t c = 0; c < m->nchan; c++) {
		m->names[c] = rv_rbuf_str(b, NAME_MAX_LEN);
		m->masks[c] = rv_rbuf_u32(b);
		/* 0: a channel kept for the record, not scored (copy_channels) */
		if (b->bad || m->masks[c] >= (1u << RV_F_COUNT))
			return -EINVAL;
		any |= m->masks[c];
	}
	return any ? 0 : -EINVAL;
}

/* A flag, then nchan doubles into *out when it is 1 (the channel means of
 * version 2, the channel floors of version 4); finite ones when finite. */
static int load_per_channel(const struct rv_model *m, struct rv_rbuf *b, double **out,
			    int finite)
{
	uint32_t has = rv_rbuf_u32(b);

	if (b->bad || has > 1)
		return -EINVAL;
	if (!has)
		return 0;
	if (!rv_rbuf_has(b, m->nchan, 8))
		return -EINVAL;
	if (!(*out = malloc(m->nchan * sizeof(**out))))
		return -ENOMEM;
	for (size_t c = 0; c < m->nchan; c++)
		if (!isfinite((*out)[c] = rv_rbuf_f64(b)) && finite)
			return -EINVAL;
	return b->bad ? -EINVAL : 0;
}

/* One watched channel of the novelty section: an index past the previous
 * one, a finite count T >= 0 and a finite margin M > 0. */
static int load_novel_chan(struct rv_model *m, struct rv_rbuf *b, size_t i, struct rv_err *err)
{
	struct rv_novelty *nv = &m->nov;
	uint32_t c = rv_rbuf_u32(b);
	double thr = rv_rbuf_f64(b), margin = rv_rbuf_f64(b);

	if (b->bad)
		return rv_err_set(err, -EINVAL, "truncated novelty section");
	if (c >= m->nchan || (i > 0 && c <= nv->chan[i - 1]))
		return rv_err_set(err, -EINVAL,
				  "novelty entry %zu: channel index %u out of order or past %zu "
				  "channels", i, c, m->nchan);
	if (!isfinite(thr) || thr < 0.0 || !isfinite(margin) || margin <= 0.0)
		return rv_err_set(err, -EINVAL,
				  "novelty entry %zu (channel %s): invalid threshold %g or margin %g",
				  i, m->names[c], thr, margin);
	nv->chan[i] = c;
	nv->thr[i] = thr;
	nv->margin[i] = margin;
	nv->n = i + 1;
	return 0;
}

/* Version 3: the novelty section (novelty.h). */
static int load_novelty(struct rv_model *m, struct rv_rbuf *b, struct rv_err *err)
{
	struct rv_novelty *nv = &m->nov;
	uint64_t n = rv_rbuf_u64(b);
	int rc = 0;

	if (b->bad || n > m->nchan || !rv_rbuf_has(b, n, 4 + 8 + 8))
		return rv_err_set(err, -EINVAL, "invalid novelty section (%llu channels of %zu)",
				  (unsigned long long)n, m->nchan);
	if (!n)
		return 0;
	nv->chan = malloc(n * sizeof(*nv->chan));
	nv->thr = malloc(n * sizeof(*nv->thr));
	nv->margin = malloc(n * sizeof(*nv->margin));
	if (!nv->chan || !nv->thr || !nv->margin)
		return -ENOMEM;
	for (size_t i = 0; i < n && !rc; i++)
		rc = load_novel_chan(m, b, i, err);
	return rc;
}

/* One watched channel of the level section: an index past the previous
 * one, a finite range lo <= hi and a finite margin > 0. */
static int load_level_chan(struct rv_model *m, struct rv_rbuf *b, size_t i, struct rv_err *err)
{
	struct rv_level *lv = &m->lvl;
	uint32_t c = rv_rbuf_u32(b);
	double lo = rv_rbuf_f64(b), hi = rv_rbuf_f64(b), margin = rv_rbuf_f64(b);

	if (b->bad)
		return rv_err_set(err, -EINVAL, "truncated level section");
	if (c >= m->nchan || (i > 0 && c <= lv->chan[i - 1]))
		return rv_err_set(err, -EINVAL,
				  "level entry %zu: channel index %u out of order or past %zu "
				  "channels", i, c, m->nchan);
	if (!isfinite(lo) || !isfinite(hi) || lo > hi || !isfinite(margin) || margin <= 0.0)
		return rv_err_set(err, -EINVAL,
				  "level entry %zu (channel %s): invalid range %g..%g or margin %g",
				  i, m->names[c], lo, hi, margin);
	lv->chan[i] = c;
	lv->lo[i] = lo;
	lv->hi[i] = hi;
	lv->margin[i] = margin;
	lv->n = i + 1;
	return 0;
}

/* Version 5: the level section (level.h). */
static int load_level(struct rv_model *m, struct rv_rbuf *b, struct rv_err *err)
{
	struct rv_level *lv = &m->lvl;
	uint64_t n = rv_rbuf_u64(b);
	int rc = 0;

	if (b->bad || n > m->nchan || !rv_rbuf_has(b, n, 4 + 8 + 8 + 8))
		return rv_err_set(err, -EINVAL, "invalid level section (%llu channels of %zu)",
				  (unsigned long long)n, m->nchan);
	if (!n)
		return 0;
	lv->chan = malloc(n * sizeof(*lv->chan));
	lv->lo = malloc(n * sizeof(*lv->lo));
	lv->hi = malloc(n * sizeof(*lv->hi));
	lv->margin = malloc(n * sizeof(*lv->margin));
	if (!lv->chan || !lv->lo || !lv->hi || !lv->margin)
		return -ENOMEM;
	for (size_t i = 0; i < n && !rc; i++)
		rc = load_level_chan(m, b, i, err);
	return rc;
}

static int load_payload(struct rv_model *m, struct rv_rbuf *b, uint32_t version,
			struct rv_err *err)
{
	int rc = load_channels(m, b);

	if (rc)
		return rv_err_set(err, rc, "invalid channel table");
	m->window = rv_rbuf_u64(b);
	m->step = rv_rbuf_u64(b);
	m->interval_s = rv_rbuf_f64(b);
	m->nraw_pts = rv_rbuf_u64(b);
	if (b->bad || m->window < 2 || m->step < 1 || m->nraw_pts > RV_SPE_MAX_POINTS)
		return rv_err_set(err, -EINVAL, "invalid windowing");
	for (size_t p = 0; p < m->nraw_pts; p++)
		if ((m->raw_pos[p] = rv_rbuf_u64(b)) >= m->window)
			return rv_err_set(err, -EINVAL, "invalid window positions");
	m->train_windows = rv_rbuf_u64(b);
	if (version >= 2 && (rc = load_per_channel(m, b, &m->chan_mean, 0)) != 0)
		return rv_err_set(err, rc, "invalid channel means");
	if (version >= 3 && (rc = load_novelty(m, b, err)) != 0)
		return rc;
	if (version >= 4 && (rc = load_per_channel(m, b, &m->flat_below, 1)) != 0)
		return rv_err_set(err, rc, "invalid channel floors");
	if (version >= 5 && (rc = load_level(m, b, err)) != 0)
		return rc;
	rc = rv_ens_load(b, &m->ens, err);
	if (rc)
		return rc;
	if (b->pos != b->len)
		return rv_err_set(err, -EINVAL, "%zu unexpected bytes after the model",
				  b->len - b->pos);
	return 0;
}

static int read_file(const char *path, uint8_t **data, size_t *len, struct rv_err *err)
{
	FILE *f = fopen(path, "rb");
	long size;

	*data = NULL;
	if (!f)
		return rv_err_set(err, -errno, "%s: %s", path, rv_strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return rv_err_set(err, -EIO, "%s: cannot determine the size", path);
	}
	if ((size_t)size > MODEL_MAX_BYTES) {
		fclose(f);
		return rv_err_set(err, -EFBIG, "%s: %ld bytes is too large for a model", path, size);
	}
	*data = malloc(size ? (size_t)size : 1);
	if (!*data) {
		fclose(f);
		return -ENOMEM;
	}
	*len = fread(*data, 1, (size_t)size, f);
	fclose(f);
	if (*len != (size_t)size)
		return rv_err_set(err, -EIO, "%s: short read", path);
	return 0;
}

static int check_envelope(const char *path, const uint8_t *data, size_t len, uint64_t *plen,
			  uint32_t *version_out, struct rv_err *err)
{
	struct rv_rbuf b;
	uint32_t version, crc;

	rv_rbuf_init(&b, data, len);
	if (len < HEADER_LEN + TRAILER_LEN || memcmp(data, model_magic, sizeof(model_magic)) != 0)
		return rv_err_set(err, -EINVAL, "%s: not a reveal model file", path);
	b.pos = sizeof(model_magic);
	version = rv_rbuf_u32(&b);
	if (version < 1 || version > RV_MODEL_FORMAT_VERSION)
		return rv_err_set(err, -EINVAL,
				  "%s: model format version %u, this reveal reads versions 1 to %d",
				  path, version, RV_MODEL_FORMAT_VERSION);
	*version_out = version;
	*plen = rv_rbuf_u64(&b);
	if (*plen != len - HEADER_LEN - TRAILER_LEN)
		return rv_err_set(err, -EINVAL, "%s: truncated or padded model (%zu bytes, expected %llu)",
				  path, len, (unsigned long long)(*plen + HEADER_LEN + TRAILER_LEN));
	b.pos = HEADER_LEN + *plen;
	crc = rv_rbuf_u32(&b);
	if (crc != rv_crc32c(0, data + HEADER_LEN, *plen))
		return rv_err_set(err, -EINVAL, "%s: checksum mismatch: the model file is corrupt",
				  path);
	return 0;
}

int rv_model_load(const char *path, struct rv_model **out, struct rv_err *err)
{
	struct rv_model *m;
	struct rv_rbuf b;
	uint8_t *data;
	size_t len = 0;
	uint64_t plen = 0;
	uint32_t version = 0;
	int rc;

	*out = NULL;
	rc = read_file(path, &data, &len, err);
	if (!rc)
		rc = check_envelope(path, data, len, &plen, &version, err);
	if (rc) {
		free(data);
		return rc;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		free(data);
		return -ENOMEM;
	}
	rv_rbuf_init(&b, data + HEADER_LEN, plen);
	rc = load_payload(m, &b, version, err);
	free(data);
	if (rc) {
		struct rv_err inner = err ? *err : (struct rv_err){ 0 };
		if (err) {
			rv_err_clear(err);
			rv_err_set(err, rc, "%s: %s", path, rv_err_text(&inner, rc));
		}
		rv_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}
