/*
 * base_test.c - unit tests of the base helpers: rng against a Python model
 * of xoshiro256** (tests/fixtures/base/gen_rng.py), bytes round trips and
 * bounds, crc32c check values (RFC 3720 B.4), stats quantiles against
 * numpy.percentile (gen_stats.py), err and log, bigmem blocks. strparse:
 * strparse_test.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bigmem.h"
#include "base/bytes.h"
#include "base/clock.h"
#include "base/crc32c.h"
#include "base/err.h"
#include "base/log.h"
#include "base/rng.h"
#include "base/severity.h"
#include "base/stats.h"
#include "base/strparse.h"

enum { FIX_MAX_BYTES = 1 << 16 };

/* ---------------------------------------------------------------- helpers */

/* Reads tests/fixtures/base/<name> into a static buffer; returns its length. */
static size_t read_fixture(const char *name, char *text, size_t cap)
{
	const char *dir = getenv("RV_FIXTURES");
	char path[512];
	FILE *f;
	size_t len;

	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/base/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	len = fread(text, 1, cap, f);
	fclose(f);
	assert_true(len < cap);
	text[len] = '\0';
	return len;
}

/* Advances *p to the start of the next line. */
static void next_line(const char **p, const char *end)
{
	while (*p < end && **p != '\n')
		(*p)++;
	if (*p < end)
		(*p)++;
}

static uint64_t fix_u64(const char **p, const char *end)
{
	uint64_t v = 0;

	rv_str_skip_blank(p, end);
	assert_int_equal(rv_str_u64(p, end, &v), 0);
	return v;
}

static double fix_double(const char **p, const char *end)
{
	double v = 0;

	rv_str_skip_blank(p, end);
	assert_int_equal(rv_str_double(p, end, &v), 0);
	return v;
}

/* 1 when the line at p starts with word followed by a blank (consumed). */
static int fix_word(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) > n && memcmp(*p, word, n) == 0 && (*p)[n] == ' ') {
		*p += n;
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ rng */

static void test_rng_fixture(void **state)
{
	static char text[FIX_MAX_BYTES];
	size_t len = read_fixture("rng.txt", text, sizeof(text));
	size_t nu64 = 0, nuni = 0, nbelow = 0;

	for (const char *p = text, *end = text + len; p < end; next_line(&p, end)) {
		struct rv_rng r;
		if (fix_word(&p, end, "u64")) {
			rv_rng_seed(&r, fix_u64(&p, end));
			for (int i = 0; i < 8; i++)
				assert_true(rv_rng_u64(&r) == fix_u64(&p, end));
			nu64++;
		} else if (fix_word(&p, end, "uni")) {
			rv_rng_seed(&r, fix_u64(&p, end));
			for (int i = 0; i < 4; i++)
				assert_true(rv_rng_uniform(&r) == fix_double(&p, end));
			nuni++;
		} else if (fix_word(&p, end, "below")) {
			uint64_t n;
			rv_rng_seed(&r, fix_u64(&p, end));
			n = fix_u64(&p, end);
			for (int i = 0; i < 8; i++)
				assert_true(rv_rng_below(&r, n) == fix_u64(&p, end));
			nbelow++;
		}
	}
	assert_int_equal(nu64, 5);
	assert_int_equal(nuni, 5);
	assert_int_equal(nbelow, 6);
	(void)state;
}

static void test_rng_properties(void **state)
{
	enum { DRAWS = 60000, BINS = 6 };
	struct rv_rng a, b, c;
	size_t count[BINS] = { 0 };
	double lo = 1.0, hi = 0.0;

	rv_rng_seed(&a, 5);
	b = a; /* plain data: a copy continues the same stream */
	for (int i = 0; i < 100; i++)
		assert_true(rv_rng_u64(&a) == rv_rng_u64(&b));
	rv_rng_seed(&c, 6);
	assert_true(rv_rng_u64(&a) != rv_rng_u64(&c));

	for (int i = 0; i < DRAWS; i++) {
		uint64_t k = rv_rng_below(&a, BINS);
		double u = rv_rng_uniform(&a);
		assert_true(k < BINS);
		assert_true(u >= 0.0 && u < 1.0);
		count[k]++;
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
		assert_true(rv_rng_below(&a, 1) == 0);
		assert_true(rv_rng_below(&a, UINT64_MAX) < UINT64_MAX);
	}
	/* each bin expects 10000; 5 sd is about 456 */
	for (int k = 0; k < BINS; k++)
		assert_true(count[k] > 9500 && count[k] < 10500);
	assert_true(lo < 0.001 && hi > 0.999);
	(void)state;
}

/* ---------------------------------------------------------------- bytes */

static void test_bytes_round_trip(void **state)
{
	static const float f32[] = { 0.0f, -0.0f, 1.5f, -3.25e-20f, 3.4e38f, INFINITY };
	static const double f64[] = { 0.0, -0.0, 1e-310, -2.5, 1.7976931348623157e308, -INFINITY };
	static const uint8_t raw[] = { 0, 1, 0xfe, 0xff, 0x80 };
	struct rv_wbuf w;
	struct rv_rbuf r;
	float f32_back[6];
	double f64_back[6];
	uint8_t raw_back[5];
	double nan_in = -NAN, nan_out;
	char *s;

	rv_wbuf_init(&w);
	rv_wbuf_u32(&w, 0x01020304u);
	rv_wbuf_u64(&w, 0x0102030405060708ull);
	rv_wbuf_u32(&w, UINT32_MAX);
	rv_wbuf_u64(&w, UINT64_MAX);
	rv_wbuf_f64(&w, -1.0 / 3.0);
	rv_wbuf_f64(&w, nan_in);
	rv_wbuf_f32s(&w, f32, 6);
	rv_wbuf_f64s(&w, f64, 6);
	rv_wbuf_bytes(&w, raw, sizeof(raw));
	rv_wbuf_str(&w, "cpu.busy_pct");
	rv_wbuf_str(&w, "");
	assert_false(w.oom);
	assert_int_equal(w.len, 4 + 8 + 4 + 8 + 8 + 8 + 6 * 4 + 6 * 8 + 5 + 4 + 12 + 4);
	/* little-endian on every host */
	assert_memory_equal(w.data, "\x04\x03\x02\x01\x08\x07\x06\x05\x04\x03\x02\x01", 12);

	rv_rbuf_init(&r, w.data, w.len);
	assert_true(rv_rbuf_u32(&r) == 0x01020304u);
	assert_true(rv_rbuf_u64(&r) == 0x0102030405060708ull);
	assert_true(rv_rbuf_u32(&r) == UINT32_MAX);
	assert_true(rv_rbuf_u64(&r) == UINT64_MAX);
	assert_true(rv_rbuf_f64(&r) == -1.0 / 3.0);
	nan_out = rv_rbuf_f64(&r);
	assert_memory_equal(&nan_out, &nan_in, sizeof(double));
	rv_rbuf_f32s(&r, f32_back, 6);
	assert_memory_equal(f32_back, f32, sizeof(f32));
	rv_rbuf_f64s(&r, f64_back, 6);
	assert_memory_equal(f64_back, f64, sizeof(f64));
	rv_rbuf_bytes(&r, raw_back, sizeof(raw_back));
	assert_memory_equal(raw_back, raw, sizeof(raw));
	s = rv_rbuf_str(&r, 64);
	assert_string_equal(s, "cpu.busy_pct");
	free(s);
	s = rv_rbuf_str(&r, 0);
	assert_string_equal(s, "");
	free(s);
	assert_false(r.bad);
	assert_int_equal(r.pos, w.len);
	assert_true(rv_rbuf_has(&r, 0, 8));
	assert_false(rv_rbuf_has(&r, 1, 1));
	rv_wbuf_fini(&w);
	assert_null(w.data);
	assert_int_equal(w.len, 0);
	(void)state;
}

/* Appends beyond the first allocation keep every byte. */
static void test_bytes_growth(void **state)
{
	enum { N = 5000 };
	struct rv_wbuf w;
	struct rv_rbuf r;

	rv_wbuf_init(&w);
	for (uint32_t i = 0; i < N; i++)
		rv_wbuf_u32(&w, i * 2654435761u);
	assert_false(w.oom);
	assert_int_equal(w.len, (size_t)N * 4);
	assert_true(w.cap >= w.len);
	rv_rbuf_init(&r, w.data, w.len);
	for (uint32_t i = 0; i < N; i++)
		assert_true(rv_rbuf_u32(&r) == i * 2654435761u);
	assert_false(r.bad);
	rv_wbuf_fini(&w);
	(void)state;
}

static void test_bytes_past_end(void **state)
{
	static const uint8_t data[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct rv_rbuf r;
	uint8_t out[4] = { 0xaa, 0xaa, 0xaa, 0xaa };
	float f[2] = { 1, 1 };
	double d[2] = { 1, 1 };

	rv_rbuf_init(&r, data, sizeof(data));
	assert_true(rv_rbuf_u64(&r) == 0x0807060504030201ull);
	assert_true(rv_rbuf_u32(&r) == 0); /* 2 bytes left: a 4-byte read fails */
	assert_true(r.bad);
	assert_int_equal(r.pos, 8);
	/* sticky: even a read that would fit now yields zeros */
	rv_rbuf_bytes(&r, out, 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 0xaa);
	assert_true(rv_rbuf_u64(&r) == 0);
	assert_true(rv_rbuf_f64(&r) == 0.0);
	rv_rbuf_f32s(&r, f, 2);
	rv_rbuf_f64s(&r, d, 2);
	assert_true(f[0] == 0.0f && f[1] == 0.0f && d[0] == 0.0 && d[1] == 0.0);
	assert_null(rv_rbuf_str(&r, 100));
	assert_false(rv_rbuf_has(&r, 0, 1));
	assert_int_equal(r.pos, 8);

	rv_rbuf_init(&r, data, 3);
	assert_true(rv_rbuf_f64(&r) == 0.0);
	assert_true(r.bad);
	rv_rbuf_init(&r, NULL, 0);
	assert_true(rv_rbuf_u32(&r) == 0);
	assert_true(r.bad);
	(void)state;
}

static void test_bytes_str_limits(void **state)
{
	struct rv_wbuf w;
	struct rv_rbuf r;
	char *s;

	rv_wbuf_init(&w);
	rv_wbuf_str(&w, "hello");
	rv_rbuf_init(&r, w.data, w.len);
	assert_null(rv_rbuf_str(&r, 4));
	assert_true(r.bad);
	rv_rbuf_init(&r, w.data, w.len);
	s = rv_rbuf_str(&r, 5);
	assert_string_equal(s, "hello");
	free(s);
	/* the length prefix claims more bytes than remain */
	rv_rbuf_init(&r, w.data, w.len - 1);
	assert_null(rv_rbuf_str(&r, 100));
	assert_true(r.bad);
	rv_wbuf_fini(&w);

	/* a huge claimed length with a huge max is still bounded by the data */
	rv_wbuf_init(&w);
	rv_wbuf_u32(&w, UINT32_MAX);
	rv_wbuf_bytes(&w, "abc", 3);
	rv_rbuf_init(&r, w.data, w.len);
	assert_null(rv_rbuf_str(&r, SIZE_MAX));
	assert_true(r.bad);
	rv_wbuf_fini(&w);
	(void)state;
}

static void test_bytes_has(void **state)
{
	static const uint8_t data[16];
	struct rv_rbuf r;

	rv_rbuf_init(&r, data, sizeof(data));
	r.pos = 6; /* 10 bytes left */
	assert_true(rv_rbuf_has(&r, 2, 5));
	assert_true(rv_rbuf_has(&r, 10, 1));
	assert_false(rv_rbuf_has(&r, 11, 1));
	assert_false(rv_rbuf_has(&r, 3, 4));
	assert_true(rv_rbuf_has(&r, 0, 8));
	assert_true(rv_rbuf_has(&r, 1000, 0));
	/* no overflow in n * size */
	assert_false(rv_rbuf_has(&r, SIZE_MAX / 2 + 2, 2));
	assert_false(rv_rbuf_has(&r, SIZE_MAX, SIZE_MAX));
	r.bad = 1;
	assert_false(rv_rbuf_has(&r, 1, 1));
	(void)state;
}

/* --------------------------------------------------------------- crc32c */

static void test_crc32c(void **state)
{
	uint8_t zeros[32], ones[32], inc[32], dec[32], big[1000];
	const char *check = "123456789";
	struct rv_rng r;
	uint32_t whole;

	for (int i = 0; i < 32; i++) {
		zeros[i] = 0;
		ones[i] = 0xff;
		inc[i] = (uint8_t)i;
		dec[i] = (uint8_t)(31 - i);
	}
	assert_true(rv_crc32c(0, check, 9) == 0xe3069283u);
	/* RFC 3720 appendix B.4 */
	assert_true(rv_crc32c(0, zeros, 32) == 0x8a9136aau);
	assert_true(rv_crc32c(0, ones, 32) == 0x62a8ab43u);
	assert_true(rv_crc32c(0, inc, 32) == 0x46dd794eu);
	assert_true(rv_crc32c(0, dec, 32) == 0x113fdb5cu);
	assert_true(rv_crc32c(0, check, 0) == 0);
	assert_true(rv_crc32c(0xe3069283u, check, 0) == 0xe3069283u);

	for (size_t cut = 0; cut <= 9; cut++)
		assert_true(rv_crc32c(rv_crc32c(0, check, cut), check + cut, 9 - cut) ==
			    0xe3069283u);
	rv_rng_seed(&r, 11);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)rv_rng_u64(&r);
	whole = rv_crc32c(0, big, sizeof(big));
	for (size_t a = 0; a <= sizeof(big); a += 37) {
		for (size_t b = a; b <= sizeof(big); b += 101) {
			uint32_t c = rv_crc32c(0, big, a);
			c = rv_crc32c(c, big + a, b - a);
			c = rv_crc32c(c, big + b, sizeof(big) - b);
			assert_true(c == whole);
		}
	}
	big[500] ^= 1;
	assert_true(rv_crc32c(0, big, sizeof(big)) != whole);
	(void)state;
}

/* ---------------------------------------------------------------- stats */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void test_quantile_fixture(void **state)
{
	static char text[FIX_MAX_BYTES];
	size_t len = read_fixture("quantiles.txt", text, sizeof(text));
	size_t cases = 0;

	for (const char *p = text, *end = text + len; p < end; next_line(&p, end)) {
		size_t n;
		double *v, *work, *sorted;
		if (*p == '#' || *p == '\n')
			continue;
		n = (size_t)fix_u64(&p, end);
		v = malloc(n * sizeof(*v));
		work = malloc(n * sizeof(*work));
		sorted = malloc(n * sizeof(*sorted));
		assert_non_null(v);
		assert_non_null(work);
		assert_non_null(sorted);
		for (size_t i = 0; i < n; i++)
			v[i] = fix_double(&p, end);
		for (int k = 0; k < 5; k++) {
			double q = fix_double(&p, end), want = fix_double(&p, end), got;
			double tol = 1e-12 * (fabs(want) + 1.0);
			memcpy(work, v, n * sizeof(*v));
			got = rv_quantile_inplace(work, n, q);
			if (fabs(got - want) > tol)
				fail_msg("n %zu q %g: got %.17g want %.17g", n, q, got, want);
			/* The contract: v is reordered, not changed. */
			qsort(work, n, sizeof(*work), cmp_dbl);
			memcpy(sorted, v, n * sizeof(*v));
			qsort(sorted, n, sizeof(*sorted), cmp_dbl);
			assert_memory_equal(work, sorted, n * sizeof(*v));
		}
		free(v);
		free(work);
		free(sorted);
		cases++;
	}
	assert_int_equal(cases, 9);
	(void)state;
}

/* The median step: 0 below two rows, the middle difference, the mean of
 * the two middle ones for an even count, backward steps counted. */
static void test_median_step(void **state)
{
	static const double one[] = { 5 }, odd[] = { 0, 1, 3, 4 }, even[] = { 0, 1, 3, 6, 7 };
	static const double back[] = { 0, 2, 1, 3 };

	(void)state;
	assert_true(rv_median_step(NULL, 0) == 0);
	assert_true(rv_median_step(one, 1) == 0);
	assert_true(rv_median_step(odd, 2) == 1);
	assert_true(rv_median_step(odd, 4) == 1);       /* 1 2 1 */
	assert_true(rv_median_step(even, 5) == 1.5);    /* 1 2 3 1 */
	assert_true(rv_median_step(back, 4) == 2);      /* 2 -1 2 */
}

static void test_severity_names(void **state)
{
	(void)state;
	for (int s = 0; s < RV_SEV_COUNT; s++)
		assert_int_equal(rv_severity_parse(rv_severity_name((enum rv_severity)s)), s);
	assert_string_equal(rv_severity_name(RV_SEV_MAJOR), "major");
	assert_null(rv_severity_names[RV_SEV_COUNT]);
	assert_null(rv_severity_name(RV_SEV_COUNT));
	assert_int_equal(rv_severity_parse("Major"), -EINVAL);
	assert_int_equal(rv_severity_parse(NULL), -EINVAL);
}

static void test_sort_nan_last(void **state)
{
	double v[] = { 3.0, NAN, -1.0, INFINITY, NAN, -INFINITY, 0.0 };

	rv_sort_doubles(v, 7);
	assert_true(v[0] == -INFINITY && v[1] == -1.0 && v[2] == 0.0 && v[3] == 3.0 &&
		    v[4] == INFINITY);
	assert_true(isnan(v[5]) && isnan(v[6]));
	rv_sort_doubles(v, 0);
	(void)state;
}

/* ------------------------------------------------------------------ err */

static void test_err(void **state)
{
	struct rv_err e;
	char longarg[2 * RV_ERR_MSG_MAX];

	rv_err_clear(&e);
	assert_int_equal(e.code, 0);
	assert_string_equal(e.msg, "");
	assert_int_equal(rv_err_set(&e, -EINVAL, "%s:%zu: bad number", "x.csv", (size_t)7), -EINVAL);
	assert_int_equal(e.code, -EINVAL);
	assert_string_equal(e.msg, "x.csv:7: bad number");
	/* the first error is kept */
	assert_int_equal(rv_err_set(&e, -ENOMEM, "later"), -ENOMEM);
	assert_int_equal(e.code, -EINVAL);
	assert_string_equal(e.msg, "x.csv:7: bad number");
	assert_string_equal(rv_err_text(&e, -ENOMEM), "x.csv:7: bad number");

	/* NULL err: only the code tells */
	assert_int_equal(rv_err_set(NULL, -EIO, "dropped %d", 1), -EIO);
	rv_err_clear(NULL);
	assert_string_equal(rv_err_text(NULL, -ENOENT), strerror(ENOENT));

	rv_err_clear(&e);
	assert_int_equal(e.code, 0);
	assert_string_equal(rv_err_text(&e, -EACCES), strerror(EACCES));
	assert_string_equal(rv_strerror(-ENOENT), strerror(ENOENT));
	assert_string_equal(rv_strerror(ENOENT), strerror(ENOENT));

	memset(longarg, 'a', sizeof(longarg) - 1);
	longarg[sizeof(longarg) - 1] = '\0';
	rv_err_set(&e, -E2BIG, "%s", longarg);
	assert_int_equal(strlen(e.msg), RV_ERR_MSG_MAX - 1);
	(void)state;
}

/* ------------------------------------------------------------------ log */

struct captured {
	int count;
	enum rv_log_level level;
	char msg[4096];
};

static void capture_sink(enum rv_log_level level, const char *msg, void *ctx)
{
	struct captured *c = ctx;

	c->count++;
	c->level = level;
	snprintf(c->msg, sizeof(c->msg), "%s", msg);
}

/* ---------------------------------------------------------------- bigmem */

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31u + seed);
}

static int has_pattern(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 31u + seed))
			return 0;
	return 1;
}

/* Both kinds of block (malloc'd below RV_BIG_MIN, mapped above), moves
 * between them and within mappings keep their contents and alignment. */
static void test_bigmem(void **state)
{
	static const size_t sizes[] = {
		0, 1, 100, RV_BIG_MIN - 1, RV_BIG_MIN, 3u << 20, (2u << 20) - 64, 9u << 20,
	};
	(void)state;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *p = rv_big_alloc(sizes[i]);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 64, 0);
		fill_pattern(p, sizes[i], (unsigned)i);
		assert_true(has_pattern(p, sizes[i], (unsigned)i));
		rv_big_free(p);
	}
	/* Grow small -> mapped -> larger mapping, then shrink both ways. */
	static const size_t steps[] = {
		1000, RV_BIG_MIN + 5, 5u << 20, 17u << 20, 4u << 20, 4000, 64u << 10,
	};
	unsigned char *p = NULL;
	size_t have = 0;

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		unsigned char *q = rv_big_realloc(p, steps[i]);
		size_t kept = have < steps[i] ? have : steps[i];

		assert_non_null(q);
		assert_int_equal((uintptr_t)q % 64, 0);
		assert_true(has_pattern(q, kept, 7));
		fill_pattern(q, steps[i], 7);
		p = q;
		have = steps[i];
	}
	rv_big_free(p);
	rv_big_free(NULL);
	assert_null(rv_big_array(SIZE_MAX / 2, 4));
	assert_null(rv_big_alloc(SIZE_MAX - 10));
	p = rv_big_array(3, 1u << 20);
	assert_non_null(p);
	fill_pattern(p, 3u << 20, 1);
	assert_null(rv_big_realloc(p, SIZE_MAX - 100));
	assert_true(has_pattern(p, 3u << 20, 1));   /* untouched on failure */
	rv_big_free(p);
}

static void test_log_sink_and_levels(void **state)
{
	struct captured c = { 0 };
	char big[3000];

	rv_log_set_sink(capture_sink, &c);
	assert_int_equal(rv_log_get_level(), RV_LOG_INFO);
	rv_warn("disk %s at %d%%", "nvme0", 93);
	assert_int_equal(c.count, 1);
	assert_int_equal(c.level, RV_LOG_WARN);
	assert_string_equal(c.msg, "disk nvme0 at 93%");
	rv_info("info passes");
	assert_int_equal(c.count, 2);
	assert_int_equal(c.level, RV_LOG_INFO);
	rv_debug("debug dropped at the default level");
	assert_int_equal(c.count, 2);

	rv_log_set_level(RV_LOG_WARN);
	assert_int_equal(rv_log_get_level(), RV_LOG_WARN);
	rv_info("dropped");
	assert_int_equal(c.count, 2);
	rv_error("kept");
	assert_int_equal(c.count, 3);
	assert_int_equal(c.level, RV_LOG_ERROR);
	assert_string_equal(c.msg, "kept");

	rv_log_set_level(RV_LOG_ERROR);
	rv_warn("dropped");
	assert_int_equal(c.count, 3);

	rv_log_set_level(RV_LOG_DEBUG);
	rv_debug("d%d", 1);
	assert_int_equal(c.count, 4);
	assert_int_equal(c.level, RV_LOG_DEBUG);
	assert_string_equal(c.msg, "d1");

	/* a message longer than the line buffer arrives truncated, terminated */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	rv_warn("%s", big);
	assert_int_equal(c.count, 5);
	assert_true(strlen(c.msg) > 0 && strlen(c.msg) <= sizeof(big) - 1);
	assert_memory_equal(c.msg, big, strlen(c.msg));

	rv_log_set_level(RV_LOG_INFO);
	rv_log_set_sink(NULL, NULL);
	(void)state;
}

/* The default sink writes "reveal: level: message" lines to stderr. */
static void test_log_default_sink(void **state)
{
	char path[] = "/tmp/rv_base_test_log_XXXXXX";
	char text[256];
	int fd = mkstemp(path), saved;
	FILE *f;
	size_t len;

	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	rv_log_set_sink(NULL, NULL);
	rv_warn("w %d", 1);
	rv_error("e");
	rv_debug("not written");
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	close(fd);
	f = fopen(path, "rb");
	assert_non_null(f);
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	unlink(path);
	text[len] = '\0';
	assert_string_equal(text, "reveal: warning: w 1\nreveal: error: e\n");
	(void)state;
}

/* Sample timestamps follow the monotonic clock, from the wall clock's
 * first reading; a jittery wall clock is not followed, a step of it is. */
static void test_sample_clock(void **state)
{
	struct rv_sample_clock c = { 0 };
	const int64_t wall0 = 1796400000LL * 1000000000LL;
	const rv_ns mono0 = 5000000000ULL;
	int64_t t0, t1, t2, t3, t4;

	(void)state;
	t0 = rv_sample_clock_ns(&c, mono0, wall0);
	assert_true(t0 == wall0);
	/* the wall clock read 3 ms late: the difference is the monotonic one */
	t1 = rv_sample_clock_ns(&c, mono0 + 200000000ULL, wall0 + 203000000LL);
	assert_true(t1 - t0 == 200000000LL);
	/* 19 ms early: still within the slack */
	t2 = rv_sample_clock_ns(&c, mono0 + 400000000ULL, wall0 + 381000000LL);
	assert_true(t2 - t1 == 200000000LL);
	/* the wall clock stepped a second ahead: followed from here */
	t3 = rv_sample_clock_ns(&c, mono0 + 600000000ULL, wall0 + 1600000000LL);
	assert_true(t3 == wall0 + 1600000000LL);
	t4 = rv_sample_clock_ns(&c, mono0 + 800000000ULL, wall0 + 1800000001LL);
	assert_true(t4 - t3 == 200000000LL);
	/* and back by a second */
	assert_true(rv_sample_clock_ns(&c, mono0 + 1000000000ULL, wall0 + 1000000000LL) ==
		    wall0 + 1000000000LL);
	assert_true(rv_clock_wall_ns() > wall0 - 365LL * 86400 * 1000000000LL * 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_fixture),
		cmocka_unit_test(test_rng_properties),
		cmocka_unit_test(test_bytes_round_trip),
		cmocka_unit_test(test_bytes_growth),
		cmocka_unit_test(test_bytes_past_end),
		cmocka_unit_test(test_bytes_str_limits),
		cmocka_unit_test(test_bytes_has),
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_quantile_fixture),
		cmocka_unit_test(test_sort_nan_last),
		cmocka_unit_test(test_median_step),
		cmocka_unit_test(test_severity_names),
		cmocka_unit_test(test_err),
		cmocka_unit_test(test_log_sink_and_levels),
		cmocka_unit_test(test_log_default_sink),
		cmocka_unit_test(test_bigmem),
		cmocka_unit_test(test_sample_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
