/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credentials and limits: a child gives up root with setgroups and
 * setresuid and is refused kill and setuid(0); the parent drops CAP_KILL
 * with capset and is refused a signal to a child of another user; limits
 * are set and read back (RLIMIT_NOFILE, which rcuproc stores, and
 * RLIMIT_SIGPENDING, which Linux counts per user over the machine).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <signal.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define OTHER_UID	1000

static void drop_cap_kill(void)
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &head, data))
		return;
	data[0].effective &= ~(1u << CAP_KILL);
	syscall(SYS_capset, &head, data);
}

/* A child of another user: writes to @ready once it is, then waits until
 * @gate closes. */
static pid_t other_user_child(int gate[2], int ready[2])
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		close(gate[1]);
		setgroups(0, NULL);
		if (setresuid(OTHER_UID, OTHER_UID, OTHER_UID) || write(ready[1], "u", 1) != 1)
			_exit(1);
		kill(getppid(), 0);			/* EPERM */
		setuid(0);				/* EPERM */
		prctl(PR_CAPBSET_READ, CAP_KILL);
		_exit(read(gate[0], &c, 1) == 0 ? 0 : 2);
	}
	return pid;
}

int main(void)
{
	struct rlimit lim = { 256, 1024 };
	int gate[2], ready[2], status;
	pid_t child;
	char c;

	setrlimit(RLIMIT_NOFILE, &lim);
	getrlimit(RLIMIT_NOFILE, &lim);
	lim.rlim_cur = lim.rlim_max = 1;
	setrlimit(RLIMIT_SIGPENDING, &lim);
	if (pipe(gate) || pipe(ready))
		return 1;
	child = other_user_child(gate, ready);
	if (read(ready[0], &c, 1) != 1)
		return 1;
	drop_cap_kill();
	kill(child, 0);					/* EPERM: CAP_KILL is gone */
	close(gate[1]);
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
