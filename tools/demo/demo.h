/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc demo: a lively simulated system, run for a few seconds in each
 * mode.  Each role is an OS thread driving its own processes; each counts
 * its operations by kind, times them, and checks what it can.
 */
#ifndef RP_TOOLS_DEMO_H
#define RP_TOOLS_DEMO_H

#include <stdbool.h>
#include <stdint.h>
#include <rcuproc/rcuproc.h>
#include "common/hist.h"

enum demo_kind {
	K_FORK,			/* the build farm's forks */
	K_REAP,			/* its wait4 of a finished compiler */
	K_PIPELINE,		/* a shell pipeline from fork to reaped */
	K_INTERRUPT,		/* ^C typed: SIGINT to the foreground group */
	K_RTSIG,		/* a numbered real-time signal queued */
	K_PS,			/* the monitor's scan of the table */
	K_LOOKUP,		/* the monitor's kill(pid, 0) */
	K_TIMER,		/* a CPU tick that fires a timer, and its signal taken */
	K_SERVICE,		/* a container's service started by its init, to reaped */
	K_NR
};

enum demo_check {
	C_REAPED,		/* every fork reaped, exactly once */
	C_STATUS,		/* wait statuses: exit codes and SIGINT deaths */
	C_RT_ONCE,		/* each numbered RT signal received once */
	C_TIMER_ONCE,		/* each timer expiry signalled once */
	C_COUNTS_ZERO,		/* only init's objects left at the end */
	C_NS_PIDS,		/* a container's service: its pid inside, its parent 1 */
	C_NR
};

extern const char *const demo_kind_names[K_NR];
extern const char *const demo_check_names[C_NR];

struct demo_stats {
	uint64_t ops[K_NR];
	struct hist hist[K_NR];
	uint64_t violations[C_NR];	/* broken promises seen */
	uint64_t checked[C_NR];		/* promises checked */
	/* CPU time of the roles' threads, charged to the kind each role is for. */
	uint64_t cpu_ns[K_NR];
};

/* What every role shares in one mode's run. */
struct demo_world {
	struct rp_system *sys;
	struct rp_tty *tty;		/* the shell's terminal */
	volatile int stop;		/* CMM_STORE_SHARED by the main thread */
	volatile int sender_done;	/* the RT sender has stopped */
	pid_t rt_receiver;		/* the process the sender queues to */
	uint64_t rt_sent;		/* numbers 0..rt_sent-1 were queued */
};

struct demo_role {
	const char *name;
	/* The kind its thread's CPU time is charged to: what that time buys. */
	enum demo_kind kind;
	/* Runs until world->stop with its own process @self (forked from init). */
	void (*run)(struct demo_world *w, struct rp_task *self, struct demo_stats *st);
	/* Optional, by the main thread before any role starts: 0 or -errno. */
	int (*prepare)(struct demo_world *w, struct rp_task *self);
};

extern const struct demo_role demo_roles[];
extern const unsigned int demo_nr_roles;

static inline void demo_count(struct demo_stats *st, enum demo_kind k, uint64_t ns)
{
	st->ops[k]++;
	hist_record(&st->hist[k], ns);
}

static inline void demo_check(struct demo_stats *st, enum demo_check c, bool ok)
{
	st->checked[c]++;
	st->violations[c] += !ok;
}

/* Create @dir (and its parents) if missing and check it is writable: 0, or -1
 * said on stderr.  Called before the run. */
int demo_plot_dir(const char *dir);

/*
 * Write the data (demo.dat) and a gnuplot script (demo.gp) to @dir and render
 * demo.png and demo.svg: p99 latency and throughput by kind, one bar per mode
 * (@modes: enum rp_sync_mode values).  gnuplot runs in @dir with no shell.
 * 0, or -1 (said on stderr) if a file or gnuplot failed.
 */
int demo_plot(const char *dir, const int *modes, unsigned int nr_modes,
	      double seconds, const struct demo_stats *by_mode);

#endif /* RP_TOOLS_DEMO_H */
