/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid namespaces, replayed (docs/replay.md, "Pid namespaces").  strace's
 * own namespace is rcuproc's root: every recorded task is known by its
 * number there (the pid before each line), and has rcuproc's numbers at
 * every level down to its own.  A caller below the root names pids by
 * its namespace's numbers, which are compared as they are; strace's
 * --pidns-translation notes tell which task such a number was on Linux.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rcuproc/snapshot.h>
#include "replay.h"

/* Linux's MAX_PID_NS_LEVEL, plus the root. */
#define REPLAY_NS_LEVELS	33

/* The namespace of handle @h (taken over), known or recorded now. */
static struct replay_ns *ns_of_handle(struct replay_run *run, struct rp_pidns *h, int level)
{
	struct replay_ns *ns;
	struct rp_pidns *parent;

	for (int i = 0; i < run->nnss; i++) {
		if (run->nss[i]->handle == h) {
			rp_pidns_put(h);	/* two handles held at once: one namespace */
			return run->nss[i];
		}
	}
	ns = calloc(1, sizeof(*ns));
	run->nss = realloc(run->nss, (run->nnss + 1) * sizeof(*run->nss));
	if (!ns || !run->nss)
		abort();
	run->nss[run->nnss++] = ns;
	ns->handle = h;
	ns->level = level;
	if (level > 0 && rp_pidns_parent(run->init, h, &parent) == 0)
		ns->parent = ns_of_handle(run, parent, level - 1);
	return ns;
}

void replay_ns_setup(struct replay_run *run)
{
	struct rp_pidns *root;

	if (rp_pidns_open(run->init, rp_getpid(run->init), 0, &root))
		abort();
	run->root_ns = ns_of_handle(run, root, 0);
}

/*
 * Where @t, just cloned (the replay's only fork since), is: its number in
 * the root is the one the clone gave (run->place_root_nr), else the root
 * namespace's last number handed out, checked against its own number at
 * the end of its NSpid.
 */
void replay_place_task(struct replay_run *run, struct replay_task *t)
{
	pid_t nrs[REPLAY_NS_LEVELS], own = rp_gettid(t->task);
	pid_t root = run->place_root_nr ?: (pid_t)rp_pidns_last_pid(run->root_ns->handle);
	struct rp_pidns *h;
	int n = rp_proc_nspid(run->init, root, nrs, REPLAY_NS_LEVELS);

	run->place_root_nr = 0;
	if (n < 1 || nrs[n - 1] != own) {
		/* Not the last one made: a task of the root, numbered as it is. */
		root = own;
		n = rp_proc_nspid(run->init, root, nrs, REPLAY_NS_LEVELS);
	}
	if (n < 1 || rp_pidns_open(run->init, root, 0, &h)) {
		fprintf(stderr, "rcuproc replay: cannot place rcuproc task %d\n", own);
		abort();
	}
	t->nrs = malloc((size_t)n * sizeof(*t->nrs));
	if (!t->nrs)
		abort();
	memcpy(t->nrs, nrs, (size_t)n * sizeof(*t->nrs));
	t->nr = root;
	t->ns = ns_of_handle(run, h, n - 1);
}

pid_t replay_nr_in(const struct replay_task *t, const struct replay_ns *ns)
{
	const struct replay_ns *at = t->ns;

	if (!at || at->level < ns->level)
		return 0;
	while (at && at->level > ns->level)
		at = at->parent;
	return at == ns ? t->nrs[ns->level] : 0;
}

bool replay_nested(const struct replay_task *t)
{
	return t && t->ns && t->ns->level > 0;
}

pid_t replay_root_tgid(struct replay_run *run, const struct replay_task *t)
{
	pid_t tgid = rp_getpid(t->task);

	if (!replay_nested(t))
		return tgid;
	for (int i = 0; i < run->ntasks; i++)
		if (replay_nr_in(run->tasks[i], t->ns) == tgid)
			return run->tasks[i]->nr;
	return tgid;
}

void replay_refuse(struct replay_run *run, const struct replay_event *ev, const char *why)
{
	fprintf(stderr, "rcuproc replay: %s:%d: pid %d ", run->file, ev->line, ev->pid);
	replay_fputs_call(stderr, ev);
	fprintf(stderr, ": %s: the recording is refused\n", why);
	run->refused = true;
}

/* A user namespace maps uids and gids, which rcuproc does not model. */
static bool enters_user_namespace(struct replay_run *run, const struct replay_event *ev,
				  unsigned long flags)
{
	if (ev->ret < 0 || !(flags & CLONE_NEWUSER))
		return false;
	replay_refuse(run, ev, "enters a user namespace, whose uid and gid mapping rcuproc "
		      "does not model");
	return true;
}

bool replay_clone_refused(struct replay_run *run, struct replay_task *t,
			  const struct replay_event *ev, unsigned long flags)
{
	if (enters_user_namespace(run, ev, flags))
		return true;
	if (ev->ret <= 0 || ev->ret_root || !replay_nested(t))
		return false;
	replay_refuse(run, ev, "a child numbered in its parent's pid namespace with no note of "
		      "its number in strace's: record with strace --pidns-translation "
		      "(scripts/record.sh does)");
	return true;
}

/* The level of the namespace @h (a handle held), counted up to the root. */
static int level_of(struct replay_run *run, struct rp_pidns *h)
{
	struct rp_pidns *at = h, *up;
	int level = 0;

	while (at != run->root_ns->handle && rp_pidns_parent(run->init, at, &up) == 0) {
		if (at != h)
			rp_pidns_put(at);
		at = up;
		level++;
	}
	if (at != h)
		rp_pidns_put(at);
	return level;
}

/* The level @t's next child goes into (its pid_for_children), or -1. */
static int children_level(struct replay_run *run, struct replay_task *t)
{
	struct rp_pidns *h;
	int level;

	if (rp_pidns_open(t->task, rp_gettid(t->task), 1, &h))
		return -1;
	level = level_of(run, h);
	rp_pidns_put(h);
	return level;
}

/* Does rcuproc's root number @nr belong to no task the replay made? */
static bool root_nr_unused(struct replay_run *run, pid_t nr)
{
	if (nr == rp_getpid(run->init) || nr == rp_getpid(run->recorder))
		return false;
	for (int i = 0; i < run->ntasks; i++)
		if (run->tasks[i]->nr == nr)
			return false;
	return true;
}

int replay_set_tid(struct replay_run *run, struct replay_task *t, const struct replay_event *ev,
		   unsigned long flags, pid_t *tids)
{
	long size;
	int n = replay_field_pids(ev->args, "set_tid", tids, REPLAY_MAX_SET_TID), root;
	struct replay_task *named;

	run->place_root_nr = 0;
	if (!replay_field(ev->args, "set_tid_size", &size) || size <= 0)
		return 0;
	if (size >= REPLAY_MAX_SET_TID)
		return (int)size;	/* more than Linux's levels: rcuproc's EINVAL */
	if (size != n)
		return (int)replay_skip(run, ev, "set_tid's numbers are not all in the recording");
	/* set_tid[i] is the child's number i levels above its own. */
	root = children_level(run, t) + !!(flags & CLONE_NEWPID);
	if (root < 0 || root >= n)
		return n;	/* no number in strace's namespace: all compared as they are */
	/*
	 * strace's namespace is the machine's: a number of a task of the
	 * recording is that task's in rcuproc; any other is asked as it is,
	 * if no rcuproc task has it.  A number taken by a process outside the
	 * recording is the machine's answer, not the program's.
	 */
	named = replay_task_of(run, tids[root]);
	if (tids[root] == run->recorder_rec)
		tids[root] = rp_getpid(run->recorder);
	else if (named && named->task)
		tids[root] = named->nr;
	else if (ev->ret == -EEXIST)
		return (int)replay_skip(run, ev, "set_tid asks for a number of strace's pid "
					"namespace that a process outside the recording may "
					"hold: the machine's answer");
	else if (!root_nr_unused(run, tids[root])) {
		replay_refuse(run, ev, "set_tid asks for a number of strace's pid namespace that "
			      "rcuproc gave a task of the replay already");
		return (int)REPLAY_SKIPPED;
	}
	run->place_root_nr = tids[root];
	return n;
}

static long call_unshare(struct replay_run *run, struct replay_task *t,
			 const struct replay_event *ev)
{
	unsigned long flags = (unsigned long)replay_arg(ev, 0);

	if (enters_user_namespace(run, ev, flags))
		return REPLAY_SKIPPED;
	/* Other namespace types change nothing in the process table. */
	return rp_unshare(t->task, flags & CLONE_NEWPID);
}

/*
 * A namespace file the recording opened, by the opener's group and the
 * descriptor, held until the replay ends.  Descriptors are not modelled:
 * close is not recorded, so the last open of a descriptor names it.
 */
static void note_fd(struct replay_run *run, struct replay_task *t, long fd, struct rp_pidns *h,
		    struct replay_task *target)
{
	struct replay_nsfd *f;

	run->nsfds = realloc(run->nsfds, (run->nnsfds + 1) * sizeof(*run->nsfds));
	if (!run->nsfds)
		abort();
	f = &run->nsfds[run->nnsfds++];
	f->tgid = replay_root_tgid(run, t);
	f->fd = fd;
	f->handle = h;
	f->target = target;
}

/* The namespace descriptor or pidfd @fd of @t's process, or else of the
 * last process that opened it (a child inherits its parent's). */
static struct replay_nsfd *fd_of(struct replay_run *run, struct replay_task *t, long fd)
{
	pid_t tgid = replay_root_tgid(run, t);
	struct replay_nsfd *any = NULL;

	for (int i = run->nnsfds - 1; i >= 0; i--) {
		if (run->nsfds[i].fd != fd)
			continue;
		if (run->nsfds[i].tgid == tgid)
			return &run->nsfds[i];
		if (!any)
			any = &run->nsfds[i];
	}
	return any;
}

/*
 * openat of /proc/PID/ns/pid or pid_for_children (or /proc/self/...):
 * rcuproc's rp_pidns_open, compared by its success or errno.  The
 * recorder traces openat for these alone (scripts/record.sh).
 */
static long call_openat(struct replay_run *run, struct replay_task *t,
			const struct replay_event *ev)
{
	char path[64], which[24];
	struct rp_pidns *h;
	long pid;
	int used = 0, err;

	if (ev->argc < 2 || strlen(ev->argv[1]) >= sizeof(path))
		return replay_skip(run, ev, "a file outside the process table");
	if (sscanf(ev->argv[1], "\"/proc/self/ns/%23[a-z_]\"%n", which, &used) == 1 && used)
		pid = rp_getpid(t->task);
	else if (sscanf(ev->argv[1], "\"/proc/thread-self/ns/%23[a-z_]\"%n", which, &used) == 1 &&
		 used)
		pid = rp_gettid(t->task);
	else if (sscanf(ev->argv[1], "\"/proc/%ld/ns/%23[a-z_]\"%n", &pid, which, &used) == 2 && used)
		pid = replay_nested(t) ? -1 : replay_pid_to_sim(run, t, pid, 0);
	else
		return replay_skip(run, ev, "a file outside the process table");
	if (strcmp(which, "pid") && strcmp(which, "pid_for_children"))
		return replay_skip(run, ev, "a namespace of a type rcuproc does not model");
	if (pid < 0 && ev->ret >= 0) {
		replay_refuse(run, ev, "opens a task's namespace under /proc from inside a pid "
			      "namespace: which namespace that /proc numbers is not recorded");
		return REPLAY_SKIPPED;
	}
	if (pid < 0)
		return replay_skip(run, ev, "a failed open under /proc from inside a pid namespace");
	err = rp_pidns_open(t->task, (pid_t)pid, !strcmp(which, "pid_for_children"), &h);
	if (err == -ESRCH)
		return -ENOENT;		/* no /proc/PID directory */
	if (err)
		return err;
	if (ev->ret < 0) {
		rp_pidns_put(h);
		return 0;		/* rcuproc opened it: a mismatch */
	}
	note_fd(run, t, ev->ret, h, NULL);
	return ev->ret;		/* the descriptor: the file system's number */
}

/* The namespace types setns knows (Linux's CLONE_NEW* bits). */
#define NAMESPACE_TYPES	(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
			 CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

/*
 * setns on a pidfd enters the namespaces of the process it names, those
 * @nstype picks (none: EINVAL); the pid namespace is the process's own,
 * as of the pidfd_open call (a task's never changes), and a process that
 * has exited has none left (ESRCH).
 */
static long setns_pidfd(struct replay_task *t, const struct replay_nsfd *f, long nstype)
{
	if (!nstype || (nstype & ~(long)NAMESPACE_TYPES))
		return -EINVAL;
	if (f->target->dead)
		return -ESRCH;
	return rp_setns(t->task, f->handle, CLONE_NEWPID);
}

static long call_setns(struct replay_run *run, struct replay_task *t,
		       const struct replay_event *ev)
{
	long nstype = replay_arg(ev, 1);
	struct replay_nsfd *f = fd_of(run, t, replay_arg(ev, 0));

	if (enters_user_namespace(run, ev, (unsigned long)nstype))
		return REPLAY_SKIPPED;
	if (f && f->target && (!nstype || (nstype & CLONE_NEWPID)))
		return setns_pidfd(t, f, nstype);
	if (nstype && !(nstype & CLONE_NEWPID))
		return replay_skip(run, ev, "a namespace of a type rcuproc does not model");
	if (f)
		return rp_setns(t->task, f->handle, (int)nstype);
	if (ev->ret < 0)
		return replay_skip(run, ev, "a failed setns on a file the recording did not open");
	replay_refuse(run, ev, "enters the pid namespace of a file the recording did not show "
		      "opened (an openat of /proc/PID/ns/pid or pid_for_children, or a pidfd_open)");
	return REPLAY_SKIPPED;
}

/* Linux's pidfd_open flags: PIDFD_NONBLOCK (O_NONBLOCK), PIDFD_THREAD (O_EXCL). */
#define PIDFD_FLAGS	(O_NONBLOCK | O_EXCL)

/* The task @t names @nr, noted as strace's @root: the newest such. */
static struct replay_task *task_named(struct replay_run *run, struct replay_task *t, pid_t nr,
				      long root)
{
	if (root)
		return replay_task_of(run, (pid_t)root);
	for (int i = run->ntasks - 1; i >= 0; i--)
		if (run->tasks[i]->task && !run->tasks[i]->superseded &&
		    replay_nr_in(run->tasks[i], t->ns) == nr)
			return run->tasks[i];
	return NULL;
}

/*
 * pidfd_open: a descriptor naming a process.  rcuproc has no such
 * handle: replay keeps the process and, for setns, a handle of its pid
 * namespace taken now (rp_pidns_open; docs/replay.md, "Pidfds").
 */
static long call_pidfd_open(struct replay_run *run, struct replay_task *t,
			    const struct replay_event *ev)
{
	long flags = replay_arg(ev, 1);
	pid_t nr = replay_pid_arg(run, t, ev, 0);
	struct replay_task *target;
	struct rp_pidns *h;
	int err;

	if (replay_arg(ev, 0) <= 0 || (flags & ~(long)PIDFD_FLAGS))
		return -EINVAL;
	err = rp_pidns_open(t->task, nr, 0, &h);
	if (err == -EACCES)
		return replay_skip(run, ev, "rcuproc's handle asks for ptrace access, which "
				   "pidfd_open does not");
	if (err)
		return err;
	target = task_named(run, t, nr, ev->argc ? replay_ns_note(ev->argv[0]) : 0);
	if (!target || (!(flags & O_EXCL) && replay_root_tgid(run, target) != target->nr)) {
		rp_pidns_put(h);
		return target ? -EINVAL : replay_skip(run, ev, "a process outside the recording");
	}
	if (ev->ret < 0) {
		rp_pidns_put(h);
		return 0;		/* rcuproc found it: a mismatch */
	}
	note_fd(run, t, ev->ret, h, target);
	return ev->ret;		/* the descriptor: the file system's number */
}

struct replay_task *replay_pidfd_target(struct replay_run *run, struct replay_task *t, long fd)
{
	struct replay_nsfd *f = fd_of(run, t, fd);

	return f ? f->target : NULL;
}

/* pidfd_send_signal with no siginfo and no flags: kill(2) of the process. */
static long call_pidfd_send_signal(struct replay_run *run, struct replay_task *t,
				   const struct replay_event *ev)
{
	struct replay_task *target = replay_pidfd_target(run, t, replay_arg(ev, 0));
	pid_t nr;

	if (!target)
		return replay_skip(run, ev, "a descriptor the recording did not show opened by "
				   "pidfd_open");
	if (ev->argc < 4 || strcmp(ev->argv[2], "NULL") || replay_arg(ev, 3))
		return replay_skip(run, ev, "a siginfo or flags of pidfd_send_signal, not modelled");
	nr = replay_nr_in(target, t->ns);
	if (!nr)
		return -EINVAL;		/* a process outside the caller's namespace */
	return rp_kill(t->task, nr, (int)replay_arg(ev, 1));
}

static long call_getpid(struct replay_run *run, struct replay_task *t,
			const struct replay_event *ev)
{
	(void)run;
	(void)ev;
	return rp_getpid(t->task);
}

static long call_gettid(struct replay_run *run, struct replay_task *t,
			const struct replay_event *ev)
{
	(void)run;
	(void)ev;
	return rp_gettid(t->task);
}

const struct replay_call_def replay_ns_calls[] = {
	{ "unshare", call_unshare, false, false },
	{ "setns", call_setns, false, false },
	{ "openat", call_openat, false, false },
	{ "pidfd_open", call_pidfd_open, false, false },
	{ "pidfd_send_signal", call_pidfd_send_signal, false, false },
	{ "getpid", call_getpid, true, false },
	{ "gettid", call_gettid, true, false },
	{ 0 },
};

void replay_ns_teardown(struct replay_run *run)
{
	for (int i = 0; i < run->nnsfds; i++)
		rp_pidns_put(run->nsfds[i].handle);
	for (int i = 0; i < run->nnss; i++) {
		rp_pidns_put(run->nss[i]->handle);
		free(run->nss[i]);
	}
	free(run->nsfds);
	free(run->nss);
}
