/*
 * fmtnum.c - see fmtnum.h. The fast paths cover the values reveal writes
 * most (ratios around 1, scores, unix timestamps); everything else goes to
 * snprintf, so the output is always well formed.
 */
#include "base/fmtnum.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* %.6g prints fixed notation for decimal exponents in [-4, 6). */
enum { G6_DIGITS = 6, G6_EXP_MIN = -4, G6_EXP_MAX = 6 };
#define INTEGRAL_MAX 1e15

static size_t put_uint(uint64_t u, char *buf)
{
	char tmp[RV_FMT_MAX];
	size_t n = 0, len;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	len = n;
	while (n)
		*buf++ = tmp[--n];
	return len;
}

size_t rv_fmt_g15(double v, char *buf)
{
	size_t n = 0;

	if (v != floor(v) || fabs(v) >= INTEGRAL_MAX)
		return (size_t)snprintf(buf, RV_FMT_MAX, "%.15g", v);
	if (v < 0) {
		buf[n++] = '-';
		v = -v;
	}
	n += put_uint((uint64_t)v, buf + n);
	buf[n] = '\0';
	return n;
}

size_t rv_fmt_g6(double v, char *buf)
{
	double a = fabs(v);
	int e;
	uint64_t m;
	size_t n = 0, frac;
	char digits[RV_FMT_MAX];
	size_t nd;

	if (!(a > 0.0) || !isfinite(a))
		return (size_t)snprintf(buf, RV_FMT_MAX, "%.6g", v);
	e = (int)floor(log10(a));
	if (e < G6_EXP_MIN || e >= G6_EXP_MAX)
		return (size_t)snprintf(buf, RV_FMT_MAX, "%.6g", v);
	m = (uint64_t)llround(a * pow(10.0, G6_DIGITS - 1 - e));
	if (m >= 1000000) {             /* rounding carried into a new digit */
		e++;
		m /= 10;
		if (e >= G6_EXP_MAX)
			return (size_t)snprintf(buf, RV_FMT_MAX, "%.6g", v);
	}
	if (v < 0)
		buf[n++] = '-';
	nd = put_uint(m, digits);       /* 6 digits: d.ddddd x 10^e */
	frac = (size_t)(G6_DIGITS - 1 - e);
	while (frac > 0 && digits[nd - 1] == '0') {   /* %g drops trailing zeros */
		nd--;
		frac--;
	}
	if (e < 0) {
		buf[n++] = '0';
		buf[n++] = '.';
		for (int z = -1; z > e; z--)
			buf[n++] = '0';
		memcpy(buf + n, digits, nd);
		n += nd;
	} else {
		size_t ip = (size_t)e + 1;  /* integer digits */
		memcpy(buf + n, digits, ip);
		n += ip;
		if (nd > ip) {
			buf[n++] = '.';
			memcpy(buf + n, digits + ip, nd - ip);
			n += nd - ip;
		}
	}
	buf[n] = '\0';
	return n;
}
