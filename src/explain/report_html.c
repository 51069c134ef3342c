/*
 * report_html.c - the HTML format of report.h: one self-contained HTML5
 * page that can be mailed, attached to a ticket or opened from disk years
 * later. CSS is inline, plots are inline SVG (report_svg.c), and there is
 * no script and no URL at all (not even the SVG namespace, which HTML5
 * does not need): links are fragments (#incident-7) within the page.
 *
 * All text from the caller is escaped (& < > " ' and control characters;
 * invalid UTF-8 becomes U+FFFD). The page has an overview table (all of
 * summary mode) and then one card per incident with the same content as
 * the text format plus a plot per series.
 */
#include "explain/report_int.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/severity.h"
#include "explain/kb.h"

enum { HTML_TAB = 0x09, HTML_LF = 0x0a, HTML_CR = 0x0d, ASCII_DEL = 0x7f };
static const char REPLACEMENT[] = "\xEF\xBF\xBD";

static const char CSS[] =
	":root{color-scheme:light}"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
	"margin:0;background:#f1f3f5;color:#212529}"
	"header,main{max-width:1100px;margin:0 auto;padding:12px 20px}"
	"h1{font-size:22px;margin:12px 0 4px}h2{font-size:18px;margin:0 0 8px}"
	"h3{font-size:15px;margin:18px 0 6px;color:#343a40}h4{font-size:14px;margin:0}"
	".meta{color:#495057;margin:2px 0}"
	"table{border-collapse:collapse;background:#fff;margin:6px 0}"
	"th,td{padding:4px 10px;border-bottom:1px solid #dee2e6;text-align:left;"
	"vertical-align:top}"
	"th{background:#e9ecef;font-weight:600}td.num{text-align:right;white-space:nowrap}"
	"code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
	"background:#f1f3f5;padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}"
	".card{background:#fff;border:1px solid #dee2e6;border-left:6px solid #868e96;"
	"border-radius:6px;padding:14px 18px;margin:16px 0}"
	".sev-minor{border-left-color:#74b816}.sev-major{border-left-color:#f08c00}"
	".sev-critical{border-left-color:#e03131}"
	".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;"
	"font-weight:600;background:#868e96;color:#fff;margin-left:6px;vertical-align:2px}"
	".badge.sev-minor{background:#5c940d}.badge.sev-major{background:#d9480f}"
	".badge.sev-critical{background:#c92a2a}.badge.open{background:#1971c2}"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:4px 0}"
	"dl.facts dt{color:#495057;font-weight:600}dl.facts dd{margin:0}"
	".bar{display:inline-block;width:120px;height:9px;background:#e9ecef;"
	"border-radius:4px;margin-right:8px;vertical-align:middle}"
	".bar span{display:block;height:9px;background:#748ffc;border-radius:4px}"
	".plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:10px}"
	"svg.plot{width:100%;height:auto;background:#fff;border:1px solid #e9ecef}"
	".plot text{font:11px system-ui,sans-serif;fill:#495057}"
	".plot .ptitle{font-size:13px;font-weight:600;fill:#212529}"
	".plot .bg{fill:#fff}.plot .frame{fill:none;stroke:#adb5bd}"
	".plot .grid{stroke:#e9ecef}.plot .xaxis line{stroke:#868e96}"
	".plot .span,.plot .lg-span{fill:#f08c00;fill-opacity:.18}"
	".plot .band,.plot .lg-band{fill:#2f9e44;fill-opacity:.16}"
	".plot .mean{stroke:#2f9e44;stroke-width:1.3;stroke-dasharray:6 4}"
	/* the value swatch is lighter than the line: html_check counts line pixels */
	".plot .lg-mean{fill:#2f9e44}.plot .lg-value{fill:#1f5fbf;fill-opacity:.5}"
	".plot .nodata{font-size:16px;fill:#868e96}"
	"ol.causes>li{margin:8px 0 14px}.conf{color:#495057;font-weight:400}"
	".rule{color:#868e96;font-size:12px;margin:2px 0}"
	".fix{background:#ebfbee;border-left:3px solid #2f9e44;padding:6px 10px}"
	".nomatch{background:#fff9db;border-left:3px solid #f08c00;padding:6px 10px}"
	"ol.chain{list-style:none;padding:0;margin:4px 0}ol.chain li{display:inline}"
	"ol.chain li+li::before{content:' \\2192  ';color:#868e96}"
	".note{color:#495057;font-style:italic}p.phase{margin:6px 0;font-weight:600}"
	"code.cmd{white-space:pre-wrap}.why{color:#495057}td.t{white-space:nowrap}"
	"footer{color:#868e96;text-align:center;padding:12px}"
	"@media print{body{background:#fff}.card{break-inside:avoid}}";

void rv_report_html_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)rv_report_str(s); *p;) {
		size_t len = rv_utf8_len(p);
		unsigned char c = *p;
		if (len == 0) {
			fputs(REPLACEMENT, f);
			p++;
			continue;
		}
		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&#39;", f);
		else if ((c < ' ' && c != HTML_TAB && c != HTML_LF && c != HTML_CR) || c == ASCII_DEL)
			fputc(' ', f);
		else
			fwrite(p, 1, len, f);
		p += len;
	}
}

static void tag_text(FILE *f, const char *open, const char *s, const char *close)
{
	fputs(open, f);
	rv_report_html_text(f, s);
	fputs(close, f);
}

/* A severity as a CSS class suffix: only known names, so no escaping. */
static const char *sev_class(const char *sev)
{
	int s = rv_severity_parse(rv_report_str(sev));

	return s >= 0 ? rv_severity_name((enum rv_severity)s) : "unrated";
}

static void page_head(FILE *f, const struct rv_report *r)
{
	const char *title = *rv_report_str(r->title) ? r->title : "reveal incident report";
	char gen[RV_REPORT_CELL];
	rv_report_iso(r->generated_ts, gen, sizeof(gen));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"reveal\">\n", f);
	tag_text(f, "<title>", title, "</title>\n");
	fprintf(f, "<style>%s</style>\n</head>\n<body>\n<header>\n", CSS);
	tag_text(f, "<h1>", title, "</h1>\n");
	tag_text(f, "<p class=\"meta\">Source: ", *rv_report_str(r->source) ? r->source : "n/a",
		 "</p>\n");
	if (*rv_report_str(r->filters))
		tag_text(f, "<p class=\"meta\">Filters: ", r->filters, "</p>\n");
	fprintf(f, "<p class=\"meta\">Generated %s, knowledge base of %zu rules</p>\n"
		"</header>\n<main>\n", gen, r->nrules);
}

static void overview_row(FILE *f, const struct rv_report_incident *in, int link)
{
	char a[RV_REPORT_CELL], d[RV_REPORT_CELL], conf[RV_REPORT_CELL];
	struct rv_report_cells c = { .change = "" };
	rv_report_iso(in->start_ts, a, sizeof(a));
	rv_report_duration(in->end_ts - in->start_ts, d, sizeof(d));
	if (in->nsignals && in->signals)
		rv_report_signal_cells(in, &in->signals[0], &c);
	if (link)
		fprintf(f, "<tr><td class=\"num\"><a href=\"#incident-%" PRIu64 "\">%" PRIu64
			"</a></td>", in->id, in->id);
	else
		fprintf(f, "<tr><td class=\"num\">%" PRIu64 "</td>", in->id);
	fprintf(f, "<td><span class=\"badge sev-%s\">", sev_class(in->severity));
	rv_report_html_text(f, *rv_report_str(in->severity) ? in->severity : "unrated");
	fputs(in->open ? "</span> <span class=\"badge open\">open</span></td>" : "</span></td>", f);
	tag_text(f, "<td>", in->nsubsys && in->subsys ? in->subsys[0].name : "", "</td>");
	fprintf(f, "<td class=\"t\">%s</td><td class=\"num\">%s</td>", a, d);
	tag_text(f, "<td><code>", in->nsignals && in->signals ? in->signals[0].name : "",
		 "</code></td>");
	tag_text(f, "<td class=\"num\">", c.change, "</td><td>");
	if (in->ncauses && in->causes) {
		rv_report_share(in->causes[0].confidence, conf, sizeof(conf));
		rv_report_html_text(f, in->causes[0].title);
		fprintf(f, " <span class=\"conf\">(%s)</span>", *conf ? conf : "?");
	} else {
		fputs(RV_KB_NO_MATCH, f);
	}
	fputs("</td></tr>\n", f);
}

static void overview(FILE *f, const struct rv_report *r, size_t n, int link)
{
	if (n == 0) {
		fputs("<p class=\"empty\">no incidents</p>\n", f);
		return;
	}
	fprintf(f, "<p>%zu incident%s</p>\n<table class=\"overview\">\n<tr><th>incident</th>"
		"<th>severity</th><th>subsystem</th><th>start (UTC)</th><th>duration</th>"
		"<th>top signal</th><th>change</th><th>likely cause</th></tr>\n", n,
		n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		overview_row(f, &r->incidents[i], link);
	fputs("</table>\n", f);
}

static void facts(FILE *f, const struct rv_report_incident *in)
{
	char a[RV_REPORT_CELL], b[RV_REPORT_CELL], d[RV_REPORT_CELL];
	rv_report_iso(in->start_ts, a, sizeof(a));
	rv_report_iso(in->end_ts, b, sizeof(b));
	rv_report_duration(in->end_ts - in->start_ts, d, sizeof(d));
	fprintf(f, "<dl class=\"facts\">\n<dt>Time (UTC)</dt><dd>%s to %s (%s%s)</dd>\n", a, b, d,
		in->open ? ", still open" : "");
	if (*rv_report_str(in->host))
		tag_text(f, "<dt>Host</dt><dd>", in->host, "</dd>\n");
	fprintf(f, "<dt>Flagged windows</dt><dd>%zu, score peak %.3g, mean %.3g</dd>\n",
		in->windows, in->peak_score, in->mean_score);
	fputs("<dt>Detectors</dt><dd>", f);
	for (size_t i = 0; in->detectors && i < in->ndetectors; i++)
		tag_text(f, i ? ", " : "", in->detectors[i], "");
	fputs(in->detectors && in->ndetectors ? "</dd>\n" : "none recorded</dd>\n", f);
	fputs("<dt>Subsystems</dt><dd>", f);
	for (size_t i = 0; in->subsys && i < in->nsubsys; i++) {
		double share = in->subsys[i].share;
		char pct[RV_REPORT_CELL];
		rv_report_share(share, pct, sizeof(pct));
		share = isfinite(share) ? fmin(fmax(share, 0), 1) : 0;
		fprintf(f, "<div><span class=\"bar\"><span style=\"width:%.0f%%\"></span></span>",
			share * RV_REPORT_PERCENT);
		tag_text(f, "", in->subsys[i].name, "");
		fprintf(f, " %s</div>", pct);
	}
	fputs(in->subsys && in->nsubsys ? "</dd>\n</dl>\n" : "none recorded</dd>\n</dl>\n", f);
}

static void signal_table(FILE *f, const struct rv_report_incident *in)
{
	if (!in->signals || in->nsignals == 0) {
		fputs("<h3>Signals</h3>\n<p>none recorded</p>\n", f);
		return;
	}
	fputs("<h3>Signals</h3>\n<table class=\"signals\">\n<tr><th>signal</th><th>share</th>"
	      "<th>baseline</th><th>incident</th><th>peak</th><th>change</th><th>z</th>"
	      "<th>onset</th></tr>\n", f);
	for (size_t i = 0; i < in->nsignals; i++) {
		struct rv_report_cells c;
		rv_report_signal_cells(in, &in->signals[i], &c);
		tag_text(f, "<tr><td><code>", in->signals[i].name, "</code></td>");
		const char *v[] = { c.share, c.baseline, c.value, c.peak, c.change, c.z, c.onset };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			tag_text(f, "<td class=\"num\">", v[k], "</td>");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void cause_item(FILE *f, const struct rv_report_cause *c)
{
	char conf[RV_REPORT_CELL];
	rv_report_share(c->confidence, conf, sizeof(conf));
	tag_text(f, "<li><h4>", c->title, "");
	fprintf(f, " <span class=\"conf\">confidence %s%s</span></h4>\n", *conf ? conf : "?",
		c->onset ? ", decided at the onset" : "");
	tag_text(f, "<p class=\"rule\">rule <code>", c->id, "</code>");
	tag_text(f, ", ", c->subsystem, "</p>\n");
	if (c->onset_only)
		fputs("<p class=\"onset\">" RV_REPORT_ONSET_ONLY "</p>\n", f);
	if (*rv_report_str(c->cause))
		tag_text(f, "<p>", c->cause, "</p>\n");
	if (c->measured)
		fprintf(f, "<p class=\"calibrated\"><b>Calibrated:</b> first in %u recorded live "
			"incidents, right in %u</p>\n", c->measured_first, c->measured_right);
	if (*rv_report_str(c->undecided)) {
		tag_text(f, "<p class=\"undecided\"><b>Undecided between:</b> ", c->undecided,
			 "</p>\n");
		tag_text(f, "<p><b>What decides:</b> ", rv_report_str(c->decided_by), "</p>\n");
	}
	if (c->evidence && c->nevidence) {
		fputs("<p>Evidence:</p>\n<ul>\n", f);
		for (size_t k = 0; k < c->nevidence; k++)
			tag_text(f, "<li>", c->evidence[k], "</li>\n");
		fputs("</ul>\n", f);
	}
	if (c->checks && c->nchecks) {
		fputs("<p>Checks:</p>\n<ol>\n", f);
		for (size_t k = 0; k < c->nchecks; k++) {
			tag_text(f, "<li><code class=\"cmd\">", c->checks[k].cmd, "</code>");
			if (*rv_report_str(c->checks[k].why))
				tag_text(f, " <span class=\"why\">", c->checks[k].why, "</span>");
			fputs("</li>\n", f);
		}
		fputs("</ol>\n", f);
	}
	if (*rv_report_str(c->fix))
		tag_text(f, "<p class=\"fix\"><b>Fix:</b> ", c->fix, "</p>\n");
	fputs("</li>\n", f);
}

static void no_cause(FILE *f, const struct rv_report *r, const struct rv_report_incident *in)
{
	size_t n = in->signals ? in->nsignals : 0;
	char buf[RV_REPORT_CELL * 8];

	n = n < 3 ? n : 3;
	rv_report_no_cause_text(r, in, buf, sizeof(buf));
	tag_text(f, "<p class=\"nomatch\">", buf, "");
	if (n == 0)
		fputs("No signal stood out either: look at the detectors' scores and the host's "
		      "logs for the time range.", f);
	else
		fprintf(f, "Look first at the top signal%s:", n > 1 ? "s" : "");
	for (size_t i = 0; i < n; i++) {
		struct rv_report_cells c;
		rv_report_signal_cells(in, &in->signals[i], &c);
		tag_text(f, i ? ", <code>" : " <code>", in->signals[i].name, "</code>");
		fprintf(f, " %s (", rv_report_dir_word(in->signals[i].dir));
		tag_text(f, "", c.change, ")");
	}
	fputs(n ? ".</p>\n" : "</p>\n", f);
	if (in->near && in->nnear) {
		fputs("<p>Closest rules, and what they lacked:</p>\n<ul class=\"near\">\n", f);
		for (size_t i = 0; i < in->nnear; i++) {
			rv_report_near_text(&in->near[i], buf, sizeof(buf));
			tag_text(f, "<li>", buf, "</li>\n");
		}
		fputs("</ul>\n", f);
	}
}

/* Rules of other subsystems that fired too. */
static void notes(FILE *f, const struct rv_report_incident *in)
{
	char buf[RV_REPORT_CELL * 8];

	if (!in->notes || !in->nnotes)
		return;
	fputs("<p>Also seen (other subsystems' rules, not the cause of this incident):</p>\n"
	      "<ul class=\"notes\">\n", f);
	for (size_t i = 0; i < in->nnotes; i++) {
		rv_report_note_text(&in->notes[i], buf, sizeof(buf));
		tag_text(f, "<li>", buf, "</li>\n");
	}
	fputs("</ul>\n", f);
}

static void causes(FILE *f, const struct rv_report *r, const struct rv_report_incident *in)
{
	size_t n = in->causes ? in->ncauses : 0;
	fprintf(f, "<h3>Likely cause%s</h3>\n", n == 1 ? "" : "s");
	if (n == 0) {
		no_cause(f, r, in);
		notes(f, in);
		return;
	}
	fputs("<ol class=\"causes\">\n", f);
	for (size_t i = 0; i < n; i++)
		cause_item(f, &in->causes[i]);
	fputs("</ol>\n", f);
	notes(f, in);
}

/* "incident 12", a link to its card when the page has it. */
static void html_ref(FILE *f, uint64_t id, int shown)
{
	if (shown)
		fprintf(f, "<a href=\"#incident-%" PRIu64 "\">incident %" PRIu64 "</a>", id, id);
	else
		fprintf(f, "incident %" PRIu64, id);
}

/* The phases of a cascade, one paragraph each, under the chain. */
static void phases(FILE *f, const struct rv_report_incident *in)
{
	if (in->follows) {
		const char *sub = rv_report_str(in->follows_subsystem);
		fprintf(f, "<p class=\"phase\">Follow-on phase %u of ", rv_report_phase(in));
		html_ref(f, in->follows, in->follows_shown);
		if (*sub)
			tag_text(f, " (", sub, ")");
		fputs(".</p>\n", f);
	}
	for (size_t i = 0; in->followers && i < in->nfollowers; i++) {
		const struct rv_report_link *l = &in->followers[i];
		char note[2 * RV_REPORT_CELL];
		rv_report_link_note(l, note, sizeof(note));
		fputs(i ? ", " : "<p class=\"phase\">Followed by ", f);
		html_ref(f, l->id, l->shown);
		if (*note)
			tag_text(f, " (", note, ")");
		fputs(i + 1 == in->nfollowers ? ".</p>\n" : "", f);
	}
}

static void chain(FILE *f, const struct rv_report_incident *in)
{
	if (!in->chain || in->nchain < 2) {
		if (rv_report_linked(in)) {
			fputs("<h3>Chain</h3>\n", f);
			phases(f, in);
		}
		return;
	}
	fputs("<h3>Chain</h3>\n<p class=\"meta\">First mover of each subsystem, in time order"
	      "</p>\n<ol class=\"chain\">", f);
	for (size_t i = 0; i < in->nchain; i++) {
		char off[RV_REPORT_CELL];
		rv_report_offset(in->chain[i].onset_ts, in->chain[0].onset_ts, off, sizeof(off));
		tag_text(f, "<li><code>", in->chain[i].name, "</code> ");
		fprintf(f, "%s%s%s%s</li>", rv_report_dir_word(in->chain[i].dir), *off ? " (" : "",
			off, *off ? ")" : "");
	}
	fputs("</ol>\n", f);
	phases(f, in);
}

static void consumers(FILE *f, const struct rv_report_incident *in)
{
	if (!in->consumers || !in->nconsumers)
		return;
	fputs("<h3>Whose workload</h3>\n<ul class=\"consumers\">\n", f);
	for (size_t i = 0; i < in->nconsumers; i++)
		tag_text(f, "<li>", in->consumers[i].text, "</li>\n");
	fputs("</ul>\n", f);
}

static void card(FILE *f, const struct rv_report *r, const struct rv_report_incident *in)
{
	const char *sev = sev_class(in->severity);
	fprintf(f, "<section class=\"card sev-%s\" id=\"incident-%" PRIu64 "\">\n<h2>Incident %"
		PRIu64 "<span class=\"badge sev-%s\">", sev, in->id, in->id, sev);
	rv_report_html_text(f, *rv_report_str(in->severity) ? in->severity : "unrated");
	fputs("</span>", f);
	if (in->nsubsys && in->subsys)
		tag_text(f, "<span class=\"badge\">", in->subsys[0].name, "</span>");
	fputs(in->open ? "<span class=\"badge open\">open</span></h2>\n" : "</h2>\n", f);
	facts(f, in);
	signal_table(f, in);
	consumers(f, in);
	if (in->series && in->nseries) {
		fputs("<h3>Plots</h3>\n<div class=\"plots\">\n", f);
		for (size_t i = 0; i < in->nseries; i++)
			rv_report_svg(f, in, &in->series[i]);
		fputs("</div>\n", f);
	}
	causes(f, r, in);
	chain(f, in);
	if (*rv_report_str(in->note))
		tag_text(f, "<p class=\"note\">Note: ", in->note, "</p>\n");
	fputs("</section>\n", f);
}

void rv_report_html(FILE *f, const struct rv_report *r, int summary)
{
	size_t n = r->incidents ? r->nincidents : 0;
	page_head(f, r);
	overview(f, r, n, !summary);
	for (size_t i = 0; !summary && i < n; i++)
		card(f, r, &r->incidents[i]);
	fputs("</main>\n<footer>reveal incident report</footer>\n</body>\n</html>\n", f);
}
