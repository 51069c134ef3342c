/*
 * yamlread.h - libyaml's event stream with FILE:LINE:COL errors: the part
 * of a YAML reader that does not depend on what the file means. Shared by
 * the configuration loader (config/config_load.c) and the rule file reader
 * (explain/kb_yaml.c), which each embed a struct rv_yaml in their own
 * loader and walk the events with rv_yaml_next.
 *
 * Every refusal goes to the caller's struct rv_err as "NAME:LINE:COL: ..."
 * (1-based), the way the loaders word their own. A libyaml syntax or
 * encoding error is placed at the problem (an encoding error, which libyaml
 * reports by byte offset only, at the line and column of that byte), with
 * libyaml's context and its place when it gives one. Anchors and aliases
 * are refused: they would let one node stand for two. Not goals: documents
 * as trees, tags, writing YAML.
 */
#ifndef RV_YAML_YAMLREAD_H
#define RV_YAML_YAMLREAD_H

#include <stddef.h>

#include <yaml.h>

#include "base/err.h"

/* One pass over a text; embedded in the caller's loader. */
struct rv_yaml {
	yaml_parser_t parser;
	yaml_event_t ev;        /* the current event, once rv_yaml_next returned 0 */
	int have_ev;            /* ev holds an event to delete */
	const char *name;       /* the file as errors name it */
	const char *text;       /* not owned; must outlive the reader */
	size_t len;
	int quote_max;          /* bytes of an anchor or alias name quoted in an error */
	struct rv_err *err;     /* may be NULL */
};

/*
 * Starts reading len bytes of text (not NUL-terminated; not NULL) named
 * name in errors, which both must outlive y. Returns 0, or -ENOMEM
 * ("NAME: out of memory") and then y needs no rv_yaml_fini.
 */
int rv_yaml_init(struct rv_yaml *y, const char *name, const char *text, size_t len,
		 int quote_max, struct rv_err *err);

/* Deletes the current event and the parser. */
void rv_yaml_fini(struct rv_yaml *y);

/*
 * Replaces the current event with the next one. Returns 0, -EINVAL on a
 * syntax or encoding error, an anchor or an alias, or -ENOMEM; err is set.
 * After an error, ev is not an event to read.
 */
int rv_yaml_next(struct rv_yaml *y);

/*
 * Steps from the start of the text to the root of its document: returns 0
 * with ev the root's first event, or STREAM_END when the text holds no
 * document (nothing, or comments only); or rv_yaml_next's error.
 */
int rv_yaml_root(struct rv_yaml *y);

/*
 * After the root node's last event: steps over the document's end to the
 * end of the stream. Returns 0, rv_yaml_next's error, or -EINVAL for a
 * second document ("only one YAML document is allowed").
 */
int rv_yaml_end(struct rv_yaml *y);

/* "NAME:LINE:COL: " for a libyaml mark (0-based) into buf (n bytes);
 * returns buf. */
const char *rv_yaml_at(const struct rv_yaml *y, yaml_mark_t m, char *buf, size_t n);

/* 1 when e is YAML's null: an empty plain scalar, "~" or "null" (also
 * "Null", "NULL"); else 0. */
int rv_yaml_is_null(const yaml_event_t *e);

/* "a mapping", "a list" or "a single value": what e starts, for messages. */
const char *rv_yaml_node_kind(const yaml_event_t *e);

#endif
