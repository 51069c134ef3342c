/*
 * synth_cmd.c - `reveal synth -o DIR`: writes the synthetic data set of
 * record/synth.h as DIR/train.csv, DIR/test.csv and DIR/labels.csv
 * (timestamp,label), and lists the planted faults on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/log.h"
#include "cli/cli.h"
#include "pipeline/model.h"
#include "record/csvwrite.h"
#include "record/synth.h"

enum { PATH_LEN = 4096, SEED_MAX = 1000000000, REPLICAS_MAX = 1000, DURATION_MIN_S = 10 };

static const char synth_help[] =
	"usage: reveal synth -o DIR [--seed N] [--replicas K] [--train-duration D]\n"
	"                    [--test-duration D]\n"
	"\n"
	"Writes a synthetic telemetry data set of a training job sampled every 200 ms\n"
	"(14 channels: cpu, mem, net, storage, gpu): DIR/train.csv (10 minutes, no\n"
	"faults), DIR/test.csv (5 minutes with three planted faults: cpu contention,\n"
	"packet loss, disk write storm) and DIR/labels.csv (timestamp,label).\n"
	"Equal seeds give equal files.\n"
	"\n"
	"  -o, --output DIR   folder to write (created if missing)\n"
	"  --seed N           random seed (default 1)\n"
	"  --replicas K       K copies of the 14 channels with their own noise, as on a\n"
	"                     bigger host (default 1; 50 gives 700 channels)\n"
	"  --train-duration D length of train.csv (default 10m)\n"
	"  --test-duration D  length of test.csv (default 5m; the faults lie in its\n"
	"                     first 260 s)\n"
	"  -h, --help         this text\n";

static int write_labels(const char *path, const struct rv_table *test, const uint8_t *labels)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs("timestamp,label\n", f);
	for (size_t i = 0; i < test->nrows; i++)
		fprintf(f, "%.15g,%d\n", test->ts[i], labels[i]);
	return fclose(f) == 0 ? 0 : -EIO;
}

static int write_set(const char *dir, const struct rv_synth_params *p)
{
	struct rv_table *train, *test;
	char path[PATH_LEN];
	uint8_t *labels;
	struct rv_err err;
	int rc;

	rv_err_clear(&err);
	rc = rv_synth_generate(p, &train, &test, &labels);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/train.csv", dir);
	rc = rv_csv_write(train, path, &err);
	if (!rc) {
		snprintf(path, sizeof(path), "%s/test.csv", dir);
		rc = rv_csv_write(test, path, &err);
	}
	if (!rc) {
		snprintf(path, sizeof(path), "%s/labels.csv", dir);
		if ((rc = write_labels(path, test, labels)) != 0)
			rv_err_set(&err, rc, "%s: %s", path, rv_strerror(rc));
	}
	if (rc)
		rv_cli_error("synth", "%s", rv_err_text(&err, rc));
	rv_table_free(train);
	rv_table_free(test);
	free(labels);
	return rc;
}

static int apply_option(int id, const char *v, struct rv_synth_params *p)
{
	unsigned long long n;
	struct rv_span d;

	if (id == 's' && rv_cli_parse_size(v, SEED_MAX, &n) == 0) {
		p->seed = n;
		return 0;
	}
	if (id == 'r' && rv_cli_parse_size(v, REPLICAS_MAX, &n) == 0 && n > 0) {
		p->replicas = n;
		return 0;
	}
	if ((id == 'T' || id == 't') && rv_cli_parse_span(v, &d) == 0 && d.seconds &&
	    d.value >= DURATION_MIN_S) {
		*(id == 'T' ? &p->train_s : &p->test_s) = d.value;
		return 0;
	}
	rv_cli_error("synth", "invalid value '%s' for --%s", v,
		id == 's' ? "seed" : id == 'r' ? "replicas" : id == 'T' ? "train-duration"
									: "test-duration");
	return -EINVAL;
}

int rv_cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "replicas", required_argument, NULL, 'r' },
		{ "train-duration", required_argument, NULL, 'T' },
		{ "test-duration", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct rv_synth_fault *f;
	struct rv_synth_params p;
	const char *dir = NULL;
	size_t nf;
	int id;

	rv_synth_defaults(&p);
	argv[0] = (char *)"reveal synth";
	optind = 1;
	while ((id = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (id == 'h') {
			fputs(synth_help, stdout);
			return RV_EXIT_OK;
		}
		if (id == 'o') {
			dir = optarg;
		} else if (id == '?' || apply_option(id, optarg, &p) != 0) {
			return RV_EXIT_USAGE;
		}
	}
	if (!dir || optind < argc) {
		return rv_cli_fail("synth", RV_EXIT_USAGE, "-o DIR is required (see --help)");
	}
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		return rv_cli_fail("synth", RV_EXIT_FAIL, "%s: %s", dir, strerror(errno));
	}
	if (write_set(dir, &p) != 0)
		return RV_EXIT_FAIL;
	nf = rv_synth_faults(&f);
	for (size_t i = 0; i < nf; i++)
		rv_info("planted fault %zu: %-16s (%s) at test +%.0fs..+%.0fs", i + 1, f[i].name,
			f[i].subsystem, f[i].start_s, f[i].end_s);
	return RV_EXIT_OK;
}
