/*
 * report_text.c - the terminal format of a fleet report (report_int.h):
 * plain text, at most RV_FLEET_REP_WIDTH columns, no colour.
 *
 * Names come from the storage and are not trusted: a control character
 * becomes a space (a node name must not move the cursor of the terminal
 * that shows it) and invalid UTF-8 becomes U+FFFD. Sentences and lists
 * are built in one reused buffer and wrapped at spaces, a word wider than
 * the line is cut; in tables a name wider than its column is cut with
 * "..." (the JSON has it whole).
 */
#include "fleet/report_int.h"

#include <errno.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"

enum {
	INDENT = 2,
	HEAD_COL = 12,         /* "Grouped by: " */
	NAME_COL_MAX = 40,     /* widest channel column of a signal table */
	NAME_COL_MIN = 6,      /* "signal" */
	NUM_COL = 10,          /* node, peers */
	DIFF_COL = 12,
	Z_COL = 7,
	SPAN_COL = 44,         /* "2026-03-01 15:03:10–2026-03-02 01:00:00 UTC" */
	LEN_COL = 10,
};
static const char CUT[] = "...";
/* Holds the words of a quantity together in a sentence's buffer ("1.2 k",
 * "40 s"): wrap() does not break there and writes a space (a control
 * character from a name is a space anyway). */
static const char GLUE = '\x01';

/* s made safe for a terminal (rv_fleet_rep_cp), at most cols code points
 * of it; returns the bytes of s used. */
static size_t put_upto(FILE *f, const char *s, size_t cols)
{
	const char *p = s, *show;
	size_t n;
	for (size_t c = 0; *p && c < cols; c++) {
		p += rv_fleet_rep_cp(p, &show, &n);
		fwrite(show, 1, n, f);
	}
	return (size_t)(p - s);
}

static size_t cols_of(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)rv_fleet_rep_str(s); *p; n++) {
		size_t len = rv_utf8_len(p);
		p += len ? len : 1;
	}
	return n;
}

static void spaces(FILE *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc(' ', f);
}

/* s in a column of w, cut with "..." when wider; right: aligned right. */
static void cell(FILE *f, const char *s, size_t w, int right)
{
	size_t c = cols_of(s);
	s = rv_fleet_rep_str(s);
	if (c > w) {
		put_upto(f, s, w - strlen(CUT));
		fputs(CUT, f);
		return;
	}
	if (right)
		spaces(f, w - c);
	put_upto(f, s, c);
	if (!right)
		spaces(f, w - c);
}

/* Columns of the word at p and its bytes. */
static size_t word(const char *p, size_t *bytes)
{
	size_t off = 0, c = 0;
	while (p[off] && p[off] != ' ') {
		size_t len = rv_utf8_len((const unsigned char *)p + off);
		off += len ? len : 1;
		c++;
	}
	*bytes = off;
	return c;
}

/* text wrapped at spaces: `first` before the first line, `indent` spaces
 * before the others. */
static void wrap(FILE *f, const char *first, size_t indent, const char *text)
{
	size_t col = cols_of(first), at_start = 1;
	fputs(first, f);
	for (const char *p = rv_fleet_rep_str(text); *p;) {
		while (*p == ' ')
			p++;
		size_t bytes, w = word(p, &bytes);
		if (bytes == 0)
			break;
		if (!at_start && col + 1 + w > RV_FLEET_REP_WIDTH) {
			fputc('\n', f);
			spaces(f, indent);
			col = indent;
			at_start = 1;
		}
		if (!at_start) {
			fputc(' ', f);
			col++;
		}
		while (col + w > RV_FLEET_REP_WIDTH) {  /* wider than a line: cut */
			size_t room = RV_FLEET_REP_WIDTH - col, used = put_upto(f, p, room);
			p += used;
			bytes -= used;
			w -= room;
			fputc('\n', f);
			spaces(f, indent);
			col = indent;
		}
		p += put_upto(f, p, w);
		col += w;
		at_start = 0;
	}
	fputc('\n', f);
}

/* The sentence being built: one buffer, reset per sentence. */
struct line {
	FILE *f;
	struct rv_buf b;
	int failed;         /* -ENOMEM once a sentence did not fit */
	struct rv_fleet_rep_sink k;
};

static void buf_add(void *ctx, const char *s)
{
	struct line *l = ctx;
	rv_buf_puts(&l->b, s);
}

static void buf_glued(void *ctx, const char *s)
{
	struct line *l = ctx;
	for (; *s; s++)
		rv_buf_put(&l->b, *s == ' ' ? &GLUE : s, 1);
}

/* Writes the sentence wrapped and starts the next one. */
static void line_flush(struct line *l, const char *first, size_t indent)
{
	if (rv_buf_failed(&l->b))
		l->failed = -ENOMEM;
	else
		wrap(l->f, first, indent, rv_buf_text(&l->b, NULL));
	rv_buf_reset(&l->b);
}

static void item_end(void *ctx, const char *anchor)
{
	(void)anchor;
	line_flush(ctx, "  - ", 2 * INDENT);
}

static void line_init(struct line *l, FILE *f)
{
	l->f = f;
	l->failed = 0;
	rv_buf_init(&l->b, 0);
	l->k = (struct rv_fleet_rep_sink){ .text = buf_add, .name = buf_add, .unit = buf_glued,
					   .end = item_end, .ctx = l };
}

/* "Label:      value", the value wrapped under itself. */
static void head_row(void *ctx, const char *label, const char *value, int name)
{
	struct line *l = ctx;
	char first[RV_FLEET_REP_CELL], colon[RV_FLEET_REP_CELL];
	(void)name;
	snprintf(colon, sizeof(colon), "%s:", label);
	snprintf(first, sizeof(first), "%-*s", HEAD_COL, colon);
	rv_buf_puts(&l->b, value);
	line_flush(l, first, HEAD_COL);
}

/* The header, then the verdict. */
static void top(struct line *l, const struct rv_fleet_result *r)
{
	fputs("reveal fleet report\n", l->f);
	rv_fleet_rep_head(r, head_row, l);
	rv_fleet_rep_say_head(r, &l->k);
	fputc('\n', l->f);
	line_flush(l, "VERDICT: ", INDENT);
	rv_fleet_rep_say_list(r, &l->k);
}

static size_t name_col(const struct rv_fleet_straggler *s)
{
	size_t w = NAME_COL_MIN;
	for (size_t i = 0; i < s->nsig; i++) {
		size_t c = cols_of(s->sig[i].channel);
		w = c > w ? c : w;
	}
	return w < NAME_COL_MAX ? w : NAME_COL_MAX;
}

/* One row of the signal table: the channel, then the number columns. */
static void signal_row(FILE *f, size_t w, const char *ch, const struct rv_fleet_rep_cells *c)
{
	spaces(f, INDENT);
	cell(f, ch, w, 0);
	fprintf(f, "  %*s  %*s  %*s  %*s\n", NUM_COL, c->value, NUM_COL, c->median, DIFF_COL,
		c->diff, Z_COL, c->z);
}

static void stretch_rows(FILE *f, const struct rv_fleet_result *r,
			 const struct rv_fleet_straggler *s)
{
	fprintf(f, "  %-*s  %*s  %*s\n", SPAN_COL, "out of step", LEN_COL, "length", Z_COL, "peak");
	for (size_t i = 0; i < s->nstretch; i++) {
		char span[2 * RV_FLEET_REP_CELL], d[RV_FLEET_REP_CELL], pk[RV_FLEET_REP_CELL];
		rv_fleet_rep_span(r, &s->stretch[i], span, sizeof(span));
		rv_fleet_rep_duration(rv_fleet_rep_stretch_s(r, &s->stretch[i]), d, sizeof(d));
		rv_fleet_rep_score(s->stretch[i].peak, pk, sizeof(pk));
		spaces(f, INDENT);
		cell(f, span, SPAN_COL, 0);
		fprintf(f, "  %*s  %*s\n", LEN_COL, d, Z_COL, pk);
	}
}

static void straggler(void *ctx, const struct rv_fleet_result *r, size_t i)
{
	struct line *l = ctx;
	const struct rv_fleet_straggler *s = &r->strag[i];
	size_t n = s->stretch ? s->nstretch : 0;
	char pk[RV_FLEET_REP_CELL];
	rv_fleet_rep_score(s->peak, pk, sizeof(pk));
	rv_buf_printf(&l->b, "%s in group %s: peak score %s, %zu stretch%s out of step",
		      rv_fleet_rep_str(s->node), rv_fleet_rep_group(s->group), pk, n,
		      n == 1 ? "" : "es");
	fputc('\n', l->f);
	line_flush(l, "", INDENT);
	if (n)
		stretch_rows(l->f, r, s);
	if (!s->sig || !s->nsig)
		return;
	size_t w = name_col(s);
	struct rv_fleet_rep_cells head = { "node", "peers", "difference", "z" }, c;
	signal_row(l->f, w, "signal", &head);
	for (size_t k = 0; k < s->nsig; k++) {
		rv_fleet_rep_signal_cells(&s->sig[k], &c);
		signal_row(l->f, w, s->sig[k].channel, &c);
	}
}

/* The odd values (every value of a split) as lines "value: node-1, node-2". */
static void split_value(void *ctx, const char *v)
{
	struct line *l = ctx;
	rv_buf_printf(&l->b, "%s:", rv_fleet_rep_value(v));
}

static void split_node(void *ctx, const char *name, size_t k)
{
	struct line *l = ctx;
	rv_buf_printf(&l->b, "%s %s", k ? "," : "", name);
}

static void split_done(void *ctx)
{
	line_flush(ctx, "  ", 2 * INDENT);
}

static void drift(void *ctx, const struct rv_fleet_drift *d, const char *what, size_t i)
{
	struct line *l = ctx;
	(void)i;
	rv_buf_printf(&l->b, "%s in group %s: %s%s", rv_fleet_rep_str(d->key),
		      rv_fleet_rep_group(d->group),
		      d->majority ? rv_fleet_rep_value(d->majority) : "split, ", what);
	fputc('\n', l->f);
	line_flush(l, "", INDENT);
	rv_fleet_rep_each_value(d, &(const struct rv_fleet_rep_values){
		.value = split_value, .node = split_node, .done = split_done, .ctx = l });
}

static void group(void *ctx, const struct rv_fleet_result *r, size_t i)
{
	struct line *l = ctx;
	const struct rv_fleet_group *g = &r->group[i];
	rv_buf_printf(&l->b, "%s: %zu node%s, %zu flagged%s", rv_fleet_rep_group(g->name), g->nnodes,
		      g->nnodes == 1 ? "" : "s", g->nflagged,
		      rv_fleet_rep_small(g) ? ", too small to judge for stragglers" : "");
	line_flush(l, "", INDENT);
	for (size_t k = 0; g->node && k < g->nnodes; k++) {
		rv_buf_printf(&l->b, "%s%s%s", k ? ", " : "", rv_fleet_rep_str(g->node[k]),
			      rv_fleet_rep_flagged(r, g->name, g->node[k]) ? " (straggler)" : "");
	}
	if (g->node && g->nnodes)
		line_flush(l, "  ", INDENT);
}

static void heading(void *ctx, enum rv_fleet_rep_section sec)
{
	static const char *const names[] = {
		[RV_FLEET_REP_STRAGGLERS] = "\nSTRAGGLERS",  /* each straggler starts a line */
		[RV_FLEET_REP_DRIFT] = "\nCONFIGURATION DRIFT",
		[RV_FLEET_REP_GROUPS] = "\nGROUPS\n",
	};
	struct line *l = ctx;
	fputs(names[sec], l->f);
}

int rv_fleet_rep_text(FILE *f, const struct rv_fleet_result *r)
{
	struct line l;
	line_init(&l, f);
	top(&l, r);
	const struct rv_fleet_rep_parts parts = { .heading = heading, .strag = straggler,
						  .drift = drift, .group = group, .ctx = &l };
	rv_fleet_rep_sections(r, &parts);
	rv_buf_fini(&l.b);
	return l.failed;
}
