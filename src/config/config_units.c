/*
 * config_units.c - durations and sizes of the configuration, both ways:
 * parsed from "100ms" / "64MiB" and written back as text that parses to
 * the same value (the writer picks the largest unit that holds a value
 * exactly). Also the range text of a key and a UTF-8 decoder. See
 * config.h and config_int.h.
 */
#include "config/config_int.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/strparse.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Whole numbers below this print exactly with "%.0f" (and in at most 15 digits). */
#define EXACT_WHOLE_MAX 1e15

struct unit {
	const char *suffix;
	double scale;
	int divide;  /* value / scale rather than value * scale (exact for ms) */
	int alias;   /* parsed, never written */
};

/* Largest first: the writer uses the first unit that represents a value exactly. */
static const struct unit dur_units[] = {
	{ "d", 86400.0, 0, 0 }, { "h", 3600.0, 0, 0 }, { "min", 60.0, 0, 1 },
	{ "m", 60.0, 0, 0 }, { "s", 1.0, 0, 0 }, { "ms", 1000.0, 1, 0 },
};

struct size_unit {
	const char *suffix;
	uint64_t scale;
	int alias;
};

static const struct size_unit size_units[] = {
	{ "EiB", 1ULL << 60, 0 }, { "PiB", 1ULL << 50, 0 }, { "TiB", 1ULL << 40, 0 },
	{ "GiB", 1ULL << 30, 0 }, { "MiB", 1ULL << 20, 0 }, { "KiB", 1ULL << 10, 0 },
	{ "EB", 1000000000000000000ULL, 0 }, { "PB", 1000000000000000ULL, 0 },
	{ "TB", 1000000000000ULL, 0 }, { "GB", 1000000000ULL, 0 }, { "MB", 1000000ULL, 0 },
	{ "kB", 1000ULL, 0 }, { "KB", 1000ULL, 1 }, { "B", 1ULL, 1 },
};

int rv_config_parse_duration(const char *s, double *seconds)
{
	const char *p = s, *end = s + strlen(s);
	double v;
	int rc = rv_str_double(&p, end, &v);

	if (rc)
		return rc == -ERANGE ? -ERANGE : -EINVAL;
	if (isnan(v) || signbit(v))
		return -EINVAL;
	if (isinf(v))  /* "inf" and "infinity" end in a letter, "1e999" in a digit */
		return (p[-1] >= '0' && p[-1] <= '9') ? -ERANGE : -EINVAL;
	if (p == end) {
		if (v != 0.0)
			return -EINVAL;
		*seconds = 0.0;
		return 0;
	}
	for (size_t i = 0; i < NELEM(dur_units); i++) {
		const struct unit *u = &dur_units[i];
		double r;

		if (!rv_str_eq(p, end, u->suffix))
			continue;
		r = u->divide ? v / u->scale : v * u->scale;
		if (!isfinite(r))
			return -ERANGE;
		*seconds = r;
		return 0;
	}
	return -EINVAL;
}

int rv_config_parse_bytes(const char *s, uint64_t *bytes)
{
	const char *p = s, *end = s + strlen(s);
	uint64_t v;
	int rc = rv_str_u64(&p, end, &v);

	if (rc)
		return rc;
	if (p == end) {
		*bytes = v;
		return 0;
	}
	for (size_t i = 0; i < NELEM(size_units); i++) {
		if (!rv_str_eq(p, end, size_units[i].suffix))
			continue;
		if (v > UINT64_MAX / size_units[i].scale)
			return -ERANGE;
		*bytes = v * size_units[i].scale;
		return 0;
	}
	return -EINVAL;
}

/* v with the fewest significant digits that read back to the same double. */
static void fmt_shortest(double v, const char *suffix, char *buf, size_t n)
{
	for (int prec = 1; prec <= DBL_DECIMAL_DIG; prec++) {
		const char *p = buf;
		double back;

		snprintf(buf, n, "%.*g", prec, v);
		if (rv_str_double(&p, buf + strlen(buf), &back) == 0 && back == v)
			break;
	}
	snprintf(buf + strlen(buf), n - strlen(buf), "%s", suffix);
}

/* v in the largest unit that holds it exactly; reparses to the same double. */
void rv_cfg_fmt_duration(double v, char *buf, size_t n)
{
	if (v == 0.0 && !signbit(v)) {
		snprintf(buf, n, "0");
		return;
	}
	for (size_t i = 0; isfinite(v) && i < NELEM(dur_units); i++) {
		const struct unit *u = &dur_units[i];
		double k = u->divide ? round(v * u->scale) : round(v / u->scale);
		double back = u->divide ? k / u->scale : k * u->scale;

		if (u->alias || back != v || k <= 0.0 || k >= EXACT_WHOLE_MAX)
			continue;
		snprintf(buf, n, "%.0f%s", k, u->suffix);
		return;
	}
	fmt_shortest(v, "s", buf, n);
}

void rv_cfg_fmt_bytes(uint64_t v, char *buf, size_t n)
{
	for (size_t i = 0; v != 0 && i < NELEM(size_units); i++) {
		const struct size_unit *u = &size_units[i];

		if (u->alias || v % u->scale != 0)
			continue;
		snprintf(buf, n, "%" PRIu64 "%s", v / u->scale, u->suffix);
		return;
	}
	snprintf(buf, n, "%" PRIu64, v);
}

void rv_cfg_fmt_span(const struct rv_cfg_span *s, char *buf, size_t n)
{
	if (s->seconds)
		rv_cfg_fmt_duration(s->value, buf, n);
	else if (s->value == floor(s->value) && fabs(s->value) < EXACT_WHOLE_MAX)
		snprintf(buf, n, "%.0f", s->value);
	else
		fmt_shortest(s->value, "", buf, n);
}

/* The value of a field of type K_DUR, K_SIZE, K_UINT, K_BOOL, K_ENUM or
 * K_SPAN as the loader reads it ("100ms", "1GiB", "true", "info"). */
void rv_cfg_fmt_field(const struct rv_cfg_key *k, const void *base, char *buf, size_t n)
{
	const char *field = (const char *)base + k->off;
	int v, nchoices = 0;

	switch (k->type) {
	case K_DUR:
		rv_cfg_fmt_duration(*(const double *)field, buf, n);
		return;
	case K_SIZE:
		rv_cfg_fmt_bytes(*(const uint64_t *)field, buf, n);
		return;
	case K_UINT:
		snprintf(buf, n, "%u", *(const unsigned *)field);
		return;
	case K_BOOL:
		snprintf(buf, n, "%s", *(const bool *)field ? "true" : "false");
		return;
	case K_ENUM:
		v = *(const int *)field;
		while (k->choices[nchoices])
			nchoices++;
		if (v >= 0 && v < nchoices)
			snprintf(buf, n, "%s", k->choices[v]);
		else
			snprintf(buf, n, "%d", v);
		return;
	case K_SPAN:
		rv_cfg_fmt_span((const struct rv_cfg_span *)field, buf, n);
		return;
	default:
		snprintf(buf, n, "?");
		return;
	}
}

/* "10ms..10s", "0, or 1m..30d", "1..1024", "error | warn | info | debug". */
void rv_cfg_range_text(const struct rv_cfg_key *k, char *buf, size_t n)
{
	char lo[CFG_TEXT_MAX], hi[CFG_TEXT_MAX], samples[CFG_TEXT_MAX] = "";
	size_t used = 0;

	buf[0] = '\0';
	if (k->type == K_ENUM) {
		for (size_t i = 0; k->choices[i]; i++)
			used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s",
						 i ? " | " : "", k->choices[i]);
		return;
	}
	if (k->type == K_DUR || k->type == K_SPAN) {
		rv_cfg_fmt_duration(k->min, lo, sizeof(lo));
		rv_cfg_fmt_duration(k->max, hi, sizeof(hi));
	} else if (k->type == K_SIZE) {
		rv_cfg_fmt_bytes((uint64_t)k->min, lo, sizeof(lo));
		rv_cfg_fmt_bytes((uint64_t)k->max, hi, sizeof(hi));
	} else if (k->type == K_UINT) {
		snprintf(lo, sizeof(lo), "%.0f", k->min);
		snprintf(hi, sizeof(hi), "%.0f", k->max);
	} else {
		return;
	}
	if (k->type == K_SPAN)
		snprintf(samples, sizeof(samples), ", or 1..%d samples", RV_CFG_SPAN_SAMPLES_MAX);
	snprintf(buf, n, "%s%s..%s%s", (k->flags & K_ZERO_OK) ? "0, or " : "", lo, hi, samples);
}

size_t rv_cfg_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	static const uint32_t min_cp[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
		   : s[0] >= 0xe0 && s[0] < 0xf0 ? 3 : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
	uint32_t v;

	if (len == 0 || len > n)
		return 0;
	v = len == 1 ? s[0] : s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min_cp[len] || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return len;
}

int rv_cfg_utf8_valid(const char *s, size_t n)
{
	uint32_t cp;

	for (size_t i = 0, l; i < n; i += l)
		if ((l = rv_cfg_utf8_next((const unsigned char *)s + i, n - i, &cp)) == 0)
			return 0;
	return 1;
}

