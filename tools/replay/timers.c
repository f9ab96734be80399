/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * timer_* on a CPU clock, replayed through rcuproc's POSIX CPU timers.  The
 * recording does not show how much CPU time a task used, only when its
 * timer's signal came: at that line the task is charged the CPU time the
 * timer still had to run (rp_account_cpu), so that rcuproc fires it there.
 * Timers on a wall clock, which rcuproc has not got, are skipped and their
 * signal queued as recorded (deliver.c).  docs/replay.md, "Timers".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rcuproc/timers.h>
#include "replay.h"

#define NSEC_PER_SEC	1000000000L

/* Linux encodes another task's CPU clock as a negative id. */
static bool is_cpu_clock(clockid_t clock)
{
	return clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_THREAD_CPUTIME_ID || clock < 0;
}

/* The timer the recording calls @rec_id in @t's process, or NULL. */
static struct replay_timer *timer_of(struct replay_run *run, struct replay_task *t, long rec_id)
{
	pid_t tgid = rp_getpid(t->task);

	for (int i = 0; i < run->ntimers; i++)
		if (run->timers[i].tgid == tgid && run->timers[i].rec_id == rec_id)
			return &run->timers[i];
	return NULL;
}

static void forget_timer(struct replay_run *run, struct replay_timer *tm)
{
	*tm = run->timers[--run->ntimers];
}

static void remember_timer(struct replay_run *run, struct replay_task *t, long rec_id, int id)
{
	struct replay_timer *old = timer_of(run, t, rec_id);

	if (old)		/* deleted by an exec: the kernel gave its id again */
		forget_timer(run, old);
	if (run->ntimers == run->timers_cap) {
		run->timers_cap = run->timers_cap ? 2 * run->timers_cap : 4;
		run->timers = realloc(run->timers, run->timers_cap * sizeof(*run->timers));
		if (!run->timers)
			abort();
	}
	run->timers[run->ntimers++] = (struct replay_timer){ rp_getpid(t->task), rec_id, id };
}

/* "{sigev_value={sival_int=7, ...}, sigev_signo=10, sigev_notify=0}"; NULL: none. */
static struct sigevent *parse_sigevent(struct replay_run *run, const struct replay_task *t,
				       const char *s, struct sigevent *sev)
{
	long v = 0;

	if (*s != '{')
		return NULL;
	memset(sev, 0, sizeof(*sev));
	if (replay_field(s, "sival_int", &v))
		sev->sigev_value.sival_int = (int)v;
	if (replay_field(s, "sigev_signo", &v))
		sev->sigev_signo = (int)v;
	if (replay_field(s, "sigev_notify", &v))
		sev->sigev_notify = (int)v;
	if (replay_field(s, "sigev_notify_thread_id", &v))
		sev->_sigev_un._tid = (pid_t)replay_pid_to_sim(run, t, v, 0);
	return sev;
}

static bool parse_timespec(const char *s, const char *key, struct timespec *ts)
{
	const char *p = strstr(s, key);
	long sec, nsec;

	if (!p || !replay_field(p, "tv_sec", &sec) || !replay_field(p, "tv_nsec", &nsec))
		return false;
	ts->tv_sec = sec;
	ts->tv_nsec = nsec;
	return true;
}

/* "{it_interval={tv_sec=0, tv_nsec=0}, it_value={...}}": false for NULL. */
static bool parse_itimerspec(const char *s, struct itimerspec *its)
{
	return *s == '{' && parse_timespec(s, "it_interval=", &its->it_interval) &&
	       parse_timespec(s, "it_value=", &its->it_value);
}

/*
 * What is left of a timer depends on the CPU time used since it was armed,
 * which the recording does not show: the value is compared as armed or not.
 */
static void format_itimerspec(const struct itimerspec *its, char *buf, size_t len)
{
	bool armed = its->it_value.tv_sec || its->it_value.tv_nsec;

	snprintf(buf, len, "interval %lld.%09ld %s", (long long)its->it_interval.tv_sec,
		 its->it_interval.tv_nsec, armed ? "armed" : "disarmed");
}

static void expect_itimerspec(struct replay_run *run, const struct replay_event *ev, int arg,
			      const struct itimerspec *got)
{
	struct itimerspec rec;
	char rec_text[64], got_text[64];

	if (ev->ret != 0 || ev->argc <= arg || !parse_itimerspec(ev->argv[arg], &rec))
		return;
	format_itimerspec(&rec, rec_text, sizeof(rec_text));
	format_itimerspec(got, got_text, sizeof(got_text));
	replay_expect(run, ev, "timer value", rec_text, got_text);
}

static long skip_wall_clock(struct replay_run *run, const struct replay_event *ev)
{
	return replay_skip(run, ev, "a wall-clock timer: rcuproc's timers count CPU time");
}

static long call_timer_create(struct replay_run *run, struct replay_task *t,
			      const struct replay_event *ev)
{
	clockid_t clock = (clockid_t)replay_arg(ev, 0);
	struct sigevent sev, *sevp = NULL;
	long rec_id;
	int id;
	long ret;

	if (!is_cpu_clock(clock))
		return skip_wall_clock(run, ev);
	if (ev->argc > 1)
		sevp = parse_sigevent(run, t, ev->argv[1], &sev);
	ret = rp_timer_create(t->task, clock, sevp, &id);
	if (ret == 0 && ev->ret == 0 && ev->argc > 2 && ev->argv[2][0] == '[' &&
	    replay_parse_long(ev->argv[2] + 1, &rec_id))
		remember_timer(run, t, rec_id, id);
	return ret;
}

static long call_timer_settime(struct replay_run *run, struct replay_task *t,
			       const struct replay_event *ev)
{
	struct replay_timer *tm = timer_of(run, t, replay_arg(ev, 0));
	struct itimerspec value, old;
	bool want_old = ev->argc > 3 && ev->argv[3][0] == '{';
	long ret;

	if (!tm)
		return skip_wall_clock(run, ev);
	if (replay_arg(ev, 1) & TIMER_ABSTIME)
		return replay_skip(run, ev, "an absolute CPU time: the recording does not show "
				   "the clock's reading");
	if (ev->argc < 3 || !parse_itimerspec(ev->argv[2], &value))
		return replay_skip(run, ev, "no timer value given");
	ret = rp_timer_settime(t->task, tm->id, 0, &value, want_old ? &old : NULL);
	if (ret == 0 && want_old)
		expect_itimerspec(run, ev, 3, &old);
	return ret;
}

static long call_timer_gettime(struct replay_run *run, struct replay_task *t,
			       const struct replay_event *ev)
{
	struct replay_timer *tm = timer_of(run, t, replay_arg(ev, 0));
	struct itimerspec value;
	long ret;

	if (!tm)
		return skip_wall_clock(run, ev);
	ret = rp_timer_gettime(t->task, tm->id, &value);
	if (ret == 0)
		expect_itimerspec(run, ev, 1, &value);
	return ret;
}

static long call_timer_getoverrun(struct replay_run *run, struct replay_task *t,
				  const struct replay_event *ev)
{
	struct replay_timer *tm = timer_of(run, t, replay_arg(ev, 0));

	return tm ? rp_timer_getoverrun(t->task, tm->id) : skip_wall_clock(run, ev);
}

static long call_timer_delete(struct replay_run *run, struct replay_task *t,
			      const struct replay_event *ev)
{
	struct replay_timer *tm = timer_of(run, t, replay_arg(ev, 0));
	long ret;

	if (!tm)
		return skip_wall_clock(run, ev);
	ret = rp_timer_delete(t->task, tm->id);
	if (ret == 0)
		forget_timer(run, tm);
	return ret;
}

bool replay_fire_cpu_timer(struct replay_run *run, struct replay_task *t,
			   const struct replay_event *ev)
{
	struct replay_timer *tm = timer_of(run, t, ev->info_timerid);
	struct itimerspec value;

	if (!tm || rp_timer_gettime(t->task, tm->id, &value))
		return false;
	rp_account_cpu(t->task, (uint64_t)value.it_value.tv_sec * NSEC_PER_SEC +
			 (uint64_t)value.it_value.tv_nsec, 0);
	return true;
}

void replay_expect_timer_info(struct replay_run *run, struct replay_task *t,
			      const struct replay_event *ev, const siginfo_t *info)
{
	char rec[96], got[96];
	long rec_id = -1;

	for (int i = 0; i < run->ntimers; i++)
		if (run->timers[i].tgid == rp_getpid(t->task) && run->timers[i].id == info->si_timerid)
			rec_id = run->timers[i].rec_id;
	snprintf(rec, sizeof(rec), "timer %ld overrun %ld value %ld", ev->info_timerid,
		 ev->info_overrun, ev->info_int);
	snprintf(got, sizeof(got), "timer %ld overrun %d value %d", rec_id, info->si_overrun,
		 info->si_int);
	replay_expect(run, ev, "timer signal", rec, got);
}

const struct replay_call_def replay_timer_calls[] = {
	{ "timer_create", call_timer_create, false, false },
	{ "timer_settime", call_timer_settime, false, false },
	{ "timer_gettime", call_timer_gettime, false, false },
	{ "timer_getoverrun", call_timer_getoverrun, false, false },
	{ "timer_delete", call_timer_delete, false, false },
	{ 0 },
};
