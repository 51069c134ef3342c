/*
 * spawn.c - child processes and the private network namespace of the
 * demo (spawn.h).
 */
#include "demo/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"

enum { PATH_MAX_LEN = 4096, POLL_NS = 50000000 };

int rv_netns_private(struct rv_err *err)
{
	struct ifreq ifr;
	int fd, rc = 0;

	if (unshare(CLONE_NEWNET) != 0)
		return rv_err_set(err, -errno, "a private network namespace needs root "
				  "(CAP_SYS_ADMIN): %s", rv_strerror(errno));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return rv_err_set(err, -errno, "socket in the new namespace: %s",
				  rv_strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0)
		rc = -errno;
	else {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
			rc = -errno;
	}
	close(fd);
	if (rc)
		return rv_err_set(err, rc, "bringing lo up in the new namespace: %s",
				  rv_strerror(rc));
	return 0;
}

int rv_have_program(const char *program)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX_LEN];

	if (strchr(program, '/'))
		return access(program, X_OK) == 0;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n > 0 && (size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, program) <
				     sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	/* sbin is often missing from a user's PATH; nft and tc live there */
	for (const char *const *d = (const char *const[]){ "/usr/sbin", "/sbin", NULL }; *d; d++)
		if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", *d, program) < sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return 1;
	return 0;
}

/* In the child: own process group, killed with the demo, output to log. */
static void child_setup(const char *log_path)
{
	int fd;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	fd = log_path && *log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)
				   : open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
}

static void exec_with_sbin(char *const argv[])
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin" };
	char buf[PATH_MAX_LEN];

	execvp(argv[0], argv);
	if (!strchr(argv[0], '/'))
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
			if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", dirs[i], argv[0]) <
			    sizeof(buf))
				execv(buf, argv);
}

int rv_spawn(char *const argv[], const char *log_path, pid_t *pid, struct rv_err *err)
{
	int pfd[2];
	int code = 0;
	pid_t p;

	/* The child reports a failed exec through a close-on-exec pipe: EOF
	 * means the program runs. */
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return rv_err_set(err, -errno, "pipe: %s", rv_strerror(errno));
	p = fork();
	if (p < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return rv_err_set(err, -errno, "fork: %s", rv_strerror(errno));
	}
	if (p == 0) {
		close(pfd[0]);
		child_setup(log_path);
		exec_with_sbin(argv);
		code = errno;
		if (write(pfd[1], &code, sizeof(code)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	setpgid(p, p);   /* also here: no race with a kill right after */
	while (read(pfd[0], &code, sizeof(code)) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	if (code) {
		waitpid(p, NULL, 0);
		return rv_err_set(err, -code, "cannot run %s: %s", argv[0], rv_strerror(code));
	}
	*pid = p;
	return 0;
}

int rv_spawn_fn(int (*fn)(void *), void *arg, const char *log_path, pid_t *pid,
		struct rv_err *err)
{
	pid_t p = fork();

	if (p < 0)
		return rv_err_set(err, -errno, "fork: %s", rv_strerror(errno));
	if (p == 0) {
		child_setup(log_path);
		_exit(fn(arg) ? 1 : 0);
	}
	setpgid(p, p);
	*pid = p;
	return 0;
}

int rv_wait_child(pid_t pid, double limit_s, int *status)
{
	const struct timespec nap = { 0, POLL_NS };
	double waited = 0.0;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD))
			return 1;
		if (waited >= limit_s)
			return 0;
		nanosleep(&nap, NULL);
		waited += POLL_NS / 1e9;
	}
}

int rv_stop_child(pid_t pid, double grace_s)
{
	int status = -1;

	if (pid <= 0)
		return -1;
	if (kill(-pid, SIGTERM) != 0)
		kill(pid, SIGTERM);
	if (!rv_wait_child(pid, grace_s, &status)) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	/* helpers the child forked may outlive it in its group */
	kill(-pid, SIGKILL);
	return status;
}
