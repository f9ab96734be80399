/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/timers.h: CPU-time accounting and POSIX CPU timers.
 *
 * Simulated CPU time is charged by the caller with rp_account_cpu(), which
 * stands in for the scheduler tick: it adds the time and fires the timers
 * that expire.  Clock ids are Linux's: CLOCK_PROCESS_CPUTIME_ID,
 * CLOCK_THREAD_CPUTIME_ID, and those of rp_clock_getcpuclockid() and
 * rp_pthread_getcpuclockid() (Linux's encoding).
 */
#ifndef RCUPROC_TIMERS_H
#define RCUPROC_TIMERS_H

#include <stdint.h>
#include <time.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/resource.h>
#include <rcuproc/proc.h>
#include <rcuproc/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Charge user and system CPU time to @t and fire what expires: 0, or
 * -ESRCH once @t has passed its exit point, or -ENOMEM if @t's first
 * charge finds no memory for its CPU time (nothing is charged then).
 */
RP_API int rp_account_cpu(struct rp_task *t, uint64_t user_ns, uint64_t system_ns);

/*
 * As Linux: an id naming no CPU clock, a thread of another process, or a
 * task that was reaped is -EINVAL for gettime/getres; getcpuclockid answers
 * -ESRCH for no such process (no permission check: any process's clock may
 * be read).  Non-CPU clocks (CLOCK_REALTIME...) are -EINVAL: no wall clock.
 */
RP_API int rp_clock_getcpuclockid(struct rp_task *self, pid_t pid, clockid_t *clock);
RP_API int rp_pthread_getcpuclockid(struct rp_task *self, pid_t tid, clockid_t *clock);
RP_API int rp_clock_gettime(struct rp_task *self, clockid_t clock, struct timespec *tp);
RP_API int rp_clock_getres(struct rp_task *self, clockid_t clock, struct timespec *tp);

/* times(2) in clock ticks of sysconf(_SC_CLK_TCK); the return value is the
 * caller's group's CPU time in ticks (there is no wall clock). */
RP_API long rp_times(struct rp_task *self, struct tms *buf);
/* RUSAGE_SELF, RUSAGE_CHILDREN, RUSAGE_THREAD: only the time fields are kept. */
RP_API int rp_getrusage(struct rp_task *self, int who, struct rusage *usage);

/*
 * timer_create(2): SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD_ID on a CPU clock
 * (another process's too); ids per process from 0, not reused.  A timer
 * whose target was reaped: settime -ESRCH, gettime all zero.  The first
 * settime of a timer on a clock that was never charged nor had a timer
 * set allocates the clock's CPU-time state: -ENOMEM if it cannot (the
 * timer stays disarmed).  exec deletes
 * the process's timers.  As Linux, a periodic timer is re-armed when its
 * signal is delivered, and getoverrun answers the overrun of the last
 * signal delivered; settime and delete leave a queued signal queued, and
 * its delivery drops it.  See docs/timers.md.
 */
RP_API int rp_timer_create(struct rp_task *self, clockid_t clock, struct sigevent *sev,
			   int *timerid);
RP_API int rp_timer_settime(struct rp_task *self, int timerid, int flags,
			    const struct itimerspec *value, struct itimerspec *old);
RP_API int rp_timer_gettime(struct rp_task *self, int timerid, struct itimerspec *value);
RP_API int rp_timer_getoverrun(struct rp_task *self, int timerid);
RP_API int rp_timer_delete(struct rp_task *self, int timerid);

/* setitimer(2)/getitimer(2): ITIMER_PROF and ITIMER_VIRTUAL (ITIMER_REAL:
 * -EINVAL, there is no wall clock). */
RP_API int rp_setitimer(struct rp_task *self, int which, const struct itimerval *value,
			struct itimerval *old);
RP_API int rp_getitimer(struct rp_task *self, int which, struct itimerval *value);

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_TIMERS_H */
