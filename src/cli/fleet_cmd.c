/*
 * fleet_cmd.c - `reveal fleet`: the nodes of a fleet against their peers,
 * from what their agents remote-write, read through the Prometheus HTTP
 * API of the storage (fleet/fleet.h); once into a report, or again and
 * again behind /metrics (--serve, fleet/serve.h).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/atomicfile.h"
#include "base/err.h"
#include "base/log.h"
#include "cli/cli.h"
#include "catalog/catalog.h"
#include "config/config.h"
#include "explain/report.h"
#include "fleet/fleet.h"
#include "fleet/serve.h"
#include "serve/http.h"

_Static_assert((int)RV_FLEET_TEXT == (int)RV_REPORT_TEXT &&
		       (int)RV_FLEET_MARKDOWN == (int)RV_REPORT_MARKDOWN &&
		       (int)RV_FLEET_JSON == (int)RV_REPORT_JSON &&
		       (int)RV_FLEET_HTML == (int)RV_REPORT_HTML,
	       "fleet reports take `reveal report`'s format names");

static const char fleet_help[] =
	"usage: reveal fleet --prometheus URL [--selector SEL] [--group-by LABEL]\n"
	"                    [--since T] [--until T] [--format F] [-o FILE] [options]\n"
	"       reveal fleet --serve ADDR:PORT --prometheus URL [--every T] [--lookback T]\n"
	"\n"
	"Compares the nodes of a fleet with their peers, from the summaries their agents\n"
	"send by Prometheus remote write (the agent's remote_write section), read back\n"
	"through the Prometheus HTTP API of the storage: Prometheus, VictoriaMetrics,\n"
	"Mimir, Thanos or Cortex. Nodes are compared inside their group (--group-by:\n"
	"the nodes of one job), and the report names\n"
	"  - stragglers: nodes out of step with their peers for a sustained stretch,\n"
	"    with when, and the signals that set them apart beside the peers' median;\n"
	"  - configuration drift: static facts (huge pages, GPU model, driver and\n"
	"    clocks, NIC MTU and speed, NUMA layout, kernel) that differ inside a\n"
	"    group, the odd nodes against the majority value.\n"
	"\n"
	"Storage:\n"
	"  --prometheus URL      base URL of the Prometheus HTTP API, e.g.\n"
	"                        http://prometheus:9090, http://victoria:8428,\n"
	"                        http://mimir/prometheus (required)\n"
	"  --header 'N: V'       an HTTP header for every request (repeatable), e.g.\n"
	"                        'X-Scope-OrgID: tenant1'\n"
	"  --user U              basic auth user (with --password-file FILE)\n"
	"  --bearer-token-file F the token for 'Authorization: Bearer'\n"
	"  --ca-file F, --cert-file F, --key-file F, --insecure   TLS\n"
	"  --timeout T           one request (default 30s)\n"
	"  --threads N           queries at once, 1..16 (default 4)\n"
	"\n"
	"What to compare:\n"
	"  --selector SEL        label matchers for the nodes, e.g. 'cluster=\"eu1\"'\n"
	"                        (default: every node that sends)\n"
	"  --group-by LABEL      the label naming a node's group (default: group;\n"
	"                        nodes without it form one group)\n"
	"  --since T, --until T  the range: ISO-8601 UTC, unix seconds, or an age like\n"
	"                        2h (default: the last hour until now)\n"
	"  --step T              the agents' summary interval (default: from the data)\n"
	"  --persist T           a straggler is out of step at least this long (default\n"
	"                        10 windows); a duration, or a number of windows\n"
	"  --threshold S         the straggler score a node must stay above (default 3)\n"
	"\n"
	"Output:\n"
	"  --format F            text (default; or from -o's extension), markdown,\n"
	"                        json, html (plots of each straggler against its peers'\n"
	"                        band, and a nodes x time heat map of scores per group)\n"
	"  -o, --output FILE     write to FILE (replaced whole) instead of standard output\n"
	"  -q, --quiet           no progress line\n"
	"\n"
	"Continuous (--serve):\n"
	"  --serve ADDR:PORT     analyse every --every (default 1m) the last --lookback\n"
	"                        (default 15m) and serve /metrics\n"
	"                        (reveal_fleet_straggler_score{group,node},\n"
	"                        reveal_fleet_straggler, reveal_fleet_drift, ...), the\n"
	"                        last report at /report (.json, .txt) and /healthz;\n"
	"                        SIGTERM or SIGINT stops it\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 success (findings or not: read them in the report or its JSON),\n"
	"1 a failure reading the storage or writing the report, 2 bad usage.\n";

enum {
	OPT_PROM = 256, OPT_HEADER, OPT_USER, OPT_PASSWORD_FILE, OPT_BEARER_FILE, OPT_CA, OPT_CERT,
	OPT_KEY, OPT_INSECURE, OPT_TIMEOUT, OPT_THREADS, OPT_SELECTOR, OPT_GROUP_BY, OPT_SINCE,
	OPT_UNTIL, OPT_STEP, OPT_PERSIST, OPT_THRESHOLD, OPT_FORMAT, OPT_SERVE, OPT_EVERY,
	OPT_LOOKBACK,
};

enum { SECRET_MAX = 4096 };

struct fleet_args {
	struct rv_fleet_opts fo;
	const char *out, *serve, *password_file, *bearer_file;
	const char *since_text, *until_text;
	int format, quiet;
	double every_s, lookback_s;
	char secret[2][SECRET_MAX];
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int usage(const char *fmt, const char *a)
{
	char msg[2 * RV_ERR_MSG_MAX];

	snprintf(msg, sizeof(msg), fmt, a);
	return rv_cli_fail("fleet", RV_EXIT_USAGE, "%s (see --help)", msg);
}

/* usage() for an option value: -1. */
static int bad(const char *fmt, const char *a)
{
	usage(fmt, a);
	return -1;
}

/* A duration > 0 into *out: 0, or -1 with fmt's message. */
static int duration(const char *fmt, const char *s, double *out)
{
	if (rv_config_parse_duration(s, out) != 0 || !(*out > 0))
		return bad(fmt, s);
	return 0;
}

/* The storage's connection options; 1 when id was one of them, -1 on error. */
static int conn_option(struct fleet_args *a, int id, const char *arg)
{
	struct rv_httpc_opts *h = &a->fo.src.http;
	double t;

	switch (id) {
	case OPT_PROM: h->url = arg; return 1;
	case OPT_HEADER:
		if (h->nheaders == RV_HTTPC_HEADERS_MAX)
			return bad("--header %s: at most 16 headers", arg);
		h->headers[h->nheaders++] = arg;
		return 1;
	case OPT_USER: h->basic_user = arg; return 1;
	case OPT_PASSWORD_FILE: a->password_file = arg; return 1;
	case OPT_BEARER_FILE: a->bearer_file = arg; return 1;
	case OPT_CA: h->ca_file = arg; return 1;
	case OPT_CERT: h->cert_file = arg; return 1;
	case OPT_KEY: h->key_file = arg; return 1;
	case OPT_INSECURE: h->insecure = 1; return 1;
	case OPT_TIMEOUT:
		if (duration("--timeout %s: want a duration like 30s", arg, &t))
			return -1;
		h->timeout_s = t;
		return 1;
	case OPT_THREADS: {
		char *end;
		long n = strtol(arg, &end, 10);

		if (end == arg || *end || n < 1 || n > RV_FLEET_THREADS_MAX)
			return bad("--threads %s: want 1..16", arg);
		a->fo.src.threads = (unsigned)n;
		return 1;
	}
	default: return 0;
	}
}

/* --persist: a duration ("2m") or a number of windows ("5"). */
static int persist_option(struct fleet_args *a, const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (end != arg && !*end && n >= 1 && n <= 100000) {
		a->fo.strag.persist = (size_t)n;
		return 0;
	}
	return duration("--persist %s: want a duration (2m) or a number of windows (5)", arg,
			&a->fo.persist_s) ? -1 : 0;
}

/* What to compare and how to show it; 1, 0 (not one of them) or -1. */
static int analysis_option(struct fleet_args *a, int id, const char *arg, double now)
{
	switch (id) {
	case OPT_SELECTOR: a->fo.src.selector = arg; return 1;
	case OPT_GROUP_BY: a->fo.src.group_by = arg; return 1;
	case OPT_SINCE:
	case OPT_UNTIL:
		if (rv_cli_parse_time(arg, now, id == OPT_SINCE ? &a->fo.src.since
								 : &a->fo.src.until) != 0)
			return bad(id == OPT_SINCE ? "--since %s: want ISO-8601 UTC, unix seconds or"
						       " an age like 2h"
						     : "--until %s: want ISO-8601 UTC, unix seconds or"
						       " an age like 2h", arg);
		*(id == OPT_SINCE ? &a->since_text : &a->until_text) = arg;
		return 1;
	case OPT_STEP:
		return duration("--step %s: want a duration like 10s", arg, &a->fo.src.step) ? -1 : 1;
	case OPT_PERSIST: return persist_option(a, arg) ? -1 : 1;
	case OPT_THRESHOLD:
		if (rv_cli_parse_real(arg, 0.1, 1000, &a->fo.strag.threshold) != 0)
			return bad("--threshold %s: want a number in 0.1..1000", arg);
		return 1;
	case OPT_FORMAT:
		if ((a->format = rv_report_format_parse(arg)) < 0)
			return bad("--format %s: want text, markdown, json or html", arg);
		return 1;
	case 'o': a->out = arg; return 1;
	case 'q': a->quiet = 1; return 1;
	case OPT_SERVE: a->serve = arg; return 1;
	case OPT_EVERY: return duration("--every %s: want a duration like 1m", arg, &a->every_s)
				       ? -1 : 1;
	case OPT_LOOKBACK:
		return duration("--lookback %s: want a duration like 15m", arg, &a->lookback_s)
			       ? -1 : 1;
	default: return 0;
	}
}

static const struct option long_opts[] = {
	{ "prometheus", required_argument, NULL, OPT_PROM },
	{ "header", required_argument, NULL, OPT_HEADER },
	{ "user", required_argument, NULL, OPT_USER },
	{ "password-file", required_argument, NULL, OPT_PASSWORD_FILE },
	{ "bearer-token-file", required_argument, NULL, OPT_BEARER_FILE },
	{ "ca-file", required_argument, NULL, OPT_CA },
	{ "cert-file", required_argument, NULL, OPT_CERT },
	{ "key-file", required_argument, NULL, OPT_KEY },
	{ "insecure", no_argument, NULL, OPT_INSECURE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "selector", required_argument, NULL, OPT_SELECTOR },
	{ "group-by", required_argument, NULL, OPT_GROUP_BY },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "step", required_argument, NULL, OPT_STEP },
	{ "persist", required_argument, NULL, OPT_PERSIST },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "serve", required_argument, NULL, OPT_SERVE },
	{ "every", required_argument, NULL, OPT_EVERY },
	{ "lookback", required_argument, NULL, OPT_LOOKBACK },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The first line of path (a secret) into buf; 0 or -1 (reported). */
static int read_secret(const char *flag, const char *path, char *buf, size_t n)
{
	struct rv_err err = { 0 };

	if (rv_httpc_read_secret(flag, path, buf, n, &err) == 0)
		return 0;
	rv_cli_error("fleet", "%s", err.msg);
	return -1;
}

/* The rules between options, and the secrets read. */
static int check_args(struct fleet_args *a)
{
	struct rv_httpc_opts *h = &a->fo.src.http;
	struct rv_err err = { 0 };

	if (!h->url)
		return usage("want --prometheus URL%s", "");
	if (rv_httpc_check(h, &err) != 0)
		return usage("--prometheus/--header/TLS: %s", err.msg);
	if (a->password_file && !h->basic_user)
		return usage("--password-file %s: needs --user", a->password_file);
	if (h->basic_user && a->bearer_file)
		return usage("--user and --bearer-token-file %s: one or the other", a->bearer_file);
	if (a->serve && (a->out || a->since_text || a->until_text))
		return usage("--serve %s: -o, --since and --until are for one report", a->serve);
	if (!a->serve && (a->every_s > 0 || a->lookback_s > 0))
		return usage("--every and --lookback: only with --serve%s", "");
	if (!(a->fo.src.since < a->fo.src.until))
		return usage("--since %s is not before --until", a->since_text ? a->since_text : "");
	if (a->password_file &&
	    read_secret("--password-file", a->password_file, a->secret[0], SECRET_MAX))
		return RV_EXIT_USAGE;
	if (a->bearer_file &&
	    read_secret("--bearer-token-file", a->bearer_file, a->secret[1], SECRET_MAX))
		return RV_EXIT_USAGE;
	h->basic_password = a->password_file ? a->secret[0] : h->basic_user ? "" : NULL;
	h->bearer_token = a->bearer_file ? a->secret[1] : NULL;
	return 0;
}

static int parse_args(int argc, char **argv, struct fleet_args *a)
{
	double now = (double)time(NULL);
	int id;

	rv_fleet_opts_default(&a->fo);
	a->fo.floor_of = rv_catalog_resolution;
	a->fo.src.http.timeout_s = 30;
	a->fo.src.until = now;
	a->fo.src.since = now - 3600;
	a->format = -1;
	optind = 1;
	while ((id = getopt_long(argc, argv, "o:qh", long_opts, NULL)) != -1) {
		int r;

		if (id == 'h') {
			fputs(fleet_help, stdout);
			return -1;
		}
		if ((r = conn_option(a, id, optarg)) == 0)
			r = analysis_option(a, id, optarg, now);
		if (r < 0 || r == 0)
			return RV_EXIT_USAGE;   /* reported, or getopt said why */
	}
	if (optind != argc)
		return usage("unexpected argument '%s'", argv[optind]);
	return check_args(a);
}

static void progress(void *ctx, size_t done, size_t total)
{
	(void)ctx;
	fprintf(stderr, "\rreveal fleet: read %zu of %zu windows", done, total);
	if (done == total)
		fputc('\n', stderr);
}

static void listening(void *ctx, int port)
{
	const char *listen = ctx;

	rv_info("fleet: serving /metrics, /report and /healthz on %s (port %d)", listen, port);
}

static int serve(struct fleet_args *a)
{
	struct rv_fleet_serve_opts so = {
		.analysis = a->fo,
		.listen = a->serve,
		.every_s = a->every_s > 0 ? a->every_s : 60,
		.lookback_s = a->lookback_s > 0 ? a->lookback_s : 900,
		.stop = &stop_flag,
		.listening = listening,
		.ctx = (void *)a->serve,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct rv_err err = { 0 };
	int rc;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if ((rc = rv_http_listen_check(a->serve, &err)) != 0)
		return rv_cli_fail("fleet", RV_EXIT_USAGE, "--serve %s: %s", a->serve, err.msg);
	rc = rv_fleet_serve(&so, &err);
	return rc ? rv_cli_fail_err("fleet", RV_EXIT_FAIL, &err, rc) : RV_EXIT_OK;
}

static int write_report(const struct fleet_args *a, const struct rv_fleet_result *r)
{
	enum rv_fleet_format fmt = (enum rv_fleet_format)rv_cli_format_pick(a->format, a->out);
	struct rv_atomicfile af;
	struct rv_err err = { 0 };
	int rc;

	if (!a->out) {
		rc = rv_fleet_report(stdout, r, fmt);
		if (rc || fflush(stdout) != 0)
			return rv_cli_fail("fleet", RV_EXIT_FAIL, "writing the report: %s",
					   strerror(EIO));
		return RV_EXIT_OK;
	}
	if ((rc = rv_atomicfile_open(&af, a->out, "w", &err)) != 0)
		return rv_cli_fail_err("fleet", RV_EXIT_FAIL, &err, rc);
	rc = rv_fleet_report(af.f, r, fmt);
	if (rc)
		rv_err_set(&err, rc, "%s: write failed", a->out);
	rc = rv_atomicfile_close(&af, rc, &err);
	return rc ? rv_cli_fail_err("fleet", RV_EXIT_FAIL, &err, rc) : RV_EXIT_OK;
}

int rv_cmd_fleet(int argc, char **argv)
{
	struct fleet_args *a = calloc(1, sizeof(*a));
	struct rv_fleet_result *r = NULL;
	struct rv_err err = { 0 };
	int rc;

	if (!a)
		return rv_cli_fail("fleet", RV_EXIT_FAIL, "out of memory");
	rc = parse_args(argc, argv, a);
	if (rc) {
		free(a);
		return rc < 0 ? RV_EXIT_OK : rc;
	}
	if (a->serve) {
		rc = serve(a);
	} else {
		if (!a->quiet && isatty(STDERR_FILENO))
			a->fo.progress = progress;
		rc = rv_fleet_analyse(&a->fo, &r, &err);
		rc = rc ? rv_cli_fail_err("fleet", RV_EXIT_FAIL, &err, rc) : write_report(a, r);
		rv_fleet_result_free(r);
	}
	memset(a->secret, 0, sizeof(a->secret));
	free(a);
	return rc;
}
