/*
 * parse.c - option value parsing shared by the commands.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "cli/cli.h"
#include "explain/report.h"
#include "pipeline/model.h"
#include "record/csv.h"

struct unit {
	const char *suffix;
	double seconds;
};

static const struct unit time_units[] = {
	{ "ms", 1e-3 }, { "s", 1.0 }, { "m", 60.0 }, { "min", 60.0 }, { "h", 3600.0 },
};

int rv_cli_parse_span(const char *s, struct rv_span *out)
{
	const char *p = s, *end = s + strlen(s);
	double v;

	if (rv_str_double(&p, end, &v) != 0 || !isfinite(v) || v <= 0.0)
		return -EINVAL;
	if (p == end) {
		if (v != floor(v))
			return -EINVAL;
		out->value = v;
		out->seconds = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++)
		if (strcmp(p, time_units[i].suffix) == 0) {
			out->value = v * time_units[i].seconds;
			out->seconds = 1;
			return 0;
		}
	return -EINVAL;
}

int rv_cli_parse_size(const char *s, unsigned long long max, unsigned long long *out)
{
	const char *p = s, *end = s + strlen(s);
	uint64_t v;

	if (rv_str_u64(&p, end, &v) != 0 || p != end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int rv_cli_parse_real(const char *s, double lo, double hi, double *out)
{
	const char *p = s, *end = s + strlen(s);
	double v;

	if (rv_str_double(&p, end, &v) != 0 || p != end || !(v >= lo && v <= hi))
		return -EINVAL;
	*out = v;
	return 0;
}

int rv_cli_add_exclude(struct rv_cli_exclude *x, const char *arg)
{
	const char *p = arg;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == 0)
			return -EINVAL;
		if (x->n >= RV_CLI_EXCLUDE_MAX || x->used + len + 1 > sizeof(x->buf))
			return -E2BIG;
		memcpy(x->buf + x->used, p, len);
		x->buf[x->used + len] = '\0';
		x->names[x->n++] = x->buf + x->used;
		x->used += len + 1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* --------------------------------------------------------------- times */

/* An age "30m", "2h", "7d", "90s": seconds, or -1 when s is not one. */
static double parse_age(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !isfinite(v) || v < 0 || end[0] == '\0' || end[1] != '\0')
		return -1;
	switch (end[0]) {
	case 's': return v;
	case 'm': return v * 60;
	case 'h': return v * 3600;
	case 'd': return v * 86400;
	default: return -1;
	}
}

int rv_cli_parse_time(const char *s, double now, double *out)
{
	char *end;
	double age = parse_age(s), v;

	if (age >= 0) {
		*out = now - age;
		return 0;
	}
	v = strtod(s, &end);
	if (end != s && *end == '\0' && isfinite(v)) {
		*out = v;
		return 0;
	}
	return rv_csv_parse_time(s, s + strlen(s), out) == 0 ? 0 : -EINVAL;
}

/* ------------------------------------------------------------- formats */

int rv_cli_format_pick(int given, const char *out)
{
	static const struct { const char *ext; enum rv_report_format f; } by_ext[] = {
		{ ".html", RV_REPORT_HTML }, { ".htm", RV_REPORT_HTML }, { ".md", RV_REPORT_MARKDOWN },
		{ ".json", RV_REPORT_JSON }, { ".txt", RV_REPORT_TEXT },
	};
	size_t n = out ? strlen(out) : 0;

	if (given >= 0)
		return given;
	for (size_t i = 0; i < sizeof(by_ext) / sizeof(by_ext[0]); i++) {
		size_t e = strlen(by_ext[i].ext);

		if (n > e && strcmp(out + n - e, by_ext[i].ext) == 0)
			return (int)by_ext[i].f;
	}
	return RV_REPORT_TEXT;
}
