/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A one-shot timer on the process's CPU clock, SIGEV_SIGNAL with SIGUSR1:
 * the program burns CPU until the handler has run, reads the timer back
 * (disarmed: nothing left, no interval) and deletes it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t fired;

static void on_timer(int sig)
{
	(void)sig;
	fired = 1;
}

int main(void)
{
	struct itimerspec arm = { .it_value = { 0, 20 * 1000 * 1000 } }, left;
	struct sigevent sev;
	struct sigaction sa;
	timer_t timer;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer;
	sigaction(SIGUSR1, &sa, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGUSR1;
	sev.sigev_value.sival_int = 7;
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &timer) || timer_settime(timer, 0, &arm, NULL))
		return 1;
	while (!fired)
		;
	if (timer_gettime(timer, &left) || timer_delete(timer))
		return 2;
	return left.it_value.tv_sec || left.it_value.tv_nsec ? 3 : 0;
}
