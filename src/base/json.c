/*
 * json.c - the strict JSON reader. See json.h.
 *
 * One pass, no recursion: a value that opens an array or object pushes a
 * frame (at most RV_JSON_MAX_DEPTH); every value is pushed on a scratch
 * stack of slots, and when its container closes, the container's children
 * are copied from the stack into one exact-sized array in the document's
 * arena and popped. Each value is thus copied once, and the stack holds only
 * the children of the containers still open. The arena, the document's
 * freeing and the accessors are in json_access.c (shared types: json_int.h).
 *
 * Numbers are checked against the grammar here, then rewritten as
 * "[-]DIGITSe[-]EXP" (at most NUM_SIG_MAX significant digits plus a sticky
 * one, which keeps the rounding of longer ones) for rv_str_double: without a
 * decimal point that text reads the same in every locale.
 *
 * Line and column of an error are found by scanning the text again from the
 * start, once, so the hot path counts only lines (for rv_json_line).
 */
#include "base/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_int.h"
#include "base/strparse.h"

enum {
	STACK_FIRST = 64,                 /* scratch slots at the first push */
	NUM_SIG_MAX = 800,     /* significant digits kept: 767 decide any double */
	NUM_EXP_CAP = 99999,   /* |exponent| past which a double is 0 or inf anyway */
	NUM_EXP_SATURATE = 1000000000,
	NUM_BUF = NUM_SIG_MAX + 16,
	MSG_MAX = 320,
	SHOW_KEY_MAX = 64,     /* bytes of a duplicate name quoted in a message */
	FOUND_MAX = 32,
};

/* A value waiting for its container to close, and where its name began. */
struct slot {
	struct rv_json v;
	size_t key_off;
};

struct keyref {
	const char *s;
	uint32_t len;
	size_t off;
};

struct parser {
	const char *text, *p, *end;
	const char *name;
	struct rv_err *err;
	struct rv_json_doc *doc;
	struct slot *stk;
	size_t top, cap;
	size_t frame[RV_JSON_MAX_DEPTH];  /* slot index of each open container */
	size_t depth;
	uint32_t line;
	const char *key;                  /* name for the next value pushed */
	uint32_t key_len;
	size_t key_off;
	struct keyref *refs;              /* member names of the object closing */
	size_t refs_cap;
	char found[FOUND_MAX];
	char num[NUM_BUF];
};

/* ----------------------------------------------------------------- errors */

/* Line and column (1-based, counting UTF-8 lead bytes) of at. */
static void position(const struct parser *ps, const char *at, size_t *line, size_t *col)
{
	size_t l = 1, c = 1;

	for (const char *s = ps->text; s < at; s++) {
		if (*s == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)*s & 0xC0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*col = c;
}

static int __attribute__((format(printf, 3, 4)))
fail_at(struct parser *ps, const char *at, const char *fmt, ...)
{
	char msg[MSG_MAX];
	size_t line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	position(ps, at, &line, &col);
	return rv_err_set(ps->err, -EINVAL, "%s:%zu:%zu: %s", ps->name, line, col, msg);
}

static int no_memory(struct parser *ps)
{
	return rv_err_set(ps->err, -ENOMEM, "%s: out of memory reading JSON", ps->name);
}

/* What lies at `at`, for a message: 'x', byte 0xNN or end of input. */
static const char *found(struct parser *ps, const char *at)
{
	unsigned char c;

	if (at >= ps->end)
		return "end of input";
	c = (unsigned char)*at;
	if (c > ' ' && c < 0x7F && c != '\'')
		snprintf(ps->found, sizeof(ps->found), "'%c'", c);
	else
		snprintf(ps->found, sizeof(ps->found), "byte 0x%02x", c);
	return ps->found;
}

/* ------------------------------------------------------------------ stack */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void skip_ws(struct parser *ps)
{
	const char *p = ps->p;

	for (; p < ps->end; p++) {
		if (*p == '\n')
			ps->line++;
		else if (*p != ' ' && *p != '\t' && *p != '\r')
			break;
	}
	ps->p = p;
}

/* Pushes a value of this type, named by the pending member name if any;
 * NULL when out of memory (err set). */
static struct rv_json *push(struct parser *ps, enum rv_json_type type)
{
	if (ps->top == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : STACK_FIRST;
		struct slot *s = realloc(ps->stk, cap * sizeof(*s));
		if (!s) {
			no_memory(ps);
			return NULL;
		}
		ps->stk = s;
		ps->cap = cap;
	}
	struct slot *s = &ps->stk[ps->top++];
	memset(s, 0, sizeof(*s));
	s->v.type = (uint8_t)type;
	s->v.line = ps->line;
	s->v.key = ps->key;
	s->v.key_len = ps->key_len;
	s->key_off = ps->key_off;
	ps->key = NULL;
	ps->key_len = 0;
	return &s->v;
}

/* ------------------------------------------------------------------ strings */

/* Length of the valid UTF-8 sequence (2 to 4 bytes) at s, 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, const unsigned char *end)
{
	unsigned lo = 0x80, hi = 0xBF;
	size_t n;

	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		n = 2;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3;
		lo = s[0] == 0xE0 ? 0xA0 : lo;   /* overlong */
		hi = s[0] == 0xED ? 0x9F : hi;   /* surrogates */
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4;
		lo = s[0] == 0xF0 ? 0x90 : lo;   /* overlong */
		hi = s[0] == 0xF4 ? 0x8F : hi;   /* past U+10FFFF */
	} else {
		return 0;
	}
	if ((size_t)(end - s) < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

static size_t put_utf8(char *d, unsigned cp)
{
	static const unsigned char lead[] = { 0x00, 0xC0, 0xE0, 0xF0 };
	size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

	for (size_t i = n - 1; i > 0; i--, cp >>= 6)
		d[i] = (char)(0x80 | (cp & 0x3F));
	d[0] = (char)(lead[n - 1] | cp);
	return n;
}

/* The four hex digits after "\u" at s: 0 and *cp, or -1. */
static int hex4(const char *s, const char *end, unsigned *cp)
{
	unsigned v = 0;

	if (end - s < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		unsigned d;
		if (is_digit(c))
			d = (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (unsigned)((c | 0x20) - 'a' + 10);
		else
			return -1;
		v = v << 4 | d;
	}
	*cp = v;
	return 0;
}

/* "\uXXXX" at *sp, or a surrogate pair of two: appends UTF-8 at *dp. */
static int unicode_escape(struct parser *ps, const char **sp, char **dp)
{
	const char *s = *sp;
	unsigned cp, lo;

	if (hex4(s + 2, ps->end, &cp))
		return fail_at(ps, s, "invalid \\u escape: four hex digits must follow");
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return fail_at(ps, s, "lone low surrogate \\u%04X in string", cp);
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		const char *t = s + 6;
		if (ps->end - t < 2 || t[0] != '\\' || t[1] != 'u' || hex4(t + 2, ps->end, &lo) ||
		    lo < 0xDC00 || lo > 0xDFFF)
			return fail_at(ps, s,
				       "lone high surrogate \\u%04X in string "
				       "(\\uDC00-\\uDFFF must follow)", cp);
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		s += 6;
	}
	*dp += put_utf8(*dp, cp);
	*sp = s + 6;
	return 0;
}

/* The escape at *sp (a backslash): appends its bytes at *dp. */
static int escape(struct parser *ps, const char **sp, char **dp)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *s = *sp, *hit;

	if (s + 1 < ps->end && s[1] == 'u')
		return unicode_escape(ps, sp, dp);
	if (s + 1 >= ps->end || s[1] == '\0' || !(hit = strchr(from, s[1])))
		return fail_at(ps, s, "invalid escape in string: backslash then %s",
			       found(ps, s + 1));
	*(*dp)++ = to[hit - from];
	*sp = s + 2;
	return 0;
}

/* Decodes the string opening at ps->p (a quote) into dst, which has room
 * for its raw bytes; leaves ps->p after the closing quote. */
static int decode_string(struct parser *ps, char *dst, uint32_t *len)
{
	const char *open = ps->p, *s = open + 1;
	char *d = dst;

	while (s < ps->end) {
		unsigned char c = (unsigned char)*s;
		if (c == '"') {
			*d = '\0';
			*len = (uint32_t)(d - dst);
			ps->p = s + 1;
			return 0;
		}
		if (c == '\\') {
			int rc = escape(ps, &s, &d);
			if (rc)
				return rc;
		} else if (c < 0x20) {
			return fail_at(ps, s, "raw control character U+%04X in string", c);
		} else if (c < 0x80) {
			*d++ = (char)c;
			s++;
		} else {
			const unsigned char *u = (const unsigned char *)s;
			size_t n = utf8_seq(u, (const unsigned char *)ps->end);
			if (!n)
				return fail_at(ps, s, "invalid UTF-8 in string (byte 0x%02x)", c);
			memcpy(d, s, n);
			d += n;
			s += n;
		}
	}
	return fail_at(ps, open, "unterminated string");
}

/* Reads the string at ps->p into the arena. */
static int read_string(struct parser *ps, const char **out, uint32_t *len)
{
	const char *s = ps->p + 1;
	char *dst;

	/* Bound the decoded length by the raw one: up to the closing quote. */
	while (s < ps->end && *s != '"')
		s += *s == '\\' && ps->end - s > 1 ? 2 : 1;
	dst = rv_json_arena_alloc(ps->doc, (size_t)(s - ps->p));
	if (!dst)
		return no_memory(ps);
	*out = dst;
	return decode_string(ps, dst, len);
}

static int string_value(struct parser *ps)
{
	const char *s;
	uint32_t len;
	struct rv_json *v;
	int rc = read_string(ps, &s, &len);

	if (rc)
		return rc;
	v = push(ps, RV_JSON_STRING);
	if (!v)
		return -ENOMEM;
	v->u.str = s;
	v->len = len;
	return 0;
}

/* ----------------------------------------------------------------- numbers */

struct numtok {
	const char *start, *int_end, *frac, *frac_end, *exp, *end;
};

static const char *digits(const char *s, const char *end)
{
	while (s < end && is_digit(*s))
		s++;
	return s;
}

/* Checks the RFC 8259 number at ps->p and finds its parts. */
static int scan_number(struct parser *ps, struct numtok *t)
{
	const char *s = ps->p, *end = ps->end;

	t->start = s;
	if (*s == '-')
		s++;
	if (s >= end || !is_digit(*s))
		return fail_at(ps, s, "invalid number: digit expected after '-', found %s",
			       found(ps, s));
	if (*s == '0' && s + 1 < end && is_digit(s[1]))
		return fail_at(ps, t->start, "invalid number: leading zero");
	t->int_end = s = digits(s, end);
	t->frac = t->frac_end = t->exp = NULL;
	if (s < end && *s == '.') {
		t->frac = ++s;
		if (s >= end || !is_digit(*s))
			return fail_at(ps, s, "invalid number: digit expected after '.', found %s",
				       found(ps, s));
		t->frac_end = s = digits(s, end);
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < end && (*s == '+' || *s == '-'))
			s++;
		if (s >= end || !is_digit(*s))
			return fail_at(ps, s,
				       "invalid number: digit expected in exponent, found %s",
				       found(ps, s));
		t->exp = s - (s[-1] == '+' || s[-1] == '-');
		s = digits(s, end);
	}
	t->end = s;
	return 0;
}

/* The exponent's value, saturated far beyond any double's range. */
static int64_t exponent(const struct numtok *t)
{
	const char *s = t->exp;
	int neg = 0;
	int64_t e = 0;

	if (!s)
		return 0;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; s < t->end; s++)
		if (e < NUM_EXP_SATURATE)
			e = e * 10 + (*s - '0');
	return neg ? -e : e;
}

/* Writes "[-]DIGITSeEXP" for the number into ps->num; *zero when all its
 * digits are 0. */
static void normalize(struct parser *ps, const struct numtok *t, int *zero)
{
	const char *mant_beg = t->start + (*t->start == '-');
	const char *mant_end = t->frac ? t->frac_end : t->int_end;
	size_t n = 0, sig = 0;
	int64_t dropped = 0, fraclen = t->frac ? t->frac_end - t->frac : 0;
	int sticky = 0;

	if (*t->start == '-')
		ps->num[n++] = '-';
	for (const char *s = mant_beg; s < mant_end; s++) {
		if (*s == '.' || (sig == 0 && *s == '0'))
			continue;
		if (sig < NUM_SIG_MAX) {
			ps->num[n++] = *s;
			sig++;
		} else {
			dropped++;
			sticky |= *s != '0';
		}
	}
	if (sticky) {
		ps->num[n++] = '1';
		dropped--;
	}
	int64_t e = exponent(t) - fraclen + dropped;
	e = e > NUM_EXP_CAP ? NUM_EXP_CAP : e < -NUM_EXP_CAP ? -NUM_EXP_CAP : e;
	snprintf(ps->num + n, sizeof(ps->num) - n, "e%d", (int)e);
	*zero = sig == 0;
}

static int number_value(struct parser *ps)
{
	struct numtok t = { 0 };
	struct rv_json *v;
	int64_t i = 0;
	double d = 0.0;
	int zero = 0, rc = scan_number(ps, &t);

	if (rc)
		return rc;
	const char *p = t.start;
	int is_int = !t.frac && !t.exp && rv_str_i64(&p, t.end, &i) == 0 &&
		     !(i == 0 && *t.start == '-');
	if (!is_int) {
		normalize(ps, &t, &zero);
		p = ps->num;
		if (zero)
			d = *t.start == '-' ? -0.0 : 0.0;
		else if (rv_str_double(&p, ps->num + strlen(ps->num), &d) != 0 || *p || isinf(d))
			return fail_at(ps, t.start, "number out of range (beyond +-1.8e308)");
	}
	v = push(ps, RV_JSON_NUMBER);
	if (!v)
		return -ENOMEM;
	v->is_int = (uint8_t)is_int;
	if (is_int)
		v->u.i = i;
	else
		v->u.num = d;
	ps->p = t.end;
	return 0;
}

/* ------------------------------------------------------------- containers */

static int same_key(const struct keyref *a, const struct keyref *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

static int keyref_cmp(const void *pa, const void *pb)
{
	const struct keyref *a = pa, *b = pb;
	int c;

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	c = memcmp(a->s, b->s, a->len);
	if (c)
		return c;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int report_duplicate(struct parser *ps, const struct keyref *k)
{
	char shown[SHOW_KEY_MAX + 1];
	size_t n = k->len < SHOW_KEY_MAX ? k->len : SHOW_KEY_MAX;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)k->s[i];
		shown[i] = c < ' ' || c == 0x7F ? '?' : (char)c;
	}
	shown[n] = '\0';
	return fail_at(ps, ps->text + k->off, "duplicate member name \"%s%s\"", shown,
		       k->len > n ? "..." : "");
}

/* The n members from slot `first` on: an error at the first name (in
 * document order) that an earlier member already has. */
static int check_duplicates(struct parser *ps, size_t first, size_t n)
{
	const struct keyref *dup = NULL;

	if (n > ps->refs_cap) {
		struct keyref *r = realloc(ps->refs, n * sizeof(*r));
		if (!r)
			return no_memory(ps);
		ps->refs = r;
		ps->refs_cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct slot *s = &ps->stk[first + i];
		ps->refs[i] = (struct keyref){ s->v.key, s->v.key_len, s->key_off };
	}
	qsort(ps->refs, n, sizeof(*ps->refs), keyref_cmp);
	for (size_t j = 1; j < n; j++)
		if (same_key(&ps->refs[j - 1], &ps->refs[j]) &&
		    (!dup || ps->refs[j].off < dup->off))
			dup = &ps->refs[j];
	return dup ? report_duplicate(ps, dup) : 0;
}

/* Moves the children of the innermost open container into the arena. */
static int close_container(struct parser *ps)
{
	size_t at = ps->frame[--ps->depth];
	size_t n = ps->top - at - 1;
	struct rv_json *items = NULL;

	if (ps->stk[at].v.type == RV_JSON_OBJECT && n > 1) {
		int rc = check_duplicates(ps, at + 1, n);
		if (rc)
			return rc;
	}
	if (n) {
		if (n > SIZE_MAX / sizeof(*items))
			return no_memory(ps);
		items = rv_json_arena_alloc(ps->doc, n * sizeof(*items));
		if (!items)
			return no_memory(ps);
		for (size_t i = 0; i < n; i++)
			items[i] = ps->stk[at + 1 + i].v;
	}
	ps->stk[at].v.u.items = items;
	ps->stk[at].v.len = (uint32_t)n;
	ps->top = at + 1;
	return 0;
}

/* A member name and its colon; the name waits for the value's push. */
static int member_name(struct parser *ps)
{
	const char *at;
	int rc;

	skip_ws(ps);
	at = ps->p;
	if (at >= ps->end || *at != '"')
		return fail_at(ps, at, "expected a string naming an object member, found %s",
			       found(ps, at));
	rc = read_string(ps, &ps->key, &ps->key_len);
	if (rc)
		return rc;
	ps->key_off = (size_t)(at - ps->text);
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != ':')
		return fail_at(ps, ps->p, "expected ':' after member name, found %s",
			       found(ps, ps->p));
	ps->p++;
	return 0;
}

/* '[' or '{' at ps->p: 1 when opened and a first value follows, 0 when
 * closed at once (empty), or an error. */
static int open_container(struct parser *ps)
{
	int obj = *ps->p == '{';
	char closer = obj ? '}' : ']';

	if (ps->depth == RV_JSON_MAX_DEPTH)
		return fail_at(ps, ps->p, "nesting deeper than %d arrays and objects",
			       RV_JSON_MAX_DEPTH);
	if (!push(ps, obj ? RV_JSON_OBJECT : RV_JSON_ARRAY))
		return -ENOMEM;
	ps->frame[ps->depth++] = ps->top - 1;
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == closer) {
		ps->p++;
		return close_container(ps);
	}
	if (obj) {
		int rc = member_name(ps);
		if (rc)
			return rc;
	}
	return 1;
}

static int literal(struct parser *ps, const char *word, enum rv_json_type type)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return fail_at(ps, ps->p, "invalid literal (true, false or null expected)");
	if (!push(ps, type))
		return -ENOMEM;
	ps->p += n;
	return 0;
}

/* One value at ps->p (after whitespace): 0 when complete, 1 when it opened
 * a container whose first value follows, or an error. */
static int value(struct parser *ps)
{
	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail_at(ps, ps->p, "expected a value, found end of input");
	switch (*ps->p) {
	case '{':
	case '[':
		return open_container(ps);
	case '"':
		return string_value(ps);
	case 't':
		return literal(ps, "true", RV_JSON_TRUE);
	case 'f':
		return literal(ps, "false", RV_JSON_FALSE);
	case 'n':
		return literal(ps, "null", RV_JSON_NULL);
	default:
		if (*ps->p == '-' || is_digit(*ps->p))
			return number_value(ps);
		return fail_at(ps, ps->p, "expected a value, found %s", found(ps, ps->p));
	}
}

/* After a complete value: takes the ',' before the next one (1), or closes
 * each container that ends here until the root is complete (0). */
static int after_value(struct parser *ps)
{
	while (ps->depth > 0) {
		int obj = ps->stk[ps->frame[ps->depth - 1]].v.type == RV_JSON_OBJECT;
		char closer = obj ? '}' : ']';
		int rc;

		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			skip_ws(ps);
			if (ps->p < ps->end && *ps->p == closer)
				return fail_at(ps, ps->p, "trailing comma before '%c'", closer);
			rc = obj ? member_name(ps) : 0;
			return rc ? rc : 1;
		}
		if (ps->p >= ps->end || *ps->p != closer)
			return fail_at(ps, ps->p, "expected ',' or '%c' after %s, found %s", closer,
				       obj ? "object member" : "array item", found(ps, ps->p));
		ps->p++;
		rc = close_container(ps);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_document(struct parser *ps)
{
	int rc;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail_at(ps, ps->p, "empty document, a JSON value expected");
	do {
		rc = value(ps);
		if (rc == 0)
			rc = after_value(ps);
	} while (rc == 1);
	if (rc)
		return rc;
	skip_ws(ps);
	if (ps->p < ps->end)
		return fail_at(ps, ps->p, "unexpected %s after the document's value",
			       found(ps, ps->p));
	ps->doc->root = ps->stk[0].v;
	return 0;
}

int rv_json_parse(const char *text, size_t len, const char *name, struct rv_json_doc **out,
		  struct rv_err *err)
{
	struct parser ps = { 0 };
	int rc;

	name = name ? name : "json";
	if (!out || (!text && len))
		return rv_err_set(err, -EINVAL, "%s: no text or no place for the document", name);
	*out = NULL;
	if (len > RV_JSON_MAX_BYTES)
		return rv_err_set(err, -EFBIG,
				  "%s: %zu bytes, more than the %d MiB a JSON document may have",
				  name, len, RV_JSON_MAX_BYTES >> 20);
	if (!text)
		text = "";
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
		text += 3;
		len -= 3;
	}
	ps = (struct parser){ .text = text, .p = text, .end = text + len, .name = name,
			      .err = err, .line = 1 };
	ps.doc = calloc(1, sizeof(*ps.doc));
	if (!ps.doc)
		return no_memory(&ps);
	ps.doc->next_cap = RV_JSON_ARENA_FIRST_BYTES;
	rc = parse_document(&ps);
	free(ps.stk);
	free(ps.refs);
	if (rc) {
		rv_json_doc_free(ps.doc);
		return rc;
	}
	*out = ps.doc;
	return 0;
}
