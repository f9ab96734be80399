/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The replay engine: recorded tasks become rcuproc tasks, events run in
 * their replay order, and every answer is compared with the recording.
 * The rules are in docs/replay.md.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "replay.h"

/* Pids the recording names but never created map above rcuproc's pid_max. */
#define UNKNOWN_PID_BASE	4000000

/* The newest first: a number given again (clone3's set_tid asks for a
 * number a reaped task had) names the task made last. */
struct replay_task *replay_task_of(struct replay_run *run, pid_t rec)
{
	for (int i = run->ntasks - 1; i >= 0; i--)
		if (run->tasks[i]->rec == rec)
			return run->tasks[i];
	return NULL;
}

static struct replay_task *task_by_nr(struct replay_run *run, pid_t nr)
{
	for (int i = run->ntasks - 1; i >= 0; i--)
		if (run->tasks[i]->nr == nr)
			return run->tasks[i];
	return NULL;
}

static pid_t unknown_to_sim(struct replay_run *run, pid_t rec)
{
	int i;

	for (i = 0; i < run->nunknown; i++)
		if (run->unknown_rec[i] == rec)
			return UNKNOWN_PID_BASE + i;
	if (i == (int)(sizeof(run->unknown_rec) / sizeof(run->unknown_rec[0])))
		return UNKNOWN_PID_BASE - 1;
	run->unknown_rec[run->nunknown++] = rec;
	return UNKNOWN_PID_BASE + i;
}

/* A recorded pid (negative: a group) as rcuproc numbers it; 0 and -1 stay. */
long replay_pid_to_sim(struct replay_run *run, const struct replay_task *caller, long rec,
		       long root)
{
	long a = labs(rec), sign = rec < 0 ? -1 : 1;
	struct replay_task *t;
	pid_t nr;

	if (a <= 1)
		return rec;
	if (replay_nested(caller)) {
		/* The caller's namespace's own numbers, compared as they are. */
		if (!root)
			return rec;
		t = replay_task_of(run, (pid_t)root);
		nr = t && t->task ? replay_nr_in(t, caller->ns) : 0;
		return sign * (nr ? nr : unknown_to_sim(run, (pid_t)root));
	}
	if (a == run->recorder_rec)
		return sign * rp_getpid(run->recorder);
	t = replay_task_of(run, (pid_t)a);
	if (t && t->task)
		return sign * t->nr;
	return sign * unknown_to_sim(run, (pid_t)a);
}

long replay_arg(const struct replay_event *ev, int i)
{
	long v = 0;

	if (i < ev->argc)
		replay_parse_long(ev->argv[i], &v);
	return v;
}

pid_t replay_pid_arg(struct replay_run *run, const struct replay_task *caller,
		     const struct replay_event *ev, int i)
{
	long rec = replay_arg(ev, i), root = i < ev->argc ? replay_ns_note(ev->argv[i]) : 0;

	replay_expect_noted(run, caller, ev, rec, root);
	return (pid_t)replay_pid_to_sim(run, caller, rec, root);
}

/* An rcuproc pid as the recording numbers it. */
long replay_pid_to_rec(struct replay_run *run, const struct replay_task *caller, long nr)
{
	long a = labs(nr), sign = nr < 0 ? -1 : 1;
	struct replay_task *t;

	if (a <= 1 || replay_nested(caller))
		return nr;
	if (a == rp_getpid(run->recorder))
		return sign * run->recorder_rec;
	t = task_by_nr(run, (pid_t)a);
	if (t)
		return sign * t->rec;
	if (a >= UNKNOWN_PID_BASE && a < UNKNOWN_PID_BASE + run->nunknown)
		return sign * run->unknown_rec[a - UNKNOWN_PID_BASE];
	return sign * (a + 1000000000L);	/* a pid the recording cannot have */
}

void replay_fputs_call(FILE *out, const struct replay_event *ev)
{
	const char *args = ev->args ? ev->args : "";

	replay_fputs_quoted(out, ev->name, strlen(ev->name), sizeof(ev->name));
	fputc('(', out);
	replay_fputs_quoted(out, args, strlen(args), 300);
	fputc(')', out);
}

static void report(struct replay_run *run, const struct replay_event *ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(struct replay_run *run, const struct replay_event *ev, const char *fmt, ...)
{
	struct replay_task *t = replay_task_of(run, ev->pid);
	va_list ap;

	run->mismatches++;
	if (t)
		t->mismatches++;
	fprintf(run->out, "MISMATCH %s:%d: pid %d ", run->file, ev->line, ev->pid);
	if (ev->kind == REPLAY_CALL) {
		replay_fputs_call(run->out, ev);
		fputs(": ", run->out);
	}
	va_start(ap, fmt);
	vfprintf(run->out, fmt, ap);
	va_end(ap);
	fputc('\n', run->out);
}

void replay_expect(struct replay_run *run, const struct replay_event *ev, const char *what,
		   const char *rec, const char *got)
{
	if (strcmp(rec, got))
		report(run, ev, "%s: recorded %s, rcuproc %s", what, rec, got);
}

void replay_expect_noted(struct replay_run *run, const struct replay_task *caller,
			 const struct replay_event *ev, long rec, long root)
{
	struct replay_task *t = root ? replay_task_of(run, (pid_t)root) : NULL;
	char what[80], want[24], got[24];

	if (!t || !t->task || !replay_nested(caller))
		return;
	snprintf(what, sizeof(what), "the number of pid %ld in the caller's namespace", root);
	snprintf(want, sizeof(want), "%ld", labs(rec));
	snprintf(got, sizeof(got), "%d", replay_nr_in(t, caller->ns));
	replay_expect(run, ev, what, want, got);
}

long replay_skip(struct replay_run *run, const struct replay_event *ev, const char *why)
{
	run->skipped++;
	if (run->verbose)
		fprintf(run->out, "skip %s:%d: pid %d %s: %s\n", run->file, ev->line, ev->pid,
			ev->name, why);	/* a known call's name: printable */
	return REPLAY_SKIPPED;
}

struct replay_task *replay_add_task(struct replay_run *run, pid_t rec, struct rp_task *task)
{
	struct replay_task *t;

	run->tasks = realloc(run->tasks, (run->ntasks + 1) * sizeof(*run->tasks));
	t = calloc(1, sizeof(*t));
	if (!run->tasks || !t)
		abort();
	run->tasks[run->ntasks++] = t;
	t->rec = rec;
	t->task = task;
	replay_place_task(run, t);
	return t;
}

static void format_result(long ret, char *buf, size_t len)
{
	if (ret < 0)
		snprintf(buf, len, "-1 %s", replay_errno_name((int)-ret));
	else
		snprintf(buf, len, "%ld", ret);
}

static const struct replay_call_def *find_call(const char *name)
{
	const struct replay_call_def *tables[] = {
		replay_core_calls, replay_group_calls, replay_cred_calls, replay_timer_calls,
		replay_ns_calls,
	};

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		for (const struct replay_call_def *d = tables[i]; d->name; d++)
			if (!strcmp(d->name, name))
				return d;
	return NULL;
}

/*
 * Did Linux refuse @ev for a limit the recording set that counts over the
 * whole machine (creds.c)?  Then rcuproc's answer cannot be compared.
 */
static bool hit_machine_wide_limit(const struct replay_run *run, const struct replay_event *ev)
{
	static const char *const queues[] = { "kill", "tkill", "tgkill", "rt_sigqueueinfo" };

	if (ev->ret != -EAGAIN)
		return false;
	if (run->inexact & (1u << RLIMIT_NPROC) &&
	    (!strncmp(ev->name, "clone", 5) || strstr(ev->name, "fork")))
		return true;
	for (size_t i = 0; i < sizeof(queues) / sizeof(queues[0]); i++)
		if (run->inexact & (1u << RLIMIT_SIGPENDING) && !strcmp(ev->name, queues[i]))
			return true;
	return false;
}

static void replay_call(struct replay_run *run, struct replay_task *t,
			const struct replay_event *ev)
{
	const struct replay_call_def *def = find_call(ev->name);
	char rec[48], got[48];
	long ret;

	if (!def) {
		replay_skip(run, ev, "not a call rcuproc models");
		return;
	}
	if (ev->interrupted && !def->acts_when_interrupted) {
		replay_skip(run, ev, "interrupted: no effect, the call is issued again");
		return;
	}
	if (t->dead) {
		report(run, ev, "rcuproc: the task has already exited");
		return;
	}
	/* No handler ran since the task's last suspending call was interrupted. */
	replay_restore_suspended_mask(t);
	ret = def->fn(run, t, ev);
	if (ret == REPLAY_SKIPPED)
		return;
	t->calls++;
	run->replayed++;
	if (ev->ret_unknown)
		return;
	if (def->returns_pid && ret > 0)
		ret = replay_pid_to_rec(run, t, ret);
	if (def->returns_pid && ret > 0 && ev->ret == ret)
		replay_expect_noted(run, t, ev, ev->ret, ev->ret_root);
	format_result(ev->ret, rec, sizeof(rec));
	format_result(ret, got, sizeof(got));
	if (ret != ev->ret && hit_machine_wide_limit(run, ev)) {
		run->inexact_answers++;
		fprintf(run->out, "inexact %s:%d: pid %d ", run->file, ev->line, ev->pid);
		replay_fputs_call(run->out, ev);
		fprintf(run->out, ": recorded %s, rcuproc %s: a limit counted over the machine\n",
			rec, got);
		return;
	}
	replay_expect(run, ev, "result", rec, got);
}

/* The top of the recording: the recorder's child. */
static struct replay_task *top_task(struct replay_run *run, const struct replay_event *ev)
{
	struct rp_task *child;

	if (run->ntasks || rp_fork(run->recorder, &child) <= 0)
		return NULL;
	return replay_add_task(run, ev->pid, child);
}

const char *replay_kind_name(enum replay_kind kind)
{
	static const char *const names[] = {
		[REPLAY_CALL] = "call", [REPLAY_SIGNAL] = "signal delivery",
		[REPLAY_STOPPED] = "stop", [REPLAY_EXITED] = "exit", [REPLAY_KILLED] = "death",
		[REPLAY_SUPERSEDED] = "supersession by an exec",
	};

	return names[kind];
}

/*
 * "LEADER +++ superseded by execve in pid N +++": thread N's exec took the
 * leader's pid, which the replay did when it replayed the exec (calls.c);
 * the task the recording now calls LEADER must be that thread.
 */
static void check_superseded(struct replay_run *run, struct replay_task *t,
			     const struct replay_event *ev)
{
	char rec[48], got[48];

	snprintf(rec, sizeof(rec), "by the exec of %d", ev->status);
	if (t->exec_tid)
		snprintf(got, sizeof(got), "by the exec of %d", t->exec_tid);
	else
		snprintf(got, sizeof(got), "not superseded");
	replay_expect(run, ev, "leader", rec, got);
}

/* The init of @ns (its leader, numbered 1 there), or NULL. */
static struct replay_task *init_of(struct replay_run *run, const struct replay_ns *ns)
{
	for (int i = 0; i < run->ntasks; i++)
		if (run->tasks[i]->ns == ns && run->tasks[i]->nrs[ns->level] == 1)
			return run->tasks[i];
	return NULL;
}

/*
 * @t was killed by SIGKILL: if by the end of its namespace (or one above
 * it), its init's exit_group, whose line came before, runs now.  Linux's
 * init kills the namespace in its exit and reaps before it is a zombie,
 * so the victims' "+++" lines come before init's own, where rule 3 of
 * docs/replay.md would run the exit.
 */
static void end_namespaces_first(struct replay_run *run, struct replay_task *t)
{
	for (struct replay_ns *ns = t->ns; ns && ns->level; ns = ns->parent) {
		struct replay_task *init = init_of(run, ns);
		int status;

		if (!init || init->dead || !replay_take_exit_early(run->reader, init->rec, &status))
			continue;
		rp_exit_group(init->task, status);
		init->dead = true;
		init->calls++;
		run->replayed++;
	}
}

static void replay_event(struct replay_run *run, const struct replay_event *ev)
{
	struct replay_task *t = replay_task_of(run, ev->pid);

	if (ev->early)
		return;		/* replayed at a death it caused */
	if (!t)
		t = top_task(run, ev);
	if (!t) {
		report(run, ev, "a task the recording never created");
		return;
	}
	switch (ev->kind) {
	case REPLAY_CALL:
		replay_call(run, t, ev);
		break;
	case REPLAY_SIGNAL:
		replay_delivery(run, t, ev);
		break;
	case REPLAY_STOPPED:
		replay_check_stopped(run, t, ev);
		break;
	case REPLAY_KILLED:
		if (ev->sig == SIGKILL && !t->dead)
			end_namespaces_first(run, t);
		/* fall through */
	case REPLAY_EXITED:
		replay_end(run, t, ev);
		break;
	case REPLAY_SUPERSEDED:
		check_superseded(run, t, ev);
		break;
	}
}

/* Whoever is left to reap them (the recorder, or init for orphans) reaps
 * now, and each status is compared with the task's "+++" line. */
static void reap_the_rest(struct replay_run *run, struct rp_task *reaper)
{
	char rec[48], got[48];
	struct replay_task *t;
	pid_t nr;
	int st;

	while ((nr = rp_wait4(reaper, -1, &st, WNOHANG | __WALL, NULL)) > 0) {
		t = task_by_nr(run, nr);
		if (!t || !t->ended)
			continue;
		replay_format_wstatus(t->end_status, rec, sizeof(rec));
		replay_format_wstatus(st, got, sizeof(got));
		if (strcmp(rec, got)) {
			run->mismatches++;
			t->mismatches++;
			fprintf(run->out, "MISMATCH %s: pid %d: final status: recorded %s, rcuproc %s\n",
				run->file, t->rec, rec, got);
		}
	}
}

static void check_ended(struct replay_run *run, struct replay_task *t)
{
	if (!t->ended || t->dead)
		return;
	run->mismatches++;
	t->mismatches++;
	fprintf(run->out, "MISMATCH %s: pid %d: ended in the recording, still running in rcuproc\n",
		run->file, t->rec);
}

static void summary(struct replay_run *run)
{
	char st[48];

	for (int i = 0; i < run->ntasks; i++) {
		struct replay_task *t = run->tasks[i];

		check_ended(run, t);
		if (!run->verbose && !t->mismatches)
			continue;
		if (t->ended)
			replay_format_wstatus(t->end_status, st, sizeof(st));
		else if (t->superseded)
			snprintf(st, sizeof(st), "superseded by the exec of %d", t->rec);
		else if (t->user)
			snprintf(st, sizeof(st), "not followed by strace (CLONE_UNTRACED)");
		else
			snprintf(st, sizeof(st), "no end recorded");
		/* A superseded leader keeps its recorded pid in exec_tid. */
		fprintf(run->out, "  pid %d (rcuproc %d): %d calls, %d mismatches, %s\n",
			t->superseded ? t->exec_tid : t->rec, t->nr, t->calls, t->mismatches, st);
	}
	fprintf(run->out, "replay %s: %d tasks, %d calls replayed, %d skipped, %d mismatches",
		run->file, run->ntasks, run->replayed, run->skipped, run->mismatches);
	if (run->inexact)
		fprintf(run->out, " (not exact: it sets a limit counted over the machine; "
			"%d answers noted)", run->inexact_answers);
	fputc('\n', run->out);
}

static int setup(struct replay_run *run, enum rp_sync_mode mode)
{
	struct rp_system_opts opts = { .mode = mode };

	if (rp_system_create(&opts, &run->sys))
		return -1;
	run->init = rp_system_init(run->sys);
	replay_ns_setup(run);
	if (rp_fork(run->init, &run->recorder) <= 0)
		return -1;
	replay_setup_recorder(run);
	return 0;
}

static void teardown(struct replay_run *run)
{
	for (int i = 0; i < run->ntasks; i++) {
		rp_task_put(run->tasks[i]->task);
		free(run->tasks[i]->user);
		free(run->tasks[i]->frames);
		free(run->tasks[i]->nrs);
		free(run->tasks[i]);
	}
	replay_ns_teardown(run);
	if (run->recorder) {
		replay_teardown_recorder(run);
		rp_task_put(run->recorder);
	}
	if (run->init)
		rp_task_put(run->init);
	if (run->sys)
		rp_system_destroy(run->sys);
	free(run->tasks);
	free(run->timers);
}

/* The next event, the watchdog looking away while the file is read. */
static int next_event(struct replay_run *run, struct replay_reader *r, struct replay_event **ev)
{
	int got;

	/* Pairs with the load in the watchdog: a slow pipe is no stuck replay. */
	__atomic_store_n(&run->reading, true, __ATOMIC_RELEASE);
	got = replay_next(r, ev);
	__atomic_store_n(&run->reading, false, __ATOMIC_RELEASE);
	return got;
}

/* Replay events from @first on; false if the recording could not be read
 * or was refused (run->refused). */
static bool replay_events(struct replay_run *run, struct replay_reader *r,
			  struct replay_event *first)
{
	struct replay_event *ev = first, *prev = NULL;
	int got = 1;

	while (got > 0) {
		replay_watchdog_tick(run, ev);
		/* The watchdog may name the previous event until the tick above. */
		replay_event_free(prev);
		replay_event(run, ev);
		prev = ev;
		if (run->refused)
			break;		/* before anything after it is compared */
		replay_settle_stoppers(run);
		replay_settle_unrecorded(run, ev);
		got = next_event(run, r, &ev);
	}
	replay_watchdog_tick(run, NULL);
	replay_event_free(prev);
	return got == 0 && !run->refused;
}

int replay_run_trace(struct replay_reader *r, const struct replay_opts *opts, FILE *out,
		     struct replay_counts *counts)
{
	struct replay_run run = { .file = r->file, .reader = r, .out = out,
				  .verbose = opts->verbose };
	struct replay_watchdog dog;
	struct replay_event *first;
	int mismatches = -1, got;

	if (replay_watchdog_start(&dog, &run, opts->watchdog_seconds))
		return -1;
	got = next_event(&run, r, &first);
	if (got == 0)
		fprintf(stderr, "rcuproc replay: %s: nothing to replay: no traced line after "
			"the header\n", r->file);
	run.recorder_rec = r->recorder;
	if (got > 0 && !setup(&run, opts->mode)) {
		bool read_all = replay_events(&run, r, first);

		replay_end_stoppers(&run);
		replay_end_unrecorded(&run);
		if (read_all) {
			reap_the_rest(&run, run.recorder);
			reap_the_rest(&run, run.init);
			summary(&run);
			mismatches = run.mismatches;
			if (counts) {
				counts->tasks += run.ntasks;
				counts->replayed += run.replayed;
				counts->skipped += run.skipped;
				counts->mismatches += run.mismatches;
			}
		}
	}
	teardown(&run);
	replay_watchdog_stop(&dog);
	return run.refused ? REPLAY_REFUSED : mismatches;
}
