/*
 * workload_cmd.c - `reveal workload`: the training-like load of
 * demo/workload.h in the foreground, for the evaluation harness (eval/)
 * and for trying the agent on a host with nothing else running.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"
#include "config/config.h"
#include "demo/workload.h"

static const char workload_help[] =
	"usage: reveal workload [--duration T] [--dim N] [--step T] [--grad-size SIZE]\n"
	"                       [--reduce-every N] [--report T] [-q]\n"
	"\n"
	"Runs a small training-like job on this host: two processes, each doing dense\n"
	"matrix steps at a fixed pace, with an \"all-reduce\" of a gradient buffer over a\n"
	"loopback TCP connection every few steps (the traffic nftables drops and tbf\n"
	"shaping on lo slow down). `reveal demo` and the evaluation (make eval) run it\n"
	"as the job the agent watches. A progress line every --report shows the\n"
	"job's own view: step time, all-reduce time and its traffic.\n"
	"\n"
	"  --duration T       stop after T (e.g. 10m); default: until SIGINT or SIGTERM\n"
	"  --dim N            side of the square matrices (default 224; 16..2048)\n"
	"  --step T           one step every T (default 100ms; 1ms..10s)\n"
	"  --grad-size SIZE   gradient per process (default 4MiB; 64KiB..1GiB)\n"
	"  --reduce-every N   steps between two all-reduces (default 5)\n"
	"  --report T         progress line period (default 10s)\n"
	"  -q, --quiet        no progress lines\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status: 0 after the duration or a signal, 1 when the job fails (no\n"
	"loopback, the peer died), 2 for bad options.\n";

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int set_option(int id, const char *v, struct rv_workload_cfg *c)
{
	uint64_t n;
	double s;

	switch (id) {
	case 'd':
		return rv_config_parse_duration(v, &c->duration_s);
	case 's':
		return rv_config_parse_duration(v, &c->step_s);
	case 'r':
		return rv_config_parse_duration(v, &c->report_s);
	case 'g':
		if (rv_config_parse_bytes(v, &n) != 0)
			return -EINVAL;
		c->grad_bytes = (size_t)n;
		return 0;
	case 'n':
	case 'e':
		if (rv_cli_parse_real(v, 1, 1e6, &s) != 0 || s != (unsigned)s)
			return -EINVAL;
		*(id == 'n' ? &c->dim : &c->reduce_every) = (unsigned)s;
		return 0;
	}
	return -EINVAL;
}

int rv_cmd_workload(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "dim", required_argument, NULL, 'n' },
		{ "step", required_argument, NULL, 's' },
		{ "grad-size", required_argument, NULL, 'g' },
		{ "reduce-every", required_argument, NULL, 'e' },
		{ "report", required_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rv_workload_cfg c;
	struct rv_err err = { 0 };
	struct sigaction sa;
	int id, idx, quiet = 0, rc;

	rv_workload_defaults(&c);
	argv[0] = (char *)"reveal workload";
	optind = 1;
	while ((id = getopt_long(argc, argv, "qh", opts, &idx)) != -1) {
		if (id == 'h') {
			fputs(workload_help, stdout);
			return RV_EXIT_OK;
		}
		if (id == 'q') {
			quiet = 1;
		} else if (id == '?') {
			return RV_EXIT_USAGE;
		} else if (set_option(id, optarg, &c) != 0) {
			return rv_cli_fail("workload", RV_EXIT_USAGE, "invalid value '%s' for --%s", optarg,
				opts[idx].name);
		}
	}
	if (optind < argc) {
		return rv_cli_fail("workload", RV_EXIT_USAGE, "unexpected argument '%s' (see --help)",
			argv[optind]);
	}
	if ((rc = rv_workload_check(&c, &err)) != 0) {
		return rv_cli_fail_err("workload", RV_EXIT_USAGE, &err, rc);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = rv_workload_run(&c, &stop_flag, NULL, quiet ? NULL : stderr, &err);
	if (rc) {
		return rv_cli_fail_err("workload", RV_EXIT_FAIL, &err, rc);
	}
	return RV_EXIT_OK;
}
