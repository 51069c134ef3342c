/*
 * fuzz_metricset.c - libFuzzer target of the metric-set reader
 * (select/metricset.h, rv_metricset_parse). A refusal must carry -EINVAL
 * or -ENOMEM, the same code in err, a message of one line that starts
 * with the file's name, and no set. An accepted set must keep at least
 * one channel, every name must be a channel name, every kept channel must
 * be found by rv_metricset_has and no dropped or constant one, each
 * drop's kept channel must be kept, and lines must increase. Then the set
 * is written (rv_metricset_write) and read again: the same lists (r to
 * the 4 decimals written), and written once more, the same bytes.
 * Build and run: tests/fuzz/README.md.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/metricset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { SHOW = 64 };

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_metricset: %s: %.*s\n", what, SHOW, detail ? detail : "");
	abort();
}

static void check_refusal(int rc, const struct rv_err *err, const struct rv_metricset *m)
{
	if (rc != -EINVAL && rc != -ENOMEM)
		die("undocumented code", rv_strerror(rc));
	if (err->code != rc)
		die("err code differs from the return", err->msg);
	if (strncmp(err->msg, "fuzz.yaml", 9) != 0)
		die("message does not name the file", err->msg);
	for (const char *p = err->msg; *p; p++)
		if (*p == '\n')
			die("message of more than one line", err->msg);
	if (m)
		die("a set returned with an error", err->msg);
}

/* The invariants of an accepted set. */
static void check_set(const struct rv_metricset *m)
{
	size_t n = rv_metricset_count(m);

	if (n == 0)
		die("a set that keeps nothing", NULL);
	for (size_t i = 0; i < n; i++) {
		const char *s = rv_metricset_name(m, i);

		if (!rv_metricset_valid_name(s) || !rv_metricset_has(m, s))
			die("a kept name not valid or not found", s);
		if (i && rv_metricset_line(m, i) < rv_metricset_line(m, i - 1))
			die("lines go back", s);
	}
	for (size_t i = 0; i < rv_metricset_ndropped(m); i++) {
		const struct rv_metricset_drop *d = rv_metricset_dropped(m, i);

		if (rv_metricset_has(m, d->channel) || !rv_metricset_has(m, d->kept))
			die("a drop kept, or its kept one not kept", d->channel);
		if (!(fabs(d->r) <= 1.0))
			die("r out of range", d->channel);
	}
	for (size_t i = 0; i < rv_metricset_nconstant(m); i++)
		if (rv_metricset_has(m, rv_metricset_constant(m, i)))
			die("a constant channel kept", rv_metricset_constant(m, i));
}

/* m written into *text (malloc'd). */
static size_t write_set(const struct rv_metricset *m, char **text)
{
	size_t nk = rv_metricset_count(m), nd = rv_metricset_ndropped(m);
	size_t nc = rv_metricset_nconstant(m), ni = rv_metricset_ninputs(m), len = 0;
	const char **keep = calloc(nk + 1, sizeof(*keep)), **cons = calloc(nc + 1, sizeof(*cons));
	const char **inputs = calloc(ni + 1, sizeof(*inputs));
	struct rv_metricset_drop *drop = calloc(nd + 1, sizeof(*drop));
	struct rv_metricset_spec s;
	struct rv_err err = { 0 };
	FILE *f = open_memstream(text, &len);

	if (!keep || !cons || !inputs || !drop || !f)
		die("out of memory", NULL);
	for (size_t i = 0; i < nk; i++)
		keep[i] = rv_metricset_name(m, i);
	for (size_t i = 0; i < nd; i++)
		drop[i] = *rv_metricset_dropped(m, i);
	for (size_t i = 0; i < nc; i++)
		cons[i] = rv_metricset_constant(m, i);
	for (size_t i = 0; i < ni; i++)
		inputs[i] = rv_metricset_input(m, i);
	s = (struct rv_metricset_spec){ rv_metricset_threshold(m), inputs, ni, keep, nk, drop, nd,
					cons, nc };
	if (rv_metricset_write(f, &s, &err) != 0)
		die("an accepted set is not written", err.msg);
	fclose(f);
	free(keep);
	free(cons);
	free(inputs);
	free(drop);
	return len;
}

/* a and b hold the same lists (b read from a's writing). */
static void same_lists(const struct rv_metricset *a, const struct rv_metricset *b)
{
	if (rv_metricset_count(a) != rv_metricset_count(b) ||
	    rv_metricset_ndropped(a) != rv_metricset_ndropped(b) ||
	    rv_metricset_nconstant(a) != rv_metricset_nconstant(b) ||
	    rv_metricset_ninputs(a) != rv_metricset_ninputs(b))
		die("written set reads back with other counts", NULL);
	for (size_t i = 0; i < rv_metricset_count(a); i++)
		if (strcmp(rv_metricset_name(a, i), rv_metricset_name(b, i)))
			die("a kept name changed", rv_metricset_name(a, i));
	for (size_t i = 0; i < rv_metricset_ndropped(a); i++) {
		const struct rv_metricset_drop *x = rv_metricset_dropped(a, i);
		const struct rv_metricset_drop *y = rv_metricset_dropped(b, i);

		if (strcmp(x->channel, y->channel) || strcmp(x->kept, y->kept) ||
		    fabs(x->r - y->r) > 5.01e-5)
			die("a drop changed", x->channel);
	}
	for (size_t i = 0; i < rv_metricset_nconstant(a); i++)
		if (strcmp(rv_metricset_constant(a, i), rv_metricset_constant(b, i)))
			die("a constant name changed", rv_metricset_constant(a, i));
	for (size_t i = 0; i < rv_metricset_ninputs(a); i++)
		if (strcmp(rv_metricset_input(a, i), rv_metricset_input(b, i)))
			die("an input changed", rv_metricset_input(a, i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rv_metricset *m = (struct rv_metricset *)&m, *back = NULL;
	struct rv_err err = { 0 };
	char *t1 = NULL, *t2 = NULL;
	size_t n1, n2;
	int rc = rv_metricset_parse((const char *)data, size, "fuzz.yaml", &m, &err);

	if (rc) {
		check_refusal(rc, &err, m);
		return 0;
	}
	check_set(m);
	n1 = write_set(m, &t1);
	if (rv_metricset_parse(t1, n1, "written.yaml", &back, &err) != 0)
		die("written set refused", err.msg);
	same_lists(m, back);
	n2 = write_set(back, &t2);
	if (n1 != n2 || memcmp(t1, t2, n1) != 0)
		die("writing is not a fixed point", t2);
	rv_metricset_free(back);
	rv_metricset_free(m);
	free(t1);
	free(t2);
	return 0;
}
