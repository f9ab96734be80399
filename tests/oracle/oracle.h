/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Linux oracle (invariant I8): a small scenario language run twice, once
 * by real processes on this machine ("puppets", tests/oracle/real.c) and once
 * by rcuproc (tests/oracle/rcu.c).  Each step's answer is printed as a string
 * with pids replaced by the scenario's names for them (P0..P7, EXT), so the
 * two runs compare string by string and a mismatch reads as a diff.
 *
 * P0 is the root of every scenario: a child subreaper (PR_SET_CHILD_SUBREAPER)
 * standing in for init, so that orphans go to it on both sides.  EXT is P0's
 * parent: the test process on Linux, init in rcuproc.
 *
 * Pid namespaces: each side records where every process it makes is (its
 * numbers at each level and each level's namespace, struct or_place), and
 * a step's pids are those its caller's namespace gives (or_view).
 *
 * Waits are always non-blocking (both drivers add WNOHANG).  After every step
 * both drivers let the table settle: on Linux every puppet either answers a
 * ping, is stopped (a group stop or a ptrace stop: /proc says T or t), or is
 * dead and its exit fully processed; in rcuproc every live task runs
 * rp_get_signal() (its return to user space, on a thread of its own) until
 * nothing is left or it is stopped (rp_proc_state, the task's own state as
 * /proc/TID/stat gives a thread's, says T or t).  A task that does neither
 * within the hang bound ends the run, said in the step's answer.  A stopped
 * process answers no call: the step's answer is "stopped" on both sides.
 */
#ifndef RP_TESTS_ORACLE_H
#define RP_TESTS_ORACLE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <rcuproc/proc.h>
#include "../common.h"

#define OR_MAX_PROCS	8	/* P0..P7 */
#define OR_MAX_STEPS	48
#define OR_MAX_SIGS	16	/* signals a process's handler records */
#define OR_RESULT_LEN	160
#define OR_NSIG		65	/* signals 1..64 */
#define OR_MAX_LEVELS	4	/* pid namespaces a process is in, the driver's counted */

/*
 * How long a driver waits for a puppet, real or rcuproc, to answer, stop or
 * finish dying before it calls that a hang: the suite's hang bound
 * (TEST_HANG_SECONDS), never a verdict on speed.  Nothing a scenario does
 * blocks, so only a hang waits this long.
 */
#define OR_HANG_MS	(TEST_HANG_SECONDS * 1000)

enum { P0, P1, P2, P3, P4, P5, P6, P7, EXT = 100 };

/* A pid argument naming a process (-S(p): its group, as kill's -pgid); any
 * other value is passed literally. */
#define OR_SYM_BASE	0x40000000L
#define S(p)		(OR_SYM_BASE + (p))

enum or_op {
	OP_END,
	OP_FORK,	/* a: the child's name */
	OP_EXIT,	/* a: exit code (exit_group) */
	OP_WAIT4,	/* a: pid, b: options */
	OP_WAITID,	/* a: idtype, b: id, c: options */
	OP_KILL,	/* a: pid, b: sig */
	OP_TGKILL,	/* a: tgid, b: tid, c: sig */
	OP_SIGACTION,	/* a: sig, b: enum or_act */
	OP_SIGPROCMASK,	/* a: how, b: the one signal in the set (0: empty) */
	OP_SETRESUID,	/* a, b, c: ruid, euid, suid */
	OP_PRCTL,	/* a: option, b: arg2 */
	OP_SETPGID,	/* a: pid, b: pgid */
	OP_IOPRIO_SET,	/* a: which, b: who, c: ioprio */
	OP_IOPRIO_GET,	/* a: which, b: who */
	OP_SETRLIMIT,	/* a: resource, b: the soft and hard limit */
	OP_GETPID,
	OP_GETPPID,
	OP_SIGS,	/* the signals its handlers caught so far, in order */
	OP_SIGINFO,	/* the siginfo of the last signal its handlers caught */
	OP_CLONE,	/* a: the child's name, b: clone flags (the exit signal) */
	OP_EXEC,	/* execve of the same puppet: handlers reset, record lost */
	OP_THREAD,	/* a: the new thread's name (its tid is the answer) */
	OP_THREAD_EXIT,	/* a: exit code (exit(2): this thread only) */
	/* The terminal: a pty on Linux (the driver's), an rp_tty in rcuproc. */
	OP_SETSID,
	OP_TIOCSCTTY,	/* ioctl(terminal, TIOCSCTTY, 0) */
	OP_TIOCSPGRP,	/* a: the foreground group (tcsetpgrp) */
	OP_TIOCNOTTY,
	OP_TIOCGPGRP,	/* tcgetpgrp: the foreground group, or ENOTTY if not ours */
	OP_PTRACE,	/* a: request, b: pid, c: data; GETEVENTMSG: the answer's msg,
			   GETSIGINFO: its w_* fields; SETSIGINFO: the stop's siginfo
			   with si_signo c and si_code SI_QUEUE */
	/* CPU time and POSIX CPU timers.  CPU time is not deterministic on
	   Linux: the answers that depend on how much passed are shown as
	   classes (0, or more than 0), see or_format. */
	OP_BURN,	/* a: ns of CPU time the thread uses (rcuproc: rp_account_cpu) */
	OP_TIMER_CREATE, /* a: the signal; on CLOCK_PROCESS_CPUTIME_ID (the id is the answer) */
	OP_TIMER_SET,	/* a: timer id, b: absolute expiry ns, c: interval ns */
	OP_TIMER_GETOVERRUN, /* a: timer id */
	OP_TIMER_DELETE, /* a: timer id */
	OP_SIGPENDING,	/* the signals pending and blocked, as sigpending(2) */
	OP_CHILDREN_CPU, /* getrusage(RUSAGE_CHILDREN): user + system time, ns */
	OP_ATTACH_POLL,	/* a: PTRACE_ATTACH or PTRACE_SEIZE, b: pid; then at once,
			   with no settling between, wait4(pid, __WALL|WNOHANG):
			   its answer (or the attach's errno) */
	/* Pid namespaces (docs/namespaces.md). */
	OP_UNSHARE,	/* a: flags (CLONE_NEWPID) */
	OP_SETNS,	/* a: a name (not S(...)), b: 1 for pid_for_children:
			   setns(2) with /proc/PID/ns/pid (or pid_for_children)
			   of that process, opened through the /proc of the
			   driver's namespace (rcuproc: a handle opened as init) */
	OP_NSPID,	/* a: pid: NSpid of /proc/PID/status, the caller in the
			   driver's namespace (rp_proc_nspid) */
	OP_PING,	/* internal: the real driver's settle probe */
};

enum or_act {
	ACT_DFL, ACT_IGN, ACT_HANDLER,
	ACT_NOCLDWAIT,		/* SIG_DFL + SA_NOCLDWAIT */
	ACT_NOCLDSTOP,		/* the handler + SA_NOCLDSTOP */
	ACT_NR
};

/* Does @act install the handler that records what it catches? */
static inline bool or_act_catches(long act)
{
	return act == ACT_HANDLER || act == ACT_NOCLDSTOP;
}

/* The sa_flags both drivers give @act. */
static inline int or_act_flags(long act)
{
	if (act == ACT_NOCLDWAIT)
		return SA_NOCLDWAIT;
	return or_act_catches(act) ? SA_SIGINFO | (act == ACT_NOCLDSTOP ? SA_NOCLDSTOP : 0) : 0;
}

struct or_step {
	int who;
	enum or_op op;
	long a, b, c;
};

struct or_scenario {
	const char *name;
	const struct or_step *steps;	/* ends with op OP_END */
};

/* What one call answered, in the same shape on both sides. */
struct or_reply {
	long ret;
	int err;		/* errno when ret == -1 */
	int status;		/* wait4's status word */
	int w_pid, w_uid, w_signo, w_code, w_status;	/* waitid, OP_SIGINFO */
	int nsigs;
	int sigs[OR_MAX_SIGS];	/* OP_SIGS */
	unsigned long msg;	/* PTRACE_GETEVENTMSG's message */
	int nspids;
	pid_t nspid[OR_MAX_LEVELS];	/* OP_NSPID */
	/* OR_STOPPED: stopped (group or ptrace stop), so it cannot answer. */
	enum { OR_OK, OR_KILLED, OR_NOPROC, OR_TIMEOUT, OR_STOPPED } how;
};

/*
 * Where a process is: its numbers from the driver's pid namespace (level 0;
 * the root in rcuproc) down to its own namespace (level levels - 1), and
 * each of those namespaces, by an id of the side's own (Linux: the nsfs
 * inode, the namespace held open; rcuproc: the handle, held).  Each side
 * asks its system when the process is made, so that no side's answer is
 * taken for granted.
 */
struct or_place {
	int levels;			/* 0: not placed (no such process) */
	pid_t nr[OR_MAX_LEVELS];
	uintptr_t ns[OR_MAX_LEVELS];
};

/*
 * Which pid each name has in one run.  The run's own map numbers every
 * process as the driver's namespace does; a step's caller sees the map
 * or_view makes for it.
 */
struct or_pidmap {
	pid_t pid[OR_MAX_PROCS];
	pid_t ext;
	struct or_place place[OR_MAX_PROCS];
};

/* A name that has no number in the caller's namespace resolves to this:
 * a number no table hands out, so a call on it finds nothing (ESRCH). */
#define OR_PID_UNSEEN	INT_MAX

struct or_results {
	int n;
	char step[OR_MAX_STEPS][OR_RESULT_LEN];
};

/* tests/oracle/format.c */
pid_t or_resolve(const struct or_pidmap *map, long arg);
/*
 * @map as process @who sees it: each name's number in @who's pid namespace,
 * OR_PID_UNSEEN for one outside it (EXT too, below the driver's level).
 */
void or_view(const struct or_pidmap *map, int who, struct or_pidmap *view);
/* @si's fields into @r's w_* fields. */
void or_reply_siginfo(struct or_reply *r, const siginfo_t *si);
/* The user + system time of @ru, in ns. */
long or_rusage_ns(const struct rusage *ru);
/* Signal set @set (bit sig - 1) as @r's list of signals. */
void or_reply_sigset(struct or_reply *r, uint64_t set);
/* @s's arguments with names replaced by this run's pids. */
void or_resolve_args(const struct or_step *s, const struct or_pidmap *map, long out[3]);
void or_describe(const struct or_step *s, char *buf, size_t len);
void or_format(const struct or_step *s, const struct or_reply *r,
	       const struct or_pidmap *map, char *buf, size_t len);
/* Print each differing step to @out; returns how many differ. */
int or_compare(const struct or_scenario *sc, const char *mode,
	       const struct or_results *linux_, const struct or_results *rcuproc,
	       FILE *out);
void or_print(const struct or_scenario *sc, const char *side,
	      const struct or_results *res, FILE *out);

/* tests/oracle/real.c: 0, or -1 if the driver itself failed (see @res). */
int or_run_linux(const struct or_scenario *sc, struct or_results *res);

/* tests/oracle/rcu.c: the object counts once everything was reaped. */
void or_run_rcuproc(const struct or_scenario *sc, enum rp_sync_mode mode,
		    struct or_results *res, struct rp_system_counts *left);

/*
 * Settle a run: call @settle_one(@run, i) for every process, pass after
 * pass, until a pass changes nothing (one death may signal or release
 * another: SIGCHLD, pdeathsig, reparented zombies), at most 4 passes per
 * process.
 */
static inline void or_settle(void *run, bool (*settle_one)(void *run, int i))
{
	bool changed = true;

	for (int pass = 0; changed && pass < 4 * OR_MAX_PROCS; pass++) {
		changed = false;
		for (int i = 0; i < OR_MAX_PROCS; i++)
			changed |= settle_one(run, i);
	}
}

#endif /* RP_TESTS_ORACLE_H */
