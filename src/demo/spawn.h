/*
 * spawn.h - the child processes of `reveal demo` and the private network
 * namespace it runs in. Every child is tied to the demo: it gets SIGKILL
 * when the demo dies (PR_SET_PDEATHSIG) and runs in its own process group,
 * so stopping it stops the helpers it forked (stress-ng's workers).
 */
#ifndef RV_DEMO_SPAWN_H
#define RV_DEMO_SPAWN_H

#include <sys/types.h>

struct rv_err;

/* Moves this process into a new network namespace of its own with lo up:
 * everything it starts afterwards shares it, and the namespace, with its
 * nftables rules and qdiscs, disappears when the last of them exits.
 * Needs CAP_SYS_ADMIN; -EPERM (with the reason) otherwise. */
int rv_netns_private(struct rv_err *err);

/* Starts argv[0] (looked up in PATH) with stdin from /dev/null and stdout
 * and stderr appended to log_path ("" or NULL: /dev/null). *pid is the
 * child, also the id of its process group. -ENOENT with a message when the
 * program cannot be run. */
int rv_spawn(char *const argv[], const char *log_path, pid_t *pid, struct rv_err *err);

/* Forks a child that calls fn(arg) and exits with its return value
 * (nonzero: 1); same ties to the demo as rv_spawn. */
int rv_spawn_fn(int (*fn)(void *), void *arg, const char *log_path, pid_t *pid,
		struct rv_err *err);

/* SIGTERM to the process group of pid, SIGKILL after grace_s; reaps pid
 * and returns its wait status (-1 when it was not a child). */
int rv_stop_child(pid_t pid, double grace_s);

/* Waits up to limit_s for pid to exit on its own; 1 when it did (status
 * in *status), 0 when it still runs. */
int rv_wait_child(pid_t pid, double limit_s, int *status);

/* 1 when PROGRAM is found in PATH (or is a path that can be run). */
int rv_have_program(const char *program);

#endif
