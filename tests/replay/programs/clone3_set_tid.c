/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clone3 with set_tid, run as the init of a pid namespace (unshare --pid
 * --fork): a child asked for 700 gets it; 700 again while it lives, 1
 * (init's) and 0 are refused (EEXIST, EEXIST, EINVAL), and so is a set_tid
 * longer than the levels (EINVAL); a CLONE_NEWPID child asked for 1 there
 * and 705 here is a nested init whose own child asks for 710 in its
 * namespace and 711 in this one; a child that dropped CAP_SYS_ADMIN is
 * refused a number (EPERM; it drops CAP_CHECKPOINT_RESTORE too, which
 * Linux also accepts).  Pipes and waits order the steps, so the
 * recording is the same every run.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static pid_t clone3_tids(unsigned long flags, const pid_t *tids, size_t n)
{
	struct clone_args args;

	memset(&args, 0, sizeof(args));
	args.flags = flags;
	args.exit_signal = SIGCHLD;
	args.set_tid = (uint64_t)(uintptr_t)tids;
	args.set_tid_size = n;
	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

/* The nested init (1 there, 705 here): a child numbered 710 and 711. */
static void nested_init(void)
{
	static const pid_t grand[] = { 710, 711 }, one[] = { 1 };
	pid_t child;
	int st;

	getpid();
	getppid();
	child = clone3_tids(0, grand, 2);
	if (child == 0) {
		getpid();
		getppid();
		_exit(3);
	}
	waitpid(child, &st, 0);
	clone3_tids(0, one, 1);		/* EEXIST: its own number */
	_exit(5);
}

/* Without CAP_SYS_ADMIN no number may be asked for. */
static void without_admin(void)
{
	static const pid_t want[] = { 720 };
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &head, data))
		_exit(9);
	data[0].effective &= ~(1u << CAP_SYS_ADMIN);
	/* Linux also lets CAP_CHECKPOINT_RESTORE choose a number. */
	data[1].effective &= ~(1u << (CAP_CHECKPOINT_RESTORE - 32));
	if (syscall(SYS_capset, &head, data))
		_exit(8);
	if (clone3_tids(0, want, 1) == 0)	/* EPERM */
		_exit(7);
	_exit(6);
}

int main(void)
{
	static const pid_t first[] = { 700 }, one[] = { 1 }, zero[] = { 0 };
	static const pid_t three[] = { 702, 702, 702 }, nested[] = { 1, 705 };
	int hold[2], st;
	pid_t a, b;
	char c;

	if (pipe(hold))
		return 1;
	a = clone3_tids(0, first, 1);
	if (a == 0) {
		close(hold[1]);
		getpid();
		if (read(hold[0], &c, 1) < 0)	/* until the parent closes it */
			_exit(9);
		_exit(0);
	}
	clone3_tids(0, first, 1);		/* EEXIST: 700 lives */
	clone3_tids(0, one, 1);			/* EEXIST: init's */
	clone3_tids(0, zero, 1);		/* EINVAL */
	clone3_tids(0, three, 3);		/* EINVAL: two levels */
	b = clone3_tids(CLONE_NEWPID, nested, 2);
	if (b == 0)
		nested_init();
	waitpid(b, &st, 0);
	close(hold[1]);
	waitpid(a, &st, 0);
	b = fork();
	if (b == 0)
		without_admin();
	waitpid(b, &st, 0);
	return 0;
}
