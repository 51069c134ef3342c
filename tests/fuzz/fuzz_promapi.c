/*
 * fuzz_promapi.c - libFuzzer target of the parser of the Prometheus HTTP
 * API's answers (remote/promapi.h, rv_prom_parse). The input's first byte
 * picks the endpoint (low 2 bits: query_range, query, series, label
 * values) and the limits (bit 2: small ones, so -E2BIG is reached); the
 * rest is the answer. A refusal must carry one of the documented codes,
 * the same code in err and a message of one line, and leave the result
 * empty. An accepted answer must be of a type its endpoint answers, its
 * counts must add up and stay within the limits, every label name must
 * be a non-empty string and every string valid UTF-8, and the timestamps
 * of a series must increase strictly. The rest of the answer is also read
 * as an error body (rv_prom_api_error) and made printable
 * (rv_prom_printable), whose output must be one line of valid UTF-8.
 * Build and run: tests/fuzz/README.md.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "remote/promapi.h"
#include "remote/promapi_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { SMALL_SERIES = 4, SMALL_POINTS = 16, SMALL_BODY = 4096, SHOW = 64 };

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_promapi: %s: %s\n", what, detail);
	abort();
}

/* s is valid UTF-8 without control characters when printable is set. */
static void check_text(const char *s, int printable)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = rv_utf8_len(p);

		if (n == 0)
			die("not UTF-8", s);
		if (printable && (*p < ' ' || *p == 0x7F))
			die("a control character in a message", s);
		p += n;
	}
}

static int code_ok(int rc)
{
	static const int codes[] = { -EBADMSG, -E2BIG, -EINVAL, -ETIMEDOUT, -ECANCELED,
				     -ENOENT, -EAGAIN, -ENOTSUP, -EIO, -EACCES };

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (rc == codes[i])
			return 1;
	return 0;
}

static void check_series(const struct rv_prom_series *s, enum rv_prom_type type)
{
	for (size_t i = 0; i < s->nlabels; i++) {
		if (!s->labels[i].name[0])
			die("an empty label name", "");
		check_text(s->labels[i].name, 0);
		check_text(s->labels[i].value, 0);
		if (rv_prom_label(s, s->labels[i].name) == NULL)
			die("a label not found by its name", s->labels[i].name);
	}
	if ((type == RV_PROM_VECTOR || type == RV_PROM_SCALAR) && s->npoints != 1)
		die("not one point", "");
	if (type == RV_PROM_LABELSETS && s->npoints != 0)
		die("points in a label set", "");
	for (size_t j = 1; j < s->npoints; j++)
		if (!(s->t[j] > s->t[j - 1]))
			die("time not increasing", "");
}

static void check_result(const struct rv_prom_result *r, enum rv_prom_kind kind,
			 const struct rv_prom_limits *lim)
{
	size_t points = 0;

	if ((kind == RV_PROM_QUERY_RANGE && r->type != RV_PROM_MATRIX) ||
	    (kind == RV_PROM_SERIES && r->type != RV_PROM_LABELSETS) ||
	    (kind == RV_PROM_LABEL_VALUES && r->type != RV_PROM_STRINGS) ||
	    (kind == RV_PROM_QUERY && r->type > RV_PROM_SCALAR))
		die("a type the endpoint does not answer", "");
	for (size_t i = 0; i < r->nseries; i++) {
		check_series(&r->series[i], r->type);
		points += r->series[i].npoints;
	}
	if (points != r->npoints || r->npoints > lim->max_points ||
	    r->nseries > lim->max_series || r->nvalues > lim->max_series)
		die("counts do not add up or pass a limit", "");
	for (size_t i = 0; i < r->nvalues; i++)
		check_text(r->values[i], 0);
	for (size_t i = 0; i < r->nwarnings; i++)
		check_text(r->warnings[i], 0);
	if (r->partial && r->nwarnings == 0)
		die("isPartial without its warning", "");
}

static void check_helpers(const char *body, size_t len)
{
	struct rv_err err = { 0 };
	char show[SHOW];
	int rc = rv_prom_api_error(body, len, &err);

	if (rc > 0 || (rc < 0 && (!code_ok(rc) || err.code != rc)))
		die("rv_prom_api_error: a bad code", err.msg);
	if (rc < 0)
		check_text(err.msg, 1);
	if (rv_prom_printable(show, sizeof(show), body, len) > len)
		die("rv_prom_printable read past the end", "");
	check_text(show, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rv_prom_limits lim = { 0 };
	struct rv_prom_result r = { 0 };
	struct rv_err err = { 0 };
	enum rv_prom_kind kind;
	const char *body;
	size_t len;
	int rc;

	if (size == 0)
		return 0;
	kind = (enum rv_prom_kind)(data[0] & 3);
	if (data[0] & 4)
		lim = (struct rv_prom_limits){ SMALL_BODY, SMALL_SERIES, SMALL_POINTS };
	body = (const char *)data + 1;
	len = size - 1;
	rc = rv_prom_parse(body, len, kind, &lim, &r, &err);
	rv_prom_limits_resolve(&lim, &lim);
	if (rc == 0) {
		check_result(&r, kind, &lim);
	} else {
		if (!code_ok(rc) || err.code != rc || !err.msg[0])
			die("a refusal without its code or message", err.msg);
		check_text(err.msg, 1);
		if (r.mem || r.series || r.nseries || r.npoints || r.nvalues || r.nwarnings)
			die("a refusal left a result", err.msg);
	}
	rv_prom_result_fini(&r);
	check_helpers(body, len);
	return 0;
}
