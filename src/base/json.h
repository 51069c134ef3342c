/*
 * json.h - a strict, bounded reader of small JSON documents (RFC 8259).
 *
 * For `reveal report`, which reads back the incidents file that
 * `reveal detect --incidents` writes (rv_incident_write_json), and for
 * other small JSON files. rv_json_parse reads a whole text into a
 * document: one arena owning every value and string, read-only, freed at
 * once by rv_json_doc_free. Writing is only the string writer (and the
 * agent's numbers) at the end of this header. Not goals: writing whole
 * documents, streaming, editing, comments, trailing commas or any other
 * extension.
 *
 * Accepted is exactly RFC 8259:
 *  - one value, with only whitespace (space, tab, CR, LF) around it; a
 *    leading UTF-8 byte order mark is skipped (RFC 8259 8.1 allows it);
 *  - strings of valid UTF-8 (no overlong form, surrogate or code point
 *    past U+10FFFF) without raw control characters (U+0000..U+001F);
 *    escapes \" \\ \/ \b \f \n \r \t and \uXXXX, surrogate pairs decoded
 *    to one UTF-8 sequence; a lone surrogate is an error. \u0000 is
 *    accepted, so a string may hold NUL bytes: rv_json_str_len and
 *    rv_json_key_len give the whole length;
 *  - numbers by the RFC grammar only (no '+', leading zero, bare '.',
 *    hex, nan or inf), converted correctly rounded whatever the locale.
 *    An integer written without fraction or exponent that fits int64_t is
 *    kept exactly (rv_json_i64). Underflow gives 0 or a subnormal; a
 *    magnitude past the largest double (1e400) is an error: JSON has no
 *    infinity and a silent inf would pass reveal's checks as a value;
 *  - objects whose member names are all different: a duplicate name is an
 *    error (RFC 8259 4: names SHOULD be unique; readers disagree on which
 *    duplicate wins, so none does here).
 *
 * Limits: input over RV_JSON_MAX_BYTES is refused (-EFBIG), nesting deeper
 * than RV_JSON_MAX_DEPTH arrays and objects is an error. The parser does
 * not recurse; time is linear in the input (duplicate names are found by
 * sorting, n log n per object). Memory: 32 bytes per value plus the
 * strings, and while parsing 40 bytes per value of the open containers
 * (an array of 1-digit numbers takes ~36 times its text at its peak):
 * callers reading untrusted files should cap their size lower.
 *
 * Accessors take NULL (an absent value) and read it as JSON null, so
 * lookups chain: rv_json_num(rv_json_get(inc, "start"), NAN).
 */
#ifndef RV_BASE_JSON_H
#define RV_BASE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

enum {
	RV_JSON_MAX_DEPTH = 64,                 /* arrays and objects inside each other */
	RV_JSON_MAX_BYTES = 256 * 1024 * 1024,  /* largest input accepted */
};

enum rv_json_type {
	RV_JSON_NULL,
	RV_JSON_FALSE,
	RV_JSON_TRUE,
	RV_JSON_NUMBER,
	RV_JSON_STRING,
	RV_JSON_ARRAY,
	RV_JSON_OBJECT,
};

struct rv_json;      /* one value, owned by its document */
struct rv_json_doc;  /* a parsed document: the arena of its values */

/*
 * Parses text[0..len) (need not be NUL-terminated; NUL bytes are text like
 * any other, so an error outside strings) into *out, which the caller frees
 * with rv_json_doc_free. name (NULL: "json") prefixes messages. Returns 0;
 * -EINVAL with "NAME:LINE:COL: what" in err (1-based; the column counts
 * characters of the line, so a UTF-8 sequence is one); -EFBIG when len
 * exceeds RV_JSON_MAX_BYTES; -ENOMEM; -EINVAL also for a NULL out, or a NULL
 * text with len > 0 (NULL with 0 is the empty text). On error *out is NULL.
 */
int rv_json_parse(const char *text, size_t len, const char *name, struct rv_json_doc **out,
		  struct rv_err *err);

/* Frees the document and every value and string in it; NULL is a no-op. */
void rv_json_doc_free(struct rv_json_doc *d);

/* The document's one top-level value (never NULL for a parsed document). */
const struct rv_json *rv_json_root(const struct rv_json_doc *d);

/* Type of v; RV_JSON_NULL for a NULL v. */
enum rv_json_type rv_json_type(const struct rv_json *v);

/* Items of an array or members of an object; 0 for anything else. */
size_t rv_json_len(const struct rv_json *v);

/* Item i of an array, or the value of member i of an object, in document
 * order; NULL past the end or for other types. */
const struct rv_json *rv_json_at(const struct rv_json *v, size_t i);

/* Name of member i of an object (NUL-terminated, valid UTF-8; a name with
 * \u0000 in it reads short as a C string) and its length in bytes; NULL
 * and 0 past the end or when v is not an object. */
const char *rv_json_key(const struct rv_json *v, size_t i);
size_t rv_json_key_len(const struct rv_json *v, size_t i);

/* The value of obj's member named key (compared byte for byte, whole
 * name); NULL when absent, when obj is not an object or key is NULL.
 * Linear in the members. */
const struct rv_json *rv_json_get(const struct rv_json *obj, const char *key);

/* The number v as a double, or dflt when v is not a number (null, absent). */
double rv_json_num(const struct rv_json *v, double dflt);

/* The number v as an exact integer in *out: 0; -EINVAL when v is not a
 * number or not a whole one (1.5); -ERANGE when whole but beyond int64_t,
 * or written with fraction or exponent and 2^53 or more (1e20), where the
 * double no longer tells the integer. */
int rv_json_i64(const struct rv_json *v, int64_t *out);

/* 1 for true, 0 for false, dflt for anything else. */
int rv_json_bool(const struct rv_json *v, int dflt);

/* The string v (NUL-terminated, valid UTF-8, owned by the document) or
 * dflt when v is not a string; its length in bytes (0 when not a string). */
const char *rv_json_str(const struct rv_json *v, const char *dflt);
size_t rv_json_str_len(const struct rv_json *v);

/* 1-based line where v starts (for an object member, its value), for
 * messages; 0 for NULL. */
size_t rv_json_line(const struct rv_json *v);

/* ---------------------------------------------------------- writing */
/* (json_write.c; the parser and accessors above never write.) */

struct rv_buf;

/*
 * The one JSON string writer: s as a JSON string with its quotes, to f or
 * appended to b. '"', '\\' and the control characters are escaped (\n, \r,
 * \t, the others \u00XX), valid UTF-8 passes as is and every byte that
 * starts no valid sequence becomes \ufffd, so the output is valid JSON in
 * valid UTF-8 whatever s holds. A NULL s is written as null.
 * rv_json_buf_str returns 0 or b's sticky -ENOMEM.
 */
void rv_json_fput_str(FILE *f, const char *s);
int rv_json_buf_str(struct rv_buf *b, const char *s);

/* v appended to b as a JSON number: null when not finite, integral values
 * below 1e15 without point, values of 1e6 and more (timestamps) with 3
 * decimals, others %.9g. Returns 0 or b's sticky -ENOMEM. */
int rv_json_buf_num(struct rv_buf *b, double v);

#endif
