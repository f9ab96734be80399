/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A container-like subtree, as a program outside rcuproc would build it:
 * a "container init" marks itself a child subreaper, so that the orphans
 * of its subtree come to it instead of to the system's init.  Its child
 * forks a grandchild and exits; the grandchild is reparented to the
 * container init, which reaps both, while the system's init sees none.
 *
 *	cc -o subtree subtree.c $(pkg-config --cflags --libs rcuproc)
 *
 * Exits 0 when every answer is Linux's, 1 otherwise (with a message);
 * example.h holds the set-up and teardown every example shares.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <rcuproc/rcuproc.h>
#include "example.h"

/* Reap @pid as @parent; it must have exited with @code. */
static int reap(struct rp_task *parent, pid_t pid, int code)
{
	int status = 0;
	pid_t got = rp_wait4(parent, pid, &status, 0, NULL);

	if (got != pid)
		return example_fail("subtree", "wait4 of the expected child", got);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != code)
		return example_fail("subtree", "the child's exit status", status);
	return 0;
}

/* The subtree: box (subreaper) -> middle -> leaf; middle exits first. */
static int run(struct rp_task *init)
{
	struct rp_task *box = NULL, *middle = NULL, *leaf = NULL;
	pid_t box_pid, middle_pid, leaf_pid;
	int err = 1;

	box_pid = rp_fork(init, &box);
	if (box_pid < 0)
		return example_fail("subtree", "fork of the container init", box_pid);
	if (rp_prctl(box, PR_SET_CHILD_SUBREAPER, 1) != 0)
		goto out;
	middle_pid = rp_fork(box, &middle);
	leaf_pid = middle_pid < 0 ? middle_pid : rp_fork(middle, &leaf);
	if (leaf_pid < 0) {
		err = example_fail("subtree", "fork in the subtree", leaf_pid);
		goto out;
	}
	rp_exit_group(middle, 3);
	if (rp_getppid(leaf) != box_pid) {
		err = example_fail("subtree", "the orphan's parent is the subreaper", rp_getppid(leaf));
		goto out;
	}
	rp_exit_group(leaf, 4);
	if (reap(box, middle_pid, 3) || reap(box, leaf_pid, 4))
		goto out;
	if (rp_wait4(init, -1, NULL, WNOHANG, NULL) != 0) {
		err = example_fail("subtree", "the system's init sees nothing of the subtree", 0);
		goto out;
	}
	rp_exit_group(box, 0);
	err = reap(init, box_pid, 0);
	if (!err)
		printf("subtree: orphan %d went to subreaper %d, not to init\n", leaf_pid,
		       box_pid);
out:
	if (leaf)
		rp_task_put(leaf);
	if (middle)
		rp_task_put(middle);
	rp_task_put(box);
	return err;
}

int main(void)
{
	struct rp_system *sys;
	struct rp_task *init = example_start(&sys);
	int err;

	if (!init)
		return 1;
	err = run(init);
	example_stop(sys, init);
	return err;
}
