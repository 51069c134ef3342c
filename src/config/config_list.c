/*
 * config_list.c - the keys whose value is a list of strings
 * (collect.exclude, remote_write.channels, .labels, .headers; an action's
 * on, subsystems, command and headers): the rule
 * each key's items follow, reading a list item by item (YAML sequences)
 * or from comma-separated text (rv_config_set, a YAML scalar), storing it,
 * checking a stored one again, and reading it back for the writer. See
 * config_int.h.
 *
 * A list is all or nothing: items go into a struct rv_cfg_list first and
 * replace the field only when every one passed. The field of a K_LIST key
 * is char[max][size / max] (max = the row's max) with its size_t count
 * right after it; the asserts below hold every list of struct rv_config to
 * that, so one piece of code serves lists of every item size.
 */
#include "config/config_int.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#define COUNT_FOLLOWS(items, count)                                                       \
	_Static_assert(offsetof(struct rv_config, count) ==                               \
			       offsetof(struct rv_config, items) +                        \
				       sizeof(((struct rv_config *)0)->items),            \
		       #count " must follow " #items)

COUNT_FOLLOWS(collect.exclude, collect.n_exclude);
_Static_assert(offsetof(struct rv_cfg_list, n) == sizeof(((struct rv_cfg_list *)0)->item),
	       "rv_cfg_list: n must follow item");
_Static_assert(RV_CFG_EXCLUDE_MAX <= RV_CFG_LIST_MAX && RV_CFG_NAME_MAX <= RV_CFG_ITEM_MAX,
	       "collect.exclude is read into a struct rv_cfg_list");

/* Why an item is refused, as the rest of a message after the item. */
typedef int problem_fn(const char *s, size_t len, const struct rv_cfg_list *before,
		       char *why, size_t n);

struct item_rule {
	unsigned flag;        /* enum rv_cfg_flag: K_NAMES, ... */
	const char *a;        /* "a source name": expected a source name, not a list */
	const char *noun;     /* "name": name 3 is not ... */
	const char *plural;   /* "names": more than 32 names */
	problem_fn *problem;
};

/* Labels the agent puts on its series itself (instance may be overridden). */
static const char *const own_labels[] = {
	"node", "channel", "subsystem", "detector", "fact", "value", NULL,
};

/* Headers the remote-write protocol sets (Authorization is refused apart:
 * the configuration holds no secret). */
static const char *const own_headers[] = {
	"Content-Type", "Content-Encoding", "Content-Length", "Transfer-Encoding",
	"X-Prometheus-Remote-Write-Version", NULL,
};

/* Headers the agent sets on a webhook's POST. */
static const char *const webhook_headers[] = {
	"Content-Type", "Content-Length", "Transfer-Encoding", NULL,
};

/* The events an action runs on, by enum rv_cfg_event. */
static const char *const event_names[] = { "open", "close", NULL };

__attribute__((format(printf, 3, 4)))
static int say(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_alpha(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int is_ctl(char ch)
{
	return (unsigned char)ch < 0x20 || ch == 0x7f;
}

/* 1 when an item of before has the name s (len bytes) before its sep;
 * case-insensitive when nocase. */
static int same_name(const struct rv_cfg_list *before, const char *s, size_t len, char sep,
		     int nocase)
{
	for (size_t i = 0; i < before->n; i++) {
		const char *t = before->item[i], *end = strchr(t, sep);

		if (!end || (size_t)(end - t) != len)
			continue;
		if (nocase ? strncasecmp(t, s, len) == 0 : memcmp(t, s, len) == 0)
			return 1;
	}
	return 0;
}

/* One of names equals len bytes of s (case-insensitive when nocase). */
static int listed(const char *const *names, const char *s, size_t len, int nocase)
{
	for (size_t i = 0; names[i]; i++)
		if (strlen(names[i]) == len &&
		    (nocase ? strncasecmp(names[i], s, len) : memcmp(names[i], s, len)) == 0)
			return 1;
	return 0;
}

/* A source name: letters, digits, '.', '_', '-'; shorter than RV_CFG_NAME_MAX. */
static int name_problem(const char *s, size_t len, const struct rv_cfg_list *before,
			char *why, size_t n)
{
	int ok = len > 0 && len < RV_CFG_NAME_MAX;

	for (size_t i = 0; ok && i < len; i++)
		ok = is_alpha(s[i]) || is_digit(s[i]) || s[i] == '.' || s[i] == '_' ||
		     s[i] == '-';
	if (ok)
		return 0;
	return say(why, n, "is not a source name (letters, digits, '.', '_', '-'; at most %d)",
		   RV_CFG_NAME_MAX - 1);
}

/* An fnmatch pattern of channel names. */
static int glob_problem(const char *s, size_t len, const struct rv_cfg_list *before,
			char *why, size_t n)
{
	if (len == 0)
		return say(why, n, "is not a pattern of channel names (like gpu.* or mem.*_bytes)");
	for (size_t i = 0; i < len; i++)
		if (is_ctl(s[i]))
			return say(why, n, "contains a control character");
	return 0;
}

/* "name=value": a Prometheus label name that is not the agent's, a value. */
static int label_problem(const char *s, size_t len, const struct rv_cfg_list *before,
			 char *why, size_t n)
{
	const char *eq = memchr(s, '=', len);
	size_t nl = eq ? (size_t)(eq - s) : 0;
	int ok = nl > 0 && !is_digit(s[0]);

	if (!eq)
		return say(why, n, "is not name=value (like cluster=eu1)");
	for (size_t i = 0; ok && i < nl; i++)
		ok = is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_';
	if (!ok)
		return say(why, n, "has a name that is not a label name ([a-zA-Z_][a-zA-Z0-9_]*)");
	if (nl >= 2 && s[0] == '_' && s[1] == '_')
		return say(why, n, "has a name starting with '__', which Prometheus reserves");
	if (listed(own_labels, s, nl, 0))
		return say(why, n, "sets a label the agent sets itself (node, channel, subsystem, "
			   "detector, fact, value; instance may be set)");
	if (nl + 1 == len)
		return say(why, n, "has an empty value");
	if (same_name(before, s, nl, '=', 0))
		return say(why, n, "sets label '%.*s' a second time", (int)nl, s);
	return 0;
}

/* A tchar of RFC 9110: letters, digits and !#$%&'*+-.^_`|~ */
static int is_tchar(char ch)
{
	return is_alpha(ch) || is_digit(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/* "Name: value": an HTTP header name, a value on one line, not one of own
 * (which own_what names in the message). */
static int any_header_problem(const char *s, size_t len, const struct rv_cfg_list *before,
			      const char *const *own, const char *own_what, char *why, size_t n)
{
	const char *colon = memchr(s, ':', len), *v, *end = s + len;
	size_t nl = colon ? (size_t)(colon - s) : 0;
	int ok = nl > 0;

	if (!colon)
		return say(why, n, "is not 'Name: value' (like 'X-Scope-OrgID: tenant1')");
	for (size_t i = 0; ok && i < nl; i++)
		ok = is_tchar(s[i]);
	if (!ok)
		return say(why, n, "has a name that is not an HTTP token (letters, digits, "
			   "!#$%%&'*+-.^_`|~)");
	for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	for (const char *p = v; p < end; p++)
		if (is_ctl(*p) && *p != '\t')
			return say(why, n, "contains a line break or control character");
	if (v == end)
		return say(why, n, "has an empty value");
	if (nl == strlen("Authorization") && strncasecmp(s, "Authorization", nl) == 0)
		return say(why, n, "would put a secret in the configuration: use username and "
			   "password_file, or bearer_token_file");
	if (listed(own, s, nl, 1))
		return say(why, n, "%s", own_what);
	if (same_name(before, s, nl, ':', 1))
		return say(why, n, "sets header '%.*s' a second time", (int)nl, s);
	return 0;
}

static int header_problem(const char *s, size_t len, const struct rv_cfg_list *before,
			  char *why, size_t n)
{
	return any_header_problem(s, len, before, own_headers, "sets a header of the "
				  "remote-write protocol, which the agent sets itself", why, n);
}

static int webhook_header_problem(const char *s, size_t len, const struct rv_cfg_list *before,
				  char *why, size_t n)
{
	return any_header_problem(s, len, before, webhook_headers, "sets a header the agent "
				  "sets itself (Content-Type, Content-Length, Transfer-Encoding)",
				  why, n);
}

/* One of names, not an item of before already. */
static int choice_problem(const char *s, size_t len, const struct rv_cfg_list *before,
			  const char *const *names, const char *what, char *why, size_t n)
{
	char all[CFG_LIST_TEXT_MAX];
	size_t used = 0;

	for (size_t i = 0; i < before->n; i++)
		if (strlen(before->item[i]) == len && memcmp(before->item[i], s, len) == 0)
			return say(why, n, "is named a second time");
	if (listed(names, s, len, 0))
		return 0;
	all[0] = '\0';
	for (size_t i = 0; names[i] && used < sizeof(all); i++)
		used += (size_t)snprintf(all + used, sizeof(all) - used, "%s%s", i ? ", " : "",
					 names[i]);
	return say(why, n, "is not %s (%s)", what, all);
}

static int event_problem(const char *s, size_t len, const struct rv_cfg_list *before,
			 char *why, size_t n)
{
	return choice_problem(s, len, before, event_names, "an event", why, n);
}

static int subsystem_problem(const char *s, size_t len, const struct rv_cfg_list *before,
			     char *why, size_t n)
{
	return choice_problem(s, len, before, rv_cfg_subsystem_names, "a subsystem", why, n);
}

/* An argument: any text (UTF-8 without NUL, checked before); the program,
 * the first, must not be empty (config_actions.c). */
static int arg_problem(const char *s, size_t len, const struct rv_cfg_list *before,
		       char *why, size_t n)
{
	return 0;
}

static const struct item_rule rules[] = {
	{ K_NAMES, "a source name", "name", "names", name_problem },
	{ K_GLOBS, "a pattern of channel names", "pattern", "patterns", glob_problem },
	{ K_LABELS, "a label (name=value)", "label", "labels", label_problem },
	{ K_HEADERS, "a header ('Name: value', quoted in YAML)", "header", "headers",
	  header_problem },
	{ K_EVENTS, "an event (open, close)", "event", "events", event_problem },
	{ K_SUBSYS, "a subsystem", "subsystem", "subsystems", subsystem_problem },
	{ K_ARGS, "an argument", "argument", "arguments", arg_problem },
	{ K_WHEADERS, "a header ('Name: value', quoted in YAML)", "header", "headers",
	  webhook_header_problem },
};

static const struct item_rule *rule_of(const struct rv_cfg_key *k)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (k->flags & rules[i].flag)
			return &rules[i];
	return &rules[0];
}

const char *rv_cfg_list_one(const struct rv_cfg_key *k)
{
	return rule_of(k)->a;
}

const char *rv_cfg_list_plural(const struct rv_cfg_key *k)
{
	return rule_of(k)->plural;
}

/* Bytes of one item of k's field, with the NUL. */
static size_t stride(const struct rv_cfg_key *k)
{
	return k->size / (size_t)k->max;
}

/* Why s (len bytes) cannot follow the items of before in the list k. */
static int item_problem(const struct rv_cfg_key *k, const struct rv_cfg_list *before,
			const char *s, size_t len, char *why, size_t n)
{
	if (memchr(s, '\0', len))
		return say(why, n, "contains a NUL byte");
	if (!rv_cfg_utf8_valid(s, len))
		return say(why, n, "is not valid UTF-8");
	if (rule_of(k)->problem(s, len, before, why, n))
		return -1;
	if (len >= stride(k))
		return say(why, n, "is longer than %zu bytes", stride(k) - 1);
	return 0;
}

static void append(struct rv_cfg_list *l, const char *s, size_t len)
{
	memcpy(l->item[l->n], s, len);
	l->item[l->n++][len] = '\0';
}

int rv_cfg_add_item(const struct rv_cfg_key *k, struct rv_cfg_list *l, const char *s,
		    size_t len, const struct rv_cfg_origin *o, struct rv_err *err)
{
	char shown[CFG_TEXT_MAX], why[CFG_LIST_TEXT_MAX];

	if (item_problem(k, l, s, len, why, sizeof(why)))
		return rv_err_set(err, -EINVAL, "%s%s: '%s' %s", o->where, o->key,
				  rv_cfg_show(s, len, shown, sizeof(shown)), why);
	if (l->n >= (size_t)k->max)
		return rv_err_set(err, -EINVAL, "%s%s: more than %.0f %s", o->where, o->key,
				  k->max, rule_of(k)->plural);
	append(l, s, len);
	return 0;
}

void rv_cfg_store_list(const struct rv_cfg_key *k, const struct rv_cfg_list *l, void *base)
{
	char *items = (char *)base + k->off;
	size_t w = stride(k);

	memset(items, 0, k->size);
	for (size_t i = 0; i < l->n; i++)
		memcpy(items + i * w, l->item[i], strlen(l->item[i]) + 1);
	memcpy(items + k->size, &l->n, sizeof(l->n));
}

size_t rv_cfg_list_count(const struct rv_cfg_key *k, const void *base)
{
	size_t n;

	memcpy(&n, (const char *)base + k->off + k->size, sizeof(n));
	return n;
}

const char *rv_cfg_list_item(const struct rv_cfg_key *k, const void *base, size_t i,
			     size_t *len)
{
	const char *item = (const char *)base + k->off + i * stride(k);

	*len = strnlen(item, stride(k));
	return item;
}

static int is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

int rv_cfg_set_list(const struct rv_cfg_key *k, const char *s, size_t len,
		    void *base, const struct rv_cfg_origin *o, struct rv_err *err)
{
	struct rv_cfg_list l = { .n = 0 };
	const char *p = s, *end = s + len;

	while (p < end && is_blank(*p))
		p++;
	while (end > p && is_blank(end[-1]))
		end--;
	if (end - p >= 2 && p[0] == '[' && end[-1] == ']')
		p++, end--;
	while (p < end && is_blank(*p))
		p++;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p)), *stop = comma ? comma : end;
		const char *a = p, *b = stop;

		while (a < b && is_blank(*a))
			a++;
		while (b > a && is_blank(b[-1]))
			b--;
		if (rv_cfg_add_item(k, &l, a, (size_t)(b - a), o, err))
			return -EINVAL;
		p = comma ? comma + 1 : end;
	}
	rv_cfg_store_list(k, &l, base);
	return 0;
}

int rv_cfg_check_list(const struct rv_cfg_key *k, const char *name, const void *base,
		      struct rv_err *err)
{
	const struct item_rule *r = rule_of(k);
	struct rv_cfg_list l = { .n = 0 };
	size_t n = rv_cfg_list_count(k, base), len;
	char why[CFG_LIST_TEXT_MAX];

	if (n > (size_t)k->max)
		return rv_err_set(err, -EINVAL, "%s: more than %.0f %s", name, k->max, r->plural);
	for (size_t i = 0; i < n; i++) {
		const char *s = rv_cfg_list_item(k, base, i, &len);

		if (len == stride(k))
			return rv_err_set(err, -EINVAL, "%s: %s %zu is not NUL-terminated", name,
					  r->noun, i + 1);
		if (item_problem(k, &l, s, len, why, sizeof(why)))
			return rv_err_set(err, -EINVAL, "%s: %s %zu %s", name, r->noun, i + 1, why);
		append(&l, s, len);
	}
	return 0;
}
