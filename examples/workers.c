/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A supervisor, as a program outside rcuproc would write it: it forks four
 * workers into a process group of their own, signals the group with
 * killpg, reaps every worker and checks each one died of that signal.
 * Built against the installed library through pkg-config, in C and C++:
 *
 *	cc -o workers workers.c $(pkg-config --cflags --libs rcuproc)
 *
 * Exits 0 when every answer is Linux's, 1 otherwise (with a message);
 * example.h holds the set-up and teardown every example shares.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <rcuproc/rcuproc.h>
#include "example.h"

#define WORKERS 4

/* Fork the workers into one new group, led by the first; their pids to @pids. */
static int start_workers(struct rp_task *init, struct rp_task *workers[], pid_t pids[])
{
	for (int i = 0; i < WORKERS; i++) {
		pids[i] = rp_fork(init, &workers[i]);
		if (pids[i] < 0)
			return example_fail("workers", "fork", pids[i]);
		if (rp_setpgid(init, pids[i], pids[0]) != 0)
			return example_fail("workers", "setpgid", pids[i]);
	}
	return 0;
}

/* Each worker returns to user space and meets the signal: it dies of it. */
static void run_workers(struct rp_task *workers[])
{
	siginfo_t info;

	for (int i = 0; i < WORKERS; i++)
		while (rp_get_signal(workers[i], &info) > 0)
			;
}

/* Reap every worker: each must report death by @sig. */
static int reap_workers(struct rp_task *init, int sig)
{
	for (int i = 0; i < WORKERS; i++) {
		int status = 0;
		pid_t pid = rp_wait4(init, -1, &status, 0, NULL);

		if (pid < 0)
			return example_fail("workers", "wait4", pid);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
			return example_fail("workers", "a worker's status", status);
	}
	if (rp_wait4(init, -1, NULL, WNOHANG, NULL) != -ECHILD)
		return example_fail("workers", "ECHILD after the last worker", 0);
	return 0;
}

int main(void)
{
	struct rp_task *workers[WORKERS] = { NULL };
	pid_t pids[WORKERS];
	struct rp_system *sys;
	struct rp_task *init = example_start(&sys);
	int err;

	if (!init)
		return 1;
	err = start_workers(init, workers, pids);
	if (!err && (err = rp_killpg(init, pids[0], SIGTERM)) != 0)
		err = example_fail("workers", "killpg", err);
	if (!err) {
		run_workers(workers);
		err = reap_workers(init, SIGTERM);
	}
	for (int i = 0; i < WORKERS; i++)
		if (workers[i])
			rp_task_put(workers[i]);
	example_stop(sys, init);
	if (!err)
		printf("workers: %d workers killed by group and reaped, library %s\n",
		       WORKERS, rp_version());
	return err;
}
