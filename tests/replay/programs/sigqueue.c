/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Handlers, masks and queued signals: real-time signals queue (each with its
 * value), standard ones coalesce, a blocked signal waits for the unblock,
 * SIG_IGN discards, SA_RESETHAND resets, and threads take thread-directed
 * signals (tgkill) before exit_group ends them all.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile sig_atomic_t caught;
static int gate[2];

static void handler(int sig)
{
	caught += sig;
}

static void install(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static void queue_and_coalesce(void)
{
	union sigval v = { .sival_int = 7 };
	sigset_t set;

	install(SIGRTMIN + 1, handler, 0);
	install(SIGUSR1, handler, SA_RESETHAND);
	install(SIGUSR2, SIG_IGN, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 1);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigqueue(getpid(), SIGRTMIN + 1, v);
	sigqueue(getpid(), SIGRTMIN + 1, v);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR2);
	sigprocmask(SIG_UNBLOCK, &set, NULL);	/* USR1 once, RTMIN+1 twice */
	install(SIGUSR1, handler, 0);		/* the old action is SIG_DFL again */
}

static void *thread_main(void *arg)
{
	char c;

	(void)arg;
	if (write(gate[1], "t", 1) != 1 || read(gate[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static void threads(void)
{
	pthread_t th;
	char c;

	if (pipe(gate) || pthread_create(&th, NULL, thread_main, NULL))
		return;
	if (read(gate[0], &c, 1) != 1)
		return;
	syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1);
	kill(getpid(), SIGUSR1);
}

int main(void)
{
	queue_and_coalesce();
	threads();
	return caught ? 0 : 1;		/* exit_group with a thread still there */
}
