/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process core's calls, replayed: clone and friends, execve, exit,
 * wait, the signal calls and prctl.  Each reads strace's -X raw arguments,
 * calls rcuproc as the recorded task, and checks what the call wrote back
 * (wait status, old action, old mask); the result is compared by run.c.
 */
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <rcuproc/pgrp.h>
#include "replay.h"

/* The clone flags rcuproc models; the others (files, fs, tls, tid
 * pointers, vfork's wait) change nothing in the process table. */
#define MODELLED_CLONE_FLAGS	(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_PARENT | \
				 CLONE_NEWPID | CSIGNAL)

static void sigset_from_bits(sigset_t *set, uint64_t bits)
{
	memset(set, 0, sizeof(*set));
	memcpy(set, &bits, sizeof(bits));	/* glibc: bit sig-1 of the first word */
}

static uint64_t sigset_bits(const sigset_t *set)
{
	uint64_t bits;

	memcpy(&bits, set, sizeof(bits));
	return bits;
}

/* clone, or clone3 with @ntids numbers of set_tid in @tids. */
static long clone_with_flags(struct replay_run *run, struct replay_task *t,
			       const struct replay_event *ev, unsigned long flags,
			       const pid_t *tids, int ntids)
{
	struct rp_clone_args args = {
		.flags = flags & MODELLED_CLONE_FLAGS & ~(unsigned long)CSIGNAL,
		.exit_signal = flags & CSIGNAL, .set_tid = tids, .set_tid_size = (size_t)ntids,
	};
	struct rp_task *child;
	long ret;

	if (replay_clone_refused(run, t, ev, flags))
		return REPLAY_SKIPPED;
	if (ntids)
		ret = rp_clone3(t->task, &args, sizeof(args), &child);
	else
		ret = rp_clone(t->task, flags & MODELLED_CLONE_FLAGS, &child);
	/* The child's root number: the caller's, when it is the root's;
	 * else set_tid's, if it asked for one there (replay_set_tid). */
	if (!replay_nested(t))
		run->place_root_nr = (pid_t)ret;
	else if (!ntids)
		run->place_root_nr = 0;
	if (ret > 0 && ev->ret > 0 && (flags & CLONE_UNTRACED))
		replay_add_unrecorded(run, ev, replay_add_task(run, replay_child_rec(ev), child));
	else if (ret > 0 && ev->ret > 0)
		replay_add_task(run, replay_child_rec(ev), child);
	else if (ret > 0)
		rp_task_put(child);
	run->place_root_nr = 0;
	return ret;
}

static long call_clone(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return clone_with_flags(run, t, ev, replay_clone_flags_of(ev->args), NULL, 0);
}

/* clone3 asks for the child's numbers with set_tid: they are asked of rcuproc. */
static long call_clone3(struct replay_run *run, struct replay_task *t,
			const struct replay_event *ev)
{
	unsigned long flags = replay_clone_flags_of(ev->args);
	pid_t tids[REPLAY_MAX_SET_TID];
	int n = replay_set_tid(run, t, ev, flags, tids);

	if (n == REPLAY_SKIPPED)
		return REPLAY_SKIPPED;
	return clone_with_flags(run, t, ev, flags, n ? tids : NULL, n);
}

static long call_fork(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return clone_with_flags(run, t, ev, SIGCHLD, NULL, 0);
}

/* An execve running on a thread of its own while its group is emptied. */
struct exec_worker {
	struct rp_task *task;
	const char *comm;
	long ret;
	bool done;		/* (atomic) ret is set */
};

static void *exec_worker_main(void *arg)
{
	struct exec_worker *w = arg;

	rp_thread_register();
	w->ret = rp_execve(w->task, w->comm);
	rp_thread_unregister();
	/* Pairs with the load in exec_worker_done: the result is written first. */
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static bool exec_worker_done(struct exec_worker *w)
{
	/* Pairs with the store in exec_worker_main. */
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/*
 * @o, another thread of the exec's group, runs into the kill the exec sent
 * it, as each thread does on Linux when it next returns to user space.
 * Looks until the kill has arrived (the worker sends it) or the exec is over.
 */
static void die_of_exec(struct replay_run *run, struct replay_task *o, struct exec_worker *w,
			const struct replay_event *ev)
{
	for (long i = 0; i < REPLAY_PATIENCE; i++) {
		if (rp_get_signal(o->task, NULL) == -ESRCH) {
			o->dead = true;
			return;
		}
		if (exec_worker_done(w))
			return;
		sched_yield();
	}
	replay_expect(run, ev, "other thread", "killed by the exec", "still running");
}

/*
 * Linux's de_thread kills the other threads and waits until they are gone;
 * in the replay they are driven by this one thread, so the exec runs on a
 * worker while each other thread of the group dies of its kill here, and
 * only then is the exec taken back (the watchdog reports it if it never
 * returns).  The recording shows those threads' "+++" lines later.
 */
static long exec_in_group(struct replay_run *run, struct replay_task *t,
			  const struct replay_event *ev, const char *comm)
{
	struct exec_worker w = { .task = t->task, .comm = comm };
	pid_t tgid = rp_getpid(t->task);
	pthread_t thread;

	if (pthread_create(&thread, NULL, exec_worker_main, &w))
		return -EAGAIN;
	for (int i = 0; i < run->ntasks; i++) {
		struct replay_task *o = run->tasks[i];

		if (o != t && !o->dead && rp_getpid(o->task) == tgid)
			die_of_exec(run, o, &w, ev);
	}
	pthread_join(thread, NULL);
	return w.ret;
}

/* The task that held the leader's tid (@nr in @t's namespace) before a
 * thread's exec took it. */
static struct replay_task *task_now_numbered(struct replay_run *run, struct replay_task *t,
					     pid_t nr)
{
	for (int i = 0; i < run->ntasks; i++)
		if (run->tasks[i] != t && replay_nr_in(run->tasks[i], t->ns) == nr)
			return run->tasks[i];
	return NULL;
}

/*
 * A thread that execs takes over its leader's pid, at every level; the
 * recording goes on calling it by that pid (after "+++ superseded by
 * execve in pid N +++"), and the old leader, released, by none.
 */
static void take_leaders_place(struct replay_run *run, struct replay_task *t)
{
	struct replay_task *leader = task_now_numbered(run, t, rp_gettid(t->task));
	pid_t nr, *nrs;

	if (!leader)
		return;		/* the leader's own exec */
	nr = leader->nr;
	nrs = leader->nrs;
	leader->nr = t->nr;
	leader->nrs = t->nrs;
	leader->dead = true;
	leader->superseded = true;
	t->nr = nr;
	t->nrs = nrs;
	t->exec_tid = t->rec;
	leader->exec_tid = leader->rec;
	t->rec = leader->rec;
	leader->rec = t->exec_tid;
}

static bool has_other_threads(struct replay_run *run, struct replay_task *t)
{
	pid_t tgid = rp_getpid(t->task);

	for (int i = 0; i < run->ntasks; i++)
		if (run->tasks[i] != t && !run->tasks[i]->dead && rp_getpid(run->tasks[i]->task) == tgid)
			return true;
	return false;
}

/* A failed execve is a file-system answer (ENOENT while searching PATH). */
static long call_execve(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	char path[256] = "?";
	size_t len;
	long ret;

	if (ev->ret != 0 || ev->argc < 1)
		return replay_skip(run, ev, "a failed exec: the file system answered");
	len = strlen(ev->argv[0]);
	if (len >= 2 && len < sizeof(path)) {
		memcpy(path, ev->argv[0] + 1, len - 2);	/* without the quotes */
		path[len - 2] = '\0';
	}
	if (!has_other_threads(run, t))
		return rp_execve(t->task, basename(path));
	ret = exec_in_group(run, t, ev, basename(path));
	if (ret == 0)
		take_leaders_place(run, t);
	return ret;
}

static long call_exit(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	long ret = rp_exit(t->task, (int)replay_arg(ev, 0));

	(void)run;
	t->dead = true;
	return ret;
}

static long call_exit_group(struct replay_run *run, struct replay_task *t,
			    const struct replay_event *ev)
{
	long ret = rp_exit_group(t->task, (int)replay_arg(ev, 0));

	(void)run;
	t->dead = true;
	return ret;
}

/* A wait the recording saw block is replayed with WNOHANG at its return. */
static int wait_options(const struct replay_event *ev, int i)
{
	return (int)replay_arg(ev, i) | WNOHANG;
}

/*
 * Which of several ready children a wait reports is not part of the
 * contract (rcuproc's children list is unordered): a wait that reported
 * child @rec_child asks for that child, if it is one the selector @sel
 * (wait4's: -1, 0, -pgrp or a pid, in rcuproc's numbers) names in rcuproc
 * (docs/replay.md, "Order", rule 4).
 */
static pid_t wait_target(struct replay_run *run, struct replay_task *t, pid_t sel,
			 long rec_child, long root)
{
	pid_t child;

	if (rec_child <= 0 || sel > 0)
		return sel;
	child = (pid_t)replay_pid_to_sim(run, t, rec_child, root);
	if (sel == -1)
		return child;
	if (rp_getpgid(t->task, child) == (sel ? -sel : rp_getpgrp(t->task)))
		return child;
	return sel;
}

static long call_wait4(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	char rec[48], got[48];
	int status = 0, rec_status;
	pid_t target = wait_target(run, t, replay_pid_arg(run, t, ev, 0), ev->ret, ev->ret_root);
	long ret = rp_wait4(t->task, target, &status, wait_options(ev, 2), NULL);

	if (ret > 0 && ev->ret > 0 && ev->argc > 1 && replay_parse_wstatus(ev->argv[1], &rec_status)) {
		replay_format_wstatus(rec_status, rec, sizeof(rec));
		replay_format_wstatus(status, got, sizeof(got));
		replay_expect(run, ev, "status", rec, got);
	}
	return ret;
}

static void format_waitid(long pid, long code, long status, char *buf, size_t len)
{
	snprintf(buf, len, "pid %ld code %ld status %ld", pid, code, status);
}

/*
 * waitid's selector as wait4 spells it, the rule of wait_target applied,
 * and back: P_ALL is -1, P_PGID g is -g (0: the caller's group).
 */
static void waitid_target(struct replay_run *run, struct replay_task *t,
			  const struct replay_event *ev, idtype_t *idtype, id_t *id)
{
	long rec_child = 0, root = 0;
	pid_t sel, target;

	if (ev->ret == 0 && ev->argc > 2 && replay_field(ev->argv[2], "si_pid", &rec_child))
		root = replay_field_note(ev->argv[2], "si_pid");
	sel = *idtype == P_ALL ? -1 : *idtype == P_PGID ? -(pid_t)*id : (pid_t)*id;
	target = wait_target(run, t, sel, rec_child, root);
	if (target != sel) {
		*idtype = P_PID;
		*id = (id_t)target;
	}
}

static long call_waitid(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	long idtype = replay_arg(ev, 0), rpid, rcode, rstatus;
	id_t id = (id_t)replay_arg(ev, 1);
	idtype_t which = (idtype_t)idtype;
	char rec[64], got[64];
	siginfo_t si;
	long ret;

	if (idtype == P_PIDFD) {
		/* The process the pidfd names, by its number in the caller's namespace. */
		struct replay_task *target = replay_pidfd_target(run, t, (long)id);

		id = target ? (id_t)replay_nr_in(target, t->ns) : 0;
		if (!id)
			return replay_skip(run, ev, "P_PIDFD on a descriptor the recording did not "
					   "show opened by pidfd_open");
		which = P_PID;
	} else if (idtype != P_ALL && idtype != P_PID && idtype != P_PGID) {
		return replay_skip(run, ev, "an idtype outside the process table");
	} else if (idtype != P_ALL) {
		id = (id_t)replay_pid_arg(run, t, ev, 1);
	}
	waitid_target(run, t, ev, &which, &id);
	memset(&si, 0, sizeof(si));
	ret = rp_waitid(t->task, which, id, &si, wait_options(ev, 3));
	if (ret == 0 && ev->ret == 0 && ev->argc > 2 && replay_field(ev->argv[2], "si_pid", &rpid)) {
		replay_field(ev->argv[2], "si_code", &rcode);
		replay_field(ev->argv[2], "si_status", &rstatus);
		format_waitid(rpid, rcode, rstatus, rec, sizeof(rec));
		format_waitid(si.si_pid ? replay_pid_to_rec(run, t, si.si_pid) : 0, si.si_code,
			      si.si_status, got, sizeof(got));
		replay_expect(run, ev, "siginfo", rec, got);
	}
	return ret;
}

static long call_kill(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return rp_kill(t->task, replay_pid_arg(run, t, ev, 0), (int)replay_arg(ev, 1));
}

static long call_tkill(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return rp_tkill(t->task, replay_pid_arg(run, t, ev, 0), (int)replay_arg(ev, 1));
}

static long call_tgkill(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return rp_tgkill(t->task, replay_pid_arg(run, t, ev, 0), replay_pid_arg(run, t, ev, 1),
			 (int)replay_arg(ev, 2));
}

static long call_rt_sigqueueinfo(struct replay_run *run, struct replay_task *t,
				 const struct replay_event *ev)
{
	siginfo_t info;
	long v = 0;

	memset(&info, 0, sizeof(info));
	info.si_signo = (int)replay_arg(ev, 1);
	if (ev->argc > 2 && replay_field(ev->argv[2], "si_code", &v))
		info.si_code = (int)v;
	if (ev->argc > 2 && replay_field(ev->argv[2], "si_pid", &v))
		info.si_pid = (pid_t)replay_pid_to_sim(run, t, v,
						       replay_field_note(ev->argv[2], "si_pid"));
	if (ev->argc > 2 && replay_field(ev->argv[2], "si_int", &v))
		info.si_int = (int)v;
	return rp_rt_sigqueueinfo(t->task, replay_pid_arg(run, t, ev, 0), info.si_signo, &info);
}

/* "{sa_handler=0x1, sa_mask=[2], sa_flags=0x4000000, ...}": false for NULL. */
static bool parse_action(const char *s, struct sigaction *sa)
{
	const char *mask = strstr(s, "sa_mask=");
	long handler = 0, flags = 0;
	uint64_t bits = 0;

	if (*s != '{' || !replay_field(s, "sa_handler", &handler))
		return false;
	replay_field(s, "sa_flags", &flags);
	if (mask)
		replay_parse_sigset(mask + 8, &bits);
	memset(sa, 0, sizeof(*sa));
	/* The recorded handler address stands for the handler itself. */
	sa->sa_handler = (void (*)(int))handler;
	sa->sa_flags = (int)flags;
	sigset_from_bits(&sa->sa_mask, bits);
	return true;
}

static void format_action(const struct sigaction *sa, char *buf, size_t len)
{
	char mask[200];

	replay_format_sigset(sigset_bits(&sa->sa_mask), mask, sizeof(mask));
	snprintf(buf, len, "{handler %#lx mask %s flags %#x}", (unsigned long)sa->sa_handler,
		 mask, (unsigned int)sa->sa_flags);
}

static long call_rt_sigaction(struct replay_run *run, struct replay_task *t,
			      const struct replay_event *ev)
{
	struct sigaction act, old, rec_old;
	char rec[256], got[256];
	bool has_act = ev->argc > 1 && parse_action(ev->argv[1], &act);
	long ret;

	memset(&old, 0, sizeof(old));
	ret = rp_sigaction(t->task, (int)replay_arg(ev, 0), has_act ? &act : NULL, &old);
	if (ret == 0 && ev->ret == 0 && ev->argc > 2 && parse_action(ev->argv[2], &rec_old)) {
		format_action(&rec_old, rec, sizeof(rec));
		format_action(&old, got, sizeof(got));
		replay_expect(run, ev, "old action", rec, got);
	}
	return ret;
}

static long call_rt_sigprocmask(struct replay_run *run, struct replay_task *t,
				const struct replay_event *ev)
{
	uint64_t bits, rec_old;
	sigset_t set, old;
	char rec[200], got[200];
	bool has_set = ev->argc > 1 && replay_parse_sigset(ev->argv[1], &bits);
	long ret;

	if (has_set)
		sigset_from_bits(&set, bits);
	sigemptyset(&old);
	ret = rp_sigprocmask(t->task, (int)replay_arg(ev, 0), has_set ? &set : NULL, &old);
	if (ret == 0 && ev->ret == 0 && ev->argc > 2 && replay_parse_sigset(ev->argv[2], &rec_old)) {
		replay_format_sigset(rec_old, rec, sizeof(rec));
		replay_format_sigset(sigset_bits(&old), got, sizeof(got));
		replay_expect(run, ev, "old mask", rec, got);
	}
	return ret;
}

/*
 * rt_sigsuspend, pselect6 and ppoll run with a mask of their own.  Only an
 * interrupted call leaves a trace: the handler runs under that mask, and
 * its return restores the saved one (replay_delivery).
 */
static long suspend_with_mask(struct replay_run *run, struct replay_task *t,
			      const struct replay_event *ev, int mask_arg)
{
	const char *text = mask_arg < ev->argc ? ev->argv[mask_arg] : "";
	const char *inner = strstr(text, "sigmask=");
	uint64_t bits;
	sigset_t set;

	if (!ev->interrupted)
		return replay_skip(run, ev, "not interrupted: its mask left no trace");
	if (!replay_parse_sigset(inner ? inner + 8 : text, &bits))
		return replay_skip(run, ev, "no signal mask given");
	sigset_from_bits(&set, bits);
	t->suspended = true;
	return rp_sigprocmask(t->task, SIG_SETMASK, &set, &t->saved_mask);
}

static long call_rt_sigsuspend(struct replay_run *run, struct replay_task *t,
			       const struct replay_event *ev)
{
	return suspend_with_mask(run, t, ev, 0);
}

static long call_pselect6(struct replay_run *run, struct replay_task *t,
			  const struct replay_event *ev)
{
	return suspend_with_mask(run, t, ev, 5);
}

static long call_ppoll(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return suspend_with_mask(run, t, ev, 3);
}

/* rt_sigreturn: the handler returns; its frame's mask comes back. */
static long call_rt_sigreturn(struct replay_run *run, struct replay_task *t,
			      const struct replay_event *ev)
{
	const char *mask = ev->argc ? strstr(ev->argv[0], "mask=") : NULL;
	char rec[200], got[200];
	uint64_t bits;

	if (!t->nframes)
		return replay_skip(run, ev, "no handler frame to return from: the recording "
				   "does not show the handler's signal delivered");
	t->nframes--;
	if (mask && replay_parse_sigset(mask + 5, &bits)) {
		replay_format_sigset(bits, rec, sizeof(rec));
		replay_format_sigset(sigset_bits(&t->frames[t->nframes]), got, sizeof(got));
		replay_expect(run, ev, "restored mask", rec, got);
	}
	rp_sigprocmask(t->task, SIG_SETMASK, &t->frames[t->nframes], NULL);
	return ev->ret;		/* the interrupted call's result, not its own */
}

static long call_getppid(struct replay_run *run, struct replay_task *t,
			 const struct replay_event *ev)
{
	(void)run;
	(void)ev;
	return rp_getppid(t->task);
}

/* The prctl options rcuproc models; a GET writes an int strace shows as [N]. */
static long call_prctl(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	long option = replay_arg(ev, 0), rec_value;
	char rec[24], got[24];
	int value = 0;
	long ret;

	switch (option) {
	case PR_SET_CHILD_SUBREAPER:
	case PR_SET_PDEATHSIG:
	case PR_SET_DUMPABLE:
	case PR_GET_DUMPABLE:
		return rp_prctl(t->task, (int)option, (unsigned long)replay_arg(ev, 1));
	case PR_GET_CHILD_SUBREAPER:
	case PR_GET_PDEATHSIG:
		ret = rp_prctl(t->task, (int)option, (unsigned long)&value);
		if (ret == 0 && ev->argc > 1 && ev->argv[1][0] == '[' &&
		    replay_parse_long(ev->argv[1] + 1, &rec_value)) {
			snprintf(rec, sizeof(rec), "%ld", rec_value);
			snprintf(got, sizeof(got), "%d", value);
			replay_expect(run, ev, "value", rec, got);
		}
		return ret;
	case PR_CAPBSET_READ:
	case PR_CAPBSET_DROP:
	case PR_CAP_AMBIENT:
		return replay_skip(run, ev, "the capability bounding and ambient sets are not "
				   "modelled");
	default:
		return replay_skip(run, ev, "a prctl option outside the process table");
	}
}

/*
 * ptrace: every task strace follows is its tracee already, so the kernel
 * refused the program's own attach requests to it for a reason that is
 * not in the recording's process table: not replayed.  A child strace
 * could not follow (CLONE_UNTRACED) the program may trace: replayed
 * (unrecorded.c; docs/replay.md).
 */
static long call_ptrace(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	struct replay_task *target = replay_task_of(run, (pid_t)replay_arg(ev, 1));

	if (replay_arg(ev, 0) != PTRACE_TRACEME && target && target->user)
		return replay_ptrace_unrecorded(run, t, target, ev);
	return replay_skip(run, ev, "strace traces every task it follows already: the "
			   "kernel's answer is not the program's process table's");
}

const struct replay_call_def replay_core_calls[] = {
	{ "clone", call_clone, true, false },
	{ "clone3", call_clone3, true, false },
	{ "fork", call_fork, true, false },
	{ "vfork", call_fork, true, false },
	{ "execve", call_execve, false, false },
	{ "exit", call_exit, false, false },
	{ "exit_group", call_exit_group, false, false },
	{ "wait4", call_wait4, true, false },
	{ "waitid", call_waitid, false, false },
	{ "kill", call_kill, false, false },
	{ "tkill", call_tkill, false, false },
	{ "tgkill", call_tgkill, false, false },
	{ "rt_sigqueueinfo", call_rt_sigqueueinfo, false, false },
	{ "rt_sigaction", call_rt_sigaction, false, false },
	{ "rt_sigprocmask", call_rt_sigprocmask, false, false },
	{ "rt_sigsuspend", call_rt_sigsuspend, false, true },
	{ "pselect6", call_pselect6, false, true },
	{ "rt_sigreturn", call_rt_sigreturn, false, false },
	{ "ppoll", call_ppoll, false, true },
	{ "getppid", call_getppid, true, false },
	{ "prctl", call_prctl, false, false },
	{ "ptrace", call_ptrace, false, false },
	{ 0 },
};
