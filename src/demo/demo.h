/*
 * demo.h - `reveal demo`: a guided run of about two minutes on this host.
 * It starts the training-like job (workload.h), lets the agent learn it,
 * injects two faults with real tools (stress-ng; an nftables random-drop
 * rule on the job's loopback traffic inside a private network namespace),
 * shows the incidents as the agent reports them, writes the HTML report
 * and sums up. Everything it starts is stopped before it returns.
 */
#ifndef RV_DEMO_DEMO_H
#define RV_DEMO_DEMO_H

#include <signal.h>
#include <stdio.h>

struct rv_err;

enum { RV_DEMO_FAULTS = 2 };

struct rv_demo_opts {
	const char *out_dir;     /* report, store, events and logs */
	const char *self;        /* the reveal program, run as agent and report */
	double learn_s;          /* agent learning period */
	double fault_s;          /* length of each injection */
	int no_netns;            /* 1: stay in this network namespace (no packet loss) */
	int tty;                 /* out is a terminal: redraw a status line */
	FILE *out;               /* the guided text */
	const volatile sig_atomic_t *stop;
};

struct rv_demo_fault_result {
	char title[64];          /* "CPU contention" */
	char expect[16];         /* the subsystem it lives in */
	char expect_cause[64];   /* the knowledge-base rule of its mechanism */
	int detected;
	double ttd_s;            /* injection start to the incident's open event */
	double close_s;          /* injection end to the close of its last first-phase
				    incident (0: closed before the end; NaN: not closed) */
	char subsystem[16];      /* the incident's first subsystem */
	char cause[64];          /* likeliest cause id, "" = none */
	double confidence;
	double step_before_ms;   /* the job's own step time */
	double step_during_ms;
	double reduce_before_ms; /* and its all-reduce time */
	double reduce_during_ms;
};

struct rv_demo_result {
	struct rv_demo_fault_result fault[RV_DEMO_FAULTS];
	int other_incidents;     /* opened outside the faults: false alarms */
	double elapsed_s;
	char report[4096];       /* the HTML report, "" when it failed */
};

void rv_demo_defaults(struct rv_demo_opts *o);

/* Runs the demo; 0 when it ran to the end (whatever was detected), -EINTR
 * when *stop was set, else -errno with a message. Writes
 * out_dir/summary.json with the result in every case it got that far. */
int rv_demo_run(const struct rv_demo_opts *o, struct rv_demo_result *res, struct rv_err *err);

#endif
