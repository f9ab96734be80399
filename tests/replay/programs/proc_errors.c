/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Walks through the process calls' error cases and a few successes, so that
 * a recording holds the errnos the kernel gives for each (tests/replay).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void signal_errors(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGKILL, &sa, NULL);			/* EINVAL */
	sigaction(SIGSTOP, &sa, NULL);			/* EINVAL */
	syscall(SYS_rt_sigaction, 0, NULL, &sa, 8);	/* EINVAL */
	syscall(SYS_rt_sigaction, 65, NULL, &sa, 8);	/* EINVAL */
	sigemptyset(&set);
	syscall(SYS_rt_sigprocmask, 7, &set, NULL, 8);	/* EINVAL: how */
	kill(getpid(), 65);				/* EINVAL */
	kill(-1, 0);					/* 0: someone to signal */
	kill(999999, 0);				/* ESRCH */
	kill(-999999, 0);				/* ESRCH */
	syscall(SYS_tgkill, getpid(), 999999, 0);	/* ESRCH */
	syscall(SYS_tgkill, 0, getpid(), 0);		/* EINVAL */
	syscall(SYS_tkill, -5, 0);			/* EINVAL */
}

static void wait_errors(void)
{
	siginfo_t si;
	int st;

	waitpid(-1, &st, WNOHANG);			/* ECHILD */
	waitpid(1, &st, 0);				/* ECHILD: not ours */
	waitpid(-1, &st, 0x40000000 >> 1);		/* EINVAL: bad option */
	waitid(P_ALL, 0, &si, 0);			/* EINVAL: no state asked */
	waitid(P_PID, 999999, &si, WEXITED | WNOHANG);	/* ECHILD */
}

static void child_statuses(void)
{
	siginfo_t si;
	pid_t p;
	int st;

	p = fork();
	if (p == 0)
		_exit(42);
	waitid(P_PID, p, &si, WEXITED | WNOWAIT);	/* leaves it a zombie */
	kill(p, 0);					/* 0: a zombie still exists */
	waitpid(p, &st, 0);
	kill(p, 0);					/* ESRCH: reaped */
	p = fork();
	if (p == 0) {
		for (;;)
			pause();
	}
	kill(p, SIGTERM);
	waitpid(p, &st, 0);				/* killed by SIGTERM */
}

static void prctl_cases(void)
{
	int v;

	prctl(PR_SET_PDEATHSIG, 99);			/* EINVAL */
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	prctl(PR_GET_PDEATHSIG, &v);
	prctl(PR_SET_PDEATHSIG, 0);
	prctl(PR_GET_CHILD_SUBREAPER, &v);
	prctl(PR_SET_DUMPABLE, 5);			/* EINVAL */
	prctl(PR_GET_DUMPABLE);
}

static void group_errors(void)
{
	setpgid(999999, 0);				/* ESRCH */
	setpgid(0, -1);					/* EINVAL */
	getpgid(999999);				/* ESRCH */
	getsid(999999);					/* ESRCH */
	getpgid(0);
	getsid(0);
	setpriority(PRIO_PROCESS, 999999, 1);		/* ESRCH */
	setpriority(7, 0, 1);				/* EINVAL */
	getpriority(PRIO_PROCESS, 0);
	setpriority(PRIO_PROCESS, 0, 3);
	getpriority(PRIO_PROCESS, 0);
	getpriority(PRIO_PGRP, 999999);			/* ESRCH */
}

/* setpgid's EACCES and EPERM, setsid's EPERM, group priorities. */
static void group_cases(void)
{
	int gate[2], st;
	pid_t p, q;
	char c;

	if (pipe(gate))
		return;
	p = fork();
	if (p == 0) {
		setsid();				/* a session of its own */
		if (write(gate[1], "s", 1) != 1)
			_exit(9);
		pause();
		_exit(0);
	}
	if (read(gate[0], &c, 1) != 1)
		return;
	getsid(p);
	setpgid(p, p);					/* EPERM: another session */
	setpgid(0, p);					/* EPERM: its group is elsewhere */
	setpgid(0, 0);
	setsid();					/* EPERM: a group leader */
	q = fork();
	if (q == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	}
	waitpid(q, &st, 0);
	setpgid(q, 0);					/* ESRCH: reaped */
	setpriority(PRIO_PGRP, 0, 4);
	getpriority(PRIO_PGRP, 0);
	getpriority(PRIO_PGRP, p);
	syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 3);	/* best effort, level 3 */
	syscall(SYS_ioprio_get, 1, 0);
	syscall(SYS_ioprio_get, 2, 999999);		/* ESRCH */
	kill(p, SIGKILL);
	waitpid(p, &st, 0);
}

int main(void)
{
	signal_errors();
	wait_errors();
	child_statuses();
	prctl_cases();
	group_errors();
	group_cases();
	return 0;
}
