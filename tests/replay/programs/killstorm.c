/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kill(0) and kill(-pgrp) storms: a leader of its own process group forks
 * children into it and into a second group, then signals each group and
 * its own many times; every child counts what it caught and exits with the
 * count.  Pipes order the steps.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#define CHILDREN	4
#define ROUNDS		3

static volatile sig_atomic_t caught;
static int ready[2], go[2];

static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

static void child(void)
{
	char c;

	if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
		_exit(99);
	_exit(caught);
}

int main(void)
{
	struct sigaction sa;
	pid_t kid[CHILDREN], second = 0;
	char c;
	int st;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(ready) || pipe(go) || setpgid(0, 0))
		return 1;
	for (int i = 0; i < CHILDREN; i++) {
		kid[i] = fork();
		if (kid[i] == 0)
			child();
		/* Half stay in our group, half form a second one. */
		if (i % 2)
			setpgid(kid[i], second ? second : (second = kid[i]));
	}
	for (int i = 0; i < CHILDREN; i++)
		if (read(ready[0], &c, 1) != 1)
			return 1;
	for (int r = 0; r < ROUNDS; r++) {
		kill(0, SIGUSR1);
		kill(-second, SIGUSR1);
	}
	kill(-999999, SIGUSR1);		/* ESRCH: no such group */
	getpgid(kid[1]);
	getpgid(kid[0]);
	for (int i = 0; i < CHILDREN; i++)
		if (write(go[1], "g", 1) != 1)
			return 1;
	while (waitpid(-second, &st, 0) > 0)
		;
	while (waitpid(0, &st, 0) > 0)
		;
	return caught;
}
