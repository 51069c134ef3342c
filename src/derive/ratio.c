/*
 * ratio.c - see ratio.h. value = num / den * scale, times a third input
 * when the rule has one (busy MHz = aperf / mperf * tsc rate / 10^6).
 */
#include "derive/ratio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RATIO_NAME_MAX = 96, NO_INPUT = SIZE_MAX };

struct rule {
	const char *out, *num, *den, *mul;  /* metric types; mul may be NULL */
	double scale;
};

static const struct rule rules[] = {
	{ "cpu.ipc", "cpu.instructions", "cpu.cycles", NULL, 1.0 },
	{ "cpu.cache_miss_pct", "cpu.cache_misses", "cpu.cache_references", NULL, 100.0 },
	{ "cpu.branch_miss_pct", "cpu.branch_misses", "cpu.branches", NULL, 100.0 },
	{ "cpu.busy_mhz", "cpu.aperf", "cpu.mperf", "cpu.tsc", 1e-6 },
	{ "net.tcp_retrans_pct", "net.tcp_retrans_segs", "net.tcp_out_segs", NULL, 100.0 },
	{ "net.tcp_data_segment_bytes", "net.ipext_out_octets", "net.tcpext_tcp_orig_data_sent",
	  NULL, 1.0 },
};

struct ratio {
	char name[RATIO_NAME_MAX];
	const struct rv_metric *metric;
	size_t num, den, mul;               /* input indices; mul NO_INPUT if none */
	double scale;
};

struct rv_ratio_plan {
	struct ratio *r;
	size_t n;
};

/* Index of channel "type" + suffix (suffix "" or ":inst"), or NO_INPUT. */
static size_t find(const char *const *names, size_t n, const char *type, const char *suffix)
{
	size_t tl = strlen(type);

	for (size_t i = 0; i < n; i++)
		if (strncmp(names[i], type, tl) == 0 && strcmp(names[i] + tl, suffix) == 0)
			return i;
	return NO_INPUT;
}

/* For channel i of type rule->num, the ratio it anchors (0 if an input or
 * the catalog entry is missing). */
static int plan_one(const struct rule *ru, const char *const *names, size_t n, size_t i,
		    struct ratio *out)
{
	const char *suffix = names[i] + strlen(ru->num);

	out->metric = rv_catalog_metric(ru->out);
	out->num = i;
	out->den = find(names, n, ru->den, suffix);
	out->mul = ru->mul ? find(names, n, ru->mul, suffix) : NO_INPUT;
	out->scale = ru->scale;
	if (!out->metric || out->den == NO_INPUT || (ru->mul && out->mul == NO_INPUT))
		return 0;
	return snprintf(out->name, sizeof(out->name), "%s%s", ru->out, suffix) <
	       (int)sizeof(out->name);
}

int rv_ratio_plan_new(const char *const *names, size_t n, struct rv_ratio_plan **out)
{
	struct rv_ratio_plan *p = calloc(1, sizeof(*p));
	size_t cap = 0;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
		size_t nl = strlen(rules[k].num);

		for (size_t i = 0; i < n; i++) {
			struct ratio r;

			if (strncmp(names[i], rules[k].num, nl) != 0 ||
			    (names[i][nl] != '\0' && names[i][nl] != ':') ||
			    !plan_one(&rules[k], names, n, i, &r))
				continue;
			if (p->n == cap) {
				struct ratio *v = realloc(p->r, (cap ? 2 * cap : 16) * sizeof(*v));

				if (!v) {
					rv_ratio_plan_free(p);
					return -ENOMEM;
				}
				p->r = v;
				cap = cap ? 2 * cap : 16;
			}
			p->r[p->n++] = r;
		}
	}
	*out = p;
	return 0;
}

void rv_ratio_plan_free(struct rv_ratio_plan *p)
{
	if (!p)
		return;
	free(p->r);
	free(p);
}

size_t rv_ratio_count(const struct rv_ratio_plan *p)
{
	return p ? p->n : 0;
}

const char *rv_ratio_name(const struct rv_ratio_plan *p, size_t j)
{
	return p->r[j].name;
}

const struct rv_metric *rv_ratio_metric(const struct rv_ratio_plan *p, size_t j)
{
	return p->r[j].metric;
}

size_t rv_ratio_inputs(const struct rv_ratio_plan *p, size_t j, size_t idx[3])
{
	const struct ratio *r = &p->r[j];

	idx[0] = r->num;
	idx[1] = r->den;
	if (r->mul == NO_INPUT)
		return 2;
	idx[2] = r->mul;
	return 3;
}

void rv_ratio_apply(const struct rv_ratio_plan *p, const double *v, const uint8_t *ok,
		    double *out, uint8_t *out_ok)
{
	for (size_t j = 0; p && j < p->n; j++) {
		const struct ratio *r = &p->r[j];
		int good = ok[r->num] && ok[r->den] && v[r->den] > 0.0 &&
			   (r->mul == NO_INPUT || ok[r->mul]);
		double x = good ? v[r->num] / v[r->den] * r->scale : 0.0;

		if (good && r->mul != NO_INPUT)
			x *= v[r->mul];
		out[j] = x;
		out_ok[j] = (uint8_t)good;
	}
}
