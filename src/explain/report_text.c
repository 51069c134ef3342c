/*
 * report_text.c - the terminal format of report.h: plain text, at most
 * RV_REPORT_WIDTH columns, no colour, meant to be read during an outage.
 *
 * Every string from the caller goes through put_text or wrap: control
 * characters become spaces (a channel name must not be able to move the
 * cursor of the terminal that shows it) and invalid UTF-8 becomes U+FFFD.
 * Widths count code points. Paragraphs wrap at spaces (a line that fits
 * is written as it is); a word wider than the line is cut, so the width
 * limit holds for any input.
 */
#include "explain/report_int.h"

#include <inttypes.h>
#include <string.h>

#include "explain/kb.h"

enum {
	INDENT = 2,            /* signal rows, cause blocks */
	COL_GAP = 2,
	NCOLS = 7,             /* signal, share, baseline, incident, change, z, onset */
	MIN_NAME_COL = 12,     /* narrower than this: the list layout instead */
	SUMMARY_MAX = 1024,    /* bytes of a summary line before cutting to the width */
	ASCII_DEL = 0x7f,
};
static const char RULE_CHAR = '=';
static const char REPLACEMENT[] = "\xEF\xBF\xBD";  /* U+FFFD */
static const char ELLIPSIS[] = "...";

/* Writes the code point at p (sanitised) and returns the bytes it took. */
static size_t put_cp(FILE *f, const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t len = rv_utf8_len(u);
	if (len == 0) {
		fputs(REPLACEMENT, f);
		return 1;
	}
	if (len == 1 && (u[0] < ' ' || u[0] == ASCII_DEL))
		fputc(' ', f);
	else
		fwrite(p, 1, len, f);
	return len;
}

/* Writes at most maxw columns of s; returns the bytes written. */
static size_t put_cols(FILE *f, const char *s, size_t maxw)
{
	size_t off = 0;
	for (size_t w = 0; s[off] && w < maxw; w++)
		off += put_cp(f, s + off);
	return off;
}

static void put_text(FILE *f, const char *s)
{
	s = rv_report_str(s);
	put_cols(f, s, SIZE_MAX);
}

static void pad(FILE *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc(' ', f);
}

/* s padded to width w, left or right aligned. */
static void put_cell(FILE *f, const char *s, size_t w, int right)
{
	size_t sw = rv_report_width(s);
	if (right)
		pad(f, w > sw ? w - sw : 0);
	put_text(f, s);
	if (!right)
		pad(f, w > sw ? w - sw : 0);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The width of the next word of p and its length in bytes. */
static size_t word_at(const char *p, size_t *bytes)
{
	size_t off = 0, w = 0;
	while (p[off] && !is_space(p[off])) {
		size_t len = rv_utf8_len((const unsigned char *)p + off);
		off += len ? len : 1;
		w++;
	}
	*bytes = off;
	return w;
}

/*
 * text as a paragraph: `first` before the first line (its width counts),
 * `indent` before the others, words kept whole unless wider than a line.
 */
static void wrap(FILE *f, const char *first, const char *indent, const char *text)
{
	size_t ind = strlen(indent), col = rv_report_width(first);
	const char *p = rv_report_str(text);
	int empty = 1;   /* nothing written on this line yet after the prefix */
	fputs(first, f);
	if (col + rv_report_width(p) <= RV_REPORT_WIDTH && !strchr(p, '\n')) {
		put_text(f, p);  /* fits: its spacing kept */
		fputc('\n', f);
		return;
	}
	while (*p) {
		while (is_space(*p))
			p++;
		size_t bytes, w = word_at(p, &bytes);
		if (bytes == 0)
			break;
		if (!empty && col + 1 + w > RV_REPORT_WIDTH) {
			fprintf(f, "\n%s", indent);
			col = ind;
			empty = 1;
		}
		if (!empty) {
			fputc(' ', f);
			col++;
		}
		while (col + w > RV_REPORT_WIDTH && col < RV_REPORT_WIDTH) {
			size_t room = RV_REPORT_WIDTH - col, used = put_cols(f, p, room);
			p += used;
			bytes -= used;
			w -= room;
			fprintf(f, "\n%s", indent);
			col = ind;
		}
		put_cols(f, p, w);
		p += bytes;
		col += w;
		empty = 0;
	}
	fputc('\n', f);
}

static void rule(FILE *f)
{
	for (int i = 0; i < RV_REPORT_WIDTH; i++)
		fputc(RULE_CHAR, f);
	fputc('\n', f);
}

static void header(FILE *f, const struct rv_report *r, size_t n)
{
	char gen[RV_REPORT_CELL];
	rv_report_iso(r->generated_ts, gen, sizeof(gen));
	wrap(f, "", "", *rv_report_str(r->title) ? r->title : "reveal incident report");
	wrap(f, "Source:    ", "           ", *rv_report_str(r->source) ? r->source : "n/a");
	if (*rv_report_str(r->filters))
		wrap(f, "Filters:   ", "           ", r->filters);
	fprintf(f, "Generated: %s, knowledge base of %zu rules\n", gen, r->nrules);
	if (n == 0)
		fputs("\nno incidents\n", f);
	else
		fprintf(f, "\n%zu incident%s\n", n, n == 1 ? "" : "s");
}

static void incident_head(FILE *f, const struct rv_report_incident *in)
{
	char a[RV_REPORT_CELL], b[RV_REPORT_CELL], d[RV_REPORT_CELL], line[SUMMARY_MAX];
	rv_report_iso(in->start_ts, a, sizeof(a));
	rv_report_iso(in->end_ts, b, sizeof(b));
	rv_report_duration(in->end_ts - in->start_ts, d, sizeof(d));
	const char *sub = in->nsubsys && in->subsys ? rv_report_str(in->subsys[0].name) : "";
	char sev[RV_REPORT_CELL];
	snprintf(sev, sizeof(sev), "%s", *rv_report_str(in->severity) ? in->severity : "unrated");
	for (char *p = sev; *p; p++)
		*p = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
	rule(f);
	snprintf(line, sizeof(line), "INCIDENT %" PRIu64 "  %s  %s%s%s .. %s  (%s%s)", in->id, sev,
		 sub, *sub ? "  " : "", a, b, d, in->open ? ", still open" : "");
	wrap(f, "", "", line);
	const char *host = rv_report_str(in->host);
	snprintf(line, sizeof(line), "%s%s%s%zu flagged window%s, score peak %.3g, mean %.3g",
		 *host ? "Host " : "", host, *host ? ", " : "", in->windows,
		 in->windows == 1 ? "" : "s", in->peak_score, in->mean_score);
	wrap(f, "", "", line);
}

/* "a, b, c" from names or name+share pairs, wrapped after `label`. */
static void list_line(FILE *f, const char *label, const struct rv_report_incident *in, int subsys)
{
	char buf[SUMMARY_MAX], share[RV_REPORT_CELL];
	size_t n = subsys ? in->nsubsys : in->ndetectors, off = 0;
	if ((subsys && !in->subsys) || (!subsys && !in->detectors))
		n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && off < sizeof(buf); i++) {
		const char *name = rv_report_str(subsys ? in->subsys[i].name : in->detectors[i]);
		share[0] = '\0';
		if (subsys)
			rv_report_share(in->subsys[i].share, share, sizeof(share));
		int k = snprintf(buf + off, sizeof(buf) - off, "%s%s%s%s", i ? ", " : "", name,
				 *share ? " " : "", share);
		off += k > 0 ? (size_t)k : 0;
	}
	wrap(f, label, "            ", n ? buf : "none recorded");
}

struct table {
	size_t w[NCOLS];
};

static const char *const col_head[NCOLS] = { "signal", "share", "baseline", "incident",
					     "change", "z", "onset" };

static const char *cell(const struct rv_report_signal *s, const struct rv_report_cells *c,
			int col)
{
	const char *v[NCOLS] = { rv_report_str(s->name), c->share, c->baseline, c->value,
				 c->change, c->z, c->onset };
	return v[col];
}

/* Column widths; 0 when even a narrow name column does not fit (list layout). */
static int table_layout(const struct rv_report_incident *in, struct table *t)
{
	for (int k = 0; k < NCOLS; k++)
		t->w[k] = strlen(col_head[k]);
	for (size_t i = 0; i < in->nsignals; i++) {
		struct rv_report_cells c;
		rv_report_signal_cells(in, &in->signals[i], &c);
		for (int k = 0; k < NCOLS; k++) {
			size_t w = rv_report_width(cell(&in->signals[i], &c, k));
			t->w[k] = w > t->w[k] ? w : t->w[k];
		}
	}
	size_t rest = INDENT;
	for (int k = 1; k < NCOLS; k++)
		rest += COL_GAP + t->w[k];
	if (rest + MIN_NAME_COL > RV_REPORT_WIDTH)
		return 0;
	if (rest + t->w[0] > RV_REPORT_WIDTH)
		t->w[0] = RV_REPORT_WIDTH - rest;
	return 1;
}

static void table_row(FILE *f, const struct table *t, const char *const v[NCOLS])
{
	if (rv_report_width(v[0]) > t->w[0]) {  /* a long name gets a line of its own */
		wrap(f, "  ", "  ", v[0]);
		pad(f, INDENT + t->w[0]);
	} else {
		pad(f, INDENT);
		put_cell(f, v[0], t->w[0], 0);
	}
	int last = NCOLS - 1;
	while (last > 0 && !*v[last])  /* no trailing blanks for empty cells */
		last--;
	for (int k = 1; k <= last; k++) {
		pad(f, COL_GAP);
		put_cell(f, v[k], t->w[k], 1);
	}
	fputc('\n', f);
}

static void signals(FILE *f, const struct rv_report_incident *in)
{
	struct table t;
	if (in->nsignals == 0 || !in->signals) {
		fputs("\nSignals: none recorded\n", f);
		return;
	}
	int as_table = table_layout(in, &t);
	fputs("\nSignals (baseline before the incident, mean over the incident)\n", f);
	if (as_table)
		table_row(f, &t, col_head);
	for (size_t i = 0; i < in->nsignals; i++) {
		const struct rv_report_signal *s = &in->signals[i];
		struct rv_report_cells c;
		char line[SUMMARY_MAX];
		rv_report_signal_cells(in, s, &c);
		const char *v[NCOLS];
		for (int k = 0; k < NCOLS; k++)
			v[k] = cell(s, &c, k);
		if (as_table) {
			table_row(f, &t, v);
			continue;
		}
		snprintf(line, sizeof(line), "baseline %s, incident %s, change %s, z %s%s%s", c.baseline,
			 c.value, c.change, c.z, *c.onset ? ", onset " : "", c.onset);
		wrap(f, "  - ", "    ", v[0]);
		wrap(f, "    ", "    ", line);
	}
}

/* A command, one "$ " line per line of it (a long line wraps under itself). */
static void command(FILE *f, const char *first, const char *cmd)
{
	char line[SUMMARY_MAX], prefix[2 * RV_REPORT_CELL], indent[2 * RV_REPORT_CELL];
	cmd = rv_report_str(cmd);
	snprintf(prefix, sizeof(prefix), "%s$ ", first);
	snprintf(indent, sizeof(indent), "%*s", (int)strlen(prefix), "");
	do {
		size_t len = strcspn(cmd, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1),
			 cmd);
		wrap(f, prefix, indent, line);
		cmd += len + (cmd[len] == '\n');
		memset(prefix, ' ', strlen(first));
	} while (*cmd);
}

static void cause_block(FILE *f, size_t i, const struct rv_report_cause *c)
{
	char head[SUMMARY_MAX], conf[RV_REPORT_CELL];
	rv_report_share(c->confidence, conf, sizeof(conf));
	snprintf(head, sizeof(head), "%s [%s, %s], confidence %s%s", rv_report_str(c->title),
		 rv_report_str(c->id), rv_report_str(c->subsystem), *conf ? conf : "?",
		 c->onset ? ", decided at the onset" : "");
	snprintf(conf, sizeof(conf), "  %zu. ", i + 1);
	wrap(f, conf, "     ", head);
	if (c->onset_only)
		wrap(f, "     ", "     ", RV_REPORT_ONSET_ONLY);
	if (*rv_report_str(c->cause))
		wrap(f, "     Why: ", "          ", c->cause);
	if (c->measured) {
		snprintf(head, sizeof(head), "first in %u recorded live incidents, right in %u",
			 c->measured_first, c->measured_right);
		wrap(f, "     Calibrated: ", "          ", head);
	}
	if (*rv_report_str(c->undecided)) {
		wrap(f, "     Undecided between: ", "          ", c->undecided);
		wrap(f, "     What decides: ", "          ", rv_report_str(c->decided_by));
	}
	if (c->nevidence && c->evidence) {
		fputs("     Evidence:\n", f);
		for (size_t k = 0; k < c->nevidence; k++)
			wrap(f, "       - ", "         ", c->evidence[k]);
	}
	if (c->nchecks && c->checks) {
		fputs("     Checks:\n", f);
		for (size_t k = 0; k < c->nchecks; k++) {
			snprintf(conf, sizeof(conf), "       %zu) ", k + 1);
			command(f, conf, c->checks[k].cmd);
			if (*rv_report_str(c->checks[k].why))
				wrap(f, "            ", "            ", c->checks[k].why);
		}
	}
	if (*rv_report_str(c->fix))
		wrap(f, "     Fix: ", "          ", c->fix);
}

/* No rule of the subsystem matched: the ones that came closest, and what
 * each lacked. */
static void near_rules(FILE *f, const struct rv_report_incident *in)
{
	char buf[SUMMARY_MAX];

	if (!in->near || !in->nnear)
		return;
	fputs("  Closest rules, and what they lacked:\n", f);
	for (size_t i = 0; i < in->nnear; i++) {
		rv_report_near_text(&in->near[i], buf, sizeof(buf));
		wrap(f, "    - ", "      ", buf);
	}
}

/* No rule matched: say so, and point at the signals that moved most. */
static void no_cause(FILE *f, const struct rv_report *r, const struct rv_report_incident *in)
{
	char buf[SUMMARY_MAX];
	size_t off = rv_report_no_cause_text(r, in, buf, sizeof(buf));
	size_t n = in->signals ? in->nsignals : 0;
	n = n < 3 ? n : 3;
	if (n == 0)
		snprintf(buf + off, sizeof(buf) - off, "No signal stood out either: look at the "
			 "detectors' scores and the host's logs for the time range.");
	else
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "Look first at the top "
					"signal%s:", n > 1 ? "s" : "");
	for (size_t i = 0; i < n && off < sizeof(buf); i++) {
		struct rv_report_cells c;
		rv_report_signal_cells(in, &in->signals[i], &c);
		int k = snprintf(buf + off, sizeof(buf) - off, "%s %s %s (%s)", i ? "," : "",
				 rv_report_str(in->signals[i].name),
				 rv_report_dir_word(in->signals[i].dir), c.change);
		off += k > 0 ? (size_t)k : 0;
	}
	if (n && off + 1 < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, ".");
	wrap(f, "  ", "  ", buf);
	near_rules(f, in);
}

/* Rules of other subsystems that fired too. */
static void notes(FILE *f, const struct rv_report_incident *in)
{
	char buf[SUMMARY_MAX];

	if (!in->notes || !in->nnotes)
		return;
	fputs("  Also seen (other subsystems' rules, not the cause of this incident):\n", f);
	for (size_t i = 0; i < in->nnotes; i++) {
		rv_report_note_text(&in->notes[i], buf, sizeof(buf));
		wrap(f, "    - ", "      ", buf);
	}
}

static void causes(FILE *f, const struct rv_report *r, const struct rv_report_incident *in)
{
	size_t n = in->causes ? in->ncauses : 0;
	fprintf(f, "\nLikely cause%s\n", n == 1 ? "" : "s");
	if (n == 0)
		no_cause(f, r, in);
	for (size_t i = 0; i < n; i++)
		cause_block(f, i, &in->causes[i]);
	notes(f, in);
}

/* "Follow-on phase 2 of incident 12 (cpu)." and "Followed by incident 13
 * (net, 4.0 s after it began)." under the chain. */
static void phases(FILE *f, const struct rv_report_incident *in)
{
	char buf[SUMMARY_MAX], note[2 * RV_REPORT_CELL];
	const char *sub = rv_report_str(in->follows_subsystem);
	size_t off = 0;
	if (in->follows) {
		snprintf(buf, sizeof(buf), "Follow-on phase %u of incident %" PRIu64 "%s%s%s.",
			 rv_report_phase(in), in->follows, *sub ? " (" : "", sub, *sub ? ")" : "");
		wrap(f, "  ", "  ", buf);
	}
	if (!in->followers || in->nfollowers == 0)
		return;
	for (size_t i = 0; i < in->nfollowers && off < sizeof(buf); i++) {
		rv_report_link_note(&in->followers[i], note, sizeof(note));
		int k = snprintf(buf + off, sizeof(buf) - off, "%sincident %" PRIu64 "%s%s%s",
				 i ? ", " : "Followed by ", in->followers[i].id, *note ? " (" : "",
				 note, *note ? ")" : "");
		off += k > 0 ? (size_t)k : 0;
	}
	if (off + 1 < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, ".");
	wrap(f, "  ", "  ", buf);
}

static void chain(FILE *f, const struct rv_report_incident *in)
{
	char buf[4 * SUMMARY_MAX], off_s[RV_REPORT_CELL];
	size_t off = 0;
	if (in->nchain < 2 || !in->chain) {
		if (rv_report_linked(in)) {
			fputs("\nChain\n", f);
			phases(f, in);
		}
		return;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < in->nchain && off < sizeof(buf); i++) {
		const struct rv_report_step *s = &in->chain[i];
		rv_report_offset(s->onset_ts, in->chain[0].onset_ts, off_s, sizeof(off_s));
		int k = snprintf(buf + off, sizeof(buf) - off, "%s%s %s%s%s%s", i ? " -> " : "",
				 rv_report_str(s->name), rv_report_dir_word(s->dir),
				 *off_s ? " (" : "", off_s, *off_s ? ")" : "");
		off += k > 0 ? (size_t)k : 0;
	}
	fputs("\nChain (first mover of each subsystem, in time order)\n", f);
	wrap(f, "  ", "  ", buf);
	phases(f, in);
}

static void consumers(FILE *f, const struct rv_report_incident *in)
{
	if (!in->consumers || !in->nconsumers)
		return;
	fputs("\nWhose workload:\n", f);
	for (size_t i = 0; i < in->nconsumers; i++)
		wrap(f, "  - ", "    ", in->consumers[i].text);
}

static void incident(FILE *f, const struct rv_report *r, const struct rv_report_incident *in)
{
	fputc('\n', f);
	incident_head(f, in);
	list_line(f, "Detectors:  ", in, 0);
	list_line(f, "Subsystems: ", in, 1);
	signals(f, in);
	consumers(f, in);
	causes(f, r, in);
	chain(f, in);
	if (*rv_report_str(in->note)) {
		fputc('\n', f);
		wrap(f, "Note: ", "      ", in->note);
	}
}

/* One line, cut to the width: id, severity, subsystem, start, duration,
 * the first cause, the top signal and its change. */
static void summary_line(FILE *f, const struct rv_report_incident *in)
{
	char line[SUMMARY_MAX], a[RV_REPORT_CELL], d[RV_REPORT_CELL], conf[RV_REPORT_CELL];
	struct rv_report_cells c = { .change = "" };
	rv_report_iso(in->start_ts, a, sizeof(a));
	rv_report_duration(in->end_ts - in->start_ts, d, sizeof(d));
	int have_sig = in->nsignals && in->signals, have_cause = in->ncauses && in->causes;
	if (have_sig)
		rv_report_signal_cells(in, &in->signals[0], &c);
	conf[0] = '\0';
	if (have_cause)
		rv_report_share(in->causes[0].confidence, conf, sizeof(conf));
	snprintf(line, sizeof(line), "#%" PRIu64 " %s %s %s %s%s  %s%s%s%s  top %s %s", in->id,
		 rv_report_str(in->severity), in->nsubsys && in->subsys ?
		 rv_report_str(in->subsys[0].name) : "-", a, d, in->open ? " (open)" : "",
		 have_cause ? rv_report_str(in->causes[0].title) : RV_KB_NO_MATCH,
		 have_cause ? " (" : "", conf, have_cause ? ")" : "",
		 have_sig ? rv_report_str(in->signals[0].name) : "none", c.change);
	if (rv_report_width(line) > RV_REPORT_WIDTH) {
		put_cols(f, line, RV_REPORT_WIDTH - strlen(ELLIPSIS));
		fputs(ELLIPSIS, f);
	} else {
		put_text(f, line);
	}
	fputc('\n', f);
}

void rv_report_text(FILE *f, const struct rv_report *r, int summary)
{
	size_t n = r->incidents ? r->nincidents : 0;
	if (summary) {
		if (n == 0)
			fputs("no incidents\n", f);
		for (size_t i = 0; i < n; i++)
			summary_line(f, &r->incidents[i]);
		return;
	}
	header(f, r, n);
	for (size_t i = 0; i < n; i++)
		incident(f, r, &r->incidents[i]);
}
