/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * waitid choosing among several zombies: three rounds of three children,
 * each child a zombie (checked with WNOWAIT) before the parent reaps them
 * with waitid(P_ALL), waitid(P_PGID, group) and waitid(P_PGID, 0).
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#define CHILDREN	3

/* Forks the children, in a new group of their own if @own_group; all are
 * zombies on return.  Returns the children's group. */
static pid_t zombies(int round, int own_group)
{
	pid_t pid[CHILDREN], group = own_group ? 0 : getpgrp();
	siginfo_t si;

	for (int i = 0; i < CHILDREN; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			if (own_group)
				setpgid(0, group);
			_exit(10 * round + i);
		}
		if (own_group) {
			setpgid(pid[i], group);
			group = group ? group : pid[i];
		}
	}
	for (int i = 0; i < CHILDREN; i++)
		waitid(P_PID, (id_t)pid[i], &si, WEXITED | WNOWAIT);
	return group;
}

int main(void)
{
	siginfo_t si;
	pid_t group;

	zombies(1, 0);
	for (int i = 0; i < CHILDREN; i++)
		waitid(P_ALL, 0, &si, WEXITED);
	group = zombies(2, 1);
	for (int i = 0; i < CHILDREN; i++)
		waitid(P_PGID, (id_t)group, &si, WEXITED);
	zombies(3, 0);
	for (int i = 0; i < CHILDREN; i++)
		waitid(P_PGID, 0, &si, WEXITED);
	return 0;
}
