/*
 * report_md.c - the markdown format of report.h (GitHub-flavoured: tables,
 * code spans for names and commands, fenced blocks for commands of several
 * lines), for tickets and post-mortems.
 *
 * Free text is escaped so that it shows as written: markdown punctuation
 * gets a backslash, & < > become entities, line breaks become spaces (a
 * table row or list item is one line), invalid UTF-8 becomes U+FFFD. In a
 * table cell '|' is escaped even inside a code span, as GFM splits cells
 * before it reads spans. The phases of a cascade link to each other
 * through an HTML anchor before the heading of each linked incident
 * (GitHub's own heading ids depend on the severity and subsystem).
 */
#include "explain/report_int.h"

#include <inttypes.h>
#include <string.h>

#include "explain/kb.h"

enum { ASCII_DEL = 0x7f };
static const char REPLACEMENT[] = "\xEF\xBF\xBD";
static const char MD_PUNCT[] = "\\`*_[]#!~|";

/* Writes the code point at p as markdown text (in_code: inside a span or
 * block, no backslashes) and returns the bytes it took. */
static size_t md_cp(FILE *f, const char *p, int in_code, int in_table)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t len = rv_utf8_len(u);
	if (len == 0) {
		fputs(REPLACEMENT, f);
		return 1;
	}
	if (len > 1) {
		fwrite(p, 1, len, f);
		return len;
	}
	char c = *p;
	if (u[0] < ' ' || u[0] == ASCII_DEL)
		fputc(' ', f);
	else if (c == '|' && in_table)
		fputs("\\|", f);
	else if (in_code)
		fputc(c, f);
	else if (c == '&' || c == '<' || c == '>')
		fputs(c == '&' ? "&amp;" : c == '<' ? "&lt;" : "&gt;", f);
	else if (strchr(MD_PUNCT, c))
		fprintf(f, "\\%c", c);
	else
		fputc(c, f);
	return 1;
}

static void md_text(FILE *f, const char *s, int in_table)
{
	for (s = rv_report_str(s); *s;)
		s += md_cp(f, s, 0, in_table);
}

/* `s` with a fence longer than any backtick run inside it. */
static void md_code(FILE *f, const char *s, int in_table)
{
	size_t run = 0, longest = 0;
	s = rv_report_str(s);
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	size_t len = strlen(s);
	int space = len && (s[0] == '`' || s[len - 1] == '`' || s[0] == ' ');
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
	if (space || len == 0)
		fputc(' ', f);
	for (const char *p = s; *p;)
		p += md_cp(f, p, 1, in_table);
	if (space)
		fputc(' ', f);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', f);
}

static void fence_line(FILE *f, const char *indent, size_t fence, const char *info)
{
	fputs(indent, f);
	for (size_t i = 0; i < fence; i++)
		fputc('`', f);
	fprintf(f, "%s\n", info);
}

static void md_block(FILE *f, const char *cmd, const char *indent)
{
	size_t fence = 3, run = 0;
	for (const char *p = cmd; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		fence = run >= fence ? run + 1 : fence;
	}
	fence_line(f, indent, fence, "sh");
	fputs(indent, f);
	for (const char *p = cmd; *p;) {
		if (*p == '\n') {
			fprintf(f, "\n%s", indent);
			p++;
		} else {
			p += md_cp(f, p, 1, 0);
		}
	}
	fputc('\n', f);
	fence_line(f, indent, fence, "");
}

static void md_header(FILE *f, const struct rv_report *r, size_t n)
{
	char gen[RV_REPORT_CELL];
	rv_report_iso(r->generated_ts, gen, sizeof(gen));
	fputs("# ", f);
	md_text(f, *rv_report_str(r->title) ? r->title : "reveal incident report", 0);
	fputs("\n\n- **Source:** ", f);
	md_text(f, *rv_report_str(r->source) ? r->source : "n/a", 0);
	if (*rv_report_str(r->filters)) {
		fputs("\n- **Filters:** ", f);
		md_text(f, r->filters, 0);
	}
	fprintf(f, "\n- **Generated:** %s, knowledge base of %zu rules\n\n", gen, r->nrules);
	if (n == 0)
		fputs("no incidents\n", f);
	else
		fprintf(f, "%zu incident%s\n", n, n == 1 ? "" : "s");
}

static const char *first_subsys(const struct rv_report_incident *in)
{
	return in->nsubsys && in->subsys ? rv_report_str(in->subsys[0].name) : "";
}

/* The overview: one table row per incident (all of summary mode). */
static void md_overview(FILE *f, const struct rv_report *r, size_t n)
{
	fputs("| incident | severity | subsystem | start (UTC) | duration | top signal | change | "
	      "likely cause |\n|---:|:---|:---|:---|---:|:---|---:|:---|\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct rv_report_incident *in = &r->incidents[i];
		char a[RV_REPORT_CELL], d[RV_REPORT_CELL], conf[RV_REPORT_CELL];
		struct rv_report_cells c = { .change = "" };
		rv_report_iso(in->start_ts, a, sizeof(a));
		rv_report_duration(in->end_ts - in->start_ts, d, sizeof(d));
		int sig = in->nsignals && in->signals, cause = in->ncauses && in->causes;
		if (sig)
			rv_report_signal_cells(in, &in->signals[0], &c);
		fprintf(f, "| %" PRIu64 "%s | ", in->id, in->open ? " (open)" : "");
		md_text(f, in->severity, 1);
		fputs(" | ", f);
		md_text(f, first_subsys(in), 1);
		fprintf(f, " | %s | %s | ", a, d);
		if (sig)
			md_code(f, in->signals[0].name, 1);
		fprintf(f, " | %s | ", c.change);
		if (cause) {
			rv_report_share(in->causes[0].confidence, conf, sizeof(conf));
			md_text(f, in->causes[0].title, 1);
			fprintf(f, " (%s)", *conf ? conf : "?");
		} else {
			fputs(RV_KB_NO_MATCH, f);
		}
		fputs(" |\n", f);
	}
}

static void md_list(FILE *f, const char *label, const struct rv_report_incident *in, int subsys)
{
	size_t n = subsys ? (in->subsys ? in->nsubsys : 0) : (in->detectors ? in->ndetectors : 0);
	fprintf(f, "- **%s:** ", label);
	for (size_t i = 0; i < n; i++) {
		char share[RV_REPORT_CELL] = "";
		fputs(i ? ", " : "", f);
		md_text(f, subsys ? in->subsys[i].name : in->detectors[i], 0);
		if (subsys)
			rv_report_share(in->subsys[i].share, share, sizeof(share));
		fprintf(f, "%s%s", *share ? " " : "", share);
	}
	fputs(n ? "\n" : "none recorded\n", f);
}

static void md_head(FILE *f, const struct rv_report_incident *in)
{
	char a[RV_REPORT_CELL], b[RV_REPORT_CELL], d[RV_REPORT_CELL];
	rv_report_iso(in->start_ts, a, sizeof(a));
	rv_report_iso(in->end_ts, b, sizeof(b));
	rv_report_duration(in->end_ts - in->start_ts, d, sizeof(d));
	if (rv_report_linked(in))  /* the target of the other phases' links */
		fprintf(f, "\n<a id=\"incident-%" PRIu64 "\"></a>\n", in->id);
	fprintf(f, "\n## Incident %" PRIu64 ": ", in->id);
	md_text(f, *rv_report_str(in->severity) ? in->severity : "unrated", 0);
	if (*first_subsys(in)) {
		fputs(", ", f);
		md_text(f, first_subsys(in), 0);
	}
	fprintf(f, "%s\n\n- **Time (UTC):** %s to %s (%s)\n", in->open ? " (still open)" : "", a, b,
		d);
	if (*rv_report_str(in->host)) {
		fputs("- **Host:** ", f);
		md_text(f, in->host, 0);
		fputc('\n', f);
	}
	fprintf(f, "- **Flagged windows:** %zu, score peak %.3g, mean %.3g\n", in->windows,
		in->peak_score, in->mean_score);
	md_list(f, "Detectors", in, 0);
	md_list(f, "Subsystems", in, 1);
}

static void md_signals(FILE *f, const struct rv_report_incident *in)
{
	if (!in->signals || in->nsignals == 0) {
		fputs("\n### Signals\n\nnone recorded\n", f);
		return;
	}
	fputs("\n### Signals\n\n| signal | share | baseline | incident | peak | change | z | "
	      "onset |\n|:---|---:|---:|---:|---:|---:|---:|---:|\n", f);
	for (size_t i = 0; i < in->nsignals; i++) {
		struct rv_report_cells c;
		rv_report_signal_cells(in, &in->signals[i], &c);
		fputs("| ", f);
		md_code(f, in->signals[i].name, 1);
		const char *v[] = { c.share, c.baseline, c.value, c.peak, c.change, c.z, c.onset };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			fputs(" | ", f);
			md_text(f, v[k], 1);
		}
		fputs(" |\n", f);
	}
}

static void md_checks(FILE *f, const struct rv_report_cause *c)
{
	fputs("\n   Checks:\n\n", f);
	for (size_t k = 0; k < c->nchecks; k++) {
		const char *cmd = rv_report_str(c->checks[k].cmd), *why = rv_report_str(c->checks[k].why);
		fprintf(f, "   %zu. ", k + 1);
		if (strchr(cmd, '\n')) {
			md_text(f, *why ? why : "run:", 0);
			fputc('\n', f);
			md_block(f, cmd, "      ");
			continue;
		}
		md_code(f, cmd, 0);
		if (*why) {
			fputs(": ", f);
			md_text(f, why, 0);
		}
		fputc('\n', f);
	}
}

static void md_cause(FILE *f, size_t i, const struct rv_report_cause *c)
{
	char conf[RV_REPORT_CELL];
	rv_report_share(c->confidence, conf, sizeof(conf));
	fprintf(f, "%zu. **", i + 1);
	md_text(f, c->title, 0);
	fputs("** (", f);
	md_code(f, c->id, 0);
	fputs(", ", f);
	md_text(f, c->subsystem, 0);
	fprintf(f, "): confidence %s%s\n", *conf ? conf : "?",
		c->onset ? ", decided at the onset" : "");
	if (c->onset_only)
		fputs("\n   " RV_REPORT_ONSET_ONLY "\n", f);
	if (*rv_report_str(c->cause)) {
		fputs("\n   ", f);
		md_text(f, c->cause, 0);
		fputc('\n', f);
	}
	if (c->measured)
		fprintf(f, "\n   **Calibrated:** first in %u recorded live incidents, right in %u\n",
			c->measured_first, c->measured_right);
	if (*rv_report_str(c->undecided)) {
		fputs("\n   **Undecided between:** ", f);
		md_text(f, c->undecided, 0);
		fputs("\n\n   **What decides:** ", f);
		md_text(f, rv_report_str(c->decided_by), 0);
		fputc('\n', f);
	}
	if (c->evidence && c->nevidence) {
		fputs("\n   Evidence:\n\n", f);
		for (size_t k = 0; k < c->nevidence; k++) {
			fputs("   - ", f);
			md_text(f, c->evidence[k], 0);
			fputc('\n', f);
		}
	}
	if (c->checks && c->nchecks)
		md_checks(f, c);
	if (*rv_report_str(c->fix)) {
		fputs("\n   **Fix:** ", f);
		md_text(f, c->fix, 0);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void md_no_cause(FILE *f, const struct rv_report *r, const struct rv_report_incident *in)
{
	size_t n = in->signals ? in->nsignals : 0;
	char buf[RV_REPORT_CELL * 8];

	n = n < 3 ? n : 3;
	rv_report_no_cause_text(r, in, buf, sizeof(buf));
	md_text(f, buf, 0);
	if (n == 0)
		fputs("No signal stood out either: look at the detectors' scores and the host's "
		      "logs for the time range.\n", f);
	else
		fprintf(f, "Look first at the top signal%s:", n > 1 ? "s" : "");
	for (size_t i = 0; i < n; i++) {
		struct rv_report_cells c;
		rv_report_signal_cells(in, &in->signals[i], &c);
		fputs(i ? ", " : " ", f);
		md_code(f, in->signals[i].name, 0);
		fprintf(f, " %s (%s)", rv_report_dir_word(in->signals[i].dir), c.change);
	}
	fputs(n ? ".\n" : "", f);
	if (in->near && in->nnear) {
		fputs("\nClosest rules, and what they lacked:\n\n", f);
		for (size_t i = 0; i < in->nnear; i++) {
			rv_report_near_text(&in->near[i], buf, sizeof(buf));
			fputs("- ", f);
			md_text(f, buf, 0);
			fputc('\n', f);
		}
	}
}

/* Rules of other subsystems that fired too. */
static void md_notes(FILE *f, const struct rv_report_incident *in)
{
	char buf[RV_REPORT_CELL * 8];

	if (!in->notes || !in->nnotes)
		return;
	fputs("\nAlso seen (other subsystems' rules, not the cause of this incident):\n\n", f);
	for (size_t i = 0; i < in->nnotes; i++) {
		rv_report_note_text(&in->notes[i], buf, sizeof(buf));
		fputs("- ", f);
		md_text(f, buf, 0);
		fputc('\n', f);
	}
}

/* "incident 12", a link to its anchor when the report has it. */
static void md_ref(FILE *f, uint64_t id, int shown)
{
	if (shown)
		fprintf(f, "[incident %" PRIu64 "](#incident-%" PRIu64 ")", id, id);
	else
		fprintf(f, "incident %" PRIu64, id);
}

/* The phases of a cascade, one paragraph each, under the chain. */
static void md_phases(FILE *f, const struct rv_report_incident *in)
{
	if (in->follows) {
		const char *sub = rv_report_str(in->follows_subsystem);
		fprintf(f, "\nFollow-on phase %u of ", rv_report_phase(in));
		md_ref(f, in->follows, in->follows_shown);
		if (*sub) {
			fputs(" (", f);
			md_text(f, sub, 0);
			fputc(')', f);
		}
		fputs(".\n", f);
	}
	for (size_t i = 0; in->followers && i < in->nfollowers; i++) {
		const struct rv_report_link *l = &in->followers[i];
		char note[2 * RV_REPORT_CELL];
		rv_report_link_note(l, note, sizeof(note));
		fputs(i ? ", " : "\nFollowed by ", f);
		md_ref(f, l->id, l->shown);
		if (*note) {
			fputs(" (", f);
			md_text(f, note, 0);
			fputc(')', f);
		}
		fputs(i + 1 == in->nfollowers ? ".\n" : "", f);
	}
}

static void md_chain(FILE *f, const struct rv_report_incident *in)
{
	if (!in->chain || in->nchain < 2) {
		if (rv_report_linked(in)) {
			fputs("\n### Chain\n", f);
			md_phases(f, in);
		}
		return;
	}
	fputs("\n### Chain\n\nFirst mover of each subsystem, in time order: ", f);
	for (size_t i = 0; i < in->nchain; i++) {
		char off[RV_REPORT_CELL];
		rv_report_offset(in->chain[i].onset_ts, in->chain[0].onset_ts, off, sizeof(off));
		fputs(i ? " \xE2\x86\x92 " : "", f);  /* U+2192 rightwards arrow */
		md_code(f, in->chain[i].name, 0);
		fprintf(f, " %s%s%s%s", rv_report_dir_word(in->chain[i].dir), *off ? " (" : "", off,
			*off ? ")" : "");
	}
	fputc('\n', f);
	md_phases(f, in);
}

static void md_consumers(FILE *f, const struct rv_report_incident *in)
{
	if (!in->consumers || !in->nconsumers)
		return;
	fputs("\n### Whose workload\n\n", f);
	for (size_t i = 0; i < in->nconsumers; i++) {
		fputs("- ", f);
		md_text(f, in->consumers[i].text, 0);
		fputc('\n', f);
	}
}

static void md_incident(FILE *f, const struct rv_report *r, const struct rv_report_incident *in)
{
	md_head(f, in);
	md_signals(f, in);
	md_consumers(f, in);
	size_t n = in->causes ? in->ncauses : 0;
	fprintf(f, "\n### Likely cause%s\n\n", n == 1 ? "" : "s");
	if (n == 0)
		md_no_cause(f, r, in);
	for (size_t i = 0; i < n; i++)
		md_cause(f, i, &in->causes[i]);
	md_notes(f, in);
	md_chain(f, in);
	if (*rv_report_str(in->note)) {
		fputs("\n**Note:** ", f);
		md_text(f, in->note, 0);
		fputc('\n', f);
	}
}

void rv_report_markdown(FILE *f, const struct rv_report *r, int summary)
{
	size_t n = r->incidents ? r->nincidents : 0;
	if (summary) {
		if (n == 0)
			fputs("no incidents\n", f);
		else
			md_overview(f, r, n);
		return;
	}
	md_header(f, r, n);
	if (n > 0) {
		fputc('\n', f);
		md_overview(f, r, n);
	}
	for (size_t i = 0; i < n; i++)
		md_incident(f, r, &r->incidents[i]);
}
