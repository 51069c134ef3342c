/*
 * fuzz_rules.c - libFuzzer target of the root-cause rule files
 * (explain/kb.h, docs/RULES.md): any input is loaded with rv_kb_load,
 * into an empty knowledge base or, for inputs of odd length, over the
 * built-in rules (so replacing and removing rules runs too). A refusal
 * must leave the knowledge base as it was and say "fuzz.yaml:..."; rules
 * that load are matched against a small evidence holding the awkward
 * cases (skew entries, a short baseline, infinite and NaN changes, a
 * bursty signal), and the matches must be well formed: at most the
 * number asked, confidences in 0..1 and ranked, evidence entries inside
 * the evidence. Bad input must be refused, never crash, leak or hang.
 * Seed: share/reveal/rules.yaml. Build and run: tests/fuzz/README.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/evidence.h"
#include "explain/kb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static struct rv_evidence_sig entry(const char *name, double z, double change)
{
	return (struct rv_evidence_sig){
		.name = name, .base_n = 60, .inc_n = 30, .base_mean = 10, .base_sd = 1,
		.value = 10 + z, .inc_sd = 1, .peak = 10 + z, .z = z, .change = change,
		.dir = fabs(z) >= RV_EV_MOVED_Z ? (z > 0 ? 1 : -1) : 0, .onset_ts = NAN,
	};
}

static int make_evidence(struct rv_evidence *ev)
{
	struct rv_evidence_sig s[] = {
		entry("net.tcp_retrans_segs", 40, 19), entry("cpu.softirq_pct", 5, 0.5),
		entry("cpu.softirq_pct:cpu0", 30, 3), entry("cpu.softirq_pct:cpu_skew", 25, 4),
		entry("gpu.util_pct:gpu0", -12, -0.6), entry("mem.numa_miss", 1e6, INFINITY),
		entry("cpu.ipc", -8, -0.4), entry("net.ib_port_xmit_data:mlx5_0_1", 0.2, 0.01),
		entry("short", 0, NAN), entry("empty", 0, NAN), entry("", 3, 0.3),
		entry("mem.mem_available_bytes", -1e9, -INFINITY),
	};

	s[3].skew = 1;
	s[7].inc_sd = 40;           /* bursty */
	s[8].base_n = 2;            /* too short a baseline */
	s[9].inc_n = 0;             /* no incident sample */
	s[9].value = NAN;
	return rv_evidence_from(s, NELEM(s), 0, 1, ev);
}

static void check_matches(const struct rv_kb *kb, const struct rv_evidence *ev)
{
	struct rv_kb_match out[RV_KB_MATCH_MAX];
	size_t n = rv_kb_match(kb, ev, 0, out, RV_KB_MATCH_MAX);

	if (n > RV_KB_MATCH_MAX || n > rv_kb_count(kb))
		abort();
	for (size_t i = 0; i < n; i++) {
		if (!(out[i].confidence >= 0 && out[i].confidence <= 1) ||
		    (i && out[i].confidence > out[i - 1].confidence) || !out[i].rule ||
		    out[i].nev > RV_KB_EVIDENCE_MAX)
			abort();
		for (size_t k = 0; k < out[i].nev; k++)
			if (out[i].ev[k].sig < ev->sig || out[i].ev[k].sig >= ev->sig + ev->n ||
			    !out[i].ev[k].what)
				abort();
	}
}

static void check_rules(const struct rv_kb *kb)
{
	for (size_t i = 0; i < rv_kb_count(kb); i++) {
		const struct rv_kb_rule *r = rv_kb_get(kb, i);

		if (!r || !rv_kb_rule_id(r)[0] || !rv_kb_rule_title(r) || !rv_kb_rule_cause(r) ||
		    !rv_kb_rule_fix(r) || !rv_kb_rule_subsystem(r))
			abort();
		for (size_t k = 0; k < rv_kb_rule_nchecks(r); k++)
			if (!rv_kb_rule_check(r, k) || !rv_kb_rule_check_why(r, k))
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rv_kb *kb = NULL;
	struct rv_err err = { 0 };
	struct rv_evidence ev = { 0 };
	size_t before;
	int rc;

	if (((size & 1) ? rv_kb_new_builtin(&kb, NULL) : rv_kb_new(&kb)) != 0)
		return 0;
	before = rv_kb_count(kb);
	rc = rv_kb_load(kb, "fuzz.yaml", (const char *)data, size, &err);
	if (rc != 0) {
		if (err.code != rc || strncmp(err.msg, "fuzz.yaml:", 10) != 0 ||
		    rv_kb_count(kb) != before) {
			fprintf(stderr, "bad refusal %d: %s\n", rc, err.msg);
			abort();
		}
	} else {
		check_rules(kb);
		if (make_evidence(&ev) == 0)
			check_matches(kb, &ev);
		rv_evidence_free(&ev);
	}
	rv_kb_free(kb);
	return 0;
}
