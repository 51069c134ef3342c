/*
 * detector_ext_test.c - a detector defined only here ("maxabs": the largest
 * |z| of the standardized features) goes through the table
 * (detect/detector.h) and nothing else: it registers, and then appears in
 * the window CSV of `reveal detect` (pipeline/window_csv.h) at its
 * documented place, in the agent's /metrics labels, and in a model file
 * that loads back and scores the same; a process that has not registered
 * it refuses that model file with a message naming it.
 *
 * Linked against rv_agent, which brings the pipeline, the model file and
 * the agent's metrics page. The refusal runs in a fresh copy of this
 * program (/proc/self/exe with DETECTOR_EXT_LOAD=PATH), which skips the
 * registration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/agent_int.h"
#include "detect/detector.h"
#include "detect/ensemble.h"
#include "explain/incident.h"
#include "pipeline/model.h"
#include "pipeline/window_csv.h"
#include "record/synth.h"
#include "serve/promtext.h"

/* ------------------------------------------------- the extra detector */

enum { MAXABS_TAG = 0x5841414du /* "MAAX" */, MAXABS_VERSION = 1 };

struct maxabs {
	uint64_t dim;
	double train_mean;     /* mean training score: stored, checked on load */
};

static double max_abs(const float *z, size_t dim, double *contrib)
{
	double best = 0.0;
	size_t at = 0;

	for (size_t j = 0; j < dim; j++) {
		double v = fabs((double)z[j]);

		if (contrib)
			contrib[j] = 0.0;
		if (v > best) {
			best = v;
			at = j;
		}
	}
	if (contrib && dim)
		contrib[at] = best;
	return best;
}

static int maxabs_fit(const struct rv_ens_config *cfg, const struct rv_det_rows *r, void **state,
		      struct rv_err *err)
{
	struct maxabs *s = calloc(1, sizeof(*s));
	double sum = 0.0;

	(void)cfg;
	(void)err;
	if (!s)
		return -ENOMEM;
	s->dim = r->dim;
	for (size_t i = 0; i < r->n; i++)
		sum += max_abs(r->z + i * r->ld, r->dim, NULL);
	s->train_mean = r->n ? sum / (double)r->n : 0.0;
	*state = s;
	return 0;
}

static void maxabs_score(const struct rv_ens_config *cfg, const void *state, const float *z,
			 size_t ld, size_t n, size_t dim, void *scratch, double *score,
			 size_t stride)
{
	(void)cfg;
	(void)state;
	(void)scratch;
	for (size_t i = 0; i < n; i++)
		score[i * stride] = max_abs(z + i * ld, dim, NULL);
}

static double maxabs_contrib(const struct rv_ens_config *cfg, const void *state, const float *z,
			     size_t dim, void *scratch, double *contrib)
{
	(void)cfg;
	(void)state;
	(void)scratch;
	return max_abs(z, dim, contrib);
}

static void maxabs_save(const void *state, struct rv_wbuf *b)
{
	const struct maxabs *s = state;

	rv_wbuf_u32(b, MAXABS_TAG);
	rv_wbuf_u32(b, MAXABS_VERSION);
	rv_wbuf_u64(b, s->dim);
	rv_wbuf_f64(b, s->train_mean);
}

static int maxabs_load(struct rv_rbuf *b, size_t dim, void **state, struct rv_err *err)
{
	struct maxabs *s;

	if (rv_rbuf_u32(b) != MAXABS_TAG || rv_rbuf_u32(b) != MAXABS_VERSION)
		return rv_err_set(err, -EINVAL, "model: maxabs section has a bad tag or version");
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	s->dim = rv_rbuf_u64(b);
	s->train_mean = rv_rbuf_f64(b);
	*state = s;
	if (b->bad || s->dim != dim || !isfinite(s->train_mean))
		return rv_err_set(err, -EINVAL, "model: bad maxabs section");
	return 0;
}

static void maxabs_free(void *state)
{
	free(state);
}

static const struct rv_detector_ops maxabs_ops = {
	.name = "maxabs",
	.input = RV_DET_IN_FEAT,
	.threshold = RV_DET_THR_QUANTILE,
	.fit = maxabs_fit,
	.score_block = maxabs_score,
	.contrib = maxabs_contrib,
	.save = maxabs_save,
	.load = maxabs_load,
	.free = maxabs_free,
};

/* ---------------------------------------------------------- fixtures */

static struct {
	int det;                   /* maxabs's index in the table */
	struct rv_table *train, *test;
	struct rv_model *m;
	char path[64];
} S;

static int setup(void **state)
{
	struct rv_synth_params p;
	struct rv_detect_opts o;
	uint8_t *labels = NULL;
	int fd;

	(void)state;
	S.det = rv_detector_register(&maxabs_ops);
	if (S.det < RV_DET_FIXED)
		return -1;
	rv_synth_defaults(&p);
	p.train_s = 200.0;
	p.test_s = 300.0;
	if (rv_synth_generate(&p, &S.train, &S.test, &labels) != 0)
		return -1;
	free(labels);
	rv_detect_opts_default(&o);
	o.ens.iforest.trees = 50;
	o.ens.enabled |= RV_DET_BIT(rv_det_parse("maxabs"));
	if (rv_model_fit(&o, S.train, &S.m, NULL, NULL) != 0)
		return -1;
	snprintf(S.path, sizeof(S.path), "/tmp/rv_detector_ext_XXXXXX");
	fd = mkstemp(S.path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(S.path);
	rv_model_free(S.m);
	rv_table_free(S.train);
	rv_table_free(S.test);
	return 0;
}

/* The window CSV of m on the test table, as one string (caller frees). */
static char *window_csv(const struct rv_model *m)
{
	struct rv_window_csv *w = NULL;
	struct rv_incmerge *mg = NULL;
	struct rv_sink sink = { .window = rv_window_csv_row };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(rv_incmerge_new(m->nchan, (const char *const *)m->names, 2, 1, &mg, NULL),
			 0);
	assert_int_equal(rv_window_csv_new(f, m, &w), 0);
	sink.ctx = w;
	assert_int_equal(rv_window_csv_header(w), 0);
	assert_int_equal(rv_model_run(m, S.test, &sink, mg, 1, NULL, NULL), 0);
	assert_int_equal(fclose(f), 0);
	rv_window_csv_free(w);
	rv_incmerge_free(mg);
	return text;
}

/* Field k (0-based) of a CSV line, copied into out. */
static void field(const char *line, int k, char *out, size_t cap)
{
	size_t n;

	for (; k > 0; k--) {
		line = strchr(line, ',');
		assert_non_null(line);
		line++;
	}
	n = strcspn(line, ",\n");
	assert_true(n < cap);
	memcpy(out, line, n);
	out[n] = '\0';
}

/* ------------------------------------------------------------- tests */

/* The flag column after spe, the ratio column last; it scores. */
static void test_window_csv(void **state)
{
	static const char header[] =
		"timestamp,anomaly,score,zscore,pca,iforest,top_metrics,subsystem,"
		"spe,maxabs,zscore_score,pca_score,iforest_score,spe_score,maxabs_score\n";
	char *text = window_csv(S.m), *line, f[64];
	size_t rows = 0, positive = 0;

	(void)state;
	assert_int_equal(rv_det_parse("maxabs"), S.det);
	assert_true(strncmp(text, header, sizeof(header) - 1) == 0);
	for (line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		field(line, 9, f, sizeof(f));
		assert_true(strcmp(f, "0") == 0 || strcmp(f, "1") == 0);
		field(line, 14, f, sizeof(f));
		positive += strtod(f, NULL) > 0.0;
		rows++;
	}
	assert_true(rows > 10);
	assert_int_equal(positive, rows);
	assert_true(rv_ens_threshold(S.m->ens, S.det) > 0.0);
	free(text);
}

/* /metrics: the detector series carry detector="maxabs". */
static void test_metrics_label(void **state)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct rv_promtext p;

	(void)state;
	assert_non_null(a);
	a->state = AGENT_DETECTING;
	a->det_enabled = rv_ens_config(S.m->ens)->enabled;
	for (int d = 0; d < RV_DET_MAX; d++) {
		a->det_threshold[d] = rv_ens_threshold(S.m->ens, d);
		a->det_score[d] = 0.5;
	}
	rv_prom_init(&p);
	rv_agent_metrics_detectors(a, &p);
	assert_non_null(p.page.data);
	assert_non_null(strstr(p.page.data, "reveal_detector_score{detector=\"maxabs\"} 0.5\n"));
	assert_non_null(strstr(p.page.data, "reveal_detector_threshold{detector=\"maxabs\"} "));
	assert_non_null(strstr(p.page.data, "reveal_detector_score{detector=\"zscore\"} 0.5\n"));
	rv_prom_fini(&p);
	free(a);
}

/* The model file round trip scores the same, byte for byte. */
static void test_model_file(void **state)
{
	struct rv_model *back = NULL;
	struct rv_err err = { 0 };
	char *before, *after;

	(void)state;
	assert_int_equal(rv_model_save(S.m, S.path, &err), 0);
	assert_int_equal(rv_model_load(S.path, &back, &err), 0);
	assert_true(rv_ens_config(back->ens)->enabled == rv_ens_config(S.m->ens)->enabled);
	assert_true(rv_ens_threshold(back->ens, S.det) == rv_ens_threshold(S.m->ens, S.det));
	before = window_csv(S.m);
	after = window_csv(back);
	assert_string_equal(before, after);
	free(before);
	free(after);
	rv_model_free(back);
}

/* A process without the registration refuses the file, naming maxabs. */
static void test_unregistered_load(void **state)
{
	struct rv_err err = { 0 };
	int status = -1;
	pid_t pid;

	(void)state;
	assert_int_equal(rv_model_save(S.m, S.path, &err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("DETECTOR_EXT_LOAD", S.path, 1);
		execl("/proc/self/exe", "detector_ext_test", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The child of test_unregistered_load: 0 when the load fails as it must. */
static int load_unregistered(const char *path)
{
	struct rv_model *m = NULL;
	struct rv_err err = { 0 };
	int rc = rv_model_load(path, &m, &err);

	if (rc == 0) {
		rv_model_free(m);
		return 1;
	}
	return rc == -EINVAL && strstr(err.msg, "\"maxabs\"") ? 0 : 2;
}

int main(void)
{
	const char *child = getenv("DETECTOR_EXT_LOAD");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_csv),
		cmocka_unit_test(test_metrics_label),
		cmocka_unit_test(test_model_file),
		cmocka_unit_test(test_unregistered_load),
	};

	if (child)
		return load_unregistered(child);
	return cmocka_run_group_tests(tests, setup, teardown);
}
