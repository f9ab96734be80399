/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Twelve handlers nested: the handler of each real-time signal sends the
 * next one, which interrupts it, so twelve frames are on the stack at
 * once; each rt_sigreturn must restore the mask of its own frame.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define DEPTH	12

static void handler(int sig)
{
	if (sig < SIGRTMIN + DEPTH - 1)
		kill(getpid(), sig + 1);
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	for (int i = 0; i < DEPTH; i++) {
		/* Each handler blocks one unrelated signal more: every frame's mask differs. */
		sigaddset(&sa.sa_mask, SIGRTMIN + DEPTH + i);
		sigaction(SIGRTMIN + i, &sa, NULL);
	}
	kill(getpid(), SIGRTMIN);
	return 0;
}
