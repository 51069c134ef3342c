/*
 * cli.h - the commands of `reveal`. Each takes argc/argv after the command
 * name (argv[0] is the command) and returns the process exit status:
 * 0 success, 1 failure at run time, 2 bad usage or bad input.
 */
#ifndef RV_CLI_CLI_H
#define RV_CLI_CLI_H

#include <stddef.h>

enum { RV_EXIT_OK = 0, RV_EXIT_FAIL = 1, RV_EXIT_USAGE = 2 };

/*
 * The one way a command reports an error (fail.c): rv_cli_error writes
 * "reveal CMD: message" and a newline to stderr; rv_cli_fail does the same
 * and returns status (RV_EXIT_FAIL for a failure at run time,
 * RV_EXIT_USAGE for bad usage or bad input), so
 * `return rv_cli_fail("report", RV_EXIT_USAGE, "%s: %s", path, strerror(e));`
 * reports and exits in one line. Save errno before any call that may
 * change it. rv_cli_fail_err writes err's message (or rv_strerror(rc)
 * when it has none). Warnings and progress are not errors: rv_log.
 */
struct rv_err;
void rv_cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rv_cli_fail(const char *cmd, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rv_cli_fail_err(const char *cmd, int status, const struct rv_err *err, int rc);

int rv_cmd_detect(int argc, char **argv);
int rv_cmd_synth(int argc, char **argv);
int rv_cmd_metrics(int argc, char **argv);
int rv_cmd_record(int argc, char **argv);
int rv_cmd_export(int argc, char **argv);
int rv_cmd_agent(int argc, char **argv);
int rv_cmd_report(int argc, char **argv);
int rv_cmd_workload(int argc, char **argv);
int rv_cmd_demo(int argc, char **argv);
int rv_cmd_fleet(int argc, char **argv);
int rv_cmd_compare(int argc, char **argv);
int rv_cmd_prune(int argc, char **argv);

/* Shared option parsing: "3s", "500ms", "2m" or a plain count. */
struct rv_span;
int rv_cli_parse_span(const char *s, struct rv_span *out);
int rv_cli_parse_size(const char *s, unsigned long long max, unsigned long long *out);
int rv_cli_parse_real(const char *s, double lo, double hi, double *out);

/* A time as --since/--until take it: ISO-8601 UTC (2026-12-02T10:00:00Z,
 * "2026-12-02 10:00"), unix seconds, or an age before now ("30m", "2h",
 * "7d", "90s"). 0 or -EINVAL. */
int rv_cli_parse_time(const char *s, double now, double *out);

/* A report format (enum rv_report_format, explain/report.h): given when
 * >= 0, else from out's extension (.html .htm .md .json .txt), else text. */
int rv_cli_format_pick(int given, const char *out);

/* --exclude SRC[,SRC...] (repeatable): source names for rv_collect_cfg. */
enum { RV_CLI_EXCLUDE_MAX = 32 };
struct rv_cli_exclude {
	char buf[1024];
	size_t used;
	const char *names[RV_CLI_EXCLUDE_MAX];
	size_t n;
};
/* Appends the names of arg; -E2BIG when they do not fit, -EINVAL for an
 * empty name. */
int rv_cli_add_exclude(struct rv_cli_exclude *x, const char *arg);

#endif
