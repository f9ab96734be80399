/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Signals: kill's permission rule, queueing (standard signals coalesce,
 * real-time ones queue in order with their siginfo), RLIMIT_SIGPENDING,
 * masks, sigaction's discard, delivery by rp_get_signal, the kill family's
 * errnos (checked against this machine's kernel: see the comments), and
 * real-time signals from many senders each received exactly once.
 *
 * Every process is made by rp_fork from init and given its ids by
 * rp_setresuid, every thread by rp_clone; each ends by exit_group (or by the
 * fatal signal the test sends it), its threads die of the group exit's
 * SIGKILL, and init reaps it with rp_wait4: every test ends with only init's
 * objects left (I7).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include <rcuproc/pgrp.h>
#include "../fixture/fixture.h"
#include "task/task.h"
#include "signal/signal.h"

static const enum rp_sync_mode modes[] = { RP_SYNC_RCU, RP_SYNC_RWLOCK, RP_SYNC_QRWLOCK };

/* Handles of the threads made by make_thread, put when their process ends. */
#define MAX_THREADS 4
static struct rp_task *threads[MAX_THREADS];

/* Every process ended and reaped, every thread handle put; then finish. */
static void finish_all_ended(void)
{
	for (int i = 0; i < MAX_THREADS; i++)
		cr_assert_null(threads[i], "a thread whose process was not ended");
	finish_all_reaped();
}

/*
 * Drop, as @t itself, every capability it has and @caps lacks (Linux's
 * capset can only lower the sets, as here).
 */
static void drop_caps(struct rp_task *t, uint64_t caps)
{
	for (int cap = 0; cap < 64; cap++)
		if (!(caps & (1ULL << cap)) && rp_cap_has(t, cap) == 1)
			cr_assert_eq(rp_cap_drop(t, cap), 0);
}

/*
 * A child of init (so in init's group and session) with credentials (@uid,
 * @euid, @suid) and capabilities @caps, as a real program gets them: init is
 * root with every capability, the child inherits them, and rp_setresuid's
 * Linux rules clear them once no id is 0.  The rules cannot give a process
 * with a nonzero id capabilities: the final check refuses such a request.
 */
static struct rp_task *make_process_cred(uid_t uid, uid_t euid, uid_t suid, uint64_t caps)
{
	struct rp_task *t = fork_of(init);

	cr_assert_eq(rp_setresuid(t, uid, euid, suid), 0);
	drop_caps(t, caps);
	cr_assert_eq(t->cred->uid, uid);
	cr_assert_eq(t->cred->euid, euid);
	cr_assert_eq(t->cred->suid, suid);
	cr_assert_eq(t->cred->caps, caps, "capabilities the setresuid rules cannot give");
	return t;
}

/* Uid 0 keeps what root has (init's capabilities), any other uid has none. */
static struct rp_task *make_process(uid_t uid)
{
	return make_process_cred(uid, uid, uid, uid ? 0 : init->cred->caps);
}

/* Another thread of @leader's group; its handle is put by end_process(@leader). */
static struct rp_task *make_thread(struct rp_task *leader)
{
	struct rp_task *t;
	int i = 0;

	while (i < MAX_THREADS && threads[i])
		i++;
	cr_assert_lt(i, MAX_THREADS);
	t = thread_of(leader);
	cr_assert_eq(t->group_leader, leader);
	threads[i] = t;
	return t;
}

/*
 * @p's group is exiting or gone: its other threads die of the group exit's
 * SIGKILL at their return to user space (threads are released by their own
 * exit, nobody waits for them), then init reaps @p and gets wait status
 * @status.  Every handle of the group is put.
 */
static void reap(struct rp_task *p, int status)
{
	pid_t pid = rp_task_tgid(p);
	siginfo_t info;
	int st = -1;

	for (int i = 0; i < MAX_THREADS; i++) {
		if (!threads[i] || threads[i]->group_leader != p)
			continue;
		cr_assert_eq(rp_get_signal(threads[i], &info), -ESRCH);
		rp_task_put(threads[i]);
		threads[i] = NULL;
	}
	cr_assert_eq(rp_wait4(init, pid, &st, 0, NULL), pid);
	cr_assert_eq(st, status, "wait status %#x, expected %#x", st, status);
	rp_task_put(p);
}

/* End a live process @p as a program does: exit_group(0) as itself, then reap. */
static void end_process(struct rp_task *p)
{
	cr_assert_eq(rp_exit_group(p, 0), 0);
	reap(p, EXITED(0));
}

static int queue(struct rp_task *self, pid_t pid, int sig, int value)
{
	siginfo_t info = { .si_code = SI_QUEUE, .si_pid = rp_getpid(self) };

	info.si_value.sival_int = value;
	return rp_rt_sigqueueinfo(self, pid, sig, &info);
}

/* ---- the hashed wait queues ---- */

#define WAITQ_ROUNDS 2000

/* Two objects whose queues share a bucket, and a sleeper's progress on one. */
struct bucket_mates {
	char objs[2 * RP_WAITQ_BUCKETS];
	const char *mine, *other;
	unsigned long posted, seen;	/* (a) rounds posted to mine, and taken */
};

static void *bucket_sleeper(void *arg)
{
	struct bucket_mates *m = arg;
	struct rp_waitq *wq = rp_waitq_of(m->mine);

	rp_thread_register();		/* a sleeper goes offline (QSBR) */
	while (uatomic_read(&m->seen) < WAITQ_ROUNDS) {
		unsigned long seq = rp_waitq_seq(wq);	/* sampled before the check */

		if (uatomic_read(&m->posted) > uatomic_read(&m->seen))
			uatomic_inc(&m->seen);
		else
			rp_waitq_wait(wq, seq);		/* any wake of the bucket: check again */
	}
	rp_thread_unregister();
	return NULL;
}

/*
 * A wake-up is never lost, also when the bucket is shared: each round
 * wakes the other object first (the sleeper rechecks and sleeps again),
 * then posts to the sleeper's object and wakes it.  A lost wake-up leaves
 * the sleeper asleep and the hang detector fails the test.
 */
Test(waitq, shared_bucket_loses_no_wakeup)
{
	static struct bucket_mates m;
	pthread_t thr;

	m.mine = &m.objs[0];
	for (int i = 1; i < (int)sizeof(m.objs) && !m.other; i++)
		if (rp_waitq_of(&m.objs[i]) == rp_waitq_of(m.mine))
			m.other = &m.objs[i];
	cr_assert_not_null(m.other, "two addresses in one bucket");
	cr_assert_eq(pthread_create(&thr, NULL, bucket_sleeper, &m), 0);
	for (unsigned long r = 1; r <= WAITQ_ROUNDS; r++) {
		double end = now_seconds() + TEST_HANG_SECONDS;

		rp_waitq_wake(rp_waitq_of(m.other));
		uatomic_set(&m.posted, r);		/* the change, then its wake-up */
		rp_waitq_wake(rp_waitq_of(m.mine));
		while (uatomic_read(&m.seen) < r) {
			cr_assert_lt(now_seconds(), end, "round %lu: a wake-up was lost", r);
			sched_yield();
		}
	}
	pthread_join(thr, NULL);
}

/* ---- permission (check_kill_permission) ---- */

Test(permission, uids_and_cap_kill, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *b = make_process(1001);
	struct rp_task *setuid_sender = make_process_cred(1000, 1001, 1000, 0);
	struct rp_task *saved = make_process_cred(3000, 3000, 1000, 0);
	struct rp_task *euid_only = make_process_cred(3000, 1000, 3000, 0);
	struct rp_task *root_nocap = make_process_cred(0, 0, 0, 0);

	cr_assert_eq(rp_kill(a, rp_getpid(b), SIGUSR1), -EPERM);
	cr_assert_eq(rp_kill(a, rp_getpid(b), 0), -EPERM, "sig 0 checks permission too");
	cr_assert_eq(rp_kill(setuid_sender, rp_getpid(b), 0), 0, "sender's euid = target's uid");
	cr_assert_eq(rp_kill(a, rp_getpid(saved), 0), 0, "sender's uid = target's suid");
	cr_assert_eq(rp_kill(a, rp_getpid(euid_only), 0), -EPERM, "target's euid does not count");
	cr_assert_eq(rp_kill(init, rp_getpid(b), 0), 0, "CAP_KILL");
	cr_assert_eq(rp_kill(root_nocap, rp_getpid(b), 0), -EPERM, "uid 0 without CAP_KILL");
	cr_assert_eq(rp_kill(a, rp_getpid(a), 0), 0);
	cr_assert_eq(rp_kill(b, 1, 0), -EPERM, "init is root's");
	end_process(a);
	end_process(b);
	end_process(setuid_sender);
	end_process(saved);
	end_process(euid_only);
	end_process(root_nocap);
}

Test(permission, sigcont_within_the_session, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *b = make_process(1001);
	struct rp_task *c = make_process(1002);

	/* c in a session of its own. */
	cr_assert_eq(rp_setsid(c), rp_getpid(c));
	cr_assert_eq(rp_kill(a, rp_getpid(b), SIGCONT), 0, "same session");
	cr_assert_eq(rp_kill(a, rp_getpid(c), SIGCONT), -EPERM, "another session");
	cr_assert_eq(rp_kill(a, rp_getpid(b), SIGTERM), -EPERM);
	end_process(a);
	end_process(b);
	end_process(c);
}

/* Answers of this machine's kernel (6.18), from a probe program run as uid 65534. */
Test(permission, errnos_as_linux, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000);

	cr_assert_eq(rp_kill(a, rp_getpid(a), 65), -EINVAL);
	cr_assert_eq(rp_kill(a, rp_getpid(a), 100), -EINVAL);
	cr_assert_eq(rp_kill(a, rp_getpid(a), -1), -EINVAL);
	cr_assert_eq(rp_kill(a, 4000000, 100), -ESRCH, "lookup before the signal check");
	cr_assert_eq(rp_kill(a, 12345, 0), -ESRCH);
	cr_assert_eq(rp_kill(a, -2147483647 - 1, 0), -ESRCH);
	cr_assert_eq(rp_tgkill(a, 0, rp_gettid(a), 0), -EINVAL);
	cr_assert_eq(rp_tgkill(a, rp_getpid(a), 0, 0), -EINVAL);
	cr_assert_eq(rp_tkill(a, -1, 0), -EINVAL);
	cr_assert_eq(rp_tgkill(a, rp_getpid(a), 4000000, 100), -ESRCH);
	cr_assert_eq(rp_tgkill(a, rp_getpid(a), rp_gettid(a), 100), -EINVAL);
	cr_assert_eq(rp_tgkill(a, 1, rp_gettid(a), 0), -ESRCH, "tid not in that group");
	end_process(a);
}

/* ---- queueing ---- */

Test(queue, standard_signals_coalesce, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000);
	siginfo_t info;

	handle(a, SIGUSR1);
	mask_signal(a, SIG_BLOCK, SIGUSR1);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGUSR1), 0);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGUSR1), 0);
	cr_assert(is_pending(a, SIGUSR1));
	cr_assert_eq(rp_get_signal(a, &info), 0, "blocked: not delivered");
	cr_assert_eq(rp_sigprocmask(a, SIG_SETMASK, &(sigset_t){ 0 }, NULL), 0);
	cr_assert_eq(rp_get_signal(a, &info), SIGUSR1);
	cr_assert_eq(info.si_code, SI_USER);
	cr_assert_eq(info.si_pid, 1);
	cr_assert_eq(info.si_uid, 0);
	cr_assert_eq(rp_get_signal(a, &info), 0, "the second one coalesced");
	end_process(a);
}

Test(queue, realtime_signals_queue_in_order, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *b = make_process(1000);
	struct rp_system_counts c;
	siginfo_t info;

	for (int s = 32; s < 36; s++)
		handle(a, s);
	handle(a, SIGUSR2);
	cr_assert_eq(queue(b, rp_getpid(a), RT(1), 10), 0);
	cr_assert_eq(queue(b, rp_getpid(a), 32, 20), 0, "32: a real-time signal here");
	cr_assert_eq(queue(b, rp_getpid(a), RT(1), 11), 0);
	cr_assert_eq(rp_kill(b, rp_getpid(a), RT(1)), 0);
	cr_assert_eq(rp_kill(b, rp_getpid(a), SIGUSR2), 0);
	rp_system_counts(sys, &c);
	cr_assert_eq(c.sigqueues, 5);
	cr_assert_eq(rp_get_signal(a, &info), SIGUSR2, "lowest number first");
	cr_assert_eq(rp_get_signal(a, &info), 32);
	cr_assert_eq(info.si_value.sival_int, 20);
	cr_assert_eq(info.si_code, SI_QUEUE);
	cr_assert_eq(rp_get_signal(a, &info), RT(1));
	cr_assert_eq(info.si_value.sival_int, 10);
	cr_assert(is_pending(a, RT(1)), "the bit stays while more are queued");
	cr_assert_eq(rp_get_signal(a, &info), RT(1));
	cr_assert_eq(info.si_value.sival_int, 11);
	cr_assert_eq(rp_get_signal(a, &info), RT(1));
	cr_assert_eq(info.si_code, SI_USER);
	cr_assert_eq(info.si_pid, rp_getpid(b));
	cr_assert_eq(info.si_uid, 1000);
	cr_assert_not(is_pending(a, RT(1)));
	cr_assert_eq(rp_get_signal(a, &info), 0);
	end_process(a);
	end_process(b);
}

/* The order a walk of @p visits its entries in, as indices into @q. */
static int walk_order(struct rp_sigpending *p, struct rp_sigqueue *q, int *order)
{
	struct rp_sigqueue *e, *prev, *next;
	int n = 0;

	rp_sigpending_for_each_safe(e, prev, next, p)
		order[n++] = (int)(e - q);
	return n;
}

/*
 * The one-word queue (task.h): FIFO order, and a walk that takes off and
 * frees the first, a middle and the last entry (scribbled on, as a free
 * may: the walk must not read them again) keeps the rest in order, the
 * tail right (an append after it lands last) and nothing visited twice.
 */
Test(queue, one_word_fifo)
{
	struct rp_sigqueue q[5] = { 0 };
	struct rp_sigpending p = { 0 };
	struct rp_sigqueue *e, *prev, *next;
	int order[8], n;

	for (int i = 0; i < 4; i++)
		rp_sigpending_add_tail(&p, &q[i]);
	n = walk_order(&p, q, order);
	cr_assert_eq(n, 4);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(order[i], i);
	n = 0;
	rp_sigpending_for_each_safe(e, prev, next, &p) {
		order[n++] = (int)(e - q);
		if (e != &q[2]) {
			rp_sigpending_del(&p, prev, e);	/* 0 (first), 1, 3 (tail) */
			memset(e, 0x5a, sizeof(*e));	/* as a free may scribble */
		}
	}
	memset(&q[0], 0, sizeof(q[0]));
	cr_assert_eq(n, 4, "each entry visited once while taken off");
	cr_assert_eq(p.tail, &q[2], "the one left is the tail");
	cr_expect_eq(q[2].next, &q[2], "and its own successor");
	rp_sigpending_add_tail(&p, &q[4]);
	rp_sigpending_add_tail(&p, &q[0]);
	n = walk_order(&p, q, order);
	cr_assert_eq(n, 3);
	cr_expect(order[0] == 2 && order[1] == 4 && order[2] == 0, "appended after it, in order");
	rp_sigpending_for_each_safe(e, prev, next, &p)
		rp_sigpending_del(&p, prev, e);
	cr_expect_null(p.tail, "emptied");
	cr_expect_eq(walk_order(&p, q, order), 0);
}

Test(queue, ignored_signals_are_dropped, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000);

	set_action(a, SIGUSR1, SIG_IGN);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGUSR1), 0);
	cr_assert_not(is_pending(a, SIGUSR1), "SIG_IGN");
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGCHLD), 0);
	cr_assert_not(is_pending(a, SIGCHLD), "SIG_DFL whose default is to ignore");
	mask_signal(a, SIG_BLOCK, SIGCHLD);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGCHLD), 0);
	cr_assert(is_pending(a, SIGCHLD), "blocked: kept, the handler may change");
	cr_assert_eq(rp_kill(a, rp_getpid(a), 0), 0);
	cr_assert_not(is_pending(a, 0 + SIGUSR2), "sig 0 queues nothing");
	end_process(a);
}

Test(queue, init_ignores_unhandled_signals, .init = start_rcu, .fini = finish_all_ended)
{
	siginfo_t info;

	cr_assert_eq(rp_kill(init, 1, SIGTERM), 0);
	cr_assert_eq(rp_kill(init, 1, SIGKILL), 0);
	cr_assert_eq(rp_get_signal(init, &info), 0, "SIGNAL_UNKILLABLE");
	handle(init, SIGUSR1);
	cr_assert_eq(rp_kill(init, 1, SIGUSR1), 0);
	cr_assert_eq(rp_get_signal(init, &info), SIGUSR1);
	set_action(init, SIGUSR1, SIG_DFL);
}

/* RLIMIT_SIGPENDING, charged to the target's real uid (kernel 6.18 probe). */
Test(queue, rlimit_sigpending, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *a2 = make_process(1000);
	struct rlimit two = { 2, 2 };
	siginfo_t info;

	cr_assert_eq(rp_setrlimit(a, RLIMIT_SIGPENDING, &two), 0);
	handle(a, RT(0));
	handle(a, SIGUSR1);
	handle(a, SIGUSR2);
	handle(a2, RT(0));
	cr_assert_eq(queue(init, rp_getpid(a2), RT(0), 1), 0, "a2: no limit of its own");
	cr_assert_eq(queue(init, rp_getpid(a), RT(0), 2), 0);
	cr_assert_eq(a->cred->user->sigpending, 2, "one count per uid");
	cr_assert_eq(queue(init, rp_getpid(a), RT(0), 3), -EAGAIN, "sigqueue: EAGAIN");
	cr_assert_eq(rp_kill(init, rp_getpid(a), RT(0)), 0, "kill(): the siginfo is lost");
	cr_assert_eq(queue(init, rp_getpid(a), SIGUSR1, 4), 0, "standard: bit set, info lost");
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGUSR2), 0, "kill() of a standard signal overrides");
	cr_assert_eq(a->cred->user->sigpending, 3);
	cr_assert_eq(rp_get_signal(a, &info), SIGUSR1);
	cr_assert_eq(info.si_code, SI_USER);
	cr_assert_eq(info.si_pid, 0, "lost siginfo: SI_USER from pid 0");
	cr_assert_eq(rp_get_signal(a, &info), SIGUSR2);
	cr_assert_eq(info.si_pid, 1);
	cr_assert_eq(rp_get_signal(a, &info), RT(0));
	cr_assert_eq(info.si_value.sival_int, 2);
	cr_assert_eq(rp_get_signal(a, &info), 0, "the lost RT signal merged into the queued one");
	cr_assert_eq(a->cred->user->sigpending, 1);
	end_process(a);
	end_process(a2);
}

/* ---- sigaction, masks, pending ---- */

Test(action, einval_and_old_action, .init = start_rcu, .fini = finish_all_ended)
{
	struct sigaction sa = { .sa_handler = SIG_IGN }, old;

	cr_assert_eq(rp_sigaction(init, 0, &sa, NULL), -EINVAL);
	cr_assert_eq(rp_sigaction(init, 65, &sa, NULL), -EINVAL);
	cr_assert_eq(rp_sigaction(init, SIGKILL, &sa, NULL), -EINVAL);
	cr_assert_eq(rp_sigaction(init, SIGSTOP, &sa, NULL), -EINVAL);
	cr_assert_eq(rp_sigaction(init, SIGKILL, NULL, &old), 0);
	cr_assert_eq(old.sa_handler, SIG_DFL);
	cr_assert_eq(rp_sigaction(init, SIGUSR1, &sa, NULL), 0);
	cr_assert_eq(rp_sigaction(init, SIGUSR1, NULL, &old), 0);
	cr_assert_eq(old.sa_handler, SIG_IGN);
	set_action(init, SIGUSR1, SIG_DFL);
}

/*
 * Every sighand shares one all-default action table until its first
 * change, which copies it: another process never sees the change.  A fork
 * copies a private table; exec's reset returns to the shared table unless
 * an ignored signal keeps the table private.
 */
Test(action, default_table_shared_until_changed, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *b = make_process(1000), *c;
	struct sigaction old;

	cr_assert_eq(a->sighand->actions, &rp_default_actions);
	cr_assert_eq(b->sighand->actions, &rp_default_actions);
	handle(a, SIGUSR1);
	cr_assert_neq(a->sighand->actions, &rp_default_actions, "the first change copies");
	cr_assert_eq(b->sighand->actions, &rp_default_actions);
	cr_assert_eq(rp_sigaction(b, SIGUSR1, NULL, &old), 0);
	cr_assert_eq(old.sa_handler, SIG_DFL, "another process keeps its default");
	c = fork_of(a);
	cr_assert_neq(c->sighand->actions, a->sighand->actions, "fork copies a private table");
	cr_assert_eq(rp_sigaction(c, SIGUSR1, NULL, &old), 0);
	cr_assert_neq(old.sa_handler, SIG_DFL, "with the parent's handler");
	cr_assert_eq(rp_execve(a, "a"), 0);
	cr_assert_eq(a->sighand->actions, &rp_default_actions, "exec returns to the shared table");
	set_action(c, SIGUSR2, SIG_IGN);
	cr_assert_eq(rp_execve(c, "c"), 0);
	cr_assert_neq(c->sighand->actions, &rp_default_actions, "an ignored signal stays");
	cr_assert_eq(rp_sigaction(c, SIGUSR2, NULL, &old), 0);
	cr_assert_eq(old.sa_handler, SIG_IGN);
	end_process(a);		/* c goes to init */
	end_process(c);
	end_process(b);
}

Test(action, ignoring_discards_pending, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *t = make_thread(a);
	struct rp_system_counts c;

	mask_signal(a, SIG_BLOCK, RT(2));
	mask_signal(t, SIG_BLOCK, RT(2));
	mask_signal(a, SIG_BLOCK, SIGCHLD);
	handle(a, SIGCHLD);
	cr_assert_eq(queue(init, rp_getpid(a), RT(2), 1), 0);
	cr_assert_eq(queue(init, rp_getpid(a), RT(2), 2), 0);
	cr_assert_eq(rp_tkill(init, rp_gettid(t), RT(2)), 0);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGCHLD), 0);
	rp_system_counts(sys, &c);
	cr_assert_eq(c.sigqueues, 4);
	set_action(a, RT(2), SIG_IGN);
	cr_assert_not(is_pending(a, RT(2)));
	cr_assert_not(is_pending(t, RT(2)), "the thread's pending set too");
	set_action(a, SIGCHLD, SIG_DFL);
	cr_assert_not(is_pending(a, SIGCHLD), "SIG_DFL with default ignore discards");
	rp_system_counts(sys, &c);
	cr_assert_eq(c.sigqueues, 0);
	end_process(a);
}

Test(mask, sigprocmask_and_sigpending, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *t = make_thread(a);
	sigset_t set, old, pend;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGKILL);
	sigaddset(&set, SIGSTOP);
	cr_assert_eq(rp_sigprocmask(a, SIG_BLOCK, &set, &old), 0);
	cr_assert_not(sigismember(&old, SIGUSR1));
	cr_assert_eq(rp_sigprocmask(a, 99, &set, &old), -EINVAL);
	cr_assert_eq(rp_sigprocmask(a, 99, NULL, &old), 0, "no set: how is not looked at");
	cr_assert(sigismember(&old, SIGUSR1));
	cr_assert_not(sigismember(&old, SIGKILL), "SIGKILL cannot be blocked");
	cr_assert_not(sigismember(&old, SIGSTOP), "SIGSTOP cannot be blocked");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	cr_assert_eq(rp_sigprocmask(a, SIG_SETMASK, &set, NULL), 0);
	cr_assert_eq(rp_sigprocmask(a, SIG_UNBLOCK, &set, &old), 0);
	cr_assert(sigismember(&old, SIGUSR2));
	cr_assert_not(sigismember(&old, SIGUSR1));
	handle(a, SIGUSR1);
	handle(a, SIGUSR2);
	handle(a, SIGHUP);	/* else t's SIGHUP ends the group as it is sent */
	mask_signal(a, SIG_BLOCK, SIGUSR1);
	mask_signal(a, SIG_BLOCK, SIGUSR2);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGUSR1), 0);
	cr_assert_eq(rp_tkill(init, rp_gettid(a), SIGUSR2), 0);
	cr_assert_eq(rp_tkill(init, rp_gettid(t), SIGHUP), 0);
	cr_assert_eq(rp_sigpending(a, &pend), 0);
	cr_assert(sigismember(&pend, SIGUSR1), "shared");
	cr_assert(sigismember(&pend, SIGUSR2), "own");
	cr_assert_not(sigismember(&pend, SIGHUP), "another thread's");
	end_process(a);
}

/* ---- delivery ---- */

Test(deliver, handler_resethand_and_fatal, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000);
	struct sigaction old;
	siginfo_t info;

	set_action_flags(a, SIGUSR1, user_handler, SA_RESETHAND);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGUSR1), 0);
	cr_assert_eq(rp_get_signal(a, &info), SIGUSR1);
	cr_assert_eq(info.si_signo, SIGUSR1);
	cr_assert_eq(rp_sigaction(a, SIGUSR1, NULL, &old), 0);
	cr_assert_eq(old.sa_handler, SIG_DFL, "SA_RESETHAND");
	mask_signal(a, SIG_BLOCK, SIGWINCH);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGWINCH), 0);
	cr_assert_eq(rp_sigprocmask(a, SIG_SETMASK, &(sigset_t){ 0 }, NULL), 0);
	cr_assert_eq(rp_get_signal(a, &info), 0, "default ignore: nothing to deliver");
	cr_assert_not(is_pending(a, SIGWINCH));
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGTSTP), 0);
	/* a is in init's group, which has no parent outside it: orphaned. */
	cr_assert_eq(rp_get_signal(a, &info), 0, "SIGTSTP: ignored by an orphaned group");
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGTERM), 0);
	cr_assert_eq(rp_get_signal(a, &info), -ESRCH, "default: the group exits");
	reap(a, KILLED_BY(SIGTERM));
}

Test(deliver, group_exit_and_sigkill_come_first, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *b = make_process(1000);
	struct rp_sighand *sh;
	siginfo_t info;

	handle(a, SIGHUP);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGHUP), 0);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGKILL), 0);
	cr_assert_eq(rp_get_signal(a, &info), -ESRCH, "SIGKILL before a handled signal");
	reap(a, KILLED_BY(SIGKILL));
	handle(b, SIGHUP);
	cr_assert_eq(rp_kill(init, rp_getpid(b), SIGHUP), 0);
	/*
	 * The flag alone, as exit_group(0) of another thread leaves it, by
	 * hand: the real exit_group also queues SIGKILL to b, which would
	 * kill b even if rp_get_signal never looked at the flag.
	 */
	sh = rp_lock_task_sighand(b);
	b->signal->flags |= RP_SIGNAL_GROUP_EXIT;
	b->signal->group_exit_code = 0;
	rp_unlock_sighand(sh);
	cr_assert_eq(rp_kill(init, rp_getpid(b), SIGUSR1), 0);
	cr_assert_eq(rp_get_signal(b, &info), -ESRCH, "a group exit with code 0 too");
	reap(b, EXITED(0));
}

Test(deliver, thread_directed_and_wakeups, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *t = make_thread(a);
	unsigned long seq_t = rp_waitq_seq(rp_task_waitq(t));
	unsigned long seq_a = rp_waitq_seq(rp_task_waitq(a));
	struct rp_sighand *sh;
	siginfo_t info;

	handle(a, SIGUSR1);
	mask_signal(a, SIG_BLOCK, SIGUSR1);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGUSR1), 0);
	cr_assert_neq(rp_waitq_seq(rp_task_waitq(t)), seq_t, "the thread that can take it is woken");
	/* Unless the two share their hashed queue's bucket. */
	if (rp_task_waitq(a) != rp_task_waitq(t))
		cr_assert_eq(rp_waitq_seq(rp_task_waitq(a)), seq_a, "not the one that blocks it");
	cr_assert_eq(rp_get_signal(a, &info), 0);
	cr_assert_eq(rp_get_signal(t, &info), SIGUSR1);
	cr_assert_eq(rp_tkill(init, rp_gettid(a), SIGUSR1), 0);
	cr_assert_eq(rp_get_signal(t, &info), 0, "thread-directed: only its thread");
	cr_assert_eq(rp_sigprocmask(a, SIG_SETMASK, &(sigset_t){ 0 }, NULL), 0);
	cr_assert_eq(rp_get_signal(a, &info), SIGUSR1);
	cr_assert_eq(info.si_code, SI_TKILL);
	/* rp_signal_pending_locked and rp_zap_other_threads */
	mask_signal(t, SIG_BLOCK, SIGUSR1);
	cr_assert_eq(rp_kill(init, rp_getpid(a), SIGUSR1), 0);
	rp_read_lock(&sys->sync);
	sh = rp_lock_task_sighand_rcu(t);
	cr_assert_not(rp_signal_pending_locked(t), "blocked");
	cr_assert(rp_signal_pending_locked(a));
	cr_assert_eq(rp_zap_other_threads(a), 1);
	cr_assert(rp_signal_pending_locked(t), "SIGKILL cannot be blocked");
	rp_unlock_sighand(sh);
	rp_read_unlock(&sys->sync);
	end_process(a);
}

Test(deliver, zombie_still_takes_signals, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000);

	pid_t pid = rp_getpid(a);

	cr_assert_eq(rp_exit_group(a, 0), 0);
	cr_assert_eq(uatomic_read(&a->exit_state), RP_EXIT_ZOMBIE, "not reaped yet");
	cr_assert_eq(rp_kill(init, pid, SIGUSR1), 0, "Linux: until it is reaped");
	cr_assert_eq(rp_kill(a, pid, SIGUSR1), -ESRCH, "a zombie calls nothing");
	reap(a, EXITED(0));
	cr_assert_eq(rp_kill(init, pid, SIGUSR1), -ESRCH);
}

/* ---- rt_sigqueueinfo ---- */

Test(sigqueue, posing_as_kernel_or_kill_is_eperm, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000);
	siginfo_t info = { .si_code = SI_USER };

	handle(a, SIGUSR1);
	cr_assert_eq(rp_rt_sigqueueinfo(init, rp_getpid(a), SIGUSR1, &info), -EPERM);
	info.si_code = SI_KERNEL;
	cr_assert_eq(rp_rt_sigqueueinfo(init, rp_getpid(a), SIGUSR1, &info), -EPERM);
	info.si_code = SI_TKILL;
	cr_assert_eq(rp_rt_sigqueueinfo(init, rp_getpid(a), SIGUSR1, &info), -EPERM);
	cr_assert_eq(rp_rt_sigqueueinfo(a, rp_getpid(a), SIGUSR1, &info), 0, "to itself");
	info.si_code = SI_QUEUE;
	info.si_signo = SIGUSR2;	/* overwritten by the signal argument */
	cr_assert_eq(rp_rt_sigqueueinfo(init, rp_getpid(a), SIGUSR1, &info), 0);
	cr_assert_eq(rp_rt_sigqueueinfo(init, 0, SIGUSR1, &info), -ESRCH);
	cr_assert_eq(rp_get_signal(a, &info), SIGUSR1);
	cr_assert_eq(info.si_signo, SIGUSR1);
	end_process(a);
}

/* ---- kill(-1) and the simple group kill ---- */

Test(killall, skips_init_and_self, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *b = make_process(1000);
	struct rp_task *c = make_process(2000), *t = make_thread(a);
	struct rp_task *all[] = { a, b, c };

	/* Caught: a fatal one would start each group's exit as it is sent. */
	for (int i = 0; i < 3; i++) {
		handle(all[i], SIGUSR1);
		handle(all[i], SIGUSR2);
	}
	cr_assert_eq(rp_kill(t, -1, SIGUSR1), 0);
	cr_assert(is_pending(b, SIGUSR1));
	cr_assert_not(is_pending(a, SIGUSR1), "its own group is skipped");
	cr_assert_not(is_pending(c, SIGUSR1), "EPERM");
	cr_assert_eq(rp_kill(c, -1, 0), 0, "only refusals: 0, as Linux (probe as nobody)");
	cr_assert_eq(rp_kill(a, -1, 70), -EINVAL);
	cr_assert_eq(rp_kill(init, -1, SIGUSR2), 0);
	cr_assert(is_pending(a, SIGUSR2) && is_pending(b, SIGUSR2) && is_pending(c, SIGUSR2));
	end_process(b);
	end_process(c);
	cr_assert_eq(rp_kill(a, -1, 0), -ESRCH, "nobody but init and itself");
	end_process(a);
}

Test(killall, process_group, .init = start_rcu, .fini = finish_all_ended)
{
	struct rp_task *a = make_process(1000), *b = make_process(1000);

	handle(a, SIGUSR1);
	handle(b, SIGUSR1);
	cr_assert_eq(rp_kill(a, 0, SIGUSR1), 0, "init refuses, b takes it");
	cr_assert(is_pending(a, SIGUSR1) && is_pending(b, SIGUSR1));
	cr_assert_eq(rp_kill(a, -1, SIGUSR1), 0);
	cr_assert_eq(rp_kill(a, -rp_getpid(a), 0), -ESRCH, "no such group");
	end_process(a);
	cr_assert_eq(rp_kill(b, 0, 0), 0, "init refuses, b itself is in the group");
	end_process(b);
}

/* ---- concurrency: every real-time signal received exactly once ---- */

#define SENDERS		4
#define PER_SENDER	3000

struct conc {
	struct rp_task *target;
	struct rp_task *senders[SENDERS];
	unsigned char seen[SENDERS * PER_SENDER];
	int done;
	int errors;		/* (a) failed sends and wrong signals */
};

struct sender_arg {
	struct conc *c;
	int idx;
};

static void *sender(void *p)
{
	struct sender_arg *arg = p;
	struct conc *c = arg->c;

	rp_thread_register();
	for (int i = 0; i < PER_SENDER; i++) {
		int v = arg->idx * PER_SENDER + i;

		if (queue(c->senders[arg->idx], rp_getpid(c->target), RT(v % 8), v))
			uatomic_inc(&c->errors);
	}
	rp_thread_unregister();
	return NULL;
}

/* The target's owner: dequeue until told, sleeping on its wake queue. */
static void *receiver(void *p)
{
	struct conc *c = p;
	siginfo_t info;
	int sig;

	rp_thread_register();
	for (;;) {
		unsigned long seq = rp_waitq_seq(rp_task_waitq(c->target));

		sig = rp_get_signal(c->target, &info);
		if (sig > 0) {
			if (sig != RT(info.si_value.sival_int % 8))
				uatomic_inc(&c->errors);
			c->seen[info.si_value.sival_int]++;
			continue;
		}
		if (sig < 0)
			uatomic_inc(&c->errors);
		if (sig < 0 || uatomic_read(&c->done))
			break;
		rp_waitq_wait(rp_task_waitq(c->target), seq);
	}
	rp_thread_unregister();
	return NULL;
}

static void exactly_once(enum rp_sync_mode mode)
{
	struct conc *c = calloc(1, sizeof(*c));
	struct sender_arg args[SENDERS];
	pthread_t tids[SENDERS], rx;
	siginfo_t info;

	start(mode);
	c->target = make_process(1000);
	for (int s = 0; s < 8; s++)
		handle(c->target, RT(s));
	for (int i = 0; i < SENDERS; i++)
		c->senders[i] = make_process(1000);
	pthread_create(&rx, NULL, receiver, c);
	for (int i = 0; i < SENDERS; i++) {
		args[i] = (struct sender_arg){ c, i };
		pthread_create(&tids[i], NULL, sender, &args[i]);
	}
	for (int i = 0; i < SENDERS; i++)
		pthread_join(tids[i], NULL);
	uatomic_set(&c->done, 1);
	rp_waitq_wake(rp_task_waitq(c->target));
	pthread_join(rx, NULL);
	cr_assert_eq(rp_get_signal(c->target, &info), 0);
	cr_assert_eq(c->errors, 0);
	for (int v = 0; v < SENDERS * PER_SENDER; v++)
		cr_assert_eq(c->seen[v], 1, "value %d seen %d times", v, c->seen[v]);
	for (int i = 0; i < SENDERS; i++)
		end_process(c->senders[i]);
	end_process(c->target);
	free(c);
	finish_all_ended();
}

Test(concurrent, realtime_exactly_once_rcu) { exactly_once(modes[0]); }
Test(concurrent, realtime_exactly_once_rwlock) { exactly_once(modes[1]); }
Test(concurrent, realtime_exactly_once_qrwlock) { exactly_once(modes[2]); }
