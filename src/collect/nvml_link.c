/*
 * nvml_link.c - part "nvml.nvlink" of the nvml source (nvml_int.h): the
 * NVLink links of each GPU, instance "gpu<i>-link<l>".
 *
 * Per link, those of these channels the driver answers at open, in this
 * order: gpu.nvlink_up (1 active or asleep in low power, 0 inactive),
 * gpu.nvlink_data_tx_bytes and _rx_bytes (KiB counters, scale 1024), and
 * the cumulative error counts gpu.nvlink_crc_flit_errors, _crc_data_errors,
 * _replay_errors, _recovery_errors.
 *
 * Links: at open, nvmlDeviceGetNvLinkState on links 0..17
 * (NVML_NVLINK_MAX_LINKS of the R525..R580 nvml.h; a Hopper board has 18):
 * success means the link exists, active or not. A GPU where every link
 * answers NOT_SUPPORTED or INVALID_ARGUMENT has no NVLink (a PCIe board):
 * noted, no channel.
 *
 * Counters: one nvmlDeviceGetFieldValues call per GPU per sweep reads the
 * fields of all its links into an array built at open; each value's own
 * nvmlReturn decides its channel. Field ids (nvml.h):
 *  - traffic: NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX / _RX (138, 139), the
 *    link in scopeId.
 *  - errors come in two generations. The per-link ids of the older drivers
 *    (NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0.._L5 from 32, _L6.._L11
 *    from 96; the same for CRC data, replay and recovery) stop at link 11
 *    and ignore scopeId; R525 dropped them on Hopper for the link-scoped
 *    NVML_FI_DEV_NVLINK_ERROR_DL_CRC (163, the flit CRC), _DL_REPLAY (161)
 *    and _DL_RECOVERY (162) (NVML change log, v520 to v525). Open asks for
 *    both and keeps, per link and counter, the scoped id when it answers,
 *    else the per-link one: an 18-link Hopper and a 12-link Ampere on an
 *    older driver both get their counters. CRC data errors have per-link
 *    ids only: a link past 11, or a board that answers NOT_SUPPORTED,
 *    has no such channel. A counter some links lack is noted per GPU
 *    ("gpu.nvlink_crc_data_errors not supported on 18 of 18 links").
 *    Blackwell (R565) dropped the scoped error ids as well for NVLink5
 *    counters not read here; it gets the same note.
 *
 * Link state: NVML_FI_DEV_NVLINK_GET_STATE (165, link-scoped, R525 on)
 * rides in the same call, so it is read every sweep at no extra cost.
 * Where the driver does not answer it, nvmlDeviceGetNvLinkState (a call
 * per link: up to 18 per GPU) is read at most once a second
 * (STATE_PERIOD_NS), not at every sweep of a 10 Hz agent, for a value that
 * seldom changes; in the sweeps between, the channel is invalid (a gap,
 * not a stale value).
 *
 * A missing nvmlDeviceGetNvLinkState leaves out the part, a missing
 * nvmlDeviceGetFieldValues the counters: both noted with the name. A lost
 * GPU's channels are invalid. Sampling allocates nothing.
 */
#include "collect/nvml_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

/* LINK_MAX: NVML_NVLINK_MAX_LINKS; PER_LINK_SET: links per range of
 * per-link ids (_L0.._L5, _L6.._L11). */
enum { LINK_MAX = 18, PER_LINK_SET = 6, INST_MAX = 32, LABEL_MAX = 128 };
enum { K_UP, K_TX, K_RX, K_FLIT, K_DATA, K_REPLAY, K_RECOVERY, KINDS };
enum { F_SCOPED, F_PER_LINK, FORMS };
enum { NO_FIELD = -1, BY_STATE_CALL = -2 };     /* plan.keep besides a probe index */

/* Field ids of nvml.h, FI_X for NVML_FI_DEV_NVLINK_X (FI_CRC_FLIT_L0:
 * NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0); the per-link ones name link
 * 0 and link 6 of their ranges. */
enum {
	FI_CRC_FLIT_L0 = 32, FI_CRC_DATA_L0 = 39, FI_REPLAY_L0 = 46, FI_RECOVERY_L0 = 53,
	FI_CRC_FLIT_L6 = 96, FI_CRC_DATA_L6 = 102, FI_REPLAY_L6 = 108, FI_RECOVERY_L6 = 114,
	FI_THROUGHPUT_DATA_TX = 138, FI_THROUGHPUT_DATA_RX = 139, FI_ERROR_DL_REPLAY = 161,
	FI_ERROR_DL_RECOVERY = 162, FI_ERROR_DL_CRC = 163, FI_GET_STATE = 165,
};

/* NVML_NVLINK_STATE_* of FI_GET_STATE; newer drivers may add others. */
enum { NVLINK_STATE_INACTIVE = 0, NVLINK_STATE_ACTIVE = 1, NVLINK_STATE_SLEEP = 2 };

static const rv_ns STATE_PERIOD_NS = 1000000000;
static const char part_name[] = "nvml.nvlink";

struct kind {
	const char *type;
	double scale;
	unsigned int scoped;            /* link-scoped field id; 0: none */
	unsigned int l0, l6;            /* per-link ids of links 0 and 6; 0: none */
};

static const struct kind kinds[KINDS] = {
	[K_UP] = { "gpu.nvlink_up", 1, FI_GET_STATE, 0, 0 },
	[K_TX] = { "gpu.nvlink_data_tx_bytes", 1024, FI_THROUGHPUT_DATA_TX, 0, 0 },
	[K_RX] = { "gpu.nvlink_data_rx_bytes", 1024, FI_THROUGHPUT_DATA_RX, 0, 0 },
	[K_FLIT] = { "gpu.nvlink_crc_flit_errors", 1, FI_ERROR_DL_CRC, FI_CRC_FLIT_L0,
		     FI_CRC_FLIT_L6 },
	[K_DATA] = { "gpu.nvlink_crc_data_errors", 1, 0, FI_CRC_DATA_L0, FI_CRC_DATA_L6 },
	[K_REPLAY] = { "gpu.nvlink_replay_errors", 1, FI_ERROR_DL_REPLAY, FI_REPLAY_L0,
		       FI_REPLAY_L6 },
	[K_RECOVERY] = { "gpu.nvlink_recovery_errors", 1, FI_ERROR_DL_RECOVERY, FI_RECOVERY_L0,
			 FI_RECOVERY_L6 },
};

/* What open learns of one GPU: its links, every candidate field asked for
 * in one probe, and per link and kind what sampling reads. */
struct plan {
	unsigned int link[LINK_MAX];
	size_t nlinks;
	struct nvml_field_value probe[LINK_MAX * KINDS * FORMS];
	size_t nprobe;
	int at[LINK_MAX][KINDS][FORMS];         /* index in probe, or NO_FIELD */
	int keep[LINK_MAX][KINDS];              /* index in probe, NO_FIELD, BY_STATE_CALL */
};

/* One value of a GPU's call and the channel it fills. */
struct lval {
	uint32_t chan;                          /* from the GPU's first channel */
	uint8_t is_state;                       /* an NVML_NVLINK_STATE_* to make 0/1 */
};

struct lgpu {
	struct nvml_gpu *g;
	size_t first, nchan;                    /* its channels, from the part's first */
	struct nvml_field_value *fv;            /* nfv values: one call per sweep */
	struct lval *lv;
	size_t nfv;
	unsigned int state_link[LINK_MAX];      /* links whose state needs a call */
	uint32_t state_chan[LINK_MAX];
	size_t nstate;
};

struct link_part {
	struct nvml_src *st;
	int (*get_state)(struct nvml_dev *d, unsigned int link, int *active);
	struct lgpu *gpu;                       /* ngpu, as st->gpu */
	size_t ngpu, first;                     /* first: the part's first channel */
	int state_calls;                        /* some link's state needs a call */
	int state_read;                         /* state_read_ns is set */
	rv_ns state_read_ns;
};

/* An id or scope this driver or board does not have. */
static int absent(int ret)
{
	return rv_nvml_unsupported(ret) || ret == RV_NVML_ERROR_INVALID_ARGUMENT;
}

static unsigned int per_link_id(const struct kind *k, unsigned int link)
{
	if (!k->l0 || link >= 2 * PER_LINK_SET)
		return 0;
	return link < PER_LINK_SET ? k->l0 + link : k->l6 + (link - PER_LINK_SET);
}

/* The links that answer nvmlDeviceGetNvLinkState; *why: the last answer
 * other than absent, else NOT_SUPPORTED. */
static void find_links(const struct link_part *p, struct nvml_gpu *g, struct plan *pl, int *why)
{
	*why = RV_NVML_ERROR_NOT_SUPPORTED;
	for (unsigned int l = 0; l < LINK_MAX && !g->lost; l++) {
		int active = 0, ret = p->get_state(g->dev, l, &active);

		if (ret == RV_NVML_SUCCESS)
			pl->link[pl->nlinks++] = l;
		else if (rv_nvml_is_lost(ret))
			g->lost = 1;
		else if (!absent(ret))
			*why = ret;
	}
}

static void add_probe(struct plan *pl, size_t li, int k, int form, unsigned int id,
		      unsigned int scope)
{
	struct nvml_field_value *f = &pl->probe[pl->nprobe];

	memset(f, 0, sizeof(*f));
	f->field_id = id;
	f->scope_id = scope;
	pl->at[li][k][form] = (int)pl->nprobe++;
}

/* Asks once for every candidate field of every link: the call's answer,
 * or a lost code found in a value. */
static int probe(const struct link_part *p, struct nvml_gpu *g, struct plan *pl)
{
	int ret;

	for (size_t li = 0; li < pl->nlinks; li++)
		for (int k = 0; k < KINDS; k++) {
			unsigned int id = per_link_id(&kinds[k], pl->link[li]);

			pl->at[li][k][F_SCOPED] = pl->at[li][k][F_PER_LINK] = NO_FIELD;
			if (kinds[k].scoped)
				add_probe(pl, li, k, F_SCOPED, kinds[k].scoped, pl->link[li]);
			if (id)
				add_probe(pl, li, k, F_PER_LINK, id, 0);
		}
	if (!p->st->api.field_values)
		return RV_NVML_ERROR_FUNCTION_NOT_FOUND;
	ret = p->st->api.field_values(g->dev, (int)pl->nprobe, pl->probe);
	for (size_t j = 0; ret == RV_NVML_SUCCESS && j < pl->nprobe; j++)
		if (rv_nvml_is_lost(pl->probe[j].ret))
			ret = pl->probe[j].ret;
	return ret;
}

/* The scoped value when it answered, else the per-link one; a value that
 * failed for another reason than absence is kept (it may answer later). */
static int pick(const struct nvml_field_value *v, int scoped, int per_link)
{
	if (scoped >= 0 && v[scoped].ret == RV_NVML_SUCCESS)
		return scoped;
	if (per_link >= 0 && v[per_link].ret == RV_NVML_SUCCESS)
		return per_link;
	if (scoped >= 0 && !absent(v[scoped].ret))
		return scoped;
	if (per_link >= 0 && !absent(v[per_link].ret))
		return per_link;
	return NO_FIELD;
}

/* Fills pl->keep; call_ret: the probe call's answer. The state field is
 * kept only when it answered: the state call is the sure way else. */
static void choose(struct plan *pl, int call_ret)
{
	for (size_t li = 0; li < pl->nlinks; li++)
		for (int k = 0; k < KINDS; k++) {
			int s = pl->at[li][k][F_SCOPED], q = pl->at[li][k][F_PER_LINK];
			int keep = call_ret == RV_NVML_SUCCESS ? pick(pl->probe, s, q) : NO_FIELD;

			if (k == K_UP && (keep < 0 || pl->probe[keep].ret != RV_NVML_SUCCESS))
				keep = BY_STATE_CALL;
			pl->keep[li][k] = keep;
		}
}

/* One channel of link li, kind k: appended, and where sampling reads it. */
static int add_link_chan(struct link_part *p, struct lgpu *lg, const struct plan *pl,
			 size_t li, int k, struct rv_chanlist *chans, struct rv_err *err)
{
	char inst[INST_MAX];
	int keep = pl->keep[li][k], rc;
	uint32_t chan = (uint32_t)lg->nchan;

	snprintf(inst, sizeof(inst), "%s-link%u", lg->g->inst, pl->link[li]);
	rc = rv_nvml_add_chan(p->st, chans, kinds[k].type, inst, kinds[k].scale, err);
	if (rc)
		return rc;
	lg->nchan++;
	if (keep == BY_STATE_CALL) {
		lg->state_link[lg->nstate] = pl->link[li];
		lg->state_chan[lg->nstate++] = chan;
		p->state_calls = 1;
		return 0;
	}
	memset(&lg->fv[lg->nfv], 0, sizeof(lg->fv[lg->nfv]));
	lg->fv[lg->nfv].field_id = pl->probe[keep].field_id;
	lg->fv[lg->nfv].scope_id = pl->probe[keep].scope_id;
	lg->lv[lg->nfv++] = (struct lval){ .chan = chan, .is_state = k == K_UP };
	return 0;
}

/* The GPU's channels, link by link, and its value array. */
static int add_gpu_chans(struct link_part *p, struct lgpu *lg, const struct plan *pl,
			 struct rv_chanlist *chans, struct rv_err *err)
{
	size_t nfv = 0;
	int rc = 0;

	for (size_t li = 0; li < pl->nlinks; li++)
		for (int k = 0; k < KINDS; k++)
			nfv += pl->keep[li][k] >= 0;
	if (nfv) {
		lg->fv = calloc(nfv, sizeof(*lg->fv));
		lg->lv = calloc(nfv, sizeof(*lg->lv));
		if (!lg->fv || !lg->lv)
			return rv_err_set(err, -ENOMEM, "%s: out of memory", part_name);
	}
	lg->first = p->st->nchan - p->first;
	for (size_t li = 0; !rc && li < pl->nlinks; li++)
		for (int k = 0; !rc && k < KINDS; k++)
			if (pl->keep[li][k] != NO_FIELD)
				rc = add_link_chan(p, lg, pl, li, k, chans, err);
	return rc;
}

/* Notes each counter that some of the GPU's links lack. */
static int note_missing(const struct plan *pl, const char *label, struct rv_chanlist *chans)
{
	int rc = 0;

	for (int k = K_TX; !rc && k < KINDS; k++) {
		size_t n = 0;

		for (size_t li = 0; li < pl->nlinks; li++)
			n += pl->keep[li][k] == NO_FIELD;
		if (n)
			rc = rv_chanlist_note(chans, part_name,
					      "%s: %s not supported on %zu of %zu links", label,
					      kinds[k].type, n, pl->nlinks);
	}
	return rc;
}

static int open_gpu(struct link_part *p, struct lgpu *lg, struct plan *pl,
		    struct rv_chanlist *chans, struct rv_err *err)
{
	struct nvml_gpu *g = lg->g;
	char label[LABEL_MAX];
	int why, ret, rc;

	memset(pl, 0, sizeof(*pl));
	rv_nvml_gpu_label(g, label, sizeof(label));
	find_links(p, g, pl, &why);
	if (g->lost)
		return 0;
	if (pl->nlinks == 0 && absent(why))
		return rv_chanlist_note(chans, part_name, "%s: no NVLink", label);
	if (pl->nlinks == 0)
		return rv_chanlist_note(chans, part_name, "%s: nvmlDeviceGetNvLinkState: %s (%d)",
					label, rv_nvml_text(p->st, why), why);
	ret = probe(p, g, pl);
	if (rv_nvml_is_lost(ret)) {
		g->lost = 1;
		return 0;
	}
	choose(pl, ret);
	rc = add_gpu_chans(p, lg, pl, chans, err);
	if (!rc && ret == RV_NVML_SUCCESS)
		rc = note_missing(pl, label, chans);
	else if (!rc && p->st->api.field_values)
		rc = rv_chanlist_note(chans, part_name,
				      "%s: NVLink counters: nvmlDeviceGetFieldValues: %s (%d)",
				      label, rv_nvml_text(p->st, ret), ret);
	return rc;
}

static void link_close(void *state)
{
	struct link_part *p = state;

	if (!p)
		return;
	for (size_t i = 0; p->gpu && i < p->ngpu; i++) {
		free(p->gpu[i].fv);
		free(p->gpu[i].lv);
	}
	free(p->gpu);
	free(p);
}

static int link_open(struct nvml_src *st, struct rv_chanlist *chans, void **state,
		     struct rv_err *err)
{
	static const char *const state_fn[] = { "nvmlDeviceGetNvLinkState", NULL };
	void *fn = rv_nvml_sym(st->dl, state_fn);
	struct link_part *p;
	struct plan *pl;
	int rc = 0;

	*state = NULL;
	if (!fn)
		return rv_chanlist_note(chans, part_name, "no %s in %s: no NVLink channels",
					state_fn[0], st->lib);
	p = calloc(1, sizeof(*p));
	pl = malloc(sizeof(*pl));
	if (p) {
		p->gpu = calloc(st->ngpu, sizeof(*p->gpu));
		p->ngpu = p->gpu ? st->ngpu : 0;
	}
	if (!p || !pl || !p->gpu) {
		free(pl);
		link_close(p);
		return rv_err_set(err, -ENOMEM, "%s: out of memory", part_name);
	}
	p->st = st;
	p->first = st->nchan;
	memcpy(&p->get_state, &fn, sizeof(fn));
	if (!st->api.field_values)
		rc = rv_chanlist_note(chans, part_name, "no nvmlDeviceGetFieldValues in %s: "
				      "NVLink traffic and error counters left out", st->lib);
	for (size_t i = 0; !rc && i < st->ngpu; i++) {
		p->gpu[i].g = &st->gpu[i];
		if (st->gpu[i].dev && !st->gpu[i].lost)
			rc = open_gpu(p, &p->gpu[i], pl, chans, err);
	}
	free(pl);
	if (rc || st->nchan == p->first) {
		link_close(p);
		return rc;
	}
	*state = p;
	return 0;
}

/* Value j of the GPU's call into its channel. */
static void put_value(struct lgpu *lg, size_t j, double *raw, uint8_t *valid)
{
	double v = 0;
	int ret = rv_nvml_field_double(&lg->fv[j], &v);

	if (rv_nvml_is_lost(ret))
		lg->g->lost = 1;
	if (ret != RV_NVML_SUCCESS)
		return;
	if (lg->lv[j].is_state) {
		int known = v == NVLINK_STATE_INACTIVE || v == NVLINK_STATE_ACTIVE ||
			    v == NVLINK_STATE_SLEEP;

		if (!known)
			return;
		v = v != NVLINK_STATE_INACTIVE;
	}
	raw[lg->lv[j].chan] = v;
	valid[lg->lv[j].chan] = 1;
}

static void sample_gpu(const struct link_part *p, struct lgpu *lg, double *raw, uint8_t *valid,
		       int read_state)
{
	int ret = lg->nfv ? p->st->api.field_values(lg->g->dev, (int)lg->nfv, lg->fv) :
		  RV_NVML_SUCCESS;

	if (rv_nvml_is_lost(ret))
		lg->g->lost = 1;
	for (size_t j = 0; ret == RV_NVML_SUCCESS && j < lg->nfv; j++)
		put_value(lg, j, raw, valid);
	for (size_t m = 0; read_state && !lg->g->lost && m < lg->nstate; m++) {
		int active = 0;

		ret = p->get_state(lg->g->dev, lg->state_link[m], &active);
		if (rv_nvml_is_lost(ret))
			lg->g->lost = 1;
		if (ret != RV_NVML_SUCCESS)
			continue;
		raw[lg->state_chan[m]] = active != 0;
		valid[lg->state_chan[m]] = 1;
	}
	if (lg->g->lost)
		memset(valid, 0, lg->nchan);
}

static void link_sample(void *state, double *raw, uint8_t *valid)
{
	struct link_part *p = state;
	int read_state = 0;

	if (p->state_calls) {
		rv_ns now = rv_clock_ns();

		read_state = !p->state_read || now - p->state_read_ns >= STATE_PERIOD_NS;
		if (read_state) {
			p->state_read = 1;
			p->state_read_ns = now;
		}
	}
	for (size_t i = 0; i < p->ngpu; i++) {
		struct lgpu *lg = &p->gpu[i];

		if (lg->nchan && !lg->g->lost)
			sample_gpu(p, lg, raw + lg->first, valid + lg->first, read_state);
	}
}

const struct nvml_part rv_nvml_part_link = {
	.name = part_name,
	.open = link_open,
	.sample = link_sample,
	.close = link_close,
};
