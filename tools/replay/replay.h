/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc replay: an strace -f recording of real programs replayed into
 * rcuproc, every answer compared with the real kernel's (invariant I8).
 * The format and the rules are in docs/replay.md.
 */
#ifndef RP_TOOLS_REPLAY_H
#define RP_TOOLS_REPLAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>
#include <rcuproc/proc.h>

struct rp_tty;

#define REPLAY_MAX_ARGS	8
/* How many looks a task may take to stop, or to die of an exec's kill,
 * before it is a mismatch. */
#define REPLAY_PATIENCE	1000000

enum replay_kind {
	REPLAY_CALL,		/* "PID name(args) = ret" */
	REPLAY_SIGNAL,		/* "PID --- SIGX {siginfo} ---" */
	REPLAY_STOPPED,		/* "PID --- stopped by SIGX ---" */
	REPLAY_EXITED,		/* "PID +++ exited with N +++" */
	REPLAY_KILLED,		/* "PID +++ killed by SIGX +++" */
	REPLAY_SUPERSEDED,	/* "PID +++ superseded by execve in pid N +++" */
};

/* One line of the recording, or one call joined from unfinished + resumed. */
struct replay_event {
	enum replay_kind kind;
	int line;		/* line of the call's start (1-based) */
	int end_line;		/* line of its result */
	int at;			/* line at which it is replayed */
	pid_t pid;		/* recorded tid */
	pid_t resumed_as;	/* an execve in a thread: the leader's pid it resumes as */
	pid_t tgid;		/* exit_group: the caller's thread group */
	bool pending;		/* unfinished: waiting for its "resumed" line */
	char name[24];
	char *args;		/* the argument text, joined (owned) */
	char *argbuf;		/* (owned) split into argv */
	char *argv[REPLAY_MAX_ARGS];
	int argc;
	char *result;		/* text after "= " (owned) */
	long ret;		/* the result, or -errno */
	long ret_root;		/* a pid result's number in strace's pid namespace, if noted */
	bool ret_unknown;	/* "= ?": no result (exit, or the task died) */
	bool interrupted;	/* "= ? ERESTART...": restarted, had no effect */
	bool early;		/* an init's exit_group replayed before its turn (run.c) */
	int sig;		/* SIGNAL, STOPPED, KILLED */
	int status;		/* EXITED: exit code; SUPERSEDED: the exec's tid */
	long info_code, info_pid, info_uid, info_status;	/* SIGNAL */
	long info_pid_root;	/* si_pid's number in strace's pid namespace, if noted */
	long info_timerid, info_overrun, info_int;		/* SIGNAL, SI_TIMER */
};

/*
 * parse.c: the events of a recording, read as a stream, in the order they
 * are replayed.  Holds only what later lines may still change.
 */
struct replay_reader {
	FILE *in;
	const char *file;
	pid_t recorder;		/* "# recorder-pid:": strace, the top's parent */
	int line;		/* lines read */
	char *buf;
	size_t cap;
	struct replay_event **ready;	/* a heap by replay point */
	int nready, ready_cap;
	struct replay_event **held;	/* unfinished calls; exits before their "+++" */
	int nheld, held_cap;
	struct { pid_t pid, tgid; } *tgids;	/* live threads and their groups */
	int ntgids, tgids_cap;
	bool eof, failed;
};

void replay_reader_init(struct replay_reader *r, FILE *in, const char *file);
/* The next event to replay (the caller frees it with replay_event_free):
 * 1, 0 at the end, -1 on a format or read error (said on stderr). */
int replay_next(struct replay_reader *r, struct replay_event **ev);
void replay_event_free(struct replay_event *ev);
void replay_reader_free(struct replay_reader *r);
/*
 * The exit_group of recorded thread group @tgid, read but still waiting
 * for its "+++" line (unfinished or not): marked early, its status in
 * *@status, true; when its turn comes it is replayed as nothing.
 */
bool replay_take_exit_early(struct replay_reader *r, pid_t tgid, int *status);
/* Split @s (an argument list) at its top-level commas, in place. */
int replay_split_args(char *s, char **argv, int max);
/* Write @len bytes of @s taken from a recording, non-printing bytes as
 * \xNN, at most @max of them and "..." if there are more. */
void replay_fputs_quoted(FILE *out, const char *s, size_t len, size_t max);

/* A clone's child as the recording calls it: by its number in strace's
 * pid namespace when the caller is in another. */
static inline pid_t replay_child_rec(const struct replay_event *ev)
{
	return (pid_t)(ev->ret_root ? ev->ret_root : ev->ret);
}

/* names.c: strace's spellings of signals, errnos, wait statuses, sets. */
int replay_signal_number(const char *name);	/* "SIGINT", "SIGRT_2": 0 if unknown */
const char *replay_signal_name(int sig, char *buf, size_t len);
int replay_errno_number(const char *name);	/* "ENOENT": 0 if unknown */
const char *replay_errno_name(int err);
/* "[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]" to a status word: false if none. */
bool replay_parse_wstatus(const char *s, int *status);
void replay_format_wstatus(int status, char *buf, size_t len);
/* "[2 15]", "~[9 19]": false for NULL or a pointer. */
bool replay_parse_sigset(const char *s, uint64_t *bits);
void replay_format_sigset(uint64_t bits, char *buf, size_t len);
/* A number as strace -X raw prints it: decimal, 0x hex, or -N. */
bool replay_parse_long(const char *s, long *v);
/* clone's "flags=0x1200000|17" (flags and exit signal), clone3's "exit_signal=". */
unsigned long replay_clone_flags_of(const char *args);
/* The value of "key=" inside a {...} argument: false if absent. */
bool replay_field(const char *s, const char *key, long *v);
/* The numbers of "key=[N, N, ...]" (clone3's set_tid): how many there
 * are (the first @max in @out), or -1 if absent or not a list. */
int replay_field_pids(const char *s, const char *key, pid_t *out, int max);
/*
 * strace --pidns-translation: a pid of another pid namespace is followed
 * by a comment with its number in strace's ("31795 in strace's PID NS").
 * That number for the pid @s starts with (an argument, a result), or for
 * the field @key, or 0 if none is given.
 */
long replay_ns_note(const char *s);
long replay_field_note(const char *s, const char *key);

/* unrecorded.c: the user space of a child strace could not follow. */
struct replay_user {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long asked, answered;	/* rounds of returning to user space */
	bool killed;			/* a round ended in its death */
	bool quit;			/* end the thread */
};

/* ns.c: a pid namespace a replayed task is in (docs/replay.md). */
struct replay_ns {
	struct rp_pidns *handle;	/* held until the replay ends */
	int level;			/* 0: rcuproc's root, which is strace's namespace */
	struct replay_ns *parent;
};

/* One simulated task per recorded tid. */
struct replay_task {
	pid_t rec;			/* recorded tid: its number in strace's namespace */
	struct rp_task *task;		/* a handle: put at the end */
	pid_t nr;			/* its rcuproc tid in the root namespace */
	struct replay_ns *ns;		/* the namespace it is in */
	pid_t *nrs;			/* its rcuproc tid at each level, the root's first */
	bool dead;			/* exited or killed in rcuproc */
	bool ended;			/* its "+++" line was seen */
	bool superseded;		/* a leader whose thread's exec took its pid */
	pid_t exec_tid;			/* a thread that took its leader's pid: its own;
					   the superseded leader: its recorded pid */
	int end_status;			/* that line as a wait status */
	bool suspended;			/* in rt_sigsuspend: the next frame saves saved_mask */
	sigset_t saved_mask;
	/* The mask each running handler's rt_sigreturn restores, innermost
	 * last: as deep as the program nests handlers (grown as needed). */
	sigset_t *frames;
	int nframes, frames_cap;
	/* stop.c: a stopped task's rp_get_signal runs on its stopper thread. */
	pthread_t stopper;
	bool stopping;			/* the stopper runs */
	bool stopper_done;		/* (atomic) it returned */
	int stop_result;		/* what its rp_get_signal returned */
	siginfo_t stop_info;
	sigset_t stop_saved_mask;	/* the mask while it does not run */
	/* unrecorded.c: cloned with CLONE_UNTRACED, which strace -f cannot
	 * follow: no line of the recording is its, replay drives it. */
	struct replay_user *user;
	int calls, mismatches;
};

struct replay_run {
	const char *file;
	struct replay_reader *reader;
	pid_t recorder_rec;		/* the recorder's recorded pid */
	FILE *out;
	bool verbose;
	bool refused;			/* it does what replay cannot follow (ns.c) */
	struct rp_system *sys;
	struct rp_task *init, *recorder;
	struct rp_tty *tty;		/* groups.c: the one terminal */
	struct replay_task **tasks;
	int ntasks;
	/* timers.c: the CPU timers the recording created, by process and id. */
	struct replay_timer { pid_t tgid; long rec_id; int id; } *timers;
	int ntimers, timers_cap;
	/* ns.c: every namespace a task is in, the root's first; the pid
	 * namespace files the recording opened. */
	struct replay_ns **nss, *root_ns;
	int nnss;
	struct replay_nsfd {
		pid_t tgid;			/* the opener's process (root tgid) */
		long fd;
		struct rp_pidns *handle;
		struct replay_task *target;	/* a pidfd's process; NULL: a file */
	} *nsfds;
	int nnsfds;
	/* The root number of the next task placed, when the clone knows it
	 * (0: the root's last number handed out; clone3's set_tid does not
	 * move it). */
	pid_t place_root_nr;
	pid_t unknown_rec[64];		/* pids outside the recording, by number */
	int nunknown;
	int replayed, skipped, mismatches;
	/* creds.c: the limits the recording set (by resource), and those
	 * counted over the machine that it set, which make it inexact. */
	uint32_t rlimits_set, inexact;
	int inexact_answers;		/* mismatches noted as inexact instead */
	/* The watchdog: the event being replayed, and how many have been. */
	const struct replay_event *current;	/* (atomic) */
	unsigned long progress;		/* (atomic) */
	bool reading;			/* (atomic) waiting for the recording's next line */
};

/* A call rcuproc models: returns the result or -errno, checks its outputs. */
typedef long replay_call_fn(struct replay_run *run, struct replay_task *t,
			    const struct replay_event *ev);

struct replay_call_def {
	const char *name;
	replay_call_fn *fn;
	bool returns_pid;		/* the result is a pid: compare mapped */
	bool acts_when_interrupted;	/* rt_sigsuspend: its "= ? ERESTART" is its work */
};

/* calls.c, groups.c and creds.c: the tables, ended by a NULL name. */
extern const struct replay_call_def replay_core_calls[];
extern const struct replay_call_def replay_group_calls[];
/* creds.c */
extern const struct replay_call_def replay_cred_calls[];
/* ns.c: unshare, setns, the namespace files' openat, pidfd_open,
 * pidfd_send_signal, getpid and gettid. */
extern const struct replay_call_def replay_ns_calls[];
/* timers.c: timer_* on a CPU clock through rcuproc's timers. */
extern const struct replay_call_def replay_timer_calls[];
/* A SI_TIMER signal of a CPU timer: charge @t the CPU time the timer had
 * left, so that it fires now; false for a timer rcuproc has not got. */
bool replay_fire_cpu_timer(struct replay_run *run, struct replay_task *t,
			   const struct replay_event *ev);
/* Compare such a signal's timer id (mapped), overrun and value with @ev's. */
void replay_expect_timer_info(struct replay_run *run, struct replay_task *t,
			      const struct replay_event *ev, const siginfo_t *info);
/* groups.c: make the recorder a session leader, as scripts/record.sh does,
 * and the terminal; undo before the system goes. */
void replay_setup_recorder(struct replay_run *run);
void replay_teardown_recorder(struct replay_run *run);

/*
 * run.c: what the call tables use.  A recorded pid @rec named by @caller
 * (NULL: the root namespace's view) as rcuproc numbers it in @caller's
 * namespace: mapped in the root, as it is below (@root: its number in
 * strace's namespace, if the recording noted it, maps it there too);
 * and an rcuproc pid back as the recording would show it to @caller.
 */
long replay_pid_to_sim(struct replay_run *run, const struct replay_task *caller, long rec,
		       long root);
long replay_pid_to_rec(struct replay_run *run, const struct replay_task *caller, long nr);
/* Argument @i of @ev as a number (0 if absent), and as a pid rcuproc knows
 * (a noted pid whose number differs in rcuproc is a mismatch). */
long replay_arg(const struct replay_event *ev, int i);
pid_t replay_pid_arg(struct replay_run *run, const struct replay_task *caller,
		     const struct replay_event *ev, int i);
/* Check that rcuproc numbers the task noted as strace's @root @nr in
 * @caller's namespace, as Linux did: @rec. */
void replay_expect_noted(struct replay_run *run, const struct replay_task *caller,
			 const struct replay_event *ev, long rec, long root);
struct replay_task *replay_task_of(struct replay_run *run, pid_t rec);
/* A new task for recorded pid @rec, driven through @task (taken over). */
struct replay_task *replay_add_task(struct replay_run *run, pid_t rec, struct rp_task *task);
/* Report a mismatch of @what at @ev unless @rec and @got are equal. */
void replay_expect(struct replay_run *run, const struct replay_event *ev, const char *what,
		   const char *rec, const char *got);
/* "name(args)" of call @ev, as replay_fputs_quoted writes it. */
void replay_fputs_call(FILE *out, const struct replay_event *ev);
/* ns.c: the root namespace and the tasks' places in the namespaces. */
void replay_ns_setup(struct replay_run *run);
void replay_ns_teardown(struct replay_run *run);
/* Where @t, just cloned, is: its root number, namespace and numbers. */
void replay_place_task(struct replay_run *run, struct replay_task *t);
/* @t's rcuproc number in @ns, 0 if @ns does not see it. */
pid_t replay_nr_in(const struct replay_task *t, const struct replay_ns *ns);
/* Is @t (may be NULL) in a namespace below the root? */
bool replay_nested(const struct replay_task *t);
/* @t's thread group id in the root namespace. */
pid_t replay_root_tgid(struct replay_run *run, const struct replay_task *t);
/* Stop the replay at @ev, which does what it cannot follow, saying @why. */
void replay_refuse(struct replay_run *run, const struct replay_event *ev, const char *why);
/* A clone the replay cannot follow (into a user namespace, or a child
 * with no number in strace's namespace): refused, true. */
bool replay_clone_refused(struct replay_run *run, struct replay_task *t,
			  const struct replay_event *ev, unsigned long flags);
/*
 * clone3's set_tid for rcuproc (ns.c): how many numbers into @tids (at
 * most REPLAY_MAX_SET_TID; more: returned as is, for rcuproc's EINVAL),
 * 0 if none, or REPLAY_SKIPPED.  Numbers below strace's namespace are
 * asked as recorded; one in strace's is mapped (docs/replay.md).
 */
#define REPLAY_MAX_SET_TID	33
int replay_set_tid(struct replay_run *run, struct replay_task *t, const struct replay_event *ev,
		   unsigned long flags, pid_t *tids);
/* The process the pidfd @fd of @t's process names (ns.c), or NULL if the
 * recording did not show it opened by pidfd_open. */
struct replay_task *replay_pidfd_target(struct replay_run *run, struct replay_task *t, long fd);
/* The call was not replayed, for reason @why: counted, not compared. */
long replay_skip(struct replay_run *run, const struct replay_event *ev, const char *why);
#define REPLAY_SKIPPED	(-100000L)

/* deliver.c: a "--- SIGX ---" line, and a "+++" line; what rcuproc would
 * do with signal @sig delivered to @task now. */
enum disposition { DISP_HANDLER, DISP_IGNORE, DISP_STOP, DISP_KILL };
enum disposition replay_disposition(struct rp_task *task, int sig);
void replay_delivery(struct replay_run *run, struct replay_task *t, const struct replay_event *ev);
void replay_end(struct replay_run *run, struct replay_task *t, const struct replay_event *ev);
/* An interrupted rt_sigsuspend, pselect6 or ppoll that ran no handler: its
 * saved mask comes back before the call restarts (or the task goes on). */
void replay_restore_suspended_mask(struct replay_task *t);

/* stop.c: "--- SIGTSTP ---" with the default action, "--- stopped by ---";
 * after each event, take back the stoppers of tasks no longer stopped;
 * at the end, kill and take back those still stopped. */
void replay_stop(struct replay_run *run, struct replay_task *t, const struct replay_event *ev);
void replay_check_stopped(struct replay_run *run, struct replay_task *t,
			  const struct replay_event *ev);
void replay_settle_stoppers(struct replay_run *run);
void replay_end_stoppers(struct replay_run *run);
/* The ps state letter of process @tgid, or 0 if the table no longer lists it. */
char replay_ps_state(struct replay_run *run, pid_t tgid);

/* unrecorded.c: children cloned with CLONE_UNTRACED (docs/replay.md, "A
 * child strace cannot follow").  Drive @t, cloned at @ev, from now on (a
 * note says so); after each event
 * (@ev), let each such child take what it was sent; before a delivery to
 * @t, wait for a signal such a child sends; ptrace requests on one; at
 * the end, kill those still running and end their threads. */
void replay_add_unrecorded(struct replay_run *run, const struct replay_event *ev,
			   struct replay_task *t);
void replay_settle_unrecorded(struct replay_run *run, const struct replay_event *ev);
void replay_await_unrecorded_signal(struct replay_run *run, struct replay_task *t,
				    const struct replay_event *ev);
long replay_ptrace_unrecorded(struct replay_run *run, struct replay_task *t,
			      struct replay_task *target, const struct replay_event *ev);
void replay_end_unrecorded(struct replay_run *run);

/* watchdog.c: a thread that ends a replay which stopped making progress. */
struct replay_watchdog {
	struct replay_run *run;
	unsigned int seconds;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;			/* under lock: stop watching */
	bool running;
};
int replay_watchdog_start(struct replay_watchdog *w, struct replay_run *run, unsigned int seconds);
/* The replay goes on to @ev. */
void replay_watchdog_tick(struct replay_run *run, const struct replay_event *ev);
void replay_watchdog_stop(struct replay_watchdog *w);
/* "+++ exited", "--- signal ---", ...: what a line that is no call is. */
const char *replay_kind_name(enum replay_kind kind);

/* How a recording is replayed. */
struct replay_opts {
	enum rp_sync_mode mode;
	bool verbose;		/* every task's summary and every skipped call */
	/* A replay that makes no progress for this long is reported on stderr
	 * and the process exits with REPLAY_STUCK; 0: no watchdog. */
	unsigned int watchdog_seconds;
};
#define REPLAY_STUCK	3

/* What a replay counted, as its summary line says it. */
struct replay_counts {
	long tasks, replayed, skipped, mismatches;
};

/* Replay what @r reads, adding its counts to @counts (may be NULL); the
 * number of mismatches, -1 if the recording cannot be read (said on
 * stderr) or holds nothing to replay, or REPLAY_REFUSED if it does what
 * replay cannot follow, a user namespace for one (said on stderr). */
#define REPLAY_REFUSED	(-2)
int replay_run_trace(struct replay_reader *r, const struct replay_opts *opts, FILE *out,
		     struct replay_counts *counts);

#endif /* RP_TOOLS_REPLAY_H */
