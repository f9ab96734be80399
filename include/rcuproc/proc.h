/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/proc.h: the process table.
 *
 * A system (struct rp_system) owns every task; init (pid 1) exists as soon as
 * the system does.  Each operation is shaped like the Linux system call it
 * models: rp_<syscall>(calling task, the syscall's arguments), returning the
 * syscall's result or -errno, with the system headers' constants (SIG*, W*,
 * CLONE_*, PR_*, PTRACE_*).
 *
 * Tasks and handles.  A struct rp_task * is a counted reference.  Whoever
 * holds one may drive that task: call operations as it, one at a time, from
 * any OS thread registered with rp_thread_register().  rp_system_init() and
 * rp_clone() hand out references; rp_task_put() gives one back.  A task that
 * has exited still needs its handle put; operations called as an exited task
 * return -ESRCH.
 *
 * Signals reach the caller through rp_get_signal(), the model of the kernel's
 * return to user space: default actions run there, a signal with a handler is
 * handed back with its siginfo.
 */
#ifndef RCUPROC_PROC_H
#define RCUPROC_PROC_H

#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <rcuproc/sync.h>
#include <rcuproc/export.h>

/* siginfo_t, idtype_t and sigset_t are POSIX.1-2008 declarations. */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L
#error "rcuproc's headers need POSIX.1-2008 declarations: compile with -D_GNU_SOURCE (as `pkg-config --cflags rcuproc` says) or -D_POSIX_C_SOURCE=200809L"
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct rp_system;
struct rp_task;
struct rp_pidns;

/* Highest pid_max a system accepts (Linux's PID_MAX_LIMIT on 64-bit). */
#define RP_PID_MAX_LIMIT	4194304
#define RP_PID_MAX_DEFAULT	32768
/* Lowest pid_max a namespace's sysctl accepts (Linux's PID_MAX_MIN). */
#define RP_PID_MAX_MIN		301

/*
 * Options of a new system.  Set .size to sizeof(struct rp_system_opts): a
 * later version adds fields after it, and a library older than the
 * header a program was built with then refuses options it does not know
 * (E2BIG) rather than ignore them.  0 stands for this layout, the first
 * one with .size (version 0.2), so that callers that never set it keep
 * working.
 */
struct rp_system_opts {
	enum rp_sync_mode mode;
	unsigned int pid_max;		/* 0: RP_PID_MAX_DEFAULT */
	unsigned int size;		/* sizeof(struct rp_system_opts), or 0 */
};

/*
 * 0 and *out, or -EINVAL (bad options, or a .size that does not reach
 * past .size itself), -E2BIG (.size covers fields this library does not know, and
 * they are not zero) or -ENOMEM.
 */
RP_API int rp_system_create(const struct rp_system_opts *opts, struct rp_system **out);

/*
 * Tear the system down: every task, reaped or not, and every object it owns.
 * No operation may be running on it.  Handles still held become invalid.
 */
RP_API void rp_system_destroy(struct rp_system *sys);

/* A new reference to init (pid 1). */
RP_API struct rp_task *rp_system_init(struct rp_system *sys);

/* Change pid_max (Linux's /proc/sys/kernel/pid_max): 0 or -EINVAL. */
RP_API int rp_system_set_pid_max(struct rp_system *sys, unsigned int pid_max);

/* Live objects of each kind, for leak checks (I7). */
struct rp_system_counts {
	unsigned long tasks;		/* task structs not yet freed */
	unsigned long signals;		/* thread-group structs */
	unsigned long sighands;		/* signal-handler tables */
	unsigned long pids;		/* struct pids */
	unsigned long creds;		/* credentials */
	unsigned long sigqueues;	/* queued siginfo entries */
	unsigned long proxies;		/* member proxies setpgid and setsid allocated */
	unsigned long pidns;		/* pid namespaces below the root */
};
RP_API void rp_system_counts(struct rp_system *sys, struct rp_system_counts *out);

RP_API struct rp_task *rp_task_get(struct rp_task *t);
RP_API void rp_task_put(struct rp_task *t);

/*
 * Restart code of a fork abandoned because a signal arrived while it ran
 * (the kernel's ERESTARTNOINTR): run rp_get_signal(), then call again.
 */
#define RP_ERESTARTNOINTR 513

/*
 * clone(2): @flags holds CLONE_* and, in its low byte (CSIGNAL), the exit
 * signal.  Supported: CLONE_THREAD, CLONE_SIGHAND, CLONE_VM (accepted),
 * CLONE_PARENT, CLONE_PTRACE, CLONE_NEWPID (the child is pid 1 of a new
 * pid namespace below the caller's: EINVAL with CLONE_THREAD or
 * CLONE_PARENT or after an unshare(CLONE_NEWPID) with no child yet, EPERM
 * without CAP_SYS_ADMIN, ENOSPC 32 levels down; docs/namespaces.md).
 * Returns the child's tid as the caller's namespace numbers it, and a
 * reference to it in *@child (which may be NULL if the caller does not
 * want one).  ENOMEM when the namespace the child would go into has lost
 * its init.
 */
RP_API pid_t rp_clone(struct rp_task *self, unsigned long flags, struct rp_task **child);

/*
 * clone3(2)'s arguments that rcuproc models, named as Linux's struct
 * clone_args.  @set_tid: the child's pid at each level, from its own
 * namespace outwards, for at most @set_tid_size levels (those not given
 * take the next number in cyclic order).
 */
struct rp_clone_args {
	uint64_t flags;			/* CLONE_*, no CSIGNAL bits */
	uint64_t exit_signal;		/* the parent's signal at the child's exit */
	const pid_t *set_tid;		/* NULL, or @set_tid_size numbers */
	size_t set_tid_size;		/* at most 32 (Linux's MAX_PID_NS_LEVEL) */
};

/*
 * clone3(2): rp_clone with @args (@size: sizeof(struct rp_clone_args),
 * -EINVAL if smaller, -E2BIG if larger and the bytes past it not zero).
 * EINVAL: CSIGNAL bits in @flags, a bad @exit_signal, @set_tid_size above
 * 32 or the child namespace's level + 1, @set_tid NULL with a size or
 * given with none, a number below 1 or at the level's pid_max or above, or
 * other than 1 in a namespace that has no init yet (a CLONE_NEWPID child's
 * own level); EPERM: a number given without CAP_SYS_ADMIN; EEXIST: a
 * number in use; ENOMEM: the namespace's init is gone (as rp_clone).
 * set_tid does not move ns_last_pid.  docs/namespaces.md.
 */
RP_API pid_t rp_clone3(struct rp_task *self, const struct rp_clone_args *args, size_t size,
		       struct rp_task **child);
RP_API pid_t rp_fork(struct rp_task *self, struct rp_task **child);

/* _exit(2) of one thread, and exit_group(2).  Return 0, or -ESRCH if @self
 * had already exited; the task is a zombie (or gone) afterwards.  With
 * PTRACE_O_TRACEEXIT they first sleep in the PTRACE_EVENT_EXIT stop. */
RP_API int rp_exit(struct rp_task *self, int status);
RP_API int rp_exit_group(struct rp_task *self, int status);

RP_API pid_t rp_wait4(struct rp_task *self, pid_t pid, int *wstatus, int options,
		      struct rusage *rusage);
RP_API int rp_waitid(struct rp_task *self, idtype_t idtype, id_t id, siginfo_t *info,
		     int options);

/* execve(2); @comm names the new program (the file is not read). */
RP_API int rp_execve(struct rp_task *self, const char *comm);

RP_API int rp_kill(struct rp_task *self, pid_t pid, int sig);
RP_API int rp_tgkill(struct rp_task *self, pid_t tgid, pid_t tid, int sig);
RP_API int rp_tkill(struct rp_task *self, pid_t tid, int sig);
RP_API int rp_rt_sigqueueinfo(struct rp_task *self, pid_t tgid, int sig, siginfo_t *info);
RP_API int rp_sigaction(struct rp_task *self, int sig, const struct sigaction *act,
			struct sigaction *oact);
RP_API int rp_sigprocmask(struct rp_task *self, int how, const sigset_t *set, sigset_t *oset);
RP_API int rp_sigpending(struct rp_task *self, sigset_t *set);

/*
 * The return-to-user point.  Dequeues the next unblocked signal and runs its
 * default action if it has no handler.  Returns:
 *	> 0	a signal with a handler: its number, and its siginfo in *@info;
 *	0	nothing left to deliver;
 *	-ESRCH	the task was killed (it is exiting or a zombie now).
 */
RP_API int rp_get_signal(struct rp_task *self, siginfo_t *info);

/*
 * ptrace(2): TRACEME, ATTACH, SEIZE, SETOPTIONS, GETEVENTMSG (data: an
 * unsigned long *), GETSIGINFO and SETSIGINFO (data: a siginfo_t *),
 * CONT, DETACH, KILL, INTERRUPT, LISTEN.  Event stops (fork, clone, exec)
 * are taken at the tracee's next rp_get_signal (docs/process.md, "ptrace").
 * May sleep: an attach to a stopped task, and a request on a tracee still
 * entering its stop, wait until it has trapped and told its tracer.
 */
RP_API long rp_ptrace(struct rp_task *self, long request, pid_t pid, void *addr, void *data);

/*
 * Pid namespaces (docs/namespaces.md).  unshare(2) with CLONE_NEWPID (the
 * only flag supported; 0 does nothing): @self stays where it is, its next
 * child is pid 1 of a new namespace below @self's.  EPERM without
 * CAP_SYS_ADMIN, EINVAL if @self unshared already and has no child since,
 * ENOSPC 32 levels down.
 */
RP_API int rp_unshare(struct rp_task *self, unsigned long flags);
/*
 * A handle of the pid namespace of the task @pid (as @self numbers it):
 * /proc/PID/ns/pid, or with @for_children nonzero /proc/PID/ns/
 * pid_for_children.  0 and the handle in *@ns, to give back with
 * rp_pidns_put; -ESRCH (no such task in @self's namespace), -EACCES
 * (another process's, without ptrace read access to it: CAP_SYS_PTRACE,
 * or its uid, euid and suid all @self's euid, its permitted capabilities
 * all among @self's effective ones, and dumpable), -ENOENT
 * (pid_for_children of a task that has exited).
 */
RP_API int rp_pidns_open(struct rp_task *self, pid_t pid, int for_children,
			 struct rp_pidns **ns);
RP_API void rp_pidns_put(struct rp_pidns *ns);
/*
 * setns(2) with a pid namespace handle (@nstype 0 or CLONE_NEWPID): @self's
 * next children go into @ns.  EINVAL if @ns is neither @self's namespace
 * nor below it, EPERM without CAP_SYS_ADMIN.
 */
RP_API int rp_setns(struct rp_task *self, struct rp_pidns *ns, int nstype);
/*
 * ioctl(fd, NS_GET_PARENT) on a pid namespace handle: 0 and the handle of
 * @ns's parent in *@parent (given back with rp_pidns_put), or -EPERM if
 * @ns is the root or its parent is above @self's namespace.  Two handles
 * held at once name one namespace if and only if they are equal.
 */
RP_API int rp_pidns_parent(struct rp_task *self, struct rp_pidns *ns, struct rp_pidns **parent);
/*
 * /proc/sys/kernel/pid_max and ns_last_pid of the namespace @ns, as @self
 * reads and writes them (Linux 6.14 and later: both per namespace).  A
 * new namespace starts with pid_max RP_PID_MAX_LIMIT, whatever its
 * parent's, and each level's numbers stay below that level's pid_max.
 * The setters return 0 or -EINVAL (@ns neither @self's namespace nor below
 * it, as setns; pid_max outside RP_PID_MAX_MIN..RP_PID_MAX_LIMIT;
 * ns_last_pid outside 0..pid_max), -EACCES (pid_max: neither euid 0 nor
 * CAP_SYS_ADMIN, the sysctl file's open) or -EPERM (ns_last_pid without
 * CAP_SYS_ADMIN).  The next fork in @ns after ns_last_pid N is numbered
 * N + 1 there if free.  rp_system_set_pid_max is the root's, without a
 * caller.
 */
RP_API int rp_pidns_pid_max(struct rp_pidns *ns);
RP_API int rp_pidns_set_pid_max(struct rp_task *self, struct rp_pidns *ns, int pid_max);
RP_API int rp_pidns_last_pid(struct rp_pidns *ns);
RP_API int rp_pidns_set_last_pid(struct rp_task *self, struct rp_pidns *ns, int last);

/*
 * Ids as @self's pid namespace numbers them: a parent outside it reads
 * as 0 (rp_getppid of a namespace's init).
 */
RP_API pid_t rp_getpid(struct rp_task *self);
RP_API pid_t rp_getppid(struct rp_task *self);
RP_API pid_t rp_gettid(struct rp_task *self);

/* PR_SET/GET_CHILD_SUBREAPER, PR_SET/GET_PDEATHSIG, PR_SET/GET_DUMPABLE. */
RP_API int rp_prctl(struct rp_task *self, int option, unsigned long arg2);

RP_API int rp_setuid(struct rp_task *self, uid_t uid);
RP_API int rp_setresuid(struct rp_task *self, uid_t ruid, uid_t euid, uid_t suid);
RP_API uid_t rp_getuid(struct rp_task *self);
RP_API uid_t rp_geteuid(struct rp_task *self);

/* Capabilities rcuproc checks (Linux numbering). */
#define RP_CAP_KILL		5
#define RP_CAP_SETUID		7
#define RP_CAP_SYS_PTRACE	19
#define RP_CAP_SYS_ADMIN	21
#define RP_CAP_SYS_NICE		23
#define RP_CAP_SYS_RESOURCE	24
#define RP_CAP_CHECKPOINT_RESTORE 40

/* Drop capability @cap from the calling thread's effective set: 0 or -EINVAL. */
RP_API int rp_cap_drop(struct rp_task *self, int cap);
/* 1 if the calling thread has @cap, 0 if not, -EINVAL for a bad number. */
RP_API int rp_cap_has(struct rp_task *self, int cap);

/* RLIMIT_NPROC and RLIMIT_SIGPENDING are enforced; others are stored. */
RP_API int rp_setrlimit(struct rp_task *self, int resource, const struct rlimit *rlim);
RP_API int rp_getrlimit(struct rp_task *self, int resource, struct rlimit *rlim);

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_PROC_H */
