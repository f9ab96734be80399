/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc torture: worker threads drive simulated processes through a random
 * mix of operations and log what they did; a checker reads the merged logs.
 */
#ifndef RP_TOOLS_TORTURE_H
#define RP_TOOLS_TORTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <rcuproc/proc.h>
#include "../common/rng.h"
#include "verify/verify.h"	/* the table walk's report and reaper verdicts */

/* The operations, in the order of the summary. */
enum op_kind {
	OP_FORK, OP_CLONE, OP_EXIT, OP_EXIT_GROUP, OP_EXEC, OP_WAIT4, OP_WAITID,
	OP_KILL, OP_TGKILL, OP_PTRACE, OP_SIGACTION, OP_SIGPROCMASK, OP_DRAIN,
	OP_KILLPG, OP_KILL_ALL, OP_KILL_SESSION, OP_SETPGID, OP_SETSID,
	OP_SETPRIORITY, OP_IOPRIO, OP_TIMER, OP_STOP, OP_TRACE_REAP,
	OP_TRACE_EXEC, OP_CLAIM, OP_EXEC_KILL_ALL, OP_INIT_EXEC, OP_HOT, OP_MT,
	OP_NS, OP_FORK_GROUP, OP_SETPGID_TIE,
	OP_NR
};

extern const char *const tt_op_names[OP_NR];

/* Events of the log; the clock is one global sequence number. */
enum ev_kind {
	EV_SEND,	/* a: sender tgid, b: target tgid, sig, id (= start), result */
	EV_TGKILL,	/* a: sender tgid, b: target tid, c: target tgid, sig, result */
	EV_GROUP,	/* killpg, kill(-1), session kill: a: sender tgid, b: minus
			   the pgrp, the sid, or 1 for kill(-1); sig, result */
	EV_RECV,	/* a: receiver tgid, b: receiver tid, sig, id (0: none), c: si_pid,
			   result: si_code */
	EV_DRAIN,	/* a: tgid, b: tid: nothing left pending, nothing blocked */
	EV_FORK,	/* a: parent tgid, b: child tgid, result */
	EV_EXEC,	/* a: tgid, result */
	EV_REAP,	/* a: reaper tgid, b: reaped pid */
	EV_ECHILD,	/* a: waiter tgid, b: the pid waited for (-1: any): ECHILD */
	EV_STOP_EXIT,	/* a: tgid: from the stop signal's send to an
			   exit_group before every thread had stopped */
	EV_STOPPED,	/* a: parent tgid, b: child pid, sig: a wait's stop report */
	EV_SIGHANDS,	/* a: tgid, b: how many of its threads use another
			   signal-handler table than its leader */
	EV_MUST_RECV,	/* a: receiver tgid, c: sender tgid, sig, b: enum
			   must_recv: a group send over [start..] that the
			   receiver must have taken by end, the end of its
			   drain (nothing blocked) after it */
	EV_REAPER,	/* a: 1, b: an orphan's pid (0: none), c: enum rp_verify_reaper:
			   sys->child_reaper after an exec by a thread of init */
	EV_TRACE,	/* a: tracer tgid, b: tracee tid: from its PTRACE_SEIZE to
			   its detach or exit */
	EV_NS,		/* a: a process's number in the root namespace, b: enum
			   ns_fault, c: what was seen, sig: its level: a
			   namespace scene's check failed (ops_ns.c) */
	EV_FORK_PRIO,	/* a: child tgid, b: the nice value its parent's group
			   was given while the fork was held, c: the child's:
			   they differ (fork_group) */
	EV_ORPHANED,	/* a: a member of group b, which read orphaned while
			   a move held between its steps kept it tied
			   (setpgid_tie) */
	EV_NR
};

/* Why EV_MUST_RECV's receiver must have the signal. */
enum must_recv {
	MUST_RECV_FORKED,	/* forked before a group send reached its parent
				   (exec_kill_all, fork_group) */
	MUST_RECV_MEMBER,	/* in the killpg's group for the whole call (killpg_move) */
};

struct event {
	uint64_t start, end;		/* clock before and after the call */
	uint64_t id;			/* send id */
	int32_t a, b, c;
	int16_t sig;
	int16_t result;			/* 0 or -errno, clipped */
	uint8_t kind;			/* enum ev_kind */
};

/* One task a worker holds a reference to and drives. */
struct handle {
	struct rp_task *t;
	pid_t tid, tgid;
};

struct torture_config {
	unsigned int threads, procs;
	uint64_t seed, ops;
	double seconds;
	enum rp_sync_mode mode;
	unsigned int weights[OP_NR];
	double fail_rate;		/* random allocation failures; 0: none */
	double until_caught;		/* > 0: repeat rounds until caught or this long */
	/*
	 * --overlap: the percentage of operations run on the shared part of
	 * the tree (tt_op_hot); 0: the workers stay disjoint.  Not given: the
	 * weights alone decide (hot's, the cross-worker targets).
	 */
	unsigned int overlap;
	bool overlap_given;
	bool json;
};

struct worker {
	struct torture_config *cfg;
	uint64_t rng;			/* common/rng.h: its own stream */
	struct handle *h;		/* the tasks it drives */
	unsigned int nh, cap;
	pid_t root;			/* its subreaper: never ends before teardown */
	struct event *ev;		/* its log */
	size_t nev, evcap;
	uint64_t ops[OP_NR];		/* operations run, by kind */
	uint64_t done_ops;		/* atomic: all kinds; read by the watcher */
	const int *stop;		/* atomic: the run is over */
	unsigned int *paused, *finished; /* atomic: count of workers past each phase */
	pthread_barrier_t *resume;	/* the consistency walk is done */
	struct init_proc *init;		/* init, for init_exec */
	struct handle hot;		/* its thread of the hot process (ops_hot.c) */
	uint64_t ns_scenes;		/* atomic: namespace scenes checked (ops_ns.c) */
	pthread_t thread;
};

#define THREAD_FLAGS	(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)

/* Signals the harness sends: real-time, with handlers in every process. */
#define SIG_FIRST	34
#define SIG_COUNT	8
/* The signal of kill(-1) inside a namespace (ops_ns.c), which nothing else sends. */
#define SIG_NS		(SIG_FIRST + SIG_COUNT)

/* ops.c */
uint64_t tt_clock_tick(void);
void tt_ops_forget_recent(void);
struct event *tt_log_event(struct worker *w, enum ev_kind kind);
int tt_worker_setup(struct worker *w, struct rp_task *root);
bool tt_worker_full(const struct worker *w);
void tt_worker_run_op(struct worker *w);
void tt_worker_teardown(struct worker *w);
bool tt_worker_drive(struct worker *w, struct handle *h, int ret);
void tt_add_handle(struct worker *w, struct rp_task *t, pid_t tid, pid_t tgid);
void tt_drop_handle(struct worker *w, unsigned int i);
pid_t tt_new_thread(struct worker *w, struct handle *h);
struct handle *tt_find_parent(struct worker *w, struct handle *h);
struct handle *tt_pick_live(struct worker *w);
pid_t tt_pick_target(struct worker *w);
void tt_set_handler(struct rp_task *t, int sig);
void tt_install_handlers(struct rp_task *t);
int tt_drain(struct worker *w, struct handle *h);
void tt_log_trace(struct worker *w, pid_t tracer, pid_t tracee, uint64_t start);
void tt_log_recv(struct worker *w, struct handle *h, int sig, const siginfo_t *info);
void tt_reap_all(struct worker *w, struct handle *h);
void tt_log_wait(struct worker *w, struct handle *h, pid_t pid, uint64_t start, pid_t ret);
void tt_join_offline(pthread_t thread);
void tt_rt_set(sigset_t *set);

/* ops_race.c: a group stop killed half-way, a tracer's reap raced by the parent. */
void tt_op_stop(struct worker *w, struct handle *h);
void tt_op_trace_reap(struct worker *w, struct handle *h);
struct handle *tt_handle_of(struct worker *w, struct rp_task *t);
void tt_tracer_reap(struct worker *w, struct handle *tr, pid_t pid);

/* ops.c, for the race operations */
pid_t tt_fork_process(struct worker *w, struct handle *h, unsigned long flags);
void tt_op_exec(struct worker *w, struct handle *h, bool traced);


/* ops_pgrp.c */
void tt_log_group_send(struct worker *w, struct handle *h, pid_t target, int sig,
		    uint64_t start, int ret);

/*
 * hold.c: a helper thread of ours held at a race point (src/debug/racepoint.h,
 * debug builds): the helper arms the hold on itself; the worker awaits it,
 * acts in the window, releases it.
 */
struct hold {
	int where;			/* enum rp_race_point */
	struct rp_task *t;		/* the task the point must name */
	bool stay;			/* stay there until released; else count visits */
	bool offline;			/* held outside any read section: go offline */
	unsigned int reached;		/* atomic: visits */
	int go;				/* atomic: released */
};
/* ops_hold.c: a call by a helper thread as @t, held at a race point. */
struct held_call {
	struct rp_task *t;
	pid_t pid;			/* wait: the pid waited for */
	int sig;			/* kill(-1): the signal */
	long ret;
	uint64_t start;
	struct hold hold;
	int done;			/* atomic: the call returned */
	pthread_t thread;
};
void *tt_held_wait_thread(void *arg);
void *tt_held_send_thread(void *arg);
bool tt_start_held(struct held_call *c, void *(*fn)(void *));
void tt_end_held(struct held_call *c);
/* ops_hold.c: a wait's claim raced by its group, kill(-1) held across an exec and a fork. */
void tt_op_claim(struct worker *w, struct handle *h);
void tt_op_exec_kill_all(struct worker *w, struct handle *h);
void tt_op_killpg_move(struct worker *w, struct handle *h);
void tt_op_fork_group(struct worker *w, struct handle *h);
void tt_op_setpgid_tie(struct worker *w, struct handle *h);

bool tt_hold_install(void);
void tt_hold_remove(void);
bool tt_hold_available(void);

/* Do @mode's readers run beside writers (rcu, rcu-global), so a held read section keeps no writer out? */
static inline bool tt_rcu_readers(enum rp_sync_mode mode)
{
	return mode == RP_SYNC_RCU || mode == RP_SYNC_RCU_GLOBAL;
}
void tt_hold_arm(struct hold *h);
void tt_hold_disarm(void);
bool tt_hold_await(struct hold *h, const int *done);
void tt_hold_release(struct hold *h);
double tt_hold_now(void);

/*
 * ops_init.c: init, shared by the run.  A thread of init that is not its
 * leader stays registered and idle on an OS thread of its own (the quiet
 * thread); init_exec has it exec, and it becomes init's leader.
 */
struct init_proc {
	struct rp_task *leader;		/* init's leader, with the run's reference */
	struct rp_task *quiet;		/* the quiet thread's task */
	pthread_mutex_t lock;		/* one init_exec at a time */
	int exec;			/* atomic: what init_exec asks of the quiet thread */
	uint64_t start, end;		/* its exec on the log's clock */
	int ret;			/* and what it returned */
	int stop;			/* atomic: the quiet thread exits */
	pthread_t thread;
};
int tt_init_start(struct init_proc *ip, struct rp_task *init);
void tt_init_stop(struct init_proc *ip);
void tt_op_init_exec(struct worker *w);

/*
 * ops_hot.c: the hot process, whose threads the workers share out and whose
 * group they all join and signal; mt, two threads of a process driven by
 * two OS threads at once.
 */
struct hot_proc {
	struct rp_task *leader;		/* idle, with the run's reference */
	pid_t tgid;			/* and the hot group's pgid */
};
int tt_hot_start(struct hot_proc *hp, struct rp_task *init, struct worker *ws, unsigned int n);
void tt_disjoint_weights(struct torture_config *cfg);

/*
 * May the run draw ns, the only operation that makes pid namespaces?  Not
 * with --fail-rate (ops_ns.c runs none), nor with --overlap 100 (nothing
 * but the shared operations).
 */
bool tt_may_draw_ns(const struct torture_config *cfg);
bool tt_disjoint(const struct torture_config *cfg);
void tt_hot_leave(struct worker *w);
void tt_hot_end(struct hot_proc *hp, struct worker *log);
void tt_op_hot(struct worker *w, struct handle *h);
void tt_op_mt(struct worker *w, struct handle *h);

/*
 * ops_ns.c: a scene of pid namespaces, nested a few levels below a new
 * process of the worker's, checked as it goes (EV_NS for each failed
 * check), then ended by killing its first init.
 */
enum ns_fault {
	NSF_SETUP,		/* unshare, clone(CLONE_NEWPID) or setns refused: c */
	NSF_NUMBERS,		/* a number of it does not find it at level c */
	NSF_HANDLE,		/* a namespace handle's parent is not the level above */
	NSF_ORPHAN,		/* an orphan's getppid is c, not 1 */
	NSF_REAP_INSIDE,	/* its init's wait for it answered c, not its number */
	NSF_KILL_RET,		/* kill(-1) from it inside a namespace answered c */
	NSF_KILL_COUNT,		/* it received kill(-1) from inside c times, not once */
	NSF_KILL_OUTSIDE,	/* outside the target set, it received it c times */
	NSF_FORK_DYING,		/* a fork into its dying namespace returned c > 0 */
	NSF_SURVIVED,		/* it lives on after its namespace's init ended */
	NSF_STRANDED,		/* killed at the end, its reaper's wait answered c */
	NSF_NR
};
void tt_op_ns(struct worker *w, struct handle *h);

/* ops_pgrp.c: the operations of process groups, sessions, priorities, timers. */
void tt_run_group_op(struct worker *w, enum op_kind k, struct handle *h);

/* check.c */
struct violation_report {
	unsigned long count[8];		/* [0] the table walk, [1..7] I1..I7 */
	char first[8][8192];		/* the first example of each */
};
void tt_check_logs(struct worker *ws, unsigned int n, uint64_t seed,
		struct violation_report *r);
void tt_report_violation(struct violation_report *r, int inv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Add the table walk's report (src/verify) to the "table consistency" count. */
void tt_report_walk(struct violation_report *r, const struct rp_verify_report *walk);

#endif /* RP_TOOLS_TORTURE_H */
