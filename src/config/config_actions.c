/*
 * config_actions.c - the top-level key actions: a list of mappings, each
 * one an action the agent runs when an incident opens or closes (a
 * command, or a webhook; docs/AGENT.md, "Actions"). See config.h and
 * config_int.h.
 *
 * An action's keys are rows of a key table of their own,
 * rv_cfg_action_keys[], whose offsets are into struct rv_cfg_action: the
 * value parser, the list rules, the range text and the writer of the
 * other keys serve them unchanged. What is particular to actions is here:
 * the YAML shape (a list of mappings, walked event by event like
 * config_load.c), the rules between an action's keys (exactly one of
 * command and webhook; webhook keys with a webhook only; a name, unique)
 * and the section rv_config_write prints.
 *
 * Messages name an action by its place in the list, counted from 1
 * ("t.yaml:7:14: actions[2].timeout: ..."), and by its name once it has
 * one ("actions[2] (page): has both command and webhook ...").
 */
#include "config/config_int.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "yaml/yamlread.h"

#define AFIELD(m) offsetof(struct rv_cfg_action, m), sizeof(((struct rv_cfg_action *)0)->m)
#define ACTION_TIMEOUT_DEF_S 10.0
#define HOUR 3600.0

/* A list field is followed by its count, as config_list.c reads it. */
#define COUNT_FOLLOWS(items, count)                                                       \
	_Static_assert(offsetof(struct rv_cfg_action, count) ==                           \
			       offsetof(struct rv_cfg_action, items) +                    \
				       sizeof(((struct rv_cfg_action *)0)->items),        \
		       #count " must follow " #items)

COUNT_FOLLOWS(on, n_on);
COUNT_FOLLOWS(subsystems, n_subsystems);
COUNT_FOLLOWS(command, argc);
COUNT_FOLLOWS(headers, n_headers);
_Static_assert(RV_CFG_ARGV_MAX <= RV_CFG_LIST_MAX && RV_CFG_ACTION_HEADERS_MAX <= RV_CFG_LIST_MAX,
	       "an action's lists are read into a struct rv_cfg_list");

const char *const rv_cfg_subsystem_names[RV_CFG_SUBSYS_MAX + 1] = {
	"cpu", "gpu", "mem", "net", "storage", "other", NULL,
};

/* The order of the rows is the order rv_config_write prints them in. */
enum akey {
	A_NAME, A_ON, A_MIN_SEVERITY, A_SUBSYSTEMS, A_COMMAND, A_WEBHOOK, A_HEADERS,
	A_USERNAME, A_PASSWORD_FILE, A_BEARER_TOKEN_FILE, A_TLS_CA_FILE, A_TLS_CERT_FILE,
	A_TLS_KEY_FILE, A_TLS_INSECURE, A_TIMEOUT, A_NONE = -1,
};

const struct rv_cfg_key rv_cfg_action_keys[] = {
	[A_NAME] = { RV_CFG_ACTIONS, "name", K_STR, AFIELD(name), 0, 0, K_NONEMPTY | K_IDENT,
		     NULL, "Required and unique: names the action in logs and metrics." },
	[A_ON] = { RV_CFG_ACTIONS, "on", K_LIST, AFIELD(on), 0, 2, K_EVENTS, NULL,
		   "open, close or both." },
	[A_MIN_SEVERITY] = { RV_CFG_ACTIONS, "min_severity", K_ENUM, AFIELD(min_severity), 0, 0,
			     0, rv_severity_names, "Incidents less severe are left out." },
	[A_SUBSYSTEMS] = { RV_CFG_ACTIONS, "subsystems", K_LIST, AFIELD(subsystems), 0,
			   RV_CFG_SUBSYS_MAX, K_SUBSYS, NULL,
			   "Only incidents of these subsystems; [] = any." },
	[A_COMMAND] = { RV_CFG_ACTIONS, "command", K_LIST, AFIELD(command), 0, RV_CFG_ARGV_MAX,
			K_ARGS, NULL, "The program and its arguments; no shell." },
	[A_WEBHOOK] = { RV_CFG_ACTIONS, "webhook", K_STR, AFIELD(webhook), 0, 0, K_URL, NULL,
			"The URL the incident is POSTed to." },
	[A_HEADERS] = { RV_CFG_ACTIONS, "headers", K_LIST, AFIELD(headers), 0,
			RV_CFG_ACTION_HEADERS_MAX, K_WHEADERS, NULL, "Extra HTTP headers." },
	[A_USERNAME] = { RV_CFG_ACTIONS, "username", K_STR, AFIELD(username), 0, 0, 0, NULL,
			 "Basic authentication user." },
	[A_PASSWORD_FILE] = { RV_CFG_ACTIONS, "password_file", K_STR, AFIELD(password_file), 0,
			      0, 0, NULL, "Its password, the first line of this file." },
	[A_BEARER_TOKEN_FILE] = { RV_CFG_ACTIONS, "bearer_token_file", K_STR,
				  AFIELD(bearer_token_file), 0, 0, 0, NULL,
				  "A bearer token, the first line of this file." },
	[A_TLS_CA_FILE] = { RV_CFG_ACTIONS, "tls_ca_file", K_STR, AFIELD(tls_ca_file), 0, 0, 0,
			    NULL, "CA certificates (PEM)." },
	[A_TLS_CERT_FILE] = { RV_CFG_ACTIONS, "tls_cert_file", K_STR, AFIELD(tls_cert_file), 0,
			      0, 0, NULL, "Client certificate (PEM)." },
	[A_TLS_KEY_FILE] = { RV_CFG_ACTIONS, "tls_key_file", K_STR, AFIELD(tls_key_file), 0, 0,
			     0, NULL, "Its key (PEM)." },
	[A_TLS_INSECURE] = { RV_CFG_ACTIONS, "tls_insecure", K_BOOL, AFIELD(tls_insecure), 0, 0,
			     0, NULL, "Do not verify the server (tests only)." },
	[A_TIMEOUT] = { RV_CFG_ACTIONS, "timeout", K_DUR, AFIELD(timeout_s), 0.1, HOUR, 0, NULL,
			"One run; then the command is killed or the request cut." },
};
_Static_assert(sizeof(rv_cfg_action_keys) / sizeof(rv_cfg_action_keys[0]) == RV_CFG_ACTION_NKEYS,
	       "RV_CFG_ACTION_NKEYS counts rv_cfg_action_keys");

/* The keys that belong to a webhook. */
static const enum akey webhook_only[] = {
	A_HEADERS, A_USERNAME, A_PASSWORD_FILE, A_BEARER_TOKEN_FILE, A_TLS_CA_FILE,
	A_TLS_CERT_FILE, A_TLS_KEY_FILE, A_TLS_INSECURE,
};

void rv_cfg_action_defaults(struct rv_cfg_action *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->on[0], sizeof(a->on[0]), "%s", "open");
	a->n_on = 1;
	a->min_severity = RV_CFG_SEV_MINOR;
	a->timeout_s = ACTION_TIMEOUT_DEF_S;
}

/* ------------------------------------------------------------ the rules */

/* 1 when key k of a holds something (a list an item, a string a byte). */
static int given(const struct rv_cfg_action *a, enum akey k)
{
	const struct rv_cfg_key *row = &rv_cfg_action_keys[k];
	const char *field = (const char *)a + row->off;

	if (row->type == K_LIST)
		return rv_cfg_list_count(row, a) > 0;
	if (row->type == K_BOOL)
		return *(const bool *)field;
	return field[0] != '\0';
}

/* Sets *blame and the message; returns -1. */
__attribute__((format(printf, 5, 6)))
static int broken(enum akey *blame, enum akey k, char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	*blame = k;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

/* A command's key that only a webhook takes, or A_NONE. */
static enum akey webhook_key_given(const struct rv_cfg_action *a)
{
	for (size_t i = 0; i < sizeof(webhook_only) / sizeof(webhook_only[0]); i++)
		if (given(a, webhook_only[i]))
			return webhook_only[i];
	return A_NONE;
}

/*
 * Why a breaks a rule between its keys (why, n bytes), with *blame the key
 * to point at (A_NONE: the action); 0 when it breaks none. command_given:
 * the file named command (an empty list is then its own mistake).
 */
static int rule_problem(const struct rv_cfg_action *a, int command_given, enum akey *blame,
			char *why, size_t n)
{
	int cmd = a->argc > 0, hook = a->webhook[0] != '\0';
	enum akey k;

	*blame = A_NONE;
	if (!a->name[0])
		return broken(blame, A_NONE, why, n, "has no name: name is required");
	if (a->n_on == 0)
		return broken(blame, A_ON, why, n, "on: names no event: open, close or both");
	if (command_given && !cmd)
		return broken(blame, A_COMMAND, why, n, "command: is empty: name the program to "
			      "run and its arguments");
	if (!cmd && !hook)
		return broken(blame, A_NONE, why, n, "has neither command nor webhook: give one");
	if (cmd && hook)
		return broken(blame, A_WEBHOOK, why, n, "has both command and webhook: an action "
			      "runs one of them");
	if (cmd && !a->command[0][0])
		return broken(blame, A_COMMAND, why, n, "command: the program (its first item) is "
			      "empty");
	if (cmd && (k = webhook_key_given(a)) != A_NONE)
		return broken(blame, k, why, n, "%s: is for a webhook, not a command",
			      rv_cfg_action_keys[k].name);
	if (a->username[0] && a->bearer_token_file[0])
		return broken(blame, A_BEARER_TOKEN_FILE, why, n, "username and bearer_token_file "
			      "are both set: basic or bearer authentication, not both");
	if (a->password_file[0] && !a->username[0])
		return broken(blame, A_PASSWORD_FILE, why, n, "password_file needs username");
	if (a->tls_key_file[0] && !a->tls_cert_file[0])
		return broken(blame, A_TLS_KEY_FILE, why, n, "tls_key_file needs tls_cert_file");
	return 0;
}

/* The index of an action before item i named like it, or -1. */
static int same_name_before(const struct rv_config *c, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(c->actions.item[j].name, c->actions.item[i].name) == 0)
			return (int)j;
	return -1;
}

/* "actions[2]" or "actions[2] (page)" for messages (i counted from 0). */
static const char *action_label(const struct rv_cfg_action *a, size_t i, char *buf, size_t n)
{
	char shown[CFG_TEXT_MAX];

	if (memchr(a->name, '\0', sizeof(a->name)) && a->name[0])
		snprintf(buf, n, "%s[%zu] (%s)", RV_CFG_ACTIONS, i + 1,
			 rv_cfg_show(a->name, strlen(a->name), shown, sizeof(shown)));
	else
		snprintf(buf, n, "%s[%zu]", RV_CFG_ACTIONS, i + 1);
	return buf;
}

/* ------------------------------------------------------------- checking */

/* Each key of action i as the loader would take it. */
static int check_keys(const struct rv_cfg_action *a, size_t i, struct rv_err *err)
{
	struct rv_cfg_action scratch;
	char name[CFG_TEXT_MAX], text[CFG_TEXT_MAX];
	int rc = 0;

	for (int k = 0; k < RV_CFG_ACTION_NKEYS && rc == 0; k++) {
		const struct rv_cfg_key *row = &rv_cfg_action_keys[k];
		const char *field = (const char *)a + row->off;

		snprintf(name, sizeof(name), "%s[%zu].%s", RV_CFG_ACTIONS, i + 1, row->name);
		if (row->type == K_LIST) {
			rc = rv_cfg_check_list(row, name, a, err);
		} else if (row->type == K_STR) {
			if (!memchr(field, '\0', row->size))
				return rv_err_set(err, -EINVAL, "%s: not NUL-terminated", name);
			rc = rv_cfg_set_named(row, name, field, strlen(field), &scratch, "", err);
		} else {
			rv_cfg_fmt_field(row, a, text, sizeof(text));
			rc = rv_cfg_set_named(row, name, text, strlen(text), &scratch, "", err);
		}
	}
	return rc;
}

int rv_cfg_check_actions(const struct rv_config *c, struct rv_err *err)
{
	char label[CFG_TEXT_MAX * 2], why[CFG_LIST_TEXT_MAX];
	enum akey blame;
	int rc, j;

	if (c->actions.n > RV_CFG_ACTIONS_MAX)
		return rv_err_set(err, -EINVAL, "%s: more than %d actions", RV_CFG_ACTIONS,
				  RV_CFG_ACTIONS_MAX);
	for (size_t i = 0; i < c->actions.n; i++) {
		const struct rv_cfg_action *a = &c->actions.item[i];

		if ((rc = check_keys(a, i, err)) != 0)
			return rc;
		action_label(a, i, label, sizeof(label));
		if (rule_problem(a, 0, &blame, why, sizeof(why)))
			return rv_err_set(err, -EINVAL, "%s: %s", label, why);
		if ((j = same_name_before(c, i)) >= 0)
			return rv_err_set(err, -EINVAL, "%s: the name of %s[%d] too: names must be "
					  "unique", label, RV_CFG_ACTIONS, j + 1);
	}
	return 0;
}

/* -------------------------------------------------------------- loading */

/* One action's mapping being read. */
struct aload {
	struct rv_yaml *y;
	struct rv_config *c;
	struct rv_cfg_action *a;
	size_t i;                          /* its index, from 0 */
	yaml_mark_t start, mark[RV_CFG_ACTION_NKEYS];
	unsigned char seen[RV_CFG_ACTION_NKEYS];
};

static const char *at(const struct aload *al, yaml_mark_t m, char *buf, size_t n)
{
	return rv_yaml_at(al->y, m, buf, n);
}

static const char *known_keys(char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < RV_CFG_ACTION_NKEYS && used < n; k++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s", k ? ", " : "",
					 rv_cfg_action_keys[k].name);
	return buf;
}

/* "actions[2].timeout" */
static const char *key_name(const struct aload *al, int k, char *buf, size_t n)
{
	snprintf(buf, n, "%s[%zu].%s", RV_CFG_ACTIONS, al->i + 1, rv_cfg_action_keys[k].name);
	return buf;
}

/* The items of a YAML sequence (current: its start) as the list key k. */
static int load_items(struct aload *al, int k)
{
	const struct rv_cfg_key *row = &rv_cfg_action_keys[k];
	struct rv_cfg_list l = { .n = 0 };
	char where[CFG_WHERE_MAX];
	struct rv_cfg_origin o = { .where = where };
	int rc;

	key_name(al, k, o.key, sizeof(o.key));
	while ((rc = rv_yaml_next(al->y)) == 0 && al->y->ev.type != YAML_SEQUENCE_END_EVENT) {
		const yaml_event_t *e = &al->y->ev;

		at(al, e->start_mark, where, sizeof(where));
		if (e->type != YAML_SCALAR_EVENT)
			return rv_err_set(al->y->err, -EINVAL, "%s%s: expected %s, not %s", where,
					  o.key, rv_cfg_list_one(row), rv_yaml_node_kind(e));
		rc = rv_cfg_add_item(row, &l, (const char *)e->data.scalar.value,
				     e->data.scalar.length, &o, al->y->err);
		if (rc)
			return rc;
	}
	if (rc == 0)
		rv_cfg_store_list(row, &l, al->a);
	return rc;
}

/* The value event of key k is current. */
static int load_value(struct aload *al, int k)
{
	const struct rv_cfg_key *row = &rv_cfg_action_keys[k];
	const yaml_event_t *e = &al->y->ev;
	char where[CFG_WHERE_MAX], name[CFG_TEXT_MAX];

	at(al, e->start_mark, where, sizeof(where));
	key_name(al, k, name, sizeof(name));
	if (row->type == K_LIST && e->type == YAML_SEQUENCE_START_EVENT)
		return load_items(al, k);
	if (k == A_COMMAND)   /* "a, b" would be split at commas: no shell, no guessing */
		return rv_err_set(al->y->err, -EINVAL, "%s%s: expected a list of arguments (like "
				  "[\"/usr/local/bin/taint\", \"--reason\", \"reveal\"]; no shell), "
				  "not %s", where, name, rv_yaml_node_kind(e));
	if (e->type != YAML_SCALAR_EVENT && row->type == K_LIST)
		return rv_err_set(al->y->err, -EINVAL, "%s%s: expected a list of %s, not %s", where,
				  name, rv_cfg_list_plural(row), rv_yaml_node_kind(e));
	if (e->type != YAML_SCALAR_EVENT)
		return rv_err_set(al->y->err, -EINVAL, "%s%s: expected a single value, not %s",
				  where, name, rv_yaml_node_kind(e));
	if (rv_yaml_is_null(e) && (row->type == K_STR || row->type == K_LIST))
		return rv_cfg_set_named(row, name, "", 0, al->a, where, al->y->err);
	return rv_cfg_set_named(row, name, (const char *)e->data.scalar.value,
				e->data.scalar.length, al->a, where, al->y->err);
}

/* The key event of one entry of the action's mapping is current. */
static int load_key(struct aload *al)
{
	const yaml_event_t *e = &al->y->ev;
	char where[CFG_WHERE_MAX], shown[CFG_TEXT_MAX], known[CFG_LIST_TEXT_MAX];
	int k = -1, rc;

	at(al, e->start_mark, where, sizeof(where));
	if (e->type != YAML_SCALAR_EVENT)
		return rv_err_set(al->y->err, -EINVAL, "%sa key must be a name, not %s", where,
				  rv_yaml_node_kind(e));
	for (int i = 0; i < RV_CFG_ACTION_NKEYS && k < 0; i++)
		if (strlen(rv_cfg_action_keys[i].name) == e->data.scalar.length &&
		    memcmp(rv_cfg_action_keys[i].name, e->data.scalar.value,
			   e->data.scalar.length) == 0)
			k = i;
	rv_cfg_show((const char *)e->data.scalar.value, e->data.scalar.length, shown,
		    sizeof(shown));
	if (k < 0)
		return rv_err_set(al->y->err, -EINVAL, "%sunknown key '%s' in %s[%zu] (known: %s)",
				  where, shown, RV_CFG_ACTIONS, al->i + 1,
				  known_keys(known, sizeof(known)));
	if (al->seen[k])
		return rv_err_set(al->y->err, -EINVAL, "%sduplicate key '%s' in %s[%zu] (first at "
				  "%zu:%zu)", where, shown, RV_CFG_ACTIONS, al->i + 1,
				  al->mark[k].line + 1, al->mark[k].column + 1);
	al->seen[k] = 1;
	al->mark[k] = e->start_mark;
	rc = rv_yaml_next(al->y);
	return rc ? rc : load_value(al, k);
}

/* After the action's last key: the rules between its keys and the
 * names before it, placed at the key to blame (or the action's start). */
static int load_rules(struct aload *al)
{
	char where[CFG_WHERE_MAX], label[CFG_TEXT_MAX * 2], why[CFG_LIST_TEXT_MAX];
	enum akey blame;
	int j;

	action_label(al->a, al->i, label, sizeof(label));
	if (rule_problem(al->a, al->seen[A_COMMAND], &blame, why, sizeof(why))) {
		/* of command and webhook both, the one that came second */
		if (blame == A_WEBHOOK && al->mark[A_COMMAND].index > al->mark[A_WEBHOOK].index)
			blame = A_COMMAND;
		at(al, blame == A_NONE ? al->start : al->mark[blame], where, sizeof(where));
		return rv_err_set(al->y->err, -EINVAL, "%s%s: %s", where, label, why);
	}
	if ((j = same_name_before(al->c, al->i)) >= 0) {
		at(al, al->mark[A_NAME], where, sizeof(where));
		return rv_err_set(al->y->err, -EINVAL, "%s%s: the name of %s[%d] too: names must "
				  "be unique", where, label, RV_CFG_ACTIONS, j + 1);
	}
	return 0;
}

/* The MAPPING_START of action al->i is current; reads up to its end. */
static int load_action(struct aload *al)
{
	int rc;

	memset(al->seen, 0, sizeof(al->seen));
	al->start = al->y->ev.start_mark;
	al->a = &al->c->actions.item[al->i];
	rv_cfg_action_defaults(al->a);
	while ((rc = rv_yaml_next(al->y)) == 0 && al->y->ev.type != YAML_MAPPING_END_EVENT)
		if ((rc = load_key(al)) != 0)
			return rc;
	return rc ? rc : load_rules(al);
}

int rv_cfg_load_actions(struct rv_yaml *y, struct rv_config *c)
{
	struct aload al = { .y = y, .c = c };
	char where[CFG_WHERE_MAX], known[CFG_LIST_TEXT_MAX];
	int rc;

	memset(&c->actions, 0, sizeof(c->actions));
	at(&al, y->ev.start_mark, where, sizeof(where));
	if (rv_yaml_is_null(&y->ev))
		return 0;
	if (y->ev.type != YAML_SEQUENCE_START_EVENT)
		return rv_err_set(y->err, -EINVAL, "%s%s: expected a list of actions (mappings of "
				  "%s), not %s", where, RV_CFG_ACTIONS, known_keys(known, sizeof(known)),
				  rv_yaml_node_kind(&y->ev));
	while ((rc = rv_yaml_next(y)) == 0 && y->ev.type != YAML_SEQUENCE_END_EVENT) {
		at(&al, y->ev.start_mark, where, sizeof(where));
		if (al.i >= RV_CFG_ACTIONS_MAX)
			return rv_err_set(y->err, -EINVAL, "%s%s: more than %d actions", where,
					  RV_CFG_ACTIONS, RV_CFG_ACTIONS_MAX);
		if (y->ev.type != YAML_MAPPING_START_EVENT)
			return rv_err_set(y->err, -EINVAL, "%s%s[%zu]: expected a mapping of keys "
					  "(%s), not %s", where, RV_CFG_ACTIONS, al.i + 1,
					  known_keys(known, sizeof(known)), rv_yaml_node_kind(&y->ev));
		if ((rc = load_action(&al)) != 0)
			return rc;
		c->actions.n = ++al.i;
	}
	return rc;
}

/* -------------------------------------------------------------- writing */

static const char actions_doc[] =
	"\n"
	"# Incident actions (docs/AGENT.md, \"Actions\"): at most 16, each run when an\n"
	"# incident opens and/or closes, on a thread of its own (detection never\n"
	"# waits). Keys: name (required, unique: letters, digits, . _ -); on (open,\n"
	"# close or both; [open]); min_severity (minor | major | critical; minor);\n"
	"# subsystems (cpu, gpu, mem, net, storage, other; [] = any); timeout (10s;\n"
	"# 100ms..1h); and exactly one of command (the program and its arguments, no\n"
	"# shell: the incident as a JSON line on its standard input, REVEAL_EVENT,\n"
	"# REVEAL_INCIDENT_ID, REVEAL_SEVERITY, REVEAL_SUBSYSTEM, REVEAL_HOST and\n"
	"# REVEAL_ACTION in its environment) and webhook (an http:// or https:// URL\n"
	"# the same JSON is POSTed to; with headers, username and password_file or\n"
	"# bearer_token_file, tls_ca_file, tls_cert_file, tls_key_file,\n"
	"# tls_insecure). A command that exits non-zero, is killed or times out, or a\n"
	"# webhook that answers other than 2xx, fails: counted on /metrics, logged\n"
	"# once, not retried. Read at start: a change takes effect at the next\n"
	"# restart. For example (deploy/actions/ has the scripts):\n"
	"#   actions:\n"
	"#     - name: taint-node\n"
	"#       on: [open, close]\n"
	"#       min_severity: major\n"
	"#       subsystems: [net, gpu]\n"
	"#       command: [\"/etc/reveal/actions/k8s-taint.sh\"]\n"
	"#       timeout: 20s\n"
	"#     - name: page\n"
	"#       on: [open, close]\n"
	"#       webhook: \"https://alerts.example/hook\"\n"
	"#       headers: [\"X-Team: infra\"]\n"
	"#       timeout: 5s\n";

/* One action as a block mapping: its name, on, min_severity, subsystems
 * and timeout always, the other keys when given. */
static void write_action(FILE *f, const struct rv_cfg_action *a)
{
	for (int k = 0; k < RV_CFG_ACTION_NKEYS; k++) {
		const struct rv_cfg_key *row = &rv_cfg_action_keys[k];
		int always = k == A_NAME || k == A_ON || k == A_MIN_SEVERITY ||
			     k == A_SUBSYSTEMS || k == A_TIMEOUT;

		if (!always && !given(a, (enum akey)k))
			continue;
		fprintf(f, "%s%s: ", k == A_NAME ? "  - " : "    ", row->name);
		rv_cfg_write_value(f, row, a);
		fputc('\n', f);
	}
}

void rv_cfg_write_actions(FILE *f, const struct rv_config *c)
{
	size_t n = c->actions.n < RV_CFG_ACTIONS_MAX ? c->actions.n : RV_CFG_ACTIONS_MAX;

	fputs(actions_doc, f);
	if (n == 0) {
		fprintf(f, "%s: []\n", RV_CFG_ACTIONS);
		return;
	}
	fprintf(f, "%s:\n", RV_CFG_ACTIONS);
	for (size_t i = 0; i < n; i++)
		write_action(f, &c->actions.item[i]);
}
