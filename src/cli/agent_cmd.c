/*
 * agent_cmd.c - `reveal agent`: flags and the configuration file into
 * struct rv_config (config/), then the agent (agent/agent.h) until SIGTERM
 * or SIGINT. `--check-config FILE` only validates a file.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "base/log.h"
#include "cli/cli.h"
#include "config/config.h"

static const char agent_help[] =
	"usage: reveal agent [--config FILE] [--listen ADDR:PORT] [--store PATH]\n"
	"                    [--events FILE] [--interval T] [--learn T] [--record FILE.rvl]\n"
	"                    [--replay FILE.rvl [--speed N]] [--metric-set FILE]\n"
	"                    [--set KEY=VALUE] ...\n"
	"       reveal agent --check-config FILE\n"
	"       reveal agent --print-config [--config FILE] [flags]\n"
	"\n"
	"Watches this host: samples every source (`reveal metrics`), learns what normal\n"
	"looks like for --learn, then scores a window every step and reports incidents\n"
	"(subsystem, top signals with their baseline and incident values) to the SQLite\n"
	"store, JSON lines and the log, and serves Prometheus metrics, a JSON API and a\n"
	"dashboard. The fitted model is saved in state_dir and reloaded on restart, so a\n"
	"restart on the same channels needs no new learning. SIGHUP reloads the\n"
	"configuration file; SIGTERM or SIGINT stops cleanly.\n"
	"\n"
	"  --config FILE        YAML configuration (deploy/reveal.yaml documents every key)\n"
	"  --check-config FILE  check FILE and exit: 0 when valid, else errors with\n"
	"                       FILE:LINE:COLUMN\n"
	"  --print-config       print the effective configuration as YAML and exit\n"
	"  --listen ADDR:PORT   HTTP address (default 127.0.0.1:9464; \"\" for none)\n"
	"  --store PATH         SQLite incident store (default ./reveal.db; \"\" for none)\n"
	"  --events FILE        incident events as JSON lines (\"-\" for stdout)\n"
	"  --interval T         sampling interval (default 100ms)\n"
	"  --learn T            learning period before the first alert (default 10m)\n"
	"  --state-dir DIR      where the model is kept (default .)\n"
	"  --record FILE.rvl    also record every sample (segments FILE.<time>.rvl, kept\n"
	"                       within record.max_size and record.max_age)\n"
	"  --replay FILE.rvl    run the pipeline over a recording instead of this host\n"
	"  --speed N            replay speed: 1 real time, 0 as fast as possible (default)\n"
	"  --metric-set FILE    watch only the channels of this metric set (`reveal prune`;\n"
	"                       collect.metric_set): sources none of whose channels it\n"
	"                       keeps are not read; channels of the set this host lacks\n"
	"                       are logged at start; a bad file is exit status 2\n"
	"  --set KEY=VALUE      any configuration key, e.g. --set detect.incident_min=3\n"
	"  -q, --quiet          warnings and errors only, no progress line\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0 after a clean stop, 1 when the agent cannot run, 2 for bad\n"
	"flags or configuration.\n";

enum { AGENT_MMAP_THRESHOLD = 1 << 20 };

static volatile sig_atomic_t stop_flag, reload_flag;

static void learn_progress(void *ctx, double done, double remaining_s, int final)
{
	(void)ctx;
	if (final)
		fputs("\r\033[K", stderr);
	else
		fprintf(stderr, "\r\033[Kreveal agent: learning %3.0f %%, %.0f s left", done * 100.0,
			remaining_s);
	fflush(stderr);
}

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void on_hup(int sig)
{
	(void)sig;
	reload_flag = 1;
}

/* A flag that is a configuration key: flag name -> key. */
struct flag_key {
	int id;
	const char *flag, *key;
};

static const struct flag_key flag_keys[] = {
	{ 'l', "--listen", "http.listen" },   { 's', "--store", "store.path" },
	{ 'e', "--events", "events.path" },   { 'i', "--interval", "interval" },
	{ 'L', "--learn", "learn" },          { 'R', "--record", "record.path" },
	{ 'D', "--state-dir", "state_dir" },  { 'M', "--metric-set", "collect.metric_set" },
};

/* perf keeps up to 17 descriptors per CPU open: take the hard limit. */
static void raise_open_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int check_config(const char *path)
{
	struct rv_config c;
	struct rv_err err = { 0 };
	int rc;

	rv_config_defaults(&c);
	rc = rv_config_load(path, &c, &err);
	if (!rc)
		rc = rv_config_check(&c, &err);
	if (rc) {
		fprintf(stderr, "%s\n", rv_err_text(&err, rc));
		return RV_EXIT_USAGE;
	}
	printf("%s: valid\n", path);
	return RV_EXIT_OK;
}

struct agent_args {
	const char *config, *replay;
	double speed;
	int quiet, print;
	/* flags applied after the file: pairs of key and value */
	const char *set_key[64], *set_val[64];
	char set_buf[64][256];
	size_t nset;
};

static int add_set(struct agent_args *g, const char *key, const char *val)
{
	if (g->nset >= sizeof(g->set_key) / sizeof(g->set_key[0])) {
		rv_cli_error("agent", "too many settings");
		return -E2BIG;
	}
	g->set_key[g->nset] = key;
	g->set_val[g->nset] = val;
	g->nset++;
	return 0;
}

/* --set KEY=VALUE: the key is copied out of the argument. */
static int add_set_pair(struct agent_args *g, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *key;

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(g->set_buf[0]) ||
	    g->nset >= sizeof(g->set_key) / sizeof(g->set_key[0])) {
		rv_cli_error("agent", "--set %s: want KEY=VALUE", arg);
		return -EINVAL;
	}
	key = g->set_buf[g->nset];
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = '\0';
	return add_set(g, key, eq + 1);
}

static int parse_args(int argc, char **argv, struct agent_args *g)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'C' },
		{ "print-config", no_argument, NULL, 'P' },
		{ "listen", required_argument, NULL, 'l' },
		{ "store", required_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' },
		{ "interval", required_argument, NULL, 'i' },
		{ "learn", required_argument, NULL, 'L' },
		{ "record", required_argument, NULL, 'R' },
		{ "state-dir", required_argument, NULL, 'D' },
		{ "metric-set", required_argument, NULL, 'M' },
		{ "replay", required_argument, NULL, 'r' },
		{ "speed", required_argument, NULL, 'S' },
		{ "set", required_argument, NULL, 'k' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int id;

	optind = 1;
	while ((id = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (id) {
		case 'h':
			fputs(agent_help, stdout);
			return 1;
		case 'C':       /* handled before the other flags (rv_cmd_agent) */
			break;
		case 'c':
			g->config = optarg;
			break;
		case 'P':
			g->print = 1;
			break;
		case 'r':
			g->replay = optarg;
			break;
		case 'S':
			if (rv_cli_parse_real(optarg, 0.0, 1e6, &g->speed) != 0) {
				rv_cli_error("agent", "--speed %s: want a number from 0 to 1e6",
					optarg);
				return -EINVAL;
			}
			break;
		case 'k':
			if (add_set_pair(g, optarg) != 0)
				return -EINVAL;
			break;
		case 'q':
			g->quiet = 1;
			break;
		case '?':
			rv_cli_error("agent", "see --help");
			return -EINVAL;
		default:
			for (size_t i = 0; i < sizeof(flag_keys) / sizeof(flag_keys[0]); i++)
				if (flag_keys[i].id == id && add_set(g, flag_keys[i].key, optarg) != 0)
					return -EINVAL;
			break;
		}
	}
	if (optind < argc) {
		rv_cli_error("agent", "unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int rv_cmd_agent(int argc, char **argv)
{
	static struct agent_args g;
	struct rv_config cfg;
	struct rv_err err = { 0 };
	struct rv_agent_opts o = { 0 };
	struct sigaction sa;
	int rc;

	memset(&g, 0, sizeof(g));
	/* --check-config FILE alone decides: nothing else runs */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--check-config") == 0 ||
		    strncmp(argv[i], "--check-config=", 15) == 0) {
			const char *path = argv[i][14] == '=' ? argv[i] + 15
							      : (i + 1 < argc ? argv[i + 1] : NULL);
			if (!path) {
				return rv_cli_fail("agent", RV_EXIT_USAGE, "--check-config needs a FILE");
			}
			return check_config(path);
		}
	rc = parse_args(argc, argv, &g);
	if (rc)
		return rc > 0 ? RV_EXIT_OK : RV_EXIT_USAGE;
	rv_config_defaults(&cfg);
	if (g.config && (rc = rv_config_load(g.config, &cfg, &err)) != 0) {
		return rv_cli_fail_err("agent", RV_EXIT_USAGE, &err, rc);
	}
	for (size_t i = 0; i < g.nset; i++)
		if ((rc = rv_config_set(&cfg, g.set_key[i], g.set_val[i], &err)) != 0) {
			return rv_cli_fail_err("agent", RV_EXIT_USAGE, &err, rc);
		}
	if ((rc = rv_config_check(&cfg, &err)) != 0) {
		return rv_cli_fail_err("agent", RV_EXIT_USAGE, &err, rc);
	}
	if (g.print) {
		rv_config_write(stdout, &cfg);
		return RV_EXIT_OK;
	}
	rv_log_set_level(g.quiet && cfg.log_level > RV_LOG_WARN ? RV_LOG_WARN : cfg.log_level);
	/* The agent measures the host's committed memory, its own included:
	 * a fit's matrices go back to the kernel when freed (mmap), instead of
	 * staying on the heap as `reveal detect` keeps them (main.c), so the
	 * agent's footprint between fits stays what it was while learning. */
	mallopt(M_MMAP_THRESHOLD, AGENT_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, AGENT_MMAP_THRESHOLD);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* a file size limit (ulimit -f) is one more full disk: a write error */
	signal(SIGXFSZ, SIG_IGN);
	raise_open_files();

	o.cfg = &cfg;
	o.config_path = g.config;
	o.set_keys = g.set_key;
	o.set_vals = g.set_val;
	o.nset = g.nset;
	o.replay = g.replay;
	o.speed = g.speed;
	o.out = stdout;
	o.progress = !g.quiet && isatty(STDERR_FILENO) ? learn_progress : NULL;
	o.stop = &stop_flag;
	o.reload = &reload_flag;
	rc = rv_agent_run(&o, &err);
	if (rc) {
		rv_cli_error("agent", "%s", rv_err_text(&err, rc));
		return rc == -EINVAL ? RV_EXIT_USAGE : RV_EXIT_FAIL;
	}
	return RV_EXIT_OK;
}
