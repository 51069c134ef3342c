/*
 * promtext.c - Prometheus text exposition writer. See promtext.h.
 *
 * Every write goes through put() into the page, a base/buf.h buffer capped
 * at RV_PROM_MAX_BYTES (NUL included) whose failure is sticky: every later
 * put() returns at once. Names are checked before anything of a line
 * is written, so a rejected call leaves the page as it was.
 */
#include "serve/promtext.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	PROM_FIRST_FAMS = 32,    /* first family table */
	SHORTEST_FROM = 15,      /* DBL_DIG: every 15-digit decimal survives a round trip */
	SHORTEST_TO = 17,        /* 17 digits always identify a double */
};

/* Integral doubles below this print as integers (all exact). */
#define PROM_INT_LIMIT 9007199254740992.0   /* 2^53 */

static const char *const prom_types[] = {
	"gauge", "counter", "untyped", "summary", "histogram",
};

void rv_prom_init(struct rv_promtext *p)
{
	memset(p, 0, sizeof(*p));
	rv_buf_init(&p->page, RV_PROM_MAX_BYTES);
}

void rv_prom_fini(struct rv_promtext *p)
{
	if (!p)
		return;
	rv_buf_fini(&p->page);
	free(p->fams);
	rv_prom_init(p);
}

void rv_prom_reset(struct rv_promtext *p)
{
	rv_buf_reset(&p->page);
	p->nfams = 0;
}

int rv_prom_failed(const struct rv_promtext *p)
{
	return rv_buf_failed(&p->page);
}

const char *rv_prom_text(const struct rv_promtext *p, size_t *len)
{
	return rv_buf_text(&p->page, len);
}

static void put(struct rv_promtext *p, const char *s, size_t n)
{
	rv_buf_put(&p->page, s, n);
}

static void put_str(struct rv_promtext *p, const char *s)
{
	rv_buf_puts(&p->page, s);
}

/* Writes s with backslash and newline escaped, and the double quote too
 * when quote is set (label values; HELP text keeps its quotes). */
static void put_escaped(struct rv_promtext *p, const char *s, int quote)
{
	const char *run = s;

	for (; *s; s++) {
		const char *esc = NULL;

		if (*s == '\\')
			esc = "\\\\";
		else if (*s == '\n')
			esc = "\\n";
		else if (*s == '"' && quote)
			esc = "\\\"";
		if (!esc)
			continue;
		put(p, run, (size_t)(s - run));
		put(p, esc, 2);
		run = s + 1;
	}
	put(p, run, (size_t)(s - run));
}

static int name_ok(const char *name, int colon)
{
	const char *s = name;

	if (!s || !*s)
		return 0;
	for (; *s; s++) {
		char c = *s;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
			 (colon && c == ':') || (s != name && c >= '0' && c <= '9');

		if (!ok)
			return 0;
	}
	return 1;
}

int rv_prom_name_ok(const char *name)
{
	return name_ok(name, 1);
}

int rv_prom_label_name_ok(const char *name)
{
	return name_ok(name, 0);
}

void rv_prom_sanitize(const char *in, char *out, size_t cap)
{
	size_t n = 0;

	if (cap == 0)
		return;
	if ((*in >= '0' && *in <= '9') || *in == '\0') {
		if (n + 1 < cap)
			out[n++] = '_';
	}
	for (; *in && n + 1 < cap; in++) {
		char c = *in;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || c == ':';

		out[n++] = ok ? c : '_';
	}
	out[n] = '\0';
}

size_t rv_prom_fmt_value(double v, char *buf)
{
	int n;

	if (isnan(v))
		return (size_t)snprintf(buf, RV_PROM_VALUE_MAX, "NaN");
	if (isinf(v))
		return (size_t)snprintf(buf, RV_PROM_VALUE_MAX, v > 0 ? "+Inf" : "-Inf");
	if (v == trunc(v) && fabs(v) < PROM_INT_LIMIT)
		return (size_t)snprintf(buf, RV_PROM_VALUE_MAX, "%" PRId64, (int64_t)v);
	for (int prec = SHORTEST_FROM; prec < SHORTEST_TO; prec++) {
		n = snprintf(buf, RV_PROM_VALUE_MAX, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return (size_t)n;
	}
	return (size_t)snprintf(buf, RV_PROM_VALUE_MAX, "%.*g", SHORTEST_TO, v);
}

/* Index of the family `name` on this page, or -1. */
static long find_family(const struct rv_promtext *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nfams; i++) {
		const struct rv_prom_fam *f = &p->fams[i];

		if (f->len == len && memcmp(p->page.data + f->off, name, len) == 0)
			return (long)i;
	}
	return -1;
}

static int add_family(struct rv_promtext *p, size_t off, size_t len)
{
	if (p->nfams == p->fams_cap) {
		size_t cap = p->fams_cap ? p->fams_cap * 2 : PROM_FIRST_FAMS;
		struct rv_prom_fam *nf = realloc(p->fams, cap * sizeof(*nf));

		if (!nf)
			return p->page.failed = -ENOMEM;   /* sticky, as the page's own */
		p->fams = nf;
		p->fams_cap = cap;
	}
	p->fams[p->nfams].off = off;
	p->fams[p->nfams].len = len;
	p->nfams++;
	return 0;
}

static int type_ok(const char *type)
{
	for (size_t i = 0; type && i < sizeof(prom_types) / sizeof(prom_types[0]); i++)
		if (strcmp(type, prom_types[i]) == 0)
			return 1;
	return 0;
}

int rv_prom_family(struct rv_promtext *p, const char *name, const char *type,
		   const char *help)
{
	size_t len, off;
	long at;

	if (rv_buf_failed(&p->page))
		return rv_buf_failed(&p->page);
	if (!rv_prom_name_ok(name) || !type_ok(type))
		return -EINVAL;
	len = strlen(name);
	at = find_family(p, name, len);
	if (at >= 0)
		return (size_t)at + 1 == p->nfams ? 0 : -EEXIST;
	if (help) {
		put_str(p, "# HELP ");
		put(p, name, len);
		put_str(p, " ");
		put_escaped(p, help, 0);
		put_str(p, "\n");
	}
	put_str(p, "# TYPE ");
	off = p->page.len;
	put(p, name, len);
	put_str(p, " ");
	put_str(p, type);
	put_str(p, "\n");
	if (rv_buf_failed(&p->page))
		return rv_buf_failed(&p->page);
	return add_family(p, off, len);
}

/* 0 when labels is a well-formed k, v, ..., NULL list of distinct valid
 * label names. */
static int labels_ok(const char *const *labels)
{
	for (size_t i = 0; labels && labels[i]; i += 2) {
		if (!rv_prom_label_name_ok(labels[i]) || !labels[i + 1])
			return -EINVAL;
		for (size_t j = 0; j < i; j += 2)
			if (strcmp(labels[i], labels[j]) == 0)
				return -EINVAL;
	}
	return 0;
}

int rv_prom_sample(struct rv_promtext *p, const char *name,
		   const char *const *labels, double value)
{
	char num[RV_PROM_VALUE_MAX];
	size_t n;

	if (rv_buf_failed(&p->page))
		return rv_buf_failed(&p->page);
	if (!rv_prom_name_ok(name) || labels_ok(labels) < 0)
		return -EINVAL;
	put_str(p, name);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		put_str(p, i == 0 ? "{" : ",");
		put_str(p, labels[i]);
		put_str(p, "=\"");
		put_escaped(p, labels[i + 1], 1);
		put_str(p, "\"");
	}
	if (labels && labels[0])
		put_str(p, "}");
	n = rv_prom_fmt_value(value, num);
	put_str(p, " ");
	put(p, num, n);
	put_str(p, "\n");
	return rv_buf_failed(&p->page);
}
