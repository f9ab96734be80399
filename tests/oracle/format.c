/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The oracle's answers as strings, and the comparison of two runs. */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "oracle.h"

pid_t or_resolve(const struct or_pidmap *map, long arg)
{
	if (arg == S(EXT))
		return map->ext;
	if (arg >= S(P0) && arg < S(OR_MAX_PROCS))
		return map->pid[arg - OR_SYM_BASE];
	if (arg <= -S(P0) && arg > -S(OR_MAX_PROCS))
		return -map->pid[-arg - OR_SYM_BASE];
	return (pid_t)arg;
}

/* Is process @t in namespace @ns at level @level or below it (seen from there)? */
static bool or_seen_from(const struct or_place *t, int level, uintptr_t ns)
{
	return t->levels > level && t->ns[level] == ns;
}

void or_view(const struct or_pidmap *map, int who, struct or_pidmap *view)
{
	const struct or_place *v = &map->place[who];
	int level = v->levels - 1;

	*view = *map;
	if (level <= 0)
		return;		/* the driver's namespace sees every process */
	view->ext = OR_PID_UNSEEN;
	for (int i = 0; i < OR_MAX_PROCS; i++) {
		if (!map->pid[i])
			continue;	/* no process: as in the run's map */
		view->pid[i] = or_seen_from(&map->place[i], level, v->ns[level]) ?
			       map->place[i].nr[level] : OR_PID_UNSEEN;
	}
}

/*
 * Which arguments of @op name a process (bit 0: a, 1: b, 2: c).  The others
 * pass as they are: a flag word may hold any bits, S(P0)'s (__WALL) too.
 */
static unsigned int pid_args(enum or_op op)
{
	switch (op) {
	case OP_WAIT4:
	case OP_KILL:
	case OP_TIOCSPGRP:
	case OP_NSPID:
		return 1u << 0;
	case OP_WAITID:
	case OP_IOPRIO_SET:
	case OP_IOPRIO_GET:
	case OP_PTRACE:
	case OP_ATTACH_POLL:
		return 1u << 1;
	case OP_TGKILL:
	case OP_SETPGID:
		return 1u << 0 | 1u << 1;
	default:
		return 0;
	}
}

void or_resolve_args(const struct or_step *s, const struct or_pidmap *map, long out[3])
{
	const long in[3] = { s->a, s->b, s->c };
	unsigned int pids = pid_args(s->op);

	for (int k = 0; k < 3; k++)
		out[k] = pids & (1u << k) ? or_resolve(map, in[k]) : in[k];
}

void or_reply_siginfo(struct or_reply *r, const siginfo_t *si)
{
	r->w_pid = si->si_pid;
	r->w_uid = (int)si->si_uid;
	r->w_signo = si->si_signo;
	r->w_code = si->si_code;
	r->w_status = si->si_status;
}

long or_rusage_ns(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000L +
	       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000L;
}

void or_reply_sigset(struct or_reply *r, uint64_t set)
{
	r->nsigs = 0;
	for (int sig = 1; sig < OR_NSIG && r->nsigs < OR_MAX_SIGS; sig++)
		if (set & (1ULL << (sig - 1)))
			r->sigs[r->nsigs++] = sig;
}

/* Append to a fixed buffer; output past its end is cut off. */
__attribute__((format(printf, 3, 4)))
static void put(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static void put_pid(char *buf, size_t len, const struct or_pidmap *map, pid_t pid)
{
	if (pid > 0 && pid == map->ext) {
		put(buf, len, "EXT");
		return;
	}
	for (int i = 0; i < OR_MAX_PROCS; i++) {
		if (pid > 0 && map->pid[i] == pid) {
			put(buf, len, "P%d", i);
			return;
		}
	}
	put(buf, len, pid > 0 ? "pid?%d" : "%d", pid);
}

static void put_sig(char *buf, size_t len, int sig)
{
	const char *name = sig > 0 && sig < 32 ? sigabbrev_np(sig) : NULL;

	if (name)
		put(buf, len, "SIG%s", name);
	else
		put(buf, len, "%d", sig);
}

static void put_arg(char *buf, size_t len, long arg)
{
	if (arg == S(EXT))
		put(buf, len, "EXT");
	else if (arg >= S(P0) && arg < S(OR_MAX_PROCS))
		put(buf, len, "P%ld", arg - OR_SYM_BASE);
	else if (arg <= -S(P0) && arg > -S(OR_MAX_PROCS))
		put(buf, len, "-P%ld", -arg - OR_SYM_BASE);
	else
		put(buf, len, "%ld", arg);
}

/* "@name(@a, @b)", with names for pids that have one. */
static void put_call2(char *buf, size_t len, const char *name, long a, long b)
{
	put(buf, len, "%s(", name);
	put_arg(buf, len, a);
	put(buf, len, ", ");
	put_arg(buf, len, b);
	put(buf, len, ")");
}

static const char *const act_names[ACT_NR] = {
	"SIG_DFL", "SIG_IGN", "handler", "SIG_DFL+SA_NOCLDWAIT", "handler+SA_NOCLDSTOP"
};

/* The requests the scenarios make, by name. */
static const char *ptrace_name(long request)
{
	switch (request) {
	case PTRACE_TRACEME:	return "TRACEME";
	case PTRACE_CONT:	return "CONT";
	case PTRACE_KILL:	return "KILL";
	case PTRACE_ATTACH:	return "ATTACH";
	case PTRACE_DETACH:	return "DETACH";
	case PTRACE_SETOPTIONS:	return "SETOPTIONS";
	case PTRACE_GETEVENTMSG: return "GETEVENTMSG";
	case PTRACE_GETSIGINFO:	return "GETSIGINFO";
	case PTRACE_SETSIGINFO:	return "SETSIGINFO";
	case PTRACE_SEIZE:	return "SEIZE";
	case PTRACE_INTERRUPT:	return "INTERRUPT";
	case PTRACE_LISTEN:	return "LISTEN";
	default:		return "?";
	}
}

void or_describe(const struct or_step *s, char *buf, size_t len)
{
	buf[0] = '\0';
	put(buf, len, "P%d: ", s->who);
	switch (s->op) {
	case OP_FORK:
		put(buf, len, "fork() -> P%ld", s->a);
		break;
	case OP_CLONE:
		put(buf, len, "clone(0x%lx) -> P%ld", s->b, s->a);
		break;
	case OP_EXIT:
		put(buf, len, "_exit(%ld)", s->a);
		break;
	case OP_EXEC:
		put(buf, len, "execve()");
		break;
	case OP_THREAD:
		put(buf, len, "pthread_create() -> P%ld", s->a);
		break;
	case OP_THREAD_EXIT:
		put(buf, len, "exit(%ld) of the thread", s->a);
		break;
	case OP_WAIT4:
		put(buf, len, "wait4(");
		put_arg(buf, len, s->a);
		put(buf, len, ", 0x%lx|WNOHANG)", s->b);
		break;
	case OP_WAITID:
		put(buf, len, "waitid(idtype %ld, ", s->a);
		put_arg(buf, len, s->b);
		put(buf, len, ", 0x%lx|WNOHANG)", s->c);
		break;
	case OP_KILL:
		put(buf, len, "kill(");
		put_arg(buf, len, s->a);
		put(buf, len, ", ");
		put_sig(buf, len, (int)s->b);
		put(buf, len, ")");
		break;
	case OP_TGKILL:
		put(buf, len, "tgkill(");
		put_arg(buf, len, s->a);
		put(buf, len, ", ");
		put_arg(buf, len, s->b);
		put(buf, len, ", ");
		put_sig(buf, len, (int)s->c);
		put(buf, len, ")");
		break;
	case OP_SIGACTION:
		put(buf, len, "sigaction(");
		put_sig(buf, len, (int)s->a);
		put(buf, len, ", %s)", s->b >= 0 && s->b < ACT_NR ? act_names[s->b] : "?");
		break;
	case OP_SIGPROCMASK:
		put(buf, len, "sigprocmask(how %ld, {", s->a);
		if (s->b)
			put_sig(buf, len, (int)s->b);
		put(buf, len, "})");
		break;
	case OP_SETRESUID:
		put(buf, len, "setresuid(%ld, %ld, %ld)", s->a, s->b, s->c);
		break;
	case OP_PRCTL:
		put(buf, len, "prctl(%ld, %ld)", s->a, s->b);
		break;
	case OP_SETPGID:
		put_call2(buf, len, "setpgid", s->a, s->b);
		break;
	case OP_IOPRIO_SET:
		put(buf, len, "ioprio_set(%ld, ", s->a);
		put_arg(buf, len, s->b);
		put(buf, len, ", 0x%lx)", s->c);
		break;
	case OP_IOPRIO_GET:
		put_call2(buf, len, "ioprio_get", s->a, s->b);
		break;
	case OP_SETRLIMIT:
		put(buf, len, "setrlimit(%ld, %ld)", s->a, s->b);
		break;
	case OP_GETPID:
		put(buf, len, "getpid()");
		break;
	case OP_GETPPID:
		put(buf, len, "getppid()");
		break;
	case OP_SETSID:
		put(buf, len, "setsid()");
		break;
	case OP_TIOCSCTTY:
		put(buf, len, "ioctl(tty, TIOCSCTTY, 0)");
		break;
	case OP_TIOCSPGRP:
		put(buf, len, "tcsetpgrp(tty, ");
		put_arg(buf, len, s->a);
		put(buf, len, ")");
		break;
	case OP_TIOCNOTTY:
		put(buf, len, "ioctl(tty, TIOCNOTTY)");
		break;
	case OP_TIOCGPGRP:
		put(buf, len, "tcgetpgrp(tty)");
		break;
	case OP_SIGS:
		put(buf, len, "signals caught so far");
		break;
	case OP_SIGINFO:
		put(buf, len, "siginfo of the last signal caught");
		break;
	case OP_PTRACE:
		put(buf, len, "ptrace(%s, ", ptrace_name(s->a));
		put_arg(buf, len, s->b);
		put(buf, len, ", 0x%lx)", s->c);
		break;
	case OP_BURN:
		put(buf, len, "use %ld ns of CPU", s->a);
		break;
	case OP_TIMER_CREATE:
		put(buf, len, "timer_create(CLOCK_PROCESS_CPUTIME_ID, ");
		put_sig(buf, len, (int)s->a);
		put(buf, len, ")");
		break;
	case OP_TIMER_SET:
		put(buf, len, "timer_settime(%ld, TIMER_ABSTIME, %ld ns, every %ld ns)",
		    s->a, s->b, s->c);
		break;
	case OP_TIMER_GETOVERRUN:
		put(buf, len, "timer_getoverrun(%ld)", s->a);
		break;
	case OP_TIMER_DELETE:
		put(buf, len, "timer_delete(%ld)", s->a);
		break;
	case OP_SIGPENDING:
		put(buf, len, "sigpending()");
		break;
	case OP_CHILDREN_CPU:
		put(buf, len, "getrusage(RUSAGE_CHILDREN) time");
		break;
	case OP_UNSHARE:
		if (s->a == CLONE_NEWPID)
			put(buf, len, "unshare(CLONE_NEWPID)");
		else
			put(buf, len, "unshare(0x%lx)", s->a);
		break;
	case OP_SETNS:
		put(buf, len, "setns(/proc/P%ld/ns/%s, CLONE_NEWPID)", s->a,
		    s->b ? "pid_for_children" : "pid");
		break;
	case OP_NSPID:
		put(buf, len, "NSpid of /proc/");
		put_arg(buf, len, s->a);
		put(buf, len, "/status");
		break;
	case OP_ATTACH_POLL:
		put(buf, len, "ptrace(%s, ", ptrace_name(s->a));
		put_arg(buf, len, s->b);
		put(buf, len, "), at once wait4(");
		put_arg(buf, len, s->b);
		put(buf, len, ", __WALL|WNOHANG)");
		break;
	default:
		put(buf, len, "op %d", s->op);
		break;
	}
}

/* An event message: a name if it is one's pid, else the number. */
static void put_msg(char *buf, size_t len, const struct or_pidmap *map, unsigned long msg)
{
	for (int i = 0; i < OR_MAX_PROCS; i++) {
		if (msg && map->pid[i] == (pid_t)msg) {
			put(buf, len, "P%d", i);
			return;
		}
	}
	put(buf, len, "0x%lx", msg);
}

static void put_status(char *buf, size_t len, int st)
{
	put(buf, len, " status=0x%x", st);
	if (WIFEXITED(st)) {
		put(buf, len, " exited(%d)", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		put(buf, len, " killed(");
		put_sig(buf, len, WTERMSIG(st));
		put(buf, len, WCOREDUMP(st) ? ", core)" : ")");
	} else if (WIFSTOPPED(st)) {
		put(buf, len, " stopped(");
		put_sig(buf, len, WSTOPSIG(st));
		put(buf, len, st >> 16 ? ", event %d)" : ")", st >> 16);
	} else if (WIFCONTINUED(st)) {
		put(buf, len, " continued");
	}
}

/* A count that depends on how much CPU time passed: 0 or less as it is, else ">0". */
static void put_count_class(char *buf, size_t len, long n)
{
	if (n > 0)
		put(buf, len, ">0");
	else
		put(buf, len, "%ld", n);
}

static void put_siginfo(char *buf, size_t len, const struct or_reply *r,
			const struct or_pidmap *map)
{
	if (r->w_code == SI_TIMER) {	/* si_timerid and si_overrun share pid's and uid's places */
		put(buf, len, " {timer=%d overrun=", r->w_pid);
		put_count_class(buf, len, r->w_uid);
		put(buf, len, " signo=");
		put_sig(buf, len, r->w_signo);
		put(buf, len, " code=SI_TIMER}");
		return;
	}
	put(buf, len, " {pid=");
	put_pid(buf, len, map, r->w_pid);
	put(buf, len, " uid=%d signo=", r->w_uid);
	put_sig(buf, len, r->w_signo);
	put(buf, len, " code=%d status=%d}", r->w_code, r->w_status);
}

static void put_sigs(char *buf, size_t len, const struct or_reply *r)
{
	put(buf, len, "[");
	for (int i = 0; i < r->nsigs && i < OR_MAX_SIGS; i++) {
		put(buf, len, i ? "," : "");
		put_sig(buf, len, r->sigs[i]);
	}
	put(buf, len, "]");
}

void or_format(const struct or_step *s, const struct or_reply *r,
	       const struct or_pidmap *map, char *buf, size_t len)
{
	static const char *const how[] = { "", "killed before returning",
		"not running (exited, or never forked)", "no answer (driver timeout)",
		"stopped: no answer" };

	buf[0] = '\0';
	if (r->how == OR_NOPROC && r->err) {
		put(buf, len, "not running: its fork failed (%s)", strerrorname_np(r->err));
		return;
	}
	if (r->how != OR_OK) {
		put(buf, len, "%s", how[r->how]);
		return;
	}
	if (r->ret < 0) {
		const char *name = strerrorname_np(r->err);

		if (name)
			put(buf, len, "%s", name);
		else
			put(buf, len, "errno %d", r->err);
		return;
	}
	switch (s->op) {
	case OP_EXIT:
	case OP_THREAD_EXIT:
		put(buf, len, "-");
		break;
	case OP_FORK:
	case OP_CLONE:
	case OP_THREAD:
	case OP_GETPID:
	case OP_GETPPID:
	case OP_SETSID:
	case OP_TIOCGPGRP:
		put_pid(buf, len, map, (pid_t)r->ret);
		break;
	case OP_WAIT4:
	case OP_ATTACH_POLL:
		put_pid(buf, len, map, (pid_t)r->ret);
		if (r->ret > 0)
			put_status(buf, len, r->status);
		break;
	case OP_WAITID:
	case OP_SIGINFO:
		put(buf, len, "%ld", r->ret);
		put_siginfo(buf, len, r, map);
		break;
	case OP_SIGS:
	case OP_SIGPENDING:
		put_sigs(buf, len, r);
		break;
	case OP_NSPID:
		/* The caller's number as a name, the levels below as they are:
		   each namespace a scenario makes numbers from 1. */
		for (int i = 0; i < r->nspids && i < OR_MAX_LEVELS; i++) {
			if (i)
				put(buf, len, " %d", r->nspid[i]);
			else
				put_pid(buf, len, map, r->nspid[i]);
		}
		break;
	case OP_TIMER_GETOVERRUN:
	case OP_CHILDREN_CPU:
		put_count_class(buf, len, r->ret);
		break;
	case OP_PTRACE:
		put(buf, len, "%ld", r->ret);
		if (s->a == PTRACE_GETEVENTMSG) {
			put(buf, len, " msg=");
			put_msg(buf, len, map, r->msg);
		} else if (s->a == PTRACE_GETSIGINFO) {
			put_siginfo(buf, len, r, map);
		}
		break;
	default:
		put(buf, len, "%ld", r->ret);
		break;
	}
}

int or_compare(const struct or_scenario *sc, const char *mode,
	       const struct or_results *linux_, const struct or_results *rcuproc,
	       FILE *out)
{
	char what[OR_RESULT_LEN];
	int diffs = 0;

	for (int i = 0; sc->steps[i].op != OP_END; i++) {
		const char *want = i < linux_->n ? linux_->step[i] : "(not run)";
		const char *got = i < rcuproc->n ? rcuproc->step[i] : "(not run)";

		if (!strcmp(want, got))
			continue;
		or_describe(&sc->steps[i], what, sizeof(what));
		fprintf(out, "[%s/%s] step %d: %s\n\tlinux:   %s\n\trcuproc: %s\n",
			sc->name, mode, i, what, want, got);
		diffs++;
	}
	return diffs;
}

void or_print(const struct or_scenario *sc, const char *side,
	      const struct or_results *res, FILE *out)
{
	char what[OR_RESULT_LEN];

	fprintf(out, "%s (%s):\n", sc->name, side);
	for (int i = 0; i < res->n; i++) {
		or_describe(&sc->steps[i], what, sizeof(what));
		fprintf(out, "  %2d %-48s %s\n", i, what, res->step[i]);
	}
}
