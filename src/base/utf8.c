/*
 * utf8.c - UTF-8 validation. See utf8.h. The ranges are those of RFC 3629
 * section 4 (Unicode table 3-7 of well-formed byte sequences).
 */
#include "base/utf8.h"

enum { UTF8_CONT_LO = 0x80, UTF8_CONT_HI = 0xBF };

static int is_cont(unsigned char c)
{
	return c >= UTF8_CONT_LO && c <= UTF8_CONT_HI;
}

/* The length of a sequence that starts with byte c (0: c cannot start
 * one) and the range of its second byte, which excludes overlong forms,
 * surrogates and code points above U+10FFFF. */
static size_t utf8_lead(unsigned char c, unsigned char *lo, unsigned char *hi)
{
	*lo = UTF8_CONT_LO;
	*hi = UTF8_CONT_HI;
	if (c >= 0xC2 && c <= 0xDF)
		return 2;
	if (c >= 0xE0 && c <= 0xEF) {
		*lo = c == 0xE0 ? 0xA0 : *lo;
		*hi = c == 0xED ? 0x9F : *hi;
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		*lo = c == 0xF0 ? 0x90 : *lo;
		*hi = c == 0xF4 ? 0x8F : *hi;
		return 4;
	}
	return 0;
}

size_t rv_utf8_len(const unsigned char *p)
{
	unsigned char lo, hi;
	if (p[0] < UTF8_CONT_LO)
		return 1;
	size_t len = utf8_lead(p[0], &lo, &hi);
	if (len == 0 || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++) {
		if (!is_cont(p[i]))
			return 0;
	}
	return len;
}
