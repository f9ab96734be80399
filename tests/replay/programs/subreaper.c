/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A child subreaper: its grandchildren are orphaned and come back to it
 * (PR_SET_CHILD_SUBREAPER); a parent-death signal reaches an orphan
 * (PR_SET_PDEATHSIG).  Pipes order the steps, so the recording is the same
 * every run.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static int gate[2];

static void on_usr1(int sig)
{
	(void)sig;
}

/* The middle generation: forks a grandchild that outlives it. */
static void middle(void)
{
	struct sigaction sa;
	sigset_t usr1, none;
	char c;

	if (fork() == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sigaction(SIGUSR1, &sa, NULL);
		sigemptyset(&none);
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		prctl(PR_SET_PDEATHSIG, SIGUSR1);
		if (write(gate[1], "r", 1) != 1)
			_exit(9);
		sigsuspend(&none);		/* the parent-death signal */
		getppid();			/* the subreaper now */
		_exit(3);
	}
	if (read(gate[0], &c, 1) != 1)
		_exit(9);
	_exit(1);
}

int main(void)
{
	int st;

	if (pipe(gate))
		return 1;
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (fork() == 0)
		middle();
	while (waitpid(-1, &st, 0) > 0)
		;
	return 0;
}
