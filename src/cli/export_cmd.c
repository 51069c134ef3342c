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
#include "derive/derive.h"
#include "derive/ratio.h"
#include "record/rvl.h"

static const char export_help[] =
	"usage: reveal export FILE.rvl --csv [-o OUT.csv]\n"
	"\n"
	"Writes a .rvl recording as CSV: a header line (timestamp, then the channel\n"
	"names), then one row per sample: unix seconds, and each channel's value as the\n"
	"live collector reports it (counters as rates per second over the interval\n"
	"since the previous sample; the first sample of a counter, and a sample after a\n"
	"reset or a gap, is empty). A recording cut short (a crash) is exported up to\n"
	"its last complete block, with a warning that names the offset.\n"
	"\n"
	"  --csv            CSV output (the only format so far; required)\n"
	"  -o, --output F   write to F instead of standard output\n"
	"  -h, --help       this text\n";

struct export_state {
	size_t n, m;                    /* recorded channels; plus ratios */
	struct rv_ratio_plan *ratios;
	double *v, *prev, *out;         /* out: m values of the row */
	uint8_t *ok, *prev_ok, *out_ok;
	int64_t prev_t;
	int have_prev;
};

static int write_row(FILE *f, const struct rv_rvl_reader *r, struct export_state *s, int64_t t)
{
	double dt = s->have_prev ? (double)(t - s->prev_t) * 1e-9 : 0.0;
	char num[64];

	fprintf(f, "%.3f", (double)t * 1e-9);
	for (size_t i = 0; i < s->n; i++) {
		const struct rv_rvl_chan *ch = rv_rvl_reader_chan(r, i);

		s->out_ok[i] = (uint8_t)rv_derive_value((enum rv_kind)ch->kind, ch->scale, s->v[i],
							s->ok[i], s->prev[i], s->prev_ok[i], dt,
							&s->out[i]);
	}
	rv_ratio_apply(s->ratios, s->out, s->out_ok, s->out + s->n, s->out_ok + s->n);
	for (size_t i = 0; i < s->m; i++) {
		fputc(',', f);
		if (s->out_ok[i]) {
			size_t len = rv_fmt_g15(s->out[i], num);

			fwrite(num, 1, len, f);
		}
	}
	fputc('\n', f);
	memcpy(s->prev, s->v, s->n * sizeof(*s->v));
	memcpy(s->prev_ok, s->ok, s->n);
	s->prev_t = t;
	s->have_prev = 1;
	return ferror(f) ? -EIO : 0;
}

/* The ratio columns the recorded channels allow, as the collector has. */
static int plan_ratios(const struct rv_rvl_reader *r, struct export_state *s)
{
	const char **names = malloc((s->n ? s->n : 1) * sizeof(*names));
	int rc;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		names[i] = rv_rvl_reader_chan(r, i)->name;
	rc = rv_ratio_plan_new(names, s->n, &s->ratios);
	free(names);
	s->m = s->n + rv_ratio_count(s->ratios);
	return rc;
}

static int export_csv(const char *in, FILE *f, const char *out_name)
{
	struct rv_rvl_reader *r = NULL;
	struct export_state s = { 0 };
	struct rv_err err = { 0 };
	unsigned long long rows = 0;
	const char *stop;
	uint64_t off = 0;
	int64_t t;
	int rc = rv_rvl_reader_open(in, &r, &err);

	if (rc) {
		fprintf(stderr, "reveal export: %s\n", rv_err_text(&err, rc));
		return rc;
	}
	s.n = rv_rvl_reader_nchan(r);
	s.v = calloc(s.n + 1, sizeof(double));
	s.prev = calloc(s.n + 1, sizeof(double));
	s.ok = calloc(s.n + 1, 1);
	s.prev_ok = calloc(s.n + 1, 1);
	rc = plan_ratios(r, &s);
	s.out = calloc(s.m + 1, sizeof(double));
	s.out_ok = calloc(s.m + 1, 1);
	if (rc || !s.v || !s.prev || !s.ok || !s.prev_ok || !s.out || !s.out_ok) {
		rc = -ENOMEM;
		fputs("reveal export: out of memory\n", stderr);
		goto out;
	}
	fputs("timestamp", f);
	for (size_t i = 0; i < s.n; i++)
		fprintf(f, ",%s", rv_rvl_reader_chan(r, i)->name);
	for (size_t j = 0; j < rv_ratio_count(s.ratios); j++)
		fprintf(f, ",%s", rv_ratio_name(s.ratios, j));
	fputc('\n', f);
	while ((rc = rv_rvl_reader_next(r, &t, s.v, s.ok, &err)) == 1) {
		rc = write_row(f, r, &s, t);
		if (rc) {
			fprintf(stderr, "reveal export: %s: write failed\n", out_name);
			goto out;
		}
		rows++;
	}
	if (rc < 0) {
		fprintf(stderr, "reveal export: %s\n", rv_err_text(&err, rc));
		goto out;
	}
	stop = rv_rvl_reader_stopped(r, &off);
	if (stop)
		fprintf(stderr, "reveal export: warning: %s: stopped at %s; %llu samples before it "
			"were exported\n", in, stop, rows);
out:
	rv_rvl_reader_close(r);
	rv_ratio_plan_free(s.ratios);
	free(s.out);
	free(s.out_ok);
	free(s.v);
	free(s.prev);
	free(s.ok);
	free(s.prev_ok);
	return rc;
}

int rv_cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	int csv = 0, id, rc;
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
		} else {
			return RV_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc || !csv) {
		fputs("reveal export: want one FILE.rvl and --csv (see --help)\n", stderr);
		return RV_EXIT_USAGE;
	}
	if (out && !(f = fopen(out, "w"))) {
		fprintf(stderr, "reveal export: %s: %s\n", out, strerror(errno));
		return RV_EXIT_FAIL;
	}
	rc = export_csv(argv[optind], f, out ? out : "standard output");
	if (out && fclose(f) != 0 && !rc) {
		fprintf(stderr, "reveal export: %s: %s\n", out, strerror(errno));
		rc = -EIO;
	}
	if (rc == -EINVAL || rc == -ENOENT)
		return RV_EXIT_USAGE;
	return rc ? RV_EXIT_FAIL : RV_EXIT_OK;
}
