/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A parent that traces its own child.  strace -f traces the parent, and a
 * process traced by strace can trace one of its own; but a child strace
 * follows is strace's tracee already, which the parent cannot seize.  So
 * the child is cloned with CLONE_UNTRACED: strace does not follow it (the
 * kernel reports no fork event for it), and the parent seizes it.  The
 * child's own calls are not in the recording, so it makes none: it
 * pauses, with the actions and the mask it inherited, and takes what it is
 * sent.  Replay drives such a child itself (docs/replay.md, "A child strace
 * cannot follow").
 *
 * The parent blocks SIGCHLD and takes one notice after each stop its wait
 * reports, with sigsuspend: the recording shows the siginfo of each notice
 * (CLD_STOPPED for the traps of job control, CLD_TRAPPED for signals and
 * events, CLD_CONTINUED), in an order that does not depend on timing.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	(void)ctx;
}

/* Take one pending SIGCHLD in its handler. */
static void notice(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigsuspend(&none);
}

/* The child's next stop, as its tracer's wait reports it; 1 if it differs from @want. */
static int stop_is(pid_t child, int want)
{
	int status;

	if (waitpid(child, &status, __WALL) != child || status != want)
		return 1;
	notice();
	return 0;
}

#define STOPPED(sig, event)	(((event) << 16) | ((sig) << 8) | 0x7f)

int main(void)
{
	struct sigaction sa;
	unsigned long msg;
	sigset_t chld;
	siginfo_t si;
	pid_t child;
	int status, bad = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) || sigaction(SIGUSR1, &sa, NULL))
		return 1;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	child = (pid_t)syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0L, NULL, NULL, 0L);
	if (child == 0)
		for (;;)
			pause();
	/* Stopped by its real parent, then seized: the very next wait sees the trap. */
	kill(child, SIGSTOP);
	bad |= waitpid(child, &status, WUNTRACED) != child || status != STOPPED(SIGSTOP, 0);
	notice();
	bad |= ptrace(PTRACE_SEIZE, child, NULL, (void *)PTRACE_O_TRACEEXIT) != 0;
	bad |= waitpid(child, &status, WNOHANG | __WALL) != child ||
	       status != STOPPED(SIGSTOP, PTRACE_EVENT_STOP);
	notice();
	/* SIGCONT: the child tells of it, then traps (the second notice is lost). */
	kill(child, SIGCONT);
	ptrace(PTRACE_CONT, child, NULL, NULL);
	bad |= stop_is(child, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));
	ptrace(PTRACE_CONT, child, NULL, NULL);
	bad |= stop_is(child, STOPPED(SIGCONT, 0));
	ptrace(PTRACE_CONT, child, NULL, (void *)SIGCONT);
	/* A signal's stop; the signal delivered to the child's handler. */
	kill(child, SIGUSR1);
	bad |= stop_is(child, STOPPED(SIGUSR1, 0));
	bad |= ptrace(PTRACE_GETSIGINFO, child, NULL, &si) != 0;
	ptrace(PTRACE_CONT, child, NULL, (void *)SIGUSR1);
	ptrace(PTRACE_INTERRUPT, child, NULL, NULL);
	bad |= stop_is(child, STOPPED(SIGTRAP, PTRACE_EVENT_STOP));
	ptrace(PTRACE_CONT, child, NULL, NULL);
	/* SIGTERM kills it: the signal's stop, then its exit's. */
	kill(child, SIGTERM);
	bad |= stop_is(child, STOPPED(SIGTERM, 0));
	ptrace(PTRACE_CONT, child, NULL, (void *)SIGTERM);
	bad |= stop_is(child, STOPPED(SIGTRAP, PTRACE_EVENT_EXIT));
	bad |= ptrace(PTRACE_GETEVENTMSG, child, NULL, &msg) != 0 || msg != SIGTERM;
	ptrace(PTRACE_CONT, child, NULL, NULL);
	bad |= waitpid(child, &status, 0) != child || !WIFSIGNALED(status);
	notice();
	return bad;
}
