/*
 * yamlread.c - libyaml's event stream with FILE:LINE:COL errors. See
 * yamlread.h.
 */
#include "yaml/yamlread.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

int rv_yaml_init(struct rv_yaml *y, const char *name, const char *text, size_t len,
		 int quote_max, struct rv_err *err)
{
	*y = (struct rv_yaml){ .name = name, .text = text, .len = len, .quote_max = quote_max,
			       .err = err };
	if (!yaml_parser_initialize(&y->parser))
		return rv_err_set(err, -ENOMEM, "%s: out of memory", name);
	yaml_parser_set_input_string(&y->parser, (const unsigned char *)text, len);
	return 0;
}

void rv_yaml_fini(struct rv_yaml *y)
{
	if (y->have_ev)
		yaml_event_delete(&y->ev);
	y->have_ev = 0;
	yaml_parser_delete(&y->parser);
}

const char *rv_yaml_at(const struct rv_yaml *y, yaml_mark_t m, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%zu:%zu: ", y->name, m.line + 1, m.column + 1);
	return buf;
}

/* A mark for a byte offset (reader errors carry only the offset). */
static yaml_mark_t offset_mark(const struct rv_yaml *y, size_t off)
{
	yaml_mark_t m = { .index = off };
	size_t line_start = 0;

	for (size_t i = 0; i < off && i < y->len; i++)
		if (y->text[i] == '\n') {
			m.line++;
			line_start = i + 1;
		}
	m.column = off - line_start;
	return m;
}

static int syntax_error(const struct rv_yaml *y)
{
	const yaml_parser_t *p = &y->parser;
	yaml_mark_t m = p->error == YAML_READER_ERROR ? offset_mark(y, p->problem_offset)
						      : p->problem_mark;
	const char *what = p->problem ? p->problem : "YAML syntax error";

	if (p->error == YAML_MEMORY_ERROR)
		return rv_err_set(y->err, -ENOMEM, "%s: out of memory", y->name);
	if (p->context)
		return rv_err_set(y->err, -EINVAL, "%s:%zu:%zu: %s (%s at %zu:%zu)", y->name,
				  m.line + 1, m.column + 1, what, p->context,
				  p->context_mark.line + 1, p->context_mark.column + 1);
	return rv_err_set(y->err, -EINVAL, "%s:%zu:%zu: %s", y->name, m.line + 1, m.column + 1,
			  what);
}

/* Anchors and aliases would let one node stand for two; refused. */
static int refuse_anchor(const struct rv_yaml *y)
{
	const yaml_event_t *e = &y->ev;
	const yaml_char_t *anchor = e->type == YAML_SCALAR_EVENT ? e->data.scalar.anchor
		: e->type == YAML_MAPPING_START_EVENT ? e->data.mapping_start.anchor
		: e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor : NULL;
	const char *what = "anchors (&";

	if (e->type == YAML_ALIAS_EVENT) {
		anchor = e->data.alias.anchor;
		what = "aliases (*";
	}
	if (!anchor)
		return 0;
	return rv_err_set(y->err, -EINVAL, "%s:%zu:%zu: %s%.*s) are not supported", y->name,
			  e->start_mark.line + 1, e->start_mark.column + 1, what, y->quote_max,
			  (const char *)anchor);
}

int rv_yaml_next(struct rv_yaml *y)
{
	if (y->have_ev)
		yaml_event_delete(&y->ev);
	y->have_ev = 0;
	if (!yaml_parser_parse(&y->parser, &y->ev))
		return syntax_error(y);
	y->have_ev = 1;
	return refuse_anchor(y);
}

int rv_yaml_root(struct rv_yaml *y)
{
	int rc;

	/* STREAM_START, then DOCUMENT_START or STREAM_END */
	if ((rc = rv_yaml_next(y)) || (rc = rv_yaml_next(y)))
		return rc;
	if (y->ev.type == YAML_STREAM_END_EVENT)
		return 0;
	return rv_yaml_next(y);
}

int rv_yaml_end(struct rv_yaml *y)
{
	int rc;

	if ((rc = rv_yaml_next(y)) || (rc = rv_yaml_next(y)))  /* DOCUMENT_END, STREAM_END */
		return rc;
	if (y->ev.type != YAML_STREAM_END_EVENT)
		return rv_err_set(y->err, -EINVAL, "%s:%zu:%zu: only one YAML document is allowed",
				  y->name, y->ev.start_mark.line + 1, y->ev.start_mark.column + 1);
	return 0;
}

int rv_yaml_is_null(const yaml_event_t *e)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (e->type != YAML_SCALAR_EVENT || e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (size_t i = 0; i < NELEM(nulls); i++)
		if (strcmp((const char *)e->data.scalar.value, nulls[i]) == 0)
			return 1;
	return 0;
}

const char *rv_yaml_node_kind(const yaml_event_t *e)
{
	return e->type == YAML_MAPPING_START_EVENT ? "a mapping"
	     : e->type == YAML_SEQUENCE_START_EVENT ? "a list" : "a single value";
}
