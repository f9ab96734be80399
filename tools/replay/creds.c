/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credentials and limits, replayed: setuid, setresuid and capset change
 * what rcuproc's permission checks see (kill, setpriority, ptrace, ...);
 * setrlimit and prlimit64 set and read the limits rcuproc keeps.  The
 * recording starts from the machine's credentials and limits, which
 * rcuproc's fresh tasks do not share: the first value a recording reads
 * of a limit it has not set is taken, not compared (docs/replay.md).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "replay.h"

static long call_setuid(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	(void)run;
	return rp_setuid(t->task, (uid_t)replay_arg(ev, 0));
}

static long call_setresuid(struct replay_run *run, struct replay_task *t,
			   const struct replay_event *ev)
{
	(void)run;
	return rp_setresuid(t->task, (uid_t)replay_arg(ev, 0), (uid_t)replay_arg(ev, 1),
			    (uid_t)replay_arg(ev, 2));
}

static long call_setgroups(struct replay_run *run, struct replay_task *t,
			   const struct replay_event *ev)
{
	(void)t;
	return replay_skip(run, ev, "supplementary groups are not modelled");
}

/* The capabilities rcuproc checks. */
static const int modelled_caps[] = {
	RP_CAP_KILL, RP_CAP_SETUID, RP_CAP_SYS_PTRACE, RP_CAP_SYS_ADMIN, RP_CAP_SYS_NICE,
	RP_CAP_SYS_RESOURCE, RP_CAP_CHECKPOINT_RESTORE,
};

/*
 * The effective set of capset's data, which strace prints as the two
 * 32-bit words "LOW|HIGH" (capabilities 32 and up, CAP_CHECKPOINT_RESTORE
 * among them, are in HIGH): false if there is none.
 */
static bool effective_set(const char *data, uint64_t *set)
{
	const char *p = strstr(data, "effective=");
	unsigned long long low, high = 0;
	char *end;

	if (!p)
		return false;
	p += strlen("effective=");
	low = strtoull(p, &end, 0);
	if (end == p)
		return false;
	if (*end == '|')
		high = strtoull(end + 1, &end, 0);
	*set = (low & 0xffffffffULL) | (high << 32);
	return true;
}

/*
 * capset(header, {effective=LOW|HIGH, ...}): every capability rcuproc
 * checks that the new effective set lacks is dropped.  rcuproc cannot
 * raise one back; the recordings only drop.
 */
static long call_capset(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	uint64_t effective;
	long pid = 0;

	if (ev->argc > 0)
		replay_field(ev->argv[0], "pid", &pid);
	if (pid && replay_pid_to_sim(run, t, pid, 0) != rp_gettid(t->task))
		return replay_skip(run, ev, "capset of another task");
	if (ev->argc < 2 || !effective_set(ev->argv[1], &effective))
		return replay_skip(run, ev, "no capability sets given");
	for (size_t i = 0; i < sizeof(modelled_caps) / sizeof(modelled_caps[0]); i++)
		if (!(effective & (1ULL << modelled_caps[i])) &&
		    rp_cap_has(t->task, modelled_caps[i]) == 1)
			rp_cap_drop(t->task, modelled_caps[i]);
	return ev->ret;		/* rcuproc has no capset: the drops above are its effect */
}

/* "{rlim_cur=N, rlim_max=M}": false for NULL or a pointer. */
static bool parse_rlimit(const char *s, struct rlimit *lim)
{
	long cur, max;

	if (*s != '{' || !replay_field(s, "rlim_cur", &cur) || !replay_field(s, "rlim_max", &max))
		return false;
	lim->rlim_cur = (rlim_t)cur;
	lim->rlim_max = (rlim_t)max;
	return true;
}

static void format_rlimit(const struct rlimit *lim, char *buf, size_t len)
{
	snprintf(buf, len, "{cur %llu max %llu}", (unsigned long long)lim->rlim_cur,
		 (unsigned long long)lim->rlim_max);
}

/*
 * RLIMIT_SIGPENDING and RLIMIT_NPROC count the user's signals and tasks
 * over the whole machine, which the recording does not show: a recording
 * that sets one cannot be replayed exactly where it matters.  The limit is
 * not set; a note says so, and the answers that hit it are noted, not
 * reported (run.c).
 */
static bool counts_machine_wide(struct replay_run *run, const struct replay_event *ev,
				int resource)
{
	if (resource != RLIMIT_SIGPENDING && resource != RLIMIT_NPROC)
		return false;
	run->inexact |= 1u << resource;
	fprintf(run->out, "note %s:%d: pid %d sets %s, which Linux counts per user over the "
		"whole machine: the recording cannot be replayed exactly where it depends on it\n",
		run->file, ev->line, ev->pid,
		resource == RLIMIT_SIGPENDING ? "RLIMIT_SIGPENDING" : "RLIMIT_NPROC");
	return true;
}

/*
 * The old value a call read: compared once the recording has set the
 * limit; before, it is the machine's, and rcuproc takes it.
 */
static void check_old_rlimit(struct replay_run *run, struct replay_task *t,
			     const struct replay_event *ev, int resource, const struct rlimit *rec)
{
	char want[64], got[64];
	struct rlimit now;

	if (resource < 0 || resource >= 32 || !(run->rlimits_set & (1u << resource))) {
		rp_setrlimit(t->task, resource, rec);
		return;
	}
	if (rp_getrlimit(t->task, resource, &now))
		return;
	format_rlimit(rec, want, sizeof(want));
	format_rlimit(&now, got, sizeof(got));
	replay_expect(run, ev, "old limit", want, got);
}

/* prlimit64(pid, resource, new, old) and setrlimit(resource, new): @arg is
 * the resource's argument. */
static long set_and_get_rlimit(struct replay_run *run, struct replay_task *t,
			       const struct replay_event *ev, int arg)
{
	int resource = (int)replay_arg(ev, arg);
	struct rlimit lim, old;
	bool has_new = arg + 1 < ev->argc && parse_rlimit(ev->argv[arg + 1], &lim);
	bool has_old = ev->ret == 0 && arg + 2 < ev->argc && parse_rlimit(ev->argv[arg + 2], &old);

	if (has_old)
		check_old_rlimit(run, t, ev, resource, &old);
	if (!has_new)
		return has_old ? 0 : replay_skip(run, ev, "neither a limit set nor one read");
	if (counts_machine_wide(run, ev, resource))
		return replay_skip(run, ev, "a limit counted over the whole machine");
	if (resource >= 0 && resource < 32 && ev->ret == 0)
		run->rlimits_set |= 1u << resource;
	return rp_setrlimit(t->task, resource, &lim);
}

static long call_setrlimit(struct replay_run *run, struct replay_task *t,
			   const struct replay_event *ev)
{
	return set_and_get_rlimit(run, t, ev, 0);
}

static long call_prlimit64(struct replay_run *run, struct replay_task *t,
			   const struct replay_event *ev)
{
	long pid = replay_arg(ev, 0);

	if (pid && replay_pid_to_sim(run, t, pid, 0) != rp_getpid(t->task))
		return replay_skip(run, ev, "the limits of another process are not modelled");
	return set_and_get_rlimit(run, t, ev, 1);
}

const struct replay_call_def replay_cred_calls[] = {
	{ "setuid", call_setuid, false, false },
	{ "setresuid", call_setresuid, false, false },
	{ "setgroups", call_setgroups, false, false },
	{ "capset", call_capset, false, false },
	{ "setrlimit", call_setrlimit, false, false },
	{ "prlimit64", call_prlimit64, false, false },
	{ 0 },
};
