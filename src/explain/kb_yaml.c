/*
 * kb_yaml.c - the reader of rule files (docs/RULES.md). See kb_int.h.
 *
 * Like the configuration loader it walks libyaml's event stream
 * (yaml/yamlread.h), not a document tree: every value is checked where it
 * stands, so each refusal names the FILE:LINE:COL of the offending node,
 * and anchors and aliases (one node standing for two) are refused. The
 * grammar is fixed: a list of rule mappings; require/support/exclude are
 * lists of condition mappings or {any: [condition, ...]}; checks a list of
 * {cmd, why} (or a bare command). One function per level reads it. Rules
 * are built into a new array that the caller merges only when the whole
 * text was good.
 */
#include "explain/kb_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "yaml/yamlread.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

enum {
	MSG_MAX = 400,        /* the reason part of an error */
	SHOW_MAX = 48,        /* bytes of a key or value quoted in an error */
	KNOWN_MAX = 160,      /* a list of known keys */
	DEL = 0x7f,
	FIRST_PRINTABLE = 0x20,
};

enum rule_key {
	RK_ID, RK_TITLE, RK_SUBSYSTEM, RK_CAUSE, RK_FIX, RK_REQUIRE, RK_SUPPORT, RK_EXCLUDE,
	RK_CHECKS, RK_ENABLED, RK_CANDIDATES, RK_DECIDED_BY, RK_YIELDS_TO, RK_MEASURED, RK_N
};
static const char *const rule_keys[RK_N] = {
	[RK_ID] = "id", [RK_TITLE] = "title", [RK_SUBSYSTEM] = "subsystem", [RK_CAUSE] = "cause",
	[RK_FIX] = "fix", [RK_REQUIRE] = "require", [RK_SUPPORT] = "support",
	[RK_EXCLUDE] = "exclude", [RK_CHECKS] = "checks", [RK_ENABLED] = "enabled",
	[RK_CANDIDATES] = "candidates", [RK_DECIDED_BY] = "decided_by",
	[RK_YIELDS_TO] = "yields_to", [RK_MEASURED] = "measured",
};

enum cond_key { CK_SIGNAL, CK_DIR, CK_MIN_Z, CK_MIN_CHANGE, CK_MIN_VALUE, CK_MAX_VALUE,
		CK_MIN_BURST, CK_MIN_DELTA, CK_MIN_PEAK, CK_MAX_PEAK, CK_N };
static const char *const cond_keys[CK_N] = {
	[CK_SIGNAL] = "signal", [CK_DIR] = "dir", [CK_MIN_Z] = "min_z",
	[CK_MIN_CHANGE] = "min_change", [CK_MIN_VALUE] = "min_value",
	[CK_MAX_VALUE] = "max_value", [CK_MIN_BURST] = "min_burst", [CK_MIN_DELTA] = "min_delta",
	[CK_MIN_PEAK] = "min_peak", [CK_MAX_PEAK] = "max_peak",
};

enum check_key { XK_CMD, XK_WHY, XK_N };
enum measured_key { MK_FIRST, MK_RIGHT, MK_N };
static const char *const measured_keys[MK_N] = { [MK_FIRST] = "first", [MK_RIGHT] = "right" };
static const char *const check_keys[XK_N] = { [XK_CMD] = "cmd", [XK_WHY] = "why" };

static const char *const dir_names[] = {
	[KB_UP] = "up", [KB_DOWN] = "down", [KB_ANY] = "any", [KB_BURSTY] = "bursty",
	[KB_GROWS] = "grows",
};
static const char *const section_names[KB_NSECTIONS] = {
	[KB_REQUIRE] = "require", [KB_SUPPORT] = "support", [KB_EXCLUDE] = "exclude",
};
static const char *const subsystems[] = { "cpu", "gpu", "mem", "net", "storage", "other" };

/* One line (no control characters) or a paragraph (newlines and tabs too). */
enum str_kind { STR_LINE, STR_TEXT };

struct loader {
	struct rv_yaml y;            /* the event stream, name, err */
	struct rv_kb_rule **rules;   /* KB_RULES_MAX slots */
	size_t n;
};

/* Keys seen in one mapping, to refuse a repeated one. */
struct seen {
	unsigned bits;
	yaml_mark_t first[RK_N];
};
_Static_assert((int)CK_N <= (int)RK_N && (int)XK_N <= (int)RK_N, "struct seen holds the largest key set");

static int fail(struct loader *ld, yaml_mark_t m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct loader *ld, yaml_mark_t m, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return rv_err_set(ld->y.err, -EINVAL, "%s:%zu:%zu: %s", ld->y.name, m.line + 1,
			  m.column + 1, msg);
}

/* Replaces the current event with the next one. */
static int next(struct loader *ld)
{
	return rv_yaml_next(&ld->y);
}

/* s (len bytes) for an error message: printable ASCII, cut at SHOW_MAX. */
static const char *show(const char *s, size_t len, char *buf, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < len && k + 4 < n && i < SHOW_MAX; i++)
		buf[k++] = (unsigned char)s[i] < FIRST_PRINTABLE || (unsigned char)s[i] >= DEL
			 ? '?' : s[i];
	if (len > SHOW_MAX && k + 4 < n) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

static const char *scalar(const struct loader *ld)
{
	return (const char *)ld->y.ev.data.scalar.value;
}

/* Index of the current scalar in keys[0..n-1], or -1. */
static int find_word(const struct loader *ld, const char *const *keys, size_t n)
{
	if (ld->y.ev.type != YAML_SCALAR_EVENT)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (keys[i] && strlen(keys[i]) == ld->y.ev.data.scalar.length &&
		    strcmp(keys[i], scalar(ld)) == 0)
			return (int)i;
	return -1;
}

static const char *join(const char *const *words, size_t n, char *buf, size_t size)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? ", " : "", words[i]);
	return buf;
}

/*
 * The key event of a mapping entry is current: its index in keys[], after
 * refusing a non-scalar key, an unknown key (in `where`) or a repeated one.
 */
static int take_key(struct loader *ld, const char *const *keys, size_t n, const char *where,
		    struct seen *seen, int *out)
{
	const yaml_event_t *e = &ld->y.ev;
	char shown[SHOW_MAX + 8], known[KNOWN_MAX];
	int k;

	*out = -1;
	if (e->type != YAML_SCALAR_EVENT)
		return fail(ld, e->start_mark, "a key must be a name, not %s",
			    rv_yaml_node_kind(e));
	k = find_word(ld, keys, n);
	show(scalar(ld), e->data.scalar.length, shown, sizeof(shown));
	if (k < 0)
		return fail(ld, e->start_mark, "unknown key '%s' in %s (known: %s)", shown, where,
			    join(keys, n, known, sizeof(known)));
	if (seen->bits & (1u << k))
		return fail(ld, e->start_mark, "duplicate key '%s' in %s (first at %zu:%zu)", shown,
			    where, seen->first[k].line + 1, seen->first[k].column + 1);
	seen->bits |= 1u << k;
	seen->first[k] = e->start_mark;
	*out = k;
	return next(ld);
}

static int bad_byte(unsigned char c, enum str_kind kind)
{
	if (c == DEL)
		return 1;
	if (c >= FIRST_PRINTABLE)
		return 0;
	return kind == STR_LINE || (c != '\n' && c != '\t');
}

/*
 * The current event is the value of key: a string of at most max bytes
 * (trailing blanks and newlines dropped) into *out. Null is "" when
 * allow_empty, else refused like an empty string.
 */
static int take_string(struct loader *ld, const char *key, size_t max, enum str_kind kind,
		       int allow_empty, char **out)
{
	const yaml_event_t *e = &ld->y.ev;
	const char *s = scalar(ld);
	size_t len;

	if (e->type != YAML_SCALAR_EVENT)
		return fail(ld, e->start_mark, "%s: expected a single value, not %s", key,
			    rv_yaml_node_kind(e));
	len = rv_yaml_is_null(e) ? 0 : e->data.scalar.length;
	if (strlen(s) < len)
		return fail(ld, e->start_mark, "%s: contains a NUL byte", key);
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\n' || s[len - 1] == '\t'))
		len--;
	if (len == 0 && !allow_empty)
		return fail(ld, e->start_mark, "%s: must not be empty", key);
	if (len > max)
		return fail(ld, e->start_mark, "%s: longer than %zu bytes", key, max);
	for (size_t i = 0; i < len; i++)
		if (bad_byte((unsigned char)s[i], kind))
			return fail(ld, e->start_mark, "%s: control character 0x%02x in %s", key,
				    (unsigned char)s[i],
				    kind == STR_LINE ? "a one-line value" : "a text");
	*out = strndup(s, len);
	if (!*out)
		return rv_err_set(ld->y.err, -ENOMEM, "%s: out of memory", ld->y.name);
	return 0;
}

/* The current event is the value of key: a finite number. */
static int take_number(struct loader *ld, const char *key, double *out)
{
	const yaml_event_t *e = &ld->y.ev;
	char shown[SHOW_MAX + 8];
	const char *p, *end;

	if (e->type != YAML_SCALAR_EVENT)
		return fail(ld, e->start_mark, "%s: expected a number, not %s", key,
			    rv_yaml_node_kind(e));
	p = scalar(ld);
	end = p + e->data.scalar.length;
	if (rv_str_double(&p, end, out) != 0 || p != end || !isfinite(*out))
		return fail(ld, e->start_mark, "%s: bad number '%s'", key,
			    show(scalar(ld), e->data.scalar.length, shown, sizeof(shown)));
	return 0;
}

/* The current event is a value that must be one of words[0..n-1]. */
static int take_word(struct loader *ld, const char *key, const char *const *words, size_t n,
		     int *out)
{
	const yaml_event_t *e = &ld->y.ev;
	char shown[SHOW_MAX + 8], known[KNOWN_MAX];

	*out = -1;
	if (e->type != YAML_SCALAR_EVENT)
		return fail(ld, e->start_mark, "%s: expected a single value, not %s", key,
			    rv_yaml_node_kind(e));
	*out = find_word(ld, words, n);
	if (*out < 0)
		return fail(ld, e->start_mark, "%s: '%s' is not one of %s", key,
			    show(scalar(ld), e->data.scalar.length, shown, sizeof(shown)),
			    join(words, n, known, sizeof(known)));
	return 0;
}

static int take_bool(struct loader *ld, const char *key, int *out)
{
	static const char *const words[] = { "false", "true", "False", "True", "FALSE", "TRUE" };
	int k = -1, rc = take_word(ld, key, words, NELEM(words), &k);

	if (rc == 0)
		*out = k % 2;
	return rc;
}

/* ---- conditions ---- */

/* Checks a number key's range; the value event is current. */
static int cond_number(struct loader *ld, struct kb_cond *c, int k)
{
	static const unsigned bit[CK_N] = {
		[CK_MIN_Z] = KB_HAS_MIN_Z, [CK_MIN_CHANGE] = KB_HAS_MIN_CHANGE,
		[CK_MIN_VALUE] = KB_HAS_MIN_VALUE, [CK_MAX_VALUE] = KB_HAS_MAX_VALUE,
		[CK_MIN_BURST] = KB_HAS_MIN_BURST, [CK_MIN_DELTA] = KB_HAS_MIN_DELTA,
		[CK_MIN_PEAK] = KB_HAS_MIN_PEAK, [CK_MAX_PEAK] = KB_HAS_MAX_PEAK,
	};
	double *dst[CK_N] = {
		[CK_MIN_Z] = &c->min_z, [CK_MIN_CHANGE] = &c->min_change,
		[CK_MIN_VALUE] = &c->min_value, [CK_MAX_VALUE] = &c->max_value,
		[CK_MIN_BURST] = &c->min_burst, [CK_MIN_DELTA] = &c->min_delta,
		[CK_MIN_PEAK] = &c->min_peak, [CK_MAX_PEAK] = &c->max_peak,
	};
	int rc = take_number(ld, cond_keys[k], dst[k]);

	if (rc)
		return rc;
	c->has |= bit[k];
	if ((k == CK_MIN_Z || k == CK_MIN_CHANGE || k == CK_MIN_DELTA) && *dst[k] < 0)
		return fail(ld, ld->y.ev.start_mark, "%s: must be 0 or more (%s)", cond_keys[k],
			    k == CK_MIN_Z ? "a |z| threshold"
			    : k == CK_MIN_DELTA ? "a distance from the baseline, in the channel's unit"
						: "a relative change: 0.5 is 50 %");
	if (k == CK_MIN_BURST && *dst[k] <= 0)
		return fail(ld, ld->y.ev.start_mark, "min_burst: must be above 0 (a ratio of "
			    "standard deviations)");
	return 0;
}

/* The key event of one entry of a condition mapping is current. */
static int cond_entry(struct loader *ld, struct kb_cond *c, struct seen *seen)
{
	int k = -1, d = 0, rc = take_key(ld, cond_keys, CK_N, "a condition", seen, &k);

	if (rc)
		return rc;
	if (k == CK_SIGNAL)
		return take_string(ld, "signal", KB_GLOB_MAX, STR_LINE, 0, &c->glob);
	if (k != CK_DIR)
		return cond_number(ld, c, k);
	rc = take_word(ld, "dir", dir_names, NELEM(dir_names), &d);
	c->dir = (enum kb_dir)d;
	return rc;
}

static void change_text(const struct kb_cond *c, char *buf, size_t n)
{
	double pct = c->min_change * 100;

	if (c->dir == KB_UP)
		snprintf(buf, n, ", change >= +%g %%", pct);
	else if (c->dir == KB_DOWN)
		snprintf(buf, n, ", change <= -%g %%", pct);
	else
		snprintf(buf, n, ", |change| >= %g %%", pct);
}

/* "glob dir" and the thresholds the condition sets. */
static char *what_text(const struct kb_cond *c)
{
	char buf[KB_WHAT_MAX], part[KB_WHAT_MAX / 4];
	size_t k = (size_t)snprintf(buf, sizeof(buf), "%s %s", c->glob, dir_names[c->dir]);

	if ((c->has & KB_HAS_MIN_Z) && k < sizeof(buf))
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, ", |z| >= %g", c->min_z);
	if ((c->has & KB_HAS_MIN_BURST) && k < sizeof(buf))
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, ", burst >= %g", c->min_burst);
	if ((c->has & KB_HAS_MIN_CHANGE) && k < sizeof(buf)) {
		change_text(c, part, sizeof(part));
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s", part);
	}
	if ((c->has & KB_HAS_MIN_DELTA) && k < sizeof(buf))
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, ", |value - baseline| >= %g",
				      c->min_delta);
	if ((c->has & KB_HAS_MIN_VALUE) && k < sizeof(buf))
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, ", value >= %g", c->min_value);
	if ((c->has & KB_HAS_MAX_VALUE) && k < sizeof(buf))
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, ", value <= %g", c->max_value);
	if ((c->has & KB_HAS_MIN_PEAK) && k < sizeof(buf))
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, ", peak >= %g", c->min_peak);
	if ((c->has & KB_HAS_MAX_PEAK) && k < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - k, ", peak <= %g", c->max_peak);
	return strdup(buf);
}

/* A condition mapping ended (start at m): complete it. */
static int finish_cond(struct loader *ld, struct kb_cond *c, const struct seen *seen,
		       yaml_mark_t m)
{
	if (!c->glob)
		return fail(ld, m, "a condition needs a signal (a pattern of channel names)");
	if (!(seen->bits & (1u << CK_DIR)))
		return fail(ld, m, "condition on '%s': needs a dir (up, down, any, bursty or grows)",
			    c->glob);
	if ((c->has & KB_HAS_MIN_VALUE) && (c->has & KB_HAS_MAX_VALUE) &&
	    c->min_value > c->max_value)
		return fail(ld, m, "condition on '%s': min_value %g is above max_value %g", c->glob,
			    c->min_value, c->max_value);
	if (!(c->has & KB_HAS_MIN_Z))
		c->min_z = KB_MIN_Z_DEFAULT;
	if (!(c->has & KB_HAS_MIN_BURST))
		c->min_burst = KB_MIN_BURST_DEFAULT;
	c->skew = strstr(c->glob, "cpu_skew") != NULL;
	c->what = what_text(c);
	if (!c->what)
		return rv_err_set(ld->y.err, -ENOMEM, "%s: out of memory", ld->y.name);
	return 0;
}

/* A new condition slot of rule r; m is where it starts (for the limit). */
static int new_cond(struct loader *ld, struct rv_kb_rule *r, yaml_mark_t m, struct kb_cond **c)
{
	*c = NULL;
	if (r->nconds >= KB_CONDS_MAX)
		return fail(ld, m, "more than %d conditions in one rule", KB_CONDS_MAX);
	*c = &r->conds[r->nconds++];
	return 0;
}

/* The MAPPING_START of a plain condition (a member of any:) is current. */
static int load_plain_cond(struct loader *ld, struct rv_kb_rule *r)
{
	yaml_mark_t m = ld->y.ev.start_mark;
	struct seen seen = { 0 };
	struct kb_cond *c = NULL;
	int rc = new_cond(ld, r, m, &c);

	while (rc == 0 && (rc = next(ld)) == 0 && ld->y.ev.type != YAML_MAPPING_END_EVENT) {
		if (ld->y.ev.type == YAML_SCALAR_EVENT && strcmp(scalar(ld), "any") == 0)
			return fail(ld, ld->y.ev.start_mark, "any: cannot be nested");
		rc = cond_entry(ld, c, &seen);
	}
	return rc ? rc : finish_cond(ld, c, &seen, m);
}

/* The value of any: is current: a list of condition mappings. */
static int load_any(struct loader *ld, struct rv_kb_rule *r, struct kb_item *it)
{
	yaml_mark_t m = ld->y.ev.start_mark;
	int rc;

	if (ld->y.ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(ld, m, "any: expected a list of conditions, not %s",
			    rv_yaml_node_kind(&ld->y.ev));
	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_SEQUENCE_END_EVENT) {
		if (ld->y.ev.type != YAML_MAPPING_START_EVENT)
			return fail(ld, ld->y.ev.start_mark, "any: a condition is a mapping "
				    "({signal: ..., dir: ...}), not %s",
				    rv_yaml_node_kind(&ld->y.ev));
		if (it->n >= KB_ANY_MAX)
			return fail(ld, ld->y.ev.start_mark, "more than %d conditions in one any:",
				    KB_ANY_MAX);
		if ((rc = load_plain_cond(ld, r)))
			return rc;
		it->n++;
	}
	if (rc == 0 && it->n == 0)
		return fail(ld, m, "any: needs at least one condition");
	return rc;
}

/* The MAPPING_START of an item of require/support/exclude is current. */
static int load_item(struct loader *ld, struct rv_kb_rule *r, enum kb_section sec)
{
	yaml_mark_t m = ld->y.ev.start_mark;
	struct kb_item *it;
	struct seen seen = { 0 };
	struct kb_cond *c = NULL;
	int rc;

	if (r->nitems >= KB_ITEMS_MAX)
		return fail(ld, m, "more than %d items in require, support and exclude",
			    KB_ITEMS_MAX);
	it = &r->items[r->nitems++];
	*it = (struct kb_item){ .section = (unsigned char)sec, .first = (unsigned char)r->nconds };
	if ((rc = next(ld)))
		return rc;
	if (ld->y.ev.type == YAML_MAPPING_END_EVENT)
		return fail(ld, m, "an empty condition");
	if (ld->y.ev.type == YAML_SCALAR_EVENT && strcmp(scalar(ld), "any") == 0) {
		if ((rc = next(ld)) || (rc = load_any(ld, r, it)) || (rc = next(ld)))
			return rc;
		if (ld->y.ev.type != YAML_MAPPING_END_EVENT)
			return fail(ld, ld->y.ev.start_mark,
				    "any: must be the only key of its item");
		return 0;
	}
	if ((rc = new_cond(ld, r, m, &c)))
		return rc;
	it->n = 1;
	do {
		if (ld->y.ev.type == YAML_SCALAR_EVENT && strcmp(scalar(ld), "any") == 0)
			return fail(ld, ld->y.ev.start_mark,
				    "any: must be the only key of its item");
		if ((rc = cond_entry(ld, c, &seen)))
			return rc;
	} while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_MAPPING_END_EVENT);
	return rc ? rc : finish_cond(ld, c, &seen, m);
}

/* The value of require/support/exclude is current: a list, or null. */
static int load_section(struct loader *ld, struct rv_kb_rule *r, enum kb_section sec)
{
	int rc;

	if (rv_yaml_is_null(&ld->y.ev))
		return 0;
	if (ld->y.ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(ld, ld->y.ev.start_mark, "%s: expected a list of conditions, not %s",
			    section_names[sec], rv_yaml_node_kind(&ld->y.ev));
	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_SEQUENCE_END_EVENT) {
		if (ld->y.ev.type != YAML_MAPPING_START_EVENT)
			return fail(ld, ld->y.ev.start_mark, "%s: a condition is a mapping "
				    "({signal: ..., dir: ...} or {any: [...]}), not %s",
				    section_names[sec], rv_yaml_node_kind(&ld->y.ev));
		if ((rc = load_item(ld, r, sec)))
			return rc;
	}
	return rc;
}

/* ---- checks ---- */

static int load_check_map(struct loader *ld, struct rv_kb_rule *r, size_t i)
{
	yaml_mark_t m = ld->y.ev.start_mark;
	struct seen seen = { 0 };
	int k = -1, rc;

	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_MAPPING_END_EVENT) {
		if ((rc = take_key(ld, check_keys, XK_N, "a check", &seen, &k)))
			return rc;
		rc = k == XK_CMD ? take_string(ld, "cmd", KB_CMD_MAX, STR_LINE, 0, &r->check[i])
				 : take_string(ld, "why", KB_WHY_MAX, STR_LINE, 1, &r->why[i]);
		if (rc)
			return rc;
	}
	if (rc == 0 && !r->check[i])
		return fail(ld, m, "a check needs a cmd (the command to run)");
	return rc;
}

/* The value of checks: is current: a list of {cmd, why} or of commands. */
static int load_checks(struct loader *ld, struct rv_kb_rule *r)
{
	int rc;

	if (rv_yaml_is_null(&ld->y.ev))
		return 0;
	if (ld->y.ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(ld, ld->y.ev.start_mark, "checks: expected a list, not %s",
			    rv_yaml_node_kind(&ld->y.ev));
	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_SEQUENCE_END_EVENT) {
		size_t i = r->nchecks;

		if (i >= KB_CHECKS_MAX)
			return fail(ld, ld->y.ev.start_mark, "more than %d checks in one rule",
				    KB_CHECKS_MAX);
		r->nchecks++;
		if (ld->y.ev.type == YAML_MAPPING_START_EVENT)
			rc = load_check_map(ld, r, i);
		else if (ld->y.ev.type == YAML_SCALAR_EVENT)
			rc = take_string(ld, "checks", KB_CMD_MAX, STR_LINE, 0, &r->check[i]);
		else
			rc = fail(ld, ld->y.ev.start_mark, "checks: a check is "
				  "{cmd: ..., why: ...} or a command, not a list");
		if (rc == 0 && !r->why[i] && !(r->why[i] = strdup("")))
			rc = rv_err_set(ld->y.err, -ENOMEM, "%s: out of memory", ld->y.name);
		if (rc)
			return rc;
	}
	return rc;
}

/* ---- rules ---- */

/* The current event is a rule id (key says where: "id", "candidates"). */
static int take_id(struct loader *ld, const char *key, char **out)
{
	yaml_mark_t m = ld->y.ev.start_mark;
	int rc = take_string(ld, key, KB_ID_MAX, STR_LINE, 0, out);

	if (rc)
		return rc;
	for (const char *p = *out; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return fail(ld, m, "%s '%s': only letters, digits, '-', '_' and '.'",
				    key, *out);
	return 0;
}

/* The value of key (candidates:, yields_to:) is current: a list of at most
 * max rule ids, none repeated, into ids[*n]. */
static int load_ids(struct loader *ld, const char *key, char **ids, size_t *n, size_t max)
{
	yaml_mark_t m = ld->y.ev.start_mark;
	int rc;

	if (ld->y.ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(ld, m, "%s: expected a list of rule ids, not %s", key,
			    rv_yaml_node_kind(&ld->y.ev));
	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_SEQUENCE_END_EVENT) {
		yaml_mark_t at = ld->y.ev.start_mark;

		if (*n >= max)
			return fail(ld, at, "%s: more than %zu rule ids", key, max);
		rc = take_id(ld, key, &ids[*n]);
		(*n)++;          /* the rule frees it, also when refused */
		if (rc)
			return rc;
		for (size_t i = 0; i + 1 < *n; i++)
			if (strcmp(ids[i], ids[*n - 1]) == 0)
				return fail(ld, at, "%s: '%s' twice", key, ids[*n - 1]);
	}
	return rc;
}

/* The value of measured: is current: {first: N, right: K}, 0 <= K <= N. */
static int load_measured(struct loader *ld, struct rv_kb_rule *r)
{
	yaml_mark_t m = ld->y.ev.start_mark;
	struct seen seen = { 0 };
	double v[MK_N] = { 0 };
	int k = -1, rc;

	if (ld->y.ev.type != YAML_MAPPING_START_EVENT)
		return fail(ld, m, "measured: expected {first: N, right: K}, not %s",
			    rv_yaml_node_kind(&ld->y.ev));
	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_MAPPING_END_EVENT) {
		if ((rc = take_key(ld, measured_keys, MK_N, "measured", &seen, &k)) ||
		    (rc = take_number(ld, measured_keys[k], &v[k])))
			return rc;
		if (v[k] < 0 || v[k] > KB_MEASURED_MAX || v[k] != floor(v[k]))
			return fail(ld, ld->y.ev.start_mark, "measured: %s: a count of incidents "
				    "(a whole number, 0 to %d)", measured_keys[k], KB_MEASURED_MAX);
	}
	if (rc)
		return rc;
	if (seen.bits != (1u << MK_N) - 1)
		return fail(ld, m, "measured: needs both first (incidents where the rule came "
			    "first) and right (of those, the ones it named rightly)");
	if (v[MK_RIGHT] > v[MK_FIRST])
		return fail(ld, m, "measured: right %g is more than first %g", v[MK_RIGHT],
			    v[MK_FIRST]);
	r->has_measured = 1;
	r->measured_first = (unsigned)v[MK_FIRST];
	r->measured_right = (unsigned)v[MK_RIGHT];
	return 0;
}

/* The value event of rule key k is current. */
static int rule_value(struct loader *ld, struct rv_kb_rule *r, int k)
{
	int s = -1;

	switch (k) {
	case RK_ID: return take_id(ld, "id", &r->id);
	case RK_TITLE: return take_string(ld, "title", KB_TITLE_MAX, STR_LINE, 0, &r->title);
	case RK_CAUSE: return take_string(ld, "cause", KB_TEXT_MAX, STR_TEXT, 0, &r->cause);
	case RK_FIX: return take_string(ld, "fix", KB_TEXT_MAX, STR_TEXT, 1, &r->fix);
	case RK_REQUIRE: return load_section(ld, r, KB_REQUIRE);
	case RK_SUPPORT: return load_section(ld, r, KB_SUPPORT);
	case RK_EXCLUDE: return load_section(ld, r, KB_EXCLUDE);
	case RK_CHECKS: return load_checks(ld, r);
	case RK_ENABLED: return take_bool(ld, "enabled", &r->enabled);
	case RK_CANDIDATES:
		return load_ids(ld, "candidates", r->candidate, &r->ncandidates, KB_CANDIDATES_MAX);
	case RK_MEASURED: return load_measured(ld, r);
	case RK_YIELDS_TO:
		return load_ids(ld, "yields_to", r->yields_to, &r->nyields, KB_YIELDS_MAX);
	case RK_DECIDED_BY:
		return take_string(ld, "decided_by", KB_TEXT_MAX, STR_TEXT, 0, &r->decided_by);
	default: break;
	}
	if (take_word(ld, "subsystem", subsystems, NELEM(subsystems), &s))
		return -EINVAL;
	r->subsystem = strdup(subsystems[s]);
	return r->subsystem ? 0 : rv_err_set(ld->y.err, -ENOMEM, "%s: out of memory", ld->y.name);
}

static size_t count_section(const struct rv_kb_rule *r, enum kb_section sec)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nitems; i++)
		n += r->items[i].section == sec;
	return n;
}

/* A rule mapping ended (start at m): check what it must have, fill defaults. */
static int finish_rule(struct loader *ld, struct rv_kb_rule *r, yaml_mark_t m)
{
	if (!r->id)
		return fail(ld, m, "a rule needs an id");
	for (size_t i = 0; i < ld->n; i++)
		if (strcmp(ld->rules[i]->id, r->id) == 0)
			return fail(ld, m, "duplicate id '%s' (first at %zu:%zu)", r->id,
				    ld->rules[i]->line, ld->rules[i]->col);
	if (r->enabled && !r->title)
		return fail(ld, m, "rule '%s': needs a title", r->id);
	if (r->enabled && !r->cause)
		return fail(ld, m, "rule '%s': needs a cause", r->id);
	if (r->enabled && count_section(r, KB_REQUIRE) == 0)
		return fail(ld, m, "rule '%s': needs require: with at least one condition", r->id);
	if (r->ncandidates == 1)
		return fail(ld, m, "rule '%s': candidates: needs at least two rule ids (the causes "
			    "that remain undecided)", r->id);
	if (!r->ncandidates != !r->decided_by)
		return fail(ld, m, "rule '%s': candidates and decided_by go together (an "
			    "undecided rule names both)", r->id);
	for (size_t i = 0; i < r->ncandidates; i++)
		if (strcmp(r->candidate[i], r->id) == 0)
			return fail(ld, m, "rule '%s': candidates: a rule cannot stand for itself",
				    r->id);
	for (size_t i = 0; i < r->nyields; i++)
		if (strcmp(r->yields_to[i], r->id) == 0)
			return fail(ld, m, "rule '%s': yields_to: a rule cannot yield to itself",
				    r->id);
	if (!r->subsystem)
		r->subsystem = strdup("other");
	if (!r->fix)
		r->fix = strdup("");
	if (!r->subsystem || !r->fix)
		return rv_err_set(ld->y.err, -ENOMEM, "%s: out of memory", ld->y.name);
	return 0;
}

/* The MAPPING_START of a rule is current; the rule is added to ld->rules. */
static int load_rule(struct loader *ld)
{
	yaml_mark_t m = ld->y.ev.start_mark;
	struct seen seen = { 0 };
	struct rv_kb_rule *r;
	int k = -1, rc;

	if (ld->n >= KB_RULES_MAX)
		return fail(ld, m, "more than %d rules in one file", KB_RULES_MAX);
	r = calloc(1, sizeof(*r));
	if (!r)
		return rv_err_set(ld->y.err, -ENOMEM, "%s: out of memory", ld->y.name);
	r->enabled = 1;
	r->line = m.line + 1;
	r->col = m.column + 1;
	while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_MAPPING_END_EVENT) {
		if ((rc = take_key(ld, rule_keys, RK_N, "a rule", &seen, &k)) ||
		    (rc = rule_value(ld, r, k)))
			break;
	}
	if (rc == 0)
		rc = finish_rule(ld, r, m);
	if (rc) {
		rv_kb_rule_free(r);
		return rc;
	}
	ld->rules[ld->n++] = r;
	return 0;
}

/* Stream: nothing, or one document whose root is a list of rules (or null). */
static int load_stream(struct loader *ld)
{
	int rc = rv_yaml_root(&ld->y);

	if (rc || ld->y.ev.type == YAML_STREAM_END_EVENT)
		return rc;
	if (ld->y.ev.type == YAML_SEQUENCE_START_EVENT) {
		while ((rc = next(ld)) == 0 && ld->y.ev.type != YAML_SEQUENCE_END_EVENT) {
			if (ld->y.ev.type != YAML_MAPPING_START_EVENT)
				return fail(ld, ld->y.ev.start_mark, "a rule is a mapping "
					    "(id:, title:, ...), not %s",
					    rv_yaml_node_kind(&ld->y.ev));
			if ((rc = load_rule(ld)))
				return rc;
		}
	} else if (!rv_yaml_is_null(&ld->y.ev)) {
		return fail(ld, ld->y.ev.start_mark, "a rules file is a list of rules "
			    "('- id: ...'), not %s", rv_yaml_node_kind(&ld->y.ev));
	}
	return rc ? rc : rv_yaml_end(&ld->y);
}

static void drop_rules(struct loader *ld)
{
	for (size_t i = 0; i < ld->n; i++)
		rv_kb_rule_free(ld->rules[i]);
	free(ld->rules);
	ld->rules = NULL;
	ld->n = 0;
}

int rv_kb_parse(const char *name, const char *text, size_t len, struct rv_kb_rule ***rules,
		size_t *n, struct rv_err *err)
{
	struct loader *ld;
	int rc;

	*rules = NULL;
	*n = 0;
	name = name ? name : "<rules>";
	if (len > KB_FILE_MAX)
		return rv_err_set(err, -EINVAL, "%s:1:1: larger than %d bytes; not a rules file",
				  name, KB_FILE_MAX);
	if (!text && len)
		return rv_err_set(err, -EINVAL, "%s:1:1: no text", name);
	ld = calloc(1, sizeof(*ld));
	if (!ld || !(ld->rules = calloc(KB_RULES_MAX, sizeof(*ld->rules)))) {
		free(ld);
		return rv_err_set(err, -ENOMEM, "%s: out of memory", name);
	}
	rc = rv_yaml_init(&ld->y, name, text ? text : "", len, SHOW_MAX, err);
	if (rc == 0) {
		rc = load_stream(ld);
		rv_yaml_fini(&ld->y);
	}
	if (rc)
		drop_rules(ld);
	*rules = ld->rules;
	*n = ld->n;
	free(ld);
	return rc;
}
