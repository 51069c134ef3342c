/*
 * report_int.h - what the report renderers share (not API: report.h is).
 *
 * report.c holds the public functions and the formatting every format
 * needs (times, durations, human-scaled quantities, change texts, UTF-8
 * stepping); each format is one file: report_text.c, report_md.c,
 * report_json.c, report_html.c with report_svg.c for its plots. The
 * writers ignore stdio errors on purpose: rv_report_write checks ferror()
 * once at the end.
 */
#ifndef RV_EXPLAIN_REPORT_INT_H
#define RV_EXPLAIN_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "base/utf8.h"
#include "explain/report.h"

enum {
	RV_REPORT_CELL = 48,     /* fits every formatted number, time or duration */
	RV_REPORT_WIDTH = 100,   /* columns of the text format */
	RV_REPORT_PERCENT = 100,
};

/* Every cell of one signal's table row, formatted. */
struct rv_report_cells {
	char share[RV_REPORT_CELL];     /* "62 %" or "" when not a top signal */
	char baseline[RV_REPORT_CELL];  /* "126 segments/s", "n/a" */
	char value[RV_REPORT_CELL];
	char peak[RV_REPORT_CELL];
	char change[RV_REPORT_CELL];    /* rv_report_change_text, or from `change` */
	char z[RV_REPORT_CELL];         /* "41.0", "n/a" */
	char onset[RV_REPORT_CELL];     /* "+0.4 s" after the incident start, or "" */
};

/* s, or "" for NULL: the renderers accept sloppy callers. */
const char *rv_report_str(const char *s);

/* "2026-12-01T10:00:00Z"; "?" when not finite; the number itself (%.6g)
 * outside years 1..9999. */
void rv_report_iso(double ts, char *buf, size_t n);
/* "12.4 s", "4m 12s", "3h 05m", "2d 04h"; "?" when negative or not finite. */
void rv_report_duration(double secs, char *buf, size_t n);
/* Seconds relative to a reference as "+0.4 s" / "-12 s"; "" when unknown. */
void rv_report_offset(double ts, double ref, char *buf, size_t n);

/*
 * A quantity for people: "1.2 k packets/s", "1.5 MiB/s" (the units bytes
 * and bytes/s scale by 1024), "45.2 %", "0.004", "n/a" for NaN. step > 0
 * (an axis tick spacing) picks enough decimals to tell ticks apart; 0 picks
 * about three significant digits.
 */
void rv_report_qty(double v, const char *unit, double step, char *buf, size_t n);
/* A share 0..1 as "62 %" ("<1 %" for small, "" when NaN). */
void rv_report_share(double share, char *buf, size_t n);
/* "up", "down" or "flat". */
const char *rv_report_dir_word(int dir);
/* The table cells of signal s of incident in. */
void rv_report_signal_cells(const struct rv_report_incident *in,
			    const struct rv_report_signal *s, struct rv_report_cells *c);

/* The phase of in as shown (0 reads as 1). */
unsigned rv_report_phase(const struct rv_report_incident *in);
/* 1 when in has phase lines to show: it follows an incident, or others
 * follow it (markdown then anchors it). */
int rv_report_linked(const struct rv_report_incident *in);
/* What the report says in parentheses after a follower's id, as plain
 * text for the format to escape: "net, 4.0 s after it began", "net",
 * "4.0 s after it began" or "". */
void rv_report_link_note(const struct rv_report_link *l, char *buf, size_t n);

/* A cause decided on the incident's onset that the whole incident's
 * evidence no longer shows. */
#define RV_REPORT_ONSET_ONLY "Decided when the incident began (its onset); the evidence " \
	"of the whole incident no longer shows it."
/* "No storage rule of the knowledge base (24 rules) matched this incident. "
 * into buf; returns its length (as snprintf, cut to n). */
size_t rv_report_no_cause_text(const struct rv_report *r, const struct rv_report_incident *in,
			       char *buf, size_t n);
/* "Title [id]: 1 of 2 required signals held; lacks COND; excluded by
 * COND" as plain text. */
void rv_report_near_text(const struct rv_report_near *x, char *buf, size_t n);
/* "Title [id, cpu], confidence 82 %" as plain text. */
void rv_report_note_text(const struct rv_report_note *x, char *buf, size_t n);

/* Columns s takes on a terminal: one per code point. */
size_t rv_report_width(const char *s);

/* The format writers (f, r checked by the caller). */
void rv_report_text(FILE *f, const struct rv_report *r, int summary);
void rv_report_markdown(FILE *f, const struct rv_report *r, int summary);
void rv_report_json(FILE *f, const struct rv_report *r, int summary);
void rv_report_html(FILE *f, const struct rv_report *r, int summary);

/* HTML text with & < > " ' escaped (invalid UTF-8 as U+FFFD); NULL as "". */
void rv_report_html_text(FILE *f, const char *s);
/* One <svg> plot of series s of incident in. */
void rv_report_svg(FILE *f, const struct rv_report_incident *in, const struct rv_report_series *s);

#endif
