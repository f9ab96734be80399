/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ptrace attach and detach under the update gate shared (docs/process.md,
 * protocol (f)): two attaches that make one task's ptrace part at once, an
 * attach against a plain exit of its tracee, a detach whose tracee's real
 * parent gives it away meanwhile, a threaded tracee's attach and detach
 * under G of its group, which a thread's plain exit waits for, and
 * PTRACE_TRACEME under T of the real parent, which its exit waits for.
 * The other requests (ptrace_requests) under the gate shared and T of the
 * tracer: beside a shared holder, and held between their check of the
 * link and their change while the tracee is killed, while it exits, and
 * while the tracer detaches it from another thread.
 */
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "../fixture/puppet.h"
#include "../fixture/racehold.h"
#include "../fixture/racenote.h"

static int returned[2];		/* uatomic: the request of job ->arg returned */
static void *request_data[2];	/* the data of the request of job ->arg */

/* Arm @where for @at (held, online: in a read section) with note_hook. */
/*
 * Has @t told of the ptrace stop it is in (RP_JOBCTL_TRAPPING clear)?  Its
 * tracer's wait reports the stop before that, and a request made then
 * answers "still telling", waits and starts again from its lookup: a
 * request held at a race point on its first pass must come after it.
 */
static bool stop_told(struct rp_task *t)
{
	return !(CMM_LOAD_SHARED(t->jobctl) & RP_JOBCTL_TRAPPING);
}

static void arm_noting(enum rp_race_point where, struct rp_task *at)
{
	uatomic_set(&excl_waits, 0);
	uatomic_set(&tree_waits, 0);
	uatomic_set(&returned[0], 0);
	uatomic_set(&returned[1], 0);
	race_count_jobs();
	arm(where, at, true, false);
	rp_debug_race_hook(note_hook);
}

/* Until a taker of T of tree_of or of the gate exclusive waits, or the request of job @arg returned. */
static void await_wait_or_return(long arg)
{
	while (!uatomic_read(&tree_waits) && !uatomic_read(&excl_waits) &&
	       !uatomic_read(&returned[arg]))
		usleep(1000);
}

static long request_job(struct job *j)
{
	long ret = rp_ptrace(j->t, j->sig, j->pid, NULL, request_data[j->arg]);

	uatomic_set(&returned[j->arg], 1);
	return ret;
}

/* ptrace(@request, @pid) as @t, on job @j, noted in returned[@arg]. */
static void start_request(struct job *j, struct rp_task *t, long request, pid_t pid, long arg)
{
	j->sig = (int)request;
	j->pid = pid;
	j->arg = arg;
	job_start(j, request_job, t);
}

static long exit_job(struct job *j)
{
	return rp_exit_group(j->t, 0);
}

static long signal_job(struct job *j)
{
	return rp_get_signal(j->t, NULL);
}

static long subreaper_job(struct job *j)
{
	return rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
}

/* Is @tracee's entry on @tracer's list of tracees? */
static bool on_tracer_list(struct rp_task *tracer, struct rp_task *tracee)
{
	struct rp_ptrace_part *pt;

	cds_list_for_each_entry(pt, &tracer->ptrace_part->ptraced, entry.node)
		if (pt->task == tracee)
			return true;
	return false;
}

/*
 * X seizes Y, held after it set up a part for Y and before publishing it;
 * Y, which has none yet either, seizes its own child Z meanwhile: both
 * under the gate shared, with no tree lock in common (T of X and init;
 * T of Y).  Y's part, published by Y's seize with Z on it, stays: X's
 * compare-and-swap loses and X links Y on Y's part.
 * RP_BREAK_PTRACE_PART_STORE publishes X's part over it: Z is lost from
 * Y's list.
 */
Test(ptrace_shared, part_made_once)
{
	struct rp_task *x, *y, *z;
	struct job jx, jy;

	start(RP_SYNC_RCU);
	x = spawn(init, SIGCHLD);
	y = spawn(init, SIGCHLD);
	z = spawn(y, SIGCHLD);
	arm_noting(RP_RACE_PTRACE_PART, y);
	start_request(&jx, x, PTRACE_SEIZE, rp_getpid(y), 0);
	cr_assert(await_reached(1), "the seize made no part for its tracee");
	start_request(&jy, y, PTRACE_SEIZE, rp_getpid(z), 1);
	await_wait_or_return(1);
	cr_expect(uatomic_read(&returned[1]), "an attach waited for another attach");
	release();
	cr_assert_eq(job_join(&jx), 0);
	cr_assert_eq(job_join(&jy), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(y->ptrace_part->task, y);
	cr_assert_eq(y->ptrace_part->entry.owner, x);
	cr_assert(on_tracer_list(x, y));
	cr_assert(on_tracer_list(y, z), "Y's tracee was lost with the part it was linked on");
	cr_assert_eq(z->parent, y);
	end_child(init, x);	/* Y untraced */
	end_child(init, y);	/* Z untraced, init's child */
	end_child(init, z);
	finish_all_reaped();
}

/*
 * C, init's child with a child of its own, exits plainly and is held
 * after it judged itself untraced, holding T of itself, of init (its
 * parent) and of init again (its children's reaper).  X's seize of C
 * needs T of C's real parent, init: it waits, and then finds C a zombie
 * (EPERM).  RP_BREAK_PTRACE_PARENT_UNLOCKED takes only X's T: the seize
 * links C while its exit goes on as an untraced one's.
 */
Test(ptrace_shared, attach_waits_for_plain_exit)
{
	struct rp_task *c, *g, *x;
	struct job je, jx;
	int status = -1;
	pid_t cpid;

	start(RP_SYNC_RCU);
	c = spawn(init, SIGCHLD);
	g = spawn(c, SIGCHLD);
	x = spawn(init, SIGCHLD);
	cpid = rp_getpid(c);
	CMM_STORE_SHARED(tree_of, init);
	arm_noting(RP_RACE_EXIT_CHILDREN_CHECKED, c);
	job_start(&je, exit_job, c);
	cr_assert(await_reached(1), "the exit was not a plain one with children");
	start_request(&jx, x, PTRACE_SEIZE, cpid, 0);
	await_wait_or_return(0);
	cr_assert_not(uatomic_read(&returned[0]),
		      "a seize answered while its tracee's plain exit held its parent's T (%ld)",
		      job_join(&jx));
	release();
	cr_assert_eq(job_join(&je), 0);
	cr_assert_eq(job_join(&jx), -EPERM, "a seize linked a zombie");
	rp_debug_race_hook(NULL);
	CMM_STORE_SHARED(tree_of, NULL);
	cr_assert_eq(rp_wait4(init, cpid, &status, 0, NULL), cpid);
	cr_assert_eq(status, EXITED(0));
	cr_assert_eq(g->real_parent, init);
	end_child(init, g);
	end_child(init, x);
	rp_task_put(c);
	finish_all_reaped();
}

/*
 * C, P's child, stopped by X's PTRACE_ATTACH; X's detach of C is held
 * after it read C's real parent, P, before P's T.  P exits plainly and
 * gives C to init.  The detach reads the real parent again under its T
 * and gives C back to init.  RP_BREAK_PTRACE_NO_PARENT_RECHECK gives C
 * back to P, exited, whose wait will never come.
 */
Test(ptrace_shared, detach_rereads_real_parent)
{
	struct rp_task *p, *c, *x;
	struct job jc, jd;
	pid_t ppid, cpid;
	int status = -1;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	c = spawn(p, SIGCHLD);
	x = spawn(init, SIGCHLD);
	ppid = rp_getpid(p);
	cpid = rp_getpid(c);
	cr_assert_eq(rp_ptrace(x, PTRACE_ATTACH, cpid, NULL, NULL), 0);
	job_start(&jc, signal_job, c);	/* takes the SIGSTOP: a ptrace stop */
	cr_assert_eq(rp_wait4(x, cpid, &status, __WALL, NULL), cpid);
	cr_assert_eq(status, STOPPED_BY(SIGSTOP));
	await_task(stop_told, c);
	arm_noting(RP_RACE_PTRACE_LINK_PARENT, c);
	start_request(&jd, x, PTRACE_DETACH, cpid, 0);
	cr_assert(await_reached(1), "the detach read no real parent");
	cr_assert_eq(rp_exit_group(p, 0), 0);
	cr_assert_eq(c->real_parent, init, "P's exit did not give C to init");
	release();
	cr_assert_eq(job_join(&jd), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(c->ptrace, 0u);
	cr_assert_eq(c->parent, init, "the detach gave C back to a parent that gave it away");
	cr_assert_eq(job_join(&jc), 0);
	cr_assert_eq(rp_wait4(init, ppid, &status, 0, NULL), ppid);
	rp_task_put(p);
	end_child(init, c);
	end_child(init, x);
	finish_all_reaped();
}

/*
 * X's @request of @pid beside a shared holder, a subreaper walk held once
 * it marked W's child K: did it return while the walk was held (an
 * exclusive taker waits for it)?  Its answer in *@ret.
 */
static bool request_beside_walk(struct rp_task *x, long request, pid_t pid, long *ret)
{
	struct rp_task *w = fork_of(init), *k = fork_of(w);
	struct job jw, jx;
	bool done;

	arm_noting(RP_RACE_SUBREAPER_WALK, k);
	job_start(&jw, subreaper_job, w);
	cr_assert(await_reached(1), "the walk did not reach W's child");
	start_request(&jx, x, request, pid, 0);
	await_wait_or_return(0);
	done = uatomic_read(&returned[0]);
	release();
	cr_assert_eq(job_join(&jw), 0);
	*ret = job_join(&jx);
	rp_debug_race_hook(NULL);
	end_child(w, k);
	end_child(init, w);
	return done;
}

/*
 * X's attach of @t (@tid), its ptrace stop taken by job @jt, and X's
 * detach, each done beside a shared holder (@what: the tracee).
 */
static void attach_detach_beside_walk(struct rp_task *x, struct rp_task *t, pid_t tid,
				      const char *what)
{
	int status = -1;
	struct job jt;
	long ret;

	cr_expect(request_beside_walk(x, PTRACE_ATTACH, tid, &ret),
		  "an attach of %s waited for a shared holder", what);
	cr_assert_eq(ret, 0);
	cr_assert_eq(t->parent, x);
	job_start(&jt, signal_job, t);	/* takes the SIGSTOP: a ptrace stop */
	cr_assert_eq(rp_wait4(x, tid, &status, __WALL, NULL), tid);
	cr_assert_eq(status, STOPPED_BY(SIGSTOP));
	cr_expect(request_beside_walk(x, PTRACE_DETACH, tid, &ret),
		  "a detach of %s waited for a shared holder", what);
	cr_assert_eq(ret, 0);
	cr_assert_eq(job_join(&jt), 0);
	cr_assert_eq(t->ptrace, 0u);
	cr_assert_eq(t->parent, init);
}

/*
 * A one-thread tracee's attach and detach run under the gate shared: each
 * is done beside a shared holder, which an exclusive taker waits for.
 */
Test(ptrace_shared, attach_detach_beside_a_shared_holder)
{
	struct rp_task *q, *x;

	start(RP_SYNC_RCU);
	q = spawn(init, SIGCHLD);
	x = spawn(init, SIGCHLD);
	attach_detach_beside_walk(x, q, rp_getpid(q), "a one-thread tracee");
	end_child(init, x);
	end_child(init, q);
	finish_all_reaped();
}

/*
 * The threaded tracee's set-up: Q, init's child, returned, with a second
 * thread *@q2 (its tid in *@tid); X, init's child (*@x), its tracer.
 */
static struct rp_task *threaded_tracee(struct rp_task **q2, pid_t *tid, struct rp_task **x)
{
	struct rp_task *q;

	start(RP_SYNC_RCU);
	q = spawn(init, SIGCHLD);
	*q2 = thread_of(q);
	*x = spawn(init, SIGCHLD);
	*tid = rp_gettid(*q2);
	return q;
}

/*
 * A tracee of two threads, its second thread and its leader: each one's
 * attach and detach hold G of the group, not the gate exclusive, and are
 * done beside a shared holder.  Then the second thread's PTRACE_TRACEME,
 * under the gate shared and T of its real parent, init, is done there
 * too; traced, its exit leaves a zombie for init, its tracer.
 */
Test(ptrace_shared, threaded_tracee_beside_a_shared_holder)
{
	struct rp_task *q, *q2, *x;
	int status = -1;
	pid_t tid;
	long ret;

	q = threaded_tracee(&q2, &tid, &x);
	attach_detach_beside_walk(x, q2, tid, "a second thread");
	attach_detach_beside_walk(x, q, rp_getpid(q), "a leader with another thread");
	cr_expect(request_beside_walk(q2, PTRACE_TRACEME, 0, &ret),
		  "a TRACEME waited for a shared holder");
	cr_assert_eq(ret, 0);
	cr_assert_eq(q2->parent, init);
	cr_assert_eq(q2->ptrace, (unsigned int)RP_PT_PTRACED);
	cr_assert_eq(rp_ptrace(q2, PTRACE_TRACEME, 0, NULL, NULL), -EPERM);
	end_task(q2);
	cr_assert_eq(rp_wait4(init, tid, &status, __WALL, NULL), tid);
	cr_assert_eq(status, EXITED(0));
	end_child(init, x);
	end_child(init, q);
	finish_all_reaped();
}

static int group_waits;			/* uatomic: a writer waits for G of group_of */
static struct rp_task *group_of;
static int exited;			/* uatomic: exit_noted_job returned */

/* note_hook, and a wait for G of group_of's process noted in group_waits. */
static void group_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_GROUP_WAITS && t == CMM_LOAD_SHARED(group_of))
		uatomic_set(&group_waits, 1);
	else
		note_hook(where, t);
}

/* @j->arg: the thread alone exits (its process lives on), else its process. */
static long exit_noted_job(struct job *j)
{
	long ret = j->arg ? rp_exit(j->t, 0) : rp_exit_group(j->t, 0);

	uatomic_set(&exited, 1);
	return ret;
}

/*
 * @who's ptrace(@request, @pid) held in its link, at the first part of
 * @tracer (RP_RACE_PTRACE_PART), while @exiter exits (@thread: the thread
 * alone): the exit must wait for a lock the request holds (*@waits) and
 * not be done meanwhile.  Both answer 0.
 */
static void exit_beside_held_link(struct rp_task *who, long request, pid_t pid,
				  struct rp_task *tracer, struct rp_task *exiter, bool thread,
				  int *waits)
{
	struct job jr, je = { .arg = thread };

	uatomic_set(&group_waits, 0);
	uatomic_set(&exited, 0);
	arm_noting(RP_RACE_PTRACE_PART, tracer);
	rp_debug_race_hook(group_hook);
	start_request(&jr, who, request, pid, 0);
	cr_assert(await_reached(1), "request %ld made no part for its tracer", request);
	job_start(&je, exit_noted_job, exiter);
	while (!uatomic_read(waits) && !uatomic_read(&exited))
		usleep(1000);
	cr_assert_not(uatomic_read(&exited), "an exit was done while request %ld linked", request);
	release();
	cr_assert_eq(job_join(&jr), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
}

/*
 * X seizes Q2, the second thread of Q, and is held in the seize's link,
 * before it makes its own ptrace part, holding G of Q's group.  Q2's exit
 * would be a plain thread's, which judges itself untraced under G: it
 * waits for G, and then finds itself traced (the gate exclusive) and
 * stays a zombie for X to reap.  RP_BREAK_PTRACE_THREAD_UNGROUPED takes
 * no G: Q2 exits untraced and is released while the seize links it.
 */
Test(ptrace_shared, thread_exit_waits_for_attach)
{
	struct rp_task *q, *q2, *x;
	int status = -1;
	pid_t tid;

	q = threaded_tracee(&q2, &tid, &x);
	CMM_STORE_SHARED(group_of, q);
	exit_beside_held_link(x, PTRACE_SEIZE, tid, x, q2, true, &group_waits);
	CMM_STORE_SHARED(group_of, NULL);
	cr_assert_eq(rp_wait4(x, tid, &status, __WALL, NULL), tid);
	cr_assert_eq(status, EXITED(0));
	rp_task_put(q2);
	end_child(init, x);
	end_child(init, q);
	finish_all_reaped();
}

/*
 * C's PTRACE_TRACEME is held in its link, before it makes the ptrace
 * part of P, its real parent, holding T of P.  P's exit would be plain:
 * it waits for T of P, and then finds itself a tracer, takes the gate
 * exclusive, detaches C and gives it to init.
 * RP_BREAK_PTRACE_PARENT_UNLOCKED takes no T of P: P's plain exit judges
 * itself no tracer and ends while the TRACEME links C to it.
 */
Test(ptrace_shared, parent_exit_waits_for_traceme)
{
	struct rp_task *p, *c;
	int status = -1;
	pid_t ppid;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	c = spawn(p, SIGCHLD);
	ppid = rp_getpid(p);
	CMM_STORE_SHARED(tree_of, p);
	exit_beside_held_link(c, PTRACE_TRACEME, 0, p, p, false, &tree_waits);
	CMM_STORE_SHARED(tree_of, NULL);
	cr_assert_eq(rp_wait4(init, ppid, &status, 0, NULL), ppid);
	cr_assert_eq(status, EXITED(0));
	cr_assert_eq(c->ptrace, 0u);
	cr_assert_eq(c->parent, init);
	cr_assert_eq(c->real_parent, init);
	end_child(init, c);
	rp_task_put(p);
	finish_all_reaped();
}

/*
 * C, a new child of @x, in the ptrace stop of the SIGSTOP that X's
 * PTRACE_ATTACH sends, taken by job @jc, reported to X.
 */
static struct rp_task *stopped_child(struct rp_task *x, struct job *jc)
{
	struct rp_task *c = spawn(x, SIGCHLD);
	pid_t cpid = rp_getpid(c);
	int status = -1;

	cr_assert_eq(rp_ptrace(x, PTRACE_ATTACH, cpid, NULL, NULL), 0);
	job_start(jc, signal_job, c);
	cr_assert_eq(rp_wait4(x, cpid, &status, __WALL, NULL), cpid);
	cr_assert_eq(status, STOPPED_BY(SIGSTOP));
	await_task(stop_told, c);
	return c;
}

/* X's @request (@what) of @pid with @data is done beside a shared holder, and answers 0. */
static void done_beside_walk(struct rp_task *x, long request, pid_t pid, void *data,
			     const char *what)
{
	long ret;

	request_data[0] = data;
	cr_expect(request_beside_walk(x, request, pid, &ret), "%s waited for a shared holder",
		  what);
	cr_assert_eq(ret, 0, "%s answered %ld", what, ret);
}

/*
 * The requests on a stopped one-thread tracee run under the gate shared:
 * each is done beside a shared holder, which an exclusive taker waits
 * for, and answers as before.
 */
Test(ptrace_requests, beside_a_shared_holder)
{
	struct rp_task *x, *c;
	unsigned long msg = 1;
	siginfo_t info;
	struct job jc;
	pid_t cpid;

	start(RP_SYNC_RCU);
	x = spawn(init, SIGCHLD);
	c = stopped_child(x, &jc);
	cpid = rp_getpid(c);
	done_beside_walk(x, PTRACE_GETEVENTMSG, cpid, &msg, "GETEVENTMSG");
	cr_assert_eq(msg, 0ul, "a signal's stop has no event message");
	done_beside_walk(x, PTRACE_SETOPTIONS, cpid, (void *)PTRACE_O_TRACEEXEC, "SETOPTIONS");
	cr_assert(c->ptrace & RP_PT_EVENT_FLAG(PTRACE_EVENT_EXEC));
	done_beside_walk(x, PTRACE_GETSIGINFO, cpid, &info, "GETSIGINFO");
	cr_assert_eq(info.si_signo, SIGSTOP);
	done_beside_walk(x, PTRACE_CONT, cpid, NULL, "CONT");
	cr_assert_eq(job_join(&jc), 0, "the tracee did not resume with no signal");
	end_child(x, c);
	end_child(init, x);
	finish_all_reaped();
}

/*
 * A tracee of two threads: a request writes no link, and keeps the gate
 * shared.  X seizes Q (under G of its group: a threaded tracee's attach); its
 * PTRACE_INTERRUPT and, in the trap, its GETEVENTMSG are done beside a
 * shared holder.
 */
Test(ptrace_requests, threaded_tracee_shared)
{
	struct rp_task *x, *q, *q2;
	unsigned long msg = 1;
	int status = -1;
	struct job jq;
	pid_t qpid;

	start(RP_SYNC_RCU);
	x = spawn(init, SIGCHLD);
	q = spawn(x, SIGCHLD);
	q2 = thread_of(q);
	qpid = rp_getpid(q);
	cr_assert_eq(rp_ptrace(x, PTRACE_SEIZE, qpid, NULL, NULL), 0);
	done_beside_walk(x, PTRACE_INTERRUPT, qpid, NULL, "INTERRUPT of a threaded tracee");
	job_start(&jq, signal_job, q);	/* takes the trap */
	cr_assert_eq(rp_wait4(x, qpid, &status, __WALL, NULL), qpid);
	cr_assert_eq(status, ((SIGTRAP | (PTRACE_EVENT_STOP << 8)) << 8) | 0x7f);
	done_beside_walk(x, PTRACE_GETEVENTMSG, qpid, &msg, "GETEVENTMSG of a threaded tracee");
	cr_assert_eq(rp_ptrace(x, PTRACE_DETACH, qpid, NULL, NULL), 0);
	cr_assert_eq(job_join(&jq), 0);
	end_task(q2);
	end_child(x, q);
	end_child(init, x);
	finish_all_reaped();
}

/* X reaps C (pid @cpid), its child and tracee, killed by SIGKILL. */
static void reap_killed(struct rp_task *x, struct rp_task *c, pid_t cpid)
{
	int status = -1;

	cr_assert_eq(rp_wait4(x, cpid, &status, __WALL, NULL), cpid);
	cr_assert_eq(status, KILLED_BY(SIGKILL));
	rp_task_put(c);
}

/*
 * X's PTRACE_CONT of C, stopped, is held after it found C its tracee and
 * before it checked C's stop; C is killed meanwhile.  The stop is checked
 * in the siglock's hold that makes the change, which sees the kill:
 * ESRCH, as Linux's ptrace_freeze_traced for a fatal signal.
 * RP_BREAK_PTRACE_UNFROZEN checked the stop before the hold and resumes
 * a killed tracee (0).
 */
Test(ptrace_requests, tracee_killed_in_the_window)
{
	struct rp_task *x, *c;
	struct job jc, jr;
	pid_t cpid;

	start(RP_SYNC_RCU);
	x = spawn(init, SIGCHLD);
	c = stopped_child(x, &jc);
	cpid = rp_getpid(c);
	request_data[0] = (void *)(intptr_t)SIGUSR1;
	arm_noting(RP_RACE_PTRACE_REQUEST, c);
	start_request(&jr, x, PTRACE_CONT, cpid, 0);
	cr_assert(await_reached(1), "the CONT did not find its tracee");
	cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
	release();
	cr_assert_eq(job_join(&jr), -ESRCH, "a CONT resumed a killed tracee");
	rp_debug_race_hook(NULL);
	job_join(&jc);		/* it left its stop and exited */
	reap_killed(x, c, cpid);
	end_child(init, x);
	finish_all_reaped();
}

/*
 * X's PTRACE_GETSIGINFO of C, stopped, is held after it found C its
 * tracee; C is killed, leaves its stop, whose siginfo lived in its frame,
 * and exits until it waits for the request's locks (T of X, its parent
 * and tracer, or the gate exclusive: a traced exit).  The request then
 * sees no stop (ESRCH) and copies nothing; the exit completes after it.
 * RP_BREAK_PTRACE_UNFROZEN checked the stop before the hold and finds no
 * siginfo (EINVAL).
 */
Test(ptrace_requests, tracee_exits_in_the_window)
{
	struct rp_task *x, *c;
	struct job jc, jr;
	siginfo_t info;
	pid_t cpid;

	start(RP_SYNC_RCU);
	x = spawn(init, SIGCHLD);
	c = stopped_child(x, &jc);
	cpid = rp_getpid(c);
	memset(&info, 0x5a, sizeof(info));
	request_data[0] = &info;
	CMM_STORE_SHARED(tree_of, x);
	arm_noting(RP_RACE_PTRACE_REQUEST, c);
	start_request(&jr, x, PTRACE_GETSIGINFO, cpid, 0);
	cr_assert(await_reached(1), "the GETSIGINFO did not find its tracee");
	cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
	await_wait_or_return(0);
	cr_assert_not(uatomic_read(&returned[0]), "the held request returned");
	cr_assert_eq(c->jobctl & RP_JOBCTL_TRACED, 0u, "the tracee did not leave its stop");
	cr_assert_eq(uatomic_read(&c->exit_state), 0, "the tracee's exit did not wait");
	release();
	cr_assert_eq(job_join(&jr), -ESRCH, "a GETSIGINFO read a stop that was over");
	cr_assert_eq(info.si_signo, 0x5a5a5a5a, "a GETSIGINFO copied a siginfo of a stop that was over");
	rp_debug_race_hook(NULL);
	CMM_STORE_SHARED(tree_of, NULL);
	job_join(&jc);
	reap_killed(x, c, cpid);
	end_child(init, x);
	finish_all_reaped();
}

/*
 * X's PTRACE_GETEVENTMSG of C, stopped, is held after it found C its
 * tracee; X's PTRACE_DETACH of C, from another thread, waits for T of X,
 * which the request holds: the link is not cut between the request's
 * check and its change.  Then the request answers and the detach lets C
 * go.  RP_BREAK_PTRACE_TRACER_UNLOCKED takes no T of the tracer: the
 * detach is done inside the request's window.
 */
Test(ptrace_requests, detach_from_another_thread_waits)
{
	struct rp_task *x, *c;
	struct job jc, jr, jd;
	unsigned long msg = 1;
	pid_t cpid;

	start(RP_SYNC_RCU);
	x = spawn(init, SIGCHLD);
	c = stopped_child(x, &jc);
	cpid = rp_getpid(c);
	request_data[0] = &msg;
	request_data[1] = NULL;
	CMM_STORE_SHARED(tree_of, x);
	arm_noting(RP_RACE_PTRACE_REQUEST, c);
	start_request(&jr, x, PTRACE_GETEVENTMSG, cpid, 0);
	cr_assert(await_reached(1), "the GETEVENTMSG did not find its tracee");
	start_request(&jd, x, PTRACE_DETACH, cpid, 1);
	await_wait_or_return(1);
	cr_assert_not(uatomic_read(&returned[1]),
		      "the tracer's detach cut the link inside a request's window (%ld)",
		      job_join(&jd));
	release();
	cr_assert_eq(job_join(&jr), 0);
	cr_assert_eq(msg, 0ul);
	cr_assert_eq(job_join(&jd), 0);
	rp_debug_race_hook(NULL);
	CMM_STORE_SHARED(tree_of, NULL);
	cr_assert_eq(job_join(&jc), 0);
	cr_assert_eq(c->ptrace, 0u);
	end_child(x, c);
	end_child(init, x);
	finish_all_reaped();
}
