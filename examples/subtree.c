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
 * Exits 0 when every answer is Linux's, 1 otherwise (with a message).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <rcuproc/rcuproc.h>

static int fail(const char *what, long got)
{
	fprintf(stderr, "subtree: %s (got %ld)\n", what, got);
	return 1;
}

/* Reap @pid as @parent; it must have exited with @code. */
static int reap(struct rp_task *parent, pid_t pid, int code)
{
	int status = 0;
	pid_t got = rp_wait4(parent, pid, &status, 0, NULL);

	if (got != pid)
		return fail("wait4 of the expected child", got);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != code)
		return fail("the child's exit status", status);
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
		return fail("fork of the container init", box_pid);
	if (rp_prctl(box, PR_SET_CHILD_SUBREAPER, 1) != 0)
		goto out;
	middle_pid = rp_fork(box, &middle);
	leaf_pid = middle_pid < 0 ? middle_pid : rp_fork(middle, &leaf);
	if (leaf_pid < 0) {
		err = fail("fork in the subtree", leaf_pid);
		goto out;
	}
	rp_exit_group(middle, 3);
	if (rp_getppid(leaf) != box_pid) {
		err = fail("the orphan's parent is the subreaper", rp_getppid(leaf));
		goto out;
	}
	rp_exit_group(leaf, 4);
	if (reap(box, middle_pid, 3) || reap(box, leaf_pid, 4))
		goto out;
	if (rp_wait4(init, -1, NULL, WNOHANG, NULL) != 0) {
		err = fail("the system's init sees nothing of the subtree", 0);
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
	struct rp_system_opts opts;
	struct rp_system *sys;
	struct rp_task *init;
	int err;

	memset(&opts, 0, sizeof(opts));
	opts.mode = RP_SYNC_RCU;
	opts.size = sizeof(opts);
	rp_thread_register();
	err = rp_system_create(&opts, &sys);
	if (err)
		return fail("rp_system_create", err);
	init = rp_system_init(sys);
	err = run(init);
	rp_task_put(init);
	rp_system_destroy(sys);
	rp_thread_unregister();
	return err;
}
