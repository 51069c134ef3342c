/*
 * parse.c - option value parsing shared by the commands.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "base/strparse.h"
#include "cli/cli.h"
#include "pipeline/model.h"

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
