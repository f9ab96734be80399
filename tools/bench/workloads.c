/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The workloads of the process core: lookups, scans, wait, fork+exit, a
 * thread's clone and exit, and the mixes of readers and writers that the
 * performance contract quotes.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/arch.h>
#include <urcu/uatomic.h>
#include "bench.h"
#include "workloads.h"

int bench_setup_table(struct bench_run *r)
{
	return bench_fork_table(r, r->init, r->cfg.size);
}

/* A cheap call timed one time in BENCH_SAMPLE. */
#define TIMED_SAMPLE(t, kind, call)				\
	do {							\
		if (bench_sampled(t)) {				\
			uint64_t t0_ = bench_clock_ns();	\
			call;					\
			bench_record(t, kind, bench_clock_ns() - t0_); \
		} else {					\
			call;					\
		}						\
		(t)->kinds[kind].ops++;				\
	} while (0)

/* A costly call, every one timed. */
#define TIMED(t, kind, call)					\
	do {							\
		uint64_t t0_ = bench_clock_ns();		\
		call;						\
		bench_record(t, kind, bench_clock_ns() - t0_);	\
		(t)->kinds[kind].ops++;				\
	} while (0)

void bench_op_kill0(struct bench_thread *t, unsigned int kind)
{
	pid_t pid = bench_random_pid(t);

	TIMED_SAMPLE(t, kind, rp_kill(t->self, pid, 0));
}

static void op_kill0(struct bench_thread *t)
{
	bench_op_kill0(t, 0);
}

/* A hot set of processes spread over the table: the lookup, not the cache misses. */
#define HOT_SET		64

static void op_kill0_hot(struct bench_thread *t)
{
	struct bench_run *r = t->run;
	unsigned long stride = r->nr_table > HOT_SET ? r->nr_table / HOT_SET : 1;
	pid_t pid = r->table_pids[(rng_next(&t->rng) % HOT_SET * stride) % r->nr_table];

	TIMED_SAMPLE(t, 0, rp_kill(t->self, pid, 0));
}

static void op_getppid(struct bench_thread *t)
{
	TIMED_SAMPLE(t, 0, rp_getppid(t->self));
}

void bench_op_kill_all(struct bench_thread *t, unsigned int kind)
{
	TIMED(t, kind, rp_kill(t->self, -1, 0));
}

static void op_kill_all(struct bench_thread *t)
{
	bench_op_kill_all(t, 0);
}

/* A ps listing of the whole table; the buffer is the thread's. */
void bench_op_ps(struct bench_thread *t, unsigned int kind)
{
	size_t max = t->run->cfg.size + BENCH_MAX_THREADS * 2 + 16;

	if (!t->priv)
		t->priv = malloc(max * sizeof(struct rp_ps_entry));
	TIMED(t, kind, rp_ps_snapshot(t->self, t->priv, max));
}

static void op_ps(struct bench_thread *t)
{
	bench_op_ps(t, 0);
}

/* wait_scan: each thread's process has its share of the size as children. */
static int wait_children(struct bench_thread *t)
{
	unsigned long n = t->run->cfg.size / t->run->cfg.threads;

	for (unsigned long i = 0; i < n; i++) {
		pid_t pid = rp_fork(t->self, NULL);

		if (pid < 0)
			return pid;
	}
	return 0;
}

static void op_wait_scan(struct bench_thread *t)
{
	int status;

	/* Nothing is reportable: the scan visits every child and returns 0. */
	TIMED(t, 0, rp_wait4(t->self, -1, &status, WNOHANG, NULL));
}

void bench_op_fork_exit(struct bench_thread *t)
{
	bench_fork_exit_reap(t, 0, 1);
}

/* Mixes: thread 0 plays the other role. */
static void op_lookups_under_storm(struct bench_thread *t)
{
	if (t->index == 0)
		bench_fork_exit_reap(t, 1, 2);
	else
		bench_op_kill0(t, 0);
}

/*
 * Forks under a scan come at a steady pace (open loop): back to back, a
 * forker that waited for one scan would fork many times before the next and
 * its percentiles would hide the wait (coordinated omission).
 */
#define FORK_GAP_NS	50000

static void paced_fork_exit_reap(struct bench_thread *t, unsigned int fork_kind,
				 unsigned int cycle_kind)
{
	struct timespec gap = { 0, FORK_GAP_NS };

	nanosleep(&gap, NULL);
	bench_fork_exit_reap(t, fork_kind, cycle_kind);
}

static void op_fork_vs_kill_all(struct bench_thread *t)
{
	if (t->index == 0)
		bench_op_kill_all(t, 2);
	else
		paced_fork_exit_reap(t, 0, 1);
}

static void op_fork_vs_ps(struct bench_thread *t)
{
	if (t->index == 0)
		bench_op_ps(t, 2);
	else
		paced_fork_exit_reap(t, 0, 1);
}

/*
 * Lookups at a steady pace too, one due every READ_GAP_NS, each timed from
 * when it was due: a lookup that waits 20 ms makes the 200 due meanwhile
 * late as well, as they would be for a caller with work arriving.  Timed
 * from its own start, the one wait would be one slow call in thousands and
 * vanish from the p999.  The thread spins until the next one is due, but
 * for a fixed count of operations (--ops: callgrind counts the spin too).
 * It does not sleep: on this project's virtual machines a CPU left idle
 * takes hundreds of microseconds to wake up (measured: the reader's p99
 * went from 21 us to 442 us when it slept between lookups).
 */
#define READ_GAP_NS	100000

static void paced_kill0(struct bench_thread *t)
{
	uint64_t *due = t->priv;
	pid_t pid = bench_random_pid(t);

	if (!due) {
		t->priv = due = malloc(sizeof(*due));
		if (!due)
			return;
		*due = bench_clock_ns();
	}
	while (!t->run->cfg.ops && bench_clock_ns() < *due)
		caa_cpu_relax();
	rp_kill(t->self, pid, 0);
	bench_record(t, 0, bench_clock_ns() - *due);
	t->kinds[0].ops++;
	*due += READ_GAP_NS;
}

/*
 * What RCU is for: thread 0 lists the table, thread 1 forks at a steady
 * pace, the others look processes up at a steady pace.  With a lock the
 * fork waits for the listing, and with a fair lock each lookup waits for
 * the fork.
 */
static void op_kill0_under_ps(struct bench_thread *t)
{
	if (t->index == 0)
		bench_op_ps(t, 2);
	else if (t->index == 1)
		paced_fork_exit_reap(t, 1, 1);
	else
		paced_kill0(t);
}

/*
 * kill0_ps's reader alone on a CPU at real-time priority (SCHED_FIFO), the
 * listing and the forker on the other CPUs: the reader's latency is then
 * its waits for the lock and nothing else.  Sharing 2 CPUs with the other
 * two threads and a loaded machine, the reader was off its CPU for
 * milliseconds at a time, and that, not the lock, was its p999 in every
 * mode.  Both sides of a comparison are placed alike.  The listing and
 * the forker never run on the reader's CPU: a lock holder preempted there
 * by a reader spinning for its lock would be waited for by the very
 * thread that keeps it off the CPU.  Only with one reader (two real-time
 * spinners on one CPU: the second never runs), 2 CPUs allowed or more,
 * and the kernel's consent (CAP_SYS_NICE); otherwise the run goes on with
 * the threads where the scheduler puts them, and says so.  The reader
 * spins (paced_kill0): a run longer than RT_SPIN_SECONDS meets the
 * kernel's throttling of real-time threads, and says so too.
 */
#define RT_SPIN_SECONDS	0.9

static int last_allowed_cpu(cpu_set_t *set)
{
	int last = -1;

	if (sched_getaffinity(0, sizeof(*set), set))
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set))
			last = cpu;
	return CPU_COUNT(set) >= 2 ? last : -1;
}

static const char *place_thread(struct bench_thread *t)
{
	struct sched_param rt = { .sched_priority = 1 };
	bool reader = t->index >= 2;
	cpu_set_t set;
	int cpu, err;

	if (t->run->cfg.threads != 3)
		return "more than one reader";
	cpu = last_allowed_cpu(&set);
	if (cpu < 0)
		return "fewer than 2 CPUs allowed";
	if (reader) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
	} else {
		CPU_CLR(cpu, &set);
	}
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!err && reader)
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt);
	return err ? strerror(err) : NULL;
}

/* Each warning once a process: the rounds of a run would repeat it. */
static int warned_unplaced, warned_throttled;

static int kill0_under_ps_place(struct bench_thread *t)
{
	const char *why = place_thread(t);

	if (t->index != 2)
		return 0;
	if (why && !uatomic_xchg(&warned_unplaced, 1))
		fprintf(stderr, "rcuproc bench: kill0_ps: the reader does not have a CPU of its "
			"own (%s): its latencies include waits for a CPU\n", why);
	else if (!why && t->run->cfg.seconds > RT_SPIN_SECONDS &&
		 !uatomic_xchg(&warned_throttled, 1))
		fprintf(stderr, "rcuproc bench: kill0_ps: runs of more than %.2f s: the kernel "
			"takes the CPU from a spinning real-time thread for 50 ms a second "
			"(sched_rt_runtime_us), and the reader's latencies include it\n",
			RT_SPIN_SECONDS);
	return 0;
}

const struct bench_workload bench_kill0 = {
	.name = "kill0", .summary = "kill(pid, 0) of a random process",
	.kinds = { "kill(pid,0)" }, .sized = true, .unsynchronized_ok = true,
	.pid_max = RP_PID_MAX_LIMIT, .setup = bench_setup_table, .op = op_kill0,
};

const struct bench_workload bench_kill0_hot = {
	.name = "kill0_hot", .summary = "kill(pid, 0) of 64 processes spread over the table",
	.kinds = { "kill(pid,0)" }, .sized = true, .unsynchronized_ok = true,
	.pid_max = RP_PID_MAX_LIMIT, .setup = bench_setup_table, .op = op_kill0_hot,
};

const struct bench_workload bench_getppid = {
	.name = "getppid", .summary = "getppid() of the caller",
	.kinds = { "getppid" }, .unsynchronized_ok = true, .op = op_getppid,
};

const struct bench_workload bench_kill_all = {
	.name = "kill_all", .summary = "kill(-1, 0) over the whole table",
	.kinds = { "kill(-1)" }, .sized = true, .unsynchronized_ok = true,
	.setup = bench_setup_table, .op = op_kill_all,
};

const struct bench_workload bench_ps = {
	.name = "ps", .summary = "a ps listing of the whole table",
	.kinds = { "ps" }, .sized = true, .unsynchronized_ok = true,
	.setup = bench_setup_table, .op = op_ps,
};

const struct bench_workload bench_wait_scan = {
	.name = "wait_scan", .summary = "wait4(-1, WNOHANG) over SIZE/THREADS live children",
	.kinds = { "wait" }, .sized = true, .unsynchronized_ok = true,
	.thread_setup = wait_children, .op = op_wait_scan,
};

const struct bench_workload bench_fork_exit = {
	.name = "fork_exit", .summary = "fork, the child exits, the parent reaps it",
	.kinds = { "fork", "fork+exit+wait" }, .unsynchronized_ok = true,
	.op = bench_op_fork_exit,
};

const struct bench_workload bench_lookups_under_storm = {
	.name = "lookup_storm", .summary = "kill(pid, 0) readers while thread 0 forks and reaps",
	.kinds = { "kill(pid,0)", "fork", "fork+exit+wait" }, .min_threads = 2,
	.sized = true, .children_in_run = 1, .setup = bench_setup_table,
	.op = op_lookups_under_storm,
};

const struct bench_workload bench_fork_vs_kill_all = {
	.name = "fork_killall", .summary = "fork+exit+wait every 50 us while thread 0 runs kill(-1, 0)",
	.kinds = { "fork", "fork+exit+wait", "kill(-1)" }, .min_threads = 2,
	.sized = true, .children_in_run = 1, .setup = bench_setup_table,
	.op = op_fork_vs_kill_all,
};

const struct bench_workload bench_fork_vs_ps = {
	.name = "fork_ps", .summary = "fork+exit+wait every 50 us while thread 0 lists the table",
	.kinds = { "fork", "fork+exit+wait", "ps" }, .min_threads = 2,
	.sized = true, .children_in_run = 1, .setup = bench_setup_table,
	.op = op_fork_vs_ps,
};

const struct bench_workload bench_kill0_under_ps = {
	.name = "kill0_ps",
	.summary = "kill(pid, 0) every 100 us while thread 0 runs ps, 1 forks every 50 us",
	.kinds = { "kill(pid,0)", "fork", "ps" }, .min_threads = 3,
	.sized = true, .children_in_run = 1, .setup = bench_setup_table,
	.thread_setup = kill0_under_ps_place, .op = op_kill0_under_ps,
};

/*
 * A thread of the bench thread's own process (in a group of its own, as
 * the other _own workloads): cloned, then its exit, whose release is its
 * own (a thread's exit signal is none: nothing to wait for, as a join
 * after pthread_exit).  Kind 0 times the clone; kind 1 the cycle, whose
 * shared writes it counts.
 */
static void op_thread_exit(struct bench_thread *t)
{
	unsigned long shared[RP_SHARED_NR];
	struct rp_task *thread;
	uint64_t t0, t1;

	bench_shared_begin(shared);
	t0 = bench_clock_ns();
	if (rp_clone(t->self, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, &thread) < 0)
		return;		/* EAGAIN at pid_max: nothing counted */
	t1 = bench_clock_ns();
	rp_exit(thread, 0);
	rp_task_put(thread);
	bench_shared_end(t, 1, shared);
	t->kinds[0].ops++;
	bench_record(t, 0, t1 - t0);
	t->kinds[1].ops++;
	bench_record(t, 1, bench_clock_ns() - t0);
}

const struct bench_workload bench_thread_own = {
	.name = "thread_own", .summary = "a thread's clone+exit, each thread's process in its own group",
	.kinds = { "clone", "clone+exit" }, .unsynchronized_ok = true, .scaling = true,
	.children_in_run = 1, .thread_setup = bench_own_group, .op = op_thread_exit,
};
