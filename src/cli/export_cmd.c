/*
 * export_cmd.c - `reveal export FILE.rvl --csv`: a recording as CSV with
 * the channel names of DESIGN.md as columns and unix seconds as the
 * timestamp, values derived exactly as the live collector derives them
 * (derive/): rates for counters, gaps as empty cells.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fmtnum.h"
#include "cli/cli.h"
#include "record/rvl.h"
#include "record/rvl_values.h"

static const char export_help[] =
	"usage: reveal export FILE.rvl --csv [--raw] [-o OUT.csv]\n"
	"\n"
	"Writes a .rvl recording as CSV: a header line (timestamp, then the channel\n"
	"names), then one row per sample: unix seconds, and each channel's value as the\n"
	"live collector reports it (counters as rates per second over the interval\n"
	"since the previous sample; the first sample of a counter, and a sample after a\n"
	"reset or a gap, is empty). A recording cut short (a crash) is exported up to\n"
	"its last complete block, with a warning that names the offset.\n"
	"\n"
	"  --csv            CSV output (the only format so far; required)\n"
	"  --raw            the values as recorded instead: counters as the kernel's\n"
	"                   totals, no ratio channels, every digit (%.17g); empty\n"
	"                   where a sample was not valid\n"
	"  -o, --output F   write to F instead of standard output\n"
	"  -h, --help       this text\n";

static int write_row(FILE *f, const struct rv_rvl_values *v, int raw)
{
	char num[64];

	fprintf(f, "%.3f", (double)v->t * 1e-9);
	for (size_t i = 0; i < (raw ? v->n : v->m); i++) {
		fputc(',', f);
		if (raw && v->ok[i]) {
			fprintf(f, "%.17g", v->raw[i]);
		} else if (!raw && v->out_ok[i]) {
			size_t len = rv_fmt_g15(v->out[i], num);

			fwrite(num, 1, len, f);
		}
	}
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

static int export_csv(const char *in, FILE *f, const char *out_name, int raw)
{
	struct rv_rvl_reader *r = NULL;
	struct rv_rvl_values v;
	struct rv_err err = { 0 };
	unsigned long long rows = 0;
	const char *stop;
	uint64_t off = 0;
	int rc = rv_rvl_reader_open(in, &r, &err);

	if (rc) {
		rv_cli_error("export", "%s", rv_err_text(&err, rc));
		return rc;
	}
	rc = rv_rvl_values_init(&v, r);
	if (rc) {
		rv_cli_error("export", "out of memory");
		rv_rvl_reader_close(r);
		return rc;
	}
	fputs("timestamp", f);
	for (size_t i = 0; i < (raw ? v.n : v.m); i++)
		fprintf(f, ",%s", rv_rvl_values_name(&v, i));
	fputc('\n', f);
	while ((rc = rv_rvl_values_next(&v, &err)) == 1) {
		rc = write_row(f, &v, raw);
		if (rc) {
			rv_cli_error("export", "%s: write failed", out_name);
			goto out;
		}
		rows++;
	}
	if (rc < 0) {
		rv_cli_error("export", "%s", rv_err_text(&err, rc));
		goto out;
	}
	stop = rv_rvl_reader_stopped(r, &off);
	if (stop)
		fprintf(stderr, "reveal export: warning: %s: stopped at %s; %llu samples before it "
			"were exported\n", in, stop, rows);
out:
	rv_rvl_values_fini(&v);
	rv_rvl_reader_close(r);
	return rc;
}

int rv_cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "raw", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int csv = 0, raw = 0, id, rc;
	FILE *f = stdout;

	optind = 1;
	while ((id = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (id == 'h') {
			fputs(export_help, stdout);
			return RV_EXIT_OK;
		} else if (id == 'c') {
			csv = 1;
		} else if (id == 'o') {
			out = optarg;
		} else if (id == 'R') {
			raw = 1;
		} else {
			return RV_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc || !csv) {
		return rv_cli_fail("export", RV_EXIT_USAGE, "want one FILE.rvl and --csv (see --help)");
	}
	if (out && !(f = fopen(out, "w"))) {
		return rv_cli_fail("export", RV_EXIT_FAIL, "%s: %s", out, strerror(errno));
	}
	rc = export_csv(argv[optind], f, out ? out : "standard output", raw);
	if (out && fclose(f) != 0 && !rc) {
		rv_cli_error("export", "%s: %s", out, strerror(errno));
		rc = -EIO;
	}
	if (rc == -EINVAL || rc == -ENOENT)
		return RV_EXIT_USAGE;
	return rc ? RV_EXIT_FAIL : RV_EXIT_OK;
}
