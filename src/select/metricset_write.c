/*
 * metricset_write.c - writes a metric-set file (rv_metricset_write, see
 * metricset.h) that metricset.c reads back: names plain where YAML reads
 * them as written, else double-quoted; r to 4 decimals.
 */
#include "select/metricset.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "base/utf8.h"

/* 1 when s may be written as a plain scalar in block and flow context. */
static int plain_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || s[n - 1] == ':')
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_.:/-", *p)))
			return 0;
	return (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9');
}

/* The code point of the valid n-byte UTF-8 sequence at p (n >= 2). */
static unsigned long code_point(const unsigned char *p, size_t n)
{
	unsigned long cp = p[0] & (0x7f >> n);

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

/* 1 for a character YAML does not take raw in a quoted scalar: a C1
 * control, a line break it folds (NEL, LS, PS), a BOM, a non-character. */
static int needs_escape(unsigned long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff ||
	       cp == 0xfffe || cp == 0xffff;
}

/* s in double quotes: '"' and '\\' escaped, controls and the characters
 * of needs_escape as \uNNNN, bytes that start no valid UTF-8 sequence as
 * \xNN (the code point of that byte: not UTF-8, the text cannot be kept). */
static void write_quoted(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n = rv_utf8_len(p);

		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (n == 0 || *p < ' ' || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else if (n > 1 && needs_escape(code_point(p, n)))
			fprintf(f, "\\u%04lx", code_point(p, n));
		else
			fwrite(p, 1, n, f);
		p += n ? n : 1;
	}
	fputc('"', f);
}

static void write_name(FILE *f, const char *s)
{
	if (plain_ok(s))
		fputs(s, f);
	else
		write_quoted(f, s);
}

/* Checks every name and r. */
static int check_names(const struct rv_metricset_spec *s, struct rv_err *err)
{
	size_t n = s->nkeep + 2 * s->ndrop + s->nconstant;

	if (s->nkeep == 0)
		return rv_err_set(err, -EINVAL, "a metric set keeps at least one channel");
	for (size_t i = 0; i < n; i++) {
		const char *name = i < s->nkeep ? s->keep[i]
			: i < s->nkeep + s->ndrop ? s->drop[i - s->nkeep].channel
			: i < s->nkeep + 2 * s->ndrop ? s->drop[i - s->nkeep - s->ndrop].kept
			: s->constant[i - s->nkeep - 2 * s->ndrop];

		if (!rv_metricset_valid_name(name))
			return rv_err_set(err, -EINVAL, "channel '%s' is not a channel name (a metric "
					  "type of [a-z0-9_.-], then ':' and an instance)",
					  name ? name : "(null)");
	}
	for (size_t i = 0; i < s->ndrop; i++)
		if (!(fabs(s->drop[i].r) <= 1.0))
			return rv_err_set(err, -EINVAL, "channel '%s': r %g is not a correlation",
					  s->drop[i].channel, s->drop[i].r);
	return 0;
}

static void write_list(FILE *f, const char *key, const char *const *v, size_t n)
{
	fprintf(f, "%s:%s\n", key, n ? "" : " []");
	for (size_t i = 0; i < n; i++) {
		fputs("  - ", f);
		write_name(f, v[i]);
		fputc('\n', f);
	}
}

int rv_metricset_write(FILE *f, const struct rv_metricset_spec *s, struct rv_err *err)
{
	int rc = check_names(s, err);

	if (rc)
		return rc;
	fprintf(f, "# reveal metric set (reveal prune): %zu kept, %zu dropped, %zu constant\n",
		s->nkeep, s->ndrop, s->nconstant);
	fputs("version: 1\n", f);
	if (!isnan(s->threshold))
		fprintf(f, "threshold: %.6g\n", s->threshold);
	fputs("inputs:", f);
	for (size_t i = 0; i < s->ninputs; i++) {
		fputs(i ? ", " : " [", f);
		write_quoted(f, s->inputs[i]);
	}
	fputs(s->ninputs ? "]\n" : " []\n", f);
	write_list(f, "keep", s->keep, s->nkeep);
	fprintf(f, "drop:%s\n", s->ndrop ? "" : " []");
	for (size_t i = 0; i < s->ndrop; i++) {
		fputs("  - {channel: ", f);
		write_name(f, s->drop[i].channel);
		fputs(", kept: ", f);
		write_name(f, s->drop[i].kept);
		fprintf(f, ", r: %.4f}\n", s->drop[i].r);
	}
	write_list(f, "constant", s->constant, s->nconstant);
	if (ferror(f))
		return rv_err_set(err, -EIO, "writing the metric set failed");
	return 0;
}
