/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc bench: workloads run against a simulated system in each mode.
 *
 * A measurement builds a system of a given size in one mode, starts its
 * threads (each drives its own process, forked from init), lets them call
 * their workload's operation for a while, and collects per-kind counts and
 * latency histograms.  A workload's operation does its own timing through
 * bench_clock_ns() and bench_record(), so that one call can count several
 * kinds (a fork and the whole fork+exit+wait cycle).
 */
#ifndef RP_TOOLS_BENCH_H
#define RP_TOOLS_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <rcuproc/rcuproc.h>
#include "common/hist.h"
#include "debug/shared.h"
#include "common/rng.h"

#define BENCH_MAX_KINDS		4
#define BENCH_MAX_THREADS	64

/* The whole pid space: with pid_max at its limit, pids 1 to RP_PID_MAX_LIMIT - 1. */
#define BENCH_PID_SPACE		(RP_PID_MAX_LIMIT - 1)
/* The largest table: the whole pid space less init and one thread's process. */
#define BENCH_SIZE_MAX		(BENCH_PID_SPACE - 2)

struct bench_kind_stats {
	uint64_t ops;
	struct hist hist;
};

struct bench_run;

/* One OS thread of a measurement, driving its own process. */
struct bench_thread {
	struct bench_run *run;
	unsigned int index;
	struct rp_task *self;
	uint64_t rng;			/* common/rng.h */
	uint64_t iter;			/* operations started */
	void *priv;			/* the workload's per-thread state */
	struct bench_kind_stats kinds[BENCH_MAX_KINDS];
	/*
	 * The operations of each kind whose shared writes were counted
	 * (bench_shared_end), and, debug builds only, those writes by line
	 * (src/debug/shared.h).
	 */
	unsigned long shared[BENCH_MAX_KINDS][RP_SHARED_NR];
	uint64_t shared_ops[BENCH_MAX_KINDS];
};

struct bench_workload {
	const char *name;
	const char *summary;
	const char *kinds[BENCH_MAX_KINDS];	/* what it counts; NULL ends */
	unsigned int min_threads;		/* a mix needs a reader and a writer */
	bool sized;				/* size is the number of processes */
	bool unsynchronized_ok;			/* meaningful in mode "none" */
	/* An update-side scaling workload: the speed-ups from 1 to 2 threads follow the run. */
	bool scaling;
	unsigned int pid_max;			/* 0: enough for the size */
	/*
	 * Children each thread's process holds at once while the measurement
	 * runs, besides the table: a fork+exit+wait cycle holds one.
	 */
	unsigned int children_in_run;
	/* Pids the set-up takes besides the table and the threads' (kill0_ns: two namespace inits). */
	unsigned int extra_pids;
	/* Build the table (run->table_pids); 0 or -errno. */
	int (*setup)(struct bench_run *r);
	/* Per thread, with t->self already forked: 0 or -errno. */
	int (*thread_setup)(struct bench_thread *t);
	/* One operation; thread index 0 may play another role in a mix. */
	void (*op)(struct bench_thread *t);
	/* Per thread, after its last operation (or a failed set-up): NULL or the undoing. */
	void (*thread_end)(struct bench_thread *t);
};

/*
 * The pids a measurement of @w with @threads threads and a table of @size
 * processes uses at most, the table's and the bench's own: init, each
 * thread's process and the children they hold while they run, and the
 * set-up's own.
 */
static inline unsigned long bench_pids_needed(const struct bench_workload *w,
					      unsigned int threads, unsigned long size)
{
	return 1 + w->extra_pids + threads * (1 + (unsigned long)w->children_in_run) + size;
}

/* Where a measurement stands in the whole run, for the progress bar's ETA. */
struct bench_progress {
	unsigned int done, total;	/* measurements; total 0: not counted */
	uint64_t start_ns;		/* bench_clock_ns() at the first */
};

/* A benchmark's mode: a synchronization mode, or the unsynchronized baseline. */
struct bench_config {
	const struct bench_workload *w;
	enum rp_sync_mode mode;
	unsigned int threads;
	unsigned long size;
	double seconds;
	uint64_t ops;			/* >0: each thread runs exactly this many */
	bool progress;			/* draw a progress bar on stderr */
	const struct bench_progress *overall;	/* NULL: this measurement's alone */
};

struct bench_result {
	struct bench_config cfg;
	double seconds;			/* measured wall time */
	struct bench_kind_stats kinds[BENCH_MAX_KINDS];
	double bytes_per_process;	/* mallinfo2 delta of the table / size */
	double setup_seconds;		/* building the table and the threads' state */
	long maxrss_kb;			/* peak resident memory of the process so far
					   (getrusage's ru_maxrss) */
	unsigned long backlog_max;	/* deferred frees queued, peak */
	unsigned long backlog_end;	/* at the end of the run */
	/* Of all threads, as in struct bench_thread: shared[] debug builds only. */
	unsigned long shared[BENCH_MAX_KINDS][RP_SHARED_NR];
	uint64_t shared_ops[BENCH_MAX_KINDS];
};

struct bench_run {
	struct bench_config cfg;
	struct rp_system *sys;
	struct rp_task *init;
	pid_t *table_pids;		/* the processes setup forked */
	unsigned long nr_table;
	void *priv;			/* the workload's shared state */
	volatile int stop;		/* CMM_STORE_SHARED by the timer */
};

/* Monotonic nanoseconds. */
static inline uint64_t bench_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static inline void bench_record(struct bench_thread *t, unsigned int kind, uint64_t ns)
{
	hist_record(&t->kinds[kind].hist, ns);
}

/*
 * Around an operation whose shared writes count: @before takes the calling
 * thread's counts (debug builds; release builds compile the marks to
 * nothing and take no counts, so that their figures pay nothing for it).
 */
static inline void bench_shared_begin(unsigned long before[RP_SHARED_NR])
{
#ifdef RP_DEBUG
	rp_debug_shared_writes(before);
#else
	(void)before;
#endif
}

/* The operation of @kind begun at @before is over: count it and, debug builds, its writes. */
static inline void bench_shared_end(struct bench_thread *t, unsigned int kind,
				    const unsigned long before[RP_SHARED_NR])
{
#ifdef RP_DEBUG
	unsigned long after[RP_SHARED_NR];

	rp_debug_shared_writes(after);
	for (unsigned int k = 0; k < RP_SHARED_NR; k++)
		t->shared[kind][k] += after[k] - before[k];
#else
	(void)before;
#endif
	t->shared_ops[kind]++;
}

/* Cheap lookups time one call in BENCH_SAMPLE (the clock costs as much). */
#define BENCH_SAMPLE	16
static inline bool bench_sampled(const struct bench_thread *t)
{
	return t->iter % BENCH_SAMPLE == 0;
}

/* A random process of the table. */
static inline pid_t bench_random_pid(struct bench_thread *t)
{
	return t->run->table_pids[rng_next(&t->rng) % t->run->nr_table];
}

/* Fork @n processes as children of @parent into run->table_pids. */
int bench_fork_table(struct bench_run *r, struct rp_task *parent, unsigned long n);

/* Fork a child of @parent that exits at once, and reap it: the cycle. */
void bench_fork_exit_reap(struct bench_thread *t, unsigned int fork_kind,
			  unsigned int cycle_kind);
/* The cycle, each step timed: kinds fork, fork+exit+wait, exit, wait (BENCH_PHASE_KINDS). */
void bench_fork_exit_reap_phases(struct bench_thread *t);
#define BENCH_PHASE_KINDS	{ "fork", "fork+exit+wait", "exit", "wait" }
/* The same cycle with an exec in the child before its exit; @exec_kind times the exec. */
void bench_fork_exec_exit_reap(struct bench_thread *t, unsigned int exec_kind,
			       unsigned int cycle_kind);

/*
 * After bench_catch_interrupt, SIGINT ends the measurement running (and
 * bench_interrupted() says so) instead of the process: the caller prints
 * what it measured before.
 */
void bench_catch_interrupt(void);
bool bench_interrupted(void);

/* Run one measurement: 0 and *@res, -EINTR if interrupted, or -errno. */
int bench_measure(const struct bench_config *cfg, struct bench_result *res);

/* The workloads, in the order `rcuproc bench` runs them. */
extern const struct bench_workload *const bench_workloads[];

#endif /* RP_TOOLS_BENCH_H */
