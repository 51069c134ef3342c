/*
 * detect_cmd.c - `reveal detect`: offline detection over files.
 *
 * Parses flags into struct rv_detect_opts, reads the tables, fits or loads
 * the model, runs it, and writes the per-window CSV (the contract of
 * DESIGN.md), the incidents (table on stderr, JSON with --incidents) and a
 * run summary. All logic lives in pipeline/; this file only wires flags.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomicfile.h"
#include "base/clock.h"
#include "base/fmtnum.h"
#include "base/log.h"
#include "base/parallel.h"
#include "cli/cli.h"
#include "detect/ensemble.h"
#include "explain/incident.h"
#include "pipeline/chansel.h"
#include "pipeline/model.h"
#include "pipeline/runinfo.h"
#include "pipeline/window_csv.h"
#include "record/table_read.h"
#include "select/metricset.h"

enum { SIZE_OPT_MAX = 1000000000 };
enum { CSV_WRITE_BUFFER = 1 << 20 };   /* bytes */

struct detect_args {
	const char *train, *test, *out, *model_in, *model_out, *incidents, *info_json;
	const char *metric_set;
	struct rv_detect_opts opts;
	int quiet;
};

static const char detect_help[] =
	"usage: reveal detect --train TRAIN --test TEST -o OUT.csv [options]\n"
	"       reveal detect --model MODEL --test TEST -o OUT.csv [options]\n"
	"\n"
	"Fits anomaly detectors on TRAIN (telemetry assumed mostly normal), scores every\n"
	"sliding window of TEST and writes one CSV row per window:\n"
	"  timestamp,anomaly,score,zscore,pca,iforest,top_metrics,subsystem,\n"
	"  spe,zscore_score,pca_score,iforest_score,spe_score\n"
	"(timestamp = the window's last sample; anomaly = 1 when the window lies in an\n"
	"incident: the fused verdict with short gaps bridged; score = the fused score,\n"
	"the mean of the detectors' score/threshold ratios; zscore/pca/iforest/spe = each\n"
	"detector's 0/1 flag; top_metrics = channels most responsible first, for windows\n"
	"any detector flagged; *_score = score/threshold, > 1 is over threshold; a\n"
	"detector added to the table adds its flag after spe and its NAME_score last).\n"
	"\n"
	"Input: CSV or CSV.gz with a header; an optional 'timestamp' column (unix seconds\n"
	"or ISO-8601); every other column is a channel named subsystem.metric[:instance].\n"
	"Empty cells and nan/inf are missing values: filled with the channel's last value\n"
	"(the first value for leading gaps) and counted in the summary. Features that\n"
	"are constant over the training windows carry no baseline and are dropped.\n"
	"Malformed input stops with FILE:LINE:COLUMN: reason and exit status 2.\n"
	"A file named *.rvl is a recording of `reveal record`: its counters become rates\n"
	"as in the live collector, gaps are missing values as above, and channels with\n"
	"no value at all (a link down throughout) are left out.\n"
	"\n"
	"Files:\n"
	"  --train FILE          training telemetry\n"
	"  --test FILE           telemetry to score\n"
	"  -o, --output FILE     per-window CSV ('-' for standard output); a regular file\n"
	"                        is written as FILE.tmp.PID and renamed when complete\n"
	"  --save-model FILE     write the fitted model (versioned, CRC-32C checked)\n"
	"  --model FILE          score with a saved model instead of fitting (no --train)\n"
	"  --incidents FILE      write the incidents as JSON\n"
	"  --info-json FILE      write timings and fit facts as JSON\n"
	"  --metric-set FILE     use only the channels of this metric set (`reveal prune`)\n"
	"                        of TRAIN and TEST; the set's channels TRAIN lacks are\n"
	"                        named once; a set that keeps none of them is an error\n"
	"\n"
	"Configuration (default: reveal's measured best; see docs/EVALUATION.md):\n"
	"  --preset NAME         'default', or 'paper' for the paper's exact pipeline\n"
	"                        (zscore+pca+iforest, 2-of-3 vote, no events, no merging);\n"
	"                        later options override the preset\n"
	"  --window N|DUR        window length in samples (5) or duration (3s, 500ms);\n"
	"                        default 3s, or 5 samples for data sampled every 1 s or slower\n"
	"  --step N|DUR          step between windows; default 1s, or 1 sample for slow data\n"
	"  --adf auto|on|off     ADF p-value feature (MacKinnon approximate p-values).\n"
	"                        auto (default) adds it only for windows of >= 20 samples:\n"
	"                        on shorter windows the test is noise; paper preset: off\n"
	"  --events on|off       sum and max instead of the full feature set for event\n"
	"                        channels (errors, drops, retransmits, timeouts); default on\n"
	"  --detectors LIST      comma list of zscore,pca,iforest,spe (default all four;\n"
	"                        spe = reconstruction error of the standardized raw window)\n"
	"  --fusion vote|score   vote: flag when --votes detectors agree (paper: 2);\n"
	"                        score: flag when the mean score ratio exceeds its\n"
	"                        --fuse-quantile over training (default)\n"
	"  --votes K             detectors needed by the vote (default 2)\n"
	"  --fuse-mean geometric|arithmetic\n"
	"                        how the fused score averages the detectors' score/threshold\n"
	"                        ratios (default geometric; paper arithmetic)\n"
	"  --zscore-top F        the zscore detector averages the largest share F of the\n"
	"                        |z| values (default 0.1; paper 1 = all features)\n"
	"  --sd-floor F          standardize each feature with at least F x |its training\n"
	"                        mean| as standard deviation (default 0: off)\n"
	"  --quantile Q          per-detector threshold quantile of training scores (0.99)\n"
	"  --fuse-quantile Q     threshold quantile of the fused training score (0.99)\n"
	"  --contamination C     Isolation Forest contamination (0.01)\n"
	"  --variance V          PCA variance kept (0.95)\n"
	"  --trees N             Isolation Forest trees (100)\n"
	"  --samples N           Isolation Forest samples per tree (256)\n"
	"  --seed N              random seed; equal seeds give equal output (0)\n"
	"  --attribution zscore|ensemble\n"
	"                        how top_metrics ranks channels: zscore (default) sums\n"
	"                        |z| of each channel's features; ensemble sums the shares\n"
	"                        of every firing detector (see docs/EVALUATION.md)\n"
	"  --max-train-windows N set the thresholds from at most N training windows, a\n"
	"                        random sample (by --seed); the detectors are fitted on\n"
	"                        all of them (default 8192; 0 = all, as the paper preset)\n"
	"  --gap N               unflagged windows bridged inside one incident (default 2,\n"
	"                        paper 0); bridged windows are reported as anomalous\n"
	"  --min-windows N       flagged windows an incident needs (1)\n"
	"\n"
	"Other:\n"
	"  --threads N           worker threads (default: every online CPU); the output\n"
	"                        does not depend on it\n"
	"  -q, --quiet           only errors on stderr\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 done, 1 run-time failure, 2 bad usage or bad input.\n";

enum opt_id {
	OPT_TRAIN = 256, OPT_TEST, OPT_SAVE_MODEL, OPT_MODEL, OPT_INCIDENTS, OPT_INFO, OPT_PRESET,
	OPT_WINDOW, OPT_STEP, OPT_ADF, OPT_EVENTS, OPT_DETECTORS, OPT_FUSION, OPT_VOTES,
	OPT_QUANTILE, OPT_FUSE_QUANTILE, OPT_CONTAMINATION, OPT_VARIANCE, OPT_TREES, OPT_SAMPLES,
	OPT_SEED, OPT_GAP, OPT_MIN_WINDOWS, OPT_ZSCORE_TOP, OPT_SD_FLOOR, OPT_FUSE_MEAN, OPT_THREADS, OPT_ATTRIBUTION, OPT_MAX_TRAIN,
	OPT_METRIC_SET,
};

static const struct option detect_options[] = {
	{ "train", required_argument, NULL, OPT_TRAIN },
	{ "test", required_argument, NULL, OPT_TEST },
	{ "output", required_argument, NULL, 'o' },
	{ "save-model", required_argument, NULL, OPT_SAVE_MODEL },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "incidents", required_argument, NULL, OPT_INCIDENTS },
	{ "info-json", required_argument, NULL, OPT_INFO },
	{ "metric-set", required_argument, NULL, OPT_METRIC_SET },
	{ "preset", required_argument, NULL, OPT_PRESET },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "step", required_argument, NULL, OPT_STEP },
	{ "adf", required_argument, NULL, OPT_ADF },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "detectors", required_argument, NULL, OPT_DETECTORS },
	{ "fusion", required_argument, NULL, OPT_FUSION },
	{ "votes", required_argument, NULL, OPT_VOTES },
	{ "quantile", required_argument, NULL, OPT_QUANTILE },
	{ "fuse-quantile", required_argument, NULL, OPT_FUSE_QUANTILE },
	{ "contamination", required_argument, NULL, OPT_CONTAMINATION },
	{ "variance", required_argument, NULL, OPT_VARIANCE },
	{ "trees", required_argument, NULL, OPT_TREES },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "gap", required_argument, NULL, OPT_GAP },
	{ "min-windows", required_argument, NULL, OPT_MIN_WINDOWS },
	{ "zscore-top", required_argument, NULL, OPT_ZSCORE_TOP },
	{ "sd-floor", required_argument, NULL, OPT_SD_FLOOR },
	{ "fuse-mean", required_argument, NULL, OPT_FUSE_MEAN },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "attribution", required_argument, NULL, OPT_ATTRIBUTION },
	{ "max-train-windows", required_argument, NULL, OPT_MAX_TRAIN },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int bad_value(const char *opt, const char *val, const char *expect)
{
	rv_cli_error("detect", "invalid value '%s' for --%s: expected %s", val, opt, expect);
	return -EINVAL;
}

static int parse_detectors(const char *list, unsigned *mask)
{
	char name[32];

	*mask = 0;
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		int d;

		if (n == 0 || n >= sizeof(name))
			return -EINVAL;
		memcpy(name, p, n);
		name[n] = '\0';
		if ((d = rv_det_parse(name)) < 0)
			return -EINVAL;
		*mask |= RV_DET_BIT(d);
		p += n + (comma ? 1 : 0);
	}
	return *mask ? 0 : -EINVAL;
}

static int parse_onoff(const char *opt, const char *v, int *out)
{
	if (strcmp(v, "on") == 0)
		*out = 1;
	else if (strcmp(v, "off") == 0)
		*out = 0;
	else
		return bad_value(opt, v, "on or off");
	return 0;
}

static int parse_count(const char *opt, const char *v, size_t lo, size_t *out)
{
	unsigned long long n;

	if (rv_cli_parse_size(v, SIZE_OPT_MAX, &n) != 0 || n < lo)
		return bad_value(opt, v, lo ? "a positive whole number" : "a whole number");
	*out = (size_t)n;
	return 0;
}

static int parse_fraction(const char *opt, const char *v, double lo, double hi, double *out)
{
	if (rv_cli_parse_real(v, lo, hi, out) != 0)
		return bad_value(opt, v, "a number in range");
	return 0;
}

/* Numeric options of the detectors (applied over the preset); 1 when id
 * is not one of them. */
static int apply_number_option(int id, const char *v, struct rv_detect_opts *o)
{
	struct rv_ens_config *e = &o->ens;
	size_t n;
	int rc;

	switch (id) {
	case OPT_VOTES:
		rc = parse_count("votes", v, 1, &n);
		e->vote_k = (unsigned)n;
		return rc;
	case OPT_QUANTILE:
		return parse_fraction("quantile", v, 0.5, 1.0, &e->quantile);
	case OPT_FUSE_QUANTILE:
		return parse_fraction("fuse-quantile", v, 0.5, 1.0, &e->fuse_quantile);
	case OPT_CONTAMINATION:
		return parse_fraction("contamination", v, 0.0, 0.5, &e->contamination);
	case OPT_VARIANCE:
		if ((rc = parse_fraction("variance", v, 0.01, 1.0, &e->var_keep)) == 0)
			e->spe_var_keep = e->var_keep;
		return rc;
	case OPT_TREES:
		return parse_count("trees", v, 1, &e->iforest.trees);
	case OPT_SAMPLES:
		return parse_count("samples", v, 2, &e->iforest.samples);
	case OPT_SEED:
		rc = parse_count("seed", v, 0, &n);
		e->iforest.seed = n;
		return rc;
	case OPT_ZSCORE_TOP:
		return parse_fraction("zscore-top", v, 0.0, 1.0, &e->zscore_top);
	case OPT_SD_FLOOR:
		return parse_fraction("sd-floor", v, 0.0, 1.0, &e->sd_floor_rel);
	case OPT_GAP:
		return parse_count("gap", v, 0, &o->incident_gap);
	case OPT_MIN_WINDOWS:
		return parse_count("min-windows", v, 1, &o->incident_min);
	case OPT_MAX_TRAIN:
		return parse_count("max-train-windows", v, 0, &o->max_train_windows);
	case OPT_THREADS:
		rc = parse_count("threads", v, 1, &n);
		o->threads = n > RV_PARALLEL_MAX ? RV_PARALLEL_MAX : (unsigned)n;
		return rc;
	}
	return 1;
}

/* Options of the configuration (applied over the preset). */
static int apply_config_option(int id, const char *v, struct rv_detect_opts *o)
{
	struct rv_ens_config *e = &o->ens;
	int rc, on;

	switch (id) {
	case OPT_WINDOW:
		return rv_cli_parse_span(v, &o->window) ? bad_value("window", v, "N or a duration like 3s") : 0;
	case OPT_STEP:
		return rv_cli_parse_span(v, &o->step) ? bad_value("step", v, "N or a duration like 1s") : 0;
	case OPT_ADF:
		if (strcmp(v, "auto") == 0)
			o->adf = RV_ADF_AUTO;
		else if ((rc = parse_onoff("adf", v, &on)) == 0)
			o->adf = on ? RV_ADF_ON : RV_ADF_OFF;
		else
			return rc;
		return 0;
	case OPT_EVENTS:
		return parse_onoff("events", v, &o->events);
	case OPT_DETECTORS:
		return parse_detectors(v, &e->enabled) ? bad_value("detectors", v, "a comma list of zscore,pca,iforest,spe") : 0;
	case OPT_FUSION:
		if ((rc = rv_fusion_parse(v)) < 0)
			return bad_value("fusion", v, "vote or score");
		e->fusion = (enum rv_fusion)rc;
		return 0;
	case OPT_ATTRIBUTION:
		if ((rc = rv_attribution_parse(v)) < 0)
			return bad_value("attribution", v, "zscore or ensemble");
		e->attribution = (enum rv_attribution)rc;
		return 0;
	case OPT_FUSE_MEAN:
		if (strcmp(v, "geometric") != 0 && strcmp(v, "arithmetic") != 0)
			return bad_value("fuse-mean", v, "geometric or arithmetic");
		e->fuse_geometric = v[0] == 'g';
		return 0;
	}
	rc = apply_number_option(id, v, o);
	return rc > 0 ? -EINVAL : rc;
}

static int apply_file_option(int id, const char *v, struct detect_args *a)
{
	switch (id) {
	case OPT_TRAIN: a->train = v; return 0;
	case OPT_TEST: a->test = v; return 0;
	case 'o': a->out = v; return 0;
	case OPT_SAVE_MODEL: a->model_out = v; return 0;
	case OPT_MODEL: a->model_in = v; return 0;
	case OPT_INCIDENTS: a->incidents = v; return 0;
	case OPT_INFO: a->info_json = v; return 0;
	case OPT_METRIC_SET: a->metric_set = v; return 0;
	case 'q': a->quiet = 1; return 0;
	}
	return 1;
}

/* The preset is applied first wherever it stands, so that the other
 * options override it. */
static int apply_preset(int argc, char **argv, struct rv_detect_opts *o)
{
	rv_detect_opts_default(o);
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		if (strcmp(argv[i], "--preset") == 0 && i + 1 < argc)
			v = argv[i + 1];
		else if (strncmp(argv[i], "--preset=", 9) == 0)
			v = argv[i] + 9;
		if (!v)
			continue;
		if (strcmp(v, "paper") == 0)
			rv_detect_opts_paper(o);
		else if (strcmp(v, "default") == 0)
			rv_detect_opts_default(o);
		else
			return bad_value("preset", v, "default or paper");
	}
	return 0;
}

static int check_args(const struct detect_args *a)
{
	const char *why = NULL;

	if (!a->test)
		why = "--test is required";
	else if (!a->out)
		why = "-o/--output is required";
	else if (!a->train && !a->model_in)
		why = "--train (or --model) is required";
	else if (a->train && a->model_in)
		why = "--train and --model exclude each other: a loaded model is not refitted";
	else if (a->opts.ens.fusion == RV_FUSE_VOTE &&
		 a->opts.ens.vote_k > (unsigned)__builtin_popcount(a->opts.ens.enabled))
		why = "--votes exceeds the number of enabled detectors";
	if (why)
		rv_cli_error("detect", "%s (see --help)", why);
	return why ? -EINVAL : 0;
}

static int parse_args(int argc, char **argv, struct detect_args *a)
{
	int id;

	memset(a, 0, sizeof(*a));
	argv[0] = (char *)"reveal detect"; /* the name getopt puts before its complaints */
	if (apply_preset(argc, argv, &a->opts))
		return -EINVAL;
	a->opts.threads = rv_parallel_cpus();
	optind = 1;
	opterr = 1;
	while ((id = getopt_long(argc, argv, "o:qh", detect_options, NULL)) != -1) {
		if (id == 'h') {
			fputs(detect_help, stdout);
			return 1;
		}
		if (id == '?')
			return -EINVAL;
		if (id == OPT_PRESET || apply_file_option(id, optarg, a) == 0)
			continue;
		if (apply_config_option(id, optarg, &a->opts) != 0)
			return -EINVAL;
	}
	if (optind < argc) {
		rv_cli_error("detect", "unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	return check_args(a);
}

/* ---- output ---------------------------------------------------------- */

/* The window CSV (pipeline/window_csv.h) and its stream's buffer. */
struct csv_sink {
	struct rv_window_csv *w;
	char *wbuf;              /* the stream's buffer; freed after fclose */
};

static void log_table(const char *what, const struct rv_table *t, size_t filled)
{
	const struct rv_table_stats *s = &t->stats;

	rv_info("%s %s: %zu rows x %zu channels; missing cells: %zu empty, %zu nan, %zu inf "
		"(%zu filled with the channel's last value)",
		what, t->path, t->nrows, t->ncols, s->empty_cells, s->nan_cells, s->inf_cells,
		filled);
}

/*
 * Reads the training and the test file side by side (rv_table_read_many),
 * then reports in order. Unreadable, truncated or malformed input is bad
 * input: -EINVAL (exit 2).
 */
static int read_inputs(const struct detect_args *a, struct rv_table **train,
		       struct rv_table **test, struct rv_detect_stats *st)
{
	static const char *const what[2] = { "test", "train" };
	struct rv_table_job in[2] = { { .path = a->test, .fill_gaps = 1 },
				      { .path = a->train, .fill_gaps = 1 } };
	size_t n = a->train ? 2 : 1;
	rv_ns t0 = rv_clock_ns();
	int rc = 0;

	rv_table_read_many(in, n, a->opts.threads);
	st->read_s += rv_clock_since_s(t0);
	for (size_t k = n; k-- > 0;) {
		if (in[k].rc) {
			rv_cli_error("detect", "%s", rv_err_text(&in[k].err, in[k].rc));
			if (!rc)
				rc = in[k].rc == -ENOMEM ? -ENOMEM : -EINVAL;
			continue;
		}
		log_table(what[k], in[k].t, in[k].filled);
	}
	*test = in[0].t;
	*train = in[1].t;
	if (rc) {
		rv_table_free(*test);
		rv_table_free(*train);
		*test = *train = NULL;
	}
	return rc;
}

static int keep_in_set(void *set, const char *name)
{
	return rv_metricset_has(set, name);
}

/* Names, once, the channels of the set that t lacks. */
static int name_missing(const char *path, const struct rv_metricset *set,
			const struct rv_table *t)
{
	size_t n = rv_metricset_count(set), nmiss = 0;
	const char **want = malloc(n * sizeof(*want));
	char text[512];
	int rc = -ENOMEM;

	for (size_t i = 0; want && i < n; i++)
		want[i] = rv_metricset_name(set, i);
	if (want)
		rc = rv_chansel_missing(want, n, (const char *const *)t->names, t->ncols, text,
					sizeof(text), &nmiss);
	free(want);
	if (rc)
		rv_cli_error("detect", "--metric-set %s: %s", path, strerror(-rc));
	else if (nmiss)
		rv_warn("metric set %s: %zu of its %zu channels are not in %s: %s", path, nmiss, n,
			t->path, text);
	return rc;
}

/* --metric-set: only the set's channels of the inputs (TRAIN, or TEST when
 * a model is loaded, is the one whose missing channels are named). */
static int apply_metric_set(const char *path, struct rv_table *train, struct rv_table *test)
{
	struct rv_metricset *set = NULL;
	struct rv_err err = { 0 };
	int rc = rv_metricset_load(path, &set, &err);

	if (rc) {
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	rc = name_missing(path, set, train ? train : test);
	for (int k = 0; !rc && k < 2; k++) {
		struct rv_table *t = k ? test : train;
		size_t before = t ? t->ncols : 0;

		if (!t)
			continue;
		rv_chansel_table(t, keep_in_set, set);
		if (t->ncols == 0) {
			rv_cli_error("detect", "--metric-set %s: none of its %zu channels is in %s",
				     path, rv_metricset_count(set), t->path);
			rc = -EINVAL;
		} else {
			rv_info("%s: %zu of its %zu channels in the metric set %s", t->path,
				t->ncols, before, path);
		}
	}
	rv_metricset_free(set);
	return rc;
}

static int save_info(const char *path, const struct rv_model *m, const struct rv_detect_stats *st,
		     double train_feat_s)
{
	struct rv_err err;
	int rc;

	rv_err_clear(&err);
	rc = rv_runinfo_save(path, m, st, train_feat_s, &err);
	if (rc)
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
	return rc;
}

static int write_incidents(const struct detect_args *a, const struct rv_incmerge *mg,
			   size_t window)
{
	struct rv_atomicfile af;
	struct rv_err err;
	int rc;

	if (!a->quiet) {
		fprintf(stderr, "\nIncidents:\n");
		rv_incident_write_table(stderr, mg, rv_det_names(), (size_t)rv_det_count());
	}
	if (!a->incidents)
		return 0;
	rv_err_clear(&err);
	rc = rv_atomicfile_open(&af, a->incidents, "w", &err);
	if (!rc) {
		rc = rv_incident_write_json(af.f, mg, rv_det_names(), (size_t)rv_det_count(), window);
		if (rc)
			rv_err_set(&err, rc, "%s: write failed", a->incidents);
		rc = rv_atomicfile_close(&af, rc, &err);
	}
	if (rc)
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
	return rc;
}

static int obtain_model(const struct detect_args *a, const struct rv_table *train,
			struct rv_model **m, struct rv_detect_stats *st)
{
	struct rv_err err;
	int rc;

	rv_err_clear(&err);
	if (a->model_in) {
		rc = rv_model_load(a->model_in, m, &err);
		if (rc)
			rv_cli_error("detect", "%s", rv_err_text(&err, rc));
		return rc && rc != -ENOMEM ? -EINVAL : rc;
	}
	rc = rv_model_fit(&a->opts, train, m, st, &err);
	if (rc) {
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
		return rc;
	}
	if (a->model_out && (rc = rv_model_save(*m, a->model_out, &err)) != 0)
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
	return rc;
}

/* Closes the per-window CSV (renamed into place when rc is 0); a failure
 * of the close itself is logged here. */
static int close_output(struct rv_atomicfile *af, int rc)
{
	struct rv_err err;
	int crc;

	rv_err_clear(&err);
	crc = rv_atomicfile_close(af, rc, &err);
	if (crc && !rc)
		rv_cli_error("detect", "%s", rv_err_text(&err, crc));
	return crc;
}

/* A recording's channels in the model's order (rv_model_align_table),
 * with a warning that says what differed. */
static int align_recording(const struct rv_model *m, struct rv_table **test)
{
	struct rv_err err = { 0 };
	size_t added = 0, dropped = 0;
	int rc = rv_model_align_table(m, test, &added, &dropped, &err);

	if (rc) {
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
		return rc;
	}
	if (added || dropped)
		rv_warn("%s: %zu channel(s) of the model had no value in this recording (held at "
			"their training mean), %zu channel(s) the model does not know left out",
			(*test)->path, added, dropped);
	return 0;
}

static int run_test(const struct detect_args *a, const struct rv_model *m,
		    const struct rv_table *test, struct rv_detect_stats *st)
{
	struct rv_incmerge *mg = NULL;
	struct csv_sink cs = { 0 };
	struct rv_sink sink = { .window = rv_window_csv_row };
	int to_stdout = strcmp(a->out, "-") == 0;
	struct rv_atomicfile af = { .f = stdout };
	struct rv_err err;
	int rc;

	rv_err_clear(&err);
	if ((rc = rv_model_check_table(m, test, &err)) != 0) {
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
		return rc;
	}
	/* a regular file is written whole or not at all (base/atomicfile.h) */
	if (!to_stdout && (rc = rv_atomicfile_open(&af, a->out, "w", &err)) != 0)
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
	if (!rc && (rv_incmerge_new(m->nchan, (const char *const *)m->names, a->opts.incident_gap,
				    a->opts.incident_min, &mg, NULL) != 0 ||
		    rv_window_csv_new(af.f, m, &cs.w) != 0)) {
		rc = -ENOMEM;
		rv_cli_error("detect", "%s: %s", a->out, strerror(-rc));
	}
	/* Megabytes of rows: a large buffer saves thousands of write calls on
	 * the serial path (glibc ignores the size unless given the buffer). */
	if (!rc && !to_stdout && (cs.wbuf = malloc(CSV_WRITE_BUFFER)) != NULL)
		setvbuf(af.f, cs.wbuf, _IOFBF, CSV_WRITE_BUFFER);
	sink.ctx = cs.w;
	if (!rc)
		rc = rv_window_csv_header(cs.w);
	if (!rc && (rc = rv_model_run(m, test, &sink, mg, a->opts.threads, st, &err)) != 0)
		rv_cli_error("detect", "%s", rv_err_text(&err, rc));
	if (!to_stdout)
		rc = close_output(&af, rc);
	if (!rc)
		rc = write_incidents(a, mg, m->window);
	rv_window_csv_free(cs.w);
	free(cs.wbuf);
	rv_incmerge_free(mg);
	return rc;
}

static void log_summary(const struct rv_model *m, const struct rv_detect_stats *st)
{
	rv_info("model: window %zu samples, step %zu, %zu channels, %zu features kept, "
		"%zu PCA components, fusion %s",
		m->window, m->step, m->nchan, rv_ens_features_kept(m->ens), rv_ens_pca_ncomp(m->ens),
		rv_fusion_name(rv_ens_config(m->ens)->fusion));
	char per[RV_DET_MAX * 48];
	size_t k = 0;

	per[0] = '\0';
	for (int d = 0; d < rv_det_count() && k < sizeof(per); d++)
		k += (size_t)snprintf(per + k, sizeof(per) - k, "%s%s %zu", d ? ", " : "",
				      rv_det_name(d), st->det_flagged[d]);
	rv_info("scored %zu windows: %zu anomalous (%s); "
		"read %.2fs, features %.2fs, fit %.2fs, score %.2fs",
		st->windows, st->flagged, per, st->read_s, st->features_s, st->fit_s, st->score_s);
}

int rv_cmd_detect(int argc, char **argv)
{
	struct detect_args a;
	struct rv_detect_stats st;
	struct rv_model *m = NULL;
	struct rv_table *train = NULL, *test = NULL;
	double train_feat_s;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc > 0 ? RV_EXIT_OK : RV_EXIT_USAGE;
	if (a.quiet)
		rv_log_set_level(RV_LOG_ERROR);
	/* BLAS runs single-threaded except inside large PCA fits, which raise
	 * it themselves: idle OpenBLAS threads spin and steal our cores. */
	rv_ens_blas_threads(1);
	rv_ens_blas_quiesce();
	memset(&st, 0, sizeof(st));
	rc = read_inputs(&a, &train, &test, &st);
	if (!rc && a.metric_set)
		rc = apply_metric_set(a.metric_set, train, test);
	if (!rc)
		rc = obtain_model(&a, train, &m, &st);
	rv_table_free(train);
	train_feat_s = st.features_s;
	if (!rc && rv_table_path_is_rvl(a.test))
		rc = align_recording(m, &test);
	if (!rc)
		rc = run_test(&a, m, test, &st);
	rv_table_free(test);
	if (!rc)
		log_summary(m, &st);
	if (!rc && a.info_json)
		rc = save_info(a.info_json, m, &st, train_feat_s);
	rv_model_free(m);
	if (rc == -EINVAL)
		return RV_EXIT_USAGE;
	return rc ? RV_EXIT_FAIL : RV_EXIT_OK;
}
