/*
 * config_actions_test.c - the actions: list of config/config.h: a valid
 * list with every key and the defaults of the keys left out; every
 * mistake with its FILE:LINE:COL and message (unknown and duplicate keys,
 * both or neither of command and webhook, an empty command, a bad
 * severity, subsystem, event or timeout, a duplicate or missing name,
 * webhook keys on a command, the bounds of 16 actions and 32 arguments);
 * --set refused; rv_config_write and back; actions set from C caught by
 * rv_config_check.
 */
#include "config/config_testutil.h"

enum { TEXT_BUF = 16384 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char two_actions[] =
	"interval: 200ms\n"
	"actions:\n"
	"  - name: taint-node            # for logs and metrics\n"
	"    on: [open]\n"
	"    min_severity: major\n"
	"    subsystems: [net, gpu]\n"
	"    command: [\"/usr/local/bin/taint\", \"--reason\", \"reveal\"]\n"
	"    timeout: 10s\n"
	"  - name: page\n"
	"    on: [open, close]\n"
	"    webhook: https://alerts.example/hook\n"
	"    headers: [\"X-Team: infra\"]\n"
	"    username: reveal\n"
	"    password_file: /etc/reveal/hook-password\n"
	"    tls_ca_file: /etc/reveal/ca.pem\n"
	"    timeout: 5s\n"
	"  - {name: minimal, command: [/bin/true]}\n";

static void test_valid(void **state)
{
	struct rv_config c;
	struct rv_err err;
	const struct rv_cfg_action *a;

	if (load(two_actions, &c, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.actions.n, 3);
	a = &c.actions.item[0];
	assert_string_equal(a->name, "taint-node");
	assert_int_equal(a->n_on, 1);
	assert_string_equal(a->on[0], "open");
	assert_int_equal(a->min_severity, RV_CFG_SEV_MAJOR);
	assert_int_equal(a->n_subsystems, 2);
	assert_string_equal(a->subsystems[0], "net");
	assert_string_equal(a->subsystems[1], "gpu");
	assert_int_equal(a->argc, 3);
	assert_string_equal(a->command[0], "/usr/local/bin/taint");
	assert_string_equal(a->command[2], "reveal");
	assert_string_equal(a->webhook, "");
	assert_true(a->timeout_s == 10.0);
	a = &c.actions.item[1];
	assert_string_equal(a->name, "page");
	assert_int_equal(a->n_on, 2);
	assert_string_equal(a->on[1], "close");
	assert_int_equal(a->min_severity, RV_CFG_SEV_MINOR);
	assert_int_equal(a->n_subsystems, 0);
	assert_int_equal(a->argc, 0);
	assert_string_equal(a->webhook, "https://alerts.example/hook");
	assert_int_equal(a->n_headers, 1);
	assert_string_equal(a->headers[0], "X-Team: infra");
	assert_string_equal(a->username, "reveal");
	assert_string_equal(a->password_file, "/etc/reveal/hook-password");
	assert_string_equal(a->tls_ca_file, "/etc/reveal/ca.pem");
	assert_true(a->timeout_s == 5.0);
	/* the defaults: on [open], minor, any subsystem, 10 s */
	a = &c.actions.item[2];
	assert_string_equal(a->name, "minimal");
	assert_int_equal(a->n_on, 1);
	assert_string_equal(a->on[0], "open");
	assert_int_equal(a->min_severity, RV_CFG_SEV_MINOR);
	assert_int_equal(a->n_subsystems, 0);
	assert_true(a->timeout_s == 10.0);
	rv_err_clear(&err);
	if (rv_config_check(&c, &err) != 0)
		fail_msg("%s", err.msg);
}

/* Scalars for list keys, null and [] for no actions, a later file's list
 * replacing an earlier one. */
static void test_forms(void **state)
{
	struct rv_config c;
	struct rv_err err;

	if (load("actions:\n  - name: a\n    on: open, close\n    subsystems: storage\n"
		 "    command: [sh]\n", &c, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.actions.item[0].n_on, 2);
	assert_int_equal(c.actions.item[0].n_subsystems, 1);
	assert_string_equal(c.actions.item[0].subsystems[0], "storage");
	assert_int_equal(load("actions:\n", &c, &err), 0);
	assert_int_equal(c.actions.n, 0);
	assert_int_equal(load("actions: []\n", &c, &err), 0);
	assert_int_equal(c.actions.n, 0);
	assert_int_equal(load(two_actions, &c, &err), 0);
	assert_int_equal(rv_config_load_string("actions: []\n", 12, "t.yaml", &c, &err), 0);
	assert_int_equal(c.actions.n, 0);
	/* an argument may be empty, or hold commas and blanks */
	assert_int_equal(load("actions: [{name: a, command: [printf, '%s,%s', '', ' x ']}]\n", &c,
			      &err), 0);
	assert_int_equal(c.actions.item[0].argc, 4);
	assert_string_equal(c.actions.item[0].command[1], "%s,%s");
	assert_string_equal(c.actions.item[0].command[2], "");
	assert_string_equal(c.actions.item[0].command[3], " x ");
}

/* ------------------------------------------------------------- errors */

struct err_case {
	const char *text;
	const char *want;   /* the whole message */
};

#define ONE "actions:\n  - name: a\n"
#define CMD "    command: [/bin/true]\n"

static const struct err_case err_cases[] = {
	{ ONE CMD "    comand: [x]\n",
	  "t.yaml:4:5: unknown key 'comand' in actions[1] (known: name, on, min_severity, "
	  "subsystems, command, webhook, headers, username, password_file, bearer_token_file, "
	  "tls_ca_file, tls_cert_file, tls_key_file, tls_insecure, timeout)" },
	{ ONE CMD "    name: b\n", "t.yaml:4:5: duplicate key 'name' in actions[1] (first at 2:5)" },
	{ ONE CMD "    webhook: http://h/x\n",
	  "t.yaml:4:5: actions[1] (a): has both command and webhook: an action runs one of them" },
	{ ONE "    webhook: http://h/x\n" CMD,
	  "t.yaml:4:5: actions[1] (a): has both command and webhook: an action runs one of them" },
	{ ONE "    on: [close]\n",
	  "t.yaml:2:5: actions[1] (a): has neither command nor webhook: give one" },
	{ ONE "    command: []\n",
	  "t.yaml:3:5: actions[1] (a): command: is empty: name the program to run and its "
	  "arguments" },
	{ ONE "    command: ['', x]\n",
	  "t.yaml:3:5: actions[1] (a): command: the program (its first item) is empty" },
	{ ONE "    command: /bin/true --x\n",
	  "t.yaml:3:14: actions[1].command: expected a list of arguments (like "
	  "[\"/usr/local/bin/taint\", \"--reason\", \"reveal\"]; no shell), not a single value" },
	{ ONE CMD "    command: [[x]]\n", "t.yaml:4:5: duplicate key 'command' in actions[1] "
	  "(first at 3:5)" },
	{ ONE "    command: [[x]]\n",
	  "t.yaml:3:15: actions[1].command: expected an argument, not a list" },
	{ ONE CMD "    min_severity: high\n",
	  "t.yaml:4:19: actions[1].min_severity: 'high' is not one of minor | major | critical" },
	{ ONE CMD "    subsystems: [net, disk]\n",
	  "t.yaml:4:23: actions[1].subsystems: 'disk' is not a subsystem (cpu, gpu, mem, net, "
	  "storage, other)" },
	{ ONE CMD "    subsystems: [net, net]\n",
	  "t.yaml:4:23: actions[1].subsystems: 'net' is named a second time" },
	{ ONE CMD "    on: [opened]\n",
	  "t.yaml:4:10: actions[1].on: 'opened' is not an event (open, close)" },
	{ ONE CMD "    on: []\n",
	  "t.yaml:4:5: actions[1] (a): on: names no event: open, close or both" },
	{ ONE CMD "    timeout: 5 parsecs\n",
	  "t.yaml:4:14: actions[1].timeout: '5 parsecs' is not a duration (like 100ms, 2s, 10m)" },
	{ ONE CMD "    timeout: 0\n", "t.yaml:4:14: actions[1].timeout: '0' is not in 100ms..1h" },
	{ ONE CMD "    timeout: 2h\n", "t.yaml:4:14: actions[1].timeout: '2h' is not in 100ms..1h" },
	{ ONE CMD "  - name: a\n    webhook: http://h/x\n",
	  "t.yaml:4:5: actions[2] (a): the name of actions[1] too: names must be unique" },
	{ "actions:\n  - command: [x]\n", "t.yaml:2:5: actions[1]: has no name: name is required" },
	{ "actions:\n  - name: 'a b'\n" CMD,
	  "t.yaml:2:11: actions[1].name: 'a b' is not a name (letters, digits, '.', '_', '-')" },
	{ "actions:\n  - name: ''\n" CMD, "t.yaml:2:11: actions[1].name: must not be empty" },
	{ ONE CMD "    headers: ['X-A: b']\n",
	  "t.yaml:4:5: actions[1] (a): headers: is for a webhook, not a command" },
	{ ONE CMD "    tls_insecure: true\n",
	  "t.yaml:4:5: actions[1] (a): tls_insecure: is for a webhook, not a command" },
	{ ONE "    webhook: ftp://h/x\n",
	  "t.yaml:3:14: actions[1].webhook: 'ftp://h/x' is not an http:// or https:// URL (like "
	  "http://127.0.0.1:9090/api/v1/write)" },
	{ ONE "    webhook: http://u:pw@h/x\n",
	  "t.yaml:3:14: actions[1].webhook: 'http://u:pw@h/x' holds credentials: use username "
	  "and password_file" },
	{ ONE "    webhook: http://h/x\n    headers: ['Content-Type: text/plain']\n",
	  "t.yaml:4:15: actions[1].headers: 'Content-Type: text/plain' sets a header the agent "
	  "sets itself (Content-Type, Content-Length, Transfer-Encoding)" },
	{ ONE "    webhook: http://h/x\n    headers: ['Authorization: Bearer x']\n",
	  "t.yaml:4:15: actions[1].headers: 'Authorization: Bearer x' would put a secret in the "
	  "configuration: use username and password_file, or bearer_token_file" },
	{ ONE "    webhook: http://h/x\n    username: u\n    bearer_token_file: /t\n",
	  "t.yaml:5:5: actions[1] (a): username and bearer_token_file are both set: basic or "
	  "bearer authentication, not both" },
	{ ONE "    webhook: http://h/x\n    password_file: /p\n",
	  "t.yaml:4:5: actions[1] (a): password_file needs username" },
	{ ONE "    webhook: http://h/x\n    tls_key_file: /k\n",
	  "t.yaml:4:5: actions[1] (a): tls_key_file needs tls_cert_file" },
	{ "actions: 5\n", "t.yaml:1:10: actions: expected a list of actions (mappings of name, on, "
	  "min_severity, subsystems, command, webhook, headers, username, password_file, "
	  "bearer_token_file, tls_ca_file, tls_cert_file, tls_key_file, tls_insecure, timeout), "
	  "not a single value" },
	{ "actions:\n  - x\n", "t.yaml:2:5: actions[1]: expected a mapping of keys (name, on, "
	  "min_severity, subsystems, command, webhook, headers, username, password_file, "
	  "bearer_token_file, tls_ca_file, tls_cert_file, tls_key_file, tls_insecure, timeout), "
	  "not a single value" },
	{ ONE CMD "    timeout: [1s]\n",
	  "t.yaml:4:14: actions[1].timeout: expected a single value, not a list" },
	{ ONE CMD "    on: {open: 1}\n",
	  "t.yaml:4:9: actions[1].on: expected a list of events, not a mapping" },
	{ "actions: []\nactions: []\n", "t.yaml:2:1: duplicate key 'actions' (first at 1:1)" },
	{ "actions:\n  - name: a\n    command: [/bin/true]\n  -\n",
	  "t.yaml:4:4: actions[2]: expected a mapping of keys (name, on, min_severity, "
	  "subsystems, command, webhook, headers, username, password_file, bearer_token_file, "
	  "tls_ca_file, tls_cert_file, tls_key_file, tls_insecure, timeout), not a single value" },
};

static void test_errors(void **state)
{
	for (size_t i = 0; i < N(err_cases); i++) {
		struct rv_config c, before;
		struct rv_err err;

		rv_config_defaults(&before);
		c = before;
		rv_err_clear(&err);
		if (rv_config_load_string(err_cases[i].text, strlen(err_cases[i].text), "t.yaml", &c,
					  &err) != -EINVAL)
			fail_msg("case %zu loads:\n%s", i, err_cases[i].text);
		if (strcmp(err.msg, err_cases[i].want) != 0)
			fail_msg("case %zu:\n%s\nmessage '%s'\nwant    '%s'", i, err_cases[i].text,
				 err.msg, err_cases[i].want);
		expect_same(&c, &before, "a failed load changes nothing");
	}
}

/* At most 16 actions, 32 arguments, 8 headers. */
static void test_bounds(void **state)
{
	char *text = malloc(TEXT_BUF);
	size_t used = 0;
	struct rv_config c;
	struct rv_err err;

	assert_non_null(text);
	used += (size_t)snprintf(text, TEXT_BUF, "actions:\n");
	for (int i = 0; i < RV_CFG_ACTIONS_MAX; i++)
		used += (size_t)snprintf(text + used, TEXT_BUF - used,
					 "  - {name: a%d, command: [x]}\n", i);
	assert_int_equal(load(text, &c, &err), 0);
	assert_int_equal(c.actions.n, RV_CFG_ACTIONS_MAX);
	snprintf(text + used, TEXT_BUF - used, "  - {name: more, command: [x]}\n");
	assert_int_equal(load(text, &c, &err), -EINVAL);
	assert_string_equal(err.msg, "t.yaml:18:5: actions: more than 16 actions");

	used = (size_t)snprintf(text, TEXT_BUF, "actions:\n  - name: a\n    command: [p");
	for (int i = 1; i < RV_CFG_ARGV_MAX; i++)
		used += (size_t)snprintf(text + used, TEXT_BUF - used, ", a%d", i);
	snprintf(text + used, TEXT_BUF - used, "]\n");
	assert_int_equal(load(text, &c, &err), 0);
	assert_int_equal(c.actions.item[0].argc, RV_CFG_ARGV_MAX);
	snprintf(text + used, TEXT_BUF - used, ", one-more]\n");
	assert_int_equal(load(text, &c, &err), -EINVAL);
	expect_msg(&err, "actions[1].command: more than 32 arguments", text);

	assert_int_equal(load("actions:\n  - name: a\n    webhook: http://h/\n    headers: ['a: 1', "
			      "'b: 2', 'c: 3', 'd: 4', 'e: 5', 'f: 6', 'g: 7', 'h: 8', 'i: 9']\n", &c, &err),
			 -EINVAL);
	expect_msg(&err, "actions[1].headers: more than 8 headers", "9 headers");
	free(text);
}

static void test_set_refused(void **state)
{
	static const char *const keys[] = { "actions", "actions.name", "actions[0].name" };
	struct rv_config c;
	struct rv_err err;

	rv_config_defaults(&c);
	for (size_t i = 0; i < N(keys); i++) {
		rv_err_clear(&err);
		assert_int_equal(rv_config_set(&c, keys[i], "x", &err), -EINVAL);
		expect_msg(&err, "actions is a list of mappings: set it in the configuration file",
			   keys[i]);
	}
	rv_err_clear(&err);
	assert_int_equal(rv_config_set(&c, "actionsx", "x", &err), -EINVAL);
	expect_msg(&err, "unknown key 'actionsx'", "actionsx");
}

/* ---------------------------------------------------------- write, check */

static void test_round_trip(void **state)
{
	struct rv_config c, back;
	struct rv_err err;
	char *text;

	if (load(two_actions, &c, &err) != 0)
		fail_msg("%s", err.msg);
	/* awkward text survives: quotes, a '#', a comma, UTF-8, an empty argument */
	memset(c.actions.item[0].command[1], 0, 2 * RV_CFG_ITEM_MAX);  /* as the loader leaves it */
	snprintf(c.actions.item[0].command[1], RV_CFG_ITEM_MAX, "%s", "\"a\" # b, c \xc3\xa9");
	expect_round_trip(&c, &back, "actions");
	text = write_text(&c);
	if (!strstr(text, "\nactions:\n  - name: \"taint-node\"\n    on: [\"open\"]\n"
		    "    min_severity: major\n    subsystems: [\"net\", \"gpu\"]\n"
		    "    command: [\"/usr/local/bin/taint\", \"\\\"a\\\" # b, c \\xe9\", \"\"]\n"
		    "    timeout: 10s\n  - name: \"page\"\n"))
		fail_msg("written:\n%s", text);
	if (!strstr(text, "    webhook: \"https://alerts.example/hook\"\n"
		    "    headers: [\"X-Team: infra\"]\n    username: \"reveal\"\n"))
		fail_msg("written:\n%s", text);
	free(text);
	rv_config_defaults(&c);
	text = write_text(&c);
	if (!strstr(text, "\n#   actions:\n#     - name: taint-node\n") ||
	    !strstr(text, "\nactions: []\n"))
		fail_msg("written defaults:\n%s", text);
	free(text);
}

static void set_action(struct rv_config *c, size_t i, const char *name, const char *program)
{
	rv_cfg_action_defaults(&c->actions.item[i]);
	snprintf(c->actions.item[i].name, RV_CFG_ACTION_NAME_MAX, "%s", name);
	snprintf(c->actions.item[i].command[0], RV_CFG_ITEM_MAX, "%s", program);
	c->actions.item[i].argc = 1;
	if (c->actions.n < i + 1)
		c->actions.n = i + 1;
}

static void expect_checked(const struct rv_config *c, const char *want)
{
	struct rv_err err;

	rv_err_clear(&err);
	assert_int_equal(rv_config_check(c, &err), want ? -EINVAL : 0);
	if (want && strcmp(err.msg, want) != 0)
		fail_msg("message '%s', want '%s'", err.msg, want);
}

/* Actions filled in C get the loader's checks. */
static void test_check(void **state)
{
	struct rv_config c;

	rv_config_defaults(&c);
	set_action(&c, 0, "a", "/bin/true");
	set_action(&c, 1, "b", "/bin/false");
	expect_checked(&c, NULL);
	snprintf(c.actions.item[1].webhook, RV_CFG_ACTION_STR_MAX, "%s", "http://h/");
	expect_checked(&c, "actions[2] (b): has both command and webhook: an action runs one of "
		     "them");
	set_action(&c, 1, "a", "/bin/false");
	expect_checked(&c, "actions[2] (a): the name of actions[1] too: names must be unique");
	set_action(&c, 1, "b", "/bin/false");
	c.actions.item[1].timeout_s = 0.01;
	expect_checked(&c, "actions[2].timeout: '10ms' is not in 100ms..1h");
	set_action(&c, 1, "b", "/bin/false");
	c.actions.item[1].min_severity = (enum rv_cfg_severity)9;
	expect_checked(&c, "actions[2].min_severity: '9' is not one of minor | major | critical");
	set_action(&c, 1, "b", "/bin/false");
	snprintf(c.actions.item[1].subsystems[0], RV_CFG_SUBSYS_NAME_MAX, "%s", "disk");
	c.actions.item[1].n_subsystems = 1;
	expect_checked(&c, "actions[2].subsystems: subsystem 1 is not a subsystem (cpu, gpu, mem, "
		     "net, storage, other)");
	set_action(&c, 1, "b", "");
	expect_checked(&c, "actions[2] (b): command: the program (its first item) is empty");
	set_action(&c, 1, "b", "x");
	memset(c.actions.item[1].name, 'n', sizeof(c.actions.item[1].name));
	expect_checked(&c, "actions[2].name: not NUL-terminated");
	set_action(&c, 1, "b", "x");
	c.actions.n = RV_CFG_ACTIONS_MAX + 1;
	expect_checked(&c, "actions: more than 16 actions");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_set_refused),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
