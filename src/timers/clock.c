/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CPU clocks: the per-thread and per-process clocks, sampled under the
 * siglock (commit e73d84e33f15: the group sample walks the threads under
 * the target's sighand lock, not the global lock), clock ids as Linux
 * encodes them, times(2), getrusage(2) and wait4's rusage.
 *
 * A thread's time is its own until its exit point; there it is folded into
 * the group's ->exited totals and the thread marked folded, both under the
 * siglock, so that a locked sample counts it exactly once.
 * RP_BREAK_TIMER_SAMPLE_UNLOCKED samples the process clock in
 * clock_gettime without the siglock: a sample taken while a thread folds
 * counts it twice or not at all.
 * RP_BREAK_CLOCK_NAMES_LEADER takes a process clock's pid for a group
 * leader's rather than a tgid: an exec by a non-leader thread makes a live
 * process's clock unknown for a moment.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "timers.h"

#ifdef RP_BREAK_CLOCK_NAMES_LEADER
#define CLOCK_NAMES_TGID false
#else
#define CLOCK_NAMES_TGID true
#endif

#ifdef RP_BREAK_TIMER_SAMPLE_UNLOCKED
#define SAMPLE_LOCKED false
#else
#define SAMPLE_LOCKED true
#endif

struct timespec rp_ns_to_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / RP_NSEC_PER_SEC),
				  .tv_nsec = (long)(ns % RP_NSEC_PER_SEC) };
}

uint64_t rp_timespec_to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * RP_NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

int rp_cpu_clock_decode(struct rp_task *self, clockid_t id, struct rp_cpu_clock *c)
{
	if (rp_task_exited(self))
		return -ESRCH;
	if (id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID) {
		*c = (struct rp_cpu_clock){ .pid = 0, .which = RP_CPUCLOCK_SCHED,
					    .thread = id == CLOCK_THREAD_CPUTIME_ID };
		return 0;
	}
	/* Other non-negative ids are the wall clocks, which rcuproc has not. */
	if (id >= 0 || (id & RP_CPUCLOCK_WHICH_MASK) == RP_CPUCLOCK_MAX)
		return -EINVAL;
	*c = (struct rp_cpu_clock){ .pid = ~(id >> 3), .which = id & RP_CPUCLOCK_WHICH_MASK,
				    .thread = id & RP_CPUCLOCK_PERTHREAD };
	return 0;
}

struct rp_task *rp_cpu_clock_task_rcu(struct rp_task *self, const struct rp_cpu_clock *c,
				  bool gettime)
{
	struct rp_task *t;

	rp_assert_read_section(&self->sys->sync);
	if (!c->pid)
		return self;
	t = rp_find_task_rcu(self->sys, c->pid);
	if (!t)
		return NULL;
	if (c->thread)
		return rp_same_thread_group(t, self) ? t : NULL;
	if (gettime && t == self)
		return t;
	/*
	 * A process clock names a tgid (Linux: pid_has_task(pid,
	 * PIDTYPE_TGID)), which its task's group has, not a leader: while a
	 * non-leader thread execs, the tgid points at it before its
	 * ->group_leader does, and the old leader's ->group_leader already
	 * points away (exec.c take_leadership).  Any thread of the group serves.
	 */
	if (!CLOCK_NAMES_TGID)
		return rp_thread_group_leader(t) ? t : NULL;
	return rp_task_tgid(t) == c->pid ? t : NULL;
}

struct rp_sighand *rp_lock_group_sighand_rcu(struct rp_signal *sig)
{
	struct rp_sighand *sh;
	struct rp_task *t;

	rp_assert_read_section(&rp_signal_sys(sig)->sync);
	/* Pairs with the thread-list insertions in clone. */
	cds_list_for_each_entry_rcu(t, &sig->thread_head, thread_node)
		if ((sh = rp_lock_task_sighand_rcu(t)))
			return sh;
	return NULL;
}

static uint64_t cputime_sample(const struct rp_cputime *ct, int which)
{
	return which == RP_CPUCLOCK_VIRT ? ct->utime : ct->utime + ct->stime;
}

uint64_t rp_thread_sample(const struct rp_task *t, int which)
{
	const struct rp_thread_cputime *ct = t->cputimers.state;

	rp_assert_siglock_held(t);
	return ct ? cputime_sample(&ct->time, which) : 0;	/* none: never charged */
}

/*
 * The live threads first, then the exited ones' totals: the order that
 * counts a folding thread twice when sampled without the siglock.
 */
struct rp_cputime rp_group_cputime(struct rp_signal *sig)
{
	struct rp_cputime sum = { 0, 0 };
	struct rp_group_timers *timers;
	struct rp_thread_cputime *ct;
	struct rp_task *t;

	rp_assert_group_siglock_held(sig);
	/*
	 * The pointers are (s), stored once under the siglock: loaded shared
	 * for the broken twin's unlocked sample only.
	 */
	timers = rp_group_timers_of(sig);
	if (!timers)
		return sum;	/* no thread of the group was ever charged */
	/* Pairs with the thread-list insertions in clone (stable under the siglock). */
	cds_list_for_each_entry_rcu(t, &sig->thread_head, thread_node) {
		ct = CMM_LOAD_SHARED(t->cputimers.state);
		if (!ct || CMM_LOAD_SHARED(ct->folded))
			continue;
		sum.utime += CMM_LOAD_SHARED(ct->time.utime);
		sum.stime += CMM_LOAD_SHARED(ct->time.stime);
	}
	sum.utime += CMM_LOAD_SHARED(timers->exited.utime);
	sum.stime += CMM_LOAD_SHARED(timers->exited.stime);
	return sum;
}

uint64_t rp_group_sample(struct rp_signal *sig, int which)
{
	struct rp_cputime sum = rp_group_cputime(sig);

	return cputime_sample(&sum, which);
}

/* Sample the clock @c of @t in a read section: 0, or -EINVAL if @t is gone. */
static int sample_clock_rcu(struct rp_task *t, const struct rp_cpu_clock *c, uint64_t *ns)
{
	struct rp_sighand *sh;

	rp_assert_read_section(&t->sys->sync);
	if (!c->thread && !SAMPLE_LOCKED) {
		*ns = rp_group_sample(t->signal, c->which);
		return 0;
	}
	sh = c->thread ? rp_lock_task_sighand_rcu(t) : rp_lock_group_sighand_rcu(t->signal);
	if (!sh)
		return -EINVAL;		/* released: Linux no longer finds the clock */
	*ns = c->thread ? rp_thread_sample(t, c->which) : rp_group_sample(t->signal, c->which);
	rp_unlock_sighand(sh);
	return 0;
}

int rp_clock_gettime(struct rp_task *self, clockid_t clock, struct timespec *tp)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_cpu_clock c;
	struct rp_task *t;
	uint64_t ns = 0;
	int err;

	err = rp_cpu_clock_decode(self, clock, &c);
	if (err)
		return err;
	rp_read_lock(sync);
	t = rp_cpu_clock_task_rcu(self, &c, true);
	err = t ? sample_clock_rcu(t, &c, &ns) : -EINVAL;
	rp_read_unlock(sync);
	if (!err)
		*tp = rp_ns_to_timespec(ns);
	rp_sync_quiescent();
	return err;
}

/*
 * Does clock @clock name a task that exists?  0 or -EINVAL (Linux's
 * validate_clock_permissions); -ESRCH if @self has exited.
 */
static int clock_valid(struct rp_task *self, clockid_t clock)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_cpu_clock c;
	int err = rp_cpu_clock_decode(self, clock, &c);

	if (err)
		return err;
	rp_read_lock(sync);
	err = rp_cpu_clock_task_rcu(self, &c, false) ? 0 : -EINVAL;
	rp_read_unlock(sync);
	return err;
}

/* Every CPU clock counts exact nanoseconds here (Linux: 1 ns for SCHED, a tick else). */
int rp_clock_getres(struct rp_task *self, clockid_t clock, struct timespec *tp)
{
	int err = clock_valid(self, clock);

	rp_sync_quiescent();
	if (!err && tp)
		*tp = (struct timespec){ .tv_sec = 0, .tv_nsec = 1 };
	return err;
}

/* glibc's clock_getcpuclockid: the SCHED clock of process @pid, ESRCH if none. */
int rp_clock_getcpuclockid(struct rp_task *self, pid_t pid, clockid_t *clock)
{
	clockid_t id = (clockid_t)((unsigned int)~pid << 3) | RP_CPUCLOCK_SCHED;

	rp_sync_quiescent();
	if (clock_valid(self, id))
		return -ESRCH;
	*clock = id;
	return 0;
}

/* glibc's pthread_getcpuclockid for thread @tid of the caller's process. */
int rp_pthread_getcpuclockid(struct rp_task *self, pid_t tid, clockid_t *clock)
{
	clockid_t id = (clockid_t)((unsigned int)~tid << 3) | RP_CPUCLOCK_PERTHREAD |
		       RP_CPUCLOCK_SCHED;

	rp_sync_quiescent();
	if (tid <= 0 || clock_valid(self, id))
		return -ESRCH;
	*clock = id;
	return 0;
}

/* The thread's, the group's and the children's times of @self, under its siglock. */
struct self_times {
	struct rp_cputime thread, group, children;
};

static int sample_self(struct rp_task *self, struct self_times *st)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_sighand *sh;

	rp_read_lock(sync);
	sh = rp_lock_task_sighand_rcu(self);
	if (sh) {
		/* No state: the thread has run no time (its ->state's comment). */
		st->thread = self->cputimers.state ? self->cputimers.state->time :
			     (struct rp_cputime){ 0, 0 };
		st->group = rp_group_cputime(self->signal);
		st->children = self->signal->cputimers.children;
		rp_unlock_sighand(sh);
	}
	rp_read_unlock(sync);
	return sh ? 0 : -ESRCH;
}

static clock_t ns_to_clock_t(uint64_t ns)
{
	return (clock_t)(ns / (RP_NSEC_PER_SEC / (uint64_t)sysconf(_SC_CLK_TCK)));
}

long rp_times(struct rp_task *self, struct tms *buf)
{
	struct self_times st = { 0 };	/* gcc -O3 cannot see sample_self fill it */

	rp_sync_quiescent();
	if (rp_task_exited(self) || sample_self(self, &st))
		return -ESRCH;
	if (buf) {
		buf->tms_utime = ns_to_clock_t(st.group.utime);
		buf->tms_stime = ns_to_clock_t(st.group.stime);
		buf->tms_cutime = ns_to_clock_t(st.children.utime);
		buf->tms_cstime = ns_to_clock_t(st.children.stime);
	}
	return ns_to_clock_t(st.group.utime + st.group.stime);
}

static struct timeval ns_to_timeval(uint64_t ns)
{
	return (struct timeval){ .tv_sec = (time_t)(ns / RP_NSEC_PER_SEC),
				 .tv_usec = (suseconds_t)(ns % RP_NSEC_PER_SEC / 1000) };
}

/* Only the time fields mean something: every other field is 0. */
static void fill_rusage(struct rusage *ru, const struct rp_cputime *ct)
{
	memset(ru, 0, sizeof(*ru));
	ru->ru_utime = ns_to_timeval(ct->utime);
	ru->ru_stime = ns_to_timeval(ct->stime);
}

int rp_getrusage(struct rp_task *self, int who, struct rusage *usage)
{
	struct self_times st;

	rp_sync_quiescent();
	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD)
		return -EINVAL;
	if (rp_task_exited(self) || sample_self(self, &st))
		return -ESRCH;
	fill_rusage(usage, who == RUSAGE_SELF ? &st.group :
			   who == RUSAGE_CHILDREN ? &st.children : &st.thread);
	return 0;
}

/*
 * @p's group's times with its reaped children's (Linux's RUSAGE_BOTH);
 * the update gate held, exclusive or (a plain reap's) shared.
 */
static struct rp_cputime group_and_children(struct rp_task *p)
{
	struct rp_sighand *sh = rp_lock_task_sighand(p);
	struct rp_cputime ct = { 0, 0 };

	RP_DEBUG_BUG_ON(!rp_update_section_here(&p->sys->sync));
	if (sh) {
		ct = rp_group_cputime(p->signal);
		ct.utime += p->signal->cputimers.children.utime;
		ct.stime += p->signal->cputimers.children.stime;
		rp_unlock_sighand(sh);
	}
	return ct;
}

void rp_cputimers_wait_rusage(struct rp_task *p, struct rusage *ru)
{
	struct rp_cputime ct;

	RP_DEBUG_BUG_ON(!rp_update_section_here(&p->sys->sync));
	if (!ru)
		return;
	ct = group_and_children(p);
	fill_rusage(ru, &ct);
}

void rp_cputimers_reap(struct rp_task *p)
{
	struct rp_cputime ct = group_and_children(p);
	struct rp_task *parent = p->real_parent;
	struct rp_sighand *sh = rp_lock_task_sighand(parent);

	if (!sh)
		return;		/* a parent is released after its children */
	parent->signal->cputimers.children.utime += ct.utime;
	parent->signal->cputimers.children.stime += ct.stime;
	rp_unlock_sighand(sh);
}
