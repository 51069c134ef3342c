/*
 * fuzz_json.c - libFuzzer target of the JSON reader (base/json.h): any
 * input is parsed; a refusal must come with its code and a "fuzz.json:"
 * message. A document that parses is walked through every accessor
 * (lengths, names, lookups by name, lines, finite numbers, terminated
 * strings), then written back twice, once with raw UTF-8 and once with
 * every non-ASCII character as \u escapes (surrogate pairs past U+FFFF),
 * and each text must parse to the same tree. Bad input must be refused,
 * never crash, leak or hang. Build and run: tests/fuzz/README.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_json: %s: %s\n", what, detail);
	abort();
}

/* Every accessor on v and, below it, its children. */
static void walk(const struct rv_json *v, size_t line_min)
{
	size_t n = rv_json_len(v);
	int64_t i64;

	if (rv_json_line(v) < line_min)
		die("line goes back", "");
	switch (rv_json_type(v)) {
	case RV_JSON_NUMBER:
		if (!isfinite(rv_json_num(v, NAN)))
			die("number not finite", "");
		(void)rv_json_i64(v, &i64);
		break;
	case RV_JSON_STRING:
		if (rv_json_str(v, NULL)[rv_json_str_len(v)] != '\0')
			die("string not terminated", "");
		break;
	case RV_JSON_ARRAY:
	case RV_JSON_OBJECT:
		break;
	default:
		if (n || rv_json_str(v, NULL) || !isnan(rv_json_num(v, NAN)))
			die("literal with a value", "");
	}
	for (size_t i = 0; i < n; i++) {
		const struct rv_json *c = rv_json_at(v, i);
		const char *k = rv_json_key(v, i);
		if (!c)
			die("missing item", "");
		if (rv_json_type(v) == RV_JSON_OBJECT) {
			if (!k || k[rv_json_key_len(v, i)] != '\0')
				die("bad member name", "");
			/* names are unique: a name without NUL finds its own member */
			if (strlen(k) == rv_json_key_len(v, i) && rv_json_get(v, k) != c)
				die("lookup finds another member", k);
		} else if (k) {
			die("array item with a name", k);
		}
		walk(c, rv_json_line(v));
	}
	if (rv_json_at(v, n) || rv_json_key(v, n))
		die("item past the end", "");
}

/* One code point of valid UTF-8 at s (the reader guarantees validity). */
static unsigned utf8_next(const unsigned char **s)
{
	const unsigned char *p = *s;
	unsigned cp;
	int more;

	if (p[0] < 0x80) {
		*s = p + 1;
		return p[0];
	}
	more = p[0] >= 0xF0 ? 3 : p[0] >= 0xE0 ? 2 : 1;
	cp = p[0] & (0x3F >> more);
	for (int i = 1; i <= more; i++)
		cp = cp << 6 | (p[i] & 0x3F);
	*s = p + 1 + more;
	return cp;
}

static void write_string(FILE *f, const char *str, size_t len, int ascii)
{
	const unsigned char *s = (const unsigned char *)str, *end = s + len;

	fputc('"', f);
	while (s < end) {
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s++);
		} else if (*s < 0x80 || !ascii) {
			fputc(*s++, f);
		} else {
			unsigned cp = utf8_next(&s);
			if (cp >= 0x10000)
				fprintf(f, "\\u%04X\\u%04x", 0xD800 + ((cp - 0x10000) >> 10),
					0xDC00 + ((cp - 0x10000) & 0x3FF));
			else
				fprintf(f, "\\u%04x", cp);
		}
	}
	fputc('"', f);
}

static void write_value(FILE *f, const struct rv_json *v, int ascii)
{
	enum rv_json_type t = rv_json_type(v);
	double d = rv_json_num(v, 0);
	int64_t i;

	if (t == RV_JSON_NULL || t == RV_JSON_TRUE || t == RV_JSON_FALSE) {
		fputs(t == RV_JSON_NULL ? "null" : t == RV_JSON_TRUE ? "true" : "false", f);
	} else if (t == RV_JSON_NUMBER) {
		if (rv_json_i64(v, &i) == 0 && !(d == 0 && signbit(d)))
			fprintf(f, "%" PRId64, i);
		else
			fprintf(f, "%.17g", d);
	} else if (t == RV_JSON_STRING) {
		write_string(f, rv_json_str(v, ""), rv_json_str_len(v), ascii);
	} else {
		fputc(t == RV_JSON_ARRAY ? '[' : '{', f);
		for (size_t k = 0; k < rv_json_len(v); k++) {
			fputs(k ? ",\n" : "", f);
			if (t == RV_JSON_OBJECT) {
				write_string(f, rv_json_key(v, k), rv_json_key_len(v, k), ascii);
				fputc(':', f);
			}
			write_value(f, rv_json_at(v, k), ascii);
		}
		fputc(t == RV_JSON_ARRAY ? ']' : '}', f);
	}
}

static int same(const struct rv_json *a, const struct rv_json *b)
{
	enum rv_json_type t = rv_json_type(a);
	double x = rv_json_num(a, 0), y = rv_json_num(b, 0);
	int64_t i = 0, j = 0;

	if (t != rv_json_type(b) || rv_json_len(a) != rv_json_len(b))
		return 0;
	if (t == RV_JSON_NUMBER &&
	    (memcmp(&x, &y, sizeof(x)) != 0 ||
	     (rv_json_i64(a, &i) == 0 && (rv_json_i64(b, &j) != 0 || i != j))))
		return 0;
	if (t == RV_JSON_STRING &&
	    (rv_json_str_len(a) != rv_json_str_len(b) ||
	     memcmp(rv_json_str(a, ""), rv_json_str(b, ""), rv_json_str_len(a)) != 0))
		return 0;
	for (size_t k = 0; k < rv_json_len(a); k++) {
		if (rv_json_key_len(a, k) != rv_json_key_len(b, k) ||
		    (t == RV_JSON_OBJECT &&
		     memcmp(rv_json_key(a, k), rv_json_key(b, k), rv_json_key_len(a, k)) != 0))
			return 0;
		if (!same(rv_json_at(a, k), rv_json_at(b, k)))
			return 0;
	}
	return 1;
}

static void round_trip(const struct rv_json *root, int ascii)
{
	struct rv_json_doc *back = NULL;
	struct rv_err err = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	write_value(f, root, ascii);
	if (fclose(f) != 0) {
		free(text);
		return;
	}
	if (rv_json_parse(text, len, "written.json", &back, &err) != 0)
		die("written document does not parse", err.msg);
	if (!same(root, rv_json_root(back)))
		die("written document reads differently", text);
	rv_json_doc_free(back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rv_json_doc *d = NULL;
	struct rv_err err = { 0 };
	int rc = rv_json_parse((const char *)data, size, "fuzz.json", &d, &err);

	if (rc != 0) {
		if (d || err.code != rc || strncmp(err.msg, "fuzz.json:", 10) != 0 ||
		    (rc != -EINVAL && rc != -ENOMEM && rc != -EFBIG))
			die("refusal without its error", err.msg);
		return 0;
	}
	walk(rv_json_root(d), 1);
	round_trip(rv_json_root(d), 0);
	round_trip(rv_json_root(d), 1);
	rv_json_doc_free(d);
	return 0;
}
