/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CPU clocks, times/getrusage/wait4's rusage, POSIX CPU timers and itimers,
 * one call at a time, with the answers Linux gives (checked on a 6.18
 * kernel: see docs/timers.md).
 */
#include <sys/ptrace.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../fixture/timers.h"

/* Linux's encoding of a thread's and a process's CPU clocks. */
#define PROCESS_CLOCK(pid, which)	((clockid_t)((unsigned int)~(pid) << 3) | (which))
#define THREAD_CLOCK(tid, which)	(PROCESS_CLOCK(tid, which) | 4)

/* A new process handling @sig, with a timer on @clock sending it: *@id. */
static struct rp_task *spawn_with_timer(clockid_t clock, int sig, int *id)
{
	struct rp_task *p = spawn(init, SIGCHLD);

	handle(p, sig);
	*id = timer_on(p, clock, sig);
	return p;
}

/* The next handled signal of @t: its number and siginfo; 0 if none. */
static int next_signal(struct rp_task *t, siginfo_t *info)
{
	int sig = rp_get_signal(t, info);

	cr_assert_geq(sig, 0);
	return sig;
}

Test(clock, thread_process_and_encoded)
{
	struct rp_task *p, *t;
	clockid_t pc, tc;
	struct timespec ts;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	cr_assert_eq(rp_account_cpu(p, 3 * MS, 1 * MS), 0);
	cr_assert_eq(rp_account_cpu(t, 5 * MS, 2 * MS), 0);
	cr_expect_eq(clock_ns(p, CLOCK_THREAD_CPUTIME_ID), 4 * MS);
	cr_expect_eq(clock_ns(t, CLOCK_THREAD_CPUTIME_ID), 7 * MS);
	cr_expect_eq(clock_ns(t, CLOCK_PROCESS_CPUTIME_ID), 11 * MS);
	cr_expect_eq(clock_ns(init, PROCESS_CLOCK(rp_getpid(p), 1)), 8 * MS, "VIRT: user time");
	cr_expect_eq(clock_ns(init, PROCESS_CLOCK(rp_getpid(p), 0)), 11 * MS, "PROF");
	cr_assert_eq(rp_clock_getcpuclockid(init, rp_getpid(p), &pc), 0);
	cr_expect_eq(pc, PROCESS_CLOCK(rp_getpid(p), 2));
	cr_expect_eq(clock_ns(init, pc), 11 * MS);
	cr_assert_eq(rp_pthread_getcpuclockid(p, rp_gettid(t), &tc), 0);
	cr_expect_eq(clock_ns(p, tc), 7 * MS);
	cr_expect_eq(rp_clock_getres(p, tc, &ts), 0);
	cr_expect_eq(ts_ns(&ts), 1);
	/* Another process's thread clock: EINVAL; a thread's tid as a process clock too,
	 * except the caller's own tid when reading. */
	cr_expect_eq(rp_clock_gettime(init, tc, &ts), -EINVAL);
	cr_expect_eq(rp_clock_gettime(init, PROCESS_CLOCK(rp_gettid(t), 2), &ts), -EINVAL);
	cr_expect_eq(rp_clock_gettime(t, PROCESS_CLOCK(rp_gettid(t), 2), &ts), 0);
	cr_expect_eq(ts_ns(&ts), 11 * MS);
	cr_expect_eq(rp_clock_getcpuclockid(init, rp_gettid(t), &pc), -ESRCH);
	cr_expect_eq(rp_pthread_getcpuclockid(init, rp_gettid(t), &tc), -ESRCH);
	end_task(t);
	end_task(p);
	finish();
}

Test(clock, bad_ids_and_gone_targets)
{
	struct rp_task *p;
	struct timespec ts;
	clockid_t pc;
	pid_t pid;
	int status;

	start(RP_SYNC_RCU);
	cr_expect_eq(rp_clock_gettime(init, CLOCK_REALTIME, &ts), -EINVAL, "no wall clock");
	cr_expect_eq(rp_clock_gettime(init, PROCESS_CLOCK(1, 3), &ts), -EINVAL);
	cr_expect_eq(rp_clock_getres(init, PROCESS_CLOCK(1, 3), &ts), -EINVAL);
	cr_expect_eq(rp_clock_gettime(init, PROCESS_CLOCK(4242, 2), &ts), -EINVAL);
	p = spawn(init, SIGCHLD);
	pid = rp_getpid(p);
	cr_assert_eq(rp_clock_getcpuclockid(init, pid, &pc), 0);
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);
	cr_assert_eq(rp_exit(p, 0), 0);
	cr_expect_eq(rp_account_cpu(p, MS, 0), -ESRCH, "no tick past the exit point");
	cr_expect_eq(clock_ns(init, pc), 2 * MS, "a zombie's clock still reads");
	cr_assert_eq(rp_wait4(init, pid, &status, 0, NULL), pid);
	cr_expect_eq(rp_clock_gettime(init, pc, &ts), -EINVAL, "Linux: EINVAL once reaped");
	cr_expect_eq(rp_clock_getres(init, pc, &ts), -EINVAL);
	cr_expect_eq(rp_clock_getcpuclockid(init, pid, &pc), -ESRCH);
	rp_task_put(p);
	finish();
}

Test(clock, exited_threads_and_reaped_children)
{
	struct rp_task *p, *t, *c;
	struct rusage ru;
	struct tms tms;
	long tick = sysconf(_SC_CLK_TCK);
	pid_t pid;
	int status;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	c = spawn(p, SIGCHLD);
	cr_assert_eq(rp_account_cpu(t, 300 * MS, 100 * MS), 0);
	cr_assert_eq(rp_exit(t, 0), 0);
	cr_expect_eq(clock_ns(p, CLOCK_PROCESS_CPUTIME_ID), 400 * MS, "left by the thread");
	cr_assert_eq(rp_getrusage(p, RUSAGE_THREAD, &ru), 0);
	cr_expect_eq(ru.ru_utime.tv_sec + ru.ru_utime.tv_usec, 0);
	cr_assert_eq(rp_account_cpu(c, 2 * NS_PER_SEC, 500 * MS), 0);
	pid = rp_getpid(c);
	cr_assert_eq(rp_exit(c, 0), 0);
	cr_assert_eq(rp_wait4(p, pid, &status, 0, &ru), pid);
	cr_expect_eq(ru.ru_utime.tv_sec, 2);
	cr_expect_eq(ru.ru_stime.tv_usec, 500000);
	cr_assert_eq(rp_getrusage(p, RUSAGE_CHILDREN, &ru), 0);
	cr_expect_eq(ru.ru_utime.tv_sec, 2);
	cr_assert_eq(rp_getrusage(p, RUSAGE_SELF, &ru), 0);
	cr_expect_eq(ru.ru_utime.tv_usec, 300000);
	cr_expect_eq(rp_getrusage(p, 7, &ru), -EINVAL);
	cr_expect_eq(rp_times(p, &tms), 4 * tick / 10);
	cr_expect_eq(tms.tms_utime, 3 * tick / 10);
	cr_expect_eq(tms.tms_cutime, 2 * tick);
	cr_expect_eq(tms.tms_cstime, tick / 2);
	/* Grandchildren count too once their parent is reaped. */
	pid = rp_getpid(p);
	cr_assert_eq(rp_exit(p, 0), 0);
	cr_assert_eq(rp_wait4(init, pid, &status, 0, &ru), pid);
	cr_expect_eq(ru.ru_utime.tv_sec, 2);
	cr_expect_eq(ru.ru_utime.tv_usec, 300000);
	cr_expect_eq(ru.ru_stime.tv_usec, 600000);
	rp_task_put(c);
	rp_task_put(t);
	rp_task_put(p);
	finish();
}

Test(timer, one_shot_relative)
{
	struct itimerspec its;
	struct rp_task *p;
	siginfo_t info;
	int id;

	start(RP_SYNC_RCU);
	p = spawn_with_timer(CLOCK_PROCESS_CPUTIME_ID, RT(1), &id);
	cr_expect_eq(id, 0, "ids start at 0");
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);
	arm_timer(p, id, 10 * MS, 0);
	cr_assert_eq(rp_account_cpu(p, 4 * MS, 1 * MS), 0);
	cr_expect_eq(next_signal(p, &info), 0);
	cr_assert_eq(rp_timer_gettime(p, id, &its), 0);
	cr_expect_eq(ts_ns(&its.it_value), 5 * MS);
	cr_assert_eq(rp_account_cpu(p, 5 * MS, 0), 0);
	cr_assert_eq(next_signal(p, &info), RT(1));
	cr_expect_eq(info.si_code, SI_TIMER);
	cr_expect_eq(info.si_timerid, id);
	cr_expect_eq(info.si_overrun, 0);
	cr_assert_eq(rp_timer_gettime(p, id, &its), 0);
	cr_expect_eq(ts_ns(&its.it_value), 0, "one-shot: disarmed");
	cr_assert_eq(rp_account_cpu(p, 50 * MS, 0), 0);
	cr_expect_eq(next_signal(p, &info), 0);
	end_task(p);
	finish();
}

Test(timer, interval_and_overruns)
{
	struct itimerspec its;
	struct rp_task *p;
	siginfo_t info;
	int id;

	start(RP_SYNC_RCU);
	p = spawn_with_timer(CLOCK_THREAD_CPUTIME_ID, RT(1), &id);
	arm_timer(p, id, MS, MS);
	cr_assert_eq(rp_account_cpu(p, 3500 * US, 0), 0);	/* 1, 2, 3 ms */
	cr_expect_eq(rp_timer_getoverrun(p, id), 0, "counted at delivery (Linux)");
	cr_assert_eq(rp_account_cpu(p, MS, 0), 0);		/* 4 ms: still pending */
	cr_expect_eq(rp_timer_getoverrun(p, id), 0);
	cr_assert_eq(next_signal(p, &info), RT(1));
	cr_expect_eq(info.si_overrun, 3, "one signal for four expiries");
	cr_expect_eq(rp_timer_getoverrun(p, id), 3, "the last signal delivered's");
	cr_assert_eq(rp_timer_gettime(p, id, &its), 0);
	cr_expect_eq(ts_ns(&its.it_value), 500 * US);
	cr_expect_eq(ts_ns(&its.it_interval), MS);
	cr_assert_eq(rp_account_cpu(p, 600 * US, 0), 0);	/* 5 ms */
	cr_expect_eq(rp_timer_getoverrun(p, id), 3, "not yet delivered");
	cr_assert_eq(next_signal(p, &info), RT(1));
	cr_expect_eq(info.si_overrun, 0);
	cr_expect_eq(rp_timer_getoverrun(p, id), 0);
	end_task(p);
	finish();
}

Test(timer, absolute_old_values_and_none)
{
	struct sigevent none = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its = { { 0, 0 }, ns_ts(3 * MS) }, old;
	struct rp_task *p;
	siginfo_t info;
	int id, quiet;

	start(RP_SYNC_RCU);
	p = spawn_with_timer(CLOCK_PROCESS_CPUTIME_ID, RT(2), &id);
	cr_assert_eq(rp_account_cpu(p, 5 * MS, 0), 0);
	/* An absolute time already passed fires at once. */
	cr_assert_eq(rp_timer_settime(p, id, TIMER_ABSTIME, &its, &old), 0);
	cr_expect_eq(ts_ns(&old.it_value), 0);
	cr_assert_eq(next_signal(p, &info), RT(2));
	its = (struct itimerspec){ ns_ts(MS), ns_ts(9 * MS) };
	cr_assert_eq(rp_timer_settime(p, id, TIMER_ABSTIME, &its, NULL), 0);
	its = (struct itimerspec){ { 0, 0 }, { 0, 0 } };
	cr_assert_eq(rp_timer_settime(p, id, 0, &its, &old), 0);
	cr_expect_eq(ts_ns(&old.it_value), 4 * MS, "absolute 9 ms at 5 ms");
	cr_expect_eq(ts_ns(&old.it_interval), MS);
	cr_assert_eq(rp_account_cpu(p, 10 * MS, 0), 0);
	cr_expect_eq(next_signal(p, &info), 0, "disarmed by a zero value");
	cr_assert_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, &none, &quiet), 0);
	arm_timer(p, quiet, MS, 0);
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);
	cr_expect_eq(next_signal(p, &info), 0, "SIGEV_NONE sends nothing");
	cr_assert_eq(rp_timer_gettime(p, quiet, &its), 0);
	cr_expect_eq(ts_ns(&its.it_value), 0);
	end_task(p);
	finish();
}

Test(timer, thread_id_and_errnos)
{
	struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = RT(3) };
	struct itimerspec its = { { 0, 0 }, { 0, 2000000000 } };
	struct rp_task *p, *t, *q;
	siginfo_t info;
	int id;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	q = spawn(init, SIGCHLD);
	handle(p, RT(3));
	sev._sigev_un._tid = rp_gettid(q);
	cr_expect_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, &sev, &id), -EINVAL);
	sev._sigev_un._tid = rp_gettid(t);
	cr_assert_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, &sev, &id), 0);
	arm_timer(p, id, MS, 0);
	cr_assert_eq(rp_account_cpu(q, 5 * MS, 0), 0);
	cr_assert_eq(rp_account_cpu(p, MS, 0), 0);
	cr_expect_eq(next_signal(p, &info), 0, "for the thread only");
	cr_assert_eq(next_signal(t, &info), RT(3));
	cr_expect_eq(rp_timer_settime(p, id, 0, &its, NULL), -EINVAL, "bad nanoseconds");
	cr_expect_eq(rp_timer_settime(p, 77, 0, &its, NULL), -EINVAL);
	cr_expect_eq(rp_timer_create(p, CLOCK_REALTIME, NULL, &id), -EINVAL);
	sev = (struct sigevent){ .sigev_notify = SIGEV_SIGNAL, .sigev_signo = 0 };
	cr_expect_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, &sev, &id), -EINVAL);
	sev = (struct sigevent){ .sigev_notify = 99, .sigev_signo = SIGUSR1 };
	cr_expect_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, &sev, &id), -EINVAL);
	/* Another process's thread clock: EINVAL; its process clock: allowed. */
	cr_expect_eq(rp_timer_create(p, THREAD_CLOCK(rp_gettid(q), 2), NULL, &id), -EINVAL);
	cr_assert_eq(rp_timer_create(p, PROCESS_CLOCK(rp_getpid(q), 2), NULL, &id), 0);
	end_task(q);
	end_task(t);
	end_task(p);
	finish();
}

Test(timer, delete_ids_and_pending)
{
	struct itimerspec its;
	struct rp_task *p;
	siginfo_t info;
	int a, b, c;

	start(RP_SYNC_RCU);
	p = spawn_with_timer(CLOCK_PROCESS_CPUTIME_ID, RT(1), &a);
	b = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	cr_assert_eq(rp_timer_delete(p, a), 0);
	c = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	cr_expect_eq(b, 1);
	cr_expect_eq(c, 2, "ids are not reused");
	arm_timer(p, b, MS, 0);
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);
	cr_assert_eq(rp_timer_delete(p, b), 0);
	cr_expect(is_pending(p, RT(1)), "Linux leaves a deleted timer's signal queued");
	cr_expect_eq(next_signal(p, &info), 0, "and drops it at delivery");
	cr_expect(!is_pending(p, RT(1)));
	cr_expect_eq(rp_timer_delete(p, b), -EINVAL);
	cr_expect_eq(rp_timer_gettime(p, b, &its), -EINVAL);
	cr_expect_eq(rp_timer_getoverrun(p, b), -EINVAL);
	end_task(p);
	finish();
}

Test(timer, exec_deletes_timers_keeps_itimers)
{
	struct itimerval iv = { { 0, 0 }, { 0, 5 } };
	struct itimerspec its;
	struct rp_task *p;
	siginfo_t info;
	int id;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	id = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	arm_timer(p, id, 10 * MS, 0);
	cr_assert_eq(rp_setitimer(p, ITIMER_PROF, &iv, NULL), 0);
	cr_assert_eq(rp_execve(p, "new"), 0);
	cr_expect_eq(rp_timer_gettime(p, id, &its), -EINVAL);
	handle(p, SIGPROF);
	cr_assert_eq(rp_account_cpu(p, 6 * US, 0), 0);
	cr_expect_eq(next_signal(p, &info), SIGPROF);
	cr_expect_eq(timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1)), id + 1);
	end_task(p);
	finish();
}

Test(timer, target_reaped)
{
	struct itimerspec its = { ns_ts(MS), ns_ts(10 * MS) }, old;
	struct rp_task *c;
	clockid_t clock;
	int id, status;
	pid_t pid;

	start(RP_SYNC_RCU);
	c = spawn(init, SIGCHLD);
	pid = rp_getpid(c);
	cr_assert_eq(rp_clock_getcpuclockid(init, pid, &clock), 0);
	id = timer_on(init, clock, RT(1));
	cr_assert_eq(rp_timer_settime(init, id, 0, &its, NULL), 0);
	cr_assert_eq(rp_exit(c, 0), 0);
	cr_expect_eq(rp_timer_settime(init, id, 0, &its, &old), 0, "a zombie's clock still counts");
	cr_assert_eq(rp_wait4(init, pid, &status, 0, NULL), pid);
	cr_expect_eq(rp_timer_settime(init, id, 0, &its, &old), -ESRCH);
	memset(&its, 0x55, sizeof(its));
	cr_assert_eq(rp_timer_gettime(init, id, &its), 0);
	cr_expect_eq(ts_ns(&its.it_value), 0);
	cr_expect_eq(ts_ns(&its.it_interval), 0);
	cr_expect_eq(rp_timer_getoverrun(init, id), 0);
	cr_expect_eq(rp_timer_delete(init, id), 0);
	rp_task_put(c);
	finish();
}

Test(itimer, prof_virt_and_errnos)
{
	struct itimerval iv = { { 0, 1 }, { 0, 2 } }, old;
	struct rp_task *p;
	siginfo_t info;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	handle(p, SIGPROF);
	handle(p, SIGVTALRM);
	cr_assert_eq(rp_setitimer(p, ITIMER_PROF, &iv, NULL), 0);
	cr_assert_eq(rp_setitimer(p, ITIMER_VIRTUAL, &iv, NULL), 0);
	cr_assert_eq(rp_account_cpu(p, 0, 2500 * US / 1000), 0);	/* 2.5 us system */
	cr_expect_eq(next_signal(p, &info), SIGPROF, "system time counts for PROF only");
	cr_expect_eq(next_signal(p, &info), 0);
	cr_assert_eq(rp_getitimer(p, ITIMER_PROF, &old), 0);
	cr_expect_eq(old.it_value.tv_usec, 0, "0.5 us left: 0 in microseconds");
	cr_expect_eq(old.it_interval.tv_usec, 1);
	cr_assert_eq(rp_account_cpu(p, 2 * US, 0), 0);
	cr_expect_eq(next_signal(p, &info), SIGVTALRM, "the lower number first");
	cr_expect_eq(next_signal(p, &info), SIGPROF);
	cr_assert_eq(rp_setitimer(p, ITIMER_VIRTUAL, NULL, &old), 0);
	cr_expect_eq(old.it_interval.tv_usec, 1);
	cr_assert_eq(rp_getitimer(p, ITIMER_VIRTUAL, &old), 0);
	cr_expect_eq(old.it_value.tv_usec + old.it_value.tv_sec, 0);
	cr_expect_eq(rp_setitimer(p, ITIMER_REAL, &iv, NULL), -EINVAL, "no wall clock");
	cr_expect_eq(rp_setitimer(p, 5, &iv, NULL), -EINVAL);
	iv.it_value.tv_usec = 2000000;
	cr_expect_eq(rp_setitimer(p, ITIMER_PROF, &iv, NULL), -EINVAL);
	end_task(p);
	finish();
}

/*
 * A process that never set a timer (it has none allocated: they come with
 * the first) reads its itimers disarmed and gets no timer signal.
 */
Test(itimer, none_before_the_first_set)
{
	struct itimerval old, iv = { { 0, 0 }, { 0, 5 } };
	siginfo_t info;
	struct rp_task *p;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	memset(&old, 0x55, sizeof(old));
	cr_assert_eq(rp_getitimer(p, ITIMER_PROF, &old), 0);
	cr_expect_eq(old.it_value.tv_sec + old.it_value.tv_usec, 0, "disarmed");
	cr_expect_eq(old.it_interval.tv_sec + old.it_interval.tv_usec, 0);
	handle(p, SIGPROF);
	cr_assert_eq(rp_account_cpu(p, 10 * US, 10 * US), 0);
	cr_expect_eq(next_signal(p, &info), 0);
	cr_expect_eq(rp_timer_delete(p, 0), -EINVAL, "no timer 0 yet");
	cr_assert_eq(rp_setitimer(p, ITIMER_PROF, &iv, NULL), 0);
	cr_assert_eq(rp_account_cpu(p, 10 * US, 0), 0);
	cr_expect_eq(next_signal(p, &info), SIGPROF);
	end_child(init, p);
	finish();
}

Test(itimer, rlimit_cpu)
{
	struct rlimit rl = { 1, 3 };
	struct rp_task *p;
	siginfo_t info;
	int status;
	pid_t pid;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	pid = rp_getpid(p);
	handle(p, SIGXCPU);
	cr_assert_eq(rp_setrlimit(p, RLIMIT_CPU, &rl), 0);
	cr_assert_eq(rp_account_cpu(p, 900 * MS, 0), 0);
	cr_expect_eq(next_signal(p, &info), 0);
	cr_assert_eq(rp_account_cpu(p, 200 * MS, 0), 0);
	cr_expect_eq(next_signal(p, &info), SIGXCPU, "soft limit");
	cr_assert_eq(rp_account_cpu(p, 500 * MS, 0), 0);
	cr_expect_eq(next_signal(p, &info), 0, "not again within the second");
	cr_assert_eq(rp_account_cpu(p, 500 * MS, 0), 0);
	cr_expect_eq(next_signal(p, &info), SIGXCPU, "a second later");
	cr_assert_eq(rp_getrlimit(p, RLIMIT_CPU, &rl), 0);
	cr_expect_eq(rl.rlim_cur, 3);
	cr_assert_eq(rp_account_cpu(p, NS_PER_SEC, 0), 0);
	cr_expect_eq(rp_get_signal(p, &info), -ESRCH, "hard limit: SIGKILL");
	cr_assert_eq(rp_wait4(init, pid, &status, 0, NULL), pid);
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	rp_task_put(p);
	finish();
}

/* RUSAGE_CHILDREN of @p, in ns of user + system time. */
static uint64_t children_ns(struct rp_task *p)
{
	struct rusage ru;

	cr_assert_eq(rp_getrusage(p, RUSAGE_CHILDREN, &ru), 0);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * NS_PER_SEC +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * US;
}

/*
 * Linux's wait_task_zombie adds a reaped child's times to the reaper's
 * group only when it claims a thread-group leader as EXIT_DEAD.  A tracer
 * that reaps a leader whose real parent is elsewhere claims it as
 * EXIT_TRACE and hands it back: if the real parent ignores SIGCHLD,
 * release_task frees it and nobody's totals grow.
 */
Test(clock, traced_zombie_autoreaped_adds_nothing)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct rp_task *parent, *c, *tracer;
	int status;
	pid_t pid;

	start(RP_SYNC_RCU);
	parent = spawn(init, SIGCHLD);
	tracer = spawn(init, SIGCHLD);
	c = spawn(parent, SIGCHLD);
	pid = rp_getpid(c);
	cr_assert_eq(rp_sigaction(parent, SIGCHLD, &ign, NULL), 0);
	cr_assert_eq(rp_ptrace(tracer, PTRACE_SEIZE, pid, NULL, NULL), 0);
	cr_assert_eq(rp_account_cpu(c, 3 * MS, MS), 0);
	cr_assert_eq(rp_exit(c, 0), 0);
	cr_assert_eq(rp_wait4(tracer, pid, &status, 0, NULL), pid);
	cr_expect_eq(rp_wait4(parent, pid, &status, WNOHANG, NULL), -ECHILD, "autoreaped");
	cr_expect_eq(children_ns(parent), 0, "Linux: EXIT_TRACE, then release_task");
	cr_expect_eq(children_ns(tracer), 0);
	rp_task_put(c);
	end_child(init, tracer);
	end_child(init, parent);
	finish();
}

/*
 * A traced thread reaped by its tracer is no leader: Linux adds nothing
 * anywhere; the group's times reach its parent once, when the process is
 * reaped.  A leader handed back and reaped by its real parent counts
 * there.
 */
Test(clock, traced_thread_and_handback_count_once)
{
	struct rp_task *q, *p, *t, *tracer;
	int status;
	pid_t tid, pid;

	start(RP_SYNC_RCU);
	q = spawn(init, SIGCHLD);
	tracer = spawn(init, SIGCHLD);
	p = spawn(q, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	tid = rp_gettid(t);
	pid = rp_getpid(p);
	cr_assert_eq(rp_ptrace(tracer, PTRACE_SEIZE, tid, NULL, NULL), 0);
	cr_assert_eq(rp_account_cpu(t, 3 * MS, 0), 0);
	cr_assert_eq(rp_exit(t, 0), 0);
	cr_assert_eq(rp_wait4(tracer, tid, &status, __WALL, NULL), tid);
	cr_expect_eq(children_ns(q), 0, "a thread is no leader: nothing added");
	cr_expect_eq(children_ns(tracer), 0);
	cr_assert_eq(rp_ptrace(tracer, PTRACE_SEIZE, pid, NULL, NULL), 0);
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);
	cr_assert_eq(rp_exit(p, 0), 0);
	cr_assert_eq(rp_wait4(tracer, pid, &status, 0, NULL), pid);
	cr_expect_eq(children_ns(q), 0, "handed back, not yet reaped");
	cr_assert_eq(rp_wait4(q, pid, &status, 0, NULL), pid);
	cr_expect_eq(children_ns(q), 5 * MS, "the group's times, once");
	cr_expect_eq(children_ns(tracer), 0);
	rp_task_put(t);
	rp_task_put(p);
	end_child(init, tracer);
	end_child(init, q);
	finish();
}

/*
 * Linux's posixtimer_init_sigqueue charges a timer's preallocated entry to
 * the creator's user at timer_create, under the creator's
 * RLIMIT_SIGPENDING without override (EAGAIN past it), for the timer's
 * whole life; the timer's signal, when queued, is not charged again.
 */
Test(timer, preallocated_entry_counts_for_rlimit_sigpending)
{
	struct rlimit rl = { 3, 3 };
	struct rp_task *p;
	siginfo_t info;
	int a, b, id;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	handle(p, RT(1));
	handle(p, RT(5));
	mask_signal(p, SIG_BLOCK, RT(1));
	mask_signal(p, SIG_BLOCK, RT(5));
	cr_assert_eq(rp_setrlimit(p, RLIMIT_SIGPENDING, &rl), 0);
	a = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	b = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	cr_assert_eq(rp_kill(p, rp_getpid(p), RT(5)), 0);	/* the third */
	cr_expect_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, NULL, &id), -EAGAIN);
	arm_timer(p, a, MS, 0);
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);
	cr_expect(is_pending(p, RT(1)), "the timer's signal queued, charged already");
	memset(&info, 0, sizeof(info));
	info.si_code = SI_QUEUE;
	cr_expect_eq(rp_rt_sigqueueinfo(p, rp_getpid(p), RT(5), &info), -EAGAIN, "still 3");
	cr_assert_eq(rp_timer_delete(p, b), 0);
	cr_expect_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, NULL, &id), 0, "one freed");
	end_task(p);
	finish();
}

/*
 * Linux re-arms a periodic timer when its signal is delivered
 * (posixtimer_deliver_signal): until then the timer is not armed and fires
 * no more; timer_gettime shows it moved past the clock (and counts the
 * overruns it passes, __posix_cpu_timer_get); the delivery counts every
 * expiry since as the signal's overrun, which timer_getoverrun reports
 * until the next delivery.
 */
Test(timer, rearmed_at_delivery)
{
	struct itimerspec its;
	struct rp_task *p;
	siginfo_t info;
	int id;

	start(RP_SYNC_RCU);
	p = spawn_with_timer(CLOCK_PROCESS_CPUTIME_ID, RT(1), &id);
	mask_signal(p, SIG_BLOCK, RT(1));
	arm_timer(p, id, 2 * MS, 2 * MS);
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);	/* 2 ms: fires */
	cr_assert(is_pending(p, RT(1)));
	cr_assert_eq(rp_account_cpu(p, 5 * MS, 0), 0);	/* 7 ms: 4 and 6 passed, unarmed */
	cr_assert_eq(rp_timer_gettime(p, id, &its), 0);
	cr_expect_eq(ts_ns(&its.it_value), MS, "moved to 8 ms");
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);	/* 9 ms: not armed, no second fire */
	cr_expect_eq(rp_timer_getoverrun(p, id), 0, "nothing delivered yet");
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_assert_eq(next_signal(p, &info), RT(1));
	cr_expect_eq(info.si_overrun, 3, "4, 6 and 8 ms");
	cr_expect_eq(next_signal(p, &info), 0, "one signal");
	cr_expect_eq(rp_timer_getoverrun(p, id), 3);
	cr_assert_eq(rp_timer_gettime(p, id, &its), 0);
	cr_expect_eq(ts_ns(&its.it_value), MS, "re-armed at 10 ms");
	cr_assert_eq(rp_account_cpu(p, MS, 0), 0);
	cr_assert_eq(next_signal(p, &info), RT(1));
	cr_expect_eq(info.si_overrun, 0);
	end_task(p);
	finish();
}

/*
 * timer_settime leaves a queued signal of the old setting where it is
 * (sigpending shows it); its delivery finds the generation moved on
 * (it_signal_seq) and drops it.  timer_getoverrun restarts from 0.  A new
 * setting that fires while the old entry is still queued takes it over:
 * one signal, the new setting's.
 */
Test(timer, reset_leaves_old_signal_queued)
{
	struct itimerspec its = { { 0, 0 }, ns_ts(20 * MS) };
	struct rp_task *p;
	siginfo_t info;
	int id;

	start(RP_SYNC_RCU);
	p = spawn_with_timer(CLOCK_PROCESS_CPUTIME_ID, RT(1), &id);
	mask_signal(p, SIG_BLOCK, RT(1));
	arm_timer(p, id, MS, MS);
	cr_assert_eq(rp_account_cpu(p, 3 * MS, 0), 0);
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_assert_eq(next_signal(p, &info), RT(1));
	cr_assert_eq(rp_timer_getoverrun(p, id), 2);
	mask_signal(p, SIG_BLOCK, RT(1));
	cr_assert_eq(rp_account_cpu(p, MS, 0), 0);	/* 4 ms: queued again */
	cr_assert_eq(rp_timer_settime(p, id, 0, &its, NULL), 0);
	cr_expect(is_pending(p, RT(1)), "left queued");
	cr_expect_eq(rp_timer_getoverrun(p, id), 0, "reset");
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_expect_eq(next_signal(p, &info), 0, "dropped at delivery");
	cr_expect(!is_pending(p, RT(1)));
	/* Queued again, reset to a time already passed: the entry carries the new firing. */
	mask_signal(p, SIG_BLOCK, RT(1));
	arm_timer(p, id, MS, 0);
	cr_assert_eq(rp_account_cpu(p, MS, 0), 0);
	its = (struct itimerspec){ { 0, 0 }, { 0, 1 } };
	cr_assert_eq(rp_timer_settime(p, id, TIMER_ABSTIME, &its, NULL), 0);
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_assert_eq(next_signal(p, &info), RT(1), "the new setting's");
	cr_expect_eq(info.si_timerid, id);
	cr_expect_eq(next_signal(p, &info), 0, "once");
	end_task(p);
	finish();
}

/*
 * A deleted timer's queued signal keeps its entry, and with it the
 * RLIMIT_SIGPENDING charge, until the signal is taken off the queue.
 */
Test(timer, deleted_signal_charged_until_dropped)
{
	struct rlimit rl = { 1, 1 };
	struct rp_task *p;
	siginfo_t info;
	int id;

	start(RP_SYNC_RCU);
	p = spawn_with_timer(CLOCK_PROCESS_CPUTIME_ID, RT(1), &id);
	cr_assert_eq(rp_setrlimit(p, RLIMIT_SIGPENDING, &rl), 0);
	mask_signal(p, SIG_BLOCK, RT(1));
	arm_timer(p, id, MS, 0);
	cr_assert_eq(rp_account_cpu(p, MS, 0), 0);
	cr_assert_eq(rp_timer_delete(p, id), 0);
	cr_expect_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, NULL, &id), -EAGAIN,
		     "the queued entry still holds the charge");
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_expect_eq(next_signal(p, &info), 0);
	cr_expect_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, NULL, &id), 0);
	end_task(p);
	finish();
}

/*
 * A periodic timer whose signal is ignored when it fires is parked on its
 * process's ignored list, not re-armed; sigaction from SIG_IGN to a
 * handler queues the signal again, and its delivery re-arms the timer,
 * counting every expiry since.  A pending signal made ignored is parked
 * too.  A one-shot timer's ignored signal is dropped for good.
 */
Test(timer, ignored_periodic_parked_until_unignored)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct rp_task *p;
	siginfo_t info;
	int id, once;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	cr_assert_eq(rp_sigaction(p, RT(1), &ign, NULL), 0);
	id = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	once = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	arm_timer(p, id, MS, MS);
	arm_timer(p, once, MS, 0);
	cr_assert_eq(rp_account_cpu(p, 5500 * US, 0), 0);
	cr_expect(!is_pending(p, RT(1)));
	handle(p, RT(1));
	cr_assert_eq(next_signal(p, &info), RT(1), "queued again by sigaction");
	cr_expect_eq(info.si_timerid, id);
	cr_expect_eq(info.si_overrun, 4, "1 to 5 ms");
	cr_expect_eq(next_signal(p, &info), 0, "the one-shot's went");
	/* Pending, then ignored: parked; handled again: delivered. */
	mask_signal(p, SIG_BLOCK, RT(1));
	cr_assert_eq(rp_account_cpu(p, MS, 0), 0);	/* 6.5 ms */
	cr_assert(is_pending(p, RT(1)));
	cr_assert_eq(rp_sigaction(p, RT(1), &ign, NULL), 0);
	cr_expect(!is_pending(p, RT(1)), "discarded by SIG_IGN");
	handle(p, RT(1));
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_assert_eq(next_signal(p, &info), RT(1));
	cr_expect_eq(info.si_overrun, 0);
	end_task(p);
	finish();
}

/*
 * SIGEV_NONE timers are never armed (Linux): timer_gettime moves a
 * periodic one along the clock, and timer_getoverrun stays 0 since no
 * signal is ever delivered.
 */
Test(timer, sigev_none_read_only)
{
	struct sigevent none = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its;
	struct rp_task *p;
	int id;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	cr_assert_eq(rp_timer_create(p, CLOCK_PROCESS_CPUTIME_ID, &none, &id), 0);
	arm_timer(p, id, MS, 3 * MS);
	cr_assert_eq(rp_account_cpu(p, 8 * MS, 0), 0);
	cr_assert_eq(rp_timer_gettime(p, id, &its), 0);
	cr_expect_eq(ts_ns(&its.it_value), 2 * MS, "1, 4, 7, next 10 ms");
	cr_expect_eq(ts_ns(&its.it_interval), 3 * MS);
	cr_expect_eq(rp_timer_getoverrun(p, id), 0);
	end_task(p);
	finish();
}

/*
 * A periodic timer on another process's clock fires; that process is
 * reaped before the signal is delivered: the re-arm finds no clock, moves
 * nothing, and the overrun, still at its start, reads -1 (Linux:
 * it_overrun is -1 until bump_cpu_timer counts, and the raw
 * timer_getoverrun returns it).
 */
Test(timer, target_reaped_before_delivery)
{
	struct rp_task *p, *c;
	siginfo_t info;
	clockid_t clock;
	int id, status;
	pid_t pid;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	c = spawn(init, SIGCHLD);
	pid = rp_getpid(c);
	handle(p, RT(1));
	mask_signal(p, SIG_BLOCK, RT(1));
	cr_assert_eq(rp_clock_getcpuclockid(p, pid, &clock), 0);
	id = timer_on(p, clock, RT(1));
	arm_timer(p, id, MS, MS);
	cr_assert_eq(rp_account_cpu(c, MS, 0), 0);
	cr_assert_eq(rp_exit(c, 0), 0);
	cr_assert_eq(rp_wait4(init, pid, &status, 0, NULL), pid);
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_assert_eq(next_signal(p, &info), RT(1));
	cr_expect_eq(info.si_overrun, -1);
	cr_expect_eq(rp_timer_getoverrun(p, id), -1);
	rp_task_put(c);
	end_task(p);
	finish();
}

/* exec drops the queued signals of the timers it deletes (Linux's flush_itimer_signals). */
Test(timer, exec_flushes_timer_signals)
{
	struct rp_task *p;
	int id;

	start(RP_SYNC_RCU);
	p = spawn_with_timer(CLOCK_PROCESS_CPUTIME_ID, RT(1), &id);
	mask_signal(p, SIG_BLOCK, RT(1));
	arm_timer(p, id, MS, 0);
	cr_assert_eq(rp_account_cpu(p, MS, 0), 0);
	cr_assert_eq(rp_kill(p, rp_getpid(p), RT(1)), 0);	/* kill's stays */
	cr_assert(is_pending(p, RT(1)));
	cr_assert_eq(rp_execve(p, "new"), 0);
	cr_expect(is_pending(p, RT(1)), "kill's entry");
	mask_signal(p, SIG_UNBLOCK, RT(1));
	handle(p, RT(1));
	cr_expect_eq(rp_get_signal(p, NULL), RT(1));
	cr_expect_eq(rp_get_signal(p, NULL), 0, "the timer's was flushed");
	end_task(p);
	finish();
}

/* The timer ids of the next @n signals @p takes (all RT(1)). */
static void next_timer_ids(struct rp_task *p, int *ids, int n)
{
	siginfo_t info;

	for (int i = 0; i < n; i++) {
		cr_assert_eq(next_signal(p, &info), RT(1), "signal %d of %d", i + 1, n);
		ids[i] = info.si_timerid;
	}
}

/*
 * Linux keeps each clock's armed timers in a queue sorted by expiry
 * (timerqueue: equal ones in arming order) and a tick collects the
 * thread's queues, PROF, VIRT, SCHED, then the process's
 * (handle_posix_cpu_timers, collect_posix_cputimers): the timers fire,
 * and their signals queue, in that order.
 */
Test(timer, fire_in_linux_order)
{
	struct rp_task *p;
	int ids[6], a, b, c, d, e, f;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	handle(p, RT(1));
	mask_signal(p, SIG_BLOCK, RT(1));
	a = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));		/* SCHED, 2 ms */
	b = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));		/* SCHED, 1 ms */
	c = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));		/* SCHED, 2 ms, after a */
	d = timer_on(p, PROCESS_CLOCK(rp_getpid(p), 0), RT(1));	/* PROF, 3 ms */
	e = timer_on(p, CLOCK_THREAD_CPUTIME_ID, RT(1));		/* thread SCHED, 3 ms */
	f = timer_on(p, THREAD_CLOCK(rp_gettid(p), 1), RT(1));	/* thread VIRT, 3 ms */
	arm_timer(p, a, 2 * MS, 0);
	arm_timer(p, b, MS, 0);
	arm_timer(p, c, 2 * MS, 0);
	arm_timer(p, d, 3 * MS, 0);
	arm_timer(p, e, 3 * MS, 0);
	arm_timer(p, f, 3 * MS, 0);
	cr_assert_eq(rp_account_cpu(p, 4 * MS, 0), 0);
	mask_signal(p, SIG_UNBLOCK, RT(1));
	next_timer_ids(p, ids, 6);
	cr_expect_eq(ids[0], f, "the thread's VIRT queue first");
	cr_expect_eq(ids[1], e, "then its SCHED queue");
	cr_expect_eq(ids[2], d, "then the process's PROF queue");
	cr_expect_eq(ids[3], b, "SCHED: the earliest expiry");
	cr_expect_eq(ids[4], a, "equal expiries in arming order");
	cr_expect_eq(ids[5], c);
	end_task(p);
	finish();
}

/*
 * Linux's collect_timerqueue stops at its MAX_COLLECTED-th (20th) timer:
 * a tick fires at most 19 timers of one clock queue; the rest fire at the
 * next tick.
 */
Test(timer, nineteen_per_clock_per_tick)
{
	struct rp_task *p;
	int ids[20], last;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	handle(p, RT(1));
	for (int i = 0; i < 20; i++) {
		last = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
		arm_timer(p, last, MS + (uint64_t)i * US, 0);
	}
	cr_assert_eq(rp_account_cpu(p, 2 * MS, 0), 0);
	next_timer_ids(p, ids, 19);
	cr_expect_eq(next_signal(p, NULL), 0, "the 20th waits for the next tick");
	cr_assert_eq(rp_account_cpu(p, 1, 0), 0);
	next_timer_ids(p, ids, 1);
	cr_expect_eq(ids[0], last);
	end_task(p);
	finish();
}
