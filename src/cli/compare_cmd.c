/*
 * compare_cmd.c - `reveal compare A B`: how far two detection runs over
 * the same telemetry agree (the paper's consistency check between its
 * default and fine-grained configurations).
 *
 * This file parses the options, tells each input's kind by its first
 * bytes, reads an agent store (here, as cli/report_build.c does: pipeline/
 * does not link store/, and the computing stages open neither files nor
 * the store) and writes the result. Reading a per-window CSV, the
 * measures and the output are pipeline/compare.h's.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/atomicfile.h"
#include "base/err.h"
#include "base/log.h"
#include "cli/cli.h"
#include "explain/report.h"
#include "pipeline/compare.h"
#include "pipeline/model.h"
#include "store/store.h"

static const char compare_help[] =
	"usage: reveal compare A B [options]\n"
	"\n"
	"Compares two detection runs over the same telemetry: how far they agree on\n"
	"which windows are anomalous and on the incidents, e.g. `reveal detect` with\n"
	"two configurations. A and B are each a per-window CSV of `reveal detect -o`\n"
	"or an agent store (store.path), told apart by their content; a CSV may be\n"
	"compared with a store.\n"
	"\n"
	"Measures, over the time both runs cover (inside --since/--until):\n"
	"  IoU                   of anomalous windows: time anomalous in both runs over\n"
	"                        time anomalous in either. A window stands for the step\n"
	"                        that ends at its timestamp, so runs with other steps or\n"
	"                        timestamps that do not line up compare; with the same\n"
	"                        timestamps it is windows in both over windows in either.\n"
	"                        1 when neither run has an anomalous window\n"
	"  hit rate              the share of A's incidents that at least one of B's\n"
	"                        overlaps, and of B's by A's (n/a without incidents)\n"
	"  incidents             each incident of A (start, duration, subsystem) with the\n"
	"                        incident of B that overlaps it longest, or a dash; then\n"
	"                        B's incidents that overlap none of A's\n"
	"The paper reports median IoU 0.50 and hit rate 0.92 between its default and\n"
	"fine-grained configurations.\n"
	"\n"
	"Inputs:\n"
	"  per-window CSV        needs the columns timestamp and anomaly (score and\n"
	"                        top_metrics are used when there): a window is anomalous\n"
	"                        when its anomaly is 1; incidents are formed from those\n"
	"                        windows by the merger of `reveal detect` (--gap,\n"
	"                        --min-windows), the subsystem from top_metrics\n"
	"  agent store           read only, as `reveal report --store`: its incidents,\n"
	"                        and as anomalous the windows they cover (a store keeps\n"
	"                        no windows)\n"
	"\n"
	"Options:\n"
	"  --since T, --until T  compare only this time; T is ISO-8601 UTC\n"
	"                        (2026-12-02T10:00:00Z), unix seconds, or an age: 30m,\n"
	"                        2h, 7d (that long before now). Two stores without them:\n"
	"                        from the first incident of either to the last\n"
	"  --step DUR            the time one window of a store stands for (default 1s,\n"
	"                        the agent's detect.step); a CSV's is the median spacing\n"
	"                        of its timestamps\n"
	"  --gap N               unflagged windows bridged inside a CSV's incident\n"
	"                        (default 0: the anomaly column already bridges the\n"
	"                        gaps of the run that wrote it)\n"
	"  --min-windows N       anomalous windows a CSV's incident needs (default 1)\n"
	"  --format F            text (default; json from -o's .json extension) or json\n"
	"  -o, --output FILE     write to FILE (replaced whole) instead of standard output\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 success, 1 a failure while reading or writing, 2 bad usage or\n"
	"bad input (neither a CSV nor a store, a CSV without the anomaly column or with\n"
	"a malformed line, runs that share no time).\n";

enum { OPT_SINCE = 256, OPT_UNTIL, OPT_STEP, OPT_GAP, OPT_MIN, OPT_FORMAT };
enum { FMT_TEXT, FMT_JSON };
enum { COUNT_MAX = 1000 };   /* --gap, --min-windows: as the agent's incident_gap */
#define DEFAULT_STEP_S 1.0

/* The first bytes of every SQLite database file. */
static const char sqlite_magic[16] = "SQLite format 3";

struct compare_args {
	const char *in[2], *out;
	int format;                  /* -1: not given */
	double since, until;
	const char *since_text, *until_text;
	double step;
	size_t gap, min_windows;
};

static int usage_error(const char *fmt, const char *a, const char *b)
{
	char msg[RV_ERR_MSG_MAX];

	snprintf(msg, sizeof(msg), fmt, a, b);
	return rv_cli_fail("compare", RV_EXIT_USAGE, "%s (see --help)", msg);
}

static int parse_count(const char *name, const char *s, size_t *out)
{
	unsigned long long v;

	if (rv_cli_parse_size(s, COUNT_MAX, &v) != 0)
		return usage_error("--%s %s: want a count from 0 to 1000", name, s);
	*out = (size_t)v;
	return 0;
}

/* One option of parse_args (id from getopt_long): 0 or an exit status. */
static int parse_opt(int id, struct compare_args *a, double now)
{
	struct rv_span sp;

	switch (id) {
	case 'o': a->out = optarg; return 0;
	case OPT_FORMAT:
		if (strcmp(optarg, "text") && strcmp(optarg, "json"))
			return usage_error("--format %s: want text or json%s", optarg, "");
		a->format = strcmp(optarg, "json") == 0 ? FMT_JSON : FMT_TEXT;
		return 0;
	case OPT_SINCE:
	case OPT_UNTIL:
		if (rv_cli_parse_time(optarg, now, id == OPT_SINCE ? &a->since : &a->until) != 0)
			return usage_error("--%s %s: want ISO-8601 UTC, unix seconds or an age"
					   " like 2h", id == OPT_SINCE ? "since" : "until", optarg);
		*(id == OPT_SINCE ? &a->since_text : &a->until_text) = optarg;
		return 0;
	case OPT_STEP:
		if (rv_cli_parse_span(optarg, &sp) != 0 || !sp.seconds)
			return usage_error("--step %s: want a duration (1s, 500ms)%s", optarg, "");
		a->step = sp.value;
		return 0;
	case OPT_GAP: return parse_count("gap", optarg, &a->gap);
	case OPT_MIN: return parse_count("min-windows", optarg, &a->min_windows);
	default: return RV_EXIT_USAGE;
	}
}

/* 0, -1 after --help, or an exit status. */
static int parse_args(int argc, char **argv, struct compare_args *a)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "gap", required_argument, NULL, OPT_GAP },
		{ "min-windows", required_argument, NULL, OPT_MIN },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double now = (double)time(NULL);
	int id, rc;

	*a = (struct compare_args){ .format = -1, .since = -INFINITY, .until = INFINITY,
				    .step = DEFAULT_STEP_S, .min_windows = 1 };
	optind = 1;
	while ((id = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (id == 'h') {
			fputs(compare_help, stdout);
			return -1;
		}
		if ((rc = parse_opt(id, a, now)) != 0)
			return rc;
	}
	if (argc - optind != 2)
		return usage_error("want two runs to compare, A and B: per-window CSVs of reveal"
				   " detect or agent stores%s%s", "", "");
	a->in[0] = argv[optind];
	a->in[1] = argv[optind + 1];
	if (a->since > a->until)
		return usage_error("--since %s is after --until %s", a->since_text, a->until_text);
	if (a->format < 0)
		a->format = rv_cli_format_pick(-1, a->out) == RV_REPORT_JSON ? FMT_JSON : FMT_TEXT;
	return 0;
}

/* ------------------------------------------------------------ the inputs */

/* 1 when path is a SQLite database, 0 when not, or a negative errno. */
static int is_sqlite(const char *path, struct rv_err *err)
{
	char head[sizeof(sqlite_magic)];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		int e = errno;
		return rv_err_set(err, -e, "%s: %s", path, strerror(e));
	}
	n = fread(head, 1, sizeof(head), f);
	if (ferror(f)) {
		int e = errno ? errno : EIO;
		fclose(f);
		return rv_err_set(err, -e, "%s: %s", path, strerror(e));
	}
	fclose(f);
	return n == sizeof(head) && memcmp(head, sqlite_magic, sizeof(head)) == 0;
}

struct store_ctx {
	struct rv_compare_run *run;
	struct rv_err *err;
};

/* One stored incident into the run; its subsystem named by the catalog's
 * names (text the store may hold without its NUL when full). */
static int add_stored(void *ctx, const struct rv_store_incident *s)
{
	struct store_ctx *c = ctx;
	char sub[RV_STORE_SUBSYS_LEN + 1];
	struct rv_compare_incident in = {
		.id = s->id, .start_ts = s->start_ts, .end_ts = s->end_ts, .windows = s->windows,
		.subsystem = RV_SUB_OTHER, .phase = s->phase ? s->phase : 1,
	};

	memcpy(sub, s->subsystem, RV_STORE_SUBSYS_LEN);
	sub[RV_STORE_SUBSYS_LEN] = '\0';
	in.attributed = sub[0] != '\0';
	for (int k = 0; k < RV_SUB_COUNT; k++)
		if (strcmp(sub, rv_subsystem_name((enum rv_subsystem)k)) == 0)
			in.subsystem = (enum rv_subsystem)k;
	return rv_compare_run_add(c->run, &in, c->err);
}

/* Every incident of the store at path (opened read-only: never written). */
static int read_store(const char *path, double step, struct rv_compare_run *run,
		      struct rv_err *err)
{
	struct rv_store *st = NULL;
	struct store_ctx c = { run, err };
	int rc;

	rv_compare_run_init(run, path, "store", step);
	rc = rv_store_open_ro(path, &st, err);
	if (rc == 0)
		rc = rv_store_list_incidents(st, -INFINITY, 0, add_stored, &c, err);
	rv_store_close(st);
	return rc;
}

static int read_run(const struct compare_args *a, int k, struct rv_compare_run *run,
		    struct rv_err *err)
{
	int rc = is_sqlite(a->in[k], err);

	if (rc < 0) {
		rv_compare_run_init(run, a->in[k], "csv", a->step);
		return rc;
	}
	if (rc == 1)
		return read_store(a->in[k], a->step, run, err);
	return rv_compare_read_csv(a->in[k], a->gap, a->min_windows, a->step, run, err);
}

/* ------------------------------------------------------------- the output */

/* Writes the comparison to a->out, whole or not at all (base/atomicfile.h),
 * or to standard output. */
static int write_result(const struct compare_args *a, const struct rv_compare_run *run,
			const struct rv_compare_result *r)
{
	struct rv_atomicfile af = { .f = stdout };
	struct rv_err err;
	int rc;

	rv_err_clear(&err);
	if (a->out && (rc = rv_atomicfile_open(&af, a->out, "w", &err)) != 0) {
		rv_cli_error("compare", "%s", rv_err_text(&err, rc));
		return rc;
	}
	rc = a->format == FMT_JSON ? rv_compare_write_json(af.f, &run[0], &run[1], r)
				   : rv_compare_write_text(af.f, &run[0], &run[1], r);
	if (fflush(af.f) != 0 || ferror(af.f))
		rc = -EIO;
	if (a->out) {
		rc = rv_atomicfile_close(&af, rc, &err);
		if (rc != 0)
			rv_cli_error("compare", "%s", rv_err_text(&err, rc));
	} else if (rc != 0) {
		rv_cli_error("compare", "standard output: %s", rv_strerror(rc));
	}
	return rc;
}

/* A store none of whose incidents lies in the range, beside a CSV: most
 * likely not the same telemetry (another host, another day). Said, not
 * refused: a store only knows its incidents, not the time it watched. */
static void warn_outside(const struct rv_compare_run *run, const struct rv_compare_result *r)
{
	const struct rv_compare_side *side[2] = { &r->a, &r->b };

	for (int k = 0; k < 2; k++)
		if (!run[k].nwin && run[k].ninc && !side[k]->incidents && run[1 - k].nwin)
			rv_warn("compare: %s: none of its %zu incidents lies in the time %s covers:"
				" is it the same telemetry?", run[k].name, run[k].ninc,
				run[1 - k].name);
}

static int exit_status(int rc)
{
	if (rc == 0)
		return RV_EXIT_OK;
	return rc == -EINVAL || rc == -ENOENT || rc == -EILSEQ || rc == -ENOTSUP || rc == -E2BIG ||
			       rc == -EISDIR
		       ? RV_EXIT_USAGE
		       : RV_EXIT_FAIL;
}

int rv_cmd_compare(int argc, char **argv)
{
	struct compare_args a;
	struct rv_compare_run run[2];
	struct rv_compare_result r = { 0 };
	struct rv_err err;
	int rc = parse_args(argc, argv, &a);

	if (rc < 0)
		return RV_EXIT_OK;   /* --help */
	if (rc > 0)
		return rc;
	rv_err_clear(&err);
	rc = read_run(&a, 0, &run[0], &err);
	if (rc == 0)
		rc = read_run(&a, 1, &run[1], &err);
	else
		rv_compare_run_init(&run[1], a.in[1], "csv", a.step);
	if (rc == 0)
		rc = rv_compare_runs(&run[0], &run[1], a.since, a.until, &r, &err);
	if (rc != 0) {
		rv_cli_error("compare", "%s", rv_err_text(&err, rc));
	} else {
		warn_outside(run, &r);
		if (write_result(&a, run, &r) != 0)
			rc = -EIO;   /* a failed write is a failure at run time, not bad input */
	}
	rv_compare_result_fini(&r);
	rv_compare_run_fini(&run[0]);
	rv_compare_run_fini(&run[1]);
	return exit_status(rc);
}
