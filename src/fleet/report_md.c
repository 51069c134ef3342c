/*
 * report_md.c - the markdown format of a fleet report (report_int.h),
 * GitHub-flavoured, for a ticket or a post-mortem.
 *
 * Names from the storage are code spans, fenced by one backtick more than
 * their longest run of backticks, so that they show as they are; the
 * report's own words are text. In a table '|' is escaped even inside a
 * span (GFM splits the cells first). Control characters become spaces
 * (a row is one line), invalid UTF-8 becomes U+FFFD, and markdown's
 * punctuation in text gets a backslash, & < > " ' an entity.
 */
#include "fleet/report_int.h"

#include <string.h>

static const char PUNCT[] = "\\`*_[]{}()#+-.!~|";

/* s as markdown: in a code span (code) or as text; in a table cell '|'
 * is escaped either way. */
static void md_put(FILE *f, const char *s, int code, int table)
{
	const char *show;
	size_t n;
	for (const char *p = rv_fleet_rep_str(s); *p;) {
		p += rv_fleet_rep_cp(p, &show, &n);
		const char *ent = n == 1 && !code ? rv_fleet_rep_entity(*show) : NULL;
		if (n == 1 && *show == '|' && table)
			fputs("\\|", f);
		else if (ent)
			fputs(ent, f);
		else if (n == 1 && !code && strchr(PUNCT, *show))
			fprintf(f, "\\%c", *show);
		else
			fwrite(show, 1, n, f);
	}
}

static void backticks(FILE *f, size_t n)
{
	while (n--)
		fputc('`', f);
}

static void md_code(FILE *f, const char *s, int table)
{
	size_t run = 0, fence = 1;
	s = rv_fleet_rep_str(s);
	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		fence = run >= fence ? run + 1 : fence;
	}
	size_t n = strlen(s);
	const char *pad = n == 0 || s[0] == '`' || s[n - 1] == '`' || s[0] == ' ' ? " " : "";
	backticks(f, fence);
	fputs(pad, f);
	md_put(f, s, 1, table);
	fputs(pad, f);
	backticks(f, fence);
}

/* The report's own words need no escaping: they hold no markdown. */
static void sink_text(void *ctx, const char *s)
{
	fputs(s, ctx);
}

static void sink_name(void *ctx, const char *s)
{
	md_code(ctx, s, 0);
}

static void item_begin(void *ctx, const char *anchor)
{
	(void)anchor;
	fputs("- ", ctx);
}

static void item_end(void *ctx, const char *anchor)
{
	(void)anchor;
	fputs("\n", ctx);
}

static void head_row(void *ctx, const char *label, const char *value, int name)
{
	fprintf(ctx, "- **%s:** ", label);
	if (name)
		md_code(ctx, value, 0);
	else
		fputs(value, ctx);
	fputs("\n", ctx);
}

/* The header, then the verdict. */
static void top(FILE *f, const struct rv_fleet_result *r)
{
	const struct rv_fleet_rep_sink k = { .text = sink_text, .name = sink_name,
					     .begin = item_begin, .end = item_end, .ctx = f };
	fputs("# reveal fleet report\n\n", f);
	rv_fleet_rep_head(r, head_row, f);
	fputs("\n## Verdict: ", f);
	rv_fleet_rep_say_head(r, &k);
	fputs("\n\n", f);
	rv_fleet_rep_say_list(r, &k);
}

static void straggler(void *ctx, const struct rv_fleet_result *r, size_t i)
{
	FILE *f = ctx;
	const struct rv_fleet_straggler *s = &r->strag[i];
	size_t n = s->stretch ? s->nstretch : 0;
	char pk[RV_FLEET_REP_CELL];
	rv_fleet_rep_score(s->peak, pk, sizeof(pk));
	fputs("\n### ", f);
	md_code(f, s->node, 0);
	fputs(" in group ", f);
	md_code(f, rv_fleet_rep_group(s->group), 0);
	fprintf(f, "\n\nPeak score %s, %zu stretch%s out of step.\n", pk, n, n == 1 ? "" : "es");
	if (n)
		fputs("\n| out of step | length | peak |\n|---|---:|---:|\n", f);
	for (size_t k = 0; k < n; k++) {
		char span[2 * RV_FLEET_REP_CELL], d[RV_FLEET_REP_CELL];
		rv_fleet_rep_span(r, &s->stretch[k], span, sizeof(span));
		rv_fleet_rep_duration(rv_fleet_rep_stretch_s(r, &s->stretch[k]), d, sizeof(d));
		rv_fleet_rep_score(s->stretch[k].peak, pk, sizeof(pk));
		fprintf(f, "| %s | %s | %s |\n", span, d, pk);
	}
	if (s->sig && s->nsig)
		fputs("\n| signal | node | peers' median | difference | z |\n"
		      "|---|---:|---:|---:|---:|\n", f);
	for (size_t k = 0; s->sig && k < s->nsig; k++) {
		struct rv_fleet_rep_cells c;
		rv_fleet_rep_signal_cells(&s->sig[k], &c);
		fputs("| ", f);
		md_code(f, s->sig[k].channel, 1);
		fprintf(f, " | %s | %s | %s | %s |\n", c.value, c.median, c.diff, c.z);
	}
}

/* The value as a span, or the word absent. */
static void value_cell(FILE *f, const char *v)
{
	if (*rv_fleet_rep_str(v))
		md_code(f, v, 1);
	else
		fputs("absent", f);
}

/* The odd values (every value of a split) as rows "| value | nodes |". */
static void row_value(void *ctx, const char *v)
{
	fputs("| ", ctx);
	value_cell(ctx, v);
	fputs(" |", ctx);
}

static void row_node(void *ctx, const char *name, size_t k)
{
	fputs(k ? ", " : " ", ctx);
	md_code(ctx, name, 1);
}

static void row_end(void *ctx)
{
	fputs(" |\n", ctx);
}

static void drift(void *ctx, const struct rv_fleet_drift *d, const char *what, size_t i)
{
	FILE *f = ctx;
	(void)i;
	fputs("\n### ", f);
	md_code(f, d->key, 0);
	fputs(" in group ", f);
	md_code(f, rv_fleet_rep_group(d->group), 0);
	fputs("\n\n", f);
	if (d->majority)
		value_cell(f, d->majority);
	fprintf(f, "%s%s.\n", d->majority ? "" : "Split: ", what);
	if (!d->odd || !d->nodd)
		return;
	fprintf(f, "\n| %s | nodes |\n|---|---|\n", d->majority ? "odd value" : "value");
	rv_fleet_rep_each_value(d, &(const struct rv_fleet_rep_values){
		.value = row_value, .node = row_node, .done = row_end, .ctx = f });
}

static void group(void *ctx, const struct rv_fleet_result *r, size_t i)
{
	FILE *f = ctx;
	const struct rv_fleet_group *g = &r->group[i];
	fputs("| ", f);
	if (*rv_fleet_rep_str(g->name))
		md_code(f, g->name, 1);
	else
		md_put(f, rv_fleet_rep_group(g->name), 0, 1);
	fprintf(f, " | %zu | %zu%s |", g->nnodes, g->nflagged,
		rv_fleet_rep_small(g) ? " (too small to judge)" : "");
	for (size_t k = 0; g->node && k < g->nnodes; k++) {
		fputs(k ? ", " : " ", f);
		md_code(f, g->node[k], 1);
		if (rv_fleet_rep_flagged(r, g->name, g->node[k]))
			fputs(" **straggler**", f);
	}
	fputs(" |\n", f);
}

static void heading(void *ctx, enum rv_fleet_rep_section sec)
{
	static const char *const names[] = {
		[RV_FLEET_REP_STRAGGLERS] = "\n## Stragglers\n",
		[RV_FLEET_REP_DRIFT] = "\n## Configuration drift\n",
		[RV_FLEET_REP_GROUPS] = "\n## Groups\n\n| group | nodes | flagged | members |\n"
					"|---|---:|---:|---|\n",
	};
	fputs(names[sec], ctx);
}

int rv_fleet_rep_markdown(FILE *f, const struct rv_fleet_result *r)
{
	const struct rv_fleet_rep_parts parts = { .heading = heading, .strag = straggler,
						  .drift = drift, .group = group, .ctx = f };
	top(f, r);
	rv_fleet_rep_sections(r, &parts);
	return 0;
}
