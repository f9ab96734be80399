/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The demo's roles: a build farm, a shell running pipelines under job
 * control on its terminal, a supervisor queueing numbered real-time signals
 * to a worker, and a monitor scanning the table.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/uatomic.h>
#include "../bench/bench.h"
#include "demo.h"

#define FARM_BATCH	20	/* compilers forked before the farm reaps them */
#define PIPELINE	3	/* processes of a shell pipeline */
#define RT_SIG		(34 + 1)
#define RT_MAX		(1u << 22)	/* numbers the sender may queue */

/*
 * Has the main thread ended the run?  Each role's loop makes one round
 * before it asks: on a busy machine a role may first get its CPU after the
 * run's end, and a role that made no round would leave its invariants
 * unchecked, which fails the demo.
 */
static bool stopping(struct demo_world *w)
{
	/* Pairs with CMM_STORE_SHARED of stop by the main thread. */
	return CMM_LOAD_SHARED(w->stop);
}

/* Fork a child of @parent: its pid and handle, timed as @kind. */
static pid_t fork_timed(struct rp_task *parent, struct rp_task **child,
			struct demo_stats *st, enum demo_kind kind)
{
	uint64_t t0 = bench_clock_ns();
	pid_t pid = rp_fork(parent, child);

	if (pid > 0)
		demo_count(st, kind, bench_clock_ns() - t0);
	return pid;
}

/* Reap one child of @self; the wait is timed as K_REAP. */
static pid_t reap_timed(struct rp_task *self, pid_t pid, int *status, struct demo_stats *st)
{
	uint64_t t0 = bench_clock_ns();
	pid_t got = rp_wait4(self, pid, status, 0, NULL);

	if (got > 0)
		demo_count(st, K_REAP, bench_clock_ns() - t0);
	return got;
}

/* Is @pid one of the @n of @pids?  Clears it: a second report is a violation. */
static bool claim_pid(pid_t *pids, unsigned int n, pid_t pid)
{
	for (unsigned int i = 0; i < n; i++) {
		if (pids[i] == pid) {
			pids[i] = 0;
			return true;
		}
	}
	return false;
}

/* make: fork a batch of compilers that exit with their index, reap the batch. */
static void run_farm(struct demo_world *w, struct rp_task *self, struct demo_stats *st)
{
	pid_t pids[FARM_BATCH];
	int codes[FARM_BATCH];

	for (bool first = true; first || !stopping(w); first = false) {
		unsigned int n = 0;

		for (; n < FARM_BATCH; n++) {
			struct rp_task *cc;

			pids[n] = fork_timed(self, &cc, st, K_FORK);
			if (pids[n] < 0)
				break;
			codes[n] = pids[n] & 0x7f;
			rp_exit(cc, codes[n]);
			rp_task_put(cc);
		}
		for (unsigned int i = 0; i < n; i++) {
			int status;
			pid_t got = reap_timed(self, -1, &status, st);
			unsigned int at = 0;

			while (at < n && pids[at] != got)
				at++;
			demo_check(st, C_STATUS, at < n && WIFEXITED(status) &&
				   WEXITSTATUS(status) == (codes[at] & 0x7f));
			demo_check(st, C_REAPED, claim_pid(pids, n, got));
		}
	}
}

/* A session leader owning the terminal, ignoring SIGTTOU as shells do. */
static int prepare_shell(struct demo_world *w, struct rp_task *sh)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	pid_t sid = rp_setsid(sh);
	int err = sid < 0 ? sid : rp_sigaction(sh, SIGTTOU, &ign, NULL);

	if (!err)
		err = rp_tty_create(w->sys, &w->tty);
	return err ? err : rp_tty_ioctl(sh, w->tty, TIOCSCTTY, (void *)0);
}

/* Start a pipeline: @n children of the shell in a new group, in the foreground. */
static unsigned int start_pipeline(struct demo_world *w, struct rp_task *sh,
				   struct rp_task **procs, pid_t *pids, struct demo_stats *st)
{
	unsigned int n = 0;

	for (; n < PIPELINE; n++) {
		pids[n] = fork_timed(sh, &procs[n], st, K_FORK);
		if (pids[n] < 0)
			break;
		rp_setpgid(sh, pids[n], pids[0]);
	}
	if (n)
		rp_tty_ioctl(sh, w->tty, TIOCSPGRP, &pids[0]);
	return n;
}

/* ^C on the keyboard: SIGINT to the foreground group; then the shell takes it back. */
static void interrupt_pipeline(struct demo_world *w, struct rp_task *sh, struct demo_stats *st)
{
	uint64_t t0 = bench_clock_ns();
	pid_t own = rp_getpid(sh);

	rp_tty_keyboard(w->tty, 0x03);
	demo_count(st, K_INTERRUPT, bench_clock_ns() - t0);
	rp_tty_ioctl(sh, w->tty, TIOCSPGRP, &own);
}

/* A login shell: run a pipeline, interrupt it, reap it; again. */
static void run_shell(struct demo_world *w, struct rp_task *sh, struct demo_stats *st)
{
	struct rp_task *procs[PIPELINE];
	pid_t pids[PIPELINE];

	for (bool first = true; first || !stopping(w); first = false) {
		uint64_t t0 = bench_clock_ns();
		unsigned int n = start_pipeline(w, sh, procs, pids, st);

		interrupt_pipeline(w, sh, st);
		for (unsigned int i = 0; i < n; i++) {
			/* The member returns to user space: SIGINT's default kills it. */
			demo_check(st, C_STATUS, rp_get_signal(procs[i], NULL) == -ESRCH);
			rp_task_put(procs[i]);
		}
		for (unsigned int i = 0; i < n; i++) {
			int status;
			pid_t got = reap_timed(sh, -1, &status, st);

			demo_check(st, C_STATUS, WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
			demo_check(st, C_REAPED, claim_pid(pids, n, got));
		}
		demo_count(st, K_PIPELINE, bench_clock_ns() - t0);
	}
}

static void rt_handler(int sig, siginfo_t *info, void *uc)
{
	(void)sig, (void)info, (void)uc;	/* never called: rcuproc hands signals back */
}

/* The worker catches RT_SIG: installed before any thread starts. */
static int prepare_receiver(struct demo_world *w, struct rp_task *self)
{
	struct sigaction act = { .sa_sigaction = rt_handler, .sa_flags = SA_SIGINFO };

	w->rt_receiver = rp_getpid(self);
	return rp_sigaction(self, RT_SIG, &act, NULL);
}

/* The supervisor: queue RT_SIG numbered 0, 1, 2, ... to the worker. */
static void run_sender(struct demo_world *w, struct rp_task *self, struct demo_stats *st)
{
	uint64_t n = 0;

	while (!stopping(w) && n < RT_MAX) {
		siginfo_t info = { .si_code = SI_QUEUE, .si_value.sival_int = n };
		uint64_t t0 = bench_clock_ns();
		int err = rp_rt_sigqueueinfo(self, w->rt_receiver, RT_SIG, &info);

		if (err == -EAGAIN) {	/* RLIMIT_SIGPENDING: let the worker catch up */
			sched_yield();
			continue;
		}
		demo_count(st, K_RTSIG, bench_clock_ns() - t0);
		n++;
	}
	w->rt_sent = n;
	/* Pairs with the receiver's CMM_LOAD_SHARED: rt_sent is set before. */
	cmm_smp_wmb();
	CMM_STORE_SHARED(w->sender_done, 1);
}

/* Take one signal; false when none was pending. */
static bool receive_one(struct rp_task *self, unsigned char *seen, struct demo_stats *st)
{
	siginfo_t info;
	int sig = rp_get_signal(self, &info);

	if (sig != RT_SIG)
		return false;
	if ((unsigned int)info.si_value.sival_int < RT_MAX)
		demo_check(st, C_RT_ONCE, seen[info.si_value.sival_int]++ == 0);
	else
		demo_check(st, C_RT_ONCE, false);
	return true;
}

/* The worker: take every numbered signal; each exactly once, none missing. */
static void run_receiver(struct demo_world *w, struct rp_task *self, struct demo_stats *st)
{
	unsigned char *seen = calloc(RT_MAX, 1);
	uint64_t missing = 0;

	if (!seen)
		return;
	/* Pairs with the sender's CMM_STORE_SHARED after its last signal. */
	while (!CMM_LOAD_SHARED(w->sender_done))
		if (!receive_one(self, seen, st))
			sched_yield();
	cmm_smp_rmb();
	while (receive_one(self, seen, st))
		;
	for (uint64_t n = 0; n < w->rt_sent; n++)
		missing += !seen[n];
	st->checked[C_RT_ONCE]++;
	st->violations[C_RT_ONCE] += missing;
	free(seen);
}

/* A timer on the process's CPU clock, every TIMER_NS, signalling TIMER_SIG. */
#define TIMER_SIG	(34 + 2)
#define TIMER_NS	1000000

static int prepare_timer(struct demo_world *w, struct rp_task *self)
{
	struct sigaction act = { .sa_sigaction = rt_handler, .sa_flags = SA_SIGINFO };
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = TIMER_SIG };
	struct itimerspec every = { .it_value = { 0, TIMER_NS }, .it_interval = { 0, TIMER_NS } };
	int id, err = rp_sigaction(self, TIMER_SIG, &act, NULL);

	(void)w;
	if (!err)
		err = rp_timer_create(self, CLOCK_PROCESS_CPUTIME_ID, &sev, &id);
	return err ? err : rp_timer_settime(self, id, 0, &every, NULL);
}

/* Charge one period of CPU time (the scheduler tick): exactly one expiry. */
static void run_timer(struct demo_world *w, struct rp_task *self, struct demo_stats *st)
{
	for (bool first = true; first || !stopping(w); first = false) {
		uint64_t t0 = bench_clock_ns();
		siginfo_t info;
		int got = 0;

		rp_account_cpu(self, TIMER_NS, 0);
		while (rp_get_signal(self, &info) == TIMER_SIG)
			got++;
		demo_count(st, K_TIMER, bench_clock_ns() - t0);
		demo_check(st, C_TIMER_ONCE, got == 1);
	}
}

/* A ps-style monitor: scan the table, then look up processes it saw. */
static void run_monitor(struct demo_world *w, struct rp_task *self, struct demo_stats *st)
{
	size_t cap = 0;
	struct rp_ps_entry *rows = NULL;

	for (bool first = true; first || !stopping(w); first = false) {
		uint64_t t0 = bench_clock_ns();
		long n = rp_ps_snapshot(self, rows, cap);

		demo_count(st, K_PS, bench_clock_ns() - t0);
		if (n > (long)cap) {	/* grow, with room for the farm's churn */
			cap = n * 2;
			free(rows);
			rows = malloc(cap * sizeof(*rows));
			if (!rows)
				return;
			continue;
		}
		for (long i = 0; i < n; i++) {
			t0 = bench_clock_ns();
			rp_kill(self, rows[i].pid, 0);
			demo_count(st, K_LOOKUP, bench_clock_ns() - t0);
		}
	}
	free(rows);
}

/* Services a container's init keeps: each exits with its inner pid's low bits. */
#define CONTAINER_SERVICES	4

/*
 * A container: the role's process is its runtime, which clones the
 * container's init (pid 1 of a new pid namespace); the init starts a few
 * services, each of which must see its own pid inside (the fork's return)
 * and parent 1, and reaps them by those numbers.  At the end the init
 * exits and the runtime reaps it.
 */
static void run_container(struct demo_world *w, struct rp_task *self, struct demo_stats *st)
{
	struct rp_task *cinit;
	pid_t outer = rp_clone(self, CLONE_NEWPID | SIGCHLD, &cinit);
	int status;

	if (outer < 0)
		return;		/* no round made: the checks say so */
	for (bool first = true; first || !stopping(w); first = false) {
		pid_t pids[CONTAINER_SERVICES];
		uint64_t t0 = bench_clock_ns();
		unsigned int n = 0;

		for (; n < CONTAINER_SERVICES; n++) {
			struct rp_task *svc;

			pids[n] = rp_fork(cinit, &svc);
			if (pids[n] < 0)
				break;
			demo_check(st, C_NS_PIDS, rp_getpid(svc) == pids[n] && rp_getppid(svc) == 1);
			rp_exit(svc, pids[n] & 0x7f);
			rp_task_put(svc);
		}
		for (unsigned int i = 0; i < n; i++) {
			pid_t want = pids[i];
			pid_t got = rp_wait4(cinit, want, &status, 0, NULL);

			demo_check(st, C_STATUS, got == want && WIFEXITED(status) &&
				   WEXITSTATUS(status) == (want & 0x7f));
			demo_check(st, C_REAPED, claim_pid(pids, n, got));
		}
		demo_count(st, K_SERVICE, (bench_clock_ns() - t0) / (n ? n : 1));
	}
	rp_exit_group(cinit, 0);
	rp_task_put(cinit);
	demo_check(st, C_REAPED, rp_wait4(self, outer, &status, 0, NULL) == outer);
}

const struct demo_role demo_roles[] = {
	{ "make", K_FORK, run_farm, NULL },
	{ "bash", K_PIPELINE, run_shell, prepare_shell },
	{ "supervisor", K_RTSIG, run_sender, NULL },
	{ "worker", K_RTSIG, run_receiver, prepare_receiver },	/* the other end of the queue */
	{ "monitor", K_LOOKUP, run_monitor, NULL },		/* its scans included */
	{ "ticker", K_TIMER, run_timer, prepare_timer },
	{ "containerd", K_SERVICE, run_container, NULL },
};
const unsigned int demo_nr_roles = sizeof(demo_roles) / sizeof(demo_roles[0]);
