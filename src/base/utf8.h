/*
 * utf8.h - the one UTF-8 validator of reveal: the length of the well-formed
 * sequence at a place in a string.
 *
 * Writers that must emit valid UTF-8 whatever they are given (the JSON
 * string writer in base/json_write.c, the report formats in explain/) step
 * through text with it and show a byte that starts no valid sequence as
 * U+FFFD. Non-goals: decoding to code points, normalisation, widths.
 */
#ifndef RV_BASE_UTF8_H
#define RV_BASE_UTF8_H

#include <stddef.h>

/* Length (1 to 4) of the valid UTF-8 sequence at p (NUL-terminated), or 0
 * when the bytes there are not one: a stray continuation byte, a truncated
 * sequence, an overlong form, a surrogate or a code point above U+10FFFF.
 * ASCII bytes, NUL included, are 1. */
size_t rv_utf8_len(const unsigned char *p);

#endif
