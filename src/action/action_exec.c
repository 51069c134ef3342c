/*
 * action_exec.c - one run of a command action (action_int.h): spawned
 * with posix_spawn (no shell, no fork of the agent's memory), fed its
 * input through a pipe, watched until it exits or its time is up.
 *
 * Why this shape: the command is the operator's and may do anything:
 * read nothing, print megabytes, fork children that outlive it, ignore
 * SIGTERM. So it runs in a process group of its own, which the timeout
 * signals as a whole (SIGTERM, then SIGKILL); its input is written
 * without blocking, so a command that never reads cannot hold the worker
 * past its timeout; stderr is read all along (its first bytes kept for
 * the log) so that it never blocks on a full pipe; and the loop waits for
 * the command itself, not for the end of its output, which a background
 * child may keep open. The leader is reaped only after the group is
 * signalled (waitid with WNOWAIT sees it exit), so the group's id cannot
 * be reused by then.
 */
#include "action/action_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"

enum {
	EXEC_TICK_MS = 10,             /* how often the command's end is looked for */
	EXEC_STDERR_KEPT = 4096,       /* bytes of stderr kept (the rest is read, dropped) */
	EXEC_READ_CHUNK = 4096,
};
#define EXEC_NS_PER_S 1e9

extern char **environ;

/* One command running. */
struct run {
	pid_t pid;
	int in_fd, err_fd;             /* our ends of its stdin and stderr; -1 closed */
	const char *in;
	size_t len, sent;
	char err[EXEC_STDERR_KEPT];
	size_t err_len;
	rv_ns deadline, grace_ns, term_at;   /* term_at: SIGTERM sent; 0 not yet */
	int killed;                    /* SIGKILL sent */
};

const char *rv_action_first_line(const char *s, size_t len, char *buf, size_t n)
{
	size_t i, m = len < RV_ACTION_SHOWN ? len : RV_ACTION_SHOWN;

	for (i = 0; i < m && i + 1 < n && s[i] != '\n'; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	while (i > 0 && (buf[i - 1] == ' ' || buf[i - 1] == '?'))   /* a \r, blanks */
		i--;
	if (n)
		buf[i < n ? i : n - 1] = '\0';
	return buf;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* fd moved above 2 (an agent started with stdin closed gets pipes at 0):
 * the child's dup2 onto 0 and 2 must not meet it. -errno on failure. */
static int above_stdio(int fd)
{
	int moved;

	if (fd > STDERR_FILENO)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return moved >= 0 ? moved : -errno;
}

/* Both pipes, close-on-exec, ends above stdio: in[0] and err[1] go to the
 * child. 0 or -errno. */
static int make_pipes(int in[2], int err[2])
{
	in[0] = in[1] = err[0] = err[1] = -1;
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
		return -errno;
	for (int i = 0; i < 2; i++) {
		if ((in[i] = above_stdio(in[i])) < 0)
			return in[i];
		if ((err[i] = above_stdio(err[i])) < 0)
			return err[i];
	}
	return 0;
}

/* The agent's environment less the names env sets, then env; NULL when
 * out of memory. Free the array only (the strings are borrowed). */
static char **make_env(const char *const *env, size_t nenv)
{
	size_t n = 0, k = 0;
	char **out;

	while (environ && environ[n])
		n++;
	if (!(out = calloc(n + nenv + 1, sizeof(*out))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int replaced = 0;

		for (size_t j = 0; j < nenv && !replaced; j++) {
			size_t nl = strcspn(env[j], "=") + 1;

			replaced = strncmp(environ[i], env[j], nl) == 0;
		}
		if (!replaced)
			out[k++] = environ[i];
	}
	for (size_t j = 0; j < nenv; j++)
		out[k++] = (char *)env[j];
	return out;
}

/* The child's set-up: a process group of its own, default signal
 * handling (the agent ignores SIGPIPE, which exec keeps), no mask; stdin
 * and stderr the pipes, stdout /dev/null, nothing else open. */
static int spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, int in_rd,
		       int err_wr)
{
	sigset_t none, all;
	int rc;

	sigemptyset(&none);
	sigfillset(&all);
	rc = posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	if (!rc)
		rc = posix_spawnattr_setpgroup(at, 0);
	if (!rc)
		rc = posix_spawnattr_setsigmask(at, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(at, &all);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(fa, in_rd, STDIN_FILENO);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(fa, err_wr, STDERR_FILENO);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addclosefrom_np(fa, STDERR_FILENO + 1);
	return -rc;
}

/* posix_spawnp of argv with the set-up above: 0 or -errno. */
static int spawn(struct run *r, const char *const *argv, char **envp, int in_rd, int err_wr)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int rc = -posix_spawn_file_actions_init(&fa);

	if (rc)
		return rc;
	if ((rc = -posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return rc;
	}
	rc = spawn_setup(&fa, &at, in_rd, err_wr);
	if (!rc)
		rc = -posix_spawnp(&r->pid, argv[0], &fa, &at, (char *const *)argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return rc;
}

/* Starts argv: 0 with r->pid and our pipe ends set (non-blocking), or
 * -errno with why ("exec /x: No such file or directory"). */
static int start(struct run *r, const char *const *argv, char **envp, char *why, size_t n)
{
	int in[2], err[2], rc = make_pipes(in, err);

	if (rc)
		snprintf(why, n, "pipe: %s", rv_strerror(rc));
	else if ((rc = spawn(r, argv, envp, in[0], err[1])) != 0)
		snprintf(why, n, "exec %s: %s", argv[0], rv_strerror(rc));
	close_fd(&in[0]);
	close_fd(&err[1]);
	r->in_fd = in[1];
	r->err_fd = err[0];
	if (rc) {
		close_fd(&r->in_fd);
		close_fd(&r->err_fd);
		return rc;
	}
	/* on a pipe this cannot fail; if it did, reads and writes would
	 * block, and still end with the command */
	(void)fcntl(r->in_fd, F_SETFL, O_NONBLOCK);
	(void)fcntl(r->err_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Writes what the pipe takes now; closes it when all is written or the
 * command closed its end (EPIPE: it reads no more, which is its choice). */
static void feed(struct run *r)
{
	while (r->in_fd >= 0 && r->sent < r->len) {
		ssize_t k = write(r->in_fd, r->in + r->sent, r->len - r->sent);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return;
		if (k <= 0)
			break;
		r->sent += (size_t)k;
	}
	close_fd(&r->in_fd);
}

/* Reads what stderr holds now: the first bytes kept, the rest dropped. */
static void drain(struct run *r)
{
	char chunk[EXEC_READ_CHUNK];

	while (r->err_fd >= 0) {
		ssize_t k = read(r->err_fd, chunk, sizeof(chunk));
		size_t keep;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return;
		if (k <= 0) {
			close_fd(&r->err_fd);
			return;
		}
		keep = sizeof(r->err) - r->err_len;
		keep = (size_t)k < keep ? (size_t)k : keep;
		memcpy(r->err + r->err_len, chunk, keep);
		r->err_len += keep;
	}
}

/* 1 once the command exited (left a zombie: not reaped here). */
static int exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
		return errno != EINTR;   /* ECHILD: nothing left to wait for */
	return si.si_pid != 0;
}

/* Until the command exits: its input written, its stderr read, the
 * timeout's signals sent to its group. */
static void watch(struct run *r)
{
	while (!exited(r->pid)) {
		struct pollfd p[2];
		nfds_t n = 0;
		rv_ns now = rv_clock_ns();

		if (!r->term_at && now >= r->deadline) {
			kill(-r->pid, SIGTERM);
			r->term_at = now;
			close_fd(&r->in_fd);
		}
		if (r->term_at && !r->killed && now >= r->term_at + r->grace_ns) {
			kill(-r->pid, SIGKILL);
			r->killed = 1;
		}
		if (r->in_fd >= 0)
			p[n++] = (struct pollfd){ .fd = r->in_fd, .events = POLLOUT };
		if (r->err_fd >= 0)
			p[n++] = (struct pollfd){ .fd = r->err_fd, .events = POLLIN };
		poll(n ? p : NULL, n, EXEC_TICK_MS);
		feed(r);
		drain(r);
	}
	drain(r);
}

/* The outcome of a command that ran: by its wait status and stderr. */
static void verdict(const struct run *r, int status, double timeout_s,
		    struct rv_action_outcome *out)
{
	char line[RV_ACTION_SHOWN + 1], sig[32];   /* "15 (SIGTERM)" */
	const char *abbrev;

	rv_action_first_line(r->err, r->err_len, line, sizeof(line));
	out->result = RV_ACTION_FAILED;
	if (r->term_at) {
		out->result = RV_ACTION_TIMEOUT;
		snprintf(out->reason, sizeof(out->reason), "timed out after %g s (process group "
			 "killed)", timeout_s);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		out->result = RV_ACTION_OK;
		out->reason[0] = '\0';
	} else if (WIFEXITED(status)) {
		snprintf(out->reason, sizeof(out->reason), "exit status %d%s%s",
			 WEXITSTATUS(status), line[0] ? ": " : "", line);
	} else {
		abbrev = WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) : NULL;
		snprintf(sig, sizeof(sig), "%d%s%s%s", WIFSIGNALED(status) ? WTERMSIG(status) : 0,
			 abbrev ? " (SIG" : "", abbrev ? abbrev : "", abbrev ? ")" : "");
		snprintf(out->reason, sizeof(out->reason), "killed by signal %s%s%s", sig,
			 line[0] ? ": " : "", line);
	}
}

void rv_action_exec(const char *const *argv, size_t argc, const char *const *env, size_t nenv,
		    const char *in, size_t len, double timeout_s, double grace_s,
		    struct rv_action_outcome *out)
{
	struct run r = { .pid = -1, .in_fd = -1, .err_fd = -1, .in = in, .len = len };
	char **envp = make_env(env, nenv);
	int status = 0, werr;
	pid_t reaped;

	out->result = RV_ACTION_FAILED;
	if (argc == 0 || !envp) {
		snprintf(out->reason, sizeof(out->reason), "%s", argc ? "out of memory" : "no command");
		free(envp);
		return;
	}
	r.deadline = rv_clock_ns() + (rv_ns)(timeout_s * EXEC_NS_PER_S);
	r.grace_ns = (rv_ns)(grace_s * EXEC_NS_PER_S);
	if (start(&r, argv, envp, out->reason, sizeof(out->reason)) != 0) {
		free(envp);
		return;
	}
	free(envp);
	watch(&r);
	if (r.term_at)
		kill(-r.pid, SIGKILL);   /* what is left of the group; the leader's zombie holds its id */
	while ((reaped = waitpid(r.pid, &status, 0)) < 0 && errno == EINTR)
		;
	werr = reaped < 0 ? errno : 0;
	close_fd(&r.in_fd);
	close_fd(&r.err_fd);
	if (werr)   /* reaped by someone else: SIGCHLD ignored (SA_NOCLDWAIT) */
		snprintf(out->reason, sizeof(out->reason), "its exit status is lost: %s",
			 rv_strerror(werr));
	else
		verdict(&r, status, timeout_s, out);
}
