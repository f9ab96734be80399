/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ppoll interrupted by a signal that runs no handler: SIGCHLD, blocked
 * but for ppoll's own mask, has its default action (ignore).  The traced
 * task sees it, no handler runs, and the kernel puts the saved mask back
 * before ppoll restarts; the mask read afterwards has SIGCHLD blocked.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

int main(void)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	sigset_t chld, none, now;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	if (fork() == 0)
		_exit(0);
	ppoll(NULL, 0, &tick, &none);
	sigprocmask(SIG_SETMASK, NULL, &now);
	wait(NULL);
	return sigismember(&now, SIGCHLD) ? 0 : 1;
}
