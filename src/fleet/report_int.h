/*
 * report_int.h - what the writers of `reveal fleet`'s report share (not
 * API: fleet.h's rv_fleet_report is).
 *
 * report.c holds rv_fleet_report, the formatting every format needs
 * (times, lengths, quantities for people, the difference of a node from
 * its peers), the header's rows, the order of the sections and the
 * showing of untrusted text; report_say.c the verdict's sentences;
 * report_text.c, report_md.c, report_json.c and report_html.c (with
 * report_svg.c for its plots and heat maps) the four formats. What every
 * format says is said once, through callbacks each format fills: the
 * report's own words one way, names from the storage (nodes, groups,
 * channels, fact keys and values) another, which a format quotes or
 * escapes as it must. The writers ignore stdio errors on purpose:
 * rv_fleet_report checks ferror() once at the end.
 *
 * Threads: no state; the callers' streams are theirs.
 */
#ifndef RV_FLEET_REPORT_INT_H
#define RV_FLEET_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "fleet/fleet.h"

enum {
	RV_FLEET_REP_CELL = 64,     /* fits every formatted number, time, length or span */
	RV_FLEET_REP_NAMES = 4,     /* names a verdict sentence lists before "and N more" */
	RV_FLEET_REP_WIDTH = 100,   /* columns of the text format */
	RV_FLEET_REP_LINE = 256,    /* a header line without names */
};

/* Where a sentence goes: text() gets the report's words, name() a name
 * from the storage, unit() a number with its unit, a time span or a
 * length that must not be broken across lines (NULL: text() takes it);
 * all NUL-terminated and borrowed for the call. rv_fleet_rep_say_list
 * calls begin() before and end() after each sentence of the verdict's
 * list (NULL: nothing), with the fragment of the section it is about
 * ("straggler-1", "drift-2"; NULL for the small groups' sentence). */
struct rv_fleet_rep_sink {
	void (*text)(void *ctx, const char *s);
	void (*name)(void *ctx, const char *s);
	void (*unit)(void *ctx, const char *s);
	void (*begin)(void *ctx, const char *anchor);
	void (*end)(void *ctx, const char *anchor);
	void *ctx;
};

/* The sections after the verdict, each written by its writer's callback
 * (r and the item's index; a drift finding with its rv_fleet_rep_drift_line
 * text): heading() before a section that has items (the groups' always),
 * then one call per item. */
enum rv_fleet_rep_section { RV_FLEET_REP_STRAGGLERS, RV_FLEET_REP_DRIFT, RV_FLEET_REP_GROUPS };
struct rv_fleet_rep_parts {
	void (*heading)(void *ctx, enum rv_fleet_rep_section sec);
	void (*strag)(void *ctx, const struct rv_fleet_result *r, size_t i);
	void (*drift)(void *ctx, const struct rv_fleet_drift *d, const char *what, size_t i);
	void (*group)(void *ctx, const struct rv_fleet_result *r, size_t i);
	void *ctx;
};
void rv_fleet_rep_sections(const struct rv_fleet_result *r, const struct rv_fleet_rep_parts *p);

/* One signal's cells as every table shows them. */
struct rv_fleet_rep_cells {
	char value[RV_FLEET_REP_CELL];   /* the node's: "1.2 k" */
	char median[RV_FLEET_REP_CELL];  /* the peers' */
	char diff[RV_FLEET_REP_CELL];    /* "-33 %", "0.47x" */
	char z[RV_FLEET_REP_CELL];       /* "-6.1" */
};
void rv_fleet_rep_signal_cells(const struct rv_fleet_signal *g, struct rv_fleet_rep_cells *c);

/*
 * The code point at p (NUL-terminated, *p not NUL) as a report shows it:
 * *show and *n get p itself, U+FFFD for a byte that starts no valid UTF-8
 * sequence, or a space for a control character (no name may move a
 * terminal's cursor or break a table row). Returns the bytes to skip.
 */
size_t rv_fleet_rep_cp(const char *p, const char **show, size_t *n);
/* The HTML entity of c when c is & < > " or ', else NULL. */
const char *rv_fleet_rep_entity(char c);

/* s, or "" for NULL: the writers take sloppy results. */
const char *rv_fleet_rep_str(const char *s);
/* A group's name as shown: "(unlabelled)" for the nodes without the label. */
const char *rv_fleet_rep_group(const char *name);
/* A fact's value as shown: "absent" for "" (the node lacks the fact). */
const char *rv_fleet_rep_value(const char *v);

/* "2026-03-01T15:03:10Z"; "?" when not finite or out of years 1..9999. */
void rv_fleet_rep_iso(double ts, char *buf, size_t n);
/* A time inside the report's range: "15:03:10" when the range lies in one
 * UTC day (the header gives the date), else "2026-03-01 15:03:10". */
void rv_fleet_rep_clock(const struct rv_fleet_result *r, double ts, char *buf, size_t n);
/* "31 s", "2.5 s", "4m 12s", "3h 05m", "2d 04h"; "?" when negative or NaN. */
void rv_fleet_rep_duration(double secs, char *buf, size_t n);
/* A stretch as "15:03:10–15:03:40 UTC". */
void rv_fleet_rep_span(const struct rv_fleet_result *r, const struct rv_fleet_stretch *st,
		       char *buf, size_t n);
/* Seconds a stretch lasted: its first window to the end of its last. */
double rv_fleet_rep_stretch_s(const struct rv_fleet_result *r, const struct rv_fleet_stretch *st);

/*
 * A value of channel ch for people: three significant digits, SI prefixes
 * ("1.23 k"), binary ones for channels named *_bytes ("1.5 GiB"), " %"
 * after *_pct channels, "n/a" for NaN. step > 0 (an axis' tick spacing)
 * picks the decimals that tell ticks apart; 0 the three digits.
 */
void rv_fleet_rep_qty(double v, const char *ch, double step, char *buf, size_t n);
/* The node's value against the peers' median: "+12 %", "-33 %", "3.2x",
 * "0.25x" (ratios from 2 up or 1/2 down), "same", "from 0", "?"; in
 * points for *_pct channels ("+12.5 pts"). */
void rv_fleet_rep_diff(double value, double median, const char *ch, char *buf, size_t n);
/* A score or a z as "7.2" ("n/a" when not finite). */
void rv_fleet_rep_score(double v, char *buf, size_t n);

/* Stragglers plus drift findings. */
size_t rv_fleet_rep_findings(const struct rv_fleet_result *r);
/* 1 when node of group is one of r's stragglers. */
int rv_fleet_rep_flagged(const struct rv_fleet_result *r, const char *group, const char *node);
/* Groups too small for a straggler verdict, as the groups list them. */
int rv_fleet_rep_small(const struct rv_fleet_group *g);
/* How many of d's odd nodes hold value v, and whether odd[i] is the first
 * to hold its value (a split lists each value once). Quadratic in nodd. */
size_t rv_fleet_rep_holders(const struct rv_fleet_drift *d, const char *v);
int rv_fleet_rep_first_holder(const struct rv_fleet_drift *d, size_t i);

/* The verdict's sentences, without the list mark or the full stop:
 * its headline ("2 findings" / "no straggler, no configuration drift"),
 * one per straggler and per drift finding, and the groups too small to
 * judge (returns 0 and says nothing when there are none). */
void rv_fleet_rep_say_head(const struct rv_fleet_result *r, const struct rv_fleet_rep_sink *k);
void rv_fleet_rep_say_strag(const struct rv_fleet_result *r, const struct rv_fleet_straggler *s,
			    const struct rv_fleet_rep_sink *k);
void rv_fleet_rep_say_drift(const struct rv_fleet_drift *d, const struct rv_fleet_rep_sink *k);
int rv_fleet_rep_say_small(const struct rv_fleet_result *r, const struct rv_fleet_rep_sink *k);
/* Every sentence after the headline, each between k->begin and k->end. */
void rv_fleet_rep_say_list(const struct rv_fleet_result *r, const struct rv_fleet_rep_sink *k);
/*
 * The header's rows in order, each a call row(ctx, label, value, name):
 * Range, Storage, Selector, Grouped by, Groups, Windows, Straggler, Read.
 * name is 1 when the value is the command's or the storage's own text (a
 * URL, a selector, a label name: quote it), 0 for the report's words
 * ("2026-03-01T15:00:00Z to 2026-03-01T16:00:00Z (1h 00m)", "4 groups,
 * 11 nodes, 400 channels read", "1200 windows of 3 s, the first at ...",
 * "persistent score above 3 for 5 windows (15 s) in a row", "401 API
 * requests, 118 MiB in 12 s; analysis 1.2 s").
 */
void rv_fleet_rep_head(const struct rv_fleet_result *r,
		       void (*row)(void *ctx, const char *label, const char *value, int name),
		       void *ctx);
/* What a drift finding says after its majority value: " on 4 of 5
 * nodes" (the value itself is the caller's to quote), or for a split "no
 * value on a majority of its 4 nodes"; then " (numbers within 1 % count
 * as equal)" when it has a tolerance. */
void rv_fleet_rep_drift_line(const struct rv_fleet_drift *d, char *buf, size_t n);
/* The values of a split (or any finding's odd nodes), each once, in the
 * order of their first node: value(ctx, v) with v as found ("" or NULL:
 * absent), node(ctx, name, k) for each node holding it (k from 0), then
 * done(ctx). Quadratic in the nodes, like rv_fleet_rep_holders. */
struct rv_fleet_rep_values {
	void (*value)(void *ctx, const char *v);
	void (*node)(void *ctx, const char *name, size_t k);
	void (*done)(void *ctx);
	void *ctx;
};
void rv_fleet_rep_each_value(const struct rv_fleet_drift *d, const struct rv_fleet_rep_values *cb);

/* The writers (f and r checked by the caller): 0, or -ENOMEM when a
 * sentence's buffer could not grow (the output is then incomplete). */
int rv_fleet_rep_text(FILE *f, const struct rv_fleet_result *r);
int rv_fleet_rep_markdown(FILE *f, const struct rv_fleet_result *r);
int rv_fleet_rep_json(FILE *f, const struct rv_fleet_result *r);
int rv_fleet_rep_html(FILE *f, const struct rv_fleet_result *r);

/* HTML text with & < > " ' escaped, control characters as spaces (tab
 * and line breaks too), invalid UTF-8 as U+FFFD; NULL as "". */
void rv_fleet_rep_html_text(FILE *f, const char *s);
/* One <svg> of signal sig of straggler s over the whole range, and one
 * heat map of group g's persistent scores. */
void rv_fleet_rep_svg_signal(FILE *f, const struct rv_fleet_result *r,
			     const struct rv_fleet_straggler *s, const struct rv_fleet_signal *sig);
void rv_fleet_rep_svg_heat(FILE *f, const struct rv_fleet_result *r, const struct rv_fleet_group *g);

#endif
