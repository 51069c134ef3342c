/*
 * collector.c - see collector.h. Each channel's last valid raw value is
 * kept with its time (derive/derive.h, rv_derive_step); a rate needs it and
 * a raw value that did not go down. The filter (cfg->keep) is applied once
 * per open: sources open as without it, then the channels are chosen.
 */
#include "collect/collector.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/readcost.h"
#include "derive/derive.h"
#include "derive/ratio.h"

enum { REASON_MAX = 256 };

/* What the filter says of a channel read by a source. */
enum { NEED_NONE, NEED_KEEP, NEED_READ /* only as a kept ratio's input */ };

struct opened {
	const struct rv_source *src;
	void *state;
	size_t first, n;                /* its slots in full[] */
	size_t nread;                   /* of them in the raw list */
	uint64_t last_ns, total_ns;     /* time in sample() */
	uint64_t read_ns, reads;        /* of it, in rv_pread (while profiling) */
};

struct unavail {
	const char *source;
	char reason[REASON_MAX];
};

/*
 * Buffers of a sweep: sources write every channel they opened into
 * full[]; the raw list gathers those read (rsel); derive turns them into
 * values dv[0, nraw), the ratios follow at dv[nraw...]; the frame gathers
 * the kept ones (fsel). Without a filter every gather is the identity.
 */
struct rv_collector {
	struct rv_collect_cfg cfg;      /* as opened; root, nvml_lib and exclude
					 * point to the copies below */
	char *own_root, *own_nvml;
	char **own_exclude;
	struct opened *src;
	size_t nsrc;
	struct unavail *un;
	size_t nun, uncap;
	struct rv_chanlist raw;         /* channels read */
	struct rv_chanlist chans;       /* the frame: kept raw channels, kept ratios */
	struct rv_ratio_plan *ratios;   /* over the raw list */
	size_t nfull;
	double *full;
	uint8_t *full_ok;
	size_t *rsel;                   /* raw.n: raw channel k is full[rsel[k]] */
	double *rawv;                   /* raw values of this sweep (counters as totals) */
	uint8_t *raw_ok;                /* both are full[] and full_ok[] when every
					 * channel read is in the raw list */
	struct rv_derive_prev *prev;    /* each raw channel's last valid raw value */
	double *dv;                     /* raw.n + ratios: values of this sweep */
	uint8_t *dok;
	size_t *fsel;                   /* chans.n: frame channel i is dv[fsel[i]] */
	size_t nleft;                   /* channels the filter left out of the frame */
	uint64_t derive_ns;             /* time in rates, ratios and the frame, all sweeps */
	uint64_t sweeps;                /* rv_collector_read calls: paces the slow sources */
};

static size_t registry_len(void)
{
	size_t n = 0;

	while (rv_sources[n])
		n++;
	return n;
}

static int keeps(const struct rv_collect_cfg *cfg, const char *name)
{
	return !cfg->keep || cfg->keep(cfg->keep_ctx, name) != 0;
}

/* The ratio plan over a channel list's names. */
static int plan_ratios(const struct rv_chanlist *l, struct rv_ratio_plan **out)
{
	const char **names = malloc((l->n ? l->n : 1) * sizeof(*names));
	int rc;

	*out = NULL;
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		names[i] = l->v[i].name;
	rc = rv_ratio_plan_new(names, l->n, out);
	free(names);
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

/* 0 or -ENOMEM (only once the registry's one slot per source is used:
 * parts of sources noted by open()). */
static int unavailable(struct rv_collector *c, const char *source, const char *reason)
{
	if (c->nun == c->uncap) {
		size_t cap = 2 * c->uncap;
		struct unavail *v = realloc(c->un, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->un = v;
		c->uncap = cap;
	}
	c->un[c->nun].source = source;
	snprintf(c->un[c->nun].reason, REASON_MAX, "%s", reason);
	c->nun++;
	return 0;
}

/* The parts an opened source noted it cannot give (source.h); the notes
 * from `first` on. 0 or -ENOMEM. */
static int take_notes(struct rv_collector *c, struct rv_chanlist *all, size_t first)
{
	int rc = 0;

	for (size_t k = first; !rc && k < all->nnotes; k++)
		rc = unavailable(c, all->notes[k].part, all->notes[k].reason);
	return rc;
}

/* Opens every source not excluded, its channels appended to all; the
 * opened ones go to c->src with their slots in all. 0 or -ENOMEM. */
static int open_sources(struct rv_collector *c, struct rv_chanlist *all)
{
	for (size_t i = 0; rv_sources[i]; i++) {
		const struct rv_source *s = rv_sources[i];
		struct rv_err serr = { 0 };
		size_t first = all->n, notes = all->nnotes;
		void *state = NULL;
		int rc;

		all->source = s->name;
		if (excluded(&c->cfg, s->name)) {
			if (unavailable(c, s->name, "excluded by configuration"))
				return -ENOMEM;
			continue;
		}
		rc = s->open(&c->cfg, &state, all, &serr);
		if (rc == -ENOMEM)
			return rc;
		if (rc) {
			all->n = first;         /* drop what a failed open added */
			all->nnotes = notes;
			if (unavailable(c, s->name, rv_err_text(&serr, rc)))
				return -ENOMEM;
			continue;
		}
		c->src[c->nsrc++] = (struct opened){ .src = s, .state = state, .first = first,
						    .n = all->n - first };
		if (take_notes(c, all, notes))
			return -ENOMEM;
	}
	return 0;
}

/* need[i] for every channel of all: kept by the filter, or read as the
 * input of a kept ratio; c->nleft, the channels (ratios too) not kept.
 * 0 or -ENOMEM. */
static int mark_needed(struct rv_collector *c, const struct rv_chanlist *all, uint8_t *need)
{
	struct rv_ratio_plan *p = NULL;
	int rc;

	for (size_t i = 0; i < all->n; i++) {
		need[i] = keeps(&c->cfg, all->v[i].name) ? NEED_KEEP : NEED_NONE;
		c->nleft += need[i] == NEED_NONE;
	}
	if (!c->cfg.keep)
		return 0;
	if ((rc = plan_ratios(all, &p)) != 0)
		return rc;
	for (size_t j = 0; j < rv_ratio_count(p); j++) {
		size_t idx[3], k;

		if (!keeps(&c->cfg, rv_ratio_name(p, j))) {
			c->nleft++;
			continue;
		}
		k = rv_ratio_inputs(p, j, idx);
		while (k-- > 0)
			if (need[idx[k]] == NEED_NONE)
				need[idx[k]] = NEED_READ;
	}
	rv_ratio_plan_free(p);
	return 0;
}

/* Closes the sources with no channel needed (a filter only) and counts
 * what each of the others reads. 0 or -ENOMEM. */
static int drop_unneeded(struct rv_collector *c, const uint8_t *need)
{
	size_t kept = 0;
	int rc = 0;

	for (size_t i = 0; i < c->nsrc; i++) {
		struct opened o = c->src[i];

		o.nread = 0;
		for (size_t k = o.first; k < o.first + o.n; k++)
			o.nread += need[k] != NEED_NONE;
		if (c->cfg.keep && o.nread == 0) {
			o.src->close(o.state);
			if (!rc)
				rc = unavailable(c, o.src->name, RV_COLLECT_NOT_IN_SET);
			continue;
		}
		c->src[kept++] = o;
	}
	c->nsrc = kept;
	return rc;
}

/* The raw list (channels needed, in order) and the frame's raw part. */
static int build_raw(struct rv_collector *c, const struct rv_chanlist *all, const uint8_t *need)
{
	size_t n = 0;

	for (size_t i = 0; i < all->n; i++)
		n += need[i] != NEED_NONE;
	c->raw.v = malloc((n ? n : 1) * sizeof(*c->raw.v));
	c->rsel = malloc((n ? n : 1) * sizeof(*c->rsel));
	c->chans.v = malloc((n ? n : 1) * sizeof(*c->chans.v));
	c->fsel = malloc((n ? n : 1) * sizeof(*c->fsel));
	if (!c->raw.v || !c->rsel || !c->chans.v || !c->fsel)
		return -ENOMEM;
	c->raw.cap = c->chans.cap = n ? n : 1;
	for (size_t i = 0; i < all->n; i++) {
		if (need[i] == NEED_NONE)
			continue;
		if (need[i] == NEED_KEEP) {
			c->fsel[c->chans.n] = c->raw.n;
			c->chans.v[c->chans.n++] = all->v[i];
		}
		c->rsel[c->raw.n] = i;
		c->raw.v[c->raw.n++] = all->v[i];
	}
	c->nfull = all->n;
	return 0;
}

/* Ratio channels over the raw list; the kept ones are appended to the
 * frame. */
static int add_ratios(struct rv_collector *c, struct rv_err *err)
{
	size_t nr, cap;
	size_t *fsel;
	int rc = plan_ratios(&c->raw, &c->ratios);

	if (rc)
		return rc;
	nr = rv_ratio_count(c->ratios);
	cap = c->chans.n + nr;
	fsel = realloc(c->fsel, (cap ? cap : 1) * sizeof(*fsel));
	if (!fsel)
		return -ENOMEM;
	c->fsel = fsel;
	c->chans.source = "derive";
	for (size_t j = 0; !rc && j < nr; j++) {
		const char *name = rv_ratio_name(c->ratios, j), *colon = strchr(name, ':');

		if (!keeps(&c->cfg, name))
			continue;
		c->fsel[c->chans.n] = c->raw.n + j;
		rc = rv_chanlist_add(&c->chans, rv_ratio_metric(c->ratios, j)->name,
				     colon ? colon + 1 : NULL, 1.0, err);
	}
	return rc;
}

static int alloc_sweep(struct rv_collector *c)
{
	size_t nf = c->nfull ? c->nfull : 1, nr = c->raw.n ? c->raw.n : 1;
	size_t nd = c->raw.n + rv_ratio_count(c->ratios) + 1;

	c->full = calloc(nf, sizeof(*c->full));
	c->full_ok = calloc(nf, 1);
	if (c->raw.n == c->nfull) {     /* rsel is the identity: no gather */
		c->rawv = c->full;
		c->raw_ok = c->full_ok;
	} else {
		c->rawv = calloc(nr, sizeof(*c->rawv));
		c->raw_ok = calloc(nr, 1);
	}
	c->prev = calloc(nr, sizeof(*c->prev));
	c->dv = calloc(nd, sizeof(*c->dv));
	c->dok = calloc(nd, 1);
	return c->full && c->full_ok && c->rawv && c->raw_ok && c->prev && c->dv && c->dok
		       ? 0
		       : -ENOMEM;
}

/* Everything after the sources opened: the filter, the lists, the buffers. */
static int choose_channels(struct rv_collector *c, const struct rv_chanlist *all,
			   struct rv_err *err)
{
	uint8_t *need = malloc(all->n ? all->n : 1);
	int rc;

	if (!need)
		return -ENOMEM;
	rc = mark_needed(c, all, need);
	if (!rc)
		rc = drop_unneeded(c, need);
	if (!rc)
		rc = build_raw(c, all, need);
	free(need);
	if (!rc)
		rc = add_ratios(c, err);
	return rc ? rc : alloc_sweep(c);
}

/* Copies cfg's strings and exclude list into c (rediscovery opens the
 * sources again from them, long after the caller's cfg may be gone). */
static int own_cfg(struct rv_collector *c, const struct rv_collect_cfg *cfg)
{
	c->cfg = *cfg;
	c->own_root = strdup(cfg->root);
	c->own_nvml = cfg->nvml_lib ? strdup(cfg->nvml_lib) : NULL;
	c->own_exclude = calloc(cfg->nexclude ? cfg->nexclude : 1, sizeof(*c->own_exclude));
	if (!c->own_root || (cfg->nvml_lib && !c->own_nvml) || !c->own_exclude)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->nexclude; i++)
		if (!(c->own_exclude[i] = strdup(cfg->exclude[i])))
			return -ENOMEM;
	c->cfg.root = c->own_root;
	c->cfg.nvml_lib = c->own_nvml;
	c->cfg.exclude = (const char *const *)c->own_exclude;
	return 0;
}

int rv_collector_open(const struct rv_collect_cfg *cfg, struct rv_collector **out,
		      struct rv_err *err)
{
	struct rv_collect_cfg local = { .root = "" };
	struct rv_chanlist all = { 0 };
	struct rv_collector *c;
	size_t nreg = registry_len();
	int rc;

	*out = NULL;
	if (cfg)
		local = *cfg;
	if (!local.root)
		local.root = "";
	if (!local.exclude)
		local.nexclude = 0;
	if ((rc = check_exclude(&local, err)) != 0)
		return rc;
	c = calloc(1, sizeof(*c));
	if (!c)
		return rv_err_set(err, -ENOMEM, "collector: out of memory");
	c->src = calloc(nreg ? nreg : 1, sizeof(*c->src));
	c->uncap = nreg ? nreg : 1;
	c->un = calloc(c->uncap, sizeof(*c->un));
	rc = c->src && c->un ? own_cfg(c, &local) : -ENOMEM;
	if (!rc)
		rc = open_sources(c, &all);
	if (!rc)
		rc = choose_channels(c, &all, err);
	rv_chanlist_fini(&all);
	if (rc) {
		rv_collector_close(c);
		return rv_err_set(err, -ENOMEM, "collector: out of memory");
	}
	*out = c;
	return 0;
}

void rv_collector_close(struct rv_collector *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nsrc; i++)
		c->src[i].src->close(c->src[i].state);
	free(c->src);
	free(c->un);
	rv_chanlist_fini(&c->raw);
	rv_chanlist_fini(&c->chans);
	rv_ratio_plan_free(c->ratios);
	if (c->rawv != c->full) {
		free(c->rawv);
		free(c->raw_ok);
	}
	free(c->full);
	free(c->full_ok);
	free(c->rsel);
	free(c->prev);
	free(c->dv);
	free(c->dok);
	free(c->fsel);
	for (size_t i = 0; c->own_exclude && i < c->cfg.nexclude; i++)
		free(c->own_exclude[i]);
	free(c->own_exclude);
	free(c->own_root);
	free(c->own_nvml);
	free(c);
}

static int same_names(const struct rv_chanlist *a, const struct rv_chanlist *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, b->v[i].name) != 0)
			return 0;
	return 1;
}

int rv_collector_rediscover(struct rv_collector *c, struct rv_err *err)
{
	struct rv_collector *fresh = NULL, old;
	int rc = rv_collector_open(&c->cfg, &fresh, err);

	if (rc)
		return rc;
	if (same_names(&c->chans, &fresh->chans) && same_names(&c->raw, &fresh->raw)) {
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

size_t rv_collector_nleft(const struct rv_collector *c)
{
	return c->nleft;
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
	*nchan = o->nread;
	*last_ns = o->last_ns;
	*total_ns = o->total_ns;
}

void rv_collector_source_reads(const struct rv_collector *c, size_t i, uint64_t *calls,
			       uint64_t *ns)
{
	*calls = c->src[i].reads;
	*ns = c->src[i].read_ns;
}

size_t rv_collector_nraw(const struct rv_collector *c)
{
	return c->raw.n;
}

const struct rv_chan *rv_collector_raw_chan(const struct rv_collector *c, size_t i)
{
	return i < c->raw.n ? &c->raw.v[i] : NULL;
}

void rv_collector_raw(const struct rv_collector *c, const double **raw, const uint8_t **valid)
{
	*raw = c->rawv;
	*valid = c->raw_ok;
}

void rv_collector_read(struct rv_collector *c)
{
	rv_ns t = rv_clock_ns(), t1;
	int slow = c->cfg.slow_every <= 1 || c->sweeps % c->cfg.slow_every == 0;

	c->sweeps++;
	memset(c->full_ok, 0, c->nfull);
	for (size_t i = 0; i < c->nsrc; i++) {
		struct opened *o = &c->src[i];
		uint64_t rns = rv_read_cost.ns, rcalls = rv_read_cost.calls;

		if (o->src->pace)
			o->src->pace(o->state, slow);
		if (slow || !o->src->slow)
			o->src->sample(o->state, c->full + o->first, c->full_ok + o->first);
		t1 = rv_clock_ns();
		o->last_ns = t1 - t;
		o->total_ns += t1 - t;
		o->read_ns += rv_read_cost.ns - rns;
		o->reads += rv_read_cost.calls - rcalls;
		t = t1;
	}
	if (c->rawv == c->full)
		return;
	for (size_t k = 0; k < c->raw.n; k++) {
		c->rawv[k] = c->full[c->rsel[k]];
		c->raw_ok[k] = c->full_ok[c->rsel[k]];
	}
}

size_t rv_collector_sample(struct rv_collector *c, rv_ns now, double *values, uint8_t *valid)
{
	size_t n = c->raw.n, good = 0;
	rv_ns t;

	rv_collector_read(c);
	t = rv_clock_ns();
	for (size_t k = 0; k < n; k++) {
		const struct rv_chan *ch = &c->raw.v[k];

		c->dok[k] = (uint8_t)rv_derive_step(ch->metric->kind, ch->scale, c->rawv[k],
						    c->raw_ok[k], (int64_t)now, &c->prev[k],
						    &c->dv[k]);
	}
	rv_ratio_apply(c->ratios, c->dv, c->dok, c->dv + n, c->dok + n);
	for (size_t i = 0; i < c->chans.n; i++) {
		values[i] = c->dv[c->fsel[i]];
		valid[i] = c->dok[c->fsel[i]];
		good += valid[i];
	}
	c->derive_ns += rv_clock_ns() - t;
	return good;
}

unsigned rv_collect_slow_every(double interval_s, double slow_s)
{
	double n;

	if (!(interval_s > 0.0) || !(slow_s > interval_s))
		return 1;
	n = slow_s / interval_s + 0.5;
	return n >= 1e6 ? 1000000u : (unsigned)n;
}

int rv_collector_source_slow(const struct rv_collector *c, size_t i)
{
	return i < c->nsrc && c->src[i].src->slow && c->cfg.slow_every > 1;
}

uint64_t rv_collector_derive_ns(const struct rv_collector *c)
{
	return c->derive_ns;
}
