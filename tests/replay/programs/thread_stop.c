/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A group stop of a threaded process: the child runs two threads; the
 * parent stops it with SIGSTOP, sees the stop with WUNTRACED, continues it
 * and kills it.  One thread takes the SIGSTOP; the other only takes part
 * in the group stop ("--- stopped by SIGSTOP ---").
 */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

static int ready[2];

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(void)
{
	pthread_t th;
	pid_t child;
	int status;
	char c;

	if (pipe(ready))
		return 1;
	child = fork();
	if (child == 0) {
		if (pthread_create(&th, NULL, idle_thread, NULL) || write(ready[1], "r", 1) != 1)
			_exit(1);
		idle_thread(NULL);
	}
	if (read(ready[0], &c, 1) != 1)
		return 1;
	kill(child, SIGSTOP);
	waitpid(child, &status, WUNTRACED);
	kill(child, SIGCONT);
	waitpid(child, &status, WCONTINUED);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	return WIFSIGNALED(status) ? 0 : 1;
}
