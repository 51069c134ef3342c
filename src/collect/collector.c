/*
 * collector.c - see collector.h. Each channel's last valid raw value is
 * kept with its time (derive/derive.h, rv_derive_step); a rate needs it and
 * a raw value that did not go down.
 */
#include "collect/collector.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive/derive.h"
#include "derive/ratio.h"

enum { REASON_MAX = 256 };

struct opened {
	const struct rv_source *src;
	void *state;
	size_t first, n;                /* its channels in the frame */
	uint64_t last_ns, total_ns;     /* time in sample() */
};

struct unavail {
	const char *source;
	char reason[REASON_MAX];
};

struct rv_collector {
	struct rv_collect_cfg cfg;      /* as opened; its strings are borrowed */
	struct opened *src;
	size_t nsrc;
	struct unavail *un;
	size_t nun;
	struct rv_chanlist chans;
	size_t nraw;                    /* source channels; ratio channels follow */
	struct rv_ratio_plan *ratios;
	double *raw;                    /* raw values of this sweep */
	uint8_t *raw_ok;
	struct rv_derive_prev *prev;    /* each channel's last valid raw value */
};

static size_t registry_len(void)
{
	size_t n = 0;

	while (rv_sources[n])
		n++;
	return n;
}

/* Ratio channels (derive/ratio.h) over the source channels, appended. */
static int add_ratios(struct rv_collector *c, struct rv_err *err)
{
	const char **names = malloc((c->nraw ? c->nraw : 1) * sizeof(*names));
	int rc;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < c->nraw; i++)
		names[i] = c->chans.v[i].name;
	rc = rv_ratio_plan_new(names, c->nraw, &c->ratios);
	free(names);
	c->chans.source = "derive";
	for (size_t j = 0; !rc && j < rv_ratio_count(c->ratios); j++) {
		const char *name = rv_ratio_name(c->ratios, j), *colon = strchr(name, ':');

		rc = rv_chanlist_add(&c->chans, rv_ratio_metric(c->ratios, j)->name,
				     colon ? colon + 1 : NULL, 1.0, err);
	}
	return rc;
}

static int excluded(const struct rv_collect_cfg *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nexclude; i++)
		if (strcmp(cfg->exclude[i], name) == 0)
			return 1;
	return 0;
}

/* Every excluded name must be a source: a typo would otherwise leave the
 * source on without a word. */
static int check_exclude(const struct rv_collect_cfg *cfg, struct rv_err *err)
{
	for (size_t i = 0; i < cfg->nexclude; i++) {
		size_t k = 0;
		char known[512];
		size_t len = 0;

		while (rv_sources[k] && strcmp(rv_sources[k]->name, cfg->exclude[i]) != 0)
			k++;
		if (rv_sources[k])
			continue;
		known[0] = '\0';
		for (k = 0; rv_sources[k] && len < sizeof(known); k++)
			len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s",
						k ? ", " : "", rv_sources[k]->name);
		return rv_err_set(err, -EINVAL, "unknown source '%s' to exclude (sources: %s)",
				  cfg->exclude[i], known);
	}
	return 0;
}

size_t rv_collector_known_sources(const char *const **names)
{
	static const char *list[64];
	size_t n = 0;

	for (; rv_sources[n] && n < sizeof(list) / sizeof(list[0]); n++)
		list[n] = rv_sources[n]->name;
	*names = list;
	return n;
}

int rv_collector_open(const struct rv_collect_cfg *cfg, struct rv_collector **out,
		      struct rv_err *err)
{
	struct rv_collect_cfg local = { cfg && cfg->root ? cfg->root : "",
					cfg ? cfg->nvml_lib : NULL, cfg ? cfg->exclude : NULL,
					cfg && cfg->exclude ? cfg->nexclude : 0 };
	struct rv_collector *c;
	size_t nreg = registry_len();
	int rc;

	*out = NULL;
	if ((rc = check_exclude(&local, err)) != 0)
		return rc;
	c = calloc(1, sizeof(*c));
	if (!c)
		return rv_err_set(err, -ENOMEM, "collector: out of memory");
	c->cfg = local;
	c->src = calloc(nreg ? nreg : 1, sizeof(*c->src));
	c->un = calloc(nreg ? nreg : 1, sizeof(*c->un));
	if (!c->src || !c->un)
		goto oom;
	for (size_t i = 0; i < nreg; i++) {
		const struct rv_source *s = rv_sources[i];
		struct rv_err serr = { 0 };
		size_t first = c->chans.n;
		void *state = NULL;

		c->chans.source = s->name;
		if (excluded(&local, s->name)) {
			c->un[c->nun].source = s->name;
			snprintf(c->un[c->nun].reason, REASON_MAX, "excluded by configuration");
			c->nun++;
			continue;
		}
		rc = s->open(&local, &state, &c->chans, &serr);
		if (rc == -ENOMEM)
			goto oom;
		if (rc) {
			c->chans.n = first;     /* drop what a failed open added */
			c->un[c->nun].source = s->name;
			snprintf(c->un[c->nun].reason, REASON_MAX, "%s", rv_err_text(&serr, rc));
			c->nun++;
			continue;
		}
		c->src[c->nsrc++] = (struct opened){ .src = s, .state = state, .first = first,
						    .n = c->chans.n - first };
	}
	c->nraw = c->chans.n;
	if (add_ratios(c, err))
		goto oom;
	size_t n = c->chans.n ? c->chans.n : 1;

	c->raw = calloc(n, sizeof(*c->raw));
	c->prev = calloc(n, sizeof(*c->prev));
	c->raw_ok = calloc(n, 1);
	if (!c->raw || !c->prev || !c->raw_ok)
		goto oom;
	*out = c;
	return 0;
oom:
	rv_collector_close(c);
	return rv_err_set(err, -ENOMEM, "collector: out of memory");
}

void rv_collector_close(struct rv_collector *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nsrc; i++)
		c->src[i].src->close(c->src[i].state);
	free(c->src);
	free(c->un);
	rv_chanlist_fini(&c->chans);
	rv_ratio_plan_free(c->ratios);
	free(c->raw);
	free(c->prev);
	free(c->raw_ok);
	free(c);
}

/* The same channels, by name and in order. */
static int same_channels(const struct rv_collector *a, const struct rv_collector *b)
{
	if (a->chans.n != b->chans.n || a->nraw != b->nraw)
		return 0;
	for (size_t i = 0; i < a->chans.n; i++)
		if (strcmp(a->chans.v[i].name, b->chans.v[i].name) != 0)
			return 0;
	return 1;
}

int rv_collector_rediscover(struct rv_collector *c, struct rv_err *err)
{
	struct rv_collector *fresh = NULL, old;
	int rc = rv_collector_open(&c->cfg, &fresh, err);

	if (rc)
		return rc;
	if (same_channels(c, fresh)) {
		rv_collector_close(fresh);
		return 0;
	}
	old = *c;
	*c = *fresh;
	*fresh = old;
	rv_collector_close(fresh);
	return 1;
}

size_t rv_collector_nchan(const struct rv_collector *c)
{
	return c->chans.n;
}

const struct rv_chan *rv_collector_chan(const struct rv_collector *c, size_t i)
{
	return i < c->chans.n ? &c->chans.v[i] : NULL;
}

size_t rv_collector_nunavail(const struct rv_collector *c)
{
	return c->nun;
}

const char *rv_collector_unavail_source(const struct rv_collector *c, size_t i)
{
	return i < c->nun ? c->un[i].source : NULL;
}

const char *rv_collector_unavail_reason(const struct rv_collector *c, size_t i)
{
	return i < c->nun ? c->un[i].reason : NULL;
}

size_t rv_collector_nsources(const struct rv_collector *c)
{
	return c->nsrc;
}

void rv_collector_source_stats(const struct rv_collector *c, size_t i, const char **name,
			       size_t *nchan, uint64_t *last_ns, uint64_t *total_ns)
{
	const struct opened *o = &c->src[i];

	*name = o->src->name;
	*nchan = o->n;
	*last_ns = o->last_ns;
	*total_ns = o->total_ns;
}

size_t rv_collector_nraw(const struct rv_collector *c)
{
	return c->nraw;
}

void rv_collector_raw(const struct rv_collector *c, const double **raw, const uint8_t **valid)
{
	*raw = c->raw;
	*valid = c->raw_ok;
}

size_t rv_collector_sample(struct rv_collector *c, rv_ns now, double *values, uint8_t *valid)
{
	size_t n = c->nraw, good = 0;
	rv_ns t = rv_clock_ns(), t1;

	memset(c->raw_ok, 0, n);
	for (size_t i = 0; i < c->nsrc; i++) {
		struct opened *o = &c->src[i];

		o->src->sample(o->state, c->raw + o->first, c->raw_ok + o->first);
		t1 = rv_clock_ns();
		o->last_ns = t1 - t;
		o->total_ns += t1 - t;
		t = t1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rv_chan *ch = &c->chans.v[i];

		valid[i] = (uint8_t)rv_derive_step(ch->metric->kind, ch->scale, c->raw[i],
						   c->raw_ok[i], (int64_t)now, &c->prev[i],
						   &values[i]);
		good += valid[i];
	}
	rv_ratio_apply(c->ratios, values, valid, values + n, valid + n);
	for (size_t j = n; j < c->chans.n; j++)
		good += valid[j];
	return good;
}
