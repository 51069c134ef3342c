/*
 * report_html.c - the HTML format of a fleet report (report_int.h): one
 * self-contained HTML5 page to attach to a ticket or open from disk: CSS
 * inline, pictures inline SVG (report_svg.c), no script, no URL of any
 * kind, no external resource (links are fragments within the page).
 *
 * Node names, group and fact values come from the storage, and whoever
 * can write to it can choose them: every string is escaped (& < > " '),
 * control characters become spaces and invalid UTF-8 U+FFFD, so no name
 * can open a tag or leave an attribute. The page reads top down: the
 * header, the verdict, a card per straggler (stretches, signals, a plot
 * per plotted signal), a card per drift finding, and a card per group
 * with its heat map and its nodes.
 */
#include "fleet/report_int.h"

#include <string.h>


static const char STYLE[] =
	":root{color-scheme:light}"
	"body{margin:0;background:#f1f3f5;color:#212529;"
	"font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}"
	"header,main{max-width:1120px;margin:0 auto;padding:12px 20px}"
	"h1{font-size:22px;margin:12px 0 6px}h2{font-size:18px;margin:22px 0 8px}"
	"h3{font-size:15px;margin:0 0 8px}"
	"dl.head{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:4px 0}"
	"dl.head dt{color:#495057;font-weight:600}dl.head dd{margin:0}"
	"code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
	"background:#f1f3f5;padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}"
	".verdict{background:#fff;border:1px solid #dee2e6;border-left:6px solid #2f9e44;"
	"border-radius:6px;padding:12px 18px}"
	".verdict.found{border-left-color:#e03131}.verdict ul{margin:6px 0 0;padding-left:20px}"
	".verdict li{margin:4px 0}.verdict a{color:inherit;text-decoration:none}"
	".verdict a:hover{text-decoration:underline}"
	".card{background:#fff;border:1px solid #dee2e6;border-left:6px solid #868e96;"
	"border-radius:6px;padding:14px 18px;margin:14px 0}"
	".card.strag{border-left-color:#e03131}.card.drift{border-left-color:#f08c00}"
	"table{border-collapse:collapse;margin:6px 0 10px}"
	"th,td{padding:3px 10px;border-bottom:1px solid #dee2e6;text-align:left;vertical-align:top}"
	"th{background:#e9ecef;font-weight:600}td.n{text-align:right;white-space:nowrap}"
	".muted{color:#495057}.flag{color:#c92a2a;font-weight:600}"
	".plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:10px}"
	"svg{width:100%;height:auto;background:#fff;border:1px solid #e9ecef}"
	"svg text{font:11px system-ui,sans-serif;fill:#495057}"
	"svg .ptitle{font-size:13px;font-weight:600;fill:#212529}svg .sub{font-weight:400}"
	"svg .bg{fill:#fff}svg .frame{fill:none;stroke:#adb5bd}svg .grid{stroke:#e9ecef;fill:none}"
	"svg .xaxis line{stroke:#868e96}"
	"svg .out,svg .k-out{fill:#f08c00;fill-opacity:.2}"
	"svg .band,svg .k-band{fill:#2f9e44;fill-opacity:.18;stroke:none}"
	"svg .median{fill:none;stroke:#2f9e44;stroke-width:1.3;stroke-dasharray:6 4}"
	"svg .k-median{fill:#2f9e44}"
	"svg .node{fill:none;stroke:#1f5fbf;stroke-width:1.8;stroke-linejoin:round;"
	"stroke-linecap:round}svg .k-node{fill:#1f5fbf}"
	"svg .row{font-size:10px}svg .row.flag{fill:#c92a2a;font-weight:600}"
	"svg .thr{stroke:#212529;stroke-width:2}"
	"p.members{line-height:1.8}"
	"footer{color:#868e96;text-align:center;padding:12px}"
	"@media print{body{background:#fff}.card{break-inside:avoid}}";

void rv_fleet_rep_html_text(FILE *f, const char *s)
{
	const char *show;
	size_t n;
	for (const char *p = rv_fleet_rep_str(s); *p;) {
		p += rv_fleet_rep_cp(p, &show, &n);
		const char *ent = n == 1 ? rv_fleet_rep_entity(*show) : NULL;
		if (ent)
			fputs(ent, f);
		else
			fwrite(show, 1, n, f);
	}
}

/* before, s escaped, after. */
static void wrapped(FILE *f, const char *before, const char *s, const char *after)
{
	fputs(before, f);
	rv_fleet_rep_html_text(f, s);
	fputs(after, f);
}

static void sink_text(void *ctx, const char *s)
{
	rv_fleet_rep_html_text(ctx, s);
}

static void sink_name(void *ctx, const char *s)
{
	wrapped(ctx, "<code>", s, "</code>");
}

/* A verdict's sentence links to its card (the anchors are ours). */
static void item_begin(void *ctx, const char *anchor)
{
	if (anchor)
		fprintf(ctx, "<li><a href=\"#%s\">", anchor);
	else
		fputs("<li>", ctx);
}

static void item_end(void *ctx, const char *anchor)
{
	fputs(anchor ? "</a></li>\n" : "</li>\n", ctx);
}

static void head_row(void *ctx, const char *label, const char *value, int name)
{
	fprintf(ctx, "<dt>%s</dt><dd>", label);
	wrapped(ctx, name ? "<code>" : "", value, name ? "</code></dd>\n" : "</dd>\n");
}

static void page_head(FILE *f, const struct rv_fleet_result *r)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"generator\" content=\"reveal fleet\">\n"
		"<title>reveal fleet report</title>\n<style>%s</style>\n</head>\n<body>\n"
		"<header>\n<h1>reveal fleet report</h1>\n<dl class=\"head\">\n", STYLE);
	rv_fleet_rep_head(r, head_row, f);
	fputs("</dl>\n</header>\n<main>\n", f);
}

static void verdict(FILE *f, const struct rv_fleet_result *r)
{
	const struct rv_fleet_rep_sink k = { .text = sink_text, .name = sink_name,
					     .begin = item_begin, .end = item_end, .ctx = f };
	size_t n = rv_fleet_rep_findings(r);
	fprintf(f, "<section class=\"verdict%s\" id=\"verdict\">\n<h2>Verdict: ",
		n ? " found" : "");
	rv_fleet_rep_say_head(r, &k);
	fputs("</h2>\n", f);
	if (n || r->nsmall) {
		fputs("<ul>\n", f);
		rv_fleet_rep_say_list(r, &k);
		fputs("</ul>\n", f);
	}
	fputs("</section>\n", f);
}

static void stretch_table(FILE *f, const struct rv_fleet_result *r,
			  const struct rv_fleet_straggler *s)
{
	fputs("<table class=\"stretches\">\n<tr><th>out of step</th><th>length</th><th>peak</th>"
	      "</tr>\n", f);
	for (size_t i = 0; i < s->nstretch; i++) {
		char span[2 * RV_FLEET_REP_CELL], d[RV_FLEET_REP_CELL], pk[RV_FLEET_REP_CELL];
		rv_fleet_rep_span(r, &s->stretch[i], span, sizeof(span));
		rv_fleet_rep_duration(rv_fleet_rep_stretch_s(r, &s->stretch[i]), d, sizeof(d));
		rv_fleet_rep_score(s->stretch[i].peak, pk, sizeof(pk));
		wrapped(f, "<tr><td>", span, "</td>");
		fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n", d, pk);
	}
	fputs("</table>\n", f);
}

static void signal_table(FILE *f, const struct rv_fleet_straggler *s)
{
	fputs("<table class=\"signals\">\n<tr><th>signal</th><th>node</th><th>peers' median</th>"
	      "<th>difference</th><th>z</th></tr>\n", f);
	for (size_t i = 0; i < s->nsig; i++) {
		struct rv_fleet_rep_cells c;
		rv_fleet_rep_signal_cells(&s->sig[i], &c);
		wrapped(f, "<tr><td><code>", s->sig[i].channel, "</code></td>");
		wrapped(f, "<td class=\"n\">", c.value, "</td>");
		wrapped(f, "<td class=\"n\">", c.median, "</td>");
		wrapped(f, "<td class=\"n\">", c.diff, "</td>");
		wrapped(f, "<td class=\"n\">", c.z, "</td></tr>\n");
	}
	fputs("</table>\n", f);
}

static void straggler(void *ctx, const struct rv_fleet_result *r, size_t id)
{
	FILE *f = ctx;
	const struct rv_fleet_straggler *s = &r->strag[id];
	size_t n = s->stretch ? s->nstretch : 0, plots = 0;
	char pk[RV_FLEET_REP_CELL];
	rv_fleet_rep_score(s->peak, pk, sizeof(pk));
	fprintf(f, "<section class=\"card strag\" id=\"straggler-%zu\">\n", id + 1);
	wrapped(f, "<h3>Straggler <code>", s->node, "</code> in group ");
	wrapped(f, "<code>", rv_fleet_rep_group(s->group), "</code></h3>\n");
	fprintf(f, "<p>Peak score %s, %zu stretch%s out of step.</p>\n", pk, n,
		n == 1 ? "" : "es");
	if (n)
		stretch_table(f, r, s);
	if (s->sig && s->nsig)
		signal_table(f, s);
	for (size_t i = 0; s->sig && i < s->nsig; i++) {
		if (!s->sig[i].node_v || r->nwin == 0)
			continue;
		fputs(plots++ ? "" : "<div class=\"plots\">\n", f);
		rv_fleet_rep_svg_signal(f, r, s, &s->sig[i]);
	}
	fputs(plots ? "</div>\n</section>\n" : "</section>\n", f);
}

/* The value in code, or the word absent. */
static void value_html(FILE *f, const char *v)
{
	if (*rv_fleet_rep_str(v))
		wrapped(f, "<code>", v, "</code>");
	else
		fputs("<span class=\"muted\">absent</span>", f);
}

/* The odd values (every value of a split) as table rows: a value, then
 * its nodes in the second cell. */
static void cell_value(void *ctx, const char *v)
{
	fputs("<tr><td>", ctx);
	value_html(ctx, v);
}

static void cell_node(void *ctx, const char *name, size_t k)
{
	wrapped(ctx, k ? ", <code>" : "</td><td><code>", name, "</code>");
}

static void cell_end(void *ctx)
{
	fputs("</td></tr>\n", ctx);
}

static void drift(void *ctx, const struct rv_fleet_drift *d, const char *what, size_t id)
{
	FILE *f = ctx;
	fprintf(f, "<section class=\"card drift\" id=\"drift-%zu\">\n", id + 1);
	wrapped(f, "<h3>Drift of <code>", d->key, "</code> in group ");
	wrapped(f, "<code>", rv_fleet_rep_group(d->group), "</code></h3>\n<p>");
	if (d->majority)
		value_html(f, d->majority);
	wrapped(f, d->majority ? "" : "Split: ", what, ".</p>\n");
	if (d->odd && d->nodd) {
		fprintf(f, "<table>\n<tr><th>%s</th><th>nodes</th></tr>\n",
			d->majority ? "odd value" : "value");
		rv_fleet_rep_each_value(d, &(const struct rv_fleet_rep_values){
			.value = cell_value, .node = cell_node, .done = cell_end, .ctx = f });
		fputs("</table>\n", f);
	}
	fputs("</section>\n", f);
}

static void group(void *ctx, const struct rv_fleet_result *r, size_t i)
{
	FILE *f = ctx;
	const struct rv_fleet_group *g = &r->group[i];
	fputs("<section class=\"card group\">\n", f);
	wrapped(f, "<h3>Group <code>", rv_fleet_rep_group(g->name), "</code></h3>\n");
	fprintf(f, "<p>%zu node%s, %zu flagged%s.</p>\n", g->nnodes, g->nnodes == 1 ? "" : "s",
		g->nflagged, rv_fleet_rep_small(g) ? "; too small to judge for stragglers" : "");
	rv_fleet_rep_svg_heat(f, r, g);
	fputs("<p class=\"members\">", f);
	for (size_t k = 0; g->node && k < g->nnodes; k++) {
		int flag = rv_fleet_rep_flagged(r, g->name, g->node[k]);
		fputs(k ? ", " : "", f);
		wrapped(f, flag ? "<code class=\"flag\">" : "<code>", g->node[k], "</code>");
	}
	fputs("</p>\n</section>\n", f);
}

static void heading(void *ctx, enum rv_fleet_rep_section sec)
{
	static const char *const names[] = {
		[RV_FLEET_REP_STRAGGLERS] = "<h2>Stragglers</h2>\n",
		[RV_FLEET_REP_DRIFT] = "<h2>Configuration drift</h2>\n",
		[RV_FLEET_REP_GROUPS] = "<h2>Groups</h2>\n",
	};
	fputs(names[sec], ctx);
}

int rv_fleet_rep_html(FILE *f, const struct rv_fleet_result *r)
{
	const struct rv_fleet_rep_parts parts = { .heading = heading, .strag = straggler,
						  .drift = drift, .group = group, .ctx = f };
	page_head(f, r);
	verdict(f, r);
	rv_fleet_rep_sections(r, &parts);
	fputs("</main>\n<footer>reveal fleet report</footer>\n</body>\n</html>\n", f);
	return 0;
}
