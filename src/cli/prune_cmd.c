/*
 * prune_cmd.c - `reveal prune INPUT... -o METRICSET.yaml`: the metric set
 * of the channels worth watching, from recordings of several workloads.
 *
 * Each input (a .rvl recording or a CSV, one workload) is read, its
 * channel pairs correlated (select/corr.h, BLAS on every CPU) and the
 * table freed before the next is read: memory holds one table and the
 * correlation tables, never all inputs. select/prune.h then keeps one
 * channel of each redundant group across the inputs, and the set is
 * written whole or not at all (base/atomicfile.h) in the format of
 * select/metricset.h, which `reveal agent --metric-set` and
 * `reveal detect --metric-set` read.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/atomicfile.h"
#include "base/err.h"
#include "cli/cli.h"
#include "detect/ensemble.h"
#include "explain/kb.h"
#include "record/table_read.h"
#include "select/corr.h"
#include "select/metricset.h"
#include "select/prune.h"

#define CMD "prune"

static const char prune_help[] =
	"usage: reveal prune INPUT... -o METRICSET.yaml [--threshold R] [--levels-only] [-q]\n"
	"\n"
	"Chooses the channels worth watching. Each INPUT is the telemetry of one\n"
	"workload: a recording of `reveal record` (FILE.rvl) or a CSV (CSV.gz) with a\n"
	"timestamp column. The Pearson correlation of every pair of channels is\n"
	"measured in each input on its own, of their levels and of their changes from\n"
	"one sample to the next; where a pair is correlated above |r| = R in both, in\n"
	"every input where the channel to drop varies, one of the two is kept, by\n"
	"priority: interpretability (the catalog's rank: a quantity read directly,\n"
	"then a breakdown, then an internal counter), then generality (a host-wide\n"
	"channel before a per-CPU or per-device one), then variance (scaled to the\n"
	"channel's range), then name. A channel constant in an input, or absent from\n"
	"it, is judged on the other inputs; one constant in all is kept (it is the\n"
	"one that moves when something breaks: an error count, swap in use) unless\n"
	"--drop-constant lists it apart, not watched. The channels the knowledge\n"
	"base's rules read (their evidence of a cause) are always kept. Gaps:\n"
	"mean-filled with the count correction while no channel misses more than\n"
	"1 % of its samples, else pairwise-complete.\n"
	"\n"
	"Writes the metric set (YAML: the kept channels; each dropped one with the\n"
	"kept channel that stands for it and their r, the weakest over the inputs;\n"
	"the constant ones) for `reveal agent --metric-set` and\n"
	"`reveal detect --metric-set`, and prints how many channels were kept,\n"
	"dropped and constant per subsystem.\n"
	"\n"
	"  -o, --output FILE     the metric set to write (replaced whole; required)\n"
	"  --threshold R         |r| above which a pair is redundant, 0 < R < 1\n"
	"                        (default 0.5, the paper's)\n"
	"  --gaps MODE           auto (default), fill or exact: how gaps are handled\n"
	"  --levels-only         the paper's rule: levels alone decide. Channels that\n"
	"                        share a trend but move apart sample to sample (where\n"
	"                        anomalies show) are then pruned too: on the DEV\n"
	"                        entities it cost event recall 0.879 -> 0.631 at\n"
	"                        R = 0.5, against 0.845 with changes\n"
	"                        (docs/EVALUATION.md)\n"
	"  --drop-constant       leave out the channels constant in every input\n"
	"  --kb-signals MODE     keep (default): every channel a built-in rule reads\n"
	"                        is kept, so incidents keep their explanation;\n"
	"                        prune: they are pruned like the others\n"
	"  -q, --quiet           print nothing but errors\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 success, 1 a failure at run time (memory, writing), 2 bad\n"
	"usage or bad input (a file missing or malformed, too few samples).\n";

enum { OPT_THRESHOLD = 256, OPT_GAPS, OPT_LEVELS_ONLY, OPT_DROP_CONSTANT, OPT_KB_SIGNALS };

struct prune_args {
	const char *out;
	double threshold;
	enum rv_corr_gaps gaps;
	int quiet;
	int levels_only;       /* the paper's rule: levels only, not changes */
	int drop_constant;     /* leave out channels constant in every input */
	int kb_prune;          /* --kb-signals prune: the rules' channels are not protected */
	char **inputs;
	size_t ninputs;
};

/* One input once correlated: the table is gone, the names copied. */
struct prune_in {
	char **names;
	size_t nchan, nrows;
	struct rv_corr *corr;
	struct rv_corr *dcorr;  /* of the first differences; NULL with --levels-only */
};

static int usage_error(const char *fmt, const char *a)
{
	char msg[RV_ERR_MSG_MAX];

	snprintf(msg, sizeof(msg), fmt, a);
	return rv_cli_fail(CMD, RV_EXIT_USAGE, "%s (see --help)", msg);
}

static int parse_gaps(const char *s, enum rv_corr_gaps *out)
{
	static const char *const names[] = { "auto", "fill", "exact" };

	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum rv_corr_gaps)i;
			return 0;
		}
	return -EINVAL;
}

/* 0, -1 after --help, or an exit status. */
static int parse_args(int argc, char **argv, struct prune_args *a)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "gaps", required_argument, NULL, OPT_GAPS },
		{ "levels-only", no_argument, NULL, OPT_LEVELS_ONLY },
		{ "drop-constant", no_argument, NULL, OPT_DROP_CONSTANT },
		{ "kb-signals", required_argument, NULL, OPT_KB_SIGNALS },
		{ NULL, 0, NULL, 0 },
	};
	int id;

	*a = (struct prune_args){ .threshold = RV_PRUNE_THRESHOLD, .gaps = RV_CORR_AUTO };
	optind = 1;
	while ((id = getopt_long(argc, argv, "ho:q", opts, NULL)) != -1) {
		switch (id) {
		case 'h':
			fputs(prune_help, stdout);
			return -1;
		case 'o': a->out = optarg; break;
		case 'q': a->quiet = 1; break;
		case OPT_THRESHOLD:
			if (rv_cli_parse_real(optarg, 0.0, 1.0, &a->threshold) != 0 ||
			    a->threshold <= 0.0 || a->threshold >= 1.0)
				return usage_error("--threshold %s: want a number between 0 and 1",
						   optarg);
			break;
		case OPT_LEVELS_ONLY: a->levels_only = 1; break;
		case OPT_DROP_CONSTANT: a->drop_constant = 1; break;
		case OPT_KB_SIGNALS:
			if (strcmp(optarg, "keep") != 0 && strcmp(optarg, "prune") != 0)
				return usage_error("--kb-signals %s: want keep or prune", optarg);
			a->kb_prune = strcmp(optarg, "prune") == 0;
			break;
		case OPT_GAPS:
			if (parse_gaps(optarg, &a->gaps) != 0)
				return usage_error("--gaps %s: want auto, fill or exact", optarg);
			break;
		default:
			return rv_cli_fail(CMD, RV_EXIT_USAGE, "see --help");
		}
	}
	a->inputs = argv + optind;
	a->ninputs = (size_t)(argc - optind);
	if (a->ninputs == 0)
		return usage_error("want at least one INPUT (a .rvl recording or a CSV)%s", "");
	if (!a->out)
		return usage_error("-o/--output METRICSET.yaml is required%s", "");
	return 0;
}

static void in_free(struct prune_in *in)
{
	for (size_t i = 0; in->names && i < in->nchan; i++)
		free(in->names[i]);
	free(in->names);
	rv_corr_free(in->corr);
	rv_corr_free(in->dcorr);
	*in = (struct prune_in){ 0 };
}

/* The names of t, copied; each must be a name a metric set can hold. */
static int copy_names(const struct rv_table *t, struct prune_in *in, struct rv_err *err)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!rv_metricset_valid_name(t->names[i]))
			return rv_err_set(err, -EINVAL, "%s: column %zu: '%s' is not a channel name "
					  "(a metric type of [a-z0-9_.-], then ':' and an "
					  "instance); a metric set cannot hold it", t->path,
					  rv_table_field(t, i), t->names[i]);
	if (!(in->names = calloc(t->ncols ? t->ncols : 1, sizeof(*in->names))))
		return -ENOMEM;
	in->nchan = t->ncols;
	for (size_t i = 0; i < t->ncols; i++)
		if (!(in->names[i] = strdup(t->names[i])))
			return -ENOMEM;
	return 0;
}

/* Reads and correlates one input. 0 or an exit status (reported). */
/* The correlation of t's first differences (a sample's value less the one
 * before; a gap on either side is a gap) into *out. */
static int changes_corr(const struct rv_table *t, enum rv_corr_gaps gaps, const char *path,
			struct rv_corr **out, struct rv_err *err)
{
	size_t n = t->nrows - 1;
	float *d = malloc(t->ncols * n * sizeof(*d));
	int rc;

	if (!d)
		return rv_err_set(err, -ENOMEM, "%s: out of memory", path);
	for (size_t c = 0; c < t->ncols; c++) {
		const float *v = t->values + c * t->nrows;

		for (size_t r = 0; r < n; r++)
			d[c * n + r] = v[r + 1] - v[r];   /* NaN when either is */
	}
	rc = rv_corr_compute(d, t->ncols, n, gaps, path, out, err);
	free(d);
	return rc;
}

static int load_input(const char *path, enum rv_corr_gaps gaps, int changes,
		      struct prune_in *in)
{
	struct rv_table *t = NULL;
	struct rv_err err;
	int rc;

	rv_err_clear(&err);
	rc = rv_table_read_path(path, &t, &err);
	if (rc)
		return rv_cli_fail_err(CMD, rc == -ENOMEM ? RV_EXIT_FAIL : RV_EXIT_USAGE, &err, rc);
	in->nrows = t->nrows;
	rc = copy_names(t, in, &err);
	if (rc == 0 && (t->ncols == 0 || t->nrows < RV_CORR_MIN_PAIR))
		rc = rv_err_set(&err, -EINVAL, "%s: %zu channels x %zu samples: too few to "
				"correlate (want a channel and %d samples)", path, t->ncols,
				t->nrows, RV_CORR_MIN_PAIR);
	if (rc == 0)
		rc = rv_corr_compute(t->values, t->ncols, t->nrows, gaps, path, &in->corr, &err);
	if (rc == 0 && changes)
		rc = changes_corr(t, gaps, path, &in->dcorr, &err);
	rv_table_free(t);
	if (rc == -ENOMEM && !err.msg[0])
		rv_err_set(&err, rc, "%s: out of memory", path);
	if (rc)
		return rv_cli_fail_err(CMD, rc == -ENOMEM ? RV_EXIT_FAIL : RV_EXIT_USAGE, &err, rc);
	return 0;
}

static void print_input(const char *path, const struct prune_in *in)
{
	const struct rv_corr *c = in->corr;

	printf("  %s: %zu channels x %zu samples, %zu vary", path, in->nchan, in->nrows,
	       rv_corr_nvarying(c));
	if (rv_corr_gap_share(c) > 0.0)
		printf(", gaps %.2f %% (%s)", 100.0 * rv_corr_gap_share(c),
		       rv_corr_exact(c) ? "pairwise-complete" : "mean-filled");
	putchar('\n');
}

/* Kept, dropped and constant per subsystem, and the total. */
static void print_summary(const struct prune_args *a, const struct rv_prune_result *r)
{
	size_t vary = r->nkept - r->nkept_constant + r->ndropped;

	printf("%-10s %6s %8s %9s\n", "subsystem", "kept", "dropped", "constant");
	for (int s = 0; s < RV_SUB_COUNT; s++)
		if (r->kept_by[s] + r->dropped_by[s] + r->constant_by[s])
			printf("%-10s %6zu %8zu %9zu\n", rv_subsystem_name((enum rv_subsystem)s),
			       r->kept_by[s], r->dropped_by[s], r->constant_by[s]);
	printf("%-10s %6zu %8zu %9zu\n", "all", r->nkept, r->ndropped, r->nconstant);
	if (r->npartial)
		printf("%zu channels are in only some inputs: judged on those that have them\n",
		       r->npartial);
	printf("wrote %s: %zu of %zu varying channels kept (%.0f %% fewer) at |r| > %g",
	       a->out, r->nkept - r->nkept_constant, vary,
	       vary ? 100.0 * (double)r->ndropped / (double)vary : 0.0, a->threshold);
	if (r->nkept_constant)
		printf(", and %zu constant ones%s", r->nkept_constant,
		       a->drop_constant ? " the knowledge base reads"
					: " (--drop-constant leaves them out)");
	putchar('\n');
	if (r->nprotected)
		printf("%zu varying channels kept only because the knowledge base reads them "
		       "(--kb-signals prune drops them)\n", r->nprotected);
}

static int write_set(const struct prune_args *a, const struct rv_prune_result *r)
{
	struct rv_metricset_spec s;
	struct rv_atomicfile af;
	struct rv_err err;
	int rc;

	rv_prune_spec(r, a->threshold, (const char *const *)a->inputs, a->ninputs, &s);
	rv_err_clear(&err);
	rc = rv_atomicfile_open(&af, a->out, "w", &err);
	if (rc)
		return rv_cli_fail_err(CMD, RV_EXIT_FAIL, &err, rc);
	rc = rv_metricset_write(af.f, &s, &err);
	rc = rv_atomicfile_close(&af, rc, &err);
	if (rc)
		return rv_cli_fail(CMD, RV_EXIT_FAIL, "%s: %s", a->out, rv_err_text(&err, rc));
	return 0;
}

/* The protected patterns: every signal of the built-in rules, a pattern
 * of per-CPU skew entries ("X:cpu_skew") as the per-CPU channels it is
 * computed from ("X:cpu[0-9]*"). 0, or -ENOMEM / the rules' error. */
static int kb_globs(struct rv_prune_protect *p, char ***own, struct rv_err *err)
{
	struct rv_kb *kb = NULL;
	size_t n = 0, cap = 0;
	char **g = NULL;
	int rc = rv_kb_new_builtin(&kb, err);

	for (size_t i = 0; rc == 0 && i < rv_kb_count(kb); i++) {
		const struct rv_kb_rule *r = rv_kb_get(kb, i);

		cap += rv_kb_rule_nsignals(r);
	}
	if (rc == 0 && !(g = calloc(cap ? cap : 1, sizeof(*g))))
		rc = rv_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < rv_kb_count(kb); i++) {
		const struct rv_kb_rule *r = rv_kb_get(kb, i);

		for (size_t k = 0; rc == 0 && k < rv_kb_rule_nsignals(r); k++) {
			int skew = 0;
			const char *sig = rv_kb_rule_signal(r, k, &skew);
			const char *at = skew ? strstr(sig, "cpu_skew") : NULL;

			if (at && asprintf(&g[n], "%.*scpu[0-9]*%s", (int)(at - sig), sig,
					   at + strlen("cpu_skew")) < 0)
				g[n] = NULL;
			else if (!at)
				g[n] = strdup(sig);
			rc = g[n++] ? 0 : rv_err_set(err, -ENOMEM, "out of memory");
		}
	}
	rv_kb_free(kb);
	*own = g;
	*p = (struct rv_prune_protect){ (const char *const *)g, g ? n : 0 };
	return rc;
}

static void globs_free(char **g, size_t n)
{
	for (size_t i = 0; g && i < n; i++)
		free(g[i]);
	free(g);
}

/* Prunes the correlated inputs pi, protecting the rules' channels unless
 * --kb-signals prune. */
static int prune_run(const struct prune_args *a, const struct rv_prune_input *pi,
		     struct rv_prune_result **res)
{
	struct rv_prune_protect p = { NULL, 0 };
	struct rv_err err;
	char **own = NULL;
	int rc = 0;

	rv_err_clear(&err);
	if (!a->kb_prune)
		rc = kb_globs(&p, &own, &err);
	if (rc == 0)
		rc = rv_prune_run_protect(pi, a->ninputs, a->threshold, &p, res, &err);
	globs_free(own, p.n);
	if (rc)
		rc = rv_cli_fail_err(CMD, rc == -ENOMEM ? RV_EXIT_FAIL : RV_EXIT_USAGE, &err, rc);
	return rc;
}

/* Reads and correlates every input in turn, then prunes across them. */
static int prune_inputs(const struct prune_args *a, struct prune_in *in,
			struct rv_prune_result **res)
{
	struct rv_prune_input *pi = calloc(a->ninputs, sizeof(*pi));
	int rc = 0;

	if (!pi)
		return rv_cli_fail(CMD, RV_EXIT_FAIL, "out of memory");
	for (size_t k = 0; k < a->ninputs && rc == 0; k++) {
		rc = load_input(a->inputs[k], a->gaps, !a->levels_only, &in[k]);
		pi[k] = (struct rv_prune_input){ a->inputs[k], (const char *const *)in[k].names,
						 in[k].nchan, in[k].corr, in[k].dcorr };
		if (rc == 0 && !a->quiet)
			print_input(a->inputs[k], &in[k]);
	}
	if (rc == 0)
		rc = prune_run(a, pi, res);
	free(pi);
	return rc;
}

/* BLAS threads for the correlation: every online CPU. */
static void use_all_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	rv_ens_blas_threads(n > 0 ? (int)n : 1);
}

int rv_cmd_prune(int argc, char **argv)
{
	struct prune_args a;
	struct prune_in *in;
	struct rv_prune_result *res = NULL;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc < 0 ? RV_EXIT_OK : rc;
	if (!(in = calloc(a.ninputs, sizeof(*in))))
		return rv_cli_fail(CMD, RV_EXIT_FAIL, "out of memory");
	if (!a.quiet)
		printf("reveal prune: %zu input%s, threshold %g\n", a.ninputs,
		       a.ninputs == 1 ? "" : "s", a.threshold);
	use_all_cpus();
	rc = prune_inputs(&a, in, &res);
	rv_ens_blas_threads(1);
	rv_ens_blas_quiesce();
	if (rc == 0 && res->nkept == res->nkept_constant)
		rc = rv_cli_fail(CMD, RV_EXIT_USAGE, "no channel varies in any input (%zu constant): "
				 "nothing to keep", res->nconstant + res->nkept_constant);
	if (rc == 0 && !a.drop_constant)
		rv_prune_keep_constant(res);
	if (rc == 0)
		rc = write_set(&a, res);
	if (rc == 0 && !a.quiet)
		print_summary(&a, res);
	rv_prune_free(res);
	for (size_t k = 0; k < a.ninputs; k++)
		in_free(&in[k]);
	free(in);
	return rc;
}
