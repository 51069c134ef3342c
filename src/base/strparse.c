/*
 * strparse.c - cursor scanners. See strparse.h.
 *
 * rv_str_double is on the hot path of reading large CSV files and kernel
 * text, so the common case (a short decimal) is converted with one
 * multiplication or division by an exact power of ten; anything longer
 * falls back to strtod on a bounded copy.
 */
#include "base/strparse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest number text accepted (digits beyond 17 significant ones do not
 * change a double, but a CSV writer may still print them). */
enum { NUM_COPY_MAX = 1024, EXACT_DIGITS = 19, EXACT_POW10 = 22 };
static const uint64_t U64_TENTH = UINT64_MAX / 10;                 /* 1844674407370955161 */
static const unsigned U64_LAST_DIGIT = (unsigned)(UINT64_MAX % 10); /* 5 */

static const double pow10_exact[EXACT_POW10 + 1] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

void rv_str_skip_blank(const char **p, const char *end)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*p = s;
}

int rv_str_u64(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s >= end || !is_digit(*s))
		return -EINVAL;
	for (; s < end && is_digit(*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		/* v * 10 + d passes UINT64_MAX (18446744073709551615) */
		if (v >= U64_TENTH && (v > U64_TENTH || d > U64_LAST_DIGIT))
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	*p = s;
	return 0;
}

int rv_str_i64(const char **p, const char *end, int64_t *out)
{
	const char *s = *p;
	int neg = 0;
	uint64_t v;
	int rc;

	if (s < end && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	rc = rv_str_u64(&s, end, &v);
	if (rc)
		return rc;
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return -ERANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	*p = s;
	return 0;
}

static int scan_special(const char **p, const char *end, int neg, double *out)
{
	static const char *const words[] = { "infinity", "inf", "nan" };
	size_t avail = (size_t)(end - *p);

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);
		if (avail >= n && strncasecmp(*p, words[i], n) == 0) {
			double v = words[i][0] == 'n' ? NAN : INFINITY;
			*out = neg ? -v : v;
			*p += n;
			return 0;
		}
	}
	return -EINVAL;
}

/* strtod on a bounded NUL-terminated copy of [s, e). */
static int slow_double(const char *s, const char *e, double *out)
{
	char buf[NUM_COPY_MAX];
	size_t n = (size_t)(e - s);
	char *stop;

	if (n >= sizeof(buf))
		return -ERANGE;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*out = strtod(buf, &stop);
	if (stop != buf + n)
		return -EINVAL;
	if (errno == ERANGE && fabs(*out) > 1.0)
		return -ERANGE;
	return 0;
}

int rv_str_double(const char **p, const char *end, double *out)
{
	const char *s = *p, *start = *p;
	uint64_t mant = 0;
	int neg = 0, digits = 0, frac_digits = 0, any = 0;
	int64_t exp10 = 0;

	if (s < end && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	if (s < end && !is_digit(*s) && *s != '.') {
		int rc = scan_special(&s, end, neg, out);
		if (rc == 0)
			*p = s;
		return rc;
	}
	for (; s < end && is_digit(*s); s++, any = 1) {
		if (mant == 0 && *s == '0')
			continue;
		if (digits < EXACT_DIGITS)
			mant = mant * 10 + (uint64_t)(*s - '0');
		else
			exp10++;
		digits++;
	}
	if (s < end && *s == '.') {
		for (s++; s < end && is_digit(*s); s++, any = 1) {
			if (mant == 0 && *s == '0') {
				frac_digits++;
				continue;
			}
			if (digits < EXACT_DIGITS) {
				mant = mant * 10 + (uint64_t)(*s - '0');
				frac_digits++;
			}
			digits++;
		}
	}
	if (!any)
		return -EINVAL;
	if (s < end && (*s == 'e' || *s == 'E')) {
		const char *q = s + 1;
		int64_t e;
		if (rv_str_i64(&q, end, &e) != 0)
			return -EINVAL;
		if (e > 100000 || e < -100000)
			return slow_double(start, q, out) == 0 ? (*p = q, 0) : -ERANGE;
		exp10 += e;
		s = q;
	}
	exp10 -= frac_digits;
	if (digits > EXACT_DIGITS || mant > (1ULL << 53) ||
	    exp10 > EXACT_POW10 || exp10 < -EXACT_POW10) {
		int rc = slow_double(start, s, out);
		if (rc == 0)
			*p = s;
		return rc;
	}
	double v = (double)mant;
	v = exp10 >= 0 ? v * pow10_exact[exp10] : v / pow10_exact[-exp10];
	*out = neg ? -v : v;
	*p = s;
	return 0;
}

int rv_mountinfo_parse(const char *s, const char *e, struct rv_mountinfo *m)
{
	enum { WORDS = 32, ROOT = 3, MOUNT = 4 };
	const char *w[WORDS], *we[WORDS];
	size_t n = 0, dash = 0;

	while (n < WORDS && (rv_str_skip_blank(&s, e), s < e)) {
		w[n] = s;
		while (s < e && *s != ' ')
			s++;
		we[n] = s;
		if (!dash && n > MOUNT && rv_str_eq(w[n], we[n], "-"))
			dash = n;
		n++;
	}
	if (!dash || n < dash + 4)
		return -EINVAL;
	*m = (struct rv_mountinfo){
		.root = w[ROOT], .root_end = we[ROOT],
		.mount = w[MOUNT], .mount_end = we[MOUNT],
		.fstype = w[dash + 1], .fstype_end = we[dash + 1],
		.superopts = w[dash + 3], .superopts_end = we[dash + 3],
	};
	return 0;
}
