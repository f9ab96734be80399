/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * execve from a threaded process: the kernel kills every other thread
 * before the new program runs.  "leader": the group leader execs while a
 * thread waits; "thread": a thread execs, takes over the leader's pid and
 * the leader is superseded.  Both exec "thread_exec done", which exits 0.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static int gate[2];
static char *self;

static void exec_done(void)
{
	execl(self, self, "done", (char *)NULL);
}

/* Tells the leader it runs, then waits for a byte that never comes. */
static void *idle_thread(void *arg)
{
	(void)arg;
	if (write(gate[1], "r", 1) != 1)
		return NULL;
	for (;;)
		pause();
	return NULL;
}

static void *exec_thread(void *arg)
{
	(void)arg;
	exec_done();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char c;

	self = argv[0];
	if (argc > 1 && !strcmp(argv[1], "done"))
		return 0;
	if (pipe(gate) || pthread_create(&th, NULL, argc > 1 && !strcmp(argv[1], "thread") ?
					  exec_thread : idle_thread, NULL))
		return 1;
	if (argc > 1 && !strcmp(argv[1], "thread"))
		for (;;)
			pause();
	if (read(gate[0], &c, 1) != 1)
		return 1;
	exec_done();
	return 1;
}
