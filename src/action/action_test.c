/*
 * action_test.c - command actions (action/action.h) run for real, with
 * /bin/sh as the program (a test chooses the argv): the filter; a command
 * gets exactly the JSON on its standard input, the REVEAL_* variables
 * (replacing stale ones) and no descriptor of ours; a failing command
 * (exit 3) is counted, logged once with its stderr and once when it
 * succeeds again; a hanging one is killed at its timeout with its whole
 * process group (one that ignores SIGTERM too, after the grace), while
 * submit returns at once; a program that cannot be started; a full queue
 * drops the oldest and counts; a clean stop finishes the run in progress
 * and drops the rest; set-up errors. Every wait is bounded (WAIT_S).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "action/action.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/log_testutil.h"

#define WAIT_S 10.0
#define N(a) (sizeof(a) / sizeof((a)[0]))

enum { DIR_BUF = 200, PATH_BUF = 512, SCRIPT_BUF = 4096, FILE_BUF = 8192, STAT_BUF = 1024 };

/* ---- log capture ---- */


/* ---- a scratch folder ---- */

static char dir[DIR_BUF];

static int setup(void **state)
{
	(void)state;
	log_capture_start();
	rv_log_set_level(RV_LOG_DEBUG);
	snprintf(dir, sizeof(dir), "%s/reveal-action.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATH_BUF * 2];

	(void)state;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	log_capture_stop();
	rv_log_set_level(RV_LOG_INFO);
	return 0;
}

static const char *in_dir(const char *name, char *buf)
{
	snprintf(buf, PATH_BUF, "%s/%s", dir, name);
	return buf;
}

/* The file's text ("" when missing), in buf. */
static const char *slurp(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k = 0;

	if (f) {
		k = fread(buf, 1, n - 1, f);
		fclose(f);
	}
	buf[k] = '\0';
	return buf;
}

/* ---- actions ---- */

static char script[SCRIPT_BUF];

/* A command action running `sh -c SCRIPT` (SCRIPT: printf-formatted,
 * every %s the scratch folder). */
static struct rv_action_spec sh_action(const char *name, double timeout_s, const char *fmt)
{
	struct rv_action_spec sp = { .name = name, .timeout_s = timeout_s };

	snprintf(script, sizeof(script), fmt, dir, dir, dir, dir);
	sp.argv[0] = "/bin/sh";
	sp.argv[1] = "-c";
	sp.argv[2] = script;
	sp.argc = 3;
	sp.events = (1u << RV_ACTION_OPEN) | (1u << RV_ACTION_CLOSE);
	return sp;
}

static struct rv_actions *start(const struct rv_action_spec *sp, size_t n, size_t queue_max,
				double grace_s)
{
	struct rv_actions_opts o = { .spec = sp, .n = n, .queue_max = queue_max,
				     .grace_s = grace_s };
	struct rv_actions *s = NULL;
	struct rv_err err = { 0 };

	if (rv_actions_new(&o, &s, &err) != 0)
		fail_msg("rv_actions_new: %s", err.msg);
	return s;
}

static struct rv_action_incident event(enum rv_action_event ev, uint64_t id, const char *json)
{
	return (struct rv_action_incident){ .event = ev, .id = id, .severity = RV_SEV_MAJOR,
					    .subsystem = "net", .host = "node7", .json = json,
					    .len = strlen(json) };
}

static uint64_t finished(struct rv_actions *s, size_t i)
{
	struct rv_action_stats st;

	rv_actions_stats(s, i, &st);
	return st.runs[RV_ACTION_OK] + st.runs[RV_ACTION_FAILED] + st.runs[RV_ACTION_TIMEOUT];
}

static void wait_runs(struct rv_actions *s, size_t i, uint64_t n)
{
	rv_ns t0 = rv_clock_ns();

	while (finished(s, i) < n) {
		if (rv_clock_since_s(t0) > WAIT_S)
			fail_msg("%llu runs finished, %llu expected",
				 (unsigned long long)finished(s, i), (unsigned long long)n);
		usleep(5000);
	}
}

static void wait_file(const char *path)
{
	rv_ns t0 = rv_clock_ns();

	while (access(path, F_OK) != 0) {
		if (rv_clock_since_s(t0) > WAIT_S)
			fail_msg("%s never appeared", path);
		usleep(5000);
	}
}

/* ---- tests ---- */

static void test_filter(void **state)
{
	struct rv_action_spec sp = { .name = "f" };
	struct rv_action_incident in = event(RV_ACTION_OPEN, 1, "{}");

	(void)state;
	assert_true(rv_action_matches(&sp, &in));            /* the defaults: open, any */
	in.event = RV_ACTION_CLOSE;
	assert_false(rv_action_matches(&sp, &in));
	sp.events = 1u << RV_ACTION_CLOSE;
	assert_true(rv_action_matches(&sp, &in));
	in.event = RV_ACTION_OPEN;
	assert_false(rv_action_matches(&sp, &in));
	sp.events = 0;
	sp.min_severity = RV_SEV_CRITICAL;
	assert_false(rv_action_matches(&sp, &in));           /* a major one */
	in.severity = RV_SEV_CRITICAL;
	assert_true(rv_action_matches(&sp, &in));
	sp.min_severity = RV_SEV_MINOR;
	sp.subsystems[0] = "gpu";
	sp.subsystems[1] = "storage";
	sp.nsubsystems = 2;
	assert_false(rv_action_matches(&sp, &in));           /* net */
	in.subsystem = "storage";
	assert_true(rv_action_matches(&sp, &in));
	in.subsystem = NULL;
	assert_false(rv_action_matches(&sp, &in));
}

/* Exactly the JSON on stdin, the variables, nothing of ours open. */
static void test_stdin_env_fds(void **state)
{
	static const char json[] = "{\"event\":\"open\",\"id\":42,\"note\":\"a \\\"b\\\"\\n\"}\n";
	struct rv_action_spec sp = sh_action("stdin", 5.0,
		"cat > %s/in.json; env | grep '^REVEAL_' | sort > %s/env.txt; "
		"ls /proc/$$/fd > %s/fds.txt; echo stdout-is-not-kept");
	struct rv_action_incident in = event(RV_ACTION_OPEN, 42, json);
	struct rv_action_stats st;
	struct rv_actions *s;
	char p[PATH_BUF], text[FILE_BUF], json_fd[32];
	int leak = open("/dev/null", O_RDONLY);   /* not close-on-exec: must not reach it */

	(void)state;
	assert_true(leak > 2);
	setenv("REVEAL_EVENT", "stale", 1);
	setenv("REVEAL_OTHER", "kept", 1);
	s = start(&sp, 1, 0, 0);
	assert_int_equal(rv_actions_submit(s, &in), 1);
	wait_runs(s, 0, 1);
	rv_actions_stats(s, 0, &st);
	assert_int_equal(st.runs[RV_ACTION_OK], 1);
	assert_string_equal(slurp(in_dir("in.json", p), text, sizeof(text)), json);
	assert_string_equal(slurp(in_dir("env.txt", p), text, sizeof(text)),
			    "REVEAL_ACTION=stdin\nREVEAL_EVENT=open\nREVEAL_HOST=node7\n"
			    "REVEAL_INCIDENT_ID=42\nREVEAL_OTHER=kept\nREVEAL_SEVERITY=major\n"
			    "REVEAL_SUBSYSTEM=net\n");
	slurp(in_dir("fds.txt", p), text, sizeof(text));
	assert_true(strncmp(text, "0\n1\n", 4) == 0 && strstr(text, "\n2\n"));  /* ls sorts */
	snprintf(json_fd, sizeof(json_fd), "\n%d\n", leak);   /* sh's own (dash: 10) may follow */
	if (strstr(text, json_fd))
		fail_msg("descriptor %d reached the command: %s", leak, text);
	assert_true(st.last_seconds > 0 && st.seconds_total == st.last_seconds);
	rv_actions_free(s);
	close(leak);
	unsetenv("REVEAL_EVENT");
	unsetenv("REVEAL_OTHER");
	assert_int_equal(logged(RV_LOG_INFO, "action stdin: 1 runs: 1 ok, 0 failed, 0 timed "
				"out; 0 dropped"), 1);
}

/* exit 3: failed, logged once with its stderr; once more when it works. */
static void test_failing(void **state)
{
	struct rv_action_spec sp = sh_action("flaky", 5.0,
		"test \"$REVEAL_INCIDENT_ID\" = 4 && exit 0; echo 'no such node' >&2; "
		"echo second line >&2; exit 3");
	struct rv_action_stats st;
	struct rv_actions *s;

	(void)state;
	s = start(&sp, 1, 0, 0);
	for (uint64_t id = 1; id <= 3; id++)
		rv_actions_submit(s, &(struct rv_action_incident){ .event = RV_ACTION_OPEN,
				  .id = id, .json = "{}\n", .len = 3 });
	wait_runs(s, 0, 3);
	rv_actions_stats(s, 0, &st);
	assert_int_equal(st.runs[RV_ACTION_FAILED], 3);
	assert_int_equal(st.runs[RV_ACTION_OK], 0);
	assert_true(st.failing);
	assert_string_equal(st.last_error, "exit status 3: no such node");
	assert_int_equal(logged(RV_LOG_WARN, "action flaky: incident 1 open: exit status 3: no "
				"such node (counted in reveal_action_runs_total"), 1);
	assert_int_equal(logged(RV_LOG_WARN, "exit status 3"), 1);
	rv_actions_submit(s, &(struct rv_action_incident){ .event = RV_ACTION_CLOSE, .id = 4,
			  .json = "{}\n", .len = 3 });
	wait_runs(s, 0, 4);
	rv_actions_stats(s, 0, &st);
	assert_int_equal(st.runs[RV_ACTION_OK], 1);
	assert_false(st.failing);
	assert_string_equal(st.last_error, "exit status 3: no such node");  /* kept */
	assert_int_equal(logged(RV_LOG_INFO, "action flaky: succeeds again (incident 4 close"), 1);
	assert_int_equal(logged(RV_LOG_INFO, "after 3 failed runs"), 1);
	rv_actions_free(s);
}

/* The group of pgid holds no live process (zombies aside). */
static int group_gone(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int alive = 0;

	assert_non_null(d);
	while (!alive && (e = readdir(d))) {
		char p[PATH_BUF], st[STAT_BUF];
		const char *rp;
		char state;
		long grp;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/stat", e->d_name);
		slurp(p, st, sizeof(st));
		rp = strrchr(st, ')');   /* comm may hold blanks; then state, ppid, pgrp */
		if (!rp || strlen(rp) < 4)
			continue;
		state = rp[2];
		rp = strchr(rp + 4, ' ');
		grp = rp ? strtol(rp + 1, NULL, 10) : -1;
		alive = grp == pgid && state != 'Z';
	}
	closedir(d);
	return !alive;
}

static void expect_group_gone(pid_t pgid)
{
	rv_ns t0 = rv_clock_ns();

	while (!group_gone(pgid)) {
		if (rv_clock_since_s(t0) > WAIT_S)
			fail_msg("process group %d is still alive", (int)pgid);
		usleep(10000);
	}
}

static pid_t pid_in(const char *name)
{
	char p[PATH_BUF], text[64];

	wait_file(in_dir(name, p));
	usleep(20000);   /* the line written */
	return (pid_t)strtol(slurp(p, text, sizeof(text)), NULL, 10);
}

/* sleep 30 with a child in the background: killed at 0.5 s, group and all. */
static void test_hanging(void **state)
{
	struct rv_action_spec sp = sh_action("hang", 0.5,
		"echo $$ > %s/pid.tmp; mv %s/pid.tmp %s/pid; sleep 30 & sleep 30; wait");
	struct rv_action_incident in = event(RV_ACTION_OPEN, 7, "{}\n");
	struct rv_action_stats st;
	struct rv_actions *s;
	rv_ns t0;
	pid_t pgid;

	(void)state;
	s = start(&sp, 1, 0, 0);
	t0 = rv_clock_ns();
	assert_int_equal(rv_actions_submit(s, &in), 1);
	assert_true(rv_clock_since_s(t0) < 0.05);   /* the caller never waits */
	pgid = pid_in("pid");
	assert_true(pgid > 1);
	wait_runs(s, 0, 1);
	assert_true(rv_clock_since_s(t0) < 0.5 + 1.5);   /* SIGTERM was enough */
	rv_actions_stats(s, 0, &st);
	assert_int_equal(st.runs[RV_ACTION_TIMEOUT], 1);
	assert_string_equal(st.last_error, "timed out after 0.5 s (process group killed)");
	assert_true(st.last_seconds >= 0.5);
	expect_group_gone(pgid);
	assert_int_equal(logged(RV_LOG_WARN, "action hang: incident 7 open: timed out after "
				"0.5 s"), 1);
	rv_actions_free(s);
}

/* A command that ignores SIGTERM gets SIGKILL after the grace. */
static void test_hanging_ignores_term(void **state)
{
	struct rv_action_spec sp = sh_action("stubborn", 0.3,
		"trap '' TERM; echo $$ > %s/pid.tmp; mv %s/pid.tmp %s/pid; sleep 30");
	struct rv_action_stats st;
	struct rv_actions *s;
	rv_ns t0;
	pid_t pgid;

	(void)state;
	s = start(&sp, 1, 0, 0.4);
	t0 = rv_clock_ns();
	rv_actions_submit(s, &(struct rv_action_incident){ .event = RV_ACTION_OPEN, .id = 1,
			  .json = "{}\n", .len = 3 });
	pgid = pid_in("pid");
	wait_runs(s, 0, 1);
	assert_true(rv_clock_since_s(t0) >= 0.3 + 0.4);
	assert_true(rv_clock_since_s(t0) < 0.3 + 0.4 + 1.5);
	rv_actions_stats(s, 0, &st);
	assert_int_equal(st.runs[RV_ACTION_TIMEOUT], 1);
	expect_group_gone(pgid);
	rv_actions_free(s);
}

static void test_exec_failure(void **state)
{
	struct rv_action_spec sp[2] = { { .name = "missing" }, { .name = "not-in-path" } };
	struct rv_action_stats st;
	struct rv_actions *s;

	(void)state;
	sp[0].argv[0] = "/nonexistent/reveal-action";
	sp[0].argc = 1;
	sp[1].argv[0] = "reveal-no-such-program-on-path";
	sp[1].argc = 1;
	s = start(sp, 2, 0, 0);
	rv_actions_submit(s, &(struct rv_action_incident){ .event = RV_ACTION_OPEN, .id = 1,
			  .json = "{}\n", .len = 3 });
	wait_runs(s, 0, 1);
	wait_runs(s, 1, 1);
	rv_actions_stats(s, 0, &st);
	assert_int_equal(st.runs[RV_ACTION_FAILED], 1);
	assert_string_equal(st.last_error, "exec /nonexistent/reveal-action: No such file or "
			    "directory");
	rv_actions_stats(s, 1, &st);
	assert_int_equal(st.runs[RV_ACTION_FAILED], 1);
	assert_string_equal(st.last_error, "exec reveal-no-such-program-on-path: No such file or "
			    "directory");
	rv_actions_free(s);
}

/* A queue of 4 while the first run holds the worker: 10 events, the 5
 * oldest waiting ones dropped, the rest run in order. */
static void test_overflow(void **state)
{
	struct rv_action_spec sp = sh_action("slow", 5.0,
		"cat >> %s/seen; echo >> %s/seen; touch %s/started; sleep 0.2");
	struct rv_action_stats st;
	struct rv_actions *s;
	char p[PATH_BUF], text[FILE_BUF], json[32];

	(void)state;
	s = start(&sp, 1, 4, 0);
	for (uint64_t id = 1; id <= 10; id++) {
		snprintf(json, sizeof(json), "%llu", (unsigned long long)id);
		rv_actions_submit(s, &(struct rv_action_incident){ .event = RV_ACTION_OPEN,
				  .id = id, .json = json, .len = strlen(json) });
		if (id == 1)
			wait_file(in_dir("started", p));
	}
	rv_actions_stats(s, 0, &st);
	assert_int_equal(st.dropped, 5);
	assert_int_equal(st.queued, 4);
	wait_runs(s, 0, 5);
	rv_actions_stats(s, 0, &st);
	assert_int_equal(st.runs[RV_ACTION_OK], 5);
	assert_int_equal(st.queued, 0);
	assert_string_equal(slurp(in_dir("seen", p), text, sizeof(text)), "1\n7\n8\n9\n10\n");
	assert_int_equal(logged(RV_LOG_WARN, "action slow: 4 runs queued: dropping the oldest"), 1);
	rv_actions_free(s);
	assert_int_equal(logged(RV_LOG_INFO, "action slow: 5 runs: 5 ok, 0 failed, 0 timed out; "
				"5 dropped"), 1);
}

/* A stop lets the run in progress end (at its timeout) and drops the rest. */
static void test_stop(void **state)
{
	struct rv_action_spec sp[2];
	struct rv_actions *s;
	char p[PATH_BUF];
	rv_ns t0;

	(void)state;
	sp[0] = sh_action("busy", 1.0, "touch %s/busy; exec sleep 30");
	sp[1] = (struct rv_action_spec){ .name = "idle", .argv = { "/bin/true" }, .argc = 1,
					 .events = 1u << RV_ACTION_CLOSE };
	s = start(sp, 2, 0, 0);
	for (uint64_t id = 1; id <= 3; id++)
		rv_actions_submit(s, &(struct rv_action_incident){ .event = RV_ACTION_OPEN,
				  .id = id, .json = "{}\n", .len = 3 });
	wait_file(in_dir("busy", p));
	t0 = rv_clock_ns();
	rv_actions_free(s);
	assert_true(rv_clock_since_s(t0) < 1.0 + 1.5);
	assert_int_equal(logged(RV_LOG_WARN, "action busy: stopping: 2 queued runs dropped"), 1);
	assert_int_equal(logged(RV_LOG_INFO, "action busy: 1 runs: 0 ok, 0 failed, 1 timed out; "
				"2 dropped"), 1);
	assert_int_equal(logged(-1, "action idle"), 0);   /* nothing ran, nothing to say */
}

static void expect_new_error(const struct rv_action_spec *sp, size_t n, const char *want)
{
	struct rv_actions_opts o = { .spec = sp, .n = n };
	struct rv_actions *s = (struct rv_actions *)1;
	struct rv_err err = { 0 };

	assert_int_equal(rv_actions_new(&o, &s, &err), -EINVAL);
	assert_null(s);
	if (!strstr(err.msg, want))
		fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void test_new_errors(void **state)
{
	struct rv_action_spec sp[2] = {
		{ .name = "a", .argv = { "/bin/true" }, .argc = 1 },
		{ .name = "a", .argv = { "/bin/true" }, .argc = 1 },
	};

	(void)state;
	expect_new_error(sp, 2, "action a: named twice");
	sp[1].name = "";
	expect_new_error(sp, 2, "action 2: no name");
	sp[1].name = "b";
	sp[1].http.url = "http://127.0.0.1:9/";
	expect_new_error(sp, 2, "action b: needs exactly one of a command and a webhook");
	sp[1].argc = 0;
	sp[1].http.url = NULL;
	expect_new_error(sp, 2, "action b: needs exactly one of a command and a webhook");
	sp[1].argv[0] = "";
	sp[1].argc = 1;
	expect_new_error(sp, 2, "action b: argument 1 is empty");
	sp[1].argv[0] = "/bin/true";
	sp[1].timeout_s = -1;
	expect_new_error(sp, 2, "action b: timeout -1 s is outside 0..3600");
	sp[1].timeout_s = 0;
	sp[1].argc = 0;
	sp[1].http.url = "ftp://h/";
	expect_new_error(sp, 2, "url ftp://h/: not http:// or https://");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdin_env_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hanging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hanging_ignores_term, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
