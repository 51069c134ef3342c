/*
 * demo_int.h - what the parts of `reveal demo` share (internal to demo/):
 * the faults, the run's state, its output and the agent's events.
 */
#ifndef RV_DEMO_DEMO_INT_H
#define RV_DEMO_DEMO_INT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "demo/demo.h"

enum {
	PATH_LEN = 4096,
	LINE_MAX_LEN = 1 << 20,   /* an event line longer than this is skipped */
	MAX_TRACKED = 64,         /* incidents attributed to faults */
};

enum fault_kind { FAULT_STRESS, FAULT_NFT_DROP };

struct fault {
	enum fault_kind kind;
	const char *title, *how, *expect;
	const char *expect_cause;        /* the rule that names its mechanism */
	char *argv[16];
	const char *nft_rules;
	pid_t pid;
	double t0, t1;                   /* wall clock */
	long incident;                   /* its first incident; -1 = none yet */
	double best_dur;                 /* longest of its closed incidents, s */
	double step_sum[2];              /* the job's step time: before, during */
	double reduce_sum[2];            /* its all-reduce time */
	unsigned step_n[2];
};

struct demo {
	const struct rv_demo_opts *o;
	struct rv_demo_result *res;
	char dir[PATH_LEN];
	char events[PATH_LEN], store[PATH_LEN], model[PATH_LEN], report[PATH_LEN];
	char tmp[PATH_LEN];
	double t_start;                  /* wall clock at the start */
	pid_t workload, agent;
	struct rv_workload_stats *stats; /* shared with the job */
	uint64_t last_steps;
	struct fault f[RV_DEMO_FAULTS];
	int active;                      /* fault being injected, -1 none */
	FILE *ev;
	char *line;
	size_t line_len;
	int open;                        /* incidents open now */
	double busy_t;                   /* when one was open last (the wait between faults) */
	struct tracked {                 /* an incident attributed to a fault */
		long id;
		int fault;               /* the fault's index */
		double t;                /* when it opened */
		int linked;              /* as a follow-on phase of that fault's incident */
	} tracked[MAX_TRACKED];
	int ntracked;
	int status_shown;                /* a status line is on the terminal */
};

/* src (NULL: "") into dst of n bytes, cut to fit. */
static inline void copy_str(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
}

/* Wall-clock seconds. */
double rv_demo_now_s(void);
/* A line of the demo's narration, with the seconds since its start. */
void rv_demo_say(struct demo *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads the complete event lines the agent appended since the last call
 * and follows its incidents: which fault each belongs to, its blame. */
void rv_demo_poll_events(struct demo *d);

#endif
