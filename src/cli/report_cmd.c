/*
 * report_cmd.c - `reveal report`: incident reports for people, from the
 * agent's store or from `reveal detect --incidents` output with the data
 * it was run on.
 *
 * This file parses the options, loads the rules and writes the report;
 * report_build.c reads the incidents (store rows, or the incidents JSON
 * with its data) and hands them to the library: explain/report_build.h
 * puts each together (evidence stored by the agent or worked out from the
 * data with explain/details.c, the code the agent runs; the knowledge
 * base's likely causes, matched now with the rules given; plot series,
 * the chain and the phases of a cascade), pipeline/report_offline.h
 * explains an incidents file from its data, explain/report.c renders.
 * Everything allocated for the report goes into one pool (base/pool.h)
 * freed at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/atomicfile.h"
#include "base/err.h"
#include "base/severity.h"
#include "cli/cli.h"
#include "explain/kb.h"
#include "explain/report.h"
#include "pipeline/model.h"
#include "record/csv.h"
#include "cli/report_int.h"


static const char report_help[] =
	"usage: reveal report --store DB [options]\n"
	"       reveal report --incidents FILE.json --data FILE [options]\n"
	"       reveal report --check-rules [--rules FILE]... | --list-rules\n"
	"\n"
	"Writes a report of incidents: per incident the time range, duration, severity,\n"
	"the detectors that fired, the subsystems ranked, the key signals (baseline,\n"
	"value in the incident, change), the likely causes from the knowledge base with\n"
	"their evidence, the commands to check them and the fix (or, plainly, that no\n"
	"rule matched), the cross-layer chain when several subsystems moved, the phases\n"
	"of a cascade (the incident it follows, those that follow it; named even when a\n"
	"filter leaves them out), and (HTML) a plot per top signal against its baseline\n"
	"band.\n"
	"\n"
	"Input (one of):\n"
	"  --store DB            the agent's SQLite store (store.path); the evidence and\n"
	"                        plots are those the agent stored with each incident.\n"
	"                        Read only: reading DB is enough, the file is never\n"
	"                        written (an older store is upgraded in memory)\n"
	"  --incidents FILE      the JSON of `reveal detect --incidents FILE`, with\n"
	"  --data FILE           the TEST data that run scored (CSV, CSV.gz or .rvl):\n"
	"                        evidence and plots are worked out from it\n"
	"\n"
	"Output:\n"
	"  --format F            text (default; or from -o's extension: .md, .json,\n"
	"                        .html), markdown, json, html (one self-contained page\n"
	"                        with inline SVG plots)\n"
	"  -o, --output FILE     write to FILE (replaced whole) instead of standard output\n"
	"  --summary             one line per incident\n"
	"\n"
	"Filters (incidents must pass all):\n"
	"  --since T, --until T  incidents overlapping [T1, T2]; T is ISO-8601 UTC\n"
	"                        (2026-12-02T10:00:00Z, 2026-12-02 10:00), unix seconds,\n"
	"                        or an age: 30m, 2h, 7d (that long before now)\n"
	"  --subsystem S         cpu, gpu, mem, net, storage, other: the incident's\n"
	"                        subsystem, or one holding at least 25 % of its weight\n"
	"  --min-severity S      minor, major or critical\n"
	"  --incident ID         only this incident\n"
	"\n"
	"Knowledge base:\n"
	"  --rules FILE          load these rules after the built-in ones (repeatable):\n"
	"                        same id replaces, `enabled: false` removes, new adds\n"
	"  --check-rules         load the rules, say how many, and exit (2 on an error)\n"
	"  --list-rules          print the rules in effect (id, subsystem, title; an\n"
	"                        undecided rule's candidates on the line below)\n"
	"  --print-builtin-rules print the built-in rules file (a start for your own)\n"
	"\n"
	"  --window DUR          the detector window (offline input; default: the\n"
	"                        incidents file's, else 5 samples)\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 success (also when no incident passes the filters), 1 a\n"
	"failure while reading or writing, 2 bad usage or bad input.\n";

/* ---------------------------------------------------------------- options */


enum {
	OPT_STORE = 256, OPT_INCIDENTS, OPT_DATA, OPT_FORMAT, OPT_SUMMARY, OPT_SINCE, OPT_UNTIL,
	OPT_SUBSYSTEM, OPT_MIN_SEV, OPT_INCIDENT, OPT_RULES, OPT_CHECK_RULES, OPT_LIST_RULES,
	OPT_PRINT_BUILTIN, OPT_WINDOW,
};

static int usage_error(const char *fmt, const char *a, const char *b)
{
	char msg[RV_ERR_MSG_MAX];

	snprintf(msg, sizeof(msg), fmt, a, b);
	return rv_cli_fail("report", RV_EXIT_USAGE, "%s (see --help)", msg);
}

static int parse_enum(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, OPT_STORE },
		{ "incidents", required_argument, NULL, OPT_INCIDENTS },
		{ "data", required_argument, NULL, OPT_DATA },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "subsystem", required_argument, NULL, OPT_SUBSYSTEM },
		{ "min-severity", required_argument, NULL, OPT_MIN_SEV },
		{ "incident", required_argument, NULL, OPT_INCIDENT },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "check-rules", no_argument, NULL, OPT_CHECK_RULES },
		{ "list-rules", no_argument, NULL, OPT_LIST_RULES },
		{ "print-builtin-rules", no_argument, NULL, OPT_PRINT_BUILTIN },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const subs[] = { "cpu", "gpu", "mem", "net", "storage", "other" };
	double now = (double)time(NULL);
	int id;

	memset(a, 0, sizeof(*a));
	a->format = -1;
	a->since = -INFINITY;
	a->until = INFINITY;
	a->subsystem = -1;
	a->window_s = NAN;
	optind = 1;
	while ((id = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		char *end;
		switch (id) {
		case 'h':
			fputs(report_help, stdout);
			return -1;
		case 'o': a->out = optarg; break;
		case OPT_STORE: a->store = optarg; break;
		case OPT_INCIDENTS: a->incidents = optarg; break;
		case OPT_DATA: a->data = optarg; break;
		case OPT_SUMMARY: a->summary = 1; break;
		case OPT_CHECK_RULES: a->check_rules = 1; break;
		case OPT_LIST_RULES: a->list_rules = 1; break;
		case OPT_PRINT_BUILTIN: a->print_builtin = 1; break;
		case OPT_FORMAT:
			a->format = rv_report_format_parse(optarg);
			if (a->format < 0)
				return usage_error("--format %s: want text, markdown, json or html%s",
						   optarg, "");
			break;
		case OPT_SINCE:
		case OPT_UNTIL:
			if (rv_cli_parse_time(optarg, now, id == OPT_SINCE ? &a->since : &a->until) != 0)
				return usage_error("--%s %s: want ISO-8601 UTC, unix seconds or an"
						   " age like 2h", id == OPT_SINCE ? "since" : "until",
						   optarg);
			*(id == OPT_SINCE ? &a->since_text : &a->until_text) = optarg;
			break;
		case OPT_SUBSYSTEM:
			a->subsystem = parse_enum(optarg, subs, RV_SUB_COUNT);
			if (a->subsystem < 0)
				return usage_error("--subsystem %s: want cpu, gpu, mem, net, storage or"
						   " other%s", optarg, "");
			break;
		case OPT_MIN_SEV:
			a->min_sev = rv_severity_parse(optarg);
			if (a->min_sev < 0)
				return usage_error("--min-severity %s: want minor, major or critical%s",
						   optarg, "");
			break;
		case OPT_INCIDENT:
			errno = 0;
			a->id = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || a->id == 0 || optarg[0] == '-')
				return usage_error("--incident %s: want an incident id (1, 2, ...)%s",
						   optarg, "");
			break;
		case OPT_RULES:
			if (a->nrules == RULE_FILES_MAX)
				return usage_error("--rules %s: at most 16 rule files%s", optarg, "");
			a->rules[a->nrules++] = optarg;
			break;
		case OPT_WINDOW: {
			struct rv_span sp;
			if (rv_cli_parse_span(optarg, &sp) != 0)
				return usage_error("--window %s: want samples (5) or a duration (3s)%s",
						   optarg, "");
			if (sp.seconds)
				a->window_s = sp.value;
			else
				a->window_n = (size_t)sp.value;
			break;
		}
		default:
			return RV_EXIT_USAGE;
		}
	}
	if (optind != argc)
		return usage_error("unexpected argument '%s'%s", argv[optind], "");
	if (a->check_rules || a->list_rules || a->print_builtin)
		return 0;
	if (!a->store == !a->incidents)
		return usage_error("want --store DB, or --incidents FILE with --data FILE%s%s", "",
				   "");
	if (a->incidents && !a->data)
		return usage_error("--incidents %s: want --data FILE too (the data it was"
				   " detected on)%s", a->incidents, "");
	if (a->store && a->data)
		return usage_error("--data %s: only with --incidents%s", a->data, "");
	if (a->since > a->until)
		return usage_error("--since %s is after --until %s", a->since_text, a->until_text);
	return 0;
}

/* The format from -o's extension when --format was not given. */
static enum rv_report_format pick_format(const struct report_args *a)
{
	return (enum rv_report_format)rv_cli_format_pick(a->format, a->out);
}

/* -------------------------------------------------------------- the rules */

int rv_cli_report_read_file(const char *path, size_t max, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f) {
		int e = errno;
		rv_cli_error("report", "%s: %s", path, strerror(e));
		return -e;
	}
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f) || n > max) {
		rv_cli_error("report", "%s: %s", path,
			n > max ? "too large (more than 1 MiB)" : "read error");
		fclose(f);
		free(buf);
		return n > max ? -EFBIG : -EIO;
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

static struct rv_kb *load_rules(const struct report_args *a)
{
	struct rv_kb *kb = NULL;
	struct rv_err berr = { 0 };
	int brc = rv_kb_new_builtin(&kb, &berr);

	if (brc != 0) {
		rv_cli_error("report", "%s", rv_err_text(&berr, brc));
		return NULL;
	}
	for (size_t i = 0; i < a->nrules; i++) {
		struct rv_err err;
		char *text = NULL;
		size_t len = 0;
		int rc = rv_cli_report_read_file(a->rules[i], RULE_FILE_MAX_BYTES, &text, &len);

		rv_err_clear(&err);
		if (rc == 0)
			rc = rv_kb_load(kb, a->rules[i], text, len, &err);
		free(text);
		if (rc != 0) {
			if (err.msg[0])
				rv_cli_error("report", "%s", err.msg);
			rv_kb_free(kb);
			return NULL;
		}
	}
	return kb;
}

static void list_rules(const struct rv_kb *kb)
{
	for (size_t i = 0; i < rv_kb_count(kb); i++) {
		const struct rv_kb_rule *r = rv_kb_get(kb, i);
		printf("%-28s %-8s %s\n", rv_kb_rule_id(r), rv_kb_rule_subsystem(r),
		       rv_kb_rule_title(r));
		for (size_t k = 0; k < rv_kb_rule_ncandidates(r); k++)
			printf("%s%s", k ? ", " : "    undecided between: ",
			       rv_kb_rule_candidate(r, k));
		if (rv_kb_rule_ncandidates(r))
			putchar('\n');
	}
}

/* ------------------------------------------------------------- the command */

/* Writes the report to a.out, whole or not at all (base/atomicfile.h:
 * OUT.tmp.PID renamed over it), or to standard output. */
static int write_report(const struct report_args *a, const struct rv_report *rep)
{
	enum rv_report_format fmt = pick_format(a);
	struct rv_atomicfile af = { .f = stdout };
	struct rv_err err;
	int rc = 0;

	rv_err_clear(&err);
	if (a->out && (rc = rv_atomicfile_open(&af, a->out, "w", &err)) != 0) {
		rv_cli_error("report", "%s", rv_err_text(&err, rc));
		return rc;
	}
	rc = rv_report_write(af.f, rep, fmt, a->summary);
	if (fflush(af.f) != 0 || ferror(af.f))
		rc = -EIO;
	if (a->out) {
		rc = rv_atomicfile_close(&af, rc, &err);
		if (rc != 0)
			rv_cli_error("report", "%s: %s", a->out, rv_strerror(rc));
	} else if (rc != 0) {
		rv_cli_error("report", "standard output: %s", rv_strerror(rc));
	}
	return rc;
}

static const char *filters_text(struct rv_pool *pl, const struct report_args *a)
{
	static const char *const subs[] = { "cpu", "gpu", "mem", "net", "storage", "other" };
	const char *t = "";

	if (a->since_text)
		t = rv_pool_printf(pl, "%s%ssince %s", t, *t ? ", " : "", a->since_text);
	if (a->until_text)
		t = rv_pool_printf(pl, "%s%suntil %s", t, *t ? ", " : "", a->until_text);
	if (a->subsystem >= 0)
		t = rv_pool_printf(pl, "%s%ssubsystem %s", t, *t ? ", " : "", subs[a->subsystem]);
	if (a->min_sev > 0)
		t = rv_pool_printf(pl, "%s%sseverity %s or worse", t, *t ? ", " : "",
				rv_severity_name((enum rv_severity)a->min_sev));
	if (a->id)
		t = rv_pool_printf(pl, "%s%sincident %llu", t, *t ? ", " : "",
				(unsigned long long)a->id);
	return t;
}

int rv_cmd_report(int argc, char **argv)
{
	struct report_args a;
	struct offline_data od = { 0 };
	struct rv_pool pl = { 0 };
	struct rv_report rep;
	struct rv_kb *kb;
	int rc = parse_args(argc, argv, &a);

	if (rc < 0)
		return RV_EXIT_OK;   /* --help */
	if (rc > 0)
		return rc;
	if (a.print_builtin) {
		size_t len;
		const char *text = rv_kb_builtin_text(&len);
		fwrite(text, 1, len, stdout);
		return fflush(stdout) == 0 ? RV_EXIT_OK : RV_EXIT_FAIL;
	}
	kb = load_rules(&a);
	if (!kb)
		return RV_EXIT_USAGE;
	if (a.check_rules || a.list_rules) {
		if (a.list_rules)
			list_rules(kb);
		else
			printf("%zu rules loaded (built-in%s%s)\n", rv_kb_count(kb),
			       a.nrules ? " and " : "", a.nrules ? "the files given" : "");
		rv_kb_free(kb);
		return RV_EXIT_OK;
	}
	memset(&rep, 0, sizeof(rep));
	rep.title = "reveal incident report";
	rep.generated_ts = (double)time(NULL);
	rep.nrules = rv_kb_count(kb);
	rep.filters = filters_text(&pl, &a);
	rc = a.store ? rv_cli_report_from_store(&pl, &a, kb, &rep) : rv_cli_report_from_offline(&pl, &a, kb, &rep, &od);
	if (rc == 0 && pl.oom)
		rc = -ENOMEM;
	if (rc == -ENOMEM)
		rv_cli_error("report", "out of memory");
	if (rc == 0 && write_report(&a, &rep) != 0)
		rc = -EIO;   /* a failed write is a failure at run time, not bad input */
	rv_cli_offline_free(&od);
	rv_pool_free(&pl);
	rv_kb_free(kb);
	if (rc == 0)
		return RV_EXIT_OK;
	return rc == -EINVAL || rc == -ENOENT || rc == -EILSEQ || rc == -ENOTSUP ? RV_EXIT_USAGE
										 : RV_EXIT_FAIL;
}
