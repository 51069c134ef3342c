/*
 * incident_int.h - the merger's state, shared by incident.c (merging) and
 * incident_query.c (reading it). Internal to explain/.
 */
#ifndef RV_EXPLAIN_INCIDENT_INT_H
#define RV_EXPLAIN_INCIDENT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "explain/incident.h"

enum {
	CLOSED_INITIAL_CAP = 16,  /* first allocation of the closed-incident array */
	ONSET_MIN = 2,            /* windows the onset has at least */
	ONSET_MAX = 5,            /* the onset's peak is looked for in these windows */
	ONSET_CHANNELS = RV_INCIDENT_TOP_MAX,
};

/* A window belongs to the open incident while its onset channels carry at
 * least this share of their onset weight per window. */
static const double CONTINUE_LEVEL = 0.25;

/* A run of flagged windows: an open incident, or the candidate. */
struct stretch {
	int open;
	uint64_t id;                /* given once it qualifies (or at close), 0 before */
	struct rv_incident in;      /* summary fields filled by rv_incmerge_summarise() */
	double score_sum;
	double *acc;                /* nchan: weight summed while the onset lasts */
	double *onset;              /* nchan: acc at the onset's peak */
	double *recent;             /* nchan: recent weight per window, after the onset */
	double *hist;               /* ONSET_MAX x nchan: the weights of the onset's windows
				       that had attribution, while it gathers */
	size_t nhist;               /* how many of them */
	int have_last;              /* the latest window had attribution (hist's last row) */
	uint8_t *persist;           /* nchan: that window's channels still moving, */
	int have_persist;           /* when it said (struct rv_incwin) */
	float *matter;              /* nchan: the most each moved of its materiality floor
				       in a window of the onset, up to 1, */
	int have_matter;            /* when its windows said (struct rv_incwin) */
	double recent_score;        /* recent score per window, after the onset */
	size_t onset_n;             /* windows in that snapshot */
	int onset_done;             /* onset frozen, onset channels chosen */
	uint32_t oset[ONSET_CHANNELS];
	size_t noset;
	double onset_level;         /* the onset channels' weight per window */
	size_t alone;               /* its windows no open incident took too */
	size_t split;               /* its windows split from open incidents */
	size_t prefix;              /* flagged windows before its first material one */
	double cause_peak;          /* a follow-on phase: its cause's peak score */
	size_t lasting;             /* its windows whose evidence lasts */
	size_t material;            /* its windows whose evidence is material, */
	double mat_peak;            /* their peak score */
	size_t mat_lasting;         /* those of them whose evidence lasts, */
	double mat_excess;          /* and their summed excess over the threshold */
};

struct rv_incmerge {
	size_t nchan;
	const char *const *names;   /* borrowed */
	size_t max_gap, min_windows;
	double gate_peak;           /* peak score reported at once; 0 = no gate */
	size_t gate_windows;        /* flagged windows a weaker one needs; 0 = never */
	size_t sustained_windows;   /* a sustained one with enough excess; 0 = off */
	size_t burst_windows;       /* flagged windows a stretch none of whose windows
				       lasts needs; 0 = the lasting rule is off */
	unsigned char *chan_sub;    /* enum rv_subsystem per channel, from its name */
	signed char *effect;        /* per channel: its side-effect class (catalog.h
				       rv_catalog_effect), -1: none */
	unsigned char *cause;       /* per channel: bit k set when it is an activity
				       causing class k's effects */
	unsigned char effect_sub[RV_CATALOG_EFFECTS]; /* the subsystem of each class */
	unsigned char *sub_eff;     /* nchan: scratch of rv_incmerge_summarise */
	unsigned char *kept;        /* per channel: memory taken and kept (rv_catalog_kept) */

	struct stretch open[RV_INCMERGE_OPEN_MAX]; /* the first nopen, in order of start */
	size_t nopen;
	struct stretch cand;
	double *split;              /* nchan: the candidate's weights of a split window */
	double *sumw;               /* nchan: scratch of rv_incmerge_summarise */
	unsigned char *stock;       /* nchan: 1 for a stock (rv_catalog_stock) */
	double *mw;                 /* nchan: a window's weights by materiality */
	uint64_t last_closed_id;    /* id given at the last close, 0: dropped */
	unsigned last_closed_phase;
	double last_closed_peak;

	int have_last;
	size_t last_win;            /* last window pushed, to refuse reordering */

	struct rv_incident *closed;
	size_t *closed_at;          /* the window at which each closed one closed */
	size_t nclosed, cap;
	size_t dropped;
	uint64_t next_id;
};

/* Up to n channels by weight w, heaviest first; equal weights keep index
 * order. Returns how many have a positive weight. */
size_t rv_incmerge_heaviest(const double *w, size_t nchan, uint32_t *top, size_t n);
/* Subsystem, shares and top channels of s from its onset's weights. */
void rv_incmerge_summarise(const struct rv_incmerge *m, const struct stretch *s,
			   struct rv_incident *in);

#endif
