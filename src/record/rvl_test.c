/*
 * rvl_test.c - unit tests of the .rvl recording format (record/rvl.h):
 * bit-exact round trips of awkward data, compression on constant and
 * realistic data (bytes per value printed), truncation at every byte of the
 * last block, a flipped byte anywhere in block 2, bad headers, and a writer
 * killed with SIGKILL while recording.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/crc32c.h"
#include "base/rng.h"
#include "record/rvl.h"

enum {
	NCH_MAX = 64,
	STEP_NS = 100000000,    /* 100 ms sampling interval */
	KILL_AFTER_US = 50000,
	KILL_BLOCK = 8,
};

/* A recording held in memory: n samples of nch channels, row-major. */
struct rec {
	size_t nch, n;
	struct rv_rvl_chan ch[NCH_MAX];
	char names[NCH_MAX][32];
	int64_t *t;
	double *v;
	uint8_t *ok;
};

static void rec_init(struct rec *r, size_t nch, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->nch = nch;
	r->n = n;
	for (size_t c = 0; c < nch; c++) {
		snprintf(r->names[c], sizeof(r->names[c]), "ch.c%zu", c);
		r->ch[c] = (struct rv_rvl_chan){ r->names[c], c % 2 ? "count" : "%",
						 c % 2, c % 2 ? 1.0 : 0.01 };
	}
	r->t = calloc(n, sizeof(*r->t));
	r->v = calloc(n * nch, sizeof(*r->v));
	r->ok = calloc(n * nch, 1);
	assert_true(r->t && r->v && r->ok);
	memset(r->ok, 1, n * nch);
}

static void rec_fini(struct rec *r)
{
	free(r->t);
	free(r->v);
	free(r->ok);
}

static void tmp_path(char *path, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, cap, "%s/rvl_test_XXXXXX", dir ? dir : "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
}

/* Writes r to path; returns the file size. */
static size_t rec_write(const struct rec *r, const char *path, size_t bs)
{
	struct rv_rvl_writer *w;
	struct rv_err err;
	struct stat st;

	rv_err_clear(&err);
	assert_int_equal(rv_rvl_writer_open(path, r->ch, r->nch, bs, &w, &err), 0);
	for (size_t i = 0; i < r->n; i++)
		assert_int_equal(rv_rvl_writer_append(w, r->t[i], r->v + i * r->nch,
						      r->ok + i * r->nch, &err), 0);
	assert_int_equal(rv_rvl_writer_close(w, 0, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	return (size_t)st.st_size;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *d;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	d = malloc(*len + 1);
	assert_non_null(d);
	assert_int_equal(fread(d, 1, *len, f), *len);
	fclose(f);
	return d;
}

/* Reads all samples of rd and compares them with the first ones of r
 * bit for bit; returns how many there were. */
static size_t read_check(struct rv_rvl_reader *rd, const struct rec *r)
{
	double v[NCH_MAX];
	uint8_t ok[NCH_MAX];
	int64_t t;
	size_t i = 0;
	int rc;

	assert_int_equal(rv_rvl_reader_nchan(rd), r->nch);
	while ((rc = rv_rvl_reader_next(rd, &t, v, ok, NULL)) == 1) {
		assert_true(i < r->n);
		assert_true(t == r->t[i]);
		for (size_t c = 0; c < r->nch; c++) {
			assert_int_equal(ok[c], r->ok[i * r->nch + c]);
			if (ok[c])
				assert_memory_equal(&v[c], &r->v[i * r->nch + c], sizeof(double));
			else
				assert_true(isnan(v[c]));
		}
		i++;
	}
	assert_int_equal(rc, 0);
	return i;
}

static size_t read_mem(const uint8_t *d, size_t len, const struct rec *r,
		       const char **why, uint64_t *off)
{
	struct rv_rvl_reader *rd;
	struct rv_err err;
	size_t n;

	rv_err_clear(&err);
	assert_int_equal(rv_rvl_reader_open_mem(d, len, &rd, &err), 0);
	n = read_check(rd, r);
	*why = rv_rvl_reader_stopped(rd, off);
	if (*why) {
		static char keep[256];

		snprintf(keep, sizeof(keep), "%s", *why);
		*why = keep;
	}
	rv_rvl_reader_close(rd);
	return n;
}

static double bitsd(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* An awkward gauge value: random bits, NaN payloads, -0, denormals, ... */
static double odd_gauge(struct rv_rng *g, double prev)
{
	switch (rv_rng_below(g, 10)) {
	case 0: return bitsd(rv_rng_u64(g));
	case 1: return bitsd(0x7ff8000000000000ull | rv_rng_below(g, 1ull << 51));
	case 2: return -0.0;
	case 3: return bitsd(rv_rng_below(g, 1ull << 52));   /* denormal */
	case 4: return 0.0;
	case 5: return prev;
	case 6: return -(double)rv_rng_below(g, 1000) / 8;
	case 7: return (rv_rng_uniform(g) - 0.5) * 1e300;
	case 8: return round(rv_rng_uniform(g) * 1e4) / 100;
	default: return prev + 0.1;
	}
}

static double odd_counter(struct rv_rng *g, double prev)
{
	switch (rv_rng_below(g, 8)) {
	case 0: return 0.0;                                  /* reset */
	case 1: return 9223372036854775807.0;                /* 2^63 */
	case 2: return 18446744073709551615.0;               /* 2^64 */
	case 3: return (double)(rv_rng_u64(g) >> 11);
	case 4: return (double)(rv_rng_u64(g) >> 1);
	default: return prev < 1e15 ? prev + (double)rv_rng_below(g, 5000) : 0.0;
	}
}

static void test_round_trip_random(void **state)
{
	struct rv_rvl_reader *rd;
	struct rv_rng g;
	struct rec r;
	char path[256];
	size_t nch = 9, n = 1000, len;
	uint8_t *d;
	const char *why;
	uint64_t off;

	rv_rng_seed(&g, 42);
	rec_init(&r, nch, n);
	for (size_t i = 0; i < n; i++) {
		r.t[i] = i ? r.t[i - 1] + (int64_t)rv_rng_below(&g, 3000000000ull) - 1000000000
			   : 1700000000000000000;
		if (i % 97 == 5)
			r.t[i] = (int64_t)rv_rng_u64(&g);
		for (size_t c = 0; c < nch; c++) {
			double prev = i ? r.v[(i - 1) * nch + c] : 0;

			r.v[i * nch + c] = c % 2 ? odd_counter(&g, prev) : odd_gauge(&g, prev);
			r.ok[i * nch + c] = c == 8 ? 0 : rv_rng_below(&g, 10) != 0;
		}
	}
	tmp_path(path, sizeof(path));
	rec_write(&r, path, 64);            /* 1000 = 15 blocks of 64 + 40 */
	assert_int_equal(rv_rvl_reader_open(path, &rd, NULL), 0);
	assert_string_equal(rv_rvl_reader_chan(rd, 3)->name, "ch.c3");
	assert_string_equal(rv_rvl_reader_chan(rd, 3)->unit, "count");
	assert_int_equal(rv_rvl_reader_chan(rd, 3)->kind, 1);
	assert_true(rv_rvl_reader_chan(rd, 2)->scale == 0.01);
	assert_null(rv_rvl_reader_chan(rd, nch));
	assert_int_equal(read_check(rd, &r), n);
	assert_null(rv_rvl_reader_stopped(rd, NULL));
	rv_rvl_reader_close(rd);
	d = slurp(path, &len);
	assert_int_equal(read_mem(d, len, &r, &why, &off), n);
	assert_null(why);
	free(d);
	/* every block size from 1 up round-trips too */
	for (size_t bs = 1; bs <= 9; bs++) {
		rec_write(&r, path, bs);
		assert_int_equal(rv_rvl_reader_open(path, &rd, NULL), 0);
		assert_int_equal(read_check(rd, &r), n);
		rv_rvl_reader_close(rd);
	}
	unlink(path);
	rec_fini(&r);
}

static double bytes_per_value(const struct rec *r, size_t bs, const char *what)
{
	char path[256];
	size_t size, hdr;
	struct rec empty = *r;
	double bpv;

	tmp_path(path, sizeof(path));
	empty.n = 0;
	hdr = rec_write(&empty, path, bs);
	size = rec_write(r, path, bs);
	unlink(path);
	bpv = (double)(size - hdr) / (double)(r->n * r->nch);
	print_message("rvl: %s: %zu samples x %zu channels: %zu bytes of blocks, %.3f bytes/value\n",
	       what, r->n, r->nch, size - hdr, bpv);
	return bpv;
}

static void test_constant_compresses(void **state)
{
	struct rec r;

	rec_init(&r, 10, 640);
	for (size_t i = 0; i < r.n; i++) {
		r.t[i] = 1700000000000000000 + (int64_t)i * STEP_NS;
		for (size_t c = 0; c < r.nch; c++)
			r.v[i * r.nch + c] = c % 2 ? 123456789.0 : 42.5 + (double)c;
	}
	assert_true(bytes_per_value(&r, 0, "constant") <= 0.2);
	rec_fini(&r);
}

static void test_realistic_compresses(void **state)
{
	struct rv_rng g;
	struct rec r;
	double level[40];

	rv_rng_seed(&g, 7);
	rec_init(&r, 40, 6400);
	for (size_t c = 0; c < r.nch; c++)
		level[c] = 1 + 900 * rv_rng_uniform(&g);
	for (size_t i = 0; i < r.n; i++) {
		r.t[i] = 1700000000000000000 + (int64_t)i * STEP_NS +
			 (int64_t)rv_rng_below(&g, 20000);       /* 20 us jitter */
		for (size_t c = 0; c < r.nch; c++) {
			double *v = &r.v[i * r.nch + c];

			if (c % 2) {        /* counter, ~1000 per sample */
				*v = (i ? v[-(ptrdiff_t)r.nch] : 1e9) + 900 +
				     (double)rv_rng_below(&g, 200);
				continue;
			}
			/* gauge, slow random walk, 3 significant digits */
			level[c] *= 1 + (rv_rng_uniform(&g) - 0.5) * 0.004;
			double p = pow(10, floor(log10(level[c])) - 2);
			*v = round(level[c] / p) * p;
			if (p < 1)
				*v = round(level[c] / p) / round(1 / p);
		}
	}
	assert_true(bytes_per_value(&r, 0, "realistic") <= 2.0);
	rec_fini(&r);
}

static void ramp(struct rec *r)
{
	for (size_t i = 0; i < r->n; i++) {
		r->t[i] = 1700000000000000000 + (int64_t)i * STEP_NS;
		for (size_t c = 0; c < r->nch; c++)
			r->v[i * r->nch + c] = (double)(i * 10 + c) / 4;
	}
}

/* File offsets of the blocks of a recording written with bs samples. */
static size_t block_offsets(const uint8_t *d, size_t len, uint64_t *off, size_t cap)
{
	uint32_t hl = (uint32_t)d[12] | (uint32_t)d[13] << 8 |
		      (uint32_t)d[14] << 16 | (uint32_t)d[15] << 24;
	uint64_t o = 16 + (uint64_t)hl + 4;
	size_t k = 0;

	while (o < len && k < cap) {
		off[k++] = o;
		o += 16 + ((uint32_t)d[o + 4] | (uint32_t)d[o + 5] << 8 |
			   (uint32_t)d[o + 6] << 16 | (uint32_t)d[o + 7] << 24);
	}
	return k;
}

static void test_truncated_last_block(void **state)
{
	struct rec r;
	char path[256];
	size_t len, bs = 16, nb;
	uint64_t off[8], at;
	uint8_t *d;
	const char *why = NULL;

	rec_init(&r, 5, 3 * bs + 5);
	ramp(&r);
	tmp_path(path, sizeof(path));
	rec_write(&r, path, bs);
	d = slurp(path, &len);
	nb = block_offsets(d, len, off, 8);
	assert_int_equal(nb, 4);
	for (size_t cut = off[3]; cut < len; cut++) {
		assert_int_equal(read_mem(d, cut, &r, &why, &at), 3 * bs);
		if (cut == off[3]) {
			assert_null(why);
			continue;
		}
		assert_non_null(why);
		assert_int_equal(at, off[3]);
		assert_non_null(strstr(why, "truncated"));
	}
	print_message("rvl: truncated: %s\n", why);
	free(d);
	unlink(path);
	rec_fini(&r);
}

static void test_flipped_byte_block2(void **state)
{
	struct rec r;
	char path[256];
	size_t len, bs = 16;
	uint64_t off[8], at;
	uint8_t *d;
	const char *why;

	rec_init(&r, 5, 3 * bs);
	ramp(&r);
	tmp_path(path, sizeof(path));
	rec_write(&r, path, bs);
	d = slurp(path, &len);
	assert_int_equal(block_offsets(d, len, off, 8), 3);
	d[off[1] + 20] ^= 0x10;
	assert_int_equal(read_mem(d, len, &r, &why, &at), bs);
	assert_int_equal(at, off[1]);
	assert_non_null(strstr(why, "CRC"));
	print_message("rvl: flipped: %s\n", why);
	d[off[1] + 20] ^= 0x10;
	for (uint64_t i = off[1]; i < off[2]; i++) {
		d[i] ^= 0x41;
		assert_int_equal(read_mem(d, len, &r, &why, &at), bs);
		assert_non_null(why);
		assert_int_equal(at, off[1]);
		d[i] ^= 0x41;
	}
	free(d);
	unlink(path);
	rec_fini(&r);
}

static void set_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void expect_open_fail(const uint8_t *d, size_t len, const char *msg)
{
	struct rv_rvl_reader *rd = (struct rv_rvl_reader *)1;
	struct rv_err err;

	rv_err_clear(&err);
	assert_int_equal(rv_rvl_reader_open_mem(d, len, &rd, &err), -EINVAL);
	assert_null(rd);
	if (!strstr(err.msg, msg))
		fail_msg("expected \"%s\" in \"%s\"", msg, err.msg);
}

static void test_bad_header(void **state)
{
	struct rec r;
	struct rv_rvl_writer *w;
	struct rv_rvl_reader *rd;
	struct rv_err err;
	char path[256];
	size_t len, hl;
	uint8_t *d;

	rec_init(&r, 3, 4);
	ramp(&r);
	tmp_path(path, sizeof(path));
	rec_write(&r, path, 0);
	d = slurp(path, &len);
	hl = 16 + d[12] + ((size_t)d[13] << 8);
	expect_open_fail(d, 10, "offset 0: file too short");
	d[0] ^= 1;
	expect_open_fail(d, len, "offset 0: not a reveal recording (bad magic)");
	d[0] ^= 1;
	d[8] = 2;
	expect_open_fail(d, len, "unsupported format version 2");
	d[8] = 1;
	d[12] ^= 0x80;
	expect_open_fail(d, len, "header length");
	d[12] ^= 0x80;
	d[hl - 3] ^= 1;
	expect_open_fail(d, len, "header CRC mismatch");
	d[hl - 3] ^= 1;
	set_le32(d + 20, 5000000);               /* channel count, CRC redone */
	set_le32(d + hl, rv_crc32c(0, d, hl));
	expect_open_fail(d, len, "bad header: 5000000 channels");
	set_le32(d + 20, 3);
	set_le32(d + 24, 200);                   /* first name length */
	set_le32(d + hl, rv_crc32c(0, d, hl));
	expect_open_fail(d, len, "channel 0: bad name length");
	free(d);
	rv_err_clear(&err);
	assert_int_equal(rv_rvl_reader_open("/nonexistent/x.rvl", &rd, &err), -ENOENT);
	r.ch[1].name = "";
	rv_err_clear(&err);
	assert_int_equal(rv_rvl_writer_open(path, r.ch, 3, 0, &w, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "channel 1"));
	unlink(path);
	rec_fini(&r);
}

/* Child of the SIGKILL test: records sample i = value i forever. */
static void kill_child(const char *path)
{
	struct rv_rvl_chan ch[2] = { { "a.x", "", 0, 1 }, { "a.y", "", 1, 1 } };
	struct rv_rvl_writer *w;

	if (rv_rvl_writer_open(path, ch, 2, KILL_BLOCK, &w, NULL) < 0)
		_exit(1);
	for (int64_t i = 0;; i++) {
		double v[2] = { (double)i / 8, (double)i };

		if (rv_rvl_writer_append(w, i * STEP_NS, v, NULL, NULL) < 0)
			_exit(1);
	}
}

static void test_sigkill_while_recording(void **state)
{
	struct rv_rvl_reader *rd;
	char path[256];
	double v[2];
	uint8_t ok[2];
	int64_t t, n = 0;
	int status;
	const char *why;
	pid_t pid;

	tmp_path(path, sizeof(path));
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		kill_child(path);
	usleep(KILL_AFTER_US);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(rv_rvl_reader_open(path, &rd, NULL), 0);
	while (rv_rvl_reader_next(rd, &t, v, ok, NULL) == 1) {
		assert_true(t == n * STEP_NS);
		assert_true(v[0] == (double)n / 8 && v[1] == (double)n);
		n++;
	}
	why = rv_rvl_reader_stopped(rd, NULL);
	print_message("rvl: SIGKILL: %lld samples read, %s\n", (long long)n,
	       why ? why : "clean end");
	assert_true(n > 0 && n % KILL_BLOCK == 0);
	assert_true(!why || strstr(why, "truncated"));
	rv_rvl_reader_close(rd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_constant_compresses),
		cmocka_unit_test(test_realistic_compresses),
		cmocka_unit_test(test_truncated_last_block),
		cmocka_unit_test(test_flipped_byte_block2),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_sigkill_while_recording),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
