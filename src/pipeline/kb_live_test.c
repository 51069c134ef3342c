/*
 * kb_live_test.c - the built-in knowledge base on evidence from recorded
 * live fault-injection runs, not only on the crafted incidents of
 * src/explain/kb_test.c.
 *
 * The cases are tests/fixtures/kb/live-cases.tsv, written by
 * scripts/kb-live-cases.py from the tests/fixtures/eval/live-* runs (each
 * a recording eval.*.rvl and its results.json); regenerate it with
 *
 *     scripts/kb-live-cases.py            (or: ... DIR... for some runs)
 *
 * whenever those fixtures or CAUSES in eval/faultinject.py change. A case
 * is a baseline and an incident stretch of one recording with the rule ids
 * expected first: for a fault, the injection's own rules (baseline
 * [t0-90, t0-2), incident [t0+2, t1]); for a quiet stretch, none ("-").
 * Each recording is read once (rv_rvl_read_table: ~19600 rows x ~320
 * channels in today's fixtures, freed before the next; the whole test
 * takes ~2 s in a release build, ~4 s Debug, ~10 s under ASan), each
 * case's evidence built as the
 * offline report does (rv_evidence_build over the table) and matched
 * against the built-in rules (rv_kb_match, no confidence floor). The
 * verdict of a fault case: right (the first match is expected), undecided
 * (the first is an undecided rule whose candidates include an expected
 * id), second (the second match is expected), wrong (another first), none
 * (no match); a quiet case passes only with none (a match there counts
 * as wrong).
 *
 * The fault kinds are split into development kinds, the rules' own
 * (kind fault), and held-out kinds the rules were not written against
 * (kind heldout; eval/faults.py says which); runs with a background load
 * add -bg to the kind.
 *
 * Printed: a confusion table (fault -> first rule, counts), the verdicts
 * per kind, and every case that did not pass with its first match's
 * evidence, and the reliability table (the first match's confidence in
 * bins against the share right, on the held-out cases). Asserted: no rule
 * fires on a quiet stretch (kinds quiet and quiet-bg); on the development
 * faults without a background load (kind fault) none is wrong and right +
 * undecided is at least FAULT_PASS_MIN of them (fault-bg is reported, not
 * asserted); on the held-out faults, with or without a background load,
 * none is wrong; and every rule's `measured: {first, right}` in
 * rules.yaml is what the held-out cases measure (the development ones
 * would be right by construction): the confidence is calibrated on
 * exactly these recordings, and a change of a rule or of the fixtures
 * that moves the counts fails here until rules.yaml says so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strparse.h"
#include "explain/evidence.h"
#include "explain/kb.h"
#include "record/rvl_table.h"
#include "record/table.h"

#define FAULT_PASS_MIN 0.80   /* share of kind fault that must be right or undecided */

enum {
	CASES_MAX = 2048,       /* lines of the TSV */
	LINE_CAP = 1024,        /* bytes of one TSV line */
	DIR_CAP = 160,
	KIND_CAP = 16,
	LABEL_CAP = 64,
	EXPECTED_CAP = 256,
	PATH_CAP = 1024,
	CONFUSION_MAX = 512,    /* distinct (kind, fault, first rule) cells */
	RULES_MAX = 256,        /* rules of the built-in knowledge base */
	BINS = 5,               /* confidence bins of the reliability table: 0.5 .. 1 */
	MOVERS_SHOWN = 4,       /* strongest movers printed for a case with no match */
};

struct live_case {
	char dir[DIR_CAP];      /* relative to RV_FIXTURES */
	char kind[KIND_CAP];
	char label[LABEL_CAP];  /* "fault#round" or "quiet@Ns" */
	char expected[EXPECTED_CAP]; /* "id,id" or "-" */
	double base_from, base_to, start, end;
};

enum verdict { V_RIGHT, V_UNDECIDED, V_SECOND, V_WRONG, V_NONE, V_COUNT };
static const char *const verdict_name[V_COUNT] = {
	[V_RIGHT] = "right", [V_UNDECIDED] = "undecided", [V_SECOND] = "second",
	[V_WRONG] = "wrong", [V_NONE] = "none",
};

enum kind { K_FAULT, K_FAULT_BG, K_HELD, K_HELD_BG, K_QUIET, K_QUIET_BG, K_COUNT };
static const char *const kind_name[K_COUNT] = {
	[K_FAULT] = "fault", [K_FAULT_BG] = "fault-bg", [K_HELD] = "heldout",
	[K_HELD_BG] = "heldout-bg", [K_QUIET] = "quiet", [K_QUIET_BG] = "quiet-bg",
};

struct cell {
	enum kind kind;
	char fault[LABEL_CAP];
	char first[LABEL_CAP];  /* the first rule's id, "(none)" */
	size_t n;
};

struct tally {
	size_t n[K_COUNT][V_COUNT];
	size_t ncell;
	struct cell cell[CONFUSION_MAX];
	/* the held-out cases: the rule that came first, and whether it was
	 * right (for an undecided rule: one of its candidates was) */
	size_t first[RULES_MAX], right[RULES_MAX];
	size_t bin_n[BINS], bin_right[BINS];  /* by the first match's confidence */
};

/* ---- the case file ---- */

/* Copies the tab-separated field at *p into buf (cap bytes) and moves *p
 * past it and its tab; -1 when there is none or it does not fit. */
static int field(char **p, char *buf, size_t cap)
{
	char *s = *p, *t;
	size_t n;

	if (!s)
		return -1;
	t = strchr(s, '\t');
	n = t ? (size_t)(t - s) : strlen(s);
	if (n == 0 || n >= cap)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*p = t ? t + 1 : NULL;
	return 0;
}

static int field_double(char **p, double *out)
{
	char buf[64];
	const char *s = buf;

	if (field(p, buf, sizeof(buf)) != 0)
		return -1;
	if (rv_str_double(&s, buf + strlen(buf), out) != 0 || *s != '\0' || !isfinite(*out))
		return -1;
	return 0;
}

static int parse_case(char *line, struct live_case *c)
{
	char *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	if (field(&p, c->dir, sizeof(c->dir)) || field(&p, c->kind, sizeof(c->kind)) ||
	    field(&p, c->label, sizeof(c->label)) ||
	    field(&p, c->expected, sizeof(c->expected)) || field_double(&p, &c->base_from) ||
	    field_double(&p, &c->base_to) || field_double(&p, &c->start) ||
	    field_double(&p, &c->end) || p != NULL)
		return -1;
	return c->base_from < c->base_to && c->base_to <= c->start && c->start <= c->end ? 0 : -1;
}

/* Reads the cases of path into a new array (the caller frees it). */
static struct live_case *read_cases(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	struct live_case *c = calloc(CASES_MAX, sizeof(*c));
	char line[LINE_CAP];
	size_t lineno = 0;

	if (!f)
		fail_msg("%s: cannot open (scripts/kb-live-cases.py writes it)", path);
	assert_non_null(c);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (*n == CASES_MAX)
			fail_msg("%s: more than %d cases", path, CASES_MAX);
		if (parse_case(line, &c[*n]) != 0)
			fail_msg("%s:%zu: not a case line (8 tab-separated fields)", path, lineno);
		(*n)++;
	}
	fclose(f);
	return c;
}

static enum kind kind_of(const struct live_case *c)
{
	for (int k = 0; k < K_COUNT; k++)
		if (strcmp(c->kind, kind_name[k]) == 0)
			return (enum kind)k;
	fail_msg("%s %s: unknown kind %s", c->dir, c->label, c->kind);
	return K_COUNT;
}

static int is_quiet(enum kind k)
{
	return k == K_QUIET || k == K_QUIET_BG;
}

static int is_held(enum kind k)
{
	return k == K_HELD || k == K_HELD_BG;
}

/* ---- the recordings ---- */

static float table_get(const void *ctx, size_t row, size_t chan)
{
	return rv_table_at(ctx, chan, row);
}

/* Reads the one .rvl of the fixture directory dir. */
static struct rv_table *load_recording(const char *fixtures, const char *dir)
{
	char path[PATH_CAP], rvl[PATH_CAP] = "";
	struct rv_table *t = NULL;
	struct rv_err err = { 0 };
	struct dirent *e;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%s", fixtures, dir);
	d = opendir(path);
	if (!d)
		fail_msg("%s: cannot open the fixture directory", path);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len > 4 && strcmp(e->d_name + len - 4, ".rvl") == 0) {
			if (snprintf(rvl, sizeof(rvl), "%s/%s", path, e->d_name) >= (int)sizeof(rvl))
				fail_msg("%s/%s: path too long", path, e->d_name);
			found++;
		}
	}
	closedir(d);
	if (found != 1)
		fail_msg("%s: %d .rvl recordings, need exactly one", path, found);
	int rc = rv_rvl_read_table(rvl, &t, NULL, &err);
	if (rc != 0)
		fail_msg("%s: %s", rvl, rv_err_text(&err, rc));
	assert_non_null(t->ts);
	print_message("%s: %zu rows x %zu channels\n", dir, t->nrows, t->ncols);
	return t;
}

static size_t rows_in(const struct rv_table *t, double from, double to, int to_closed)
{
	size_t n = 0;

	for (size_t r = 0; r < t->nrows; r++)
		n += t->ts[r] >= from && (to_closed ? t->ts[r] <= to : t->ts[r] < to);
	return n;
}

/* ---- verdicts ---- */

/* 1 when id is one of the comma-separated ids of list. */
static int in_list(const char *list, const char *id)
{
	size_t n = strlen(id);

	for (const char *p = list; *p; ) {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, id, n) == 0)
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

static int undecided_for(const struct rv_kb_rule *r, const char *expected)
{
	for (size_t i = 0; i < rv_kb_rule_ncandidates(r); i++)
		if (in_list(expected, rv_kb_rule_candidate(r, i)))
			return 1;
	return 0;
}

static enum verdict classify(const struct live_case *c, enum kind k,
			     const struct rv_kb_match *m, size_t n)
{
	if (n == 0)
		return V_NONE;
	if (is_quiet(k))
		return V_WRONG;
	if (in_list(c->expected, rv_kb_rule_id(m[0].rule)))
		return V_RIGHT;
	if (undecided_for(m[0].rule, c->expected))
		return V_UNDECIDED;
	if (n > 1 && in_list(c->expected, rv_kb_rule_id(m[1].rule)))
		return V_SECOND;
	return V_WRONG;
}

static void count_cell(struct tally *t, enum kind k, const char *label, const char *first)
{
	char fault[LABEL_CAP];

	snprintf(fault, sizeof(fault), "%.*s", (int)strcspn(label, "#@"), label);
	for (size_t i = 0; i < t->ncell; i++) {
		struct cell *c = &t->cell[i];
		if (c->kind == k && strcmp(c->fault, fault) == 0 && strcmp(c->first, first) == 0) {
			c->n++;
			return;
		}
	}
	assert_true(t->ncell < CONFUSION_MAX);
	t->cell[t->ncell].kind = k;
	memcpy(t->cell[t->ncell].fault, fault, sizeof(fault));
	snprintf(t->cell[t->ncell].first, LABEL_CAP, "%s", first);
	t->cell[t->ncell++].n = 1;
}

/* ---- printing ---- */

static void print_sig(const char *what, const struct rv_evidence_sig *s)
{
	print_message("      %-44s %s: base %.4g -> %.4g, z %+.1f\n", what, s->name, s->base_mean,
		      s->value, s->z);
}

/* The strongest movers (largest |z|) of ev, for a case where no rule fired. */
static void print_movers(const struct rv_evidence *ev)
{
	size_t best[MOVERS_SHOWN], nbest = 0;

	for (size_t i = 0; i < ev->n; i++) {
		double z = fabs(ev->sig[i].z);
		size_t j = nbest;

		if (!ev->sig[i].dir)
			continue;
		if (j == MOVERS_SHOWN) {
			if (z <= fabs(ev->sig[best[j - 1]].z))
				continue;
			j--;
		} else {
			nbest++;
		}
		for (; j > 0 && z > fabs(ev->sig[best[j - 1]].z); j--)
			best[j] = best[j - 1];
		best[j] = i;
	}
	for (size_t i = 0; i < nbest; i++)
		print_sig("moved", &ev->sig[best[i]]);
}

static void print_failure(const struct live_case *c, enum verdict v, const struct rv_evidence *ev,
			  const struct rv_kb_match *m, size_t n)
{
	print_message("  %-6s %s %s %s (expected %s)\n", verdict_name[v], c->kind, c->dir, c->label,
		      c->expected);
	for (size_t i = 0; i < n && i < 3; i++)
		print_message("    #%zu %s %.2f\n", i + 1, rv_kb_rule_id(m[i].rule), m[i].confidence);
	for (size_t i = 0; n && i < m[0].nev; i++)
		print_sig(m[0].ev[i].what, m[0].ev[i].sig);
	if (n == 0)
		print_movers(ev);
}

static int by_cell(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;
	int d = (int)x->kind - (int)y->kind;

	if (d == 0)
		d = strcmp(x->fault, y->fault);
	return d ? d : (x->n < y->n) - (x->n > y->n);
}

/* The reliability table: of the first matches of the held-out cases given
 * a confidence in each bin, the share that was right. */
static void print_bins(const struct tally *t)
{
	print_message("reliability on held-out faults (first match's confidence: cases, "
		      "right)\n");
	for (int b = 0; b < BINS; b++)
		if (t->bin_n[b])
			print_message("  %.1f-%.1f: %zu, %zu right (%.0f %%)\n", 0.5 + 0.1 * b,
				      0.6 + 0.1 * b, t->bin_n[b], t->bin_right[b],
				      100.0 * (double)t->bin_right[b] / (double)t->bin_n[b]);
}

/*
 * The knowledge base's measured: counts must be what these recordings
 * measure (rules.yaml says where they come from): a rule that came first
 * on a live case without them, or with other numbers, fails, printing the
 * line to write. Returns the rules that differ.
 */
static size_t check_measured(const struct rv_kb *kb, const struct tally *t)
{
	size_t bad = 0;

	print_message("measured (rule: first, right)\n");
	for (size_t r = 0; r < rv_kb_count(kb); r++) {
		const struct rv_kb_rule *rule = rv_kb_get(kb, r);
		unsigned first = 0, right = 0;
		int has = rv_kb_rule_measured(rule, &first, &right);

		if (!has && t->first[r] == 0)
			continue;
		print_message("  %-28s %zu, %zu%s\n", rv_kb_rule_id(rule), t->first[r], t->right[r],
			      t->first[r] == first && t->right[r] == right ? ""
			      : "   <- rules.yaml says otherwise");
		if (t->first[r] != first || t->right[r] != right) {
			print_message("    write:  measured: {first: %zu, right: %zu}\n", t->first[r],
				      t->right[r]);
			bad++;
		}
	}
	return bad;
}

static void print_tally(struct tally *t)
{
	qsort(t->cell, t->ncell, sizeof(t->cell[0]), by_cell);
	print_message("confusion (kind fault -> first rule: cases)\n");
	for (size_t i = 0; i < t->ncell; i++)
		print_message("  %-8s %-20s -> %-28s %zu\n", kind_name[t->cell[i].kind],
			      t->cell[i].fault, t->cell[i].first, t->cell[i].n);
	print_message("verdicts per kind\n");
	for (int k = 0; k < K_COUNT; k++) {
		size_t total = 0;
		for (int v = 0; v < V_COUNT; v++)
			total += t->n[k][v];
		if (total == 0)
			continue;
		print_message("  %-8s %3zu cases:", kind_name[k], total);
		for (int v = 0; v < V_COUNT; v++)
			print_message(" %s %zu (%.0f %%)", verdict_name[v], t->n[k][v],
				      100.0 * (double)t->n[k][v] / (double)total);
		print_message("\n");
	}
}

/* ---- the test ---- */

static void run_case(const struct rv_table *t, const struct rv_kb *kb, const struct live_case *c,
		     struct tally *tl)
{
	struct rv_ev_source src = {
		.nrows = t->nrows, .nchan = t->ncols, .ts = t->ts,
		.names = (const char *const *)t->names, .get = table_get, .ctx = t,
	};
	struct rv_kb_match m[RV_KB_MATCH_MAX];
	struct rv_evidence ev = { 0 };
	struct rv_err err = { 0 };
	enum kind k = kind_of(c);

	if (rows_in(t, c->base_from, c->base_to, 0) < RV_EV_MIN_BASE ||
	    rows_in(t, c->start, c->end, 1) == 0)
		fail_msg("%s %s: the recording does not cover the case", c->dir, c->label);
	int rc = rv_evidence_build(&src, c->base_from, c->base_to, c->start, c->end, &ev, &err);
	if (rc != 0)
		fail_msg("%s %s: %s", c->dir, c->label, rv_err_text(&err, rc));
	size_t n = rv_kb_match(kb, &ev, 0, m, RV_KB_MATCH_MAX);
	enum verdict v = classify(c, k, m, n);

	tl->n[k][v]++;
	count_cell(tl, k, c->label, n ? rv_kb_rule_id(m[0].rule) : "(none)");
	if (n && is_held(k)) {
		size_t r = 0, b = (size_t)fmax(0, fmin(BINS - 1, (m[0].confidence - 0.5) * 2 * BINS));
		int ok = v == V_RIGHT || v == V_UNDECIDED;

		while (r < rv_kb_count(kb) && rv_kb_get(kb, r) != m[0].rule)
			r++;
		assert_true(r < RULES_MAX);
		tl->first[r]++;
		tl->right[r] += (size_t)ok;
		tl->bin_n[b]++;
		tl->bin_right[b] += (size_t)ok;
	}
	if (is_quiet(k) ? v != V_NONE : v != V_RIGHT && v != V_UNDECIDED)
		print_failure(c, v, &ev, m, n);
	rv_evidence_free(&ev);
}

/* Runs every case of the case file and prints the tables; the verdict
 * counts go to n, the rules whose measured: counts differ to *stale.
 * Everything is freed before the caller asserts. */
static void run_all(const char *fixtures, size_t n[K_COUNT][V_COUNT], size_t *stale)
{
	struct tally *tl = calloc(1, sizeof(*tl));
	struct rv_kb *kb = NULL;
	struct rv_table *t = NULL;
	char path[PATH_CAP];
	size_t ncase;

	assert_non_null(tl);
	assert_int_equal(rv_kb_new_builtin(&kb, NULL), 0);
	snprintf(path, sizeof(path), "%s/kb/live-cases.tsv", fixtures);
	struct live_case *c = read_cases(path, &ncase);
	print_message("%zu cases; those that did not pass are listed with their first match's"
		      " evidence\n", ncase);
	for (size_t i = 0; i < ncase; i++) {
		if (i == 0 || strcmp(c[i].dir, c[i - 1].dir) != 0) {
			rv_table_free(t);  /* one recording in memory at a time */
			t = load_recording(fixtures, c[i].dir);
		}
		run_case(t, kb, &c[i], tl);
	}
	rv_table_free(t);
	print_tally(tl);
	print_bins(tl);
	*stale = check_measured(kb, tl);
	memcpy(n, tl->n, sizeof(tl->n));
	free(c);
	free(tl);
	rv_kb_free(kb);
}

static void test_kb_on_live_runs(void **state)
{
	const char *fixtures = getenv("RV_FIXTURES");
	size_t n[K_COUNT][V_COUNT], nf = 0, nq = 0, stale = 0;

	(void)state;
	assert_non_null(fixtures);
	run_all(fixtures, n, &stale);
	for (int v = 0; v < V_COUNT; v++) {
		nf += n[K_FAULT][v];
		nq += n[K_QUIET][v] + n[K_QUIET_BG][v];
	}
	assert_true(nf > 0);
	assert_true(nq > 0);
	if (n[K_QUIET][V_WRONG] + n[K_QUIET_BG][V_WRONG] != 0)
		fail_msg("a rule fired on %zu quiet stretches", n[K_QUIET][V_WRONG] +
			 n[K_QUIET_BG][V_WRONG]);
	if (n[K_FAULT][V_WRONG] != 0)
		fail_msg("%zu faults blamed on a wrong rule", n[K_FAULT][V_WRONG]);
	if (n[K_HELD][V_WRONG] + n[K_HELD_BG][V_WRONG] != 0)
		fail_msg("%zu held-out faults blamed on a wrong rule",
			 n[K_HELD][V_WRONG] + n[K_HELD_BG][V_WRONG]);
	if ((double)(n[K_FAULT][V_RIGHT] + n[K_FAULT][V_UNDECIDED]) < FAULT_PASS_MIN * (double)nf)
		fail_msg("right + undecided %zu of %zu faults, below %.0f %%",
			 n[K_FAULT][V_RIGHT] + n[K_FAULT][V_UNDECIDED], nf, 100 * FAULT_PASS_MIN);
	if (stale)
		fail_msg("%zu rules' measured: counts in rules.yaml are not what the recordings "
			 "measure (see above)", stale);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kb_on_live_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
