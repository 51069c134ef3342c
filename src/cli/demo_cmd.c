/*
 * demo_cmd.c - `reveal demo`: the guided run of demo/demo.h for a
 * newcomer, right after `make run` has installed what it needs.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "cli/cli.h"
#include "config/config.h"
#include "demo/demo.h"

static const char demo_help[] =
	"usage: reveal demo [-o DIR] [--learn T] [--fault T] [--no-netns]\n"
	"\n"
	"A guided run of about two minutes on this host. It starts a small\n"
	"training-like job (`reveal workload`), lets the agent learn what normal looks\n"
	"like (sampling every 200 ms), then injects two faults with real tools:\n"
	"  1. CPU contention: stress-ng busy on every core, a noisy neighbour;\n"
	"  2. packet loss: an nftables rule dropping 10 % of the job's TCP packets.\n"
	"It shows each incident as the agent opens and closes it, writes the HTML\n"
	"report and ends with a summary: detected or not, how fast, which subsystem,\n"
	"the likely cause, and the job's own step time before and during the fault.\n"
	"\n"
	"Nothing on this host is changed. The demo runs in a network namespace of its\n"
	"own, so the nftables rule never sees the host's traffic, and the namespace\n"
	"with its rule disappears when the demo ends. Every process it starts is\n"
	"stopped before it exits, also after Ctrl-C. Without root (no namespace) or\n"
	"without nft, fault 2 is a disk write storm instead, and the demo says so.\n"
	"Needs stress-ng (and nft): `make run` or `make deps` installs them.\n"
	"\n"
	"  -o, --output DIR   folder for report.html, the incident store demo.db,\n"
	"                     summary.json and the logs (default reveal-demo)\n"
	"  --learn T          learning period (default 45s)\n"
	"  --fault T          length of each fault (default 25s)\n"
	"  --no-netns         stay in this network namespace: fault 2 is a disk write\n"
	"                     storm\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 when the demo ran to the end, 1 when it could not run or was\n"
	"interrupted, 2 for bad options.\n";

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

int rv_cmd_demo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "learn", required_argument, NULL, 'l' },
		{ "fault", required_argument, NULL, 'f' },
		{ "no-netns", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rv_demo_opts o;
	struct rv_demo_result res;
	struct rv_err err = { 0 };
	struct sigaction sa;
	int id, idx, rc;

	rv_demo_defaults(&o);
	argv[0] = (char *)"reveal demo";
	optind = 1;
	while ((id = getopt_long(argc, argv, "o:h", opts, &idx)) != -1) {
		double *t = id == 'l' ? &o.learn_s : &o.fault_s;

		switch (id) {
		case 'h':
			fputs(demo_help, stdout);
			return RV_EXIT_OK;
		case 'o':
			o.out_dir = optarg;
			break;
		case 'N':
			o.no_netns = 1;
			break;
		case 'l':
		case 'f':
			if (rv_config_parse_duration(optarg, t) != 0 || *t < 5.0 || *t > 3600.0) {
				return rv_cli_fail("demo", RV_EXIT_USAGE, "invalid value '%s' for --%s "
						   "(a duration of 5s..1h)", optarg, opts[idx].name);
			}
			break;
		default:
			return RV_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		return rv_cli_fail("demo", RV_EXIT_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
	}
	o.tty = isatty(STDOUT_FILENO);
	o.stop = &stop_flag;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	printf("reveal demo: about 2 minutes on this host; everything it starts is stopped at "
	       "the end.\nOutput: %s/ (report.html, demo.db, logs). Ctrl-C stops it early.\n\n",
	       o.out_dir);
	fflush(stdout);
	rc = rv_demo_run(&o, &res, &err);
	if (rc) {
		return rv_cli_fail_err("demo", RV_EXIT_FAIL, &err, rc);
	}
	return RV_EXIT_OK;
}
